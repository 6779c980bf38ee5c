#pragma once
// One exception type for everything the engine rejects. Messages are one clear
// sentence that names the file (when there is one) and the problem.
#include <stdexcept>
#include <string>

namespace precis {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown when an abort callback asked a run to stop.
class Cancelled : public Error {
public:
    Cancelled() : Error("the run was cancelled") {}
};

// Thrown when a run needs more memory than there is (before allocating, or when an
// allocation failed): a batch can halve itself and go on.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

// What a device runner (or a device op) throws when the device cannot go on; the message
// names the call. The engine then runs the work on the CPU and says so (model_runner.h).
class DeviceFailure : public Error {
public:
    using Error::Error;
};

// The device ran out of memory: a smaller batch may still fit (document_batch.h halves it).
class DeviceOutOfMemory : public DeviceFailure {
public:
    using DeviceFailure::DeviceFailure;
};

// A search step's scores came out NaN or infinite (the model's activations overflowed the
// precision they ran in): a GPU run in fp16 moves to bf16 and runs again.
class NonFiniteScores : public Error {
public:
    using Error::Error;
};

// Argument check used at the top of every op: throws with the message when cond is false.
inline void check(bool cond, const std::string& message) {
    if (!cond) throw Error(message);
}

}  // namespace precis
