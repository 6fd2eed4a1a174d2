"""Ordinal triage metrics: within-one-bucket acceptance and its weight-0 secondaries (seed, #1437)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.release import (
    DEFAULT_SCALE,
    Metric,
    breakdown,
    category_accuracy,
    compute_aggregate,
    needs_attention_accuracy,
    ordinal_metrics,
    per_category_breakdown,
    top_confusions,
    urgent_recall,
    within_one_bucket_accuracy,
)

LABELS = ["URGENT", "NEEDS_RESPONSE", "FYI", "PROMOTIONAL", "PERSONAL"]
RANK = {"URGENT": 3, "NEEDS_RESPONSE": 2, "FYI": 1, "PROMOTIONAL": 0}


def reference_within_one(expected, predicted):
    """Scalar reference of the seed's rule."""
    hits = 0
    for e, p in zip(expected, predicted, strict=True):
        e, p = e.upper(), p.upper()
        hits += e == p or (e in RANK and p in RANK and abs(RANK[e] - RANK[p]) <= 1)
    return hits / len(expected)


def test_default_scale_is_urgent_first():
    assert DEFAULT_SCALE == ("URGENT", "NEEDS_RESPONSE", "FYI", "PROMOTIONAL")


@pytest.mark.parametrize(
    ("expected", "predicted", "credited"),
    [
        ("URGENT", "URGENT", True),
        ("URGENT", "NEEDS_RESPONSE", True),
        ("NEEDS_RESPONSE", "FYI", True),
        ("FYI", "NEEDS_RESPONSE", True),
        ("PROMOTIONAL", "FYI", True),
        ("URGENT", "FYI", False),  # two buckets: urgent mail buried
        ("URGENT", "PROMOTIONAL", False),
        ("FYI", "URGENT", False),
        ("PERSONAL", "PERSONAL", True),  # off the scale: exact only
        ("PERSONAL", "FYI", False),
        ("FYI", "PERSONAL", False),
    ],
)
def test_prediction_is_credited_when_exact_or_one_bucket_away(expected, predicted, credited):
    assert within_one_bucket_accuracy([expected], [predicted]) == float(credited)


def test_labels_compare_case_insensitively():
    # The seed's breakdown writes categories in lower case, its scale in upper case.
    assert within_one_bucket_accuracy(["fyi", " Urgent "], ["NEEDS_RESPONSE", "needs_response"]) == 1.0
    assert category_accuracy(["fyi", "URGENT"], ["FYI", "urgent"]) == 1.0


def test_custom_scale_changes_adjacency():
    scale = ("HIGH", "MEDIUM", "LOW")
    assert within_one_bucket_accuracy(["HIGH", "HIGH"], ["MEDIUM", "LOW"], scale=scale) == 0.5
    # PERSONAL placed on the scale gains adjacency ("re-place it on the scale if the corpus gains examples")
    personal = ("URGENT", "NEEDS_RESPONSE", "PERSONAL", "FYI", "PROMOTIONAL")
    assert within_one_bucket_accuracy(["PERSONAL"], ["FYI"], scale=personal) == 1.0


def test_missing_prediction_is_never_credited():
    assert within_one_bucket_accuracy(["FYI", "FYI"], ["FYI", None]) == 0.5
    assert category_accuracy(pd.Series(["FYI", "FYI"]), pd.Series(["FYI", np.nan])) == 0.5


def test_missing_expected_label_is_an_error():
    with pytest.raises(ValueError, match="expected has a missing label at position 1"):
        within_one_bucket_accuracy(["FYI", None], ["FYI", "FYI"])


def test_lengths_and_indexes_must_match():
    with pytest.raises(ValueError, match="same length"):
        category_accuracy(["FYI"], ["FYI", "URGENT"])
    with pytest.raises(ValueError, match="different indexes"):
        category_accuracy(pd.Series(["FYI"], index=[1]), pd.Series(["FYI"], index=[2]))
    with pytest.raises(TypeError, match="sequence of labels"):
        category_accuracy("FYI", "FYI")


