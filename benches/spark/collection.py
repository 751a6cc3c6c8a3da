"""Writes one JSON Lines collection of every kind of related books, for the
all-pairs job and `stemmata pairs` to read alike.

Usage: python collection.py OUT.jsonl [--words N] SET_DIR [[--words N] SET_DIR]...

Each SET_DIR is a set written by `stemmata generate` (its texts/ID.txt, in
name order, keyed SET/ID): noisy copies give editions at 1-20% OCR noise,
volumes give works bound in multi-part volumes and unrelated books. To them
are added, deterministically: an exact copy of every 10th book, a book
made of the second half of one book and the first half of the next (a
partial overlap) for every 20th, and lines the loader skips or takes
specially: a blank line, a line of invalid JSON, a key breaking the key
rule, and a second document under an earlier key (the later wins).
`--words N` cuts each text of the sets after it to its first N words
(many small books from a few sets; `--words 0` keeps whole texts again),
so that noisy copies can be many and short while volumes stay whole.
"""

from __future__ import annotations

import json
import pathlib
import sys


def books(sets: list[tuple[str, int]]) -> list[tuple[str, str]]:
    """The texts of each (set directory, words to keep or 0 for all)."""
    found = []
    for directory, words in sets:
        name = pathlib.Path(directory).name
        for path in sorted(pathlib.Path(directory, "texts").glob("*.txt")):
            text = path.read_text(encoding="utf-8")
            if words > 0:
                text = " ".join(text.split()[:words])
            found.append((f"{name}/{path.stem}", text))
    return found


def sets_of(args: list[str]) -> list[tuple[str, int]]:
    """The set directories of the command line, each with the `--words`
    before it (0 when none)."""
    sets, words, at = [], 0, 0
    while at < len(args):
        if args[at] == "--words":
            if at + 1 == len(args):
                sys.exit("--words needs a number")
            words, at = int(args[at + 1]), at + 2
        else:
            sets.append((args[at], words))
            at += 1
    if not sets:
        sys.exit("no SET_DIR given")
    return sets


def main(out: str, sets: list[tuple[str, int]]) -> None:
    found = books(sets)
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
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sets_of(sys.argv[2:]))
