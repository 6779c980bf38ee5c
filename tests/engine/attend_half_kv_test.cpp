// The decoder's attention with half-precision keys and values against the float32 path
// on the same values (the halves widened back): only the summation order differs, so
// outputs and weights agree to ~1e-6. Shapes: one query (a decoding step) and several
// (the first forward) and the beams of a document (their queries share one call), few
// and many keys (the float32 path switches to BLAS at 256 and 4096; the half path works
// in blocks of 64 keys and groups of 8), head sizes that are not a multiple of 8 and
// wider than one 64-float register set, key masks, causal masks, weight sinks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "engine/core/tensor.h"
#include "engine/model/attend.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

using Shape = std::tuple<int64_t, int64_t, int64_t, bool>;  // nq, nk, hd, causal

class AttendHalfKv : public ::testing::TestWithParam<Shape> {};

TEST_P(AttendHalfKv, MatchesFloat32OnTheSameRoundedKeysAndValues) {
    const auto [nq, nk, hd, causal] = GetParam();
    const int64_t ld = hd + 3;  // rows further apart than a head, as heads sit side by side
    const std::vector<float> q = gaussian(size_t(nq * ld), 1);
    const Tensor k16 = Tensor::from_floats({nk, ld}, gaussian(size_t(nk * ld), 2)).to(DType::F16);
    const Tensor v16 = Tensor::from_floats({nk, ld}, gaussian(size_t(nk * ld), 3)).to(DType::F16);
    const Tensor k = k16.to_f32(), v = v16.to_f32();
    std::vector<float> mask(size_t(nk), 0.f);
    for (int64_t j = 0; j < nk; j += 5) mask[size_t(j)] = std::numeric_limits<float>::lowest();
    mask[0] = 0.f;

    std::vector<float> out32(size_t(nq * hd)), out16(out32.size()), sink32(nk, 0.f), sink16(nk, 0.f), scratch;
    AttendArgs a;
    a.q = q.data(), a.ldq = ld;
    a.k = k.data<float>(), a.ldk = ld;
    a.v = v.data<float>(), a.ldv = ld;
    a.nq = nq, a.nk = nk, a.hd = hd, a.scale = 0.125f;
    a.key_mask = mask.data();
    a.causal_offset = causal ? nk - nq : -1;
    a.out = out32.data(), a.ldo = hd;
    a.weight_sink = sink32.data();
    attend(a, scratch);

    AttendArgs h = a;
    h.k = h.v = nullptr;
    h.k16 = k16.data<uint16_t>();
    h.v16 = v16.data<uint16_t>();
    h.out = out16.data();
    h.weight_sink = sink16.data();
    attend(h, scratch);
    EXPECT_LT(normalized_error(out16, out32), 2e-6);
    EXPECT_LT(normalized_error(sink16, sink32), 2e-6);
}

std::string label(const ::testing::TestParamInfo<Shape>& info) {
    const auto [nq, nk, hd, causal] = info.param;
    return "nq" + std::to_string(nq) + "_nk" + std::to_string(nk) + "_hd" + std::to_string(hd) +
           (causal ? "_causal" : "");
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttendHalfKv,
                         ::testing::Combine(::testing::Values<int64_t>(1, 3, 8), ::testing::Values<int64_t>(1, 17, 300, 4100),
                                            ::testing::Values<int64_t>(8, 37, 64, 72, 128), ::testing::Bool()),
                         label);

}  // namespace
}  // namespace precis::test
