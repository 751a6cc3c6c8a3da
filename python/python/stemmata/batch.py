"""The engine-free batch kernels on pyarrow record batches.

The approximate all-pairs job of ``Reader.pairs(mode="approximate")`` cut
into steps that any engine can run on batches of books and move between
machines, with the same answers: each function takes a
``pyarrow.RecordBatch`` (or ``Table``) whose columns are named as in
``docs/batch-format.md`` and calls the engine once for the whole batch.
The steps, in order:

1. :func:`features_of_json_lines`: the features of documents.
2. Candidates. :func:`key_bucket_pairs` gives the pairs of books in each
   band key's bucket (the books listing one key of one table);
   :func:`kept_key_pairs` keeps those pairs, counted per table, that the
   table proposes. :func:`sample_entries` lists each book's sampled
   unique words; :func:`sample_bucket_matches` pairs the listings of one
   word; :func:`in_order` keeps the pairs of parts whose matches stand in
   order.
3. :func:`verify_pairs`: the alignment of each candidate pair.
4. :func:`clusters`: the connected components of the pairs.

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


def features_of_json_lines(lines: Any, source: str) -> Any:
    """The features of JSON Lines documents (columns ``id``, the line's
    place from 0 in the file, and ``line``) read as ``stemmata load`` reads
    the file ``source``: the features layout plus a column ``error``,
    empty unless the document is refused (its other columns then empty).
    Blank lines give no row."""
    native = _stemmata.features_of_json_lines(
        _arrow.numbers(lines.column("id"), "id"),
        _arrow.strings(lines.column("line"), "line"),
        source,
    )
    return _arrow.batch(native)


def key_bucket_pairs(books: Any, key_cap: int) -> Any:
    """The pairs of each bucket of a band key (``books``: a list array of
    the ids of the books listing the key, one bucket per row): columns
    ``bucket`` (the row), ``a``, ``b`` (``a < b``); none for a bucket of
    more than ``key_cap`` books."""
    native = _stemmata.key_bucket_pairs_of(_arrow.lists(books, "books", pa.int64()), key_cap)
    return _arrow.batch(native)


def kept_key_pairs(pairs: Any) -> Any:
    """The rows of ``pairs`` (columns ``table``, ``shared``: how many keys
    of the table the books ``a`` and ``b`` share, and ``a_simhash_low``,
    ``a_simhash_high``, ``b_simhash_low``, ``b_simhash_high``) that the
    key table proposes, as an ``int64`` array of row numbers."""
    native = _stemmata.kept_key_pairs(
        _arrow.numbers(pairs.column("table"), "table", pa.int32()),
        _arrow.numbers(pairs.column("shared"), "shared"),
        *(
            _arrow.numbers(pairs.column(f"{side}_simhash_{half}"), f"{side}_simhash_{half}")
            for side in "ab"
            for half in ("low", "high")
        ),
    )
    return _arrow.batch(native).column("row")


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


def sample_bucket_matches(entries: Any, sample_cap: int) -> Any:
    """The matches of each sampled word (``entries``: a list array of
    structs ``book``, ``part``, ``index``, one word per row): every two
    listings in two books, columns ``a``, ``b``, ``part_a``, ``part_b``,
    ``index_a``, ``index_b``; none for a word listed more than
    ``sample_cap`` times."""
    offsets, book, part, index = _arrow.struct_lists(
        entries, "entries", [("book", pa.int64()), ("part", pa.int32()), ("index", pa.int32())]
    )
    native = _stemmata.sample_bucket_matches_of(
        (offsets, book), (offsets, part), (offsets, index), sample_cap
    )
    return _arrow.batch(native)


def in_order(matches: Any) -> Any:
    """The rows of ``matches`` (a list array of structs ``index_a``,
    ``index_b``: the sampled words two parts share) whose words stand
    enough in order for the parts to be aligned, as an ``int64`` array."""
    offsets, index_a, index_b = _arrow.struct_lists(
        matches, "matches", [("index_a", pa.int32()), ("index_b", pa.int32())]
    )
    return _arrow.batch(_stemmata.in_order_matches(offsets, index_a, index_b)).column("row")


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
