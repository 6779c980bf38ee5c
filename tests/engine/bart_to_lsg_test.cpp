// BART -> LSG conversion against the reference converter's output (fixtures README 5.4),
// plus the general rules of lsg-spec section 5 on a synthetic BART-sized table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "engine/convert/bart_to_lsg.h"
#include "engine/io/safetensors.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;
using namespace precis;
using nlohmann::json;

namespace {

json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

bool same_bytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

bool same_row(const Tensor& a, const Tensor& b, int64_t row) {
    const int64_t d = a.dim(1);
    return std::memcmp(a.data<float>() + row * d, b.data<float>() + row * d, size_t(d) * 4) == 0;
}

// The parameters recorded in cases/bart-tiny-to-lsg/expected.json["conversion"].
ConversionOptions reference_options(const json& conv) {
    ConversionOptions o;
    o.max_positions = conv.at("max_sequence_length").get<int>();
    o.stride = conv.at("global_positional_stride").get<int>();
    o.keep_first_global_token = conv.at("keep_first_global_token").get<bool>();
    const json& k = conv.at("model_kwargs");
    o.block_size = k.at("block_size").get<int>();
    o.sparse_block_size = k.at("sparse_block_size").get<int>();
    o.sparsity_factor = k.at("sparsity_factor").get<int>();
    o.sparsity_type = k.at("sparsity_type").get<std::string>();
    o.num_global_tokens = k.at("num_global_tokens").get<int>();
    o.bos_id = conv.at("bos_token_id").get<int64_t>();
    o.mask_id = conv.at("mask_token_id").get<int64_t>();
    o.seed = conv.at("seed").get<uint64_t>();
    return o;
}

struct Reference {
    json conv;
    ConversionOptions opts;
    SafetensorsFile expected;
    Reference()
        : conv(read_json(test::fixtures_dir() / "cases/bart-tiny-to-lsg/expected.json").at("conversion")),
          opts(reference_options(conv)),
          expected(read_safetensors(test::fixtures_dir() / "models/bart-tiny-to-lsg/model.safetensors")) {}

    // Every tensor bit-exact, global_embeddings exact on the deterministic rows.
    void check(const std::map<std::string, Tensor>& got) const {
        ASSERT_FALSE(conv.at("random_global_init").get<bool>());
        for (const auto& [name, t] : expected.tensors) {
            SCOPED_TRACE(name);
            ASSERT_TRUE(got.count(name));
            const Tensor& g = got.at(name);
            ASSERT_EQ(g.dtype(), t.dtype());
            ASSERT_EQ(g.shape(), t.shape());
            if (name != "model.encoder.global_embeddings.weight") {
                EXPECT_TRUE(same_bytes(g, t));
                continue;
            }
            const auto rows = conv.at("global_embeddings_deterministic_rows").get<std::vector<int64_t>>();
            ASSERT_EQ(rows.size(), 128u);
            for (int64_t r : rows) EXPECT_TRUE(same_row(g, t, r)) << "global row " << r;
        }
    }
};

// A fake BART: V x D shared, (positions + 2) x D tables with distinct values.
WeightMap synthetic_bart(int64_t V, int64_t D, int64_t positions) {
    WeightMap w("synthetic");
    std::vector<float> shared(size_t(V * D)), enc(size_t((positions + 2) * D)), dec(enc.size());
    for (size_t i = 0; i < shared.size(); ++i) shared[i] = float(i) * 1e-3f;
    for (size_t i = 0; i < enc.size(); ++i) enc[i] = float(i / size_t(D));  // row index
    for (size_t i = 0; i < dec.size(); ++i) dec[i] = -float(i / size_t(D));
    w.insert("model.shared.weight", Tensor::from_floats({V, D}, shared));
    w.insert("model.encoder.embed_positions.weight", Tensor::from_floats({positions + 2, D}, enc));
    w.insert("model.decoder.embed_positions.weight", Tensor::from_floats({positions + 2, D}, dec));
    w.insert("model.encoder.layernorm_embedding.weight", Tensor::from_floats({D}, std::vector<float>(size_t(D), 1.f)));
    return w;
}

ModelConfig synthetic_config(int64_t V, int D, int positions) {
    ModelConfig c;
    c.architecture = "BartForConditionalGeneration";
    c.vocab_size = V;
    c.d_model = D;
    c.encoder_layers = c.decoder_layers = 1;
    c.encoder_heads = c.decoder_heads = 1;
    c.encoder_ffn_dim = c.decoder_ffn_dim = 4;
    c.max_position_embeddings = positions;
    return c;
}

}  // namespace

