"""The native module of stemmata; use the package ``stemmata``.

Results are dicts and lists shaped as the command line's JSON output;
tables are ``(rows, [(name, (arrow_type, length, [buffers], [children]))])``
for ``stemmata._arrow.table``; the batch kernels take Arrow columns as the
bytes of their buffers (``stemmata._arrow``). Every function releases the
GIL while the engine works.
"""

from collections.abc import Iterable
from os import PathLike
from typing import Any, Callable, Optional, Union

from typing_extensions import TypeAlias

_Path: TypeAlias = Union[str, PathLike[str]]
_Text: TypeAlias = Union[str, bytes]
_Progress: TypeAlias = Optional[Callable[[int, Optional[int], str], Any]]
_Spec: TypeAlias = tuple[str, int, list[bytes], list[Any]]
_Columns: TypeAlias = tuple[int, list[tuple[str, _Spec]]]
_List: TypeAlias = tuple[bytes, bytes]

__version__: str

class NativeIndex:
    """An open index."""

    @staticmethod
    def create(path: _Path, options: str | None = None) -> NativeIndex: ...
    @staticmethod
    def open(path: _Path, *, read_only: bool = False) -> NativeIndex: ...
    @staticmethod
    def open_or_create(path: _Path) -> NativeIndex: ...
    @property
    def path(self) -> str: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def format_version(self) -> int: ...
    @property
    def feature_options(self) -> str: ...
    def load_documents(
        self,
        documents: Iterable[Any],
        *,
        total: Optional[int] = None,
        progress: _Progress = None,
        threads: Optional[int] = None,
        batch_books: int = 1000,
    ) -> dict[str, Any]: ...
    def load_dir(
        self,
        path: _Path,
        *,
        progress: _Progress = None,
        threads: Optional[int] = None,
        batch_books: int = 1000,
    ) -> dict[str, Any]: ...
    def load_jsonl(
        self,
        path: _Path,
        *,
        progress: _Progress = None,
        threads: Optional[int] = None,
        batch_books: int = 1000,
    ) -> dict[str, Any]: ...
    def delete(self, keys: list[str]) -> int: ...
    def add_word_images(
        self,
        key: str,
        pages: list[_Path],
        *,
        learning: str = "intersection",
        branching: Optional[int] = None,
        learn_from: Optional[int] = None,
        learn_alone: Optional[int] = None,
        progress: _Progress = None,
    ) -> dict[str, Any]: ...
    def relearn_word_images(
        self, *, learn_alone: Optional[int] = None
    ) -> dict[str, Any]: ...
    def image_books(self) -> list[dict[str, Any]]: ...
    def word_images(self) -> Optional[NativeWordImages]: ...
    def reader(self) -> NativeReader: ...
    def stats(self) -> dict[str, Any]: ...
    def verify(self) -> dict[str, Any]: ...
    def close(self) -> None: ...

class NativeWordImages:
    """An index's word images, open for queries."""

    def spot(
        self,
        word: str,
        *,
        k: int = 20,
        ocr_weight: Optional[float] = None,
        width_weight: Optional[float] = None,
        ignore_case: bool = False,
    ) -> list[dict[str, Any]]: ...
    def __len__(self) -> int: ...
    @property
    def books(self) -> int: ...

class NativeReader:
    """A snapshot of an index for queries."""

    def query(
        self,
        *,
        key: Optional[str] = None,
        text: Optional[_Text] = None,
        k: int = 10,
        score: str = "order",
        mode: str = "exact",
        min_score: Optional[float] = None,
        relations: bool = False,
    ) -> list[dict[str, Any]]: ...
    def pairs(
        self,
        *,
        score: str = "order",
        mode: str = "exact",
        min_score: Optional[float] = None,
        threads: Optional[int] = None,
        clusters: bool = False,
        progress: _Progress = None,
    ) -> tuple[_Columns, Optional[_Columns]]: ...
    def relate(self, a: str, b: str) -> dict[str, Any]: ...
    def book(self, key: str) -> dict[str, Any]: ...
    def keys(self) -> list[str]: ...
    def __len__(self) -> int: ...

def align(
    a: _Text, b: _Text, *, spans: bool = False, relations: bool = False
) -> dict[str, Any]: ...
def ocr_accuracy(clean: _Text, ocr: _Text) -> dict[str, Any]: ...
def features_of_json_lines(
    ids: bytes,
    lines: _List,
    source: str,
    options: str | None = None,
    sources: _List | None = None,
    line_numbers: bytes | None = None,
) -> _Columns: ...
def features_of_documents(
    ids: bytes,
    keys: _List,
    texts: _List,
    titles: _List,
    authors: _List,
    languages: _List,
    sources: _List,
    row_numbers: bytes,
    options: str | None = None,
) -> _Columns: ...
def caps(books: int, parts: int) -> tuple[int, int]: ...
def sample_entries_of(ids: bytes, part_lengths: _List, hashes: _List) -> _Columns: ...
def sample_match_runs_of(
    word: bytes, book: bytes, part: bytes, index: bytes, sample_cap: int, targets: int
) -> _Columns: ...
def key_pair_runs_of(
    table: bytes,
    key: bytes,
    id: bytes,
    simhash_low: bytes,
    simhash_high: bytes,
    key_cap: int,
    targets: int,
    options: str | None = None,
) -> _Columns: ...
def candidates_of_runs(kind: bytes, run: _List, options: str | None = None) -> _Columns: ...
def verify_pairs(
    from_keys: bytes,
    sampled: tuple[bytes, ...],
    a: tuple[_List, ...],
    b: tuple[_List, ...],
    score: str,
    min_score: Optional[float] = None,
) -> _Columns: ...
def clusters_of(a: bytes, b: bytes, a_keys: _List, b_keys: _List) -> _Columns: ...
def key_columns() -> list[str]: ...
def match_columns() -> list[str]: ...
