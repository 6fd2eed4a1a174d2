"""Shared formatting for every renderer of the section model: one function per kind of number.

Every report renders the same dictionary (``Scorecard.to_dict()``), and every
number a reader compares between formats goes through one function here, so the
Markdown and HTML reports cannot disagree about ``84.7%``.

Rules (SPEC §12):

* rates, interval bounds, thresholds, coverage, consistency and pass^k are
  percentages with one decimal (``84.7%``);
* an undefined number (``None`` in the dictionary, NaN in the DataFrame) is shown
  as :data:`UNDEFINED` ("—"), never as ``0%``;
* a value that is not exactly 1 is never shown as ``100.0%`` and a value that is
  not exactly 0 never as ``0.0%`` (``99.96%`` is shown as ``99.9%``): a FAIL
  against a threshold of 100% must not read ``100.0%``;
* long lists are cut at :data:`LIST_LIMIT` items with "… and N more (see …)".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from .._escape import clean, html_text, markdown_fence, markdown_text, markdown_unescape

__all__ = [
    "DECISION_MEANING",
    "DETAIL_LIMIT",
    "INTERVAL_NAMES",
    "LIST_LIMIT",
    "POINT_BASIS_NOTE",
    "TEST_COLUMNS",
    "TWO_INTERVALS_NOTE",
    "VARIANCE_HEADER",
    "UNDEFINED",
    "REGRESSION_COLUMNS",
    "agreement_text",
    "assurance_text",
    "baseline_text",
    "case_change_text",
    "cases_text",
    "comparison_level_text",
    "clean_text",
    "comparison_facts",
    "describe_mapping",
    "evidence_row_count",
    "fmt_bool",
    "fmt_ci",
    "fmt_confidence",
    "fmt_count",
    "fmt_pct",
    "variance_cells",
    "pass_k_on_curve",
    "mde_text",
    "fmt_pass_k",
    "fmt_deff",
    "fmt_p",
    "fmt_pp",
    "fmt_value",
    "error_rates_text",
    "h",
    "interval_label",
    "md_escape",
    "md_fence",
    "md_unescape",
    "method_text",
    "more_text",
    "pass_k_columns",
    "pass_1_text",
    "problem_text",
    "rate_bounds_text",
    "regression_columns",
    "regression_rows",
    "settle_text",
    "truncate",
]

T = TypeVar("T")

#: How undefined numbers are shown (never ``0%``).
UNDEFINED = "—"
#: Longest list a report prints before "… and N more".
LIST_LIMIT = 50
# Case details shown under one finding in the HTML and Markdown reports.
DETAIL_LIMIT = 20

#: What each decision means (seed document, "Scorecard and release scope").
DECISION_MEANING = {
    "PASS": "Complete release evidence meets every included and required threshold.",
    "FAIL": "A measured threshold or a required compatible regression comparison fails.",
    "INCOMPLETE": "Required evaluation evidence or comparison is missing or unusable.",
    "TRIAGE": "A partial or exploratory scan; never a passing release gate.",
    "SELF_TEST": "An evaluator demonstration, including mock judges; never a passing release gate.",
}


# --------------------------------------------------------------------------- numbers
def _is_undefined(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return value is None
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def fmt_pct(value: Any) -> str:
    """A proportion in [0, 1] as a percentage with one decimal; undefined → "—".

    >>> fmt_pct(0.8473), fmt_pct(None), fmt_pct(1.0), fmt_pct(0.99996), fmt_pct(0.0)
    ('84.7%', '—', '100.0%', '99.9%', '0.0%')
    """
    if _is_undefined(value):
        return UNDEFINED
    x = float(value)
    pct = round(100.0 * x, 1)
    if pct >= 100.0 and x < 1.0:
        pct = 99.9
    elif pct <= 0.0 and x > 0.0:
        pct = 0.1
    return f"{pct:.1f}%"


def fmt_ci(low: Any, high: Any) -> str:
    """An interval as ``"79.5% – 95.3%"``; "—" when either bound is undefined."""
    if _is_undefined(low) or _is_undefined(high):
        return UNDEFINED
    return f"{fmt_pct(low)} – {fmt_pct(high)}"


def fmt_count(value: Any) -> str:
    """An integer count with thousands separators (``16,667``); undefined → "—"."""
    if _is_undefined(value):
        return UNDEFINED
    return f"{int(value):,}"


def fmt_bool(value: Any) -> str:
    """``true`` / ``false`` as in the JSON; None → "—"."""
    if value is None:
        return UNDEFINED
    return "true" if value else "false"


def fmt_value(value: Any) -> str:
    """Any scalar of the dictionary as short text (numbers as in the JSON)."""
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return fmt_bool(value)
    if isinstance(value, float):
        return UNDEFINED if not math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt_value(v) for v in value) if value else UNDEFINED
    if isinstance(value, dict):
        return ", ".join(f"{k}: {fmt_value(v)}" for k, v in value.items()) if value else UNDEFINED
    return str(value)


def fmt_pp(value: Any) -> str:
    """A difference of two proportions in percentage points (``-3.2 pp``); undefined → "—"."""
    if _is_undefined(value):
        return UNDEFINED
    return f"{100.0 * float(value):+.1f} pp"


def fmt_confidence(confidence: Any) -> str:
    """A confidence level as the short percentage an interval is labelled with.

    Every digit the level has is kept (it is a setting, not a measurement):

    >>> fmt_confidence(0.95), fmt_confidence(0.8), fmt_confidence(0.999), fmt_confidence(0.9999)
    ('95%', '80%', '99.9%', '99.99%')
    """
    if _is_undefined(confidence):
        return UNDEFINED
    return f"{round(100.0 * float(confidence), 6):g}%"


def confidence_label(data: Mapping[str, Any]) -> str:
    """The confidence of a scorecard dictionary's intervals as a short percentage ("95%", "80%")."""
    confidence = data.get("confidence")
    if confidence is None:
        confidence = (data.get("policy") or {}).get("confidence", 0.95)
    return fmt_confidence(confidence)


