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
                      failed_controls: set[str], flip: bool | None) -> set[str]:
    """The verdicts SPEC §8 allows this dimension, from its counts (all of them where they settle it).

    ``flip`` is whether missing rows could flip a PASS (SPEC §18) where the counts settle it, None
    where they do not (per-case counts needed), False for a schema_version 1 file (no such rule)."""
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
    if flip is None:
        return {"PASS", "INCOMPLETE"} | k_outcomes
    return ({"INCOMPLETE"} if flip else {"PASS"}) | k_outcomes


def _check_headline(d: Mapping[str, Any], at: str, c: Mapping[str, int], low: float | None,
                    high: float | None, version: int) -> None:
    """``ci_low``/``ci_high`` and, from schema_version 2, ``interval_method`` and the pooled Wilson
    ``wilson_low``/``wilson_high`` (SPEC §18). ``cases < n`` exactly when some case has more than
    one measured trial, so the counts settle which interval is the headline one."""
    confidence_how = "the pooled Wilson interval"
    if version < 2:  # schema_version 1: the headline interval was Wilson
        _same(d.get("ci_low"), low, f"{at}.ci_low", confidence_how)
        _same(d.get("ci_high"), high, f"{at}.ci_high", confidence_how)
        return
    _same(d.get("wilson_low"), low, f"{at}.wilson_low", confidence_how)
    _same(d.get("wilson_high"), high, f"{at}.wilson_high", confidence_how)
    clustered = c["cases"] < c["n"]
    method = "wilson_clustered" if clustered else "wilson"
    if d.get("interval_method") != method:
        raise _Refusal(f"{at}.interval_method", f"is {_show(d.get('interval_method'))}, but {c['n']} measured trials "
                                                f"of {c['cases']} cases give {method!r}")
    for end in ("low", "high"):
        expected = _number(d.get(f"ci_cluster_{end}")) if clustered else (low if end == "low" else high)
        _same(d.get(f"ci_{end}"), expected, f"{at}.ci_{end}",
              "the case-clustered bound (a case repeats)" if clustered else confidence_how)


def _check_mde(d: Mapping[str, Any], at: str, c: Mapping[str, int], confidence: float, comparisons: int,
               version: int) -> None:
    """``mde``: one-sided at (1 − c)/2 divided by the Holm divisor (schema_version 1: at 1 − c)."""
    from ._stats import dimension_mde, minimum_detectable_drop

    n, passes, deff = c["n"], c["passes"], _number(d.get("deff"))
    if n == 0:
        _same(d.get("mde"), None, f"{at}.mde", "no measured trial")
        return
    if deff is None:
        return  # _check_cluster refused it already
    if version < 2:
        # (z₁₋α + z₀.₈)·√(2p̃(1 − p̃)·deff/n): n trials as cases, times √deff for the effective size n/deff
        expected = float(minimum_detectable_drop((passes + 2) / (n + 4), n, alpha=1.0 - confidence)) * math.sqrt(deff)
        how = "the drop its evidence could detect, one-sided at 1 - confidence (schema_version 1)"
    else:
        expected = float(dimension_mde(passes, n, deff, confidence, comparisons=comparisons))
        how = f"the drop its evidence could detect, one-sided at (1 - confidence)/2 over {comparisons} comparison(s)"
    _same(d.get("mde"), expected, f"{at}.mde", how)


def _check_rate_bounds(d: Mapping[str, Any], at: str, c: Mapping[str, int]) -> None:
    import numpy as np

    from ._decide import rate_bounds

    missing = c["errors"] + c["abstains"]
    [expected] = rate_bounds(np.array([c["passes"]]), np.array([c["n"]]), np.array([missing]))
    stored = d.get("rate_bounds")
    if expected is None:
        if stored is not None:
            raise _Refusal(f"{at}.rate_bounds", f"is {_show(stored)}, but no row is missing (coverage 1): null")
        return
    if not isinstance(stored, list) or len(stored) != 2:
        raise _Refusal(f"{at}.rate_bounds", f"is {_show(stored)}, but {missing} missing rows give {expected!r}")
    for i, value in enumerate(expected):
        _same(stored[i], value, f"{at}.rate_bounds[{i}]", f"{missing} missing rows counted as FAIL / as PASS")


def _missing_could_flip(name: str, c: Mapping[str, int], policy: Any, measure: float | None,
                        in_scope: bool) -> bool | None:
    """Whether missing rows could flip a PASS (SPEC §18) where the stored counts settle it, else None."""
    gate = policy.gate
    threshold = policy.threshold_for(name)
    if not in_scope or threshold is None or c["n"] == 0 or measure is None:
        return False
    if gate.threshold_basis == "cluster_lower" or name in gate.pass_k_thresholds:
        return None  # per-case counts needed
    if measure < threshold:
        return False
    missing = c["errors"] + c["abstains"]
    pessimistic = _measure(c["passes"], c["n"] + missing, gate.threshold_basis, policy.confidence)
    return pessimistic is not None and pessimistic < threshold


