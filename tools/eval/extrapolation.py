#!/usr/bin/env python3
"""Length-extrapolation study: teacher-forced loss of the trained model on
4,096-token inputs, with full attention (positions tiled from 1,024), each LSG
sparsity type, and truncation to 1,024.  This script does the data part
(deterministic inputs and targets) and the scoring; the forward passes run in
the C++ engine (`precis forward`).  See tools/train/README.md, "Extrapolation".

  python3 tools/eval/extrapolation.py prepare --spm tools/train/out/precis24k.model \
      --out build-extrap [--n-wiki 64] [--books-windows 8]
  # -> build-extrap/<task>/<example>.{full,trunc}.json + build-extrap/examples.jsonl
  #    + build-extrap/commands.sh (one `precis forward` per example and variant)
  bash build-extrap/commands.sh            # needs the models, see README
  python3 tools/eval/extrapolation.py score --out build-extrap   # -> table of mean loss

Tasks (every input is exactly 4,096 ids: <s> + 4,094 + </s>):
  wiki-summary  wiki_lead TEST split, bodies with >= 4,094 pieces (124 of 675);
                input = the first 4,094 body pieces, target = the lead (<= 254
                pieces).  Model: the fine-tuned checkpoint.  Measures whether the
                extra 3k tokens of context help or hurt the summary loss.
  book-denoise  gutenberg TEST books (our seeded 90/5/5 split: 8 books); windows at
                evenly spaced offsets (front matter skipped).  Input = the BART-
                noised window (text infilling, seed fixed, no sentence
                permutation unless --permute) cut to 4,094 pieces; target = the
                original text of the first 1,022 pieces the noised input covers.
  wiki-denoise  the same denoising task on those wiki-summary bodies whose noised
                form still has >= 4,094 pieces (bodies of >= ~5,100 pieces; few).
                Model: the pre-trained checkpoint.
For every example the truncated variant is the SAME input cut to <s> + 1,022 +
</s>, so the variants differ only in the context that follows.
Targets: labels = <s> target </s>, decoder_input_ids = [2] + labels[:-1]
(shift right with decoder_start 2).
"""
import argparse
import json
import os
import random
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "train"))
import precis_corpus as pc  # noqa: E402
from noising import Noiser, word_start_table  # noqa: E402

BOS, PAD, EOS = 0, 1, 2
LONG, SHORT = 4096, 1024
VARIANTS = [  # (name, input kind, precis forward flags)
    ("full-tiled", "full", "--attention full --max-positions 4096"),
    ("lsg-none", "full", "--attention lsg --max-positions 4096 --sparsity-type none"),
    ("lsg-norm", "full", "--attention lsg --max-positions 4096 --sparsity-type norm"),
    ("lsg-pooling", "full", "--attention lsg --max-positions 4096 --sparsity-type pooling"),
    ("lsg-stride", "full", "--attention lsg --max-positions 4096 --sparsity-type stride"),
    ("lsg-block_stride", "full", "--attention lsg --max-positions 4096 --sparsity-type block_stride"),
    ("lsg-bos_pooling", "full", "--attention lsg --max-positions 4096 --sparsity-type bos_pooling"),
    ("lsg-lsh", "full", "--attention lsg --max-positions 4096 --sparsity-type lsh --lsh-seed 20261121"),
    ("truncate-1024", "trunc", "--attention full"),
]


def frame(body, n):
    return [BOS] + list(map(int, body[:n - 2])) + [EOS]


def teacher_forced(target, max_target):
    labels = [BOS] + list(map(int, target[:max_target - 2])) + [EOS]
    return labels, [EOS] + labels[:-1]


def noise_window(noiser, toks, rng, cut):
    """Noised window and the number of original pieces covered by its first `cut` ids."""
    out, src = noiser.infill(toks, rng, return_source=True)
    covered = int(src[cut]) if cut < len(out) else len(toks)
    return out, covered


