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

def json_lines(p):
    """The JSON objects of a one-per-line file; a line cut short by a timeout is skipped."""
    for line in read(p).splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue

w("# GPU report\n")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict import verdict  # noqa: E402  (beside this script)
w("**%s**\n" % verdict(R)[1])
w("Total time: %s s. Files: facts/, tests/, sanitizer/, bench/, hf/, docs/, run.log.\n" % read(R + "/elapsed_s", "?"))
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

w("## compute-sanitizer\n")
if os.path.exists(R + "/sanitizer/NOT-FOUND"):
    w("compute-sanitizer not found on the machine.\n")
else:
    w("| tool | binary | rc | summary | filter |\n|---|---|---|---|---|")
    for rcf in sorted(glob.glob(R + "/sanitizer/*.rc")):
        n = os.path.basename(rcf)[:-3]
        tool, binary = n.split("-", 1) if "-" in n else ("memcheck", n)
        summ = [l for l in read(R + "/sanitizer/%s.log" % n).splitlines() if "SUMMARY" in l]
        w("| %s | %s | %s | %s | `%s` |" % (tool, binary, read(rcf), summ[-1] if summ else "",
                                          read(R + "/sanitizer/%s.filter" % n)))
    not_run = [l.split()[0] for l in read(R + "/sanitizer/ORDER.txt").splitlines() if l.endswith("not run (budget)")]
    w("\nrc 0: clean; 99: the tool found errors; 124: timed out (not covered).%s\n" % (
        " Not run this call (budget; the next call starts with them): " + ", ".join(not_run) if not_run else ""))

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