@pytest.mark.parametrize("scale", [(), ("A", "a"), "URGENT"])
def test_bad_scale_is_refused(scale):
    with pytest.raises(ValueError, match="scale"):
        within_one_bucket_accuracy(["A"], ["A"], scale=scale)


def test_no_cases_gives_nan():
    assert math.isnan(within_one_bucket_accuracy([], []))
    assert math.isnan(category_accuracy([], []))


label_pairs = st.lists(st.tuples(st.sampled_from(LABELS + ["fyi", "urgent"]), st.sampled_from(LABELS)),
                       min_size=1, max_size=60)


@given(label_pairs)
def test_vectorised_metric_matches_the_scalar_rule(pairs):
    expected, predicted = map(list, zip(*pairs, strict=True))
    assert within_one_bucket_accuracy(expected, predicted) == pytest.approx(reference_within_one(expected, predicted))
    assert within_one_bucket_accuracy(np.array(expected), pd.Series(predicted)) == within_one_bucket_accuracy(
        expected, predicted)


@given(label_pairs)
def test_within_one_is_at_least_exact_and_symmetric_under_scale_reversal(pairs):
    expected, predicted = map(list, zip(*pairs, strict=True))
    within = within_one_bucket_accuracy(expected, predicted)
    assert within >= category_accuracy(expected, predicted)
    assert within == within_one_bucket_accuracy(expected, predicted, scale=tuple(reversed(DEFAULT_SCALE)))
    assert within == within_one_bucket_accuracy(predicted, expected)


# --------------------------------------------------------------------------- needs-attention axis
def test_needs_attention_accuracy_is_binary_on_urgent_or_needs_response():
    expected = ["URGENT", "NEEDS_RESPONSE", "FYI", "PROMOTIONAL"]
    predicted = ["NEEDS_RESPONSE", "FYI", "PROMOTIONAL", "URGENT"]
    # hits: URGENT→NR (both attention), FYI→PROMO (both not); misses: NR→FYI, PROMO→URGENT
    assert needs_attention_accuracy(expected, predicted) == 0.5


def test_urgent_recall_is_recall_on_the_attention_axis():
    expected = ["URGENT", "NEEDS_RESPONSE", "URGENT", "FYI"]
    predicted = ["NEEDS_RESPONSE", "FYI", "URGENT", "URGENT"]
    assert urgent_recall(expected, predicted) == pytest.approx(2 / 3)


def test_attention_labels_are_configurable():
    expected, predicted = ["URGENT", "NEEDS_RESPONSE"], ["URGENT", "FYI"]
    assert urgent_recall(expected, predicted, attention=("URGENT",)) == 1.0
    assert needs_attention_accuracy(expected, predicted, attention=("URGENT",)) == 1.0
    assert urgent_recall(expected, predicted) == 0.5


def test_urgent_recall_without_positives_is_nan():
    assert math.isnan(urgent_recall(["FYI", "PROMOTIONAL"], ["URGENT", "FYI"]))


# --------------------------------------------------------------------------- breakdown
def test_per_category_breakdown_matches_the_seed_example_figures():
    expected = ["fyi"] * 88 + ["needs_response"] * 44
    predicted = ["fyi"] * 54 + ["needs_response"] * 28 + ["urgent"] * 6 + ["needs_response"] * 17 + ["fyi"] * 27
    assert per_category_breakdown(expected, predicted) == [
        {"category": "fyi", "total": 88, "correct": 54, "accuracy": 0.6136},
        {"category": "needs_response", "total": 44, "correct": 17, "accuracy": 0.3864},
    ]
    assert top_confusions(expected, predicted, n=1) == [{"expected": "fyi", "predicted": "needs_response", "count": 28}]


