#!/usr/bin/env python3
"""Contact sheets for reviewing suggested pictures (issue 13; dev-only, not a test).

For each class: its first validation drawing (never trained on, by the training split rule; raw,
else simplified; else its first drawing, said on stderr) is sent to `sketchwise suggest`, and the sheet shows the drawing beside the first
pictures suggested for it (with the guess each stands for, its id, title and score), and the guesses. With
--own-class the pictures are those of the drawn class alone, as the app shows them when it
guesses that class: that measures the library, not the recogniser.

A person marks each picture good (a person would accept it as the class), loose (related, or
only part of it) or wrong, in the review list (tab-separated: class, picture id, verdict; see
Sources/SketchwiseLibrary/Resources/picture-reviews.tsv). precision@6 is the share of good ones
among the (at most) 6 first pictures shown; how many of the 6 slots are filled is reported beside it.

    python3 bench/contact_sheets.py [--classes 60 [--offset 2] | --class cat --class "palm tree"]
        [--db out/library.sqlite] [--binary .build/release/sketchwise] [--out out/contact-sheets]
        [--style line] [--own-class] [--reviews FILE] [--png]

Writes OUT/sheet-NN.html (10 classes each; reviewed pictures framed green, amber or red) with
OUT/index.html, OUT/shown.tsv (every picture shown: class, rank, id, title, verdict, score) and, with
--png, OUT/sheet-NN.png screenshots (headless chromium). With --reviews it prints precision@6,
the classes with at least one good picture, and how many shown pictures have no verdict yet.
Classes are spread evenly over the 345 (every k-th of categories.txt) unless named.
"""
from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from sketchwise_data import quickdraw as qd  # the training package: pip install -e training

ROOT = Path(__file__).resolve().parent.parent


def first_validation_drawing(quickdraw: Path, cls: str) -> tuple[dict | None, bool]:
    """(record, whether it is of validation): the class's first record on the validation side of
    the training split, raw else simplified; else its first record at all, for a class whose few
    drawings in ../shared hold none of validation (with --own-class the sheet measures the
    library, which no drawing trained)."""
    first = None
    for kind in ("raw", "simplified"):
        path = quickdraw / kind / f"{cls}.ndjson"
        if not path.exists():
            continue
        for index, rec in enumerate(qd.iter_ndjson(path, parse=False)):
            if qd.record_split(rec, kind, cls, index)[1]:
                return rec, True
            first = first or rec
    return first, False


