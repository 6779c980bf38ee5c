"""A BART-shaped encoder-decoder in plain PyTorch whose state dict uses the
HuggingFace BartForConditionalGeneration tensor names exactly, plus a
hand-written safetensors reader/writer.

Architecture (HF transformers BART, eager path): learned positions with
offset 2, embedding scale 1.0 (scale_embedding false), layernorm_embedding,
post-LN encoder/decoder layers, exact (erf) GELU, q scaled by head_dim^-0.5,
tied input/output embeddings plus a ``final_logits_bias`` buffer, no final
layer norm.  Works with torch 1.13 (Debian 12) and torch 2.x (uses
scaled_dot_product_attention when present).

State-dict keys (identical to a HF safetensors export with tied weights):
  model.shared.weight
  model.{encoder,decoder}.embed_positions.weight          [max_pos + 2, d]
  model.{encoder,decoder}.layernorm_embedding.{weight,bias}
  model.encoder.layers.N.{self_attn.{q,k,v,out}_proj, self_attn_layer_norm, fc1, fc2, final_layer_norm}.*
  model.decoder.layers.N.{... as encoder ..., encoder_attn.{q,k,v,out}_proj, encoder_attn_layer_norm}.*
  final_logits_bias                                      [1, V]
"""
from __future__ import annotations

import json
import math
import struct
from dataclasses import asdict, dataclass
from typing import Dict, Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

_HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


@dataclass
class BartConfig:
    vocab_size: int = 24000
    d_model: int = 512
    encoder_layers: int = 6
    decoder_layers: int = 6
    encoder_attention_heads: int = 8
    decoder_attention_heads: int = 8
    encoder_ffn_dim: int = 2048
    decoder_ffn_dim: int = 2048
    max_position_embeddings: int = 1024
    dropout: float = 0.1
    attention_dropout: float = 0.0
    activation_dropout: float = 0.0
    init_std: float = 0.02
    pad_token_id: int = 1
    bos_token_id: int = 0
    eos_token_id: int = 2
    decoder_start_token_id: int = 2
    mask_token_id: int = 23999

    def to_dict(self):
        return asdict(self)


PRESETS = {
    # 57.5M parameters with V = 24000 (115 MB in fp16)
    "base": dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                 decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048,
                 max_position_embeddings=1024),
    # CPU smoke tests
    "tiny": dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                 decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
                 max_position_embeddings=1024),
}


class LearnedPositionalEmbedding(nn.Embedding):
    """HF BartLearnedPositionalEmbedding: rows 0-1 unused, token i uses row i + 2."""
    offset = 2

    def __init__(self, num_positions: int, dim: int):
        super().__init__(num_positions + self.offset, dim)

    def forward(self, seq_len: int, past: int = 0):  # type: ignore[override]
        pos = torch.arange(past, past + seq_len, device=self.weight.device) + self.offset
        return super().forward(pos)


class Attention(nn.Module):
    def __init__(self, d: int, heads: int, dropout: float):
        super().__init__()
        self.h, self.hd = heads, d // heads
        assert self.hd * heads == d
        self.scaling = self.hd ** -0.5
        self.dropout = dropout
        self.q_proj = nn.Linear(d, d)
        self.k_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.out_proj = nn.Linear(d, d)

    def _shape(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.h, self.hd).transpose(1, 2)

    def forward(self, x, kv=None, key_mask=None, causal=False):
        """x [B,Tq,d]; kv [B,Tk,d] (None: self); key_mask bool [B,Tk] True = attend."""
        kv = x if kv is None else kv
        q = self._shape(self.q_proj(x))
        k = self._shape(self.k_proj(kv))
        v = self._shape(self.v_proj(kv))
        b, _, tq, _ = q.shape
        tk = k.shape[2]
        p = self.dropout if self.training else 0.0
        if _HAS_SDPA:
            mask = None
            if key_mask is not None:
                mask = key_mask[:, None, None, :].expand(b, 1, tq, tk)
            if causal:
                cm = torch.ones(tq, tk, dtype=torch.bool, device=x.device).tril()
                mask = cm[None, None] if mask is None else (mask & cm)
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        else:
            s = torch.matmul(q * self.scaling, k.transpose(-1, -2)).float()
            neg = torch.finfo(torch.float32).min
            if key_mask is not None:
                s = s.masked_fill(~key_mask[:, None, None, :], neg)
            if causal:
                cm = torch.ones(tq, tk, dtype=torch.bool, device=x.device).tril()
                s = s.masked_fill(~cm, neg)
            a = F.dropout(torch.softmax(s, dim=-1), p=p, training=self.training).to(v.dtype)
            o = torch.matmul(a, v)
        o = o.transpose(1, 2).reshape(b, tq, self.h * self.hd)
        return self.out_proj(o)


class EncoderLayer(nn.Module):
    def __init__(self, c: BartConfig):
        super().__init__()
        d = c.d_model
        self.self_attn = Attention(d, c.encoder_attention_heads, c.attention_dropout)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, c.encoder_ffn_dim)
        self.fc2 = nn.Linear(c.encoder_ffn_dim, d)
        self.final_layer_norm = nn.LayerNorm(d)
        self.dropout, self.act_dropout = c.dropout, c.activation_dropout

    def forward(self, h, key_mask):
        r = h
        h = F.dropout(self.self_attn(h, key_mask=key_mask), self.dropout, self.training)
        h = self.self_attn_layer_norm(r + h)
        r = h
        h = F.dropout(F.gelu(self.fc1(h)), self.act_dropout, self.training)
        h = F.dropout(self.fc2(h), self.dropout, self.training)
        return self.final_layer_norm(r + h)


