#!/usr/bin/env bash
# tools/gpu/run.sh gives one verdict line and exits with it: a fake bundle whose "test
# binaries" are scripts (one passing, one failing, one that a fake compute-sanitizer reports
# a race in), run with the benchmark phases left out. Usage: gpu_run_verdict_test.sh REPO
set -u
REPO=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; [ -f "$T/out.log" ] && tail -30 "$T/out.log"; exit 1; }

mkdir -p "$T/bundle/bin" "$T/bundle/lib" "$T/path"
fake_test() {  # name exit-code
    cat >"$T/bundle/bin/$1" <<SH
#!/usr/bin/env bash
case "\$*" in *--gtest_list_tests*) echo "Suite."; echo "  Case"; exit 0 ;; esac
echo "[==========] 1 test from 1 test suite ran."
[ $2 = 0 ] && echo "[  PASSED  ] 1 test." || echo "[  FAILED  ] 1 test, listed below:"
exit $2
SH
    chmod +x "$T/bundle/bin/$1"
}
# A compute-sanitizer that finds a race in kernels_racy_test under racecheck only.
cat >"$T/path/compute-sanitizer" <<'SH'
#!/usr/bin/env bash
tool=""; bin=""
while [ $# -gt 0 ]; do
    case "$1" in --tool) tool=$2; shift ;; --leak-check | --error-exitcode) shift ;; --*) ;; *) [ -z "$bin" ] && bin=$1 ;; esac
    shift
done
if [[ "$bin" == *racy* && "$tool" == racecheck ]]; then echo "========= RACECHECK SUMMARY: 1 hazard displayed"; exit 99; fi
"$bin" >/dev/null; rc=$?
echo "========= ERROR SUMMARY: 0 errors"; exit $rc
SH
chmod +x "$T/path/compute-sanitizer"

run() {  # rc of run.sh over the fake bundle, in its own folder; output in $T/out.log
    rm -rf "$T/work" && mkdir -p "$T/work"
    (cd "$T/work" && env -u OUT PATH="$T/path:$PATH" PRECIS_GPU_BUNDLE="$T/bundle" PRECIS_GPU_SANITIZER_OFFSET=0 \
        PRECIS_GPU_SKIP="bench eager cpu attn hf lsgref book docs $1" bash "$REPO/tools/gpu/run.sh") >"$T/out.log" 2>&1
}
verdict_line() { grep -h '^VERDICT:' "$T/work/gpu-report/verdict.txt"; }

# 1. Every binary passes and the sanitizers are clean: PASS, exit 0.
fake_test kernels_good_test 0
run "" || fail "exit $? with every test passing"
verdict_line | grep -q '^VERDICT: PASS' || fail "no PASS line: $(verdict_line)"
grep -q "VERDICT: PASS" "$T/work/gpu-report/summary.md" || fail "summary.md lacks the verdict"
# All three tools ran over the op test.
for tool in memcheck racecheck synccheck; do
    [ "$(cat "$T/work/gpu-report/sanitizer/$tool-kernels_good_test.rc" 2>/dev/null)" = 0 ] || fail "$tool did not run clean"
done

# 2. A failing test binary: FAIL naming it, non-zero exit.
fake_test kernels_broken_test 1
run "sanitizer"
rc=$?
[ $rc -ne 0 ] || fail "exit 0 with a failing test binary"
verdict_line | grep -q '^VERDICT: FAIL.*kernels_broken_test exited 1' || fail "the FAIL line does not name the binary: $(verdict_line)"
rm "$T/bundle/bin/kernels_broken_test"

# 3. A sanitizer finding (a race) with every test passing: FAIL, non-zero exit.
fake_test kernels_racy_test 0
run ""
rc=$?
[ $rc -ne 0 ] || fail "exit 0 with a racecheck finding"
verdict_line | grep -q '^VERDICT: FAIL.*racecheck-kernels_racy_test' || fail "the FAIL line does not name the race: $(verdict_line)"

# 4. Tests left out on purpose: no verdict claimed, exit 0.
run "tests sanitizer" || fail "exit $? with the tests left out"
verdict_line | grep -q '^VERDICT: NOT RUN' || fail "expected NOT RUN: $(verdict_line)"
echo "ok: PASS, a failing binary, a sanitizer finding and no tests each give the right verdict and exit code"