TEST(BartToLsg, FolderConversionReproducesTheReferenceCheckpoint) {
    const Reference ref;
    const fs::path out = test::scratch_dir("convert") / "bart-tiny-to-lsg";
    convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", out, ref.opts);

    SafetensorsFile got = read_safetensors(out / "model.safetensors");
    EXPECT_EQ(got.tensors.size(), ref.expected.tensors.size());  // tied weights written once
    EXPECT_EQ(got.metadata.at("format"), "pt");
    ref.check(got.tensors);

    // config.json: the same keys and values as the reference's (LSG part included).
    const json expected_cfg = read_json(test::fixtures_dir() / "models/bart-tiny-to-lsg/config.json");
    const json got_cfg = read_json(out / "config.json");
    EXPECT_EQ(got_cfg, expected_cfg) << json::diff(expected_cfg, got_cfg).dump(2);
    EXPECT_EQ(read_bytes(out / "generation_config.json"),
              read_bytes(test::fixtures_dir() / "models/bart-tiny/generation_config.json"));
    ModelConfig c = parse_model_config(out / "config.json");
    EXPECT_TRUE(c.is_lsg);
    EXPECT_EQ(c.lsg.num_global_tokens, 2);
    // Nothing but the converted folder is left next to it.
    EXPECT_EQ(std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator()), 1);
}

TEST(BartToLsg, InMemoryConversionOfTheBinCheckpointMatchesTooAndGivesARunnableConfig) {
    const Reference ref;
    const fs::path src = test::fixtures_dir() / "models/bart-tiny-bin";
    const ModelConfig bart_cfg = parse_model_config(src / "config.json");
    const WeightMap bart = load_checkpoint(src);
    json cfg_json = read_json(src / "config.json");
    const WeightMap lsg = convert_bart_to_lsg(bart, bart_cfg, ref.opts, &cfg_json);
    std::map<std::string, Tensor> got(lsg.begin(), lsg.end());
    ref.check(got);
    // Untouched weights are shared, not copied.
    EXPECT_EQ(lsg.get("model.encoder.layers.0.fc1.weight").raw(), bart.get("model.encoder.layers.0.fc1.weight").raw());
    EXPECT_EQ(lsg.get("lm_head.weight").raw(), lsg.get("model.shared.weight").raw());

    const ModelConfig c = lsg_model_config(bart_cfg, ref.opts);
    EXPECT_TRUE(c.is_lsg);
    EXPECT_EQ(c.architecture, "LSGBartForConditionalGeneration");
    EXPECT_EQ(c.max_position_embeddings, 512);
    EXPECT_EQ(c.lsg.block_size, 16);
    EXPECT_EQ(c.lsg.sparsity_type, SparsityType::Norm);
    // The updated JSON parses to the same config.
    const ModelConfig from_json = model_config_from_json(cfg_json, "converted config");
    EXPECT_EQ(from_json.lsg.num_global_tokens, c.lsg.num_global_tokens);
    EXPECT_EQ(from_json.max_position_embeddings, 512);
}

