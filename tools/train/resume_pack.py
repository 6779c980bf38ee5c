"""Pack a training checkpoint small enough to carry home from a lent GPU, and unpack it.

A base checkpoint (57.5 M parameters) is 690 MB: fp32 weights plus AdamW's two moments.
A GPU session can return about 64 MiB per call, so the pack stores
  * the weights in fp16 (relative rounding 2^-11, far below one optimizer step's change),
  * the first moment in int8, absmax-scaled per block of 256 values,
  * the second moment as uint8 codes of log2(v) per block of 256 (v spans many decades
    inside a block; a linear code would round small v to 0 and turn m / sqrt(v) into a
    huge step), with code 0 kept for v == 0 exactly,
which is 4 bytes per parameter (230 MB for base), split into parts below 16 MiB.

    resume_pack.py pack   CKPT OUTDIR [--part-mib 15]   -> OUTDIR/resume.part-000 ... + resume.json
    resume_pack.py unpack PARTS_DIR CKPT_OUT             -> a checkpoint train.py --resume reads

The unpacked moments differ from the originals by the quantization (reported by `pack`);
continuing from them is close to, not bit-for-bit, continuing the original run.
"""
import argparse
import glob
import hashlib
import io
import json
import os
import sys

import torch

BLOCK = 256


def _blocks(t):
    flat = t.detach().float().reshape(-1)
    pad = (-flat.numel()) % BLOCK
    if pad:
        flat = torch.cat([flat, flat.new_zeros(pad)])
    return flat.view(-1, BLOCK)


def quantize_signed(t):
    b = _blocks(t)
    scale = b.abs().amax(dim=1).clamp_min(1e-30) / 127.0
    q = torch.round(b / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return {"q": q, "scale": scale.float(), "numel": t.numel(), "shape": list(t.shape)}


def dequantize_signed(d):
    return (d["q"].float() * d["scale"][:, None]).reshape(-1)[: d["numel"]].reshape(d["shape"])


def quantize_log(t):
    b = _blocks(t)
    zero = b <= 0
    lg = torch.log2(b.clamp_min(1e-45))
    big = torch.finfo(torch.float32).max
    lo = torch.where(zero, torch.full_like(lg, big), lg).amin(dim=1)
    hi = torch.where(zero, torch.full_like(lg, -big), lg).amax(dim=1)
    lo = torch.where(torch.isfinite(lo) & (lo < big), lo, torch.zeros_like(lo))
    hi = torch.maximum(hi, lo)
    span = (hi - lo).clamp_min(1e-6)
    code = 1 + torch.round((lg - lo[:, None]) / span[:, None] * 254).clamp(0, 254)
    code = torch.where(zero, torch.zeros_like(code), code).to(torch.uint8)
    return {"code": code, "lo": lo.float(), "span": span.float(), "numel": t.numel(), "shape": list(t.shape)}


def dequantize_log(d):
    code = d["code"].float()
    v = torch.exp2(d["lo"][:, None] + (code - 1) / 254 * d["span"][:, None])
    v = torch.where(code == 0, torch.zeros_like(v), v)
    return v.reshape(-1)[: d["numel"]].reshape(d["shape"])


def pack(ckpt_path, out_dir, part_mib):
    ck = torch.load(ckpt_path, map_location="cpu", weights_only=False)
    state = {"model": {k: v.half() if v.is_floating_point() else v for k, v in ck["model"].items()},
             "step": ck["step"], "args": ck["args"], "config": ck["config"],
             "param_groups": ck["optimizer"]["param_groups"], "moments": {}}
    worst_m, worst_v = 0.0, 0.0
    for idx, st in ck["optimizer"]["state"].items():
        m, v = quantize_signed(st["exp_avg"]), quantize_log(st["exp_avg_sq"])
        state["moments"][idx] = {"step": st["step"], "exp_avg": m, "exp_avg_sq": v}
        ref_m, ref_v = st["exp_avg"].float(), st["exp_avg_sq"].float()
        worst_m = max(worst_m, float((dequantize_signed(m) - ref_m).abs().max() / ref_m.abs().max().clamp_min(1e-30)))
        nz = ref_v > 0
        if nz.any():
            worst_v = max(worst_v, float(((dequantize_log(v) - ref_v).abs()[nz] / ref_v[nz]).max()))
    buf = io.BytesIO()
    torch.save(state, buf)
    data = buf.getvalue()
    os.makedirs(out_dir, exist_ok=True)
    part = int(part_mib * 2**20)
    names = []
    for i in range(0, len(data), part):
        name = f"resume.part-{i // part:03d}"
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data[i:i + part])
        names.append(name)
    info = {"step": ck["step"], "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "parts": names,
            "worst_exp_avg_error_vs_tensor_max": worst_m, "worst_exp_avg_sq_relative_error": worst_v}
    json.dump(info, open(os.path.join(out_dir, "resume.json"), "w"), indent=1)
    print(json.dumps(info))


def unpack(parts_dir, ckpt_out):
    info = json.load(open(os.path.join(parts_dir, "resume.json")))
    data = b"".join(open(os.path.join(parts_dir, n), "rb").read() for n in info["parts"])
    if hashlib.sha256(data).hexdigest() != info["sha256"]:
        sys.exit(f"{parts_dir}: the parts do not add up to the packed checkpoint (sha256 differs)")
    st = torch.load(io.BytesIO(data), map_location="cpu", weights_only=False)
    model = {k: v.float() if v.is_floating_point() else v for k, v in st["model"].items()}
    opt_state = {idx: {"step": m["step"], "exp_avg": dequantize_signed(m["exp_avg"]),
                       "exp_avg_sq": dequantize_log(m["exp_avg_sq"])} for idx, m in st["moments"].items()}
    ck = {"model": model, "optimizer": {"state": opt_state, "param_groups": st["param_groups"]},
          "step": st["step"], "args": st["args"], "config": st["config"],
          # the random streams restart from the seed: batches depend only on (seed, step), not on them
          "rng": {"torch": torch.get_rng_state(), "cuda": None}}
    os.makedirs(os.path.dirname(os.path.abspath(ckpt_out)), exist_ok=True)
    torch.save(ck, ckpt_out)
    print(f"{ckpt_out}: step {st['step']}, {len(model)} tensors", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("ckpt")
    p.add_argument("out_dir")
    p.add_argument("--part-mib", type=float, default=15.0)
    u = sub.add_parser("unpack")
    u.add_argument("parts_dir")
    u.add_argument("ckpt_out")
    a = ap.parse_args()
    pack(a.ckpt, a.out_dir, a.part_mib) if a.cmd == "pack" else unpack(a.parts_dir, a.ckpt_out)


if __name__ == "__main__":
    main()
