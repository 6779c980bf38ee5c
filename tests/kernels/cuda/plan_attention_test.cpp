// plan_attention, build_sparse_keys and build_fovea_nodes (through DeviceSelfAttention, the
// composition the encoder uses) against the CPU attention: full, LSG for every sparsity type
// and Fovea, with padding masks, in fp32 / fp16 / bf16. The CPU reference runs on the inputs
// rounded through the precision, so the bound measures the device op's own error.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/attention/attention.h"
#include "kernels/ops/encoder_attention.h"
#include "kernels/ops/plan_attention.h"
#include "kernels/ops/sparse_keys.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace precis::test {
namespace {

using cuda::Precision;
constexpr float kLowest = -3.4028234663852886e38f;

class PlanAttention : public ::testing::TestWithParam<Precision> {};

struct Inputs {
    int G, T, heads, hd;
    std::vector<float> q, k, v, key_mask;  // key_mask over G+T, 0 for globals
};

Inputs make_inputs(Precision p, int G, int T, int heads, int hd, int pad, uint32_t seed) {
    Inputs x{G, T, heads, hd, {}, {}, {}, std::vector<float>(size_t(G + T), 0.0f)};
    const size_t n = size_t(G + T) * heads * hd;
    x.q = rounded_to(p, gaussian(n, seed));
    x.k = rounded_to(p, gaussian(n, seed + 1));
    x.v = rounded_to(p, gaussian(n, seed + 2));
    for (int t = T - pad; t < T; ++t) x.key_mask[size_t(G + t)] = kLowest;
    if (T > 5) x.key_mask[size_t(G + T / 3)] = kLowest;  // a hole inside the sequence
    return x;
}

// Compares the device result with the CPU one. bf16: rounding the output alone to bf16 costs
// about 1.5e-3 normalized, above the 1e-3 bound, so the reference is rounded through bf16 too
// (the bound then measures the op's error plus the rare one-ulp rounding flips).
void expect_close(Precision p, const std::vector<float>& got, std::vector<float> ref, const std::string& what) {
    if (p == Precision::BF16) ref = rounded_to(p, ref);
    const double err = normalized_error(got, ref);
    EXPECT_LE(err, op_tolerance(p)) << what << " (" << precision_label(p) << ")";
}

std::vector<float> run_device(Precision p, const Inputs& x, const cuda::EncoderAttentionSettings& s,
                              const std::vector<float>& lsh_r = {}) {
    cuda::DeviceBuffer q = upload_as(p, x.q), k = upload_as(p, x.k), v = upload_as(p, x.v);
    cuda::DeviceBuffer mask = cuda::upload(x.key_mask);
    cuda::DeviceBuffer r = cuda::upload(lsh_r);
    const size_t n = x.q.size();
    cuda::DeviceBuffer out(n * cuda::bytes_of(p));
    cuda::DeviceSelfAttention att;
    att.prepare(s, x.G, x.T, x.heads, x.hd, p, nullptr);
    att.run(q.get(), k.get(), v.get(), mask.as<float>(), lsh_r.empty() ? nullptr : r.as<float>(), out.get());
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    return download_as_f32(p, out.get(), n);
}

TEST_P(PlanAttention, FullMatchesCpu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    for (int hd : {16, 32, 64, 80, 128}) {
        const Inputs x = make_inputs(p, 0, 300, 2, hd, 7, 11u + hd);
        std::vector<float> ref(x.q.size());
        full_attention({x.q.data(), x.k.data(), x.v.data(), x.T, x.heads, hd}, x.key_mask.data(), ref.data());
        cuda::EncoderAttentionSettings s;  // plain BART
        expect_close(p, run_device(p, x, s), ref, "full hd " + std::to_string(hd));
    }
}

struct LsgCase {
    SparsityType type;
    int B, SB, f, G, T, heads, hd, pad, pre_rounds;
};

TEST_P(PlanAttention, LsgMatchesCpu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    const std::vector<LsgCase> cases = {
        {SparsityType::Norm, 16, 16, 2, 1, 128, 2, 16, 5, 1},
        {SparsityType::Norm, 16, 8, 4, 2, 96, 2, 32, 0, 1},
        {SparsityType::Pooling, 16, 16, 4, 1, 128, 3, 16, 9, 1},
        {SparsityType::Stride, 16, 16, 2, 1, 96, 3, 16, 3, 1},
        {SparsityType::BlockStride, 16, 16, 4, 1, 96, 3, 16, 3, 1},
        {SparsityType::BosPooling, 16, 16, 4, 2, 128, 2, 16, 20, 1},
        {SparsityType::Lsh, 16, 16, 2, 1, 128, 2, 16, 5, 1},
        {SparsityType::Lsh, 16, 8, 2, 1, 96, 2, 64, 0, 2},
        {SparsityType::Lsh, 16, 8, 8, 1, 96, 2, 16, 4, 1},   // f == SB: bos_pooling
        {SparsityType::Pooling, 16, 16, 16, 1, 96, 2, 16, 2, 1},  // p == 1
        {SparsityType::Norm, 16, 16, 1, 1, 64, 2, 16, 2, 1},      // f == 1: identity
        {SparsityType::None, 16, 16, 2, 1, 96, 2, 16, 2, 1},      // sparse part off
        {SparsityType::Pooling, 16, 16, 2, 1, 32, 2, 16, 2, 1},   // T <= 2B: full attention
        {SparsityType::Stride, 32, 32, 4, 1, 256, 12, 64, 10, 1},
        // head_dim 64 and 128 at fp16/bf16 take the tensor-core kernel, float32 sparse keys included
        {SparsityType::Pooling, 32, 32, 4, 1, 256, 2, 64, 7, 1},
        {SparsityType::BosPooling, 32, 32, 4, 2, 256, 2, 64, 12, 1},
        {SparsityType::Norm, 32, 32, 2, 1, 256, 2, 64, 5, 1},
        {SparsityType::Lsh, 32, 16, 4, 1, 256, 2, 64, 3, 1},
        {SparsityType::Norm, 32, 32, 4, 3, 192, 2, 128, 3, 1},
        // 16-bit copies of tokens as sparse keys: every source 16-bit, the pipelined kernel
        {SparsityType::BlockStride, 32, 32, 4, 1, 256, 2, 64, 6, 1},
        {SparsityType::Stride, 32, 32, 2, 2, 256, 2, 128, 4, 1},
        // the benchmark's geometry (B 128, f 4), several chunks per head for the norm kernel
        {SparsityType::Norm, 128, 128, 4, 1, 1024, 2, 64, 37, 1},
    };
    for (const LsgCase& c : cases) {
        const std::string what = std::string("lsg ") + sparsity_type_name(c.type) + " B " + std::to_string(c.B) +
                                  " SB " + std::to_string(c.SB) + " f " + std::to_string(c.f) + " T " +
                                  std::to_string(c.T) + " hd " + std::to_string(c.hd);
        SCOPED_TRACE(what);
        const Inputs x = make_inputs(p, c.G, c.T, c.heads, c.hd, c.pad, 100u + uint32_t(c.T + c.hd + c.f));
        cuda::EncoderAttentionSettings s;
        s.kind = ::precis::EncoderAttention::Lsg;
        s.lsg.block_size = c.B;
        s.lsg.sparse_block_size = c.SB;
        s.lsg.sparsity_factor = c.f;
        s.lsg.sparsity_type = c.type;
        s.lsg.num_global_tokens = c.G;
        s.lsg.lsh_num_pre_rounds = c.pre_rounds;
        // The same R on both sides: drawn by a seeded LshProjections, handed to the device.
        LshProjections lsh = LshProjections::seeded(42);
        std::vector<float> r;
        const int bs = std::min(c.B, c.SB);
        if (c.type == SparsityType::Lsh && c.f != c.SB && c.f > 1)
            for (int round = 0; round <= c.pre_rounds; ++round) {
                const int m = round < c.pre_rounds ? bs : bs / c.f;
                const std::vector<float> part = lsh.get(0, round, c.heads, c.hd, m / 2);
                r.insert(r.end(), part.begin(), part.end());
            }
        std::vector<float> ref(x.q.size());
        lsg_attention({x.q.data(), x.k.data(), x.v.data(), c.G + c.T, c.heads, c.hd}, x.key_mask.data() + c.G, c.G,
                      s.lsg, 0, &lsh, ref.data());
        expect_close(p, run_device(p, x, s, r), ref, what);
    }
}

TEST_P(PlanAttention, FoveaMatchesCpu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    struct F { int G, T, BL, wing, stop, hd; };
    for (const F& c : {F{1, 256, 16, 1, -1, 16}, F{2, 250, 16, 2, -1, 32}, F{1, 200, 8, 1, 1, 64}, F{0, 64, 16, 1, -1, 16},
                     F{1, 300, 16, 1, -1, 128}}) {
        const std::string what = "fovea T " + std::to_string(c.T) + " BL " + std::to_string(c.BL);
        SCOPED_TRACE(what);
        const Inputs x = make_inputs(p, c.G, c.T, 2, c.hd, 6, 500u + uint32_t(c.T));
        cuda::EncoderAttentionSettings s;
        s.kind = ::precis::EncoderAttention::Fovea;
        s.fovea.block_size = c.BL;
        s.fovea.wing = c.wing;
        s.fovea.stop_level = c.stop;
        std::vector<float> ref(x.q.size());
        fovea_attention({x.q.data(), x.k.data(), x.v.data(), c.G + c.T, 2, c.hd}, x.key_mask.data(), c.G, s.fovea,
                        ref.data());
        expect_close(p, run_device(p, x, s), ref, what);
    }
}

// A fully masked key list still must not give NaN, and lowest-masked keys weigh exactly 0.
TEST_P(PlanAttention, MaskedKeysWeighZero) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Inputs x = make_inputs(p, 0, 70, 1, 16, 0, 9u);
    for (size_t t = 0; t < 70; ++t) x.key_mask[t] = t % 2 ? kLowest : 0.0f;
    for (size_t e = 16; e < x.v.size(); e += 32)  // huge values on masked keys must not leak
        for (int d = 0; d < 16; ++d) x.v[e + d] = 1e4f;
    std::vector<float> ref(x.q.size());
    full_attention({x.q.data(), x.k.data(), x.v.data(), 70, 1, 16}, x.key_mask.data(), ref.data());
    expect_close(p, run_device(p, x, {}), ref, "alternating mask");
}

