#include "engine/generate/document_batch.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <new>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/backend/backend.h"
#include "engine/core/checked.h"
#include "engine/generate/cpu_batch_decoder.h"
#include "engine/generate/joining_documents.h"
#include "engine/generate/model_runner.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {

// A document in the step: its search state, HuggingFace's rules per document. `step` is what
// the decoder reads and writes for it.
struct Member {
    DocumentStep step;
    int job = 0, max_length = 0, steps = 0;
    const GenerationConfig* cfg = nullptr;
    std::vector<int64_t> sequence;  // greedy
    float score = 0;                // greedy: sum of the chosen tokens' log-probabilities
    std::unique_ptr<BeamBook> book; // beam search
    EncodedRow encoded;             // kept for `finished` when asked
    uint64_t bytes = 0;             // its share of the batch's memory bound
    bool done = false;
    std::string failure;            // its scores were not finite (CPU: it fails alone)
};

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

// Why a document's generation settings cannot run at all, or empty.
std::string settings_problem(const GenerationConfig& cfg) {
    if (cfg.num_beams < 1) return "generation: num_beams must be at least 1";
    if (effective_max_length(cfg) < 2) return "generation: max_length must leave room for one token";
    return {};
}

// The batch decoder is outdated (BatchDecoder::outdated): the documents present start again
// in a new one. Not an Error: nothing failed.
struct DecoderOutdated {};

// Runs `work` and turns every way of running out of host memory into OutOfMemory.
template <class Work>
void out_of_memory_as_one(Work&& work) {
    try {
        work();
    } catch (const std::bad_alloc&) {
        throw OutOfMemory("an allocation failed");
    }
}

// The continuous batch on one device: the CPU's (runner == nullptr) or a device runner's.
// `waiting` holds the jobs not yet started, in order; documents go back to its front when
// memory runs out or the device fails, so nothing is lost or done twice.
class DocumentBatchLoop {
public:
    DocumentBatchLoop(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                      const DocumentBatchOptions& options, const DocumentBatchCallbacks& on, const RunCallbacks& cb,
                      ModelRunner* runner)
        : model_(model), be_(backend), jobs_(jobs), options_(options), on_(on), cb_(cb), runner_(runner),
          cost_(document_cost(model, longest_generation(jobs))) {}

    // On a device, returns early when the device gave up: the CPU's loop takes the rest.
    void run(std::deque<int>& waiting, DocumentBatchReport& report) {
        const EncoderBuffersKept kept;  // documents are encoded a few at a time, every few steps
        // On a device, an encoder out of memory halves the batch as a decoder out of memory
        // does: a joining document is encoded beside the documents present.
        const DeviceMemoryRetried retried(runner_ != nullptr);
        while (!waiting.empty()) {
            if (runner_ && be_.runner() != runner_) return;  // the device failed while encoding
            members_.clear();
            try {
                out_of_memory_as_one([&] { run_steps(waiting, report); });
            } catch (const OutOfMemory& e) {
                if (!halve(waiting, report, e.what())) return;
            } catch (const DeviceOutOfMemory& e) {
                if (!runner_) {
                    cpu_lost_device(waiting, e);
                } else if (!halve(waiting, report, e.what())) {
                    return;
                }
            } catch (const NonFiniteScores& e) {
                if (!runner_) throw;  // only a device's step throws it: the CPU's fails the document alone
                give_back(waiting);
                if (!runner_->widen_after_overflow(cb_)) return device_failed(e.what());
            } catch (const DeviceFailure& e) {
                if (!runner_) {
                    cpu_lost_device(waiting, e);
                    continue;
                }
                give_back(waiting);
                return device_failed(e.what());
            } catch (const DecoderOutdated&) {
                give_back(waiting);
            }
        }
    }

private:
    // Documents present go back to the front of `waiting`, in order, unfinished.
    void give_back(std::deque<int>& waiting) {
        for (auto it = members_.rbegin(); it != members_.rend(); ++it) waiting.push_front((*it)->job);
        members_.clear();
    }

    // Memory ran out: the batch goes on with half the documents its decoder was made for
    // (fewer than the limit where its beams had fewer), said once for the run. False when the
    // device gives up instead (one document does not fit it: the CPU makes the rest).
    bool halve(std::deque<int>& waiting, DocumentBatchReport& report, const std::string& why) {
        give_back(waiting);
        const int before = std::min(report.limits.max_documents, attempted_);
        report.limits.max_documents = before;
        if (!report.limits.halve()) {
            if (runner_) {
                device_failed(why);
                return false;
            }
            // One document alone does not fit: it fails, the others go on.
            const int job = waiting.front();
            waiting.pop_front();
            if (on_.failed) on_.failed(job, "not enough memory to summarize it: " + why);
            return true;
        }
        if (report.halvings++ == 0)
            cb_.notice("memory ran out with " + std::to_string(before) + " documents at once (" + why +
                       "); going on with " + std::to_string(report.limits.max_documents));
        return true;
    }

