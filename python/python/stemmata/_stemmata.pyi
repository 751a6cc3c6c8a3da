"""The native module of stemmata; use the package ``stemmata``.

Results are dicts and lists shaped as the command line's JSON output;
tables are ``(rows, [(name, arrow_type, [buffers])])`` for
``stemmata._arrow.table``. Every method releases the GIL while the engine
works.
"""

from os import PathLike
from typing import Any, Callable, Iterable, Optional, Union

_Path = Union[str, PathLike[str]]
_Text = Union[str, bytes]
_Progress = Optional[Callable[[int, Optional[int], str], Any]]
_Columns = tuple[int, list[tuple[str, str, list[bytes]]]]

__version__: str

class NativeIndex:
    """An open index."""

    @staticmethod
    def create(path: _Path) -> NativeIndex: ...
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
    def reader(self) -> NativeReader: ...
    def stats(self) -> dict[str, Any]: ...
    def verify(self) -> dict[str, Any]: ...
    def close(self) -> None: ...

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
