#include "engine/pipeline/classifier.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/backend/backend.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"
#include "engine/pipeline/forward_pass.h"

namespace precis {

int64_t last_eos_position(const std::vector<int64_t>& ids, int64_t eos, size_t row) {
    for (size_t i = ids.size(); i-- > 0;)
        if (ids[i] == eos) return int64_t(i);
    throw Error("classification needs an eos token (" + std::to_string(eos) + ") in every input row; row " +
                std::to_string(row) + " has none");
}

Tensor classification_head(const Model& model, Backend& backend, const float* rep, int64_t n) {
    const BartWeights& w = model.weights();
    check(w.classification_head.has_value(), "model " + model.name() + " has no classification head");
    const ClassificationHeadWeights& head = *w.classification_head;
    const int64_t D = model.config().d_model, labels = head.out_proj.out();
    Tensor dense = Tensor::empty(DType::F32, {n, D});
    backend.linear(rep, n, D, head.dense.ref(), head.dense.b(), D, dense.data<float>());
    for (int64_t i = 0; i < n * D; ++i) dense.data<float>()[i] = std::tanh(dense.data<float>()[i]);
    Tensor logits = Tensor::empty(DType::F32, {n, labels});
    backend.linear(dense.data<float>(), n, D, head.out_proj.ref(), head.out_proj.b(), labels, logits.data<float>());
    return logits;
}

ClassificationLogits classify_encoded(const Model& model, Backend& backend, const EncoderOutput& encoded,
                                      const std::vector<std::vector<int64_t>>& input_ids) {
    const ModelConfig& cfg = model.config();
    const int64_t D = cfg.d_model;
    const size_t n = input_ids.size();
    Tensor rep = Tensor::empty(DType::F32, {int64_t(n), D});
    // Rows may differ in length, so each row gets its own decoder pass; positions after
    // the last eos cannot influence the causal state there, so the pass stops at it.
    for (size_t r = 0; r < n; ++r) {
        const int64_t last_eos = last_eos_position(input_ids[r], cfg.eos_token_id, r);
        EncoderOutput one;
        one.rows.push_back(encoded.rows[r]);
        const int L = int(last_eos) + 1;
        std::vector<int64_t> dec_ids = shift_tokens_right(input_ids[r], cfg.decoder_start_token_id);
        dec_ids.resize(size_t(L));
        DecoderState dec(model, backend, one, 1, L, L);
        dec.forward(dec_ids.data(), L);
        std::memcpy(rep.data<float>() + r * D, dec.hidden() + last_eos * D, size_t(D) * sizeof(float));
    }
    return {classification_head(model, backend, rep.data<float>(), int64_t(n))};
}

std::vector<float> label_scores(const float* logits, int64_t labels, bool multi_label) {
    std::vector<float> s(static_cast<size_t>(labels));
    if (multi_label) {
        for (int64_t i = 0; i < labels; ++i) s[size_t(i)] = 1.f / (1.f + std::exp(-logits[i]));
        return s;
    }
    const float m = *std::max_element(logits, logits + labels);
    float sum = 0.f;
    for (int64_t i = 0; i < labels; ++i) sum += s[size_t(i)] = std::exp(logits[i] - m);
    for (float& v : s) v /= sum;
    return s;
}

}  // namespace precis
