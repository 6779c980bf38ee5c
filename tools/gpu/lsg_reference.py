#!/usr/bin/env python3
"""The LSG seed's own implementation on the GPU, for run.sh's "lsgref" phase: the
`modeling_lsg_bart.py` that HuggingFace users load with `trust_remote_code` (ccdv-ai's
convert_checkpoint_to_lsg, commit c56734b), timed on the same random weights and attention
settings as Precis's `precis-bench --model` cells beside it.

The reference is written for transformers 4.36 (it imports BART's internals with `import *`,
which newer releases no longer export), so the device call carries a site folder with
transformers 4.36.2, huggingface_hub 0.20.3 and lsg_converter (bundle.sh packs it from
build-ct2/hf-site; nothing of it is in this repository) and runs this script with that
folder first on PYTHONPATH, over the machine's own torch. Two shims let the old release
import there: transformers 4.36 refuses tokenizers newer than 0.18 at import, so while it is
imported it reads an accepted version (BART's model code never uses tokenizers), and torch's
renamed pytree registration is given its old name when it is missing.

    lsg_reference.py --model DIR [--lengths 4096,16384] [--beams 4] [--new-tokens 64]
                     [--block-size 128] [--sparsity-factor 4] [--sparsity-type norm]
                     [--global-tokens 1] [--repeat 5] [--dtype fp16] [--budget S]

DIR is a BART checkpoint (hf_many_docs.py --make-model): its weights go into an
LSGBartForConditionalGeneration whose position table is the checkpoint's tiled to the
longest length (what the reference's converter and Precis's --max-positions both do); the
global token embeddings, which a BART checkpoint lacks, are the converter's initialisation
(the first position and token embedding). Per length: the encoder (median of --repeat after a
warm-up) and generate(num_beams, exactly --new-tokens new tokens, early_stopping=False)
once after a short warm-up. Prints one JSON line per length, then a summary line.
"""
import argparse
import json
import os
import statistics
import sys
import time

T0 = time.time()


def log(*a):
    print("[lsg-ref %6.1fs]" % (time.time() - T0), *a, file=sys.stderr, flush=True)


def emit(obj):
    print(json.dumps(obj), flush=True)


def import_reference():
    # transformers 4.36 refuses tokenizers newer than 0.18 when it is imported, though BART's
    # model code never calls it (only its tokenizer does, which this script does not load):
    # while transformers is imported, the version it reads for tokenizers is one it accepts.
    import importlib.metadata as metadata
    real_version = metadata.version
    metadata.version = lambda name: "0.15.2" if name == "tokenizers" else real_version(name)
    import torch.utils._pytree as pytree
    if not hasattr(pytree, "_register_pytree_node") and hasattr(pytree, "register_pytree_node"):
        def _register(cls, flatten, unflatten, *a, **k):
            return pytree.register_pytree_node(cls, flatten, unflatten, *a, **k)
        pytree._register_pytree_node = _register
    try:
        import transformers
        from lsg_converter.bart.modeling_lsg_bart import LSGBartConfig, LSGBartForConditionalGeneration
    finally:
        metadata.version = real_version
    return transformers, LSGBartConfig, LSGBartForConditionalGeneration


def load_weights(model_dir):
    from safetensors.torch import load_file
    return load_file(os.path.join(model_dir, "model.safetensors"))