    // The device is done for this run: its runner is turned off (said once, unless the
    // encoder already did) and the CPU takes what is left.
    void device_failed(const std::string& why) { turn_device_off(be_, cb_, why); }

    // The CPU's loop beside a device still on (searches of more beams than it takes): their
    // encoder outputs came from the device, which failed as one was read. The device goes
    // off and the documents present start again, encoded on the CPU.
    void cpu_lost_device(std::deque<int>& waiting, const DeviceFailure& e) {
        if (!be_.runner()) throw;  // no device at all: called from its handler, this passes it on
        give_back(waiting);
        device_failed(e.what());
    }

    // The first waiting document fails alone, and is taken from `waiting`, when its settings
    // cannot run at all (true).
    bool failed_on_settings(std::deque<int>& waiting) {
        const int job = waiting.front();
        const std::string why = settings_problem(jobs_[size_t(job)].config);
        if (why.empty()) return false;
        waiting.pop_front();
        if (on_.failed) on_.failed(job, why);
        return true;
    }

    // `waiting` starts with a document whose settings run.
    std::unique_ptr<BatchDecoder> make_decoder(const std::deque<int>& waiting, const BatchLimits& limits) {
        if (!runner_) {
            attempted_ = limits.max_documents;
            return std::make_unique<CpuBatchDecoder>(model_, be_, limits.max_documents * most_beams(jobs_),
                                                     longest_generation(jobs_));
        }
        // Every document of a device batch has the first waiting one's beams. Each step runs
        // every slot's rows and each slot holds a cache of max_length, so the decoder has as
        // many slots as documents of those beams can be present together, and their longest
        // generation; the keys' pool is sized for the longest of them that are present first,
        // each with room for its global rows and its padding to an LSG block (a pool that is
        // short grows, at the cost of a copy).
        BatchDecoderShape shape;
        shape.beams = jobs_[size_t(waiting.front())].config.num_beams;
        shape.documents = 0;
        shape.max_length = 2;
        for (const int job : waiting) {
            const DocumentJob& j = jobs_[size_t(job)];
            if (j.config.num_beams != shape.beams) continue;
            shape.max_length = std::max(shape.max_length, effective_max_length(j.config));
            if (shape.documents == limits.max_documents) continue;
            shape.memory_rows += j.input_tokens + 256;
            ++shape.documents;
        }
        attempted_ = shape.documents;
        return runner_->batch_decoder(model_, shape);
    }

    void run_steps(std::deque<int>& waiting, DocumentBatchReport& report) {
        const BatchLimits& limits = report.limits;
        const int64_t V = model_.config().vocab_size;
        // Before the decoder takes its shape from the first waiting document.
        while (!waiting.empty() && failed_on_settings(waiting)) {
        }
        if (waiting.empty()) return;
        std::unique_ptr<BatchDecoder> dec = make_decoder(waiting, limits);
        std::vector<DocumentStep*> present;
        uint64_t held = 0;
        while (true) {
            // Turned off under the loop (a finished document's source passages could not be
            // copied back): those present start again on the CPU.
            if (runner_ && be_.runner() != runner_) throw DeviceFailure("the device was turned off");
            admit(waiting, *dec, held, limits);
            // None present: all is done, or the next document needs a decoder of its own shape.
            if (members_.empty()) return;
            report.largest_step = std::max(report.largest_step, int(members_.size()));
            cb_.check_abort();
            present.clear();
            for (const std::unique_ptr<Member>& m : members_) {
                DocumentStep& s = m->step;
                s.sequence = &m->sequence;
                s.book = m->book.get();
                const int cur_len = m->book ? m->book->cur_len() : int(m->sequence.size());
                s.rules = step_rules(*m->cfg, cur_len, m->max_length);
                present.push_back(&s);
            }
            dec->step(present);
            bool beams = false;
            for (const std::unique_ptr<Member>& m : members_) {
                advance(*m, V);
                beams |= m->book != nullptr;
            }
            if (beams) dec->reorder(present);
            // Finished documents leave now; their rows take the next waiting ones.
            for (size_t i = 0; i < members_.size();) {
                if (!members_[i]->done) {
                    ++i;
                    continue;
                }
                // Cancel stops at once, also between documents that finished in one step.
                cb_.check_abort();
                // Left first: a device that fails here keeps the document present, so it is
                // given back and made again, not lost.
                dec->leave(members_[i]->step.item);
                std::unique_ptr<Member> gone = std::move(members_[i]);
                members_.erase(members_.begin() + long(i));
                held -= gone->bytes;
                if (!gone->failure.empty()) {
                    if (on_.failed) on_.failed(gone->job, gone->failure);
                    continue;
                }
                GenerationResult r;
                r.steps = gone->steps;
                if (gone->book) {
                    gone->book->finish(r);
                } else {
                    r.sequences.push_back(std::move(gone->sequence));
                    r.sequence_scores.push_back(gone->score);
                }
                if (on_.finished) on_.finished(gone->job, std::move(r), gone->encoded);
            }
        }
    }

