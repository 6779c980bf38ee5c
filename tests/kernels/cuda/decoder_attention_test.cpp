// The decoder's device attention (cache append, causal self-attention over the cache,
// cross-attention over each item's memory, beam reorder of the caches) against a
// double-precision reference computed here from the same (precision-rounded) inputs.
#include "kernels/ops/cross_attention.h"
#include "kernels/ops/decoder_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "engine/core/error.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace precis {
namespace {

using cuda::Precision;
using test::expect_argument_error;


// Softmax(q . k_j * scale + mask_j) . v over nk keys (rows ld apart), in double.
std::vector<double> reference_attend(const float* q, const float* k, const float* v, int64_t ld, int64_t nk,
                                     const float* mask, float scale, int hd) {
    std::vector<double> s(size_t(nk), 0.0), out(size_t(hd), 0.0);
    double m = -INFINITY;
    for (int64_t j = 0; j < nk; ++j) {
        double dot = 0;
        for (int c = 0; c < hd; ++c) dot += double(q[c]) * k[j * ld + c];
        s[size_t(j)] = dot * scale + (mask ? double(mask[j]) : 0.0);
        m = std::max(m, s[size_t(j)]);
    }
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - m));  // masked keys: exp(-3.4e38 - m) == 0
    for (int64_t j = 0; j < nk; ++j)
        for (int c = 0; c < hd; ++c) out[size_t(c)] += s[size_t(j)] / sum * v[j * ld + c];
    return out;
}

// fp16 keeps the output within 1e-3 of the exact result, but bf16's own output rounding
// (8 significant bits, about 2e-3 rms relative) exceeds 1e-3, so for bf16 the reference is
// rounded through bf16 as well and the bound then measures the kernel's arithmetic.
std::vector<float> comparable_reference(Precision p, const std::vector<float>& ref) {
    return p == Precision::BF16 ? test::rounded_to(p, ref) : ref;
}

// A memory attention on the host: item i's queries are rows [i * group, (i + 1) * group) of
// q, its keys, values and additive mask rows [offsets[i], offsets[i + 1]) of k, v and mask;
// or, with counts (the decoder's slots), rows [offsets[i], offsets[i] + counts[i]).
struct MemoryCase {
    Precision p = Precision::F32;
    int heads = 0, hd = 0, group = 0;
    std::vector<int32_t> offsets, counts;
    std::vector<float> q, k, v, mask;
    int items() const { return counts.empty() ? int(offsets.size()) - 1 : int(counts.size()); }
    int keys(int i) const {
        return counts.empty() ? offsets[size_t(i) + 1] - offsets[size_t(i)] : counts[size_t(i)];
    }
    int extra_max_keys = 0;  // max_keys past the longest item's (a slot region longer than its document)
    int64_t dim() const { return int64_t(heads) * hd; }
    float scale() const { return 1.f / std::sqrt(float(hd)); }
};

std::vector<float> reference_memory_attention(const MemoryCase& c) {
    const int64_t D = c.dim();
    std::vector<float> ref(c.q.size());
    for (int r = 0; r < c.items() * c.group; ++r) {
        const int item = r / c.group;
        const int64_t b = c.offsets[size_t(item)], n = c.keys(item);
        for (int h = 0; h < c.heads; ++h) {
            const size_t qa = size_t(r) * D + size_t(h) * c.hd, ma = size_t(b) * D + size_t(h) * c.hd;
            if (n == 0) {  // a free slot: no key at all gives zeros
                for (int x = 0; x < c.hd; ++x) ref[qa + size_t(x)] = 0.f;
                continue;
            }
            const auto o = reference_attend(c.q.data() + qa, c.k.data() + ma, c.v.data() + ma, D, n,
                                            c.mask.data() + b, c.scale(), c.hd);
            for (int x = 0; x < c.hd; ++x) ref[qa + size_t(x)] = float(o[size_t(x)]);
        }
    }
    return ref;
}

