"""A stored scorecard read back: every derived number recomputed from its counts (SPEC §20).

``report``, ``compare`` (and every reader of a stored ``scorecard.json``) render
what the file says, so a file whose rates, intervals, verdicts or decision were
edited — or whose counts are not counts — would be shown as evidence. Before
anything is rendered, :func:`check_scorecard` recomputes from the stored counts
(``passes``, ``fails``, ``errors``, ``abstains``, ``cases``), the stored policy
(thresholds, threshold basis, ``min_samples``, ``min_coverage``, confidence,
purpose) and the stored validation and controls, with the functions the
evaluation itself used:

* counts: whole numbers (JSON integers, never ``3.0``) from 0 to 2**53, and
  ``n = passes + fails``, ``cases <= n``, ``repeated_cases <= cases``;
* ``rate``, ``ci_low``/``ci_high`` (:func:`scorekit._stats.wilson_interval`),
  ``coverage``, ``mde`` (:func:`scorekit._stats.dimension_mde`), ``measure``
  (the threshold basis, :func:`scorekit._decide._measure`), ``threshold``
  (:meth:`scorekit._policy.Policy.threshold_for`) and ``consistency`` (from
  ``repeated_cases`` and ``flaky_cases``), to 1e-9;
* the case-clustered interval where the counts settle it: one measured trial
  per case gives ``deff = 1`` and the Wilson interval; otherwise ``deff`` lies
  between 1 and its ceiling and the interval contains the Wilson one;
* each verdict, by SPEC §8's rules, where the stored counts settle it (a
  ``cluster_lower`` basis or a pass^k threshold needs per-case counts the file
  does not hold: then only the verdicts those rules could produce are allowed);
* the measured decision (:func:`scorekit._decide.decide`) from the verdicts,
  scope, validation, controls, purpose and ``partial``, the final decision
  (:func:`scorekit._decide.apply_comparison`) and ``overall_pass``.

A mismatch is an :class:`~scorekit.InputError` naming the file and the JSON path
of the field (``$.dimensions[2].rate``): exit 2 from the CLI, one line. A
signature that verifies says who wrote the file, not that its numbers add up,
so a signed scorecard is checked all the same.

Examples
--------
>>> import scorekit as sk
>>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict()
>>> check_scorecard(card, "scorecard.json")  # consistent: no error
>>> card["dimensions"][0]["rate"] = 1.0
>>> check_scorecard(card, "scorecard.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scorekit._errors.InputError: scorecard.json: $.dimensions[0].rate is 1.0, but its counts give ...
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import InputError, PolicyError
from ._errors import StoredMismatch as _Refusal

__all__ = ["MAX_COUNT", "TOLERANCE", "check_scorecard"]

#: Largest count a stored scorecard may hold: every integer up to it is exact in float64.
MAX_COUNT = 2**53
#: Absolute tolerance of a recomputed float.
TOLERANCE = 1e-9
_COUNTS = ("n", "passes", "fails", "errors", "abstains", "cases")
_OPTIONAL_COUNTS = ("repeated_cases", "curve_k")


def _show(value: Any) -> str:
    return "null" if value is None else repr(value)


def _count(value: Any, path: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise _Refusal(path, f"is {_show(value)}, not a count (a whole number from 0 to 2**53)")
    return value


def _number(value: Any) -> float | None:
    """A stored number as a float; None for null (or NaN, which JSON cannot hold)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _same(stored: Any, expected: float | None, path: str, how: str) -> None:
    """``stored`` equals ``expected`` (None: undefined) to :data:`TOLERANCE`."""
    got = _number(stored)
    if expected is None or not math.isfinite(expected):
        if stored is not None:
            raise _Refusal(path, f"is {_show(stored)}, but its counts leave it undefined ({how})")
        return
    if got is None or abs(got - expected) > TOLERANCE:
        raise _Refusal(path, f"is {_show(stored)}, but its counts give {expected!r} ({how})")


