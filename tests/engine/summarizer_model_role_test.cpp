// A classification checkpoint is not a summarizer: handing one to Summarizer (summarize,
// batch, the window) is refused with one sentence that says what the model is, with its
// labels, and what to use it for, instead of "summaries" from a model never trained to write.
#include <gtest/gtest.h>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/test_models.h"

namespace precis::test {
namespace {

std::string refusal(const std::filesystem::path& dir) {
    try {
        Summarizer summarizer(Model::load(dir), make_cpu_backend());
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

TEST(SummarizerModelRole, AZeroShotClassifierIsRefusedNamingWhatItIs) {
    const auto dir = make_classifier("role-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
    const std::string why = refusal(dir);
    EXPECT_NE(why.find("zero-shot classification model"), std::string::npos) << why;
    EXPECT_NE(why.find("contradiction, neutral, entailment"), std::string::npos) << why;
    EXPECT_NE(why.find("cannot write summaries"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << "one sentence";
}

TEST(SummarizerModelRole, ATrainedClassifierIsRefusedWithItsLabels) {
    const auto dir = make_classifier("role-topics", {{"0", "sport"}, {"1", "politics"}}, "single_label_classification");
    const std::string why = refusal(dir);
    EXPECT_NE(why.find("a classification model (its labels: sport, politics)"), std::string::npos) << why;
}

TEST(SummarizerModelRole, ASummarizationModelIsAccepted) {
    EXPECT_EQ(refusal(fixtures_dir() / "models/bart-tiny-realvocab"), "");
}

}  // namespace
}  // namespace precis::test
