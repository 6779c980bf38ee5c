// ROUGE (app/eval/rouge.h) against hand-computed examples. Every expected number is
// worked out in the comments; they were also checked against an independent Python
// transcription of rouge-score with NLTK's stemmer (tools/eval/rouge_reference.py).
#include <gtest/gtest.h>

#include "app/eval/rouge.h"

using namespace precis::eval;

namespace {
constexpr double kEps = 1e-12;

void expect_score(const RougeScore& s, double p, double r, double f) {
    EXPECT_NEAR(s.precision, p, kEps);
    EXPECT_NEAR(s.recall, r, kEps);
    EXPECT_NEAR(s.fmeasure, f, kEps);
}
}  // namespace

TEST(RougeTokenize, LowercasesSplitsOnNonAlphanumericAndStemsLongTokens) {
    // "The Cat's HAT-trick, 2024!" -> lowercase -> every run outside [a-z0-9] becomes one
    // space -> "the cat s hat trick 2024 " -> only tokens longer than 3 characters are
    // stemmed ("trick" and "2024" are unchanged by Porter).
    EXPECT_EQ(rouge_tokenize("The Cat's HAT-trick, 2024!"),
              (std::vector<std::string>{"the", "cat", "s", "hat", "trick", "2024"}));
    // Non-ASCII letters are separators in rouge-score: "café" -> "caf", "Naïve" -> "na", "ve".
    // Python lowercases U+0130 to "i" + U+0307 (a separator), so "İstanbul" -> "i", "stanbul".
    EXPECT_EQ(rouge_tokenize("café Naïve \xC4\xB0stanbul"),
              (std::vector<std::string>{"caf", "na", "ve", "i", "stanbul"}));
    // Stemming applies only to tokens longer than 3: "ties"(4) -> "tie", "was"(3) stays.
    EXPECT_EQ(rouge_tokenize("Ties was running"), (std::vector<std::string>{"tie", "was", "run"}));
    EXPECT_EQ(rouge_tokenize("Ties was running", /*use_stemmer=*/false),
              (std::vector<std::string>{"ties", "was", "running"}));
    EXPECT_TRUE(rouge_tokenize("  -- !!! ").empty());
}


TEST(RougeN, UnigramAndBigramOverlap) {
    // ref  "the cat sat on the mat": unigrams the x2, cat, sat, on, mat (6)
    // cand "the cat lay on the mat": unigrams the x2, cat, lay, on, mat (6)
    // overlap = min counts: the 2 + cat 1 + on 1 + mat 1 = 5 -> P = R = F = 5/6.
    // bigrams ref  {the cat, cat sat, sat on, on the, the mat}
    //         cand {the cat, cat lay, lay on, on the, the mat} -> 3 common of 5 -> 3/5.
    const auto s = rouge_score("the cat sat on the mat", "the cat lay on the mat");
    expect_score(s.rouge1, 5.0 / 6, 5.0 / 6, 5.0 / 6);
    expect_score(s.rouge2, 0.6, 0.6, 0.6);
    // LCS "the cat on the mat" = 5 -> 5/6.
    expect_score(s.rougeL, 5.0 / 6, 5.0 / 6, 5.0 / 6);
}

TEST(RougeN, CountsAreClipped) {
    // ref "the the cat" (3 unigrams: the x2, cat), cand "the the the the" (4 x the):
    // overlap min(2, 4) = 2 -> P = 2/4, R = 2/3, F = 2PR/(P+R) = (2/3)/(7/6) = 4/7.
    // bigrams: ref {the the, the cat}, cand {the the x3}: overlap min(1, 3) = 1 ->
    // P = 1/3, R = 1/2, F = (1/3)/(5/6) = 0.4.
    const auto s = rouge_score("the the cat", "the the the the");
    expect_score(s.rouge1, 0.5, 2.0 / 3, 4.0 / 7);
    expect_score(s.rouge2, 1.0 / 3, 0.5, 0.4);
}

TEST(RougeN, StemmingMakesInflectionsMatch) {
    // "cats running" -> cat, run ; "cat runs" -> cat (3 letters, not stemmed), run.
    const auto s = rouge_score("cats running", "cat runs");
    expect_score(s.rouge1, 1, 1, 1);
    expect_score(s.rouge2, 1, 1, 1);
    RougeOptions no_stem;
    no_stem.use_stemmer = false;
    expect_score(rouge_score("cats running", "cat runs", no_stem).rouge1, 0, 0, 0);
}

