"""Two evaluations side by side, per dimension (SPEC §17 ``compare``, §18).

Each side is a :class:`~scorekit.Scorecard`, a scorecard dictionary or a stored
``scorecard.json``, or — with ``history=`` — the latest record of a label in a
history database. Per dimension: both rates with their Wilson intervals, the
difference (B − A) with its interval, the one-sided test of a drop (p-value,
Holm-adjusted p-value, ``significant``: whether B regressed), the shared cases and those only on
one side, the cases whose rate fell or rose, and the change of verdict.

The comparison is :func:`scorekit._regression.regressions` with the defaults
of SPEC §7 (``method: paired``, ``multiplicity: holm``, ``max_drop: 0``), the
comparison the history's regression check makes: the **paired** t-test of the
mean per-case difference (Miller 2024, §4) when both sides hold
per-(dimension, case) counts — a Scorecard in memory (its evidence) or a
history record written with them —; otherwise ``newcombe``, the Newcombe (1998)
hybrid-score test of the two rates from each side's case-clustered interval
(a stored scorecard records its design effects). A dimension regressed when
its Holm-adjusted p ≤ α = (1 − confidence)/2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARE_COLUMNS", "compare"]

#: Columns of :func:`compare`'s DataFrame (indexed by ``dimension``).
COMPARE_COLUMNS = (
    "n_a", "passes_a", "rate_a", "ci_low_a", "ci_high_a", "verdict_a",
    "n_b", "passes_b", "rate_b", "ci_low_b", "ci_high_b", "verdict_b",
    "difference", "ci_low", "ci_high", "method_used", "p_value", "p_adjusted", "significant",
    "shared_cases", "cases_only_a", "cases_only_b", "regressed_cases", "improved_cases", "verdict_change",
)
#: The comparison sk.compare makes: the policy defaults of SPEC §7.
_METHOD, _MULTIPLICITY, _MAX_DROP = "paired", "holm", 0.0


@dataclass(frozen=True)
class _Side:
    label: str
    dims: pd.DataFrame            # indexed by dimension: passes, n, verdict
    cases: pd.DataFrame | None    # dimension, case_id, passes, n
    confidence: float
    agent: str = ""               # "name version", empty when the evaluation names none
    decision: str | None = None
    partial: bool = False
    purpose: str | None = None
    source: str = "scorekit rows"  # where the rows came from (SPEC §15 source line) or the history record
    suite: str | None = None
    policy: str | None = None
    identity: Any = None          # equal on both sides: the same record
    retired_method: str | None = None  # a regression method its policy recorded that is no longer one


def _agent_of(agent: Any) -> str:
    agent = agent if isinstance(agent, Mapping) else {}
    return " ".join(str(agent[k]) for k in ("name", "version") if agent.get(k) not in (None, ""))


def _label_of(agent: Any, fallback: str) -> str:
    return _agent_of(agent) or fallback


def _source_of(data: Mapping[str, Any]) -> str:
    source = data.get("source")
    if not isinstance(source, Mapping):
        return "scorekit rows"
    from .importers._base import source_line

    return source_line(source)


def _from_dict(data: Mapping[str, Any], fallback: str, identity: Any = None) -> _Side:
    import pandas as pd

    dims = [d for d in data.get("dimensions") or [] if isinstance(d, Mapping) and "name" in d]
    frame = pd.DataFrame(
        {"passes": [int(d.get("passes") or 0) for d in dims], "n": [int(d.get("n") or 0) for d in dims],
         "verdict": [str(d.get("verdict")) for d in dims],
         "deff": [float(d["deff"]) if isinstance(d.get("deff"), (int, float)) else float("nan") for d in dims]},
        index=pd.Index([str(d["name"]) for d in dims], name="dimension"),
    )
    confidence = float((data.get("policy") or {}).get("confidence", 0.95))
    hashes = data.get("hashes") if isinstance(data.get("hashes"), Mapping) else {}
    return _Side(_label_of(data.get("agent"), fallback), frame, None, confidence, agent=_agent_of(data.get("agent")),
                 decision=data.get("decision"), partial=bool(data.get("partial", False)),
                 purpose=data.get("purpose"), source=_source_of(data), suite=(hashes or {}).get("suite"),
                 policy=(hashes or {}).get("policy"), identity=identity,
                 retired_method=_retired_method(data.get("policy")))


def _retired_method(policy: Any) -> str | None:
    """The retired ``regression.method`` a recorded policy names (``interval``), or None."""
    from ._policy import RETIRED_REGRESSION_METHODS

    regression = policy.get("regression") if isinstance(policy, Mapping) else None
    method = regression.get("method") if isinstance(regression, Mapping) else None
    return method if isinstance(method, str) and method in RETIRED_REGRESSION_METHODS else None


def _reading_notes(a: _Side, b: _Side, used: str) -> list[str]:
    """Reading is not choosing: a side whose policy recorded a retired method is compared with today's."""
    return [f"{which} recorded the retired regression method {side.retired_method!r}: read, not chosen; "
            f"compared with {used}" for which, side in (("A", a), ("B", b)) if side.retired_method is not None]


