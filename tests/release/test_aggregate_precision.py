"""The aggregate ``round(100 · Σ wᵢvᵢ / Σ wᵢ, 2)`` at the edges of floating point.

A card written by the source project must recompute here to the same two
decimals (or the gate would call it invalid), so for ordinary weights the
result is bit-for-bit the plain left-to-right formula; and extreme weights
must not underflow or overflow into a wrong score.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from release_cards import card_payload

from scorekit.release import Metric, compute_aggregate, validate_scorecard


def _source_project_formula(pairs: list[tuple[float, float]]) -> float:
    """The seed's reference implementation: a left-to-right loop, then one division."""
    total_weight = weighted_sum = 0.0
    for value, weight in pairs:
        total_weight += weight
        weighted_sum += weight * value
    return round(100.0 * weighted_sum / total_weight, 2)


ordinary_weights = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False)
values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(st.lists(st.tuples(values, ordinary_weights), min_size=1, max_size=8))
def test_aggregate_is_bit_for_bit_the_source_project_formula_for_ordinary_weights(pairs):
    metrics = [Metric(f"m{i}", v, w) for i, (v, w) in enumerate(pairs)]
    assert compute_aggregate(metrics) == _source_project_formula(pairs)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        ((5e-324,), 50.0),  # the plain formula underflows to 0.0
        ((1e-310, 1e-310), 60.0),
        ((1e308, 1e308), 60.0),  # the plain formula overflows: inf / inf
    ],
)
def test_aggregate_of_extreme_weights_is_still_the_weighted_mean(weights, expected):
    values = (0.5, 0.7)[: len(weights)]  # one metric per weight given
    metrics = [Metric(f"m{i}", v, w) for i, (v, w) in enumerate(zip(values, weights, strict=True))]
    assert compute_aggregate(metrics) == expected


def test_card_with_extreme_weights_recomputes_and_validates():
    payload = card_payload(secondaries={}, value=0.5)
    payload = payload.replace(metrics=[Metric("within_one_bucket_accuracy", 0.5, 5e-324)])
    front = payload.to_front_matter()
    assert front["aggregate"]["value"] == 50.0
    assert validate_scorecard(front) == []