// The same on the device, its value rows read whole or not (MemoryAttention::set_vector_values).
std::vector<float> device_memory_attention(const MemoryCase& c, bool whole_rows) {
    cuda::DeviceBuffer dq = test::upload_as(c.p, c.q), dk = test::upload_as(c.p, c.k), dv = test::upload_as(c.p, c.v);
    cuda::DeviceBuffer doff = cuda::upload(c.offsets), dmask = cuda::upload(c.mask);
    cuda::DeviceBuffer dcounts = c.counts.empty() ? cuda::DeviceBuffer() : cuda::upload(c.counts);
    cuda::DeviceBuffer dout(c.q.size() * cuda::bytes_of(c.p));
    cuda::MemoryAttentionArgs a;
    a.p = c.p;
    a.q = dq.get(), a.q_stride = c.dim(), a.items = c.items(), a.group = c.group;
    a.offsets = doff.as<int32_t>();
    a.key_counts = c.counts.empty() ? nullptr : dcounts.as<int32_t>();
    for (int i = 0; i < c.items(); ++i) a.max_keys = std::max(a.max_keys, c.keys(i));
    a.max_keys += c.extra_max_keys;
    a.k = dk.get(), a.v = dv.get(), a.kv_stride = c.dim(), a.mask = dmask.as<float>();
    a.heads = c.heads, a.head_dim = c.hd, a.scale = c.scale(), a.out = dout.get(), a.out_stride = c.dim();
    cuda::MemoryAttention attention;
    attention.set_vector_values(whole_rows);
    attention.run(a, nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    // The whole-row path where asked and where it applies (fp16/bf16 at head size 64, rows
    // 16-byte aligned, as cudaMalloc and these strides give): a "true" run that fell back
    // would only test the other path twice.
    EXPECT_EQ(attention.read_whole_rows(), whole_rows && c.p != Precision::F32 && c.hd == 64);
    return test::download_as_f32(c.p, dout.get(), c.q.size());
}

class DecoderAttention : public ::testing::TestWithParam<Precision> {};

TEST_P(DecoderAttention, AppendThenCausalSelfAttentionOverALongCache) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    const int rows = 3, heads = 4, hd = 64, D = heads * hd, max_len = 1100;
    const float scale = 1.f / std::sqrt(float(hd));
    // new_len 1 over a cache past 1024 positions (many key tiles), and 3 new positions. The
    // length given on the host, or each row's read on the device (what a replayed step graph
    // does; the host then passes the longest, which the kernels must not use for the others):
    // the same in every row, or rows that joined a continuous batch at different steps.
    using Lengths = std::vector<int32_t>;
    for (auto [lengths, new_len, on_device] :
         {std::tuple{Lengths{1030, 1030, 1030}, 1, false}, std::tuple{Lengths{37, 37, 37}, 3, false},
          std::tuple{Lengths{1030, 1030, 1030}, 1, true}, std::tuple{Lengths{37, 37, 37}, 3, true},
          std::tuple{Lengths{1030, 0, 517}, 1, true}, std::tuple{Lengths{2, 37, 0}, 3, true}}) {
        SCOPED_TRACE(::testing::Message() << "lengths " << lengths[0] << " " << lengths[1] << " " << lengths[2]
                                          << " new_len " << new_len << " on device " << on_device);
        cuda::DeviceBuffer device_lengths = cuda::upload(lengths);
        const int32_t* dl = on_device ? device_lengths.as<int32_t>() : nullptr;
        const int host_length = *std::max_element(lengths.begin(), lengths.end());
        const auto at = [&](int r) { return int(lengths[size_t(r)]); };
        // Positions the step must not read hold large values, so reading them shows.
        std::vector<float> kc = test::gaussian(size_t(rows) * max_len * D, 11), vc = test::gaussian(kc.size(), 12);
        for (int r = 0; r < rows; ++r)
            for (int j = at(r); j < max_len; ++j)
                for (int d = 0; d < D; ++d) {
                    kc[(size_t(r) * max_len + j) * D + d] = 300.f;
                    vc[(size_t(r) * max_len + j) * D + d] = 3000.f;
                }
        kc = test::rounded_to(p, kc);
        vc = test::rounded_to(p, vc);
        const std::vector<float> fk = test::rounded_to(p, test::gaussian(size_t(rows) * new_len * D, 13));
        const std::vector<float> fv = test::rounded_to(p, test::gaussian(fk.size(), 14));
        const std::vector<float> q = test::rounded_to(p, test::gaussian(fk.size(), 15, 2.f));
        cuda::DeviceBuffer dk = test::upload_as(p, kc), dv = test::upload_as(p, vc);
        cuda::DeviceBuffer dfk = test::upload_as(p, fk), dfv = test::upload_as(p, fv), dq = test::upload_as(p, q);
        cuda::DeviceBuffer dout(q.size() * cuda::bytes_of(p));
        cuda::append_to_cache(p, dfk.get(), dk.get(), rows, new_len, host_length, max_len, D, nullptr, dl);
        cuda::append_to_cache(p, dfv.get(), dv.get(), rows, new_len, host_length, max_len, D, nullptr, dl);
        cuda::cached_self_attention(p, dq.get(), dk.get(), dv.get(), rows, new_len, host_length, max_len, heads, hd,
                                    scale, dout.get(), nullptr, dl);
        PRECIS_CUDA_CHECK(cudaDeviceSynchronize());

        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < new_len; ++i)
                for (int d = 0; d < D; ++d) {
                    kc[(size_t(r) * max_len + at(r) + i) * D + d] = fk[(size_t(r) * new_len + i) * D + d];
                    vc[(size_t(r) * max_len + at(r) + i) * D + d] = fv[(size_t(r) * new_len + i) * D + d];
                }
        // EXPECT_TRUE, not EXPECT_EQ: a failure should not print 800k values.
        EXPECT_TRUE(test::download_as_f32(p, dk.get(), kc.size()) == kc) << "append_to_cache (keys)";
        EXPECT_TRUE(test::download_as_f32(p, dv.get(), vc.size()) == vc) << "append_to_cache (values)";

        std::vector<float> ref(q.size());
        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < new_len; ++i)
                for (int h = 0; h < heads; ++h) {
                    const size_t qa = (size_t(r) * new_len + i) * D + size_t(h) * hd;
                    const size_t ca = size_t(r) * max_len * D + size_t(h) * hd;
                    const auto o = reference_attend(q.data() + qa, kc.data() + ca, vc.data() + ca, D, at(r) + i + 1,
                                                    nullptr, scale, hd);
                    for (int c = 0; c < hd; ++c) ref[qa + size_t(c)] = float(o[size_t(c)]);
                }
        const auto got = test::download_as_f32(p, dout.get(), q.size());
        EXPECT_LE(test::normalized_error(got, comparable_reference(p, ref)), test::op_tolerance(p));
    }
}