class DecoderLayer(nn.Module):
    def __init__(self, c: BartConfig):
        super().__init__()
        d = c.d_model
        self.self_attn = Attention(d, c.decoder_attention_heads, c.attention_dropout)
        self.self_attn_layer_norm = nn.LayerNorm(d)
        self.encoder_attn = Attention(d, c.decoder_attention_heads, c.attention_dropout)
        self.encoder_attn_layer_norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, c.decoder_ffn_dim)
        self.fc2 = nn.Linear(c.decoder_ffn_dim, d)
        self.final_layer_norm = nn.LayerNorm(d)
        self.dropout, self.act_dropout = c.dropout, c.activation_dropout

    def forward(self, h, enc, enc_mask):
        r = h
        h = F.dropout(self.self_attn(h, causal=True), self.dropout, self.training)
        h = self.self_attn_layer_norm(r + h)
        r = h
        h = F.dropout(self.encoder_attn(h, kv=enc, key_mask=enc_mask), self.dropout, self.training)
        h = self.encoder_attn_layer_norm(r + h)
        r = h
        h = F.dropout(F.gelu(self.fc1(h)), self.act_dropout, self.training)
        h = F.dropout(self.fc2(h), self.dropout, self.training)
        return self.final_layer_norm(r + h)


class Stack(nn.Module):
    def __init__(self, c: BartConfig, layer_cls, n_layers):
        super().__init__()
        self.embed_positions = LearnedPositionalEmbedding(c.max_position_embeddings, c.d_model)
        self.layers = nn.ModuleList([layer_cls(c) for _ in range(n_layers)])
        self.layernorm_embedding = nn.LayerNorm(c.d_model)
        self.dropout = c.dropout

    def embed(self, shared, ids):
        h = shared(ids) * 1.0 + self.embed_positions(ids.shape[1])  # scale_embedding = false
        return F.dropout(self.layernorm_embedding(h), self.dropout, self.training)


class BartModel(nn.Module):
    def __init__(self, c: BartConfig):
        super().__init__()
        self.shared = nn.Embedding(c.vocab_size, c.d_model, padding_idx=c.pad_token_id)
        self.encoder = Stack(c, EncoderLayer, c.encoder_layers)
        self.decoder = Stack(c, DecoderLayer, c.decoder_layers)


class BartForConditionalGeneration(nn.Module):
    def __init__(self, c: BartConfig):
        super().__init__()
        self.config = c
        self.model = BartModel(c)
        self.register_buffer("final_logits_bias", torch.zeros(1, c.vocab_size))
        self.apply(self._init_weights)

    def _init_weights(self, m):
        std = self.config.init_std
        if isinstance(m, nn.Linear):
            m.weight.data.normal_(0.0, std)
            if m.bias is not None:
                m.bias.data.zero_()
        elif isinstance(m, nn.Embedding):
            m.weight.data.normal_(0.0, std)
            if m.padding_idx is not None:
                m.weight.data[m.padding_idx].zero_()

    def encode(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = input_ids.ne(self.config.pad_token_id)
        key_mask = attention_mask.bool()
        enc = self.model.encoder
        h = enc.embed(self.model.shared, input_ids)
        for layer in enc.layers:
            h = layer(h, key_mask)
        return h, key_mask

    def decode(self, decoder_input_ids, enc, enc_mask):
        dec = self.model.decoder
        h = dec.embed(self.model.shared, decoder_input_ids)
        for layer in dec.layers:
            h = layer(h, enc, enc_mask)
        return h

    def forward(self, input_ids, decoder_input_ids, attention_mask=None):
        enc, enc_mask = self.encode(input_ids, attention_mask)
        h = self.decode(decoder_input_ids, enc, enc_mask)
        return F.linear(h, self.model.shared.weight) + self.final_logits_bias.to(h.dtype)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------
# safetensors (format: 8-byte LE header length N, JSON header padded with
# spaces to a multiple of 8, then raw little-endian row-major data)
# --------------------------------------------------------------------------
_DT = {"F32": (np.float32, 4), "F16": (np.float16, 2), "I64": (np.int64, 8), "I32": (np.int32, 4),
       "BF16": (np.uint16, 2), "U8": (np.uint8, 1)}


def save_safetensors(path: str, tensors: Dict[str, torch.Tensor], dtype: str = "F16",
                     metadata: Optional[Dict[str, str]] = None) -> None:
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        if t.is_floating_point():
            tdt = dtype
            if dtype == "F16":
                arr = t.to(torch.float16).numpy()
            elif dtype == "F32":
                arr = t.to(torch.float32).numpy()
            elif dtype == "BF16":
                arr = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
            else:
                raise ValueError(dtype)
        else:
            tdt, arr = "I64", t.to(torch.int64).numpy()
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": tdt, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for b in blobs:
            f.write(b)


def read_safetensors_header(path: str) -> dict:
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n).decode("utf-8"))


def load_safetensors(path: str) -> Dict[str, np.ndarray]:
    """Returns float32 / int64 numpy arrays (F16 and BF16 are widened)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n).decode("utf-8"))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        npdt, _ = _DT[info["dtype"]]
        b, e = info["data_offsets"]
        arr = np.frombuffer(data[b:e], dtype=np.dtype(npdt).newbyteorder("<")).reshape(info["shape"])
        if info["dtype"] == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        elif info["dtype"] == "F16":
            arr = arr.astype(np.float32)
        out[name] = arr.copy()
    return out


def config_from_hf(cfg: dict) -> BartConfig:
    keys = BartConfig.__dataclass_fields__.keys()
    return BartConfig(**{k: cfg[k] for k in keys if k in cfg})
