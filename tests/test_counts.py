"""Counts per (group, case): the sufficient statistics (scorekit/_counts.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

import scorekit as sk
from scorekit._counts import case_counts_from, case_table, count_cases, flat_case_counts, histogram_case_counts


def _evidence() -> pd.DataFrame:
    rows = []
    for case, statuses in {"a": ["PASS", "PASS", "FAIL"], "b": ["ERROR", "PASS"], "c": ["ABSTAIN"]}.items():
        for trial, status in enumerate(statuses):
            rows.append({"id": f"{case}{trial}", "dimension": "d", "case_id": case, "trial": trial,
                         "status": status, "control": False, "included": True})
    rows.append({"id": "ctl", "dimension": "d", "case_id": "z", "trial": 0, "status": "PASS", "control": True,
                 "included": True})
    return pd.DataFrame(rows)


def test_cases_are_counted_per_status_and_n_is_pass_plus_fail():
    table = case_table(_evidence())
    assert list(table.index) == [("d", "a"), ("d", "b"), ("d", "c")]  # the control row leaves
    assert table.loc[("d", "a")].to_dict() == {"passes": 2, "fails": 1, "errors": 0, "abstains": 0, "n": 3}
    assert table.loc[("d", "b"), "n"] == 1 and table.loc[("d", "c"), "n"] == 0


def test_flat_case_counts_are_the_same_counts_as_the_case_table():
    table = case_table(_evidence()).reset_index()
    counts = table[["passes", "fails", "errors", "abstains"]].to_numpy()
    flat = flat_case_counts(table["dimension"], table["case_id"], counts)
    assert list(flat.columns) == ["dimension", "case_id", "passes", "n"]
    assert flat["dimension"].tolist() == table["dimension"].tolist()
    assert flat["case_id"].tolist() == table["case_id"].tolist()
    assert flat["passes"].tolist() == table["passes"].tolist() and flat["n"].tolist() == table["n"].tolist()


def test_group_totals_are_the_sums_of_their_cases():
    counts = count_cases(_evidence())
    assert int((counts.passes * counts.weights).sum()) == 3 and int((counts.n * counts.weights).sum()) == 4
    assert counts.groups.counts.tolist() == [[3, 1, 1, 1]]


def _many_cases(seed: int, cases: int = 400) -> pd.DataFrame:
    """Cases of three dimensions with 1 to 6 trials of random statuses: many cases share counts."""
    rng = np.random.default_rng(seed)
    rows = []
    for dim in ("x", "y", "z"):
        for case in range(cases):
            p = rng.uniform()
            for trial in range(int(rng.integers(1, 7))):
                u = rng.uniform()
                status = "ERROR" if u < 0.05 else "ABSTAIN" if u < 0.08 else "PASS" if u < 0.08 + 0.92 * p else "FAIL"
                rows.append({"id": f"{dim}{case}-{trial}", "dimension": dim, "case_id": f"c{case:04d}",
                             "trial": trial, "status": status})
    return pd.DataFrame(rows)


def test_cases_of_equal_counts_are_one_entry_weighted_by_how_many():
    frame = _many_cases(1)
    table = case_table(frame).reset_index()
    counted = count_cases(frame)
    assert len(counted.counts) < len(table) / 3  # compact: far fewer entries than cases
    assert int(counted.weights.sum()) == len(table) and (counted.weights >= 1).all()
    # Each entry is a distinct (dimension, counts), sorted, weighted by the cases that have it.
    expected = table.groupby(["dimension", "passes", "fails", "errors", "abstains"]).size()
    got = pd.Series(counted.weights, index=pd.MultiIndex.from_arrays(
        [counted.groups.index[counted.case_group], *counted.counts.T],
        names=["dimension", "passes", "fails", "errors", "abstains"]))
    pd.testing.assert_series_equal(got, expected, check_names=False)
    # The flaky cases are named, as the per-case table has them.
    flaky = table[(table["n"] >= 2) & (table["passes"] > 0) & (table["passes"] < table["n"])]
    assert [list(ids) for ids in counted.flaky] == [flaky.loc[flaky["dimension"] == d, "case_id"].tolist()
                                                     for d in ("x", "y", "z")]


def test_compact_statistics_equal_the_statistics_of_every_case():
    """The statistics of the compact counts are those of the per-case counts, bit for bit."""
    from scorekit import _stats

    frame = _many_cases(2)
    table = case_table(frame).reset_index()
    counted = count_cases(frame)
    group = pd.factorize(table["dimension"])[0]
    low, high, deff = _stats.cluster_interval_grouped(table["passes"], table["n"], group)
    summary = counted.summary()
    # Bit for bit: the sums run over the fold of the cases whichever form they come in.
    np.testing.assert_array_equal(summary["deff"], deff)
    np.testing.assert_array_equal(summary["ci_cluster_low"], low)
    np.testing.assert_array_equal(summary["ci_cluster_high"], high)
    for d, name in enumerate(("x", "y", "z")):
        one = table[table["dimension"] == name]
        assert sk.cluster_interval(one["passes"], one["n"]) == (low[d], high[d], deff[d])
    assert summary["cases"].tolist() == table[table["n"] > 0].groupby("dimension").size().tolist()
    for k in (1, 2, 3):
        value, lo, hi, cases = _stats.pass_k_interval(table["passes"], table["n"], k, group)
        w_value, w_lo, w_hi, w_cases = _stats.pass_k_interval(counted.passes, counted.n, k, counted.case_group,
                                                              weights=counted.weights)
        assert w_cases.tolist() == cases.tolist()
        np.testing.assert_array_equal([w_value, w_lo, w_hi], [value, lo, hi])
        np.testing.assert_array_equal(counted.per_k([k])[k], value)
    assert counted.per_k_cases([1, 2, 3]).to_numpy().tolist() == [
        [int((table.loc[table["dimension"] == d, "n"] >= k).sum()) for k in (1, 2, 3)] for d in ("x", "y", "z")]
    assert counted.curve_k().tolist() == table[table["n"] > 0].groupby("dimension")["n"].min().tolist()
    assert counted.most_trials().tolist() == table.groupby("dimension")["n"].max().tolist()


def test_case_counts_from_summed_counts_are_the_counted_cases():
    frame = _many_cases(3, cases=50)
    counted = count_cases(frame)
    table = case_table(frame).reset_index()
    counts = table[["passes", "fails", "errors", "abstains"]].to_numpy()
    rebuilt = case_counts_from(table["dimension"].tolist(), table["case_id"].tolist(), counts)
    assert rebuilt.groups.index.tolist() == counted.groups.index.tolist()
    assert rebuilt.case_group.tolist() == counted.case_group.tolist()
    assert rebuilt.weights.tolist() == counted.weights.tolist() and rebuilt.flaky == counted.flaky
    assert (rebuilt.counts == counted.counts).all() and (rebuilt.groups.counts == counted.groups.counts).all()
    # A histogram counted elsewhere (an engine in SQL) is the same object.
    dims = counted.groups.index[counted.case_group]
    flaky = {str(d): ids for d, ids in zip(counted.groups.index, counted.flaky, strict=True)}
    again = histogram_case_counts(list(dims), counted.counts, counted.weights, flaky)
    assert again.weights.tolist() == counted.weights.tolist() and again.flaky == counted.flaky
    pd.testing.assert_frame_equal(again.summary(), counted.summary())
    empty = case_counts_from([], [], np.zeros((0, 4), dtype=np.int64))
    assert len(empty.groups.index) == 0 and empty.counts.shape == (0, 4) and empty.flaky == ()