TEST_P(DecoderAttention, CrossAttentionStreamsLongMemoriesAndMasksToExactlyZero) {
    PRECIS_REQUIRE_GPU();
    MemoryCase c;
    c.p = GetParam();
    c.heads = 2, c.hd = 64;
    const int64_t D = c.dim();
    const float lowest = std::numeric_limits<float>::lowest();
    // Item 0: 17000 keys (many tiles), its first 100 masked (the running max starts at the
    // mask value). Item 1: 5 keys, fewer than a tile, one masked in the middle.
    c.offsets = {0, 17000, 17005};
    const int total = c.offsets.back();
    c.mask.assign(size_t(total), 0.f);
    for (int j = 0; j < 100; ++j) c.mask[size_t(j)] = lowest;
    for (int j = 5000; j < 5200; ++j) c.mask[size_t(j)] = lowest;
    for (int j = 8000; j < 9000; ++j) c.mask[size_t(j)] = -1.5f;  // an ordinary additive mask
    c.mask[17002] = lowest;
    c.k = test::rounded_to(c.p, test::gaussian(size_t(total) * D, 21));
    c.v = test::gaussian(c.k.size(), 22);
    for (int j : {0, 50, 5100, 17002})  // masked rows with large values: any weight on them shows
        for (int d = 0; d < D; ++d) c.v[size_t(j) * D + d] = 1000.f;
    c.v = test::rounded_to(c.p, c.v);
    // Beams per document: each compiled pass size (1, 2, 4, 5, 8), a group rounded up to one
    // (3), and a group over two passes (9); value rows read either way (cross_attention.h).
    for (int group : {1, 2, 3, 5, 9}) {
        c.group = group;
        c.q = test::rounded_to(c.p, test::gaussian(size_t(c.items() * group) * D, 23, 2.f));
        const std::vector<float> ref = comparable_reference(c.p, reference_memory_attention(c));
        for (bool whole_rows : {false, true}) {
            SCOPED_TRACE(::testing::Message() << "group " << group << " whole value rows " << whole_rows);
            EXPECT_LE(test::normalized_error(device_memory_attention(c, whole_rows), ref), test::op_tolerance(c.p));
        }
    }
}