    // The step's choice into the document's search, as HuggingFace's rules take it. A token
    // outside the vocabulary or a score that is NaN or infinite (finite logits never give
    // one) is not fed on: a device moves to a wider precision or hands over to the CPU, and
    // on the CPU the document fails alone.
    void advance(Member& m, int64_t V) {
        const DocumentStep& s = m.step;
        const bool finite = m.book ? s.top_indices[0] >= 0 && s.top_indices[0] < int64_t(m.book->beams()) * V &&
                                         std::isfinite(s.top_scores[0])
                                   : s.next >= 0 && s.next < V && std::isfinite(s.logprob);
        if (!finite) {
            const std::string why = "generation: the scores of step " + std::to_string(m.steps + 1) +
                                    " are not finite (NaN or infinity: the model's activations overflow the "
                                    "precision they run in)";
            if (runner_) throw NonFiniteScores(why);
            m.failure = why;
            m.done = true;
            return;
        }
        if (m.book) {
            m.book->advance(s.top_scores.data(), s.top_indices.data(), V);
            m.done = m.book->finished();
        } else {
            m.sequence.push_back(s.next);
            m.score += s.logprob;
            m.done = s.next == m.cfg->eos_token_id || int(m.sequence.size()) >= m.max_length;
        }
        ++m.steps;
        if (cb_.on_tokens) cb_.on_tokens(m.job, m.book ? m.book->sequences()[0] : m.sequence);
    }