def _check_pass_k_ci(d: Mapping[str, Any], at: str) -> None:
    """``pass_k_ci``: null where fewer than 2 cases reach k, else [low, high] in [0, 1] around pass^k."""
    intervals = d.get("pass_k_ci")
    if not isinstance(intervals, Mapping):
        raise _Refusal(f"{at}.pass_k_ci", f"is {_show(intervals)}, not an object keyed like pass_k")
    pass_k, reach = d.get("pass_k") or {}, d.get("pass_k_cases") or {}
    if set(intervals) != set(pass_k):
        raise _Refusal(f"{at}.pass_k_ci", f"has keys {sorted(intervals)}, but pass_k has {sorted(pass_k)}")
    for k, bounds in intervals.items():
        where = f"{at}.pass_k_ci[{k!r}]"
        cases = reach.get(k, 0)
        if not isinstance(cases, int) or cases < 2:
            if bounds is not None:
                raise _Refusal(where, f"is {_show(bounds)}, but {_show(cases)} cases reach k: null")
            continue
        value = _number(pass_k.get(k))
        numbers = [_number(b) for b in bounds] if isinstance(bounds, list) and len(bounds) == 2 else [None, None]
        low, high = numbers
        if value is None or low is None or high is None or not 0.0 <= low <= value + TOLERANCE \
                or not value - TOLERANCE <= high <= 1.0:
            raise _Refusal(where, f"is {_show(bounds)}, but {cases} cases reach k: an interval in [0, 1] "
                                  f"around pass^{k} {_show(pass_k.get(k))}")


def _check_pass_1(d: Mapping[str, Any], at: str, c: Mapping[str, int]) -> None:
    """``trials_vary`` and ``pass_1`` where the counts settle them (equal trials per case: the rate)."""
    n, cases = c["n"], c["cases"]
    least = c.get("curve_k")  # the fewest measured trials of one case
    if n == 0:
        settled: bool | None = False
    elif cases == n:
        settled = False
    elif least is not None:
        settled = least * cases != n
    else:
        settled = None
    vary = d.get("trials_vary")
    if not isinstance(vary, bool) or (settled is not None and vary is not settled):
        raise _Refusal(f"{at}.trials_vary", f"is {_show(vary)}, but {n} measured trials of {cases} cases give "
                                            f"{_show(settled) if settled is not None else 'a boolean'}")
    if not vary:
        _same(d.get("pass_1"), c["passes"] / n if n else None, f"{at}.pass_1",
              "every case has as many measured trials: the rate")
    elif _number(d.get("pass_1")) is None or not 0.0 <= float(d["pass_1"]) <= 1.0:
        raise _Refusal(f"{at}.pass_1", f"is {_show(d.get('pass_1'))}, not a proportion")


def _check_judge_agreement(d: Mapping[str, Any], at: str) -> None:
    """``judge_agreement``: only its shape (the votes are in the evidence, not the scorecard)."""
    value = d.get("judge_agreement")
    if value is None:
        return
    where = f"{at}.judge_agreement"
    if not isinstance(value, Mapping):
        raise _Refusal(where, f"is {_show(value)}, not an object or null")
    units, share, alpha = value.get("units"), _number(value.get("unanimous_share")), value.get("krippendorff_alpha")
    _count(units, f"{where}.units")
    if share is None or not 0.0 <= share <= 1.0:
        raise _Refusal(f"{where}.unanimous_share", f"is {_show(value.get('unanimous_share'))}, not in [0, 1]")
    if alpha is not None and (_number(alpha) is None or float(alpha) > 1.0):
        raise _Refusal(f"{where}.krippendorff_alpha", f"is {_show(alpha)}, not a number <= 1 or null")


def _check_assurance(d: Mapping[str, Any], at: str, c: Mapping[str, int], policy: Any, name: str) -> None:
    """``assurance`` and ``cases_to_settle`` (SPEC §18) from the counts, ``deff`` and the threshold."""
    from ._stats import assurance, cases_to_settle

    threshold, deff = policy.threshold_for(name), _number(d.get("deff"))
    n, passes = c["n"], c["passes"]
    if n == 0 or threshold is None or deff is None or not 0.0 < threshold < 1.0:
        _same(d.get("assurance"), None, f"{at}.assurance",
              "no evidence, no threshold, or a zero-tolerance threshold (0 or 1)")
        sure = None
    else:
        sure = float(assurance(passes, n, threshold, deff))
        _same(d.get("assurance"), sure, f"{at}.assurance", f"P(rate >= {threshold:g}), Jeffreys at n/deff")
    expected: float | None = None
    if sure is not None and d.get("verdict") == "PASS" and sure < policy.confidence:
        expected = float(cases_to_settle(passes, n, c["cases"], threshold, deff, policy.confidence))
    stored = d.get("cases_to_settle")
    if stored is not None:
        _count(stored, f"{at}.cases_to_settle")
    _same(stored, expected, f"{at}.cases_to_settle", "a PASS below the confidence: cases for the Wilson bound")