// The many-documents decoding step: 48 documents of 1 to 2,900 keys, four beams each, 12
// heads (576 pairs: four CTAs a multiprocessor on a 132-SM card, so each (document, head) is
// one chunk, read by one CTA), batches that end part way, and masked keys; both ways of
// reading the value rows.
TEST_P(DecoderAttention, ManyDocumentsEachAttendToTheirOwnMemoryOnBothValuePaths) {
    PRECIS_REQUIRE_GPU();
    MemoryCase c;
    c.p = GetParam();
    c.heads = 12, c.hd = 64, c.group = 4;
    const int items = 48;
    c.offsets = {0};
    std::mt19937 rng(41);
    for (int i = 0; i < items; ++i) {
        const int keys = i == 0 ? 1 : i == 1 ? 33 : i == 2 ? 2900 : 1 + int(rng() % 1600u);
        c.offsets.push_back(c.offsets.back() + keys);
    }
    const int total = c.offsets.back();
    c.mask.assign(size_t(total), 0.f);
    for (int j = 0; j < total; j += 7) c.mask[size_t(j)] = -2.f;
    for (int i = 1; i < items; ++i) c.mask[size_t(c.offsets[size_t(i)]) + 1] = std::numeric_limits<float>::lowest();
    c.k = test::rounded_to(c.p, test::gaussian(size_t(total) * c.dim(), 51));
    c.v = test::rounded_to(c.p, test::gaussian(c.k.size(), 52));
    c.q = test::rounded_to(c.p, test::gaussian(size_t(items * c.group) * c.dim(), 53, 2.f));
    const std::vector<float> ref = comparable_reference(c.p, reference_memory_attention(c));
    for (bool whole_rows : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "whole value rows " << whole_rows);
        EXPECT_LE(test::normalized_error(device_memory_attention(c, whole_rows), ref), test::op_tolerance(c.p));
    }
}

// A query that overflowed (one NaN value: every score of its head is NaN) gives NaN in that
// head's output, not 0 as a memory without keys does, so an fp16 overflow is seen (the NaN
// check of --dtype auto); so do keys of infinity. The other items and heads are untouched.
TEST_P(DecoderAttention, ScoresThatAreNotFiniteGiveNanNotZeros) {
    PRECIS_REQUIRE_GPU();
    MemoryCase c;
    c.p = GetParam();
    c.heads = 2, c.hd = 64, c.group = 2;
    c.offsets = {0, 900, 1300, 1305};  // the first two items span many chunks' worth of keys
    const int total = c.offsets.back();
    c.mask.assign(size_t(total), 0.f);
    c.k = test::rounded_to(c.p, test::gaussian(size_t(total) * c.dim(), 71));
    c.v = test::rounded_to(c.p, test::gaussian(c.k.size(), 72));
    c.q = test::rounded_to(c.p, test::gaussian(size_t(c.items() * c.group) * c.dim(), 73, 2.f));
    const std::vector<float> ref = comparable_reference(c.p, reference_memory_attention(c));
    const float inf = std::numeric_limits<float>::infinity();
    c.q[size_t(1) * c.dim() + 3] = std::nanf("");                           // item 0, row 1, head 0
    for (int64_t d = 0; d < c.dim(); ++d) c.k[size_t(c.offsets[1] + 7) * c.dim() + d] = inf;  // item 1's 8th key
    for (bool whole_rows : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "whole value rows " << whole_rows);
        const std::vector<float> got = device_memory_attention(c, whole_rows);
        for (int r = 0; r < c.items() * c.group; ++r)
            for (int h = 0; h < c.heads; ++h) {
                const bool overflowed = (r == 1 && h == 0) || r == 2 || r == 3;
                for (int x = 0; x < c.hd; ++x) {
                    const size_t at = size_t(r) * c.dim() + size_t(h) * c.hd + size_t(x);
                    if (overflowed)
                        ASSERT_TRUE(std::isnan(got[at])) << "row " << r << " head " << h << ": " << got[at];
                    else
                        ASSERT_NEAR(got[at], ref[at], 0.05) << "row " << r << " head " << h;
                }
            }
    }
}

