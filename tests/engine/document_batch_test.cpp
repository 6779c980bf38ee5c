// Many documents generated together (engine/generate/document_batch.h) give every document
// what it gets generated alone: every reference case's rows, greedy and beam, mixed in one
// continuous batch with documents of other lengths, fewer rows than documents so that
// finished documents leave and waiting ones join mid-run. Also: one bad document fails
// alone, running out of memory halves the batch and loses nothing, cancelling hands over
// exactly what finished.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "engine/backend/backend.h"
#include "engine/generate/document_batch.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

using Doc = BatchDoc;

class DocumentBatchParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DocumentBatchParity, EveryDocumentInABatchGetsWhatItGetsAlone) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    auto be = make_cpu_backend();
    AttentionOptions att;
    const std::vector<Doc> docs = documents_of_case(c, *model, &att);
    if (docs.empty()) GTEST_SKIP() << GetParam() << " has no generation (a classifier case)";
    // Fewer rows than documents: documents leave and others join while the batch runs.
    DocumentBatchReport report;
    const std::map<int, BatchOutcome> batched = generate_together(*model, *be, att, docs, 3, &report);
    EXPECT_EQ(report.largest_step, 3);
    expect_as_alone(*model, att, docs, batched, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, DocumentBatchParity, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

// The rest run the tiny BART of the fixtures over documents of random ids.
class DocumentBatch : public ::testing::Test {
protected:
    void SetUp() override { load(ComputeType::Fp32); }
    void load(ComputeType compute) {
        set_cpu_threads(2);
        model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = compute});
        be = make_cpu_backend();
        docs = mixed_documents(*model, 7, 100, 1);
        att = native_attention_options(*model);
    }
    std::vector<DocumentJob> jobs() const {
        std::vector<DocumentJob> j;
        for (const Doc& d : docs) j.push_back({int(d.ids.size()), d.config});
        return j;
    }
    // The documents that join together, through one encoder call.
    std::vector<EncodedRow> encode(const std::vector<int>& jobs) const {
        std::vector<std::vector<int64_t>> ids;
        for (int i : jobs) ids.push_back(docs[size_t(i)].ids);
        return std::move(run_encoder(*model, *be, ids, {}, att, {}).rows);
    }
    std::shared_ptr<const Model> model;
    std::unique_ptr<Backend> be;
    AttentionOptions att;
    std::vector<Doc> docs;
};

TEST_F(DocumentBatch, FovealAttentionDocumentsGetWhatTheyGetAlone) {
    att.kind = EncoderAttention::Fovea;
    att.fovea.block_size = 4;
    const std::map<int, BatchOutcome> batched = generate_together(*model, *be, att, docs, 2);
    ASSERT_EQ(batched.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i)
        EXPECT_EQ(batched.at(int(i)).ids, generate_alone(*model, *be, att, docs[i]).ids) << "document " << i;
}

// Up to 16 rows (the decoding GEMV's range, lowp_linear.h) the int8 and fp16-weight
// products take each activation row on its own, so a document's ids do not depend on the
// documents beside it. (Past 16 rows int8 decoding runs the integer GEMM, whose 7-bit
// activations round otherwise: ids may then differ from alone, within int8's accuracy.)
class DocumentBatchComputeTypes : public DocumentBatch, public ::testing::WithParamInterface<ComputeType> {};

TEST_P(DocumentBatchComputeTypes, EveryDocumentGetsWhatItGetsAlone) {
    load(GetParam());
    const std::map<int, BatchOutcome> batched = generate_together(*model, *be, att, docs, 3);
    ASSERT_EQ(batched.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i) {
        const BatchOutcome one = generate_alone(*model, *be, att, docs[i]);
        EXPECT_EQ(batched.at(int(i)).ids, one.ids) << "document " << i;
        EXPECT_NEAR(batched.at(int(i)).score, one.score, 1e-4 * (1 + std::abs(one.score))) << "document " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, DocumentBatchComputeTypes,
                         ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights),
                         compute_type_label);

// Joining mid-run (3 at a time: document 3 joins alone) and at the start with every other
// (7 at a time: the call that held it is made again for each document alone).
TEST_F(DocumentBatch, ABadDocumentFailsAloneAndTheOthersFinish) {
    for (const int batch_size : {3, 7}) {
        SCOPED_TRACE(std::to_string(batch_size) + " at a time");
        std::set<int> finished;
        std::map<int, std::string> failed;
        std::vector<std::vector<int>> calls;
        DocumentBatchCallbacks on;
        on.encode = [&](const std::vector<int>& js) {
            calls.push_back(js);
            if (std::count(js.begin(), js.end(), 3)) throw Error("document 3 is unreadable");
            return encode(js);
        };
        on.finished = [&](int i, GenerationResult, const EncodedRow&) { finished.insert(i); };
        on.failed = [&](int i, const std::string& why) { failed[i] = why; };
        generate_documents(*model, *be, jobs(), {.batch_size = batch_size}, on, {});
        EXPECT_EQ(finished, (std::set<int>{0, 1, 2, 4, 5, 6}));
        ASSERT_EQ(failed.size(), 1u);
        EXPECT_EQ(failed.at(3), "document 3 is unreadable");
        const auto with_3 = std::find_if(calls.begin(), calls.end(), [](const std::vector<int>& c) {
            return c.size() > 1 && std::count(c.begin(), c.end(), 3);
        });
        if (batch_size < int(docs.size())) continue;
        ASSERT_NE(with_3, calls.end()) << "document 3 never joined with others";
        const std::vector<int> together = *with_3;
        ASSERT_GE(calls.end() - with_3, std::ptrdiff_t(together.size() + 1));
        for (size_t k = 0; k < together.size(); ++k)
            EXPECT_EQ(with_3[1 + std::ptrdiff_t(k)], std::vector<int>{together[k]}) << "retry " << k;
    }
}

