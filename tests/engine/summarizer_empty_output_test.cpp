// A model whose output is only end-of-text (a damaged model, or one that cannot summarize)
// makes Summarizer refuse, in one sentence, instead of returning an empty summary that every
// caller (summarize, batch, the window) would print or store as a success.
#include <gtest/gtest.h>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

std::shared_ptr<const Model> realvocab_model() {
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    return Model::load(FixtureCase::load("bart-tiny-realvocab").model_dir, lo);
}

TEST(SummarizerEmptyOutput, OnlyEndOfTextIsAnErrorNotAnEmptySummary) {
    set_cpu_threads(2);
    Summarizer summarizer(realvocab_model(), make_cpu_backend());
    SummarizeOptions opts = summarizer.default_options();
    // One new token, and the forced-EOS rule makes it end-of-text: the decoded text is empty.
    opts.generation.max_new_tokens = 1;
    opts.generation.forced_eos_token_id = summarizer.model().config().eos_token_id;
    opts.generation.min_length = 0;
    try {
        summarizer.summarize("The committee met on Tuesday and approved the budget for next year.", opts);
        FAIL() << "an empty summary was returned as a success";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("empty summary"), std::string::npos) << e.what();
    }
}

TEST(SummarizerEmptyOutput, TheReferenceSummaryStillComesBack) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load("bart-tiny-realvocab");
    auto model = realvocab_model();
    Summarizer summarizer(model, make_cpu_backend());
    SummarizeOptions opts = summarizer.default_options();
    opts.generation = c.request("text", *model).greedy_config;
    const auto& batch = c.expected["batches"]["text"];
    const std::string text = batch["texts"][0].get<std::string>();
    std::string expected = batch["greedy_decoded"][0].get<std::string>();
    const auto b = expected.find_first_not_of(" \n\t"), e = expected.find_last_not_of(" \n\t");
    ASSERT_NE(b, std::string::npos) << "the reference summary is empty";
    expected = expected.substr(b, e - b + 1);
    EXPECT_EQ(summarizer.summarize(text, opts).text, expected);
}

}  // namespace
}  // namespace precis::test
