#include "engine/generate/document_batch.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/backend/backend.h"
#include "engine/core/checked.h"
#include "engine/core/worker_team.h"
#include "engine/generate/model_runner.h"
#include "engine/generate/search.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {

// A document in the CPU step: its rows' search state, HuggingFace's rules per document.
struct StepDocument {
    int job = 0, item = 0, beams = 1, max_length = 0, steps = 0;
    const GenerationConfig* cfg = nullptr;
    std::vector<int64_t> sequence;  // greedy
    float score = 0;                // greedy: sum of the chosen tokens' log-probabilities
    std::unique_ptr<BeamBook> book; // beam search
    EncodedRow encoded;             // kept for `finished` when asked
    uint64_t bytes = 0;             // its share of the batch's memory bound
    bool done = false;
    // This step's choice, made beside the other documents' (score_step): greedy's token and
    // its log-probability, or the beams' best candidates; or what went wrong.
    int64_t next = 0;
    float logprob = 0;
    std::vector<float> top_scores;
    std::vector<int64_t> top_indices;
    std::exception_ptr failure;
};

bool greedy(const StepDocument& d) { return d.beams == 1; }

int longest_generation(const std::vector<DocumentJob>& jobs) {
    int m = 2;
    for (const DocumentJob& j : jobs) m = std::max(m, effective_max_length(j.config));
    return m;
}

int most_beams(const std::vector<DocumentJob>& jobs) {
    int m = 1;
    for (const DocumentJob& j : jobs) m = std::max(m, j.config.num_beams);
    return m;
}

std::vector<int> input_lengths(const std::vector<DocumentJob>& jobs) {
    std::vector<int> lengths;
    for (const DocumentJob& j : jobs) lengths.push_back(j.input_tokens);
    return lengths;
}

// Runs `work` and turns every way of running out of memory into OutOfMemory.
template <class Work>
void out_of_memory_as_one(Work&& work) {
    try {
        work();
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("an allocation failed");
    }
}

// The continuous batch on the CPU. `waiting` holds the jobs not yet started, in order;
// documents go back to its front when memory runs out, so nothing is lost or done twice.
class CpuDocumentBatch {
public:
    CpuDocumentBatch(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                     const DocumentBatchOptions& options, const DocumentBatchCallbacks& on, const RunCallbacks& cb)
        : model_(model), be_(backend), jobs_(jobs), options_(options), on_(on), cb_(cb),
          cost_(document_cost(model, longest_generation(jobs))) {}

