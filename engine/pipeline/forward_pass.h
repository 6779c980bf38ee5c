#pragma once
// One teacher-forced pass (encoder + decoder on given ids) and optional generation,
// returning tensors named as in the reference fixtures (fixtures README section 6).
// Used by `precis forward` and by the parity tests.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/config/config.h"
#include "engine/model/run_options.h"

namespace precis {

class Backend;
class Model;

struct ForwardRequest {
    std::vector<std::vector<int64_t>> input_ids;       // [n][T]
    std::vector<std::vector<int64_t>> attention_mask;  // [n][T] or empty (all ones)
    std::vector<std::vector<int64_t>> decoder_input_ids;  // [n][Ld] or empty
    AttentionOptions attention;
    bool greedy = false;
    bool beam = false;
    GenerationConfig greedy_config;  // used when greedy
    GenerationConfig beam_config;    // used when beam
    bool keep_greedy_scores = false;
};

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// Keys: logits, encoder_last_hidden_state, encoder_hidden_states.K, decoder_hidden_states.K
// (when decoder ids are given), greedy.sequences (+ greedy.scores), beam.sequences,
// beam.sequences_scores. Classifiers: logits is [n, labels] and decoder ids are derived.
NamedTensors run_forward(const Model& model, Backend& backend, const ForwardRequest& request,
                         const RunCallbacks& callbacks = {});

// HF's shift_tokens_right: decoder_start then ids[:-1] (pads stay pads).
std::vector<int64_t> shift_tokens_right(const std::vector<int64_t>& ids, int64_t decoder_start);

}  // namespace precis
