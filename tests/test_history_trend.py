"""The history trend (SPEC §17): ``scorekit history DB --plot FILE`` and its chart model."""

from __future__ import annotations

import pytest

import scorekit as sk
from scorekit.history import read_history, record
from scorekit.reports._charts import trend_chart

PNG = b"\x89PNG\r\n\x1a\n"


def _card(version: str, rate: float, *, extra: str | None = None) -> sk.Scorecard:
    rows = [{"id": f"r{i}", "dimension": "task_completion", "case_id": f"c{i}", "evaluator": "h",
             "status": "PASS" if i < rate * 50 else "FAIL", "agent_output": "same"} for i in range(50)]
    if extra:
        rows.append({"id": "x", "dimension": extra, "evaluator": "h", "status": "PASS"})
    return sk.evaluate(rows, policy={"purpose": "exploratory"}, agent_name="agent", agent_version=version)


@pytest.fixture()
def db(tmp_path):
    path = tmp_path / "history.sqlite"
    for version, rate in (("1.0", 0.9), ("1.1", 0.8), ("1.2", 0.7)):
        record(_card(version, rate), path, label=f"v{version}")
    return path


def test_history_plot_writes_the_png_trend_of_three_versions(run_cli, db, tmp_path):
    out = tmp_path / "trend.png"
    code, stdout, err = run_cli("history", db, "--plot", out)
    assert code == 0, err
    assert out.read_bytes()[:8] == PNG and out.stat().st_size > 5_000
    assert stdout.rstrip().endswith(f"wrote {out}")


def test_the_trend_holds_each_records_rate_and_interval_oldest_first(db):
    records, dims = read_history(db), read_history(db, dimensions=True)
    chart = trend_chart(records, dims)
    assert chart.records == ("v1.0", "v1.1", "v1.2")
    (line,) = chart.lines
    assert [round(p[1], 12) for p in line.points] == [0.9, 0.8, 0.7]
    for (_, rate, low, high), (_, row) in zip(line.points, dims.iterrows(), strict=True):
        assert (rate, low, high) == (row["rate"], row["ci_low"], row["ci_high"])  # the history's own Wilson bounds


def test_records_of_another_suite_are_left_out_and_said(db):
    record(_card("2.0", 0.9, extra="pii"), db, label="other-suite")  # another suite: a new dimension's rows
    record(_card("1.3", 0.6), db, label="v1.3")
    chart = trend_chart(read_history(db), read_history(db, dimensions=True))
    assert chart.records == ("v1.0", "v1.1", "v1.2", "v1.3")
    assert "1 records of other suites or policies left out" in chart.note


def test_plot_of_an_empty_history_is_exit_2(run_cli, tmp_path):
    db = tmp_path / "history.sqlite"
    record(_card("1.0", 0.9), db, label="v1")
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM dimensions")
        conn.execute("DELETE FROM cases")
        conn.execute("DELETE FROM records")
    code, _, err = run_cli("history", db, "--plot", tmp_path / "t.png")
    assert code == 2 and "no records" in err and not (tmp_path / "t.png").exists()


def test_an_unknown_image_format_is_exit_2_in_one_line(run_cli, db, tmp_path):
    code, _, err = run_cli("history", db, "--plot", tmp_path / "trend.nope")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "trend.nope" in err


def test_the_trend_draws_each_records_interval_at_that_records_own_confidence(tmp_path):
    # The gate's level is the policy's confidence c (SPEC §18); each record stores its own, and its trend
    # interval is the two-sided c interval its scorecard showed, not one level for the whole history.
    path = tmp_path / "history.sqlite"
    levels = (0.8, 0.95, 0.99)
    for k, confidence in enumerate(levels):
        rows = [{"id": f"r{i}", "dimension": "task_completion", "case_id": f"c{i}", "evaluator": "h",
                 "status": "PASS" if i < 40 else "FAIL", "agent_output": "same"} for i in range(50)]
        card = sk.evaluate(rows, policy={"purpose": "exploratory", "confidence": confidence},
                           agent_name="agent", agent_version=str(k))
        record(card, path, label=f"c{confidence}")
    records = read_history(path)
    assert records["confidence"].tolist() == list(levels)
    chart = trend_chart(records, read_history(path, dimensions=True))
    assert len(chart.records) == 1  # each confidence is its own policy hash: the newest one's records only
    (line,) = chart.lines
    ((_, rate, low, high),) = line.points
    assert (low, high) == pytest.approx(sk.wilson_interval(40, 50, confidence=0.99), abs=1e-15)
    assert rate == 0.8 and "each record's confidence" in chart.note
