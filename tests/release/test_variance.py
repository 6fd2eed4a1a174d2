"""acceptance_variance: mean / sample stdev / CV% / t-based 95% CI from N runs (seed #1894)."""

from __future__ import annotations

import math
import statistics

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from release_cards import card_payload
from scipy import stats

from scorekit.release import (
    Metric,
    acceptance_variance,
    ordinal_metrics,
    parse_scorecard_text,
    render_scorecard,
    validate_scorecard,
    variance_stdev,
)

RUNS = [0.8467, 0.8512, 0.8391, 0.8440]


def _reference(values, confidence=0.95):
    n = len(values)
    mean = statistics.fmean(values)
    stdev = statistics.stdev(values)
    se = stdev / math.sqrt(n)
    half = stats.t.ppf(1 - (1 - confidence) / 2, n - 1) * se
    return mean, stdev, half, stats.norm.ppf(1 - (1 - confidence) / 2) * se


def test_block_matches_scipy_t_reference_values():
    block = acceptance_variance([{"within_one_bucket_accuracy": v} for v in RUNS])
    mean, stdev, half, z_half = _reference(RUNS)
    entry = block["within_one_bucket_accuracy"]
    assert block["n_runs"] == 4
    assert entry["n"] == 4
    assert entry["mean"] == pytest.approx(mean, abs=1e-15)
    assert entry["stdev"] == pytest.approx(stdev, rel=1e-12)
    assert entry["min"] == min(RUNS) and entry["max"] == max(RUNS)
    assert entry["cv_pct"] == pytest.approx(100 * stdev / mean, rel=1e-12)
    assert entry["ci95_half_width"] == pytest.approx(half, rel=1e-10)
    assert entry["ci95_low"] == pytest.approx(mean - half, rel=1e-10)
    assert entry["ci95_high"] == pytest.approx(mean + half, rel=1e-10)
    assert entry["z_half_width"] == pytest.approx(z_half, rel=1e-10)
    assert entry["ci95_half_width"] > entry["z_half_width"]  # t is wider than z for small n


def test_three_runs_known_values():
    # mean 0.84, sample stdev 0.01, t(0.975, 2) = 4.302652729911275
    entry = acceptance_variance([{"acc": v} for v in (0.84, 0.85, 0.83)])["acc"]
    assert entry["stdev"] == pytest.approx(0.01, rel=1e-12)
    assert entry["ci95_half_width"] == pytest.approx(4.302652729911275 * 0.01 / math.sqrt(3), rel=1e-12)


def test_other_confidence_levels_name_their_keys():
    entry = acceptance_variance([{"acc": v} for v in RUNS], confidence=0.90)["acc"]
    _, _, half, z_half = _reference(RUNS, 0.90)
    assert entry["ci90_half_width"] == pytest.approx(half, rel=1e-10)
    assert entry["z_half_width"] == pytest.approx(z_half, rel=1e-10)
    assert "ci95_low" not in entry


def test_single_run_leaves_spread_undefined_as_none():
    block = acceptance_variance([{"within_one_bucket_accuracy": 0.8467}])
    entry = block["within_one_bucket_accuracy"]
    assert block["n_runs"] == 1 and entry["mean"] == 0.8467 and entry["min"] == entry["max"] == 0.8467
    for key in ("stdev", "cv_pct", "ci95_half_width", "ci95_low", "ci95_high", "z_half_width"):
        assert entry[key] is None, key
    text = render_scorecard(card_payload(config_extra={"acceptance_variance": block}))
    assert ".nan" not in text.lower()
    doc = parse_scorecard_text(text)
    assert validate_scorecard(doc) == []
    assert variance_stdev(doc) is None


def test_zero_mean_leaves_cv_undefined():
    entry = acceptance_variance([{"acc": 0.0}, {"acc": 0.0}])["acc"]
    assert entry["stdev"] == 0.0 and entry["cv_pct"] is None


def test_runs_as_a_dataframe_summarise_every_column():
    frame = pd.DataFrame({"within_one_bucket_accuracy": RUNS, "urgent_recall": [0.65, 0.66, 0.64, 0.67]})
    block = acceptance_variance(frame)
    assert list(block) == ["n_runs", "within_one_bucket_accuracy", "urgent_recall"]
    assert block["urgent_recall"]["mean"] == pytest.approx(0.655)
    assert list(acceptance_variance(frame, metric="urgent_recall")) == ["n_runs", "urgent_recall"]


def test_runs_as_metric_lists_default_to_the_weighted_metric():
    runs = [
        ordinal_metrics(["URGENT", "FYI", "FYI"], ["URGENT", "FYI", "URGENT"]),
        ordinal_metrics(["URGENT", "FYI", "FYI"], ["URGENT", "PROMOTIONAL", "FYI"]),
        [Metric("within_one_bucket_accuracy", 0.9), Metric("urgent_recall", 1.0, 0.0)],
    ]
    block = acceptance_variance(runs)
    assert list(block) == ["n_runs", "within_one_bucket_accuracy"]
    assert block["within_one_bucket_accuracy"]["n"] == 3
    both = acceptance_variance(runs, metric=["within_one_bucket_accuracy", "urgent_recall"])
    assert both["urgent_recall"]["mean"] == pytest.approx(1.0)


def test_block_in_config_gives_the_gate_its_stdev():
    block = acceptance_variance([{"within_one_bucket_accuracy": v} for v in RUNS])
    doc = parse_scorecard_text(render_scorecard(card_payload(config_extra={"acceptance_variance": block})))
    assert validate_scorecard(doc) == []
    assert variance_stdev(doc) == pytest.approx(statistics.stdev(RUNS), rel=1e-12)
    assert "## Run-to-run variance" in doc.body


@pytest.mark.parametrize(
    ("runs", "kwargs", "error", "match"),
    [
        ([], {}, ValueError, "at least one run"),
        ([{"a": 0.5}, {"b": 0.5}], {"metric": "a"}, ValueError, r"runs\[1\] has no value for metric 'a'"),
        ([{"a": 0.5}, {"a": math.nan}], {}, ValueError, r"runs\[1\]\['a'\] must be a finite number"),
        ([{"a": 0.5}, {"a": "0.5"}], {}, ValueError, "must be a finite number"),
        ([{"a": 0.5}], {"confidence": 1.5}, ValueError, "confidence"),
        ([{"n_runs": 0.5}], {}, ValueError, "reserved"),
        ("runs.csv", {}, TypeError, "runs must be"),
        ([0.5, 0.6], {}, TypeError, r"runs\[0\]"),
    ],
)
def test_bad_runs_are_refused(runs, kwargs, error, match):
    with pytest.raises(error, match=match):
        acceptance_variance(runs, **kwargs)


@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=30))
def test_interval_contains_the_mean_and_stdev_is_sample_stdev(values):
    entry = acceptance_variance([{"m": v} for v in values])["m"]
    assert entry["stdev"] == pytest.approx(statistics.stdev(values), rel=1e-9, abs=1e-12)
    assert entry["ci95_low"] <= entry["mean"] <= entry["ci95_high"]
    assert entry["min"] <= entry["mean"] + 1e-12 and entry["mean"] <= entry["max"] + 1e-12
