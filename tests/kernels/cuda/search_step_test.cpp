// One search step on the device against the CPU search: log_softmax_row + process_scores
// (+ the beam score) for log_softmax_process, every row under the same rules and each under
// its own, and the beam search's partial_sort (ties:
// lower index first) for top_k. The search runs in float32 in every precision.
#include "kernels/ops/search_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/core/error.h"
#include "engine/generate/logits_processors.h"
#include "engine/generate/search.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace precis {
namespace {

using test::expect_argument_error;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// log_softmax_process with every row under the same step rules (what generate()'s search
// does); whether they force a token. A null history stands for rules that read none.
bool process_alike(float* scores, int rows, int64_t V, const int32_t* history, int stride, const float* beam_scores,
                   const cuda::StepRules& rules, float* forced_logprob = nullptr) {
    const cuda::RowRules one = cuda::row_rules(rules, V, stride);
    cuda::DeviceBuffer d_rules = cuda::upload(std::vector<cuda::RowRules>(size_t(rows), one));
    cuda::DeviceBuffer unread = cuda::upload(std::vector<int32_t>(size_t(rows), 0));
    if (!history) history = unread.as<int32_t>(), stride = 1;
    cuda::log_softmax_process(scores, rows, V, history, stride, beam_scores, d_rules.as<cuda::RowRules>(), nullptr,
                              forced_logprob);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());  // before the rules' buffer goes
    return one.forced_token >= 0;
}

// Banned and forced-away tokens must be -inf exactly where the CPU has them; the finite
// scores are then held to the fp32 op bound.
void expect_same_scores(const std::vector<float>& got, const std::vector<float>& ref, bool expect_bans) {
    std::vector<float> got_finite, ref_finite;
    int64_t pattern_mismatches = 0, bans = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const bool ref_inf = ref[i] == kNegInf, got_inf = got[i] == kNegInf;
        bans += ref_inf;
        if (ref_inf != got_inf) ++pattern_mismatches;
        else if (!ref_inf) {
            got_finite.push_back(got[i]);
            ref_finite.push_back(ref[i]);
        }
    }
    EXPECT_EQ(pattern_mismatches, 0) << "of " << bans << " -inf entries on the CPU";
    if (expect_bans) {
        EXPECT_GT(bans, 0) << "the case should ban something";
    }
    EXPECT_LE(test::normalized_error(got_finite, ref_finite), 1e-6);
}

struct StepCase {
    const char* name;
    int cur_len, max_length, min_length, ngram;
    int64_t forced_bos, forced_eos;
    bool beam;
};

GenerationConfig config_of(const StepCase& sc, int64_t eos) {
    GenerationConfig cfg;
    cfg.no_repeat_ngram_size = sc.ngram;
    cfg.min_length = sc.min_length;
    cfg.eos_token_id = eos;
    cfg.forced_bos_token_id = sc.forced_bos;
    cfg.forced_eos_token_id = sc.forced_eos;
    return cfg;
}

