#!/bin/bash
# usage: run.sh: bart-large's shape, fp32 greedy one document at a time, Precis then CTranslate2
# (the harness's own commands and TUNE=1 tunables, in build-ct2-large/): the sitting's Precis row
# of this setting ran beside another program for ~20 s, so it is run again here on a quiet machine.
OUTD=$(cd "$(dirname "$0")" && pwd)
cd "$(git -C "$OUTD" rev-parse --show-toplevel)"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1
export OMP_NUM_THREADS=2
W=build-ct2-large D=build-ct2-large/docs-32-128-1024.jsonl
export XDG_CACHE_HOME=$W/xdg
./build/bin/precis bench --docs $D --model $W/bart-base-rand --attention full --compute-type fp32 \
  --beams 1 --new-tokens 64 --batch-size 1 --json > $OUTD/precis-s1.json
echo "precis-s1 $(python3 -c "import json;d=json.load(open('$OUTD/precis-s1.json'));print(round(d['seconds'],3), 'encode', round(d['encode_seconds'],3), 'peak', round(d['peak_memory_mb']))")"
$W/ct2_harness throughput --model $W/bart-base-rand-ct2-float32 --docs $D --compute-type float32 --threads 2 \
  --beam 1 --new-tokens 64 --max-batch-size 1 --repeat 1 > $OUTD/ct2-s1.json 2>/dev/null
echo "ct2-s1 $(python3 -c "import json;d=json.loads(open('$OUTD/ct2-s1.json').read().strip().splitlines()[-1]);print(round(d['seconds'],3))")"
