// precis-attention-bench: the encoder self-attention of one layer on the GPU, in its parts —
// building the sparse keys, the plan-driven attention of the token blocks, and the global
// rows — per sparsity type and length, beside full attention at the same length in the same
// process; then the layer's row-wise ops (biases, LayerNorms, GELU) at each length. It is what `precis bench`'s "attention" column is made of, taken apart, so a
// kernel change can be measured alone. Random inputs (the timings do not depend on values,
// except norm's and lsh's selections, which random values exercise fairly).
//
//   precis-attention-bench [--lengths 4096,16384] [--types full,norm,pooling,...]
//                          [--dtype fp16|bf16|fp32] [--heads 12] [--head-dim 64]
//                          [--block 128] [--factor 4] [--global 1] [--reps 10]
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/attention/attention.h"
#include "engine/core/dtype.h"
#include "engine/core/error.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/encoder_attention.h"
#include "kernels/span_timer.h"

namespace precis::cuda {
namespace {

struct Options {
    std::vector<int> lengths{4096, 16384};
    std::vector<std::string> types{"full", "norm", "pooling", "stride", "block_stride", "bos_pooling", "lsh"};
    Precision p = Precision::F16;
    int heads = 12, head_dim = 64, block = 128, factor = 4, global = 1, reps = 10;
};

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        check(i + 1 < argc, a + " needs a value");
        const std::string v = argv[++i];
        if (a == "--lengths") {
            o.lengths.clear();
            for (const std::string& x : split_list(v)) o.lengths.push_back(std::stoi(x));
        } else if (a == "--types") {
            o.types = split_list(v);
        } else if (a == "--dtype") {
            check(v == "fp16" || v == "bf16" || v == "fp32", "--dtype is fp16, bf16 or fp32");
            o.p = v == "fp16" ? Precision::F16 : v == "bf16" ? Precision::BF16 : Precision::F32;
        } else if (a == "--heads") {
            o.heads = std::stoi(v);
        } else if (a == "--head-dim") {
            o.head_dim = std::stoi(v);
        } else if (a == "--block") {
            o.block = std::stoi(v);
        } else if (a == "--factor") {
            o.factor = std::stoi(v);
        } else if (a == "--global") {
            o.global = std::stoi(v);
        } else if (a == "--reps") {
            o.reps = std::stoi(v);
        } else {
            throw Error("unknown option " + a);
        }
    }
    return o;
}

// Random rows [rows, dim] in precision p, values of a projected activation's size.
DeviceBuffer random_rows(Precision p, size_t n, std::mt19937& rng) {
    std::normal_distribution<float> dist(0.f, 1.f);
    if (p == Precision::F32) {
        std::vector<float> h(n);
        for (float& x : h) x = dist(rng);
        return upload(h);
    }
    std::vector<uint16_t> h(n);
    for (uint16_t& x : h) x = p == Precision::F16 ? float_to_half(dist(rng)) : float_to_bf16(dist(rng));
    return upload(h);
}

EncoderAttentionSettings settings_for(const std::string& type, const Options& o) {
    EncoderAttentionSettings s;
    if (type == "full") return s;
    s.kind = ::precis::EncoderAttention::Lsg;
    s.lsg.block_size = o.block;
    s.lsg.sparse_block_size = o.block;
    s.lsg.sparsity_factor = o.factor;
    s.lsg.num_global_tokens = o.global;
    s.lsg.sparsity_type = parse_sparsity_type(type);
    return s;
}

// Nominal multiply-adds of the attention products: 2 products of head_dim per (query, key).
double plan_flops(const AttentionPlan& plan, int heads, int head_dim) {
    double pairs = 0;
    for (size_t b = 0; b < plan.blocks.size(); ++b)
        pairs += double(plan.blocks[b].query_end - plan.blocks[b].query_begin) * double(plan.keys_of_block(b));
    return pairs * heads * head_dim * 4.0;
}

