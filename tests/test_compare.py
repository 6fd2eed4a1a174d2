"""``sk.compare`` and ``scorekit compare`` (SPEC §17): two evaluations side by side."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import scorekit as sk
from scorekit._compare import COMPARE_COLUMNS
from scorekit.history import record


def _rows(rates: dict[str, float], cases: int = 100, trials: int = 2, seed: int = 0) -> list[dict]:
    """Pre-scored rows: per dimension, ``cases`` cases × ``trials`` trials, PASS for the first rate·cases cases."""
    rows = []
    for dim, rate in rates.items():
        for c in range(cases):
            for t in range(trials):
                rows.append({"id": f"{dim}-{c}-{t}", "dimension": dim, "case_id": f"case{c}", "trial": t,
                             "status": "PASS" if c < round(rate * cases) else "FAIL", "evaluator": "harness"})
    return rows


POLICY = {"purpose": "exploratory", "gate": {"thresholds": {"task_completion": 0.8, "tool_call": 0.8}}}


@pytest.fixture(scope="module")
def before() -> sk.Scorecard:
    return sk.evaluate(_rows({"task_completion": 0.9, "tool_call": 0.9}), policy=POLICY,
                       agent_name="agent", agent_version="1.0")


@pytest.fixture(scope="module")
def after() -> sk.Scorecard:
    """task_completion drops clearly (90% → 60%); tool_call is unchanged."""
    return sk.evaluate(_rows({"task_completion": 0.6, "tool_call": 0.9}), policy=POLICY,
                       agent_name="agent", agent_version="1.1")


def test_a_clear_drop_is_significant_and_an_unchanged_dimension_is_not(before, after):
    table = sk.compare(before, after)
    assert list(table.columns) == list(COMPARE_COLUMNS)
    assert {k: table.attrs[k] for k in ("a", "b", "confidence")} == {"a": "agent 1.0", "b": "agent 1.1",
                                                                    "confidence": 0.95}
    drop = table.loc["task_completion"]
    assert bool(drop["significant"]) is True
    assert math.isclose(drop["difference"], -0.3, abs_tol=1e-12) and drop["diff_high"] < 0
    assert drop["verdict_change"] == "PASS → FAIL"
    same = table.loc["tool_call"]
    assert bool(same["significant"]) is False and same["difference"] == 0 and same["verdict_change"] == ""


def test_an_unchanged_run_is_significant_nowhere(before):
    table = sk.compare(before, before)
    assert not table["significant"].any() and (table["difference"] == 0).all()


def test_scorecards_in_memory_are_compared_case_by_case(before, after):
    table = sk.compare(before, after)
    assert set(table["interval"]) == {"paired t"} and list(table["shared_cases"]) == [100, 100]
    # Reference: the Student-t interval of the mean per-case difference (Miller 2024, §4), by scipy.
    from scipy import stats

    d = np.array([(0.0 if c >= 60 else 1.0) - (0.0 if c >= 90 else 1.0) for c in range(100)])
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    row = table.loc["task_completion"]
    assert row["diff_low"] == pytest.approx(d.mean() - half, rel=1e-12)
    assert row["diff_high"] == pytest.approx(d.mean() + half, rel=1e-12)


def test_stored_scorecards_use_newcombes_interval(before, after, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(before.to_json(), encoding="utf-8")
    b.write_text(after.to_json(), encoding="utf-8")
    table = sk.compare(a, b)
    assert set(table["interval"]) == {"Newcombe"} and table["shared_cases"].isna().all()
    from statsmodels.stats.proportion import confint_proportions_2indep

    row = table.loc["task_completion"]
    low, high = confint_proportions_2indep(row["passes_b"], row["n_b"], row["passes_a"], row["n_a"],
                                           method="newcomb", compare="diff", alpha=0.05)
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((low, high), rel=1e-9)
    assert bool(row["significant"]) is True


def test_a_dimension_on_one_side_only_is_undefined_not_significant(before):
    other = sk.evaluate(_rows({"task_completion": 0.9, "pii_extra": 1.0}), policy={"purpose": "exploratory"})
    table = sk.compare(before, other)
    assert pd.isna(table.loc["tool_call", "significant"]) and math.isnan(table.loc["tool_call", "rate_b"])
    assert table.loc["tool_call", "verdict_change"] == "PASS → —"
    assert pd.isna(table.loc["pii_extra", "significant"])


def test_history_labels_are_compared_paired(before, after, tmp_path):
    db = tmp_path / "history.sqlite"
    record(before, db, label="v1.0")
    record(after, db, label="v1.1")
    table = sk.compare("v1.0", "v1.1", history=db)
    assert table.attrs["a"] == "v1.0" and set(table["interval"]) == {"paired t"}
    in_memory = sk.compare(before, after)  # the history's per-case counts are the evidence's
    numbers = ["n_a", "passes_a", "n_b", "passes_b", "difference", "diff_low", "diff_high", "shared_cases"]
    pd.testing.assert_frame_equal(table[numbers], in_memory[numbers], rtol=1e-12)
    assert list(table["significant"]) == list(in_memory["significant"])


def test_an_unknown_history_label_is_an_input_error_naming_the_labels(before, tmp_path):
    db = tmp_path / "history.sqlite"
    record(before, db, label="v1.0")
    with pytest.raises(sk.InputError, match=r"no history record labelled 'v9'.*v1\.0"):
        sk.compare("v1.0", "v9", history=db)


def test_compare_cli_prints_the_table_and_writes_html_and_markdown(run_cli, before, after, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(before.to_json(), encoding="utf-8")
    b.write_text(after.to_json(), encoding="utf-8")
    code, out, err = run_cli("compare", a, b, "--out-dir", tmp_path / "cmp")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "comparison: agent 1.0 → agent 1.1"
    drop = next(line for line in lines if line.startswith("task_completion"))
    assert "-30.0 pp" in drop and " yes " in drop and "PASS → FAIL" in drop
    md = (tmp_path / "cmp" / "compare.md").read_text("utf-8")
    html = (tmp_path / "cmp" / "compare.html").read_text("utf-8")
    assert "-30.0 pp" in md and "-30.0 pp" in html and "<script" not in html
    assert "<" not in md.replace("&lt;", "")  # plain Markdown


def test_compare_cli_reads_history_labels(run_cli, before, after, tmp_path):
    db = tmp_path / "history.sqlite"
    record(before, db, label="v1.0")
    record(after, db, label="v1.1")
    code, out, err = run_cli("compare", "v1.0", "v1.1", "--history", db, "--out-dir", tmp_path)
    assert code == 0, err
    assert "paired t" in out
    code, out, err = run_cli("compare", "v1.0", "nope", "--history", db, "--out-dir", tmp_path)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nope" in err


def test_compare_cli_refuses_a_file_that_is_not_a_scorecard(run_cli, tmp_path, before):
    a = tmp_path / "a.json"
    a.write_text(before.to_json(), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"decision": "PASS"}), encoding="utf-8")
    code, out, err = run_cli("compare", a, bad, "--out-dir", tmp_path / "cmp")
    assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "cmp").exists()


# --------------------------------------------------------------------------- files written before issue 26
#: A scorecard.json written by scorekit at main ecf8f4a (before `interval` was retired): its
#: recorded policy says `regression: {method: interval, max_drop: 0.02}`.
STORED_BEFORE = Path(__file__).parent / "data" / "stored" / "scorecard_ecf8f4a_interval.json"


def test_a_scorecard_recorded_with_the_retired_interval_method_is_still_read(run_cli, tmp_path):
    from scorekit.reports.json import read_scorecard_json

    data = read_scorecard_json(STORED_BEFORE)
    assert data["policy"]["regression"]["method"] == "interval"  # read as recorded, not rewritten
    table = sk.compare(STORED_BEFORE, STORED_BEFORE)
    assert len(table) == 8 and (table["difference"] == 0).all()
    code, out, err = run_cli("compare", STORED_BEFORE, STORED_BEFORE, "--out-dir", tmp_path / "cmp")
    assert code == 0, err
    assert "tool_call" in out and (tmp_path / "cmp" / "compare.md").exists()
