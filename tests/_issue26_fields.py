"""Issue 26 (SPEC §18) fields added to a real ``Scorecard.to_dict()`` the way CONTRACT.md defines them.

The reports are built against the contract while the evaluation that writes these
fields (``_decide``, ``_regression``) lands on other branches: :func:`with_decision_fields`
takes a real scorecard dictionary and adds every new key with realistic values (the
assurance from the Jeffreys posterior itself, the rate bounds from the counts), so a
report test sees the shape a schema_version 2 scorecard has. A schema_version 1 dictionary
gets its interval fields converted (``ci_low``/``ci_high`` were Wilson then); a
schema_version 2 one keeps its own headline and Wilson intervals.
"""

from __future__ import annotations

import copy
from typing import Any

from scipy.stats import beta

#: A case id that must stay inert in every report (it is user text).
HOSTILE_CASE = "<script>alert(1)</script>|*x*"


def jeffreys_assurance(passes: int, n: int, threshold: float, deff: float = 1.0) -> float:
    """P(rate ≥ threshold) under Beta(x + ½, n′ − x + ½), n′ = n/deff, x = passes/deff (SPEC §18)."""
    eff = n / deff
    x = passes / n * eff
    return float(beta.sf(threshold, x + 0.5, eff - x + 0.5))


def _dimension(dim: dict[str, Any]) -> None:
    n, passes = dim["n"], dim["passes"]
    if "interval_method" not in dim:  # schema_version 1: ci_low/ci_high are the pooled Wilson interval
        clustered = dim["cases"] is not None and dim["cases"] < n
        dim["interval_method"] = "wilson_clustered" if clustered else "wilson"
        dim["wilson_low"], dim["wilson_high"] = dim["ci_low"], dim["ci_high"]
        if clustered:
            dim["ci_low"], dim["ci_high"] = dim["ci_cluster_low"], dim["ci_cluster_high"]
    threshold = dim.get("threshold")
    dim["assurance"] = None if threshold is None or not n else \
        jeffreys_assurance(passes, n, threshold, dim.get("deff") or 1.0)
    dim["cases_to_settle"] = (2 * dim["cases"] if dim["verdict"] == "PASS" and dim["assurance"] is not None
                              and dim["assurance"] < 0.95 else None)
    missing = dim["errors"] + dim["abstains"]
    dim["rate_bounds"] = [passes / (n + missing), (passes + missing) / (n + missing)] if missing else None
    dim["missing_could_flip"] = False
    dim["pass_k_ci"] = {k: (None if v is None else [max(0.0, v - 0.12), min(1.0, v + 0.09)])
                        for k, v in (dim.get("pass_k") or {}).items()}
    covered = dim.get("pass_k_cases") or {}
    dim["trials_vary"] = bool(covered) and len(set(covered.values())) > 1
    dim["pass_1"] = None if dim["rate"] is None else min(1.0, dim["rate"] + 0.013)
    dim["judge_agreement"] = None


def _entry(dim: dict[str, Any], regressed: bool) -> dict[str, Any]:
    rate = dim["rate"] or 0.0
    side = {"n": dim["n"], "passes": dim["passes"], "rate": rate, "ci_low": dim["wilson_low"],
            "ci_high": dim["wilson_high"]}
    listed = [{"case_id": f"case-{i:03d}", "baseline": 1.0, "candidate": 1 / 3, "change": -2 / 3} for i in range(50)]
    listed[1]["case_id"] = HOSTILE_CASE
    return {
        "dimension": dim["name"], "method": "paired", "method_used": "paired", "controlled": True,
        "status": "regressed" if regressed else "ok", "regressed": regressed,
        "baseline": side, "candidate": dict(side, rate=rate - 0.08 if regressed else rate),
        "difference": -0.08 if regressed else 0.0, "ci_low": -0.13 if regressed else -0.04,
        "ci_high": -0.031 if regressed else 0.04, "p_value": 0.0004 if regressed else 0.5,
        "p_adjusted": 0.0032 if regressed else 1.0, "shared_cases": 48, "cases_only_baseline": 2,
        "cases_only_candidate": 1,
        "regressed_cases": {"total": 57 if regressed else 0, "listed": listed if regressed else []},
        "improved_cases": {"total": 2, "listed": [
            {"case_id": "case-900", "baseline": 0.0, "candidate": 1.0, "change": 1.0},
            {"case_id": "case-901", "baseline": 1 / 3, "candidate": 2 / 3, "change": 1 / 3}]},
        "rule": "paired t: one-sided p-value against −max_drop (0), Holm", "limit": 0.0,
    }


def with_decision_fields(data: dict[str, Any], *, comparison: bool = True, flip: str | None = None,
                         judged: str | None = None) -> dict[str, Any]:
    """A copy of ``data`` (``Scorecard.to_dict()``) with the issue 26 fields.

    ``comparison``: add a controlled comparison over every measured dimension (the first one
    regressed, 57 regressed cases of which 50 listed); ``flip``: the dimension whose missing rows
    could flip it (INCOMPLETE); ``judged``: the dimension given a judge agreement.
    """
    out = copy.deepcopy(data)
    out["schema_version"] = 2
    dims = out["dimensions"]
    for dim in dims:
        _dimension(dim)
    if flip is not None:
        dim = next(d for d in dims if d["name"] == flip)
        dim.update(verdict="INCOMPLETE", missing_could_flip=True,
                   verdict_reasons=["missing rows counted as FAIL could take the rate below its threshold"])
        if dim["rate_bounds"] is None:
            dim["errors"] += 3
            dim["rate_bounds"] = [dim["passes"] / (dim["n"] + 3), (dim["passes"] + 3) / (dim["n"] + 3)]
    if judged is not None:
        next(d for d in dims if d["name"] == judged)["judge_agreement"] = {
            "krippendorff_alpha": 0.62, "unanimous_share": 0.75, "units": 40}
    measured = [d for d in dims if d["n"]]
    count = len(measured) if comparison else 0
    out["error_rates"] = {"confidence": 0.95, "alpha": 0.025, "multiplicity": "holm", "comparisons": count}
    if comparison:
        out["comparison"] = {
            "status": "regressed", "required": False, "baseline": {"id": 1, "label": "v1.0"},
            "method": "paired", "max_drop": 0.0, "multiplicity": "holm", "alpha": 0.025, "comparisons": count,
            "regressions": [_entry(d, i == 0) for i, d in enumerate(measured)],
        }
    return out
