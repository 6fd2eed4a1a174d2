"""Findings (SPEC §9): one per (dimension, reason) with its sorted case ids.

The words come from ``data/findings.yaml`` (reviewed like code); this module only
groups rows and orders the result: severity, then dimension, then reason.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

import pandas as pd

from ._datafiles import load_data_yaml

__all__ = ["SEVERITIES", "build_findings", "finding_text"]

SEVERITIES = ("blocker", "high", "medium", "low")
#: How many cases of one finding list their ``detail`` (by case id); every row
#: keeps its detail in the evidence.
DETAIL_CASES = 50
_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return load_data_yaml("findings.yaml")


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
        "suggested_fix": f"{fix} {table['caveat'].strip()} {table['verify'].strip()}",
    }


def _details(part: pd.DataFrame, cases: set[str]) -> list[dict[str, str]]:
    """Distinct (case_id, detail) of the rows of ``part`` whose case is in ``cases``, sorted."""
    pairs = {
        (case, detail)
        for case, detail in zip(part["case_id"].tolist(), part["detail"].tolist())
        if case in cases and isinstance(detail, str) and detail
    }
    return [{"case_id": case, "detail": detail} for case, detail in sorted(pairs)]


def build_findings(
    evidence: pd.DataFrame, extra: Iterable[tuple[str, str, str, list[str]]] = ()
) -> list[dict[str, Any]]:
    """Group non-PASS agent rows by (dimension, reason); add evaluation-level findings.

    Parameters
    ----------
    evidence : DataFrame
        Scored rows with ``dimension``, ``case_id``, ``status``, ``reason``,
        ``detail`` and ``control``; PASS rows and control rows are ignored here.
        Each finding lists, for its first :data:`DETAIL_CASES` cases by case id,
        their distinct details as ``details``: ``[{case_id, detail}, ...]``.
    extra : iterable of (dimension, reason, status, case_ids)
        Findings that do not come from one row each (failed controls, missing
        dimensions, dimensions without a threshold).
    """
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    rows = evidence[(evidence["status"] != "PASS") & ~evidence["control"].astype(bool)]
    if len(rows):
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
    findings.sort(key=lambda f: (_RANK.get(f["severity"], len(SEVERITIES)), f["dimension"], f["reason"]))
    return findings
