"""Importing scorekit is cheap: heavy dependencies load only when a function needs them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scorekit

HEAVY = ["scipy", "matplotlib", "pyarrow", "nbconvert", "papermill", "cryptography", "ipywidgets", "jsonschema",
         "rfc8785"]


def _loaded_after(code: str) -> dict[str, list[str]]:
    """Run ``code`` in a fresh interpreter; report which heavy top-level packages it loaded.

    ``baseline`` is what ``import numpy, pandas`` alone loads (pandas 3 itself
    imports pyarrow when it is installed, for its default string dtype).
    """
    script = (
        "import json, sys\n"
        "import numpy, pandas\n"
        f"heavy = {HEAVY!r}\n"
        "def loaded(): return sorted({m.split('.')[0] for m in sys.modules} & set(heavy))\n"
        "baseline = loaded()\n"
        "baseline_modules = set(sys.modules)\n"
        f"{code}\n"
        "print(json.dumps({'baseline': baseline, 'after': loaded(),\n"
        "    'new': sorted(m for m in set(sys.modules) - baseline_modules if m.split('.')[0] in heavy)}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_import_scorekit_loads_no_heavy_dependency():
    report = _loaded_after("import scorekit")
    # Whatever pandas does not already load, scorekit must not load either.
    assert set(report["after"]) == set(report["baseline"]), report
    assert not [m for m in report["new"] if not m.startswith("pyarrow.")], report


@pytest.mark.parametrize("module", [m for m in HEAVY if m != "pyarrow"])
def test_import_scorekit_does_not_import(module):
    report = _loaded_after("import scorekit")
    assert module not in report["after"], report


def test_import_scorekit_does_not_import_pyarrow_parquet():
    report = _loaded_after("import scorekit")
    assert "pyarrow.parquet" not in report["new"], report


def test_reading_rows_and_summary_need_no_scipy_or_matplotlib():
    report = _loaded_after(
        "import scorekit as sk\n"
        "rows = sk.read_rows([{'id': 'a', 'dimension': 'pii', 'status': 'PASS', 'evaluator': 'h'}])\n"
        "rows.scorekit.summary(); rows.scorekit.pass_k([1, 2]); rows.scorekit.consistency()\n"
        "sk.wilson_interval(3, 10); sk.pass_at_k(3, 10, 5)"
    )
    assert "scipy" not in report["after"], report
    assert "matplotlib" not in report["after"], report


def test_all_names_exist():
    missing = [name for name in scorekit.__all__ if not hasattr(scorekit, name)]
    assert missing == []


def test_all_has_no_duplicates_and_includes_the_stable_api():
    assert len(scorekit.__all__) == len(set(scorekit.__all__))
    for name in ("wilson_interval", "pass_hat_k", "pass_at_k", "mean_ci", "read_rows", "InputError",
                 "ScorekitError", "Problem"):
        assert name in scorekit.__all__


def test_star_import_provides_every_name_in_all():
    namespace: dict = {}
    exec("from scorekit import *", namespace)
    assert set(scorekit.__all__) <= set(namespace)


def test_version_is_a_string():
    assert isinstance(scorekit.__version__, str) and scorekit.__version__


def test_release_subpackage_imports_from_scorekit():
    from scorekit import release

    assert release.ResultPayload and release.load_scorecard and release.carry_forward
    missing = [name for name in release.__all__ if not hasattr(release, name)]
    assert missing == []


def test_import_scorekit_release_loads_no_heavy_dependency_nor_yaml():
    report = _loaded_after("import scorekit.release")
    assert set(report["after"]) == set(report["baseline"]), report
    assert not [m for m in report["new"] if not m.startswith("pyarrow.")], report
    result = subprocess.run(
        [sys.executable, "-c", "import sys, scorekit.release; print('yaml' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )
    assert result.stdout.strip() == "False"
