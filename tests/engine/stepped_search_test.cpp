// The search loops both devices run (engine/generate/stepped_search.h), driven the way the
// CUDA runner drives them, on the CPU, so CI (which has no GPU) sees a change that only the
// GPU would otherwise show: each step's inputs are staged as the GPU's step graph reads them
// (engine/model/decoder_step_inputs.h) and fed to the CPU decoder from there, and each step
// is scored in the device kernels' order (kernels/ops/search_step.cu: beam search takes
// log-softmax first, then the processors and the beam score; greedy the processors on the
// logits, the first best, its log-probability, the forced token's taken before forcing;
// candidates for every item, finished or not). On every reference case's rows, greedy and
// beam, batched beside documents of other lengths, that gives the CPU search's ids and
// scores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "engine/backend/backend.h"
#include "engine/generate/search.h"
#include "engine/generate/stepped_search.h"
#include "engine/model/decoder.h"
#include "engine/model/decoder_slots.h"
#include "engine/model/decoder_step_inputs.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

class DeviceOrderSteps final : public SearchSteps {
public:
    DeviceOrderSteps(const Model& model, Backend& backend, const EncoderOutput& encoded, int beams, int max_length)
        : dec_(model, backend, encoded, beams, max_length),
          slots_(int(encoded.rows.size()), beams),
          V_(model.config().vocab_size),
          logits_(size_t(dec_.rows()) * size_t(V_)) {
        // The GPU's decoder takes the documents into its slots in order, as here.
        for (const EncodedRow& row : encoded.rows) slots_.join(row.memory_rows());
    }

    int forwards() const { return forwards_; }

    void forward(const std::vector<int64_t>& tokens) override {
        const int64_t n = int64_t(tokens.size());
        ASSERT_EQ(n, dec_.rows());
        std::vector<int32_t> staged(size_t(n + slots_.rows()));
        stage_step_inputs(tokens.data(), n, V_, slots_, staged.data());
        // The cache lengths the GPU's graph reads: every earlier step's token, in every row.
        for (int r = 0; r < dec_.rows(); ++r) {
            EXPECT_EQ(staged[size_t(n + r)], forwards_) << "row " << r;
            EXPECT_EQ(dec_.row_length(r), staged[size_t(n + r)]) << "row " << r;
        }
        const std::vector<int64_t> widened(staged.begin(), staged.begin() + n);
        EXPECT_EQ(widened, tokens);
        dec_.forward(widened.data(), 1);
        slots_.advance(1);
        dec_.logits(logits_.data());
        ++forwards_;
    }

    void pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules, int64_t* tokens,
              float* logprobs) override {
        // The device's greedy rows: the first best processed logit (top_k's order on ties),
        // and its log-probability, the forced token's on a forced step: greedy_pick's.
        std::vector<float> scratch(static_cast<size_t>(V_));
        for (int r = 0; r < dec_.rows(); ++r)
            tokens[r] = greedy_pick(row(r), V_, sequences[size_t(r)], rules, scratch.data(), &logprobs[r]);
    }

    void select(const BeamBook& book, const StepRules& rules, float* top_scores, int64_t* top_indices) override {
        // The device's kernels take the CPU's order for a beam step (log-softmax, processors,
        // beam score, top 2K with the lower index first on ties), over every item, finished
        // or not: the book does not read a finished item's candidates.
        const int K = book.beams(), keep = book.keep();
        for (int i = 0; i < book.items(); ++i)
            select_beam_candidates(row(i * K), V_, book, i * K, rules, top_scores + size_t(i) * size_t(keep),
                                   top_indices + size_t(i) * size_t(keep));
    }

    void reorder(const std::vector<int>& parents) override { dec_.reorder(parents); }

private:
    float* row(int r) { return logits_.data() + int64_t(r) * V_; }

    DecoderState dec_;
    DecoderSlots slots_;
    int64_t V_;
    std::vector<float> logits_;
    int forwards_ = 0;
};

class SteppedSearch : public ::testing::TestWithParam<std::string> {};