def _from_card(card: Any, fallback: str) -> _Side:
    dims = card.dimensions[["passes", "n", "verdict"]].rename(index=str)
    dims.index.name = "dimension"
    confidence = float((card.policy or {}).get("confidence", 0.95))
    hashes = card.hashes or {}
    return _Side(_label_of(card.agent, fallback), dims, card.case_counts, confidence, agent=_agent_of(card.agent),
                 decision=card.decision, partial=bool(card.partial), purpose=card.purpose,
                 source=_source_of({"source": card.source}), suite=hashes.get("suite"), policy=hashes.get("policy"),
                 identity=("card", id(card)))


def _from_history(db: str | os.PathLike[str], label: str) -> _Side:
    from .history import read_history

    records = read_history(db)
    chosen = records[records["label"] == label]
    if chosen.empty:
        known = ", ".join(sorted({str(v) for v in records["label"].dropna()})) or "none"
        raise InputError(f"{db}: no history record labelled {label!r} (labels: {known})")
    record_id = int(chosen.index.max())  # the latest record of that label
    dims = read_history(db, dimensions=True)
    dims = dims[dims["record_id"] == record_id].set_index("dimension")[["passes", "n", "verdict"]]
    cases = None
    if bool(chosen.loc[record_id, "has_case_counts"]):
        all_cases = read_history(db, cases=True)
        cases = all_cases[all_cases["record_id"] == record_id][["dimension", "case_id", "passes", "n"]]
        cases = cases.reset_index(drop=True)
    row = chosen.loc[record_id]
    confidence = float(row["confidence"]) if "confidence" in chosen.columns else 0.95
    agent = {k: row[f"agent_{k}"] for k in ("name", "version") if isinstance(row[f"agent_{k}"], str)}
    return _Side(label, dims, cases, confidence, agent=_agent_of(agent),
                 decision=str(row["decision"]), partial=bool(row["partial"]), purpose=row["purpose"],
                 source=f"history record {record_id}", suite=row["suite_hash"], policy=row["policy_hash"],
                 identity=("history", record_id))


def _side(value: Any, history: str | os.PathLike[str] | None, which: str) -> _Side:
    from ._scorecard import Scorecard

    if history is not None:
        if not isinstance(value, str):
            raise TypeError(f"{which}: with history=, give a record label (str); got {type(value).__name__}")
        return _from_history(history, value)
    if isinstance(value, Scorecard):
        return _from_card(value, which.upper())
    if isinstance(value, Mapping):
        from ._stored import check_scorecard

        check_scorecard(value, which)  # a dictionary is stored evidence too: recomputed before it is shown
        return _from_dict(value, which.upper(), ("dict", id(value)))
    if isinstance(value, (str, os.PathLike)):
        from .reports.json import read_scorecard_json

        path = Path(value)
        return _from_dict(read_scorecard_json(path, error=InputError), path.name, ("file", path.resolve()))
    raise TypeError(f"{which} must be a Scorecard, a scorecard dict or a scorecard.json path; "
                    f"got {type(value).__name__}")


def _measured_pairs(cases: pd.DataFrame) -> set[tuple[str, str]]:
    measured = cases[cases["n"].to_numpy() > 0]
    return set(zip(measured["dimension"].astype(str), measured["case_id"].astype(str), strict=True))


def _restricted(side: _Side, shared: set[tuple[str, str]]) -> _Side:
    """``side`` with its counts summed over the shared (dimension, case) pairs only."""
    import dataclasses

    assert side.cases is not None
    keys = zip(side.cases["dimension"].astype(str), side.cases["case_id"].astype(str), strict=True)
    cases = side.cases[[key in shared for key in keys]].reset_index(drop=True)
    sums = cases.groupby("dimension")[["passes", "n"]].sum()
    dims = side.dims.copy()
    for column in ("passes", "n"):
        dims[column] = sums[column].reindex(dims.index).fillna(0).astype("int64")
    return dataclasses.replace(side, dims=dims, cases=cases)


def _side_note(side: _Side, which: str) -> str | None:
    if side.partial:
        return (f"{which} is partial (decision {side.decision}): a run cut short, limited or short of its dataset; "
                "its rates cover only the cases it ran, and it is never release evidence")
    if side.decision == "TRIAGE":
        return f"{which} was decided TRIAGE ({side.purpose or 'exploratory'} purpose): never a passing gate"
    return None