def many_documents():
    """The docs phase (run.sh): precis-bench --docs and hf_many_docs.py, one table."""
    D = R + "/docs"
    if not os.path.isdir(D) or not os.listdir(D):
        return

    def load(p):
        try:
            return json.load(open(p))
        except Exception:
            return None
    settings = load(D + "/settings.json") or {}
    docs_info = load(D + "/documents.json") or {}
    model_info = load(D + "/model.json") or {}
    n_all = int(docs_info.get("documents") or settings.get("documents") or 0)
    w("## Many documents (precis-bench --docs, HuggingFace generate)\n")
    w("%s documents of %s-%s tokens (mean %s; make_docs.py, Random(%s)), beam %s, exactly %s new tokens each, %s; "
      "Precis: `%s`. Model: %s.\n" % (
          n_all or "?", settings.get("min_length", "?"), settings.get("max_length", "?"),
          "%.0f" % docs_info["mean_length"] if "mean_length" in docs_info else "?", docs_info.get("seed", "?"),
          settings.get("beams", "?"), settings.get("new_tokens", "?"), settings.get("device", "?"),
          settings.get("attention", "?"),
          ("a random bart-%s-shaped checkpoint (%s parameters, %s positions, seed %s; hf_many_docs.py --make-model), "
           "the same file on both sides" % (model_info.get("shape"), model_info.get("parameters"), model_info.get("positions"),
                                            model_info.get("seed"))
           if model_info else "PRECIS_GPU_DOCS_MODEL or not made (see docs/model.log)")))
    rows = []  # (system, batch label, json or None, name, notes)

    def precis_row(name, label):
        j = load(D + "/%s.json" % name)
        rc = read(D + "/%s.rc" % name, "")
        notes = []
        if j is None:
            if not rc:
                return
            tail = read(D + "/%s.log" % name).splitlines()[-2:]
            notes.append("rc %s%s: %s" % (rc, " (timeout)" if rc in ("124", "137") else "", " / ".join(tail).replace("|", "/")[:200]))
        else:
            notes.append("ran on " + str(j.get("device")))
            if j.get("batch_size_asked") == "auto":
                notes.append("auto chose %s (largest step %s documents, %s halvings)" % (j.get("batch_size"), j.get("largest_step"),
                                                                                   j.get("halvings")))
            notes.append("encoder %.2f s of it" % j.get("encode_seconds", 0))
            st = j.get("decode_step_split")
            if st:
                notes.append("%d decoding steps of %.2f ms wall, %.2f ms on the GPU (layers %.2f)" % (
                    st["steps"], st["wall_ms"], st["device_ms"], st["layers_ms"]))
        rows.append(("Precis", label, j, name, notes))

    precis_row("precis-1", "1")
    precis_row("precis-auto", "auto")
    for f in sorted(glob.glob(D + "/precis-*.json")) + sorted(glob.glob(D + "/precis-*.rc")):
        name = os.path.basename(f).rsplit(".", 1)[0]
        if name not in ("precis-1", "precis-auto") and not any(r[3] == name for r in rows):
            precis_row(name, name.split("-", 1)[1])
    hf_setup = {}
    for j in json_lines(D + "/hf.jsonl"):
        if "setup" in j:
            hf_setup = j["setup"]
            continue
        notes = []
        if "error" in j or "skipped" in j:
            notes.append(j.get("error") or "not run: " + j["skipped"])
            rows.append(("HF", str(j.get("batch_size")), None, "hf", notes))
            continue
        notes.append("%s, padding %.1f%% of the batches' tokens" % (j.get("attn_implementation"),
                                                                   100 * j.get("padding_fraction", 0)))
        rows.append(("HF", str(j.get("batch_size")), j, "hf", notes))
    if read(D + "/hf.rc") not in ("", "0"):
        rows.append(("HF", "-", None, "hf", ["hf_many_docs.py rc %s%s: %s" % (
            read(D + "/hf.rc"), " (timeout: the batch size it was in is lost)" if read(D + "/hf.rc") in ("124", "137") else "",
            " / ".join(read(D + "/hf.log").splitlines()[-2:]).replace("|", "/")[:200])]))

    def rate(j):
        return j.get("documents_per_second") if j else None
    serial = next((r[2] for r in rows if r[3] == "precis-1" and r[2]), None)
    auto = next((r[2] for r in rows if r[3] == "precis-auto" and r[2]), None)
    hf_ok = [r for r in rows if r[0] == "HF" and r[2] and rate(r[2])]
    hf_best = max(hf_ok, key=lambda r: rate(r[2])) if hf_ok else None

    def ratio(j, ref):
        return "%.2fx" % (rate(j) / rate(ref)) if j and ref and rate(j) and rate(ref) else "-"
    w("Rates are documents (and generated tokens) per second of wall time over the documents timed, after loading and "
      "a warm-up. A row timed on a subset (the first K documents of the file, whose lengths are drawn like the rest) "
      "gives its rate and, in \"s for all\", the time all %s documents would take at it (scaled, not measured). "
      "GPU peak: Precis's runner's count of its device buffers (weights included); HF's "
      "torch.cuda.max_memory_allocated over the timed batches (weights included). HuggingFace's BART reads every "
      "token with full attention (%s), Precis with `%s`; HF batches are the documents sorted by length, right-padded "
      "with an attention_mask; Precis's batches are the CUDA runner's, sorted by length (continuous batching on the "
      "CPU).\n" % (n_all or "N", hf_setup.get("attn_implementation", "?"), settings.get("attention", "?")))
    w("| system | batch | docs | seconds | s for all | docs/s | new tok/s | GPU peak MB | x Precis one-at-a-time | x HF best | notes |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for system, label, j, name, notes in rows:
        if j:
            k = int(j.get("documents", 0))
            sub = n_all and k < n_all
            if sub:
                sub_mean = docs_info.get("subset_mean_length") if name == "precis-1" else j.get("mean_length")
                notes.insert(0, "timed on the first %d of %d documents%s, scaled" % (
                    k, n_all, " (mean length %.0f)" % sub_mean if sub_mean else ""))
            all_s = n_all / rate(j) if n_all and rate(j) else None
            w("| %s | %s | %d | %.2f | %s%s | %.2f | %.0f | %s | %s | %s | %s |" % (
                system, label, k, j["seconds"], ("%.1f" if all_s >= 10 else "%.3f") % all_s if all_s else "-",
                " (scaled)" if sub else "",
                rate(j), j["new_tokens_per_second"], num(j, "peak_gpu_memory_mb", "%.0f"), ratio(j, serial),
                ratio(j, hf_best[2] if hf_best else None), "; ".join(notes)))
        else:
            w("| %s | %s | - | - | - | - | - | - | - | - | %s |" % (system, label, "; ".join(notes)))
    w("")
    if auto and serial:
        x = rate(auto) / rate(serial)
        w("* Target (a), Precis auto over one document at a time: **%.1fx** (target >= 10x: %s)." % (
            x, "met" if x >= 10 else "NOT met"))
    if auto and hf_best:
        x = rate(auto) / rate(hf_best[2])
        w("* Target (b), Precis auto over HF's best (batch %s, %.2f docs/s): **%.2fx** (target >= 2x: %s)." % (
            hf_best[1], rate(hf_best[2]), x, "met" if x >= 2 else "NOT met"))
    if auto and serial and auto.get("ids") and serial.get("ids"):
        a, s1 = auto["ids"], serial["ids"]
        same = sum(1 for x, y in zip(a, s1) if x == y)
        w("* Precis's ids, one at a time against auto, on the %d documents both ran: %d identical%s." % (
            len(s1), same, "" if same == len(s1) else " (fp16 products over other batch shapes may round apart)"))
    vv = next((r[2] for r in rows if r[3] == "precis-auto-vv" and r[2]), None)
    if auto and vv and rate(auto) and rate(vv):
        same = sum(1 for x, y in zip(auto.get("ids") or [], vv.get("ids") or []) if x == y)
        w("* Cross-attention with whole value rows (PRECIS_CUDA_VECTOR_VALUES=1, auto-vv): **%.3fx** auto's rate "
          "(%.2f against %.2f s); ids identical on %d of %d documents." % (
              rate(vv) / rate(auto), vv["seconds"], auto["seconds"], same, len(auto.get("ids") or [])))
    if hf_setup:
        w("* HF setup: %s" % json.dumps({k: v for k, v in hf_setup.items() if k != "model"}))
    if read(D + "/NOT-RUN.txt"):
        w("* Not run (budget spent): %s" % read(D + "/NOT-RUN.txt").replace("\n", ", "))
    w("")


def whole_book():
    """The book phase (run.sh): a book's windows summarized together, then the final pass."""
    B = R + "/book"
    if not os.path.isdir(B) or not os.listdir(B):
        return
    w("## A whole book in sections (precis-bench --docs over the windows precis cut it into)\n")
    try:
        book = json.load(open(B + "/book.json"))
        w("%s windows, %s tokens in all (the longest %s), final pass over %s tokens; beam 4, 128 new tokens a pass." % (
            book["windows"], book["tokens"], book["longest"], book["final_pass_tokens"]))
    except Exception:
        w("no book.json (see run.log)")
    w("\n| pass | seconds | batch | GPU peak MB | device |\n|---|---|---|---|---|")
    total = 0.0
    complete = True
    for name in ("windows", "final"):
        try:
            j = json.load(open("%s/%s.json" % (B, name)))
            total += float(j["seconds"])
            w("| %s | %.2f | %s | %s | %s |" % (name, j["seconds"], j.get("batch_size"), j.get("peak_gpu_memory_mb"), j.get("device")))
        except Exception:
            complete = False
            w("| %s | no result: %s | | | |" % (name, " / ".join(read("%s/%s.log" % (B, name)).splitlines()[-2:])))
    if complete:
        w("\n* Whole book: **%.2f s** (target under 2 s: %s)." % (total, "met" if total < 2 else "NOT met"))
    w("")


def lsg_reference():
    """The lsgref phase (run.sh): the seed's modeling_lsg_bart.py beside precis-bench, same weights."""
    L = R + "/lsgref"
    if not os.path.isdir(L) or not os.listdir(L):
        return
    w("## Against the LSG reference implementation (modeling_lsg_bart.py, fp16)\n")
    precis = {}
    try:
        for j in json.load(open(L + "/precis.json")):
            precis[int(j["length"])] = j
    except Exception as e:
        w("Precis: no result (rc %s): %s / %s\n" % (read(L + "/precis.rc", "?"), e,
                                                     " / ".join(read(L + "/precis.log").splitlines()[-2:])))
    ref, setup = {}, {}
    for j in json_lines(L + "/reference.jsonl"):
        if "setup" in j:
            setup = j["setup"]
        elif "length" in j:
            ref[int(j["length"])] = j
    if not setup:
        w("Reference: no result (rc %s): %s\n" % (read(L + "/reference.rc", "?"),
                                                  " / ".join(read(L + "/reference.log").splitlines()[-4:]).replace("|", "/")[:600]))
    else:
        w("Reference setup: %s\n" % json.dumps({k: v for k, v in setup.items() if k not in ("missing_keys", "unexpected_keys")}))
        if setup.get("missing_keys") or setup.get("unexpected_keys"):
            w("Weights not loaded: missing %s, unexpected %s\n" % (setup.get("missing_keys"), setup.get("unexpected_keys")))
    w("Same random bart-base checkpoint on both sides (4,096 positions tiled), LSG norm, block 128, sparsity factor 4, "
      "1 global token; beam 4. Encoder: median wall seconds. Beam tokens/s: Precis's from the first token on; the "
      "reference's generate() time less its encoder.\n")
    w("| length | Precis encoder s | reference encoder s | encoder x | Precis beam-4 tok/s | reference beam-4 tok/s | beam x | notes |")
    w("|---|---|---|---|---|---|---|---|")
    for length in sorted(set(precis) | set(ref)):
        p, r = precis.get(length, {}), ref.get(length, {})
        pe, re_ = p.get("encoder_seconds"), r.get("encoder_seconds")
        pb, rb = p.get("beam_tokens_per_second"), r.get("beam_tokens_per_second")
        ex = "%.2fx" % (re_ / pe) if pe and re_ else "-"
        bx = "%.2fx" % (pb / rb) if pb and rb else "-"
        notes = [r["error"]] if "error" in r else []
        if p.get("device"):
            notes.append("Precis ran on " + str(p["device"]))
        w("| %d | %s | %s | %s | %s | %s | %s | %s |" % (length, num(p, "encoder_seconds", "%.4f"), num(r, "encoder_seconds", "%.4f"),
                                                      ex, num(p, "beam_tokens_per_second", "%.1f"),
                                                      num(r, "beam_tokens_per_second", "%.1f"), bx, "; ".join(notes)))
        if length >= 16384 and pe and re_ and pb and rb:
            met = re_ / pe >= 3 and pb / rb >= 3
            w("\n* Target at %d: Precis at least 3x the reference on both: encoder %.2fx, beam %.2fx (%s).\n" % (
                length, re_ / pe, pb / rb, "met" if met else "NOT met"))
    w("")


for part in (lsg_reference, many_documents, whole_book):
    try:
        part()
    except Exception as e:  # a broken folder must not cost the rest of the summary
        w("## %s\n\nsummary failed: %r\n" % (part.__name__, e))
open(R + "/summary.md", "w").write("\n".join(out) + "\n")
