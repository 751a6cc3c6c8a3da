"""Translation pairs of two builds combined, scored against a labelled set.

usage: passage_hybrid.py SET_DIR PARTS_PAIRS.jsonl PASSAGES_PAIRS.jsonl

SET_DIR holds books.tsv (id, language, ...), pairs.tsv (a, b, relation, note,
band) and texts/ID.txt; each pairs file is `stemmata pairs IDX --translations
--json` of an index of the set with its dictionaries (added before the load),
the first from a build joining parts, the second from one joining passages
(branch `passages-layer`). Prints precision and recall (pieces of 0.1% of
their volume and up; HARD pairs left out) of each build and of the parts'
pairs joined by the passages' pairs whose matched pair of passages has
evidence z = (|LCS| - 2 sqrt(c)) / c^(1/6) of at least ZMIN and whose shorter
book has at most RATIO of the longer's words.
"""
import csv
import json
import math
import sys

setdir, parts_file, passages_file = sys.argv[1:4]
language, words = {}, {}
for row in csv.DictReader(open(f"{setdir}/books.tsv"), delimiter="\t"):
    language[row["id"]] = row["language"]
    text = open(f"{setdir}/texts/{row['id']}.txt", encoding="utf-8", errors="replace").read()
    words[row["id"]] = len(text.split())
labels, hard = {}, set()
for row in csv.DictReader(open(f"{setdir}/pairs.tsv"), delimiter="\t"):
    if row["relation"] != "translation":
        continue
    pair = frozenset((row["a"], row["b"]))
    if "HARD" in row.get("note", ""):
        hard.add(pair)
    else:
        labels[pair] = row.get("band") or "all"


def found(path, zmin=None):
    out = set()
    for line in open(path):
        p = json.loads(line)
        pair = frozenset((p["a"], p["b"]))
        if language.get(p["a"]) == language.get(p["b"]) or pair in hard:
            continue
        c, lcs = p.get("common", 0), p.get("lcs", 0)
        z = (lcs - 2 * math.sqrt(c)) / c ** (1 / 6) if c else float("-inf")
        if zmin is None or z >= zmin:
            out.add(pair)
    return out


def report(label, got):
    kept = [k for k in labels if labels[k] != "share <0.1%"]
    tp = sum(1 for k in got if k in labels)
    recall = sum(1 for k in kept if k in got) / max(1, len(kept))
    print(f"{label:34} P {tp / max(1, len(got)):.3f}  R {recall:.3f}  FP {len(got) - tp}")


parts = found(parts_file)
report("parts", parts)
for zmin in [None, 4, 5]:
    passages = found(passages_file, zmin)
    report(f"passages, z >= {zmin}", passages)
    for ratio in [1.0, 0.15]:
        short = {k for k in passages if min(words[x] for x in k) / max(words[x] for x in k) <= ratio}
        report(f"  parts + passages (ratio <= {ratio})", parts | short)
