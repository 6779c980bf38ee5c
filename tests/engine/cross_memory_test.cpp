// The decoder's cross-attention keys and values in their compact layouts: int8 rows keep
// every value within half a step of the row's own scale, a row that is not finite is
// passed on as NaN (as float32 would be), and each compute type stores what it promises,
// head by head, at the bytes it promises, every layer of a document in one run of memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/core/dtype.h"
#include "engine/model/attend.h"
#include "engine/model/bart_weights.h"
#include "engine/model/cross_memory.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/fixtures.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

TEST(CrossMemoryInt8, EveryValueIsWithinHalfAStepAndEachRowsLargestIsExact) {
    const int64_t S = 9, heads = 3, hd = 40, D = heads * hd;
    std::vector<float> x = gaussian(size_t(S * D), 5);
    for (int64_t c = 0; c < hd; ++c) x[size_t(4 * D + hd + c)] = 0.f;  // position 4, head 1: all zero
    std::vector<int8_t> q(size_t(S * D));
    std::vector<float> scales(size_t(heads * S));
    store_rows_as_int8(x.data(), S, 0, S, heads, hd, q.data(), scales.data());
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t s = 0; s < S; ++s) {
            const float* row = x.data() + s * D + h * hd;
            const int8_t* stored = q.data() + (h * S + s) * hd;
            const float scale = scales[size_t(h * S + s)];
            float largest = 0.f;
            int64_t at = 0;
            for (int64_t c = 0; c < hd; ++c)
                if (std::fabs(row[c]) > largest) largest = std::fabs(row[c]), at = c;
            ASSERT_FLOAT_EQ(scale, largest / 127.f) << "head " << h << " position " << s;
            if (largest == 0.f) {
                for (int64_t c = 0; c < hd; ++c) EXPECT_EQ(stored[c], 0);
                continue;
            }
            EXPECT_EQ(std::abs(int(stored[at])), 127);
            for (int64_t c = 0; c < hd; ++c)
                EXPECT_LE(std::fabs(float(stored[c]) * scale - row[c]), 0.5f * scale * 1.0001f);
        }
}

TEST(CrossMemoryInt8, ARowThatIsNotFiniteIsPassedOnAsNaN) {
    const int64_t S = 3, heads = 1, hd = 16;
    std::vector<float> x = gaussian(size_t(S * hd), 6);
    x[size_t(hd + 2)] = std::numeric_limits<float>::infinity();
    std::vector<int8_t> q(x.size());
    std::vector<float> scales(static_cast<size_t>(S));
    store_rows_as_int8(x.data(), S, 0, S, heads, hd, q.data(), scales.data());
    EXPECT_TRUE(std::isfinite(scales[0]));
    EXPECT_TRUE(std::isnan(scales[1]));
    EXPECT_TRUE(std::isfinite(scales[2]));

    const std::vector<float> query = gaussian(size_t(hd), 7);
    std::vector<float> out(static_cast<size_t>(hd)), scratch;
    AttendArgs a;
    a.q = query.data(), a.ldq = hd;
    a.k = a.v = nullptr;
    a.k8 = a.v8 = q.data();
    a.k8_scales = a.v8_scales = scales.data();
    a.ldk = a.ldv = hd;
    a.nq = 1, a.nk = S, a.hd = hd;
    a.out = out.data(), a.ldo = hd;
    attend(a, scratch);
    for (float o : out) EXPECT_TRUE(std::isnan(o));
}

class CrossMemoryLayout : public ::testing::TestWithParam<ComputeType> {
protected:
    // One layer's keys and values of memory [S, heads * hd].
    static CrossMemory project_one_layer(Backend& be, const AttentionWeights& w, const std::vector<float>& memory,
                                         int64_t S, int64_t heads, int64_t hd, ComputeType compute) {
        Tensor part;
        return std::move(project_cross_memories(be, {&w}, memory.data(), S, heads, hd, compute, part).front());
    }
};

