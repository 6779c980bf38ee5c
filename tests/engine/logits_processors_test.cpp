// HuggingFace's logits processors, case by case (fixtures README 5.3).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/generate/logits_processors.h"

namespace precis {
namespace {

GenerationConfig base() {
    GenerationConfig g;
    g.eos_token_id = 2;
    return g;
}

TEST(LogitsProcessors, NoRepeatNgramBansTokensThatWouldRepeatATrigram) {
    GenerationConfig g = base();
    g.no_repeat_ngram_size = 3;
    std::vector<float> s(10, 0.f);
    // 2 5 6 7 5 6 -> the prefix (5, 6) was followed by 7 before: 7 is banned.
    process_scores(s.data(), 10, {2, 5, 6, 7, 5, 6}, g, 100);
    for (int t = 0; t < 10; ++t) EXPECT_EQ(std::isinf(s[t]), t == 7) << t;
}

TEST(LogitsProcessors, NoRepeatNgramCountsTheStartTokenAndNeedsEnoughTokens) {
    GenerationConfig g = base();
    g.no_repeat_ngram_size = 3;
    std::vector<float> s(10, 0.f);
    process_scores(s.data(), 10, {2, 4}, g, 100);  // cur_len + 1 < 3: nothing banned
    for (float v : s) EXPECT_FALSE(std::isinf(v));
    process_scores(s.data(), 10, {2, 4, 9, 2, 4}, g, 100);  // (2, 4) -> 9 seen, start token included
    EXPECT_TRUE(std::isinf(s[9]));
}

TEST(LogitsProcessors, MinLengthMasksEosUntilReached) {
    GenerationConfig g = base();
    g.min_length = 4;
    std::vector<float> s(5, 1.f);
    process_scores(s.data(), 5, {2, 0, 7}, g, 100);
    EXPECT_TRUE(std::isinf(s[2]) && s[2] < 0);
    std::vector<float> t(5, 1.f);
    process_scores(t.data(), 5, {2, 0, 7, 8}, g, 100);
    EXPECT_EQ(t[2], 1.f);
}

TEST(LogitsProcessors, ForcedBosAtTheFirstStepAndForcedEosAtTheLast) {
    GenerationConfig g = base();
    g.forced_bos_token_id = 0;
    g.forced_eos_token_id = 2;
    std::vector<float> s(6, 3.f);
    process_scores(s.data(), 6, {2}, g, 10);
    for (int t = 0; t < 6; ++t) EXPECT_EQ(s[t], t == 0 ? 0.f : -INFINITY);
    std::vector<float> e(6, 3.f);
    process_scores(e.data(), 6, {2, 0, 5, 5, 5, 5, 5, 5, 5}, g, 10);  // cur_len 9 == max_length - 1
    for (int t = 0; t < 6; ++t) EXPECT_EQ(e[t], t == 2 ? 0.f : -INFINITY);
}

TEST(LogitsProcessors, TheForcedTokenIsBosAtTheFirstStepEosAtTheLastAndEosWhenBothApply) {
    // The rule both searches ask (the CPU's process_scores and the device's search step).
    EXPECT_EQ(forced_token_at(0, 2, 1, 20), 0);
    EXPECT_EQ(forced_token_at(0, 2, 19, 20), 2);
    EXPECT_EQ(forced_token_at(0, 2, 5, 20), -1);
    EXPECT_EQ(forced_token_at(0, 2, 1, 2), 2) << "a one-token summary: EOS is applied second and wins";
    EXPECT_EQ(forced_token_at(-1, 2, 1, 20), -1);
    EXPECT_EQ(forced_token_at(0, -1, 19, 20), -1);
}

TEST(LogitsProcessors, MaxNewTokensCountsFromTheStartToken) {
    GenerationConfig g = base();
    g.max_length = 50;
    EXPECT_EQ(effective_max_length(g), 50);
    g.max_new_tokens = 20;
    EXPECT_EQ(effective_max_length(g), 21);
}

}  // namespace
}  // namespace precis
