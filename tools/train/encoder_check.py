"""Does a trained checkpoint read its input? Prints, for a few held-out cnn articles, how much
the encoder's output varies across positions and the teacher-forced loss of the article's own
text given the article versus given another article. A collapsed encoder (every position the
same vector, as an 8.7k-step run at lr 8e-4 produced) shows std ~1e-6 and equal losses.

    encoder_check.py CKPT_OR_EXPORT_DIR [--corpus DIR]      exit 1 when the encoder is collapsed
"""
import argparse
import json
import os
import sys

import numpy as np
import sentencepiece as spm
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bart_model import BartConfig, BartForConditionalGeneration, config_from_hf, load_safetensors  # noqa: E402
import precis_corpus as pc  # noqa: E402


def load(path):
    if os.path.isdir(path):
        m = BartForConditionalGeneration(config_from_hf(json.load(open(os.path.join(path, "config.json")))))
        sd = {k: torch.from_numpy(v.astype(np.float32)) for k, v in load_safetensors(os.path.join(path, "model.safetensors")).items()}
        m.load_state_dict(sd, strict=False)
    else:
        ck = torch.load(path, map_location="cpu", weights_only=False)
        m = BartForConditionalGeneration(BartConfig(**ck["config"]))
        m.load_state_dict(ck["model"])
    return m.eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    ap.add_argument("--spm", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "precis24k.model"))
    a = ap.parse_args()
    m, sp = load(a.model), spm.SentencePieceProcessor(model_file=a.spm)
    docs = [r["article"] for _, r in zip(range(4), pc.iter_records("cnn", a.corpus, splits={"test"}))]
    stds, own, other = [], [], []
    with torch.no_grad():
        for i in range(3):
            x = torch.tensor([[0] + sp.encode(docs[i])[:300] + [2]])
            y = torch.tensor([[0] + sp.encode(docs[i + 1])[:300] + [2]])
            enc, _ = m.encode(x)
            stds.append(float(enc[0].std(0).mean()))
            t = [0] + sp.encode(docs[i])[:120] + [2]
            dec, lab = torch.tensor([[2] + t[:-1]]), torch.tensor(t)
            own.append(float(F.cross_entropy(m(x, dec)[0], lab)))
            other.append(float(F.cross_entropy(m(y, dec)[0], lab)))
    collapsed = max(stds) < 1e-3
    print(json.dumps({"encoder_std_over_positions": stds, "loss_own_article": own, "loss_other_article": other,
                      "collapsed": collapsed}))
    sys.exit(1 if collapsed else 0)


if __name__ == "__main__":
    main()