TEST(SearchStep, LogSoftmaxProcessMatchesTheCpuRules) {
    PRECIS_REQUIRE_GPU();
    const int rows = 5;
    const int64_t V = 50265, eos = 2;
    const StepCase cases[] = {
        {"plain", 12, 40, 0, 0, -1, -1, false},
        {"trigram bans, min length, beam scores", 12, 40, 20, 3, -1, -1, true},
        {"unigram bans, beam scores", 9, 40, 0, 1, -1, -1, true},
        {"forced BOS", 1, 40, 5, 3, 0, 2, true},
        {"forced EOS over bigram bans", 19, 20, 0, 2, 0, 2, false},
        {"forced BOS and EOS: EOS wins", 1, 2, 0, 0, 0, 2, true},
    };
    for (const StepCase& sc : cases) {
        SCOPED_TRACE(sc.name);
        const std::vector<float> logits = test::gaussian(size_t(rows) * V, 41, 3.f);
        std::vector<float> beam_scores(rows);
        for (int r = 0; r < rows; ++r) beam_scores[size_t(r)] = -0.75f * float(r);
        // Histories from a few tokens, so n-grams repeat; entries past cur_len are garbage
        // that would ban more tokens if read.
        const int stride = sc.cur_len + 4;
        std::mt19937 rng(uint32_t(sc.cur_len * 7 + sc.ngram));
        std::vector<std::vector<int64_t>> seqs(rows);
        std::vector<int32_t> history(size_t(rows) * stride, 777);
        for (int r = 0; r < rows; ++r) {
            seqs[size_t(r)].push_back(2);  // the start token
            for (int t = 1; t < sc.cur_len; ++t) seqs[size_t(r)].push_back(int64_t(5 + rng() % (3 + r)));
            for (int t = 0; t < sc.cur_len; ++t) history[size_t(r) * stride + size_t(t)] = int32_t(seqs[size_t(r)][size_t(t)]);
        }

        const GenerationConfig cfg = config_of(sc, eos);
        std::vector<float> ref = logits;
        for (int r = 0; r < rows; ++r) {
            float* row = ref.data() + int64_t(r) * V;
            log_softmax_row(row, V);
            process_scores(row, V, seqs[size_t(r)], cfg, sc.max_length);
            if (sc.beam)
                for (int64_t t = 0; t < V; ++t) row[t] += beam_scores[size_t(r)];
        }

        cuda::StepRules rules;
        rules.cur_len = sc.cur_len;
        rules.max_length = sc.max_length;
        rules.min_length = sc.min_length;
        rules.no_repeat_ngram = sc.ngram;
        rules.eos_token_id = eos;
        rules.forced_bos_token_id = sc.forced_bos;
        rules.forced_eos_token_id = sc.forced_eos;
        cuda::DeviceBuffer d_scores = cuda::upload(logits), d_hist = cuda::upload(history);
        cuda::DeviceBuffer d_beam = cuda::upload(beam_scores);
        process_alike(d_scores.as<float>(), rows, V, d_hist.as<int32_t>(), stride, sc.beam ? d_beam.as<float>() : nullptr,
                      rules);
        PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = cuda::download<float>(d_scores.get(), ref.size());

        expect_same_scores(got, ref, sc.ngram > 0 || sc.min_length > 0);
    }
}

// Each row of a continuous batch under its own document's rules and length: one launch
// gives every row what the CPU's rules give it alone, the forced rows' log-probabilities
// before forcing included.
TEST(SearchStep, EachRowsOwnRulesMatchTheCpuAsThatRowAlone) {
    PRECIS_REQUIRE_GPU();
    const int64_t V = 50265, eos = 2;
    const StepCase cases[] = {
        {"plain", 12, 40, 0, 0, -1, -1, true},
        {"trigram bans, min length", 12, 40, 20, 3, -1, -1, true},
        {"unigram bans", 9, 40, 0, 1, -1, -1, true},
        {"forced BOS", 1, 40, 5, 3, 0, 2, true},
        {"forced EOS over bigram bans", 19, 20, 0, 2, 0, 2, true},
        {"a free slot's row", 1, 0, 0, 0, -1, -1, true},
    };
    const int rows = int(std::size(cases));
    const int stride = 24;
    const std::vector<float> logits = test::gaussian(size_t(rows) * V, 71, 3.f);
    std::vector<float> beam_scores(static_cast<size_t>(rows), 0.f), ref = logits;
    std::vector<int32_t> history(size_t(rows) * stride, 777);
    std::vector<cuda::RowRules> rules;
    std::vector<float> forced_ref(size_t(rows), 1.f);
    std::mt19937 rng(72);
    for (int r = 0; r < rows; ++r) {
        const StepCase& sc = cases[r];
        beam_scores[size_t(r)] = -0.5f * float(r);
        std::vector<int64_t> seq{2};
        for (int t = 1; t < sc.cur_len; ++t) seq.push_back(int64_t(5 + rng() % 4));
        for (int t = 0; t < sc.cur_len; ++t) history[size_t(r) * stride + size_t(t)] = int32_t(seq[size_t(t)]);
        const GenerationConfig cfg = config_of(sc, eos);
        const StepRules step = step_rules(cfg, sc.cur_len, sc.max_length);
        rules.push_back(cuda::row_rules(step, V, stride));
        float* row = ref.data() + int64_t(r) * V;
        log_softmax_row(row, V);
        if (rules.back().forced_token >= 0) forced_ref[size_t(r)] = row[rules.back().forced_token];
        process_scores(row, V, seq, step);
        for (int64_t t = 0; t < V; ++t) row[t] += beam_scores[size_t(r)];
    }
    cuda::DeviceBuffer d_scores = cuda::upload(logits), d_hist = cuda::upload(history);
    cuda::DeviceBuffer d_beam = cuda::upload(beam_scores), d_rules = cuda::upload(rules);
    cuda::DeviceBuffer d_forced = cuda::upload(std::vector<float>(size_t(rows), 1.f));
    cuda::log_softmax_process(d_scores.as<float>(), rows, V, d_hist.as<int32_t>(), stride, d_beam.as<float>(),
                              d_rules.as<cuda::RowRules>(), nullptr, d_forced.as<float>());
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    expect_same_scores(cuda::download<float>(d_scores.get(), ref.size()), ref, true);
    const std::vector<float> forced = cuda::download<float>(d_forced.get(), size_t(rows));
    for (int r = 0; r < rows; ++r)
        EXPECT_NEAR(forced[size_t(r)], forced_ref[size_t(r)], 1e-5f * (1 + std::abs(forced_ref[size_t(r)])))
            << cases[r].name;
}