TEST(BartToLsg, RandomPaddingRowsFollowTheSeed) {
    const Reference ref;
    const fs::path src = test::fixtures_dir() / "models/bart-tiny";
    const ModelConfig cfg = parse_model_config(src / "config.json");
    const WeightMap bart = load_checkpoint(src);
    ConversionOptions a = ref.opts, b = ref.opts;
    b.seed = a.seed + 1;
    const Tensor ga = convert_bart_to_lsg(bart, cfg, a).get("model.encoder.global_embeddings.weight");
    const Tensor ga2 = convert_bart_to_lsg(bart, cfg, a).get("model.encoder.global_embeddings.weight");
    const Tensor gb = convert_bart_to_lsg(bart, cfg, b).get("model.encoder.global_embeddings.weight");
    EXPECT_TRUE(same_bytes(ga, ga2));
    const auto det = ref.conv.at("global_embeddings_deterministic_rows").get<std::vector<int64_t>>();
    for (int64_t r = 0; r < 512; ++r) {
        const bool deterministic = std::find(det.begin(), det.end(), r) != det.end();
        EXPECT_EQ(same_row(ga, gb, r), deterministic) << "row " << r;
    }
}

TEST(BartToLsg, GlobalRowsAndTilingFollowTheSpecForAFullSizeBartTable) {
    // 1024 positions as in BART: F = 2, stride 64 -> s' = 32, 16 rows per stride group.
    const int64_t V = 50265, D = 4;
    const WeightMap bart = synthetic_bart(V, D, 1024);
    ConversionOptions o;  // defaults: 4096 positions, bos 0, mask 50264
    const WeightMap lsg = convert_bart_to_lsg(bart, synthetic_config(V, int(D), 1024), o);
    const Tensor& g = lsg.get("model.encoder.global_embeddings.weight");
    const std::vector<float> shared = bart.get("model.shared.weight").to_float_vector();
    ASSERT_EQ(g.shape(), (Shape{512, D}));
    for (int64_t k = 0; k < 512; ++k) {
        const int64_t position = 2 * ((k % 16) * 32 + k / 16);  // P[...] holds its row index + 2
        const int64_t token = k == 0 ? 0 : 50264;
        for (int64_t c = 0; c < D; ++c)
            ASSERT_EQ(g.data<float>()[k * D + c], float(position + 2) + shared[size_t(token * D + c)]) << k;
    }
    // Spec: "positions 0, 64, ..., 960, 2, 66, ...".
    EXPECT_FLOAT_EQ(g.data<float>()[1 * D] - shared[size_t(50264 * D)], 64.f + 2.f);
    EXPECT_FLOAT_EQ(g.data<float>()[16 * D] - shared[size_t(50264 * D)], 2.f + 2.f);

    for (const char* name : {"model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"}) {
        const Tensor& t = lsg.get(name);
        ASSERT_EQ(t.shape(), (Shape{4096 + 2, D}));
        const float sign = name[6] == 'e' ? 1.f : -1.f;
        for (int64_t r = 0; r < 4098; ++r) {
            const int64_t src = r < 2 ? r : 2 + (r - 2) % 1024;
            ASSERT_EQ(t.data<float>()[r * D], sign * float(src)) << name << " row " << r;
        }
    }
    EXPECT_EQ(lsg.get("model.encoder.layernorm_embedding.weight").raw(),
              bart.get("model.encoder.layernorm_embedding.weight").raw());
}

TEST(BartToLsg, HalfPrecisionSourcesStayHalf) {
    const int64_t V = 100, D = 4;
    WeightMap bart = synthetic_bart(V, D, 512);
    for (const std::string& n : bart.names()) bart.insert(n, bart.get(n).to(DType::F16));
    const WeightMap lsg = convert_bart_to_lsg(bart, synthetic_config(V, int(D), 512), ConversionOptions());
    EXPECT_EQ(lsg.get("model.encoder.global_embeddings.weight").dtype(), DType::F16);
    EXPECT_EQ(lsg.get("model.decoder.embed_positions.weight").dtype(), DType::F16);
    // vocab_size - 1 plays <mask> for a non-BART vocabulary; F = 1, stride 64: row 1 = P[64].
    const std::vector<float> g = lsg.get("model.encoder.global_embeddings.weight").to_float_vector();
    const std::vector<float> shared = bart.get("model.shared.weight").to_float_vector();
    EXPECT_FLOAT_EQ(g[1 * D], half_to_float(float_to_half(66.f + shared[size_t(99 * D)])));
}

