// Whole models with int8 and fp16 weights against float32, on every reference case.
//  - fp16-weights: every case, every batch, within the fixtures' own tolerance and ids
//    exact (the same check as fixture_parity_test, only the weights are stored in fp16).
//  - int8: the relative error ||a - b|| / ||b|| of the encoder states and the logits
//    against the fp32 engine, and how many greedy / beam sequences are identical;
//    printed per case and asserted against loose bounds (see the constants).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/backend/backend.h"
#include "engine/model/model.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

// fp16 rounds every weight by up to 2^-11 relative (uniform, std 2.8e-4). The fixtures
// README measures that perturbing every weight by only 1e-5*N(0,1) already moves outputs
// by 5e-4, five times the 1e-4 fp32 acceptance, so fp16 weights cannot hold 1e-4. Scaling
// that measurement by the 28x larger perturbation predicts ~1.4e-2; measured at most
// 3.2e-3, so atol = rtol = 1e-2. Attention that picks keys by a hard choice (LSH buckets,
// margins down to 1.1e-4; norm top-k, gaps down to 5e-5) can pick other keys under such a
// perturbation, so those cases are held to relative error, not element-wise tolerance.
constexpr double kFp16Tolerance = 1e-2;
constexpr double kFp16SelectionRelativeError = 5e-2;
// Beam search ranks hypotheses whose scores can lie within 1e-3 of each other, closer
// than the fp16 perturbation of the scores: at most one batch per case may pick another.

bool picks_keys_by_hard_choice(const FixtureCase& c) {
    return c.name.find("lsh") != std::string::npos || c.name == "lsg-norm-sf4";
}

double relative_error(const Tensor& a, const Tensor& b);

class Fp16WeightsParity : public ::testing::TestWithParam<std::string> {};

TEST_P(Fp16WeightsParity, FloatsWithinTheFp16BoundGreedyIdsExactBeamIdsMostly) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false, .compute_type = ComputeType::Fp16Weights});
    ASSERT_EQ(model->compute_type(), ComputeType::Fp16Weights);
    auto backend = make_cpu_backend();
    int beams = 0, beams_same = 0;
    double worst = 0;
    for (const std::string& batch : c.batches()) {
        SCOPED_TRACE("batch " + batch);
        const NamedTensors out = run_forward(*model, *backend, c.request(batch, *model));
        for (const auto& [name, t] : out) {
            auto it = c.tensors.find(batch + "." + name);
            if (it == c.tensors.end()) continue;
            const Tensor& ref = it->second;
            if (ref.dtype() == DType::I64) {
                const bool same = ref.shape() == t.shape() && ref.to_int_vector() == t.to_int_vector();
                if (name == "beam.sequences") {
                    beams += 1, beams_same += same;
                } else {
                    EXPECT_TRUE(same) << name << ": ids differ";
                }
                continue;
            }
            if (picks_keys_by_hard_choice(c)) {
                const double e = relative_error(t, ref);
                worst = std::max(worst, e);
                EXPECT_LT(e, kFp16SelectionRelativeError) << name;
            } else {
                std::string why;
                const double excess = tolerance_excess(t, ref, kFp16Tolerance, kFp16Tolerance, &why);
                worst = std::max(worst, excess + kFp16Tolerance);
                EXPECT_LE(excess, 0.0) << name << ": " << why;
            }
        }
    }
    std::printf("fp16-weights %-22s worst %s %.2e, beam sequences identical %d/%d\n", c.name.c_str(),
                picks_keys_by_hard_choice(c) ? "relative error" : "|a-b| - rtol|b|", worst, beams_same, beams);
    EXPECT_GE(beams_same + 1, beams) << "more than one beam batch differs";
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, Fp16WeightsParity, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

// ||a - b|| / ||b|| over the finite elements (greedy scores hold -inf).
double relative_error(const Tensor& a, const Tensor& b) {
    const std::vector<float> x = a.to_float_vector(), y = b.to_float_vector();
    double num = 0, den = 0;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (!std::isfinite(y[i]) || !std::isfinite(x[i])) continue;
        num += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
        den += double(y[i]) * y[i];
    }
    return std::sqrt(num / std::max(den, 1e-30));
}

const Tensor* find(const NamedTensors& t, const std::string& name) {
    for (auto& [n, v] : t)
        if (n == name) return &v;
    return nullptr;
}

