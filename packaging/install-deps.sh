#!/usr/bin/env bash
# Installs the Debian 12 packages Precis needs to build, test and run. Idempotent:
# packages already present are skipped, so a machine that has them needs no network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  # lld links the test executables faster than GNU ld (CMakeLists.txt uses it when present).
  lld
  qt6-base-dev qt6-svg-dev libpoppler-qt6-dev
  libsqlite3-dev libicu-dev libsentencepiece-dev sentencepiece libopenblas-dev libpcre2-dev libdnnl-dev
  # oneDNN's CMake package looks for OpenCL; libdnnl-dev only recommends it, and
  # --no-install-recommends below would leave a fresh machine unable to configure.
  ocl-icd-opencl-dev
  nlohmann-json3-dev libgtest-dev
  xvfb xauth libgl-dev
  qpdf
  dpkg-dev file desktop-file-utils appstream groff-base
  # The fuzz smoke of packaging/run-tests.sh (tools/fuzz.sh): clang, its OpenMP, and
  # libclang-rt-14-dev, which holds the libFuzzer runtime that -fsanitize=fuzzer links.
  clang libclang-rt-14-dev libomp-14-dev
  # The cluster tests start a real one-node Slurm (tests/support/slurm_cluster.h): its
  # controller, node daemon, client commands (sbatch, squeue, ...) and munge.
  slurmctld slurmd slurm-client munge
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "precis: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
