#!/usr/bin/env bash
# Compare stemmata with datasketch (MinHashLSH, MinHashLSHEnsemble) on a
# labelled corpus, in one run, and print one table.
#
#   benches/compare/run.sh [CORPUS] [compare.py options, e.g. --gate]
#
# CORPUS defaults to ../shared/corpus relative to the repository root.
# Creates benches/compare/.venv (Python 3.11) with the pinned
# requirements.txt, builds stemmata in release mode, then runs compare.py.
# Quiet on re-runs: the venv is reinstalled only when requirements.txt changes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

corpus="$root/../shared/corpus"
if [[ $# -gt 0 && "$1" != -* ]]; then
    corpus="$1"
    shift
fi
[[ -f "$corpus/books.tsv" && -f "$corpus/pairs.tsv" && -d "$corpus/texts" ]] || {
    echo "run.sh: $corpus is not a corpus (books.tsv, pairs.tsv, texts/)" >&2
    exit 2
}
corpus="$(cd "$corpus" && pwd)"

venv="$here/.venv"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    python="$(command -v python3.11 || command -v python3)" || {
        echo "run.sh: no python3.11 or python3 found" >&2
        exit 2
    }
fi
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
stamp="$venv/.requirements.installed"
if ! cmp -s "$here/requirements.txt" "$stamp"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$stamp"
fi

(cd "$root" && cargo build --release --quiet --bin stemmata)
# Wherever cargo put it (CARGO_TARGET_DIR or build.target-dir may move it).
target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps |
    "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"

exec "$venv/bin/python" "$here/compare.py" "$corpus" --stemmata "$target_dir/release/stemmata" "$@"
