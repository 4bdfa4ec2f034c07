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
# DeepSeek-LLM's letter class as llama.cpp writes it (the same text as ours, so
# this case checks that the two regex engines agree, not the transcription).
DEEPSEEK_LETTERS = (
    r"\s?[\x{0041}-\x{005A}\x{0061}-\x{007A}\x{00B5}\x{00C0}-\x{00D6}\x{00D8}-\x{00F6}"
    r"\x{00F8}-\x{01BA}\x{01BC}-\x{01BF}\x{01C4}-\x{0293}\x{0295}-\x{02AF}\x{0370}-\x{0373}\x{0376}"
    r"\x{0377}\x{037B}-\x{037D}\x{037F}\x{0386}\x{0388}-\x{038A}\x{038C}\x{038E}-\x{03A1}"
    r"\x{03A3}-\x{03F5}\x{03F7}-\x{0481}\x{048A}-\x{052F}\x{0531}-\x{0556}\x{10A0}-\x{10C5}"
    r"\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}"
    r"\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}"
    r"\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}"
    r"\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}"
    r"\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}"
    r"\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}"
    r"\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}"
    r"\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}"
    r"\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}"
    r"\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}"
    r"\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+")
PATTERNS = {
    "gpt-2": [GPT2],
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", "[0-9][0-9][0-9]"],
    "llama-bpe": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    "qwen2": [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"],
    "smollm": [r"\p{N}", GPT2],
    "deepseek-llm": [r"[\r\n]", DEEPSEEK_LETTERS,
                     r"\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+",
                     r"\s+$", CJK, r"\p{N}+"],
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
