"""Where the kernel's steps run (SPEC §16): a :class:`Runner` submits each step, a plain function
of a shard: dask futures (where the shard is), or calls in this process (:class:`InProcess`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["InProcess", "Runner", "run_all"]


class Runner(Protocol):
    """Runs a step on a shard: ``submit`` gives a handle (a dask future), ``result`` its value.
    ``local`` is true when a handle is the value itself (the evidence can then be put together
    on demand instead of streamed while the shards are still there)."""

    local: bool

    def submit(self, function: Callable[..., Any], *args: Any) -> Any: ...

    def result(self, handle: Any) -> Any: ...

    def release(self, handle: Any) -> None: ...


class InProcess:
    """A :class:`Runner` calling each step here and now (a handle is the value)."""

    local = True

    def submit(self, function: Callable[..., Any], *args: Any) -> Any:
        return function(*args)

    def result(self, handle: Any) -> Any:
        return handle

    def release(self, handle: Any) -> None:
        return None


def run_all(runner: Runner, step: Callable[..., Any], shards: list[Any], *args: Any) -> list[Any]:
    """``step(shard, *args)`` of every shard, all submitted before any is waited for (they run side by side)."""
    handles = [runner.submit(step, shard, *args) for shard in shards]
    return [runner.result(handle) for handle in handles]