def _policy(data: Mapping[str, Any], dims: Sequence[Mapping[str, Any]]) -> Any:
    """The stored policy (thresholds, basis, confidence, purpose); without one, what the card itself records."""
    from ._policy import load_policy, readable_recorded_policy

    stored = data.get("policy")
    if isinstance(stored, Mapping):
        # a path: not needed to decide; a retired regression method: read, not chosen (today's default compares)
        document = readable_recorded_policy({k: v for k, v in stored.items() if k != "tool_contracts"})
    else:  # a card written without its policy: its own thresholds, confidence and purpose
        thresholds = {str(d["name"]): d["threshold"] for d in dims if d.get("threshold") is not None}
        document = {"gate": {"thresholds": thresholds}}
        if data.get("confidence") is not None:
            document["confidence"] = data["confidence"]
        if data.get("purpose") is not None:
            document["purpose"] = data["purpose"]
    try:
        return load_policy(document)
    except PolicyError as exc:
        raise _Refusal("$.policy", f"is not a policy of this scorekit ({exc})") from None


def _wilson(passes: int, n: int, confidence: float) -> tuple[float | None, float | None]:
    from ._stats import wilson_interval

    if n == 0:
        return None, None
    low, high = wilson_interval(passes, n, confidence=confidence)
    return float(low), float(high)


def _check_counts(d: Mapping[str, Any], at: str) -> dict[str, int]:
    counts = {key: _count(d.get(key), f"{at}.{key}") for key in _COUNTS}
    for key in _OPTIONAL_COUNTS:
        if key in d:
            counts[key] = _count(d[key], f"{at}.{key}")
    if counts["n"] != counts["passes"] + counts["fails"]:
        raise _Refusal(f"{at}.n", f"is {counts['n']}, but passes {counts['passes']} + fails {counts['fails']} "
                                  f"= {counts['passes'] + counts['fails']}")
    if counts["cases"] > counts["n"]:
        raise _Refusal(f"{at}.cases", f"is {counts['cases']}, more than its {counts['n']} measured trials")
    if counts.get("repeated_cases", 0) > counts["cases"]:
        raise _Refusal(f"{at}.repeated_cases", f"is {counts['repeated_cases']}, more than its {counts['cases']} cases")
    for k, value in (d.get("pass_k_cases") or {}).items():
        if _count(value, f"{at}.pass_k_cases[{k!r}]") > counts["cases"]:
            raise _Refusal(f"{at}.pass_k_cases[{k!r}]", f"is {value}, more than its {counts['cases']} cases")
    return counts


def _check_cluster(d: Mapping[str, Any], at: str, c: Mapping[str, int], low: float | None,
                   high: float | None) -> None:
    """The case-clustered interval, as far as the stored counts settle it (SPEC §6)."""
    n, cases = c["n"], c["cases"]
    if n == 0:
        for key in ("deff", "ci_cluster_low", "ci_cluster_high"):
            _same(d.get(key), None, f"{at}.{key}", "no measured trial")
        return
    if cases == 0:
        raise _Refusal(f"{at}.cases", f"is 0, but the dimension has {n} measured trials")
    if cases == n:  # one measured trial per case: deff = 1 and the Wilson interval
        _same(d.get("deff"), 1.0, f"{at}.deff", "one measured trial per case")
        _same(d.get("ci_cluster_low"), low, f"{at}.ci_cluster_low", "one trial per case: the Wilson bound")
        _same(d.get("ci_cluster_high"), high, f"{at}.ci_cluster_high", "one trial per case: the Wilson bound")
        return
    deff, ceiling = _number(d.get("deff")), float(n - cases + 1)  # Σnᵢ²/N <= max nᵢ <= N − (m − 1)
    if deff is None or not 1.0 - TOLERANCE <= deff <= ceiling + TOLERANCE:
        raise _Refusal(f"{at}.deff", f"is {_show(d.get('deff'))}, outside [1, {ceiling:g}] for {n} trials of "
                                     f"{cases} cases")
    c_low, c_high = _number(d.get("ci_cluster_low")), _number(d.get("ci_cluster_high"))
    if c_low is None or low is None or c_low > low + TOLERANCE:
        raise _Refusal(f"{at}.ci_cluster_low", f"is {_show(d.get('ci_cluster_low'))}, above the Wilson bound "
                                               f"{low!r}: the case-clustered interval is never narrower")
    if c_high is None or high is None or c_high < high - TOLERANCE:
        raise _Refusal(f"{at}.ci_cluster_high", f"is {_show(d.get('ci_cluster_high'))}, below the Wilson bound "
                                                f"{high!r}: the case-clustered interval is never narrower")


