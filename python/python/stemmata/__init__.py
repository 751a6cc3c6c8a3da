"""stemmata: find related books — duplicates, other editions, books
contained in other books — in large collections of noisy text.

An :class:`Index` is one index directory: documents are loaded into it and
a :class:`Reader`, a snapshot of it, answers queries (the books most related
to a stored book or a new text), lists every related pair as a
``pyarrow.Table`` with the clusters they make, and tells how two books
relate. :func:`align` and :func:`ocr_accuracy` compare two texts in full.
Scanned books' page images with their OCR are added with
:meth:`Index.add_word_images` and searched for a text word with
:meth:`Index.word_images`.

The engine does its work without holding the GIL. Its errors are raised as
:class:`StemmataError` subclasses with the engine's messages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sized
from dataclasses import dataclass
from typing import Any, Literal, Union, overload

from . import _arrow, _progress
from ._errors import (
    BadDocumentError,
    CatalogError,
    CorruptedError,
    IndexExistsError,
    InternalError,
    InvalidInputError,
    LockedError,
    NotAnIndexError,
    ReadOnlyError,
    StemmataError,
    StemmataIOError,
    UnknownKeyError,
    VersionError,
)
from ._records import (
    Alignment,
    Book,
    DuplicateKey,
    Hit,
    ImageModel,
    IndexStats,
    LoadStats,
    OcrAccuracy,
    Record,
    Relation,
    SkippedDocument,
    VerifyStats,
    WordImageBook,
    WordImageHit,
)
from ._stemmata import NativeIndex, NativeReader, NativeWordImages, __version__
from ._stemmata import align as _align
from ._stemmata import ocr_accuracy as _ocr_accuracy

Path = Union[str, "os.PathLike[str]"]
Text = Union[str, bytes]
Score = Literal["order", "coverage", "its", "cs", "containment"]
Mode = Literal["exact", "approximate"]


@dataclass(frozen=True)
class Document:
    """One book to load: a key and a text, with optional metadata.

    ``key``: 1 to 1024 bytes of UTF-8, no control character, no white space
    at either end; a book already stored under it is replaced. ``text``:
    ``str``, or ``bytes`` in UTF-8, UTF-16 with a byte-order mark or
    windows-1252; form feeds separate pages. ``language``: an ISO 639 code,
    a locale or an English name; detected from the text when empty.
    A dict with the same keys loads the same.
    """

    key: str
    text: Text
    title: str = ""
    author: str = ""
    language: str = ""


class Index:
    """An index directory, open for reading and writing (or read-only).

    Open one with :meth:`create`, :meth:`open` or :meth:`open_or_create`;
    :meth:`close` (or leaving a ``with`` block) releases it. Opening the same
    directory twice in one process shares it.
    """

    def __init__(self, native: NativeIndex) -> None:
        """Wraps a native index; use :meth:`create`, :meth:`open` or
        :meth:`open_or_create`."""
        self._native = native

    @classmethod
    def create(cls, path: Path, *, options: str | None = None) -> Index:
        """Creates an index in ``path``, a missing or empty directory
        (:class:`IndexExistsError` if it holds an index,
        :class:`InvalidInputError` if it holds anything else), with the
        feature options of the JSON ``options`` (as
        :attr:`feature_options` gives them; the defaults when ``None``)."""
        return cls(NativeIndex.create(path, options))

    @classmethod
    def open(cls, path: Path, *, read_only: bool = False) -> Index:
        """Opens the index in ``path`` (:class:`NotAnIndexError` when there
        is none). One process at a time opens an index for writing
        (:class:`LockedError` otherwise); ``read_only=True`` opens it for
        reading only, alongside any number of readers and one writer."""
        return cls(NativeIndex.open(path, read_only=read_only))

    @classmethod
    def open_or_create(cls, path: Path) -> Index:
        """Opens the index in ``path``, creating one when the directory is
        missing or empty."""
        return cls(NativeIndex.open_or_create(path))

    @property
    def path(self) -> str:
        """The index directory."""
        return os.fspath(self._native.path)

    @property
    def read_only(self) -> bool:
        """Whether the index was opened read-only."""
        return self._native.read_only

    @property
    def format_version(self) -> int:
        """The storage format version the index was written with."""
        return self._native.format_version

    @property
    def feature_options(self) -> str:
        """The options its books' features are computed with, as the JSON
        of ``docs/batch-format.md``: what :mod:`stemmata.spark` takes to
        compute features that go into this index."""
        return self._native.feature_options

    def load(
        self,
        documents: Iterable[Document | Mapping[str, Any]],
        *,
        progress: Any = None,
        threads: int | None = None,
        batch_books: int = 1000,
        strict: bool = False,
    ) -> LoadStats:
        """Loads documents: :class:`Document` objects or dicts with ``key``
        and ``text`` (``str`` or ``bytes``) and optional ``title``,
        ``author`` and ``language``.

        A document the engine rejects (empty, binary, no words, a bad key)
        is skipped and listed in the stats' ``skipped``; with ``strict=True``
        the load then raises :class:`BadDocumentError` for the first one,
        after committing the others. An item that is not a document raises
        ``TypeError``: the batch being loaded is dropped, earlier batches of
        ``batch_books`` books stay committed.

        ``progress``: a callable ``(done, total, what)`` — books done, the
        total when ``documents`` has a length, "books" — or a tqdm-like bar
        (anything with ``update(n)``), called now and then. ``threads``:
        worker threads (default: every core).
        """
        total = len(documents) if isinstance(documents, Sized) else None
        stats = self._native.load_documents(
            documents,
            total=total,
            progress=_progress.callback(progress),
            threads=threads,
            batch_books=batch_books,
        )
        return _load_stats(stats, strict)

    def load_dir(
        self,
        path: Path,
        *,
        progress: Any = None,
        threads: int | None = None,
        batch_books: int = 1000,
        strict: bool = False,
    ) -> LoadStats:
        """Loads every text file (``.txt``, ``.text``) under ``path``, each
        under its file name without the extension; progress counts bytes.
        :class:`InvalidInputError` when the directory holds no text file.
        See :meth:`load` for the other arguments."""
        stats = self._native.load_dir(
            path,
            progress=_progress.callback(progress),
            threads=threads,
            batch_books=batch_books,
        )
        return _load_stats(stats, strict)

    def load_jsonl(
        self,
        path: Path,
        *,
        progress: Any = None,
        threads: int | None = None,
        batch_books: int = 1000,
        strict: bool = False,
    ) -> LoadStats:
        """Loads a JSON Lines file: one object per line with ``key``,
        ``text`` (or ``pages``, a list of page texts) and optional
        ``title``, ``author`` and ``language``; a bad line is skipped.
        Progress counts bytes. See :meth:`load` for the other arguments."""
        stats = self._native.load_jsonl(
            path,
            progress=_progress.callback(progress),
            threads=threads,
            batch_books=batch_books,
        )
        return _load_stats(stats, strict)

    def delete(self, keys: Iterable[str]) -> int:
        """Deletes the books stored under ``keys``; returns how many existed."""
        return self._native.delete(list(keys))

    def add_word_images(
        self,
        key: str,
        pages: Iterable[Path],
        *,
        learning: Literal["intersection", "union"] = "intersection",
        branching: int | None = None,
        learn_from: int | None = None,
        learn_alone: int | None = None,
        progress: Any = None,
    ) -> WordImageBook:
        """Adds a scanned book under ``key``: its page images (PNG, TIFF,
        JPEG; a directory gives its images in name order), each with its
        OCR (hOCR or ALTO) beside it under the same name with ``.hocr``,
        ``.html``, ``.alto.xml`` or ``.xml``. Every page is checked before
        anything is written: a bad or mismatched file raises
        :class:`InvalidInputError` or :class:`CorruptedError` naming it, and
        leaves the index as it was. A book already under ``key`` is
        replaced. The word-image model (learnt from the index's word
        images, labelled by their OCR words) is learnt again from every
        book while it was learnt from fewer than ``learn_from`` word images
        (default 20,000); after that the add keeps it and every row, and
        computes only this book's rows (by the model learnt from the books
        it was learnt from and this one), so that an add costs the same
        however large the collection. :meth:`relearn_word_images` learns it
        from the books of the index's vocabulary. A book of at least
        ``learn_alone`` word images (default 1,000, about 3 pages), added to
        an index that holds another, is described by a visual vocabulary
        learnt from its own pages and scored by a model learnt from its own
        word images alone, its words held to that model's widths of
        letters: a vocabulary and a model learnt mostly from other faces or
        hands tell its words apart poorly.

        ``learning`` (the model) and ``branching`` (the visual vocabulary
        has ``branching``² terms, default 96) are set by the index's first
        book. ``progress`` counts pages read, as in :meth:`load`; the steps
        after them report no amount. The add cannot be stopped half-way: a
        Ctrl-C or an exception of ``progress`` is raised once it has ended,
        with the book added.
        """
        info = self._native.add_word_images(
            key,
            [os.fspath(page) for page in pages],
            learning=learning,
            branching=branching,
            learn_from=learn_from,
            learn_alone=learn_alone,
            progress=_progress.callback(progress),
        )
        return WordImageBook(info)

    def relearn_word_images(
        self, *, learn_alone: Optional[int] = None
    ) -> ImageModel:
        """Learns the word-image model again from every book and
        recomputes every row. A book of the index's vocabulary and of at
        least ``learn_alone`` word images (1,000 by default; give the
        ``learn_alone`` the books were added with), beside another book,
        is scored by a model learnt from its own word images alone, as is
        every book described by a vocabulary of its own. Raises
        :class:`InvalidInputError` when the index has no word images."""
        return ImageModel(
            self._native.relearn_word_images(learn_alone=learn_alone)
        )

    def image_books(self) -> list[WordImageBook]:
        """The books of word images, in key order."""
        return [WordImageBook(book) for book in self._native.image_books()]

    def word_images(self) -> WordImages | None:
        """The index's word images opened for queries (a snapshot: later
        adds do not change it); ``None`` when it has none."""
        native = self._native.word_images()
        return None if native is None else WordImages(native)

    def reader(self) -> Reader:
        """A snapshot of the index for queries: later loads do not change it."""
        return Reader(self._native.reader())

    def stats(self) -> IndexStats:
        """Counts of books, words, files and bytes."""
        return IndexStats(self._native.stats())

    def verify(self) -> VerifyStats:
        """Checks every checksum and catalog entry; returns what was checked,
        or raises (:class:`CorruptedError`, :class:`CatalogError`, ...) on
        damage."""
        return VerifyStats(self._native.verify())

    def close(self) -> None:
        """Releases the index; later calls on it raise :class:`StemmataError`.
        Readers already made keep working."""
        self._native.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Index({self.path!r})"


class Reader:
    """A snapshot of an index for queries (:meth:`Index.reader`)."""

    def __init__(self, native: NativeReader) -> None:
        """Wraps a native reader; use :meth:`Index.reader`."""
        self._native = native

    def query(
        self,
        key: str | None = None,
        text: Text | None = None,
        *,
        k: int = 10,
        score: Score = "order",
        mode: Mode = "exact",
        relations: bool = False,
        min_score: float | None = None,
    ) -> list[Hit]:
        """The books most related to the stored book ``key``, or to a new
        ``text`` (give one), best first.

        ``k``: most hits (0: every book above the threshold). ``score``:
        order (default), coverage, its, cs or containment. ``min_score``:
        the threshold, between 0 and 1 (default: the score's own).
        ``mode``: exact (every book the score admits) or approximate
        (band tables only: faster on large indexes, may miss faint
        relations). ``relations``: also classify each hit's relation to the
        query (duplicate, contains, overlap, ...) into ``hit.relation``.
        :class:`UnknownKeyError` when no book has ``key``.
        """
        if (key is None) == (text is None):
            raise TypeError("query() takes exactly one of key= and text=")
        hits = self._native.query(
            key=key,
            text=text,
            k=k,
            score=score,
            mode=mode,
            min_score=min_score,
            relations=relations,
        )
        return [Hit(hit) for hit in hits]

    @overload
    def pairs(
        self,
        *,
        score: Score = ...,
        mode: Mode = ...,
        min_score: float | None = ...,
        clusters: Literal[False] = ...,
        threads: int | None = ...,
        progress: Any = ...,
    ) -> Any: ...

    @overload
    def pairs(
        self,
        *,
        score: Score = ...,
        mode: Mode = ...,
        min_score: float | None = ...,
        clusters: Literal[True],
        threads: int | None = ...,
        progress: Any = ...,
    ) -> tuple[Any, Any]: ...

    def pairs(
        self,
        *,
        score: Score = "order",
        mode: Mode = "exact",
        min_score: float | None = None,
        clusters: bool = False,
        threads: int | None = None,
        progress: Any = None,
    ) -> Any:
        """Every related pair of the snapshot as a ``pyarrow.Table``, in the
        order of ``stemmata pairs`` (by the first book's load order, then
        the second's; the same for any number of threads).

        Columns: ``a``, ``b`` (keys), ``a_language``, ``b_language``,
        ``score``, ``lcs``, ``common``, ``a_unique``, ``b_unique``,
        ``a_part``, ``b_part`` and the matched word ranges
        ``a_words_start``, ``a_words_end``, ``b_words_start``,
        ``b_words_end``. ``table.to_pandas()`` gives a DataFrame.

        With ``clusters=True``, returns ``(pairs, clusters)``: the clusters
        the pairs make (connected components) as a table of ``cluster``
        (from 1, largest first), ``size`` and ``key``.

        ``score``, ``mode`` and ``min_score`` as for :meth:`query`;
        ``threads``: worker threads (default: every core); ``progress`` as
        for :meth:`Index.load`, counting books.
        """
        pairs, groups = self._native.pairs(
            score=score,
            mode=mode,
            min_score=min_score,
            threads=threads,
            clusters=clusters,
            progress=_progress.callback(progress),
        )
        table = _arrow.table(pairs)
        return table if groups is None else (table, _arrow.table(groups))

    def relate(self, a: str, b: str) -> Relation:
        """How the stored books ``a`` and ``b`` relate: the class
        (duplicate, contains, overlap, unrelated; for paged books
        same_pagination, different_pagination, contiguous_subset,
        overlapping_text), its confidence, which book contains the other,
        and the portion map's coverage and matched regions."""
        return Relation(self._native.relate(a, b))

    def book(self, key: str) -> Book:
        """The stored book ``key`` (:class:`UnknownKeyError` when none)."""
        return Book(self._native.book(key))

    def keys(self) -> list[str]:
        """The keys of the books in the snapshot, in load order."""
        return self._native.keys()

    def __len__(self) -> int:
        """The number of books in the snapshot."""
        return len(self._native)


class WordImages:
    """An index's word images, open for text queries
    (:meth:`Index.word_images`)."""

    def __init__(self, native: NativeWordImages) -> None:
        """Use :meth:`Index.word_images`."""
        self._native = native

    def spot(
        self,
        word: str,
        *,
        k: int = 20,
        ocr_weight: float | None = None,
        width_weight: float | None = None,
        ignore_case: bool = False,
    ) -> list[WordImageHit]:
        """The ``k`` word images that best match the text ``word`` (all
        when ``k`` is 0), best first. ``ocr_weight`` (0 to 1, default 0.1)
        is the share of the OCR word's similarity in the score, the rest
        the images'; 0 searches the images alone. An image whose OCR word
        reads ``word`` exactly gains 1 (unless ``ocr_weight`` is 0), so the
        OCR's exact readings come first; the default ranks the rest mostly
        by their images. ``width_weight`` (0 or more, default 0.03) weighs
        how far an image's width lies from the width the model expects of
        ``word``; 0 leaves widths out. With ``ignore_case``, ``word``
        matches whatever the case of its letters (``"fanny"`` finds
        ``Fanny``). :class:`InvalidInputError` for a word without a
        letter or digit."""
        hits = self._native.spot(
            word, k=k, ocr_weight=ocr_weight, width_weight=width_weight, ignore_case=ignore_case
        )
        return [WordImageHit(hit) for hit in hits]

    @property
    def books(self) -> int:
        """Books searched."""
        return self._native.books

    def __len__(self) -> int:
        """Word images searched."""
        return len(self._native)


def align(a: Text, b: Text, *, spans: bool = False, relations: bool = False) -> Alignment:
    """Aligns two texts word by word and character by character (RETAS):
    words and share aligned in each, and how the alignment went. ``spans``:
    also every aligned span; ``relations``: also the pair's relation. A text
    the loader would refuse (empty, binary, no words) raises
    :class:`BadDocumentError`."""
    return Alignment(_align(a, b, spans=spans, relations=relations))


def ocr_accuracy(clean: Text, ocr: Text) -> OcrAccuracy:
    """The character, word and stop-word accuracy of the text ``ocr``
    against its clean copy ``clean``."""
    return OcrAccuracy(_ocr_accuracy(clean, ocr))


def _load_stats(stats: Mapping[str, Any], strict: bool) -> LoadStats:
    """The stats of a load; under ``strict``, its first skipped document
    raised as :class:`BadDocumentError`."""
    result = LoadStats(stats)
    if strict and result.skipped:
        first = result.skipped[0]
        error = BadDocumentError(f"{first.source_name}: {first.reason}")
        error.stats = result
        raise error
    return result


__all__ = [
    "Alignment",
    "BadDocumentError",
    "Book",
    "CatalogError",
    "CorruptedError",
    "Document",
    "DuplicateKey",
    "Hit",
    "ImageModel",
    "Index",
    "IndexExistsError",
    "IndexStats",
    "InternalError",
    "InvalidInputError",
    "LoadStats",
    "LockedError",
    "NotAnIndexError",
    "OcrAccuracy",
    "ReadOnlyError",
    "Reader",
    "Record",
    "Relation",
    "SkippedDocument",
    "StemmataError",
    "StemmataIOError",
    "UnknownKeyError",
    "VerifyStats",
    "VersionError",
    "WordImageBook",
    "WordImageHit",
    "WordImages",
    "__version__",
    "align",
    "ocr_accuracy",
]