def _hash_notes(a: _Side, b: _Side) -> tuple[_Side, _Side, list[str]]:
    """Sentences on differing or unrecorded suite and policy hashes; with per-case counts on both
    sides, the sides restricted to the cases both measured (SPEC §17)."""
    notes: list[str] = []
    differ = [kind for kind in ("suite", "policy")
              if getattr(a, kind) is not None and getattr(b, kind) is not None and getattr(a, kind) != getattr(b, kind)]
    for kind in ("suite", "policy"):
        unknown = [w for w, side in (("A", a), ("B", b)) if getattr(side, kind) is None]
        if unknown:
            notes.append(f"the {kind} hash of {' and '.join(unknown)} is not recorded: whether both sides "
                         f"{'measured the same cases' if kind == 'suite' else 'were scored alike'} cannot be checked")
    if not differ:
        return a, b, notes
    what = " and ".join(differ)
    if a.cases is None or b.cases is None:
        notes.insert(0, f"the {what} hashes differ: A and B measured different cases or scored them differently, "
                        "and a side without per-case counts cannot be restricted to the cases both measured; "
                        "the rates below cover each side's own cases")
        return a, b, notes
    pairs_a, pairs_b = _measured_pairs(a.cases), _measured_pairs(b.cases)
    shared = pairs_a & pairs_b
    ids = {case for _, case in shared}
    only_a = {case for _, case in pairs_a} - {case for _, case in pairs_b}
    only_b = {case for _, case in pairs_b} - {case for _, case in pairs_a}
    notes.insert(0, f"the {what} hashes differ: the comparison covers only the {len(ids)} case"
                    f"{'' if len(ids) == 1 else 's'} measured on both sides ({len(only_a)} only in A, "
                    f"{len(only_b)} only in B)")
    return _restricted(a, shared), _restricted(b, shared), notes


def _notes(a: _Side, b: _Side) -> tuple[_Side, _Side, list[str]]:
    """What the header says in words (SPEC §17), and the sides the table compares."""
    if a.identity is not None and a.identity == b.identity:
        kind = a.identity[0]
        what = a.source if kind == "history" else {"file": "the same file"}.get(kind, "the same evaluation")
        same = f"A and B are the same record ({what}): every difference is zero by construction, not a finding"
        return a, b, [same, *(note for note in (_side_note(a, "that record"),) if note is not None)]
    notes = [note for note in (_side_note(a, "A"), _side_note(b, "B")) if note is not None]
    a, b, more = _hash_notes(a, b)
    return a, b, notes + more


def _side_facts(side: _Side) -> dict[str, Any]:
    return {"label": side.label, "agent": side.agent, "decision": side.decision, "source": side.source,
            "partial": side.partial}


