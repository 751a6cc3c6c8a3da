"""Progress arguments: a callable, or a tqdm-like bar.

The native module calls ``progress(done, total, what)`` now and then with
the GIL held: ``done`` and ``total`` count ``what`` ("books", "bytes" or "pages"),
``total`` is ``None`` when unknown. A bar (anything with ``update(n)``) is
adapted: it gets the increments, and its ``total`` when it has none.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, cast

Callback = Callable[[int, Optional[int], str], Any]


def callback(progress: Any) -> Callback | None:
    """The callback for a ``progress=`` argument (``None`` for none)."""
    if progress is None:
        return None
    if hasattr(progress, "update"):
        return _BarCallback(progress)
    if callable(progress):
        return cast(Callback, progress)
    raise TypeError(
        "progress must be a callable (done, total, what) or have an update(n) method, "
        f"not {type(progress).__name__}"
    )


class _BarCallback:
    """Feeds a tqdm-like bar: increments of ``done``, and the total once."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._done = 0

    def __call__(self, done: int, total: int | None, what: str) -> None:
        if total is not None and getattr(self._bar, "total", 0) is None:
            self._bar.total = total
            if hasattr(self._bar, "refresh"):
                self._bar.refresh()
        if done > self._done:
            self._bar.update(done - self._done)
            self._done = done
