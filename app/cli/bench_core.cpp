// The neural benchmark shared by `precis bench` and `precis-bench` (bench_core.h): times
// the encoder, its matrix products alone, greedy and beam decoding and peak memory per
// input length and compute type (fp32, int8, fp16-weights side by side; the ratios to fp32
// come from the same run). Each (length, compute type) runs in a child process so that the
// peak memory reported belongs to it alone.
#include "app/cli/bench_core.h"
#include "app/cli/bench_docs.h"
#include "app/cli/bench_rounds.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "engine/attention/bf16_attention.h"
#include "engine/backend/backend.h"
#include "engine/backend/int8_gemm.h"
#include "engine/backend/sgemm.h"
#include "engine/generate/model_runner.h"
#include "engine/core/error.h"
#include "engine/core/normal_draws.h"
#include "engine/generate/generation.h"
#include "engine/model/bart_weights.h"
#include "engine/model/compute_type.h"
#include "engine/config/config.h"
#include "engine/model/cross_memory.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis::cli {

BenchDeviceHooks& bench_device_hooks() {
    static BenchDeviceHooks hooks;
    return hooks;
}

std::set<std::string> bench_option_names() {
    return {"--model",  "--shape",        "--device", "--dtype",         "--lengths", "--repeat",
            "--new-tokens", "--beams", "--compute-type", "--rounds", "--docs", "--batch-size"};
}

std::set<std::string> bench_flag_names() { return {"--json", "--child", "--include-infeasible"}; }

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

ModelConfig shape_config(const std::string& shape, bool lsg, int max_positions) {
    ModelConfig c;
    if (shape == "base") {
        c.vocab_size = 50265;
        c.d_model = 768;
        c.encoder_layers = c.decoder_layers = 6;
        c.encoder_heads = c.decoder_heads = 12;
        c.encoder_ffn_dim = c.decoder_ffn_dim = 3072;
    } else if (shape == "large") {
        c.vocab_size = 50265;
        c.d_model = 1024;
        c.encoder_layers = c.decoder_layers = 12;
        c.encoder_heads = c.decoder_heads = 16;
        c.encoder_ffn_dim = c.decoder_ffn_dim = 4096;
    } else if (shape == "tiny") {
        c.vocab_size = 1000;
        c.d_model = 64;
        c.encoder_layers = c.decoder_layers = 2;
        c.encoder_heads = c.decoder_heads = 4;
        c.encoder_ffn_dim = c.decoder_ffn_dim = 128;
    } else {
        throw Error("--shape must be base, large or tiny, not '" + shape + "'");
    }
    c.architecture = lsg ? "LSGBartForConditionalGeneration" : "BartForConditionalGeneration";
    c.is_lsg = lsg;
    c.max_position_embeddings = max_positions;
    c.lsg.block_size = 128;
    c.lsg.sparse_block_size = 128;
    c.lsg.sparsity_factor = 4;
    c.lsg.sparsity_type = SparsityType::Norm;
    return c;
}

// A linear layer of random weights [out, in] stored as the compute type stores the model's.
LinearWeights random_linear(int64_t out, int64_t in, ComputeType compute) {
    Tensor w = Tensor::empty(DType::F32, {out, in});
    NormalDraws(7).fill(w.data<float>(), out * in, 0.02f);
    LinearWeights l;
    l.weight = LinearWeights::stored_as(w, compute, &l.scales);
    l.bias = Tensor::zeros(DType::F32, {out});
    return l;
}