TEST_P(SteppedSearch, DrivenAsTheGpuDrivesItGivesTheCpuSearchsIdsAndScores) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    auto be = make_cpu_backend();
    AttentionOptions att;
    const std::vector<BatchDoc> docs = documents_of_case(c, *model, &att);
    if (docs.empty()) GTEST_SKIP() << GetParam() << " has no generation (a classifier case)";
    // The GPU runs whole batches of one generation setting: documents of one setting together.
    std::vector<std::vector<size_t>> groups;
    for (size_t d = 0; d < docs.size(); ++d) {
        auto same = std::find_if(groups.begin(), groups.end(),
                                 [&](const std::vector<size_t>& g) { return docs[g[0]].config == docs[d].config; });
        if (same == groups.end()) groups.push_back({d});
        else same->push_back(d);
    }
    for (const std::vector<size_t>& group : groups) {
        const GenerationConfig& cfg = docs[group[0]].config;
        SCOPED_TRACE(std::to_string(group.size()) + " documents, " + std::to_string(cfg.num_beams) + " beams");
        EncoderOutput encoded;
        for (size_t d : group)
            encoded.rows.push_back(std::move(run_encoder(*model, *be, {docs[d].ids}, {docs[d].mask}, att, {}).rows[0]));
        const GenerationResult cpu = generate(*model, *be, encoded, cfg, {});
        const int items = int(group.size());
        DeviceOrderSteps steps(*model, *be, encoded, cfg.num_beams, effective_max_length(cfg));
        const GenerationResult driven = cfg.num_beams == 1
                                            ? stepped_greedy_search(steps, cfg, items, model->config().vocab_size, {})
                                            : stepped_beam_search(steps, cfg, items, model->config().vocab_size, {});
        EXPECT_EQ(driven.steps, cpu.steps);
        EXPECT_EQ(steps.forwards(), cpu.steps);
        ASSERT_EQ(driven.sequences.size(), cpu.sequences.size());
        for (int i = 0; i < items; ++i) {
            SCOPED_TRACE("document " + std::to_string(group[size_t(i)]));
            EXPECT_EQ(driven.sequences[size_t(i)], cpu.sequences[size_t(i)]);
            EXPECT_NEAR(driven.sequence_scores[size_t(i)], cpu.sequence_scores[size_t(i)],
                        1e-5 * (1 + std::abs(cpu.sequence_scores[size_t(i)])));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, SteppedSearch, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

// What a device hands back when its activations overflowed: NaN scores, and from its top-k
// no candidate at all (an index past the vocabulary). The loop stops with NonFiniteScores,
// which the CUDA runner answers by leaving fp16, instead of feeding the index to the decoder.
class OverflowingSteps final : public SearchSteps {
public:
    OverflowingSteps(int rows, int64_t vocab, int good_steps) : rows_(rows), vocab_(vocab), good_(good_steps) {}
    void forward(const std::vector<int64_t>& tokens) override {
        EXPECT_EQ(int(tokens.size()), rows_);
        ++forwards_;
    }
    void pick(const std::vector<std::vector<int64_t>>&, const StepRules&, int64_t* tokens, float* logprobs) override {
        for (int r = 0; r < rows_; ++r) {
            tokens[r] = forwards_ > good_ && r == rows_ - 1 ? std::numeric_limits<int64_t>::max() : 5;
            logprobs[r] = forwards_ > good_ && r == rows_ - 1 ? std::nanf("") : -1.f;
        }
    }
    void select(const BeamBook& book, const StepRules&, float* top_scores, int64_t* top_indices) override {
        for (int i = 0; i < book.items(); ++i)
            for (int k = 0; k < book.keep(); ++k) {
                const bool bad = forwards_ > good_ && i == book.items() - 1;
                top_scores[i * book.keep() + k] = bad ? -INFINITY : -1.f - float(k);
                top_indices[i * book.keep() + k] = bad ? std::numeric_limits<int64_t>::max() : 5 + k;
            }
    }
    void reorder(const std::vector<int>&) override {}
    int forwards_ = 0;

private:
    int rows_;
    int64_t vocab_;
    int good_;
};

TEST(SteppedSearchChecks, ANanScoreOrAMissingCandidateStopsTheSearchNamingTheStep) {
    GenerationConfig cfg;
    cfg.max_length = 20;
    cfg.eos_token_id = 2;
    for (int beams : {1, 3}) {
        SCOPED_TRACE(std::to_string(beams) + " beams");
        cfg.num_beams = beams;
        OverflowingSteps steps(2 * beams, 50, 3);
        try {
            if (beams == 1) stepped_greedy_search(steps, cfg, 2, 50, {});
            else stepped_beam_search(steps, cfg, 2, 50, {});
            FAIL() << "the search went on past a step without finite scores";
        } catch (const NonFiniteScores& e) {
            EXPECT_NE(std::string(e.what()).find("step 4 are not finite for document 2"), std::string::npos)
                << e.what();
        }
        EXPECT_EQ(steps.forwards_, 4);
    }
}

TEST(DecoderStepInputs, TheGpuReadsTheTokensThenEveryRowsCacheLengthAndRefusesAnIdOutsideTheVocabulary) {
    DecoderSlots slots(2, 2);  // two documents of two beams: rows 0-1 and 2-3
    slots.join(10);
    slots.advance(1);
    slots.advance(1);
    slots.join(4);  // joins after two steps: its rows start at length 0
    slots.advance(1);
    const std::vector<int64_t> tokens{0, 7, 41, 3};
    std::vector<int32_t> staged(8, -1);
    stage_step_inputs(tokens.data(), 4, 42, slots, staged.data());
    EXPECT_EQ(staged, (std::vector<int32_t>{0, 7, 41, 3, 3, 3, 1, 1}));
    const std::vector<int64_t> bad{3, 42, 1, 1};
    try {
        stage_step_inputs(bad.data(), 4, 42, slots, staged.data());
        FAIL() << "an id past the vocabulary was staged";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("token id 42 is outside the vocabulary of 42"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace precis::test
