"""Read-only records of the engine's results.

A record holds one result as the command line's JSON output has it (the
same field names and values) and gives its fields as attributes and as
mapping items: ``hit.key`` and ``hit["key"]``. Nested objects stay dicts
and lists. A field a class declares but the result leaves out (a hit's
``relation`` when relations were not asked for) reads as ``None``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Record(Mapping[str, Any]):
    """A read-only result: attributes and mapping items of the same fields."""

    __slots__ = ("_fields",)

    def __init__(self, fields: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name: str) -> Any:
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        if any(name in getattr(c, "__annotations__", {}) for c in type(self).__mro__):
            return None
        raise AttributeError(f"{type(self).__name__!r} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, name: str) -> Any:
        return self._fields[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._fields.items())
        return f"{type(self).__name__}({fields})"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._fields))

    def to_dict(self) -> dict[str, Any]:
        """The fields as a new dict (the JSON object of the result)."""
        return dict(self._fields)


class Hit(Record):
    """A related book of a query, best first (``stemmata query --json``)."""

    id: int
    key: str
    title: str
    language: str
    score: float
    query_unique: int
    hit_unique: int
    common: int
    lcs: int
    query_part: int
    hit_part: int
    query_words: list[int]
    hit_words: list[int]
    relation: dict[str, Any] | None


class SkippedDocument(Record):
    """A document a load rejected, and why."""

    source_name: str
    reason: str


class DuplicateKey(Record):
    """A key given to two documents of one load: the later one was kept."""

    key: str
    source_name: str
    earlier_source_name: str


class LoadStats(Record):
    """What a load did (``stemmata load --json``)."""

    books: int
    first_id: int | None
    replaced: int
    duplicate_keys: list[DuplicateKey]
    bytes: int
    words: int
    invalid_utf8_documents: int
    skipped: list[SkippedDocument]
    commits: int
    warnings: list[str]
    elapsed: float

    def __init__(self, fields: Mapping[str, Any]) -> None:
        fields = dict(fields)
        fields["skipped"] = [SkippedDocument(s) for s in fields.get("skipped", [])]
        fields["duplicate_keys"] = [DuplicateKey(d) for d in fields.get("duplicate_keys", [])]
        super().__init__(fields)


class IndexStats(Record):
    """Counts of books, words, files and bytes (``stemmata stats --json``)."""

    books: int
    words: int
    unique_words: int
    barrels: int
    barrel_bytes: int
    segments: int
    segment_bytes: int
    catalog_bytes: int
    languages: dict[str, int]


class VerifyStats(Record):
    """What a verification checked (``stemmata verify --json``)."""

    books: int
    records: int
    bytes: int
    segments: int
    catalog_bytes: int


class Relation(Record):
    """How two stored books relate: ``a`` and ``b``, the relation's
    ``class_`` (also ``["class"]``), its ``confidence``, the ``container``
    (``"a"`` or ``"b"``, for a containment), the weighed ``confidences``
    and ``signals``, and the ``portion`` map's coverage and regions."""

    a: str
    b: str
    confidence: float
    container: str | None
    confidences: list[dict[str, Any]]
    signals: dict[str, Any]
    portion: dict[str, Any]

    @property
    def class_(self) -> str:
        """The relation class: duplicate, contains, overlap, unrelated, or
        for paged books same_pagination, different_pagination,
        contiguous_subset, overlapping_text."""
        return str(self["class"])


class Alignment(Record):
    """The RETAS alignment of two texts (``stemmata align --json``)."""

    seconds: float
    words_a: int
    words_b: int
    aligned_words_a: int
    aligned_words_b: int
    share_a: float
    share_b: float
    stats: dict[str, int]
    spans: list[dict[str, Any]] | None
    relation: dict[str, Any] | None


class OcrAccuracy(Record):
    """The accuracy of an OCR text against its clean copy
    (``stemmata ocr-accuracy --json``)."""

    clean_chars: int
    char_errors: int
    char_accuracy: float
    clean_words: int
    matched_words: int
    word_accuracy: float
    stop_words: int
    matched_stop_words: int
    stop_word_accuracy: float
    ocr_words: int
    extra_ocr_words: int
    aligned_share: float


class Book(Record):
    """What a reader knows about one stored book."""

    id: int
    key: str
    title: str
    author: str
    language: str
    words: int
    pages: int
    unique_words: int
    parts: int


class WordImageBook(Record):
    """A scanned book's word images in an index (``stemmata images list
    --json``): ``model_book`` tells whether the word-image model was learnt
    from it; after an add, ``model`` is the model (:class:`ImageModel`
    fields: ``relearned``, ``books``, ``images``) and ``own_model`` whether
    the book was described by a vocabulary of its own and its rows
    computed by a model learnt from its own word images alone
    (``learn_alone``)."""

    key: str
    pages: int
    words: int
    bytes: int
    model_book: bool
    model: dict[str, Any] | None
    own_model: bool | None


class ImageModel(Record):
    """The word-image model after an add or a relearn: ``relearned``
    (learnt again, every row recomputed, or kept), and the ``books`` and
    word ``images`` it was learnt from."""

    relearned: bool
    books: int
    images: int


class WordImageHit(Record):
    """A word image found for a text word, best first (``stemmata spot
    --json``): the book's ``key``, the ``page`` (from 1) and its file
    ``page_name``, the word's ``bbox`` on the page (pixels ``x0``, ``y0``,
    ``x1``, ``y1``, right and bottom excluded), the ``ocr`` word read
    there, and ``scores`` (``likelihood``, ``order``, ``width`` (what the
    image's width takes against the word's), ``image``, ``ocr``,
    ``combined``)."""

    key: str
    page: int
    page_name: str
    bbox: dict[str, int]
    ocr: str
    scores: dict[str, float]

    @property
    def score(self) -> float:
        """The score the hits are ranked by (``scores["combined"]``)."""
        return float(self.scores["combined"])