def _check_consistency(d: Mapping[str, Any], at: str, c: Mapping[str, int]) -> None:
    if "repeated_cases" not in c or "consistency" not in d:
        return
    repeated = c["repeated_cases"]
    flaky = d.get("flaky_cases") or []
    if len(flaky) > repeated:
        raise _Refusal(f"{at}.flaky_cases", f"lists {len(flaky)} cases, more than its {repeated} repeated cases")
    expected = (repeated - len(flaky)) / repeated if repeated else None
    _same(d.get("consistency"), expected, f"{at}.consistency", "repeated cases whose trials all agree")


def _measure(passes: int, n: int, basis: str, confidence: float) -> float | None:
    """The threshold basis's measure of the counts (the one :func:`scorekit._decide.dimension_table` uses)."""
    import numpy as np

    from ._decide import _measure as measure

    if n == 0:
        return None
    value = float(measure(np.array([float(passes)]), np.array([float(n)]), basis, confidence)[0])
    return value if math.isfinite(value) else None


def _allowed_verdicts(name: str, c: Mapping[str, int], in_scope: bool, policy: Any, measure: float | None,
                      failed_controls: set[str]) -> set[str]:
    """The verdicts SPEC §8 allows this dimension, from its counts (all of them where they settle it)."""
    if not in_scope:
        return {"NOT_IN_SCOPE"}
    gate = policy.gate
    threshold = policy.threshold_for(name)
    missing = c["errors"] + c["abstains"]
    total = c["n"] + missing
    k_rule = name in gate.pass_k_thresholds
    cluster = gate.threshold_basis == "cluster_lower"
    if threshold is not None and total > 0 and not cluster:
        optimistic = _measure(c["passes"] + missing, total, gate.threshold_basis, policy.confidence)
        if optimistic is not None and optimistic < threshold:
            return {"FAIL"}  # 1. certain FAIL: missing rows counted as PASS still fail
    unsettled_fail = {"FAIL"} if cluster or k_rule else set()  # a certain FAIL only per-case counts could show
    coverage = c["n"] / total if total else None
    incomplete = (c["n"] == 0 or c["n"] < gate.min_samples or threshold is None or name in failed_controls
                  or (coverage is not None and coverage < gate.min_coverage))
    if incomplete:
        return {"INCOMPLETE"} | unsettled_fail
    k_outcomes = {"FAIL", "INCOMPLETE"} if k_rule else set()
    if measure is not None and threshold is not None and measure < threshold:
        return {"FAIL"} | k_outcomes
    return {"PASS"} | k_outcomes


