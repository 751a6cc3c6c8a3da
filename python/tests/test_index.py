"""Creating, opening and loading an index; its stats and verification."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import stemmata

#: The labelled corpus of the repository's quality gates, when present.
CORPUS = Path(os.environ.get("STEMMATA_CORPUS", Path(__file__).parents[2] / "../shared/corpus"))


def test_create_then_open_shows_the_loaded_books(tmp_path, texts):
    path = tmp_path / "index"
    with stemmata.Index.create(path) as index:
        stats = index.load([stemmata.Document(key, text, title=key) for key, text in texts.items()])
        assert isinstance(stats, stemmata.LoadStats)
        assert stats.books == len(texts) and stats["books"] == len(texts)
        assert stats.skipped == [] and stats.first_id == 0
    with stemmata.Index.open(path, read_only=True) as index:
        assert index.read_only and index.path == str(path)
        reader = index.reader()
        assert sorted(reader.keys()) == sorted(texts)
        assert len(reader) == len(texts)
        assert reader.book("base").title == "base"


def test_open_or_create_creates_once_then_opens(tmp_path):
    path = tmp_path / "index"
    first = stemmata.Index.open_or_create(path)
    first.load([{"key": "k", "text": "alpha beta gamma delta"}])
    first.close()
    again = stemmata.Index.open_or_create(path)
    assert again.stats().books == 1


def test_load_takes_bytes_and_any_iterable(tmp_path, texts):
    index = stemmata.Index.create(tmp_path / "index")
    stats = index.load(
        {"key": key, "text": text.encode("utf-8"), "language": "en"} for key, text in texts.items()
    )
    assert stats.books == len(texts)
    assert index.stats().languages == {"eng": len(texts)}


def test_load_dir_reads_text_files_under_their_stems(tmp_path, texts):
    folder = tmp_path / "texts"
    (folder / "sub").mkdir(parents=True)
    for key, text in texts.items():
        (folder / ("sub" if key == "part" else "") / f"{key}.txt").write_text(text)
    (folder / "notes.md").write_text("not a text file")
    index = stemmata.Index.create(tmp_path / "index")
    stats = index.load_dir(folder, threads=1)
    assert stats.books == len(texts)
    assert sorted(index.reader().keys()) == sorted(texts)


def test_load_jsonl_reads_lines_and_skips_bad_ones(tmp_path, texts):
    path = tmp_path / "books.jsonl"
    lines = [json.dumps({"key": k, "text": t, "title": k}) for k, t in texts.items()]
    lines.insert(2, "{not json")
    path.write_text("\n".join(lines) + "\n")
    index = stemmata.Index.create(tmp_path / "index")
    stats = index.load_jsonl(path)
    assert stats.books == len(texts)
    assert [s.source_name for s in stats.skipped] == [f"{path}:3"]
    assert stats.skipped[0].reason.startswith("invalid JSON")


def test_stats_and_verify_count_the_books(index, texts):
    stats = index.stats()
    assert stats.books == len(texts)
    assert stats.words == sum(len(t.split()) for t in texts.values())
    verified = index.verify()
    assert isinstance(verified, stemmata.VerifyStats)
    assert verified.books == len(texts) and verified.records == len(texts)


def test_delete_removes_books(index):
    assert index.delete(["other", "missing"]) == 1
    assert "other" not in index.reader().keys()


def test_records_are_read_only_mappings(index):
    stats = index.stats()
    assert stats.to_dict()["books"] == stats.books
    with pytest.raises(AttributeError):
        stats.books = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        stats.no_such_field  # noqa: B018


def test_corpus_editions_find_each_other(tmp_path):
    corpus = CORPUS / "texts"
    if not (corpus / "pg42.txt").exists():
        pytest.skip("the labelled corpus is not here")
    folder = tmp_path / "texts"
    folder.mkdir()
    for name in ("pg42", "pg43", "pg11", "pg46"):
        (folder / f"{name}.txt").symlink_to(corpus / f"{name}.txt")
    index = stemmata.Index.create(tmp_path / "index")
    assert index.load_dir(folder).books == 4
    hits = index.reader().query(key="pg42", relations=True)
    assert [h.key for h in hits] == ["pg43"]
    assert hits[0].relation["class"] in {"duplicate", "contains", "overlap"}
