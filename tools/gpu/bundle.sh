#!/usr/bin/env bash
# Builds what the lent GPU machine runs and packs it so that it runs there without a
# compiler, Qt, OpenBLAS, sentencepiece, oneDNN, PCRE2 or GoogleTest (README.md):
#   build-gpu/bundle/bin       kernels_* tests, engine_fixture_parity_test, precis-bench,
#                              precis-attention-bench
#   build-gpu/bundle/lib       every shared library they load that the GPU machine lacks
#   build-gpu/bundle/lib-compat libstdc++/libgcc_s of this machine, used by run.sh only
#                              when the GPU machine's own are older than the binaries need
#   build-gpu/bundle/fixtures  the reference fixtures the parity tests read
# Then checks here that the bundle is self-contained and that every test passes with its
# GPU cases skipped, and packs it as build-gpu/carry/bundle.tar.xz, the device call's carry
# (the working tree and the carry travel within 64 MiB; the folder itself is ~120 MiB).
#
# Environment:
#   PRECIS_GPU_BUILD=DIR        build folder (default: <repo>/build-gpu)
#   PRECIS_GPU_CMAKE_ARGS="..." extra configure arguments (e.g. -DPRECIS_WITH_CUDA=OFF)
#   PRECIS_GPU_SASS="90"        compute capabilities to build machine code for (the lent cards')
#   PRECIS_FIXTURES_SRC=DIR     the fixtures (default: <repo>/../shared/fixtures)
#   PRECIS_GPU_EXTRA_TARGETS="a b" more test targets to ship
#   PRECIS_GPU_ALLOW_PARTIAL=1  bundle what built when some target fails (exit 0)
#   PRECIS_GPU_SKIP_TESTS=1     skip running the tests here (the ldd check still runs)
#   JOBS=N                      build parallelism (default: all cores)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${PRECIS_GPU_BUILD:-$ROOT/build-gpu}
BUNDLE=$BUILD/bundle
FIXTURES_SRC=${PRECIS_FIXTURES_SRC:-$ROOT/../shared/fixtures}
JOBS=${JOBS:-$(nproc)}
LIMIT_MIB=60
CARRY=$BUILD/carry  # what the device call carries: bundle.tar.xz alone
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
die() { echo "bundle.sh: $*" >&2; exit 1; }

# Libraries the GPU machine provides itself, by soname prefix. glibc's pieces and the
# compiler runtime are on every Linux; the CUDA driver comes with the GPU, and cuBLAS and
# the CUDA runtime with its CUDA 13 install (run.sh finds them). Everything else is copied.
SYSTEM_LIBS='^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libdl\.so|libpthread|librt\.so|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda\.so|libcublas|libcublasLt|libcudart|libnvidia-)'
CUDA_LIBS='^(libcuda\.so|libcublas|libcublasLt|libcudart|libnvidia-)'

# --- configure and build ----------------------------------------------------------------
echo "== configure $BUILD"
# shellcheck disable=SC2086
# Machine code for the lent cards only (H100 and H200: compute capability 9.0): seven
# architectures would multiply nvcc's time and every test binary's size for nothing there.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRECIS_WITH_GUI=OFF \
    -DPRECIS_BUILD_TESTS=ON -DPRECIS_CUDA_SASS="${PRECIS_GPU_SASS:-90}" ${PRECIS_GPU_CMAKE_ARGS:-} >"$BUILD.configure.log" 2>&1 ||
    { tail -30 "$BUILD.configure.log"; die "configure failed (log: $BUILD.configure.log)"; }

# Every kernels_* test target (one per tests/kernels/**/*_test.cpp), found by asking Ninja,
# so new op tests ship without editing this script.
mapfile -t KERNEL_TESTS < <(ninja -C "$BUILD" -t targets all | sed -n 's/^\(kernels_[A-Za-z0-9_]*\): phony$/\1/p' | sort -u)
TEST_TARGETS=("${KERNEL_TESTS[@]}" engine_fixture_parity_test ${PRECIS_GPU_EXTRA_TARGETS:-})
TARGETS=("${TEST_TARGETS[@]}" precis-bench precis-attention-bench precis-kernel-trace)
echo "== build (${#TARGETS[@]} targets, $JOBS jobs): ${TARGETS[*]}"
# -k 0: keep building the others when one fails, so a broken op test does not hide the rest.
ninja -C "$BUILD" -j "$JOBS" -k 0 "${TARGETS[@]}" >"$BUILD.build.log" 2>&1
build_rc=$?
if [ $build_rc -ne 0 ]; then
    grep -E "error|FAILED" "$BUILD.build.log" | head -40
    echo "bundle.sh: the build failed for some targets (log: $BUILD.build.log)" >&2
