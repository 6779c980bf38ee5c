#!/usr/bin/env python3
"""Pre-train (BART denoising) or fine-tune (summarization) the Precis model.

    # pre-training: text infilling (Poisson(3) spans, 30 %) + sentence permutation
    python3 tools/train/train.py --phase pretrain --data build-data/precis24k --out runs/pt \
        --preset base --steps 20000 --batch-size 32 --lr 6e-4 --warmup 1000
    # fine-tuning on cnn + wiki_lead from the pre-trained weights
    python3 tools/train/train.py --phase finetune --data build-data/precis24k --out runs/ft \
        --init runs/pt/checkpoint-last.pt --steps 5000 --batch-size 32 --lr 1e-4 --warmup 300
    # resume either after an interruption: same command plus --resume

Batches are a pure function of (seed, global micro-batch index): examples are
drawn with replacement by np.random.default_rng([seed, phase, index]) and
noised with the same generator, so --resume continues exactly where the
checkpoint left off and DataLoader workers need no coordination.
Logs go to <out>/log.csv (step, split, loss, lr, tokens, tok_per_s, elapsed_s).
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bart_model import PRESETS, BartConfig, BartForConditionalGeneration, count_parameters  # noqa: E402
from noising import Noiser, word_start_table  # noqa: E402

PAD, BOS, EOS = 1, 0, 2
PHASE_ID = {"pretrain": 1, "finetune": 2}


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def _load_shards(paths, keys):
    parts = {k: [] for k in keys}
    for p in sorted(paths):
        with np.load(p, allow_pickle=False) as z:
            for k in keys:
                parts[k].append(z[k])
    return parts


def _cat_offsets(offs):
    out, base = [np.zeros(1, np.int64)], 0
    for o in offs:
        out.append(o[1:] + base)
        base += int(o[-1])
    return np.concatenate(out)


class PretrainData:
    def __init__(self, root, split, max_examples=0):
        paths = glob.glob(os.path.join(root, "pretrain", split, "shard-*.npz"))
        if not paths:
            raise SystemExit(f"no pre-training shards under {root}/pretrain/{split}")
        p = _load_shards(paths, ["tokens", "ex_offsets", "sent_offsets"])
        self.tokens = np.concatenate(p["tokens"])
        self.ex = _cat_offsets(p["ex_offsets"])
        self.sent = np.unique(np.concatenate([_cat_offsets(p["sent_offsets"]), self.ex]))
        self.n = len(self.ex) - 1 if not max_examples else min(max_examples, len(self.ex) - 1)

    def example(self, i):
        b, e = int(self.ex[i]), int(self.ex[i + 1])
        lo, hi = np.searchsorted(self.sent, b), np.searchsorted(self.sent, e)
        bounds = self.sent[lo:hi + 1] - b
        return self.tokens[b:e].astype(np.int64), bounds


class FinetuneData:
    def __init__(self, root, split, tasks, max_examples=0):
        self.src, self.tgt = [], []
        srcs, src_offs, tgts, tgt_offs = [], [], [], []
        for task in tasks:
            paths = glob.glob(os.path.join(root, "finetune", f"{task}-{split}-*.npz"))
            if not paths:
                raise SystemExit(f"no fine-tuning shards {root}/finetune/{task}-{split}-*.npz")
            p = _load_shards(paths, ["src_tokens", "src_offsets", "tgt_tokens", "tgt_offsets"])
            srcs += p["src_tokens"]; src_offs += p["src_offsets"]
            tgts += p["tgt_tokens"]; tgt_offs += p["tgt_offsets"]
        self.src_tokens, self.src_off = np.concatenate(srcs), _cat_offsets(src_offs)
        self.tgt_tokens, self.tgt_off = np.concatenate(tgts), _cat_offsets(tgt_offs)
        self.n = len(self.src_off) - 1 if not max_examples else min(max_examples, len(self.src_off) - 1)

    def example(self, i):
        s = self.src_tokens[self.src_off[i]:self.src_off[i + 1]].astype(np.int64)
        t = self.tgt_tokens[self.tgt_off[i]:self.tgt_off[i + 1]].astype(np.int64)
        return s, t


def _collate(pairs, max_len):
    b = len(pairs)
    body = max_len - 2
    srcs = [np.concatenate([[BOS], s[:body], [EOS]]) for s, _ in pairs]
    tgts = [np.concatenate([[BOS], t[:body], [EOS]]) for _, t in pairs]
    ts, tt = max(map(len, srcs)), max(map(len, tgts))
    input_ids = np.full((b, ts), PAD, np.int64)
    dec_in = np.full((b, tt), PAD, np.int64)
    labels = np.full((b, tt), -100, np.int64)
    for i, (s, t) in enumerate(zip(srcs, tgts)):
        input_ids[i, :len(s)] = s
        dec_in[i, 0] = EOS  # decoder_start_token_id = 2, shift right
        dec_in[i, 1:len(t)] = t[:-1]
        labels[i, :len(t)] = t
    return {"input_ids": torch.from_numpy(input_ids), "decoder_input_ids": torch.from_numpy(dec_in),
            "labels": torch.from_numpy(labels)}


class BatchStream(torch.utils.data.Dataset):
    """Item g = micro-batch number g of the run (deterministic)."""

    def __init__(self, data, phase, batch_size, max_len, seed, noiser=None, length=10**12):
        self.data, self.phase, self.bs, self.max_len = data, phase, batch_size, max_len
        self.seed, self.noiser, self.length = seed, noiser, length

    def __len__(self):
        return self.length

    def __getitem__(self, g):
        rng = np.random.default_rng([self.seed, PHASE_ID[self.phase], int(g)])
        idx = rng.integers(0, self.data.n, size=self.bs)
        pairs = []
        for i in idx:
            if self.phase == "pretrain":
                toks, bounds = self.data.example(int(i))
                pairs.append((self.noiser(toks, bounds, rng), toks))
            else:
                pairs.append(self.data.example(int(i)))
        return _collate(pairs, self.max_len)


# --------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------
def lr_at(step, args):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    frac = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * max(args.min_lr_ratio, 1.0 - frac)


def loss_fn(logits, labels, smoothing):
    return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1),
                           ignore_index=-100, label_smoothing=smoothing)


def save_checkpoint(path, model, opt, step, args, cfg):
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step,
             "args": vars(args), "config": cfg.to_dict(),
             "rng": {"torch": torch.get_rng_state(), "python": random.getstate(),
                     "numpy": np.random.get_state(),
                     "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}}
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


@torch.no_grad()
def evaluate(model, stream, n_batches, device, amp_dtype, smoothing):
    model.eval()
    tot, n_tok = 0.0, 0
    for g in range(n_batches):
        b = {k: v.to(device) for k, v in stream[g].items()}
        with torch.autocast(device_type=device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            logits = model(b["input_ids"], b["decoder_input_ids"])
        n = int((b["labels"] != -100).sum())
        tot += float(F.cross_entropy(logits.float().view(-1, logits.shape[-1]), b["labels"].view(-1),
                                     ignore_index=-100, reduction="sum"))
        n_tok += n
    model.train()
    return tot / max(1, n_tok)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phase", choices=["pretrain", "finetune"], required=True)
    ap.add_argument("--data", required=True, help="prepare_data.py output folder")
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", action="store_true", help="continue from <out>/checkpoint-last.pt")
    ap.add_argument("--init", default="", help="checkpoint whose weights start the run (fine-tuning)")
    ap.add_argument("--preset", default="base", choices=sorted(PRESETS))
    for k in ["d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "decoder_attention_heads",
              "encoder_ffn_dim", "decoder_ffn_dim", "max_position_embeddings"]:
        ap.add_argument("--" + k.replace("_", "-"), type=int, default=None)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--max-len", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--min-lr-ratio", type=float, default=0.0)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--label-smoothing", type=float, default=None, help="default 0 (pretrain) / 0.1 (finetune)")
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--tasks", default="cnn,wiki_lead")
    ap.add_argument("--mask-ratio", type=float, default=0.3)
    ap.add_argument("--poisson-lambda", type=float, default=3.0)
    ap.add_argument("--random-ratio", type=float, default=0.1)
    ap.add_argument("--permute", type=float, default=1.0)
    ap.add_argument("--max-examples", type=int, default=0, help="use only the first N examples (smoke tests)")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--eval-batches", type=int, default=20)
    ap.add_argument("--save-every", type=int, default=1000)
    ap.add_argument("--num-workers", type=int, default=4)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (torch >= 2)")
    ap.add_argument("--max-minutes", type=float, default=0, help="save and stop after this wall time")
    ap.add_argument("--fit-minutes", type=float, default=0,
                    help="time steps 200-300 and set --steps so that the LR schedule ends after this many "
                         "minutes (the chosen --steps is printed; pass it when resuming)")
    args = ap.parse_args()
    if args.label_smoothing is None:
        args.label_smoothing = 0.0 if args.phase == "pretrain" else 0.1

    os.makedirs(args.out, exist_ok=True)
    manifest = json.load(open(os.path.join(args.data, "manifest.json")))
    random.seed(args.seed); np.random.seed(args.seed); torch.manual_seed(args.seed)

    device = torch.device(("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device)
    amp_dtype = torch.bfloat16 if device.type == "cuda" and torch.cuda.is_bf16_supported() else None
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True

    ckpt_path = os.path.join(args.out, "checkpoint-last.pt")
    resume = torch.load(ckpt_path, map_location="cpu", weights_only=False) if args.resume and os.path.exists(ckpt_path) else None
    if resume:
        cfg = BartConfig(**resume["config"])
    else:
        over = {k: getattr(args, k) for k in PRESETS["base"] if getattr(args, k, None) is not None}
        cfg = BartConfig(**{**PRESETS[args.preset], **over, "vocab_size": manifest["vocab_size"],
                            "mask_token_id": manifest["mask_id"], "dropout": args.dropout})
        if args.init:
            init = torch.load(args.init, map_location="cpu", weights_only=False)
            cfg = BartConfig(**{**init["config"], "dropout": args.dropout})
    model = BartForConditionalGeneration(cfg)
    if args.init and not resume:
        model.load_state_dict(init["model"])
        print(f"initialised from {args.init} (step {init['step']})", file=sys.stderr)
    model.to(device)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98), eps=1e-6,
                            **({"fused": True} if device.type == "cuda" and torch.__version__ >= "2" else {}))
    start = 0
    if resume:
        model.load_state_dict(resume["model"])
        opt.load_state_dict(resume["optimizer"])
        start = resume["step"]
        torch.set_rng_state(resume["rng"]["torch"])
        if resume["rng"].get("cuda") is not None and device.type == "cuda":
            torch.cuda.set_rng_state_all(resume["rng"]["cuda"])
        print(f"resumed from {ckpt_path} at step {start}", file=sys.stderr)
    fwd = torch.compile(model) if args.compile else model
    print(f"model: {count_parameters(model) / 1e6:.2f}M parameters, config {json.dumps(cfg.to_dict())}",
          file=sys.stderr)
    print(f"device {device}, amp {amp_dtype}, torch {torch.__version__}", file=sys.stderr)

    # data
    noiser = None
    if args.phase == "pretrain":
        import sentencepiece as spm
        spm_path = os.path.join(args.data, manifest["spm_model"])
        if not os.path.exists(spm_path):
            spm_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", manifest["spm_model"])
        sp = spm.SentencePieceProcessor(model_file=spm_path)
        word_start = word_start_table(sp)
        noiser = Noiser(word_start, manifest["mask_id"], manifest["vocab_size"], args.mask_ratio,
                        args.poisson_lambda, args.random_ratio, args.permute)
        train_data = PretrainData(args.data, "train", args.max_examples)
        val_data = PretrainData(args.data, "validation", args.max_examples)
    else:
        tasks = args.tasks.split(",")
        train_data = FinetuneData(args.data, "train", tasks, args.max_examples)
        val_data = FinetuneData(args.data, "validation", tasks, args.max_examples)
    print(f"examples: train {train_data.n}, validation {val_data.n}", file=sys.stderr)
    train_stream = BatchStream(train_data, args.phase, args.batch_size, args.max_len, args.seed, noiser)
    val_stream = BatchStream(val_data, args.phase, args.batch_size, args.max_len, args.seed + 1, noiser)
    first_g = start * args.grad_accum
    sampler = range(first_g, args.steps * args.grad_accum)
    loader = torch.utils.data.DataLoader(train_stream, batch_size=None, sampler=sampler,
                                         num_workers=args.num_workers, pin_memory=device.type == "cuda",
                                         persistent_workers=False, prefetch_factor=4 if args.num_workers else None) \
        if args.num_workers else (train_stream[g] for g in sampler)

    log_path = os.path.join(args.out, "log.csv")
    new_log = not os.path.exists(log_path)
    logf = open(log_path, "a", newline="")
    log = csv.writer(logf)
    if new_log:
        log.writerow(["phase", "step", "split", "loss", "lr", "tokens", "tok_per_s", "elapsed_s"])
    t0 = time.time()
    # the loss is summed on the device and read back only when logged: a read per step
    # would make the host wait for the GPU every step
    t_last, tok_since, loss_acc, n_acc = t0, 0, torch.zeros((), device=device), 0
    fit_t0 = None
    step = start
    model.train()
    it = iter(loader)
    while step < args.steps:
        lr = lr_at(step, args)
        for gr in opt.param_groups:
            gr["lr"] = lr
        for _ in range(args.grad_accum):
            b = {k: v.to(device, non_blocking=True) for k, v in next(it).items()}
            with torch.autocast(device_type=device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
                logits = fwd(b["input_ids"], b["decoder_input_ids"])
            loss = loss_fn(logits, b["labels"], args.label_smoothing) / args.grad_accum
            loss.backward()
            loss_acc += loss.detach().float() * args.grad_accum
            n_acc += 1
            tok_since += int(b["input_ids"].numel() + b["labels"].numel())
        if args.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        # timed after the start: on an H100 the first ~150 steps ran at 0.28 s/step against
        # 0.09 s/step later (loader warm-up), and a fit from steps 10-40 ended the run 3x early
        if args.fit_minutes and step - start in (200, 300):
            if device.type == "cuda":
                torch.cuda.synchronize()
            if step - start == 200:
                fit_t0 = time.time()
            else:
                sec_per_step = (time.time() - fit_t0) / 100
                left = 60 * args.fit_minutes - (time.time() - t0)
                args.steps = min(args.steps, step + max(1, int(left / sec_per_step)))
                print(f"fit: {sec_per_step:.4f} s/step -> --steps {args.steps}", file=sys.stderr)
        if step % args.log_every == 0 or step == args.steps:
            now = time.time()
            row = [args.phase, step, "train", f"{float(loss_acc) / n_acc:.4f}", f"{lr:.3e}", tok_since,
                   f"{tok_since / (now - t_last):.0f}", f"{now - t0:.1f}"]
            log.writerow(row); logf.flush()
            print(" ".join(map(str, row)), file=sys.stderr)
            t_last, tok_since, loss_acc, n_acc = now, 0, torch.zeros((), device=device), 0
        stop = args.max_minutes and (time.time() - t0) > 60 * args.max_minutes
        if step % args.eval_every == 0 or step == args.steps or stop:
            vl = evaluate(model, val_stream, args.eval_batches, device, amp_dtype, 0.0)
            row = [args.phase, step, "validation", f"{vl:.4f}", f"{lr:.3e}", "", "", f"{time.time() - t0:.1f}"]
            log.writerow(row); logf.flush()
            print(" ".join(map(str, row)), f"(ppl {math.exp(min(vl, 50)):.1f})", file=sys.stderr)
        if step % args.save_every == 0 or step == args.steps or stop:
            save_checkpoint(ckpt_path, model, opt, step, args, cfg)
        if stop:
            print(f"stopping after {args.max_minutes} min at step {step}; rerun with --resume", file=sys.stderr)
            break
    logf.close()


if __name__ == "__main__":
    main()
