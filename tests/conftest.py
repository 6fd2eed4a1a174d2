"""Shared fixtures and hypothesis strategies for the scorekit test suite."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before pyplot is imported anywhere: no display in tests

import pytest
from hypothesis import HealthCheck, settings
from shared import ROWS_DATA

# No wall-clock deadlines: a slow CI machine must not turn into a failing test.
settings.register_profile(
    "scorekit",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("scorekit")


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure a test opened (only if pyplot was loaded)."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")


@pytest.fixture(scope="module")
def cluster():
    """The scheduler address of a dask LocalCluster of two worker processes, one per module."""
    distributed = pytest.importorskip("distributed")
    # dashboard_address=None still binds port 8787 (and warns when another run holds it): any free port.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as local:
        yield local.scheduler_address


@pytest.fixture
def rows_dir() -> Path:
    return ROWS_DATA


@pytest.fixture
def run_cli(capsys):
    """Run ``scorekit`` in process: ``run_cli(*argv) -> (exit code, stdout, stderr)``.

    argparse's own exits (usage errors, ``--help``) are returned as codes too.
    """
    from scorekit import cli

    def run(*argv: object) -> tuple[int, str, str]:
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        return code, out, err

    return run