    void run(std::deque<int>& waiting, DocumentBatchReport& report) {
        const EncoderBuffersKept kept;  // documents are encoded a few at a time, every few steps
        bool said = false;
        while (!waiting.empty()) {
            docs_.clear();
            try {
                out_of_memory_as_one([&] { run_step_loop(waiting, report); });
            } catch (const OutOfMemory& e) {
                for (auto it = docs_.rbegin(); it != docs_.rend(); ++it) waiting.push_front(it->job);
                docs_.clear();
                const int before = report.limits.max_documents;
                if (!report.limits.halve()) {
                    // One document alone does not fit: it fails, the others go on.
                    const int job = waiting.front();
                    waiting.pop_front();
                    if (on_.failed) on_.failed(job, std::string("not enough memory to summarize it: ") + e.what());
                    continue;
                }
                ++report.halvings;
                if (!said)
                    cb_.notice("memory ran out with " + std::to_string(before) + " documents at once (" + e.what() +
                               "); going on with " + std::to_string(report.limits.max_documents));
                said = true;
            }
        }
    }

private:
    void run_step_loop(std::deque<int>& waiting, DocumentBatchReport& report) {
        const BatchLimits& limits = report.limits;
        const int max_length = longest_generation(jobs_);
        const int64_t V = model_.config().vocab_size;
        const int capacity = limits.max_documents * most_beams(jobs_);
        DecoderState dec(model_, be_, capacity, max_length);
        // Written by every step's vocabulary product: resident at once (engine/core/populate.h).
        Tensor logits_buffer = Tensor::empty_written_whole(DType::F32, {capacity, V});
        float* logits = logits_buffer.data<float>();
        std::vector<std::vector<float>> scratch;  // a log-probability row per thread
        std::vector<int64_t> tokens;
        std::vector<int> parents;
        uint64_t held = 0;
        while (true) {
            admit(waiting, dec, held, limits);
            if (docs_.empty()) return;
            report.largest_step = std::max(report.largest_step, int(docs_.size()));
            cb_.check_abort();
            tokens.clear();
            for (const StepDocument& d : docs_) {
                if (greedy(d))
                    tokens.push_back(d.sequence.back());
                else
                    tokens.insert(tokens.end(), d.book->last_tokens().begin(), d.book->last_tokens().end());
            }
            dec.forward(tokens.data(), 1);
            dec.logits(logits);
            score_step(logits, V, scratch);
            parents.resize(size_t(dec.rows()));
            bool reorder = false;
            int row = 0;
            for (StepDocument& d : docs_) {
                if (d.failure) std::rethrow_exception(d.failure);
                const GenerationConfig& cfg = *d.cfg;
                if (greedy(d)) {
                    d.sequence.push_back(d.next);
                    d.score += d.logprob;
                    d.done = d.next == cfg.eos_token_id || int(d.sequence.size()) >= d.max_length;
                    parents[size_t(row)] = row;
                } else {
                    d.book->advance(d.top_scores.data(), d.top_indices.data(), V);
                    for (int b = 0; b < d.beams; ++b) {
                        parents[size_t(row + b)] = row + d.book->parents()[size_t(b)];
                        reorder |= parents[size_t(row + b)] != row + b;
                    }
                    d.done = d.book->finished();
                }
                ++d.steps;
                if (cb_.on_tokens) cb_.on_tokens(d.job, greedy(d) ? d.sequence : d.book->sequences()[0]);
                row += d.beams;
            }
            if (reorder) dec.reorder(parents);
            // Finished documents leave now; their rows take the next waiting ones.
            for (size_t i = 0; i < docs_.size();) {
                StepDocument& d = docs_[i];
                if (!d.done) {
                    ++i;
                    continue;
                }
                // Cancel stops at once, also between documents that finished in one step.
                cb_.check_abort();
                GenerationResult r;
                r.steps = d.steps;
                if (greedy(d)) {
                    r.sequences.push_back(std::move(d.sequence));
                    r.sequence_scores.push_back(d.score);
                } else {
                    d.book->finish(r);
                }
                dec.leave(d.item);
                held -= d.bytes;
                StepDocument gone = std::move(d);
                docs_.erase(docs_.begin() + long(i));
                if (on_.finished) on_.finished(gone.job, std::move(r), gone.encoded);
            }
        }
    }

    // Every document's choice for this step from its rows of `logits`, the documents split
    // over the CPU's threads: 50k log-probabilities and a top-k per row, a few percent of a
    // batch's time on one thread (the search's bookkeeping that follows stays in order).
    void score_step(float* logits, int64_t V, std::vector<std::vector<float>>& scratch) {
        std::vector<int64_t> first(docs_.size());
        for (size_t i = 0, row = 0; i < docs_.size(); row += size_t(docs_[i].beams), ++i) first[i] = int64_t(row);
        const int threads = std::max(1, std::min(cpu_threads(), int(docs_.size())));
        scratch.resize(size_t(threads));
        for_each_on_team(threads, int(docs_.size()), [&](int i, int t) {
            StepDocument& d = docs_[size_t(i)];
            float* rows = logits + first[size_t(i)] * V;
            try {
                const GenerationConfig& cfg = *d.cfg;
                if (greedy(d)) {
                    std::vector<float>& logprobs = scratch[size_t(t)];
                    logprobs.resize(size_t(V));
                    const StepRules rules = step_rules(cfg, int(d.sequence.size()), d.max_length);
                    d.next = greedy_pick(rows, V, d.sequence, rules, logprobs.data(), &d.logprob);
                } else {
                    d.top_scores.resize(size_t(d.book->keep()));
                    d.top_indices.resize(size_t(d.book->keep()));
                    select_beam_candidates(rows, V, *d.book, 0, step_rules(cfg, d.book->cur_len(), d.max_length),
                                           d.top_scores.data(), d.top_indices.data());
                }
            } catch (...) {  // a team job must not throw: the step loop rethrows it in order
                d.failure = std::current_exception();
            }
        });
    }

