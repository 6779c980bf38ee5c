#!/usr/bin/env python3
"""HuggingFace transformers' generate() over many documents, for run.sh's "docs" phase: the
yardstick Precis's `precis-bench --docs` is compared against (same documents, same weights,
beam 4, exactly 128 new tokens, fp16, SDPA attention).

Two modes.

  --make-model DIR [--shape base|tiny] [--positions 4096] [--seed 5]
      Writes a random BART checkpoint that both sides load: bart-base's dimensions (vocabulary
      50265, d_model 768, 6 + 6 layers, 12 heads, FFN 3072) with a learned position table of
      --positions + 2 rows (BART's offset of 2), as config.json, generation_config.json and
      model.safetensors (float32; the embedding table once, as model.shared.weight, the way
      save_pretrained writes tied weights and Precis reads them). Precis converts it to LSG in
      memory (--attention lsg); HF runs it as it is: full attention. Prints one JSON line.

  --model DIR --docs DOCS.jsonl [--batch-sizes 64,32,8,1] [--limit 1=16] ...
      Loads DIR with BartForConditionalGeneration (attn_implementation="sdpa" when this
      transformers has it for BART, else its default, said in the JSON), in fp16 on the GPU
      (fp32 on the CPU), with the position table extended by tiling to the longest document
      when it is shorter. Then for each batch size: the documents (the first --limit of them,
      in the file's order, when a limit is given for that batch size) sorted by length and cut
      into batches of that size, each right-padded (pad id 1) with an attention_mask; one
      warm-up batch (the longest, 8 new tokens); then every batch through
      generate(num_beams, max_new_tokens = min_new_tokens = --new-tokens, early_stopping=False,
      no_repeat_ngram_size=0, length_penalty=1.0) timed with torch.cuda.synchronize, and the
      peak of torch.cuda.max_memory_allocated (weights included). Prints one JSON line per
      batch size as it finishes (flushed, so a run killed by its timeout keeps the lines it
      printed), after a {"setup": ...} line. A batch size that fails (out of memory included)
      prints its error and the next one runs; --budget (seconds since start) stops starting
      new batch sizes.

The documents file is make_docs.py's: one {"ids": [...]} a line, bos first, eos last.
"""
import argparse
import contextlib
import json
import os
import sys
import time
import traceback

T0 = time.time()


def log(*a):
    print("[hf-docs %6.1fs]" % (time.time() - T0), *a, file=sys.stderr, flush=True)


def emit(obj):
    print(json.dumps(obj), flush=True)


def shape_config(BartConfig, shape, positions):
    dims = {
        "base": dict(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
                     decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072),
        # For a dry run on a CPU only.
        "tiny": dict(vocab_size=1000, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64),
    }[shape]
    # bos 0, pad 1, eos 2, decoder start 2: BART's; no forced tokens (both sides generate
    # exactly --new-tokens free tokens).
    return BartConfig(max_position_embeddings=positions, bos_token_id=0, pad_token_id=1, eos_token_id=2,
                      decoder_start_token_id=2, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, **dims)


def make_model(args):
    import torch
    import transformers
    from transformers import BartConfig, BartForConditionalGeneration
    from safetensors.torch import save_file

    torch.manual_seed(args.seed)
    cfg = shape_config(BartConfig, args.shape, args.positions)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    # Random init of 140M parameters is much faster on the GPU (torch >= 2 has the context).
    where = torch.device(dev) if hasattr(torch.device(dev), "__enter__") else contextlib.nullcontext()
    with where:
        model = BartForConditionalGeneration(cfg)
    state = model.state_dict()
    tensors = {}
    for k, v in state.items():
        # The tied copies of model.shared.weight (the LM head, both embed_tokens) stay out,
        # as save_pretrained leaves them out; final_logits_bias (zeros) stays in.
        if k in ("lm_head.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"):
            continue
        tensors[k] = v.detach().to("cpu", torch.float32).contiguous()
    os.makedirs(args.make_model, exist_ok=True)
    save_file(tensors, os.path.join(args.make_model, "model.safetensors"), metadata={"format": "pt"})
    # config.json written here, field by field as the fixtures' bart-tiny has them (which both
    # sides load), not by save_pretrained, whose output and checks on generation settings in a
    # model config differ between transformers versions. No forced tokens: both sides generate
    # exactly --new-tokens free tokens.
    conf = {"architectures": ["BartForConditionalGeneration"], "model_type": "bart", "is_encoder_decoder": True,
            "activation_function": "gelu", "activation_dropout": 0.0, "attention_dropout": 0.0, "dropout": 0.0,
            "classifier_dropout": 0.0, "encoder_layerdrop": 0.0, "decoder_layerdrop": 0.0, "init_std": 0.02,
            "scale_embedding": False, "use_cache": True, "num_hidden_layers": cfg.encoder_layers,
            "forced_bos_token_id": None, "forced_eos_token_id": None, "torch_dtype": "float32",
            "transformers_version": transformers.__version__}
    for k in ("vocab_size", "d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads",
              "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim", "max_position_embeddings",
              "bos_token_id", "pad_token_id", "eos_token_id", "decoder_start_token_id"):
        conf[k] = getattr(cfg, k)
    with open(os.path.join(args.make_model, "config.json"), "w") as f:
        json.dump(conf, f, indent=2, sort_keys=True)
    gen = {"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2, "pad_token_id": 1,
           "transformers_version": transformers.__version__}
    with open(os.path.join(args.make_model, "generation_config.json"), "w") as f:
        json.dump(gen, f, indent=2)
    params = sum(v.numel() for v in tensors.values())
    emit({"model": args.make_model, "shape": args.shape, "positions": args.positions, "seed": args.seed,
          "parameters": params, "bytes": os.path.getsize(os.path.join(args.make_model, "model.safetensors")),
          "made_on": dev, "seconds": round(time.time() - T0, 2), "torch": torch.__version__,
          "transformers": transformers.__version__})
    return 0


