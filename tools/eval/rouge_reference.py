#!/usr/bin/env python3
"""Independent Python transcription of Google's rouge-score (rouge_scorer.py,
tokenize.py; use_stemmer=True) used only to cross-check the C++ implementation in
app/eval/rouge.cpp.  Needs nltk (Debian: python3-nltk) for PorterStemmer().

    python3 tools/eval/rouge_reference.py FILE.jsonl [--per-example OUT.jsonl]
"""
import argparse
import collections
import json
import re

from nltk.stem import porter

_stemmer = porter.PorterStemmer()  # rouge-score: porter.PorterStemmer() -> NLTK_EXTENSIONS


def tokenize(text, stem=True):
    text = text.lower()
    text = re.sub(r"[^a-z0-9]+", " ", text)
    tokens = re.split(r"\s+", text)
    if stem:
        tokens = [_stemmer.stem(x) if len(x) > 3 else x for x in tokens]
    return [x for x in tokens if re.match(r"^[a-z0-9]+$", x)]


def fm(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def ngrams(tokens, n):
    return collections.Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def score_ngrams(t, p):
    inter = sum(min(c, p[g]) for g, c in t.items())
    tc, pc = sum(t.values()), sum(p.values())
    P, R = inter / max(pc, 1), inter / max(tc, 1)
    return P, R, fm(P, R)


def lcs_table(ref, can):
    t = [[0] * (len(can) + 1) for _ in range(len(ref) + 1)]
    for i in range(1, len(ref) + 1):
        for j in range(1, len(can) + 1):
            t[i][j] = t[i - 1][j - 1] + 1 if ref[i - 1] == can[j - 1] else max(t[i - 1][j], t[i][j - 1])
    return t


def score_lcs(t, p):
    if not t or not p:
        return 0.0, 0.0, 0.0
    lcs = lcs_table(t, p)[-1][-1]
    P, R = lcs / len(p), lcs / len(t)
    return P, R, fm(P, R)


def backtrack(t, ref, can):
    i, j, out = len(ref), len(can), []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.insert(0, i - 1); i -= 1; j -= 1
        elif t[i][j - 1] > t[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return out


def summary_level_lcs(ref_sent, can_sent):
    if not ref_sent or not can_sent:
        return 0.0, 0.0, 0.0
    m, n = sum(map(len, ref_sent)), sum(map(len, can_sent))
    if not n or not m:
        return 0.0, 0.0, 0.0
    cr, cc = collections.Counter(), collections.Counter()
    for s in ref_sent:
        cr.update(s)
    for s in can_sent:
        cc.update(s)
    hits = 0
    for r in ref_sent:
        union = sorted(set().union(*[backtrack(lcs_table(r, c), r, c) for c in can_sent]))
        for t in [r[i] for i in union]:
            if cc[t] > 0 and cr[t] > 0:
                hits += 1; cc[t] -= 1; cr[t] -= 1
    R, P = hits / m, hits / n
    return P, R, fm(P, R)


def score(reference, candidate):
    t, p = tokenize(reference), tokenize(candidate)
    sents = lambda x: [tokenize(s) for s in x.split("\n") if len(s)]  # noqa: E731
    return {"rouge1": score_ngrams(ngrams(t, 1), ngrams(p, 1)), "rouge2": score_ngrams(ngrams(t, 2), ngrams(p, 2)),
            "rougeL": score_lcs(t, p), "rougeLsum": summary_level_lcs(sents(reference), sents(candidate))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    args = ap.parse_args()
    sums, n = collections.defaultdict(lambda: [0.0, 0.0, 0.0]), 0
    for line in open(args.jsonl, encoding="utf-8"):
        if not line.strip():
            continue
        r = json.loads(line)
        for k, v in score(r["reference"], r["candidate"]).items():
            for i in range(3):
                sums[k][i] += v[i]
        n += 1
    print(f"metric          P       R       F   (n = {n}, x100)")
    for k in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
        print(f"{k:<9} {100 * sums[k][0] / n:7.2f} {100 * sums[k][1] / n:7.2f} {100 * sums[k][2] / n:7.2f}")


if __name__ == "__main__":
    main()
