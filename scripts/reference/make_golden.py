#!/usr/bin/env python3
"""Regenerates tests/runtime/golden/: reference logits the C++ runtime must match.

Usage (from the repository root; about a minute, mostly SmolLM2):
  python3 scripts/reference/make_qwen2_tiny.py   # the synthetic qwen2 model, once
  python3 scripts/reference/make_golden.py [--shared ../shared/data] [--models models]

For each case it writes NAME.json (model file, token ids, the positions whose
logits are stored, greedy continuation ids with each step's runner-up and
top-2 margin) and NAME.f32 (little-endian float32,
len(positions) x n_vocab). The token ids are recorded, so the C++ tests do not
depend on any tokenizer. Logits come from the float64 forward pass of
llama_reference.py on the weights the bump file holds: the GGUF's own, except
that types without a native kernel (none in these models since Q4_0, Q4_1
and Q5_K got theirs) are transcoded to Q8_0, as the bump converter does, here with
gguf-py's quantizer. The json also records
how far the exact GGUF model is from that (`exact_gguf_max_abs_diff`): the
transcoding's own effect, which the runtime is not blamed for.
"""
import argparse
import json
import os

import numpy as np
from gguf import GGUFReader

import llama_reference as ref
import tokenize_ref

SMOL_CHAT = ("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
             "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n")

# name, model folder key, model file, prompt, stored positions (None = all), greedy tokens
CASES = [
    ("stories260K_once", "shared", "models/stories260K.gguf", "Once upon a time", None, 40),
    ("stories260K_park", "shared", "models/stories260K.gguf",
     "Lily and Ben went to the park. They saw a big dog", None, 8),
    ("smollm2_chat", "models", "SmolLM2-135M-Instruct.Q4_1.gguf", SMOL_CHAT, [-1], 8),
    ("smollm2_fox", "models", "SmolLM2-135M-Instruct.Q4_1.gguf",
     "The quick brown fox jumps over the lazy dog. The capital of France is", None, 4),
    # A continuation with a clear margin at every step (3.2 or more), which
    # an int8 runtime must reproduce token for token.
    ("smollm2_count", "models", "SmolLM2-135M-Instruct.Q4_1.gguf", "1, 2, 3, 4, 5,", [-1], 8),
    # written by make_qwen2_tiny.py (run it first): biases, NeoX RoPE, partial rotary dim
    ("qwen2_tiny", "golden", "qwen2_tiny.gguf", "Once upon a time there was a big dog", None, 8),
]


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    ap.add_argument("--models", default=os.path.join(root, "models"))
    ap.add_argument("--out", default=os.path.join(root, "tests", "runtime", "golden"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dirs = {"shared": args.shared, "models": args.models, "golden": args.out}
    loaded = {}
    for name, where, file, prompt, positions, n_gen in CASES:
        path = os.path.join(dirs[where], file)
        if path not in loaded:
            reader = GGUFReader(path)
            cfg = ref.Config(reader)
            loaded[path] = (cfg, ref.load_weights(reader), ref.load_weights(reader, transcode_q8_0=True),
                            tokenize_ref.from_reader(reader))
        cfg, w, w_q8, tok = loaded[path]
        ids = tok.encode(prompt)
        logits = ref.forward(cfg, w_q8, ids)
        pos = list(range(len(ids))) if positions is None else [p % len(ids) for p in positions]
        exact = ref.forward(cfg, w, ids)
        drift = float(np.max(np.abs(exact[pos] - logits[pos])))
        top1 = int(np.sum(exact[pos].argmax(-1) == logits[pos].argmax(-1)))
        steps = ref.greedy_steps(cfg, w_q8, ids, n_gen, eos=tok.eos)
        gen = [best for best, _, _ in steps]
        meta = {
            "model_dir": where, "model": file, "prompt": prompt, "tokens": ids,
            "positions": pos, "n_vocab": int(logits.shape[1]), "logits_file": name + ".f32",
            "greedy": gen, "greedy_text": tok.decode(gen),
            "greedy_runner_up": [second for _, second, _ in steps],
            "greedy_margin": [margin for _, _, margin in steps],
            "weights": "gguf; types without a native kernel transcoded to Q8_0 by gguf-py",
            "exact_gguf_max_abs_diff": drift, "exact_gguf_top1_agree": top1,
        }
        logits[pos].astype("<f4").tofile(os.path.join(args.out, name + ".f32"))
        with open(os.path.join(args.out, name + ".json"), "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        print(f"{name}: {len(ids)} tokens, positions {pos}, exact-GGUF drift {drift:.4f}, "
              f"greedy {tok.decode(gen)!r}")


if __name__ == "__main__":
    main()
