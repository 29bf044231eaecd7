#!/usr/bin/env python3
"""Contact sheets of the library's doodles, for reviewing them by eye (issue 38; dev-only, not a test).

Each row is one class: its name, then its doodles (`sketchwise index doodles`, files named by the
drawing's key_id) in file-name order, numbered, as rsvg-convert draws them. A person writes each
verdict into Sources/SketchwiseLibrary/Resources/picture-reviews.tsv as `class, doodle:CLASS/FILE,
good|wrong` (weak but recognisable doodles are left out: "loose" would hide them).

    python3 bench/doodle_sheets.py [--class barn --class pond | --doodle-only out/coverage.json]
        [--doodles /usr/local/share/sketchwise/pictures/doodles] [--out out/doodle-sheets]

--doodle-only reads `sketchwise index coverage --style line --json` and takes the classes no line
picture draws (the only ones whose doodles are shown). Writes OUT/sheet-NN.png, 8 classes each,
and prints each sheet's classes.
"""
from __future__ import annotations

import argparse
import io
import json
import subprocess
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CELL = 150
ROWS = 8
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def doodle_only_classes(coverage_json: Path) -> list[str]:
    """The classes of a coverage report that have doodles and no line picture."""
    classes = json.loads(coverage_json.read_text())["coverage"]["classes"]
    return [c["label"] for c in classes if c["byPrediction"] + c["bySynonym"] == 0 and c.get("doodles", 0) > 0]


def drawn(svg: Path) -> Image.Image:
    """The SVG drawn into a cell, on white."""
    png = subprocess.run(["rsvg-convert", "-w", str(CELL - 10), "-h", str(CELL - 10), "--keep-aspect-ratio", str(svg)],
                         capture_output=True, check=True).stdout
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    page = Image.new("RGB", image.size, "white")
    page.paste(image, mask=image.split()[3])
    return page


def sheet(classes: list[str], doodles: Path) -> Image.Image:
    """One sheet: a row per class, its doodles numbered in file-name order."""
    width = 200 + CELL * max(len(list((doodles / c).glob("*.svg"))) for c in classes)
    page = Image.new("RGB", (width, len(classes) * (CELL + 14)), "white")
    draw = ImageDraw.Draw(page)
    label, number = ImageFont.truetype(FONT, 16), ImageFont.truetype(FONT, 10)
    for row, name in enumerate(classes):
        y = row * (CELL + 14)
        draw.text((6, y + CELL // 2 - 8), name, fill="black", font=label)
        for column, svg in enumerate(sorted((doodles / name).glob("*.svg"))):
            page.paste(drawn(svg), (200 + column * CELL + 5, y + 5))
            draw.text((200 + column * CELL + 5, y + CELL), f"{column + 1} {svg.stem}", fill="gray", font=number)
        draw.line([(0, y + CELL + 13), (width, y + CELL + 13)], fill="#ccc")
    return page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--class", dest="classes", action="append", default=[], help="a class to show (repeat)")
    parser.add_argument("--doodle-only", type=Path, help="a coverage report (index coverage --style line --json)")
    parser.add_argument("--doodles", type=Path, default=Path("/usr/local/share/sketchwise/pictures/doodles"))
    parser.add_argument("--out", type=Path, default=Path("out/doodle-sheets"))
    args = parser.parse_args()
    classes = args.classes + (doodle_only_classes(args.doodle_only) if args.doodle_only else [])
    if not classes:
        parser.error("name classes with --class or give --doodle-only")
    args.out.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(classes), ROWS):
        chunk = classes[start:start + ROWS]
        path = args.out / f"sheet-{start // ROWS + 1:02d}.png"
        sheet(chunk, args.doodles).save(path)
        print(path, ", ".join(chunk))


if __name__ == "__main__":
    main()
