// rouge_eval (app/eval/rouge_eval.h): the JSONL path used by `precis eval`.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/eval/rouge_eval.h"
#include "tests/support/fixtures.h"

using namespace precis::eval;

TEST(RougeEval, ScoresJsonlFileAndFormatsTable) {
    const auto dir = precis::test::scratch_dir("rouge_eval");
    const auto path = dir / "pairs.jsonl";
    {
        std::ofstream f(path);
        // Example 1: identical -> every score 1.
        f << R"({"id": "x1", "reference": "The cat sat.", "candidate": "The cat sat."})" << "\n";
        f << "\n";  // blank lines are skipped
        // Example 2 (numeric id): "the cat sat on the mat" vs "the cat lay on the mat":
        // R-1 5/6, R-2 3/5, R-L 5/6, R-Lsum 5/6 (see rouge_test.cpp).
        f << R"({"id": 7, "reference": "the cat sat on the mat", "candidate": "the cat lay on the mat"})" << "\n";
    }
    const RougeEvalResult r = rouge_eval_jsonl(path);
    ASSERT_EQ(r.count, 2u);
    EXPECT_EQ(r.ids, (std::vector<std::string>{"x1", "7"}));
    ASSERT_EQ(r.per_example.size(), 2u);
    // Means: R-1 (1 + 5/6)/2 = 11/12; R-2 (1 + 3/5)/2 = 0.8.
    EXPECT_NEAR(r.mean.rouge1.fmeasure, 11.0 / 12, 1e-12);
    EXPECT_NEAR(r.mean.rouge2.fmeasure, 0.8, 1e-12);
    EXPECT_NEAR(r.mean.rougeL.fmeasure, 11.0 / 12, 1e-12);
    EXPECT_NEAR(r.mean.rougeLsum.recall, 11.0 / 12, 1e-12);
    // 11/12 = 91.67 %, 0.8 = 80.00 %.
    EXPECT_NE(r.table.find("rouge1      91.67   91.67   91.67"), std::string::npos) << r.table;
    EXPECT_NE(r.table.find("rouge2      80.00   80.00   80.00"), std::string::npos) << r.table;
    EXPECT_NE(r.table.find("n = 2"), std::string::npos) << r.table;

    const std::string cmp = rouge_compare_table({{"lead3", r}});
    EXPECT_NE(cmp.find("lead3"), std::string::npos) << cmp;
    EXPECT_NE(cmp.find("91.67  80.00  91.67  91.67"), std::string::npos) << cmp;
}

TEST(RougeEval, ErrorsNameTheLine) {
    std::istringstream bad_json("{\"reference\": \"a\", \"candidate\": \"a\"}\n{not json}\n");
    try {
        rouge_eval_stream(bad_json, "pairs.jsonl");
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("pairs.jsonl line 2"), std::string::npos) << e.what();
    }
    std::istringstream missing("{\"reference\": \"a\"}\n");
    try {
        rouge_eval_stream(missing, "pairs.jsonl");
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("\"candidate\""), std::string::npos) << e.what();
    }
    EXPECT_THROW(rouge_eval_jsonl("/nonexistent/pairs.jsonl"), std::runtime_error);
}

TEST(RougeEval, NumberBeyondDoubleIsOneErrorNamingTheLine) {
    // nlohmann throws out_of_range (not parse_error) for 1e999; it must not escape as an abort.
    std::istringstream huge("{\"id\": 1e999, \"reference\": \"a\", \"candidate\": \"a\"}\n");
    try {
        rouge_eval_stream(huge, "pairs.jsonl");
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("pairs.jsonl line 1 is not valid JSON"), std::string::npos) << e.what();
    }
}
