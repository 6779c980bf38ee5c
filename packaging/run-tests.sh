#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (CUDA code
# included when the toolkit exists) and runs the whole test suite. GPU tests skip
# cleanly on machines without a GPU. Then, unless PRECIS_SANITIZERS=0, a second pass
# that fails the run on any finding:
#   - the same suite again, built with clang, AddressSanitizer and
#     UndefinedBehaviorSanitizer (CUDA off), in build-sanitize/;
#   - the libFuzzer targets of tests/fuzz, built in that same tree from the same
#     objects (-DPRECIS_FUZZ=ON), each run for PRECIS_FUZZ_SMOKE_SECONDS (30) from its
#     seed corpus; PRECIS_FUZZ_SMOKE=0 skips only this part.
# One tree for both halves the build time; each part prints its time.
#
# Both trees compile each library's sources eight at a time (-DPRECIS_UNITY_BUILD=ON,
# cmake/unity_build.cmake) and run each test file's tests in one process
# (-DPRECIS_TEST_PROCESS_PER_FILE=ON, tests/CMakeLists.txt): a clean build and a whole run
# is what this script does, and CI gives it two cores. A failing file's output names the
# test that failed; `ctest -R` over a tree configured without the option runs single tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
BUILD_DIR="${PRECIS_BUILD_DIR:-build}"
WHOLE_RUN=(-DPRECIS_UNITY_BUILD=ON -DPRECIS_TEST_PROCESS_PER_FILE=ON)
# GPU code for the oldest card (Turing, 7.5: the kernels' older-card branches) and Hopper
# (9.0: the newest features the sources use) proves that every kernel compiles for both
# sides of each architecture test; the other five of the default list (CMakeLists.txt) add
# only nvcc time on a machine without a GPU. PRECIS_CUDA_SASS overrides it.
start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRECIS_CUDA_SASS="${PRECIS_CUDA_SASS:-75;90}" \
  "${WHOLE_RUN[@]}"
cmake --build "$BUILD_DIR" -j"$(nproc)"
echo "build: $(( $(date +%s) - start )) s"
start=$(date +%s)
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 900
echo "suite: $(( $(date +%s) - start )) s"

if [ "${PRECIS_SANITIZERS:-1}" != 0 ]; then
  SAN_DIR="${PRECIS_SANITIZE_BUILD_DIR:-build-sanitize}"
  start=$(date +%s)
  # Line tables are all a sanitizer report's stack needs; they only shorten the build.
  cmake -S . -B "$SAN_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPRECIS_FUZZ=ON -DPRECIS_WITH_CUDA=OFF "${WHOLE_RUN[@]}" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG"
  cmake --build "$SAN_DIR" -j"$(nproc)"
  echo "sanitizer build (suite and fuzz targets): $(( $(date +%s) - start )) s"
  start=$(date +%s)
  export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export LSAN_OPTIONS="suppressions=$PWD/packaging/sanitizers/lsan.supp:print_suppressions=0"
  # The package test builds a .deb from the normal build; it has nothing to add here.
  ctest --test-dir "$SAN_DIR" --output-on-failure -j"$(nproc)" --timeout 1800 -E packaging_deb_test
  echo "sanitizer suite: $(( $(date +%s) - start )) s"
  if [ "${PRECIS_FUZZ_SMOKE:-1}" != 0 ]; then
    start=$(date +%s)
    PRECIS_FUZZ_BUILD_DIR="$SAN_DIR" bash tools/fuzz.sh --smoke "${PRECIS_FUZZ_SMOKE_SECONDS:-30}"
    echo "fuzz smoke: $(( $(date +%s) - start )) s"
  fi
fi
