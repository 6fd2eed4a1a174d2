"""The error rates of scorekit's decisions, measured by simulation (SPEC §18; issue 26).

A smaller run of ``benchmarks/bench_decisions.py`` (which prints the full
2,000-repetition figures): an unchanged agent on 8 dimensions of 50 cases × 3
trials, case rates from Beta(4, 1). Each figure is held to its §18 target plus
three Monte-Carlo standard errors of a binomial proportion at the target and
this test's number of repetitions, so a correct gate passes (seeds fixed) and
the gate before issue 26 — 18% per run with ``paired``, 11% with ``newcombe``,
a baseline that ratchets — fails by far more than the tolerance.

The last test runs a few histories through the real front door
(:func:`scorekit.evaluate` with ``history=``) to show that the default baseline
is the first record, as the counting-level simulation assumes, and that the
gate's comparison equals the counting-level call on the same counts.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from shared import load_benchmark

import scorekit as sk
from scorekit import _regression

bench = load_benchmark("bench_decisions")

DESIGN = bench.Design()  # the §18 design: 8 × 50 × 3, Beta(4, 1), confidence 0.95, max_drop 0
ALPHA = DESIGN.alpha


def _ceiling(target: float, reps: int) -> float:
    """The target plus 3 Monte-Carlo standard errors of a proportion at the target."""
    return target + 3 * math.sqrt(target * (1 - target) / reps)


def test_the_level_is_the_one_sided_alpha_of_the_confidence() -> None:
    assert ALPHA == 0.025
    assert bench.twenty_run_target(ALPHA, 20) == pytest.approx(0.3973, abs=1e-4)
    assert bench.standard_error(0.5, 100) == 0.05


@pytest.mark.parametrize("method", ["paired", "newcombe"])
def test_an_unchanged_agent_fails_a_run_at_most_alpha_plus_one_percent(method: str) -> None:
    reps = 600
    gate = bench.Gate(DESIGN, check=2)
    fails = bench.per_run(DESIGN, reps, seed=2601, configs=[(method, "holm")], gate=gate)
    rate = fails[(method, "holm")] / reps
    assert rate <= _ceiling(ALPHA + 0.01, reps), f"{method}: {rate:.3f} of unchanged runs FAIL"


def test_twenty_runs_against_the_default_baseline_fail_at_most_as_twenty_independent_tests() -> None:
    reps, runs = 60, 20
    gate = bench.Gate(DESIGN, check=1)
    fails = bench.twenty_runs(DESIGN, reps, runs, seed=2602, configs=[("paired", "holm", "earliest")], gate=gate)
    rate = float((fails[("paired", "holm", "earliest")] > 0).mean())
    assert rate <= _ceiling(bench.twenty_run_target(ALPHA, runs), reps), f"{rate:.3f} of histories FAIL"


def test_a_drop_of_the_reported_mde_is_detected_with_power_075() -> None:
    reps = 400
    result = bench.power_at_mde(DESIGN, reps, seed=2603, gate=bench.Gate(DESIGN, check=2))
    # The drop applied is the reported mde, clipped into [0, 1] only where a case rate is below it.
    assert 0.9 * result.mde <= result.drop <= result.mde
    power = result.detected / reps
    assert power >= 0.75 - 3 * math.sqrt(0.75 * 0.25 / reps), f"power {power:.3f} at mde {result.mde:.4f}"


def test_batched_holm_decides_as_one_gate_call_per_run() -> None:
    """The faster path of the simulation (batched p-values, the gate's holm_adjust) equals the gate's own calls."""
    rng = np.random.default_rng(2605)
    rates = DESIGN.case_rates(rng, 24)
    base = DESIGN.run(rng, rates)
    cand = DESIGN.run(rng, np.clip(rates - 0.08, 0, 1))  # a drop, so that some runs regress and some do not
    for method in ("paired", "newcombe"):
        exact = bench.Gate(DESIGN, exact=True).regressed(base, cand, method, "holm")
        batched = bench.Gate(DESIGN, check=0).regressed(base, cand, method, "holm")
        assert 0 < exact.any(axis=1).sum() < len(exact), method
        np.testing.assert_array_equal(batched, exact)


# --------------------------------------------------------------------------- through the real history
def _rows(passes: np.ndarray, trials: int) -> list[dict[str, object]]:
    """Pre-scored rows (SPEC §2) with ``passes[d, c]`` PASS trials of ``trials`` per case."""
    rows: list[dict[str, object]] = []
    for d, per_case in enumerate(passes):
        for c, k in enumerate(per_case):
            for t in range(trials):
                rows.append({"id": f"d{d}-c{c}-t{t}", "dimension": f"dim{d}", "case_id": f"c{c:02d}",
                             "trial": t, "status": "PASS" if t < k else "FAIL", "evaluator": "harness"})
    return rows


def test_the_default_baseline_is_the_first_record_and_the_gate_compares_as_simulated(tmp_path: Path) -> None:
    """A few histories of the unchanged agent through sk.evaluate(history=...): every run meets run 1."""
    histories, runs = 3, 4
    design = bench.Design(dims=3, cases=12)
    policy = {"gate": {"thresholds": {f"dim{d}": 0.05 for d in range(design.dims)}},
              "regression": {"required": True}}
    rng = np.random.default_rng(2604)
    gate = bench.Gate(design)
    for h in range(histories):
        db = tmp_path / f"history-{h}.sqlite"
        rates = design.case_rates(rng, 1)[0]
        # A lucky run 2 (every trial passes) is the baseline a ratchet would move to.
        counts = [design.run(rng, rates), np.full(rates.shape, design.trials, dtype=np.int16)]
        counts += [design.run(rng, rates) for _ in range(runs - 1)]
        first = sk.evaluate(_rows(counts[0], design.trials), policy=policy, history=db, label=f"h{h}-run1")
        assert first.comparison["status"] == "missing" and first.measured_decision == "PASS"
        first_id = None
        for r, passes in enumerate(counts[1:], start=2):
            card = sk.evaluate(_rows(passes, design.trials), policy=policy, history=db, label=f"h{h}-run{r}")
            baseline = card.comparison["baseline"]
            first_id = baseline["id"] if first_id is None else first_id
            assert baseline["label"] == f"h{h}-run1" and baseline["id"] == first_id, (
                f"history {h}, run {r}: baseline {baseline['label']}, not the first record")
            gated = {e["dimension"]: e["regressed"] for e in card.comparison["regressions"]}
            multiplicity = "holm" if bench.supports(_regression.regressions, "multiplicity") else "none"
            simulated = gate.regressed(counts[0][None], passes[None], card.comparison["method"], multiplicity)[0]
            assert gated == {f"dim{d}": bool(simulated[d]) for d in range(design.dims)}
