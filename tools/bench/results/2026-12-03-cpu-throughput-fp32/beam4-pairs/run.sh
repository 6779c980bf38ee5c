#!/bin/bash
# usage: run.sh PAIRS: the sitting's fp32 beam-4 batched rows once more, PAIRS times, the order swapped
# every pair: CTranslate2 16 at a time, Precis auto and 16 at a time (the harness's own commands and
# TUNE=1 tunables). Needs the CT2 harness in build-ct2/ and build/bin/precis.
OUTD=$(cd "$(dirname "$0")" && pwd)
cd "$(git -C "$OUTD" rev-parse --show-toplevel)"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
W=build-ct2 D=build-ct2/docs-32-128-1024.jsonl
for P in $(seq 1 "${1:-3}"); do
  order="ct2 precis"; [ $((P % 2)) = 0 ] && order="precis ct2"
  for sys in $order; do
    if [ $sys = ct2 ]; then
      tag=ct2-s16-p$P
      $W/ct2_harness throughput --model $W/bart-base-rand-ct2-float32 --docs $D --compute-type float32 --threads 2 \
        --beam 4 --new-tokens 64 --max-batch-size 16 --repeat 1 > $OUTD/$tag.json 2>$OUTD/$tag.err
      echo "$tag $(python3 -c "import json;d=json.loads(open('$OUTD/$tag.json').read().strip().splitlines()[-1]);print(round(d['seconds'],3))")"
    else
      for bs in auto 16; do
        tag=precis-s$bs-p$P
        XDG_CACHE_HOME=$W/xdg ./build/bin/precis bench --docs $D --model $W/bart-base-rand --attention full --compute-type fp32 \
          --beams 4 --new-tokens 64 --batch-size $bs --json > $OUTD/$tag.json 2>$OUTD/$tag.err
        echo "$tag $(python3 -c "import json;d=json.load(open('$OUTD/$tag.json'));print(round(d['seconds'],3), 'encode', round(d['encode_seconds'],3))")"
      done
    fi
  done
done
