"""Progress bars (SPEC §17): whether long work shows one, and the bar itself.

Below every layer that shows progress (the importers' directory walk, the engines' partitions)
and set by the front doors (``scorekit run`` and ``scorekit import`` on a terminal): a
context variable says whether a bar was asked for, so a library call, a pipe or a CI log
never shows one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

__all__ = ["progress", "progress_bar", "progress_on_a_terminal"]

# Whether scoring shows a progress bar (SPEC §17): only where a front door
# asked for one (``scorekit run`` on a terminal), never in a pipe or a CI log.
_PROGRESS: ContextVar[bool] = ContextVar("scorekit_progress", default=False)


@contextlib.contextmanager
def progress(enabled: bool) -> Iterator[None]:
    """Within the block, long scoring shows a progress bar on stderr when ``enabled``."""
    token = _PROGRESS.set(enabled)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def progress_on_a_terminal() -> contextlib.AbstractContextManager[None]:
    """:func:`progress` when both stdout and stderr are a terminal: never in a pipe or a CI log."""
    import sys

    return progress(sys.stdout.isatty() and sys.stderr.isatty())


def progress_bar(total: int, what: str) -> Any:
    """A tqdm bar over ``total`` partitions when progress was asked for, else None."""
    if not _PROGRESS.get() or total < 2:
        return None
    import sys

    from tqdm import tqdm  # lazy: only a terminal run shows one

    return tqdm(total=total, desc=what, unit="part", file=sys.stderr, leave=False, dynamic_ncols=True)