// Times the encoder's matrix products alone, at this machine's speed for the model's
// compute type: the linear layers (same shapes, same backend, same weight format) and the
// attention's own float32 products — dense q.k^T and p.v for full attention, the
// per-block products over G + 2*SB + 3*B keys for LSG.
double gemm_seconds(Backend& be, const ModelConfig& c, ComputeType compute, int64_t rows, const AttentionOptions& att,
                    bool sparse) {
    const bool full_attention = att.kind == EncoderAttention::Full || (att.kind == EncoderAttention::Lsg && !sparse);
    const int64_t D = c.d_model, F = c.encoder_ffn_dim;
    std::vector<float> x(size_t(rows * std::max(D, F)), 0.01f), y(size_t(rows * std::max(D, F)));
    const LinearWeights square = random_linear(D, D, compute), up = random_linear(F, D, compute),
                        down = random_linear(D, F, compute);
    auto t0 = Clock::now();
    for (int l = 0; l < c.encoder_layers; ++l) {
        for (int p = 0; p < 4; ++p) be.linear(x.data(), rows, D, square.ref(), square.b(), D, y.data());
        for (int64_t r0 = 0; r0 < rows; r0 += 1024) {
            const int64_t n = std::min<int64_t>(1024, rows - r0);
            be.linear(x.data() + r0 * D, n, D, up.ref(), up.b(), F, y.data());
            be.linear(y.data(), n, F, down.ref(), down.b(), D, x.data() + r0 * D);
        }
    }
    double s = since(t0);
    const bool bf16_attention = compute == ComputeType::Int8 && int8_attention_products() == AttentionProducts::Bfloat16;
    if (full_attention && bf16_attention && rows >= kBf16MinRows) {
        // The same products in bfloat16, as this run's attention computes them.
        const int64_t tile = std::min<int64_t>(64, rows);
        auto t1 = Clock::now();
        for (int l = 0; l < c.encoder_layers; ++l)
            run_bf16_attention_products((rows + tile - 1) / tile * c.encoder_heads, int(tile), int(rows),
                                        int(c.d_model / c.encoder_heads), false);
        s += since(t1);
    } else if (full_attention) {
        // q k^T and p v per head over all rows: the dense attention's products.
        const int64_t hd = D / c.encoder_heads, tile = 256;
        std::vector<float> q(size_t(rows * hd), 0.01f), sc(size_t(tile * rows)), o(size_t(tile * hd));
        auto t1 = Clock::now();
        for (int l = 0; l < c.encoder_layers; ++l)
            for (int h = 0; h < c.encoder_heads; ++h)
                for (int64_t r0 = 0; r0 < rows; r0 += tile) {
                    const int64_t n = std::min(tile, rows - r0);
                    be.linear(q.data() + r0 * hd, n, hd, q.data(), nullptr, rows, sc.data());
                    // scores [n, rows] x v [rows, hd]: as a linear with W = v^T [hd, rows]
                    be.linear(sc.data(), n, rows, q.data(), nullptr, hd, o.data());
                }
        s += since(t1);
    }
    if (att.kind == EncoderAttention::Lsg && sparse) {
        // The per-block products over G + 2*SB + 3*B keys: in bfloat16 as lsg_attention
        // gathers them for an int8 run, else in float32.
        const int64_t hd = D / c.encoder_heads, B = att.lsg.block_size, blocks = rows / B;
        const int64_t keys = std::max(1, att.lsg.num_global_tokens) +
                             (att.lsg.sparse_enabled() ? 2 * att.lsg.sparse_block_size : 0) + 3 * B;
        std::vector<float> kv(size_t(keys * hd), 0.01f);
        auto t1 = Clock::now();
        for (int l = 0; l < c.encoder_layers; ++l) {
            if (bf16_attention) {
                run_bf16_attention_products(blocks * c.encoder_heads, int(B), int(keys), int(hd), true);
                continue;
            }
#pragma omp parallel
            {
                std::vector<float> q(size_t(B * hd), 0.01f), sc(size_t(B * keys)), o(size_t(B * hd));
#pragma omp for collapse(2) schedule(static)
                for (int64_t b = 0; b < blocks; ++b)
                    for (int h = 0; h < c.encoder_heads; ++h) {
                        sgemm(true, B, keys, hd, 1.f, q.data(), hd, kv.data(), hd, 0.f, sc.data(), keys);
                        sgemm(false, B, hd, keys, 1.f, sc.data(), keys, kv.data(), hd, 0.f, o.data(), hd);
                    }
            }
        }
        s += since(t1);
    }
    return s;
}

// The machine's limit for decoding: a stream-like copy (read + write bytes per second)
// of buffers far larger than the caches, split over the same OpenMP threads as the kernels.
double copy_bandwidth_bytes_per_second() {
    const size_t n = size_t(32) << 20;  // 128 MB per buffer
    std::vector<float> a(n, 1.f), b(n, 0.f);
    double best = 1e30;
    for (int pass = 0; pass < 4; ++pass) {
        auto t0 = Clock::now();
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < int64_t(n); ++i) b[size_t(i)] = a[size_t(i)];
        best = std::min(best, since(t0));
    }
    return 2.0 * double(n) * sizeof(float) / best;
}

