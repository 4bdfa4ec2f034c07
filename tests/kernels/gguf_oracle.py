#!/usr/bin/env python3
"""The independent oracle of the kernel tests: the gguf Python package.

Reads one job per line on stdin and answers "ok" (or "error: ...") per line:
  dequantize TYPE IN OUT        IN: raw blocks of ggml type TYPE (e.g. Q4_K);
                                OUT: gguf.quants.dequantize as float32
  quantize TYPE IN OUT          IN: float32; OUT: gguf.quants.quantize bytes
  tensor GGUF NAME ROWS RAW OUT the first ROWS rows of tensor NAME of a GGUF
                                file: its bytes to RAW, dequantized to OUT
"""
import sys

import numpy as np

np.seterr(all="ignore")  # NaN and infinite scales are part of the tests
from gguf import GGMLQuantizationType, GGUFReader, quants
from gguf.constants import GGML_QUANT_SIZES


_readers = {}


def reader(path):
    """GGUFReader parses all the metadata (seconds for a big vocabulary): once per file."""
    if path not in _readers:
        _readers[path] = GGUFReader(path)
    return _readers[path]


def qtype(name):
    return GGMLQuantizationType[name]


def run(job):
    if job[0] == "dequantize":
        t = qtype(job[1])
        raw = np.fromfile(job[2], dtype=np.uint8)
        block_size, type_size = GGML_QUANT_SIZES[t]
        rows = raw.reshape(-1, type_size)
        quants.dequantize(rows, t).astype(np.float32).tofile(job[3])
    elif job[0] == "quantize":
        t = qtype(job[1])
        x = np.fromfile(job[2], dtype=np.float32)
        quants.quantize(x.reshape(1, -1), t).tofile(job[3])
    elif job[0] == "tensor":
        tensor = next(t for t in reader(job[1]).tensors if t.name == job[2])
        rows = int(job[3])
        data = tensor.data[:rows]
        np.ascontiguousarray(data).view(np.uint8).tofile(job[4])
        quants.dequantize(data, tensor.tensor_type).astype(np.float32).tofile(job[5])
    else:
        raise ValueError(f"unknown job {job[0]}")


def main():
    for line in sys.stdin:
        job = line.split()
        if not job:
            continue
        try:
            run(job)
            print("ok", flush=True)
        except Exception as e:  # report, keep serving the other jobs
            print(f"error: {e!r}", flush=True)


if __name__ == "__main__":
    main()