def _check_dimension(d: Mapping[str, Any], at: str, policy: Any, scope: set[str],
                     failed_controls: set[str], version: int) -> tuple[dict[str, int], bool]:
    name = str(d.get("name"))
    c = _check_counts(d, at)
    confidence = policy.confidence
    n, passes, total = c["n"], c["passes"], c["n"] + c["errors"] + c["abstains"]
    _same(d.get("rate"), passes / n if n else None, f"{at}.rate", f"passes {passes} / n {n}")
    low, high = _wilson(passes, n, confidence)
    if "coverage" in d:
        _same(d.get("coverage"), n / total if total else None, f"{at}.coverage", f"n {n} / all {total} agent rows")
    _check_cluster(d, at, c, low, high)
    _check_headline(d, at, c, low, high, version)
    holm = version >= 2 and policy.regression.multiplicity == "holm"
    _check_mde(d, at, c, confidence, max(len(scope), 1) if holm else 1, version)
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
    flip: bool | None = False
    if version >= 2:
        _check_rate_bounds(d, at, c)
        _check_pass_k_ci(d, at)
        _check_pass_1(d, at, c)
        _check_judge_agreement(d, at)
        flip = _missing_could_flip(name, c, policy, measure, name in scope)
        stored_flip = d.get("missing_could_flip")
        if not isinstance(stored_flip, bool) or (flip is not None and stored_flip is not flip):
            expected = _show(flip) if flip is not None else "a boolean"
            raise _Refusal(f"{at}.missing_could_flip", f"is {_show(stored_flip)}, but its counts and the stored "
                                                       f"policy give {expected}")
        if policy.gate.missing_evidence != "bound":
            flip = False
        elif stored_flip and d.get("verdict") == "PASS":
            raise _Refusal(f"{at}.verdict", "is PASS, but missing_could_flip is true: INCOMPLETE (SPEC §18)")
    allowed = _allowed_verdicts(name, c, name in scope, policy, measure, failed_controls, flip)
    if d.get("verdict") not in allowed:
        raise _Refusal(f"{at}.verdict", f"is {_show(d.get('verdict'))}, but its counts and the stored policy give "
                                        f"{' or '.join(sorted(allowed))} (SPEC §8)")
    if version >= 2:
        _check_assurance(d, at, c, policy, name)
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


def _version(data: Mapping[str, Any]) -> int:
    """The stored ``schema_version``: 1 (before SPEC §18) or 2; another is refused."""
    from ._version import SCHEMA_VERSION

    version = data.get("schema_version", 1)
    if type(version) is not int or not 1 <= version <= SCHEMA_VERSION:
        raise _Refusal("$.schema_version", f"is {_show(version)}, not a scorecard layout this scorekit reads "
                                           f"(1 to {SCHEMA_VERSION})")
    return version


def _check_error_rates(data: Mapping[str, Any], policy: Any) -> None:
    """``error_rates`` (schema_version 2): as :func:`scorekit._decide.error_rates` gives it."""
    from ._decide import error_rates

    comparison = data.get("comparison") if isinstance(data.get("comparison"), Mapping) else None
    expected = error_rates(policy, comparison)
    stored = data.get("error_rates")
    if not isinstance(stored, Mapping):
        raise _Refusal("$.error_rates", f"is {_show(stored)}, but the stored policy gives {expected!r}")
    for key in ("confidence", "alpha"):
        _same(stored.get(key), expected[key], f"$.error_rates.{key}", "the stored policy's confidence")
    for key in ("multiplicity", "comparisons"):
        if stored.get(key) != expected[key] or type(stored.get(key)) is not type(expected[key]):
            raise _Refusal(f"$.error_rates.{key}", f"is {_show(stored.get(key))}, but the stored policy and "
                                                   f"comparison give {expected[key]!r}")


def _check(data: Mapping[str, Any]) -> None:
    version = _version(data)
    dims = [d for d in data.get("dimensions") or [] if isinstance(d, Mapping)]
    policy = _policy(data, dims)
    if version >= 2:
        _check_error_rates(data, policy)
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
        counts, in_scope = _check_dimension(d, f"$.dimensions[{i}]", policy, scope, failed_controls, version)
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