def pass_k_columns(dimensions: Sequence[Mapping[str, Any]]) -> list[str]:
    """The k values reported by any dimension, as strings sorted numerically."""
    keys: set[str] = set()
    for dim in dimensions:
        keys.update(str(k) for k in (dim.get("pass_k") or {}))

    def order(k: str) -> tuple[int, float, str]:
        try:
            return (0, float(k), k)
        except ValueError:
            return (1, 0.0, k)

    return sorted(keys, key=order)


# Why a report shows two intervals per dimension (SPEC §6).
TWO_INTERVALS_NOTE = (
    "Two intervals per dimension: the Wilson interval treats every trial as independent; the case-clustered "
    "interval treats the case as the unit of sampling (repeated trials of one case are correlated, Miller 2024), "
    "so it is wider when trials repeat (design effect deff above 1) and equal when every case has one trial. "
    "Read the clustered one as the honest uncertainty about the suite."
)


def pass_k_on_curve(dim: Mapping[str, Any], k: str) -> bool:
    """Whether pass^k of ``dim`` covers every case (k ≤ the least trials of a case):
    only such values lie on one curve that cannot rise with k (SPEC §6)."""
    try:
        return int(k) <= int(dim.get("curve_k") or 0)
    except (TypeError, ValueError):
        return False


def fmt_pass_k(dim: Mapping[str, Any], k: str, *, interval: bool = False) -> str:
    """pass^k of ``dim``; a value over a subset of the cases is marked with its case count.

    ``interval``: add its interval (``pass_k_ci``, SPEC §18) when the dimension has one:

    >>> dim = {"pass_k": {"2": 0.5}, "pass_k_ci": {"2": [0.1771, 0.8229]}, "curve_k": 3}
    >>> fmt_pass_k(dim, "2"), fmt_pass_k(dim, "2", interval=True)
    ('50.0%', '50.0% (CI 17.7% – 82.3%)')
    """
    value = (dim.get("pass_k") or {}).get(k)
    if _is_undefined(value):
        return UNDEFINED
    notes = []
    if not pass_k_on_curve(dim, k):
        covered = (dim.get("pass_k_cases") or {}).get(k)
        notes.append(f"over {fmt_count(covered)} of {fmt_count(dim.get('cases'))} cases")
    bounds = (dim.get("pass_k_ci") or {}).get(k) if interval else None
    if isinstance(bounds, (list, tuple)) and len(bounds) == 2 and fmt_ci(*bounds) != UNDEFINED:
        notes.append(f"CI {fmt_ci(*bounds)}")
    return fmt_pct(value) + (f" ({'; '.join(notes)})" if notes else "")


