#!/usr/bin/env bash
# Issue 40's "clear limits": a text of 10 million words (the corpus's Gutenberg books laid
# end to end until 10,000,000 words, 56 MB) summarized section by section, wall time and
# peak memory from /usr/bin/time, the section cache off so that every window is made. The
# model is an argument: the fixtures' 128-token test model (MODEL default) cuts the text into
# 150,000 windows and shows what the document costs apart from the model's own arithmetic.
#
#   MODEL=DIR   default ../shared/fixtures/models/bart-tiny-realvocab (its output is meaningless)
#   PRECIS=bin  default build/bin/precis;  OUT=DIR  where the raw output goes
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PRECIS=${PRECIS:-$ROOT/build/bin/precis}
MODEL=${MODEL:-$ROOT/../shared/fixtures/models/bart-tiny-realvocab}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/gutenberg.jsonl.xz}
OUT=${OUT:-$ROOT/tools/bench/results/$(date -u +%F)-cpu-ten-million-words}
WORK=${WORK:-${TMPDIR:-/tmp}/precis-ten-million}
mkdir -p "$OUT" "$WORK"
TEXT=$WORK/ten-million-words.txt
xz -dc "$CORPUS" | python3 -c '
import json, sys
books = [json.loads(line)["text"] for line in sys.stdin]
words, i, out = 0, 0, open(sys.argv[1], "w")
while words < 10_000_000:
    out.write(books[i % len(books)] + "\n\n")
    words += len(books[i % len(books)].split())
    i += 1
print(f"{words} words, {i} books", file=sys.stderr)
' "$TEXT" 2> "$OUT/text.txt"
ls -l "$TEXT" >> "$OUT/text.txt"
{ echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)"; echo "model: $MODEL"; nproc; } > "$OUT/setup.txt"
PRECIS_SECTION_CACHE=off /usr/bin/time -v "$PRECIS" summarize --model "$MODEL" --long sections "$TEXT" \
    > "$WORK/summary.txt" 2> "$OUT/summarize.err"
echo "rc $?" >> "$OUT/summarize.err"
sha256sum "$WORK/summary.txt" > "$OUT/summary.sha256"
grep -E "summarized all|Elapsed|Maximum resident|^rc" "$OUT/summarize.err"
