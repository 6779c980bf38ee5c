#pragma once
// The documents that join a continuous batch together (document_batch.cpp): encoded in one
// call, and a document whose input or settings cannot run failing alone, while what stops
// the whole step (cancelling, running out of memory, the device failing) goes on up.
#include <deque>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/generate/document_batch.h"

namespace precis {

// What stops the whole step rather than one document: Cancelled, OutOfMemory, DeviceFailure
// (DeviceOutOfMemory too) and NonFiniteScores.
inline bool stops_the_step(const Error& e) {
    return dynamic_cast<const Cancelled*>(&e) || dynamic_cast<const OutOfMemory*>(&e) ||
           dynamic_cast<const DeviceFailure*>(&e) || dynamic_cast<const NonFiniteScores*>(&e);
}

// Runs `work` for `job`; a precis::Error fails that document alone (on.failed, and false is
// returned), unless it stops the step, which goes on up.
template <class Work>
bool or_fail_alone(int job, const DocumentBatchCallbacks& on, Work&& work) {
    try {
        work();
        return true;
    } catch (const Error& e) {
        if (stops_the_step(e)) throw;
        if (on.failed) on.failed(job, e.what());
        return false;
    }
}

// The joining documents' encoder outputs, in order, from one on.encode call. A document
// whose encoding fails is reported and left out: when several were encoded together, each
// is encoded again alone to find which. Out of memory, cancelled or the device failed: every
// document not yet reported goes back to the front of `waiting`, in order, and it goes on up.
std::vector<std::pair<int, EncodedRow>> encode_joining(const std::vector<int>& joining, std::deque<int>& waiting,
                                                       const DocumentBatchCallbacks& on, const RunCallbacks& cb);

}  // namespace precis
