#!/usr/bin/env bash
# tools/fuzz.sh TARGET MINUTES: builds the libFuzzer targets (clang, ASan+UBSan) in
# build-fuzz/ if needed and runs TARGET for MINUTES minutes of wall time on one core.
# Targets: safetensors_fuzz, torch_pickle_fuzz, config_fuzz, tokenizer_json_fuzz.
# The corpus lives in build-fuzz/corpus/TARGET, seeded from ../shared/fixtures; crashes
# are written to build-fuzz/crashes/TARGET/. Needs clang and libFuzzer
# (PRECIS_FUZZ=1 bash packaging/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: tools/fuzz.sh TARGET MINUTES" >&2
  exit 2
fi
target=$1
minutes=$2
BUILD=${PRECIS_FUZZ_BUILD_DIR:-build-fuzz}
FIXTURES=${PRECIS_FIXTURES:-../shared/fixtures}

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPRECIS_FUZZ=ON -DPRECIS_WITH_GUI=OFF -DPRECIS_WITH_CUDA=OFF \
    -DPRECIS_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" --target "$target" >/dev/null

corpus="$BUILD/corpus/$target"
crashes="$BUILD/crashes/$target"
mkdir -p "$corpus" "$crashes"
if [ -z "$(ls -A "$corpus")" ]; then  # seed it from the fixtures
  case $target in
    safetensors_fuzz) cp "$FIXTURES"/models/bart-tiny/model.safetensors "$corpus/bart-tiny" ;;
    torch_pickle_fuzz)
      { printf '\0'; cat "$FIXTURES"/models/bart-tiny-bin/pytorch_model.bin; } >"$corpus/bart-tiny-bin"
      python3 - "$FIXTURES"/models/bart-tiny-bin/pytorch_model.bin "$corpus/data-pkl" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith('/data.pkl'))
open(sys.argv[2], 'wb').write(b'\x01' + z.read(name))
PY
      ;;
    config_fuzz)
      for m in "$FIXTURES"/models/*/; do
        n=$(basename "$m")
        cp "$m/config.json" "$corpus/$n-config"
        [ -f "$m/generation_config.json" ] && cp "$m/generation_config.json" "$corpus/$n-generation"
      done ;;
    tokenizer_json_fuzz) cp "$FIXTURES"/tokenizer/bart/tokenizer.json "$corpus/bart" ;;
    *) echo "unknown fuzz target '$target'" >&2; exit 2 ;;
  esac
fi
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec "$BUILD/fuzz/$target" -max_total_time=$((minutes * 60)) -max_len=2097152 -rss_limit_mb=2048 \
  -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus"
