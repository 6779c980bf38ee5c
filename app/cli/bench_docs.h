#pragma once
// `precis bench --docs DOCS.jsonl`: many documents at once, the many-documents yardstick
// (../shared/bench/ct2/ct2_bench.sh throughput runs it beside CTranslate2's translate_batch).
#include "app/cli/arguments.h"
#include "app/cli/bench_core.h"

namespace precis::cli {

// Every document of DOCS.jsonl ({"ids": [...]} a line, bos first, eos last) generated with
// exactly --new-tokens tokens, --batch-size at a time (a number or auto); prints one JSON
// line: seconds (all documents, after loading), ids (each document's generated ids, start
// token first, in the file's order), peak_memory_mb, batch_size (what ran), device, and on a
// device its peak memory.
int bench_docs(const Arguments& args, const BenchFrontEnd& front);

}  // namespace precis::cli
