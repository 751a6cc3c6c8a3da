"""Writes one JSON Lines collection of every kind of related books, for the
all-pairs job and `stemmata pairs` to read alike.

Usage: python collection.py [--words N] OUT.jsonl SET_DIR...

Each SET_DIR is a set written by `stemmata generate` (its texts/ID.txt, in
name order, keyed SET/ID): noisy copies give editions at 1-20% OCR noise,
volumes give works bound in multi-part volumes and unrelated books. To them
are added, deterministically: an exact copy of every 10th book, a book
made of the second half of one book and the first half of the next (a
partial overlap) for every 20th, and lines the loader skips or takes
specially: a blank line, a line of invalid JSON, a key breaking the key
rule, and a second document under an earlier key (the later wins). With
--words N, each text of a set is cut to its first N words first (many
small books from a few sets).
"""

from __future__ import annotations

import json
import pathlib
import sys


def books(sets: list[str], words: int | None) -> list[tuple[str, str]]:
    found = []
    for directory in sets:
        name = pathlib.Path(directory).name
        for path in sorted(pathlib.Path(directory, "texts").glob("*.txt")):
            text = path.read_text(encoding="utf-8")
            if words is not None:
                text = " ".join(text.split()[:words])
            found.append((f"{name}/{path.stem}", text))
    return found


def main(out: str, sets: list[str], words: int | None = None) -> None:
    found = books(sets, words)
    lines = [json.dumps({"key": key, "text": text}) for key, text in found]
    for i, (key, text) in enumerate(found):
        if i % 10 == 0:
            lines.append(json.dumps({"key": f"{key}-copy", "text": text}))
        if i % 20 == 0 and i + 1 < len(found):
            first, second = text.split(), found[i + 1][1].split()
            joined = first[len(first) // 2 :] + second[: len(second) // 2]
            lines.append(json.dumps({"key": f"{key}-overlap", "text": " ".join(joined)}))
    middle = len(lines) // 2
    lines[middle:middle] = [
        "",
        "{not json",
        json.dumps({"key": " leading space", "text": "a text under a bad key"}),
    ]
    key, text = found[0]
    lines.append(json.dumps({"key": key, "text": text[: len(text) // 2]}))
    with open(out, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    print(f"{out}: {len(lines)} lines")


if __name__ == "__main__":
    args = sys.argv[1:]
    cut = None
    if args[:1] == ["--words"]:
        cut, args = int(args[1]), args[2:]
    main(args[0], args[1:], cut)