// A forced step (BOS at the first step, EOS at the last) hands the greedy search each row's
// log-probability of the forced token before forcing, as the CPU's greedy_pick takes it
// (log_softmax_row first); the row itself is still 0 there and -inf elsewhere. A step that
// forces nothing says so and leaves the output alone.
TEST(SearchStep, AForcedStepGivesTheForcedTokensLogProbabilityBeforeForcing) {
    PRECIS_REQUIRE_GPU();
    const int rows = 3;
    const int64_t V = 50265, bos = 0, eos = 2;
    for (const int cur_len : {1, 19}) {
        SCOPED_TRACE(cur_len == 1 ? "forced BOS" : "forced EOS");
        const std::vector<float> logits = test::gaussian(size_t(rows) * size_t(V), 61 + uint32_t(cur_len));
        const int64_t forced = cur_len == 1 ? bos : eos;
        cuda::StepRules rules;
        rules.cur_len = cur_len;
        rules.max_length = 20;
        rules.eos_token_id = eos;
        rules.forced_bos_token_id = bos;
        rules.forced_eos_token_id = eos;
        cuda::DeviceBuffer d_scores = cuda::upload(logits), d_forced = cuda::upload(std::vector<float>(rows, 1.f));
        EXPECT_TRUE(process_alike(d_scores.as<float>(), rows, V, nullptr, 0, nullptr, rules, d_forced.as<float>()));
        PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = cuda::download<float>(d_forced.get(), rows);
        const std::vector<float> row_scores = cuda::download<float>(d_scores.get(), size_t(rows) * size_t(V));
        for (int r = 0; r < rows; ++r) {
            std::vector<float> ref(logits.begin() + int64_t(r) * V, logits.begin() + int64_t(r + 1) * V);
            log_softmax_row(ref.data(), V);
            EXPECT_NEAR(got[size_t(r)], ref[size_t(forced)], 1e-5f * (1 + std::abs(ref[size_t(forced)]))) << "row " << r;
            EXPECT_EQ(row_scores[size_t(r) * size_t(V) + size_t(forced)], 0.f);
            EXPECT_EQ(row_scores[size_t(r) * size_t(V) + size_t(forced == bos ? eos : bos)], kNegInf);
        }
    }
    // Nothing forced in the middle: false, and the output untouched.
    cuda::StepRules rules;
    rules.cur_len = 5;
    rules.max_length = 20;
    rules.forced_bos_token_id = bos;
    rules.forced_eos_token_id = eos;
    cuda::DeviceBuffer d_scores = cuda::upload(test::gaussian(size_t(rows) * size_t(V), 67));
    cuda::DeviceBuffer d_forced = cuda::upload(std::vector<float>(rows, 1.f));
    EXPECT_FALSE(process_alike(d_scores.as<float>(), rows, V, nullptr, 0, nullptr, rules, d_forced.as<float>()));
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(cuda::download<float>(d_forced.get(), rows), std::vector<float>(rows, 1.f));
}

