#!/usr/bin/env python3
"""Regenerates tests/runtime/golden/oracle/: for every spec of oracle_models.py,
an F32 and (but LongRoPE) a Q8_0 GGUF and llama.cpp's logits for one fixed token sequence
(prefill of N_PREFILL tokens as one batch, then one token per call), through
build-oracle/llama_logits (scripts/oracle/build_llama_logits.sh builds it).
For Q8_0 also llama.cpp's logits on the same weights dequantized to F32 (a
temporary file): the exact result, which neither tool's 8-bit activations
reach, to measure each tool's own distance from it.

Usage: python3 scripts/oracle/make_goldens.py [--shared ../shared/data] [--only NAME]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from gguf import GGMLQuantizationType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_models import SPECS, write_model  # noqa: E402

N_TOKENS, N_PREFILL = 80, 64  # decode steps 64..79: past gemma3's window of 16 in both paths
VARIANTS = {"f32": GGMLQuantizationType.F32, "q8_0": GGMLQuantizationType.Q8_0}


def run_oracle(exe, gguf_path, logits_path, n_ctx, tokens):
    subprocess.run([exe, gguf_path, logits_path, str(n_ctx), str(N_PREFILL)] + [str(t) for t in tokens], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared", "data"))
    ap.add_argument("--only")
    args = ap.parse_args()
    out_dir = os.path.join(root, "tests", "runtime", "golden", "oracle")
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(root, "build-oracle", "llama_logits")
    vocab = os.path.join(args.shared, "models", "stories260K.gguf")
    rng = np.random.default_rng(12)
    tokens = [1] + [int(t) for t in rng.integers(3, 512, N_TOKENS - 1)]
    for seed, spec in enumerate(SPECS):
        if args.only and spec.name != args.only:
            continue
        for variant in spec.variants:
            qtype = VARIANTS[variant]
            model = f"{spec.name}_{variant}"
            gguf_path = os.path.join(out_dir, model + ".gguf")
            n_vocab = write_model(spec, gguf_path, vocab, qtype, seed)
            for n_ctx in spec.contexts:
                name = model if len(spec.contexts) == 1 else f"{model}_ctx{n_ctx}"
                run_oracle(exe, gguf_path, os.path.join(out_dir, name + ".f32"), n_ctx, tokens)
                meta = {
                    "model_dir": "golden",
                    "model": f"oracle/{model}.gguf",
                    "tokens": tokens,
                    "n_prefill": N_PREFILL,
                    "n_ctx": n_ctx,
                    "positions": list(range(N_TOKENS)),
                    "n_vocab": n_vocab,
                    "logits_file": f"oracle/{name}.f32",
                    "greedy": [],
                    "oracle": "llama.cpp (llama-cpp-python 0.3.36's vendored copy), CPU, F32 KV cache, "
                              "flash attention off, 1 thread: scripts/oracle/llama_logits.cc",
                    "spec": vars(spec),
                    "weights": variant,
                }
                if qtype != GGMLQuantizationType.F32:
                    with tempfile.TemporaryDirectory() as tmp:
                        exact = os.path.join(tmp, "exact.gguf")
                        write_model(spec, exact, vocab, qtype, seed, dequantized=True)
                        run_oracle(exe, exact, os.path.join(out_dir, name + ".exact.f32"), n_ctx, tokens)
                    meta["exact_logits_file"] = f"oracle/{name}.exact.f32"
                with open(os.path.join(out_dir, name + ".json"), "w") as f:
                    json.dump(meta, f, indent=1)
                    f.write("\n")
                print(f"{name}: {os.path.getsize(gguf_path)} bytes")


if __name__ == "__main__":
    main()