def fmt_deff(value: Any) -> str:
    """A design effect with two decimals (``2.45``); undefined → "—"."""
    if _is_undefined(value):
        return UNDEFINED
    return f"{float(value):.2f}"


def mde_text(value: Any) -> str:
    """The minimum detectable drop in words: ``a drop of 6.1 points or more``."""
    if _is_undefined(value):
        return UNDEFINED
    return f"a drop of {100.0 * float(value):.1f} points or more"


def fmt_p(value: Any) -> str:
    """A p-value with four decimals (``0.0249``: never rounded onto a level such as 2.5%); below
    0.0001 as ``< 0.0001``; undefined → "—".

    >>> fmt_p(0.02494), fmt_p(1.0), fmt_p(3e-7), fmt_p(None)
    ('0.0249', '1.0000', '< 0.0001', '—')
    """
    if _is_undefined(value):
        return UNDEFINED
    p = float(value)
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


#: How each ``interval_method`` of a dimension is named beside its interval (SPEC §18).
INTERVAL_NAMES = {"wilson_clustered": "case-clustered", "wilson": "Wilson"}


def interval_label(conf: str, methods: Iterable[Any]) -> str:
    """The label of the headline interval column: ``95% CI (case-clustered)``, ``95% CI (Wilson)``,
    ``95% CI`` when dimensions differ (each cell then names its own), or ``95% Wilson CI`` for a
    scorecard written before ``interval_method`` existed (its ``ci_low``/``ci_high`` are Wilson).

    >>> interval_label("95%", ["wilson_clustered"]), interval_label("95%", [None])
    ('95% CI (case-clustered)', '95% Wilson CI')
    """
    named = {INTERVAL_NAMES.get(str(m), str(m)) for m in methods if m is not None}
    if not named:
        return f"{conf} Wilson CI"
    return f"{conf} CI ({named.pop()})" if len(named) == 1 else f"{conf} CI"


def assurance_text(threshold: Any, assurance: Any) -> str:
    """``meets 90.0% with probability 47.4%`` (SPEC §18); "—" when either is undefined."""
    if _is_undefined(threshold) or _is_undefined(assurance):
        return UNDEFINED
    return f"meets {fmt_pct(threshold)} with probability {fmt_pct(assurance)}"


def settle_text(cases: Any) -> str:
    """``about 97 cases would settle it`` (``cases_to_settle``); "" when there is none."""
    return "" if _is_undefined(cases) else f"about {fmt_count(cases)} cases would settle it"


def rate_bounds_text(bounds: Any, missing: Any) -> str:
    """``between 61.0% and 78.0% had the 9 missing rows been measured``; "" without bounds."""
    if not isinstance(bounds, (list, tuple)) or len(bounds) != 2 or fmt_ci(*bounds) == UNDEFINED:
        return ""
    rows = "row" if missing == 1 else "rows"
    return f"between {fmt_pct(bounds[0])} and {fmt_pct(bounds[1])} had the {fmt_count(missing)} missing {rows} " \
        "been measured"


def pass_1_text(value: Any) -> str:
    """``pass^1 (every case weighs the same) 81.2%``; "" when undefined."""
    return "" if _is_undefined(value) else f"pass^1 (every case weighs the same) {fmt_pct(value)}"


def agreement_text(agreement: Any) -> str:
    """``judge agreement: Krippendorff's α 0.62 over 40 rows, 75.0% unanimous``; "" without agreement."""
    if not isinstance(agreement, Mapping):
        return ""
    alpha = agreement.get("krippendorff_alpha")
    units = agreement.get("units")
    rows = "row" if units == 1 else "rows"
    value = "undefined" if alpha is None or _is_undefined(alpha) else f"{float(alpha):.2f}"
    return (f"judge agreement: Krippendorff's α {value} over {fmt_count(units)} {rows}, "
            f"{fmt_pct(agreement.get('unanimous_share'))} unanimous")


