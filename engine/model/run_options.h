#pragma once
// What a caller passes to a run besides the inputs: which encoder attention to use
// with which settings, and the callbacks a GUI or CLI maps onto progress bars,
// streaming text and a Cancel button (whisper.cpp style).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/config/config.h"

namespace precis {

class LshProjections;
struct AttentionRecorder;

// On request only (null pointers cost nothing): the encoder self-attention weights of one
// layer and head, as computed, for the attention panel.
struct AttentionCapture {
    int layer = 0;
    int head = 0;
    int batch_row = 0;                          // which input row to record
    std::shared_ptr<AttentionRecorder> recorder;  // filled during the run (blocks of weights)
};

struct AttentionOptions {
    EncoderAttention kind = EncoderAttention::Full;
    LsgSettings lsg;        // effective LSG settings (the model's, with any overrides applied)
    FoveaSettings fovea;
    // LSH projections: injected (tests) or seeded. Created on demand when null.
    std::shared_ptr<LshProjections> lsh;
    uint64_t lsh_seed = 0x5eed;
    std::shared_ptr<AttentionCapture> capture;  // null: record nothing
};

enum class RunStage { Encoding, Generating, Classifying };

struct RunCallbacks {
    // stage, units done, units total (encoder layers, generated tokens).
    std::function<void(RunStage, int, int)> progress;
    // Streaming: the tokens of batch item `item`'s current best hypothesis so far
    // (greedy: grows by one each step; beam: the leading beam, which may change).
    std::function<void(int item, const std::vector<int64_t>& tokens)> on_tokens;
    // Cooperative cancel, checked between layers and between tokens.
    std::function<bool()> should_abort;
    // One line for the person running (e.g. "the GPU ran out of memory; running on the CPU").
    // Unset: written to stderr.
    std::function<void(const std::string&)> on_notice;

    void report(RunStage s, int done, int total) const {
        if (progress) progress(s, done, total);
    }
    void check_abort() const;  // throws precis::Cancelled when should_abort() says so
    void notice(const std::string& line) const;
};

}  // namespace precis
