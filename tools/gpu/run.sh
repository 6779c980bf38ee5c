#!/usr/bin/env bash
# The one command of a lent GPU machine (README.md): runs the bundle that bundle.sh built
# and writes a report (./gpu-report when OUT is unset; on the device $OUT/gpu-report holds
# summary.md, run.log and report.tar.gz, the whole folder, since only 8 files come back):
#   facts/       nvidia-smi, driver and CUDA versions, where cuBLAS is, ldd of a binary
#   tests/       each test binary's log and gtest XML
#   sanitizer/   compute-sanitizer memcheck, racecheck and synccheck over the op tests
#   bench/       precis-bench JSON and log per (device, attention, length)
#   hf/          the HuggingFace side by side (hf_side_by_side.py)
#   docs/        many documents: precis-bench --docs and hf_many_docs.py, raw JSON of every run
#   lsgref/      the LSG seed's modeling_lsg_bart.py beside precis-bench (lsg_reference.py)
#   summary.md   every number above in tables: the file to read first; the verdict (verdict.py)
#                is its first line and this script's exit code
# No step may stop the others: no `set -e`, every step under `timeout`, and each phase has
# a time budget so the whole stays within one device call (~6 minutes by default).
#
# Environment (seconds unless named otherwise):
#   PRECIS_GPU_BUNDLE=DIR       the bundle folder; by default this script's folder when it is
#                               the bundle's copy, else build-gpu/carry/bundle.tar.xz (what the
#                               device call carries) unpacked to $TMPDIR/precis-gpu, else
#                               build-gpu/bundle
#   PRECIS_GPU_MATRIX=full|medium|small   how much of the benchmark table (default full;
#                               cells run most important first until the budget is spent)
#   PRECIS_GPU_BUDGET_TESTS=90 PRECIS_GPU_BUDGET_SANITIZER=60 PRECIS_GPU_BUDGET_BENCH=120
#   PRECIS_GPU_BUDGET_CPU=30 PRECIS_GPU_BUDGET_HF=60
#   PRECIS_GPU_TEST_TIMEOUT=60  per test binary;  PRECIS_GPU_CELL_TIMEOUT=60 per bench cell
#   PRECIS_GPU_SANITIZER_TOOLS="memcheck racecheck synccheck"  over every op test binary,
#   PRECIS_GPU_SANITIZER_TIMEOUT=90 per run, PRECIS_GPU_SANITIZER_OFFSET=N the first run
#   (default: moves with the folders under results/), PRECIS_GPU_SANITIZER_FILTER=... a gtest filter
#   PRECIS_GPU_REPEAT=2         precis-bench --repeat;  PRECIS_GPU_NEW_TOKENS=256
#   PRECIS_GPU_CPU_NEW_TOKENS=64  the CPU baseline's tokens (a rate; fewer keeps it short)
#   PRECIS_GPU_SKIP="tests sanitizer bench eager noepi cpu attn hf lsgref book docs"  phases to leave out
#                               (eager: the 4k and 16k norm cells again with PRECIS_CUDA_GRAPHS=0; noepi:
#                               the 16k norm cell with PRECIS_CUDA_EPILOGUES=0)
#   PRECIS_GPU_BUDGET_ATTN=60   precis-attention-bench (PRECIS_GPU_ATTN_LENGTHS=4096,16384)
#   PRECIS_GPU_BUDGET_DOCS=240  the "docs" phase (many documents, Precis vs HF; README.md): cut to
#                               what is left before PRECIS_GPU_DEADLINE=520 (seconds since start);
#                               PRECIS_GPU_DOCS=256 documents, PRECIS_GPU_DOCS_SERIAL=64|all timed
#                               one at a time, PRECIS_GPU_DOCS_{MIN,MAX}_LENGTH=1024/4096,
#                               PRECIS_GPU_DOCS_BEAMS=4, PRECIS_GPU_DOCS_NEW_TOKENS=128,
#                               PRECIS_GPU_DOCS_HF_BATCHES=64,32,8,1, PRECIS_GPU_DOCS_HF_LIMIT=1=16
#                               (HF batch 1 on the first 16), PRECIS_GPU_DOCS_PRECIS_BATCHES="8 32",
#                               PRECIS_GPU_DOCS_TIMEOUT=150 per Precis run, PRECIS_GPU_DOCS_MODEL=DIR,
#                               PRECIS_GPU_DOCS_TRACE=N (device time per kernel, N documents N at a time),
#                               PRECIS_GPU_DOCS_DEVICE=cuda, PRECIS_GPU_DOCS_ATTENTION="--attention ..."
#                               (skip "docs", or "hf-docs" for its HF part only, "docs-vv" for the
#                               auto run again with PRECIS_CUDA_VECTOR_VALUES=1)
#   PRECIS_GPU_BUDGET_BOOK=90   the "book" phase (a 100,000-token book in sections: README.md);
#                               PRECIS_GPU_BOOK_DTYPE=fp16, PRECIS_GPU_BOOK_NEW_TOKENS=128
#   PRECIS_GPU_PROFILE=1        also a per-kernel profile of one short 4k cell (profile/; nsys,
#                               else ncu: PRECIS_GPU_PROFILE_LAUNCHES, PRECIS_GPU_BUDGET_PROFILE)
set -u
START=$(date +%s)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ARCHIVE=${PRECIS_GPU_ARCHIVE:-$HERE/../../build-gpu/carry/bundle.tar.xz}
if [ -n "${PRECIS_GPU_BUNDLE:-}" ]; then
    BUNDLE=$PRECIS_GPU_BUNDLE
elif [ -d "$HERE/bin" ]; then
    BUNDLE=$HERE  # the copy inside the bundle
elif [ -f "$ARCHIVE" ]; then
    # The carried archive (bundle.sh): unpacked outside the repository copy.
    UNPACK=${TMPDIR:-/tmp}/precis-gpu
    rm -rf "$UNPACK" && mkdir -p "$UNPACK"
    if command -v xz >/dev/null; then
        tar xJf "$ARCHIVE" -C "$UNPACK"
    else
        python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' "$ARCHIVE" "$UNPACK"
    fi
    BUNDLE=$UNPACK/bundle