#: The note under the point threshold basis (SPEC §18): the assurance is what to read.
POINT_BASIS_NOTE = ("Under the point basis a dimension measured exactly at its threshold passes about half the "
                    "time, so read the assurance beside its verdict.")


def _dimensions_word(count: int) -> str:
    return "the one dimension compared" if count == 1 else f"the {count:,} dimensions compared"


def error_rates_text(error_rates: Any, comparison: Any, basis: str = "point") -> str:
    """One sentence saying what a regression verdict, or PASS and FAIL, mean at the scorecard's level
    (``error_rates``, SPEC §18); "" for a scorecard written before ``error_rates`` existed.

    >>> rates = {"confidence": 0.95, "alpha": 0.025, "multiplicity": "holm", "comparisons": 8}
    >>> print(error_rates_text(rates, {"regressions": [{"method_used": "paired"}]}))
    A regression verdict is a drop shown at the 2.5% level (one-sided) across the 8 dimensions compared (Holm); 95% ...
    """
    if not isinstance(error_rates, Mapping):
        return ""
    conf, level = fmt_confidence(error_rates.get("confidence")), fmt_confidence(error_rates.get("alpha"))
    count = error_rates.get("comparisons")
    entries = [e for e in ((comparison or {}).get("regressions") or []) if isinstance(e, Mapping)]
    if isinstance(count, int) and count > 0:
        if error_rates.get("multiplicity") == "holm":
            return (f"A regression verdict is a drop shown at the {level} level (one-sided) across "
                    f"{_dimensions_word(count)} (Holm); {conf} intervals.")
        return (f"A regression verdict is a drop shown at the {level} level (one-sided) in each of "
                f"{_dimensions_word(count)}, without multiplicity correction; {conf} intervals.")
    if entries and all(e.get("method_used", e.get("method")) == "point" for e in entries):
        return (f"A regression verdict is a point drop beyond max_drop with no stated error rate (method point); "
                f"{conf} intervals.")
    if basis == "point":
        meaning = ("PASS means every dimension in scope measured at or above its threshold and FAIL that one "
                   "measured below (exactly at its threshold a dimension passes about half the time, so read its "
                   "assurance)")
    else:
        meaning = (f"PASS means every dimension's {conf} lower bound ({basis}) meets its threshold, so a dimension "
                   f"truly below its threshold passes at most {level} of the time, and FAIL that one does not")
    return f"{meaning}; no regression comparison was made; {conf} intervals."


def variance_cells(dim: dict[str, Any]) -> list[str] | None:
    """Run-to-run variance of one dimension as table cells (runs, incomplete, mean,
    stdev, CV, t interval (clipped is marked), z half-width), or None without a run structure."""
    v = dim.get("variance")
    if not v:
        return None
    ci = fmt_ci(v.get("ci_low"), v.get("ci_high"))
    if v.get("clipped") and ci != UNDEFINED:
        ci += " (clipped to [0%, 100%])"
    return [
        str(v.get("basis") or UNDEFINED), fmt_count(v.get("runs")), fmt_count(v.get("incomplete_runs")),
        fmt_pct(v.get("mean")), fmt_pp(v.get("stdev")).lstrip("+") if not _is_undefined(v.get("stdev")) else UNDEFINED,
        UNDEFINED if _is_undefined(v.get("cv_pct")) else f"{float(v['cv_pct']):.1f}%",
        ci, UNDEFINED if _is_undefined(v.get("z_half_width")) else f"±{100.0 * float(v['z_half_width']):.1f} pp",
        str(v.get("note") or ""),
    ]


VARIANCE_HEADER = ["dimension", "run basis", "complete runs", "incomplete runs", "mean", "stdev", "CV",
                   "t interval of the mean", "z half-width", "note"]


