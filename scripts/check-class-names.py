#!/usr/bin/env python3
"""Checks the translated class-name tables against the model's labels and against Unicode CLDR.

The tables are Sources/SketchwiseLocalization/Resources/class-names/<locale>.tsv: UTF-8,
tab-separated, the header `label<TAB>name<TAB>reviewer`, then one row per class label of
Models/raster-cnn.json in the model's order.

Shape (an error here exits with status 1): the header, 345 rows of three fields, the labels
equal to the model's labels in order, no empty name or name with surrounding blanks, and a
reviewer that is `cldr`, `second pass` or a person's handle written `@handle`. A row marked
`cldr` must carry CLDR's name, and a row whose name is CLDR's name is marked `cldr` (unless a
person reviewed it).

CLDR (printed for review, never an error): for every class whose English label equals,
case-insensitively, the English `tts` (short) name of an emoji in
/usr/share/unicode/cldr/common/annotations{,Derived}/en.xml, the table's name is compared with
that emoji's `tts` name in the locale. Per locale it prints the number of classes with a CLDR
counterpart, how many agree exactly, and each disagreement (label, table name, CLDR name). Where
the CLDR files are missing (Debian package unicode-cldr-core) only the shape is checked.

    scripts/check-class-names.py                 # all six locales
    scripts/check-class-names.py de fr           # some of them
    scripts/check-class-names.py --cldr DIR      # another CLDR `common` folder
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "Sources" / "SketchwiseLocalization" / "Resources" / "class-names"
MODEL = ROOT / "Models" / "raster-cnn.json"
CLDR = Path("/usr/share/unicode/cldr/common")
HEADER = ["label", "name", "reviewer"]
REVIEWERS = {"cldr", "second pass"}
HANDLE = re.compile(r"^@[\w.-]+$")
# The table's locale and the CLDR file that holds its names (CLDR's `zh` is Simplified Chinese).
LOCALES = {"zh-Hans": "zh", "he": "he", "es": "es", "fr": "fr", "de": "de", "ja": "ja"}


def model_labels(path=MODEL):
    """The model's class labels, in the model's order."""
    return json.loads(path.read_text(encoding="utf-8"))["labels"]


def tts_names(cldr, lang):
    """Map each emoji of a CLDR locale to its `tts` short name (annotations, then the derived ones)."""
    names = {}
    for folder in ("annotations", "annotationsDerived"):
        path = cldr / folder / f"{lang}.xml"
        if not path.exists():
            continue
        for node in ET.parse(path).getroot().iter("annotation"):
            text = (node.text or "").strip()
            if node.get("type") == "tts" and text and text != "↑↑↑":
                names.setdefault(node.get("cp"), text)
    return names


def counterparts(labels, english):
    """Map each label that is (case-insensitively) an English emoji `tts` name to those emoji."""
    by_name = {}
    for cp, name in english.items():
        by_name.setdefault(name.casefold(), []).append(cp)
    return {label: by_name[label.casefold()] for label in labels if label.casefold() in by_name}


def read_table(path, labels):
    """The table's rows as (label, name, reviewer) and the list of its shape errors."""
    errors = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        return [], [f"cannot read: {error}"]
    if not lines or lines[0].split("\t") != HEADER:
        errors.append(f"the header is not {'<TAB>'.join(HEADER)!r}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 3:
            errors.append(f"line {number}: {len(fields)} fields, not 3")
            continue
        label, name, reviewer = fields
        if not name.strip():
            errors.append(f"line {number} ({label}): empty name")
        elif name != name.strip():
            errors.append(f"line {number} ({label}): blanks around the name {name!r}")
        if reviewer not in REVIEWERS and not HANDLE.match(reviewer):
            errors.append(f"line {number} ({label}): reviewer {reviewer!r} is not cldr, second pass or @handle")
        rows.append((label, name, reviewer))
    if len(rows) != len(labels):
        errors.append(f"{len(rows)} rows, not {len(labels)}")
    for index, (row, label) in enumerate(zip(rows, labels)):
        if row[0] != label:
            errors.append(f"row {index + 1}: label {row[0]!r}, the model has {label!r}")
            break
    return rows, errors


def compare(rows, matches, local):
    """CLDR counterparts of the rows: (label, name, reviewer, CLDR names) for each row that has one."""
    found = []
    for label, name, reviewer in rows:
        cldr_names = [local[cp] for cp in matches.get(label, []) if cp in local]
        if cldr_names:
            found.append((label, name, reviewer, list(dict.fromkeys(cldr_names))))
    return found


def reviewer_errors(found):
    """Rows whose reviewer contradicts CLDR: `cldr` on a name CLDR lacks, or CLDR's name left unmarked."""
    errors = []
    for label, name, reviewer, cldr_names in found:
        if reviewer == "cldr" and name not in cldr_names:
            errors.append(f"{label}: marked cldr, but {name!r} is not CLDR's {' / '.join(cldr_names)!r}")
        if reviewer == "second pass" and name in cldr_names:
            errors.append(f"{label}: {name!r} is CLDR's name; mark the row cldr")
    return errors


def unmatched_cldr_marks(rows, found):
    """Rows marked `cldr` that have no CLDR counterpart at all."""
    with_counterpart = {row[0] for row in found}
    return [f"{label}: marked cldr without a CLDR counterpart"
            for label, _, reviewer in rows if reviewer == "cldr" and label not in with_counterpart]


def duplicates(rows):
    """Names that two or more labels share (printed as a note: some languages do use one word)."""
    by_name = {}
    for label, name, _ in rows:
        by_name.setdefault(name, []).append(label)
    return {name: group for name, group in by_name.items() if len(group) > 1}


def check_locale(locale, args, labels, matches):
    """Check one locale's table, print its report, and return the number of shape errors."""
    rows, errors = read_table(args.tables / f"{locale}.tsv", labels)
    print(f"== {locale}: {len(rows)} rows")
    if matches is not None and rows:
        found = compare(rows, matches, tts_names(args.cldr, LOCALES[locale]))
        errors += reviewer_errors(found) + unmatched_cldr_marks(rows, found)
        differing = [row for row in found if row[1] not in row[3]]
        print(f"   CLDR: {len(found)} classes with a counterpart, {len(found) - len(differing)} agree, "
              f"{len(differing)} differ")
        for label, name, _, cldr_names in differing:
            print(f"     {label}: table {name!r}, CLDR {' / '.join(cldr_names)!r}")
    for name, group in duplicates(rows).items():
        print(f"   note: {name!r} names {', '.join(group)}")
    counts = {}
    for _, _, reviewer in rows:
        counts[reviewer] = counts.get(reviewer, 0) + 1
    print("   reviewer: " + ", ".join(f"{key} {value}" for key, value in sorted(counts.items())))
    for error in errors:
        print(f"   ERROR {error}")
    return len(errors)


def main():
    """Check the chosen locales' tables; exit 1 on any shape error."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locales", nargs="*", default=list(LOCALES), help="locales to check (default: all six)")
    parser.add_argument("--tables", type=Path, default=TABLES, help="folder of the <locale>.tsv tables")
    parser.add_argument("--cldr", type=Path, default=CLDR, help="CLDR's `common` folder")
    args = parser.parse_args()
    unknown = [locale for locale in args.locales if locale not in LOCALES]
    if unknown:
        parser.error(f"unknown locale(s) {', '.join(unknown)}; known: {', '.join(LOCALES)}")
    labels = model_labels()
    english = tts_names(args.cldr, "en")
    matches = counterparts(labels, english) if english else None
    if matches is None:
        print(f"note: no CLDR annotations under {args.cldr}; checking the tables' shape only")
    else:
        print(f"{len(matches)} of {len(labels)} classes are an English CLDR emoji name")
    errors = sum(check_locale(locale, args, labels, matches) for locale in args.locales)
    if errors:
        print(f"{errors} shape error(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
