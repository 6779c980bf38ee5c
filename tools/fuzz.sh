#!/usr/bin/env bash
# tools/fuzz.sh TARGET MINUTES: builds the libFuzzer targets (clang, ASan+UBSan) in
# build-fuzz/ if needed and runs TARGET for MINUTES minutes of wall time on one core.
# tools/fuzz.sh --smoke SECONDS: runs every target for SECONDS, as many at once as there
# are cores, and fails if any of them found a crash, a hang, a leak or ran out of memory
# (the CI smoke of packaging/run-tests.sh).
#
# Targets (tests/fuzz): safetensors_fuzz, torch_pickle_fuzz, config_fuzz,
# tokenizer_json_fuzz, sentencepiece_fuzz, and in tests/fuzz/app text_decoding_fuzz,
# pdf_ingest_fuzz, library_file_fuzz. The build writes each target's seed corpus from
# ../shared/fixtures into build-fuzz/fuzz/seeds/TARGET (read only here); what the fuzzer
# finds goes to build-fuzz/corpus/TARGET and crashes to build-fuzz/crashes/TARGET/.
# Needs clang and its libFuzzer runtime (packaging/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: tools/fuzz.sh TARGET MINUTES | tools/fuzz.sh --smoke SECONDS" >&2
  exit 2
}
[ $# -eq 2 ] || usage
BUILD=${PRECIS_FUZZ_BUILD_DIR:-build-fuzz}
FIXTURES=${PRECIS_FIXTURES:-$PWD/../shared/fixtures}  # the seed corpora are made from these

if [ ! -f "$BUILD/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPRECIS_FUZZ=ON -DPRECIS_WITH_CUDA=OFF -DPRECIS_BUILD_TESTS=OFF \
    -DPRECIS_FUZZ_FIXTURES="$FIXTURES" "${launcher[@]}" >/dev/null
fi

export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/packaging/sanitizers/lsan.supp:print_suppressions=0"
export QT_QPA_PLATFORM=offscreen

# run TARGET SECONDS: one fuzzing session; libFuzzer exits non-zero on any finding.
# -max_len fits the largest seed (the 2.1 MB tokenizer.json); -timeout turns an input that hangs for 25 s into a finding instead of a silent stall.
run() {
  local target=$1 seconds=$2
  local corpus="$BUILD/corpus/$target" crashes="$BUILD/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  "$BUILD/fuzz/$target" -max_total_time="$seconds" -max_len=4194304 -rss_limit_mb=2048 -timeout=25 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" "$BUILD/fuzz/seeds/$target"
}

if [ "$1" = --smoke ]; then
  seconds=$2
  cmake --build "$BUILD" --target fuzz_targets
  mkdir -p "$BUILD/logs"
  targets=$(cd "$BUILD/fuzz" && ls -- *_fuzz)
  export -f run
  export BUILD
  failed=0
  # One log per target; the summary line says which failed, the log says why.
  printf '%s\n' $targets | xargs -P "$(nproc)" -I{} bash -c \
    'if run {} '"$seconds"' >"$BUILD/logs/{}.log" 2>&1; then echo "fuzz smoke: {} ok";
     else echo "fuzz smoke: {} FAILED (see $BUILD/logs/{}.log)"; tail -n 40 "$BUILD/logs/{}.log"; exit 1; fi' \
    || failed=1
  exit $failed
fi

target=$1
minutes=$2
cmake --build "$BUILD" --target "$target" >/dev/null
run "$target" $((minutes * 60))