// Weight bytes one greedy step reads: every decoder layer's self-attention, cross-attention
// query and output, feed-forward and the LM head (cross keys/values are computed once).
size_t decoder_bytes_per_token(const BartWeights& w) {
    auto lin = [](const LinearWeights& l) { return l.weight.nbytes() + (l.scales.defined() ? l.scales.nbytes() : 0); };
    size_t n = lin(w.lm_head);
    for (const DecoderLayerWeights& l : w.decoder_layers)
        n += lin(l.self_attn.q) + lin(l.self_attn.k) + lin(l.self_attn.v) + lin(l.self_attn.out) +
             lin(l.cross_attn.q) + lin(l.cross_attn.out) + lin(l.fc1) + lin(l.fc2);
    return n;
}

// Tokens per second of a decoding run timed from its first streamed token to its end, so
// that the one-time cross keys/values are left out. A backend whose runner streams no
// tokens gets the whole run's rate instead, and `timed_from_first` says so.
struct DecodeTiming {
    double tokens_per_second = 0;
    double seconds_to_first = 0;
    bool timed_from_first = true;
};

DecodeTiming time_generation(const Model& model, Backend& be, const EncoderOutput& enc, const GenerationConfig& g) {
    Clock::time_point t_first;
    bool first_seen = false;
    RunCallbacks cb;
    cb.on_tokens = [&](int, const std::vector<int64_t>&) {
        if (!first_seen) t_first = Clock::now(), first_seen = true;
    };
    const auto t0 = Clock::now();
    GenerationResult r = generate(model, be, enc, g, cb);
    const auto t_end = Clock::now();
    DecodeTiming d;
    if (first_seen && r.steps > 1) {
        d.seconds_to_first = std::chrono::duration<double>(t_first - t0).count();
        d.tokens_per_second = (r.steps - 1) / std::max(1e-9, std::chrono::duration<double>(t_end - t_first).count());
    } else {
        d.timed_from_first = false;
        d.tokens_per_second = r.steps / std::max(1e-9, std::chrono::duration<double>(t_end - t0).count());
    }
    return d;
}

