#pragma once
// Text in, labels with scores out: a fine-tuned classification head (single- or
// multi-label), or zero-shot classification with an NLI model (the BART-MNLI recipe:
// premise = document, hypothesis = template with the label, entailment vs contradiction).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_options.h"

namespace precis {

class Backend;
class Model;
struct ClassificationLogits;

struct ClassifyOptions {
    AttentionOptions attention;
    std::vector<std::string> candidate_labels;  // zero-shot labels; empty: the model's own labels
    std::string hypothesis_template = "This text is about {}.";
    // Multi-label: every label scored on its own (sigmoid, or entailment vs contradiction
    // for zero-shot) and predicted when score >= threshold. Default: the model's problem_type.
    std::optional<bool> multi_label;
    float threshold = 0.5f;
};

struct LabelScore {
    std::string label;
    float score = 0;
    float logit = 0;  // the head's logit (zero-shot: the entailment logit)
};

struct ClassificationResult {
    std::vector<LabelScore> scores;        // sorted by score, best first
    std::vector<std::string> predicted;    // argmax (single-label) or those above the threshold
    bool multi_label = false;
    bool zero_shot = false;
    float threshold = 0.5f;
    int input_tokens = 0, tokens_read = 0;
    bool truncated = false;
};

class Classifier {
public:
    Classifier(std::shared_ptr<const Model> model, std::shared_ptr<Backend> backend);

    // True when the model's labels include entailment and contradiction.
    bool is_nli_model() const;
    const Model& model() const { return *model_; }
    ClassifyOptions default_options() const;
    ClassificationResult classify(const std::string& text, const ClassifyOptions& options,
                                  const RunCallbacks& callbacks = {}) const;

private:
    int label_index(const std::string& name) const;  // case-insensitive; -1 if absent
    ClassificationLogits encoded_logits(const std::vector<int64_t>& ids, const AttentionOptions& attention,
                                        const RunCallbacks& encoder_callbacks, const RunCallbacks& callbacks) const;
    std::shared_ptr<const Model> model_;
    std::shared_ptr<Backend> backend_;
};

}  // namespace precis
