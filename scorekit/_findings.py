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
    """Advisory ``low_confidence`` findings (SPEC §8, §18): one per dimension in scope that
    PASSes while its ``assurance`` — the probability that its true rate meets its threshold —
    is below the policy's confidence, stating the assurance and ``cases_to_settle``.

    ``dimensions`` is the scorecard's dimension table (``verdict``, ``in_scope``, ``rate``,
    ``threshold``, ``cases``, ``assurance``, ``cases_to_settle``). It changes no verdict.
    A threshold of 100% (or 0%) is a zero-tolerance rule with no assurance: no advisory.

    Returns (dimension, reason, sentence) triples for :func:`build_findings`.
    """
    out: list[tuple[str, str, str]] = []
    confidence = float(policy.confidence)
    for name, row in dimensions.iterrows():
        sure = row.get("assurance")
        if not row.get("in_scope") or row.get("verdict") != "PASS" or sure is None or not sure < confidence:
            continue
        rate, threshold, cases = float(row["rate"]), float(row["threshold"]), int(row["cases"])
        settle = row.get("cases_to_settle")
        if settle is None or settle != settle:
            how = "no number of cases at this rate would settle it (the rate does not exceed the threshold)"
        else:
            more = int(settle) - cases
            how = (f"about {int(settle):,} cases ({more:,} more than the {cases:,} measured) at the same rate would "
                   f"settle it (Wilson lower bound at the threshold)")
        out.append((str(name), "low_confidence",
                    f"{name} passes ({rate:.1%} against a threshold of {threshold:.1%}), but it meets the threshold "
                    f"with probability {float(sure):.1%} (assurance, below the confidence {confidence:.1%}): {how}."))
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
