"""Judge agreement (SPEC §18): Krippendorff's alpha, nominal, over PASS/FAIL votes.

The reference is the ``krippendorff`` package (dev extra), computed from the
vote matrix itself; scorekit computes alpha from unit counts per (valid votes,
PASS votes) that partitions add up."""

from __future__ import annotations

import numpy as np
import pytest

import scorekit as sk
from scorekit._agreement import agreement, judge_agreement, krippendorff_alpha
from scorekit.scorers.judges import cast_votes


def _package():
    """The ``krippendorff`` package (dev extra): the independent reference."""
    return pytest.importorskip("krippendorff")

JUDGES = ("judge-a", "judge-b", "judge-c", "judge-d", "judge-e")


def _matrix(seed: int) -> np.ndarray:
    """A coders x units matrix of 1 (PASS), 0 (FAIL) and NaN (no valid vote), correlated
    across coders (each unit has a true value some coders flip), with missing votes."""
    rng = np.random.default_rng(seed)
    coders, units = int(rng.integers(2, 6)), int(rng.integers(3, 80))
    truth = rng.random(units) < rng.uniform(0.2, 0.9)
    flips = rng.random((coders, units)) < rng.uniform(0.0, 0.45)
    data = np.where(flips, ~truth, truth).astype(float)
    data[rng.random((coders, units)) < rng.uniform(0.0, 0.4)] = np.nan
    return data


def _histogram(data: np.ndarray) -> dict[tuple[int, int], int]:
    histogram: dict[tuple[int, int], int] = {}
    for unit in data.T:
        values = unit[~np.isnan(unit)]
        if len(values) >= 2:
            key = (len(values), int(values.sum()))
            histogram[key] = histogram.get(key, 0) + 1
    return histogram


def _reference(data: np.ndarray) -> float | None:
    package = _package()  # skips without it, whichever way the data goes
    pairable = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    if len(np.unique(pairable[~np.isnan(pairable)])) < 2:
        return None  # one value in the domain: alpha undefined (the package refuses it)
    return float(package.alpha(reliability_data=data, level_of_measurement="nominal"))


@pytest.mark.parametrize("seed", range(40))
def test_alpha_from_unit_counts_is_the_krippendorff_package(seed: int) -> None:
    data = _matrix(seed)
    want = _reference(data)
    got = krippendorff_alpha(_histogram(data))
    if want is None:
        assert got is None
    else:
        assert got == pytest.approx(want, abs=1e-12, rel=0)


def test_alpha_reference_values() -> None:
    # Perfect agreement, systematic disagreement, and Krippendorff (2011)'s rule that alpha
    # is undefined without variation.
    assert krippendorff_alpha({(2, 2): 3, (2, 0): 2}) == 1.0
    assert krippendorff_alpha({(2, 1): 4}) == pytest.approx(
        _package().alpha(reliability_data=np.array([[1, 0, 1, 0], [0, 1, 0, 1]]),
                           level_of_measurement="nominal"), abs=1e-12)
    assert krippendorff_alpha({(3, 3): 5}) is None
    assert krippendorff_alpha({(1, 1): 7, (1, 0): 2}) is None  # nothing pairable
    assert agreement({(1, 0): 3}) is None


def _rows(data: np.ndarray, dimension: str = "tone") -> list[dict]:
    """One judged row per unit: each coder's value as a vote, NaN as an invalid one (a score of 99),
    every other missing vote simply absent."""
    rows = []
    for u, unit in enumerate(data.T):
        votes = []
        for c, value in enumerate(unit):
            if np.isnan(value):
                if (u + c) % 2:
                    votes.append({"judge": JUDGES[c], "score": 99})
                continue
            votes.append({"judge": JUDGES[c], "verdict": "PASS" if value else "FAIL"})
        rows.append({"id": f"{dimension}-{u}", "dimension": dimension, "case_id": f"c{u}", "judge_criteria": "polite",
                     "judge_votes": votes})
    return rows


