// The line the batch dialog shows before a run: which model (or extractive), the device,
// and the attention and generation settings the user chose, in words.
#include <gtest/gtest.h>

#include "app/paths.h"
#include "app/worker/settings_description.h"

namespace precis::test {
namespace {

EngineSettings fixture_settings() {
    EngineSettings s;
    s.model_dir = QString::fromStdString(fixture_test_model().dir.string());
    s.device = "cpu";
    return s;
}

TEST(SettingsDescription, NamesTheModelItsSourceAndTheDefaults) {
    if (fixture_test_model().dir.empty()) GTEST_SKIP() << "fixture test model not found";
    const QString text = describe_engine_settings(fixture_settings());
    EXPECT_TRUE(text.startsWith("Model: bart-tiny-realvocab (settings)")) << text.toStdString();
    EXPECT_TRUE(text.contains("RANDOM test model")) << text.toStdString();
    EXPECT_TRUE(text.contains("device cpu"));
    EXPECT_TRUE(text.contains("attention as the model was saved"));
    EXPECT_TRUE(text.contains("the model's own generation settings"));
}

TEST(SettingsDescription, SpellsOutOverriddenAttentionAndGeneration) {
    if (fixture_test_model().dir.empty()) GTEST_SKIP() << "fixture test model not found";
    EngineSettings s = fixture_settings();
    s.attention = "lsg";
    s.lsg_override = true;
    s.sparsity_type = SparsityType::Lsh;
    s.block_size = 64;
    s.max_positions = 4096;
    s.generation_override = true;
    s.num_beams = 2;
    s.min_length = 10;
    s.max_length = 80;
    s.length_penalty = 1.5;
    s.no_repeat_ngram_size = 4;
    const QString text = describe_engine_settings(s);
    EXPECT_TRUE(text.contains("attention lsg (lsh, blocks of 64), reading up to 4096 tokens")) << text.toStdString();
    EXPECT_TRUE(text.contains("generation: 2 beams, length 10-80, length penalty 1.5, no repeated 4-grams"))
        << text.toStdString();
}

TEST(SettingsDescription, ExtractiveSaysWhyAndHowLong) {
    EngineSettings s = fixture_settings();
    s.method = "extractive";
    EXPECT_EQ(describe_engine_settings(s),
              "Extractive: each document's own most central sentences (chosen in Settings), length automatic");
    s.extractive_sentences = 7;
    EXPECT_TRUE(describe_engine_settings(s).endsWith("7 sentences"));
}

}  // namespace
}  // namespace precis::test
