"""Fixtures shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The scheduler address of a dask LocalCluster of two worker processes, one per module."""
    distributed = pytest.importorskip("distributed")
    # dashboard_address=None still binds port 8787 (and warns when another run holds it): any free port.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local:
        yield local.scheduler_address
