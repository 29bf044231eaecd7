"""Writes the seed inputs of one fuzz target into a folder, from real files: ../shared/data
(Quick, Draw!, Sketch-RNN, Omniglot), the project's Models and the installed pictures. Seeds are
small slices (a few records, rows or drawings), never committed.

    python3 Fuzz/make_seeds.py TARGET OUT_DIR

Needs numpy for the stroke-3 and .npz seeds (object arrays are pickled); without it those targets
start from their synthetic seeds only.
"""

import io
import json
import os
import struct
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKETCHWISE_SHARED_DATA", REPO.parent / "shared" / "data"))
QUICKDRAW = SHARED / "quickdraw"
PICTURES = Path(os.environ.get("SKETCHWISE_PICTURES", "/usr/local/share/sketchwise/pictures"))

try:
    import numpy
except ImportError:
    numpy = None


def first_lines(path, count):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                lines.append(line)
            if len(lines) == count:
                break
    return lines


def ndjson_files(limit):
    files = []
    for folder in ("raw", "simplified", "simplified-extra"):
        files += sorted((QUICKDRAW / folder).glob("*.ndjson"))[:limit]
    return files


def npy_header(shape, descr="|u1"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join(f"{n}, " for n in shape))
    padded = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(padded)) + padded.encode()


def bitmap_rows(path, rows):
    """The first `rows` rows of a (n, 784) uint8 .npy, as a new .npy."""
    with open(path, "rb") as f:
        data = f.read(16 + 1024 + rows * 784)
    length = struct.unpack("<H", data[8:10])[0]
    body = data[10 + length:10 + length + rows * 784]
    return npy_header((rows, 784)) + body


def stroke3_npy(drawings):
    array = numpy.empty(len(drawings), dtype=object)
    for i, drawing in enumerate(drawings):
        array[i] = drawing
    out = io.BytesIO()
    numpy.save(out, array, allow_pickle=True)
    return out.getvalue()


def sketchrnn_drawings(count):
    drawings = []
    for path in sorted((QUICKDRAW / "sketchrnn").glob("*.npz"))[:2]:
        with numpy.load(path, allow_pickle=True, encoding="latin1") as archive:
            drawings += [archive["train"][i][:60] for i in range(count)]
    return drawings


def tiny_safetensors():
    tensor = struct.pack("<4f", 0.5, -1.0, 2.0, 0.0)
    header = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}, "__metadata__": {"format": "pt"}}).encode()
    return struct.pack("<Q", len(header)) + header + tensor


def seeds(target):
    """(name, bytes) pairs for `target`."""
    if target in ("json", "ndjson"):
        for path in ndjson_files(8):
            lines = first_lines(path, 1 if target == "json" else 4)
            yield path.stem, "".join(lines).encode()
        if target == "json":
            yield "body", json.dumps({"strokes": [[[0, 50, 100], [0, 80, 0]]], "model": "raster", "top": 3}).encode()
            yield "live", json.dumps({"type": "stroke", "seq": 3, "stroke": [[1.5, 2e3], [-4, 5], [0, 16]]}).encode()
    elif target == "npy":
        for path in sorted((QUICKDRAW / "bitmap").glob("*.npy"))[:4]:
            yield path.stem, bitmap_rows(path, 2)
        if numpy is not None:
            yield "stroke3-objects", stroke3_npy(sketchrnn_drawings(2))
    elif target == "stroke3":
        yield "synthetic", npy_header((3, 3), "<i2") + struct.pack("<9h", 10, 0, 0, 0, 10, 1, -5, -5, 1)
        if numpy is not None:
            for i, drawing in enumerate(sketchrnn_drawings(3)):
                yield f"sketchrnn-{i}", stroke3_npy([drawing])
    elif target == "npz":
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            path = next(iter(sorted((QUICKDRAW / "bitmap").glob("*.npy"))), None)
            if path:
                archive.writestr("train.npy", bitmap_rows(path, 2))
        yield "bitmaps", out.getvalue()
        if numpy is not None:
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
                archive.writestr("train.npy", stroke3_npy(sketchrnn_drawings(2)))
            yield "stroke3", out.getvalue()
    elif target == "omniglot":
        for archive_path in sorted((SHARED / "omniglot").glob("strokes_background_small*.zip"))[:1]:
            with zipfile.ZipFile(archive_path) as archive:
                names = [n for n in archive.namelist() if n.endswith(".txt")][:6]
                for name in names:
                    yield Path(name).stem, archive.read(name)
    elif target == "safetensors":
        yield "tiny", tiny_safetensors()
        yield "real", (REPO / "Models" / "raster-cnn-lite.safetensors").read_bytes()
    elif target == "model-spec":
        for path in sorted((REPO / "Models").glob("*.json")):
            yield path.stem, path.read_bytes()
    elif target == "svg-metadata":
        found = []
        for folder in (Path("/usr/share/openclipart/svg"), PICTURES / "openmoji", PICTURES / "lucide", SHARED / "tu-berlin"):
            if folder.is_dir():
                found += sorted(folder.rglob("*.svg"))[:5]
        for path in found:
            yield path.stem, path.read_bytes()[:65536]
    else:
        raise SystemExit(f"unknown target {target}")


def main():
    target, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, data in seeds(target):
        (out / f"seed-{name.replace(' ', '_')}").write_bytes(data)
        count += 1
    print(f"{count} seeds for {target} in {out}" + ("" if numpy is not None else " (numpy missing: no stroke-3 seeds)"))


if __name__ == "__main__":
    main()
