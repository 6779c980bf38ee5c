#include "engine/generate/cpu_batch_decoder.h"

#include <algorithm>
#include <exception>

#include "engine/backend/backend.h"
#include "engine/core/worker_team.h"
#include "engine/generate/search.h"
#include "engine/model/model.h"

namespace precis {

CpuBatchDecoder::CpuBatchDecoder(const Model& model, Backend& backend, int capacity_rows, int max_length)
    : dec_(model, backend, capacity_rows, max_length),
      V_(model.config().vocab_size),
      // Written by every step's vocabulary product: resident at once (engine/core/populate.h).
      logits_(Tensor::empty_written_whole(DType::F32, {capacity_rows, V_})) {}

void CpuBatchDecoder::step(std::vector<DocumentStep*>& docs) {
    tokens_.clear();
    for (const DocumentStep* d : docs) {
        if (d->book)
            tokens_.insert(tokens_.end(), d->book->last_tokens().begin(), d->book->last_tokens().end());
        else
            tokens_.push_back(d->sequence->back());
    }
    check(int(tokens_.size()) == dec_.rows(), "batch decoder: the documents' rows are not the decoder's");
    dec_.forward(tokens_.data(), 1);
    dec_.logits(logits_.data<float>());
    choose(docs);
}

// Every document's choice from its rows of the logits, the documents split over the CPU's
// threads: 50k log-probabilities and a top-k per row, a few percent of a batch's time on one
// thread (the search's bookkeeping that follows stays in order, in the batch loop).
void CpuBatchDecoder::choose(std::vector<DocumentStep*>& docs) {
    std::vector<int64_t> first(docs.size());
    for (size_t i = 0, row = 0; i < docs.size(); row += size_t(docs[i]->beams), ++i) first[i] = int64_t(row);
    const int threads = std::max(1, std::min(cpu_threads(), int(docs.size())));
    scratch_.resize(size_t(threads));
    std::vector<std::exception_ptr> failures(docs.size());
    float* logits = logits_.data<float>();
    for_each_on_team(threads, int(docs.size()), [&](int i, int t) {
        DocumentStep& d = *docs[size_t(i)];
        float* rows = logits + first[size_t(i)] * V_;
        try {
            if (!d.book) {
                std::vector<float>& logprobs = scratch_[size_t(t)];
                logprobs.resize(size_t(V_));
                d.next = greedy_pick(rows, V_, *d.sequence, d.rules, logprobs.data(), &d.logprob);
            } else if (!d.book->finished()) {
                d.top_scores.resize(size_t(d.book->keep()));
                d.top_indices.resize(size_t(d.book->keep()));
                select_beam_candidates(rows, V_, *d.book, 0, d.rules, d.top_scores.data(), d.top_indices.data());
            }
        } catch (...) {  // a team job must not throw: rethrown below, in the documents' order
            failures[size_t(i)] = std::current_exception();
        }
    });
    for (const std::exception_ptr& f : failures)
        if (f) std::rethrow_exception(f);
}

void CpuBatchDecoder::reorder(const std::vector<DocumentStep*>& docs) {
    parents_.resize(size_t(dec_.rows()));
    bool moved = false;
    int row = 0;
    for (const DocumentStep* d : docs) {
        for (int b = 0; b < d->beams; ++b) {
            const int parent = d->book ? row + d->book->parents()[size_t(b)] : row + b;
            parents_[size_t(row + b)] = parent;
            moved |= parent != row + b;
        }
        row += d->beams;
    }
    if (moved) dec_.reorder(parents_);
}

}  // namespace precis
