"""The engine-free batch kernels on pyarrow record batches.

The approximate all-pairs job of ``Reader.pairs(mode="approximate")`` cut
into steps that any engine can run on batches of books and move between
machines, with the same answers: each function takes a
``pyarrow.RecordBatch`` (or ``Table``) whose columns are named as in
``docs/batch-format.md`` and calls the engine once for the whole batch.
The steps, in order:

1. :func:`features_of_json_lines` (or :func:`features_of_documents`): the
   features of documents.
2. Candidates, in two shuffles. The band keys' listings (one row per key
   of a book) grouped by table and key, and the sampled unique words'
   listings (:func:`sample_entries`) grouped by word, give row runs:
   :func:`key_pair_runs` the pairs of books each key proposes or counts
   toward, :func:`sample_match_runs` the matches of each word, both
   packed per pair of books and addressed to the step (``target``) that
   pair goes to. The runs grouped by target give the candidate pairs
   (:func:`candidates_of_runs`): what crosses the second shuffle is a few
   bytes a match in a few values per step, not one row per match.
3. :func:`verify_pairs`: the alignment of each candidate pair.
4. :func:`clusters`: the connected components of the pairs (the Spark job
   finds them as a distributed step instead).

:mod:`stemmata.spark` runs them on Spark.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

from . import _arrow, _stemmata

KEY_COLUMNS: tuple[str, ...] = tuple(_stemmata.key_columns())
"""The features' band-key columns, in key-table order (0 to 3)."""

MATCH_COLUMNS: tuple[str, ...] = tuple(_stemmata.match_columns())
"""The count columns of a verified pair, after ``score``: the overlap
(``lcs``, ``common``, ``a_unique``, ``b_unique``) and where the match lies
(parts and word ranges)."""

FEATURES_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("key", pa.string()),
        ("title", pa.string()),
        ("author", pa.string()),
        ("language", pa.string()),
        ("words", pa.int64()),
        ("pages", pa.int64()),
        ("bytes", pa.int64()),
        ("distinct_words", pa.int64()),
        ("invalid_utf8_sequences", pa.int64()),
        ("encoding", pa.string()),
        ("simhash_low", pa.int64()),
        ("simhash_high", pa.int64()),
        ("minhash", pa.list_(pa.int64())),
        ("page_minhashes", pa.list_(pa.int64())),
        ("part_lengths", pa.list_(pa.int32())),
        ("hashes", pa.list_(pa.int32())),
        ("positions", pa.list_(pa.int32())),
        *((name, pa.list_(pa.int64())) for name in KEY_COLUMNS),
    ]
)
"""The features layout of ``docs/batch-format.md``."""


def caps(books: int, parts: int) -> tuple[int, int]:
    """The caps of a collection of ``books`` books of ``parts`` parts in
    all: (most books a band key may list, most parts a sampled word may be
    listed in), as an index of those books has them."""
    return _stemmata.caps(books, parts)


def features_of_json_lines(lines: Any, source: str, *, options: str | None = None) -> Any:
    """The features of JSON Lines documents (columns ``id``, the line's
    place from 0 in the file, and ``line``) read as ``stemmata load`` reads
    the file ``source``: the features layout plus a column ``error``,
    empty unless the document is refused (its other columns then empty).
    Blank lines give no row. Lines of several files have columns
    ``source`` (each line's file) and ``line_number`` (its place in that
    file, from 0) besides, which name it in errors. ``options``: the JSON
    of the options to compute the features with (``docs/batch-format.md``;
    the defaults when ``None``)."""
    names = lines.schema.names
    sources = _arrow.strings(lines.column("source"), "source") if "source" in names else None
    numbers = (
        _arrow.numbers(lines.column("line_number"), "line_number")
        if "line_number" in names
        else None
    )
    native = _stemmata.features_of_json_lines(
        _arrow.numbers(lines.column("id"), "id"),
        _arrow.strings(lines.column("line"), "line"),
        source,
        options,
        sources,
        numbers,
    )
    return _arrow.batch(native)