def describe_mapping(mapping: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, text)`` pairs of a small record of unknown shape (a baseline, a regression).

    Floats in [0, 1] are proportions in this dictionary and shown as percentages;
    everything else as :func:`fmt_value`. The text is *not* escaped.
    """
    pairs = []
    for key, value in mapping.items():
        if isinstance(value, float) and 0.0 <= value <= 1.0:
            pairs.append((str(key), fmt_pct(value)))
        else:
            pairs.append((str(key), fmt_value(value)))
    return pairs


def problem_text(problem: Any) -> str:
    """A validation problem as ``file:line: field: message`` (not escaped)."""
    if isinstance(problem, dict):
        if problem.get("text"):
            return str(problem["text"])
        return f"{problem.get('source')}:{problem.get('line')}: {problem.get('field')}: {problem.get('message')}"
    return str(problem)


# --------------------------------------------------------------------------- comparison
#: Columns of the regression table of a scorecard written before SPEC §18 (one row per compared dimension).
REGRESSION_COLUMNS = ("dimension", "status", "baseline", "candidate", "difference", "shared cases", "limit", "rule")
#: Columns of the regression table with the SPEC §18 fields (p-values, the method that ran, the case counts).
TEST_COLUMNS = ("dimension", "status", "baseline", "candidate", "difference", "p-value", "p adjusted", "method",
                "cases compared", "rule")
_DIFF_INTERVALS = {"wilson": "Wilson", "newcombe": "Newcombe", "t": "paired t"}
_REGRESSION_ORDER = {"regressed": 0, "undefined": 1}


def fmt_side(side: Any) -> str:
    """One side of a comparison (``{rate, ci_low, ci_high, n}``) as ``"84.7% (79.5% – 95.3%), n 59"``."""
    if not isinstance(side, dict):
        return fmt_value(side)
    text = f"{fmt_pct(side.get('rate'))}"
    if side.get("ci_low") is not None and side.get("ci_high") is not None:
        text += f" ({fmt_ci(side.get('ci_low'), side.get('ci_high'))})"
    return text + f", n {fmt_count(side.get('n'))}"


def _has_tests(comparison: Mapping[str, Any]) -> bool:
    """Whether the comparison's entries carry the SPEC §18 fields (``p_value``, ``method_used``)."""
    return any(isinstance(e, dict) and ("p_value" in e or "method_used" in e)
               for e in comparison.get("regressions") or [])


def regression_columns(comparison: Mapping[str, Any]) -> tuple[str, ...]:
    """The columns :func:`regression_rows` fills for ``comparison``: :data:`TEST_COLUMNS` when its entries
    carry p-values, else (a scorecard written before SPEC §18) :data:`REGRESSION_COLUMNS`."""
    return TEST_COLUMNS if _has_tests(comparison) else REGRESSION_COLUMNS


def _difference(entry: Mapping[str, Any]) -> str:
    """The difference with its interval: ``ci_low``/``ci_high`` (SPEC §18), else the older ``diff_low`` /
    ``diff_high`` named by ``diff_interval``, else the Newcombe ``difference_ci_*``."""
    text = fmt_pp(entry.get("difference"))
    if "p_value" in entry or "method_used" in entry:
        low, high, kind = entry.get("ci_low"), entry.get("ci_high"), None
    else:
        low, high, kind = entry.get("diff_low"), entry.get("diff_high"), entry.get("diff_interval")
        if low is None or high is None:
            low, high, kind = entry.get("difference_ci_low"), entry.get("difference_ci_high"), "newcombe"
    if _is_undefined(low) or _is_undefined(high):
        return text
    named = f", {_DIFF_INTERVALS.get(str(kind), str(kind))}" if kind is not None else ""
    return text + f" ({fmt_pp(low)} to {fmt_pp(high)}{named})"


def method_text(entry: Mapping[str, Any]) -> str:
    """The test that ran (``method_used``), saying so when it is not the one asked for (``method``)."""
    used, asked = entry.get("method_used"), entry.get("method")
    if used is None:
        return fmt_value(asked)
    if asked is not None and asked != used:
        return f"{fmt_value(used)} ({fmt_value(asked)} asked; no per-case counts on both sides)" \
            if asked == "paired" else f"{fmt_value(used)} ({fmt_value(asked)} asked)"
    return fmt_value(used)


def cases_text(entry: Mapping[str, Any]) -> str:
    """``48 shared, 2 only in the baseline, 0 only in the candidate``; "—" without per-case counts."""
    shared = entry.get("shared_cases")
    if shared is None:
        return UNDEFINED
    text = f"{fmt_count(shared)} shared"
    for key, where in (("cases_only_baseline", "baseline"), ("cases_only_candidate", "candidate")):
        if entry.get(key) is not None:
            text += f", {fmt_count(entry[key])} only in the {where}"
    return text