// The stored keys/values, widened back, against the float32 projection of the same
// weights: exact for fp32, within half precision's and int8's rounding for the others.
TEST_P(CrossMemoryLayout, HoldsTheProjectionHeadByHeadInThePromisedBytes) {
    const ComputeType compute = GetParam();
    auto f32 = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = compute});
    const ModelConfig& cfg = model->config();
    const int64_t S = 600, heads = cfg.decoder_heads, hd = cfg.decoder_head_dim(), D = heads * hd;
    const std::vector<float> memory = gaussian(size_t(S * D), 8);
    auto backend = make_cpu_backend();
    const CrossMemory m =
        project_one_layer(*backend, model->weights().decoder_layers[0].cross_attn, memory, S, heads, hd, compute);
    const CrossMemory ref =
        project_one_layer(*backend, f32->weights().decoder_layers[0].cross_attn, memory, S, heads, hd, ComputeType::Fp32);
    const size_t floats = size_t(2 * S * D) * sizeof(float);
    switch (compute) {
        case ComputeType::Fp32: EXPECT_EQ(m.bytes(), floats); break;
        case ComputeType::Fp16Weights: EXPECT_EQ(m.bytes(), floats / 2); break;
        case ComputeType::Int8: EXPECT_EQ(m.bytes(), floats / 4 + size_t(2 * heads * S) * sizeof(float)); break;
    }
    EXPECT_EQ(CrossMemory::bytes_for(S, heads, hd, compute), m.bytes());  // what bench counts
    // Each head's keys and values as the decoder finds them through point_at_head, widened.
    for (bool keys : {true, false}) {
        std::vector<float> got, want;
        for (int64_t h = 0; h < heads; ++h) {
            AttendArgs a, r;
            m.point_at_head(a, h);
            ref.point_at_head(r, h);
            for (int64_t s = 0; s < S; ++s)
                for (int64_t c = 0; c < hd; ++c) {
                    want.push_back((keys ? r.k : r.v)[s * r.ldk + c]);
                    if (a.k) got.push_back((keys ? a.k : a.v)[s * a.ldk + c]);
                    else if (a.k16) got.push_back(half_to_float((keys ? a.k16 : a.v16)[s * a.ldk + c]));
                    else got.push_back(float((keys ? a.k8 : a.v8)[s * a.ldk + c]) * (keys ? a.k8_scales : a.v8_scales)[s]);
                }
        }
        // The projections differ by the products' own rounding too (int8 weights and 7-bit
        // activations: measured 1.2e-2 in all; fp16 weights: 2.9e-4); the stored values
        // add at most 2^-11 (half) or 1/254 of a row's largest (int8).
        const double bound = compute == ComputeType::Fp32 ? 0.0 : compute == ComputeType::Fp16Weights ? 1e-3 : 2e-2;
        EXPECT_LE(normalized_error(got, want), bound) << (keys ? "keys" : "values");
    }
}

// A document's layers projected at once hold, layer by layer, exactly what each layer
// projected alone holds, one layer after another in a single run of memory.
TEST_P(CrossMemoryLayout, EveryLayerAtOnceHoldsEachLayersOwnProjectionInOneRunOfMemory) {
    const ComputeType compute = GetParam();
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = compute});
    const ModelConfig& cfg = model->config();
    ASSERT_GE(cfg.decoder_layers, 2);
    const int64_t S = 700, heads = cfg.decoder_heads, hd = cfg.decoder_head_dim(), D = heads * hd;
    const std::vector<float> memory = gaussian(size_t(S * D), 9);
    auto backend = make_cpu_backend();
    std::vector<const AttentionWeights*> layers;
    for (const DecoderLayerWeights& layer : model->weights().decoder_layers) layers.push_back(&layer.cross_attn);
    Tensor part;
    const std::vector<CrossMemory> all =
        project_cross_memories(*backend, layers, memory.data(), S, heads, hd, compute, part);
    ASSERT_EQ(all.size(), layers.size());
    const auto address = [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data<void>()); };
    for (size_t l = 0; l < layers.size(); ++l) {
        const CrossMemory alone = project_one_layer(*backend, *layers[l], memory, S, heads, hd, compute);
        const CrossMemory& m = all[l];
        EXPECT_EQ(m.bytes(), alone.bytes()) << "layer " << l;
        std::vector<std::pair<const Tensor*, const Tensor*>> pieces = {{&m.k, &alone.k}, {&m.v, &alone.v}};
        if (compute == ComputeType::Int8) pieces.insert(pieces.end(), {{&m.k_scales, &alone.k_scales}, {&m.v_scales, &alone.v_scales}});
        for (auto [got, want] : pieces) {
            ASSERT_EQ(got->shape(), want->shape());
            ASSERT_EQ(got->nbytes(), want->nbytes());
            EXPECT_EQ(std::memcmp(got->data<void>(), want->data<void>(), got->nbytes()), 0) << "layer " << l;
            EXPECT_EQ(address(*got) % 64, 0u);
        }
        // In order, no gaps wider than a cache line's rounding between the pieces.
        EXPECT_GE(address(m.v), address(m.k) + m.k.nbytes());
        EXPECT_LT(address(m.v), address(m.k) + m.k.nbytes() + 64);
        if (l > 0) {
            const CrossMemory& before = all[l - 1];
            const Tensor& last = compute == ComputeType::Int8 ? before.v_scales : before.v;
            EXPECT_GE(address(m.k), address(last) + last.nbytes());
            EXPECT_LT(address(m.k), address(last) + last.nbytes() + 64);
        }
    }
}

