"""df.scorekit: the DataFrame accessor over scored rows (SPEC §3 row statuses, §6 shapes)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared import assert_close, per_case_rates, scored_frames

import scorekit as sk
from scorekit.accessor import ScorekitAccessor

SUMMARY_COLUMNS = ["n", "passes", "fails", "errors", "abstains", "rate", "ci_low", "ci_high", "coverage",
                   "cases", "deff", "ci_cluster_low", "ci_cluster_high", "wilson_low", "wilson_high",
                   "interval_method"]


@pytest.fixture
def frame() -> pd.DataFrame:
    """Three dimensions: 'b' repeated and flaky, 'a' with an ERROR row, 'c' with no measured row."""
    return pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(12)],
            "dimension": ["b", "b", "b", "b", "a", "a", "a", "a", "c", "c", "c", "b"],
            "case_id": ["z", "z", "y", "y", "x", "x", "w", "v", "q", "q", "q", "k"],
            "run": ["r1", "r2", "r1", "r2", "r1", "r2", "r1", "r2", "r1", "r2", "r2", "r1"],
            "status": ["PASS", "FAIL", "PASS", "PASS", "PASS", "PASS", "ERROR", "ABSTAIN",
                       "ERROR", "ERROR", "ABSTAIN", "FAIL"],
        }
    )


# --------------------------------------------------------------------------- summary
def test_accessor_is_registered_on_dataframes(frame):
    assert isinstance(frame.scorekit, ScorekitAccessor)


def test_summary_columns_are_exactly_the_documented_ones(frame):
    summary = frame.scorekit.summary()
    assert summary.columns.tolist() == SUMMARY_COLUMNS
    assert summary.index.name == "dimension"
    assert summary.index.tolist() == ["a", "b", "c"]


def test_summary_counts_rates_and_wilson_interval(frame):
    summary = frame.scorekit.summary()
    b = summary.loc["b"]
    assert (b["n"], b["passes"], b["fails"], b["errors"], b["abstains"]) == (5, 3, 2, 0, 0)
    assert b["rate"] == pytest.approx(3 / 5)
    low, high = sk.wilson_interval(3, 5)
    assert b["wilson_low"] == pytest.approx(low, abs=1e-15) and b["wilson_high"] == pytest.approx(high, abs=1e-15)
    # A case repeats: the headline interval is the case-clustered one (SPEC §18).
    assert b["interval_method"] == "wilson_clustered"
    assert (b["ci_low"], b["ci_high"]) == (b["ci_cluster_low"], b["ci_cluster_high"])
    assert b["coverage"] == 1.0
    for column in ("n", "passes", "fails", "errors", "abstains"):
        assert pd.api.types.is_integer_dtype(summary[column].dtype), column


def test_error_and_abstain_rows_are_excluded_from_denominators_but_counted_in_coverage(frame):
    a = frame.scorekit.summary().loc["a"]
    assert (a["n"], a["passes"], a["errors"], a["abstains"]) == (2, 2, 1, 1)
    assert a["rate"] == 1.0  # 2 PASS / (2 PASS + 0 FAIL): the ERROR and ABSTAIN rows are not failures
    assert a["coverage"] == pytest.approx(2 / 4)
    low, high = sk.wilson_interval(2, 2)
    assert (a["wilson_low"], a["wilson_high"]) == pytest.approx((low, high), abs=1e-15)


def test_rate_is_nan_not_zero_for_a_dimension_with_only_error_rows(frame):
    c = frame.scorekit.summary().loc["c"]
    assert c["n"] == 0 and c["errors"] == 2 and c["abstains"] == 1
    assert math.isnan(c["rate"]) and math.isnan(c["ci_low"]) and math.isnan(c["ci_high"])
    assert c["coverage"] == 0.0


def test_summary_confidence_changes_the_interval(frame):
    s80 = frame.scorekit.summary(confidence=0.8).loc["b"]
    low, high = sk.wilson_interval(3, 5, confidence=0.8)
    assert (s80["wilson_low"], s80["wilson_high"]) == pytest.approx((low, high), abs=1e-15)
    c_low, c_high, _ = sk.cluster_interval([1, 2, 0], [2, 2, 1], confidence=0.8)  # cases z, y, k
    assert (s80["ci_low"], s80["ci_high"]) == pytest.approx((c_low, c_high), abs=1e-15)
    with pytest.raises((TypeError, ValueError), match="confidence"):
        frame.scorekit.summary(confidence=1.5)


def test_summary_by_dimension_and_run(frame):
    summary = frame.scorekit.summary(by=["dimension", "run"])
    assert summary.index.names == ["dimension", "run"]
    assert summary.columns.tolist() == SUMMARY_COLUMNS
    assert summary.index.tolist() == [("a", "r1"), ("a", "r2"), ("b", "r1"), ("b", "r2"), ("c", "r1"), ("c", "r2")]
    assert summary.loc[("b", "r1"), "n"] == 3 and summary.loc[("b", "r1"), "passes"] == 2
    assert summary.loc[("b", "r2"), "rate"] == pytest.approx(1 / 2)
    assert math.isnan(summary.loc[("c", "r2"), "rate"])


def test_control_rows_are_excluded(frame):
    with_controls = pd.concat(
        [
            frame,
            pd.DataFrame({"id": ["k1", "k2"], "dimension": ["b", "d"], "case_id": ["z", "only-control"],
                          "run": ["r1", "r1"], "status": ["PASS", "FAIL"]}),
        ],
        ignore_index=True,
    )
    with_controls["control"] = [False] * len(frame) + [True, True]
    pd.testing.assert_frame_equal(with_controls.scorekit.summary(), frame.scorekit.summary())
    pd.testing.assert_frame_equal(with_controls.scorekit.consistency(), frame.scorekit.consistency())
    pd.testing.assert_series_equal(with_controls.scorekit.pass_k(2), frame.scorekit.pass_k(2))
    pd.testing.assert_frame_equal(with_controls.scorekit.counts(), frame.scorekit.counts())


def test_control_column_with_missing_values_counts_them_as_agent_rows(frame):
    flagged = frame.assign(control=pd.array([None] + [False] * (len(frame) - 1), dtype="boolean"))
    pd.testing.assert_frame_equal(flagged.scorekit.summary(), frame.scorekit.summary())


def test_unknown_status_is_a_value_error_naming_the_row(frame):
    frame.loc[5, "status"] = "pass"
    with pytest.raises(ValueError, match=r"'pass'.*row 5.*'r5'"):
        frame.scorekit.summary()


def test_missing_status_is_a_value_error_naming_the_row(frame):
    frame["status"] = frame["status"].astype(object)
    frame.loc[7, "status"] = None
    with pytest.raises(ValueError, match=r"missing.*row 7.*'r7'"):
        frame.scorekit.pass_k(1)


def test_unknown_status_in_a_categorical_column_is_a_value_error(frame):
    frame["status"] = pd.Categorical(frame["status"].replace({"ABSTAIN": "SKIP"}))
    with pytest.raises(ValueError, match="'SKIP'"):
        frame.scorekit.consistency()


@pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")
def test_bad_status_after_a_control_row_names_the_right_row():
    df = pd.DataFrame({"id": ["k", "a", "b"], "dimension": ["d"] * 3, "status": ["PASS", "PASS", "maybe"],
                       "control": [True, False, False]})
    with pytest.raises(ValueError, match=r"row 2\b"):
        df.scorekit.summary()


def test_unknown_status_check_does_not_rely_on_deprecated_pandas_behaviour(frame):
    import warnings

    frame.loc[5, "status"] = "pass"
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.Pandas4Warning)
        with pytest.raises(ValueError, match=r"'pass'.*row 5"):
            frame.scorekit.summary()


def test_frame_without_status_is_a_key_error(frame):
    with pytest.raises(KeyError, match="status"):
        frame.drop(columns="status").scorekit.summary()


def test_frame_without_dimension_is_a_key_error(frame):
    with pytest.raises(KeyError, match="dimension"):
        frame.drop(columns="dimension").scorekit.summary()
    with pytest.raises(KeyError, match="dimension"):
        frame.drop(columns="dimension").scorekit.pass_k(2)


def test_missing_dimension_value_is_an_error(frame):
    frame["dimension"] = frame["dimension"].astype(object)
    frame.loc[3, "dimension"] = None
    with pytest.raises(ValueError, match="dimension"):
        frame.scorekit.summary()


def test_bad_by_is_rejected(frame):
    with pytest.raises(TypeError, match="by"):
        frame.scorekit.summary(by=[])
    with pytest.raises(KeyError, match="nope"):
        frame.scorekit.summary(by="nope")


# --------------------------------------------------------------------------- pass^k / pass@k
def test_pass_k_int_gives_a_series_indexed_by_dimension(frame):
    series = frame.scorekit.pass_k(2)
    assert isinstance(series, pd.Series)
    assert series.index.name == "dimension" and series.index.tolist() == ["a", "b", "c"]
    # a: case x (PASS, PASS) -> 1; w, v have no measured trials. b: z (P,F) -> 0, y (P,P) -> 1, k has one trial.
    assert series["a"] == 1.0
    assert series["b"] == pytest.approx(0.5)
    assert math.isnan(series["c"])


def test_pass_k_list_gives_a_frame_with_int_columns(frame):
    table = frame.scorekit.pass_k([1, 2])
    assert isinstance(table, pd.DataFrame)
    assert table.columns.tolist() == [1, 2]
    assert all(type(c) is int for c in table.columns)
    assert table.index.tolist() == ["a", "b", "c"]
    # pass^1 for b: mean of per-case rates z=1/2, y=1, k=0 -> 0.5
    assert table.loc["b", 1] == pytest.approx(0.5)
    pd.testing.assert_series_equal(table[2], frame.scorekit.pass_k(2), check_names=False)


def test_pass_at_k_has_the_same_shapes(frame):
    series = frame.scorekit.pass_at_k(2)
    assert isinstance(series, pd.Series) and series.index.tolist() == ["a", "b", "c"]
    assert series["b"] == pytest.approx(1.0)  # z (P,F) -> 1, y (P,P) -> 1
    table = frame.scorekit.pass_at_k([1, 2])
    assert isinstance(table, pd.DataFrame) and table.columns.tolist() == [1, 2]
    assert table.loc["b", 1] == pytest.approx(0.5)


def test_pass_k_by_two_columns(frame):
    table = frame.scorekit.pass_k([1], by=["dimension", "run"])
    assert table.index.names == ["dimension", "run"]


@pytest.mark.parametrize("k", [0, -1, 2.0, True, "2", []])
def test_pass_k_rejects_bad_k(frame, k):
    with pytest.raises((TypeError, ValueError), match="k"):
        frame.scorekit.pass_k(k)


def test_pass_k_matches_hand_computed_per_case_mean():
    df = pd.DataFrame(
        {
            "dimension": ["d"] * 14,
            "case_id": ["a"] * 8 + ["b"] * 4 + ["c"] * 2,
            "status": ["PASS"] * 6 + ["FAIL"] * 2 + ["PASS", "PASS", "FAIL", "FAIL"] + ["PASS", "ERROR"],
        }
    )
    # a: n=8 c=6; b: n=4 c=2; c: n=1 (excluded for k >= 2)
    expected_4 = np.mean([sk.pass_hat_k(6, 8, 4), sk.pass_hat_k(2, 4, 4)])
    expected_2 = np.mean([sk.pass_hat_k(6, 8, 2), sk.pass_hat_k(2, 4, 2)])
    assert df.scorekit.pass_k(4)["d"] == pytest.approx(expected_4, abs=1e-15)
    assert df.scorekit.pass_k(2)["d"] == pytest.approx(expected_2, abs=1e-15)
    assert df.scorekit.pass_k(1)["d"] == pytest.approx(np.mean([6 / 8, 2 / 4, 1.0]), abs=1e-15)
    assert df.scorekit.pass_at_k(4)["d"] == pytest.approx(np.mean([sk.pass_at_k(6, 8, 4), sk.pass_at_k(2, 4, 4)]))
    assert math.isnan(df.scorekit.pass_k(9)["d"])


def test_cases_default_to_id_when_there_is_no_case_id():
    df = pd.DataFrame({"id": ["a", "b", "c"], "dimension": ["d"] * 3, "status": ["PASS", "FAIL", "PASS"]})
    assert math.isnan(df.scorekit.pass_k(2)["d"])  # every row is its own case
    assert df.scorekit.consistency().loc["d", "repeated_cases"] == 0
    assert df.scorekit.counts().index.names == ["dimension", "id"]


# --------------------------------------------------------------------------- consistency
def test_consistency_columns_and_sorted_flaky_lists(frame):
    table = frame.scorekit.consistency()
    assert table.columns.tolist() == ["repeated_cases", "consistency", "flaky_cases"]
    assert table.index.name == "dimension" and table.index.tolist() == ["a", "b", "c"]
    assert table.loc["b", "repeated_cases"] == 2  # z, y (k has one trial)
    assert table.loc["b", "consistency"] == pytest.approx(0.5)
    assert table.loc["b", "flaky_cases"] == ["z"]
    assert table.loc["a", "repeated_cases"] == 1 and table.loc["a", "consistency"] == 1.0
    assert table.loc["a", "flaky_cases"] == []
    assert table.loc["c", "repeated_cases"] == 0 and math.isnan(table.loc["c", "consistency"])
    assert table.loc["c", "flaky_cases"] == []


def test_flaky_cases_are_sorted():
    cases = ["m", "b", "z", "a", "k"]
    df = pd.DataFrame(
        {
            "dimension": ["d"] * 10,
            "case_id": [c for c in cases for _ in (0, 1)],
            "status": ["FAIL", "PASS"] * 5,
        }
    )
    assert df.scorekit.consistency().loc["d", "flaky_cases"] == sorted(cases)


def test_error_trials_do_not_make_a_case_repeated_or_flaky():
    df = pd.DataFrame({"dimension": ["d"] * 4, "case_id": ["a", "a", "b", "b"],
                       "status": ["PASS", "ERROR", "FAIL", "ABSTAIN"]})
    table = df.scorekit.consistency()
    assert table.loc["d", "repeated_cases"] == 0 and table.loc["d", "flaky_cases"] == []


@pytest.mark.parametrize("kind", ["str", "object", "category", "unsorted-category"])
def test_dimension_and_case_dtypes_give_identical_results(frame, kind):
    other = frame.copy()
    for column in ("dimension", "case_id"):
        if kind == "unsorted-category":
            values = other[column].astype(object)
            other[column] = pd.Categorical(values, categories=sorted(set(values), reverse=True) + ["unused"])
        else:
            other[column] = other[column].astype(kind)
    pd.testing.assert_frame_equal(other.scorekit.summary(), frame.scorekit.summary(), check_index_type=False)
    pd.testing.assert_frame_equal(other.scorekit.pass_k([1, 2]), frame.scorekit.pass_k([1, 2]),
                                  check_index_type=False)
    pd.testing.assert_frame_equal(other.scorekit.consistency(), frame.scorekit.consistency(),
                                  check_index_type=False)
    pd.testing.assert_frame_equal(other.scorekit.counts(), frame.scorekit.counts(), check_index_type=False)


def test_flaky_lists_are_lexicographic_even_with_unsorted_categories():
    cases = ["delta", "alpha", "charlie", "bravo"]
    df = pd.DataFrame(
        {
            "dimension": pd.Categorical(["d"] * 8, categories=["zz", "d"]),
            "case_id": pd.Categorical([c for c in cases for _ in (0, 1)], categories=cases),
            "status": ["PASS", "FAIL"] * 4,
        }
    )
    table = df.scorekit.consistency()
    assert table.index.tolist() == ["d"]  # the unused category is not a dimension
    assert table.loc["d", "flaky_cases"] == ["alpha", "bravo", "charlie", "delta"]
    counts = df.scorekit.counts()
    assert counts.index.get_level_values("case_id").tolist() == ["alpha", "bravo", "charlie", "delta"]


def test_dimensions_are_sorted_whatever_the_row_order(frame):
    shuffled = frame.iloc[::-1]
    assert shuffled.scorekit.summary().index.tolist() == ["a", "b", "c"]


# --------------------------------------------------------------------------- counts
def test_counts_are_the_per_case_sufficient_statistics(frame):
    counts = frame.scorekit.counts()
    assert counts.columns.tolist() == ["passes", "fails", "errors", "abstains", "n"]
    assert counts.index.names == ["dimension", "case_id"]
    assert counts.index.tolist() == [("a", "v"), ("a", "w"), ("a", "x"), ("b", "k"), ("b", "y"), ("b", "z"),
                                     ("c", "q")]
    assert counts.loc[("b", "z")].tolist() == [1, 1, 0, 0, 2]
    assert counts.loc[("c", "q")].tolist() == [0, 0, 2, 1, 0]
    # summing cases gives the summary
    summed = counts.groupby(level="dimension").sum()
    summary = frame.scorekit.summary()
    assert summed["passes"].tolist() == summary["passes"].tolist()
    assert summed["n"].tolist() == summary["n"].tolist()
    assert (summed["errors"] + summed["abstains"]).tolist() == (summary["errors"] + summary["abstains"]).tolist()


def test_counts_by_two_columns(frame):
    counts = frame.scorekit.counts(by=["dimension", "run"])
    assert counts.index.names == ["dimension", "run", "case_id"]
    assert counts["n"].sum() == frame["status"].isin(["PASS", "FAIL"]).sum()


# --------------------------------------------------------------------------- variance
VARIANCE_COLUMNS = ["basis", "runs", "incomplete_runs", "mean", "stdev", "cv_pct", "ci_low", "ci_high",
                    "ci_half_width", "z_half_width", "clipped", "note"]


def _complete_runs(df, dimension):
    """Reference: per-run rates of the runs that measured every case any run measured."""
    rows = df[df["dimension"] == dimension]
    measured = rows[rows["status"].isin(["PASS", "FAIL"])]
    universe = set(measured["case_id"])
    rates = {}
    for run, part in measured.groupby("run", sort=True):
        if universe and set(part["case_id"]) == universe:
            rates[run] = (part["status"] == "PASS").mean()
    return rates


def test_variance_counts_only_complete_runs(frame):
    variance = frame.scorekit.variance(run="run")
    assert variance.columns.tolist() == VARIANCE_COLUMNS
    assert variance.index.tolist() == ["a", "b", "c"]
    # b: run r2 missed case k, so it is incomplete: one complete run, no variance (stated).
    assert (variance.loc["b", "runs"], variance.loc["b", "incomplete_runs"]) == (1, 1)
    assert math.isnan(variance.loc["b", "mean"]) and "fewer than 2 complete runs" in variance.loc["b", "note"]
    # a: only case x was ever measured, in both runs: two complete runs of rate 1.
    assert (variance.loc["a", "runs"], variance.loc["a", "mean"], variance.loc["a", "stdev"]) == (2, 1.0, 0.0)
    assert variance.loc["c", "runs"] == 0  # nothing measured


def test_run_rates_are_the_complete_runs_pass_rates(frame):
    rates = frame.scorekit.run_rates("run")
    assert rates.loc["b", "r1"] == pytest.approx(2 / 3)  # z P, y P, k F
    assert math.isnan(rates.loc["b", "r2"])  # incomplete: k not measured in r2
    assert rates.loc["a"].tolist() == [1.0, 1.0]


def _runs_frame(passes_per_run, cases=100, dimension="d"):
    records = []
    for run, passes in enumerate(passes_per_run):
        for c in range(cases):
            records.append({"id": f"{dimension}-{run}-{c}", "dimension": dimension, "case_id": f"c{c}",
                            "trial": run, "run": f"run-{run}", "status": "PASS" if c < passes else "FAIL"})
    return pd.DataFrame.from_records(records)


def test_variance_reference_values_spec():
    # SPEC §6: [0.84, 0.85, 0.83] → mean 0.84, stdev 0.01, t-CI (0.8151586228824966, 0.8648413771175033).
    v = _runs_frame([84, 85, 83]).scorekit.variance()
    row = v.loc["d"]
    assert row["basis"] == "run" and row["runs"] == 3 and not row["clipped"]
    assert row["mean"] == pytest.approx(0.84, abs=1e-12)
    assert row["stdev"] == pytest.approx(0.01, abs=1e-12)
    assert row["ci_low"] == pytest.approx(0.8151586228824966, abs=1e-12)
    assert row["ci_high"] == pytest.approx(0.8648413771175033, abs=1e-12)


def test_trial_index_stands_in_only_when_trials_are_balanced():
    df = _runs_frame([84, 85, 83]).drop(columns="run")
    assert df.scorekit.variance().loc["d", "basis"] == "trial"
    unbalanced = df[~((df["case_id"] == "c0") & (df["trial"] == 2))]
    row = unbalanced.scorekit.variance().loc["d"]
    assert row["basis"] is None and math.isnan(row["mean"])
    assert "do not share one set of trial numbers" in row["note"]


def test_variance_interval_is_clipped_to_the_unit_interval_and_says_so():
    row = _runs_frame([10, 10, 4], cases=10).scorekit.variance().loc["d"]
    assert row["clipped"] and row["ci_high"] == 1.0 and 0.0 <= row["ci_low"]


@given(scored_frames(max_trials=6))
def test_variance_equals_mean_ci_of_the_complete_runs_on_random_frames(df):
    variance = df.scorekit.variance(run="run")
    for dimension in variance.index:
        rates = _complete_runs(df, dimension)
        got = variance.loc[dimension]
        assert got["runs"] == len(rates)
        if len(rates) < 2:
            assert math.isnan(got["mean"])
            continue
        expected = sk.mean_ci(np.array(list(rates.values())))
        for key in ("mean", "stdev", "z_half_width"):
            assert_close(got[key], expected[key])
        assert_close(got["ci_low"], max(expected["ci_low"], 0.0))
        assert_close(got["ci_high"], min(expected["ci_high"], 1.0))
        assert 0.0 <= got["ci_low"] <= got["ci_high"] <= 1.0


def test_variance_with_confidence():
    df = _runs_frame([84, 85, 83])
    v90 = df.scorekit.variance(confidence=0.9)
    expected = sk.mean_ci([0.84, 0.85, 0.83], confidence=0.9)
    assert v90.loc["d", "ci_low"] == pytest.approx(expected["ci_low"], abs=1e-12)


# --------------------------------------------------------------------------- statelessness and invariance
def test_accessor_is_stateless_and_sees_mutations(frame):
    first = frame.scorekit.summary()
    frame.loc[frame["dimension"] == "b", "status"] = "PASS"
    second = frame.scorekit.summary()
    assert first.loc["b", "rate"] == pytest.approx(3 / 5)
    assert second.loc["b", "rate"] == 1.0
    assert frame.scorekit.consistency().loc["b", "flaky_cases"] == []


def test_accessor_sees_a_renamed_dimension_after_a_cached_call(frame):
    frame.scorekit.summary()
    frame.scorekit.consistency()
    frame.loc[0, "dimension"] = "a"
    frame.loc[0, "case_id"] = "new"
    counts = frame.scorekit.counts()
    assert ("a", "new") in counts.index
    assert counts.loc[("b", "z"), "n"] == 1
    assert frame.scorekit.summary().loc["a", "n"] == 3


def test_accessor_sees_a_replaced_column(frame):
    frame.scorekit.summary()
    frame["dimension"] = ["x"] * len(frame)
    assert frame.scorekit.summary().index.tolist() == ["x"]


def test_accessor_does_not_modify_the_frame(frame):
    before = frame.copy()
    frame.scorekit.summary()
    frame.scorekit.pass_k([1, 2])
    frame.scorekit.consistency()
    frame.scorekit.variance(run="run")
    frame.scorekit.counts()
    pd.testing.assert_frame_equal(frame, before)


def test_an_empty_frame_gives_empty_tables(frame):
    empty = frame.iloc[:0]
    assert empty.scorekit.summary().empty
    assert empty.scorekit.summary().columns.tolist() == SUMMARY_COLUMNS
    assert empty.scorekit.consistency().empty
    assert empty.scorekit.pass_k(2).empty


def test_a_frame_of_only_control_rows_gives_empty_tables(frame):
    controls = frame.assign(control=True)
    assert controls.scorekit.summary().empty
    assert controls.scorekit.consistency().empty
    assert controls.scorekit.pass_at_k([1, 2]).empty


def test_accessor_works_on_read_rows_output():
    rows = sk.read_rows(
        [
            {"id": "1", "dimension": "helpfulness", "case_id": "c", "status": "PASS", "evaluator": "h"},
            {"id": "2", "dimension": "helpfulness", "case_id": "c", "status": "FAIL", "evaluator": "h"},
            {"id": "3", "dimension": "helpfulness", "case_id": "c", "status": "PASS", "evaluator": "h",
             "tags": ["known-bad"]},
        ]
    )
    summary = rows.scorekit.summary()
    assert summary.loc["helpfulness", "n"] == 2
    assert rows.scorekit.consistency().loc["helpfulness", "flaky_cases"] == ["c"]


@given(scored_frames(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_row_order(df, rnd):
    order = list(range(len(df)))
    rnd.shuffle(order)
    shuffled = df.iloc[order].reset_index(drop=True)
    pd.testing.assert_frame_equal(shuffled.scorekit.summary(), df.scorekit.summary())
    pd.testing.assert_frame_equal(shuffled.scorekit.pass_k([1, 2, 3]), df.scorekit.pass_k([1, 2, 3]))
    pd.testing.assert_frame_equal(shuffled.scorekit.pass_at_k([1, 2]), df.scorekit.pass_at_k([1, 2]))
    pd.testing.assert_frame_equal(shuffled.scorekit.consistency(), df.scorekit.consistency())
    pd.testing.assert_frame_equal(shuffled.scorekit.counts(), df.scorekit.counts())
    pd.testing.assert_frame_equal(shuffled.scorekit.variance(run="run"), df.scorekit.variance(run="run"))


@given(scored_frames())
def test_summary_matches_a_plain_pandas_groupby(df):
    status = df["status"]
    expected = pd.DataFrame(
        {
            "passes": (status == "PASS").groupby(df["dimension"]).sum(),
            "fails": (status == "FAIL").groupby(df["dimension"]).sum(),
            "errors": (status == "ERROR").groupby(df["dimension"]).sum(),
            "abstains": (status == "ABSTAIN").groupby(df["dimension"]).sum(),
        }
    )
    summary = df.scorekit.summary()
    assert summary.index.tolist() == expected.index.tolist()
    for column in ("passes", "fails", "errors", "abstains"):
        assert summary[column].tolist() == expected[column].tolist()
    n = expected["passes"] + expected["fails"]
    assert summary["n"].tolist() == n.tolist()
    rate = (expected["passes"] / n.where(n > 0)).to_numpy(dtype=float)
    assert_close(summary["rate"].to_numpy(), rate)
    assert_close(summary["coverage"].to_numpy(), (n / expected.sum(axis=1)).to_numpy(dtype=float))


@given(scored_frames())
def test_consistency_matches_per_case_reference(df):
    reference = per_case_rates(df)
    table = df.scorekit.consistency()
    for dimension in table.index:
        cases = reference.loc[dimension] if dimension in reference.index.get_level_values(0) else reference.iloc[:0]
        repeated = cases[cases["n"] >= 2]
        flaky = repeated[(repeated["c"] > 0) & (repeated["c"] < repeated["n"])]
        assert table.loc[dimension, "repeated_cases"] == len(repeated)
        assert table.loc[dimension, "flaky_cases"] == sorted(flaky.index.tolist())
        if len(repeated):
            assert table.loc[dimension, "consistency"] == pytest.approx(1 - len(flaky) / len(repeated))
        else:
            assert math.isnan(table.loc[dimension, "consistency"])


# --------------------------------------------------------------------------- plots
def test_plot_rates_draws_one_row_per_dimension_and_the_thresholds(frame):
    from matplotlib.axes import Axes

    ax = frame.scorekit.plot_rates(thresholds={"a": 0.9, "b": 0.5})
    assert isinstance(ax, Axes)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    # one annotation per dimension; the one without evidence says so
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 3 and texts[2] == "no evidence"
    thresholds = [c for c in ax.collections if c.get_label() == "threshold"]
    assert len(thresholds) == 1 and len(thresholds[0].get_offsets()) == 2
    # the error bar has a point for each dimension with evidence (a, b), none for c
    (errorbar,) = ax.containers
    assert len(errorbar.lines[0].get_xdata()) == 2
    assert sorted(errorbar.lines[0].get_xdata()) == pytest.approx([0.6, 1.0])


def test_plot_rates_with_one_threshold_marks_every_dimension(frame):
    ax = frame.scorekit.plot_rates(thresholds=0.8)
    (marks,) = [c for c in ax.collections if c.get_label() == "threshold"]
    assert len(marks.get_offsets()) == 3
    assert np.asarray(marks.get_offsets())[:, 0].tolist() == [0.8, 0.8, 0.8]


def test_plot_rates_without_thresholds_draws_none(frame):
    ax = frame.scorekit.plot_rates()
    assert not [c for c in ax.collections if c.get_label() == "threshold"]


def test_plot_rates_rejects_a_threshold_outside_unit_interval(frame):
    with pytest.raises(ValueError, match="thresholds"):
        frame.scorekit.plot_rates(thresholds=80)


def test_plot_variance_draws_runs_per_dimension(frame):
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection

    ax = frame.scorekit.plot_variance(run="run")
    assert isinstance(ax, Axes)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    points = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_label() != "one run"]
    # one scatter per dimension with as many points as complete runs: a 2, b 1 (r2 missed a case), c 0
    assert sorted(len(c.get_offsets()) for c in points) == [0, 1, 2]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "one run" in legend and "mean of runs" in legend


def test_plot_pass_k_draws_one_line_per_dimension(frame):
    from matplotlib.axes import Axes

    ax = frame.scorekit.plot_pass_k([1, 2, 4])
    assert isinstance(ax, Axes)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4"]
    assert [line.get_label() for line in ax.lines] == ["a", "b", "c"]
    # Each line only over the ks every measured case reaches (SPEC §6): a's one measured
    # case has 2 trials, b's case k has 1, c has no measured case.
    assert [list(line.get_xdata()) for line in ax.lines] == [[1, 2], [1], []]
    expected = frame.scorekit.pass_k([1, 2, 4])
    assert_close(ax.lines[0].get_ydata(), expected.loc["a", [1, 2]].to_numpy())
    assert_close(ax.lines[1].get_ydata(), expected.loc["b", [1]].to_numpy())
    note = [t.get_text() for t in ax.texts if t.get_text().startswith("Not on the curve")]
    assert note and "b: pass^2" in note[0] and "over 2 of 3 cases" in note[0]


def test_plots_draw_on_a_given_axes(frame):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    assert frame.scorekit.plot_rates(ax=axes[0]) is axes[0]
    assert frame.scorekit.plot_variance(run="run", ax=axes[1]) is axes[1]
    assert frame.scorekit.plot_pass_k([1, 2], ax=axes[2]) is axes[2]
    assert len(plt.get_fignums()) == 1


# --------------------------------------------------------------------------- pure delegation
def test_accessor_is_pure_delegation_to_counts_and_stats():
    # The front door holds no maths and reads no private fields: every number comes from _counts/_stats.
    import ast
    import inspect

    import scorekit.accessor as accessor_module
    from scorekit import _counts

    tree = ast.parse(inspect.getsource(accessor_module))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names}
    assert "numpy" not in imported
    private = sorted({f"{node.value.id}.{node.attr}" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id in ("_counts", "_stats", "cc") and node.attr.startswith("_")
                      and node.attr != "_check_confidence"})
    assert private == []
    assert not any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                   and node.value.attr == "counts" for node in ast.walk(tree))  # no cc.counts[:, PASS]
    frame = pd.DataFrame({"dimension": ["pii", "pii", "tool_call"], "case_id": ["a", "a", "b"],
                          "status": ["PASS", "ERROR", "FAIL"]})
    pd.testing.assert_frame_equal(frame.scorekit.counts(), _counts.case_table(frame))


# ---------------------------------------------------------------------------- history trend (SPEC §19)
def _history_card(version: str, rate: float) -> sk.Scorecard:
    rows = [{"id": f"{dim}-{i}", "dimension": dim, "case_id": f"c{i}", "evaluator": "h",
             "status": "PASS" if i < (rate if dim == "task_completion" else 1.0) * 20 else "FAIL"}
            for dim in ("task_completion", "tool.call.rate") for i in range(20)]
    return sk.evaluate(rows, policy={"purpose": "exploratory"}, agent_name="agent", agent_version=version)


@pytest.fixture(scope="module")
def history_db(tmp_path_factory):
    from scorekit.history import record

    path = tmp_path_factory.mktemp("trend") / "history.sqlite"
    for version, rate in (("1.0", 0.9), ("1.1", 0.8), ("1.2", 0.7)):
        record(_history_card(version, rate), path, label=f"v{version}")
    return path


def _lines(ax) -> dict[str, list[float]]:
    """Each drawn line's legend label and its y values, from the errorbar containers of the Axes."""
    return {c.get_label(): [float(y) for y in c.lines[0].get_ydata()] for c in ax.containers}


def test_read_history_frame_plots_its_trend_through_the_accessor(history_db):
    from scorekit.history import read_history

    ax = read_history(history_db).scorekit.plot_trend()
    lines = _lines(ax)
    assert set(lines) == {"task_completion", "tool.call.rate"}  # a name with dots reads back whole
    # 18, 16 and 14 of 20 pass; the other dimension always passes (each line is shifted sideways, not up)
    assert [round(y, 12) for y in lines["task_completion"]] == [0.9, 0.8, 0.7]
    assert lines["tool.call.rate"] == [1.0, 1.0, 1.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["v1.0", "v1.1", "v1.2"]


def test_a_subset_of_the_history_rows_plots_only_those_records(history_db):
    from scorekit.history import read_history

    frame = read_history(history_db)
    ax = frame[frame["label"] != "v1.1"].scorekit.plot_trend()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["v1.0", "v1.2"]
    assert [round(y, 12) for y in _lines(ax)["task_completion"]] == [0.9, 0.7]


def test_plot_trend_on_a_frame_of_scored_rows_says_what_it_needs(frame):
    with pytest.raises(ValueError, match=r"read_history\(db\)'s frame"):
        frame.scorekit.plot_trend()
