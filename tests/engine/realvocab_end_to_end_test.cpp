// The realvocab case from text to text: the real BART tokenizer turns the case's texts
// into its input ids, the model generates the reference sequences, and decoding them
// gives the reference strings.
#include <gtest/gtest.h>

#include "engine/backend/backend.h"
#include "engine/generate/generation.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

TEST(RealVocabEndToEnd, TextToIdsToSummaryTextMatchesTheReference) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load("bart-tiny-realvocab");
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    auto model = Model::load(c.model_dir, lo);
    ASSERT_NE(model->tokenizer(), nullptr);
    const auto& batch = c.expected["batches"]["text"];
    const auto texts = batch["texts"].get<std::vector<std::string>>();
    const auto ref_ids = batch["input_ids"].get<std::vector<std::vector<int64_t>>>();
    const auto masks = batch["attention_mask"].get<std::vector<std::vector<int64_t>>>();

    std::vector<std::vector<int64_t>> ids;
    for (size_t i = 0; i < texts.size(); ++i) {
        ids.push_back(model->tokenizer()->encode(texts[i], true));
        std::vector<int64_t> unpadded(ref_ids[i].begin(), ref_ids[i].begin() + long(ids.back().size()));
        EXPECT_EQ(ids.back(), unpadded) << "text " << i;
        // The reference batch is right-padded to the longest row.
        ids.back().resize(ref_ids[i].size(), model->config().pad_token_id);
    }
    auto backend = make_cpu_backend();
    EncoderOutput enc = run_encoder(*model, *backend, ids, masks, native_attention_options(*model), {});
    for (const std::string mode : {"greedy", "beam"}) {
        SCOPED_TRACE(mode);
        ForwardRequest req = c.request("text", *model);
        const GenerationConfig& g = mode == "greedy" ? req.greedy_config : req.beam_config;
        GenerationResult r = generate(*model, *backend, enc, g, {});
        const auto ref_seqs = batch[mode + "_sequences"].get<std::vector<std::vector<int64_t>>>();
        const auto ref_text = batch[mode + "_decoded"].get<std::vector<std::string>>();
        ASSERT_EQ(r.sequences.size(), ref_seqs.size());
        for (size_t i = 0; i < ref_seqs.size(); ++i) {
            std::vector<int64_t> got = r.sequences[i];
            got.resize(ref_seqs[i].size(), g.pad_token_id);
            EXPECT_EQ(got, ref_seqs[i]) << "row " << i;
            EXPECT_EQ(model->tokenizer()->decode(r.sequences[i], true), ref_text[i]) << "row " << i;
        }
    }
}

}  // namespace
}  // namespace precis::test
