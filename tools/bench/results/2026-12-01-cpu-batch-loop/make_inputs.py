#!/usr/bin/env python3
"""The inputs of run.sh, with nothing but Python's standard library (this machine has no
torch): a bart-base-shaped checkpoint (6 + 6 layers, width 768, 12 heads, FFN 3,072,
vocabulary 50,265, 1,024 positions) whose weights are one block of 2^20 normal draws
(std 0.02, random.Random(5)) tiled at shifting offsets, LayerNorms 1 and 0, in
/tmp/bartbase (558 MB); and /tmp/docs32.jsonl, 32 documents of 128-1,024 random ids
(random.Random(3)), bos first, eos last. A step's time does not depend on the weights'
values, and `precis bench --docs` makes exactly --new-tokens tokens a document."""
import array, json, os, random, struct

OUT = "/tmp/bartbase"
os.makedirs(OUT, exist_ok=True)
D, F, V, P, L = 768, 3072, 50265, 1026, 6
cfg = {"architectures": ["BartForConditionalGeneration"], "model_type": "bart", "activation_function": "gelu",
       "d_model": D, "encoder_layers": L, "decoder_layers": L, "num_hidden_layers": L,
       "encoder_attention_heads": 12, "decoder_attention_heads": 12, "encoder_ffn_dim": F, "decoder_ffn_dim": F,
       "vocab_size": V, "max_position_embeddings": P - 2, "scale_embedding": False, "bos_token_id": 0,
       "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2, "forced_eos_token_id": 2,
       "is_encoder_decoder": True, "torch_dtype": "float32"}
json.dump(cfg, open(f"{OUT}/config.json", "w"), indent=1)
json.dump({"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2, "forced_bos_token_id": 0,
           "forced_eos_token_id": 2, "pad_token_id": 1}, open(f"{OUT}/generation_config.json", "w"), indent=1)

shapes = []
def lin(p, o, i): shapes.extend([(p + ".weight", [o, i], "rand"), (p + ".bias", [o], "rand")])
def ln(p): shapes.extend([(p + ".weight", [D], "one"), (p + ".bias", [D], "zero")])
shapes.append(("model.shared.weight", [V, D], "rand"))
for side in ("encoder", "decoder"):
    shapes.append((f"model.{side}.embed_positions.weight", [P, D], "rand"))
    ln(f"model.{side}.layernorm_embedding")
    for l in range(L):
        p = f"model.{side}.layers.{l}"
        for n in ("q", "k", "v", "out"): lin(f"{p}.self_attn.{n}_proj", D, D)
        ln(f"{p}.self_attn_layer_norm")
        if side == "decoder":
            for n in ("q", "k", "v", "out"): lin(f"{p}.encoder_attn.{n}_proj", D, D)
            ln(f"{p}.encoder_attn_layer_norm")
        lin(f"{p}.fc1", F, D); lin(f"{p}.fc2", D, F); ln(f"{p}.final_layer_norm")
shapes.append(("final_logits_bias", [1, V], "zero"))

rng = random.Random(5)
block = array.array("f", [rng.gauss(0, 0.02) for _ in range(1 << 20)])
header, offset = {}, 0
for name, shape, _ in shapes:
    n = 1
    for s in shape: n *= s
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + 4 * n]}
    offset += 4 * n
h = json.dumps(header).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open(f"{OUT}/model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(h)))
    f.write(h)
    k = 0
    for name, shape, kind in shapes:
        n = header[name]["data_offsets"][1] // 4 - header[name]["data_offsets"][0] // 4
        if kind == "one": f.write(array.array("f", [1.0] * n).tobytes()); continue
        if kind == "zero": f.write(bytes(4 * n)); continue
        while n > 0:
            start = (k * 7919) % (1 << 19)
            m = min(n, (1 << 20) - start)
            f.write(block[start:start + m].tobytes())
            n -= m
            k += 1

r = random.Random(3)
with open("/tmp/docs32.jsonl", "w") as f:
    for _ in range(32):
        n = r.randint(128, 1024)
        f.write(json.dumps({"ids": [0] + [4 + r.randrange(V - 5) for _ in range(n - 2)] + [2]}) + "\n")
