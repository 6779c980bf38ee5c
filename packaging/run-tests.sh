#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (CUDA code
# included when the toolkit exists) and runs the whole test suite. GPU tests skip
# cleanly on machines without a GPU. Then two more passes, each failing the run on any
# finding:
#   - the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer (CUDA off),
#     in build-sanitize/; PRECIS_SANITIZERS=0 skips it;
#   - every libFuzzer target (tests/fuzz, clang) run for PRECIS_FUZZ_SMOKE_SECONDS (60)
#     from its seed corpus, in build-fuzz/; PRECIS_FUZZ_SMOKE=0 skips it.
# Each pass prints its time; on 2 cores all three take about half an hour together.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
BUILD_DIR="${PRECIS_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$(nproc)"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 900

if [ "${PRECIS_SANITIZERS:-1}" != 0 ]; then
  SAN_DIR="${PRECIS_SANITIZE_BUILD_DIR:-build-sanitize}"
  start=$(date +%s)
  cmake -S . -B "$SAN_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRECIS_SANITIZE=ON -DPRECIS_WITH_CUDA=OFF
  cmake --build "$SAN_DIR" -j"$(nproc)"
  export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export LSAN_OPTIONS="suppressions=$PWD/packaging/sanitizers/lsan.supp:print_suppressions=0"
  # The package test builds a .deb from the normal build; it has nothing to add here.
  ctest --test-dir "$SAN_DIR" --output-on-failure -j"$(nproc)" --timeout 1800 -E packaging_deb_test
  echo "sanitizer build and suite: $(( $(date +%s) - start )) s"
fi

if [ "${PRECIS_FUZZ_SMOKE:-1}" != 0 ]; then
  start=$(date +%s)
  bash tools/fuzz.sh --smoke "${PRECIS_FUZZ_SMOKE_SECONDS:-60}"
  echo "fuzz build and smoke: $(( $(date +%s) - start )) s"
fi
