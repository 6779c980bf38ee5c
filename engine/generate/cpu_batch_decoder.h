#pragma once
// The continuous batch's decoder on the CPU (batch_decoder.h): one DecoderState over every
// document present, rows of any document's beams side by side, and each step's choices made
// on the host from the step's float32 logits, the documents split over the CPU's threads.
#include <memory>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/generate/batch_decoder.h"
#include "engine/model/decoder.h"

namespace precis {

class Backend;
class Model;

class CpuBatchDecoder final : public BatchDecoder {
public:
    // capacity_rows: rows of every document present together; max_length: longest sequence
    // (start token included).
    CpuBatchDecoder(const Model& model, Backend& backend, int capacity_rows, int max_length);

    int free_rows() const override { return dec_.free_rows(); }
    int join(const EncodedRow& document, int beams) override { return dec_.join(document, beams); }
    void leave(int item) override { dec_.leave(item); }
    void step(std::vector<DocumentStep*>& docs) override;
    void reorder(const std::vector<DocumentStep*>& docs) override;

private:
    void choose(std::vector<DocumentStep*>& docs);

    DecoderState dec_;
    int64_t V_;
    Tensor logits_;  // [capacity, V], written by every step's vocabulary product
    std::vector<std::vector<float>> scratch_;  // a log-probability row per thread
    std::vector<int64_t> tokens_;
    std::vector<int> parents_;
};

}  // namespace precis