DOCUMENT_COLUMNS = ("key", "text", "title", "author", "language")
"""The columns of a document in Parquet: ``key`` and ``text`` (strings),
and ``title``, ``author``, ``language`` (strings, optional or null)."""


def features_of_documents(documents: Any, *, options: str | None = None) -> Any:
    """The features of documents held as columns (``id``, ``source``,
    ``row_number``: the row's file and place in it from 0, which name it in
    errors, and :data:`DOCUMENT_COLUMNS`; a null title, author or language
    is empty): the table of :func:`features_of_json_lines`."""
    names = documents.schema.names

    def text(name: str, optional: bool) -> tuple[bytes, bytes]:
        if name not in names:
            if not optional:
                raise ValueError(f"documents have no column {name!r}")
            return _arrow.strings(pa.array([""] * documents.num_rows), name)
        column = documents.column(name)
        if optional:
            column = column.cast(pa.string()).fill_null("")
        return _arrow.strings(column, name)

    native = _stemmata.features_of_documents(
        _arrow.numbers(documents.column("id"), "id"),
        text("key", False),
        text("text", False),
        text("title", True),
        text("author", True),
        text("language", True),
        _arrow.strings(documents.column("source"), "source"),
        _arrow.numbers(documents.column("row_number"), "row_number"),
        options,
    )
    return _arrow.batch(native)


def sample_entries(books: Any) -> Any:
    """The sampled unique words of books (columns ``id``,
    ``part_lengths``, ``hashes``): columns ``word``, ``book``, ``part``,
    ``index`` (the word's place in the part's sequence)."""
    native = _stemmata.sample_entries_of(
        _arrow.numbers(books.column("id"), "id"),
        _arrow.lists(books.column("part_lengths"), "part_lengths", pa.int32()),
        _arrow.lists(books.column("hashes"), "hashes", pa.int32()),
    )
    return _arrow.batch(native)


def sample_match_runs(entries: Any, sample_cap: int, targets: int) -> Any:
    """The matches of the sampled words listed in ``entries`` (columns
    ``word``, ``book``, ``part``, ``index``, as :func:`sample_entries` gives
    them; every listing of each word it holds, as a shuffle by word gives
    them), packed as row runs by the pair of books they match: columns
    ``target`` (the step of ``targets`` the pair goes to), ``kind`` and
    ``run`` (binary). Words listed in more than ``sample_cap`` parts give
    none."""
    native = _stemmata.sample_match_runs_of(
        _arrow.numbers(entries.column("word"), "word", pa.int32()),
        _arrow.numbers(entries.column("book"), "book"),
        _arrow.numbers(entries.column("part"), "part", pa.int32()),
        _arrow.numbers(entries.column("index"), "index", pa.int32()),
        sample_cap,
        targets,
    )
    return _arrow.batch(native)


def key_pair_runs(listings: Any, key_cap: int, targets: int, *, options: str | None = None) -> Any:
    """The pairs of books the band keys listed in ``listings`` propose or
    count toward (columns ``table``: 0 to 3 in :data:`KEY_COLUMNS` order,
    ``key``, ``id``, ``simhash_low``, ``simhash_high``: the listing book's;
    every listing of each key it holds, as a shuffle by table and key gives
    them), as row runs by pair of books: the columns of
    :func:`sample_match_runs`. Keys listed by more than ``key_cap`` books
    give none. ``options``: the JSON of the features' options (default
    options when ``None``)."""
    native = _stemmata.key_pair_runs_of(
        _arrow.numbers(listings.column("table"), "table", pa.int32()),
        _arrow.numbers(listings.column("key"), "key"),
        _arrow.numbers(listings.column("id"), "id"),
        _arrow.numbers(listings.column("simhash_low"), "simhash_low"),
        _arrow.numbers(listings.column("simhash_high"), "simhash_high"),
        key_cap,
        targets,
        options,
    )
    return _arrow.batch(native)