def regression_rows(comparison: dict[str, Any]) -> list[list[str]]:
    """The comparison's per-dimension entries as display rows (not escaped), regressed first, in the
    columns of :func:`regression_columns`.

    Entries are those of :func:`scorekit._regression.regressions`: ``dimension``,
    ``status``, ``baseline``/``candidate`` ``{n, passes, rate, ci_low, ci_high}``,
    ``difference`` with its interval, ``p_value``, ``p_adjusted``, ``method`` /
    ``method_used``, the case counts and ``rule`` (SPEC §18); an entry written
    before SPEC §18 (``diff_low``/``diff_high``, ``limit``) is shown in the older
    columns; an entry of another shape is shown as ``key: value`` text.
    """
    method = comparison.get("method")
    columns = regression_columns(comparison)
    entries = list(comparison.get("regressions") or [])
    entries.sort(key=lambda e: _REGRESSION_ORDER.get(str(e.get("status")), 2) if isinstance(e, dict) else 3)
    rows = []
    for entry in entries:
        if not isinstance(entry, dict) or "dimension" not in entry:
            text = (
                ", ".join(f"{k}: {v}" for k, v in describe_mapping(entry))
                if isinstance(entry, dict)
                else fmt_value(entry)
            )
            rows.append([text] + [UNDEFINED] * (len(columns) - 1))
            continue
        head = [
            fmt_value(entry.get("dimension")),
            fmt_value(entry.get("status", "regressed" if entry.get("regressed") else UNDEFINED)),
            fmt_side(entry.get("baseline")),
            fmt_side(entry.get("candidate")),
            _difference(entry),
        ]
        rule = fmt_value(entry.get("rule")) if entry.get("rule") is not None else UNDEFINED
        if columns is TEST_COLUMNS:
            rows.append(head + [fmt_p(entry.get("p_value")), fmt_p(entry.get("p_adjusted")), method_text(entry),
                                cases_text(entry), rule])
            continue
        shared, limit = entry.get("shared_cases"), entry.get("limit")
        rows.append(head + [fmt_count(shared) if shared is not None else UNDEFINED,
                            fmt_pct(limit) if method == "interval" else fmt_pp(limit), rule])
    return rows


def case_change_text(case: Mapping[str, Any]) -> str:
    """One case of ``regressed_cases`` / ``improved_cases`` without its id: ``100.0% → 66.7% (-33.3 pp)``."""
    return f"{fmt_pct(case.get('baseline'))} → {fmt_pct(case.get('candidate'))} ({fmt_pp(case.get('change'))})"


def comparison_level_text(comparison: Mapping[str, Any]) -> str:
    """``one-sided at 2.5%, Holm across 8 dimensions`` from the comparison's ``alpha``, ``multiplicity`` and
    ``comparisons`` (SPEC §18); "" for a comparison written before them."""
    alpha = comparison.get("alpha")
    if _is_undefined(alpha):
        return ""
    text = f"one-sided at {fmt_confidence(alpha)}"
    count = comparison.get("comparisons")
    count_text = "" if not isinstance(count, int) else f" across {fmt_count(count)} " + \
        ("dimension" if count == 1 else "dimensions")
    if comparison.get("multiplicity") == "holm":
        return text + f", Holm{count_text}"
    if comparison.get("multiplicity") == "none":
        return text + f" per dimension, no multiplicity correction{count_text.replace(' across', ';')}"
    return text + count_text


def baseline_text(baseline: Any) -> str:
    """The comparison's baseline in one line (not escaped); "none" when there is none."""
    if baseline is None or baseline == {}:
        return "none"
    if not isinstance(baseline, dict):
        return fmt_value(baseline)
    if "id" in baseline or "label" in baseline:
        agent = baseline.get("agent") if isinstance(baseline.get("agent"), dict) else {}
        parts = [f"record {fmt_value(baseline.get('id'))}"]
        if baseline.get("label") is not None:
            parts.append(f"label {fmt_value(baseline.get('label'))}")
        if agent:
            parts.append(f"agent {fmt_value(agent.get('name'))} {fmt_value(agent.get('version'))}")
        for key in ("created_at", "decision", "measured_decision", "scoring_version"):
            if baseline.get(key) is not None:
                parts.append(f"{key} {fmt_value(baseline[key])}")
        return ", ".join(parts)
    return ", ".join(f"{k}: {v}" for k, v in describe_mapping(baseline))


