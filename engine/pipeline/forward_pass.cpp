#include "engine/pipeline/forward_pass.h"

#include <cstring>

#include "engine/generate/generation.h"
#include "engine/pipeline/classifier.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {

// Stacks equally shaped [rows, D] tensors into [n, rows, D].
Tensor stack(const std::vector<Tensor>& parts) {
    check(!parts.empty(), "stack: nothing to stack");
    Shape shape = parts[0].shape();
    for (const Tensor& p : parts)
        check(p.shape() == shape, "forward: batch rows produced different shapes " + shape_str(shape) + " and " +
                                      shape_str(p.shape()) + "; give rows of equal length");
    shape.insert(shape.begin(), int64_t(parts.size()));
    Tensor out = Tensor::empty(DType::F32, shape);
    for (size_t i = 0; i < parts.size(); ++i)
        std::memcpy(out.data<float>() + i * parts[0].numel(), parts[i].data<float>(), parts[i].nbytes());
    return out;
}

}  // namespace

std::vector<int64_t> shift_tokens_right(const std::vector<int64_t>& ids, int64_t decoder_start) {
    std::vector<int64_t> out;
    out.reserve(ids.size());
    out.push_back(decoder_start);
    for (size_t i = 0; i + 1 < ids.size(); ++i) out.push_back(ids[i]);
    return out;
}

NamedTensors run_forward(const Model& model, Backend& backend, const ForwardRequest& req, const RunCallbacks& cb) {
    const ModelConfig& cfg = model.config();
    check(!req.input_ids.empty(), "forward: input_ids is empty");
    NamedTensors out;
    EncoderOutput enc = run_encoder(model, backend, req.input_ids, req.attention_mask, req.attention, cb, true);

    std::vector<Tensor> memories;
    for (auto& r : enc.rows) memories.push_back(r.host_memory());
    out.emplace_back("encoder_last_hidden_state", stack(memories));
    for (size_t k = 0; k < enc.rows[0].layer_states.size(); ++k) {
        std::vector<Tensor> layer;
        for (auto& r : enc.rows) layer.push_back(r.layer_states[k]);
        out.emplace_back("encoder_hidden_states." + std::to_string(k), stack(layer));
    }

    std::vector<std::vector<int64_t>> decoder_ids = req.decoder_input_ids;
    if (cfg.is_classifier) {
        // The classification head reads the decoder over the shifted input.
        decoder_ids.clear();
        for (const auto& row : req.input_ids) decoder_ids.push_back(shift_tokens_right(row, cfg.decoder_start_token_id));
    }
    if (!decoder_ids.empty()) {
        check(decoder_ids.size() == req.input_ids.size(), "forward: decoder_input_ids needs one row per input row");
        const int Ld = int(decoder_ids[0].size());
        std::vector<int64_t> flat;
        for (auto& row : decoder_ids) {
            check(int(row.size()) == Ld, "forward: decoder_input_ids rows differ in length");
            flat.insert(flat.end(), row.begin(), row.end());
        }
        DecoderState dec(model, backend, enc, 1, Ld, Ld);
        std::vector<Tensor> states;
        dec.forward(flat.data(), Ld, &states);
        const int64_t n = int64_t(req.input_ids.size()), V = cfg.vocab_size, D = cfg.d_model;
        if (cfg.is_classifier) {
            Tensor rep = Tensor::empty(DType::F32, {n, D});
            for (int64_t r = 0; r < n; ++r) {
                const int64_t pos = last_eos_position(req.input_ids[size_t(r)], cfg.eos_token_id, size_t(r));
                std::memcpy(rep.data<float>() + r * D, dec.hidden() + (r * Ld + pos) * D, size_t(D) * sizeof(float));
            }
            out.emplace_back("logits", classification_head(model, backend, rep.data<float>(), n));
        } else {
            Tensor logits = Tensor::empty(DType::F32, {n, Ld, V});
            dec.logits(logits.data<float>(), Ld);
            out.emplace_back("logits", logits);
        }
        for (size_t k = 0; k < states.size(); ++k)
            out.emplace_back("decoder_hidden_states." + std::to_string(k), states[k]);
    }
    if (req.greedy) {
        GenerationResult g = generate(model, backend, enc, req.greedy_config, cb, req.keep_greedy_scores);
        out.emplace_back("greedy.sequences", pad_sequences(g.sequences, req.greedy_config.pad_token_id));
        if (req.keep_greedy_scores && !g.step_scores.empty()) {
            std::vector<Tensor> steps = g.step_scores;
            out.emplace_back("greedy.scores", stack(steps));
        }
    }
    if (req.beam) {
        GenerationResult b = generate(model, backend, enc, req.beam_config, cb);
        out.emplace_back("beam.sequences", pad_sequences(b.sequences, req.beam_config.pad_token_id));
        out.emplace_back("beam.sequences_scores",
                         Tensor::from_floats({int64_t(b.sequence_scores.size())}, b.sequence_scores));
    }
    return out;
}

}  // namespace precis