struct Tally {
    double worst = 0, sum = 0;
    int n = 0;
    void add(double e) { worst = std::max(worst, e), sum += e, ++n; }
    double mean() const { return n ? sum / n : 0; }
};

// Bounds, with the reasoning: per-row int8 rounding perturbs every product by ~0.7%
// (lowp_linear_test), the encoder's integer GEMM rounds its activations too (~1.7% in
// all, int8_gemm_test) and the token embeddings are the int8 LM head's rows; through the
// 2-layer tiny models that measured worst 4.4% / mean 2.7% on the logits and mean 2.7% on
// the encoder states, the worst where attention picks keys by a hard choice (norm top-k
// with gaps of 5e-5: 6.9% on lsg-norm-sf4). The bounds leave
// room over the worst measured without letting a broken kernel (errors of order 1) through.
constexpr double kInt8EncoderWorst = 0.1, kInt8LogitsWorst = 0.06;
// Sequences: the fixtures' greedy top-1/top-2 gaps are as small as 2.2e-3 while int8
// moves logits by ~1e-2 (random tiny models have nearly flat distributions), so many
// sequences diverge somewhere; measured 117/212 identical. Half must be.
constexpr double kInt8SequenceAgreement = 0.5;

TEST(Int8Accuracy, EncoderStatesAndLogitsStayCloseToFloat32AndMostSequencesAgree) {
    set_cpu_threads(2);
    Tally encoder, logits;
    int sequences = 0, same = 0;
    auto backend = make_cpu_backend();
    std::printf("%-24s %-8s %12s %12s %s\n", "case", "batch", "encoder err", "logits err", "greedy/beam ids");
    for (const std::string& name : fixture_case_names()) {
        const FixtureCase c = FixtureCase::load(name);
        auto f32 = Model::load(c.model_dir, {.load_tokenizer = false});
        auto i8 = Model::load(c.model_dir, {.load_tokenizer = false, .compute_type = ComputeType::Int8});
        for (const std::string& batch : c.batches()) {
            const NamedTensors a = run_forward(*i8, *backend, c.request(batch, *i8));
            const NamedTensors b = run_forward(*f32, *backend, c.request(batch, *f32));
            const double e = relative_error(*find(a, "encoder_last_hidden_state"), *find(b, "encoder_last_hidden_state"));
            const double l = relative_error(*find(a, "logits"), *find(b, "logits"));
            encoder.add(e);
            logits.add(l);
            std::string ids;
            for (const char* seq : {"greedy.sequences", "beam.sequences"}) {
                const Tensor* x = find(a, seq);
                if (!x) continue;
                const bool eq = x->shape() == find(b, seq)->shape() &&
                                x->to_int_vector() == find(b, seq)->to_int_vector();
                // Per row: a [2, L] tensor holds two sequences.
                const int rows = int(x->dim(0));
                int rows_same = 0;
                if (eq) {
                    rows_same = rows;
                } else {
                    for (int r = 0; r < rows; ++r) {
                        const int64_t la = x->dim(1), lb = find(b, seq)->dim(1);
                        const auto va = x->to_int_vector(), vb = find(b, seq)->to_int_vector();
                        bool row_eq = true;
                        for (int64_t k = 0; k < std::max(la, lb); ++k) {
                            const int64_t p = k < la ? va[size_t(r * la + k)] : 1, q = k < lb ? vb[size_t(r * lb + k)] : 1;
                            row_eq &= p == q;
                        }
                        rows_same += row_eq;
                    }
                }
                sequences += rows;
                same += rows_same;
                ids += std::string(seq).substr(0, seq[0] == 'g' ? 6 : 4) + " " + std::to_string(rows_same) + "/" +
                       std::to_string(rows) + "  ";
            }
            std::printf("%-24s %-8s %12.2e %12.2e %s\n", name.c_str(), batch.c_str(), e, l, ids.c_str());
        }
    }
    std::printf("int8 vs fp32: encoder states worst %.2e mean %.2e; logits worst %.2e mean %.2e; "
                "sequences identical %d/%d\n",
                encoder.worst, encoder.mean(), logits.worst, logits.mean(), same, sequences);
    EXPECT_LT(encoder.worst, kInt8EncoderWorst);
    EXPECT_LT(logits.worst, kInt8LogitsWorst);
    EXPECT_GT(encoder.worst, 0.0) << "int8 weights must actually be in use";
    ASSERT_GT(sequences, 0);
    EXPECT_GE(double(same) / sequences, kInt8SequenceAgreement);
}

}  // namespace
}  // namespace precis::test
