#!/bin/bash
# usage: run.sh PAIRS: bart-large's shape, fp32 beam 4, CTranslate2 16 at a time against Precis
# auto and 16 at a time, the order swapped every pair (the harness's own commands, documents and
# TUNE=1 tunables, in build-ct2-large/). Needs build-ct2-large/ and build/bin/precis.
OUTD=$(cd "$(dirname "$0")" && pwd)
cd "$(git -C "$OUTD" rev-parse --show-toplevel)"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
export OMP_NUM_THREADS=2
W=build-ct2-large D=build-ct2-large/docs-32-128-1024.jsonl
export XDG_CACHE_HOME=$W/xdg
for P in $(seq 1 "${1:-2}"); do
  order="ct2 precis"; [ $((P % 2)) = 0 ] && order="precis ct2"
  for sys in $order; do
    if [ $sys = ct2 ]; then
      tag=ct2-s16-p$P
      $W/ct2_harness throughput --model $W/bart-base-rand-ct2-float32 --docs $D --compute-type float32 --threads 2 \
        --beam 4 --new-tokens 64 --max-batch-size 16 --repeat 1 > $OUTD/$tag.json 2>/dev/null
      echo "$tag $(python3 -c "import json;d=json.loads(open('$OUTD/$tag.json').read().strip().splitlines()[-1]);print(round(d['seconds'],3))")"
    else
      for bs in auto 16; do
        tag=precis-s$bs-p$P
        ./build/bin/precis bench --docs $D --model $W/bart-base-rand --attention full --compute-type fp32 \
          --beams 4 --new-tokens 64 --batch-size $bs --json > $OUTD/$tag.json
        echo "$tag $(python3 -c "import json;d=json.load(open('$OUTD/$tag.json'));print(round(d['seconds'],3), 'encode', round(d['encode_seconds'],3), 'batch', d['batch_size'])")"
      done
    fi
  done
done