INSTANTIATE_TEST_SUITE_P(Precisions, PlanAttention,
                         ::testing::Values(Precision::F32, Precision::F16, Precision::BF16),
                         [](const auto& info) { return std::string(precision_label(info.param)); });

// Argument errors are thrown before any CUDA call (no device needed).
TEST(PlanAttentionArgs, RejectsBadArgumentsOnTheHost) {
    cuda::DevicePlan empty;
    cuda::KeySource src{};
    float dummy = 0;
    EXPECT_THROW(cuda::plan_attention(Precision::F32, &dummy, 16, &src, 1, empty, 1, 16, 1.f, &dummy, 16, nullptr),
                 Error);  // empty plan
    EXPECT_THROW(cuda::plan_attention(Precision::F32, &dummy, 16, &src, 0, empty, 1, 16, 1.f, &dummy, 16, nullptr),
                 Error);
    EXPECT_THROW(cuda::plan_attention(Precision::F32, &dummy, 256, &src, 1, empty, 1, 256, 1.f, &dummy, 256, nullptr),
                 Error);  // head_dim > 128
    cuda::SparseKeysArgs a;
    a.type = SparsityType::Pooling;
    a.G = 1, a.T = 96, a.heads = 1, a.head_dim = 16, a.block_size = 16, a.sparse_block_size = 16;
    a.factor = 3;  // B % f != 0
    EXPECT_THROW(cuda::build_sparse_keys(a, nullptr), Error);
    a.factor = 2, a.T = 100;  // T % B != 0
    EXPECT_THROW(cuda::build_sparse_keys(a, nullptr), Error);
    a.T = 96;  // outputs missing
    EXPECT_THROW(cuda::build_sparse_keys(a, nullptr), Error);
    EXPECT_THROW(cuda::build_fovea_nodes(Precision::F32, &dummy, &dummy, nullptr, 16, 1, 16, 16, 2, &dummy, &dummy,
                                         &dummy, nullptr),
                 Error);  // level 1 needs two blocks
    cuda::DeviceSelfAttention att;
    EXPECT_THROW(att.run(&dummy, &dummy, &dummy, nullptr, nullptr, &dummy), Error);  // not prepared
}

}  // namespace
}  // namespace precis::test
