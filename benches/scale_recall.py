#!/usr/bin/env python3
"""Recall of a `stemmata pairs --json` self-join against the ground truth that
`stemmata bench-scale --write-texts DIR` writes (DIR/truth.tsv).

usage: scale_recall.py DIR/truth.tsv PAIRS.jsonl

Prints the recall of the edition pairs, the contains pairs, the contains
pairs of a volume and all of them, and the found pairs not in the ground
truth, as one JSON object.
"""
import json
import sys


def main(truth_path, pairs_path):
    truth = {}
    with open(truth_path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header != ["a", "b", "relation", "volume"]:
            sys.exit(f"{truth_path}: not a bench-scale truth.tsv (header {header})")
        for n, line in enumerate(f, start=2):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4:
                sys.exit(f"{truth_path}:{n}: expected 4 columns")
            a, b, relation, volume = fields
            truth[frozenset((a, b))] = (relation, volume == "1")
    found = set()
    not_in_truth = 0
    with open(pairs_path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            try:
                pair = json.loads(line)
                key = frozenset((pair["a"], pair["b"]))
            except (ValueError, KeyError) as e:
                sys.exit(f"{pairs_path}:{n}: not a pair line ({e})")
            if key in truth:
                found.add(key)
            else:
                not_in_truth += 1

    def recall(keep):
        keys = [k for k, v in truth.items() if keep(v)]
        hit = sum(1 for k in keys if k in found)
        return {"truth": len(keys), "found": hit,
                "recall": round(hit / len(keys), 4) if keys else None}

    print(json.dumps({
        "edition": recall(lambda v: v[0] == "edition"),
        "contains": recall(lambda v: v[0] == "contains"),
        "contains_in_volume": recall(lambda v: v[0] == "contains" and v[1]),
        "contains_not_in_volume": recall(lambda v: v[0] == "contains" and not v[1]),
        "all": recall(lambda v: True),
        "pairs_found": len(found) + not_in_truth,
        "not_in_truth": not_in_truth,
    }))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
