"""The Python side of the Python API's overhead measurement: the same work
as `benches/python/overhead.rs` (load a directory of texts into a new
index, then QUERIES top-10 queries by key, the books' keys in turn)
through the `stemmata` package; prints the seconds of each.

    python benches/python/overhead.py TEXTS [QUERIES]
"""

import json
import sys
import tempfile
import time
from pathlib import Path

import stemmata


def main() -> None:
    texts = sys.argv[1] if len(sys.argv) > 1 else "../shared/corpus/texts"
    queries = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    with tempfile.TemporaryDirectory() as scratch:
        index = stemmata.Index.create(str(Path(scratch) / "index"))
        started = time.perf_counter()
        index.load_dir(texts)
        load = time.perf_counter() - started
        started = time.perf_counter()
        reader = index.reader()
        keys = sorted(reader.keys())
        hits = 0
        for n in range(queries):
            hits += len(reader.query(key=keys[n % len(keys)], k=10))
        query = time.perf_counter() - started
        index.close()
    print(json.dumps({"load_s": round(load, 3), "queries_s": round(query, 3), "hits": hits}))


if __name__ == "__main__":
    main()
