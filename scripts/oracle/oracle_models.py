"""The oracle's model specs and their GGUF writer (the gguf package, not ck's
code): small random-weight models of each architecture ck runs, written with
the tensor names and metadata keys llama.cpp's converter writes.

Shapes are small (the files are committed) but keep what distinguishes real
models: head sizes 64-128, grouped-query ratios 1-8, query width above the
embedding width (Qwen3, Gemma 3), partial rotary (Phi-3.5/4-mini), tied and
untied outputs. The vocabulary is stories260K's 512-token SentencePiece one:
the real Llama 3 / Qwen / Gemma / Phi vocabularies (32k-262k tokens) would
make each file 16-130 MB, and the logits tests feed token ids, not text.
"""
import math
from dataclasses import dataclass

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFWriter, RopeScalingType
from gguf.quants import dequantize, quantize


@dataclass
class Spec:
    name: str
    arch: str
    dim: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    layers: int
    rope_base: float
    rope_dim: int = 0                 # 0: the whole head
    tied: bool = False
    qkv_bias: bool = False            # qwen2
    qk_norm: bool = False             # qwen3, gemma3
    llama3_rope: bool = False         # rope_freqs.weight, as the converter computes it for rope_type llama3
    linear_rope: float = 0.0          # rope.scaling.type linear with this factor
    sliding_window: int = 0           # gemma3: local layers; phi3: written, ignored by llama.cpp
    fused: bool = False               # phi3: attn_qkv and ffn_up holding gate and up
    longrope_orig_ctx: int = 0        # phi3 128k-style LongRoPE: rope_factors_long/short, original context
    contexts: tuple = (256,)          # llama.cpp contexts to run (LongRoPE picks its factors by it)
    variants: tuple = ("f32", "q8_0")


SPECS = [
    # Llama 3.2-like: GQA 3, rope_freqs, base 500000.
    Spec("llama3", "llama", dim=192, heads=3, kv_heads=1, head_dim=64, ffn=192, layers=2,
         rope_base=500000.0, llama3_rope=True),
    # Mistral-like llama file with linear RoPE scaling, GQA 1 (multi-head).
    Spec("llama_linear", "llama", dim=128, heads=2, kv_heads=2, head_dim=64, ffn=256, layers=3,
         rope_base=10000.0, linear_rope=4.0),
    Spec("qwen2", "qwen2", dim=128, heads=2, kv_heads=1, head_dim=64, ffn=256, layers=2,
         rope_base=1000000.0, tied=True, qkv_bias=True),
    # Qwen3-0.6B-like: 8 query heads of 64 (wider than dim), one KV head, Q/K norms.
    Spec("qwen3", "qwen3", dim=128, heads=8, kv_heads=1, head_dim=64, ffn=256, layers=2,
         rope_base=1000000.0, tied=True, qk_norm=True),
    # Gemma 3 (1B-like layout): 6 layers = 5 local (window 16, base 10000) + 1 global
    # (base 1e6, linear scaling 8 as in the 4B+ models), head 128, GQA 2, tied output.
    Spec("gemma3", "gemma3", dim=128, heads=2, kv_heads=1, head_dim=128, ffn=128, layers=6,
         rope_base=1000000.0, tied=True, qk_norm=True, linear_rope=8.0, sliding_window=16),
    # Phi-4-mini-like phi3 file: fused QKV and gate/up, GQA 3, partial rotary 3/4,
    # a sliding_window key as Phi-3-mini files carry (llama.cpp ignores it).
    Spec("phi3", "phi3", dim=192, heads=3, kv_heads=1, head_dim=64, ffn=192, layers=2,
         rope_base=10000.0, rope_dim=48, sliding_window=2047, fused=True),
    # Phi-3.5-mini-like LongRoPE with an original context of 256: llama.cpp (and ck)
    # use the short factors at context 256 and the long ones at 512.
    Spec("phi3_longrope", "phi3", dim=128, heads=2, kv_heads=1, head_dim=64, ffn=128, layers=2,
         rope_base=10000.0, rope_dim=32, fused=True, longrope_orig_ctx=256, contexts=(256, 512), variants=("f32",)),
]


