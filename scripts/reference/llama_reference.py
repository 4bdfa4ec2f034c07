#!/usr/bin/env python3
"""Independent reference forward pass for llama-family GGUF models.

Written from the math (RMSNorm, RoPE, grouped-query attention, SwiGLU), with
numpy and the `gguf` package's reader and dequantizer only: none of it comes
from the C++ runtime. It computes in float64 so that it is the "exact" model
the C++ float32 runtime is compared against.

Usage:
  python3 scripts/reference/llama_reference.py MODEL.gguf --prompt "Once upon a time" -n 40
  python3 scripts/reference/llama_reference.py MODEL.gguf --ids 1,403,407,261,378 -n 40

Prompts are tokenized by the small tokenizers in tokenize_ref.py (also
independent of ours); --ids bypasses them.
"""
import argparse
import sys

import numpy as np
from gguf import GGUFReader
from gguf.constants import GGMLQuantizationType
from gguf.quants import dequantize, quantize

import tokenize_ref


def field(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


class Config:
    def __init__(self, reader):
        arch = field(reader, "general.architecture")
        if arch not in ("llama", "qwen2"):
            raise SystemExit(f"reference: architecture {arch!r} not supported")
        self.arch = arch
        self.n_layers = field(reader, f"{arch}.block_count")
        self.dim = field(reader, f"{arch}.embedding_length")
        self.n_heads = field(reader, f"{arch}.attention.head_count")
        self.n_kv_heads = field(reader, f"{arch}.attention.head_count_kv", self.n_heads)
        self.head_dim = field(reader, f"{arch}.attention.key_length", self.dim // self.n_heads)
        self.ffn_dim = field(reader, f"{arch}.feed_forward_length")
        self.rope_dim = field(reader, f"{arch}.rope.dimension_count", self.head_dim)
        self.rope_base = field(reader, f"{arch}.rope.freq_base", 10000.0)
        self.rms_eps = field(reader, f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
        # llama files store Q/K permuted for adjacent-pair RoPE; qwen2 uses NeoX halves.
        self.rope_neox = arch != "llama"


def load_weights(reader, transcode_q8_0=False):
    """name -> float64 array shaped (rows, cols) as gguf-py gives it.

    transcode_q8_0 re-quantizes every non-native quantized matrix (Q5_0 etc.)
    to Q8_0 with gguf-py's quantizer, as the bump converter does, to measure
    how much that transcoding alone moves the logits."""
    native = {GGMLQuantizationType.F32, GGMLQuantizationType.F16, GGMLQuantizationType.BF16,
              GGMLQuantizationType.Q4_0, GGMLQuantizationType.Q4_1, GGMLQuantizationType.Q8_0,
              GGMLQuantizationType.Q4_K, GGMLQuantizationType.Q5_K, GGMLQuantizationType.Q6_K}
    w = {}
    for t in reader.tensors:
        x = dequantize(t.data, t.tensor_type)
        if transcode_q8_0 and t.tensor_type not in native:
            x = dequantize(quantize(x.astype(np.float32), GGMLQuantizationType.Q8_0),
                           GGMLQuantizationType.Q8_0)
        w[t.name] = x.astype(np.float64)
    return w


def rmsnorm(x, weight, eps):
    # x: (T, dim); normalize each row by its root mean square, then scale.
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope(x, positions, cfg):
    # x: (T, heads, head_dim). Rotate the first rope_dim dims of each head.
    half = cfg.rope_dim // 2
    inv_freq = cfg.rope_base ** (-np.arange(half, dtype=np.float64) * 2.0 / cfg.rope_dim)
    angle = positions[:, None] * inv_freq[None, :]            # (T, half)
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    out = x.copy()
    if cfg.rope_neox:
        a, b = x[..., :half], x[..., half:cfg.rope_dim]      # pair i with i + half
        out[..., :half] = a * cos - b * sin
        out[..., half:cfg.rope_dim] = a * sin + b * cos
    else:
        a, b = x[..., 0:cfg.rope_dim:2], x[..., 1:cfg.rope_dim:2]  # pair 2i with 2i+1
        out[..., 0:cfg.rope_dim:2] = a * cos - b * sin
        out[..., 1:cfg.rope_dim:2] = a * sin + b * cos
    return out


def forward(cfg, w, tokens):
    """Logits (T, vocab) for every position of `tokens`, causal attention."""
    T = len(tokens)
    pos = np.arange(T, dtype=np.float64)
    x = w["token_embd.weight"][np.asarray(tokens)]            # (T, dim)
    group = cfg.n_heads // cfg.n_kv_heads
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for l in range(cfg.n_layers):
        p = f"blk.{l}."
        h = rmsnorm(x, w[p + "attn_norm.weight"], cfg.rms_eps)
        q = h @ w[p + "attn_q.weight"].T
        k = h @ w[p + "attn_k.weight"].T
        v = h @ w[p + "attn_v.weight"].T
        if p + "attn_q.bias" in w:
            q, k, v = q + w[p + "attn_q.bias"], k + w[p + "attn_k.bias"], v + w[p + "attn_v.bias"]
        q = rope(q.reshape(T, cfg.n_heads, cfg.head_dim), pos, cfg)
        k = rope(k.reshape(T, cfg.n_kv_heads, cfg.head_dim), pos, cfg)
        v = v.reshape(T, cfg.n_kv_heads, cfg.head_dim)
        att_out = np.empty((T, cfg.n_heads, cfg.head_dim))
        for hd in range(cfg.n_heads):
            kv = hd // group                                  # grouped-query attention
            scores = q[:, hd, :] @ k[:, kv, :].T / np.sqrt(cfg.head_dim) + mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            att_out[:, hd, :] = scores @ v[:, kv, :]
        x = x + att_out.reshape(T, -1) @ w[p + "attn_output.weight"].T
        h = rmsnorm(x, w[p + "ffn_norm.weight"], cfg.rms_eps)
        gate = h @ w[p + "ffn_gate.weight"].T
        up = h @ w[p + "ffn_up.weight"].T
        x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w[p + "ffn_down.weight"].T
    x = rmsnorm(x, w["output_norm.weight"], cfg.rms_eps)
    out = w.get("output.weight", w["token_embd.weight"])      # tied when absent
    return x @ out.T


def greedy_steps(cfg, w, tokens, n, eos=None):
    """The greedy continuation of tokens: per step the chosen token, the
    runner-up and the margin between their logits (where that margin is
    within a runtime's error bound, either token is a correct answer)."""
    tokens = list(tokens)
    steps = []
    for _ in range(n):
        logits = forward(cfg, w, tokens)[-1]
        best, second = (int(i) for i in np.argsort(-logits, kind="stable")[:2])
        steps.append((best, second, float(logits[best] - logits[second])))
        tokens.append(best)
        if best == eos:
            break
    return steps


def greedy(cfg, w, tokens, n, eos=None):
    return list(tokens) + [best for best, _, _ in greedy_steps(cfg, w, tokens, n, eos)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--prompt")
    ap.add_argument("--ids", help="comma-separated token ids (instead of --prompt)")
    ap.add_argument("-n", type=int, default=40, help="tokens to generate greedily")
    args = ap.parse_args()
    reader = GGUFReader(args.model)
    cfg = Config(reader)
    tok = tokenize_ref.from_reader(reader)
    ids = [int(s) for s in args.ids.split(",")] if args.ids else tok.encode(args.prompt)
    print("prompt ids:", ids, file=sys.stderr)
    out = greedy(cfg, load_weights(reader), ids, args.n, eos=tok.eos)
    print("generated ids:", out[len(ids):], file=sys.stderr)
    print(tok.decode(out))


if __name__ == "__main__":
    main()
