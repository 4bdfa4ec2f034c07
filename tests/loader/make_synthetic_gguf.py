#!/usr/bin/env python3
"""Writes a small random qwen2 model with the gguf package's own writer, for
tests/loader: every tensor type the converter must copy or transcode, q/k/v
biases, F16 norms, gate and up of different types, an untied Q6_K output.
With `fused`, a phi3 model instead (fused attn_qkv, gate and up in ffn_up):
Q8_0 matrices whose row counts are multiples of 16 except the gate and up
halves of ffn_up (40 rows each), and an F32 ffn_down (40 columns).

usage: make_synthetic_gguf.py OUT.gguf [fused]
Quantizable types go through gguf.quants.quantize; K-quants and IQ4_XS (which
gguf-py cannot quantize) are random blocks with small fp16 scales.
"""
import sys

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFWriter, quants
from gguf.constants import GGML_QUANT_SIZES

DIM, HEADS, KV_HEADS, FFN, VOCAB, LAYERS = 256, 4, 2, 256, 64, 2
HEAD_DIM = DIM // HEADS
rng = np.random.default_rng(1234)

# Byte offsets of the fp16 scales (d, and dmin where there is one) in each
# block of the types written as random blocks.
K_SCALES = {T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208], T.IQ4_XS: [0]}


def tensor(rows, cols, qtype):
    """(data, raw_dtype) for a rows x cols matrix of type qtype."""
    x = (rng.standard_normal((rows, cols)) * 0.05).astype(np.float32)
    if qtype == T.F32:
        return x, None
    if qtype == T.F16:
        return x.astype(np.float16), None
    if qtype in K_SCALES:
        block, size = GGML_QUANT_SIZES[qtype]
        raw = rng.integers(0, 256, size=(rows, cols // block, size), dtype=np.uint8)
        for off in K_SCALES[qtype]:
            scales = (rng.random((rows, cols // block)) * 0.01 + 0.001).astype(np.float16)
            raw[:, :, off:off + 2] = scales.view(np.uint8).reshape(rows, cols // block, 2)
        return raw.reshape(rows, -1), qtype
    return quants.quantize(x, qtype), qtype


def writer(out, arch, dim, heads, kv_heads, ffn, rope_base, eps):
    """A GGUFWriter with the model's hyper-parameters and a small vocabulary."""
    w = GGUFWriter(out, arch)
    w.add_name("synthetic " + arch)
    w.add_block_count(LAYERS)
    w.add_context_length(512)
    w.add_embedding_length(dim)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_freq_base(rope_base)
    w.add_layer_norm_rms_eps(eps)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list([f"t{i}" for i in range(VOCAB)])
    w.add_token_types([1] * VOCAB)
    w.add_token_merges(["t 1", "t 2"])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    return w


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def fused(out):
    dim, heads, kv_heads, head_dim, ffn = 64, 2, 1, 32, 40
    w = writer(out, "phi3", dim, heads, kv_heads, ffn, 10000.0, 1e-5)
    w.add_rope_dimension_count(head_dim)

    def add(name, rows, cols, qtype=T.Q8_0):
        data, raw = tensor(rows, cols, qtype)
        w.add_tensor(name, data, raw_dtype=raw)

    add("token_embd.weight", VOCAB, dim)
    w.add_tensor("output_norm.weight", np.ones(dim, dtype=np.float32))
    add("output.weight", VOCAB, dim)
    for l in range(LAYERS):
        b = f"blk.{l}."
        w.add_tensor(b + "attn_norm.weight", np.ones(dim, dtype=np.float32))
        add(b + "attn_qkv.weight", (heads + 2 * kv_heads) * head_dim, dim)
        add(b + "attn_output.weight", dim, heads * head_dim)
        w.add_tensor(b + "ffn_norm.weight", np.ones(dim, dtype=np.float32))
        add(b + "ffn_up.weight", 2 * ffn, dim)  # gate rows, then up rows
        add(b + "ffn_down.weight", dim, ffn, T.F32)
    finish(w)


def main(out):
    w = writer(out, "qwen2", DIM, HEADS, KV_HEADS, FFN, 1000000.0, 1e-6)

    def add(name, rows, cols, qtype):
        data, raw = tensor(rows, cols, qtype)
        w.add_tensor(name, data, raw_dtype=raw)

    def vector(name, n, dtype=np.float32):
        w.add_tensor(name, (rng.standard_normal(n) * 0.1).astype(dtype))

    add("token_embd.weight", VOCAB, DIM, T.Q4_0)
    # Per layer: (q, k, v, o, gate, up, down) types.
    layer_types = [
        (T.Q5_1, T.F16, T.BF16, T.Q8_0, T.Q4_1, T.Q5_0, T.Q2_K),
        (T.Q4_K, T.IQ4_XS, T.Q3_K, T.Q5_K, T.Q4_K, T.Q6_K, T.F32),
    ]
    for l, (tq, tk, tv, to, tg, tu, td) in enumerate(layer_types):
        b = f"blk.{l}."
        vector(b + "attn_norm.weight", DIM, np.float16)
        add(b + "attn_q.weight", HEADS * HEAD_DIM, DIM, tq)
        vector(b + "attn_q.bias", HEADS * HEAD_DIM)
        add(b + "attn_k.weight", KV_HEADS * HEAD_DIM, DIM, tk)
        vector(b + "attn_k.bias", KV_HEADS * HEAD_DIM)
        add(b + "attn_v.weight", KV_HEADS * HEAD_DIM, DIM, tv)
        vector(b + "attn_v.bias", KV_HEADS * HEAD_DIM)
        add(b + "attn_output.weight", DIM, HEADS * HEAD_DIM, to)
        vector(b + "ffn_norm.weight", DIM)
        add(b + "ffn_gate.weight", FFN, DIM, tg)
        add(b + "ffn_up.weight", FFN, DIM, tu)
        add(b + "ffn_down.weight", DIM, FFN, td)
    vector("output_norm.weight", DIM, np.float16)
    add("output.weight", VOCAB, DIM, T.Q6_K)
    finish(w)


if __name__ == "__main__":
    fused(sys.argv[1]) if sys.argv[2:] == ["fused"] else main(sys.argv[1])