TEST(BartToLsg, MaskIdComesFromTheTokenizerWhenConvertingAFolder) {
    const fs::path dir = test::scratch_dir("convert-tok");
    const fs::path src = dir / "src";
    fs::create_directory(src);
    for (const char* f : {"config.json", "generation_config.json", "model.safetensors"})
        fs::copy_file(test::fixtures_dir() / "models/bart-tiny" / f, src / f);
    std::ofstream(src / "vocab.json") << R"({"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 998})";
    std::ofstream(src / "merges.txt") << "#version: 0.2\n";
    std::ofstream(src / "spm.model") << "not really a model";
    ConversionOptions o;
    o.max_positions = 256;
    o.block_size = o.sparse_block_size = 16;
    convert_bart_folder(src, dir / "out", o);
    for (const char* f : {"vocab.json", "merges.txt", "spm.model"}) EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
    const WeightMap lsg = load_checkpoint(dir / "out");
    const WeightMap bart = load_checkpoint(src);
    const std::vector<float> g = lsg.get("model.encoder.global_embeddings.weight").to_float_vector();
    const std::vector<float> shared = bart.get("model.shared.weight").to_float_vector();
    const std::vector<float> pos = bart.get("model.encoder.embed_positions.weight").to_float_vector();
    for (int c = 0; c < 32; ++c) EXPECT_EQ(g[size_t(32 + c)], pos[size_t((2 + 64) * 32 + c)] + shared[size_t(998 * 32 + c)]);
    EXPECT_EQ(lsg.get("model.encoder.embed_positions.weight").dim(0), 258);
    EXPECT_EQ(read_json(dir / "out/config.json").at("max_position_embeddings"), 256);
}

TEST(BartToLsg, RefusesLsgSourcesExistingTargetsAndBadOptions) {
    const fs::path dir = test::scratch_dir("convert-refuse");
    std::string msg = error_of([&] { convert_bart_folder(test::fixtures_dir() / "models/lsg-norm", dir / "a", {}); });
    EXPECT_NE(msg.find("already an LSG model"), std::string::npos) << msg;

    fs::create_directory(dir / "full");
    std::ofstream(dir / "full/keep.txt") << "precious";
    msg = error_of([&] { convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", dir / "full", {}); });
    EXPECT_NE(msg.find("not an empty folder"), std::string::npos) << msg;
    EXPECT_TRUE(fs::exists(dir / "full/keep.txt"));

    ConversionOptions bad;
    bad.block_size = 16;
    bad.sparse_block_size = 16;
    bad.sparsity_factor = 3;
    msg = error_of([&] { convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", dir / "b", bad); });
    EXPECT_NE(msg.find("does not divide block_size"), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(dir / "b"));

    ConversionOptions badmask;
    badmask.mask_id = 5000;
    msg = error_of([&] { convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", dir / "c", badmask); });
    EXPECT_NE(msg.find("mask id 5000"), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(dir / "c"));
    // No half-written temporary folder was left behind.
    for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "full");

    ConversionOptions keep;
    keep.keep_first_global_token = true;
    msg = error_of([&] { convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", dir / "d", keep); });
    EXPECT_NE(msg.find("keep_first_global_token"), std::string::npos) << msg;

    // An empty existing folder is fine.
    fs::create_directory(dir / "empty");
    ConversionOptions small;
    small.max_positions = 256;
    EXPECT_NO_THROW(convert_bart_folder(test::fixtures_dir() / "models/bart-tiny", dir / "empty", small));
    EXPECT_TRUE(fs::exists(dir / "empty/model.safetensors"));
}
