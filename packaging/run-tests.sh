#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything (CUDA code
# included when the toolkit exists) and runs the whole test suite. GPU tests skip
# cleanly on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
BUILD_DIR="${PRECIS_BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j"$(nproc)"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 900
