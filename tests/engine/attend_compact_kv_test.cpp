// The decoder's attention with compact keys and values (half precision, or int8 with a
// scale per row) against the float32 path on the same values (the compact rows widened
// back): only the summation order differs, so outputs and weights agree to ~1e-6.
// The int8 rows' integer path rounds queries and weights to int16, which costs ~1e-4.
// Shapes: one query (a decoding step) and several (the first forward) and the beams of a
// document (their queries share one call), few and many keys (the float32 path switches
// to BLAS at 256 and 4096; the compact path works in blocks of 64 keys and groups of 8),
// head sizes that are not a multiple of 8 and wider than one 64-float register set, key
// masks, causal masks, weight sinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

#include "engine/core/tensor.h"
#include "engine/model/attend.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

enum class Stored { Half, Int8 };

// Keys or values [n, ld] in one compact format, and the same values as float32.
struct CompactRows {
    Tensor half;
    std::vector<int8_t> q;
    std::vector<float> scales;
    std::vector<float> widened;

    CompactRows(Stored stored, int64_t n, int64_t ld, uint32_t seed) {
        const std::vector<float> x = gaussian(size_t(n * ld), seed);
        if (stored == Stored::Half) {
            half = Tensor::from_floats({n, ld}, x).to(DType::F16);
            widened = half.to_float_vector();
            return;
        }
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> value(-127, 127);
        std::uniform_real_distribution<float> scale(1e-3f, 0.05f);
        q.resize(x.size());
        for (int8_t& v : q) v = int8_t(value(rng));
        for (int64_t j = 0; j < n; ++j) scales.push_back(scale(rng));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t c = 0; c < ld; ++c) widened.push_back(float(q[size_t(j * ld + c)]) * scales[size_t(j)]);
    }
};

using Shape = std::tuple<Stored, int64_t, int64_t, int64_t, bool>;  // stored, nq, nk, hd, causal

class AttendCompactKv : public ::testing::TestWithParam<Shape> {};

TEST_P(AttendCompactKv, MatchesFloat32OnTheSameWidenedKeysAndValues) {
    const auto [stored, nq, nk, hd, causal] = GetParam();
    const int64_t ld = hd + 3;  // rows further apart than a head, as heads sit side by side
    const std::vector<float> q = gaussian(size_t(nq * ld), 1);
    const CompactRows k(stored, nk, ld, 2), v(stored, nk, ld, 3);
    std::vector<float> mask(size_t(nk), 0.f);
    for (int64_t j = 0; j < nk; j += 5) mask[size_t(j)] = std::numeric_limits<float>::lowest();
    mask[0] = 0.f;

    std::vector<float> out32(size_t(nq * hd)), out_compact(out32.size()), sink32(nk, 0.f), sink_compact(nk, 0.f),
        scratch;
    AttendArgs a;
    a.q = q.data(), a.ldq = ld;
    a.k = k.widened.data(), a.ldk = ld;
    a.v = v.widened.data(), a.ldv = ld;
    a.nq = nq, a.nk = nk, a.hd = hd, a.scale = 0.125f;
    a.key_mask = mask.data();
    a.causal_offset = causal ? nk - nq : -1;
    a.out = out32.data(), a.ldo = hd;
    a.weight_sink = sink32.data();
    attend(a, scratch);

    AttendArgs c = a;
    c.k = c.v = nullptr;
    if (stored == Stored::Half) {
        c.k16 = k.half.data<uint16_t>();
        c.v16 = v.half.data<uint16_t>();
    } else {
        c.k8 = k.q.data(), c.k8_scales = k.scales.data();
        c.v8 = v.q.data(), c.v8_scales = v.scales.data();
    }
    c.out = out_compact.data();
    c.weight_sink = sink_compact.data();
    attend(c, scratch);
    // Both sides see the same values; only the order of the float sums differs (the compact
    // path widens and reduces a tile of keys at a time), and that rounding grows like sqrt(nk).
    // Except int8 rows with hd a multiple of 16, which take the integer path
    // (attend_int8_kv.cpp): the queries and the weights rounded to int16 move these outputs
    // and weights by up to 1.0e-4, a hundredth of what the int8 rows' own rounding costs.
    const bool integer = stored == Stored::Int8 && hd % 16 == 0;
    const double bound = integer ? 2e-4 : std::max(2e-6, 2e-7 * std::sqrt(double(nk)));
    EXPECT_LT(normalized_error(out_compact, out32), bound);
    EXPECT_LT(normalized_error(sink_compact, sink32), bound);
}