@pytest.mark.parametrize("seed", [3, 11, 17, 29])
def test_a_dimension_reports_the_packages_alpha_and_counts_its_units(seed: int) -> None:
    data = _matrix(seed)
    card = sk.evaluate(_rows(data) + [{"id": "p1", "dimension": "pii", "agent_output": "hello"}],
                       policy={"purpose": "exploratory"})
    got = card.dimensions.at["tone", "judge_agreement"]
    valid = (~np.isnan(data)).sum(axis=0)
    pairable = data[:, valid >= 2]
    share = np.mean([len(set(unit[~np.isnan(unit)])) == 1 for unit in pairable.T])
    want_alpha = _reference(data)
    assert got["units"] == int((valid >= 2).sum())
    assert got["unanimous_share"] == pytest.approx(share, abs=1e-15)
    if want_alpha is None:
        assert got["krippendorff_alpha"] is None
    else:
        assert got["krippendorff_alpha"] == pytest.approx(want_alpha, abs=1e-12, rel=0)
    assert card.dimensions.at["pii", "judge_agreement"] is None  # no votes: null


def test_single_judge_rows_have_no_agreement() -> None:
    rows = [{"id": f"r{i}", "dimension": "tone", "judge_criteria": "x",
             "judge_votes": [{"judge": "a", "verdict": "PASS" if i % 2 else "FAIL"}]} for i in range(6)]
    assert sk.evaluate(rows).dimensions.at["tone", "judge_agreement"] is None


def test_which_votes_are_values() -> None:
    a, b, c = ({"judge": j, "verdict": "PASS"} for j in "abc")
    fail_c = {"judge": "c", "verdict": "FAIL"}
    assert cast_votes([a, b, fail_c], (), 4) == (3, 2)
    # Scores are reduced at the policy's pass_score.
    assert cast_votes([{"judge": "a", "score": 4}, {"judge": "b", "score": 3}], (), 4) == (2, 1)
    assert cast_votes([{"judge": "a", "score": 4}, {"judge": "b", "score": 3}], (), 3) == (2, 2)
    # Invalid values, anonymous votes and a judge voting twice give no value.
    assert cast_votes([a, b, {"judge": "c", "score": "5"}], (), 4) == (2, 2)
    assert cast_votes([a, b, {"verdict": "FAIL"}], (), 4) == (2, 2)
    assert cast_votes([a, b, fail_c, {"judge": "c", "verdict": "PASS"}], (), 4) == (2, 2)
    # A declared panel: only its members' votes; a member without a vote gives none.
    assert cast_votes([a, b, fail_c], ("a", "c", "z"), 4) == (2, 1)
    # A mock judge's vote counts as cast (SPEC §18); not a list: no unit.
    assert cast_votes([a, {"judge": "mockllm/x", "verdict": "FAIL"}], (), 4) == (2, 1)
    assert cast_votes("votes", (), 4) == (0, 0)


def test_controls_and_unlabeled_rows_are_no_units() -> None:
    votes = [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "verdict": "FAIL"}]
    agreeing = [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "verdict": "PASS"}]
    rows = [{"id": "r1", "dimension": "tone", "judge_criteria": "x", "judge_votes": agreeing},
            {"id": "r2", "dimension": "tone", "judge_criteria": "x", "judge_votes": votes, "tags": ["known-bad"]},
            {"id": "r3", "dimension": "tone", "judge_votes": votes}]
    got = sk.evaluate(rows, policy={"purpose": "exploratory"}).dimensions.at["tone", "judge_agreement"]
    assert got == {"krippendorff_alpha": None, "unanimous_share": 1.0, "units": 1}


def test_the_column_follows_the_dimension_names() -> None:
    histograms = {"tone": {(2, 2): 1, (2, 1): 1}}
    column = judge_agreement(histograms, ["cost", "tone", "pii"])
    assert column[0] is None and column[2] is None
    assert column[1]["units"] == 2 and column[1]["unanimous_share"] == 0.5


def test_engines_report_the_same_agreement(tmp_path, monkeypatch) -> None:
    """The local worker processes (any partitioning) and one process give the same column."""
    import json

    from scorekit.engines import local

    rows = []
    for seed in (5, 8):
        rows += _rows(_matrix(seed), dimension=f"tone{seed}")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    want = sk.evaluate(path).dimensions["judge_agreement"].tolist()
    assert all(w is not None for w in want)
    monkeypatch.setattr(local, "wants_workers", lambda n: True)
    real = local.score_file
    monkeypatch.setattr(local, "score_file", lambda *a, **k: real(*a, **{**k, "n_workers": 3}))
    assert sk.evaluate(path).dimensions["judge_agreement"].tolist() == want
