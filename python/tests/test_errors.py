"""Engine errors become typed exceptions with the engine's own message."""

from __future__ import annotations

import os

import pytest

import stemmata


def test_opening_a_missing_index_raises_not_an_index(tmp_path):
    path = tmp_path / "missing"
    with pytest.raises(stemmata.NotAnIndexError) as raised:
        stemmata.Index.open(path)
    assert str(raised.value) == f"{path}: not a stemmata index"
    assert isinstance(raised.value, stemmata.StemmataError)


def test_creating_over_an_index_raises_exists(tmp_path):
    path = tmp_path / "index"
    stemmata.Index.create(path).close()
    with pytest.raises(stemmata.IndexExistsError) as raised:
        stemmata.Index.create(path)
    assert str(raised.value) == f"{path}: an index already exists here"
    assert isinstance(raised.value, FileExistsError)


def test_an_unknown_key_is_a_key_error(index):
    with pytest.raises(KeyError) as raised:
        index.reader().query(key="nobody")
    assert type(raised.value) is stemmata.UnknownKeyError
    assert str(raised.value) == 'no book with key "nobody"'
    with pytest.raises(stemmata.UnknownKeyError):
        index.reader().relate("base", "nobody")


def test_empty_and_binary_documents_are_skipped_or_raised_when_strict(tmp_path):
    index = stemmata.Index.create(tmp_path / "index")
    documents = [
        {"key": "good", "text": "one two three four five"},
        {"key": "empty", "text": ""},
        {"key": "binary", "text": b"\x00\x01\x02\x03" * 100},
    ]
    stats = index.load(documents)
    assert stats.books == 1
    assert [(s.source_name, s.reason) for s in stats.skipped][0] == ("empty", "empty text")
    assert stats.skipped[1].source_name == "binary"
    with pytest.raises(stemmata.BadDocumentError) as raised:
        index.load(documents[1:], strict=True)
    assert str(raised.value) == "empty: empty text"
    assert isinstance(raised.value, ValueError)
    assert raised.value.stats.books == 0


def test_an_item_that_is_no_document_raises_type_error(tmp_path):
    index = stemmata.Index.create(tmp_path / "index")
    with pytest.raises(TypeError, match=r'document 1: "text" is missing'):
        index.load([{"key": "a", "text": "x y z"}, {"key": "b"}])
    with pytest.raises(TypeError, match=r'document 0: "text" must be str or bytes, not int'):
        index.load([{"key": "a", "text": 3}])
    with pytest.raises(TypeError, match=r'document 0: "key" must be a str'):
        index.load([stemmata.Document(7, "x y z")])  # type: ignore[arg-type]


def test_an_exception_of_the_iterator_stops_the_load(tmp_path):
    def documents():
        yield {"key": "a", "text": "x y z"}
        raise RuntimeError("source failed")

    index = stemmata.Index.create(tmp_path / "index")
    with pytest.raises(RuntimeError, match="source failed"):
        index.load(documents())
    assert index.stats().books == 0


@pytest.mark.parametrize(("good", "batch_books", "committed"), [(20, 10, 20), (25, 10, 20), (5, 1, 5), (70, 1, 70)])
def test_the_whole_batches_before_an_exception_stay_committed(tmp_path, good, batch_books, committed):
    def documents():
        for i in range(good):
            yield {"key": f"book-{i}", "text": f"words of book {i} " * 20}
        raise RuntimeError("source failed")

    index = stemmata.Index.create(tmp_path / "index")
    with pytest.raises(RuntimeError, match="source failed"):
        index.load(documents(), batch_books=batch_books)
    assert index.stats().books == committed
    with pytest.raises(TypeError, match='"text" is missing'):
        index.load([{"key": f"more-{i}", "text": "x y z"} for i in range(10)] + [{"key": "bad"}], batch_books=5)
    assert index.stats().books == committed + 10


def test_bad_options_raise_invalid_input(index):
    reader = index.reader()
    with pytest.raises(stemmata.InvalidInputError) as raised:
        reader.query(key="base", score="best")
    assert str(raised.value) == (
        'invalid argument: unknown score "best" (expected order, coverage, its, cs or containment)'
    )
    with pytest.raises(ValueError, match="min_score 2: order scores range from 0 to 1"):
        reader.pairs(min_score=2.0)
    with pytest.raises(stemmata.InvalidInputError, match="threads must be at least 1"):
        reader.pairs(threads=0)
    with pytest.raises(stemmata.InvalidInputError, match="threads 100000: at most 1024"):
        reader.pairs(threads=100000)
    with pytest.raises(stemmata.InvalidInputError, match="threads 100000: at most 1024"):
        index.load([{"key": "extra", "text": "some words of a book"}], threads=100000)
    with pytest.raises(TypeError):
        reader.query()


def test_texts_the_loader_refuses_raise_bad_document(texts):
    with pytest.raises(stemmata.BadDocumentError) as raised:
        stemmata.align("", texts["base"])
    assert str(raised.value) == "text a: empty text"


def test_a_directory_without_text_files_raises(tmp_path):
    index = stemmata.Index.create(tmp_path / "index")
    (tmp_path / "empty").mkdir()
    with pytest.raises(stemmata.InvalidInputError) as raised:
        index.load_dir(tmp_path / "empty")
    assert "no text file (.txt or .text)" in str(raised.value)
    with pytest.raises(stemmata.StemmataIOError) as raised:
        index.load_jsonl(tmp_path / "missing.jsonl")
    assert isinstance(raised.value, OSError)
    assert raised.value.errno == 2
    assert str(raised.value).startswith(f"{tmp_path / 'missing.jsonl'}: ")


def test_a_read_only_index_refuses_loads(tmp_path, index):
    reader_only = stemmata.Index.open(index.path, read_only=True)
    with pytest.raises(stemmata.ReadOnlyError, match="open read-only"):
        reader_only.load([{"key": "x", "text": "a b c"}])


def test_a_closed_index_raises(tmp_path):
    index = stemmata.Index.create(tmp_path / "index")
    index.close()
    with pytest.raises(stemmata.StemmataError, match="the index is closed"):
        index.stats()


def test_a_damaged_index_fails_verification(tmp_path, texts):
    path = tmp_path / "index"
    with stemmata.Index.create(path) as index:
        index.load([{"key": k, "text": t} for k, t in texts.items()])
    barrel = next((path / "barrels").iterdir())
    data = bytearray(barrel.read_bytes())
    middle = len(data) // 2
    data[middle] ^= 0xFF
    barrel.write_bytes(bytes(data))
    with pytest.raises((stemmata.CorruptedError, stemmata.CatalogError)) as raised:
        stemmata.Index.open(path, read_only=True).verify()
    assert str(raised.value).startswith(os.fspath(barrel))