def _check_dimension(d: Mapping[str, Any], at: str, policy: Any, scope: set[str],
                     failed_controls: set[str]) -> tuple[dict[str, int], bool]:
    from ._stats import dimension_mde

    name = str(d.get("name"))
    c = _check_counts(d, at)
    confidence = policy.confidence
    n, passes, total = c["n"], c["passes"], c["n"] + c["errors"] + c["abstains"]
    _same(d.get("rate"), passes / n if n else None, f"{at}.rate", f"passes {passes} / n {n}")
    low, high = _wilson(passes, n, confidence)
    _same(d.get("ci_low"), low, f"{at}.ci_low", f"Wilson at confidence {confidence:g}")
    _same(d.get("ci_high"), high, f"{at}.ci_high", f"Wilson at confidence {confidence:g}")
    if "coverage" in d:
        _same(d.get("coverage"), n / total if total else None, f"{at}.coverage", f"n {n} / all {total} agent rows")
    _check_cluster(d, at, c, low, high)
    deff = _number(d.get("deff"))
    if n and deff is not None:
        _same(d.get("mde"), float(dimension_mde(passes, n, deff, confidence)), f"{at}.mde",
              "the drop its evidence could detect")
    elif n == 0:
        _same(d.get("mde"), None, f"{at}.mde", "no measured trial")
    _check_consistency(d, at, c)
    _same(d.get("threshold"), policy.threshold_for(name), f"{at}.threshold", "the stored policy's threshold")
    basis = policy.gate.threshold_basis
    measure = _number(d.get("ci_cluster_low")) if basis == "cluster_lower" else _measure(passes, n, basis, confidence)
    if "measure" in d:
        _same(d.get("measure"), measure, f"{at}.measure", f"threshold basis {basis}")
    in_scope = d.get("in_scope", name in scope)
    if bool(in_scope) != (name in scope):
        raise _Refusal(f"{at}.in_scope", f"is {_show(in_scope)}, but $.scope.dimensions "
                                         f"{'lists' if name in scope else 'does not list'} it")
    allowed = _allowed_verdicts(name, c, name in scope, policy, measure, failed_controls)
    if d.get("verdict") not in allowed:
        raise _Refusal(f"{at}.verdict", f"is {_show(d.get('verdict'))}, but its counts and the stored policy give "
                                        f"{' or '.join(sorted(allowed))} (SPEC §8)")
    return c, name in scope


def _check_decision(data: Mapping[str, Any], policy: Any, dims: Sequence[Mapping[str, Any]],
                    missing: list[str], failed_controls: set[str]) -> None:
    import pandas as pd

    from ._decide import DECISIONS, apply_comparison, decide

    validation = data.get("validation") or {}
    strict = bool(validation.get("strict", False)) or policy.strict
    if bool(validation.get("strict", strict)) != policy.strict:
        how = "strictly" if policy.strict else "leniently"
        raise _Refusal("$.validation.strict", f"is {_show(validation.get('strict'))}, but purpose "
                                              f"{policy.purpose} validates {how}")
    complete = not (strict and (validation.get("invalid") or validation.get("unlabeled")))
    if "complete" in validation and validation["complete"] is not complete:
        raise _Refusal("$.validation.complete", f"is {_show(validation['complete'])}, but {validation.get('invalid')} "
                                                f"invalid and {validation.get('unlabeled')} unlabeled rows give "
                                                f"{complete!r}")
    frame = pd.DataFrame({"in_scope": [bool(d.get("in_scope", True)) for d in dims],
                          "verdict": [d.get("verdict") for d in dims]},
                         index=pd.Index([str(d.get("name")) for d in dims]))
    agent = data.get("agent") if isinstance(data.get("agent"), Mapping) else {}
    from .scorers.judges import is_mock

    judges = [*(data.get("judges") or []), *policy.judges.panel]
    _, measured, _ = decide(policy=policy, dimensions=frame, missing_dimensions=missing, validation_complete=complete,
                            failed_controls=sorted(failed_controls), mock_judges=any(is_mock(j) for j in judges),
                            mock_agent=is_mock((agent or {}).get("name")), partial=bool(data.get("partial", False)),
                            comparison_status="not_requested")
    stored_measured = data.get("measured_decision", data.get("decision"))
    if stored_measured not in DECISIONS:
        raise _Refusal("$.measured_decision", f"is {_show(stored_measured)}, not a decision")
    # SELF_TEST may come from a mock evaluator the file does not list: never a passing decision, so kept.
    if stored_measured != measured and stored_measured != "SELF_TEST":
        raise _Refusal("$.measured_decision" if "measured_decision" in data else "$.decision",
                       f"is {stored_measured}, but its verdicts, scope, validation and purpose give {measured} "
                       "(SPEC §8)")
    comparison = data.get("comparison") if isinstance(data.get("comparison"), Mapping) else {}
    status = (comparison or {}).get("status", "not_requested")
    # Fail closed: the policy's requirement holds even where the stored comparison says optional.
    required = bool((comparison or {}).get("required", False)) or bool(policy.regression.required)
    try:
        decision, _ = apply_comparison(stored_measured, stored_measured, {"status": status}, required)
    except ValueError:
        raise _Refusal("$.comparison.status", f"is {_show(status)}, not a comparison status") from None
    if data.get("decision") != decision:
        raise _Refusal("$.decision", f"is {_show(data.get('decision'))}, but the measured decision "
                                     f"{stored_measured} and comparison {status} give {decision} (SPEC §8)")
    if "overall_pass" in data and data["overall_pass"] is not (decision == "PASS"):
        raise _Refusal("$.overall_pass", f"is {_show(data['overall_pass'])}, but the decision is {decision}")


