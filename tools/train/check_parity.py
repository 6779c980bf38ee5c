#!/usr/bin/env python3
"""Checks that bart_model.py computes exactly what HF BART computes: loads a
fixture checkpoint (shared/fixtures/models/bart-tiny) into our module and
compares logits and encoder output with cases/bart-tiny/expected.safetensors
(produced by HF transformers 4.36.2).

    python3 tools/train/check_parity.py [--fixtures ../shared/fixtures] [--model bart-tiny]
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bart_model import BartForConditionalGeneration, config_from_hf, load_safetensors  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--fixtures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                                   "shared", "fixtures"))
ap.add_argument("--model", default="bart-tiny")
args = ap.parse_args()

mdir = os.path.join(args.fixtures, "models", args.model)
cfg = json.load(open(os.path.join(mdir, "config.json")))
c = config_from_hf(cfg)
c.dropout = 0.0
model = BartForConditionalGeneration(c).eval()
weights = {k: torch.from_numpy(v) for k, v in load_safetensors(os.path.join(mdir, "model.safetensors")).items()}
ours = set(model.state_dict())
missing, unexpected = ours - set(weights), set(weights) - ours
print(f"keys: ours {len(ours)}, fixture {len(weights)}, missing {sorted(missing)}, unexpected {sorted(unexpected)}")
model.load_state_dict(weights, strict=True)

exp = load_safetensors(os.path.join(args.fixtures, "cases", args.model, "expected.safetensors"))
batch = [k.split(".")[0] for k in exp if k.endswith(".logits")][0]
ids = torch.from_numpy(exp[f"{batch}.input_ids"])
am = torch.from_numpy(exp[f"{batch}.attention_mask"])
dec = torch.from_numpy(exp["decoder_input_ids"])
with torch.no_grad():
    enc, mask = model.encode(ids, am)
    logits = model(ids, dec, am)
ok = True
for name, got, ref in [("logits", logits.numpy(), exp[f"{batch}.logits"]),
                       ("encoder_last_hidden_state", (enc * am[..., None]).numpy(),
                        exp[f"{batch}.encoder_last_hidden_state"] * am[..., None].numpy())]:
    err = float(np.abs(got - ref).max())
    print(f"{name}: shape {got.shape}, max abs diff {err:.3e}")
    ok &= err < 1e-4
print("PARITY OK" if ok and not missing and not unexpected else "PARITY FAILED")
sys.exit(0 if ok else 1)
