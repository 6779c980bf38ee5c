#!/bin/bash
# A/B: /tmp/precis-old vs /tmp/precis-new, precis bench --docs, alternated, THP as the system has it
cd "${REPO:-$PWD}"
export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:glibc.malloc.arena_max=1 OMP_NUM_THREADS=2 XDG_CACHE_HOME=build-ct2/xdg
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
B=${B:-1}; PAIRS=${PAIRS:-3}; C=${C:-fp32}
for p in $(seq $PAIRS); do
  for v in ${VERSIONS:-old new}; do
    sleep 6
    /tmp/precis-$v bench --docs build-ct2/docs-32-128-1024.jsonl --model build-ct2/bart-base-rand --attention full --compute-type $C --beams $B --new-tokens ${NEW:-64} --batch-size ${BS:-auto} --json > /tmp/ab.json 2>/dev/null
    python3 -c "
import json,hashlib; d=json.load(open('/tmp/ab.json'))
print('$v', '$C', 'beams', d['beams'], 'seconds %.3f encode %.3f batch %s peak %.0f md5 %s' % (d['seconds'], d['encode_seconds'], d['batch_size'], d['peak_memory_mb'], hashlib.md5(json.dumps(d['ids']).encode()).hexdigest()[:8]))"
  done
done
