#!/usr/bin/env python3
"""Writes one split of cnn or wiki_lead as JSON Lines for `precis eval`:
{"id", "article", "reference"}, the reference one sentence per line exactly as
baselines.py writes it (cnn highlights as they are; wiki_lead leads split with the
rule-based splitter of tools/train/precis_corpus.py), so that `precis eval` scores the
same texts as the lead-3 and OTS rows of tools/train/README.md.

    python3 tools/eval/prepare_split.py cnn test > build-eval/cnn-test.jsonl
    ./build/bin/precis eval --method extractive --input build-eval/cnn-test.jsonl
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import precis_corpus as pc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=["cnn", "wiki_lead"])
    ap.add_argument("split", choices=["train", "validation", "test"])
    ap.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    args = ap.parse_args()
    for r in pc.iter_records(args.dataset, args.corpus, splits={args.split}):
        ref = r["summary"] if args.dataset == "cnn" else "\n".join(pc.document_sentences(args.dataset, r["summary"]))
        print(json.dumps({"id": r["id"], "article": r["article"], "reference": ref}, ensure_ascii=False))


if __name__ == "__main__":
    main()
