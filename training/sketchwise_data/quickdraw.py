"""Loaders for every format of Google's Quick, Draw! dataset, and the validation split.

Formats (as Google publishes them, so the full files drop in unchanged):

* ``raw/<class>.ndjson`` and ``simplified/<class>.ndjson``: one JSON record per line
  (``word``, ``countrycode``, ``timestamp``, ``recognized``, ``key_id``, ``drawing``; only
  ``drawing`` is required: copies such as ``simplified-extra/`` lack ``key_id`` and the rest).
  Read line by line (:func:`iter_ndjson`), never loaded whole; ``limit`` stops early.
* ``<class>.bin``: Google's binary form of the simplified drawings (per drawing, little-endian:
  ``key_id`` u64, country code 2 bytes, ``recognized`` u8, ``timestamp`` u32 Unix seconds,
  stroke count u16, then per stroke a point count u16, the x bytes and the y bytes). Read
  record by record (:func:`iter_bin`), never loaded whole; the class is the file name.
  :func:`iter_records` picks the reader by extension; :func:`write_bin` writes such a file.
* ``sketchrnn/<class>.npz``: Sketch-RNN stroke-3 object arrays (keys ``train``/``valid``/
  ``test``, each an object array of ``(n, 3)`` int16 ``(dx, dy, pen_lifted)``), read with
  ``np.load(allow_pickle=True, encoding="latin1")``.
* ``bitmap/<class>.npy``: ``numpy_bitmap``, ``(n, 784)`` uint8, opened memory-mapped.

Strokes are returned in Google's format: a list of strokes, each ``[xs, ys]`` (raw data
``[xs, ys, ts]``) as numpy arrays.

Validation split (:func:`is_validation`): stroke records by a hash of their ``key_id``
alone -- so the raw and the simplified copy of a drawing always land on the same side --
and bitmaps / npz drawings by a hash of ``"<format>/<class>/<index>"``. SHA-1 based,
hence deterministic across runs, machines and Python versions.
"""
from __future__ import annotations

import calendar
import hashlib
import json
import os
import struct
import time
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

__all__ = [
    "DEFAULT_DATA", "VAL_FRACTION", "load_categories", "iter_ndjson", "parse_drawing", "iter_bin", "iter_records",
    "write_bin", "encode_bin",
    "load_npz", "stroke3_to_strokes", "load_bitmaps", "hash_fraction", "is_validation",
    "key_is_validation", "record_split", "get_simplify", "simplify_strokes", "simplified_is_google",
]

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = Path(os.environ.get("SKETCHWISE_DATA", ROOT.parent / "shared" / "data"))
VAL_FRACTION = 0.15