    // Waiting documents join while there are rows and memory for them; those that join
    // together are encoded together.
    void admit(std::deque<int>& waiting, DecoderState& dec, uint64_t& held, const BatchLimits& limits) {
        while (true) {
            const std::vector<int> joining = take_joining(waiting, dec.free_rows(), held, limits);
            if (joining.empty()) return;
            std::vector<std::pair<int, EncodedRow>> encoded = encode_joining(joining, waiting);
            size_t i = 0;
            try {
                for (; i < encoded.size(); ++i) {
                    const int job = encoded[i].first;
                    const DocumentJob& j = jobs_[size_t(job)];
                    StepDocument d;
                    d.job = job;
                    d.beams = j.config.num_beams;
                    d.cfg = &j.config;
                    d.max_length = effective_max_length(j.config);
                    d.bytes = joining_bytes(j);
                    if (!or_fail_alone(job, [&] { d.item = dec.join(encoded[i].second, d.beams); })) continue;
                    if (greedy(d)) {
                        d.sequence = {j.config.decoder_start_token_id};
                    } else {
                        d.book = std::make_unique<BeamBook>(1, j.config, d.max_length);
                    }
                    if (options_.keep_encoded) d.encoded = std::move(encoded[i].second);
                    held += d.bytes;
                    docs_.push_back(std::move(d));
                }
            } catch (...) {  // Cancelled or out of memory: those not yet joined wait again, in order
                for (size_t k = encoded.size(); k-- > i;) waiting.push_front(encoded[k].first);
                throw;
            }
        }
    }

    // Runs `work` for `job`; a precis::Error fails that document alone (and false is
    // returned), while Cancelled and OutOfMemory, which stop the step loop, go on up.
    template <class Work>
    bool or_fail_alone(int job, Work&& work) {
        try {
            work();
            return true;
        } catch (const Cancelled&) {
            throw;
        } catch (const OutOfMemory&) {
            throw;
        } catch (const Error& e) {
            if (on_.failed) on_.failed(job, e.what());
            return false;
        }
    }

    // Its cross-attention memory (and kept encoder output): a few global rows more than its
    // tokens at most.
    uint64_t joining_bytes(const DocumentJob& j) const {
        return cost_.per_memory_row * uint64_t(j.input_tokens + 64);
    }

    // The waiting documents that fit beside those present, in order, taken from `waiting`,
    // as many tokens as the encoder's products share (encoder.h): more at once would only
    // hold more encoder outputs before they join. One whose settings cannot run fails at once.
    std::vector<int> take_joining(std::deque<int>& waiting, int free_rows, uint64_t held, const BatchLimits& limits) {
        std::vector<int> joining;
        int64_t tokens = 0;
        while (!waiting.empty() && docs_.size() + joining.size() < size_t(limits.max_documents)) {
            const int job = waiting.front();
            const DocumentJob& j = jobs_[size_t(job)];
            const uint64_t bytes = joining_bytes(j);
            if (j.config.num_beams > free_rows) break;
            const bool first = docs_.empty() && joining.empty();
            if (limits.memory_bytes && !first && held + bytes > limits.memory_bytes) break;
            if (!joining.empty() && tokens + j.input_tokens > kEncoderSharedRows) break;
            waiting.pop_front();
            const bool runs = or_fail_alone(job, [&] {
                check(j.config.num_beams >= 1, "generation: num_beams must be at least 1");
                check(effective_max_length(j.config) >= 2, "generation: max_length must leave room for one token");
            });
            if (!runs) continue;
            joining.push_back(job);
            tokens += j.input_tokens;
            free_rows -= j.config.num_beams;
            held += bytes;
        }
        return joining;
    }

