#!/usr/bin/env bash
# What `stemmata images add` costs as a collection of scanned books grows.
#
# usage: benches/image_adds.sh STEMMATA BOOKS PAGES_PER_BOOK SET_DIR...
#   Adds BOOKS books of PAGES_PER_BOOK pages each, one `images add` each, to a
#   new index; the pages are those of the SET_DIRs' pages/ directories (as
#   `stemmata generate-pages` writes them), taken in order and used again
#   from the first when they run out. Prints one line per add: the book, the
#   index's word images after it, wall and CPU seconds, CPU seconds per page,
#   whether the add learned the model again, and whether the book was scored
#   alone (by a vocabulary and model of its own: `images add --learn-alone`).
#   Then the last add is made
#   again on a copy of the index as it was before it, with
#   `--learn-from 18446744073709551615` (the model learned again from every
#   book, as every add did before format 16): the cost the kept model saves.
# Needs /usr/bin/time and python3. The index is made under a temporary
# directory, removed at the end.
set -euo pipefail
bin=$(readlink -f "$1"); books=$2; per_book=$3; shift 3
work=$(mktemp -d /tmp/image-adds.XXXXXX); trap 'rm -rf "$work"' EXIT

mapfile -t pages < <(for set in "$@"; do ls "$set"/pages/*.png; done)
[ "${#pages[@]}" -gt 0 ] || { echo "no page images in $*" >&2; exit 1; }
"$bin" create "$work/index" >/dev/null

add() {  # INDEX KEY ARGS... -> "wall cpu relearned images alone"
  local index=$1 key=$2; shift 2
  /usr/bin/time -f "%e %U %S" -o "$work/time" \
    "$bin" images add "$index" --key "$key" --quiet --json "$@" \
    >"$work/added.json"
  python3 - "$work/time" "$work/added.json" <<'PY'
import json, sys
wall, user, system = map(float, open(sys.argv[1]).read().split()[-3:])
added = json.load(open(sys.argv[2]))
alone = str(bool(added.get('own_model'))).lower()
print(f"{wall:.2f} {user + system:.2f} {str(added['model']['relearned']).lower()} {added['words']} {alone}")
PY
}

printf "%5s %8s %8s %8s %9s %9s %s\n" book images wall_s cpu_s cpu_s/page relearned alone
images=0
for ((b = 1; b <= books; b++)); do
  book_pages=()
  for ((p = 0; p < per_book; p++)); do
    book_pages+=("${pages[$(( ((b - 1) * per_book + p) % ${#pages[@]} ))]}")
  done
  key=$(printf "book-%04d" "$b")
  if [ "$b" -eq "$books" ]; then
    cp -r "$work/index" "$work/before-last"
  fi
  read -r wall cpu relearned words alone < <(add "$work/index" "$key" "${book_pages[@]}")
  images=$((images + words))
  printf "%5d %8d %8.2f %8.2f %9.3f %9s %s\n" "$b" "$images" "$wall" "$cpu" \
    "$(python3 -c "print($cpu / $per_book)")" "$relearned" "$alone"
done
read -r wall cpu relearned words alone < <(add "$work/before-last" "$key" --learn-from 18446744073709551615 "${book_pages[@]}")
printf "%5s %8d %8.2f %8.2f %9.3f %9s %s  (book %d again, learning the model from every book)\n" \
  "" "$images" "$wall" "$cpu" "$(python3 -c "print($cpu / $per_book)")" "$relearned" "$alone" "$books"