else
    BUNDLE=$(cd "$HERE/../.." && pwd)/build-gpu/bundle
fi
# The device call brings back at most 8 files from $OUT: the report is written in a work
# folder and sent as three files, $OUT/gpu-report/{summary.md,run.log,report.tar.gz}, which
# checkpoint() refreshes after every phase (a run cut short still brings back what it did).
if [ -n "${OUT:-}" ]; then
    RESULT=$OUT/gpu-report
    REPORT=${TMPDIR:-/tmp}/gpu-report
    rm -rf "$REPORT"
else
    RESULT=./gpu-report
    REPORT=./gpu-report
fi
mkdir -p "$RESULT" "$REPORT"/{facts,tests,sanitizer,bench,hf,docs}
REPORT=$(cd "$REPORT" && pwd)
RESULT=$(cd "$RESULT" && pwd)
LOG=$REPORT/run.log
exec > >(tee -a "$LOG") 2>&1

MATRIX=${PRECIS_GPU_MATRIX:-full}
SKIP=" ${PRECIS_GPU_SKIP:-} "
TEST_TIMEOUT=${PRECIS_GPU_TEST_TIMEOUT:-60}
CELL_TIMEOUT=${PRECIS_GPU_CELL_TIMEOUT:-60}
REPEAT=${PRECIS_GPU_REPEAT:-2}
NEW_TOKENS=${PRECIS_GPU_NEW_TOKENS:-256}
CPU_NEW_TOKENS=${PRECIS_GPU_CPU_NEW_TOKENS:-64}

elapsed() { echo $(($(date +%s) - START)); }
say() { echo "[$(elapsed)s] $*"; }
skipped() { [[ "$SKIP" == *" $1 "* ]]; }
# Seconds left of a phase that began at $1 with budget $2 (never below 0).
left() { local l=$(($2 - ($(date +%s) - $1))); [ $l -gt 0 ] && echo $l || echo 0; }
# timeout with the smaller of a step's own limit and what its phase has left.
bounded() { local limit=$1; shift; timeout -k 5 "$limit" "$@"; }
# A helper script: this script's folder's copy, else the bundle's.
py_file() { if [ -f "$HERE/$1" ]; then echo "$HERE/$1"; else echo "$BUNDLE/$1"; fi; }
# The random bart-base checkpoint that the lsgref, book and docs phases load (hf_many_docs.py
# --make-model: seed 5, POSITIONS learned positions): made once, unless
# PRECIS_GPU_DOCS_MODEL names another. Sets MODEL; $1 the positions, $2 a time limit, $3 the
# phase's report folder.
WORK=${TMPDIR:-/tmp}/precis-docs
shared_model() {
    MODEL=${PRECIS_GPU_DOCS_MODEL:-$WORK/model}
    [ -n "${PRECIS_GPU_DOCS_MODEL:-}" ] && return 0
    local made
    made=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_position_embeddings"])' "$MODEL/config.json" 2>/dev/null)
    if [ "$made" = "$1" ]; then say "model: the one made before ($1 positions)"; return 0; fi
    [ "$2" -gt 10 ] || { say "model: not made (budget spent)"; return 1; }
    mkdir -p "$WORK"
    bounded "$2" python3 "$(py_file hf_many_docs.py)" --make-model "$MODEL" --shape "${PRECIS_GPU_DOCS_SHAPE:-base}" \
        --positions "$1" >"$3/model.json" 2>"$3/model.log"
    say "model: rc $? $(cat "$3/model.json")"
}

checkpoint() {
    echo "$(elapsed)" >"$REPORT/elapsed_s"
    python3 "$HERE/summarize.py" "$REPORT" 2>>"$REPORT/summary.err" || echo "summary.md failed: see summary.err" >"$REPORT/summary.md"
    tar czf "$RESULT/report.tar.gz.part" --exclude='report.tar.gz*' -C "$(dirname "$REPORT")" "$(basename "$REPORT")" 2>/dev/null &&
        mv "$RESULT/report.tar.gz.part" "$RESULT/report.tar.gz"
    if [ "$RESULT" != "$REPORT" ]; then cp "$REPORT/summary.md" "$REPORT/run.log" "$RESULT/" 2>/dev/null; fi
}

say "report: $RESULT (work folder $REPORT)   bundle: $BUNDLE"
[ -d "$BUNDLE/bin" ] || { say "no bundle at $BUNDLE (build it with tools/gpu/bundle.sh and carry build-gpu/carry)"; checkpoint; exit 1; }

# --- libraries --------------------------------------------------------------------------
# The bundle's own libraries, then the machine's CUDA (cuBLAS and the runtime are not in
# the bundle): the toolkit folders, else the pip wheels PyTorch brought.
LIBS=$BUNDLE/lib
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64; do
    [ -d "$d" ] && LIBS="$LIBS:$d"