SAMPLED_TYPE = pa.list_(
    pa.struct([pa.field("part_a", pa.int32(), False), pa.field("part_b", pa.int32(), False)])
)
"""The type of ``sampled``: the pairs of parts the word sample proposes."""


def candidates_of_runs(runs: Any, *, options: str | None = None) -> Any:
    """The candidate pairs of the runs in ``runs`` (columns ``kind``,
    ``run``, from :func:`sample_match_runs` and :func:`key_pair_runs`;
    every run of each pair of books it holds, as a shuffle by ``target``
    gives them): columns ``a``, ``b`` (ascending, ``a < b``),
    ``from_keys`` (the key tables propose the pair) and ``sampled`` (the
    pairs of parts, ascending, whose sampled words stand in order), as
    :func:`verify_pairs` takes them. ``options`` as for
    :func:`key_pair_runs`."""
    native = _stemmata.candidates_of_runs(
        _arrow.numbers(runs.column("kind"), "kind", pa.int32()),
        _arrow.binaries(runs.column("run"), "run"),
        options,
    )
    found = _arrow.batch(native)
    parts_a, parts_b = found.column("sampled_a"), found.column("sampled_b")
    pairs = pa.StructArray.from_arrays(
        [parts_a.values, parts_b.values], fields=list(SAMPLED_TYPE.value_type)
    )
    sampled = pa.ListArray.from_arrays(parts_a.offsets, pairs, type=SAMPLED_TYPE)
    return pa.record_batch(
        [
            found.column("a"),
            found.column("b"),
            found.column("from_keys").cast(pa.bool_()),
            sampled,
        ],
        names=["a", "b", "from_keys", "sampled"],
    )


def verify_pairs(candidates: Any, *, score: str = "order", min_score: float | None = None) -> Any:
    """Aligns candidate pairs of books. ``candidates`` has the columns
    ``from_keys`` (bool: the key tables proposed the pair), ``sampled``
    (list of structs ``part_a``, ``part_b``: pairs of parts the word
    sample proposed) and each book's ``a_part_lengths``, ``a_hashes``,
    ``a_positions``, ``b_part_lengths``, ``b_hashes``, ``b_positions``.
    Gives the pairs scoring at least ``min_score`` (the score's default
    threshold when ``None``): columns ``row`` (of ``candidates``),
    ``score``, ``lcs``, ``common``, ``a_unique``, ``b_unique``,
    ``a_part``, ``b_part``, ``a_words_start``, ``a_words_end``,
    ``b_words_start``, ``b_words_end``."""

    def side(prefix: str) -> tuple[tuple[bytes, bytes], ...]:
        return tuple(
            _arrow.lists(candidates.column(f"{prefix}_{name}"), f"{prefix}_{name}", pa.int32())
            for name in ("part_lengths", "hashes", "positions")
        )

    native = _stemmata.verify_pairs(
        _arrow.numbers(candidates.column("from_keys"), "from_keys", pa.int8()),
        _arrow.struct_lists(
            candidates.column("sampled"),
            "sampled",
            [("part_a", pa.int32()), ("part_b", pa.int32())],
        ),
        side("a"),
        side("b"),
        score,
        min_score,
    )
    return _arrow.batch(native)


def clusters(pairs: Any) -> Any:
    """The clusters of related pairs (columns ``a_id``, ``b_id``, ``a``,
    ``b``: the books' ids and keys) as ``stemmata pairs --clusters``
    writes them: a ``pyarrow.Table`` of ``cluster``, ``size``, ``key``."""
    native = _stemmata.clusters_of(
        _arrow.numbers(pairs.column("a_id"), "a_id"),
        _arrow.numbers(pairs.column("b_id"), "b_id"),
        _arrow.strings(pairs.column("a"), "a"),
        _arrow.strings(pairs.column("b"), "b"),
    )
    return _arrow.table(native)
