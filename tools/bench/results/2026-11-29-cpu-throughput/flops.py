# The float32 arithmetic of the throughput row (32 documents, beam 4, 64 new tokens), counted
# from the documents' lengths and the model's shape; a multiply-add is 2 FLOPs.
import json, sys
docs, d, ffn, layers, vocab = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
beams, new = 4, 64
L = [len(json.loads(l)["ids"]) for l in open(docs)]
enc_proj = sum(L) * layers * 2 * (4 * d * d + 2 * d * ffn)
enc_attn = sum(l * l for l in L) * layers * 4 * d
cross_kv = sum(L) * layers * 2 * 2 * d * d
rows = len(L) * beams * new
dec_proj = rows * (layers * 2 * (6 * d * d + 2 * d * ffn) + 2 * d * vocab)
dec_cross = sum(l * beams * new for l in L) * layers * 4 * d
dec_self = len(L) * beams * sum(range(1, new + 1)) * layers * 4 * d
parts = dict(encoder_products=enc_proj, encoder_attention=enc_attn, cross_keys_values=cross_kv,
             decoder_products_and_lm_head=dec_proj, decoder_cross_attention=dec_cross, decoder_self_attention=dec_self)
total = sum(parts.values())
print(f"{len(L)} documents, {sum(L)} tokens; d={d} ffn={ffn} layers={layers} vocab={vocab}, beam {beams}, {new} new tokens")
for k, v in parts.items(): print(f"  {k:30s} {v / 1e12:6.3f} TFLOP")
print(f"  {'total':30s} {total / 1e12:6.3f} TFLOP")
# the cross-attention's keys and values read each step, float32
kv_bytes = sum(L) * layers * 2 * d * 4 * new
print(f"cross-attention keys and values read over all steps: {kv_bytes / 1e9:.1f} GB")
