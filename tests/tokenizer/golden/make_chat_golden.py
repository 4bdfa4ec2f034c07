#!/usr/bin/env python3
"""Regenerates chat_golden.json: conversations rendered by the models' own
Jinja chat templates (tokenizer.chat_template) with jinja2, set up the way
Hugging Face transformers renders them (trim_blocks, lstrip_blocks). The
C++ renderer must produce the same text without executing any Jinja.

Run from the repository root (needs: gguf, jinja2):
    python3 tests/tokenizer/golden/make_chat_golden.py
"""
import json
import os

import gguf
import jinja2.sandbox

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SMOLLM = os.path.join(ROOT, "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
PHI3 = os.path.join(ROOT, "..", "shared", "data", "tokenizer-tests", "ggml-vocab-phi-3.gguf")

U1 = {"role": "user", "content": "Hi there! What is 2+2?"}
A1 = {"role": "assistant", "content": "2+2 is 4."}
U2 = {"role": "user", "content": "And 3+3?\nAnswer briefly."}
SYS = {"role": "system", "content": "You are a terse assistant."}

# (name, gguf, conversations): only conversations whose rendering the
# template defines without model-specific quirks (Phi-3's template drops
# system turns and always appends the assistant header: user/assistant only).
CASES = [
    ("smollm2", SMOLLM, [([U1], True), ([U1], False), ([SYS, U1], True), ([U1, A1, U2], True), ([SYS, U1, A1, U2], True)]),
    ("phi3", PHI3, [([U1], True), ([U1, A1, U2], True)]),
]


def chat_template(path):
    f = gguf.GGUFReader(path).fields["tokenizer.chat_template"]
    return bytes(f.parts[f.data[0]]).decode("utf-8")


def main():
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    out = []
    for name, path, conversations in CASES:
        template = env.from_string(chat_template(path))
        for messages, add_generation_prompt in conversations:
            # bos_token is empty: our renderer leaves BOS to the tokenizer (add_special).
            text = template.render(messages=messages, add_generation_prompt=add_generation_prompt,
                                   bos_token="", eos_token="</s>")
            out.append({"template": name, "messages": messages, "add_generation_prompt": add_generation_prompt,
                        "text": text})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chat_golden.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in out) + "\n]\n")


if __name__ == "__main__":
    main()