done
export LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PRECIS_FIXTURES=$BUNDLE/fixtures
BENCH=$BUNDLE/bin/precis-bench
PROBE=$BENCH
[ -x "$PROBE" ] || PROBE=$(ls "$BUNDLE"/bin/* | head -1)
# cuBLAS is opened at run time (kernels/cublas_loader.cpp), so ldd cannot tell: look for it.
cublas_found() {
    ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.13 ' && return 0
    local d
    for d in ${LD_LIBRARY_PATH//:/ }; do ls "$d"/libcublas.so.13* >/dev/null 2>&1 && return 0; done
    return 1
}
if ! cublas_found; then
    for d in $(python3 -c 'import glob, os, site
for p in site.getsitepackages() + [site.getusersitepackages()]:
    for lib in glob.glob(os.path.join(p, "nvidia", "*", "lib")): print(lib)' 2>/dev/null) \
        $(find /usr /opt -maxdepth 6 -name 'libcublas.so.*' -printf '%h\n' 2>/dev/null | sort -u); do
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
        cublas_found && break
    done
fi
cublas_found || say "WARNING: no libcublas.so.13 found: the CUDA backend will say so and run on the CPU"
# An older libstdc++ than the build machine's: the bundle's copy of it.
if "$PROBE" --help 2>&1 | grep -q "version .GLIBCXX\|version .GCC_\|version .CXXABI"; then
    say "the machine's libstdc++ is older than the build's: using bundle/lib-compat"
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$BUNDLE/lib-compat"
fi
say "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

# --- facts ------------------------------------------------------------------------------
say "== facts"
F=$REPORT/facts
{ date -u; uname -a; . /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"; ldd --version | head -1; nproc; free -g; } >"$F/machine.txt" 2>&1
nvidia-smi >"$F/nvidia-smi.txt" 2>&1
nvidia-smi -q 2>&1 | head -80 >"$F/nvidia-smi-q.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,power.limit --format=csv >"$F/gpu.csv" 2>&1
(command -v nvcc || ls /usr/local/cuda/bin/nvcc) >/dev/null 2>&1 && { nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version; } >"$F/nvcc.txt" 2>&1
{ ldconfig -p | grep -E "cublas|cudart|libcuda\.so"; find /usr/local/cuda*/ /usr/lib /opt -maxdepth 6 -name 'libcublas*.so*' 2>/dev/null; } >"$F/cublas-where.txt" 2>&1
ldd "$PROBE" >"$F/ldd-$(basename "$PROBE").txt" 2>&1
cp "$BUNDLE/BUILD-INFO.txt" "$BUNDLE/MISSING.txt" "$F/" 2>/dev/null
python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' >"$F/python.txt" 2>&1
env | grep -E "^(LD_LIBRARY_PATH|CUDA|NVIDIA|PRECIS)" >"$F/env.txt"
head -3 "$F/gpu.csv"
grep -q "not found" "$F/ldd-$(basename "$PROBE").txt" && { say "WARNING: libraries not found:"; grep "not found" "$F/ldd-$(basename "$PROBE").txt"; }

checkpoint

# --- tests ------------------------------------------------------------------------------
# The device tests first: they are what the machine is lent for.
TESTS=()
for f in "$BUNDLE"/bin/kernels_* "$BUNDLE"/bin/*; do
    case "$(basename "$f")" in precis-bench | precis-attention-bench) ;; *) [[ " ${TESTS[*]} " == *" $f "* ]] || TESTS+=("$f") ;; esac
done
skipped tests && touch "$REPORT/tests/SKIPPED"
if ! skipped tests; then
    say "== tests (${#TESTS[@]} binaries, budget ${PRECIS_GPU_BUDGET_TESTS:-90}s)"
    t0=$(date +%s)
    for f in "${TESTS[@]}"; do
        n=$(basename "$f")
        l=$(left "$t0" "${PRECIS_GPU_BUDGET_TESTS:-90}")
        [ "$l" -gt 5 ] || { say "$n: not run (tests budget spent)"; echo "not run: budget" >"$REPORT/tests/$n.log"; continue; }
        [ "$l" -lt "$TEST_TIMEOUT" ] || l=$TEST_TIMEOUT
        bounded "$l" "$f" --gtest_output="xml:$REPORT/tests/$n.xml" >"$REPORT/tests/$n.log" 2>&1
        rc=$?
        echo "$rc" >"$REPORT/tests/$n.rc"
        say "$n: rc $rc$([ $rc = 124 ] && echo ' (timeout)')  $(grep -E '^\[  (PASSED|FAILED)  \]' "$REPORT/tests/$n.log" | tr '\n' ' ')"
    done
fi

checkpoint

# --- compute-sanitizer ------------------------------------------------------------------
# memcheck, racecheck and synccheck over every op test binary, whole (no test subset): the
# (tool, binary) runs that the budget does not reach this call are the first ones of the
# next, since the list starts at an offset that moves with each run committed under
# results/ (PRECIS_GPU_SANITIZER_OFFSET overrides it). sanitizer/ORDER.txt says which ran.
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer \
    /usr/local/cuda-*/bin/compute-sanitizer 2>/dev/null | head -1)
