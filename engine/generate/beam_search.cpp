// Beam search exactly as HuggingFace 4.36's BeamSearchScorer (the rules are in BeamBook):
// the CPU scores every beam over the vocabulary and takes each item's top 2*beams.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/generate/beam_book.h"
#include "engine/generate/search.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

namespace precis {


GenerationResult beam_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                             const GenerationConfig& cfg, const RunCallbacks& cb) {
    const int items = int(encoded.rows.size());
    const int K = cfg.num_beams;
    const int64_t V = model.config().vocab_size;
    const int max_length = effective_max_length(cfg);
    const int rows = items * K;
    DecoderState dec(model, backend, encoded, K, max_length);
    BeamBook book(items, cfg, max_length);
    const int keep = book.keep();

    std::vector<float> scores(size_t(rows) * V);
    std::vector<int64_t> order(size_t(K) * V);
    std::vector<float> top_scores(size_t(items) * size_t(keep));
    std::vector<int64_t> top_indices(top_scores.size());
    GenerationResult res;
    while (true) {
        cb.check_abort();
        dec.forward(book.last_tokens().data(), 1);
        dec.logits(scores.data());
        for (int r = 0; r < rows; ++r) {
            float* row = scores.data() + int64_t(r) * V;
            log_softmax_row(row, V);
            process_scores(row, V, book.sequences()[size_t(r)], cfg, max_length);
            const float beam_score = book.beam_scores()[size_t(r)];
            for (int64_t t = 0; t < V; ++t) row[t] += beam_score;
        }
        for (int i = 0; i < items; ++i) {
            if (book.item_done(i)) continue;
            const float* flat = scores.data() + int64_t(i) * K * V;
            // Top 2K of the flattened scores, sorted descending; ties keep the lower index
            // first as torch.topk does on CPU.
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t a, int64_t b) {
                return flat[a] > flat[b] || (flat[a] == flat[b] && a < b);
            });
            for (int rank = 0; rank < keep; ++rank) {
                top_indices[size_t(i * keep + rank)] = order[size_t(rank)];
                top_scores[size_t(i * keep + rank)] = flat[order[size_t(rank)]];
            }
        }
        book.advance(top_scores.data(), top_indices.data(), V);
        dec.reorder(book.parents());
        ++res.steps;
        if (cb.on_tokens)
            for (int i = 0; i < items; ++i) cb.on_tokens(i, book.sequences()[size_t(i * K)]);
        cb.report(RunStage::Generating, book.cur_len() - 1, max_length - 1);
        if (book.finished()) break;
    }
    book.finish(res);
    return res;
}

}  // namespace precis
