"""The files of the Sketchwise model format (docs/model-format.md), with numpy alone.

* :data:`FORMAT` -- the spec's ``format`` string.
* :func:`write_safetensors` / :func:`read_safetensors` -- the plain layout (u64 LE header
  length, JSON header, F32 data), no third-party package.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

FORMAT = "sketchwise-model"


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str] | None = None):
    header: dict = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(np.asarray(tensors[name], dtype="<f4"))
        if not np.all(np.isfinite(a)):
            raise ValueError(f"tensor {name} has NaN or infinite values")
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * (-len(hb) % 8)  # align data to 8 bytes (allowed by the format: trailing spaces)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for b in blobs:
            f.write(b)


def read_safetensors(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    raw = Path(path).read_bytes()
    if len(raw) < 8:
        raise ValueError(f"{path}: too short")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ValueError(f"{path}: header length {n} beyond the file")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    data = raw[8 + n:]
    out = {}
    spans = []
    for name, h in header.items():
        if h["dtype"] != "F32":
            raise ValueError(f"{path}: {name} has dtype {h['dtype']}")
        b, e = h["data_offsets"]
        if not (0 <= b <= e <= len(data)):
            raise ValueError(f"{path}: {name} offsets outside the file")
        count = int(np.prod(h["shape"])) if h["shape"] else 1
        if e - b != 4 * count:
            raise ValueError(f"{path}: {name} size does not match its shape")
        spans.append((b, e, name))
        out[name] = np.frombuffer(data[b:e], dtype="<f4").reshape(h["shape"]).copy()
    spans.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        if b1 < e0:
            raise ValueError(f"{path}: {n0} and {n1} overlap")
    return out, meta
