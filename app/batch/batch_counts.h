#pragma once
// The one sentence that sums up a batch job, shared by `precis batch` and the batch
// dialog so both always report the same numbers in the same words.
#include <QString>

namespace precis {

struct BatchReport;

// Every file of a job is in exactly one of these, so the parts add up to `total`.
struct BatchCounts {
    int total = 0;
    int done_before = 0, done_now = 0;
    int kept = 0;  // done now from a summary the library already had (BatchReport::kept)
    int failed_before = 0, failed_now = 0;  // failed_before: an earlier run's, not retried

    int done() const { return done_before + done_now + kept; }
    int failed() const { return failed_before + failed_now; }
    int not_reached() const { return total - done() - failed(); }  // left by a cancel
};

BatchCounts batch_counts(const BatchReport& report);

// "6 files: 3 summarized (1 now, 2 before), 2 failed (1 now, 1 before), 1 not reached yet";
// parts that are zero are left out ("4 files: 4 summarized (4 now)"); summaries the library
// already had count as done: "4 files: 4 summarized (1 now, 3 already in the library)".
QString batch_counts_text(const BatchCounts& counts);

}  // namespace precis
