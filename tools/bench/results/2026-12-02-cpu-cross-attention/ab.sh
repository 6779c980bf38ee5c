#!/bin/bash
# End to end, one binary built with a temporary switch (AB_OLD=1 runs the code before the
# change: see README.md), the two alternated PAIRS times: every document of DOCS with
# exactly 64 new tokens, fp32, BEAMS beams (4 unless given), 2 threads, glibc tuned as the
# CTranslate2 harness's TUNE=1. Prints one line a run: which, batch, seconds, encode
# seconds, ids md5.
# usage: ab.sh PRECIS MODEL DOCS BATCH PAIRS [BEAMS]
set -euo pipefail
PRECIS=$1 MODEL=$2 DOCS=$3 BATCH=$4 PAIRS=$5 BEAMS=${6:-4}
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
run() {  # $1: old|new
  local out
  if [ "$1" = old ]; then out=$(AB_OLD=1 "$PRECIS" bench --docs "$DOCS" --model "$MODEL" --compute-type fp32 \
      --beams "$BEAMS" --new-tokens 64 --batch-size "$BATCH" --json)
  else out=$("$PRECIS" bench --docs "$DOCS" --model "$MODEL" --compute-type fp32 \
      --beams "$BEAMS" --new-tokens 64 --batch-size "$BATCH" --json); fi
  /usr/bin/python3 -c 'import json, sys, hashlib
r = json.loads(sys.argv[2].strip().splitlines()[-1])
print(sys.argv[1], "batch", r["batch_size"], "seconds %.3f" % r["seconds"],
      "encode %.3f" % r.get("encode_seconds", float("nan")),
      "ids", hashlib.md5(json.dumps(r["ids"]).encode()).hexdigest()[:8])' "$1" "$out"
}
grep -m1 "model name" /proc/cpuinfo; date -u
for i in $(seq "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then run old; run new; else run new; run old; fi
done
