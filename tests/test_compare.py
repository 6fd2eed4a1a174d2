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


def test_a_clear_drop_regresses_and_an_unchanged_dimension_does_not(before, after):
    table = sk.compare(before, after)
    assert list(table.columns) == list(COMPARE_COLUMNS)
    assert {k: table.attrs[k] for k in ("a", "b", "confidence", "method", "multiplicity", "alpha", "comparisons")} == {
        "a": "agent 1.0", "b": "agent 1.1", "confidence": 0.95, "method": "paired", "multiplicity": "holm",
        "alpha": 0.025, "comparisons": 2}
    assert table.attrs["meaning"] == "a drop shown at the 2.5% level across the 2 dimensions compared, Holm"
    drop = table.loc["task_completion"]
    assert bool(drop["significant"]) is True and drop["p_adjusted"] <= 0.025
    assert math.isclose(drop["difference"], -0.3, abs_tol=1e-12) and drop["ci_high"] < 0
    assert drop["verdict_change"] == "PASS → FAIL"
    assert drop["regressed_cases"]["total"] == 30 and drop["improved_cases"]["total"] == 0
    assert [c["case_id"] for c in drop["regressed_cases"]["listed"][:2]] == ["case60", "case61"]
    same = table.loc["tool_call"]
    assert bool(same["significant"]) is False and same["difference"] == 0 and same["verdict_change"] == ""
    assert same["p_value"] == 1.0


def test_an_unchanged_run_regresses_nowhere(before):
    table = sk.compare(before, before)
    assert not table["significant"].any() and (table["difference"] == 0).all()


def test_scorecards_in_memory_are_compared_case_by_case(before, after):
    table = sk.compare(before, after)
    assert set(table["method_used"]) == {"paired"} and list(table["shared_cases"]) == [100, 100]
    assert list(table["cases_only_a"]) == list(table["cases_only_b"]) == [0, 0]
    # Reference: the Student-t interval and one-sided test of the mean per-case difference, by scipy.
    from scipy import stats

    d = np.array([(0.0 if c >= 60 else 1.0) - (0.0 if c >= 90 else 1.0) for c in range(100)])
    half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
    row = table.loc["task_completion"]
    assert row["ci_low"] == pytest.approx(d.mean() - half, rel=1e-12)
    assert row["ci_high"] == pytest.approx(d.mean() + half, rel=1e-12)
    p = stats.ttest_1samp(d, 0.0, alternative="less").pvalue
    assert row["p_value"] == pytest.approx(p, rel=1e-12) and row["p_adjusted"] == pytest.approx(min(1, 2 * p))


