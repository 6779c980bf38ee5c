#pragma once
// Merges libraries written elsewhere (the shards of a cluster job, a laptop's library)
// into one: `precis library merge OUT IN...`.
//
// What is one record in the result:
//   documents        one per content hash (the first seen keeps its path and title)
//   summaries        one per document and settings: method, model name, model path and
//                    parameters; a document summarized with other settings keeps each
//                    summary, the same settings seen twice (two shards, a merge run twice)
//                    keep the one OUT already has, else the input's newest; a summary
//                    copied brings its sections (its outline) along
//   classifications  one per document, classifier, parameters and label
//   models           one per folder path
//   batch jobs       one per folder and settings (a shard's job names its shard); an item
//                    takes the input's state when that is newer and OUT's is not done
// Every input is checked before OUT is touched (a damaged, truncated, newer-schema or
// foreign file is refused with one sentence naming it), and each input is merged in one
// transaction: OUT is never left half-merged, and merging the same input again changes
// nothing.
#include <QString>
#include <QStringList>

namespace precis {

struct MergeCounts {
    int documents_added = 0, documents_known = 0;
    int summaries_added = 0, summaries_known = 0;
    int classifications_added = 0;
    int models_added = 0;
    int jobs_added = 0;
    int items_added_or_updated = 0;

    MergeCounts& operator+=(const MergeCounts& o);
};

// Throws LibraryError (one sentence naming the file) when `input` cannot be merged:
// missing, not a Precis library, damaged or truncated, or of another schema version.
// Reads only; never changes the file.
void check_mergeable(const QString& input);

// Checks every input, then merges them into `out` (created when missing) one transaction
// each, in order. `out` must not be one of the inputs.
MergeCounts merge_libraries(const QString& out, const QStringList& inputs);

}  // namespace precis
