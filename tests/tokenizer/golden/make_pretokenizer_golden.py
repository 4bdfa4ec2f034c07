#!/usr/bin/env python3
"""Regenerates pretokenizer_golden.json: how each pre-tokenizer splits a set of
texts, computed by Hugging Face `tokenizers` (Rust, Oniguruma regexes) from the
patterns as the models' tokenizer.json files write them (e.g. Llama-3's
"(?i:'s|...)", which llama.cpp rewrites without the case-insensitive group).
Each regex is a Split(behavior="isolated") step: matches and the text between
them are pieces, applied to every piece of the previous step, as llama.cpp does.

Run from the repository root (needs: pip install tokenizers):
    python3 tests/tokenizer/golden/make_pretokenizer_golden.py
"""
import json
import os

from tokenizers import Regex, pre_tokenizers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VECTORS = os.path.join(ROOT, "..", "shared", "data", "tokenizer-tests", "ggml-vocab-gpt-2.gguf.inp")

GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
CJK = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
PATTERNS = {
    "gpt-2": [GPT2],
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", "[0-9][0-9][0-9]"],
    "llama-bpe": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    "qwen2": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    "smollm": [r"\p{N}", GPT2],
    "deepseek-coder": [r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", CJK, r"\p{N}"],
    "falcon": [r"[\p{P}\$\+<=>\^~\|`]+", GPT2, "[0-9][0-9][0-9]"],
}


def texts():
    with open(VECTORS, encoding="utf-8", newline="") as f:
        cases = f.read().split("\n__ggml_vocab_test__\n")[:-1]
    return cases + ["I'M here, YOU'LL see 1234567 things!!\r\n\tok", "\u00a0non-breaking\u3000ideographic space",
                    "next\u0085\u0085line\u1680ogham \u180emongolian\u2028\u2029 \u000b\u000c"]


def main():
    out = {}
    for name, patterns in PATTERNS.items():
        pre = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(p), behavior="isolated") for p in patterns])
        out[name] = [{"text": t, "pieces": [piece for piece, _ in pre.pre_tokenize_str(t)]} for t in texts() if t]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pretokenizer_golden.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(
            json.dumps(name) + ": [\n" + ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in cases) + "\n]"
            for name, cases in out.items()) + "\n}\n")


if __name__ == "__main__":
    main()
