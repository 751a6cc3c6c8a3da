"""Arrow columns crossing to and from the native module as buffers.

The native module hands over each column as Arrow buffers (offsets and
bytes for strings and lists, native-order numbers otherwise), and takes
columns in as the bytes of their buffers: tables are made and read without
a Python object per row.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

_TYPES = {
    "string": pa.string(),
    "large_string": pa.large_string(),
    "binary": pa.binary(),
    "large_binary": pa.large_binary(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float64": pa.float64(),
}

_WIDTHS = {pa.int8(): 1, pa.int32(): 4, pa.int64(): 8, pa.float64(): 8}

Spec = tuple[str, int, list[bytes], list[Any]]


def array(spec: Spec) -> Any:
    """The ``pyarrow.Array`` of ``(type, length, buffers, children)``."""
    kind, length, buffers, children = spec
    if kind == "list":
        child = array(children[0])
        return pa.Array.from_buffers(
            pa.list_(child.type), length, [None, pa.py_buffer(buffers[0])], children=[child]
        )
    return pa.Array.from_buffers(_TYPES[kind], length, [None, *map(pa.py_buffer, buffers)])


def table(columns: tuple[int, list[tuple[str, Spec]]]) -> Any:
    """The ``pyarrow.Table`` of ``(rows, [(name, column)])``."""
    _, named = columns
    return pa.Table.from_arrays([array(spec) for _, spec in named], names=[n for n, _ in named])


def batch(columns: tuple[int, list[tuple[str, Spec]]]) -> Any:
    """The ``pyarrow.RecordBatch`` of ``(rows, [(name, column)])``."""
    _, named = columns
    return pa.RecordBatch.from_arrays(
        [array(spec) for _, spec in named], names=[n for n, _ in named]
    )


def _checked(column: Any, name: str, kind: Any) -> Any:
    """``column`` as one ``kind`` array without nulls, cast if it is
    another type; ``ValueError`` naming it when it has nulls."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        raise ValueError(f"column {name!r} has {column.null_count} null values")
    if column.type != kind:
        column = column.cast(kind)
    return column


_INT64 = pa.int64()


def numbers(column: Any, name: str, kind: Any = _INT64) -> bytes:
    """The values of a column of numbers as ``kind``, in native order."""
    column = _checked(column, name, kind)
    width = _WIDTHS[kind]
    data = column.buffers()[1]
    return bytes(data.slice(column.offset * width, len(column) * width)) if data else b""


def _offsets(column: Any) -> bytes:
    """The ``int32`` offsets of a list or string array, one more than rows."""
    data = column.buffers()[1]
    return bytes(data.slice(column.offset * 4, (len(column) + 1) * 4))


def strings(column: Any, name: str) -> tuple[bytes, bytes]:
    """A string column as (offsets, bytes)."""
    column = _checked(column, name, pa.string())
    data = column.buffers()[2]
    return _offsets(column), bytes(data) if data else b""


def binaries(column: Any, name: str) -> tuple[bytes, bytes]:
    """A binary column as (offsets, bytes)."""
    column = _checked(column, name, pa.binary())
    data = column.buffers()[2]
    return _offsets(column), bytes(data) if data else b""


def lists(column: Any, name: str, kind: Any) -> tuple[bytes, bytes]:
    """A list column of ``kind`` numbers as (offsets, values)."""
    column = _checked(column, name, pa.list_(kind))
    values = column.values
    return _offsets(column), numbers(values, name, kind)


def struct_lists(column: Any, name: str, fields: list[tuple[str, Any]]) -> tuple[bytes, ...]:
    """A list column of structs as (offsets, then each of ``fields``'
    values as its type)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.null_count:
        raise ValueError(f"column {name!r} has {column.null_count} null values")
    struct = column.values
    children = dict(zip((f.name for f in struct.type), struct.flatten()))
    missing = [field for field, _ in fields if field not in children]
    if missing:
        raise ValueError(f"column {name!r} has no field {missing[0]!r}")
    values = [numbers(children[field], f"{name}.{field}", kind) for field, kind in fields]
    return (_offsets(column), *values)