SAN_TOOLS=${PRECIS_GPU_SANITIZER_TOOLS:-memcheck racecheck synccheck}
SAN_TIMEOUT=${PRECIS_GPU_SANITIZER_TIMEOUT:-90}
if ! skipped sanitizer; then
    if [ -z "$SAN" ]; then
        say "no compute-sanitizer on this machine"; echo "not found" >"$REPORT/sanitizer/NOT-FOUND"
    else
        RUNS=()
        for tool in $SAN_TOOLS; do
            for f in "${TESTS[@]}"; do
                n=$(basename "$f")
                # The op tests only (the device query, the factory's and the CPU parity tests
                # launch no kernels: a sanitizer would only say that nothing ran).
                [[ "$n" == kernels_* && "$n" != kernels_device_query_test && "$n" != kernels_backend_factory_test ]] || continue
                RUNS+=("$tool:$f")
            done
        done
        offset=${PRECIS_GPU_SANITIZER_OFFSET:-$(($(ls -d "$HERE"/results/*/ 2>/dev/null | wc -l) * 5))}
        [ ${#RUNS[@]} -gt 0 ] && offset=$((offset % ${#RUNS[@]})) || offset=0
        say "== compute-sanitizer: ${#RUNS[@]} runs ($SAN_TOOLS over the op tests), from run $offset on, budget ${PRECIS_GPU_BUDGET_SANITIZER:-60}s"
        t0=$(date +%s)
        for ((i = 0; i < ${#RUNS[@]}; i++)); do
            r=${RUNS[$(((i + offset) % ${#RUNS[@]}))]}
            tool=${r%%:*} f=${r#*:}
            n=$tool-$(basename "$f")
            l=$(left "$t0" "${PRECIS_GPU_BUDGET_SANITIZER:-60}")
            [ "$l" -gt 5 ] || { echo "$n not run (budget)" >>"$REPORT/sanitizer/ORDER.txt"; continue; }
            [ "$l" -lt "$SAN_TIMEOUT" ] || l=$SAN_TIMEOUT
            extra=()
            [ "$tool" = memcheck ] && extra=(--leak-check full)
            filter=${PRECIS_GPU_SANITIZER_FILTER:-*}
            bounded "$l" "$SAN" --tool "$tool" "${extra[@]}" --error-exitcode 99 "$f" --gtest_filter="$filter" \
                >"$REPORT/sanitizer/$n.log" 2>&1
            rc=$?
            echo "$rc" >"$REPORT/sanitizer/$n.rc"
            echo "$filter" >"$REPORT/sanitizer/$n.filter"
            echo "$n rc $rc" >>"$REPORT/sanitizer/ORDER.txt"
            case $rc in 0) what=clean ;; 99) what="$tool ERRORS" ;; 124 | 137) what="timed out" ;; *) what="test failed" ;; esac
            say "$n: rc $rc ($what) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$REPORT/sanitizer/$n.log" | tail -1)"
        done
    fi
fi

checkpoint

# --- benchmark --------------------------------------------------------------------------
# One precis-bench process per (device, attention, length): a crash, an out-of-memory or a
# timeout costs one cell. Cells run most telling first, so a spent budget drops the least.
cell() {  # device sparsity(full = full attention) length new_tokens timeout
    local dev=$1 sp=$2 len=$3 tokens=$4 limit=$5 name="$1-$2-$3"
    local att=(--attention lsg --sparsity-type "$sp" --block-size 128 --sparsity-factor 4)
    [ "$sp" = full ] && att=(--attention full)
    local dtype=(--dtype fp16)
    [ "$dev" = cpu ] && dtype=()
    # cuda_eager: the GPU with the decoder's step graph off (PRECIS_CUDA_GRAPHS=0), to compare;
    # cuda_noepi: the biases by their own kernel instead of the products' cuBLASLt epilogue.
    local run=(env) device=$dev
    [ "$dev" = cuda_eager ] && run=(env PRECIS_CUDA_GRAPHS=0) && device=cuda
    [ "$dev" = cuda_noepi ] && run=(env PRECIS_CUDA_EPILOGUES=0) && device=cuda
    bounded "$limit" "${run[@]}" "$BENCH" --shape base --device "$device" "${dtype[@]}" --compute-type fp32 --lengths "$len" \
        "${att[@]}" --new-tokens "$tokens" --beams 5 --repeat "$REPEAT" --json \
        >"$REPORT/bench/$name.json" 2>"$REPORT/bench/$name.log"
    local rc=$?
    echo "$rc" >"$REPORT/bench/$name.rc"
    say "bench $name: rc $rc$([ $rc = 124 ] && echo ' (timeout)') $(python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))[0]
    print("encoder %.4f s, greedy %.1f tok/s, beam-5 %.1f tok/s, GPU peak %s MB" % (j["encoder_seconds"],
          j["greedy_tokens_per_second"], j["beam_tokens_per_second"], j.get("peak_gpu_memory_mb")))
except Exception as e:
    print("(no result)")' "$REPORT/bench/$name.json" 2>/dev/null)"
    [ $rc = 0 ] || tail -3 "$REPORT/bench/$name.log"
}
run_cells() {  # phase-budget device new_tokens cells...
    local budget=$1 dev=$2 tokens=$3; shift 3
    local t0 l c
    t0=$(date +%s)
    for c in "$@"; do
        l=$(left "$t0" "$budget")
        if [ "$l" -le 10 ]; then
            say "bench $dev-${c%:*}-${c#*:}: not run (budget spent)"; echo "$dev-${c%:*}-${c#*:}" >>"$REPORT/bench/NOT-RUN.txt"; continue
        fi
        [ "$l" -lt "$CELL_TIMEOUT" ] || l=$CELL_TIMEOUT
        cell "$dev" "${c%:*}" "${c#*:}" "$tokens" "$l"
        checkpoint
    done
}
TYPES_OTHER="pooling stride block_stride bos_pooling lsh"
case "$MATRIX" in
    small) GPU_CELLS="norm:4096 full:4096 norm:16384 lsh:4096"; CPU_CELLS="norm:1024" ;;
    medium) GPU_CELLS="norm:1024 norm:4096 norm:16384 norm:65536 full:1024 full:4096"
        for t in $TYPES_OTHER; do GPU_CELLS="$GPU_CELLS $t:16384"; done
        CPU_CELLS="norm:1024 full:1024" ;;
    *) GPU_CELLS="norm:1024 norm:4096 norm:16384 norm:65536 full:1024 full:4096"
        for len in 16384 4096 65536 1024; do for t in $TYPES_OTHER; do GPU_CELLS="$GPU_CELLS $t:$len"; done; done
        CPU_CELLS="norm:1024 full:1024"
        for t in $TYPES_OTHER; do CPU_CELLS="$CPU_CELLS $t:1024"; done ;;
esac
if [ ! -x "$BENCH" ]; then
    say "no precis-bench in the bundle: no benchmark"
else
    # shellcheck disable=SC2086
    skipped bench || { say "== benchmark, cuda fp16 (budget ${PRECIS_GPU_BUDGET_BENCH:-120}s)"; run_cells "${PRECIS_GPU_BUDGET_BENCH:-120}" cuda "$NEW_TOKENS" $GPU_CELLS; }
    skipped eager || { say "== benchmark, cuda fp16 without the step graph (budget 40s)"; run_cells 40 cuda_eager "$NEW_TOKENS" norm:4096 norm:16384; }
    skipped noepi || { say "== benchmark, cuda fp16 with the biases by their own kernel (budget 25s)"; run_cells 25 cuda_noepi "$NEW_TOKENS" norm:16384; }
    # shellcheck disable=SC2086
    skipped cpu || { say "== benchmark, cpu baseline (budget ${PRECIS_GPU_BUDGET_CPU:-30}s)"; run_cells "${PRECIS_GPU_BUDGET_CPU:-30}" cpu "$CPU_NEW_TOKENS" $CPU_CELLS; }
fi

checkpoint

# --- attention parts ----------------------------------------------------------------------
# precis-attention-bench: one encoder attention layer taken apart (sparse keys, token blocks,
# global rows) per sparsity type, beside full attention, at 4k and 16k (fp16, base shape).
ABENCH=$BUNDLE/bin/precis-attention-bench
if ! skipped attn && [ -x "$ABENCH" ]; then
    say "== attention parts (budget ${PRECIS_GPU_BUDGET_ATTN:-60}s)"
    mkdir -p "$REPORT/attention"
    bounded "${PRECIS_GPU_BUDGET_ATTN:-60}" "$ABENCH" --lengths "${PRECIS_GPU_ATTN_LENGTHS:-4096,16384}" \
        --dtype fp16 >"$REPORT/attention/fp16.md" 2>"$REPORT/attention/fp16.log"
    say "attention parts: rc $?"; cat "$REPORT/attention/fp16.md"
    # The same with the one-stage tensor-core kernel: what the cp.async pipeline buys.
    PRECIS_ATTENTION_PIPELINE=0 bounded "${PRECIS_GPU_BUDGET_ATTN:-60}" "$ABENCH" \
        --lengths "${PRECIS_GPU_ATTN_LENGTHS:-4096,16384}" --dtype fp16 \
        >"$REPORT/attention/fp16-one-stage.md" 2>"$REPORT/attention/fp16-one-stage.log"
    say "attention parts, one-stage kernel: rc $?"; cat "$REPORT/attention/fp16-one-stage.md"
    checkpoint
fi

# --- kernel profile (on request) ----------------------------------------------------------
# PRECIS_GPU_PROFILE=1: per-kernel device time of one short 4k-token norm cell (encoder and 64
# beam-5 steps): Nsight Systems' summary where the machine has nsys, else the bundle's CUPTI
# tracer (kernel_trace.cpp), else Nsight Compute's gpu__time_duration per launch; in profile/.
if [ "${PRECIS_GPU_PROFILE:-0}" = 1 ] && [ -x "$BENCH" ]; then
    NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
    NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
    PROFILE_ARGS=(--shape base --device cuda --dtype fp16 --compute-type fp32 --lengths "${PRECIS_GPU_PROFILE_LENGTH:-4096}"
        --attention lsg --sparsity-type norm --block-size 128 --sparsity-factor 4
        --new-tokens "${PRECIS_GPU_PROFILE_TOKENS:-64}" --beams 5 --repeat 1)
    mkdir -p "$REPORT/profile"
    if [ -n "$NSYS" ]; then
        say "== kernel profile ($NSYS)"
        bounded 90 "$NSYS" profile -o "$REPORT/profile/cell" --force-overwrite true "$BENCH" "${PROFILE_ARGS[@]}" \
            >"$REPORT/profile/run.log" 2>&1
        bounded 60 "$NSYS" stats --report cuda_gpu_kern_sum --format csv "$REPORT/profile/cell.nsys-rep" \
            >"$REPORT/profile/kernels.csv" 2>"$REPORT/profile/stats.log"
        rm -f "$REPORT/profile/"*.nsys-rep "$REPORT/profile/"*.sqlite
        say "profile: $(head -c 1500 "$REPORT/profile/kernels.csv" | tr '\n' ' ')"
    elif [ -f "$BUNDLE/lib/libprecis-kernel-trace.so" ]; then
        say "== kernel profile (CUPTI, libprecis-kernel-trace.so)"
        LD_PRELOAD="$BUNDLE/lib/libprecis-kernel-trace.so" PRECIS_KERNEL_TRACE="$REPORT/profile/kernels.md" \
            bounded "${PRECIS_GPU_BUDGET_PROFILE:-120}" "$BENCH" "${PROFILE_ARGS[@]}" >"$REPORT/profile/run.log" 2>&1
        say "trace: rc $?"; head -3 "$REPORT/profile/run.log"; head -32 "$REPORT/profile/kernels.md"
    elif [ -n "$NCU" ]; then
        say "== kernel profile ($NCU, gpu__time_duration per launch)"
        "$NCU" --version 2>&1 | tail -1
        bounded "${PRECIS_GPU_BUDGET_PROFILE:-120}" "$NCU" --target-processes all --metrics gpu__time_duration.sum --csv --print-units base \
            --launch-count "${PRECIS_GPU_PROFILE_LAUNCHES:-3000}" "$BENCH" "${PROFILE_ARGS[@]}" \
            >"$REPORT/profile/ncu.csv" 2>"$REPORT/profile/ncu.log"
        say "ncu: rc $?"; grep -E '^==(PROF|WARNING|ERROR)==' "$REPORT/profile/ncu.log" "$REPORT/profile/ncu.csv" | head -5
        python3 - "$REPORT/profile/ncu.csv" >"$REPORT/profile/kernels.md" <<'PY'
import csv, re, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 10]
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    sys.exit("no ncu table")
h = rows[head]
k, v = h.index("Kernel Name"), h.index("Metric Value")
tot = {}
for r in rows[head + 1:]:
    name = re.sub(r"\(.*", "", r[k]).replace("precis::cuda::", "")[:90]
    t, n = tot.get(name, (0.0, 0))
    tot[name] = (t + float(r[v].replace(",", "")), n + 1)
all_ns = sum(t for t, _ in tot.values())
print("| kernel | launches | total us | share |\n|---|---:|---:|---:|")
for name, (t, n) in sorted(tot.items(), key=lambda x: -x[1][0])[:40]:
    print(f"| `{name}` | {n} | {t / 1e3:.1f} | {100 * t / all_ns:.1f}% |")
PY
        head -30 "$REPORT/profile/kernels.md"
    else
        say "no nsys or ncu on this machine: no kernel profile"
    fi
    checkpoint
fi

# --- HuggingFace side by side -----------------------------------------------------------
HF=$HERE/hf_side_by_side.py
[ -f "$HF" ] || HF=$BUNDLE/hf_side_by_side.py
if ! skipped hf; then
    say "== HuggingFace side by side (budget ${PRECIS_GPU_BUDGET_HF:-60}s)"
    bounded "${PRECIS_GPU_BUDGET_HF:-60}" python3 "$HF" --budget "$((${PRECIS_GPU_BUDGET_HF:-60} - 10))" \
        >"$REPORT/hf/hf.json" 2>"$REPORT/hf/hf.log"
    echo "$?" >"$REPORT/hf/hf.rc"
    say "hf: rc $(cat "$REPORT/hf/hf.rc")"; tail -5 "$REPORT/hf/hf.log"
fi

# --- the LSG reference implementation -----------------------------------------------------
# The seed's own modeling_lsg_bart.py (transformers 4.36 with trust_remote_code; the carried
# site folder, bundle.sh) beside Precis on the same random bart-base weights (4,096 learned
# positions tiled to 16,384), LSG norm / block 128 / sparsity factor 4 / 1 global token, fp16:
# the encoder and beam-4 generate with exactly LSGREF_TOKENS new tokens at 4k and 16k.
LSGREF_BUDGET=${PRECIS_GPU_BUDGET_LSGREF:-90}
LSGREF_TOKENS=${PRECIS_GPU_LSGREF_NEW_TOKENS:-64}
LSGREF_LENGTHS=${PRECIS_GPU_LSGREF_LENGTHS:-4096,16384}
LSG_SITE_ARCHIVE=${PRECIS_GPU_LSG_SITE_ARCHIVE:-$HERE/../../build-gpu/carry/lsg-site.tar.xz}
if ! skipped lsgref; then
    t0=$(date +%s)
    L=$REPORT/lsgref
    mkdir -p "$L"
    say "== the LSG reference implementation (budget ${LSGREF_BUDGET}s)"
    shared_model 4096 "$(left "$t0" "$LSGREF_BUDGET")" "$L"
    att=(--attention lsg --sparsity-type norm --block-size 128 --sparse-block-size 128 --sparsity-factor 4 --num-global-tokens 1)
    if [ -x "$BENCH" ] && [ -f "$MODEL/config.json" ]; then
        bounded "$(left "$t0" "$LSGREF_BUDGET")" "$BENCH" --model "$MODEL" --max-positions 16384 "${att[@]}" \
            --device cuda --dtype fp16 --compute-type fp32 --lengths "$LSGREF_LENGTHS" --beams 4 \
            --new-tokens "$LSGREF_TOKENS" --repeat 5 --json >"$L/precis.json" 2>"$L/precis.log"
        echo "$?" >"$L/precis.rc"
        say "lsgref precis: rc $(cat "$L/precis.rc")"
    fi
    SITE=${TMPDIR:-/tmp}/precis-lsg-site
    if [ -f "$LSG_SITE_ARCHIVE" ]; then
        rm -rf "$SITE" && mkdir -p "$SITE" && tar xJf "$LSG_SITE_ARCHIVE" -C "$SITE"
    fi
    if [ ! -d "$SITE/lsg_converter" ]; then
        say "lsgref: no reference site (bundle.sh packs build-ct2/hf-site as build-gpu/carry/lsg-site.tar.xz)"
        echo "no site" >"$L/reference.rc"
    elif [ -f "$MODEL/config.json" ]; then
        l=$(left "$t0" "$LSGREF_BUDGET")
        PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH} bounded "$l" python3 "$(py_file lsg_reference.py)" --model "$MODEL" --lengths "$LSGREF_LENGTHS" \
            --beams 4 --new-tokens "$LSGREF_TOKENS" --block-size 128 --sparsity-factor 4 --sparsity-type norm \
            --global-tokens 1 --repeat 5 --dtype fp16 --budget "$((l - 20))" >"$L/reference.jsonl" 2>"$L/reference.log"
        echo "$?" >"$L/reference.rc"
        say "lsgref reference: rc $(cat "$L/reference.rc")"; cut -c1-300 "$L/reference.jsonl"; tail -3 "$L/reference.log"
    fi
    checkpoint
fi

# --- a whole book ------------------------------------------------------------------------
# A 100,000-token book summarized section by section (README.md, "Whole documents"): the
# windows bundle.sh cut it into with precis (book-windows.jsonl, for a model trained at
# 4,096 tokens read 4x extended: up to 16,384 each), all summarized together, then the final
# pass over their joined summaries (windows x new tokens, random ids); fp16, LSG norm, beam
# 4, exactly 128 new tokens a pass, through the docs phase's random bart-base checkpoint
# (4,096 positions, tiled to 16,384 at load). The book's time is the two runs' sum.
BOOK_BUDGET=${PRECIS_GPU_BUDGET_BOOK:-90}
BOOK_WINDOWS=$(if [ -f "$HERE/book-windows.jsonl" ]; then echo "$HERE/book-windows.jsonl"; else echo "$BUNDLE/book-windows.jsonl"; fi)
if ! skipped book; then
    t0=$(date +%s)
    say "== a whole book (budget ${BOOK_BUDGET}s)"
    B=$REPORT/book
    mkdir -p "$B"
    if [ ! -f "$BOOK_WINDOWS" ] || [ ! -x "$BENCH" ]; then
        say "book: not run (no book-windows.jsonl or precis-bench in the bundle)"
    else
        mkdir -p "$WORK"
        shared_model 4096 "$(left "$t0" "$BOOK_BUDGET")" "$B"
        bounded 30 python3 - "$BOOK_WINDOWS" "$WORK/book-final.jsonl" "${PRECIS_GPU_BOOK_NEW_TOKENS:-128}" >"$B/book.json" <<'PY'
import json, random, sys
lengths = [len(json.loads(l)["ids"]) for l in open(sys.argv[1])]
new = int(sys.argv[3])
r = random.Random(5)
final = [0] + [4 + r.randrange(50260) for _ in range(len(lengths) * new)] + [2]
json.dump({"ids": final}, open(sys.argv[2], "w"))
print(json.dumps({"windows": len(lengths), "tokens": sum(lengths), "longest": max(lengths), "final_pass_tokens": len(final)}))
PY
        say "book: $(cat "$B/book.json")"
        for pass in windows final; do
            f=$BOOK_WINDOWS; [ $pass = final ] && f=$WORK/book-final.jsonl
            l=$(left "$t0" "$BOOK_BUDGET")
            [ "$l" -gt 5 ] || { say "book $pass: not run (budget spent)"; continue; }
            bounded "$l" "$BENCH" --docs "$f" --model "$MODEL" --max-positions 16384 --attention lsg --sparsity-type norm \
                --block-size 128 --sparsity-factor 2 --compute-type fp32 --device cuda --dtype "${PRECIS_GPU_BOOK_DTYPE:-fp16}" \
                --beams 4 --new-tokens "${PRECIS_GPU_BOOK_NEW_TOKENS:-128}" --batch-size auto --json >"$B/$pass.json" 2>"$B/$pass.log"
            say "book $pass: rc $? $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%.2f s, batch %s, GPU peak %s MB" % (j["seconds"], j["batch_size"], j.get("peak_gpu_memory_mb")))' "$B/$pass.json" 2>/dev/null)"
            checkpoint
        done
    fi
    say "whole book: $(($(date +%s) - t0))s"
    checkpoint
fi

# --- many documents ----------------------------------------------------------------------
# The throughput yardstick (README.md, "docs"): NDOCS documents of 1,024-4,096 tokens
# (make_docs.py, Random(11)), LSG norm / block 128 / sparsity factor 4, beam 4, exactly 128
# new tokens, fp16, through one random bart-base checkpoint that both sides load
# (hf_many_docs.py --make-model): Precis with --batch-size auto over all documents, Precis one
# document at a time over the first DOCS_SERIAL of them (a rate, scaled in the table), and
# HuggingFace generate() at each batch size (SDPA, full attention; batch 1 on a subset too).
# Its budget is also cut to what is left before PRECIS_GPU_DEADLINE (seconds since the start),
# so the whole script stays within one device call whatever the phases before it took.
DOCS_BUDGET=${PRECIS_GPU_BUDGET_DOCS:-240}
DEADLINE=${PRECIS_GPU_DEADLINE:-520}
NDOCS=${PRECIS_GPU_DOCS:-256}
DOCS_SERIAL=${PRECIS_GPU_DOCS_SERIAL:-64}
DOCS_MIN=${PRECIS_GPU_DOCS_MIN_LENGTH:-1024}
DOCS_MAX=${PRECIS_GPU_DOCS_MAX_LENGTH:-4096}
DOCS_BEAMS=${PRECIS_GPU_DOCS_BEAMS:-4}
DOCS_TOKENS=${PRECIS_GPU_DOCS_NEW_TOKENS:-128}
DOCS_DEVICE=${PRECIS_GPU_DOCS_DEVICE:-cuda}
DOCS_ATTENTION=${PRECIS_GPU_DOCS_ATTENTION:---attention lsg --sparsity-type norm --block-size 128 --sparsity-factor 4}
DOCS_HF_BATCHES=${PRECIS_GPU_DOCS_HF_BATCHES:-64,32,8,1}
DOCS_HF_LIMIT=${PRECIS_GPU_DOCS_HF_LIMIT-1=16}  # empty: every batch size over all documents
DOCS_STEP_TIMEOUT=${PRECIS_GPU_DOCS_TIMEOUT:-150}
if ! skipped docs; then
    t0=$(date +%s)
    to_deadline=$((DEADLINE - $(elapsed)))
    [ "$to_deadline" -lt "$DOCS_BUDGET" ] && DOCS_BUDGET=$to_deadline
    say "== many documents ($NDOCS documents of $DOCS_MIN-$DOCS_MAX tokens, beam $DOCS_BEAMS, $DOCS_TOKENS new tokens; budget ${DOCS_BUDGET}s)"
    D=$REPORT/docs
    mkdir -p "$D" "$WORK"
    [ "$DOCS_SERIAL" = all ] && DOCS_SERIAL=$NDOCS
    [ "$DOCS_SERIAL" -gt "$NDOCS" ] && DOCS_SERIAL=$NDOCS
    # The step's limit: the smaller of its own and what the phase has left (0: not run).
    docs_limit() { local l; l=$(left "$t0" "$DOCS_BUDGET"); [ "$l" -lt "${1:-$DOCS_STEP_TIMEOUT}" ] || l=${1:-$DOCS_STEP_TIMEOUT}; [ "$l" -gt 10 ] && echo "$l" || echo 0; }
    bounded 30 python3 - "$D/settings.json" "$NDOCS" "$DOCS_SERIAL" "$DOCS_MIN" "$DOCS_MAX" "$DOCS_BEAMS" "$DOCS_TOKENS" "$DOCS_DEVICE" \
        "$DOCS_ATTENTION" "$DOCS_HF_BATCHES" "$DOCS_HF_LIMIT" "$DOCS_BUDGET" <<'PY'
import json, sys
k = ["documents", "serial_documents", "min_length", "max_length", "beams", "new_tokens", "device", "attention",
     "hf_batch_sizes", "hf_limit", "budget_s"]
json.dump(dict(zip(k, sys.argv[2:])), open(sys.argv[1], "w"), indent=1)
PY
    # 1. The checkpoint (unless PRECIS_GPU_DOCS_MODEL names one) and the documents.
    positions=$DOCS_MAX; [ "$positions" -lt 1024 ] && positions=1024
    shared_model "$positions" "$(docs_limit 120)" "$D"
    bounded 120 python3 "$(py_file make_docs.py)" --out "$WORK/docs.jsonl" --count "$NDOCS" --min-length "$DOCS_MIN" \
        --max-length "$DOCS_MAX" --model "$MODEL" --subset "$DOCS_SERIAL" >"$D/documents.json" 2>"$D/documents.log"
    say "docs file: rc $? $(cat "$D/documents.json")"
    head -n "$DOCS_SERIAL" "$WORK/docs.jsonl" >"$WORK/docs-serial.jsonl"
    checkpoint
    # 2. Precis: auto over every document, then one at a time over the first DOCS_SERIAL, then
    # any fixed batch sizes asked for (PRECIS_GPU_DOCS_PRECIS_BATCHES="8 32").
    docs_precis() {  # name file batch-size
        local l dtype=(--dtype "${PRECIS_GPU_DOCS_DTYPE:-fp16}")
        [ "$DOCS_DEVICE" = cpu ] && dtype=()
        l=$(docs_limit)
        if [ "$l" = 0 ]; then say "docs $1: not run (budget spent)"; echo "$1" >>"$D/NOT-RUN.txt"; return; fi
        # shellcheck disable=SC2086
        bounded "$l" "$BENCH" --docs "$2" --model "$MODEL" --max-positions "$DOCS_MAX" $DOCS_ATTENTION \
            --compute-type "${PRECIS_GPU_DOCS_COMPUTE_TYPE:-fp32}" --device "$DOCS_DEVICE" "${dtype[@]}" \
            --beams "$DOCS_BEAMS" --new-tokens "$DOCS_TOKENS" --batch-size "$3" --json >"$D/$1.json" 2>"$D/$1.log"
        local rc=$?
        echo "$rc" >"$D/$1.rc"
        say "docs $1: rc $rc$([ $rc = 124 ] && echo ' (timeout)') $(python3 -c '
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("%d documents in %.2f s: %.2f documents/s, %.0f new tokens/s, batch %s, GPU peak %s MB, on %s" % (
        j["documents"], j["seconds"], j["documents_per_second"], j["new_tokens_per_second"], j["batch_size"],
        j.get("peak_gpu_memory_mb"), j["device"]))
except Exception:
    print("(no result)")' "$D/$1.json" 2>/dev/null)"
        [ $rc = 0 ] || tail -3 "$D/$1.log"
        checkpoint
    }
    if [ -x "$BENCH" ]; then
        docs_precis precis-auto "$WORK/docs.jsonl" auto
        docs_precis precis-1 "$WORK/docs-serial.jsonl" 1
        # The cross-attention's whole-row value reads (kernels/ops/cross_attention.h), off by
        # default until measured: the same auto run with them on, beside the first.
        skipped docs-vv || PRECIS_CUDA_VECTOR_VALUES=1 docs_precis precis-auto-vv "$WORK/docs.jsonl" auto
    else
        say "no precis-bench in the bundle: no Precis side"
    fi
    # 3. HuggingFace at each batch size (one JSON line each, best candidates first).
    if ! skipped hf-docs; then
        l=$(docs_limit 100000)
        if [ "$l" -gt 0 ]; then
            bounded "$l" python3 "$(py_file hf_many_docs.py)" --model "$MODEL" --docs "$WORK/docs.jsonl" \
                --batch-sizes "$DOCS_HF_BATCHES" --limit "$DOCS_HF_LIMIT" --beams "$DOCS_BEAMS" --new-tokens "$DOCS_TOKENS" \
                --device "$DOCS_DEVICE" --budget "$((l - 15))" >"$D/hf.jsonl" 2>"$D/hf.log"
            echo "$?" >"$D/hf.rc"
            say "docs hf: rc $(cat "$D/hf.rc")"; grep -v '"ids"' "$D/hf.jsonl" | cut -c1-400
        else
            say "docs hf: not run (budget spent)"; echo hf >>"$D/NOT-RUN.txt"
        fi
        checkpoint
    fi
    for b in ${PRECIS_GPU_DOCS_PRECIS_BATCHES:-}; do
        [ -x "$BENCH" ] && docs_precis "precis-$b" "$WORK/docs.jsonl" "$b"
    done
    # PRECIS_GPU_DOCS_TRACE=N: the device time per kernel of N documents run N at a time
    # (the bundle's CUPTI tracer), in docs/trace-kernels.md: where a batched step's time goes;
    # then the same with whole value rows (trace-kernels-vv.md) unless docs-vv is skipped.
    docs_trace() {  # suffix
        local l
        l=$(docs_limit 90)
        [ "$l" -gt 0 ] || { say "docs trace$1: not run (budget spent)"; return; }
        head -n "$PRECIS_GPU_DOCS_TRACE" "$WORK/docs.jsonl" >"$WORK/docs-trace.jsonl"
        # shellcheck disable=SC2086
        LD_PRELOAD="$BUNDLE/lib/libprecis-kernel-trace.so" PRECIS_KERNEL_TRACE="$D/trace-kernels$1.md" \
            bounded "$l" "$BENCH" --docs "$WORK/docs-trace.jsonl" --model "$MODEL" --max-positions "$DOCS_MAX" \
            $DOCS_ATTENTION --compute-type fp32 --device "$DOCS_DEVICE" --dtype fp16 --beams "$DOCS_BEAMS" \
            --new-tokens "$DOCS_TOKENS" --batch-size "$PRECIS_GPU_DOCS_TRACE" --json >"$D/trace$1.json" 2>"$D/trace$1.log"
        say "docs trace$1: rc $?"; head -40 "$D/trace-kernels$1.md"
    }
    if [ -n "${PRECIS_GPU_DOCS_TRACE:-}" ] && [ -f "$BUNDLE/lib/libprecis-kernel-trace.so" ]; then
        docs_trace ""
        skipped docs-vv || PRECIS_CUDA_VECTOR_VALUES=1 docs_trace -vv
    fi
    say "many documents: $(($(date +%s) - t0))s"
    checkpoint
fi

# --- summary ----------------------------------------------------------------------------
say "== summary"
say "done in $(elapsed)s; report in $RESULT: summary.md, run.log, report.tar.gz (all files)"
python3 "$(py_file verdict.py)" "$REPORT"
verdict_rc=$?
checkpoint
exit $verdict_rc
