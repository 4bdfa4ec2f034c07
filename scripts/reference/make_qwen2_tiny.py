#!/usr/bin/env python3
"""Writes tests/runtime/golden/qwen2_tiny.gguf: a tiny random qwen2 model.

No small real qwen2 GGUF is available offline, and the qwen2 path differs from
llama exactly where bugs hide (Q/K/V biases, NeoX RoPE pairing, partial
rotary dimension), so this file exercises it: random F32 weights (seed 0),
stories260K's vocabulary, 2 layers, dim 32, 2 query heads sharing 1 KV head,
head size 16 of which RoPE rotates 8, tied output. make_golden.py then computes its golden logits
with the reference forward pass.

Usage: python3 scripts/reference/make_qwen2_tiny.py [--shared ../shared/data]
"""
import argparse
import os

import numpy as np
from gguf import GGUFReader, GGUFWriter

DIM, HEADS, KV_HEADS, HEAD_DIM, ROPE_DIM, FFN, LAYERS, CTX = 32, 2, 1, 16, 8, 64, 2, 128


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    args = ap.parse_args()
    vocab = GGUFReader(os.path.join(args.shared, "models", "stories260K.gguf"))
    tokens = vocab.fields["tokenizer.ggml.tokens"].contents()
    scores = vocab.fields["tokenizer.ggml.scores"].contents()
    types = vocab.fields["tokenizer.ggml.token_type"].contents()
    n_vocab = len(tokens)

    out = os.path.join(root, "tests", "runtime", "golden", "qwen2_tiny.gguf")
    w = GGUFWriter(out, "qwen2")
    w.add_block_count(LAYERS)
    w.add_context_length(CTX)
    w.add_embedding_length(DIM)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_dimension_count(ROPE_DIM)
    w.add_rope_freq_base(1000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    rng = np.random.default_rng(0)

    def mat(rows, cols, scale=None):
        return (rng.standard_normal((rows, cols)) * (scale or cols ** -0.5)).astype(np.float32)

    def vec(n, base=0.0, scale=0.5):
        return (base + rng.standard_normal(n) * scale).astype(np.float32)

    q_dim, kv_dim = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    w.add_tensor("token_embd.weight", mat(n_vocab, DIM, 1.0))  # tied output: no output.weight
    w.add_tensor("output_norm.weight", vec(DIM, 1.0, 0.1))
    for l in range(LAYERS):
        p = f"blk.{l}."
        w.add_tensor(p + "attn_norm.weight", vec(DIM, 1.0, 0.1))
        w.add_tensor(p + "attn_q.weight", mat(q_dim, DIM))
        w.add_tensor(p + "attn_q.bias", vec(q_dim))
        w.add_tensor(p + "attn_k.weight", mat(kv_dim, DIM))
        w.add_tensor(p + "attn_k.bias", vec(kv_dim))
        w.add_tensor(p + "attn_v.weight", mat(kv_dim, DIM))
        w.add_tensor(p + "attn_v.bias", vec(kv_dim))
        w.add_tensor(p + "attn_output.weight", mat(DIM, q_dim))
        w.add_tensor(p + "ffn_norm.weight", vec(DIM, 1.0, 0.1))
        w.add_tensor(p + "ffn_gate.weight", mat(FFN, DIM))
        w.add_tensor(p + "ffn_up.weight", mat(FFN, DIM))
        w.add_tensor(p + "ffn_down.weight", mat(DIM, FFN))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")


if __name__ == "__main__":
    main()
