"""Dimension verdicts and the scorecard decision (SPEC §8), fail-closed.

Dimension verdict, first match wins:

1. FAIL when the threshold (or a pass^k threshold) fails even with every
   missing row (ERROR/ABSTAIN) and missing trial counted as PASS: certain.
2. INCOMPLETE when skipped, n < min_samples, coverage < min_coverage, no
   threshold declared, its evaluator control failed, a pass^k threshold has
   no case with k measured trials, or (SPEC §18, under ``gate.missing_evidence:
   bound``) it would PASS only because rows are missing: with every missing row
   counted as FAIL its measure or a pass^k threshold would not be met
   (``missing_could_flip``).
3. PASS when the measure meets the threshold, else FAIL.

Beside the verdict each dimension carries the numbers SPEC §18 states its
error rate with: ``assurance``, ``cases_to_settle``, ``rate_bounds``,
``pass_k_ci``, ``pass_1`` and an ``mde`` at the level of Holm's first step;
:func:`error_rates` is the scorecard's top-level statement of that level.

Everything is vectorised over dimensions and cases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import _stats
from ._counts import ABSTAIN, ERROR, FAIL, PASS, CaseCounts
from ._policy import Policy
from ._regression import usable_comparisons

__all__ = ["COMPARISON_STATUSES", "DECISIONS", "VERDICTS", "apply_comparison", "decide", "dimension_table",
           "error_rates", "rate_bounds"]

DECISIONS = ("PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST")
VERDICTS = ("PASS", "FAIL", "INCOMPLETE", "NOT_IN_SCOPE")
COMPARISON_STATUSES: tuple[str, ...] = (
    "not_requested", "missing", "incompatible", "unusable", "regressed", "passed",
)
#: The reasons the comparison step adds start with this.
COMPARISON_REASON_PREFIX = "required regression comparison"



def _measure(passes: np.ndarray, n: np.ndarray, basis: str, confidence: float,
             cluster_low: np.ndarray | None = None) -> np.ndarray:
    """The measure a threshold is compared with, per dimension (``gate.threshold_basis``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if basis == "wilson_lower":
            low, _ = _stats.wilson_interval(passes, n, confidence=confidence)
            return np.asarray(low, dtype=float)
        if basis == "cluster_lower":
            assert cluster_low is not None
            return np.asarray(cluster_low, dtype=float)
        return np.where(n > 0, passes / n, np.nan)


def _cluster_low(cases: CaseCounts, names: Sequence[str], confidence: float, optimistic: bool) -> np.ndarray:
    """The case-clustered lower bound per dimension in ``names`` with every missing row
    (ERROR/ABSTAIN) of a case counted as a PASS (``optimistic``) or a FAIL of that case."""
    counts = cases.counts
    c = counts[:, PASS].astype(np.int64)
    missing = counts[:, ERROR] + counts[:, ABSTAIN]
    n = (counts[:, PASS] + counts[:, FAIL] + missing).astype(np.int64)
    if optimistic:
        c = c + missing
    low, _, _ = _stats.cluster_interval_grouped(c, n, cases.case_group, confidence, ngroups=len(cases.groups.index),
                                                weights=cases.weights)
    by_name = dict(zip(cases.groups.index, low, strict=True))
    return np.array([by_name.get(name, np.nan) for name in names], dtype=float)


def _case_pass_k(cases: CaseCounts, group: int, k: int, optimistic: bool | None) -> float:
    """pass^k of one dimension over its measured trials (``optimistic`` None); ``True`` counts
    missing rows and trials as PASS, ``False`` counts missing rows (ERROR/ABSTAIN) as FAIL."""
    sel = cases.case_group == group
    counts, weights = cases.counts[sel], cases.weights[sel]
    c = counts[:, PASS].astype(float)
    n = (counts[:, PASS] + counts[:, FAIL]).astype(float)
    missing = counts[:, ERROR] + counts[:, ABSTAIN]
    if optimistic:
        c = c + missing
        n = n + missing
        pad = np.maximum(k - n, 0)  # missing trials up to k count as passes too
        c, n = c + pad, n + pad
    elif optimistic is False:
        n = n + missing
    mean = _stats.grouped_case_mean(lambda c, n: _stats.pass_hat_k(c, n, k), c, n,
                                    np.zeros(len(c), dtype=np.intp), weights, 1)
    return float(mean[0])


@dataclass
class DimensionResult:
    table: pd.DataFrame  # indexed by dimension name
    missing_dimensions: list[str]


def _variance_entry(variance: pd.DataFrame | None, name: str) -> dict[str, Any] | None:
    """The scorecard's ``variance`` of one dimension: None without a run structure."""
    if variance is None or name not in variance.index or not isinstance(variance.at[name, "basis"], str):
        return None
    row = variance.loc[name]
    entry: dict[str, Any] = {
        "basis": row["basis"],
        "runs": int(row["runs"]),
        "incomplete_runs": int(row["incomplete_runs"]),
    }
    for key in ("mean", "stdev", "cv_pct", "ci_low", "ci_high", "ci_half_width", "z_half_width"):
        value = float(row[key])
        entry[key] = None if np.isnan(value) else value
    entry["clipped"] = bool(row["clipped"])
    entry["note"] = row["note"]
    return entry


def dimension_table(
    cases: CaseCounts,
    policy: Policy,
    scope: Sequence[str],
    failed_controls: set[str],
    variance: pd.DataFrame | None = None,
) -> DimensionResult:
    """Per-dimension counts, statistics, threshold and verdict with its reasons.

    ``variance`` is :func:`scorekit._counts.run_variance`'s table of the same
    rows (the scorecard's ``variance`` per dimension). The table holds every
    column of the scorecard's dimensions (:data:`scorekit._scorecard.DIMENSION_KEYS`)
    except ``judge_agreement``, which the judges' tally adds.
    """
    gate = policy.gate
    confidence = policy.confidence
    summary = cases.summary(confidence=confidence)
    pass_k = cases.per_k(list(policy.pass_k))
    pass_k_cases = cases.per_k_cases(list(policy.pass_k))
    curve_k = cases.curve_k()
    consistency = cases.consistency()
    measured = list(summary.index)
    names = sorted(set(scope) | set(measured))
    table = summary.reindex(names)
    for column in ("n", "passes", "fails", "errors", "abstains", "cases"):
        table[column] = table[column].fillna(0).astype(np.int64)
    # One-sided at (1 − c)/2; under Holm divided among the dimensions in scope (Holm's first step, §6).
    comparisons = max(len(set(scope)), 1) if policy.regression.multiplicity == "holm" else 1
    table["mde"] = _stats.dimension_mde(table["passes"].to_numpy(), table["n"].to_numpy(),
                                        table["deff"].to_numpy(dtype=float), confidence,
                                        comparisons=comparisons) if len(table) else []
    table["pass_k"] = [
        {str(k): (None if np.isnan(v) else float(v)) for k, v in pass_k.loc[name].items()} if name in pass_k.index
        else {str(k): None for k in policy.pass_k}
        for name in names
    ]
    table["pass_k_cases"] = [
        {str(k): int(v) for k, v in pass_k_cases.loc[name].items()} if name in pass_k_cases.index
        else {str(k): 0 for k in policy.pass_k}
        for name in names
    ]
    table["curve_k"] = curve_k.reindex(names).fillna(0).astype(np.int64)
    table["interval_method"] = table["interval_method"].astype(object).where(table["n"] > 0, "wilson")
    table["rate_bounds"] = rate_bounds(table["passes"].to_numpy(), table["n"].to_numpy(),
                                       (table["errors"] + table["abstains"]).to_numpy())
    table["pass_k_ci"] = _pass_k_intervals(cases, list(policy.pass_k), names, confidence)
    table["pass_1"] = cases.per_k([1])[1].reindex(names)
    table["trials_vary"] = pd.Series(cases.trials_vary(), index=cases.groups.index).reindex(names).fillna(False) \
        .astype(bool)
    table["variance"] = [_variance_entry(variance, name) for name in names]
    table["repeated_cases"] = consistency["repeated_cases"].reindex(names).fillna(0).astype(np.int64)
    table["consistency"] = consistency["consistency"].reindex(names)
    table["flaky_cases"] = [consistency.at[n, "flaky_cases"] if n in consistency.index else [] for n in names]
    table["threshold"] = [policy.threshold_for(n) for n in names]
    table["in_scope"] = np.array([n in set(scope) for n in names], dtype=bool)

    passes = table["passes"].to_numpy(dtype=float)
    n = table["n"].to_numpy(dtype=float)
    missing = (table["errors"] + table["abstains"]).to_numpy(dtype=float)
    total = n + missing
    basis = gate.threshold_basis
    cluster = basis == "cluster_lower"
    table["measure"] = _measure(passes, n, basis, confidence,
                                table["ci_cluster_low"].to_numpy(dtype=float) if cluster else None)
    optimistic = _measure(passes + missing, total, basis, confidence,
                          _cluster_low(cases, names, confidence, optimistic=True) if cluster else None)
    pessimistic = _measure(passes, total, basis, confidence,
                           _cluster_low(cases, names, confidence, optimistic=False) if cluster else None)
    threshold = table["threshold"].to_numpy(dtype=float, na_value=np.nan)
    bound = gate.missing_evidence == "bound"
    flips = np.zeros(len(names), dtype=bool)

    verdicts, reasons = [], []
    group_of = {name: i for i, name in enumerate(cases.groups.index)}
    for i, name in enumerate(names):
        why: list[str] = []
        if not table.at[name, "in_scope"]:
            verdicts.append("NOT_IN_SCOPE")
            reasons.append(["not in the declared scope"])
            continue
        has_threshold = not np.isnan(threshold[i])
        rule = gate.pass_k_thresholds.get(name)
        k_rules = [rule] if rule is not None else []
        # 1. certain FAIL: missing evidence counted as PASS still fails.
        certain = []
        if has_threshold and total[i] > 0 and optimistic[i] < threshold[i]:
            certain.append(f"{gate.threshold_basis} measure below threshold even counting missing rows as PASS")
        k_measured: list[tuple[int, float, float, float]] = []
        for rule in k_rules:
            k, minimum = int(rule.k), float(rule.min)
            if name in group_of:
                opt = _case_pass_k(cases, group_of[name], k, optimistic=True)
                got = _case_pass_k(cases, group_of[name], k, optimistic=None)
                worst = _case_pass_k(cases, group_of[name], k, optimistic=False)
                k_measured.append((k, minimum, got, worst))
                if not np.isnan(opt) and opt < minimum:
                    certain.append(f"pass^{k} below {minimum:g} even counting missing trials as PASS")
        if certain:
            verdicts.append("FAIL")
            reasons.append(certain)
            continue
        # 2. INCOMPLETE (§18: a PASS that only the missing rows allow is one too)
        flip = _missing_could_flip(has_threshold and n[i] > 0, float(table.at[name, "measure"]), threshold[i],
                                   float(pessimistic[i]), k_measured)
        flips[i] = bool(flip)
        if flip and bound:
            why.append(f"missing_could_flip: {flip}")
        if n[i] == 0:
            why.append("skipped: no measured (PASS/FAIL) row")
        if n[i] < gate.min_samples:
            why.append(f"n = {int(n[i])} < min_samples {gate.min_samples}")
        coverage = table.at[name, "coverage"]
        if total[i] > 0 and coverage < gate.min_coverage:
            why.append(f"coverage {coverage:.3f} < min_coverage {gate.min_coverage:g}")
        if not has_threshold:
            why.append("no threshold declared for this dimension")
        if name in failed_controls:
            why.append("its evaluator control failed")
        for k, _minimum, got, _worst in k_measured:
            if np.isnan(got):
                why.append(f"pass^{k}: no case has {k} measured trials")
            elif _short_of_k(cases, group_of[name], k):
                why.append(f"pass^{k}: a case lacks {k} measured trials because of ERROR/ABSTAIN rows")
        if k_rules and name not in group_of:
            why.append("pass^k threshold with no measured case")
        if why:
            verdicts.append("INCOMPLETE")
            reasons.append(sorted(set(why), key=why.index))
            continue
        # 3. measured PASS / FAIL
        fails = []
        if table.at[name, "measure"] < threshold[i]:
            fails.append(f"{gate.threshold_basis} measure {table.at[name, 'measure']:.4f} < threshold {threshold[i]:g}")
        for k, minimum, got, _worst in k_measured:
            if got < minimum:
                fails.append(f"pass^{k} {got:.4f} < {minimum:g}")
        verdicts.append("FAIL" if fails else "PASS")
        reasons.append(fails)
    table["verdict"] = verdicts
    table["verdict_reasons"] = reasons
    table["missing_could_flip"] = flips
    _add_assurance(table, confidence)
    table.index.name = "name"
    missing_dimensions = [name for name in names if table.at[name, "in_scope"] and total[names.index(name)] == 0]
    return DimensionResult(table=table, missing_dimensions=missing_dimensions)


def _pass_k_intervals(cases: CaseCounts, ks: Sequence[int], names: Sequence[str],
                      confidence: float) -> list[dict[str, list[float] | None]]:
    """``pass_k_ci`` per dimension in ``names`` (SPEC §18): {k: [low, high] or None}."""
    ngroups = len(cases.groups.index)
    bounds = {}
    for k in ks:
        _, low, high, _ = _stats.pass_k_interval(cases.passes, cases.n, k, cases.case_group, confidence,
                                                 ngroups=ngroups, weights=cases.weights)
        bounds[k] = dict(zip(cases.groups.index, zip(low.tolist(), high.tolist(), strict=True), strict=True))
    out = []
    for name in names:
        entry: dict[str, list[float] | None] = {}
        for k in ks:
            low, high = bounds[k].get(name, (math.nan, math.nan))
            entry[str(k)] = None if math.isnan(low) or math.isnan(high) else [low, high]
        out.append(entry)
    return out


def _add_assurance(table: pd.DataFrame, confidence: float) -> None:
    """``assurance`` and, for a PASS it leaves below ``confidence``, ``cases_to_settle`` (SPEC §18).

    Both are null (NaN / None) without evidence, without a threshold, and for a threshold of
    1 or more (or 0 or less): such a threshold is a zero-tolerance rule (every measured row
    must pass), not a rate to estimate — the Jeffreys posterior gives it assurance 0 however
    many rows pass, and no number of cases settles it — so it gets no ``low_confidence``
    advisory either.
    """
    passes = table["passes"].to_numpy(dtype=np.int64)
    n = table["n"].to_numpy(dtype=np.int64)
    threshold = table["threshold"].to_numpy(dtype=float, na_value=np.nan)
    threshold = np.where((threshold > 0.0) & (threshold < 1.0), threshold, np.nan)
    deff = table["deff"].to_numpy(dtype=float)
    sure = np.asarray(_stats.assurance(passes, n, threshold, deff), dtype=float)
    settle = np.asarray(_stats.cases_to_settle(passes, n, table["cases"].to_numpy(dtype=np.int64), threshold, deff,
                                               confidence), dtype=float)
    open_pass = (table["verdict"] == "PASS").to_numpy(dtype=bool) & (sure < confidence)
    table["assurance"] = sure
    table["cases_to_settle"] = pd.Series([int(v) if o and not math.isnan(v) else None
                                          for o, v in zip(open_pass, settle.tolist(), strict=True)],
                                         index=table.index, dtype=object)


def rate_bounds(passes: np.ndarray, n: np.ndarray, missing: np.ndarray) -> list[list[float] | None]:
    """Per dimension, the rate had its missing rows been measured (SPEC §18): ``[passes/(n + missing),
    (passes + missing)/(n + missing)]`` when some row is missing (coverage < 1), else None."""
    total = n + missing
    return [[float(p / t), float((p + m) / t)] if m > 0 else None
            for p, m, t in zip(passes.tolist(), missing.tolist(), total.tolist(), strict=True)]


def _missing_could_flip(measured: bool, measure: float, threshold: float, pessimistic: float,
                        k_measured: Sequence[tuple[int, float, float, float]]) -> str:
    """Why the dimension would PASS only because rows are missing (SPEC §18), or "" when it would not.

    It would PASS on its measured rows (the basis and every pass^k threshold met), and
    with every missing row (ERROR/ABSTAIN) counted as FAIL some of them would not be.
    """
    if not measured or not measure >= threshold or any(not got >= minimum for _, minimum, got, _ in k_measured):
        return ""
    flipped = []
    if not pessimistic >= threshold:
        flipped.append(f"measure {pessimistic:.4f} < threshold {threshold:g}")
    flipped += [f"pass^{k} {worst:.4f} < {minimum:g}" for k, minimum, _, worst in k_measured if not worst >= minimum]
    if not flipped:
        return ""
    return ("with every missing (ERROR/ABSTAIN) row counted as FAIL the " + "; ".join(flipped)
            + ", so the measured rows alone cannot show a PASS")


def _short_of_k(cases: CaseCounts, group: int, k: int) -> bool:
    """Some case of the group has fewer than k measured trials only because rows are missing."""
    counts = cases.counts[cases.case_group == group]
    n = counts[:, PASS] + counts[:, FAIL]
    missing = counts[:, ERROR] + counts[:, ABSTAIN]
    return bool(((n < k) & (missing > 0)).any())


def decide(
    *,
    policy: Policy,
    dimensions: pd.DataFrame,
    missing_dimensions: Sequence[str],
    validation_complete: bool,
    failed_controls: Sequence[str] = (),
    mock_judges: bool,
    mock_agent: bool = False,
    partial: bool,
    partial_reason: str | None = None,
    comparison_status: Mapping[str, Any] | str = "not_requested",
) -> tuple[str, str, list[str]]:
    """The scorecard decision, the measured decision (before the comparison step) and why.

    Order (SPEC §8): SELF_TEST, TRIAGE, FAIL, INCOMPLETE, PASS, then the
    comparison step (:func:`apply_comparison`) with ``comparison_status`` (a
    status or the comparison :func:`scorekit.history.compare` returned) under
    the policy's ``regression.required``. All of SPEC §8 lives here. ``partial_reason``
    words a partial evaluation that is not a ``limit`` scan (an imported partial run, §15).
    """
    why: list[str] = []
    in_scope = dimensions[dimensions["in_scope"].astype(bool).to_numpy()]
    if policy.purpose == "self_test" or mock_judges or mock_agent:
        if policy.purpose == "self_test":
            why.append("self_test purpose")
        if mock_judges:
            why.append("a mock judge or evaluator took part")
        if mock_agent:
            why.append("the agent is a mock")
        return "SELF_TEST", "SELF_TEST", why
    if policy.purpose == "exploratory" or partial:
        why.append("exploratory purpose" if policy.purpose == "exploratory"
                   else partial_reason or "partial scan (limit)")
        return "TRIAGE", "TRIAGE", why
    failed = list(in_scope.index[(in_scope["verdict"] == "FAIL").to_numpy(dtype=bool)])
    incomplete = list(in_scope.index[(in_scope["verdict"] == "INCOMPLETE").to_numpy(dtype=bool)])
    # A failed control anywhere means the evaluator cannot be trusted, in scope or not.
    stray_controls = [d for d in failed_controls if d not in set(in_scope.index)]
    if failed:
        measured = "FAIL"
        why.append("dimension FAIL: " + ", ".join(failed))
    elif in_scope.empty or missing_dimensions or incomplete or not validation_complete or stray_controls:
        measured = "INCOMPLETE"
        if in_scope.empty:
            why.append("no dimension in scope: there is no agent evidence to release on")
        if missing_dimensions:
            why.append("dimension without evidence: " + ", ".join(missing_dimensions))
        if incomplete:
            why.append("dimension INCOMPLETE: " + ", ".join(incomplete))
        if not validation_complete:
            why.append("strict validation found invalid or unlabeled rows")
        if stray_controls:
            why.append("evaluator control failed on: " + ", ".join(stray_controls))
    else:
        measured = "PASS"
    decision, reasons = apply_comparison(measured, measured, comparison_status, bool(policy.regression.required))
    return decision, measured, why + reasons


def apply_comparison(
    decision: str, measured_decision: str, comparison: Mapping[str, Any] | str, required: bool | None = None
) -> tuple[str, list[str]]:
    """The comparison step of the scorecard decision (SPEC §8).

    Parameters
    ----------
    decision : str
        The decision *before* the comparison step (the measured decision
        :func:`decide` returns).
    measured_decision : str
        The measured decision; SELF_TEST and TRIAGE are never changed.
    comparison : dict or str
        The result of :func:`scorekit.history.compare`, or its status.
    required : bool, optional
        Whether the policy requires the comparison; defaults to
        ``comparison["required"]``.

    Returns
    -------
    decision, reasons
        A required comparison that regressed → FAIL; one that is missing,
        incompatible or unusable (or was never run) → INCOMPLETE unless already
        FAIL; ``passed`` or a comparison that is not required → unchanged. The
        reasons to append to ``decision_reasons`` (empty when nothing applies).
    """
    status: object  # checked against COMPARISON_STATUSES below
    detail: object
    if isinstance(comparison, str):
        status, detail = comparison, None
        comparison = {"status": status}
    else:
        status, detail = comparison.get("status"), comparison.get("detail")
    if status not in COMPARISON_STATUSES:
        raise ValueError(f"comparison status must be one of {', '.join(COMPARISON_STATUSES)}; got {status!r}")
    if required is None:
        required = bool(comparison.get("required", False))
    if decision in ("SELF_TEST", "TRIAGE") or measured_decision in ("SELF_TEST", "TRIAGE"):
        return decision, []
    if not required or status == "passed":
        return decision, []
    suffix = f": {detail}" if detail else ""
    if status == "regressed":
        return "FAIL", [f"{COMPARISON_REASON_PREFIX} regressed{suffix}"]
    if status == "not_requested":
        status = "missing"  # required but never run: fail closed
    return (decision if decision == "FAIL" else "INCOMPLETE"), [f"{COMPARISON_REASON_PREFIX} {status}{suffix}"]


def error_rates(policy: Policy | Mapping[str, Any], comparison: Mapping[str, Any] | None) -> dict[str, Any]:
    """The scorecard's ``error_rates`` (SPEC §18): the level every decision's test is run at.

    Parameters
    ----------
    policy : Policy or mapping
        The policy, or its normalised dictionary (``Scorecard.policy``).
    comparison : mapping or None
        The scorecard's ``comparison``; None when there is none.

    Returns
    -------
    dict
        ``confidence``, ``alpha`` (one-sided, :func:`scorekit._stats.one_sided_alpha`),
        ``multiplicity`` (``regression.multiplicity``) and ``comparisons``: how many
        regression entries are a usable controlled comparison
        (:func:`scorekit._regression.usable_comparisons`: controlled, with a p-value);
        0 without a comparison.

    Examples
    --------
    >>> from scorekit._policy import load_policy
    >>> error_rates(load_policy({}), None)
    {'confidence': 0.95, 'alpha': 0.025, 'multiplicity': 'holm', 'comparisons': 0}
    """
    if isinstance(policy, Policy):
        confidence, multiplicity = float(policy.confidence), str(policy.regression.multiplicity)
    else:
        regression = policy.get("regression")
        confidence = float(policy.get("confidence", 0.95))
        multiplicity = str((regression if isinstance(regression, Mapping) else {}).get("multiplicity", "holm"))
    entries = [e for e in (comparison or {}).get("regressions") or [] if isinstance(e, Mapping)]
    comparisons = usable_comparisons(entries)
    return {"confidence": confidence, "alpha": _stats.one_sided_alpha(confidence), "multiplicity": multiplicity,
            "comparisons": comparisons}