TEST_F(DocumentBatch, DocumentsThatJoinTogetherAreEncodedInOneCall) {
    std::vector<std::vector<int>> calls;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) {
        calls.push_back(js);
        return encode(js);
    };
    std::map<int, std::vector<int64_t>> out;
    on.finished = [&](int i, GenerationResult r, const EncodedRow&) { out[i] = r.sequences[0]; };
    generate_documents(*model, *be, jobs(), {.batch_size = 3}, on, {});
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls[0].size(), 3u) << "the first three documents start together";
    size_t encoded = 0;
    for (const auto& c : calls) encoded += c.size();
    EXPECT_EQ(encoded, docs.size()) << "each document encoded once";
    ASSERT_EQ(out.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i)
        EXPECT_EQ(out[int(i)], generate_alone(*model, *be, att, docs[i]).ids) << "document " << i;
}

TEST_F(DocumentBatch, RunningOutOfMemoryHalvesTheBatchSaysSoOnceAndLosesNothing) {
    std::map<int, std::vector<int64_t>> out;
    int encodes = 0, out_of_memory = 0;
    std::vector<std::string> notices;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) {
        // The fourth document to be encoded finds no memory, and the seventh: the batch of 4
        // halves to 2, then 1.
        for (size_t k = 0; k < js.size(); ++k)
            if (++encodes == 4 || encodes == 7) {
                ++out_of_memory;
                throw OutOfMemory("no memory for the test");
            }
        return encode(js);
    };
    on.finished = [&](int i, GenerationResult r, const EncodedRow&) {
        EXPECT_EQ(out.count(i), 0u) << "document " << i << " stored twice";
        out[i] = r.sequences[0];
    };
    on.failed = [&](int i, const std::string& why) { ADD_FAILURE() << i << ": " << why; };
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    const DocumentBatchReport report = generate_documents(*model, *be, jobs(), {.batch_size = 4}, on, cb);
    EXPECT_EQ(out_of_memory, 2);
    EXPECT_EQ(report.halvings, 2);
    EXPECT_EQ(report.limits.max_documents, 1);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("memory ran out with 4 documents at once"), std::string::npos) << notices[0];
    ASSERT_EQ(out.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i)
        EXPECT_EQ(out[int(i)], generate_alone(*model, *be, att, docs[i]).ids) << "document " << i;
}

TEST_F(DocumentBatch, OneDocumentThatDoesNotFitAloneFailsAndTheRestGoOn) {
    std::set<int> finished, failed;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) {
        if (std::count(js.begin(), js.end(), 6)) throw OutOfMemory("document 6 needs more than there is");
        return encode(js);
    };
    on.finished = [&](int i, GenerationResult, const EncodedRow&) { finished.insert(i); };
    on.failed = [&](int i, const std::string&) { failed.insert(i); };
    RunCallbacks quiet;
    quiet.on_notice = [](const std::string&) {};
    generate_documents(*model, *be, jobs(), {.batch_size = 2}, on, quiet);
    EXPECT_EQ(failed, std::set<int>{6});
    EXPECT_EQ(finished, (std::set<int>{0, 1, 2, 3, 4, 5}));
}

TEST_F(DocumentBatch, CancellingHandsOverWhatFinishedAndNothingTwice) {
    std::vector<int> finished;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) { return encode(js); };
    on.finished = [&](int i, GenerationResult, const EncodedRow&) { finished.push_back(i); };
    RunCallbacks cb;
    cb.should_abort = [&] { return finished.size() >= 2; };
    EXPECT_THROW(generate_documents(*model, *be, jobs(), {.batch_size = 3}, on, cb), Cancelled);
    EXPECT_GE(finished.size(), 2u);
    EXPECT_LT(finished.size(), docs.size());
    EXPECT_EQ(std::set<int>(finished.begin(), finished.end()).size(), finished.size());
    // A second run over what is left finishes the rest, each once.
    std::vector<Doc> rest;
    for (size_t i = 0; i < docs.size(); ++i)
        if (std::find(finished.begin(), finished.end(), int(i)) == finished.end()) rest.push_back(docs[i]);
    EXPECT_EQ(generate_together(*model, *be, att, rest, 3).size(), rest.size());
}

TEST_F(DocumentBatch, KeepsEachDocumentsEncoderOutputWhenAsked) {
    std::map<int, int64_t> rows;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) { return encode(js); };
    on.finished = [&](int i, GenerationResult, const EncodedRow& e) { rows[i] = e.memory_rows(); };
    generate_documents(*model, *be, jobs(), {.batch_size = 2, .keep_encoded = true}, on, {});
    ASSERT_EQ(rows.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i) EXPECT_EQ(rows[int(i)], int64_t(docs[i].ids.size())) << i;
}

}  // namespace
}  // namespace precis::test