    // The joining documents' encoder outputs, in order, from one encoder call. A document
    // whose encoding fails is reported and left out: when several were encoded together,
    // each is encoded again alone to find which. Out of memory or cancelled: every document
    // not yet reported goes back to the front of `waiting`, in order.
    std::vector<std::pair<int, EncodedRow>> encode_joining(const std::vector<int>& joining, std::deque<int>& waiting) {
        std::vector<std::pair<int, EncodedRow>> encoded;
        std::vector<int> undecided = joining;
        const auto run = [&](const std::vector<int>& jobs) {
            std::vector<EncodedRow> rows = on_.encode(jobs);
            if (rows.size() != jobs.size())
                throw std::logic_error("generate_documents: the encoder callback returned " +
                                       std::to_string(rows.size()) + " outputs for " + std::to_string(jobs.size()) +
                                       " documents");
            for (size_t i = 0; i < jobs.size(); ++i) encoded.emplace_back(jobs[i], std::move(rows[i]));
        };
        try {
            cb_.check_abort();
            // One document: its error is its own. Several: an error names none of them, so
            // each is encoded again alone.
            if (joining.size() == 1) {
                or_fail_alone(joining[0], [&] { run(joining); });
                return encoded;
            }
            try {
                run(joining);
                return encoded;
            } catch (const Cancelled&) {
                throw;
            } catch (const OutOfMemory&) {
                throw;
            } catch (const Error&) {
            }
            for (const int job : joining) {
                cb_.check_abort();
                if (!or_fail_alone(job, [&] { run({job}); }))
                    undecided.erase(std::find(undecided.begin(), undecided.end(), job));
            }
            return encoded;
        } catch (...) {  // Cancelled, OutOfMemory, bad_alloc
            for (auto it = undecided.rbegin(); it != undecided.rend(); ++it) waiting.push_front(*it);
            throw;
        }
    }

    const Model& model_;
    Backend& be_;
    const std::vector<DocumentJob>& jobs_;
    const DocumentBatchOptions& options_;
    const DocumentBatchCallbacks& on_;
    const RunCallbacks& cb_;
    DocumentCost cost_;
    std::vector<StepDocument> docs_;
};

}  // namespace

namespace {

// A runner that takes whole generations (the CUDA runner): the documents in the same
// order, as batches of its own generate(), each padded to its longest document; a batch
// whose generation runs out of device memory is split in two and run again.
void run_on_device(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                   std::deque<int>& waiting, const DocumentBatchOptions& options, const DocumentBatchCallbacks& on,
                   const RunCallbacks& cb, DocumentBatchReport& report) {
    // Whole batches: the longest document of each decides its padding, so a batch is also
    // bounded in tokens, by the memory its encoder outputs and cross-attention keys take
    // (at least 256k tokens; a batch that still does not fit is split, below).
    const uint64_t per_token = document_cost(model, longest_generation(jobs)).per_memory_row;
    const int64_t token_budget =
        std::max<int64_t>(256 * 1024, per_token ? int64_t(report.limits.memory_bytes / per_token) : 0);
    bool said = false;
    while (!waiting.empty()) {
        ModelRunner* runner = backend.runner();
        if (!runner) return;  // the device failed: the CPU batch takes the rest
        // The next batch: consecutive waiting documents with the same settings (batch_plan.h).
        const std::vector<int> batch =
            group_in_order({waiting.begin(), waiting.end()}, input_lengths(jobs), report.limits.max_documents,
                           token_budget, [&](int a, int b) { return jobs[size_t(a)].config == jobs[size_t(b)].config; })
                .front();
        for (size_t i = 0; i < batch.size(); ++i) waiting.pop_front();
        EncoderOutput encoded;
        std::vector<int> members;
        bool short_of_memory = false;
        for (size_t b = 0; b < batch.size() && !short_of_memory; ++b) {
            const int job = batch[b];
            try {
                cb.check_abort();
                encoded.rows.push_back(std::move(on.encode({job}).at(0)));
                members.push_back(job);
            } catch (const Cancelled&) {
                for (size_t r = batch.size(); r-- > b;) waiting.push_front(batch[r]);
                throw;
            } catch (const OutOfMemory&) {
                // The host ran out while encoding (a CPU encoder after a fallback): the batch
                // goes back whole and the CPU's own batch, which halves itself, takes over.
                for (size_t r = batch.size(); r-- > 0;) waiting.push_front(batch[r]);
                short_of_memory = true;
            } catch (const std::bad_alloc&) {
                for (size_t r = batch.size(); r-- > 0;) waiting.push_front(batch[r]);
                short_of_memory = true;
            } catch (const Error& e) {
                if (on.failed) on.failed(job, e.what());
            }
        }
        if (short_of_memory) return;
        if (backend.runner() != runner) {
            // The device failed while encoding (the encoder fell back to the CPU and said so):
            // these documents go to the CPU's batch with the rest.
            for (auto it = members.rbegin(); it != members.rend(); ++it) waiting.push_front(*it);
            return;
        }
        if (members.empty()) continue;
        const GenerationConfig& cfg = jobs[size_t(members[0])].config;
        report.largest_step = std::max(report.largest_step, int(members.size()));
        GenerationResult all;
        try {
            all = runner->generate(model, encoded, cfg, cb, false);
        } catch (const DeviceOutOfMemory& e) {
            for (auto it = members.rbegin(); it != members.rend(); ++it) waiting.push_front(*it);
            const int before = report.limits.max_documents;
            if (!report.limits.halve()) {
                // One document does not fit the device: the CPU makes it.
                backend.runner_failed(e.what());
                cb.notice(std::string(e.what()) + "; running on the CPU");
                return;
            }
            ++report.halvings;
            if (!said)
                cb.notice("the device ran out of memory with " + std::to_string(before) + " documents at once; going on with " +
                          std::to_string(report.limits.max_documents));
            said = true;
            continue;
        } catch (const DeviceFailure& e) {
            for (auto it = members.rbegin(); it != members.rend(); ++it) waiting.push_front(*it);
            backend.runner_failed(e.what());
            cb.notice(std::string(e.what()) + "; running on the CPU");
            return;
        }
        for (size_t i = 0; i < members.size(); ++i) {
            GenerationResult one;
            std::vector<int64_t> seq = std::move(all.sequences[i]);
            if (cfg.num_beams == 1) seq = trim_after_eos(std::move(seq), cfg.eos_token_id);
            one.steps = int(seq.size()) - 1;
            one.sequences.push_back(std::move(seq));
            one.sequence_scores.push_back(all.sequence_scores[i]);
            EncodedRow kept;
            if (options.keep_encoded) kept = std::move(encoded.rows[i]);
            if (on.finished) on.finished(members[i], std::move(one), kept);
        }
    }
}

uint64_t free_memory_for(Backend& backend) {
    if (ModelRunner* runner = backend.runner())
        if (const uint64_t device = runner->free_memory_bytes()) return device;
    return available_memory_bytes();
}

}  // namespace

