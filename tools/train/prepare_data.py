#!/usr/bin/env python3
"""Tokenize the corpus into compact, shippable shards for pre-training and
fine-tuning.

    python3 tools/train/prepare_data.py --spm tools/train/out/precis24k.model \
        --out build-data/precis24k [--limit-docs N] [--workers 2]

Splits: cnn / wiki_lead use the corpus ``split`` field; briefings / gutenberg
get the same recipe (seed 20261121 shuffle of sorted ids, 90/5/5), see
precis_corpus.py.

Layout under --out (every file < 64 MiB; uncompressed .npz, no pickles):

  manifest.json                  vocab, special ids, spm sha256, files + sha256 + counts
  pretrain/<split>/shard-NNNNN.npz
      tokens      uint16 [T]     sentence pieces of packed examples, no <s>/</s>
      ex_offsets  int64  [N+1]   example i = tokens[ex_offsets[i]:ex_offsets[i+1]]
      sent_offsets int64 [S+1]   sentence starts (global), last = T
      source      int8   [N]     index into manifest["sources"]
  finetune/<task>-<split>-NNNNN.npz      task = cnn | wiki_lead
      src_tokens, tgt_tokens uint16; src_offsets, tgt_offsets int64 [N+1]
      src_len_full, tgt_len_full int32 [N]   lengths before truncation
      ids  <U..  [N]             record ids

Pre-training examples are whole documents packed sentence by sentence into
chunks of at most --max-len - 2 = 1022 pieces (a longer sentence is cut);
wiki_lead documents are lead + body, cnn the article only.  Noising (text
infilling, sentence permutation) happens on the fly in train.py.
Fine-tuning sources/targets are truncated to --max-len - 2 pieces; train.py
adds <s> ... </s>.
"""
import argparse
import hashlib
import json
import os
import sys
import time
from multiprocessing import Pool

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import precis_corpus as pc  # noqa: E402

SPLITS = ("train", "validation", "test")
_SP = None


def _init_worker(spm_path):
    global _SP
    import sentencepiece as spm
    _SP = spm.SentencePieceProcessor(model_file=spm_path)


def _encode_pretrain(job):
    """job = (name, doc_id, split, text) -> (name, split, list of (tokens, sentence lengths))"""
    name, split, text, max_body = job
    sents = pc.document_sentences(name, text)
    if not sents:
        return name, split, []
    enc = _SP.encode(sents)
    chunks, cur, cur_lens = [], [], []
    for ids in enc:
        while len(ids) > max_body:  # over-long "sentence" (tables, verse): cut it
            if cur:
                chunks.append((cur, cur_lens)); cur, cur_lens = [], []
            chunks.append((ids[:max_body], [max_body]))
            ids = ids[max_body:]
        if not ids:
            continue
        if len(cur) + len(ids) > max_body:
            chunks.append((cur, cur_lens)); cur, cur_lens = [], []
        cur = cur + ids
        cur_lens.append(len(ids))
    if cur:
        chunks.append((cur, cur_lens))
    # drop tiny tails of long documents (keep a short document's only chunk)
    if len(chunks) > 1:
        chunks = [c for c in chunks if len(c[0]) >= 32]
    return name, split, chunks


def _encode_finetune(job):
    name, split, doc_id, src, tgt = job
    s, t = _SP.encode([src, tgt])
    return name, split, doc_id, s, t


