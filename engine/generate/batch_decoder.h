#pragma once
// The decoder of a continuous batch (document_batch.h) on one device, with each step's
// choices. Documents join and leave between steps; a step feeds every present document's
// latest tokens, runs the decoder over all of them at once, and makes each document's choice
// from its own rows of logits under its own rules: greedy, the token; beam search, the best
// candidates over its beams. What joins, what a choice means and when a document is done is
// the batch loop's, written once (document_batch.cpp) for the two decoders behind this:
// the CPU's DecoderState (cpu_batch_decoder.h) and the CUDA runner's slot decoder
// (kernels/runner/device_batch_decoder.h).
#include <cstdint>
#include <vector>

#include "engine/generate/beam_book.h"
#include "engine/generate/logits_processors.h"
#include "engine/model/encoder.h"

namespace precis {

// One document's part of a step, as the batch loop hands it to the decoder.
struct DocumentStep {
    int item = 0;     // what join() returned for it
    int beams = 1;    // its rows; 1: greedy
    StepRules rules;  // this step's, from its own settings and length
    // Its rows' tokens so far (their last ones are what the step feeds): greedy, its one
    // sequence; beam search, its book (one item of `beams` rows).
    const std::vector<int64_t>* sequence = nullptr;
    const BeamBook* book = nullptr;
    // The step's choice. Greedy: the first best token after the processors, and its
    // log-probability before them (on a forced step, the forced token's). Beam search, while
    // the book is not done: its book->keep() best candidates over beams x vocab (flat index
    // beam * vocab + token, best first, the lower index first on ties) with the beams'
    // running scores added.
    int64_t next = 0;
    float logprob = 0;
    std::vector<float> top_scores;
    std::vector<int64_t> top_indices;
};

class BatchDecoder {
public:
    virtual ~BatchDecoder() = default;
    // Rows no document holds now.
    virtual int free_rows() const = 0;
    // Whether documents of `beams` rows can join this decoder at all (a device's decoder
    // takes one number of beams, in slots of that many rows).
    virtual bool accepts(int /*beams*/) const { return true; }
    // The device changed under it: its runner moved to another precision (an encoder
    // output overflowed fp16), so its weights and keys are of the old one. The documents
    // present start again, in a new decoder.
    virtual bool outdated() const { return false; }
    // Adds a document with `beams` empty rows; its cross-attention keys and values are made
    // now (the encoded row is not kept). Returns its item id.
    virtual int join(const EncodedRow& document, int beams) = 0;
    // Removes a document; its rows are free for the next one at once.
    virtual void leave(int item) = 0;
    // One step of every document present (`docs`, in the order they joined): one new token
    // a row, then each document's choice into its DocumentStep.
    virtual void step(std::vector<DocumentStep*>& docs) = 0;
    // Each beam document's rows continue the histories of its book's parents() (rows of the
    // document itself); greedy documents are left alone.
    virtual void reorder(const std::vector<DocumentStep*>& docs) = 0;
};

}  // namespace precis
