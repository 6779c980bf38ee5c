#!/usr/bin/env python3
"""HuggingFace transformers on the same shape as `precis-bench --shape base`, for the GPU
report's side by side (run.sh): random weights, bart-base dimensions, fp16, SDPA attention.

  * encoder seconds at 4k and 16k tokens (full attention: what LSG is compared against),
    after a warm-up, median of --repeat runs;
  * generate() tokens/s, greedy and 5 beams, exactly 256 new tokens (min = max), on a 1k
    and a 4k input.

Prints one JSON object: {"setup": {...}, "cases": [{"case": ..., ...}]}. A case that fails
(out of memory included) is recorded with its error and the next one runs; --budget stops
starting new cases once that many seconds are spent, so the device call keeps its limit.
"""
import argparse
import json
import statistics
import sys
import time
import traceback

T0 = time.time()


def log(*a):
    print("[hf %5.1fs]" % (time.time() - T0), *a, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--encoder-lengths", default="4096,16384")
    ap.add_argument("--generate-lengths", default="1024,4096")
    ap.add_argument("--new-tokens", type=int, default=256)
    ap.add_argument("--beams", default="1,5", help="beam counts for generate (1 = greedy)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds; no case starts after it")
    args = ap.parse_args()

    result = {"setup": {}, "cases": []}
    try:
        import torch
        import transformers
        from transformers import BartConfig, BartForConditionalGeneration, BartModel
    except Exception as e:  # no torch: say so in the JSON, not only in a traceback
        result["setup"]["error"] = "import failed: %r" % (e,)
        print(json.dumps(result, indent=2))
        return 1

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.float16 if dev == "cuda" else torch.float32
    max_len = max(int(x) for x in (args.encoder_lengths + "," + args.generate_lengths).split(","))
    # bart-base's dimensions; the learned position table grows to the longest input (BART
    # adds its offset of 2 rows itself).
    cfg = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                     encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                     decoder_ffn_dim=3072, max_position_embeddings=max(1024, max_len))
    result["setup"] = {
        "torch": torch.__version__, "transformers": transformers.__version__, "device": dev,
        "gpu": torch.cuda.get_device_name(0) if dev == "cuda" else None, "dtype": str(dtype),
        "max_position_embeddings": cfg.max_position_embeddings, "repeat": args.repeat,
        "new_tokens": args.new_tokens,
    }

    def build(cls):
        # transformers 5 names the dtype argument `dtype`, 4.x `torch_dtype`; either way the
        # weights are made on the GPU directly (random init of 140M parameters on the CPU is slow).
        with torch.device(dev):
            for kw in ({"dtype": dtype}, {"torch_dtype": dtype}):
                try:
                    m = cls._from_config(cfg, attn_implementation="sdpa", **kw)
                    break
                except TypeError:
                    continue
            else:
                m = cls(cfg)
                m.config._attn_implementation = "sdpa"
        return m.to(dev, dtype).eval()

    def sync():
        if dev == "cuda":
            torch.cuda.synchronize()

    def ids(n, seed=7):
        g = torch.Generator().manual_seed(seed)
        x = torch.randint(4, cfg.vocab_size - 1, (1, n), generator=g)
        x[0, 0], x[0, -1] = cfg.bos_token_id, cfg.eos_token_id
        return x.to(dev)

    def run_case(name, fn):
        if time.time() - T0 > args.budget:
            result["cases"].append({"case": name, "skipped": "budget of %.0f s spent" % args.budget})
            log(name, "skipped (budget)")
            return
        log(name, "...")
        if dev == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        entry = {"case": name}
        try:
            entry.update(fn())
            if dev == "cuda":
                entry["peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 1e6, 1)
        except torch.cuda.OutOfMemoryError as e:
            entry["error"] = "out of memory: " + str(e).splitlines()[0]
        except Exception as e:
            entry["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            traceback.print_exc(file=sys.stderr)
        result["cases"].append(entry)
        log(name, json.dumps(entry))

    model = None
    try:
        model = build(BartModel)
        result["setup"]["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    except Exception as e:
        result["setup"]["error_encoder_model"] = "%s: %s" % (type(e).__name__, e)
    if model is not None:
        encoder = model.get_encoder()
        for n in (int(x) for x in args.encoder_lengths.split(",")):
            def enc(n=n):
                x = ids(n)
                with torch.inference_mode():
                    encoder(input_ids=x)  # warm-up: kernels chosen, memory pooled
                    sync()
                    times = []
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        encoder(input_ids=x)
                        sync()
                        times.append(time.perf_counter() - t)
                return {"length": n, "encoder_seconds_median": statistics.median(times),
                        "encoder_seconds_min": min(times), "runs": len(times)}
            run_case("encoder-%d" % n, enc)
        del encoder, model
        if dev == "cuda":
            torch.cuda.empty_cache()

    gen_model = None
    try:
        gen_model = build(BartForConditionalGeneration)
    except Exception as e:
        result["setup"]["error_generation_model"] = "%s: %s" % (type(e).__name__, e)
    if gen_model is not None:
        for n in (int(x) for x in args.generate_lengths.split(",")):
            for beams in (int(b) for b in args.beams.split(",")):
                def gen(n=n, beams=beams):
                    x = ids(n)
                    kw = dict(num_beams=beams, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens,
                              do_sample=False, early_stopping=False, no_repeat_ngram_size=0, length_penalty=1.0,
                              decoder_start_token_id=cfg.decoder_start_token_id, forced_bos_token_id=None,
                              forced_eos_token_id=None)
                    with torch.inference_mode():
                        # The encoder alone, to tell the decoding rate apart from the whole call's.
                        gen_model.get_encoder()(input_ids=x)
                        sync()
                        t = time.perf_counter()
                        gen_model.get_encoder()(input_ids=x)
                        sync()
                        enc_s = time.perf_counter() - t
                        gen_model.generate(x, **dict(kw, max_new_tokens=8, min_new_tokens=8))  # warm-up
                        sync()
                        t = time.perf_counter()
                        out = gen_model.generate(x, **kw)
                        sync()
                        total = time.perf_counter() - t
                    new = int(out.shape[1]) - 1  # the decoder start token is not generated
                    return {"length": n, "beams": beams, "new_tokens": new, "seconds": total,
                            "tokens_per_second": new / total,
                            "tokens_per_second_without_encoder": new / max(1e-9, total - enc_s),
                            "encoder_seconds": enc_s}
                run_case("generate-%d-beams%d" % (n, beams), gen)

    result["total_seconds"] = time.time() - T0
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