def compare(a: Any, b: Any, *, history: str | os.PathLike[str] | None = None,
            confidence: float | None = None, case_counts: tuple[Any, Any] | None = None) -> pd.DataFrame:
    """Compare evaluation ``b`` with evaluation ``a``, per dimension (SPEC §17, §18).

    Parameters
    ----------
    a, b : Scorecard, dict, str or os.PathLike
        A Scorecard, ``Scorecard.to_dict()``, or a ``scorecard.json`` path; with
        ``history``, record labels (the latest record of each label).
    history : path, optional
        A history database (``scorekit.history``) to read the two labels from.
    confidence : float, optional
        Level of every interval (the tests are one-sided at (1 − confidence)/2);
        default: ``a``'s policy confidence.
    case_counts : (DataFrame or None, DataFrame or None), optional
        Per-(dimension, case) counts (columns ``dimension``, ``case_id``,
        ``passes``, ``n``, as ``Scorecard.case_counts``) of ``a`` and ``b``, for
        a side that holds none itself (a stored scorecard.json whose evidence
        rows the caller counted, as ``scorekit view`` does): the comparison is
        then paired and lists the cases that changed.

    Returns
    -------
    DataFrame
        Indexed by ``dimension`` (the union of both sides, sorted), with the
        columns :data:`COMPARE_COLUMNS`: counts, rate and Wilson interval of
        each side (``_a``, ``_b``; NaN rate where n = 0); ``difference`` (rate
        B − rate A, or the mean per-case difference when paired) and its
        interval ``ci_low``/``ci_high`` at ``confidence`` (unadjusted);
        ``method_used`` (``paired`` or ``newcombe``); ``p_value`` (one-sided,
        of "B is no worse than A") and ``p_adjusted`` (Holm over the
        dimensions compared); ``significant`` (SPEC §17: B regressed, a drop
        shown at ``p_adjusted`` ≤ α, §18; ``<NA>`` when a dimension cannot be
        compared); ``shared_cases``, ``cases_only_a``,
        ``cases_only_b`` (``<NA>`` unless both sides hold per-case counts);
        ``regressed_cases`` / ``improved_cases`` (``{"total", "listed"}`` of the
        shared cases whose rate fell / rose, largest change first; None
        without per-case counts) and ``verdict_change`` (``"PASS → FAIL"``,
        empty when unchanged). ``attrs`` holds ``a``, ``b`` (labels),
        ``confidence``, ``method``, ``multiplicity``, ``max_drop``, ``alpha``,
        ``comparisons`` (dimensions with a usable comparison: Holm's m),
        ``meaning`` (what a regressed verdict means, in one phrase), ``sides``
        (per side: ``label``, ``agent``, ``decision``, ``source`` and
        ``partial``) and ``notes``: sentences saying when a side is partial or
        TRIAGE, when the suite or policy hashes differ or are not recorded, or
        when the two sides are the same record (SPEC §17). When the hashes
        differ and both sides hold per-case counts, every number covers only
        the cases measured on both sides.

    Examples
    --------
    >>> import scorekit as sk
    >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    >>> table = sk.compare(card, card)
    >>> bool(table["significant"].any()), float(table["difference"].abs().max()), table.attrs["meaning"]
    (False, 0.0, 'a drop shown at the 2.5% level across the 8 dimensions compared, Holm')
    """
    import numpy as np
    import pandas as pd

    from ._regression import regressions, usable_comparisons, verdict_meaning
    from ._stats import one_sided_alpha

    side_a, side_b = _side(a, history, "a"), _side(b, history, "b")
    if case_counts is not None:
        import dataclasses

        side_a, side_b = (side if side.cases is not None or counts is None else dataclasses.replace(side, cases=counts)
                          for side, counts in ((side_a, case_counts[0]), (side_b, case_counts[1])))
    side_a, side_b, notes = _notes(side_a, side_b)
    level = side_a.confidence if confidence is None else confidence
    entries = regressions(side_a.dims, side_b.dims, _METHOD, _MAX_DROP, level, multiplicity=_MULTIPLICITY,
                          baseline_cases=side_a.cases, candidate_cases=side_b.cases)
    notes += _reading_notes(side_a, side_b, entries[0]["method_used"] if entries else _METHOD)
    verdict_a = side_a.dims["verdict"].to_dict()
    verdict_b = side_b.dims["verdict"].to_dict()
    rows = []
    for entry in entries:
        name = entry["dimension"]
        va, vb = verdict_a.get(name), verdict_b.get(name)
        rows.append({
            "dimension": name,
            **{f"{k}_a": entry["baseline"][k] for k in ("n", "passes", "rate", "ci_low", "ci_high")}, "verdict_a": va,
            **{f"{k}_b": entry["candidate"][k] for k in ("n", "passes", "rate", "ci_low", "ci_high")}, "verdict_b": vb,
            **{k: entry[k] for k in ("difference", "ci_low", "ci_high", "method_used", "p_value", "p_adjusted",
                                     "shared_cases", "regressed_cases", "improved_cases")},
            "significant": entry["regressed"] if entry["status"] != "undefined" else pd.NA,
            "cases_only_a": entry["cases_only_baseline"], "cases_only_b": entry["cases_only_candidate"],
            "verdict_change": f"{va or '—'} → {vb or '—'}" if va != vb else "",
        })
    frame = pd.DataFrame(rows, columns=["dimension", *COMPARE_COLUMNS]).set_index("dimension")
    for column in ("n_a", "passes_a", "n_b", "passes_b"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("rate_a", "ci_low_a", "ci_high_a", "rate_b", "ci_low_b", "ci_high_b",
                   "difference", "ci_low", "ci_high", "p_value", "p_adjusted"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64")
    for column in ("shared_cases", "cases_only_a", "cases_only_b"):
        frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
    frame["significant"] = pd.array(frame["significant"].tolist(), dtype="boolean")
    alpha = one_sided_alpha(level)
    comparisons = usable_comparisons(entries)
    frame.attrs.update({"a": side_a.label, "b": side_b.label, "confidence": level,
                        "method": _METHOD, "multiplicity": _MULTIPLICITY, "max_drop": _MAX_DROP,
                        "alpha": alpha, "comparisons": comparisons,
                        "meaning": verdict_meaning(alpha, comparisons, _MULTIPLICITY),
                        "sides": {"a": _side_facts(side_a), "b": _side_facts(side_b)}, "notes": notes})
    return frame
