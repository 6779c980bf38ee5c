#pragma once
#include "app/cli/arguments.h"

namespace precis::cli {

// precis bench --merge-summaries N [--shards K]: times `precis library merge` of K shard
// libraries holding N summaries in all (one document each), and its memory.
int bench_merge(const Arguments& args);

}  // namespace precis::cli