    // Waiting documents join while there are rows and memory for them; those that join
    // together are encoded together.
    void admit(std::deque<int>& waiting, BatchDecoder& dec, uint64_t& held, const BatchLimits& limits) {
        while (true) {
            const std::vector<int> joining = take_joining(waiting, dec, held, limits);
            if (joining.empty()) return;
            std::vector<std::pair<int, EncodedRow>> encoded = encode_joining(joining, waiting, on_, cb_);
            size_t i = 0;
            try {
                if (runner_ && be_.runner() != runner_)  // the encoder fell back to the CPU and said so
                    throw DeviceFailure("the device failed while encoding");
                if (dec.outdated()) throw DecoderOutdated{};  // the encoder left fp16 and said so
                for (; i < encoded.size(); ++i) {
                    const int job = encoded[i].first;
                    const DocumentJob& j = jobs_[size_t(job)];
                    auto m = std::make_unique<Member>();
                    m->job = job;
                    m->cfg = &j.config;
                    m->max_length = effective_max_length(j.config);
                    m->bytes = joining_bytes(j);
                    m->step.beams = j.config.num_beams;
                    if (!or_fail_alone(job, on_, [&] { m->step.item = dec.join(encoded[i].second, m->step.beams); }))
                        continue;
                    if (m->step.beams == 1)
                        m->sequence = {j.config.decoder_start_token_id};
                    else
                        m->book = std::make_unique<BeamBook>(1, j.config, m->max_length);
                    if (options_.keep_encoded) m->encoded = std::move(encoded[i].second);
                    held += m->bytes;
                    members_.push_back(std::move(m));
                }
            } catch (...) {  // cancelled, out of memory, the device failed: those not yet joined wait again, in order
                for (size_t k = encoded.size(); k-- > i;) waiting.push_front(encoded[k].first);
                throw;
            }
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
    std::vector<int> take_joining(std::deque<int>& waiting, const BatchDecoder& dec, uint64_t held,
                                  const BatchLimits& limits) {
        std::vector<int> joining;
        int64_t tokens = 0;
        int free_rows = dec.free_rows();
        while (!waiting.empty() && members_.size() + joining.size() < size_t(limits.max_documents)) {
            const int job = waiting.front();
            const DocumentJob& j = jobs_[size_t(job)];
            if (failed_on_settings(waiting)) continue;
            const uint64_t bytes = joining_bytes(j);
            if (!dec.accepts(j.config.num_beams) || j.config.num_beams > free_rows) break;
            const bool first = members_.empty() && joining.empty();
            if (limits.memory_bytes && !first && held + bytes > limits.memory_bytes) break;
            if (!joining.empty() && tokens + j.input_tokens > kEncoderSharedRows) break;
            waiting.pop_front();
            joining.push_back(job);
            tokens += j.input_tokens;
            free_rows -= j.config.num_beams;
            held += bytes;
        }
        return joining;
    }

    const Model& model_;
    Backend& be_;
    const std::vector<DocumentJob>& jobs_;
    const DocumentBatchOptions& options_;
    const DocumentBatchCallbacks& on_;
    const RunCallbacks& cb_;
    ModelRunner* runner_;
    DocumentCost cost_;
    // Documents the last decoder was made for: what running out of memory halves.
    int attempted_ = std::numeric_limits<int>::max();
    // unique_ptr: the decoder's DocumentStep points into each one's sequence and book.
    std::vector<std::unique_ptr<Member>> members_;
};

uint64_t free_memory_for(const ModelRunner* runner) {
    if (runner)
        if (const uint64_t device = runner->free_memory_bytes()) return device;
    return available_memory_bytes();
}

// The batch for `jobs` on the runner's device, or on the CPU (runner null).
BatchLimits plan_batch_on(const Model& model, const ModelRunner* runner, const std::vector<DocumentJob>& jobs,
                          const DocumentBatchOptions& options) {
    const uint64_t free_bytes = free_memory_for(runner);
    if (options.batch_size > 0) return fixed_batch_limits(options.batch_size, free_bytes);
    int64_t longest = 0;
    for (const DocumentJob& j : jobs) longest = std::max<int64_t>(longest, j.input_tokens);
    const int rows_target = step_rows_target(model.compute_type(), runner != nullptr);
    DocumentCost cost = document_cost(model, longest_generation(jobs));
    if (!runner) cost.shared_step_bytes = decoder_step_weight_bytes(model.weights());
    return auto_batch_limits(cost, most_beams(jobs), longest + 64, int(jobs.size()), free_bytes, rows_target);
}

std::vector<DocumentJob> jobs_of(const std::vector<DocumentJob>& jobs, const std::deque<int>& which) {
    std::vector<DocumentJob> some;
    for (const int job : which) some.push_back(jobs[size_t(job)]);
    return some;
}

// A device's batch decoder takes documents of one number of beams: those of each number run
// together, longest first, the numbers in the order of their longest document. (Interleaved,
// each decoder would hold one document before the next needed another width.)
std::vector<int> grouped_by_beams(const std::vector<int>& order, const std::vector<DocumentJob>& jobs) {
    std::vector<int> widths, grouped;
    for (const int job : order)
        if (std::find(widths.begin(), widths.end(), jobs[size_t(job)].config.num_beams) == widths.end())
            widths.push_back(jobs[size_t(job)].config.num_beams);
    for (const int w : widths)
        for (const int job : order)
            if (jobs[size_t(job)].config.num_beams == w) grouped.push_back(job);
    return grouped;
}

std::vector<int> input_lengths(const std::vector<DocumentJob>& jobs) {
    std::vector<int> lengths;
    for (const DocumentJob& j : jobs) lengths.push_back(j.input_tokens);
    return lengths;
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
    return plan_batch_on(model, backend.runner(), jobs, options);
}

DocumentBatchReport generate_documents(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                                       const DocumentBatchOptions& options, const DocumentBatchCallbacks& on,
                                       const RunCallbacks& cb) {
    check(bool(on.encode), "generate_documents: an encoder callback is required");
    DocumentBatchReport report;
    const std::vector<int> order = longest_first(input_lengths(jobs));
    std::deque<int> waiting;
    if (ModelRunner* runner = backend.runner()) {
        // Searches of more beams than the device takes run on the CPU, after the rest.
        std::deque<int> wider;
        for (const int job : grouped_by_beams(order, jobs))
            (runner->takes_beams(jobs[size_t(job)].config.num_beams) ? waiting : wider).push_back(job);
        if (!wider.empty())
            runner->note_beams_limit(cb,
                                     std::to_string(wider.size()) + " of the documents ask for more and run on the CPU");
        if (!waiting.empty()) {
            report.limits = plan_batch_on(model, runner, jobs_of(jobs, waiting), options);
            DocumentBatchLoop(model, backend, jobs, options, on, cb, runner).run(waiting, report);
        }
        waiting.insert(waiting.end(), wider.begin(), wider.end());
        // What the device did not take, or gave up part way: the CPU's own batch for it.
        if (!waiting.empty()) report.limits = plan_batch_on(model, nullptr, jobs_of(jobs, waiting), options);
    } else {
        waiting.assign(order.begin(), order.end());
        report.limits = plan_batch_on(model, nullptr, jobs, options);
    }
    if (!waiting.empty()) DocumentBatchLoop(model, backend, jobs, options, on, cb, nullptr).run(waiting, report);
    return report;
}

}  // namespace precis