TEST(RougeL, LongestCommonSubsequence) {
    // ref a b c d, cand b a d c x: LCS length 2 (e.g. "a c") -> P = 2/5, R = 2/4,
    // F = 2 * 0.4 * 0.5 / 0.9 = 4/9. Unigrams: 4 common -> P = 4/5, R = 1, F = 8/9.
    const auto s = rouge_score("a b c d", "b a d c x");
    expect_score(s.rougeL, 0.4, 0.5, 4.0 / 9);
    expect_score(s.rouge1, 0.8, 1.0, 8.0 / 9);
    expect_score(s.rouge2, 0, 0, 0);
}

TEST(RougeL, EmptySidesScoreZero) {
    const auto s = rouge_score("x y", "");
    expect_score(s.rouge1, 0, 0, 0);
    expect_score(s.rouge2, 0, 0, 0);
    expect_score(s.rougeL, 0, 0, 0);
    expect_score(s.rougeLsum, 0, 0, 0);
    expect_score(rouge_score("", "").rouge1, 0, 0, 0);
}

TEST(RougeLsum, UnionLcsOfLin2004) {
    // Lin (2004), section 3.2: reference sentence r = a b c d e; candidate sentences
    // c1 = a b f g h and c2 = a c h i e. LCS(r, c1) = a b, LCS(r, c2) = a c e; their union
    // in r is {a, b, c, e} = 4 hits. m = 5 reference tokens, n = 10 candidate tokens:
    // R = 4/5, P = 4/10, F = 2 * 0.8 * 0.4 / 1.2 = 8/15.
    const auto s = rouge_score("a b c d e", "a b f g h\na c h i e");
    expect_score(s.rougeLsum, 0.4, 0.8, 8.0 / 15);
}

TEST(RougeLsum, SentenceOrderDoesNotMatter) {
    // ref "a b c" / "d e", cand "d e" / "a b c". ROUGE-L over the flat texts:
    // a b c d e vs d e a b c -> LCS 3 -> 3/5. ROUGE-Lsum: r1 gets 3 hits from c2, r2 gets
    // 2 hits from c1 -> 5/5.
    const auto s = rouge_score("a b c\nd e", "d e\na b c");
    expect_score(s.rougeL, 0.6, 0.6, 0.6);
    expect_score(s.rougeLsum, 1, 1, 1);
}

TEST(RougeLsum, TokensAreNotDoubleCounted) {
    // ref sentences "a b" and "a b" (m = 4), cand "a b" (n = 2). r1 takes a and b (the
    // candidate's counts drop to 0); r2's LCS tokens find no candidate count left.
    // hits = 2: R = 2/4, P = 2/2, F = 2/3.
    const auto s = rouge_score("a b\na b", "a b");
    expect_score(s.rougeLsum, 1.0, 0.5, 2.0 / 3);
}

TEST(RougeLsum, FollowsRougeScoreBacktrackingTieBreak) {
    // ref sentences r1 = "a", r2 = "a b" (m = 3); cand sentence "b a" (n = 2).
    // r1: LCS("a", "b a") = a -> hit; the candidate count of a drops to 0.
    // r2: LCS("a b", "b a") has length 1 and two choices. rouge-score backtracks from the
    // end: b != a; t[i][j-1] = 1 is not > t[i-1][j] = 1, so it moves up (i--) and takes
    // "a" -- whose candidate count is used up -> no hit. (Taking "b" would give 2 hits.)
    // hits = 1: R = 1/3, P = 1/2, F = (1/3)/(5/6) = 0.4.
    const auto s = rouge_score("a\na b", "b a");
    expect_score(s.rougeLsum, 0.5, 1.0 / 3, 0.4);
}

TEST(RougeLsum, BlankLinesAreDroppedAndSentencesTokenized) {
    const auto sents = rouge_sentences("First line.\n\nSecond, running.\n");
    ASSERT_EQ(sents.size(), 2u);
    EXPECT_EQ(sents[0], (std::vector<std::string>{"first", "line"}));
    EXPECT_EQ(sents[1], (std::vector<std::string>{"second", "run"}));
}

TEST(RougeAggregator, MeanOfExamples) {
    RougeAggregator agg;
    agg.add(rouge_score("a b", "a b"));  // all 1
    agg.add(rouge_score("a b", "c d"));  // all 0
    ASSERT_EQ(agg.count(), 2u);
    const auto m = agg.mean();
    expect_score(m.rouge1, 0.5, 0.5, 0.5);
    expect_score(m.rougeLsum, 0.5, 0.5, 0.5);
}