def comparison_facts(comparison: dict[str, Any]) -> list[tuple[str, str]]:
    """``(label, text)`` lines of the comparison besides its table (not escaped)."""
    facts = [("status", fmt_value(comparison.get("status")))]
    if "required" in comparison:
        facts.append(("required", fmt_bool(comparison.get("required"))))
    if comparison.get("method") is not None:
        method = fmt_value(comparison["method"])
        if comparison.get("max_drop") is not None:
            method += f" (max_drop {fmt_pp(comparison['max_drop']).lstrip('+')})"
        facts.append(("method", method))
    level = comparison_level_text(comparison)
    if level:
        facts.append(("level", level))
    facts.append(("baseline", baseline_text(comparison.get("baseline"))))
    if comparison.get("baseline_label") is not None:
        facts.append(("baseline label asked for", fmt_value(comparison["baseline_label"])))
    if comparison.get("rescored_from") is not None:
        facts.append(("re-scores the output of record", fmt_value(comparison["rescored_from"])))
    if comparison.get("detail"):
        facts.append(("detail", fmt_value(comparison["detail"])))
    regressions = comparison.get("regressions") or []
    regressed = sum(
        1 for r in regressions if isinstance(r, dict) and (r.get("regressed") or r.get("status") == "regressed")
    )
    facts.append(("regressions", f"{regressed:,} regressed of {len(regressions):,} compared"))
    return facts


# --------------------------------------------------------------------------- lists
def truncate(items: Iterable[T], limit: int = LIST_LIMIT) -> tuple[list[T], int]:
    """The first ``limit`` items and how many were left out."""
    items = list(items)
    if len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit


def more_text(omitted: int, where: str = "evidence.parquet") -> str:
    """``"… and 12 more (see evidence.parquet)"``; empty when nothing was omitted."""
    if omitted <= 0:
        return ""
    return f"… and {omitted:,} more (see {where})"


def evidence_row_count(data: dict[str, Any], evidence_rows: int | None = None) -> int | None:
    """Rows in ``evidence.parquet``: the explicit count, else the dictionary's own.

    Uses ``data["evidence"]["rows"]`` when the scorecard carries it, else the
    validation counts (every row is labeled, unlabeled or invalid).
    """
    if evidence_rows is not None:
        return int(evidence_rows)
    evidence = data.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("rows"), int):
        return int(evidence["rows"])
    validation = data.get("validation") or {}
    try:
        return int(validation["labeled"]) + int(validation["unlabeled"]) + int(validation["invalid"])
    except (KeyError, TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- text
# The escaping rules live in scorekit._escape (one module, SPEC §20); these adapters
# first format a non-string value of the dictionary as the reports show it (None → "—").
def _text(value: Any) -> str:
    return value if isinstance(value, str) else fmt_value(value)


def clean_text(value: Any) -> str:
    """``value`` as text with control characters, bidirectional controls, lone surrogates and
    non-characters replaced by U+FFFD (:func:`scorekit._escape.clean`).

    >>> clean_text("invoice\u202efdp.exe")
    'invoice\ufffdfdp.exe'
    """
    return clean(_text(value))


def h(value: Any) -> str:
    """``value`` as text made inert for HTML text or a quoted attribute (:func:`scorekit._escape.html_text`).

    >>> h('<a href="https://x">')
    '&lt;a href=&quot;https:&#47;&#47;x&quot;&gt;'
    """
    return html_text(_text(value))


def md_escape(value: Any, *, newline: str = "<br>") -> str:
    """``value`` as text made inert for Markdown (:func:`scorekit._escape.markdown_text`): no line break, no
    HTML, no link, no emphasis, no table break, no block started.

    >>> md_escape("a|b <i>[x](javascript:alert(1))")
    'a\\\\|b &lt;i&gt;\\\\[x\\\\](javascript:alert(1))'
    """
    return markdown_text(_text(value), newline=newline)


#: Inverse of :func:`md_escape` (for readers and tests).
md_unescape = markdown_unescape
#: A code fence ``text`` cannot close.
md_fence = markdown_fence