// Greedy rows stay logits with the processors applied, beside each row's log-sum-exp: the
// first best is the CPU greedy_pick's even where the two best logits, a float step apart,
// give one log-probability once the log-sum-exp is taken from them, and the top value turned
// into a log-probability is greedy_pick's. The pair sits at 1.25 (a step of 2^-23) and the
// log-probabilities near -9.6 (a step of 2^-20): the subtraction rounds both to one value,
// which the test checks, so a search that chose on log-probabilities would take id 3.
TEST(SearchStep, GreedyRowsChooseOnTheirLogitsAsTheCpuDoes) {
    PRECIS_REQUIRE_GPU();
    const int rows = 3;
    const int64_t V = 50265, eos = 2;
    const float low = 1.25f, high = std::nextafter(low, 2.f);
    std::vector<float> logits = test::gaussian(size_t(rows) * size_t(V), 81, 0.25f);  // at most 1.12
    for (int r = 0; r < rows; ++r) {  // the planted pair: `low` at id 3, the next float above at id 10
        logits[size_t(r) * size_t(V) + 3] = low;
        logits[size_t(r) * size_t(V) + 10] = high;
    }
    logits[size_t(2) * size_t(V) + 10] = -1.f;  // row 2: id 3 is the best alone
    const std::vector<int64_t> seq{2, 7, 8, 7};  // a bigram ban of 8 after 7
    std::vector<int32_t> history(size_t(rows) * 4);
    for (int r = 0; r < rows; ++r)
        for (int t = 0; t < 4; ++t) history[size_t(r) * 4 + size_t(t)] = int32_t(seq[size_t(t)]);
    cuda::StepRules rules;
    rules.cur_len = 4;
    rules.max_length = 40;
    rules.min_length = 10;  // eos banned
    rules.no_repeat_ngram = 2;
    rules.eos_token_id = eos;
    const cuda::RowRules one = cuda::row_rules(rules, V, 4);
    cuda::DeviceBuffer d_scores = cuda::upload(logits), d_hist = cuda::upload(history);
    cuda::DeviceBuffer d_rules = cuda::upload(std::vector<cuda::RowRules>(size_t(rows), one));
    cuda::DeviceBuffer d_forced(size_t(rows) * sizeof(float)), d_lse(size_t(rows) * sizeof(float));
    cuda::DeviceBuffer d_v(size_t(rows) * sizeof(float)), d_i(size_t(rows) * sizeof(int64_t));
    cuda::log_softmax_process(d_scores.as<float>(), rows, V, d_hist.as<int32_t>(), 4, nullptr,
                              d_rules.as<cuda::RowRules>(), nullptr, d_forced.as<float>(), d_lse.as<float>());
    const std::vector<float> processed = [&] {
        PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
        return cuda::download<float>(d_scores.get(), logits.size());
    }();
    cuda::DeviceBuffer scratch(cuda::topk_scratch_bytes(rows, V, 1));
    cuda::top_k(d_scores.as<float>(), rows, V, 1, d_v.as<float>(), d_i.as<int64_t>(), scratch.get(), nullptr);
    cuda::to_log_probabilities(d_v.as<float>(), d_lse.as<float>(), rows, nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> values = cuda::download<float>(d_v.get(), size_t(rows));
    const std::vector<int64_t> ids = cuda::download<int64_t>(d_i.get(), size_t(rows));
    const std::vector<float> lse = cuda::download<float>(d_lse.get(), size_t(rows));
    std::vector<float> ref = logits, lp(static_cast<size_t>(V));
    for (int r = 0; r < rows; ++r) {
        SCOPED_TRACE("row " + std::to_string(r));
        if (r < 2) EXPECT_EQ(low - lse[size_t(r)], high - lse[size_t(r)]) << "the pair's log-probabilities differ";
        float* row = ref.data() + size_t(r) * size_t(V);
        float logprob = 0;
        const int64_t want = greedy_pick(row, V, seq, rules, lp.data(), &logprob);  // row: processed logits
        EXPECT_EQ(want, r == 2 ? 3 : 10);
        EXPECT_EQ(ids[size_t(r)], want);
        EXPECT_NEAR(values[size_t(r)], logprob, 1e-5f * (1 + std::abs(logprob)));
    }
    expect_same_scores(processed, ref, true);
}

// The CPU beam search's selection: partial_sort, descending, lower index first on ties.
void cpu_top_k(const float* s, int64_t n, int k, std::vector<float>& values, std::vector<int64_t>& indices) {
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int64_t a, int64_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
    for (int i = 0; i < k; ++i) {
        indices.push_back(order[size_t(i)]);
        values.push_back(s[order[size_t(i)]]);
    }
}

void check_top_k(const std::vector<float>& scores, int groups, int64_t group_len, int k) {
    SCOPED_TRACE(::testing::Message() << groups << " groups of " << group_len << ", k " << k);
    std::vector<float> ref_v;
    std::vector<int64_t> ref_i;
    // The device ranks a NaN first, as +infinity (search_step.h).
    std::vector<float> ranked = scores;
    for (float& x : ranked)
        if (std::isnan(x)) x = std::numeric_limits<float>::infinity();
    for (int g = 0; g < groups; ++g) cpu_top_k(ranked.data() + g * group_len, group_len, k, ref_v, ref_i);
    cuda::DeviceBuffer d_scores = cuda::upload(scores);
    cuda::DeviceBuffer d_v(size_t(groups) * k * sizeof(float)), d_i(size_t(groups) * k * sizeof(int64_t));
    const size_t need = cuda::topk_scratch_bytes(groups, group_len, k);
    cuda::DeviceBuffer scratch(need);
    cuda::top_k(d_scores.as<float>(), groups, group_len, k, d_v.as<float>(), d_i.as<int64_t>(), scratch.get(),
                nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(cuda::download<int64_t>(d_i.get(), ref_i.size()), ref_i);
    EXPECT_EQ(cuda::download<float>(d_v.get(), ref_v.size()), ref_v);
}

TEST(SearchStep, TopKMatchesTheCpuOrderWithTiesAndInfinities) {
    PRECIS_REQUIRE_GPU();
    // Beam-search shaped: 5 beams x bart's vocabulary per group (two passes), with scores
    // quantized to quarters (many ties), a third of them -inf, and planted ties at the top
    // across chunk boundaries (4095 / 4096 are in different chunks).
    {
        const int groups = 4;
        const int64_t len = 5 * 50265;
        std::vector<float> s = test::gaussian(size_t(groups) * len, 51);
        std::mt19937 rng(52);
        for (float& x : s) x = rng() % 3 == 0 ? kNegInf : std::round(x * 4.f) / 4.f;
        for (int g = 0; g < groups; ++g)
            for (int64_t i : {int64_t(250000), int64_t(7), int64_t(130000), int64_t(4096), int64_t(4095)})
                s[size_t(g * len + i)] = 9.5f;
        // Group 3: only five finite scores, so the top-k continues into -inf by index.
        for (int64_t i = 0; i < len; ++i) s[size_t(3 * len + i)] = kNegInf;
        for (int64_t i : {int64_t(100), int64_t(5), int64_t(200000), int64_t(99999), int64_t(4097)})
            s[size_t(3 * len + i)] = -float(i % 7);
        check_top_k(s, groups, len, 10);
        check_top_k(s, groups, len, 64);
    }
    // Three passes: 300000 scores and k 64 leave 74 x 64 candidates after the first.
    {
        const int64_t len = 300000;
        std::vector<float> s = test::gaussian(size_t(2) * len, 53);
        for (float& x : s) x = std::round(x * 8.f) / 8.f;
        check_top_k(s, 2, len, 64);
    }
    // Single pass, a group shorter than the chunk; and every score equal (pure index order).
    check_top_k(test::gaussian(3 * 100, 54), 3, 100, 64);
    check_top_k(std::vector<float>(2 * 64, 1.f), 2, 64, 64);
    check_top_k(std::vector<float>(2 * 5000, kNegInf), 2, 5000, 3);
}

// One beam of a group overflowed (its row NaN, as one NaN logit makes the whole log-softmax):
// its candidates come first, so the search sees the group's best is not finite, where a top-k
// that skipped them would go on with the other beams and never see the overflow.
TEST(SearchStep, TopKRanksNanFirstSoAnOverflowedBeamIsSeen) {
    PRECIS_REQUIRE_GPU();
    const int groups = 3;
    const int64_t V = 50265, len = 4 * V;  // four beams of bart's vocabulary
    std::vector<float> s = test::gaussian(size_t(groups) * len, 55);
    for (int64_t t = 0; t < V; ++t) s[size_t(1 * len + 2 * V + t)] = std::nanf("");  // group 1, beam 2
    s[size_t(2 * len + 3 * V + 17)] = std::nanf("");                              // group 2: one NaN score
    check_top_k(s, groups, len, 8);
}

// Host-only: bad arguments are refused before any CUDA call (runs without a GPU).
TEST(SearchStepArguments, AreCheckedBeforeAnyCudaCall) {
    auto* f = reinterpret_cast<float*>(uintptr_t(4096));  // never dereferenced
    auto* i64 = reinterpret_cast<int64_t*>(uintptr_t(8192));
    auto* hist = reinterpret_cast<const int32_t*>(uintptr_t(12288));
    cuda::StepRules rules;
    rules.cur_len = 4;
    rules.max_length = 20;
    const cuda::RowRules one_row = cuda::row_rules(rules, 100, 8);
    const auto* d_rules = reinterpret_cast<const cuda::RowRules*>(uintptr_t(16384));
    expect_argument_error([&] { cuda::log_softmax_process(nullptr, 2, 100, hist, 8, nullptr, d_rules, nullptr); });
    expect_argument_error([&] { cuda::log_softmax_process(f, 2, 0, hist, 8, nullptr, d_rules, nullptr); });
    expect_argument_error([&] { cuda::row_rules(rules, 0, 8); });
    cuda::StepRules ngram = rules;
    ngram.no_repeat_ngram = 3;
    expect_argument_error([&] { cuda::log_softmax_process(f, 2, 100, nullptr, 8, nullptr, d_rules, nullptr); });
    expect_argument_error([&] { cuda::row_rules(ngram, 100, 3); });
    cuda::StepRules forced = rules;
    forced.forced_eos_token_id = 100;
    expect_argument_error([&] { cuda::row_rules(forced, 100, 8); });
    expect_argument_error([&] { cuda::log_softmax_process(f, 2, 100, hist, 8, nullptr, nullptr, nullptr); });
    EXPECT_EQ(one_row.forced_token, -1);
    cuda::StepRules zero = rules;
    zero.cur_len = 0;
    expect_argument_error([&] { cuda::row_rules(zero, 100, 8); });

    expect_argument_error([&] { cuda::top_k(f, 2, 1000, 65, f, i64, f, nullptr); });
    expect_argument_error([&] { cuda::top_k(f, 2, 1000, 0, f, i64, f, nullptr); });
    expect_argument_error([&] { cuda::top_k(f, 2, 10, 11, f, i64, f, nullptr); });
    expect_argument_error([&] { cuda::top_k(nullptr, 2, 1000, 8, f, i64, f, nullptr); });
    ASSERT_GT(cuda::topk_scratch_bytes(2, 251325, 10), 0u);
    expect_argument_error([&] { cuda::top_k(f, 2, 251325, 10, f, i64, nullptr, nullptr); });
    EXPECT_EQ(cuda::topk_scratch_bytes(2, 100, 10), 0u);  // one pass needs no scratch
}

}  // namespace
}  // namespace precis
