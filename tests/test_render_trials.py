"""``scorekit render`` renders every row file ``scorekit run`` accepts.

A results file whose rows name their trial in any accepted form (``trial``,
the ``trial_id`` alias, CSV cells, an empty cell, no trial at all, on some rows
only), with one trial per case or none repeated, a dimension of only ERROR
rows, an all-FAIL dimension, a single row, evaluator controls: if ``run`` exits
0 or 1 on it, ``render`` exits 0 and the executed notebook holds no error.

Two layers: a handful of representative files through the real ``scorekit
render`` (papermill starts a kernel: seconds each), and a property test that
runs the release notebook's own code cells in this process on generated files
(fast enough for many examples).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorekit import cli
from scorekit._examples import notebook_path


def _row(i: int, dimension: str, case: str, status: str, trial: Any = None, **extra: Any) -> dict[str, Any]:
    row = {"id": f"r{i}", "dimension": dimension, "case_id": case, "status": status, "evaluator": "harness/2.0"}
    if trial is not None:
        row["trial"] = trial
    row.update(extra)
    return row


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    columns = sorted({key for row in rows for key in row})
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


# Each builder writes one valid results file into a folder and returns its path.
REPRESENTATIVE: dict[str, Callable[[Path], Path]] = {
    # trials on some rows only: the release notebook's run-to-run cell raised (cell 8) on these
    "trial_on_some_rows": lambda d: _write_jsonl(d / "rows.jsonl", [
        *[_row(i, "pii", f"c{i // 2}", "PASS" if i % 3 else "FAIL", trial=i % 2) for i in range(6)],
        *[_row(10 + i, "pii", f"d{i}", "PASS") for i in range(3)],
        _row(20, "tool_call", "t0", "FAIL"),
    ]),
    "invalid_row_without_trial": lambda d: _write_jsonl(d / "rows.jsonl", [
        _row(0, "pii", "a", "PASS", trial=0),
        {"id": "bad", "dimension": "pii", "status": "MAYBE", "evaluator": "harness/2.0"},
    ]),
    "control_with_trial_agent_rows_without": lambda d: _write_jsonl(d / "rows.jsonl", [
        _row(0, "pii", "known-leak", "FAIL", trial=0, tags=["known-bad"]),
        _row(1, "pii", "c1", "PASS"),
    ]),
    "csv_trial_id_alias_with_empty_cells": lambda d: _write_csv(d / "rows.csv", [
        {**_row(i, "task_completion", f"c{i // 2}", "PASS" if i % 4 else "FAIL"), "trial_id": "" if i > 5 else i % 2}
        for i in range(9)
    ]),
    # forms that rendered already, kept so they stay rendering
    "one_row_no_trial": lambda d: _write_jsonl(d / "rows.jsonl", [_row(0, "cost", "c0", "FAIL")]),
    "only_error_dimension_and_all_fail_dimension": lambda d: _write_jsonl(d / "rows.jsonl", [
        *[_row(i, "helpfulness", f"h{i}", "ERROR", trial=0) for i in range(3)],
        *[_row(10 + i, "tool_call", f"t{i // 3}", "FAIL", trial=i % 3) for i in range(6)],
    ]),
    # 200-character dimension names: the figures' layout collapsed (a warning in the report's notebook)
    "long_dimension_names": lambda d: _write_jsonl(d / "rows.jsonl", [
        _row(0, "x" * 200, "a", "PASS", trial=0), _row(1, "y" * 200, "a", "FAIL", trial=1),
    ]),
}


def _scorekit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _notebook_errors(path: Path) -> list[str]:
    """Errors and stderr output (warnings) of the executed notebook's cells."""
    nb = nbformat.read(path, as_version=4)
    return [f"{out.get('ename')}: {out.get('evalue')}" if out.get("output_type") == "error" else out.get("text", "")
            for cell in nb.cells for out in cell.get("outputs", [])
            if out.get("output_type") == "error" or out.get("name") == "stderr"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", list(REPRESENTATIVE))
def test_render_succeeds_on_every_row_file_run_accepts(name, tmp_path):
    results = REPRESENTATIVE[name](tmp_path)
    run = _scorekit("run", "--results", str(results), "--out-dir", str(tmp_path / "run"), cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    out = tmp_path / "render"
    render = _scorekit("render", "--results", str(results), "--out-dir", str(out), "--agent-name", "agent",
                       "--agent-version", "1.0.0", cwd=tmp_path)
    assert render.returncode == 0, render.stderr
    assert "Traceback" not in render.stderr
    assert _notebook_errors(out / "release_scorecard.ipynb") == []
    assert (out / "release_scorecard.html").is_file() and (out / "scorecard.json").is_file()
    run_card = json.loads((tmp_path / "run" / "scorecard.json").read_text(encoding="utf-8"))
    render_card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert render_card["decision"] == run_card["decision"]


def test_rows_without_a_trial_number_give_no_trial_runs(tmp_path):
    """Without a run column the trial index stands in for runs only when every case of a
    dimension has the same trial numbers (SPEC §6): a case without one breaks that, and the
    run-to-run section says there is no variance instead of averaging partial runs."""
    results = REPRESENTATIVE["trial_on_some_rows"](tmp_path)
    namespace = _run_release_notebook_here(results, tmp_path / "out")
    dims = {d["name"]: d for d in namespace["data"]["dimensions"]}
    assert dims["pii"]["variance"] is None and dims["tool_call"]["variance"] is None
    assert "No run-to-run variance" in namespace["_html"]


# --------------------------------------------------------------------------- the notebook's code, in process
def _run_release_notebook_here(results: Path, out_dir: Path, policy: Path | None = None) -> dict[str, Any]:
    """Execute the release notebook's code cells in this process (parameters as papermill sets them).

    ``display`` is replaced by a collector: ``namespace["_html"]`` is every HTML
    fragment shown (``_repr_html_`` of each :mod:`scorekit.notebook` fragment), in order. User and
    runtime warnings (matplotlib's, NumPy's) are errors, so a cell that warns fails as a cell that raises.
    """
    nb = nbformat.read(notebook_path("release_scorecard"), as_version=4)
    shown: list[str] = []

    def display(*objects: Any, **_: Any) -> None:
        shown.extend(o._repr_html_() if hasattr(o, "_repr_html_") else str(o) for o in objects)

    namespace: dict[str, Any] = {}
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("error", RuntimeWarning)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            exec(compile(cell.source, f"<release notebook {cell.get('id')}>", "exec"), namespace)
            if "parameters" in cell.metadata.get("tags", []):
                namespace.update(results=str(results), policy=None if policy is None else str(policy),
                                 agent_name="agent", agent_version="1.0.0", out_dir=str(out_dir))
            namespace["display"] = display  # after the imports of each cell
    import matplotlib.pyplot as plt

    plt.close("all")
    namespace["_html"] = "\n".join(shown)
    return namespace


_DIMENSIONS = st.sampled_from(["pii", "tool_call", "helpfulness", "latency", "a dimension with spaces"])
_TRIAL = st.one_of(st.none(), st.integers(min_value=0, max_value=6))


@st.composite
def _row_files(draw):
    """Pre-scored rows with trials in every accepted form, written as JSON Lines or CSV."""
    n = draw(st.integers(min_value=1, max_value=14))
    as_csv = draw(st.booleans())
    trial_key = draw(st.sampled_from(["trial", "trial_id"]))
    rows = []
    for i in range(n):
        row = {"id": f"r{i}", "dimension": draw(_DIMENSIONS), "case_id": f"c{draw(st.integers(0, 3))}",
               "status": draw(st.sampled_from(["PASS", "FAIL", "ERROR", "ABSTAIN"])), "evaluator": "harness/2.0"}
        trial = draw(_TRIAL)
        if trial is not None:
            row[trial_key] = trial
        elif as_csv:
            row[trial_key] = ""  # an empty CSV cell: no trial
        if not as_csv and draw(st.integers(0, 5)) == 0:
            row["tags"] = ["known-bad"]
        rows.append(row)
    return as_csv, rows


@settings(max_examples=25)
@given(_row_files())
def test_release_notebook_code_runs_on_any_row_file_run_accepts(tmp_path_factory, drawn):
    as_csv, rows = drawn
    folder = tmp_path_factory.mktemp("rows")
    results = _write_csv(folder / "rows.csv", rows) if as_csv else _write_jsonl(folder / "rows.jsonl", rows)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["run", "--results", str(results), "--out-dir", str(folder / "run")])
    assume(code in (0, 1))  # only files run accepts must render
    namespace = _run_release_notebook_here(results, folder / "render")
    assert (folder / "render" / "scorecard.json").is_file()
    assert namespace["data"]["decision"] == json.loads((folder / "run" / "scorecard.json").read_text())["decision"]


# --------------------------------------------------------------------------- figures of unusual scorecards
def _dimensions(names: list[str]):
    import scorekit as sk

    rows = [_row(i, name, f"c{i}", "PASS" if i % 3 else "FAIL", trial=0) for i, name in enumerate(names)]
    return sk.evaluate(rows, policy={"purpose": "exploratory"}).dimensions


def _draw_without_warnings(ax) -> None:
    from scorekit import plots

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        plots.save_figure(ax, io.BytesIO())


def test_plot_labels_are_cut_so_long_dimension_names_keep_the_plot_visible():
    from scorekit import plots

    dims = _dimensions(["x" * 200, "y" * 200])
    ax = plots.plot_rates(dims)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert all(len(label) <= plots.LABEL_LIMIT for label in labels) and all(label.endswith("…") for label in labels)
    _draw_without_warnings(ax)  # constrained layout no longer collapses the axes to nothing
    _draw_without_warnings(plots.plot_pass_k(plots.pass_k_frame(dims)))


def test_pass_k_plot_of_many_dimensions_grows_to_hold_its_legend():
    from scorekit import plots

    ax = plots.plot_pass_k(plots.pass_k_frame(_dimensions([f"d{i:02d}" for i in range(60)])))
    assert len(ax.get_legend().get_texts()) == 60
    _draw_without_warnings(ax)


def test_pass_k_plot_of_no_dimension_draws_no_empty_legend():
    from scorekit import plots

    empty = _dimensions(["pii"]).iloc[:0]
    ax = plots.plot_pass_k(plots.pass_k_frame(empty))
    assert ax.get_legend() is None
    _draw_without_warnings(ax)


@pytest.mark.parametrize("name", list(REPRESENTATIVE))
def test_explorer_builds_on_every_row_file_run_accepts(name, tmp_path):
    from scorekit.widgets import build_explorer

    results = REPRESENTATIVE[name](tmp_path)
    explorer = build_explorer(str(results))
    assert explorer.view is not None, explorer.message
    assert "sk-decision" in explorer._repr_html_()
