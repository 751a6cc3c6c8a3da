#!/usr/bin/env python3
"""Precision, recall and F1 of candidate pair scores over the overlaps that
`cargo run --release --example score_overlaps` prints (one TSV on stdin).

Sets: corpus (edition + contains; translations and PARTIAL containment left
out), noisy copies up to 20% + 10% and beyond, generated collections at 5%
and 20% noise. Candidates: coverage, share of common words in order with a
floor or an evidence margin (order: Z = 16), junk-discounted coverage (|X'|:
elements some other book of the collection also holds), E / sqrt(c * m).
"""
import collections
import math
import sys

rows = []
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    rows.append((f[0], f[1], int(f[2]), f[3], f[4], f[5]) + tuple(map(int, f[6:12])))

# Cross pairs of noisy copies whose books the corpus relates are left out.
related = set()
for line in open("/work/shared/corpus/pairs.tsv").read().splitlines()[1:]:
    f = line.split("\t")
    if f[2] != "same_author":
        related |= {(f[0], f[1]), (f[1], f[0])}
rows = [
    r[:2] + (5,) + r[3:]
    if r[0] == "noisy" and r[2] == 0 and (r[4].split("#")[0], r[5].split("#")[0]) in related
    else r
    for r in rows
]


def excess(l, c):
    return l - 2 * math.sqrt(c)


def coverage(lx, ly, c, l, sx, sy):
    m = min(lx, ly)
    return max(0, excess(l, c)) / m if m and l else 0


def share_floor(c0):
    return lambda lx, ly, c, l, sx, sy: max(0, excess(l, c)) / c if c >= c0 else 0


def share_z(z):
    return lambda lx, ly, c, l, sx, sy: max(0, excess(l, c) - z * c ** (1 / 6)) / c if c else 0


def junk(lx, ly, c, l, sx, sy):
    m = min(sx, sy)
    return max(0, excess(l, c)) / m if m else 0


def geo(lx, ly, c, l, sx, sy):
    m = min(lx, ly)
    return max(0, excess(l, c)) / math.sqrt(m * c) if c and m else 0


SETS = ["corpus", "noisy<=20+10", "noisy>20+10", "synth", "synth20"]
data = {s: [] for s in SETS}
for r in rows:
    if r[2] in (3, 4, 5) or r[0] == "boiler":
        continue
    s = r[0]
    if s == "noisy":
        s = "noisy<=20+10" if int(r[1].split("+")[1]) <= 10 else "noisy>20+10"
    data[s].append((r[2] == 1, r[6:12]))


def table(fn, t):
    out = {}
    for s in SETS:
        tp = fp = fn_ = 0
        for pos, o in data[s]:
            hit = fn(*o) >= t
            tp += hit and pos
            fp += hit and not pos
            fn_ += pos and not hit
        p = tp / (tp + fp) if tp + fp else 1
        r = tp / (tp + fn_) if tp + fn_ else 1
        out[s] = (p, r, 2 * p * r / (p + r) if p + r else 0)
    return out


def best(fn):
    t, found = 0.005, None
    while t < 0.6:
        o = table(fn, t)
        goal = min(o[s][2] for s in SETS if s != "noisy>20+10") + 0.1 * o["noisy>20+10"][2]
        if found is None or goal > found[0]:
            found = (goal, t)
        t *= 1.05
    return found[1]


CANDIDATES = [
    ("coverage", coverage, 0.05),
    ("coverage", coverage, None),
    ("share, c >= 100", share_floor(100), None),
    ("share, z = 8", share_z(8), None),
    ("order (share, z = 16)", share_z(16), 0.08),
    ("order (share, z = 16)", share_z(16), None),
    ("junk-discounted coverage", junk, 0.05),
    ("junk-discounted coverage", junk, None),
    ("E / sqrt(c m)", geo, None),
]
print("| score | threshold | " + " | ".join(SETS) + " | translations | boilerplate 400 / 3300 |")
for name, fn, t in CANDIDATES:
    tag = "fixed" if t is not None else "best"
    t = t if t is not None else best(fn)
    o = table(fn, t)
    tr = [fn(*r[6:12]) >= t for r in rows if r[0] == "corpus" and r[2] == 3]
    cells = " | ".join("%.3f / %.3f / %.3f" % o[s] for s in SETS)
    boiler = []
    for words in ("400", "3300"):
        b = [fn(*r[6:12]) >= t for r in rows if r[0] == "boiler" and r[1] == words and r[2] == 0]
        boiler.append(f"{sum(b)}/{len(b)}")
    print(f"| {name} | {t:.3f} ({tag}) | {cells} | {sum(tr)}/{len(tr)} | {' '.join(boiler)} |")
