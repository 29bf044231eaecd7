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
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SKETCHWISE_SHARED_DATA", REPO.parent / "shared" / "data"))
QUICKDRAW = SHARED / "quickdraw"
PICTURES = Path(os.environ.get("SKETCHWISE_PICTURES", "/usr/local/share/sketchwise/pictures"))
PHOTOS = Path(os.environ.get("SKETCHWISE_TEST_PHOTOS", "/usr/local/share/sketchwise/test-photos/scikit-image"))

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


def bin_record(record):
    """One simplified Quick, Draw! record in Google's binary .bin form (little-endian: key_id u64,
    country code, recognized u8, timestamp u32, stroke count u16, then per stroke a point count
    u16, the x bytes and the y bytes)."""
    key = str(record.get("key_id", ""))
    country = (record.get("countrycode") or "").encode("ascii", "replace")[:2]
    strokes = record["drawing"]
    out = struct.pack("<Q2sBIH", int(key) if key.isdigit() else 0, country, 1 if record.get("recognized") else 0,
                      1489007527, len(strokes))
    for stroke in strokes:
        xs, ys = (bytes(min(255, max(0, int(v))) for v in row) for row in stroke[:2])
        out += struct.pack("<H", len(xs)) + xs + ys
    return out


def bin_seeds():
    """(name, bytes): a few simplified drawings of ../shared/data as .bin files, and synthetic ones
    (one drawing; a drawing whose last stroke is cut; one of no strokes)."""
    for path in sorted((QUICKDRAW / "simplified").glob("*.ndjson"))[:6]:
        yield path.stem, b"".join(bin_record(json.loads(line)) for line in first_lines(path, 3))
    square = {"key_id": "5152802093400064", "countrycode": "US", "recognized": True,
              "drawing": [[[0, 255, 255, 0, 0], [0, 0, 255, 255, 0]], [[60, 190], [128, 128]]]}
    yield "synthetic", bin_record(square) + bin_record(dict(square, drawing=square["drawing"][:1]))
    yield "synthetic-cut", bin_record(square)[:-3]
    yield "synthetic-no-strokes", bin_record(dict(square, drawing=[])) + bin_record(square)


