// A document that joins a running decoder takes the cross-attention buffer of one that left
// when it fits (fresh memory is zeroed by the kernel, a measurable part of a batch). What
// the leaving document wrote there must never reach the newcomer: it decodes exactly as it
// does alone, for every compute type, whether its buffer was reused or fresh.
#include <gtest/gtest.h>

#include "engine/backend/backend.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/fixtures.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

class DecoderCrossReuse : public ::testing::TestWithParam<ComputeType> {
protected:
    void SetUp() override {
        model_ = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = GetParam()});
        backend_ = make_cpu_backend();
    }
    EncodedRow document(int64_t S, uint64_t seed) const {
        const int64_t D = model_->config().d_model;
        EncodedRow row;
        row.memory = Tensor::from_floats({S, D}, gaussian(size_t(S * D), seed));
        row.memory_mask.assign(size_t(S), 0.f);
        return row;
    }
    // The last hidden row after three steps of the decoder's only row.
    std::vector<float> three_steps(DecoderState& dec) const {
        for (int64_t token : {2, 17, 33}) dec.forward(&token, 1);
        return {dec.hidden(), dec.hidden() + model_->config().d_model};
    }
    std::vector<float> alone(const EncodedRow& row) const {
        EncoderOutput encoded;
        encoded.rows.push_back(row);
        DecoderState dec(*model_, *backend_, encoded, 1, 4);
        return three_steps(dec);
    }
    // `second` decoded in a decoder that `first` joined, decoded in and left.
    std::vector<float> after(const EncodedRow& first, const EncodedRow& second, int& reused) const {
        DecoderState dec(*model_, *backend_, 1, 4);
        const int id = dec.join(first, 1);
        for (int64_t token : {2, 5}) dec.forward(&token, 1);
        dec.leave(id);
        EXPECT_EQ(dec.spare_cross_buffers(), 1);
        dec.join(second, 1);
        // Taken, or let go before fresh memory was taken: no spare is held beside the newcomer.
        EXPECT_EQ(dec.spare_cross_buffers(), 0);
        std::vector<float> out = three_steps(dec);
        reused = dec.cross_buffers_reused();
        return out;
    }
    std::shared_ptr<const Model> model_;
    std::unique_ptr<Backend> backend_;
};

TEST_P(DecoderCrossReuse, AShorterDocumentTakesTheLeavingOnesBufferAndDecodesAsAlone) {
    const EncodedRow longer = document(700, 3), shorter = document(300, 4);
    int reused = 0;
    const std::vector<float> got = after(longer, shorter, reused);
    EXPECT_EQ(reused, 1);
    EXPECT_EQ(got, alone(shorter));  // bit for bit: the same products over the same keys
}

TEST_P(DecoderCrossReuse, ALongerDocumentGetsFreshMemoryAndDecodesAsAlone) {
    const EncodedRow shorter = document(300, 5), longer = document(700, 6);
    int reused = 0;
    const std::vector<float> got = after(shorter, longer, reused);
    EXPECT_EQ(reused, 0);
    EXPECT_EQ(got, alone(longer));
}

// Two documents decode side by side; the first leaves and a third takes its buffer: the one
// that stayed keeps its own keys, and both decode as they do alone.
TEST_P(DecoderCrossReuse, ABufferIsOnlyHandedOnOnceItsDocumentHasLeft) {
    const EncodedRow first = document(700, 7), stays = document(500, 8), third = document(300, 9);
    DecoderState dec(*model_, *backend_, 2, 8);
    const int id_first = dec.join(first, 1);
    dec.join(stays, 1);
    for (int64_t token : {2, 5}) {
        const int64_t both[2] = {token, token};
        dec.forward(both, 1);
    }
    dec.leave(id_first);
    const int id_third = dec.join(third, 1);
    EXPECT_EQ(dec.cross_buffers_reused(), 1);
    // Rows are in join order: the document that stayed, then the third, whose history
    // starts now; so the third gets its three steps while the other goes on.
    const int64_t D = model_->config().d_model;
    for (int64_t token : {2, 17, 33}) {
        const int64_t both[2] = {token, token};
        dec.forward(both, 1);
    }
    const int row_third = dec.first_row_of(id_third);
    const std::vector<float> got(dec.hidden() + row_third * D, dec.hidden() + (row_third + 1) * D);
    EXPECT_EQ(got, alone(third));
    // The one that stayed has had five steps (2, 5, 2, 17, 33): its own, with its own keys.
    EncoderOutput encoded;
    encoded.rows.push_back(stays);
    DecoderState own(*model_, *backend_, encoded, 1, 8);
    for (int64_t token : {2, 5, 2, 17, 33}) own.forward(&token, 1);
    const int row_stays = 1 - row_third;
    EXPECT_EQ(std::vector<float>(dec.hidden() + row_stays * D, dec.hidden() + (row_stays + 1) * D),
              std::vector<float>(own.hidden(), own.hidden() + D));
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, DecoderCrossReuse,
                         ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights),
                         compute_type_label);

}  // namespace
}  // namespace precis::test