def suggest(binary: Path, db: Path, recs: list[dict], per_class: int, style: str | None, own_class: bool,
            without_reviews: bool, weakest: str | None) -> list[dict]:
    """`sketchwise suggest --json` over the drawings, in one run; one answer per drawing."""
    with tempfile.TemporaryDirectory() as folder, tempfile.NamedTemporaryFile("w", suffix=".tsv") as no_reviews:
        files = []
        for n, rec in enumerate(recs):
            path = Path(folder) / f"{n:04d}-{rec['word']}.ndjson"
            path.write_text(json.dumps(rec) + "\n")
            files.append(path)
        extra = (["--style", style] if style else []) + (["--own-class"] if own_class else [])
        if without_reviews:
            extra += ["--reviews", no_reviews.name]
        if weakest:
            extra += ["--weakest-match", weakest]
        out = subprocess.run([str(binary), "suggest", folder, "--db", str(db), "--json", "--labels", "4",
                              "--per-label", str(per_class), *extra], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def read_reviews(path: Path | None) -> dict[tuple[str, str], str]:
    """(class, picture id) → verdict, from a tab-separated review list (# starts a comment)."""
    reviews: dict[tuple[str, str], str] = {}
    if path is None:
        return reviews
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            cls, item, verdict = line.split("\t")[:3]
            reviews[(cls, item)] = verdict
    return reviews


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
    ap.add_argument("--offset", type=int, default=0,
                    help="start the even spread at this class (another set of classes, e.g. held out from a review)")
    ap.add_argument("--class", dest="names", action="append", default=[], help="a class to show (repeatable)")
    ap.add_argument("--db", type=Path, default=ROOT / "out" / "library.sqlite")
    ap.add_argument("--binary", type=Path, default=ROOT / ".build" / "release" / "sketchwise")
    ap.add_argument("--data", type=Path, default=qd.DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "contact-sheets")
    ap.add_argument("--per-class", type=int, default=6)
    ap.add_argument("--style", choices=["line", "emoji", "clipart", "all"], help="the pictures' style (default: the server's)")
    ap.add_argument("--own-class", action="store_true", help="the drawn class's pictures alone (what the app shows for it)")
    ap.add_argument("--reviews", type=Path, help="the review list: frame reviewed pictures and print precision@6")
    ap.add_argument("--weakest-match", help="passed to sketchwise suggest (prediction: the rules before issue 13)")
    ap.add_argument("--without-reviews", action="store_true",
                    help="rank as if no picture were reviewed (the rules alone), still judging by --reviews")
    ap.add_argument("--png", action="store_true", help="also screenshot the sheet with headless chromium")
    a = ap.parse_args()
    a.out = a.out.resolve()  # chromium takes a file:// address
    qd_dir = a.data / "quickdraw"
    classes = qd.load_categories(qd_dir)
    names = a.names or classes[a.offset:: max(1, len(classes) // a.classes)][: a.classes]
    (a.out / "thumbs").mkdir(parents=True, exist_ok=True)
    reviews = read_reviews(a.reviews)
    drawings = []
    for cls in names:
        rec, validation = first_validation_drawing(qd_dir, cls)
        if rec is None:
            print(f"{cls}: no drawing", file=sys.stderr)
        else:
            if not validation:
                print(f"{cls}: no validation drawing; its first training drawing stands in", file=sys.stderr)
            drawings.append((cls, rec))
    answers = suggest(a.binary, a.db, [rec for _, rec in drawings], a.per_class, a.style, a.own_class, a.without_reviews, a.weakest_match)
    rows, shown = [], []
    good_total, with_good = 0, 0
    for (cls, rec), answer in zip(drawings, answers):
        mine = answer["suggestions"][: a.per_class]
        guesses = ", ".join(f"{g['label']} {g['probability']:.2f}" for g in answer["guesses"][:4])
        cells = []
        for rank, s in enumerate(mine, 1):
            verdict = reviews.get((cls, s["id"]), "")
            shown.append((cls, rank, s["id"], s["title"], verdict, f'{s["score"]:.3f}'))
            src = thumbnail(a.db, s["id"], a.out)
            img = f'<img src="{src}" width="96" height="96">' if src else "(no thumbnail)"
            other = "" if s["label"] == cls else ' class="other"'
            cells.append(f'<td class="{verdict}">{img}<div class="t">{html.escape(s["title"])}</div>'
                         f'<div class="i">{html.escape(s["id"])}<br><span{other}>as {html.escape(s["label"])}</span>'
                         f' · score {s["score"]:.3f}</div></td>')
        cells += ['<td class="none">none</td>'] * (a.per_class - len(mine))
        rows.append(f'<tr><th>{html.escape(cls)}<div class="g">{html.escape(guesses)}</div></th>'
                    f'<td>{drawing_svg(rec)}</td>{"".join(cells)}</tr>')
        good = sum(reviews.get((cls, s["id"])) == "good" for s in mine)
        good_total += good
        with_good += good > 0
    (a.out / "shown.tsv").write_text("class\trank\tid\ttitle\tverdict\tscore\n" + "".join(
        "\t".join(map(str, row)) + "\n" for row in shown))
    if a.reviews:
        unreviewed = sum(1 for row in shown if not row[4])
        wrong = sum(1 for row in shown if row[4] == "wrong")
        loose = sum(1 for row in shown if row[4] == "loose")
        print(f"precision@{a.per_class}: {good_total}/{len(shown)} = {good_total / max(1, len(shown)):.1%} good "
              f"({loose} loose, {wrong} wrong, {unreviewed} unreviewed); slots filled: {len(shown)}/{a.per_class * len(rows)}; "
              f"classes with a good picture: {with_good}/{len(rows)}")
    style = ("body{font:12px sans-serif}td,th{border:1px solid #ccc;vertical-align:top;width:110px;padding:4px}"
             "th{width:140px;text-align:left}.t{font-weight:bold}.i,.g{color:#666;font-weight:normal;word-break:break-all}"
             ".none,.other{color:#c00}td.good{background:#dcfce7}td.loose{background:#fef3c7}td.wrong{background:#fee2e2}")
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
                            "--window-size=1100,1750", sheet.as_uri()], capture_output=True, check=True)
            print(f"wrote {png}", file=sys.stderr)
    print(f"{len(rows)} classes, {len(sheets)} sheets in {a.out}")


if __name__ == "__main__":
    main()
