#!/bin/bash
# alternated pairs: old (432e40f) then new (working tree), same model, docs, settings
OLD=/tmp/base/build/bin/precis; NEW=/work/main/build/bin/precis
for row in "fp32 1" "fp32 4" "int8 1" "int8 4"; do
  set -- $row
  for pair in 1 2 3; do
    for side in old new; do
      bin=$OLD; [ $side = new ] && bin=$NEW
      sleep 3
      out=$($bin bench --docs /tmp/docs32.jsonl --model /tmp/bartbase --compute-type $1 --beams $2 --new-tokens 64 --batch-size auto --json 2>/dev/null | tail -1)
      echo "$1 beams$2 pair$pair $side $(echo "$out" | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); import hashlib; print(round(j["seconds"],3), j["batch_size"], round(j["peak_memory_mb"]), hashlib.md5(json.dumps(j["ids"]).encode()).hexdigest()[:8])')"
    done
  done
done
