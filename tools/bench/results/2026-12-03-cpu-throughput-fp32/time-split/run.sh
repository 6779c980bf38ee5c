#!/bin/bash
# usage: run.sh (from anywhere; needs the CT2 harness in build-ct2/ and build/bin/precis).
# CT2 at 16 and Precis at auto, fp32 greedy, with 1 and 64 new tokens, alternated: how the time splits.
OUTD=$(cd "$(dirname "$0")" && pwd)
cd "$(git -C "$OUTD" rev-parse --show-toplevel)"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
W=build-ct2 D=build-ct2/docs-32-128-1024.jsonl
for R in 1 2; do
  for N in 1 64; do
    for sys in ct2 precis; do
      tag=$sys-n$N-r$R
      if [ $sys = ct2 ]; then
        $W/ct2_harness throughput --model $W/bart-base-rand-ct2-float32 --docs $D --compute-type float32 --threads 2 \
          --beam 1 --new-tokens $N --max-batch-size 16 --repeat 1 > $OUTD/$tag.json 2>$OUTD/$tag.err
        echo "$tag $(python3 -c "import json;d=json.loads(open('$OUTD/$tag.json').read().strip().splitlines()[-1]);print(round(d['seconds'],3))")"
      else
        XDG_CACHE_HOME=/tmp/xdg ./build/bin/precis bench --docs $D --model $W/bart-base-rand --attention full --compute-type fp32 \
          --beams 1 --new-tokens $N --batch-size auto --json > $OUTD/$tag.json 2>$OUTD/$tag.err
        echo "$tag $(python3 -c "import json;d=json.load(open('$OUTD/$tag.json'));print(round(d['seconds'],3), 'encode', round(d['encode_seconds'],3))")"
      fi
    done
  done
done