// The continuous batch's slots (engine/model/decoder_slots.h): each slot's region of the pool
// holds a document no longer than the region, the rest of the region (rows a longer document
// left behind, here of large values) is never read, and a free slot (no keys) gives zeros,
// not NaN. The grid is sized for the longest region, longer than any document present.
TEST_P(DecoderAttention, SlotsReadOnlyTheirOwnDocumentsKeysAndFreeSlotsGiveZeros) {
    PRECIS_REQUIRE_GPU();
    MemoryCase c;
    c.p = GetParam();
    c.heads = 12, c.hd = 64;
    c.offsets = {0, 3000, 3700, 4900, 5000, 5010};  // regions of 3000, 700, 1200, 100, 10 rows
    c.counts = {1800, 700, 0, 37, 1};
    c.extra_max_keys = 3000 - 1800;
    const int total = 5010;
    c.mask.assign(size_t(total), 0.f);
    for (int j = 0; j < total; j += 11) c.mask[size_t(j)] = -1.f;
    c.k = test::gaussian(size_t(total) * c.dim(), 61);
    c.v = test::gaussian(c.k.size(), 62);
    for (int i = 0; i < c.items(); ++i)
        for (int j = c.offsets[size_t(i)] + c.counts[size_t(i)]; j < c.offsets[size_t(i) + 1]; ++j)
            for (int64_t d = 0; d < c.dim(); ++d) {
                c.k[size_t(j * c.dim() + d)] = 30.f;
                c.v[size_t(j * c.dim() + d)] = 1000.f;
            }
    c.k = test::rounded_to(c.p, c.k);
    c.v = test::rounded_to(c.p, c.v);
    for (int group : {1, 4}) {
        c.group = group;
        c.q = test::rounded_to(c.p, test::gaussian(size_t(c.items() * group) * c.dim(), 63, 2.f));
        const std::vector<float> ref = comparable_reference(c.p, reference_memory_attention(c));
        for (bool whole_rows : {false, true}) {
            SCOPED_TRACE(::testing::Message() << "group " << group << " whole value rows " << whole_rows);
            const std::vector<float> got = device_memory_attention(c, whole_rows);
            EXPECT_LE(test::normalized_error(got, ref), test::op_tolerance(c.p));
            const size_t free_first = size_t(2 * group) * size_t(c.dim());  // slot 2's rows
            for (size_t x = free_first; x < free_first + size_t(group * c.dim()); ++x)
                ASSERT_EQ(got[x], 0.f) << "a free slot's output at " << x;
        }
    }
}

// The CPU DecoderState::reorder semantics on a host copy: row r's first `length` positions
// become what row parents[r] held; everything past length is left alone.
void reorder_on_host(std::vector<uint8_t>& cache, const std::vector<int>& parents, size_t row_bytes,
                     size_t used_bytes) {
    const std::vector<uint8_t> old = cache;
    for (size_t r = 0; r < parents.size(); ++r)
        std::memcpy(cache.data() + r * row_bytes, old.data() + size_t(parents[r]) * row_bytes, used_bytes);
}

