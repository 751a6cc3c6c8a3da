"""Progress reporting, and the GIL released while the engine works."""

from __future__ import annotations

import json
import threading
import time

import pytest

import stemmata
from conftest import story


class Bar:
    """A tqdm-like bar: ``total`` and ``update(n)``."""

    def __init__(self) -> None:
        self.total = None
        self.n = 0

    def update(self, n: int) -> None:
        self.n += n


def test_progress_callable_gets_done_total_and_unit(tmp_path, texts):
    index = stemmata.Index.create(tmp_path / "index")
    calls = []
    index.load(
        [{"key": k, "text": t} for k, t in texts.items()],
        progress=lambda *call: calls.append(call),
    )
    assert calls, "the callback was never called"
    assert calls[-1] == (len(texts), len(texts), "books")
    assert all(done <= total for done, total, _ in calls)


def test_progress_bar_counts_bytes_of_a_directory(tmp_path, texts):
    folder = tmp_path / "texts"
    folder.mkdir()
    for key, text in texts.items():
        (folder / f"{key}.txt").write_text(text)
    total = sum(p.stat().st_size for p in folder.iterdir())
    bar = Bar()
    stemmata.Index.create(tmp_path / "index").load_dir(folder, progress=bar)
    assert bar.total == total and bar.n == total


def test_progress_of_pairs_and_an_exception_in_it(index):
    bar = Bar()
    index.reader().pairs(progress=bar)
    assert bar.total == 5 and bar.n == 5

    def fail(done, total, what):
        raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        index.reader().pairs(progress=fail)


def test_progress_must_be_callable_or_a_bar(index):
    with pytest.raises(TypeError, match="progress must be"):
        index.reader().pairs(progress=3)


def largest_pause_during(call) -> tuple[float, float]:
    """Runs ``call`` while another thread counts; returns how long the call
    took and the longest pause of the counting thread meanwhile."""
    stop = threading.Event()
    pauses = []

    def count() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            pauses.append(now - last)
            last = now

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.05)
    pauses.clear()
    started = time.perf_counter()
    call()
    took = time.perf_counter() - started
    stop.set()
    counter.join()
    return took, max(pauses)


def test_other_python_threads_run_during_a_long_load(tmp_path):
    path = tmp_path / "books.jsonl"
    with path.open("w") as out:
        for n in range(120):
            out.write(json.dumps({"key": f"book{n}", "text": story(4000, n)}) + "\n")
    index = stemmata.Index.create(tmp_path / "index")
    took, pause = largest_pause_during(lambda: index.load_jsonl(path, threads=1))
    assert took > 0.2, f"the load took {took:.3f} s, too short to tell"
    assert pause < took / 2, f"the counting thread stopped for {pause:.3f} s of {took:.3f} s"

    reader = index.reader()
    took, pause = largest_pause_during(lambda: reader.pairs(threads=1, min_score=0.0))
    assert pause < max(took / 2, 0.05), f"pairs held the GIL for {pause:.3f} s of {took:.3f} s"
