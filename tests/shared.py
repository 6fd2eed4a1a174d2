"""Hypothesis strategies, reference computations and paths shared by test modules.

Import by name (``from shared import assert_close``): test directories have no
``__init__.py``, so every ``conftest.py`` is the module ``conftest`` and cannot
be imported reliably from a test.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
ROWS_DATA = DATA / "rows"

STATUSES = ("PASS", "FAIL", "ERROR", "ABSTAIN")


# --------------------------------------------------------------------------- strategies
JSON_TEXT = st.text(max_size=12)  # includes control characters, quotes, non-BMP characters
JSON_SCALARS = (st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1)
                | st.floats(allow_nan=False, allow_infinity=False) | JSON_TEXT)
#: Any JSON value a results row can hold (numbers within ±(2^53−1), no NaN).
JSON_VALUES = st.recursive(JSON_SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(JSON_TEXT, c, max_size=4),
                           max_leaves=15)


@st.composite
def counts(draw, max_n: int = 60, min_n: int = 0):
    """(c, n) with 0 <= c <= n."""
    n = draw(st.integers(min_value=min_n, max_value=max_n))
    c = draw(st.integers(min_value=0, max_value=n))
    return c, n


@st.composite
def scored_frames(
    draw,
    statuses: tuple[str, ...] = STATUSES,
    max_dims: int = 3,
    max_cases: int = 5,
    max_trials: int = 5,
    equal_trials: bool = False,
):
    """A DataFrame of scored rows: id, dimension, case_id, trial, run, status.

    Every (dimension, case) gets 1..max_trials trials (the same number for all
    cases when ``equal_trials``).
    """
    n_dims = draw(st.integers(1, max_dims))
    fixed = draw(st.integers(1, max_trials)) if equal_trials else None
    records = []
    for d in range(n_dims):
        n_cases = draw(st.integers(1, max_cases))
        for c in range(n_cases):
            trials = fixed if fixed is not None else draw(st.integers(1, max_trials))
            for t in range(trials):
                records.append(
                    {
                        "id": f"d{d}-c{c}-t{t}",
                        "dimension": f"dim{d}",
                        "case_id": f"case{c}",
                        "trial": t,
                        "run": f"run{t % 3}",
                        "status": draw(st.sampled_from(statuses)),
                    }
                )
    return pd.DataFrame.from_records(records)


def per_case_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Reference computation with plain pandas groupby: c and n per (dimension, case)."""
    status = frame["status"].astype(object)
    work = pd.DataFrame(
        {
            "dimension": frame["dimension"].astype(object),
            "case_id": frame["case_id"].astype(object),
            "c": (status == "PASS").astype(np.int64),
            "n": status.isin(["PASS", "FAIL"]).astype(np.int64),
        }
    )
    out = work.groupby(["dimension", "case_id"], sort=True)[["c", "n"]].sum()
    return out[out["n"] > 0]


def assert_close(actual, expected, tol: float = 1e-12) -> None:
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True)


# --------------------------------------------------------------------------- the C helper
# scorekit/_speedups.c is optional: each module that uses it keeps a Python path
# with the same results. Tests run both; this switches the C paths off.
_C_HOOKS = (
    ("scorekit._hashing", "_c_canonical"),
    ("scorekit._hashing", "_c_evidence"),
    ("scorekit._validate", "_c_exact_key"),
    ("scorekit._validate", "_c_definition_text"),
    ("scorekit._rows._screens", "_c_duplicate_key"),
    ("scorekit._rows._screens", "_c_text_is_clean"),
)


def c_helper_built() -> bool:
    try:
        import scorekit._speedups  # noqa: F401
    except ImportError:
        return False
    return True


class python_paths:
    """Context manager: scorekit runs without its C helper inside the block."""

    def __enter__(self) -> python_paths:
        import importlib

        self._saved = []
        for module_name, attribute in _C_HOOKS:
            module = importlib.import_module(module_name)
            self._saved.append((module, attribute, getattr(module, attribute)))
            setattr(module, attribute, None)
        return self

    def __exit__(self, *exc: object) -> None:
        for module, attribute, value in self._saved:
            setattr(module, attribute, value)


def evidence_hash_of(evidence: pd.DataFrame) -> str:
    """The SPEC §10 evidence hash recomputed from an evidence table, row by row."""
    from scorekit._hashing import list_hash, row_digest

    digests = [
        row_digest(
            {
                "case_id": None if pd.isna(c) else c,
                "control": bool(ctl),
                "dimension": None if pd.isna(d) else d,
                "id": None if pd.isna(i) else i,
                "included": bool(inc),
                "label": str(lab),
                "reason": None if pd.isna(r) else r,
                "status": str(s),
                "trial": None if pd.isna(t) else int(t),
            }
        )
        for i, d, c, t, s, r, lab, ctl, inc in zip(
            evidence["id"],
            evidence["dimension"],
            evidence["case_id"],
            evidence["trial"].astype(object),
            evidence["status"],
            evidence["reason"],
            evidence["label"],
            evidence["control"],
            evidence["included"],
            strict=True,
        )
    ]
    return list_hash(digests, sort=True)


# --------------------------------------------------------------------------- the CLI in a process
ROOT = Path(__file__).resolve().parents[1]


def scorekit_process(*args: object, cwd: Path | str | None = None, timeout: float = 300, **kwargs):
    """Run ``python -m scorekit ARGS`` in a new process of this interpreter (the checkout's
    scorekit first on the path); returns the CompletedProcess with text output."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.update(kwargs.pop("env", {}) or {})
    return subprocess.run([sys.executable, "-m", "scorekit", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env, **kwargs)


def on_terminal(command: list[str], *, env: dict[str, str] | None = None, timeout: float = 600) -> tuple[int, str]:
    """Run ``command`` with stdout and stderr on a pseudo-terminal 120 columns wide (room for a
    progress bar); return its exit code and everything it wrote there."""
    import fcntl
    import os
    import pty
    import select
    import struct
    import subprocess
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(command, stdout=follower, stderr=follower, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    seen = bytearray()
    try:
        while select.select([leader], [], [], timeout)[0]:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process has ended
                break
            if not data:
                break
            seen += data
    finally:
        os.close(leader)
        code = proc.wait(timeout=timeout)
    return code, seen.decode(errors="replace")


# --------------------------------------------------------------------------- benchmarks
def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` imported as the module ``name`` (the benchmarks are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def writable_copy(source: Path, target: Path) -> Path:
    """``source`` (a shared test-data folder) copied to ``target`` with every file writable: a test
    may then damage or vary the copy (a checkout may hold the data read-only)."""
    shutil.copytree(source, target)
    for p in [target, *target.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return target
