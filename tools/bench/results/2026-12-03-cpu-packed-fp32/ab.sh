#!/bin/bash
# usage: ab.sh BEAMS BATCH PAIRS: precis bench --docs with PRECIS_FP32_PACKED=0 (weights as stored) and
# without it (packed; needs prototype/packed-weights.diff applied), alternated, the order swapped every
# pair; one JSON per run here. Needs the CT2 harness's build-ct2/ (docs and bart-base-rand).
cd "$(git rev-parse --show-toplevel)"
B=$1 S=$2 P=$3
OUTD=tools/bench/results/2026-12-03-cpu-packed-fp32
for i in $(seq 1 $P); do
  for mode in 0 1; do
    [ $((i % 2)) = 0 ] && mode=$((1 - mode))
    tag="b$B-s$S-packed$mode-pair$i"
    GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1 \
    PRECIS_FP32_PACKED=$mode XDG_CACHE_HOME=/tmp/xdg ./build/bin/precis bench --docs build-ct2/docs-32-128-1024.jsonl \
      --model build-ct2/bart-base-rand --attention full --compute-type fp32 --beams $B --new-tokens 64 --batch-size $S --json \
      2>&1 > $OUTD/$tag.json | tail -n 3 >&2  # errors shown, the JSON kept
    python3 -c "
import json;d=json.load(open('$OUTD/$tag.json'));print('$tag', round(d['seconds'],3), 'encode', round(d.get('encode_seconds',0),3), 'peak', round(d['peak_memory_mb']), 'batch', d['batch_size'])"
  done
done
