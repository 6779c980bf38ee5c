#pragma once
// The sequence-classification head of (LSG-)BartForSequenceClassification: the decoder
// runs on the shifted input, and dense -> tanh -> out_proj reads the decoder state at
// the last eos of each row (fixtures README section 5.1).
#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/encoder.h"

namespace precis {

class Backend;
class Model;

struct ClassificationLogits {
    Tensor logits;  // [n, labels]
};

ClassificationLogits classify_encoded(const Model& model, Backend& backend, const EncoderOutput& encoded,
                                      const std::vector<std::vector<int64_t>>& input_ids);

// dense -> tanh -> out_proj on representations rep [n, D]; returns logits [n, labels].
Tensor classification_head(const Model& model, Backend& backend, const float* rep, int64_t n);

// Index of the last eos in `ids`; throws precis::Error naming `row` when there is none.
int64_t last_eos_position(const std::vector<int64_t>& ids, int64_t eos, size_t row);

// Scores from logits: softmax for single-label, element-wise sigmoid for multi-label.
std::vector<float> label_scores(const float* logits, int64_t labels, bool multi_label);

}  // namespace precis