std::vector<int64_t> trim_after_eos(std::vector<int64_t> sequence, int64_t eos) {
    for (size_t i = 1; i < sequence.size(); ++i)
        if (sequence[i] == eos) {
            sequence.resize(i + 1);
            break;
        }
    return sequence;
}

BatchLimits plan_batch(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                       const DocumentBatchOptions& options) {
    const uint64_t free_bytes = free_memory_for(backend);
    if (options.batch_size > 0) return fixed_batch_limits(options.batch_size, free_bytes);
    int64_t longest = 0;
    for (const DocumentJob& j : jobs) longest = std::max<int64_t>(longest, j.input_tokens);
    const int rows_target = step_rows_target(model.compute_type(), backend.runner() != nullptr);
    DocumentCost cost = document_cost(model, longest_generation(jobs));
    if (!backend.runner()) cost.shared_step_bytes = decoder_step_weight_bytes(model.weights());
    return auto_batch_limits(cost, most_beams(jobs), longest + 64,
                             int(jobs.size()), free_bytes, rows_target);
}

DocumentBatchReport generate_documents(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                                       const DocumentBatchOptions& options, const DocumentBatchCallbacks& on,
                                       const RunCallbacks& cb) {
    check(bool(on.encode), "generate_documents: an encoder callback is required");
    DocumentBatchReport report;
    report.limits = plan_batch(model, backend, jobs, options);
    const std::vector<int> order = longest_first(input_lengths(jobs));
    std::deque<int> waiting(order.begin(), order.end());
    if (backend.runner()) {
        run_on_device(model, backend, jobs, waiting, options, on, cb, report);
        // The device failed part way: the CPU's own batch for the rest.
        if (!waiting.empty() && options.batch_size <= 0) report.limits = plan_batch(model, backend, jobs, options);
    }
    if (!waiting.empty()) CpuDocumentBatch(model, backend, jobs, options, on, cb).run(waiting, report);
    return report;
}

}  // namespace precis