std::string label(const ::testing::TestParamInfo<Shape>& info) {
    const auto [stored, nq, nk, hd, causal] = info.param;
    return std::string(stored == Stored::Half ? "half" : "int8") + "_nq" + std::to_string(nq) + "_nk" +
           std::to_string(nk) + "_hd" + std::to_string(hd) + (causal ? "_causal" : "");
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttendCompactKv,
                         ::testing::Combine(::testing::Values(Stored::Half, Stored::Int8),
                                            ::testing::Values<int64_t>(1, 3, 8),
                                            ::testing::Values<int64_t>(1, 17, 300, 4100),
                                            ::testing::Values<int64_t>(8, 37, 64, 72, 128), ::testing::Bool()),
                         label);

// Int8 rows with a NaN scale (cross_memory.cpp stores a row that was not finite that way)
// and queries that are not finite reach the outputs as NaN, as they would in float32;
// a masked key adds nothing, whatever its row holds.
struct NotFiniteCase {
    const char* name;
    bool nan_query;
    bool nan_value_row;
    bool mask_that_key;
    bool outputs_nan;
};

class AttendInt8KvNotFinite : public ::testing::TestWithParam<NotFiniteCase> {};

TEST_P(AttendInt8KvNotFinite, PassesNaNOnAsFloat32Would) {
    const NotFiniteCase& c = GetParam();
    const int64_t nq = 2, nk = 70, hd = 32;
    std::vector<float> q = gaussian(size_t(nq * hd), 11);
    if (c.nan_query) q[3] = std::numeric_limits<float>::infinity();
    CompactRows k(Stored::Int8, nk, hd, 12), v(Stored::Int8, nk, hd, 13);
    if (c.nan_value_row) v.scales[66] = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> mask(size_t(nk), 0.f);
    if (c.mask_that_key) mask[66] = std::numeric_limits<float>::lowest();
    std::vector<float> out(size_t(nq * hd)), scratch;
    AttendArgs a;
    a.q = q.data(), a.ldq = hd;
    a.k = a.v = nullptr;
    a.k8 = k.q.data(), a.k8_scales = k.scales.data();
    a.v8 = v.q.data(), a.v8_scales = v.scales.data();
    a.ldk = a.ldv = hd;
    a.nq = nq, a.nk = nk, a.hd = hd, a.scale = 0.125f;
    a.key_mask = mask.data();
    a.out = out.data(), a.ldo = hd;
    attend(a, scratch);
    // A NaN query poisons its own row only.
    const int64_t poisoned_rows = c.outputs_nan ? (c.nan_query ? 1 : nq) : 0;
    for (int64_t i = 0; i < nq; ++i)
        for (int64_t ch = 0; ch < hd; ++ch)
            EXPECT_EQ(std::isnan(out[size_t(i * hd + ch)]), i < poisoned_rows) << "row " << i << " channel " << ch;
}

INSTANTIATE_TEST_SUITE_P(Cases, AttendInt8KvNotFinite,
                         ::testing::Values(NotFiniteCase{"query_infinite", true, false, false, true},
                                           NotFiniteCase{"value_row_nan", false, true, false, true},
                                           NotFiniteCase{"value_row_nan_but_masked", false, true, true, false}),
                         [](const ::testing::TestParamInfo<NotFiniteCase>& info) { return info.param.name; });

}  // namespace
}  // namespace precis::test
