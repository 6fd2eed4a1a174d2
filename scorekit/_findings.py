"""Findings (SPEC §9): one per (dimension, reason) with its sorted case ids.

The words come from ``data/findings.yaml`` (reviewed like code); this module only
groups rows and orders the result: severity, then dimension, then reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pandas as pd

from ._datafiles import load_data_yaml

__all__ = [
    "SEVERITIES",
    "FindingGroups",
    "build_findings",
    "finding_groups",
    "finding_text",
    "low_confidence",
    "verification_guidance",
]

# "info" findings are advisory: they change no verdict (SPEC §8 low_confidence).
SEVERITIES = ("blocker", "high", "medium", "low", "info")
#: How many cases of one finding list their ``detail`` (by case id); every row
#: keeps its detail in the evidence.
DETAIL_CASES = 50
_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    table: dict[str, Any] = load_data_yaml("findings.yaml")  # the package's own file: a mapping
    return table


def verification_guidance() -> str:
    """What every finding's suggested fix ends with: it does not prove root cause, and how to verify a fix.

    Reports say it once, above their findings (SPEC §17).
    """
    table = _table()
    return f"{table['caveat'].strip()} {table['verify'].strip()}"


def finding_text(dimension: str, reason: str, status: str = "FAIL") -> dict[str, str]:
    """Severity, review text and suggested fix for a (dimension, reason) group."""
    table = _table()
    entry = (table.get("dimensions", {}) or {}).get(dimension, {}).get(reason) or table["reasons"].get(reason)
    if entry is None:
        entry = table["fallback"].get(status, table["fallback"]["ERROR"])
    review, fix = entry["review"].strip(), entry["fix"].strip()
    return {
        "severity": entry["severity"],
        "review": review,
        "suggested_fix": f"{fix} {verification_guidance()}",
    }


def _details(part: pd.DataFrame, cases: set[str]) -> list[dict[str, str]]:
    """Distinct (case_id, detail) of the rows of ``part`` whose case is in ``cases``, sorted."""
    pairs = {
        (case, detail)
        for case, detail in zip(part["case_id"].tolist(), part["detail"].tolist(), strict=True)
        if case in cases and isinstance(detail, str) and detail
    }
    return [{"case_id": case, "detail": detail} for case, detail in sorted(pairs)]


def low_confidence(dimensions: pd.DataFrame, policy: Any) -> list[tuple[str, str, str]]:
    """Advisory ``low_confidence`` findings (SPEC §8): a dimension that PASSes on its
    point estimate while its Wilson or case-clustered lower bound is below its
    threshold, with how many cases would settle it.

    "Settle" means: enough cases that a drop from the measured rate to the
    threshold would be detected (:func:`scorekit.cases_needed`, one-sided alpha
    = 1 − confidence, power 0.8, at the dimension's trials per case and with the
    within-case correlation its design effect implies). A threshold of 100% or a
    rate equal to the threshold can be settled by no number of cases (a lower
    bound is below 1 and a zero drop is undetectable), so no advisory is given.

    Returns (dimension, reason, sentence) triples for :func:`build_findings`.
    """
    from . import _stats

    out: list[tuple[str, str, str]] = []
    confidence = float(policy.confidence)
    for name, row in dimensions.iterrows():
        threshold = row.get("threshold")
        if not row.get("in_scope") or row.get("verdict") != "PASS" or threshold is None or threshold != threshold:
            continue
        rate, n, cases = float(row["rate"]), int(row["n"]), int(row["cases"])
        if not (0 < n and cases > 0 and rate > threshold and threshold < 1):
            continue
        bounds = {"Wilson": float(row["ci_low"]), "case-clustered": float(row["ci_cluster_low"])}
        below = {label: value for label, value in bounds.items() if value == value and value < threshold}
        if not below:
            continue
        trials = n / cases
        deff = float(row["deff"]) if row["deff"] == row["deff"] else 1.0
        icc = min(max((deff - 1.0) / (trials - 1.0), 0.0), 1.0) if trials > 1 else 0.0
        smoothed = (int(row["passes"]) + 2) / (n + 4)
        needed = int(_stats.cases_needed(smoothed, rate - threshold, trials=max(1, round(trials)), icc=icc,
                                         alpha=1.0 - confidence, power=0.8))
        which = " and ".join(f"{label} lower bound {value:.1%}" for label, value in below.items())
        more = max(needed - cases, 0)
        out.append((str(name), "low_confidence",
                    f"{name} passes on its point estimate ({rate:.1%} against a threshold of {threshold:.1%}), but its "
                    f"{which} {'is' if len(below) == 1 else 'are'} below the threshold: about {needed:,} cases "
                    f"({more:,} more than the {cases:,} measured) at {max(1, round(trials))} trial(s) per case would "
                    f"detect a drop to the threshold."))
    return out


#: One finding group per (dimension, reason): ``status`` (the most severe), sorted
#: ``case_ids``, ``rows``, and ``details`` of the first :data:`DETAIL_CASES` cases.
FindingGroups = dict[tuple[str, str], dict[str, Any]]


def finding_groups(evidence: pd.DataFrame) -> FindingGroups:
    """The non-PASS, non-control rows of ``evidence`` grouped by (dimension, reason), sorted.

    ``evidence`` has ``dimension``, ``case_id``, ``status``, ``reason``,
    ``detail`` and ``control``; a missing dimension or case reads ``(unknown)``
    and a missing reason ``unspecified``. Each group holds its most severe
    status, its sorted distinct case ids, its row count and, for its first
    :data:`DETAIL_CASES` cases by case id, their distinct details as
    ``[{case_id, detail}, ...]``. An engine that counts elsewhere (SQL) builds
    the same groups itself.
    """
    groups: FindingGroups = {}
    rows = evidence[(evidence["status"] != "PASS") & ~evidence["control"].astype(bool)]
    if not len(rows):
        return groups
    frame = pd.DataFrame(
        {
            "dimension": rows["dimension"].astype(object).fillna("(unknown)").astype(str),
            "reason": rows["reason"].astype(object).fillna("unspecified").astype(str),
            "status": rows["status"].astype(str),
            "case_id": rows["case_id"].astype(object).fillna("(unknown)").astype(str),
            "detail": rows["detail"].astype(object) if "detail" in rows.columns else None,
        }
    )
    for (dimension, reason), part in frame.groupby(["dimension", "reason"], sort=True):
        # tolist(): one conversion of the Arrow-backed column, not an element at a time.
        statuses = set(part["status"].tolist())
        case_ids = sorted(set(part["case_id"].tolist()))
        groups[(dimension, reason)] = {
            # The most severe status of the group, whatever the row order.
            "status": next(s for s in ("FAIL", "ERROR", "ABSTAIN", "PASS") if s in statuses),
            "case_ids": case_ids,
            "rows": int(len(part)),
            "details": _details(part, set(case_ids[:DETAIL_CASES])),
        }
    return groups


def merge_finding_groups(parts: Iterable[FindingGroups]) -> FindingGroups:
    """The finding groups of several partitions' rows together, as :func:`finding_groups`
    of all the rows gives them: per (dimension, reason) the most severe status, the sorted
    union of the case ids, the rows added up, and the details of the first
    :data:`DETAIL_CASES` cases of the union. Those cases are among each partition's own
    first :data:`DETAIL_CASES`, whose details the partition kept."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for part in parts:
        for key, entry in part.items():
            into = merged.setdefault(key, {"statuses": set(), "case_ids": set(), "rows": 0, "details": set()})
            into["statuses"].add(entry["status"])
            into["case_ids"].update(entry["case_ids"])
            into["rows"] += int(entry["rows"])
            into["details"].update((d["case_id"], d["detail"]) for d in entry["details"])
    groups: FindingGroups = {}
    for key in sorted(merged):
        entry = merged[key]
        case_ids = sorted(entry["case_ids"])
        first = set(case_ids[:DETAIL_CASES])
        groups[key] = {
            "status": next(s for s in ("FAIL", "ERROR", "ABSTAIN", "PASS") if s in entry["statuses"]),
            "case_ids": case_ids,
            "rows": entry["rows"],
            "details": [{"case_id": case, "detail": detail}
                        for case, detail in sorted(entry["details"]) if case in first],
        }
    return groups


