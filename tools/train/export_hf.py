#!/usr/bin/env python3
"""Export a train.py checkpoint as a HuggingFace BART checkpoint folder.

    python3 tools/train/export_hf.py --ckpt runs/ft/checkpoint-last.pt \
        --spm tools/train/out/precis24k.model --out models/precis-bart-base [--dtype f16]
        [--check-against ../shared/fixtures/models/bart-tiny]

Writes config.json (BartForConditionalGeneration), generation_config.json,
model.safetensors (hand-written safetensors, fp16 by default, tied weights
stored once as model.shared.weight as HF does), and the sentencepiece model
as sentencepiece.bpe.model and spm.model.  With --check-against it verifies
that the exported tensor names are exactly the reference folder's and that
every shape follows the same config relations.
"""
import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bart_model import BartConfig, read_safetensors_header, save_safetensors  # noqa: E402


def hf_config(c: BartConfig, dtype: str) -> dict:
    return {
        "_name_or_path": "precis-bart",
        "activation_dropout": c.activation_dropout,
        "activation_function": "gelu",
        "add_bias_logits": False,
        "add_final_layer_norm": False,
        "architectures": ["BartForConditionalGeneration"],
        "attention_dropout": c.attention_dropout,
        "bos_token_id": c.bos_token_id,
        "classif_dropout": 0.0,
        "classifier_dropout": 0.0,
        "d_model": c.d_model,
        "decoder_attention_heads": c.decoder_attention_heads,
        "decoder_ffn_dim": c.decoder_ffn_dim,
        "decoder_layerdrop": 0.0,
        "decoder_layers": c.decoder_layers,
        "decoder_start_token_id": c.decoder_start_token_id,
        "dropout": c.dropout,
        "encoder_attention_heads": c.encoder_attention_heads,
        "encoder_ffn_dim": c.encoder_ffn_dim,
        "encoder_layerdrop": 0.0,
        "encoder_layers": c.encoder_layers,
        "eos_token_id": c.eos_token_id,
        "forced_bos_token_id": 0,
        "forced_eos_token_id": 2,
        "init_std": c.init_std,
        "is_encoder_decoder": True,
        "max_position_embeddings": c.max_position_embeddings,
        "model_type": "bart",
        "normalize_before": False,
        "normalize_embedding": True,
        "num_hidden_layers": c.encoder_layers,
        "pad_token_id": c.pad_token_id,
        "scale_embedding": False,
        "static_position_embeddings": False,
        "tie_word_embeddings": True,
        "torch_dtype": {"f16": "float16", "f32": "float32", "bf16": "bfloat16"}[dtype],
        "use_cache": True,
        "vocab_size": c.vocab_size,
        # Precis extras (ignored by transformers)
        "mask_token_id": c.mask_token_id,
        "tokenizer_file": "sentencepiece.bpe.model",
    }


GENERATION = {
    "bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2, "pad_token_id": 1,
    "forced_bos_token_id": 0, "forced_eos_token_id": 2,
    "num_beams": 4, "length_penalty": 2.0, "no_repeat_ngram_size": 3,
    "min_length": 30, "max_length": 142, "early_stopping": True,
}


def check_against(out_dir: str, ref_dir: str, cfg: dict) -> None:
    ours = read_safetensors_header(os.path.join(out_dir, "model.safetensors"))
    ref = read_safetensors_header(os.path.join(ref_dir, "model.safetensors"))
    rcfg = json.load(open(os.path.join(ref_dir, "config.json")))
    ours.pop("__metadata__", None)
    ref.pop("__metadata__", None)

    def norm(name, c):  # names with layer indices limited to what both have
        return name

    def layer_ok(name, c):
        parts = name.split(".")
        if "layers" in parts:
            i = int(parts[parts.index("layers") + 1])
            n = c["encoder_layers"] if parts[1] == "encoder" else c["decoder_layers"]
            return i < n
        return True

    # Compare the name sets over the layers both models have, then the rest of ours by pattern.
    n_common_e = min(cfg["encoder_layers"], rcfg["encoder_layers"])
    n_common_d = min(cfg["decoder_layers"], rcfg["decoder_layers"])
    c_common = {"encoder_layers": n_common_e, "decoder_layers": n_common_d}
    a = {k for k in ours if layer_ok(k, c_common)}
    b = {k for k in ref if layer_ok(k, c_common)}
    if a != b:
        raise SystemExit(f"tensor names differ: only ours {sorted(a - b)[:10]}, only reference {sorted(b - a)[:10]}")
    pattern = lambda k: ".".join("N" if p.isdigit() else p for p in k.split("."))  # noqa: E731
    if {pattern(k) for k in ours} != {pattern(k) for k in ref}:
        raise SystemExit("tensor name patterns differ")

    def expected_shape(name, c):
        d, V, P = c["d_model"], c["vocab_size"], c["max_position_embeddings"]
        pre = "encoder" if ".encoder." in name else "decoder"
        ffn = c[f"{pre}_ffn_dim"]
        if name == "model.shared.weight":
            return [V, d]
        if name == "final_logits_bias":
            return [1, V]
        if name.endswith("embed_positions.weight"):
            return [P + 2, d]
        if ".fc1.weight" in name:
            return [ffn, d]
        if ".fc1.bias" in name:
            return [ffn]
        if ".fc2.weight" in name:
            return [d, ffn]
        if name.endswith("_proj.weight"):
            return [d, d]
        return [d]  # biases and layer norms
    for k, info in ref.items():
        assert info["shape"] == expected_shape(k, rcfg), (k, info["shape"])  # the rule matches the reference
    bad = [(k, v["shape"]) for k, v in ours.items() if v["shape"] != expected_shape(k, cfg)]
    if bad:
        raise SystemExit(f"unexpected shapes: {bad[:10]}")
    print(f"check OK: {len(ours)} tensors; names equal {ref_dir} over {n_common_e}+{n_common_d} common layers, "
          f"same name patterns, shapes follow the BART rules for this config")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--spm", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="f16", choices=["f16", "f32", "bf16"])
    ap.add_argument("--check-against", default="")
    args = ap.parse_args()

    ck = torch.load(args.ckpt, map_location="cpu", weights_only=False)
    c = BartConfig(**ck["config"])
    sd = ck["model"]
    sd = {k[len("_orig_mod."):] if k.startswith("_orig_mod.") else k: v for k, v in sd.items()}
    os.makedirs(args.out, exist_ok=True)
    cfg = hf_config(c, args.dtype)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump(GENERATION, f, indent=2, sort_keys=True)
    fp16_max = float(max(v.abs().max() for v in sd.values() if v.is_floating_point()))
    if args.dtype == "f16" and fp16_max > 65504:
        raise SystemExit(f"a weight exceeds the float16 range ({fp16_max}); export with --dtype f32")
    save_safetensors(os.path.join(args.out, "model.safetensors"), sd, args.dtype.upper(),
                     {"format": "pt", "precis_step": str(ck["step"]), "precis_phase": ck["args"]["phase"]})
    for name in ("sentencepiece.bpe.model", "spm.model"):
        shutil.copyfile(args.spm, os.path.join(args.out, name))
    print(f"exported {len(sd)} tensors ({args.dtype}) from step {ck['step']} to {args.out}")
    if args.check_against:
        check_against(args.out, args.check_against, cfg)


if __name__ == "__main__":
    main()
