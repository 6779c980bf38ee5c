#!/bin/bash
# usage: run.sh BEAMS PAIRS: Precis fp32, --batch-size auto against 16, alternated, the order
# swapped every pair (the harness's documents, model and TUNE=1 tunables). Needs build-ct2/ and
# build/bin/precis. Output: b$BEAMS-s$S-p$P.json and one console line a run.
OUTD=$(cd "$(dirname "$0")" && pwd)
cd "$(git -C "$OUTD" rev-parse --show-toplevel)"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
export OMP_NUM_THREADS=2 XDG_CACHE_HOME=build-ct2/xdg
B=${1:-4} W=build-ct2 D=build-ct2/docs-32-128-1024.jsonl
for P in $(seq 1 "${2:-3}"); do
  order="auto 16"; [ $((P % 2)) = 0 ] && order="16 auto"
  for bs in $order; do
    tag=b$B-s$bs-p$P
    ./build/bin/precis bench --docs $D --model $W/bart-base-rand --attention full --compute-type fp32 \
      --beams $B --new-tokens 64 --batch-size $bs --json > $OUTD/$tag.json
    echo "$tag $(python3 -c "import json;d=json.load(open('$OUTD/$tag.json'));print(round(d['seconds'],3), 'encode', round(d['encode_seconds'],3), 'batch', d['batch_size'], 'peak', round(d['peak_memory_mb']))")"
  done
done