def build_findings(
    evidence: pd.DataFrame | FindingGroups,
    extra: Iterable[tuple[str, str, str, list[str]]] = (),
    advisories: Iterable[tuple[str, str, str]] = (),
) -> list[dict[str, Any]]:
    """Group non-PASS agent rows by (dimension, reason); add evaluation-level findings.

    Parameters
    ----------
    evidence : DataFrame or dict
        Scored rows with ``dimension``, ``case_id``, ``status``, ``reason``,
        ``detail`` and ``control``; PASS rows and control rows are ignored here
        (:func:`finding_groups`). Or those groups, already built.
        Each finding lists, for its first :data:`DETAIL_CASES` cases by case id,
        their distinct details as ``details``: ``[{case_id, detail}, ...]``.
    extra : iterable of (dimension, reason, status, case_ids)
        Findings that do not come from one row each (failed controls, missing
        dimensions, dimensions without a threshold).
    advisories : iterable of (dimension, reason, sentence)
        Findings that change no verdict (severity ``info``, e.g.
        :func:`low_confidence`); the sentence leads their review text.
    """
    source = finding_groups(evidence) if isinstance(evidence, pd.DataFrame) else evidence
    groups: FindingGroups = {key: dict(entry) for key, entry in source.items()}
    for dimension, reason, status, case_ids in extra:
        entry = groups.setdefault((dimension, reason), {"status": status, "case_ids": [], "rows": 0, "details": []})
        entry["case_ids"] = sorted(set(entry["case_ids"]) | set(case_ids))
    findings = []
    for (dimension, reason), entry in groups.items():
        text = finding_text(dimension, reason, entry["status"])
        findings.append(
            {
                "dimension": dimension,
                "reason": reason,
                "severity": text["severity"],
                "status": entry["status"],
                "case_ids": entry["case_ids"],
                "rows": entry["rows"],
                "details": entry["details"],
                "review": text["review"],
                "suggested_fix": text["suggested_fix"],
            }
        )
    for dimension, reason, sentence in advisories:
        text = finding_text(dimension, reason, "PASS")
        findings.append({
            "dimension": dimension, "reason": reason, "severity": text["severity"], "status": "PASS",
            "case_ids": [], "rows": 0, "details": [], "review": f"{sentence} {text['review']}",
            "suggested_fix": text["suggested_fix"],
        })
    findings.sort(key=lambda f: (_RANK.get(f["severity"], len(SEVERITIES)), f["dimension"], f["reason"]))
    return findings
