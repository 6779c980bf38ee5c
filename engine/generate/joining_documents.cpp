#include "engine/generate/joining_documents.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace precis {

std::vector<std::pair<int, EncodedRow>> encode_joining(const std::vector<int>& joining, std::deque<int>& waiting,
                                                       const DocumentBatchCallbacks& on, const RunCallbacks& cb) {
    std::vector<std::pair<int, EncodedRow>> encoded;
    std::vector<int> undecided = joining;
    const auto run = [&](const std::vector<int>& jobs) {
        std::vector<EncodedRow> rows = on.encode(jobs);
        if (rows.size() != jobs.size())
            throw std::logic_error("generate_documents: the encoder callback returned " + std::to_string(rows.size()) +
                                   " outputs for " + std::to_string(jobs.size()) + " documents");
        for (size_t i = 0; i < jobs.size(); ++i) encoded.emplace_back(jobs[i], std::move(rows[i]));
    };
    try {
        cb.check_abort();
        // One document: its error is its own. Several: an error names none of them, so each
        // is encoded again alone.
        if (joining.size() == 1) {
            or_fail_alone(joining[0], on, [&] { run(joining); });
            return encoded;
        }
        try {
            run(joining);
            return encoded;
        } catch (const Error& e) {
            if (stops_the_step(e)) throw;
        }
        for (const int job : joining) {
            cb.check_abort();
            if (!or_fail_alone(job, on, [&] { run({job}); }))
                undecided.erase(std::find(undecided.begin(), undecided.end(), job));
        }
        return encoded;
    } catch (...) {  // Cancelled, OutOfMemory, bad_alloc, the device failed
        for (auto it = undecided.rbegin(); it != undecided.rend(); ++it) waiting.push_front(*it);
        throw;
    }
}

}  // namespace precis
