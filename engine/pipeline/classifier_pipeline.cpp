#include "engine/pipeline/classifier_pipeline.h"

#include <algorithm>
#include <cmath>

#include "engine/backend/backend.h"
#include "engine/generate/model_runner.h"
#include "engine/pipeline/classifier.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"

namespace precis {

namespace {

std::string fill_template(const std::string& tmpl, const std::string& label) {
    std::string out = tmpl;
    const auto pos = out.find("{}");
    if (pos == std::string::npos) return out + " " + label;
    return out.replace(pos, 2, label);
}

}  // namespace

Classifier::Classifier(std::shared_ptr<const Model> model, std::shared_ptr<Backend> backend)
    : model_(std::move(model)), backend_(std::move(backend)) {
    check(model_->config().is_classifier, "model " + model_->path().string() +
                                              " is not a sequence-classification model (its architecture is " +
                                              model_->config().architecture + ")");
}

// The head's logits for one input; the head reads the encoder output on the host, so a
// device that fails as it is copied back has it encoded again on the CPU (encode_then).
ClassificationLogits Classifier::encoded_logits(const std::vector<int64_t>& ids, const AttentionOptions& attention,
                                                const RunCallbacks& encoder_callbacks,
                                                const RunCallbacks& callbacks) const {
    return encode_then(
        *backend_, callbacks, [&] { return run_encoder(*model_, *backend_, {ids}, {}, attention, encoder_callbacks); },
        [&](const EncoderOutput& enc) {
            callbacks.check_abort();
            return classify_encoded(*model_, *backend_, enc, {ids});
        });
}

int Classifier::label_index(const std::string& name) const { return model_->config().label_index(name); }

bool Classifier::is_nli_model() const { return model_->config().is_nli_classifier(); }

ClassifyOptions Classifier::default_options() const {
    ClassifyOptions o;
    o.attention = native_attention_options(*model_);
    return o;
}

ClassificationResult Classifier::classify(const std::string& text, const ClassifyOptions& opts,
                                          const RunCallbacks& cb) const {
    const Tokenizer* tok = &require_tokenizer(*model_);
    check(!is_blank(text), "the document has no text to classify");
    const ModelConfig& cfg = model_->config();
    ClassificationResult res;
    res.threshold = opts.threshold;
    const int limit = readable_input_tokens(*model_, opts.attention);
    std::vector<int64_t> doc = tok->encode(text, true);
    res.input_tokens = int(doc.size());

    if (!opts.candidate_labels.empty()) {
        check(is_nli_model(), "zero-shot labels need an NLI model (labels entailment/contradiction); " +
                                  model_->name() + " has fixed labels");
        res.zero_shot = true;
        res.multi_label = opts.multi_label.value_or(false);
        const int ent = label_index("entailment"), con = label_index("contradiction");
        std::vector<float> entail_logits;
        std::vector<float> multi_scores;
        for (size_t li = 0; li < opts.candidate_labels.size(); ++li) {
            cb.check_abort();
            std::vector<int64_t> hyp = tok->encode(fill_template(opts.hypothesis_template, opts.candidate_labels[li]), true);
            // <s> premise </s></s> hypothesis </s>, truncating only the premise.
            const int room = limit - int(hyp.size());
            check(room >= 3, "the hypothesis is longer than the model can read");
            std::vector<int64_t> premise = truncate_ids(doc, room, cfg.eos_token_id);
            res.tokens_read = int(premise.size());
            res.truncated = premise.size() < doc.size();
            std::vector<int64_t> ids = premise;
            ids.push_back(cfg.eos_token_id);
            ids.insert(ids.end(), hyp.begin() + 1, hyp.end());
            const ClassificationLogits l = encoded_logits(ids, opts.attention, {}, cb);
            const float* lg = l.logits.data<float>();
            entail_logits.push_back(lg[ent]);
            const float two[2] = {lg[con], lg[ent]};
            multi_scores.push_back(label_scores(two, 2, false)[1]);
            cb.report(RunStage::Classifying, int(li) + 1, int(opts.candidate_labels.size()));
        }
        std::vector<float> single = label_scores(entail_logits.data(), int64_t(entail_logits.size()), false);
        for (size_t li = 0; li < opts.candidate_labels.size(); ++li)
            res.scores.push_back({opts.candidate_labels[li], res.multi_label ? multi_scores[li] : single[li], entail_logits[li]});
    } else {
        res.multi_label = opts.multi_label.value_or(cfg.problem_type == "multi_label_classification");
        std::vector<int64_t> ids = truncate_ids(doc, limit, cfg.eos_token_id);
        res.tokens_read = int(ids.size());
        res.truncated = ids.size() < doc.size();
        const ClassificationLogits l = encoded_logits(ids, opts.attention, cb, cb);
        const int64_t n = l.logits.dim(1);
        std::vector<float> s = label_scores(l.logits.data<float>(), n, res.multi_label);
        for (int64_t i = 0; i < n; ++i) {
            const std::string name = size_t(i) < cfg.id2label.size() ? cfg.id2label[size_t(i)] : "LABEL_" + std::to_string(i);
            res.scores.push_back({name, s[size_t(i)], l.logits.data<float>()[i]});
        }
    }
    std::stable_sort(res.scores.begin(), res.scores.end(), [](const LabelScore& a, const LabelScore& b) { return a.score > b.score; });
    if (res.multi_label) {
        for (auto& s : res.scores)
            if (s.score >= opts.threshold) res.predicted.push_back(s.label);
    } else if (!res.scores.empty()) {
        res.predicted.push_back(res.scores.front().label);
    }
    return res;
}

}  // namespace precis
