"""Shared helpers for the Precis training/evaluation tools: corpus reading,
deterministic splits and a small rule-based sentence splitter.

Only the Python standard library is used here, so the evaluation scripts run
without numpy/torch.

Splits
------
cnn and wiki_lead carry a ``split`` field (train/validation/test: a seeded
shuffle of the sorted ids cut 90/5/5, seed 20261121, see the corpus README);
we use it as is.  briefings and gutenberg have no split field; we apply the
same recipe ourselves: sort the ids, shuffle them with
``random.Random(20261121)``, cut 90/5/5.  Those held-out documents are used
for pre-training validation and for the 4,096-token extrapolation study.
"""
from __future__ import annotations

import hashlib
import json
import lzma
import os
import random
import re
from typing import Dict, Iterator, List, Tuple

SEED = 20261121
CORPUS_DIR_DEFAULT = os.environ.get(
    "PRECIS_CORPUS",
    os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "..", "..", "..", "shared", "corpus")))
FILES = ("cnn", "wiki_lead", "briefings", "gutenberg")
PAIRED = ("cnn", "wiki_lead")


def corpus_path(name: str, corpus_dir: str = CORPUS_DIR_DEFAULT) -> str:
    return os.path.join(corpus_dir, f"{name}.jsonl.xz")


def read_jsonl_xz(path: str) -> Iterator[dict]:
    with lzma.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def seeded_split(ids: List[str], seed: int = SEED) -> Dict[str, str]:
    """Sorted ids, seeded shuffle, cut 90/5/5 -> {id: split}."""
    order = sorted(ids)
    random.Random(seed).shuffle(order)
    n = len(order)
    n_train = int(round(n * 0.90))
    n_val = int(round(n * 0.05))
    out = {}
    for i, doc_id in enumerate(order):
        out[doc_id] = ("train" if i < n_train else
                       "validation" if i < n_train + n_val else "test")
    return out


def iter_records(name: str, corpus_dir: str = CORPUS_DIR_DEFAULT,
                 splits=None) -> Iterator[dict]:
    """Yields records with a guaranteed ``split`` and ``text`` field.

    ``text`` is the document body (article for paired files); paired files
    also keep ``summary``.  ``splits`` filters (None = all).
    """
    path = corpus_path(name, corpus_dir)
    if name in PAIRED:
        for r in read_jsonl_xz(path):
            if splits is None or r["split"] in splits:
                r["text"] = r["article"]
                yield r
        return
    # Unsplit files: two passes (ids first) keep memory low.
    ids = [r["id"] for r in read_jsonl_xz(path)]
    split_of = seeded_split(ids)
    for r in read_jsonl_xz(path):
        r["split"] = split_of[r["id"]]
        if splits is None or r["split"] in splits:
            yield r


def paragraphs(name: str, text: str) -> List[str]:
    """Paragraphs of a document.  Gutenberg keeps the original line wrapping,
    so paragraphs are blank-line separated blocks (wrapped lines are joined);
    the other files have one paragraph per line."""
    if name == "gutenberg":
        blocks = re.split(r"\n\s*\n", text)
        return [" ".join(b.split()) for b in blocks if b.strip()]
    return [p.strip() for p in text.split("\n") if p.strip()]


def stable_hash(*parts) -> int:
    h = hashlib.blake2b("\x1f".join(map(str, parts)).encode("utf-8"), digest_size=8)
    return int.from_bytes(h.digest(), "little")


# --------------------------------------------------------------------------
# Sentence splitting (rule based; nltk's punkt data is not packaged in Debian)
# --------------------------------------------------------------------------
_ABBREV = set("""
mr mrs ms dr prof sr jr st mt ft gen gov sen rep lt col sgt capt cmdr adm
co corp inc ltd bros vs etc no nos vol vols fig figs pp ed eds al approx est
jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n e.g i.e a.m p.m
d.c u.s.a n.y l.a ph.d b.c a.d ave blvd rd dept univ assn
""".split())
# A candidate boundary: terminal punctuation, optional closing quotes/brackets,
# whitespace, then something that can start a sentence.
_BOUNDARY = re.compile(r"([.!?]+[\"'\u201d\u2019)\]]*)\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")


def split_sentences(paragraph: str) -> List[str]:
    out: List[str] = []
    start = 0
    for m in _BOUNDARY.finditer(paragraph):
        end = m.end(1)
        chunk = paragraph[start:end]
        # word before the final period
        if m.group(1).startswith(".") and len(m.group(1).rstrip("\"'\u201d\u2019)]")) == 1:
            last = re.search(r"(\S+)\.$", chunk.rstrip("\"'\u201d\u2019)]"))
            if last:
                w = last.group(1).lower().lstrip("(\"'\u201c\u2018")
                # abbreviations, single initials ("J."), and dotted acronyms
                if w in _ABBREV or (len(w) == 1 and w.isalpha()) or re.fullmatch(r"(?:[a-z]\.)+[a-z]", w):
                    continue
        s = chunk.strip()
        if s:
            out.append(s)
        start = m.end()
    rest = paragraph[start:].strip()
    if rest:
        out.append(rest)
    return out


def document_sentences(name: str, text: str) -> List[str]:
    out: List[str] = []
    for p in paragraphs(name, text):
        out.extend(split_sentences(p))
    return out