// fp32 keys as tiles of sixteen (heads whose width AVX-512 serves): every key in its lane,
// whichever part of the projection wrote it, and the lanes past the last key zero even in
// a buffer that held something else (a leaving document's).
TEST(CrossMemoryFloatTiles, EveryKeyIsInItsLaneAndTheLanesPastTheLastAreZero) {
    const int64_t S = 45, heads = 3, hd = 32, D = heads * hd, tiles = (S + 15) / 16;
    const std::vector<float> x = gaussian(size_t(S * D), 10);
    std::vector<float> t(size_t(heads * tiles * 16 * hd), std::numeric_limits<float>::quiet_NaN());
    store_rows_as_float_tiles(x.data(), 37, 0, S, heads, hd, t.data());
    store_rows_as_float_tiles(x.data() + 37 * D, S - 37, 37, S, heads, hd, t.data());
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t j = 0; j < tiles * 16; ++j)
            for (int64_t c = 0; c < hd; ++c) {
                const float got = t[size_t(((h * tiles + j / 16) * hd + c) * 16 + j % 16)];
                if (j < S) ASSERT_EQ(got, x[size_t(j * D + h * hd + c)]) << "head " << h << " key " << j << " dim " << c;
                else ASSERT_EQ(got, 0.f) << "head " << h << " lane " << j << " dim " << c;
            }
}

// The fp32 memory of heads 64 wide, as the decoder reads it through point_at_head, gives
// greedy's query, a document's beams and a whole target at once what the keys as rows give.
TEST(CrossMemoryFloatTiles, AttendingTheStoredTilesGivesWhatTheProjectedRowsGive) {
    const int64_t S = 300, heads = 2, hd = 64, D = heads * hd;
    if (!float_key_tiles_apply(hd)) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    AttentionWeights w;
    for (auto [linear, seed] : {std::pair{&w.k, 21u}, std::pair{&w.v, 22u}}) {
        const std::vector<float> values = gaussian(size_t(D * D), seed, 0.1f);
        linear->weight = Tensor::empty(DType::F32, {D, D});
        std::copy(values.begin(), values.end(), linear->weight.data<float>());
        linear->bias = Tensor::zeros(DType::F32, {D});
    }
    const std::vector<float> memory = gaussian(size_t(S * D), 23);
    auto backend = make_cpu_backend();
    Tensor part;
    const CrossMemory m =
        std::move(project_cross_memories(*backend, {&w}, memory.data(), S, heads, hd, ComputeType::Fp32, part).front());
    ASSERT_TRUE(m.k_tiled);
    EXPECT_EQ(m.bytes(), CrossMemory::bytes_for(S, heads, hd, ComputeType::Fp32));
    EXPECT_EQ(m.bytes(), size_t((S + 4) + S) * size_t(D) * sizeof(float));  // 300 keys in 19 tiles
    // The reference: the same products, kept as rows [S, D].
    std::vector<float> keys(size_t(S * D)), values(size_t(S * D));
    backend->linear(memory.data(), S, D, w.k.ref(), w.k.b(), D, keys.data());
    backend->linear(memory.data(), S, D, w.v.ref(), w.v.b(), D, values.data());
    for (int64_t nq : {1, 4, 24}) {
        const std::vector<float> q = gaussian(size_t(nq * D), uint32_t(30 + nq));
        for (int64_t h = 0; h < heads; ++h) {
            std::vector<float> out(size_t(nq * hd)), ref(size_t(nq * hd)), scratch;
            AttendArgs a, r;
            m.point_at_head(a, h);
            ASSERT_NE(a.k_tiles, nullptr);
            ASSERT_EQ(a.k, nullptr);
            r.k = keys.data() + h * hd, r.v = values.data() + h * hd, r.ldk = r.ldv = D;
            for (AttendArgs* x : {&a, &r}) {
                x->q = q.data() + h * hd, x->ldq = D;
                x->nq = nq, x->nk = S, x->hd = hd, x->scale = 0.125f;
            }
            a.out = out.data(), r.out = ref.data();
            a.ldo = r.ldo = hd;
            attend(a, scratch);
            attend(r, scratch);
            // The projection into [S, D] parts and the products' own order are the same, so
            // for the beams (the same kernel) the bits are too; one query's sums run in another
            // order on rows, and a whole target's matrix products over rows of another stride.
            if (nq == 4) EXPECT_EQ(out, ref) << nq << " queries, head " << h;
            else EXPECT_LE(normalized_error(out, ref), 1e-6) << nq << " queries, head " << h;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, CrossMemoryLayout,
                         ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights),
                         compute_type_label);

}  // namespace
}  // namespace precis::test
