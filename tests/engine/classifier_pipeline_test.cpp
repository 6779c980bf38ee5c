// Classification end to end: zero-shot with an NLI-shaped model (scores equal a hand
// computation from the head's logits), and multi-label thresholds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/backend/backend.h"
#include "engine/io/checkpoint.h"
#include "engine/io/safetensors.h"
#include "engine/model/model.h"
#include "engine/pipeline/classifier_pipeline.h"
#include "engine/pipeline/forward_pass.h"
#include "tests/support/fixtures.h"
#include "tests/support/test_models.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const Model> load(const fs::path& dir) {
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    return Model::load(dir, lo);
}

std::vector<float> head_logits(const Model& m, const std::vector<int64_t>& ids) {
    auto backend = make_cpu_backend();
    ForwardRequest req;
    req.input_ids = {ids};
    NamedTensors out = run_forward(m, *backend, req);
    for (auto& [name, t] : out)
        if (name == "logits") return t.to_float_vector();
    return {};
}

TEST(ZeroShot, ScoresEqualAHandComputationFromTheEntailmentLogits) {
    const auto model = load(make_classifier("nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, ""));
    Classifier cls(model, std::shared_ptr<Backend>(make_cpu_backend()));
    ASSERT_TRUE(cls.is_nli_model());
    const std::string doc = "The ferry crossed the bay twice a day, carrying farmers and their goods to market.";
    const std::vector<std::string> labels = {"travel", "cooking", "markets"};
    ClassifyOptions opts = cls.default_options();
    opts.candidate_labels = labels;
    ClassificationResult single = cls.classify(doc, opts);
    opts.multi_label = true;
    ClassificationResult multi = cls.classify(doc, opts);

    // By hand: <s> premise </s></s> hypothesis </s>; entailment logit per label.
    const Tokenizer& tok = *model->tokenizer();
    std::vector<float> entail, contra;
    for (const std::string& label : labels) {
        std::vector<int64_t> ids = tok.encode(doc, true);
        ids.push_back(2);
        std::vector<int64_t> hyp = tok.encode("This text is about " + label + ".", true);
        ids.insert(ids.end(), hyp.begin() + 1, hyp.end());
        std::vector<float> l = head_logits(*model, ids);
        contra.push_back(l[0]);
        entail.push_back(l[2]);
    }
    float mx = *std::max_element(entail.begin(), entail.end()), sum = 0;
    for (float e : entail) sum += std::exp(e - mx);
    for (size_t i = 0; i < labels.size(); ++i) {
        const float want_single = std::exp(entail[i] - mx) / sum;
        const float want_multi = std::exp(entail[i]) / (std::exp(entail[i]) + std::exp(contra[i]));
        for (const LabelScore& s : single.scores)
            if (s.label == labels[i]) EXPECT_NEAR(s.score, want_single, 1e-5) << labels[i];
        for (const LabelScore& s : multi.scores)
            if (s.label == labels[i]) EXPECT_NEAR(s.score, want_multi, 1e-5) << labels[i];
    }
    EXPECT_TRUE(single.zero_shot);
    ASSERT_EQ(single.predicted.size(), 1u);
    EXPECT_EQ(single.predicted[0], single.scores[0].label);
    EXPECT_GE(single.scores[0].score, single.scores[1].score);
}

TEST(MultiLabel, SigmoidScoresAreThresholdedAndTheThresholdIsAdjustable) {
    const auto model = load(make_classifier("multi", {{"0", "law"}, {"1", "finance"}, {"2", "health"}},
                                            "multi_label_classification"));
    Classifier cls(model, std::shared_ptr<Backend>(make_cpu_backend()));
    EXPECT_FALSE(cls.is_nli_model());
    const std::string doc = "A contract between two parties about the sale of shares.";
    ClassifyOptions opts = cls.default_options();
    ClassificationResult r = cls.classify(doc, opts);
    ASSERT_TRUE(r.multi_label);
    ASSERT_EQ(r.scores.size(), 3u);
    std::vector<int64_t> ids = model->tokenizer()->encode(doc, true);
    std::vector<float> logits = head_logits(*model, ids);
    for (const LabelScore& s : r.scores) {
        const int i = s.label == "law" ? 0 : s.label == "finance" ? 1 : 2;
        EXPECT_NEAR(s.score, 1.f / (1.f + std::exp(-logits[i])), 1e-5);
        const bool predicted = std::find(r.predicted.begin(), r.predicted.end(), s.label) != r.predicted.end();
        EXPECT_EQ(predicted, s.score >= 0.5f) << s.label;
    }
    // Thresholds between the scores select exactly the labels above them.
    for (const LabelScore& cut : r.scores) {
        opts.threshold = cut.score;
        ClassificationResult t = cls.classify(doc, opts);
        size_t expected = 0;
        for (const LabelScore& s : r.scores) expected += s.score >= cut.score;
        EXPECT_EQ(t.predicted.size(), expected);
    }
    // Fixed-label models refuse zero-shot labels with a clear error.
    opts.candidate_labels = {"x"};
    EXPECT_THROW(cls.classify(doc, opts), Error);
}

}  // namespace
}  // namespace precis::test