# ------------------------------------------------------------------ categories
def load_categories(qd_dir: Path) -> list[str]:
    """The 345 class names of ``categories.txt`` in file order (= label order)."""
    with open(Path(qd_dir) / "categories.txt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


# ------------------------------------------------------------------ ndjson
def parse_drawing(drawing: Sequence) -> list[list[np.ndarray]]:
    """Google's ``drawing`` field -> list of strokes, each a list of float64 rows."""
    return [[np.asarray(row, dtype=np.float64) for row in stroke] for stroke in drawing]


def iter_ndjson(path: Path, limit: int | None = None, parse: bool = True) -> Iterator[dict]:
    """Stream the records of a Quick, Draw! ``.ndjson`` file (raw or simplified).

    Each yielded dict is the record with ``drawing`` parsed by :func:`parse_drawing`
    (unless ``parse=False``). Blank lines are skipped; a malformed line raises
    ``ValueError`` naming the file and line.
    """
    n = 0
    with open(path, "r", encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if limit is not None and n >= limit:
                return
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
                if parse:
                    rec["drawing"] = parse_drawing(rec["drawing"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                raise ValueError(f"{path}:{lineno}: not a Quick, Draw! record ({e})") from e
            n += 1
            yield rec


# ------------------------------------------------------------------ binary (.bin)
BIN_HEADER = struct.Struct("<Q2sBIH")  # key_id, country code, recognized, timestamp, stroke count: 17 bytes
BIN_MAX_POINTS = 1 << 20  # most points in one drawing, as the Swift reader allows


def _bin_time(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def iter_bin(path: Path, limit: int | None = None, parse: bool = True, skip_bad: bool = False) -> Iterator[dict]:
    """Stream the records of Google's binary ``.bin`` file of simplified drawings.

    Yields records shaped like :func:`iter_ndjson`'s (``word`` is the file name; ``key_id`` a
    string; ``drawing`` strokes of ``[xs, ys]``, float64 arrays, or lists of ints with
    ``parse=False``). Reads one record at a time. A file that ends inside a record raises
    ``ValueError`` naming the file, the drawing and its byte offset; so does a drawing with no
    strokes or a stroke with no points, unless ``skip_bad`` skips it.
    """
    word = Path(path).stem
    n = 0
    with open(path, "rb") as f:
        index = 0
        offset = 0
        while limit is None or n < limit:
            start = offset

            def fail(reason: str) -> ValueError:
                return ValueError(f"{path}:{index + 1}: drawing {index} at byte {start}: {reason}")

            def take(count: int, what: str) -> bytes:
                nonlocal offset
                data = f.read(count)
                offset += len(data)
                if len(data) < count:
                    raise fail(f"the file ends at byte {offset}, inside {what}")
                return data

            first = f.read(1)
            if not first:
                return
            offset += 1
            header = first + take(BIN_HEADER.size - 1, f"the drawing's {BIN_HEADER.size}-byte header")
            key_id, country, recognized, seconds, stroke_count = BIN_HEADER.unpack(header)
            problem = None if stroke_count else "a drawing with no strokes"
            strokes = []
            points = 0
            for s in range(stroke_count):
                (count,) = struct.unpack("<H", take(2, f"stroke {s} of {stroke_count}: its point count"))
                data = take(2 * count, f"stroke {s} of {stroke_count}, which declares {count} points ({2 * count} bytes)")
                points += count
                if problem is None and count == 0:
                    problem = f"stroke {s} has no points"
                if problem is None and points > BIN_MAX_POINTS:
                    problem = f"more than {BIN_MAX_POINTS} points"
                if problem is None:
                    xs, ys = np.frombuffer(data, np.uint8, count), np.frombuffer(data, np.uint8, count, count)
                    strokes.append([xs.astype(np.float64), ys.astype(np.float64)] if parse else [xs.tolist(), ys.tolist()])
            if problem is not None and not skip_bad:
                raise fail(problem)
            index += 1
            if problem is not None:
                continue
            n += 1
            yield {"word": word, "countrycode": country.rstrip(b"\0").decode("ascii", "replace"),
                   "timestamp": _bin_time(seconds), "recognized": bool(recognized), "key_id": str(key_id),
                   "drawing": strokes}


def encode_bin(rec: dict) -> bytes:
    """One record in ``.bin`` form. Its strokes must hold integers 0–255 (simplified drawings)."""
    strokes = rec["drawing"]
    if not strokes or len(strokes) > 0xFFFF:
        raise ValueError(f"{len(strokes)} strokes; .bin holds 1 to 65535")
    stamp = rec.get("timestamp")
    seconds = 0
    if isinstance(stamp, str) and len(stamp) >= 19:
        try:
            seconds = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%d %H:%M:%S"))
        except (ValueError, OverflowError):
            seconds = 0
    key = rec.get("key_id")
    out = bytearray(BIN_HEADER.pack(int(key) if str(key or "").isdigit() else 0,
                                    (rec.get("countrycode") or "").encode("ascii", "replace")[:2],
                                    1 if rec.get("recognized") else 0, seconds if 0 <= seconds < 1 << 32 else 0, len(strokes)))
    for s, stroke in enumerate(strokes):
        xs, ys = np.asarray(stroke[0]), np.asarray(stroke[1])
        if not 0 < len(xs) <= 0xFFFF or len(ys) != len(xs):
            raise ValueError(f"stroke {s} has {len(xs)} x and {len(ys)} y values; .bin holds 1 to 65535 points")
        for column in (xs, ys):
            if np.any(column < 0) or np.any(column > 255) or np.any(column != np.round(column)):
                raise ValueError(f"stroke {s} holds a value that is not an integer in 0–255 (simplify the drawing first)")
        out += struct.pack("<H", len(xs)) + xs.astype(np.uint8).tobytes() + ys.astype(np.uint8).tobytes()
    return bytes(out)


def write_bin(path: Path, records) -> int:
    """Writes ``records`` (dicts with ``drawing`` and optionally ``key_id``, ``countrycode``,
    ``recognized``, ``timestamp``) to a ``.bin`` file; returns how many."""
    count = 0
    with open(path, "wb") as f:
        for rec in records:
            f.write(encode_bin(rec))
            count += 1
    return count


def iter_records(path: Path, limit: int | None = None, parse: bool = True) -> Iterator[dict]:
    """The records of a Quick, Draw! stroke file, by extension: ``.ndjson``/``.jsonl`` or ``.bin``."""
    suffix = Path(path).suffix.lower()
    if suffix == ".bin":
        return iter_bin(path, limit=limit, parse=parse)
    if suffix in (".ndjson", ".jsonl"):
        return iter_ndjson(path, limit=limit, parse=parse)
    raise ValueError(f"{path}: not a Quick, Draw! stroke file (.ndjson, .jsonl or .bin)")


# ------------------------------------------------------------------ stroke-3
def stroke3_to_strokes(rows: np.ndarray) -> list[list[np.ndarray]]:
    """Stroke-3 ``(n, 3)`` rows -> strokes (as Swift's ``StrokeSketch(stroke3:)``: the first
    offset is taken from the origin, a stroke ends on a row with pen_lifted != 0)."""
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 3)
    if rows.shape[0] == 0:
        return []
    x = np.cumsum(rows[:, 0])
    y = np.cumsum(rows[:, 1])
    ends = np.flatnonzero(rows[:, 2] != 0)
    strokes = []
    start = 0
    for e in ends:
        strokes.append([x[start:e + 1], y[start:e + 1]])
        start = e + 1
    if start < rows.shape[0]:
        strokes.append([x[start:], y[start:]])
    return strokes


def load_npz(path: Path, keys: Sequence[str] = ("train", "valid", "test")) -> list[tuple[str, int, np.ndarray]]:
    """All drawings of a Sketch-RNN ``.npz`` as ``(key, index, stroke3 rows)`` for the keys present."""
    out = []
    with np.load(path, allow_pickle=True, encoding="latin1") as d:
        for k in keys:
            if k in d.files:
                for i, a in enumerate(d[k]):
                    out.append((k, i, np.asarray(a)))
    return out


# ------------------------------------------------------------------ bitmaps
def load_bitmaps(path: Path) -> np.ndarray:
    """``numpy_bitmap`` ``(n, 784)`` uint8, memory-mapped (the full files are large)."""
    a = np.load(path, mmap_mode="r")
    if a.ndim != 2 or a.shape[1] != 784 or a.dtype != np.uint8:
        raise ValueError(f"{path}: expected (n, 784) uint8, got {a.shape} {a.dtype}")
    return a


# ------------------------------------------------------------------ split
def hash_fraction(text: str) -> float:
    """A deterministic number in [0, 1) from a string (SHA-1)."""
    h = hashlib.sha1(text.encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big") / 2.0 ** 64


def key_is_validation(key_id: str | int, fraction: float = VAL_FRACTION) -> bool:
    """Split rule for stroke records: by ``key_id`` only (raw and simplified agree)."""
    return hash_fraction(f"key/{key_id}") < fraction


def is_validation(fmt: str, cls: str, index: int, fraction: float = VAL_FRACTION) -> bool:
    """Split rule for bitmaps (``fmt="bitmap"``), npz (``fmt="npz/<key>"``) and stroke records
    without a ``key_id`` (``fmt`` their folder, e.g. ``simplified-extra``): by index hash."""
    return hash_fraction(f"{fmt}/{cls}/{index}") < fraction


def record_split(rec: dict, folder: str, cls: str, index: int, fraction: float = VAL_FRACTION) -> tuple[str, bool]:
    """-> (the drawing's identity, whether it is validation) for an ndjson record: its ``key_id``
    where it has one (so raw and simplified copies agree), else ``<folder>/<class>/<index>``
    (records without ``key_id``, as in copies that kept only ``word`` and ``drawing``)."""
    if rec.get("key_id") not in (None, ""):
        kid = str(rec["key_id"])
        return kid, key_is_validation(kid, fraction)
    return f"{folder}/{cls}/{index}", is_validation(folder, cls, index, fraction)


# ------------------------------------------------------------------ simplification
def get_simplify():
    """The project's Google-exact simplification (``sketchwise_data.simplify``), the same
    algorithm the Swift side runs on raw input."""
    from . import simplify as mod
    fn = getattr(mod, "simplify_drawing", None) or getattr(mod, "simplify")
    return fn


def simplified_is_google() -> bool:
    """Kept for callers and cache keys: simplification is always ``sketchwise_data.simplify``."""
    return True


def simplify_strokes(strokes: Sequence) -> list[list[np.ndarray]]:
    """Google-simplify a raw drawing -> strokes ``[xs, ys]`` as float64 arrays."""
    res = get_simplify()(strokes)
    out = []
    for s in res:
        xs = np.asarray(s[0], dtype=np.float64).ravel()
        ys = np.asarray(s[1], dtype=np.float64).ravel()
        if xs.size:
            out.append([xs, ys])
    return out
