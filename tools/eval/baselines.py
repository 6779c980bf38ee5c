#!/usr/bin/env python3
"""Extractive baselines on one split (test by default) of cnn and wiki_lead: lead-3 and OTS
(Open Text Summarizer, Debian package `ots`), scored with the C++ ROUGE
(app/eval/rouge.cpp via the precis_rouge driver in tools/eval/).

    cmake -S tools/eval -B build-rouge -G Ninja && cmake --build build-rouge
    python3 tools/eval/baselines.py --out build-eval-baselines [--split validation] \
        [--limit 500] [--rouge build-rouge/precis_rouge]

Writes <out>/<dataset>-<system>.jsonl ({"id","reference","candidate"}, one sentence
per line in both texts so ROUGE-Lsum sees sentences) and <out>/rouge.txt.

Systems
  lead3      first three sentences of the article (rule-based splitter,
             tools/train/precis_corpus.py)
  ots-rN     `ots -r N`: N = round(100 x mean summary words / mean article words
             of the *train* split) -> cnn 6, wiki_lead 7 (no test information used)
  ots-r10    `ots -r 10`
References: cnn highlights are already one per line; wiki_lead leads are
sentence-split with the same splitter.  --limit N takes a deterministic subset
(seeded shuffle of the split's ids, seed 20261121) instead of the whole split.
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import precis_corpus as pc  # noqa: E402


def ots(text, ratio):
    r = subprocess.run(["ots", "-r", str(ratio)], input=text.encode("utf-8"), capture_output=True, check=True)
    return r.stdout.decode("utf-8", errors="replace")


def sent_lines(name, text):
    return "\n".join(pc.document_sentences(name, text))


def train_ratio(name, corpus):
    a = s = 0
    for r in pc.iter_records(name, corpus, splits={"train"}):
        a += len(r["article"].split())
        s += len(r["summary"].split())
    return max(1, round(100 * s / a))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    ap.add_argument("--split", choices=["validation", "test"], default="test")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--rouge", default=os.path.join(HERE, "..", "..", "build-rouge", "precis_rouge"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    outputs = []
    for name in ("cnn", "wiki_lead"):
        recs = list(pc.iter_records(name, args.corpus, splits={args.split}))
        if args.limit and len(recs) > args.limit:
            ids = sorted(r["id"] for r in recs)
            random.Random(pc.SEED).shuffle(ids)
            keep = set(ids[:args.limit])
            recs = [r for r in recs if r["id"] in keep]
        ratio = train_ratio(name, args.corpus)
        systems = {"lead3": lambda r: "\n".join(pc.document_sentences(name, r["article"])[:3]),
                   f"ots-r{ratio}": lambda r: sent_lines(name, ots(r["article"], ratio)),
                   "ots-r10": lambda r: sent_lines(name, ots(r["article"], 10))}
        for sys_name, fn in systems.items():
            path = os.path.join(args.out, f"{name}-{sys_name}.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                for r in recs:
                    ref = r["summary"] if name == "cnn" else sent_lines(name, r["summary"])
                    f.write(json.dumps({"id": r["id"], "reference": ref, "candidate": fn(r)}, ensure_ascii=False) + "\n")
            outputs.append((f"{name}/{sys_name}", path))
            print(f"wrote {path} ({len(recs)} examples)", file=sys.stderr)
    if os.path.exists(args.rouge):
        res = subprocess.run([args.rouge, "score"] + [f"{n}={p}" for n, p in outputs], capture_output=True,
                             text=True, check=True).stdout
        with open(os.path.join(args.out, "rouge.txt"), "w") as f:
            f.write(res)
        print(res)
    else:
        print(f"{args.rouge} not built; score with: precis_rouge score NAME=FILE ...", file=sys.stderr)


if __name__ == "__main__":
    main()
