#!/bin/bash
# A/B: THP madvise (as shipped) vs never (4 KB pages), precis fp32 auto, alternated
cd "${REPO:-$PWD}"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1 OMP_NUM_THREADS=2 XDG_CACHE_HOME=build-ct2/xdg
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
B=${B:-1}; PAIRS=${PAIRS:-3}; BIN=${BIN:-./build/bin/precis}
for p in $(seq $PAIRS); do
  for mode in madvise never; do
    echo $mode > /sys/kernel/mm/transparent_hugepage/enabled
    sleep 6
    $BIN bench --docs build-ct2/docs-32-128-1024.jsonl --model build-ct2/bart-base-rand --attention full --compute-type fp32 --beams $B --new-tokens ${NEW:-64} --batch-size ${BS:-auto} --json > /tmp/ab.json 2>/dev/null
    python3 -c "
import json,hashlib; d=json.load(open('/tmp/ab.json'))
print('$mode', 'beams', d['beams'], 'seconds %.3f encode %.3f batch %s peak %.0f md5 %s' % (d['seconds'], d['encode_seconds'], d['batch_size'], d['peak_memory_mb'], hashlib.md5(json.dumps(d['ids']).encode()).hexdigest()[:8]))"
  done
done
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
