#!/usr/bin/env python3
"""Regenerates reference_ids.json: token ids for a few sentences from tokenizers
that share no code with ours, built from the same GGUF vocabularies.

- stories260K (SentencePiece-style): Google's `sentencepiece` library, with a
  ModelProto assembled from tokenizer.ggml.{tokens,scores,token_type}
  (model_type BPE, byte fallback, dummy prefix, no whitespace folding: the
  settings of the Llama-2 tokenizer that TinyStories models use).
- SmolLM2 (byte-level BPE): Hugging Face `tokenizers` (Rust), with the BPE
  model from tokenizer.ggml.{tokens,merges} and SmolLM2's tokenizer.json
  pre-tokenizer: Sequence[Digits(individual_digits), ByteLevel(no prefix space)];
  control tokens are added as special tokens, so they are matched in text.

Also the count and a digest of the ids of the whole WikiText-2 test text.

Run from the repository root (needs: pip install gguf sentencepiece protobuf tokenizers):
    python3 tests/tokenizer/golden/make_reference_ids.py
"""
import json
import os
import sys

import gguf
from sentencepiece import SentencePieceProcessor
from sentencepiece import sentencepiece_model_pb2 as spm_pb2
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STORIES = os.path.join(ROOT, "..", "shared", "data", "models", "stories260K.gguf")
SMOLLM = os.path.join(ROOT, "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
VECTORS = os.path.join(ROOT, "..", "shared", "data", "tokenizer-tests")
WIKITEXT = os.path.join(ROOT, "..", "shared", "data", "wikitext-2", "wikitext-2-raw-v1.test.txt")

SENTENCES = [
    "Once upon a time, there was a little girl named Lily.",
    "She loved to play outside in the park with her dog, Max!",
    "The quick brown fox jumps over the lazy dog 1234567890 times.",
    "  Two leading spaces,\ttabs\tand\nnew lines\n\nand trailing   ",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u2014 \U0001F600 \u65e5\u672c\u8a9e \u0416\u0438\u0437\u043d\u044c",
    "I'm sure you'll like it, won't you? We've done it.",
]
CHATML = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"


def field(reader, key):
    f = reader.fields[key]
    if f.types[0] == gguf.GGUFValueType.ARRAY:
        if f.types[-1] == gguf.GGUFValueType.STRING:
            return [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        return [f.parts[i][0].item() for i in f.data]
    return f.parts[f.data[0]][0].item()


def fnv1a64(ids):
    """FNV-1a over the ids as little-endian int32: the whole-corpus lists are
    too long to commit, so the test compares this digest and the count."""
    h = 0xCBF29CE484222325
    for i in ids:
        for b in int(i).to_bytes(4, "little", signed=True):
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def sentencepiece_processor(path):
    r = gguf.GGUFReader(path)
    tokens, scores, types = (field(r, "tokenizer.ggml." + k) for k in ("tokens", "scores", "token_type"))
    proto = spm_pb2.ModelProto()
    proto.trainer_spec.model_type = spm_pb2.TrainerSpec.BPE
    proto.trainer_spec.byte_fallback = True
    proto.trainer_spec.unk_id = field(r, "tokenizer.ggml.unknown_token_id")
    proto.trainer_spec.bos_id = field(r, "tokenizer.ggml.bos_token_id")
    proto.trainer_spec.eos_id = field(r, "tokenizer.ggml.eos_token_id")
    proto.trainer_spec.pad_id = -1
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = True
    proto.normalizer_spec.remove_extra_whitespaces = False
    proto.normalizer_spec.escape_whitespaces = True
    for text, score, kind in zip(tokens, scores, types):
        piece = proto.pieces.add()
        piece.piece, piece.score, piece.type = text, score, kind
    return SentencePieceProcessor(model_proto=proto.SerializeToString())


def hf_byte_level_tokenizer(path, digits=True):
    r = gguf.GGUFReader(path)
    tokens, types, merges = (field(r, "tokenizer.ggml." + k) for k in ("tokens", "token_type", "merges"))
    vocab = {t: i for i, t in enumerate(tokens)}
    bpe = models.BPE(vocab=vocab, merges=[tuple(m.split(" ", 1)) for m in merges])
    tok = Tokenizer(bpe)
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)  # GPT-2's regex
    tok.pre_tokenizer = (pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
                         if digits else byte_level)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, types) if k == 3])
    return tok


def main():
    sp = sentencepiece_processor(STORIES)
    hf = hf_byte_level_tokenizer(SMOLLM)
    def hf_ids(text):
        return hf.encode(text, add_special_tokens=False).ids
    # newline="": the file has CRLF line ends, which must reach the tokenizers as they are.
    with open(WIKITEXT, encoding="utf-8", newline="") as f:
        wikitext = f.read()
    # The whole corpus also through the vocabulary-only files of llama.cpp's tests.
    corpus_tokenizers = {
        "stories260K": sp.encode,
        "smollm2": hf_ids,
        "llama-spm": sentencepiece_processor(os.path.join(VECTORS, "ggml-vocab-llama-spm.gguf")).encode,
        "gpt-2": lambda t, tok=hf_byte_level_tokenizer(os.path.join(VECTORS, "ggml-vocab-gpt-2.gguf"), digits=False):
            tok.encode(t, add_special_tokens=False).ids,
        "starcoder": lambda t, tok=hf_byte_level_tokenizer(os.path.join(VECTORS, "ggml-vocab-starcoder.gguf")):
            tok.encode(t, add_special_tokens=False).ids,
    }
    wiki = {name: encode(wikitext) for name, encode in corpus_tokenizers.items()}
    out = {
        "stories260K": [{"text": s, "ids": sp.encode(s)} for s in SENTENCES],
        "smollm2": [{"text": s, "ids": hf_ids(s)} for s in SENTENCES]
                   + [{"text": CHATML, "ids": hf_ids(CHATML), "parse_special": True}],
        "wikitext2": [{"model": name, "count": len(ids), "fnv1a64": fnv1a64(ids)} for name, ids in wiki.items()],
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_ids.json")
    with open(path, "w", encoding="utf-8") as f:
        # One case per line, so that a change shows up as a readable diff.
        f.write("{\n" + ",\n".join(
            json.dumps(name) + ": [\n" + ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in cases) + "\n]"
            for name, cases in out.items()) + "\n}\n")
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