fi

# --- collect binaries -------------------------------------------------------------------
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/lib-compat"
missing=()
for t in "${TEST_TARGETS[@]}"; do
    if [ -x "$BUILD/tests/$t" ]; then cp "$BUILD/tests/$t" "$BUNDLE/bin/"; else missing+=("$t"); fi
done
for b in precis-bench precis-attention-bench; do
    if [ -x "$BUILD/bin/$b" ]; then cp "$BUILD/bin/$b" "$BUNDLE/bin/"; else missing+=("$b"); fi
done
# The CUPTI kernel tracer (run.sh's profile on machines without nsys), preloaded, so in lib/.
if [ -f "$BUILD/bin/libprecis-kernel-trace.so" ]; then cp "$BUILD/bin/libprecis-kernel-trace.so" "$BUNDLE/lib/"
else missing+=(precis-kernel-trace); fi
# A stale binary from an earlier build would pass for a fresh one: ship only targets that
# Ninja now calls up to date (their sources, libraries included, all built), and say what is missing.
if [ $build_rc -ne 0 ]; then
    for t in "${TARGETS[@]}"; do
        f="$BUNDLE/bin/$t"
        if [ -e "$f" ] && ! ninja -C "$BUILD" -n "$t" 2>/dev/null | grep -q "no work to do"; then
            rm -f "$f"
            missing+=("$t")
        fi
    done