def _check(data: Mapping[str, Any]) -> None:
    dims = [d for d in data.get("dimensions") or [] if isinstance(d, Mapping)]
    policy = _policy(data, dims)
    if data.get("confidence") is not None:
        _same(data["confidence"], policy.confidence, "$.confidence", "the stored policy's confidence")
    if data.get("purpose") != policy.purpose:
        raise _Refusal("$.purpose", f"is {_show(data.get('purpose'))}, but the stored policy's is {policy.purpose}")
    scope_data: Mapping[str, Any] = data["scope"] if isinstance(data.get("scope"), Mapping) else {}
    scope = {str(s) for s in scope_data.get("dimensions") or []}
    failed_controls = {str(c.get("dimension")) for c in data.get("controls") or []
                       if isinstance(c, Mapping) and not c.get("passed")}
    names = [str(d.get("name")) for d in dims]
    absent = sorted(scope - set(names))
    if absent:
        raise _Refusal("$.dimensions", f"has no entry for {absent[0]!r}, which $.scope.dimensions lists")
    measured = total = 0
    missing = []
    for i, d in enumerate(dims):
        counts, in_scope = _check_dimension(d, f"$.dimensions[{i}]", policy, scope, failed_controls)
        if in_scope:
            rows = counts["n"] + counts["errors"] + counts["abstains"]
            measured, total = measured + counts["n"], total + rows
            if rows == 0:
                missing.append(str(d.get("name")))
    if "missing_dimensions" in scope_data:
        stored = sorted(str(s) for s in scope_data.get("missing_dimensions") or [])
        if stored != sorted(missing):
            raise _Refusal("$.scope.missing_dimensions", f"is {stored}, but the in-scope dimensions without a row "
                                                         f"are {sorted(missing)}")
    _same(data.get("coverage"), measured / total if total else None, "$.coverage",
          f"{measured} measured of {total} in-scope agent rows")
    _check_decision(data, policy, dims, missing, failed_controls)


def check_scorecard(data: Mapping[str, Any], source: Any) -> None:
    """Refuse a stored scorecard whose derived numbers do not recompute from its counts (SPEC §20).

    Parameters
    ----------
    data : mapping
        A scorecard dictionary that matches the shipped schema
        (:func:`scorekit.reports.json.validate_scorecard_json`).
    source : str or os.PathLike
        Where it came from, for the message (a file name, ``"a"``).

    Raises
    ------
    InputError
        One line: ``<source>: <JSON path> is <stored>, but its counts give
        <recomputed> (<how>); the scorecard disagrees with its own evidence
        (edited or damaged): refused``.
    """
    try:
        _check(data)
    except _Refusal as refusal:
        raise InputError(f"{source}: {refusal.field} {refusal.problem}; the scorecard disagrees with its own "
                         "evidence (edited or damaged): refused") from None
