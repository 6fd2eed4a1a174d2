"""Tests mirror the package (issue 13): every module of scorekit/ has a test module.

``scorekit/<pkg>/_<name>.py`` is tested by ``tests/<pkg>/test_<name>.py`` (leading
underscores dropped). Where the tests of a module live under another name, ALIASES
says where (reviewed like code). A new module without either fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "scorekit"
NOT_TESTED_ALONE = {"__init__.py", "__main__.py", "_version.py"}

#: module (path under scorekit/) → the test module that tests it, where the names differ.
ALIASES = {
    "_agents.py": "tests/test_cli_import.py",              # one evaluation, one agent (SPEC §2): several agents, exit 2
    "_assemble.py": "tests/test_evaluate.py",               # Counted -> Scorecard, through evaluate
    "_run_source.py": "tests/importers/test_partial_run.py",  # a run's source and why it is partial
    "_rows/_members.py": "tests/test_ingest.py",            # a directory read member by member
    "engines/_sql.py": "tests/engines/test_duckdb.py",      # what the duckdb reader and counter share
    "kernel/_counting.py": "tests/kernel/test_count.py",    # counts, merge and run totals, any partitioning
    "kernel/_judge.py": "tests/test_evaluate.py",           # the duplicate check against the row walk
    "kernel/_repeated.py": "tests/kernel/test_count.py",    # repeated hashes found without gathering them
    "kernel/_runner.py": "tests/kernel/test_count.py",      # the steps run through InProcess and dask
    "kernel/_shard.py": "tests/kernel/test_count.py",       # a partition's steps where it is
    "kernel/_table.py": "tests/engines/test_equivalence.py",  # one evidence table from every engine
    "_accel.py": "tests/test_speedups.py",                 # the C switch: C-versus-Python tests
    "_cli_release.py": "tests/release/test_gate_cli.py",
    "engines/_counted.py": "tests/engines/test_duckdb.py",     # the duckdb engine counted against pandas
    "_cli_render.py": "tests/test_render.py",
    "_stored.py": "tests/test_hostile_evidence.py",            # stored scorecards recomputed and refused
    "history/_check.py": "tests/test_hostile_evidence.py",     # edited history records refused
    "_rows/_normalise.py": "tests/test_rows.py",
    "_rows/_screens.py": "tests/test_rows.py",
    "_validate.py": "tests/test_rows.py",
    "plots.py": "tests/reports/test_charts.py",            # one chart model, both drawings
    "release/_render.py": "tests/release/test_payload.py",
    "reports/_format.py": "tests/test_confidence_label.py",
    "reports/_sections.py": "tests/reports/test_every_renderer.py",
    "reports/_svg.py": "tests/reports/test_charts.py",
    "reports/_templates.py": "tests/reports/test_xss.py",
    "reports/compare.py": "tests/test_compare.py",
}


def _modules() -> list[str]:
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if p.name not in NOT_TESTED_ALONE)


def _mirror(module: str) -> Path:
    parts = Path(module).parts
    folders = [p.lstrip("_") for p in parts[:-1]]
    return ROOT.joinpath("tests", *folders, f"test_{Path(parts[-1]).stem.lstrip('_')}.py")


@pytest.mark.parametrize("module", _modules())
def test_every_module_has_a_test_module(module):
    mirror = _mirror(module)
    if not mirror.is_file():
        assert module in ALIASES, f"scorekit/{module} has no {mirror.relative_to(ROOT)} and no entry in ALIASES"
        mirror = ROOT / ALIASES[module]
    assert mirror.is_file() and "def test_" in mirror.read_text(encoding="utf-8"), mirror


def test_aliases_name_only_modules_without_a_mirror():
    stale = [m for m in ALIASES if not (PACKAGE / m).is_file() or _mirror(m).is_file()]
    assert not stale, f"ALIASES entries to drop: {stale}"
