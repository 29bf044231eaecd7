#!/usr/bin/env python3
"""Checks that the README's map of the targets (## Architecture) is the package's real graph.

Every target of Package.swift but the tests is listed once, in an order where each target's
dependencies come before it (the bands read top-down), and every library target except the
test fixtures is a product. Reads the graph from `swift package dump-package`.

    scripts/check-map.py
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"^(?:Sketchwise\w+|sketchwise|C[A-Z]\w+)$")


def readme_order():
    """The target names of the README's map, in the order they appear."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Architecture", 1)[1]
    block = section.split("```", 2)[1]
    names = []
    for line in block.splitlines():
        if not line.startswith("  ") or line.startswith("   "):
            continue  # a band's title or a description's second line
        for word in line.split():
            if not NAME.match(word):
                break
            names.append(word)
    return names


def main():
    package = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    targets = {t["name"]: t for t in package["targets"] if t["type"] != "test"}
    order = readme_order()
    problems = []
    for name in sorted({n for n in order if order.count(n) > 1}):
        problems.append(f"{name} is listed more than once")
    for name in sorted(set(targets) - set(order)):
        problems.append(f"{name} is a target but the README's map does not list it")
    for name in sorted(set(order) - set(targets)):
        problems.append(f"{name} is in the README's map but is no target")
    position = {name: index for index, name in enumerate(order)}
    for name, target in targets.items():
        for dependency in target["dependencies"]:
            kind, value = next(iter(dependency.items()))
            if kind not in ("byName", "target"):
                continue  # another package's product
            used = value[0]
            if used in position and name in position and position[used] > position[name]:
                problems.append(f"{name} imports {used}, which the map lists below it")
    products = {p["name"] for p in package["products"] if "library" in p["type"]}
    libraries = {n for n, t in targets.items() if t["type"] == "regular" and n != "SketchwiseTestSupport"}
    for name in sorted(libraries - products):
        problems.append(f"{name} is a library target but no product")
    for problem in problems:
        print(f"check-map: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"check-map: ok ({len(order)} targets, {len(products)} library products)")


if __name__ == "__main__":
    main()
