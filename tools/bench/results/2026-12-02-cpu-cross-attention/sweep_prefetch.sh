#!/bin/bash
# attend_float_zmm with other prefetch distances (key rows / value rows ahead; 0 0: no
# software prefetch), each built with the engine's own flags into attend_bench in place of
# the library's copy; prints attend_bench's table per setting.
# usage (from the checkout's root, after building build/): sweep_prefetch.sh "32 16" "0 0" ...
set -euo pipefail
HERE=$(dirname "$0")
LIBS="-Wl,--start-group build/engine/libprecis_engine.a -Wl,--end-group -lpcre2-8 -lopenblas -ldnnl -lsentencepiece -fopenmp"
for setting in "$@"; do
  set -- $setting
  src=/tmp/attend_float_zmm_$1_$2.cpp
  sed -e "s/kKeyRowsAhead = 32;/kKeyRowsAhead = $1;/" -e "s/kValueRowsAhead = 16;/kValueRowsAhead = $2;/" \
      engine/model/attend_float_zmm.cpp > "$src"
  if [ "$1" = 0 ]; then sed -i '/_mm_prefetch/d' "$src"; fi
  g++ -O3 -march=x86-64-v3 -fno-math-errno -std=c++20 -I. -c "$src" -o "${src%.cpp}.o" 2>/dev/null
  g++ -O2 -std=c++20 -march=native -I. "$HERE/attend_bench.cpp" "${src%.cpp}.o" $LIBS -o /tmp/attend_bench_$1_$2
  echo "== prefetch $1 key rows, $2 value rows ahead"
  /tmp/attend_bench_$1_$2
done