fi
if [ ${#missing[@]} -gt 0 ]; then
    printf '%s\n' "${missing[@]}" | sort -u >"$BUNDLE/MISSING.txt"
    echo "bundle.sh: not built, not in the bundle: $(tr '\n' ' ' <"$BUNDLE/MISSING.txt")" >&2
    [ "${PRECIS_GPU_ALLOW_PARTIAL:-0}" = 1 ] || die "set PRECIS_GPU_ALLOW_PARTIAL=1 to bundle what built"
fi
ls "$BUNDLE/bin" | grep -q . || die "nothing was built"
# Symbols are of no use on the device and are most of the size.
strip --strip-unneeded "$BUNDLE"/bin/* 2>/dev/null

# --- shared libraries -------------------------------------------------------------------
# ldd gives the whole closure (libraries of libraries too), resolved on this machine.
declare -A seen=()
for f in "$BUNDLE"/bin/*; do
    while read -r name path; do
        [ -n "$path" ] || continue
        [[ "$name" =~ $SYSTEM_LIBS ]] && continue
        seen[$path]=1
    done < <(ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $1, $3}')
done
for path in "${!seen[@]}"; do cp -L "$path" "$BUNDLE/lib/"; done
strip --strip-unneeded "$BUNDLE"/lib/* 2>/dev/null
# The compiler runtime of this machine, for a GPU machine with an older one (run.sh adds
# it only when a binary reports a missing GLIBCXX/GCC version).
for lib in libstdc++.so.6 libgcc_s.so.1; do
    p=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')
    [ -n "$p" ] && cp -L "$p" "$BUNDLE/lib-compat/"
done

# RUNPATH: the binaries find bundle/lib wherever the bundle lands; run.sh also sets
# LD_LIBRARY_PATH, so a missing patchelf costs nothing there.
if ! command -v patchelf >/dev/null; then
    echo "== installing patchelf"
    (apt-get install -y patchelf || sudo -n apt-get install -y patchelf) >/dev/null 2>&1 ||
        echo "bundle.sh: no patchelf; run.sh's LD_LIBRARY_PATH finds the libraries" >&2
fi
if command -v patchelf >/dev/null; then
    for f in "$BUNDLE"/bin/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
    for f in "$BUNDLE"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done
fi

# --- fixtures ---------------------------------------------------------------------------
# The parity tests read every case and model and the tokenizer (through manifest.json), so
# all of it goes: ~30 MB compressed, which fits beside the binaries (checked below).
if [ -d "$FIXTURES_SRC" ]; then
    cp -r "$FIXTURES_SRC" "$BUNDLE/fixtures"
else
    echo "bundle.sh: no fixtures at $FIXTURES_SRC: the parity tests will fail there" >&2
fi

# A book cut into the windows a section-by-section summary reads (run.sh's "book" phase):
# precis (Qt, not in the bundle) cuts it here with the BART tokenizer, for a model trained
# at 4,096 tokens read 4x extended; the device times those windows and the final pass.
# PRECIS_GPU_BOOK: the corpus title (default: the Autobiography of Benjamin Franklin,
# 104,642 tokens); PRECIS_GPU_PRECIS: the precis binary (default: <repo>/build/bin/precis).
PRECIS_BIN=${PRECIS_GPU_PRECIS:-$ROOT/build/bin/precis}
BOOK_TITLE=${PRECIS_GPU_BOOK:-Autobiography of Benjamin Franklin, Version 3}
CORPUS=$ROOT/../shared/corpus/gutenberg.jsonl.xz
if [ -x "$PRECIS_BIN" ] && [ -f "$CORPUS" ]; then
    book_txt=$(mktemp --suffix=.txt)
    xz -dc "$CORPUS" | python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if d["title"] == sys.argv[1]:
        open(sys.argv[2], "w", encoding="utf-8").write(d["text"]); break' "$BOOK_TITLE" "$book_txt"
    if [ -s "$book_txt" ] && QT_QPA_PLATFORM=offscreen "$PRECIS_BIN" tokenize --model "$FIXTURES_SRC/tokenizer/bart" \
        --windows "$book_txt" --max-tokens 16384 >"$BUNDLE/book-windows.jsonl" 2>"$BUILD.book.log"; then
        echo "== book: $(wc -l <"$BUNDLE/book-windows.jsonl") windows of \"$BOOK_TITLE\""
    else
        rm -f "$BUNDLE/book-windows.jsonl"
        echo "bundle.sh: could not cut the book into windows (log: $BUILD.book.log): no book phase" >&2
    fi
    rm -f "$book_txt"
else
    echo "bundle.sh: no $PRECIS_BIN or corpus: no book phase on the device" >&2
fi

# The device script and its python (run.sh prefers the working tree's copies, which travel too).
cp "$ROOT/tools/gpu/run.sh" "$ROOT/tools/gpu/hf_side_by_side.py" "$ROOT/tools/gpu/summarize.py" \
    "$ROOT/tools/gpu/verdict.py" "$ROOT/tools/gpu/lsg_reference.py" \
    "$ROOT/tools/gpu/make_docs.py" "$ROOT/tools/gpu/hf_many_docs.py" "$BUNDLE/"
{
    echo "built: $(date -u +%FT%TZ) from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+uncommitted')"
    echo "build host: $(. /etc/os-release; echo "$PRETTY_NAME"), $(ldd --version | head -1)"
    echo "nvcc: $(nvcc --version 2>/dev/null | tail -1)"
    # The newest glibc / libstdc++ symbol versions the binaries need: the GPU machine's
    # must be at least these (run.sh checks; lib-compat covers libstdc++ only).
    echo "needs: $(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)" \
        "$(objdump -T "$BUNDLE"/bin/* "$BUNDLE"/lib/* 2>/dev/null | grep -o 'GLIBCXX_[0-9.]*' | sort -uV | tail -1)"
} >"$BUNDLE/BUILD-INFO.txt"

# --- checks here ------------------------------------------------------------------------
echo "== self-containment (env -i, LD_LIBRARY_PATH=bundle/lib only)"
# CUDA's libraries are left out on purpose: this machine's stand in for the GPU machine's.
CUDA_DIR=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [ -d "$d" ] && CUDA_DIR="$CUDA_DIR:$d"; done
bad=0
for f in "$BUNDLE"/bin/*; do
    out=$(env -i LD_LIBRARY_PATH="$BUNDLE/lib$CUDA_DIR" ldd "$f" 2>&1)
    if grep -q "not found" <<<"$out"; then echo "NOT FOUND in $(basename "$f"):"; grep "not found" <<<"$out"; bad=1; fi
    if grep -qi "libQt" <<<"$out"; then echo "Qt in $(basename "$f")"; bad=1; fi
    # Every non-system library must resolve inside the bundle, not to this machine's copy.
    while read -r name path; do
        [[ "$name" =~ $SYSTEM_LIBS ]] && continue
        case "$path" in "$BUNDLE"/lib/*) ;; *) echo "$(basename "$f"): $name from $path, not the bundle"; bad=1 ;; esac
    done < <(env -i LD_LIBRARY_PATH="$BUNDLE/lib$CUDA_DIR" ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $1, $3}')
    cuda=$(grep -oE '(libcublas[A-Za-z]*|libcudart)\.so[.0-9]*' <<<"$out" | sort -u | tr '\n' ' ')
    echo "  $(basename "$f"): ok${cuda:+ (from the GPU machine: $cuda)}"
done
[ $bad -eq 0 ] || die "the bundle is not self-contained"

if [ "${PRECIS_GPU_SKIP_TESTS:-0}" != 1 ]; then
    echo "== tests here (GPU cases skip)"
    failed=()
    for f in "$BUNDLE"/bin/*; do
        case "$(basename "$f")" in precis-bench | precis-attention-bench) continue ;; esac
        if env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" LD_LIBRARY_PATH="$BUNDLE/lib$CUDA_DIR" \
            PRECIS_FIXTURES="$BUNDLE/fixtures" timeout 900 "$f" >"$BUILD/$(basename "$f").here.log" 2>&1; then
            echo "  $(basename "$f"): $(grep -E '^\[  PASSED  \]' "$BUILD/$(basename "$f").here.log" | head -1)" \
                "$(grep -cE '^\[  SKIPPED \] [A-Za-z]' "$BUILD/$(basename "$f").here.log") skipped"
        else
            echo "  $(basename "$f"): FAILED (log: $BUILD/$(basename "$f").here.log)"
            failed+=("$(basename "$f")")
        fi
    done
    echo "== precis-bench here (tiny shape, cpu)"
    env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$BUNDLE/lib$CUDA_DIR" "$BUNDLE/bin/precis-bench" --shape tiny \
        --attention lsg --lengths 256 --repeat 1 --new-tokens 4 --beams 5 --compute-type fp32 --device cpu ||
        failed+=(precis-bench)
    [ ${#failed[@]} -eq 0 ] || die "failed here: ${failed[*]}"
fi

echo "== size"
du -sh "$BUNDLE" "$BUNDLE"/{bin,lib,lib-compat,fixtures} 2>/dev/null
echo "bundle: $(du -sm "$BUNDLE" | cut -f1) MiB on disk"
# What travels is the working tree plus the carried paths, 64 MiB in all, counted as they
# lie on disk: the folder (~170 MiB, OpenBLAS and oneDNN are ~35 MiB each) does not fit,
# so the carry is one xz archive (~45 MiB), which run.sh unpacks on the machine.
mkdir -p "$CARRY"
rm -f "$CARRY"/bundle.tar.*
# -9 on one thread: its 64 MiB window spans the test binaries, which repeat the same CUDA
# kernels, ~20% smaller than -6 or a multi-threaded xz (blocks), at ~1.5 minutes here.
tar cf - -C "$BUILD" bundle | xz -9 -T1 >"$CARRY/bundle.tar.xz" || die "xz failed"
# The LSG seed's reference implementation for run.sh's "lsgref" phase: a site folder with
# transformers 4.36.2, huggingface_hub 0.20.3 and lsg_converter (lsg_reference.py says why
# that release), made by make_lsg_site.sh from the pinned commits. Third-party code,
# so it is only carried, never committed; without it the phase says so and times Precis alone.
LSG_SITE=${PRECIS_GPU_LSG_SITE:-$ROOT/build-ct2/hf-site}
rm -f "$CARRY/lsg-site.tar.xz"
if [ -d "$LSG_SITE/lsg_converter/bart" ] && [ -d "$LSG_SITE/transformers" ]; then
    (cd "$LSG_SITE" && tar chf - --exclude='__pycache__' transformers huggingface_hub lsg_converter \
        transformers-*.dist-info huggingface_hub-*.dist-info) | xz -6 -T2 >"$CARRY/lsg-site.tar.xz" || die "packing the LSG reference site failed"
    echo "== LSG reference site: $(mib "$(stat -c %s "$CARRY/lsg-site.tar.xz")") MiB from $LSG_SITE"
else
    echo "bundle.sh: no LSG reference site at $LSG_SITE (PRECIS_GPU_LSG_SITE): the lsgref phase times Precis alone (tools/gpu/make_lsg_site.sh makes it)" >&2
fi
xzb=$(du -cb "$CARRY"/*.tar.xz | tail -1 | cut -f1)
tree=$(git -C "$ROOT" ls-files -co --exclude-standard -z | (cd "$ROOT" && du -cb --files0-from=- 2>/dev/null) | tail -1 | cut -f1)
echo "carry: ${CARRY#$ROOT/} $(mib "$xzb") MiB + working tree $(mib "${tree:-0}") MiB = $(mib $((xzb + ${tree:-0}))) MiB of 64"
# The compressed bundle, the archive that travels, must stay under the limit.
awk -v b="$xzb" -v l=$LIMIT_MIB 'BEGIN {exit !(b / 1048576 < l)}' || die "the compressed bundle is over $LIMIT_MIB MiB"
awk -v b=$((xzb + ${tree:-0})) 'BEGIN {exit !(b / 1048576 < 62)}' || die "the carry and the working tree are over 62 MiB"
echo "device call: carry [\"${CARRY#$ROOT/}\"]   command: bash tools/gpu/run.sh"