void bench(const Options& o) {
    std::mt19937 rng(7);
    cudaStream_t stream;
    PRECIS_CUDA_CHECK(cudaStreamCreate(&stream));
    const int D = o.heads * o.head_dim;
    std::printf("| length | type | sparse keys ms | token blocks ms | global rows ms | layer ms | x full | TFLOP/s |\n");
    std::printf("|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (int T : o.lengths) {
        double full_ms = 0;
        for (const std::string& type : o.types) {
            const EncoderAttentionSettings s = settings_for(type, o);
            const int G = s.kind == ::precis::EncoderAttention::Lsg ? o.global : 0;
            const size_t n = size_t(G + T) * size_t(D);
            DeviceBuffer q = random_rows(o.p, n, rng), k = random_rows(o.p, n, rng), v = random_rows(o.p, n, rng);
            DeviceBuffer out(n * bytes_of(o.p));
            DeviceBuffer mask = upload(std::vector<float>(size_t(G + T), 0.f));
            DeviceBuffer lsh_r;
            if (draws_lsh_projections(s)) {
                LshProjections lsh = LshProjections::seeded(1);
                lsh_r = upload(lsh_projections_of_layer(lsh, s.lsg, 0, o.heads, o.head_dim));
            }
            DeviceSelfAttention att;
            att.prepare(s, G, T, o.heads, o.head_dim, o.p, stream);
            SpanTimer keys, blocks, globals, whole;
            att.time_spans({&keys, &blocks, &globals});
            for (int w = 0; w < 2; ++w)
                att.run(q.get(), k.get(), v.get(), mask.as<float>(), lsh_r.as<float>(), out.get());
            for (SpanTimer* t : {&keys, &blocks, &globals, &whole}) t->enable(true);
            for (int r = 0; r < o.reps; ++r) {
                TimedSpan t(&whole, stream);
                att.run(q.get(), k.get(), v.get(), mask.as<float>(), lsh_r.as<float>(), out.get());
            }
            const double per = 1000.0 / o.reps;
            const double k_ms = keys.collect() * per, b_ms = blocks.collect() * per, g_ms = globals.collect() * per;
            const double layer_ms = whole.collect() * per;
            if (type == "full") full_ms = layer_ms;
            const double tflops = plan_flops(att.host_plan(), o.heads, o.head_dim) / (b_ms * 1e-3) / 1e12;
            std::printf("| %d | %s | %.3f | %.3f | %.3f | %.3f | %s | %.1f |\n", T, type.c_str(), k_ms, b_ms, g_ms,
                        layer_ms, full_ms > 0 && type != "full" ? (std::to_string(full_ms / layer_ms) + "x").c_str() : "",
                        tflops);
            std::fflush(stdout);
        }
    }
    // The row-wise ops of one encoder layer at each length, for the encoder's time that is
    // neither products nor attention: the q/k/v biases, two bias + residual + LayerNorms and
    // the bias + GELU over the FFN's rows (F = 4 * D, as BART).
    std::printf("\n| length | q/k/v biases ms | 2 x add+LayerNorm ms | bias+GELU ms | GB moved | GB/s |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|\n");
    for (int T : o.lengths) {
        const int64_t F = 4 * int64_t(D);
        const size_t el = bytes_of(o.p);
        DeviceBuffer x = random_rows(o.p, size_t(T) * D, rng), delta = random_rows(o.p, size_t(T) * D, rng);
        DeviceBuffer hidden = random_rows(o.p, size_t(T) * F, rng);
        DeviceBuffer bias = upload(std::vector<float>(size_t(F), 0.01f));
        DeviceBuffer gamma = upload(std::vector<float>(size_t(D), 1.f)), beta = upload(std::vector<float>(size_t(D), 0.f));
        SpanTimer biases, norms, gelu;
        for (int r = 0; r < o.reps + 2; ++r) {
            for (SpanTimer* t : {&biases, &norms, &gelu}) t->enable(r >= 2);
            {
                TimedSpan t(&biases, stream);
                for (int i = 0; i < 3; ++i) bias_activation(o.p, x.get(), bias.as<float>(), T, D, false, stream);
            }
            {
                TimedSpan t(&norms, stream);
                for (int i = 0; i < 2; ++i)
                    add_layer_norm(o.p, x.get(), delta.get(), bias.as<float>(), T, D, gamma.as<float>(),
                                   beta.as<float>(), 1e-5f, stream);
            }
            {
                TimedSpan t(&gelu, stream);
                bias_activation(o.p, hidden.get(), bias.as<float>(), T, F, true, stream);
            }
        }
        const double per = 1000.0 / o.reps;
        const double b_ms = biases.collect() * per, n_ms = norms.collect() * per, g_ms = gelu.collect() * per;
        // Bytes each op must move at least: read + write of its rows (+ delta read for the norms).
        const double gb = (3.0 * 2 * T * D + 2.0 * 3 * T * D + 2.0 * T * F) * double(el) / 1e9;
        std::printf("| %d | %.3f | %.3f | %.3f | %.3f | %.0f |\n", T, b_ms, n_ms, g_ms, gb,
                    gb / ((b_ms + n_ms + g_ms) * 1e-3));
        std::fflush(stdout);
    }
    PRECIS_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace precis::cuda

int main(int argc, char** argv) {
    try {
        precis::cuda::bench(precis::cuda::parse(argc, argv));
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "precis-attention-bench: " << e.what() << "\n";
        return 1;
    }
}
