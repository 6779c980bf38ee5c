"""BART noising (numpy only): sentence permutation + whole-word text infilling.
Used on the fly by train.py and, with a fixed seed, by tools/eval/extrapolation.py."""
import math

import numpy as np


def word_start_table(sp):
    """bool[vocab]: piece starts a word (sentencepiece '\u2581' prefix, or a special piece)."""
    return np.array([sp.id_to_piece(i).startswith("\u2581") or sp.is_control(i) or sp.is_unknown(i)
                     for i in range(sp.get_piece_size())], bool)


class Noiser:
    """BART noising: sentence permutation, then whole-word text infilling
    (span lengths ~ Poisson(lambda), each span -> one <mask>, zero-length spans
    insert a <mask>; a share of the masks become random tokens)."""

    def __init__(self, word_start, mask_id, vocab, ratio=0.3, lam=3.0, random_ratio=0.1, permute=1.0):
        self.word_start, self.mask_id, self.vocab = word_start, mask_id, vocab
        self.ratio, self.lam, self.random_ratio, self.permute = ratio, lam, random_ratio, permute

    def permute_sentences(self, toks, bounds, rng):
        n = len(bounds) - 1
        if n <= 1 or self.permute <= 0:
            return toks
        order = np.arange(n)
        k = int(math.ceil(n * self.permute))
        sel = rng.permutation(n)[:k]
        order[np.sort(sel)] = sel
        return np.concatenate([toks[bounds[j]:bounds[j + 1]] for j in order])

    def infill(self, toks, rng, return_source=False):
        """Noised ids; with return_source also src[i] = index of the original piece
        where output i starts (so the first k outputs cover toks[:src[k]])."""
        if self.ratio <= 0 or len(toks) == 0:
            return (toks, np.arange(len(toks))) if return_source else toks
        is_ws = self.word_start[toks].copy()
        is_ws[0] = True
        starts = np.flatnonzero(is_ws)
        n_words = len(starts)
        num_to_mask = int(math.ceil(n_words * self.ratio))
        lens = rng.poisson(self.lam, size=num_to_mask)
        while lens.sum() < num_to_mask:
            lens = np.concatenate([lens, rng.poisson(self.lam, size=num_to_mask)])
        cum = np.cumsum(lens)
        k = int(np.searchsorted(cum, num_to_mask))  # first index with cum >= num_to_mask
        lens = lens[:k + 1].copy()
        lens[k] = num_to_mask - (cum[k - 1] if k > 0 else 0)
        n_spans = len(lens)
        span_start = rng.choice(n_words, size=min(n_spans, n_words), replace=False)
        lens = lens[:len(span_start)]
        masked = np.zeros(n_words + 1, bool)
        head = np.zeros(n_words, bool)
        inserts = []
        for s, L in zip(span_start, lens):
            if L == 0:
                inserts.append(s)
            else:
                masked[s:s + L] = True
                head[s] = True
        masked = masked[:n_words]
        word_of_tok = np.cumsum(is_ws) - 1
        tok_masked = masked[word_of_tok]
        first_tok = is_ws  # first token of each word
        prev_masked = np.concatenate([[False], masked[:-1]])
        word_head = masked & (head | ~prev_masked)
        tok_head = first_tok & word_head[word_of_tok]
        out_tok = toks.copy()
        out_tok[tok_head] = self.mask_id
        if self.random_ratio > 0:
            rnd = tok_head & (rng.random(len(toks)) < self.random_ratio)
            out_tok[rnd] = rng.integers(4, self.vocab - 1, size=int(rnd.sum()))
        emit = ~tok_masked | tok_head
        out = out_tok[emit]
        src = np.flatnonzero(emit)
        if inserts:
            pos = np.cumsum(emit) - emit  # output index of each input token
            at = np.sort(starts[np.asarray(inserts)])
            out = np.insert(out, pos[at], self.mask_id)
            src = np.insert(src, pos[at], at)
        return (out, src) if return_source else out

    def __call__(self, toks, bounds, rng):
        return self.infill(self.permute_sentences(toks, bounds, rng), rng)
