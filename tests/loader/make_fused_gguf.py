#!/usr/bin/env python3
"""Writes a small random phi3 model (fused attn_qkv and gate/up in ffn_up)
with the gguf package's own writer, for tests/loader: Q8_0 matrices whose
row counts are multiples of 16 except the gate and up halves of ffn_up (40
rows each), and an F32 ffn_down (40 columns, no Q8_0 block fits).

usage: make_fused_gguf.py OUT.gguf
"""
import sys

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFWriter, quants

DIM, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB, LAYERS = 64, 2, 1, 32, 40, 64, 1
rng = np.random.default_rng(99)


def main(out):
    w = GGUFWriter(out, "phi3")
    w.add_block_count(LAYERS)
    w.add_context_length(512)
    w.add_embedding_length(DIM)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_rope_dimension_count(HEAD_DIM)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(["t", "1", "2", "t1", "t2"] + [f"x{i}" for i in range(VOCAB - 5)])
    w.add_token_types([1] * VOCAB)
    w.add_token_merges(["t 1", "t 2"])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)

    def mat(name, rows, cols, qtype=T.Q8_0):
        x = (rng.standard_normal((rows, cols)) * 0.05).astype(np.float32)
        if qtype == T.F32:
            w.add_tensor(name, x)
        else:
            w.add_tensor(name, quants.quantize(x, qtype), raw_dtype=qtype)

    def vec(name, n):
        w.add_tensor(name, (1 + rng.standard_normal(n) * 0.1).astype(np.float32))

    mat("token_embd.weight", VOCAB, DIM)
    vec("output_norm.weight", DIM)
    mat("output.weight", VOCAB, DIM)
    for l in range(LAYERS):
        p = f"blk.{l}."
        vec(p + "attn_norm.weight", DIM)
        mat(p + "attn_qkv.weight", (HEADS + 2 * KV_HEADS) * HEAD_DIM, DIM)
        mat(p + "attn_output.weight", DIM, HEADS * HEAD_DIM)
        vec(p + "ffn_norm.weight", DIM)
        mat(p + "ffn_up.weight", 2 * FFN, DIM)  # gate rows, then up rows
        mat(p + "ffn_down.weight", DIM, FFN, T.F32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main(sys.argv[1])