def tiny_safetensors():
    tensor = struct.pack("<4f", 0.5, -1.0, 2.0, 0.0)
    header = json.dumps({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}, "__metadata__": {"format": "pt"}}).encode()
    return struct.pack("<Q", len(header)) + header + tensor


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, rows=None, color_type=0, bit_depth=8):
    """A PNG of width × height pixels; `rows` is the raw scanlines (filter byte first), by default
    all zero (a black or transparent image, deflated to about 1/1000 of its size)."""
    if rows is None:
        channels = {0: 1, 2: 3, 4: 2, 6: 4}[color_type]
        rows = bytes(height * (1 + (width * channels * bit_depth + 7) // 8))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(rows, 9))
            + png_chunk(b"IEND", b""))


def png_header_only(width, height):
    """A PNG that declares width × height pixels and holds one empty image data chunk."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(b""))
            + png_chunk(b"IEND", b""))


def cut_png_with_end(width=64, height=64):
    """A PNG cut in the middle of its image data, an IEND chunk put back after the cut."""
    rows = bytes((y * x + x) & 0xFF for y in range(height) for x in range(1 + width * 3))
    whole = png(width, height, rows, color_type=2)
    return whole[:len(whole) // 2] + png_chunk(b"IEND", b"")


def jpeg_scan_bomb(side, empty_scans):
    """A grey progressive JPEG of side × side pixels: its DC scan, then `empty_scans` scans of no
    data at all (libjpeg warns and makes a full pass over the image for each)."""
    blocks = ((side + 7) // 8) ** 2
    dc_bits = bytes(blocks // 8) + (bytes([0xFF >> (blocks % 8)]) if blocks % 8 else b"")

    def segment(marker, payload):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload

    tables = segment(0xDB, b"\x00" + bytes([1] * 64))
    frame = segment(0xC2, struct.pack(">BHHB", 8, side, side, 1) + b"\x01\x11\x00")
    huffman = segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00") + segment(0xC4, b"\x10" + bytes([0, 1] + [0] * 14) + b"\x00")
    dc_scan = segment(0xDA, b"\x01\x01\x00\x00\x00\x00") + dc_bits
    empty_scan = segment(0xDA, b"\x01\x01\x00\x01\x3f\x00")
    return b"\xff\xd8" + tables + frame + huffman + dc_scan + empty_scan * empty_scans + b"\xff\xd9"


def photo_attacks():
    """(name, bytes): the photos that once crashed or stalled the server (issue 34)."""
    yield "wide-9000000x1.png", png(9_000_000, 1)
    yield "wide-20000000x2.png", png_header_only(20_000_000, 2)
    yield "wide-50000000x1.png", png_header_only(50_000_000, 1)
    yield "tiny-10000x1.png", png(10_000, 1)
    yield "tiny-100000x1.png", png(100_000, 1)
    yield "cut-off-with-end.png", cut_png_with_end()
    yield "scan-bomb-64.jpg", jpeg_scan_bomb(64, 300)


def photo_samples():
    """(name, bytes): small PNGs and JPEGs of every kind gdk-pixbuf reads, from scikit-image's
    photos where Pillow and they are here, else drawn."""
    gradient = bytes(v for y in range(32) for v in [0] + [(x * 5 + y * 3) & 0xFF for x in range(48 * 3)])
    yield "gradient.png", png(48, 32, gradient, color_type=2)
    yield "gray16.png", png(20, 10, color_type=0, bit_depth=16)
    yield "rgba.png", png(16, 16, color_type=6)
    try:
        from PIL import Image
    except ImportError:
        return
    source = PHOTOS / "chelsea.png"
    image = Image.open(source).convert("RGB").resize((72, 48)) if source.exists() else Image.new("RGB", (72, 48), (200, 120, 40))
    for name, options in [("baseline.jpg", {}), ("progressive.jpg", {"progressive": True}), ("subsampled.jpg", {"subsampling": 2})]:
        out = io.BytesIO()
        image.save(out, "JPEG", quality=80, **options)
        yield name, out.getvalue()
    exif = Image.Exif()
    exif[0x0112] = 6   # orientation: turned a quarter clockwise
    for name, picture, form, options in [("sideways.jpg", image, "JPEG", {"exif": exif}), ("gray.jpg", image.convert("L"), "JPEG", {}),
                                         ("cmyk.jpg", image.convert("CMYK"), "JPEG", {}), ("palette.png", image.convert("P"), "PNG", {}),
                                         ("interlaced.png", image, "PNG", {"interlace": 1})]:
        out = io.BytesIO()
        picture.save(out, form, **options)
        yield name, out.getvalue()


def connection_seeds():
    """(name, bytes): a split byte, then what a client sends on a new connection (issue 34)."""
    handshake = (b"GET /api/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    frame = bytes([0x81, 0x80 | 12, 1, 2, 3, 4]) + bytes(b ^ (1, 2, 3, 4)[i % 4] for i, b in enumerate(b'{"type":"x"}'))
    body = b"x" * 2000
    yield "handshake-then-byte", b"\xff" + handshake + b"X"
    yield "handshake-then-frame", b"\x80" + handshake + frame
    yield "handshake-unmasked-frame", b"\x40" + handshake + bytes([0x81, 2]) + b"{}"
    yield "early-answer-then-body", b"\x10" + (b"POST /api/suggest HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                                              b"Content-Length: 2000\r\n\r\n" + body + b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
    yield "pipelined", b"\x20" + b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
    yield "http10", b"\x00" + b"GET / HTTP/1.0\r\n\r\n"
    yield "http09", b"\x00" + b"GET /\r\n"
    yield "chunked", b"\x30" + b"POST /api/classify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    yield "bad-handshake", b"\x00" + handshake.replace(b"13", b"12")


def seeds(target):
    """(name, bytes) pairs for `target`."""
    if target in ("json", "ndjson"):
        for path in ndjson_files(8):
            lines = first_lines(path, 1 if target == "json" else 4)
            yield path.stem, "".join(lines).encode()
        if target == "json":
            yield "body", json.dumps({"strokes": [[[0, 50, 100], [0, 80, 0]]], "model": "raster", "top": 3}).encode()
            yield "live", json.dumps({"type": "stroke", "seq": 3, "stroke": [[1.5, 2e3], [-4, 5], [0, 16]]}).encode()
    elif target == "quickdraw-bin":
        yield from bin_seeds()
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
    elif target == "photo":
        yield from photo_samples()
        yield from photo_attacks()
    elif target == "connection":
        yield from connection_seeds()
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