def test_stored_scorecards_use_newcombe_from_the_clustered_intervals(before, after, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(before.to_json(), encoding="utf-8")
    b.write_text(after.to_json(), encoding="utf-8")
    table = sk.compare(a, b)
    assert set(table["method_used"]) == {"newcombe"} and table["shared_cases"].isna().all()
    assert table["regressed_cases"].isna().all() and table["cases_only_a"].isna().all()
    from statsmodels.stats.proportion import proportion_confint

    # Both trials of a case agree, so each side's design effect is 2 (SPEC §6): Wilson at N/2.
    assert before.dimensions.loc["task_completion", "deff"] == after.dimensions.loc["task_completion", "deff"] == 2
    row = table.loc["task_completion"]
    (l1, u1), (l2, u2) = (proportion_confint(row[f"rate_{s}"] * 100, 100, alpha=0.05, method="wilson") for s in "ab")
    p1, p2 = row["rate_a"], row["rate_b"]
    expected = (p2 - p1 - math.hypot(p2 - l2, u1 - p1), p2 - p1 + math.hypot(u2 - p2, p1 - l1))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(expected, abs=1e-12)
    assert bool(row["significant"]) is True
    # The same numbers as the in-memory cards without their per-case counts.
    pooled = sk.compare(before, after)
    assert pooled.loc["task_completion", "p_value"] < row["p_value"]



def test_stored_scorecards_given_their_case_counts_are_compared_paired_like_the_cards(before, after, tmp_path):
    """``case_counts=`` (what ``scorekit view`` counts from the evidence beside each file) makes two stored
    scorecards compare as the cards in memory do: paired, with the cases that fell listed."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(before.to_json(), encoding="utf-8")
    b.write_text(after.to_json(), encoding="utf-8")
    stored = sk.compare(a, b, case_counts=(before.case_counts, after.case_counts))
    cards = sk.compare(before, after)
    assert set(stored["method_used"]) == {"paired"}
    columns = ["difference", "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "shared_cases"]
    pd.testing.assert_frame_equal(stored[columns], cards[columns])
    fell = stored.loc["task_completion", "regressed_cases"]
    assert fell["total"] == 30 and {c["case_id"] for c in fell["listed"]} == {f"case{c}" for c in range(60, 90)}
    assert sk.compare(a, b, case_counts=(None, None)).equals(sk.compare(a, b))  # nothing given: as before

def test_a_dimension_on_one_side_only_is_undefined_not_regressed(before):
    other = sk.evaluate(_rows({"task_completion": 0.9, "pii_extra": 1.0}), policy={"purpose": "exploratory"})
    table = sk.compare(before, other)
    assert pd.isna(table.loc["tool_call", "significant"]) and math.isnan(table.loc["tool_call", "rate_b"])
    assert table.loc["tool_call", "verdict_change"] == "PASS → —"
    assert pd.isna(table.loc["pii_extra", "significant"]) and math.isnan(table.loc["pii_extra", "p_value"])
    assert table.attrs["comparisons"] == 1


def test_history_labels_are_compared_paired(before, after, tmp_path):
    db = tmp_path / "history.sqlite"
    record(before, db, label="v1.0")
    record(after, db, label="v1.1")
    table = sk.compare("v1.0", "v1.1", history=db)
    assert table.attrs["a"] == "v1.0" and set(table["method_used"]) == {"paired"}
    in_memory = sk.compare(before, after)  # the history's per-case counts are the evidence's
    numbers = ["n_a", "passes_a", "n_b", "passes_b", "difference", "ci_low", "ci_high", "p_value", "p_adjusted",
               "shared_cases", "cases_only_a", "cases_only_b"]
    pd.testing.assert_frame_equal(table[numbers], in_memory[numbers], rtol=1e-12)
    assert list(table["significant"]) == list(in_memory["significant"])
    assert list(table["regressed_cases"]) == list(in_memory["regressed_cases"])


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
    assert "-30.0 pp" in drop and " yes " in drop and "PASS → FAIL" in drop and "(Newcombe)" in drop
    meaning = "regressed means: a drop shown at the 2.5% level across the 2 dimensions compared, Holm"
    assert meaning in lines
    md = (tmp_path / "cmp" / "compare.md").read_text("utf-8")
    html = (tmp_path / "cmp" / "compare.html").read_text("utf-8")
    assert "-30.0 pp" in md and "-30.0 pp" in html and "<script" not in html
    assert meaning.split(": ", 1)[1] in md and meaning.split(": ", 1)[1] in html
    assert "cannot be listed" in md and "Cases that changed" not in md  # stored files: no per-case counts
    assert "<" not in md.replace("&lt;", "")  # plain Markdown


def test_compare_cli_reads_history_labels(run_cli, before, after, tmp_path):
    db = tmp_path / "history.sqlite"
    record(before, db, label="v1.0")
    record(after, db, label="v1.1")
    code, out, err = run_cli("compare", "v1.0", "v1.1", "--history", db, "--out-dir", tmp_path)
    assert code == 0, err
    assert "paired t" in out and "cases that changed:" in out
    assert "task_completion  fell  case60  100.0%  0.0%  -100.0 pp" in out
    md = (tmp_path / "compare.md").read_text("utf-8")
    html = (tmp_path / "compare.html").read_text("utf-8")
    assert "## Cases that changed" in md and "case89" in md and "case90" not in md
    assert "Cases that changed" in html and "case60" in html
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
    # Reading is not choosing: compared with today's method, and the header says so.
    assert set(table["method_used"]) == {"newcombe"}
    reading = [n for n in table.attrs["notes"] if "retired" in n]
    assert reading == [f"{w} recorded the retired regression method 'interval': read, not chosen; compared with "
                       "newcombe" for w in "AB"]
    code, out, err = run_cli("compare", STORED_BEFORE, STORED_BEFORE, "--out-dir", tmp_path / "cmp")
    assert code == 0, err
    assert "tool_call" in out and (tmp_path / "cmp" / "compare.md").exists()
    assert "note: A recorded the retired regression method 'interval': read, not chosen" in out


def test_a_scorecard_written_before_issue_26_is_compared_with_newcombe_from_its_deff(tmp_path):
    """SPEC §18: a stored scorecard.json from an older version lacks per-case counts: paired → newcombe."""
    data = json.loads(STORED_BEFORE.read_text("utf-8"))
    worse = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    table = sk.compare(STORED_BEFORE, worse)
    assert set(table["method_used"]) == {"newcombe"} and table["regressed_cases"].isna().all()
    deff = {d["name"]: d["deff"] for d in data["dimensions"]}
    assert max(deff.values()) > 1  # its recorded design effects are what newcombe uses on its side
    from scorekit._regression import newcombe_p_value

    row = table.loc["tool_call"]
    (expected,) = newcombe_p_value(row["rate_a"], row["n_a"] / deff["tool_call"], row["rate_b"],
                                   row["n_b"] / worse.dimensions.loc["tool_call", "deff"])
    assert row["p_value"] == pytest.approx(expected, rel=1e-12)