class ShardWriter:
    def __init__(self, path_fmt, max_bytes, kind):
        self.path_fmt, self.max_bytes, self.kind = path_fmt, max_bytes, kind
        self.n_shard = 0
        self.files = []
        self._reset()

    def _reset(self):
        self.parts = {}
        self.nbytes = 0
        self.count = 0

    def _append(self, key, arr):
        self.parts.setdefault(key, []).append(arr)

    def add_pretrain(self, tokens, sent_lens, source):
        self._append("tokens", np.asarray(tokens, dtype=np.uint16))
        self._append("sent_lens", np.asarray(sent_lens, dtype=np.int64))
        self._append("source", np.asarray([source], dtype=np.int8))
        self.nbytes += 2 * len(tokens) + 8 * len(sent_lens) + 9
        self.count += 1
        if self.nbytes >= self.max_bytes:
            self.flush()

    def add_finetune(self, doc_id, src, tgt, src_full, tgt_full):
        self._append("src", np.asarray(src, dtype=np.uint16))
        self._append("tgt", np.asarray(tgt, dtype=np.uint16))
        self._append("meta", (doc_id, src_full, tgt_full))
        self.nbytes += 2 * (len(src) + len(tgt)) + 16 + 4 * len(doc_id) + 8
        self.count += 1
        if self.nbytes >= self.max_bytes:
            self.flush()

    def flush(self):
        if self.count == 0:
            return
        path = self.path_fmt.format(self.n_shard)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if self.kind == "pretrain":
            toks = self.parts["tokens"]
            ex_off = np.zeros(len(toks) + 1, dtype=np.int64)
            ex_off[1:] = np.cumsum([len(t) for t in toks])
            sl = np.concatenate(self.parts["sent_lens"])
            sent_off = np.zeros(len(sl) + 1, dtype=np.int64)
            sent_off[1:] = np.cumsum(sl)
            arrays = dict(tokens=np.concatenate(toks), ex_offsets=ex_off,
                          sent_offsets=sent_off, source=np.concatenate(self.parts["source"]))
            n_tok = int(ex_off[-1])
        else:
            def pack(lst):
                off = np.zeros(len(lst) + 1, dtype=np.int64)
                off[1:] = np.cumsum([len(x) for x in lst])
                return np.concatenate(lst) if lst else np.zeros(0, np.uint16), off
            src, src_off = pack(self.parts["src"])
            tgt, tgt_off = pack(self.parts["tgt"])
            meta = self.parts["meta"]
            arrays = dict(src_tokens=src, src_offsets=src_off, tgt_tokens=tgt, tgt_offsets=tgt_off,
                          src_len_full=np.asarray([m[1] for m in meta], np.int32),
                          tgt_len_full=np.asarray([m[2] for m in meta], np.int32),
                          ids=np.asarray([m[0] for m in meta]))
            n_tok = int(src_off[-1] + tgt_off[-1])
        np.savez(path, **arrays)
        size = os.path.getsize(path)
        assert size < 64 * 2**20, (path, size)
        self.files.append({"path": path, "examples": self.count, "tokens": n_tok, "bytes": size})
        self.n_shard += 1
        self._reset()


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spm", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    ap.add_argument("--max-len", type=int, default=1024)
    ap.add_argument("--shard-mib", type=float, default=48.0)
    ap.add_argument("--limit-docs", type=int, default=0,
                    help="per file and split, keep only the first N documents (smoke tests)")
    ap.add_argument("--files", default=",".join(pc.FILES))
    ap.add_argument("--skip-pretrain", action="store_true")
    ap.add_argument("--skip-finetune", action="store_true")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    args = ap.parse_args()

    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=args.spm)
    vocab = sp.get_piece_size()
    assert vocab <= 65535, "uint16 shards need vocab <= 65535"
    mask_id = sp.piece_to_id("<mask>")
    files = args.files.split(",")
    max_body = args.max_len - 2
    max_bytes = int(args.shard_mib * 2**20)
    t0 = time.time()
    manifest = {
        "format": "precis-shards-v1", "spm_model": os.path.basename(args.spm), "spm_sha256": sha256(args.spm),
        "vocab_size": vocab, "pad_id": 1, "bos_id": 0, "eos_id": 2, "unk_id": 3, "mask_id": mask_id,
        "max_len": args.max_len, "sources": list(pc.FILES), "limit_docs": args.limit_docs, "files": [],
        "stats": {},
    }

    def limited(name, splits):
        seen = {s: 0 for s in SPLITS}
        for r in pc.iter_records(name, args.corpus, splits=splits):
            if args.limit_docs and seen[r["split"]] >= args.limit_docs:
                if all(v >= args.limit_docs for k, v in seen.items() if splits is None or k in splits):
                    break
                continue
            seen[r["split"]] += 1
            yield r

    with Pool(args.workers, initializer=_init_worker, initargs=(args.spm,)) as pool:
        if not args.skip_pretrain:
            writers = {s: ShardWriter(os.path.join(args.out, "pretrain", s, "shard-{:05d}.npz"), max_bytes, "pretrain")
                       for s in SPLITS}
            for name in files:
                src_idx = pc.FILES.index(name)

                def jobs():
                    for r in limited(name, None):
                        text = r["text"]
                        if name == "wiki_lead":
                            text = r["summary"] + "\n" + text
                        yield name, r["split"], text, max_body
                n_docs = n_ex = n_tok = 0
                for _, split, chunks in pool.imap(_encode_pretrain, jobs(), chunksize=8):
                    n_docs += 1
                    for toks, lens in chunks:
                        writers[split].add_pretrain(toks, lens, src_idx)
                        n_ex += 1
                        n_tok += len(toks)
                manifest["stats"][f"pretrain/{name}"] = {"docs": n_docs, "examples": n_ex, "tokens": n_tok}
                print(f"[{time.time() - t0:6.1f}s] pretrain {name}: {n_docs} docs, {n_ex} examples, {n_tok} tokens",
                      file=sys.stderr)
            for w in writers.values():
                w.flush()
                manifest["files"] += w.files
        if not args.skip_finetune:
            for name in [f for f in files if f in pc.PAIRED]:
                writers = {s: ShardWriter(os.path.join(args.out, "finetune", f"{name}-{s}-{{:05d}}.npz"), max_bytes,
                                          "finetune") for s in SPLITS}
                stats = {s: {"examples": 0, "src_truncated": 0, "tgt_truncated": 0, "src_tokens_full": 0,
                             "tgt_tokens_full": 0} for s in SPLITS}

                def jobs():
                    for r in limited(name, None):
                        yield name, r["split"], r["id"], r["article"], r["summary"]
                for _, split, doc_id, s, t in pool.imap(_encode_finetune, jobs(), chunksize=8):
                    st = stats[split]
                    st["examples"] += 1
                    st["src_truncated"] += len(s) > max_body
                    st["tgt_truncated"] += len(t) > max_body
                    st["src_tokens_full"] += len(s)
                    st["tgt_tokens_full"] += len(t)
                    writers[split].add_finetune(doc_id, s[:max_body], t[:max_body], len(s), len(t))
                for w in writers.values():
                    w.flush()
                    manifest["files"] += w.files
                manifest["stats"][f"finetune/{name}"] = stats
                print(f"[{time.time() - t0:6.1f}s] finetune {name}: {json.dumps(stats)}", file=sys.stderr)

    for f in manifest["files"]:
        f["sha256"] = sha256(f["path"])
        f["path"] = os.path.relpath(f["path"], args.out)
    manifest["seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(f["bytes"] for f in manifest["files"])
    print(f"wrote {len(manifest['files'])} shards, {total / 2**20:.1f} MiB, in {manifest['seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