def prepare(args):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=args.spm)
    mask_id = sp.piece_to_id("<mask>")
    noiser = Noiser(word_start_table(sp), mask_id, sp.get_piece_size(), ratio=0.3, lam=3.0, random_ratio=0.0,
                    permute=1.0 if args.permute else 0.0)
    os.makedirs(args.out, exist_ok=True)
    examples = []

    def emit(task, ex_id, long_ids, labels, dec_in, meta):
        d = os.path.join(args.out, task)
        os.makedirs(d, exist_ok=True)
        base = os.path.join(d, ex_id)
        assert len(long_ids) == LONG, len(long_ids)
        short_ids = long_ids[:SHORT - 1] + [EOS]
        for kind, ids in (("full", long_ids), ("trunc", short_ids)):
            with open(f"{base}.{kind}.json", "w") as f:
                json.dump({"input_ids": [ids], "attention_mask": [[1] * len(ids)], "decoder_input_ids": [dec_in]}, f)
        examples.append({"task": task, "id": ex_id, "base": os.path.relpath(base, args.out), "labels": labels,
                         **meta})

    # --- Wikipedia (test split) -------------------------------------------------
    wiki = []
    for r in pc.iter_records("wiki_lead", args.corpus, splits={"test"}):
        body = sp.encode(r["article"])
        if len(body) >= LONG - 2:
            wiki.append((r["id"], body, sp.encode(r["summary"])))
    ids = sorted(w[0] for w in wiki)
    random.Random(pc.SEED).shuffle(ids)
    keep = set(ids[:args.n_wiki])
    wiki = sorted([w for w in wiki if w[0] in keep], key=lambda w: ids.index(w[0]))
    for doc_id, body, lead in wiki:
        labels, dec_in = teacher_forced(lead, 256)
        emit("wiki-summary", f"wiki{doc_id}", frame(body, LONG), labels, dec_in, {"source_id": doc_id})
        rng = np.random.default_rng([pc.SEED, int(doc_id)])
        toks = np.asarray(body[:LONG + 1500], np.int64)
        noised, n_cov = noise_window(noiser, toks, rng, SHORT - 2)
        if len(noised) < LONG - 2:  # noising shortens by ~20 %: only the longest bodies qualify
            continue
        labels, dec_in = teacher_forced(toks[:n_cov], SHORT)
        emit("wiki-denoise", f"wiki{doc_id}", frame(noised, LONG), labels, dec_in, {"source_id": doc_id})
    # --- Books (our gutenberg test split) ---------------------------------------
    books = list(pc.iter_records("gutenberg", args.corpus, splits={"test"}))
    for b_i, r in enumerate(sorted(books, key=lambda r: r["id"])):
        toks_all = np.asarray(sp.encode(" ".join(pc.paragraphs("gutenberg", r["text"]))), np.int64)
        span = LONG + 1500
        start0 = len(toks_all) // 50  # skip front matter
        usable = len(toks_all) - start0 - span
        if usable <= 0:
            continue
        for w in range(args.books_windows):
            off = start0 + (usable * w) // max(1, args.books_windows - 1) if args.books_windows > 1 else start0
            toks = toks_all[off:off + span]
            rng = np.random.default_rng([pc.SEED, b_i, w])
            noised, n_cov = noise_window(noiser, toks, rng, SHORT - 2)
            labels, dec_in = teacher_forced(toks[:n_cov], SHORT)
            emit("book-denoise", f"book{b_i}-w{w}", frame(noised, LONG), labels, dec_in,
                 {"source_id": r["id"], "offset": int(off)})
    with open(os.path.join(args.out, "examples.jsonl"), "w") as f:
        for e in examples:
            f.write(json.dumps(e) + "\n")
    with open(os.path.join(args.out, "commands.sh"), "w") as f:
        f.write("#!/bin/bash\n# precis forward for every example and variant; set PRECIS, MODEL_FT (fine-tuned,\n"
                "# for wiki-summary) and MODEL_PT (pre-trained, for *-denoise) before running.\nset -e\n"
                ": ${PRECIS:=build/bin/precis}\ncd \"$(dirname \"$0\")\"\n")
        for e in examples:
            model = "$MODEL_FT" if e["task"] == "wiki-summary" else "$MODEL_PT"
            for name, kind, flags in VARIANTS:
                outp = f"{e['base']}.{name}.safetensors"
                f.write(f"[ -f {outp} ] || $PRECIS forward --model {model} --input {e['base']}.{kind}.json "
                        f"--out {outp} --device ${{DEVICE:-auto}} {flags}\n")
    counts = {}
    for e in examples:
        counts[e["task"]] = counts.get(e["task"], 0) + 1
    print(f"wrote {len(examples)} examples {counts} and {len(examples) * len(VARIANTS)} commands to "
          f"{args.out}/commands.sh", file=sys.stderr)


def read_logits(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        info = header["logits"]
        b, e = info["data_offsets"]
        f.seek(8 + n + b)
        dt = {"F32": np.float32, "F16": np.float16}[info["dtype"]]
        return np.frombuffer(f.read(e - b), dtype=dt).reshape(info["shape"]).astype(np.float32)


def score(args):
    rows = {}
    for line in open(os.path.join(args.out, "examples.jsonl")):
        e = json.loads(line)
        labels = np.asarray(e["labels"])
        for name, _, _ in VARIANTS:
            p = os.path.join(args.out, f"{e['base']}.{name}.safetensors")
            if not os.path.exists(p):
                continue
            lg = read_logits(p)[0][:len(labels)]
            lg = lg - lg.max(-1, keepdims=True)
            lp = lg - np.log(np.exp(lg).sum(-1, keepdims=True))
            nll = -lp[np.arange(len(labels)), labels]
            acc = rows.setdefault((e["task"], name), [0.0, 0, 0])
            acc[0] += float(nll.sum()); acc[1] += len(labels); acc[2] += 1
    print(f"{'task':<14} {'variant':<18} {'examples':>8} {'tokens':>8} {'loss':>7} {'ppl':>8}")
    for (task, name), (s, n, k) in sorted(rows.items()):
        print(f"{task:<14} {name:<18} {k:>8} {n:>8} {s / n:7.3f} {np.exp(s / n):8.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--spm", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    p.add_argument("--n-wiki", type=int, default=64)
    p.add_argument("--books-windows", type=int, default=8)
    p.add_argument("--permute", action="store_true", help="also permute sentences (long-range retrieval test)")
    s = sub.add_parser("score")
    s.add_argument("--out", required=True)
    args = ap.parse_args()
    prepare(args) if args.cmd == "prepare" else score(args)


if __name__ == "__main__":
    main()
