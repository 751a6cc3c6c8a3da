"""pyarrow tables from the column buffers the native module builds.

The native module hands over each column as Arrow buffers (offsets and
bytes for strings, native-order numbers otherwise): the table is made
without a Python object per row.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

_TYPES = {
    "string": pa.string(),
    "large_string": pa.large_string(),
    "uint32": pa.uint32(),
    "float64": pa.float64(),
}


def table(columns: tuple[int, list[tuple[str, str, list[bytes]]]]) -> Any:
    """The ``pyarrow.Table`` of ``(rows, [(name, type, buffers)])``."""
    rows, named = columns
    arrays = [
        pa.Array.from_buffers(_TYPES[kind], rows, [None, *map(pa.py_buffer, buffers)])
        for _, kind, buffers in named
    ]
    return pa.Table.from_arrays(arrays, names=[name for name, _, _ in named])
