#!/usr/bin/env python3
"""Do Precis and the LSG seed's reference compute the same model in the lsgref phase?

lsg_reference.py builds its LSGBartForConditionalGeneration from a plain BART checkpoint in
its own way (positions tiled to the longest length, the converter's global embeddings), and
Precis converts the same checkpoint with --attention lsg and --max-positions. A timing ratio
only means something if the two run the same computation, so this compares the encoder
output and the first decoder step's logits of `precis forward` with the reference's on the
same ids (CPU, float32; it runs wherever lsg_reference.py does):

    precis forward --model DIR --input IN.json --out OUT.safetensors --device cpu \\
        --attention lsg --sparsity-type norm --block-size 128 --sparse-block-size 128 \\
        --sparsity-factor 4 --num-global-tokens 1 --max-positions 16384
    PYTHONPATH=SITE lsg_reference_parity.py --model DIR --input IN.json --precis OUT.safetensors \\
        --positions 16384

IN.json holds input_ids (one row, bos first, eos last) and decoder_input_ids ([[2]]). Prints
one JSON line with the largest differences; exits 1 when they pass --tolerance.
"""
import argparse
import json
import sys
import types

import lsg_reference


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--precis", required=True, help="precis forward's output (safetensors)")
    ap.add_argument("--positions", type=int, default=16384)
    ap.add_argument("--block-size", type=int, default=128)
    ap.add_argument("--sparsity-factor", type=int, default=4)
    ap.add_argument("--sparsity-type", default="norm")
    ap.add_argument("--global-tokens", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=1e-4)
    args = ap.parse_args()

    import torch
    from safetensors.torch import load_file
    _, config_class, model_class = lsg_reference.import_reference()
    settings = types.SimpleNamespace(model=args.model, block_size=args.block_size,
                                     sparsity_factor=args.sparsity_factor, sparsity_type=args.sparsity_type,
                                     global_tokens=args.global_tokens)
    model, missing, unexpected, _ = lsg_reference.build_model(settings, torch, config_class, model_class,
                                                              args.positions)
    model.eval()
    given = json.load(open(args.input))
    ids = torch.tensor(given["input_ids"])
    with torch.inference_mode():
        out = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                    decoder_input_ids=torch.tensor(given.get("decoder_input_ids", [[2]])))
    precis = load_file(args.precis)
    pairs = {"encoder_last_hidden_state": (out.encoder_last_hidden_state, precis["encoder_last_hidden_state"]),
             "logits": (out.logits, precis["logits"])}
    report = {"length": int(ids.shape[1]), "missing_keys": missing, "unexpected_keys": unexpected}
    worst = 0.0
    for name, (ref, got) in pairs.items():
        if tuple(ref.shape) != tuple(got.shape):
            report[name] = "shapes differ: reference %s, Precis %s" % (tuple(ref.shape), tuple(got.shape))
            worst = float("inf")
            continue
        diff = float((ref.float() - got.float()).abs().max())
        report[name] = {"max_abs_diff": diff, "max_abs_value": float(ref.abs().max())}
        worst = max(worst, diff)
    report["same_first_token"] = int(out.logits[0, -1].argmax()) == int(precis["logits"][0, -1].argmax())
    report["pass"] = worst <= args.tolerance and report["same_first_token"] and not missing
    print(json.dumps(report), flush=True)
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
