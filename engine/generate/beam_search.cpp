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


void select_beam_candidates(float* logits, int64_t V, const BeamBook& book, int first_row, const GenerationConfig& cfg,
                            int max_length, float* top_scores, int64_t* top_indices, std::vector<int64_t>& order) {
    const int K = book.beams(), keep = book.keep();
    for (int b = 0; b < K; ++b) {
        float* row = logits + int64_t(b) * V;
        log_softmax_row(row, V);
        process_scores(row, V, book.sequences()[size_t(first_row + b)], cfg, max_length);
        const float beam_score = book.beam_scores()[size_t(first_row + b)];
        for (int64_t t = 0; t < V; ++t) row[t] += beam_score;
    }
    // Top 2K of the flattened scores, sorted descending; ties keep the lower index first as
    // torch.topk does on CPU.
    order.resize(size_t(K) * size_t(V));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t a, int64_t b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    for (int rank = 0; rank < keep; ++rank) {
        top_indices[rank] = order[size_t(rank)];
        top_scores[rank] = logits[order[size_t(rank)]];
    }
}

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
    std::vector<int64_t> order;
    std::vector<float> top_scores(size_t(items) * size_t(keep));
    std::vector<int64_t> top_indices(top_scores.size());
    GenerationResult res;
    while (true) {
        cb.check_abort();
        dec.forward(book.last_tokens().data(), 1);
        dec.logits(scores.data());
        for (int i = 0; i < items; ++i) {
            if (book.item_done(i)) continue;
            select_beam_candidates(scores.data() + int64_t(i) * K * V, V, book, i * K, cfg, max_length,
                                   top_scores.data() + size_t(i * keep), top_indices.data() + size_t(i * keep), order);
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
