#!/usr/bin/env python3
"""Writes the documents file of run.sh's "docs" phase (precis-bench --docs and hf_many_docs.py):
one {"ids": [...]} a line, bos (0) first, eos (2) last, the ids between drawn as
4 + r % (vocab - 5) (no special ids: 0-3 are bos, pad, eos, unk in BART's vocabulary), the
lengths uniform in [--min-length, --max-length] (both counted with bos and eos). Deterministic:
random.Random(--seed), 11 by default, so every call writes the same file.

  python3 make_docs.py --out docs.jsonl --count 256 --min-length 1024 --max-length 4096 \
      --model DIR          # the vocabulary from DIR/config.json (or --vocab 50265)

Prints one JSON line on stdout: the file, count, vocabulary, seed and the lengths (min, mean,
max, total, and the mean of the first --subset documents, the part run.sh times one at a time).
No third-party package is needed.
"""
import argparse
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=256)
    ap.add_argument("--min-length", type=int, default=1024)
    ap.add_argument("--max-length", type=int, default=4096)
    ap.add_argument("--vocab", type=int, default=0, help="vocabulary size (else --model's config.json)")
    ap.add_argument("--model", help="a model folder: its config.json gives the vocabulary")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--subset", type=int, default=0, help="also report the first N documents' lengths")
    args = ap.parse_args()

    vocab = args.vocab
    if not vocab and args.model:
        vocab = int(json.load(open(args.model + "/config.json"))["vocab_size"])
    if vocab < 6:
        sys.exit("make_docs.py: give --vocab N (6 or more) or --model DIR with a config.json")
    if not 2 <= args.min_length <= args.max_length:
        sys.exit("make_docs.py: need 2 <= --min-length <= --max-length")
    bos, eos = 0, 2
    rng = random.Random(args.seed)
    lengths = []
    with open(args.out, "w") as f:
        for _ in range(args.count):
            n = rng.randint(args.min_length, args.max_length)  # inclusive on both ends
            ids = [bos] + [4 + rng.getrandbits(32) % (vocab - 5) for _ in range(n - 2)] + [eos]
            f.write(json.dumps({"ids": ids}, separators=(",", ":")) + "\n")
            lengths.append(n)
    info = {"file": args.out, "documents": len(lengths), "vocab": vocab, "seed": args.seed,
            "min_length": min(lengths), "max_length": max(lengths), "mean_length": sum(lengths) / len(lengths),
            "total_tokens": sum(lengths), "range": [args.min_length, args.max_length]}
    if args.subset:
        sub = lengths[:args.subset]
        info["subset"] = len(sub)
        info["subset_mean_length"] = sum(sub) / len(sub)
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