def build_model(args, torch, LSGBartConfig, LSGBartForConditionalGeneration, positions):
    conf = json.load(open(os.path.join(args.model, "config.json")))
    trained = conf["max_position_embeddings"]
    for k in ("architectures", "transformers_version", "torch_dtype", "model_type"):
        conf.pop(k, None)
    conf.update(max_position_embeddings=positions, block_size=args.block_size, sparse_block_size=args.block_size,
                sparsity_factor=args.sparsity_factor, sparsity_type=args.sparsity_type,
                num_global_tokens=args.global_tokens, adaptive=True, mask_first_token=False,
                pass_global_tokens_to_decoder=True, pool_with_global=True)
    cfg = LSGBartConfig(**conf)
    torch.manual_seed(5)
    model = LSGBartForConditionalGeneration(cfg)
    state = load_weights(args.model)
    shared = state["model.shared.weight"]
    state["lm_head.weight"] = shared
    state["model.encoder.embed_tokens.weight"] = shared
    state["model.decoder.embed_tokens.weight"] = shared
    for side in ("encoder", "decoder"):
        key = "model.%s.embed_positions.weight" % side
        table = state[key]  # trained + 2 rows: BART's offset of 2, then the positions
        body = table[2:]
        reps = -(-positions // trained)
        state[key] = torch.cat([table[:2], body.repeat(reps, 1)[:positions]], 0)
    # The converter's start for the global tokens: the first position and token embedding.
    glob = "model.encoder.global_embeddings.weight"
    if glob in model.state_dict() and glob not in state:
        g = model.state_dict()[glob]
        state[glob] = (state["model.encoder.embed_positions.weight"][2:3] + shared[0:1]).expand_as(g).clone()
    missing, unexpected = model.load_state_dict(state, strict=False)
    return model, sorted(missing), sorted(unexpected), trained


def sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--lengths", default="4096,16384")
    ap.add_argument("--beams", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--block-size", type=int, default=128)
    ap.add_argument("--sparsity-factor", type=int, default=4)
    ap.add_argument("--sparsity-type", default="norm")
    ap.add_argument("--global-tokens", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16", "fp32"])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds: no new length starts after this")
    args = ap.parse_args()

    import torch
    transformers, LSGBartConfig, LSGBartForConditionalGeneration = import_reference()
    lengths = [int(x) for x in args.lengths.split(",")]
    device = args.device if torch.cuda.is_available() or args.device == "cpu" else "cpu"
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
    if device == "cpu":
        dtype = torch.float32
    model, missing, unexpected, trained = build_model(args, torch, LSGBartConfig, LSGBartForConditionalGeneration,
                                                      max(lengths))
    model = model.to(device=device, dtype=dtype).eval()
    setup = {"torch": torch.__version__, "transformers": transformers.__version__, "device": device,
             "gpu": torch.cuda.get_device_name() if device == "cuda" else None, "dtype": str(dtype).split(".")[-1],
             "trained_positions": trained, "positions": max(lengths), "block_size": args.block_size,
             "sparsity_factor": args.sparsity_factor, "sparsity_type": args.sparsity_type,
             "global_tokens": args.global_tokens, "beams": args.beams, "new_tokens": args.new_tokens,
             "missing_keys": missing, "unexpected_keys": unexpected, "load_seconds": round(time.time() - T0, 2)}
    emit({"setup": setup})
    log("loaded", json.dumps(setup))
    gen = torch.Generator().manual_seed(11)
    vocab = model.config.vocab_size
    for length in lengths:
        if time.time() - T0 > args.budget:
            emit({"length": length, "error": "not run: budget spent"})
            continue
        try:
            ids = torch.randint(4, vocab - 1, (1, length), generator=gen)
            ids[0, 0], ids[0, -1] = 0, 2
            ids = ids.to(device)
            mask = torch.ones_like(ids)
            enc = model.get_encoder()
            times = []
            with torch.inference_mode():
                for i in range(args.repeat + 1):
                    sync(torch, device)
                    t = time.perf_counter()
                    enc(input_ids=ids, attention_mask=mask)
                    sync(torch, device)
                    if i:  # the first is the warm-up
                        times.append(time.perf_counter() - t)
                kw = dict(input_ids=ids, attention_mask=mask, num_beams=args.beams, early_stopping=False,
                          no_repeat_ngram_size=0, length_penalty=1.0, decoder_start_token_id=2, forced_bos_token_id=None,
                          forced_eos_token_id=None, do_sample=False)
                model.generate(**kw, max_new_tokens=4, min_new_tokens=4)  # warm-up
                if device == "cuda":
                    torch.cuda.reset_peak_memory_stats()
                sync(torch, device)
                t = time.perf_counter()
                out = model.generate(**kw, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens)
                sync(torch, device)
                gen_s = time.perf_counter() - t
            enc_s = statistics.median(times)
            new = out.shape[1] - 1  # the decoder start token is not generated
            # generate() encodes once more: decoding is what is left after the encoder's median;
            # on a busy machine that can be nothing, and then there is no figure (not 1e9 tok/s).
            decode_s = gen_s - enc_s
            emit({"length": length, "encoder_seconds": round(enc_s, 5), "encoder_all": [round(x, 5) for x in times],
                  "generate_seconds": round(gen_s, 4), "new_tokens": new,
                  "beam_tokens_per_second": round(new / decode_s, 1) if decode_s > 0 else None,
                  "peak_gpu_memory_mb": round(torch.cuda.max_memory_allocated() / 2**20) if device == "cuda" else None})
        except Exception as e:  # one length failing (out of memory included) leaves the others
            emit({"length": length, "error": "%s: %s" % (type(e).__name__, str(e)[:400])})
            if device == "cuda":
                torch.cuda.empty_cache()
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
