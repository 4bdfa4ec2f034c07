#!/usr/bin/env python3
"""Regenerates tests/runtime/golden/oracle/kv_f16_*.json: how far llama.cpp's
own logits move when its KV cache is F16 instead of F32, the bound of
tests/runtime/kv_cache_test.cc (ck's f16 cache against its f32 cache).

For each model: llama.cpp with an F32 cache evaluates the prompt (one batch)
and greedily decodes N_GREEDY tokens (build-oracle/llama_logits --greedy);
then llama.cpp with an F16 cache evaluates the same tokens (prompt as one
batch, the rest one at a time). Stored: the tokens, the largest |F16 - F32|
logit difference over all positions and their root mean square, and whether llama.cpp's own greedy run
with the F16 cache gives the same tokens. No logits are stored (SmolLM2's
would be 15 MB).

Usage: python3 scripts/oracle/make_kv_goldens.py [--shared ../shared/data]
(build-oracle/llama_logits: scripts/oracle/build_llama_logits.sh)
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

N_GREEDY = 64
N_CTX = 256

# name, model folder ("shared": the shared data, "models": the checkout's), file, prompt token ids
MODELS = [
    ("stories260K", "shared", "models/stories260K.gguf", [1, 403, 407, 261, 378]),  # "Once upon a time"
    ("smollm2", "models", "SmolLM2-135M-Instruct.Q4_1.gguf",
     # "The quick brown fox jumps over the lazy dog. The capital of France is"
     [504, 2365, 6354, 16438, 27003, 690, 260, 23790, 2767, 30, 378, 3575, 282, 4649, 314]),
]


def llama_logits(exe, options, model, out, n_prefill, tokens):
    r = subprocess.run([exe] + options + [model, out, str(N_CTX), str(n_prefill)] + [str(t) for t in tokens],
                       check=True, capture_output=True, text=True)
    greedy = [line for line in r.stdout.splitlines() if line.startswith("greedy:")]
    return [int(t) for t in greedy[0].split()[1:]] if greedy else []


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    args = ap.parse_args()
    exe = os.path.join(root, "build-oracle", "llama_logits")
    out_dir = os.path.join(root, "tests", "runtime", "golden", "oracle")
    for name, where, file, prompt in MODELS:
        model = os.path.join(args.shared if where == "shared" else os.path.join(root, "models"), file)
        with tempfile.TemporaryDirectory() as tmp:
            f32, f16, f16_greedy = (os.path.join(tmp, n) for n in ("f32", "f16", "f16_greedy"))
            greedy = llama_logits(exe, ["--greedy", str(N_GREEDY)], model, f32, len(prompt), prompt)
            llama_logits(exe, ["--cache", "f16"], model, f16, len(prompt), prompt + greedy)
            own = llama_logits(exe, ["--cache", "f16", "--greedy", str(N_GREEDY)], model, f16_greedy, len(prompt),
                               prompt)
            a = np.fromfile(f32, np.float32).reshape(len(prompt) + N_GREEDY, -1)
            b = np.fromfile(f16, np.float32).reshape(a.shape)
        meta = {
            "model_dir": where,
            "model": file,
            "tokens": prompt,
            "greedy": greedy,
            "n_ctx": N_CTX,
            "llama_f16_max_abs_diff": float(np.abs(a - b).max()),
            "llama_f16_rms_diff": float(np.sqrt(np.mean(np.square(a.astype(np.float64) - b)))),
            "max_abs_logit": float(np.abs(a).max()),
            "llama_f16_greedy_same": own == greedy,
            "made_by": "scripts/oracle/make_kv_goldens.py (llama.cpp F32 vs F16 KV cache, flash attention off)",
        }
        path = os.path.join(out_dir, f"kv_f16_{name}.json")
        with open(path, "w") as f:
            json.dump(meta, f, indent=1)
            f.write("\n")
        print(path, meta["llama_f16_max_abs_diff"], meta["llama_f16_rms_diff"], meta["llama_f16_greedy_same"])


if __name__ == "__main__":
    main()
