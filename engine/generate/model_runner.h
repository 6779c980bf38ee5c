#pragma once
// A backend that holds a whole run on its own device (the CUDA backend) hands the model's
// encoder and generation a runner: the weights live there, and so do the activations, the
// caches and the search's scores; only ids, candidates and the encoder output come back.
// run_encoder() and generate() go through it when the backend has one, and fall back to the
// CPU ops, with one line saying so, when the device fails (out of memory, a CUDA error).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/generate/batch_decoder.h"
#include "engine/generate/generation.h"
#include "engine/model/encoder.h"

namespace precis {

// What a device run measured, for `precis bench`.
struct RunnerStats {
    double encoder_product_seconds = 0;  // the last encode's matrix products alone (device time)
    double encoder_attention_seconds = 0;  // its self-attention alone (sparse keys included)
    double encoder_seconds = 0;          // the last encode, device time
    uint64_t peak_device_bytes = 0;      // most device memory the runner held at once since reset
    // The last generation's steps: how many, their wall time, and the device time of their
    // GPU work (layers, logits and search) and of the layers alone. Wall minus device time is
    // what the host adds to a step (launches, copies, the beams' bookkeeping).
    int decode_steps = 0;
    double decode_wall_seconds = 0, decode_device_seconds = 0, decode_layers_seconds = 0;
    // The same summed over every generation and every batch decoder's steps since
    // reset_stats().
    int64_t decode_steps_total = 0;
    double decode_wall_total_seconds = 0, decode_device_total_seconds = 0, decode_layers_total_seconds = 0;
};

// What a continuous batch asks of a runner's batch decoder (batch_decoder.h).
struct BatchDecoderShape {
    int documents = 1;        // at once: one slot each
    int beams = 1;            // rows of each document: every document that joins has this many
    int max_length = 0;       // longest sequence, start token included
    int64_t memory_rows = 0;  // the first documents' encoder rows together: sizes the keys' pool
                              // up front (a hint; it grows when a document needs more)
};

class ModelRunner {
public:
    virtual ~ModelRunner() = default;
    virtual RunnerStats stats() const = 0;
    virtual void reset_stats() = 0;
    // Timing the products costs a few events per layer: off unless a benchmark asks.
    virtual void set_profiling(bool on) = 0;
    // Device memory free now, for sizing a batch (0: unknown).
    virtual uint64_t free_memory_bytes() const { return 0; }
    // "cuda:0 NVIDIA H200 (fp16)"
    virtual std::string device_name() const = 0;
    // Whether this run can be held on the device (an attention capture for the panel, for
    // example, is recorded by the CPU code only).
    virtual bool supports(const AttentionOptions& attention) const = 0;
    // The most beams the device's search takes (0: any number). A generation of more beams
    // is searched on the CPU, the device kept for the rest.
    virtual int max_beams() const { return 0; }
    bool takes_beams(int beams) const { return max_beams() == 0 || beams <= max_beams(); }
    // "cuda:0 NVIDIA H200 (fp16) searches at most 32 beams", for the notice that says so.
    std::string beams_limit() const {
        return device_name() + " searches at most " + std::to_string(max_beams()) + " beams";
    }
    // Says it once for this runner, with `what` ran on the CPU instead: a long document's
    // sections and every document of a batch folder would repeat it otherwise.
    void note_beams_limit(const RunCallbacks& callbacks, const std::string& what) const {
        if (!beams_limit_said_.exchange(true)) callbacks.notice(beams_limit() + "; " + what);
    }
    virtual EncoderOutput encode(const Model& model, const std::vector<std::vector<int64_t>>& ids,
                                 const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                                 const RunCallbacks& callbacks, bool keep_layer_states) = 0;
    virtual GenerationResult generate(const Model& model, const EncoderOutput& encoded, const GenerationConfig& cfg,
                                      const RunCallbacks& callbacks, bool keep_step_scores) = 0;
    // The decoder of a continuous batch on the device: documents of shape.beams rows join and
    // leave it between steps (the batch loop, document_batch.cpp). Its calls throw
    // DeviceFailure (DeviceOutOfMemory when memory ran out) as generate() does.
    virtual std::unique_ptr<BatchDecoder> batch_decoder(const Model& model, const BatchDecoderShape& shape) = 0;
    // A batch decoder's scores were not finite (NonFiniteScores): the model's activations
    // overflow the precision it runs in. Moves to one that holds them and says so (true: the
    // documents are encoded and decoded again), or false when there is none to move to.
    virtual bool widen_after_overflow(const RunCallbacks& /*callbacks*/) { return false; }

private:
    mutable std::atomic<bool> beams_limit_said_{false};
};

// While one made with `on` lives on this thread, a device that runs out of memory in
// run_on_device_or_cpu stays on and its DeviceOutOfMemory goes up to the caller, which can
// ask for less: the batch loop halves its batch (document_batch.cpp) where turning the
// device off would send every later document to the CPU.
class DeviceMemoryRetried {
public:
    explicit DeviceMemoryRetried(bool on) : on_(on) { depth() += on_; }
    ~DeviceMemoryRetried() { depth() -= on_; }
    DeviceMemoryRetried(const DeviceMemoryRetried&) = delete;
    DeviceMemoryRetried& operator=(const DeviceMemoryRetried&) = delete;
    static bool active() { return depth() > 0; }

private:
    static int& depth() {
        static thread_local int open = 0;
        return open;
    }
    const bool on_;
};

// The device is done for this run: the backend's runner is turned off and the person told,
// once (nothing when it is off already).
inline void turn_device_off(Backend& backend, const RunCallbacks& callbacks, const std::string& why) {
    if (!backend.runner()) return;
    backend.runner_failed(why);
    callbacks.notice(why + "; running on the CPU");
}

// Runs `on_device` on the backend's runner when it has one and `eligible`; when the device
// fails, tells the person once (through the callbacks), turns the runner off and runs
// `on_cpu` instead, so the work still finishes.
template <class OnDevice, class OnCpu>
auto run_on_device_or_cpu(Backend& backend, const RunCallbacks& callbacks, bool eligible, OnDevice on_device,
                          OnCpu on_cpu) -> decltype(on_cpu()) {
    if (ModelRunner* runner = backend.runner(); runner && eligible) {
        try {
            return on_device(*runner);
        } catch (const DeviceFailure& e) {
            if (DeviceMemoryRetried::active() && dynamic_cast<const DeviceOutOfMemory*>(&e)) throw;
            turn_device_off(backend, callbacks, e.what());
        }
    }
    return on_cpu();
}

// Runs `use` on what `encode` made. A device keeps its encoder output and copies it back only
// when the host reads it; a device that fails then (after a CUDA error nothing can be copied
// back) took the output with it: it is turned off, said once, and both run again on the CPU.
template <class Encode, class Use>
auto encode_then(Backend& backend, const RunCallbacks& callbacks, Encode encode, Use use)
    -> decltype(use(encode())) {
    if (backend.runner()) {
        try {
            const EncoderOutput encoded = encode();
            return use(encoded);
        } catch (const DeviceFailure& e) {
            turn_device_off(backend, callbacks, e.what());
        }
    }
    const EncoderOutput encoded = encode();
    return use(encoded);
}

}  // namespace precis
