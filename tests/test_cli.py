"""The `scorekit` command line: exit codes and the demo."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scorekit import cli

ROOT = Path(__file__).resolve().parents[1]


def test_demo_prints_summary_table_and_writes_svg_charts(tmp_path, capsys):
    code = cli.main(["demo", "--out-dir", str(tmp_path / "demo")])
    out = capsys.readouterr().out
    assert code == 0
    header = next(line for line in out.splitlines() if line.startswith("dimension"))
    for column in ("verdict", "n", "passes", "rate", "95% Wilson CI", "threshold", "pass^1", "pass^2", "pass^4"):
        assert column in header
    for dimension in ("task_completion", "tool_call", "action_correctness", "pii", "helpfulness"):
        assert any(line.startswith(dimension) for line in out.splitlines()), dimension
    assert "Repeated trials of one case may be correlated" in out
    for name in ("rates.svg", "pass_k.svg"):
        svg = (tmp_path / "demo" / name).read_text(encoding="utf-8")
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" role="img"') and svg.endswith("</svg>\n")
        assert f"wrote {tmp_path / 'demo' / name}" in out


def test_demo_numbers_equal_the_scorecard_and_the_accessor(tmp_path, capsys):
    import scorekit as sk

    cli.main(["demo", "--out-dir", str(tmp_path)])
    out = capsys.readouterr().out
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    assert f"decision: {card.decision}" in out
    lines = out.splitlines()
    rule = next(i for i, text in enumerate(lines) if text.startswith("-----"))
    spans = [m.span() for m in re.finditer(r"-+", lines[rule])]  # each column's width, from the rule line
    headers = [lines[rule - 1][a:b].strip() for a, b in spans]
    summary = card.evidence.scorekit.summary()
    for name, row in summary.iterrows():
        assert card.dimensions.loc[name, "n"] == row["n"]
        line = next(text for text in lines if text.split()[:1] == [name])
        cells = dict(zip(headers, (line[a:b].strip() for a, b in spans), strict=True))
        assurance = card.dimensions.loc[name, "assurance"]  # SPEC §18, beside the verdict; none at a 100% threshold
        assert [cells[h] for h in ("verdict", "P(meets threshold)", "n", "passes", "rate")] == [
            card.dimensions.loc[name, "verdict"], "—" if pd.isna(assurance) else f"{100 * assurance:.1f}%",
            str(int(row["n"])), str(int(row["passes"])), f"{100 * row['rate']:.1f}%"]


def test_unknown_command_exits_2_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "scorekit", "no-such-command"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_version_and_help_exit_0():
    for flag in ("--version", "--help"):
        proc = subprocess.run([sys.executable, "-m", "scorekit", flag], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr


def test_version_says_whether_the_c_helper_was_compiled():
    from shared import c_helper_built

    proc = subprocess.run([sys.executable, "-m", "scorekit", "--version"], capture_output=True, text=True, timeout=60)
    built = "with the C helper" in proc.stdout
    assert built == c_helper_built() and (built or "pure Python" in proc.stdout), proc.stdout


def test_demo_into_unwritable_place_is_a_message_not_a_traceback(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "scorekit", "demo", "--out-dir", str(blocker / "sub")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert str(blocker / "sub") in proc.stderr


def test_bench_stats_runs_and_agrees_with_bare_numpy_on_a_small_table():
    """The benchmark checks scorekit's numbers against its bare-NumPy reference."""
    pytest.importorskip("statsmodels")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_stats.py"), "--cases", "300", "--naive-cases", "50",
         "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    assert "same numbers checked" in proc.stdout
