#include "engine/generate/generation.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "engine/generate/model_runner.h"
#include "engine/generate/search.h"

namespace precis {

GenerationResult generate(const Model& model, Backend& backend, const EncoderOutput& encoded,
                          const GenerationConfig& cfg, const RunCallbacks& callbacks, bool keep_step_scores) {
    check(cfg.num_beams >= 1, "generation: num_beams must be at least 1");
    check(effective_max_length(cfg) >= 2, "generation: max_length must leave room for one token");
    // The device search keeps its scores on the device: a request for every step's scores
    // (parity checks) runs on the CPU, as does a search of more beams than the device takes.
    const ModelRunner* runner = backend.runner();
    const bool beams_fit = !runner || runner->takes_beams(cfg.num_beams);
    if (!beams_fit)
        runner->note_beams_limit(callbacks, "searching " + std::to_string(cfg.num_beams) + " on the CPU");
    return run_on_device_or_cpu(
        backend, callbacks, !keep_step_scores && beams_fit,
        [&](ModelRunner& runner) { return runner.generate(model, encoded, cfg, callbacks, keep_step_scores); },
        [&] {
            // An encoder output a failed device held cannot be read back here: that
            // DeviceFailure goes up to encode_then, which encodes again on the CPU.
            if (cfg.num_beams == 1) return greedy_search(model, backend, encoded, cfg, callbacks, keep_step_scores);
            return beam_search(model, backend, encoded, cfg, callbacks);
        });
}

Tensor pad_sequences(const std::vector<std::vector<int64_t>>& seqs, int64_t pad) {
    size_t len = 0;
    for (auto& s : seqs) len = std::max(len, s.size());
    Tensor t = Tensor::empty(DType::I64, {int64_t(seqs.size()), int64_t(len)});
    int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < seqs.size(); ++i) {
        std::fill(p + i * len, p + (i + 1) * len, pad);
        std::copy(seqs[i].begin(), seqs[i].end(), p + i * len);
    }
    return t;
}

}  // namespace precis
