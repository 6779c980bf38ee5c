#!/usr/bin/env python3
"""The device script's verdict (run.sh, README.md "The report"): one line, PASS or FAIL, from
the files a run left in its report folder, and the exit code run.sh ends with.

FAIL when any test binary (the op tests and both fixture-parity tests, so every parity case)
exited non-zero or timed out, or when compute-sanitizer found something (exit 99) or a test
failed under it. A sanitizer run cut by its timeout is not a finding, but it is named as not
covered. A run that ran no test at all cannot PASS either: it proved nothing (unless the
tests were left out on purpose, PRECIS_GPU_SKIP="tests": then it says NOT RUN and exits 0).

    verdict.py REPORT_DIR     prints the line, writes REPORT_DIR/verdict.txt, exits 0 or 1
"""
import glob
import os
import sys

TIMEOUTS = ("124", "137")


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def failed_tests(report, name):
    """The failed test names of one binary, from its gtest XML (empty when unreadable)."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(os.path.join(report, "tests", name + ".xml")).getroot()
    except Exception:
        return []
    return ["%s.%s" % (c.get("classname"), c.get("name")) for c in root.iter("testcase") if c.find("failure") is not None]


def verdict(report):
    """(passed, line, details): details lists every reason, one a line."""
    problems, uncovered = [], []
    ran = 0
    for rcf in sorted(glob.glob(os.path.join(report, "tests", "*.rc"))):
        name = os.path.basename(rcf)[:-3]
        rc = read(rcf)
        ran += 1
        if rc == "0":
            continue
        if rc in TIMEOUTS:
            problems.append("%s timed out" % name)
            continue
        names = failed_tests(report, name)
        problems.append("%s exited %s%s" % (name, rc, (": " + ", ".join(names[:6]) + (" ..." if len(names) > 6 else ""))
                                            if names else ""))
    not_run = [os.path.basename(l)[:-4] for l in glob.glob(os.path.join(report, "tests", "*.log"))
               if read(l).startswith("not run")]
    if not_run:
        uncovered.append("tests not run (budget): " + ", ".join(sorted(not_run)))
    for rcf in sorted(glob.glob(os.path.join(report, "sanitizer", "*.rc"))):
        run = os.path.basename(rcf)[:-3]  # TOOL-BINARY
        rc = read(rcf)
        if rc == "0":
            continue
        if rc in TIMEOUTS:
            uncovered.append("%s timed out under compute-sanitizer" % run)
        elif rc == "99":
            problems.append("compute-sanitizer found errors: %s" % run)
        else:
            problems.append("test failed under compute-sanitizer (exit %s): %s" % (rc, run))
    if ran == 0 and os.path.exists(os.path.join(report, "tests", "SKIPPED")):
        return True, "VERDICT: NOT RUN (the tests were left out: PRECIS_GPU_SKIP)", uncovered
    if ran == 0:
        problems.append("no test binary ran")
    passed = not problems
    line = "VERDICT: %s (%d test binaries%s%s)" % (
        "PASS" if passed else "FAIL", ran, "; " + "; ".join(problems) if problems else "",
        "; not covered: " + "; ".join(uncovered) if uncovered else "")
    return passed, line, problems + uncovered


def main():
    report = sys.argv[1]
    passed, line, _ = verdict(report)
    with open(os.path.join(report, "verdict.txt"), "w") as f:
        f.write(line + "\n")
    print(line)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
