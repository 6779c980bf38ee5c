#!/usr/bin/python3
"""A random bart-base (the shape of ../shared/bench/ct2's checkpoint: 6+6 layers, d 768,
12 heads, vocabulary 50,265) in HuggingFace's safetensors layout, made with numpy alone, so
Precis can be timed on a machine without torch or transformers. Weights are N(0, 0.02),
norms one and zero, as BartForConditionalGeneration's initialisation; the LM head is tied.

usage: make_bart_base.py OUT_DIR TOKENIZER_JSON [SEED]"""
import json
import os
import struct
import sys

import numpy as np

D, FFN, V, P, LAYERS = 768, 3072, 50265, 1024, 6


def main():
    out, tokenizer_json = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    tensors = {}

    def normal(name, *shape):
        tensors[name] = (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)

    def linear(name, rows, cols):
        normal(name + ".weight", rows, cols)
        tensors[name + ".bias"] = np.zeros(rows, np.float32)

    def norm(name):
        tensors[name + ".weight"] = np.ones(D, np.float32)
        tensors[name + ".bias"] = np.zeros(D, np.float32)

    def attention(name):
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            linear(f"{name}.{proj}", D, D)

    normal("model.shared.weight", V, D)
    tensors["final_logits_bias"] = np.zeros((1, V), np.float32)
    for side in ("encoder", "decoder"):
        normal(f"model.{side}.embed_positions.weight", P + 2, D)
        norm(f"model.{side}.layernorm_embedding")
        for i in range(LAYERS):
            p = f"model.{side}.layers.{i}"
            attention(p + ".self_attn")
            norm(p + ".self_attn_layer_norm")
            if side == "decoder":
                attention(p + ".encoder_attn")
                norm(p + ".encoder_attn_layer_norm")
            linear(p + ".fc1", FFN, D)
            linear(p + ".fc2", D, FFN)
            norm(p + ".final_layer_norm")

    os.makedirs(out, exist_ok=True)
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + t.nbytes]}
        offset += t.nbytes
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob)
        for t in tensors.values():
            f.write(t.tobytes())

    config = dict(
        architectures=["BartForConditionalGeneration"], model_type="bart", vocab_size=V,
        max_position_embeddings=P, d_model=D, encoder_layers=LAYERS, decoder_layers=LAYERS,
        encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=FFN,
        decoder_ffn_dim=FFN, activation_function="gelu", scale_embedding=False, pad_token_id=1,
        bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, is_encoder_decoder=True,
        forced_bos_token_id=None, forced_eos_token_id=None, no_repeat_ngram_size=0, num_beams=1)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(tokenizer_json, encoding="utf-8") as src, open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as dst:
        dst.write(src.read())
    print(f"saved {out}: {sum(t.size for t in tensors.values()) / 1e6:.1f}M parameters")


if __name__ == "__main__":
    main()
