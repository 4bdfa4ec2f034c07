#!/usr/bin/env python3
"""Writes what the gguf Python package reads from a GGUF file as JSON: the
independent oracle of tests/loader (header, every metadata value, every
tensor's type, shape, offset, size and SHA-256 of its bytes).

Regenerate the committed goldens with:
  scripts/gguf-golden.py ../shared/data/models/stories260K.gguf > tests/loader/golden/stories260K.json
  scripts/gguf-golden.py models/SmolLM2-135M-Instruct.Q4_1.gguf > tests/loader/golden/SmolLM2-135M-Instruct.Q4_1.json

Arrays are summarized: count, first 3 elements and a SHA-256 of the elements
(strings: each as u64 length + bytes; numbers: little-endian f32 for float
arrays, i32 for integer arrays), which the C++ test recomputes from its own
decoding.
"""
import hashlib
import json
import os
import struct
import sys

import numpy as np
from gguf import GGUFReader, GGUFValueType

TYPE_NAMES = {
    GGUFValueType.UINT8: "u8", GGUFValueType.INT8: "i8", GGUFValueType.UINT16: "u16",
    GGUFValueType.INT16: "i16", GGUFValueType.UINT32: "u32", GGUFValueType.INT32: "i32",
    GGUFValueType.FLOAT32: "f32", GGUFValueType.BOOL: "bool", GGUFValueType.STRING: "string",
    GGUFValueType.ARRAY: "array", GGUFValueType.UINT64: "u64", GGUFValueType.INT64: "i64",
    GGUFValueType.FLOAT64: "f64",
}
FLOATS = {GGUFValueType.FLOAT32, GGUFValueType.FLOAT64}


def array_digest(elem_type, values):
    h = hashlib.sha256()
    for v in values:
        if elem_type == GGUFValueType.STRING:
            b = v.encode("utf-8", "surrogateescape") if isinstance(v, str) else bytes(v)
            h.update(struct.pack("<Q", len(b)) + b)
        elif elem_type in FLOATS:
            h.update(struct.pack("<f", float(v)))
        else:
            h.update(struct.pack("<i", int(v)))
    return h.hexdigest()


def string_bytes(field, i):
    return bytes(field.parts[field.data[i]])


def main(path):
    r = GGUFReader(path)
    meta = []
    for key, f in r.fields.items():
        if key.startswith("GGUF."):
            continue
        t = f.types[0]
        entry = {"key": key, "type": TYPE_NAMES[t]}
        if t == GGUFValueType.ARRAY:
            et = f.types[1]
            entry["element_type"] = TYPE_NAMES[et]
            if et == GGUFValueType.STRING:
                values = [string_bytes(f, i) for i in range(len(f.data))]
                entry["head"] = [v.decode("utf-8", "replace") for v in values[:3]]
            else:
                values = [f.parts[i].tolist()[0] for i in f.data]
                entry["head"] = values[:3]
            entry["count"] = len(values)
            entry["sha256"] = array_digest(et, values)
        elif t == GGUFValueType.STRING:
            entry["value"] = string_bytes(f, 0).decode("utf-8", "replace")
        else:
            v = f.parts[f.data[0]].tolist()[0]
            entry["value"] = bool(v) if t == GGUFValueType.BOOL else v
        meta.append(entry)
    tensors = []
    for t in r.tensors:
        raw = np.ascontiguousarray(t.data).view(np.uint8).tobytes()
        tensors.append({
            "name": t.name, "type": t.tensor_type.name, "ne": [int(x) for x in t.shape],
            "offset": int(t.data_offset), "nbytes": int(t.n_bytes),
            "sha256": hashlib.sha256(raw).hexdigest(),
        })
    version = int(r.fields["GGUF.version"].parts[-1][0])
    alignment = r.alignment
    out = {"file": os.path.basename(path), "size": os.path.getsize(path), "version": version,
           "alignment": int(alignment), "data_offset": int(r.data_offset), "metadata": meta, "tensors": tensors}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
