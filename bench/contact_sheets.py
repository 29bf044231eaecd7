#!/usr/bin/env python3
"""Contact sheets for reviewing suggested pictures (issue 13; dev-only, not a test).

For each class: its first validation drawing (never trained on, by the training split rule) is
sent to `sketchwise suggest`, and the sheet shows the drawing beside the first pictures suggested
for it, as the app shows them (with the guess each stands for, its id, title and score), and the
guesses. A person marks each picture good (it shows the drawn class), loose or wrong;
precision@6 is the share of good ones among the first 6.

    python3 bench/contact_sheets.py [--classes 60 | --class cat --class "palm tree"]
        [--db out/library.sqlite] [--binary .build/release/sketchwise] [--out out/contact-sheets] [--png]

Writes OUT/index.html (one row per class) and, with --png, OUT/sheet-NN.png screenshots of it
(headless chromium), 10 classes per picture. Classes are spread evenly over the 345 (every k-th
of categories.txt) unless named.
"""
from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "training"))

from sketchwise_data import quickdraw as qd  # noqa: E402


def first_validation_drawing(raw: Path, cls: str) -> dict | None:
    """The class's first raw record on the validation side of the training split."""
    path = raw / f"{cls}.ndjson"
    if not path.exists():
        return None
    for index, rec in enumerate(qd.iter_ndjson(path, parse=False)):
        if qd.record_split(rec, "raw", cls, index)[1]:
            return rec
    return None


def suggest(binary: Path, db: Path, rec: dict, per_class: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".ndjson", delete=False) as f:
        f.write(json.dumps(rec) + "\n")
    out = subprocess.run([str(binary), "suggest", f.name, "--db", str(db), "--json", "--labels", "4",
                          "--per-label", str(per_class)], capture_output=True, text=True, check=True)
    Path(f.name).unlink()
    return json.loads(out.stdout.splitlines()[0])


def drawing_svg(rec: dict, size: int = 160) -> str:
    """The raw strokes, fitted into a square."""
    xs = [x for s in rec["drawing"] for x in s[0]]
    ys = [y for s in rec["drawing"] for y in s[1]]
    x0, y0 = min(xs), min(ys)
    scale = (size - 10) / max(max(xs) - x0, max(ys) - y0, 1)
    lines = []
    for stroke in rec["drawing"]:
        pts = " ".join(f"{5 + (x - x0) * scale:.1f},{5 + (y - y0) * scale:.1f}" for x, y in zip(stroke[0], stroke[1]))
        lines.append(f'<polyline points="{pts}" fill="none" stroke="black" stroke-width="2" stroke-linecap="round"/>')
    return f'<svg width="{size}" height="{size}" viewBox="0 0 {size} {size}">{"".join(lines)}</svg>'


def thumbnail(db: Path, item_id: str, folder: Path) -> str | None:
    """The picture's thumbnail from the index, written beside the sheet; its file name."""
    import hashlib
    import sqlite3
    with sqlite3.connect(db) as con:
        row = con.execute("SELECT thumbnail FROM item WHERE id = ?", (item_id,)).fetchone()
    if not row or not row[0]:
        return None
    name = "thumbs/" + hashlib.sha1(item_id.encode()).hexdigest()[:16] + ".png"
    (folder / name).write_bytes(row[0])
    return name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--classes", type=int, default=60, help="how many classes, spread evenly (default 60)")
    ap.add_argument("--class", dest="names", action="append", default=[], help="a class to show (repeatable)")
    ap.add_argument("--db", type=Path, default=ROOT / "out" / "library.sqlite")
    ap.add_argument("--binary", type=Path, default=ROOT / ".build" / "release" / "sketchwise")
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "contact-sheets")
    ap.add_argument("--per-class", type=int, default=6)
    ap.add_argument("--png", action="store_true", help="also screenshot the sheet with headless chromium")
    a = ap.parse_args()
    a.out = a.out.resolve()  # chromium takes a file:// address
    qd_dir = a.data / "quickdraw"
    classes = qd.load_categories(qd_dir)
    names = a.names or classes[:: max(1, len(classes) // a.classes)][: a.classes]
    (a.out / "thumbs").mkdir(parents=True, exist_ok=True)
    rows = []
    for n, cls in enumerate(names, 1):
        rec = first_validation_drawing(qd_dir / "raw", cls)
        if rec is None:
            print(f"[{n}/{len(names)}] {cls}: no validation drawing", file=sys.stderr)
            continue
        answer = suggest(a.binary, a.db, rec, a.per_class)
        mine = answer["suggestions"][: a.per_class]
        guesses = ", ".join(f"{g['label']} {g['probability']:.2f}" for g in answer["guesses"][:4])
        cells = []
        for s in mine:
            src = thumbnail(a.db, s["id"], a.out)
            img = f'<img src="{src}" width="96" height="96">' if src else "(no thumbnail)"
            other = "" if s["label"] == cls else ' class="other"'
            cells.append(f'<td>{img}<div class="t">{html.escape(s["title"])}</div>'
                         f'<div class="i">{html.escape(s["id"])}<br><span{other}>as {html.escape(s["label"])}</span>'
                         f' · score {s["score"]:.3f}</div></td>')
        cells += ['<td class="none">none</td>'] * (a.per_class - len(mine))
        rows.append(f'<tr><th>{html.escape(cls)}<div class="g">{html.escape(guesses)}</div></th>'
                    f'<td>{drawing_svg(rec)}</td>{"".join(cells)}</tr>')
        print(f"[{n}/{len(names)}] {cls}: {sum(s['label'] == cls for s in mine)} of {len(mine)} pictures for the class",
              file=sys.stderr)
    style = ("body{font:12px sans-serif}td,th{border:1px solid #ccc;vertical-align:top;width:110px;padding:4px}"
             "th{width:140px;text-align:left}.t{font-weight:bold}.i,.g{color:#666;font-weight:normal;word-break:break-all}"
             ".none,.other{color:#c00}")
    pages = [rows[i:i + 10] for i in range(0, len(rows), 10)]
    sheets = []
    for p, page in enumerate(pages, 1):
        sheet = a.out / f"sheet-{p:02d}.html"
        sheet.write_text(f"<!doctype html><meta charset=utf-8><style>{style}</style><table>{''.join(page)}</table>\n")
        sheets.append(sheet)
    (a.out / "index.html").write_text("<!doctype html><meta charset=utf-8><ul>" + "".join(
        f'<li><a href="{s.name}">{s.name}</a></li>' for s in sheets) + "</ul>\n")
    if a.png:
        for sheet in sheets:
            png = sheet.with_suffix(".png")
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                            "--window-size=1100,1400", sheet.as_uri()], capture_output=True, check=True)
            print(f"wrote {png}", file=sys.stderr)
    print(f"{len(rows)} classes, {len(sheets)} sheets in {a.out}")


if __name__ == "__main__":
    main()
