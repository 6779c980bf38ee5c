#!/usr/bin/env bash
# The whole-document benchmarks of the README ("Whole documents"): a 100,000-token book and
# PDFs of 100 and 1,000 pages summarized section by section with `precis summarize --long
# auto`, int8, beam 4, 128 new tokens a pass, 2 threads, by a bart-base-shaped LSG model
# trained at 4,096 tokens (read 4x extended). Wall time and peak memory from /usr/bin/time;
# the raw output of every run goes to OUT (default tools/bench/results/<date>-cpu-long-documents).
#
#   MODEL=DIR   an LSG bart-base with 4,096 positions; made when missing from a plain random
#               bart-base (BASE=DIR, e.g. ct2_bench.sh model's $W/bart-base-rand) with
#               precis convert --max-positions 4096 --block-size 128 --sparsity-factor 2
#   PRECIS=bin  the precis binary (default build/bin/precis)
#   RUNS="book pdf100 pdf1000"  which runs
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PRECIS=${PRECIS:-$ROOT/build/bin/precis}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/gutenberg.jsonl.xz}
OUT=${OUT:-$ROOT/tools/bench/results/$(date -u +%F)-cpu-long-documents}
WORK=${WORK:-${TMPDIR:-/tmp}/precis-long-bench}
MODEL=${MODEL:-$WORK/lsg-base-4096}
RUNS=${RUNS:-book pdf100 pdf1000}
mkdir -p "$OUT" "$WORK"
if [ ! -f "$MODEL/config.json" ]; then
    [ -n "${BASE:-}" ] || { echo "long_document.sh: set MODEL (an LSG bart-base) or BASE (a plain one to convert)" >&2; exit 2; }
    "$PRECIS" convert "$BASE" "$MODEL" --max-positions 4096 --block-size 128 --sparse-block-size 128 --sparsity-factor 2 || exit 1
fi
xz -dc "$CORPUS" | python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if d["title"] == "Autobiography of Benjamin Franklin, Version 3":
        open(sys.argv[1], "w", encoding="utf-8").write(d["text"]); break' "$WORK/book.txt"
python3 "$ROOT/tools/bench/make_long_pdf.py" "$CORPUS" 100 "$WORK/pages-100.pdf" >/dev/null
python3 "$ROOT/tools/bench/make_long_pdf.py" "$CORPUS" 1000 "$WORK/pages-1000.pdf" >/dev/null
{
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo '+uncommitted')"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "model: $MODEL ($(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["d_model"], "wide,", c["encoder_layers"], "+", c["decoder_layers"], "layers,", c["max_position_embeddings"], "positions")' "$MODEL/config.json"))"
} >"$OUT/setup.txt"
run() {  # name file
    # No section cache: every run summarizes every window.
    PRECIS_SECTION_CACHE=off /usr/bin/time -v "$PRECIS" summarize --model "$MODEL" "$2" --long auto --compute-type int8 \
        --beams 4 --max-new-tokens 128 --json >"$OUT/$1.json" 2>"$OUT/$1.err"
    echo "$1: rc $? $(grep -E 'Elapsed|Maximum resident' "$OUT/$1.err" | sed 's/^\s*//' | tr '\n' ' ')" | tee -a "$OUT/runs.txt"
}
for r in $RUNS; do
    case $r in
        book) run book "$WORK/book.txt" ;;
        pdf100) run pdf-100-pages "$WORK/pages-100.pdf" ;;
        pdf1000) run pdf-1000-pages "$WORK/pages-1000.pdf" ;;
    esac
done
python3 - "$OUT" <<'PY' | tee "$OUT/table.md"
import json, os, re, sys
out = sys.argv[1]
print("| run | tokens | sections | combining passes | wall s | peak MB |")
print("|---|---|---|---|---|---|")
for name in ("book", "pdf-100-pages", "pdf-1000-pages"):
    try:
        j = json.load(open(os.path.join(out, name + ".json")))
        err = open(os.path.join(out, name + ".err")).read()
    except OSError:
        continue
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", err)
    secs = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))) if wall else float("nan")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
    print("| %s | %d | %d | %d | %.1f | %.0f |" % (name, j["input_tokens"], len(j["sections"]), j["combining_passes"], secs, peak))
PY