nlohmann::json bench_one(const Arguments& args, int length, const BenchFrontEnd& front) {
    // The backend first: it sets the allocator up so that the transient float32 matrices
    // of a quantized model's loading are returned at once and do not inflate the peak.
    std::string device;
    auto be = front.backend(args, &device);
    BenchDeviceHooks& hooks = bench_device_hooks();
    // A backend with a runner holds the run on its device: the device's own numbers apply.
    ModelRunner* runner = be->runner();
    const bool on_device = runner != nullptr;
    if (on_device) {
        runner->set_profiling(false);  // the timed encodes run as a summary would
        runner->reset_stats();
        if (hooks.reset_peak_memory) hooks.reset_peak_memory(*be);
    }
    const std::string attention = args.value_or("--attention", "lsg");
    std::shared_ptr<const Model> model;
    AttentionOptions att;
    if (args.value("--model")) {
        BenchModel loaded = front.load_model(args);
        model = loaded.model;
        att = loaded.attention;
    } else {
        const std::string shape = args.value_or("--shape", "base");
        const int positions = std::max(1024, length);
        ModelConfig cfg = shape_config(shape, attention != "full", positions);
        model = Model::from_parts(cfg,
                                  BartWeights::random(cfg, 1234, parse_compute_type(args.value_or("--compute-type", "fp32"))),
                                  nullptr, GenerationConfig{}, "random-" + shape);
        att = front.attention(*model, args);
    }
    const int repeat = args.int_value("--repeat").value_or(3);
    const int new_tokens = args.int_value("--new-tokens").value_or(32);
    const int beams = args.int_value("--beams").value_or(4);
    check(repeat >= 1, "--repeat must be at least 1, not " + std::to_string(repeat));
    check(new_tokens >= 1, "--new-tokens must be at least 1, not " + std::to_string(new_tokens));
    check(beams >= 2 && beams <= 64, "--beams must be between 2 and 64, not " + std::to_string(beams));
    const ModelConfig& c = model->config();

    std::mt19937 rng(7);
    std::vector<int64_t> ids(static_cast<size_t>(length));
    for (auto& id : ids) id = 4 + int64_t(rng() % uint32_t(c.vocab_size - 5));
    ids.front() = c.bos_token_id;
    ids.back() = c.eos_token_id;

    std::vector<double> enc_times;
    EncoderOutput enc;
    const RunCallbacks encode_cb = front.progress ? front.progress("bench " + std::to_string(length)) : RunCallbacks{};
    // A device runner uploads the weights (and cuBLAS picks its kernels) on the first run:
    // a one-time cost a summary pays once per model, so it is paid here before timing.
    if (on_device) enc = run_encoder(*model, *be, {ids}, {}, att, {});
    for (int i = 0; i < repeat; ++i) {
        enc = EncoderOutput{};  // a repetition's output is not held while the next is made
        auto t0 = Clock::now();
        enc = run_encoder(*model, *be, {ids}, {}, att, encode_cb);
        enc_times.push_back(since(t0));
    }
    if (front.progress_done) front.progress_done();

    GenerationConfig g;
    g.num_beams = 1;
    g.max_new_tokens = new_tokens;
    g.eos_token_id = -1;  // never stop early: time exactly new_tokens steps
    g.forced_bos_token_id = g.forced_eos_token_id = -1;
    // Tokens per second of the steady decoding loop, and separately the one-time cost
    // before the first token (cross-attention keys/values for the whole input).
    std::vector<double> tps, first;
    bool greedy_from_first = true;
    for (int i = 0; i < std::max(1, repeat / 2); ++i) {
        const DecodeTiming d = time_generation(*model, *be, enc, g);
        tps.push_back(d.tokens_per_second);
        first.push_back(d.seconds_to_first);
        greedy_from_first = greedy_from_first && d.timed_from_first;
    }
    // A device runner's split of its last generation's steps: wall, device, layers (ms/step).
    nlohmann::json step_split;
    auto record_steps = [&](const std::string& search) {
        if (!on_device || be->runner() != runner) return;
        const RunnerStats st = runner->stats();
        if (st.decode_steps <= 0) return;
        const double per = 1e3 / st.decode_steps;
        step_split[search] = {{"wall_ms", st.decode_wall_seconds * per},
                              {"device_ms", st.decode_device_seconds * per},
                              {"layers_ms", st.decode_layers_seconds * per}};
    };
    record_steps("greedy");
    // Beam search: `beams` decoder rows per step, timed like greedy from the end of its
    // first step (which computes the same cross keys/values as greedy's).
    GenerationConfig gb = g;
    gb.num_beams = beams;
    gb.early_stopping = false;
    const DecodeTiming beam = time_generation(*model, *be, enc, gb);
    record_steps("beam");
    // Peak memory of the real work, taken before the GEMM-only timing allocates its own buffers.
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    // On a device: the most memory the runner held at once (its own count), and, where a
    // hook is registered, a second measure of it (precis-bench samples the whole device).
    std::optional<uint64_t> device_peak, device_peak_hook;
    if (on_device) {
        if (be->runner() == runner) device_peak = runner->stats().peak_device_bytes;
        if (hooks.peak_memory_bytes) device_peak_hook = hooks.peak_memory_bytes(*be);
    }
    const int64_t rows = enc.rows[0].num_global + enc.rows[0].padded_length;
    // The products alone: the CPU timing below drives be.linear with host buffers, which
    // measures nothing useful for a device backend, so a device run needs its hook.
    std::optional<double> gemm_median, device_encoder_seconds, encoder_attention_seconds;
    if (!on_device) {
        std::vector<double> gemm;
        for (int i = 0; i < repeat; ++i)
            gemm.push_back(gemm_seconds(*be, c, model->compute_type(), rows, att, enc.rows[0].sparse_path));
        gemm_median = median(gemm);
    } else if (hooks.encoder_products_seconds) {
        std::vector<double> gemm;
        for (int i = 0; i < repeat; ++i)
            if (auto s = hooks.encoder_products_seconds(*be, *model, att, rows, enc.rows[0].sparse_path)) gemm.push_back(*s);
        if (!gemm.empty()) gemm_median = median(gemm);
    } else if (be->runner() == runner) {
        // The runner times the products of an encode with device events when profiling is
        // on: extra encodes, apart from the timed ones above, so their events cost nothing there.
        std::vector<double> gemm, device_encoder, attention_time;
        runner->set_profiling(true);
        for (int i = 0; i < repeat; ++i) {
            enc = EncoderOutput{};
            enc = run_encoder(*model, *be, {ids}, {}, att, encode_cb);
            if (be->runner() != runner) break;  // the device failed: the CPU ran it, no device numbers
            gemm.push_back(runner->stats().encoder_product_seconds);
            device_encoder.push_back(runner->stats().encoder_seconds);
            attention_time.push_back(runner->stats().encoder_attention_seconds);
        }
        if (!attention_time.empty() && median(attention_time) > 0) encoder_attention_seconds = median(attention_time);
        if (be->runner() == runner) runner->set_profiling(false);
        if (!gemm.empty() && median(gemm) > 0) gemm_median = median(gemm);
        if (!device_encoder.empty()) device_encoder_seconds = median(device_encoder);
    }
    const double bandwidth = copy_bandwidth_bytes_per_second();
    // Cross-attention reads every layer's keys and values over the whole input each step,
    // stored as the compute type keeps them (cross_memory.h).
    const double cross_kv_bytes =
        double(c.decoder_layers) * double(CrossMemory::bytes_for(enc.rows[0].memory_rows(), c.decoder_heads,
                                                                 c.d_model / c.decoder_heads, model->compute_type()));
    const double step_bytes = double(decoder_bytes_per_token(model->weights())) + cross_kv_bytes;

    nlohmann::json j;
    j["length"] = length;
    j["model"] = model->name();
    j["device"] = device;
    j["dtype"] = args.value_or("--dtype", "auto");
    j["on_device"] = on_device;
    j["threads"] = cpu_threads();
    j["attention"] = attention;
    j["compute_type"] = compute_type_name(model->compute_type());
    // Which int8 kernel ran (PRECIS_INT8_KERNEL picks another, to compare).
    if (model->compute_type() == ComputeType::Int8) {
        j["int8_kernel"] = int8_kernel_description(int8_gemm_kernel());
        j["int8_attention"] = attention_products_name(int8_attention_products());  // bf16_attention.h
    }
    j["fp32_gemm"] = fp32_gemm_name(fp32_gemm_in_use());  // the encoder's float products (sgemm.h)
    j["linear_weights_mb"] = double(model->weights().linear_weight_bytes()) / 1e6;
    if (att.kind == EncoderAttention::Lsg) {
        j["sparsity_type"] = sparsity_type_name(att.lsg.sparsity_type);
        j["block_size"] = att.lsg.block_size;
        j["sparsity_factor"] = att.lsg.sparsity_factor;
        j["sparse_path"] = enc.rows[0].sparse_path;
    }
    j["encoder_seconds"] = median(enc_times);
    if (gemm_median) {
        j["encoder_gemm_seconds"] = *gemm_median;
        j["encoder_over_gemm"] = median(enc_times) / std::max(1e-9, *gemm_median);
    } else {
        j["encoder_gemm_seconds"] = nullptr;
        j["encoder_over_gemm"] = nullptr;
        j["encoder_gemm_seconds_note"] = "not measured: the device runner reported no product time";
    }
    if (device_encoder_seconds) j["encoder_device_seconds"] = *device_encoder_seconds;  // the runner's, profiled
    if (encoder_attention_seconds) j["encoder_attention_seconds"] = *encoder_attention_seconds;  // likewise
    j["new_tokens"] = new_tokens;
    j["greedy_tokens_per_second"] = median(tps);
    j["seconds_to_first_token"] = median(first);
    if (!greedy_from_first || !beam.timed_from_first)
        j["decode_timing_note"] = "the backend streamed no tokens: rates include the first step";
    j["beams"] = beams;
    j["beam_tokens_per_second"] = beam.tokens_per_second;
    // The historical name, which scripts and tests read, for the default of 4 beams.
    j["beam" + std::to_string(beams) + "_tokens_per_second"] = beam.tokens_per_second;
    if (!step_split.empty()) j["decode_step_split"] = step_split;
    j["peak_memory_mb"] = double(ru.ru_maxrss) * 1024.0 / 1e6;  // host, decimal megabytes
    if (on_device) {
        if (device_peak) {
            j["peak_gpu_memory_mb"] = double(*device_peak) / 1e6;
        } else {
            j["peak_gpu_memory_mb"] = nullptr;
            j["peak_gpu_memory_note"] = "not measured: the device failed and the CPU finished the run";
        }
        if (device_peak_hook) {
            j["peak_gpu_memory_sampled_mb"] = double(*device_peak_hook) / 1e6;
            j["peak_gpu_memory_sampled_method"] = hooks.peak_memory_method;
        }
    }
    // The device failed part-way and the CPU ops finished: the numbers mix the two.
    if (on_device && be->runner() != runner) j["device_failed_during_run"] = true;
    j["copy_bandwidth_gb_per_second"] = bandwidth / 1e9;
    j["decoder_weight_mb_per_token"] = (step_bytes - cross_kv_bytes) / 1e6;
    j["cross_attention_kv_mb_per_token"] = cross_kv_bytes / 1e6;
    // Tokens/s if a step cost nothing but reading its weights and cross keys/values once
    // at the host's copy bandwidth (a CPU bound; a device run has its own).
    j["greedy_bandwidth_bound_tokens_per_second"] = bandwidth / step_bytes;
    j["greedy_fraction_of_bandwidth_bound"] = median(tps) / (bandwidth / step_bytes);
    return j;
}

