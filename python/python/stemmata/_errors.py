"""The exceptions of stemmata: one class per kind of engine error.

Every exception raised for an engine error is a :class:`StemmataError`
whose message (``str(error)``) is exactly the engine's own. The native
module raises them by name; each also derives from the built-in exception
that fits, so ``except KeyError`` or ``except OSError`` catch them too.
"""

from __future__ import annotations

from typing import Any


class StemmataError(Exception):
    """An error of the stemmata engine; ``str()`` gives its message."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class StemmataIOError(StemmataError, OSError):
    """An operating-system I/O error on a file of the index or an input.

    ``errno``, ``strerror`` and ``filename`` are set as an ``OSError``'s.
    """


class CorruptedError(StemmataError):
    """Bytes on disk do not decode, or a checksum does not match them."""


class CatalogError(StemmataError):
    """The catalog database of the index reported an error."""


class VersionError(StemmataError):
    """The index was written by a format this build cannot use as asked
    (unsupported, or in need of an upgrade)."""


class NotAnIndexError(StemmataError):
    """The directory holds no stemmata index (or an unfinished one)."""


class IndexExistsError(StemmataError, FileExistsError):
    """``create`` was asked for a directory that already holds an index."""


class LockedError(StemmataError):
    """Another process or loader holds the index for writing."""


class ReadOnlyError(StemmataError):
    """A write was asked of an index opened read-only."""


class UnknownKeyError(StemmataError, KeyError):
    """No book is stored under the key."""


class InvalidInputError(StemmataError, ValueError):
    """An argument is outside its valid range or not understood."""


class BadDocumentError(InvalidInputError):
    """A document or text was rejected: empty, binary, without words, or
    bad JSON. Raised by a load with ``strict=True`` (its ``stats`` are the
    load's :class:`LoadStats`) and for the texts of a query or alignment."""

    stats: Any = None


class InternalError(StemmataError):
    """The engine failed in a way it should not have (a contained panic)."""


__all__ = [
    "BadDocumentError",
    "CatalogError",
    "CorruptedError",
    "IndexExistsError",
    "InternalError",
    "InvalidInputError",
    "LockedError",
    "NotAnIndexError",
    "ReadOnlyError",
    "StemmataError",
    "StemmataIOError",
    "UnknownKeyError",
    "VersionError",
]