def llama3_rope_factors(head_dim, base, factor=8.0, low=1.0, high=4.0, old_ctx=8192):
    """Per-frequency divisors of Llama 3.1's rope_type llama3 (its converter's rule)."""
    out = []
    for i in range(0, head_dim, 2):
        wavelen = 2 * math.pi * base ** (i / head_dim)
        if wavelen < old_ctx / high:
            out.append(1.0)
        elif wavelen > old_ctx / low:
            out.append(factor)
        else:
            smooth = (old_ctx / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def write_model(spec: Spec, path: str, vocab_gguf: str, qtype: GGMLQuantizationType, seed: int,
                dequantized: bool = False):
    """Random weights from `seed`; matrices stored as `qtype` (F32 or Q8_0), vectors F32.
    dequantized: the same model with each quantized matrix stored as its exact
    F32 values (what a run without activation rounding computes)."""
    vocab = GGUFReader(vocab_gguf)
    tokens = vocab.fields["tokenizer.ggml.tokens"].contents()
    n_vocab = len(tokens)
    a = spec.arch
    w = GGUFWriter(path, a)
    w.add_block_count(spec.layers)
    w.add_context_length(8192)
    w.add_embedding_length(spec.dim)
    w.add_feed_forward_length(spec.ffn)
    w.add_head_count(spec.heads)
    w.add_head_count_kv(spec.kv_heads)
    if spec.heads * spec.head_dim != spec.dim:
        w.add_key_length(spec.head_dim)
        w.add_value_length(spec.head_dim)
    w.add_rope_dimension_count(spec.rope_dim or spec.head_dim)
    w.add_rope_freq_base(spec.rope_base)
    w.add_layer_norm_rms_eps(1e-6 if a in ("qwen2", "qwen3", "gemma3") else 1e-5)
    if spec.linear_rope:
        w.add_rope_scaling_type(RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(spec.linear_rope)
    if spec.sliding_window:
        w.add_sliding_window(spec.sliding_window)
    if spec.longrope_orig_ctx:
        # What llama.cpp's converter writes for rope_type longrope (no scaling type key).
        w.add_rope_scaling_orig_ctx_len(spec.longrope_orig_ctx)
        w.add_rope_scaling_attn_factors(math.sqrt(1 + math.log(8192 / spec.longrope_orig_ctx) /
                                                  math.log(spec.longrope_orig_ctx)))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(vocab.fields["tokenizer.ggml.scores"].contents())
    w.add_token_types(vocab.fields["tokenizer.ggml.token_type"].contents())
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    rng = np.random.default_rng(seed)

    def mat(name, rows, cols, scale=None):
        m = (rng.standard_normal((rows, cols)) * (scale or cols ** -0.5)).astype(np.float32)
        if qtype == GGMLQuantizationType.F32:
            w.add_tensor(name, m)
        elif dequantized:
            w.add_tensor(name, dequantize(quantize(m, qtype), qtype).astype(np.float32))
        else:
            w.add_tensor(name, quantize(m, qtype), raw_dtype=qtype)

    def vec(name, n, base=1.0, scale=0.1):
        w.add_tensor(name, (base + rng.standard_normal(n) * scale).astype(np.float32))

    q_dim, kv_dim = spec.heads * spec.head_dim, spec.kv_heads * spec.head_dim
    mat("token_embd.weight", n_vocab, spec.dim, 1.0)
    vec("output_norm.weight", spec.dim)
    if not spec.tied:
        mat("output.weight", n_vocab, spec.dim)
    if spec.llama3_rope:
        w.add_tensor("rope_freqs.weight", llama3_rope_factors(spec.head_dim, spec.rope_base))
    if spec.longrope_orig_ctx:
        half = (spec.rope_dim or spec.head_dim) // 2
        w.add_tensor("rope_factors_long.weight", (1 + 40 * rng.random(half) * np.arange(half) / half).astype(np.float32))
        w.add_tensor("rope_factors_short.weight", (1 + 0.5 * rng.random(half)).astype(np.float32))
    for l in range(spec.layers):
        p = f"blk.{l}."
        vec(p + "attn_norm.weight", spec.dim)
        if spec.fused:
            mat(p + "attn_qkv.weight", q_dim + 2 * kv_dim, spec.dim)
        else:
            mat(p + "attn_q.weight", q_dim, spec.dim)
            mat(p + "attn_k.weight", kv_dim, spec.dim)
            mat(p + "attn_v.weight", kv_dim, spec.dim)
        if spec.qkv_bias:
            vec(p + "attn_q.bias", q_dim, 0.0, 0.5)
            vec(p + "attn_k.bias", kv_dim, 0.0, 0.5)
            vec(p + "attn_v.bias", kv_dim, 0.0, 0.5)
        if spec.qk_norm:
            vec(p + "attn_q_norm.weight", spec.head_dim)
            vec(p + "attn_k_norm.weight", spec.head_dim)
        mat(p + "attn_output.weight", spec.dim, q_dim)
        if a == "gemma3":
            vec(p + "post_attention_norm.weight", spec.dim)
        vec(p + "ffn_norm.weight", spec.dim)
        if spec.fused:
            mat(p + "ffn_up.weight", 2 * spec.ffn, spec.dim)  # gate rows, then up rows
        else:
            mat(p + "ffn_gate.weight", spec.ffn, spec.dim)
            mat(p + "ffn_up.weight", spec.ffn, spec.dim)
        mat(p + "ffn_down.weight", spec.dim, spec.ffn)
        if a == "gemma3":
            vec(p + "post_ffw_norm.weight", spec.dim)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return n_vocab