TEST_P(DecoderAttention, CacheReorderMatchesTheCpuSemantics) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    const int rows = 4, max_len = 10, length = 7;
    const std::vector<std::vector<int>> steps{{1, 0, 0, 2}, {0, 1, 2, 3}, {3, 3, 3, 3}, {2, 0, 1, 3}, {0, 0, 1, 1}};
    // D = 24: 16-byte copies; D = 6 (fp16/bf16): 4-byte copies; D = 5 (fp16/bf16): 2-byte copies.
    for (int64_t D : {24, 6, 5}) {
        SCOPED_TRACE(::testing::Message() << "D " << D);
        const size_t row_bytes = size_t(max_len) * size_t(D) * cuda::bytes_of(p);
        const size_t used_bytes = size_t(length) * size_t(D) * cuda::bytes_of(p);
        std::mt19937 rng(uint32_t(31 + D));
        std::vector<std::vector<uint8_t>> host(3, std::vector<uint8_t>(rows * row_bytes));
        std::vector<cuda::DeviceBuffer> dev;
        std::vector<void*> caches;
        for (auto& h : host) {
            for (uint8_t& b : h) b = uint8_t(rng());
            dev.push_back(cuda::upload(h));
            caches.push_back(dev.back().get());
        }
        cuda::CacheReorder reorder;  // reused across steps, as the decoder does
        for (const auto& parents : steps) {
            SCOPED_TRACE(::testing::Message() << "parents {" << parents[0] << "," << parents[1] << "," << parents[2]
                                              << "," << parents[3] << "}");
            reorder.run(p, caches, parents, length, max_len, D, nullptr);
            PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
            for (size_t c = 0; c < host.size(); ++c) {
                reorder_on_host(host[c], parents, row_bytes, used_bytes);
                EXPECT_EQ(cuda::download<uint8_t>(caches[c], host[c].size()), host[c]) << "cache " << c;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Precisions, DecoderAttention,
                         ::testing::Values(Precision::F32, Precision::F16, Precision::BF16),
                         [](const auto& info) { return std::string(test::precision_label(info.param)); });

// Host-only: bad arguments are refused before any CUDA call (runs without a GPU).
TEST(DecoderAttentionArguments, AreCheckedBeforeAnyCudaCall) {
    void* fake = reinterpret_cast<void*>(uintptr_t(4096));  // never dereferenced
    const auto* ifake = static_cast<const int32_t*>(fake);
    const Precision p = Precision::F16;
    expect_argument_error([&] { cuda::append_to_cache(p, fake, fake, 2, 0, 3, 10, 64, nullptr); });
    expect_argument_error([&] { cuda::append_to_cache(p, fake, fake, 2, 2, 9, 10, 64, nullptr); });
    expect_argument_error([&] { cuda::append_to_cache(p, nullptr, fake, 2, 1, 3, 10, 64, nullptr); });
    expect_argument_error(
        [&] { cuda::cached_self_attention(p, fake, fake, fake, 2, 1, 10, 10, 4, 16, 1.f, fake, nullptr); });
    expect_argument_error(
        [&] { cuda::cached_self_attention(p, fake, fake, fake, 2, 1, 3, 10, 4, 0, 1.f, fake, nullptr); });
    expect_argument_error(
        [&] { cuda::cached_self_attention(p, fake, nullptr, fake, 2, 1, 3, 10, 4, 16, 1.f, fake, nullptr); });
    cuda::MemoryAttention memory;
    cuda::MemoryAttentionArgs a;
    a.p = p, a.q = fake, a.q_stride = 64, a.items = 2, a.group = 1, a.offsets = ifake, a.max_keys = 8;
    a.k = fake, a.v = fake, a.kv_stride = 64, a.heads = 4, a.head_dim = 16, a.out = fake, a.out_stride = 64;
    cuda::MemoryAttentionArgs bad = a;
    bad.heads = 0;
    expect_argument_error([&] { memory.run(bad, nullptr); });
    bad = a, bad.offsets = nullptr;
    expect_argument_error([&] { memory.run(bad, nullptr); });
    bad = a, bad.items = -1;
    expect_argument_error([&] { memory.run(bad, nullptr); });
    bad = a, bad.head_dim = 129;
    expect_argument_error([&] { memory.run(bad, nullptr); });
    cuda::CacheReorder reorder;
    expect_argument_error([&] { reorder.run(p, {fake, fake}, {0, 2}, 3, 10, 64, nullptr); });
    expect_argument_error([&] { reorder.run(p, {fake, fake}, {0, -1}, 3, 10, 64, nullptr); });
    expect_argument_error([&] { reorder.run(p, {fake, nullptr}, {1, 0}, 3, 10, 64, nullptr); });
    expect_argument_error([&] { reorder.run(p, {fake, fake}, {1, 0}, 11, 10, 64, nullptr); });
}

}  // namespace
}  // namespace precis
