#!/usr/bin/env python3
"""Writes the seed GGUFs of the fuzz targets into OUTDIR: tiny llama models
(one layer, dim 32, 4 query / 2 KV heads) with the first 64 tokens of
stories260K's vocabulary, small enough (a few KB) that most mutations hit the
header, metadata and tensor table instead of weight bytes. Variants cover the
converter's paths: all F32 with an untied output, and a tied model with
F16 / Q8_0 / Q4_0 (transcoded) tensors. Also a GGUF with every metadata
value type and a bare v2 header. scripts/fuzz.sh runs this at run time
(nothing derived from the shared data is committed).

usage: make_seeds.py STORIES260K_GGUF OUTDIR
"""
import struct
import sys
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType as Q
from gguf import GGUFReader, GGUFWriter
from gguf.quants import quantize

DIM, HEADS, KV_HEADS, FFN, N_VOCAB = 32, 4, 2, 32, 64


def stories_vocab(path):
    r = GGUFReader(path)
    f = r.fields
    tokens = [bytes(f["tokenizer.ggml.tokens"].parts[i]).decode() for i in f["tokenizer.ggml.tokens"].data[:N_VOCAB]]
    scores = [float(f["tokenizer.ggml.scores"].parts[i][0]) for i in f["tokenizer.ggml.scores"].data[:N_VOCAB]]
    types = [int(f["tokenizer.ggml.token_type"].parts[i][0]) for i in f["tokenizer.ggml.token_type"].data[:N_VOCAB]]
    return tokens, scores, types


def write_model(path, vocab, types_of, tied):
    rng = np.random.default_rng(0)
    w = GGUFWriter(str(path), "llama")
    w.add_context_length(64)
    w.add_embedding_length(DIM)
    w.add_block_count(1)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_rope_dimension_count(DIM // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    tokens, scores, types = vocab
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    def tensor(name, rows, cols, kind):
        x = rng.standard_normal((rows, cols)).astype(np.float32) * 0.1
        if kind == "F32":
            w.add_tensor(name, x)
        elif kind == "F16":
            w.add_tensor(name, x.astype(np.float16))
        else:
            qt = Q[kind]
            w.add_tensor(name, quantize(x, qt), raw_dtype=qt)  # shape from the byte shape

    def vector(name, n):
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    head = DIM // HEADS
    tensor("token_embd.weight", N_VOCAB, DIM, types_of["embd"])
    vector("output_norm.weight", DIM)
    if not tied:
        tensor("output.weight", N_VOCAB, DIM, types_of["embd"])
    vector("blk.0.attn_norm.weight", DIM)
    tensor("blk.0.attn_q.weight", HEADS * head, DIM, types_of["attn"])
    tensor("blk.0.attn_k.weight", KV_HEADS * head, DIM, types_of["attn"])
    tensor("blk.0.attn_v.weight", KV_HEADS * head, DIM, types_of["attn"])
    tensor("blk.0.attn_output.weight", DIM, HEADS * head, types_of["attn"])
    vector("blk.0.ffn_norm.weight", DIM)
    tensor("blk.0.ffn_gate.weight", FFN, DIM, types_of["ffn"])
    tensor("blk.0.ffn_up.weight", FFN, DIM, types_of["ffn"])
    tensor("blk.0.ffn_down.weight", DIM, FFN, types_of["ffn"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_all_types(path):
    """Every metadata value type, nested arrays included, and one tensor."""
    w = GGUFWriter(str(path), "llama")
    w.add_uint8("t.u8", 200)
    w.add_int8("t.i8", -100)
    w.add_uint16("t.u16", 60000)
    w.add_int16("t.i16", -30000)
    w.add_uint32("t.u32", 4000000000)
    w.add_int32("t.i32", -2000000000)
    w.add_float32("t.f32", 1.5)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "caf\u00e9 \u2581x")
    w.add_uint64("t.u64", 2**63)
    w.add_int64("t.i64", -(2**62))
    w.add_float64("t.f64", -0.25)
    w.add_array("t.arr_i32", [1, -2, 3])
    w.add_array("t.arr_str", ["a", "", "\u65e5"])
    w.add_array("t.arr_arr", [[1, 2], [3]])
    w.add_tensor("x.weight", np.arange(32, dtype=np.float32).reshape(1, 32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_v2_header(path):
    """GGUF v2 with one u32 key and no tensors: the smallest valid file of that version."""
    key = b"general.alignment"
    body = struct.pack("<4sIQQ", b"GGUF", 2, 0, 1) + struct.pack("<Q", len(key)) + key + struct.pack("<II", 4, 64)
    path.write_bytes(body)


def main():
    stories, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    vocab = stories_vocab(stories)
    write_model(out / "tiny-f32.gguf", vocab, {"embd": "F32", "attn": "F32", "ffn": "F32"}, tied=False)
    write_model(out / "tiny-quant.gguf", vocab, {"embd": "Q8_0", "attn": "F16", "ffn": "Q4_0"}, tied=True)
    write_all_types(out / "all-types.gguf")
    write_v2_header(out / "v2-header.gguf")


if __name__ == "__main__":
    main()
