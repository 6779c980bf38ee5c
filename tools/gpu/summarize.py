#!/usr/bin/env python3
"""Writes summary.md in a gpu-report folder (run.sh): every number of the run in tables, from
the files the steps left (gtest XML, precis-bench JSON, hf.json, exit codes). Run after each
phase, so a run cut short still brings its summary back."""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

R = sys.argv[1]
out = []
w = out.append

def read(p, default=""):
    try:
        return open(p).read().strip()
    except OSError:
        return default

w("# GPU report\n")
w("Total time: %s s. Files: facts/, tests/, sanitizer/, bench/, hf/, run.log.\n" % read(R + "/elapsed_s", "?"))
w("## Machine\n")
w("```\n%s\n%s\n%s\n%s\n```\n" % (read(R + "/facts/gpu.csv"), read(R + "/facts/python.txt"),
                                  read(R + "/facts/nvcc.txt").splitlines()[-1] if read(R + "/facts/nvcc.txt") else "nvcc: none",
                                  read(R + "/facts/BUILD-INFO.txt")))
if read(R + "/facts/MISSING.txt"):
    w("Not in the bundle (did not build): %s\n" % read(R + "/facts/MISSING.txt").replace("\n", ", "))

w("## Tests\n")
w("| binary | rc | tests | failures | skipped | failed tests |\n|---|---|---|---|---|---|")
for log in sorted(glob.glob(R + "/tests/*.log")):
    n = os.path.basename(log)[:-4]
    rc = read(R + "/tests/%s.rc" % n, "not run")
    tests = fails = skips = "?"
    failed = []
    try:
        root = ET.parse(R + "/tests/%s.xml" % n).getroot()
        tests, fails = root.get("tests"), int(root.get("failures", 0)) + int(root.get("errors", 0))
        skips = root.get("skipped", root.get("disabled", "?"))
        for case in root.iter("testcase"):
            if case.find("failure") is not None:
                failed.append("%s.%s" % (case.get("classname"), case.get("name")))
            if case.find("skipped") is not None or case.get("result") == "skipped":
                pass
        skips = sum(1 for c in root.iter("testcase") if c.find("skipped") is not None or c.get("result") == "skipped")
    except Exception:
        pass
    w("| %s | %s%s | %s | %s | %s | %s |" % (n, rc, " (timeout)" if rc == "124" else "", tests, fails, skips,
                                            ", ".join(failed[:12]) + (" ..." if len(failed) > 12 else "")))
w("")

w("## compute-sanitizer memcheck\n")
if os.path.exists(R + "/sanitizer/NOT-FOUND"):
    w("compute-sanitizer not found on the machine.\n")
else:
    w("| binary | rc | summary | filter |\n|---|---|---|---|")
    for rcf in sorted(glob.glob(R + "/sanitizer/*.rc")):
        n = os.path.basename(rcf)[:-3]
        summ = [l for l in read(R + "/sanitizer/%s.log" % n).splitlines() if "ERROR SUMMARY" in l]
        w("| %s | %s | %s | `%s` |" % (n, read(rcf), summ[-1] if summ else "", read(R + "/sanitizer/%s.filter" % n)))
    w("\nrc 0: clean; 99: memcheck found errors; 124: timed out.\n")

w("## precis-bench (random base-shape weights; block 128, sparsity factor 4; beam = 5 beams)\n")
def num(j, k, fmt):
    v = j.get(k)
    return fmt % v if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"
w("Encoder s: wall clock, median of the repetitions. Attention s: its self-attention alone (device time, profiled encodes). Products s: the encoder's matrix products alone "
  "(GPU: device time from the runner's events on extra profiled encodes; CPU: the same shapes timed alone). "
  "GPU peak: the runner's own count of its buffers; sampled: cudaMemGetInfo over the whole device minus "
  "its use at the start. Tokens/s from the first token on.\n")
w("| device | attention | length | rc | encoder s | products s | attention s | encoder device s | greedy tok/s | beam-5 tok/s | first token s | GPU peak MB | GPU peak sampled MB | host peak MB | new tokens | notes |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for rcf in sorted(glob.glob(R + "/bench/*.rc"), key=lambda p: (os.path.basename(p).split("-")[0],
                                                              os.path.basename(p).split("-")[1],
                                                              int(os.path.basename(p).split("-")[-1][:-3]))):
    name = os.path.basename(rcf)[:-3]
    dev, rest = name.split("-", 1)
    sp, length = rest.rsplit("-", 1)
    rc = read(rcf)
    j = {}
    try:
        j = json.load(open(R + "/bench/%s.json" % name))[0]
    except Exception:
        pass
    notes = [j[k] for k in ("encoder_gemm_seconds_note", "peak_gpu_memory_note", "decode_timing_note") if k in j]
    for search, st in (j.get("decode_step_split") or {}).items():
        notes.append("%s step %.3f ms wall, %.3f ms device (layers %.3f)" % (search, st["wall_ms"], st["device_ms"],
                                                                          st["layers_ms"]))
    if j.get("device_failed_during_run"):
        notes.append("THE DEVICE FAILED during the run: the CPU finished it")
    if j and "sparse_path" in j and not j["sparse_path"]:
        notes.append("LSG ran as full attention (input within one block band)")
    if j.get("device"):
        notes.insert(0, "ran on " + j["device"])
    if not j:
        tail = read(R + "/bench/%s.log" % name).splitlines()[-2:]
        notes.append(" / ".join(tail).replace("|", "/")[:200])
    w("| %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        dev, sp, length, rc, " (timeout)" if rc == "124" else "", num(j, "encoder_seconds", "%.4f"),
        num(j, "encoder_gemm_seconds", "%.4f"), num(j, "encoder_attention_seconds", "%.4f"),
        num(j, "encoder_device_seconds", "%.4f"),
        num(j, "greedy_tokens_per_second", "%.1f"), num(j, "beam_tokens_per_second", "%.1f"),
        num(j, "seconds_to_first_token", "%.3f"), num(j, "peak_gpu_memory_mb", "%.0f"),
        num(j, "peak_gpu_memory_sampled_mb", "%.0f"), num(j, "peak_memory_mb", "%.0f"), j.get("new_tokens", "-"),
        "; ".join(notes)))
if read(R + "/bench/NOT-RUN.txt"):
    w("\nNot run (budget spent): %s" % read(R + "/bench/NOT-RUN.txt").replace("\n", ", "))
w("")

for title, path in (("Attention parts (precis-attention-bench, fp16, base shape, one layer)", "/attention/fp16.md"),
                    ("Kernel profile (device time per kernel)", "/profile/kernels.md")):
    if read(R + path):
        w("## %s\n\n%s\n" % (title, read(R + path)))

w("## HuggingFace transformers, same shape (random weights, fp16, sdpa)\n")
try:
    hf = json.load(open(R + "/hf/hf.json"))
    w("Setup: %s\n" % json.dumps(hf.get("setup", {})))
    w("| case | result |\n|---|---|")
    for c in hf.get("cases", []):
        w("| %s | %s |" % (c.get("case"), json.dumps({k: v for k, v in c.items() if k != "case"})))
except Exception as e:
    w("no result (rc %s): %s\n\n```\n%s\n```" % (read(R + "/hf/hf.rc", "?"), e, "\n".join(read(R + "/hf/hf.log").splitlines()[-15:])))
w("")
open(R + "/summary.md", "w").write("\n".join(out) + "\n")