def test_per_category_breakdown_is_sorted_by_category_and_normalised():
    rows = per_category_breakdown(["URGENT", "fyi", "FYI", "PERSONAL"], ["urgent", "FYI", "URGENT", None])
    assert [r["category"] for r in rows] == ["fyi", "personal", "urgent"]
    assert rows[0] == {"category": "fyi", "total": 2, "correct": 1, "accuracy": 0.5}
    frame = per_category_breakdown(["URGENT"], ["URGENT"], as_frame=True)
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == ["category", "total", "correct", "accuracy"]


def test_top_confusions_break_ties_by_expected_then_predicted():
    expected = ["URGENT", "FYI", "FYI", "FYI", "PROMOTIONAL", "NEEDS_RESPONSE", "NEEDS_RESPONSE"]
    predicted = ["FYI", "URGENT", "PROMOTIONAL", "URGENT", "URGENT", "FYI", "FYI"]
    assert top_confusions(expected, predicted, n=None) == [
        {"expected": "fyi", "predicted": "urgent", "count": 2},
        {"expected": "needs_response", "predicted": "fyi", "count": 2},
        {"expected": "fyi", "predicted": "promotional", "count": 1},
        {"expected": "promotional", "predicted": "urgent", "count": 1},
        {"expected": "urgent", "predicted": "fyi", "count": 1},
    ]
    assert len(top_confusions(expected, predicted, n=2)) == 2
    assert top_confusions(["FYI"], ["FYI"]) == []
    assert top_confusions(["FYI"], [None]) == [{"expected": "fyi", "predicted": "(missing)", "count": 1}]


@pytest.mark.parametrize("n", [-1, 1.5, True, "3"])
def test_top_confusions_n_must_be_a_count(n):
    with pytest.raises(ValueError, match="n must be"):
        top_confusions(["FYI"], ["URGENT"], n=n)


@given(label_pairs, st.randoms(use_true_random=False))
def test_breakdown_does_not_depend_on_row_order(pairs, rng):
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    first, second = (breakdown(*map(list, zip(*p, strict=True)), n=None) for p in (pairs, shuffled))
    assert first == second
    assert sum(r["total"] for r in first["per_category"]) == len(pairs)
    counts = [c["count"] for c in first["top_confusions"]]
    assert counts == sorted(counts, reverse=True)


# --------------------------------------------------------------------------- the metric set
def test_ordinal_metrics_gate_within_one_and_report_three_secondaries():
    expected = ["URGENT", "NEEDS_RESPONSE", "FYI", "PROMOTIONAL", "URGENT", "FYI"]
    predicted = ["NEEDS_RESPONSE", "FYI", "FYI", "URGENT", "FYI", "PROMOTIONAL"]
    metrics = ordinal_metrics(expected, predicted)
    assert [(m.name, m.weight) for m in metrics] == [
        ("within_one_bucket_accuracy", 1.0), ("urgent_vs_not_accuracy", 0.0), ("urgent_recall", 0.0),
        ("category_accuracy", 0.0)]
    assert all(isinstance(m, Metric) for m in metrics)
    values = {m.name: m.value for m in metrics}
    assert values == {
        "within_one_bucket_accuracy": round(4 / 6, 4),
        "urgent_vs_not_accuracy": round(3 / 6, 4),
        "urgent_recall": round(1 / 3, 4),
        "category_accuracy": round(1 / 6, 4),
    }
    # the aggregate stays round(100 × within_one_bucket_accuracy, 2)
    assert compute_aggregate(metrics) == round(100 * values["within_one_bucket_accuracy"], 2) == 66.67


def test_ordinal_metrics_refuse_an_undefined_recall():
    with pytest.raises(ValueError, match="urgent_recall is undefined"):
        ordinal_metrics(["FYI"], ["FYI"])
    with pytest.raises(ValueError, match="empty"):
        ordinal_metrics([], [])


def test_ordinal_metrics_can_skip_rounding():
    metrics = ordinal_metrics(["URGENT"] * 3, ["URGENT", "FYI", "FYI"], digits=None)
    assert metrics[0].value == 1 / 3