// One length and compute type, with the same arguments otherwise, in a child process (so
// that its peak memory is its own): the child's JSON line.
nlohmann::json run_child(const std::vector<std::string>& raw, const BenchFrontEnd& front, int length,
                         const std::string& compute) {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    std::string rebuilt = "'" + self + "'";
    for (const std::string& word : front.child_prefix) rebuilt += " '" + word + "'";
    rebuilt += " --child --lengths " + std::to_string(length) + " --compute-type " + compute;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == "--lengths" || raw[i] == "--compute-type" || raw[i] == "--rounds") {
            ++i;
            continue;
        }
        if (raw[i].rfind("--lengths=", 0) == 0 || raw[i].rfind("--compute-type=", 0) == 0 ||
            raw[i].rfind("--rounds=", 0) == 0 || raw[i] == "--json")
            continue;
        rebuilt += " '" + raw[i] + "'";
    }
    FILE* p = popen(rebuilt.c_str(), "r");
    if (!p) throw Error("cannot start the benchmark child process");
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int rc = pclose(p);
    if (rc != 0) throw Error("the benchmark at " + std::to_string(length) + " tokens (" + compute + ") failed");
    return nlohmann::json::parse(out.substr(out.find('{')));
}

}  // namespace

int run_bench(const Arguments& args, const std::vector<std::string>& raw, const BenchFrontEnd& front) {
    if (args.value("--docs")) return bench_docs(args, front);
    std::vector<int> lengths;
    for (const std::string& s : split_list(args.value_or("--lengths", "1024,4096,16384"))) {
        try {
            lengths.push_back(std::stoi(s));
        } catch (const std::exception&) {
            throw Error("--lengths needs comma-separated integers, not '" + s + "'");
        }
        check(lengths.back() >= 4 && lengths.back() <= kMaxPositionsLimit,
              "--lengths entries must be between 4 and " + std::to_string(kMaxPositionsLimit) + " tokens, not " + s);
    }
    // The parent runs every listed compute type; a child runs one.
    std::vector<std::string> compute_types;
    for (const std::string& s : split_list(args.value_or("--compute-type", "fp32,int8,fp16-weights")))
        compute_types.push_back(compute_type_name(parse_compute_type(s)));
    if (args.flag("--child")) {  // one length, one JSON line, in this process
        std::cout << bench_one(args, lengths.at(0), front).dump() << std::endl;
        return 0;
    }
    const int rounds = args.int_value("--rounds").value_or(1);
    check(rounds >= 1, "--rounds must be at least 1, not " + std::to_string(rounds));
    nlohmann::json all = nlohmann::json::array();
    for (int length : lengths) {
        if (args.value_or("--attention", "lsg") == "full" && length > 8192 && !args.flag("--include-infeasible")) {
            std::cerr << "precis bench: skipping full attention at " << length
                      << " tokens (quadratic; pass --include-infeasible to run it)\n";
            continue;
        }
        // Round after round, every compute type once: a round's ratios compare runs made
        // minutes apart at most, which a machine whose speed drifts (a shared VM's memory
        // bandwidth moves by 2x) needs; the medians over rounds are reported.
        std::map<std::string, std::vector<nlohmann::json>> runs;
        for (int round = 0; round < rounds; ++round)
            for (const std::string& compute : compute_types)
                runs[compute].push_back(run_child(raw, front, length, compute));
        for (const std::string& compute : compute_types) {
            nlohmann::json j = median_over_rounds(runs[compute]);
            if (compute != "fp32" && runs.count("fp32")) add_ratios_to_fp32(runs["fp32"], runs[compute], j);
            all.push_back(j);
            if (!args.flag("--json")) print_result(length, compute, j);
        }
    }
    if (args.flag("--json")) std::cout << all.dump(2) << "\n";
    return 0;
}

}  // namespace precis::cli