def load_docs(path):
    docs = []
    with open(path) as f:
        for line in f:
            if line.strip():
                docs.append(json.loads(line)["ids"])
    return docs


def extend_positions(torch, model, n):
    """Tiles the learned position tables (rows after BART's offset of 2) to n positions, as
    Precis's --max-positions and the LSG conversion do; no-op when they already cover n."""
    done = False
    for stack in (model.model.encoder, model.model.decoder):
        emb = stack.embed_positions
        w = emb.weight.data
        offset = getattr(emb, "offset", 2)
        have = w.shape[0] - offset
        if have >= n:
            continue
        body = w[offset:]
        reps = -(-n // have)
        new = torch.cat([w[:offset], body.repeat(reps, 1)[:n]], dim=0)
        emb.weight = torch.nn.Parameter(new, requires_grad=False)
        emb.num_embeddings = new.shape[0]
        done = True
    if done:
        model.config.max_position_embeddings = n
    return done


def time_docs(args):
    setup = {}
    try:
        import torch
        import transformers
        from transformers import BartForConditionalGeneration
    except Exception as e:
        emit({"setup": {"error": "import failed: %r" % (e,)}})
        return 1

    if args.device == "auto":
        dev = "cuda" if torch.cuda.is_available() else "cpu"
    else:
        dev = args.device
    dtype = {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16}[
        args.dtype if args.dtype != "auto" else ("fp16" if dev == "cuda" else "fp32")]
    cuda = dev == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize()

    docs = load_docs(args.docs)
    longest = max(len(d) for d in docs)
    setup.update({"torch": torch.__version__, "transformers": transformers.__version__, "device": dev,
                  "gpu": torch.cuda.get_device_name(0) if cuda else None, "dtype": str(dtype).replace("torch.", ""),
                  "documents": len(docs), "longest": longest, "mean_length": sum(map(len, docs)) / len(docs),
                  "beams": args.beams, "new_tokens": args.new_tokens, "model": args.model})

    # SDPA where this transformers has it for BART (4.36 raises: BART's SDPA came later, and it
    # needs torch >= 2.1.1); the default otherwise, said in every line. The weights are read as
    # they are stored (float32) and cast after, which every transformers version does the same way.
    t = time.time()
    model, attn_note = None, None
    if args.attn_implementation != "default":
        try:
            model = BartForConditionalGeneration.from_pretrained(args.model, attn_implementation=args.attn_implementation)
        except Exception as e:
            attn_note = "%s unavailable (%s: %s); the default attention instead" % (
                args.attn_implementation, type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
            log(attn_note)
    if model is None:
        model = BartForConditionalGeneration.from_pretrained(args.model)
    model = model.to(dev, dtype).eval()
    setup["attn_implementation"] = getattr(model.config, "_attn_implementation", None) or "eager (no attribute)"
    if attn_note:
        setup["attn_note"] = attn_note
    setup["positions_extended"] = extend_positions(torch, model, longest)
    setup["positions"] = int(model.model.encoder.embed_positions.weight.shape[0]) - 2
    setup["load_seconds"] = round(time.time() - t, 2)
    emit({"setup": setup})
    log("loaded:", json.dumps(setup))

    pad = model.config.pad_token_id if model.config.pad_token_id is not None else 1
    kw = dict(num_beams=args.beams, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, do_sample=False,
              early_stopping=False, no_repeat_ngram_size=0, length_penalty=1.0,
              decoder_start_token_id=model.config.decoder_start_token_id, forced_bos_token_id=None,
              forced_eos_token_id=None)

    def batches_of(docs_sorted, b):
        out = []
        for i in range(0, len(docs_sorted), b):
            chunk = docs_sorted[i:i + b]
            n = max(len(d) for d in chunk)
            ids = torch.full((len(chunk), n), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), n), dtype=torch.long)
            for r, d in enumerate(chunk):  # right padding, HF's usual for an encoder's input
                ids[r, :len(d)] = torch.tensor(d, dtype=torch.long)
                mask[r, :len(d)] = 1
            out.append((ids.to(dev), mask.to(dev)))
        return out

    oom = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
    limits = {}
    for part in filter(None, (args.limit or "").split(",")):
        b, k = part.split("=")
        limits[int(b)] = int(k)

    for b in (int(x) for x in args.batch_sizes.split(",")):
        entry = {"system": "hf", "batch_size": b, "documents_total": len(docs), "beams": args.beams,
                 "attn_implementation": setup["attn_implementation"], "dtype": setup["dtype"], "device": dev}
        if time.time() - T0 > args.budget:
            entry["skipped"] = "budget of %.0f s spent" % args.budget
            emit(entry)
            log("batch", b, "skipped (budget)")
            continue
        k = min(limits.get(b, len(docs)), len(docs))
        order = sorted(range(k), key=lambda i: len(docs[i]))  # the first k in the file's order, by length
        chosen = [docs[i] for i in order]
        entry.update({"documents": k, "mean_length": sum(map(len, chosen)) / k})
        if k < len(docs):
            entry["subset"] = "the first %d of %d documents (file order), sorted by length" % (k, len(docs))
        log("batch", b, "documents", k, "...")
        batches = None
        try:
            if cuda:
                torch.cuda.empty_cache()
            batches = batches_of(chosen, b)
            real = sum(len(d) for d in chosen)
            padded = sum(int(ids.numel()) for ids, _ in batches)
            entry["padding_fraction"] = round(1 - real / padded, 4)
            entry["batches"] = len(batches)
            with torch.inference_mode():
                t = time.perf_counter()
                ids, mask = batches[-1]  # warm-up: the longest batch, few tokens
                model.generate(ids, attention_mask=mask, **dict(kw, max_new_tokens=min(8, args.new_tokens),
                                                                  min_new_tokens=min(8, args.new_tokens)))
                sync()
                entry["warmup_seconds"] = round(time.perf_counter() - t, 3)
                if cuda:
                    torch.cuda.reset_peak_memory_stats()
                generated = 0
                per_doc = set()
                outs = []
                sync()
                t = time.perf_counter()
                for ids, mask in batches:
                    out = model.generate(ids, attention_mask=mask, **kw)
                    generated += int(out.shape[0]) * (int(out.shape[1]) - 1)  # the start token is not generated
                    per_doc.add(int(out.shape[1]) - 1)
                    if args.ids:
                        outs.append(out)
                sync()
                seconds = time.perf_counter() - t
            if args.ids:  # each document's best sequence, start token first, in the file's order
                rows = [r for out in outs for r in out.tolist()]
                ids_by_doc = [None] * k
                for i, r in zip(order, rows):
                    ids_by_doc[i] = r
                entry["ids"] = ids_by_doc
            entry.update({"seconds": seconds, "documents_per_second": k / seconds,
                          "new_tokens_per_second": generated / seconds, "generated_tokens": generated,
                          "new_tokens": sorted(per_doc)[0] if len(per_doc) == 1 else sorted(per_doc)})
            if k < len(docs):
                entry["seconds_scaled_to_all"] = len(docs) / entry["documents_per_second"]
            if cuda:
                entry["peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 1e6, 1)
        except oom as e:
            entry["error"] = "out of memory: " + str(e).splitlines()[0][:300]
        except Exception as e:
            entry["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
            traceback.print_exc(file=sys.stderr)
        del batches
        emit(entry)
        log("batch", b, json.dumps(entry))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make-model", metavar="DIR", help="write a random checkpoint to DIR and exit")
    ap.add_argument("--shape", default="base", choices=["base", "tiny"])
    ap.add_argument("--positions", type=int, default=4096, help="position table (plus BART's 2 offset rows)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--model", help="the checkpoint folder to time")
    ap.add_argument("--docs", help="make_docs.py's documents file")
    ap.add_argument("--batch-sizes", default="64,32,8,1", help="in the order they run (best candidates first)")
    ap.add_argument("--limit", default="", help="B=K,...: batch size B times only the first K documents")
    ap.add_argument("--beams", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--dtype", default="auto", choices=["auto", "fp16", "bf16", "fp32"],
                    help="auto: fp16 on the GPU, fp32 on the CPU")
    ap.add_argument("--attn-implementation", default="sdpa", help="sdpa, eager, or default (no argument)")
    ap.add_argument("--ids", action="store_true", help="also print each document's generated ids (file order)")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds; no batch size starts after it")
    args = ap.parse_args()
    if args.make_model:
        return make_model(args)
    if not (args.model and args.docs):
        ap.error("give --make-model DIR, or --model DIR and --docs FILE")
    return time_docs(args)


if __name__ == "__main__":
    sys.exit(main())
