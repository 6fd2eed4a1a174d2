"""The Agent Card (SPEC §11): scorecard evidence mapped to governance control families.

The Agent Card is **not legal compliance or certification**. It maps the evidence
a scorecard holds — every dimension, evaluator controls, repeated-trial
reliability, validation, the decision, hashes, history and the signature — to
control families of the NIST AI RMF (with the Generative AI Profile, NIST AI
600-1), ISO/IEC 42001 Annex A, EU AI Act articles and the OWASP Top 10 for LLM
Applications 2025. The mapping and the status rules are data
(``scorekit/data/control_families.yaml``, reviewed like code); this module only
applies them.

Each family is *evidenced*, *partial* or *not evidenced*, and every verdict is
shown as the scorecard states it: INCOMPLETE stays INCOMPLETE (never FAIL); a
FAIL counts as evidence that exists and says no, and is always shown.

``build_agent_card(scorecard, verify_result)`` returns a JSON-compatible dict;
``write_agent_card(card, out_dir)`` writes ``agent-card.json`` and
``agent-card.md`` (every untrusted string escaped).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from ._datafiles import data_text, load_data_yaml
from ._errors import InputError
from ._escape import markdown_text
from ._io import atomic_write
from ._version import __version__
from .reports._format import INTERVAL_NAMES, confidence_label, interval_label

__all__ = [
    "AGENT_CARD_VERSION",
    "FAMILY_STATUSES",
    "SIGNATURE_OUTCOMES",
    "build_agent_card",
    "control_families",
    "render_agent_card_markdown",
    "write_agent_card",
]

AGENT_CARD_VERSION = 1
EVIDENCED, PARTIAL, NOT_EVIDENCED = "evidenced", "partial", "not_evidenced"
FAMILY_STATUSES = (EVIDENCED, PARTIAL, NOT_EVIDENCED)
SIGNATURE_OUTCOMES = ("verified", "integrity-only", "failed", "unsigned")
SOURCE_KINDS = ("dimension", "judged", "controls", "reliability", "validation", "decision", "hashes", "history",
                "signing")
DATA_FILE = "scorekit/data/control_families.yaml"
_STATUS_WORDS = {EVIDENCED: "evidenced", PARTIAL: "partial", NOT_EVIDENCED: "not evidenced"}


# --------------------------------------------------------------------------- the data file
@lru_cache(maxsize=1)
def _raw_table() -> tuple[str, dict[str, Any]]:
    text = data_text("control_families.yaml")
    return text, load_data_yaml("control_families.yaml")


def control_families() -> dict[str, Any]:
    """The validated mapping table of ``data/control_families.yaml``.

    Raises
    ------
    ValueError
        The data file is inconsistent (a family cites an unknown evidence source,
        a source has an unknown kind, a status word is unknown).
    """
    _, table = _raw_table()
    sources = table["evidence_sources"]
    for sid, source in sources.items():
        if source.get("kind") not in SOURCE_KINDS:
            raise ValueError(f"{DATA_FILE}: evidence source {sid!r} has unknown kind {source.get('kind')!r}")
    for status in list(table["comparison_status"].values()) + list(table["decision_caps"].values()):
        if status not in FAMILY_STATUSES:
            raise ValueError(f"{DATA_FILE}: unknown status {status!r}")
    for framework in table["frameworks"]:
        for family in framework["families"]:
            unknown = [s for s in family["evidence"] if s not in sources]
            if unknown or not family["evidence"]:
                raise ValueError(f"{DATA_FILE}: family {family['id']!r} cites unknown or no evidence: {unknown}")
    return table


def _builtin_dimensions() -> set[str]:
    from .scorers import BUILTIN_SCORERS

    return set(BUILTIN_SCORERS)


# --------------------------------------------------------------------------- small helpers
def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if value == value else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 0


def _pct(value: Any) -> str:
    value = _num(value)
    return "—" if value is None else f"{100 * value:.1f}%"


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _source(sid: str, spec: Mapping[str, Any], status: str, verdict: str | None, detail: str,
            says_no: bool = False, **extra: Any) -> dict[str, Any]:
    entry = {"id": sid, "kind": spec["kind"], "label": spec["label"], "status": status, "verdict": verdict,
             "evidence_says_no": says_no, "detail": detail}
    entry.update(extra)
    return entry


def _dimension_status(entry: Mapping[str, Any] | None) -> tuple[str, str | None]:
    """(status, verdict as is) of one dimension entry of the scorecard."""
    if entry is None:
        return NOT_EVIDENCED, None
    verdict = _str(entry.get("verdict"))
    rows = _int(entry.get("n")) + _int(entry.get("errors")) + _int(entry.get("abstains"))
    if verdict in ("PASS", "FAIL"):
        return EVIDENCED, verdict
    if verdict == "INCOMPLETE" and rows == 0:
        return NOT_EVIDENCED, verdict  # skipped: in scope, but no row at all
    return PARTIAL, verdict  # INCOMPLETE, NOT_IN_SCOPE, or a verdict this version does not know


def _dimension_detail(entry: Mapping[str, Any] | None, conf: str) -> str:
    if entry is None:
        return "absent from the scorecard"
    n = _int(entry.get("n"))
    parts = [f"n = {n}"]
    if _num(entry.get("rate")) is not None:
        label = interval_label(conf, [entry.get("interval_method")])  # which interval ci_low/ci_high are
        interval = f"{_pct(entry.get('ci_low'))}–{_pct(entry.get('ci_high'))}"
        parts.append(f"rate {_pct(entry.get('rate'))}, {label} {interval}")
    missing = _int(entry.get("errors")) + _int(entry.get("abstains"))
    if missing:
        parts.append(f"{missing} ERROR/ABSTAIN row{'s' if missing != 1 else ''} outside the denominator")
    parts.append(f"threshold {_pct(entry.get('threshold'))}")
    return ", ".join(parts)


def _combine(statuses: list[str]) -> str:
    if statuses and all(s == EVIDENCED for s in statuses):
        return EVIDENCED
    if all(s == NOT_EVIDENCED for s in statuses):
        return NOT_EVIDENCED
    return PARTIAL


def _signature(verify_result: Any, content_sha256: str | None) -> dict[str, Any]:
    if verify_result is None:
        return {"outcome": "unsigned", "reason": "no signature was checked for this scorecard", "pinned": False,
                "public_key": None, "signed_at": None}
    if isinstance(verify_result, Mapping):
        data = dict(verify_result)
    else:
        data = verify_result.to_dict() if hasattr(verify_result, "to_dict") else {
            "outcome": getattr(verify_result, "outcome", None), "reason": getattr(verify_result, "reason", None)}
    outcome = data.get("outcome")
    reason = _str(data.get("reason")) or ""
    signed = _str(data.get("content_sha256"))
    if outcome not in ("verified", "integrity-only", "failed"):
        outcome, reason = "failed", f"unknown verification outcome {outcome!r}"
    elif outcome != "failed" and signed is not None and content_sha256 is not None and signed != content_sha256:
        outcome, reason = "failed", "the verification result is for different content than this scorecard"
    return {"outcome": outcome, "reason": reason, "pinned": bool(data.get("pinned", False)),
            "public_key": _str(data.get("public_key")), "signed_at": _str(data.get("signed_at"))}


# --------------------------------------------------------------------------- building
def _as_dict(scorecard: Any) -> dict[str, Any]:
    if hasattr(scorecard, "to_dict") and not isinstance(scorecard, Mapping):
        scorecard = scorecard.to_dict()
    if not isinstance(scorecard, Mapping):
        raise InputError(f"not a scorekit scorecard: expected a JSON object, got {type(scorecard).__name__}")
    if not isinstance(scorecard.get("decision"), str) or not isinstance(scorecard.get("dimensions"), list):
        raise InputError("not a scorekit scorecard: `decision` (string) and `dimensions` (list) are required")
    for i, entry in enumerate(scorecard["dimensions"]):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise InputError(f"not a scorekit scorecard: dimensions[{i}] has no name")
    return dict(scorecard)


def _content_sha256(scorecard: Mapping[str, Any]) -> str:
    from ._errors import SignatureError
    from .signing import canonical_json

    try:
        return hashlib.sha256(canonical_json(scorecard)).hexdigest()
    except SignatureError as exc:
        raise InputError(f"the scorecard cannot be canonicalised: {exc}") from None


def _evidence_sources(
    sc: Mapping[str, Any], signature: Mapping[str, Any], table: Mapping[str, Any]
) -> list[dict[str, Any]]:
    specs = table["evidence_sources"]
    builtin = _builtin_dimensions()
    dims = {entry["name"]: entry for entry in sc["dimensions"]}
    decision = sc["decision"]
    out: list[dict[str, Any]] = []
    for sid, spec in specs.items():
        kind = spec["kind"]
        if kind == "dimension":
            status, verdict = _dimension_status(dims.get(sid))
            out.append(_source(sid, spec, status, verdict, _dimension_detail(dims.get(sid), confidence_label(sc)),
                               verdict == "FAIL"))
        elif kind == "judged":
            judged = [(name, _dimension_status(entry)) for name, entry in sorted(dims.items()) if name not in builtin]
            verdicts = sorted({v for _, (_, v) in judged if v is not None})
            detail = ("; ".join(f"{name}: {v or 'no verdict'}" for name, (_, v) in judged)
                      if judged else "no judged dimension in the scorecard")
            out.append(_source(
                sid, spec, _combine([s for _, (s, _) in judged]) if judged else NOT_EVIDENCED,
                verdicts[0] if len(verdicts) == 1 else None, detail, "FAIL" in verdicts,
                dimensions=[{"name": name, "status": s, "verdict": v} for name, (s, v) in judged],
            ))
        elif kind == "controls":
            controls = [c for c in sc.get("controls") or [] if isinstance(c, Mapping)]
            missed = [c for c in controls if c.get("passed") is not True]
            if not controls:
                out.append(_source(sid, spec, NOT_EVIDENCED, None, "no evaluator control (known-bad) rows"))
            else:
                checked = sorted({str(c.get("dimension")) for c in controls})
                detail = (f"{len(controls) - len(missed)} of {len(controls)} known-bad rows caught "
                          f"({', '.join(checked)})")
                verdict = "FAIL" if missed else "PASS"
                out.append(_source(sid, spec, EVIDENCED, verdict, detail, bool(missed)))
        elif kind == "reliability":
            measured = [e for e in dims.values() if e.get("in_scope", True) is not False and _int(e.get("n")) > 0]
            repeated = [e for e in measured if _int(e.get("repeated_cases")) > 0]
            if not repeated:
                out.append(_source(sid, spec, NOT_EVIDENCED, None, "no repeated trials (no pass^k, no consistency)"))
            else:
                status = EVIDENCED if len(repeated) == len(measured) else PARTIAL
                cons = [(e["consistency"], e["name"]) for e in repeated if _num(e.get("consistency")) is not None]
                flaky = sum(len(e.get("flaky_cases") or []) for e in repeated)
                ks = sorted({k for e in repeated for k in (e.get("pass_k") or {})}, key=lambda k: (len(k), k))
                detail = f"repeated trials on {len(repeated)} of {len(measured)} measured dimensions"
                if cons:
                    low = min(cons)
                    detail += f"; lowest consistency {_pct(low[0])} ({low[1]})"
                detail += f"; {flaky} flaky case{'s' if flaky != 1 else ''}"
                if ks:
                    detail += f"; pass^k reported for k = {', '.join(ks)}"
                out.append(_source(sid, spec, status, None, detail))
        elif kind == "validation":
            v = _mapping(sc.get("validation"))
            labeled, unlabeled, invalid = _int(v.get("labeled")), _int(v.get("unlabeled")), _int(v.get("invalid"))
            strict, complete = v.get("strict") is True, v.get("complete") is True
            detail = f"{labeled} labeled, {unlabeled} unlabeled, {invalid} invalid" + (" (strict)" if strict else "")
            if labeled == 0:
                out.append(_source(sid, spec, NOT_EVIDENCED, "INCOMPLETE" if v else None, detail))
            elif strict and complete:
                out.append(_source(sid, spec, EVIDENCED, "PASS", detail))
            else:
                out.append(_source(sid, spec, PARTIAL, None if complete else "INCOMPLETE", detail))
        elif kind == "decision":
            reasons = [r for r in sc.get("decision_reasons") or [] if isinstance(r, str)]
            status = EVIDENCED if decision in ("PASS", "FAIL") else PARTIAL
            detail = f"purpose {sc.get('purpose')}" + (f"; {'; '.join(reasons)}" if reasons else "")
            out.append(_source(sid, spec, status, decision, detail, decision == "FAIL"))
        elif kind == "hashes":
            hashes = _mapping(sc.get("hashes"))
            names = ("suite", "policy", "results", "evidence")
            present = [n for n in names if isinstance(hashes.get(n), str) and hashes.get(n)]
            status = EVIDENCED if len(present) == len(names) else PARTIAL if present else NOT_EVIDENCED
            detail = f"{len(present)} of {len(names)} hashes present" + (
                f" (missing: {', '.join(n for n in names if n not in present)})" if len(present) < len(names) else "")
            out.append(_source(sid, spec, status, None, detail))
        elif kind == "history":
            comparison = _mapping(sc.get("comparison"))
            cstatus = _str(comparison.get("status")) or "not_requested"
            status = table["comparison_status"].get(cstatus, PARTIAL)
            required = comparison.get("required") is True
            regressions = comparison.get("regressions") or []
            detail = f"comparison {cstatus}" + (" (required)" if required else "")
            if isinstance(regressions, list) and regressions:
                detail += f"; {len(regressions)} regression{'s' if len(regressions) != 1 else ''}"
            out.append(_source(sid, spec, status, cstatus, detail, cstatus == "regressed"))
        elif kind == "signing":
            outcome = signature["outcome"]
            status = {"verified": EVIDENCED, "integrity-only": PARTIAL, "failed": EVIDENCED}.get(outcome, NOT_EVIDENCED)
            out.append(_source(sid, spec, status, outcome, signature["reason"], outcome == "failed"))
    caps = table.get("decision_caps") or {}
    if decision in caps:
        cap = caps[decision]
        for entry in out:
            if entry["kind"] in table["measurement_kinds"] and entry["status"] == EVIDENCED and cap != EVIDENCED:
                entry["status"] = cap
                entry["detail"] += f" [capped at {_STATUS_WORDS[cap]}: a {decision} scorecard is not release evidence]"
    return out


def build_agent_card(
    scorecard: Mapping[str, Any] | Any,
    verify_result: Any = None,
    *,
    generated_at: str | None = None,
) -> dict[str, Any]:
    """Map a scorecard's evidence to governance control families.

    Parameters
    ----------
    scorecard : dict or Scorecard
        ``Scorecard.to_dict()`` or a parsed ``scorecard.json``.
    verify_result : VerifyResult, optional
        From :func:`scorekit.signing.verify_scorecard`; ``None`` = unsigned.
        A result whose ``content_sha256`` is not this scorecard's is shown as failed.
    generated_at : str, optional
        Timestamp to record (default: now, UTC).

    Returns
    -------
    dict
        JSON-compatible Agent Card: the disclaimer, agent, decision, hashes,
        signature outcome (verified / integrity-only / failed / unsigned),
        comparison status, dimensions with their verdicts as they are, evidence
        sources and, per framework, each family evidenced / partial / not_evidenced.

    Raises
    ------
    InputError
        ``scorecard`` is not a scorekit scorecard.

    Examples
    --------
    >>> import scorekit as sk
    >>> sc = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict()
    >>> card = build_agent_card(sc)
    >>> card["signature"]["outcome"], card["decision"] == sc["decision"]
    ('unsigned', True)
    >>> "not legal compliance" in card["disclaimer"]
    True
    """
    sc = _as_dict(scorecard)
    table = control_families()
    data_text, _ = _raw_table()
    content_sha256 = _content_sha256(sc)
    signature = _signature(verify_result, content_sha256)
    builtin = _builtin_dimensions()
    sources = _evidence_sources(sc, signature, table)
    by_id = {s["id"]: s for s in sources}

    frameworks = []
    for fw in table["frameworks"]:
        families = []
        for fam in fw["families"]:
            evidence = [{"source": sid, "status": by_id[sid]["status"], "verdict": by_id[sid]["verdict"]}
                        for sid in fam["evidence"]]
            families.append({
                "id": fam["id"],
                "title": fam["title"],
                "status": _combine([e["status"] for e in evidence]),
                "evidence_says_no": any(by_id[sid]["evidence_says_no"] for sid in fam["evidence"]),
                "evidence": evidence,
                "note": fam.get("note"),
            })
        summary = {status: sum(f["status"] == status for f in families) for status in FAMILY_STATUSES}
        frameworks.append({"id": fw["id"], "name": fw["name"], "reference": fw["reference"], "summary": summary,
                           "families": families})

    dimensions = []
    for entry in sc["dimensions"]:
        status, verdict = _dimension_status(entry)
        dimensions.append({
            "name": entry["name"],
            "kind": "built-in" if entry["name"] in builtin else "judged",
            "status": status,
            "verdict": verdict,
            "verdict_reasons": [r for r in entry.get("verdict_reasons") or [] if isinstance(r, str)],
            **{k: entry.get(k) for k in ("in_scope", "n", "passes", "fails", "errors", "abstains", "rate", "ci_low",
                                         "ci_high", "interval_method", "threshold", "pass_k", "consistency",
                                         "flaky_cases")},
        })

    comparison = _mapping(sc.get("comparison"))
    agent = _mapping(sc.get("agent"))
    controls = [c for c in sc.get("controls") or [] if isinstance(c, Mapping)]
    card = {
        "kind": "scorekit-agent-card",
        "agent_card_version": AGENT_CARD_VERSION,
        "disclaimer": " ".join(table["disclaimer"].split()),
        "generated_at": generated_at or _now(),
        "scorekit_version": __version__,
        "agent": {"name": agent.get("name"), "version": agent.get("version")},
        "decision": sc["decision"],
        "overall_pass": sc.get("overall_pass") is True and sc["decision"] == "PASS",
        "measured_decision": sc.get("measured_decision"),
        "decision_reasons": [r for r in sc.get("decision_reasons") or [] if isinstance(r, str)],
        "purpose": sc.get("purpose"),
        "scorecard": {
            "generated_at": sc.get("generated_at"),
            "schema_version": sc.get("schema_version"),
            "scorekit_version": sc.get("scorekit_version"),
            "content_sha256": content_sha256,
            "hashes": dict(sc["hashes"]) if isinstance(sc.get("hashes"), Mapping) else {},
            "judges": list(sc.get("judges") or []),
            "confidence": sc.get("confidence"),
        },
        "signature": signature,
        "comparison": {"status": comparison.get("status", "not_requested"), "required": comparison.get("required"),
                       "baseline": comparison.get("baseline"), "regressions": comparison.get("regressions") or []},
        "dimensions": dimensions,
        "controls": {"total": len(controls), "caught": sum(c.get("passed") is True for c in controls),
                     "missed": [c.get("id") for c in controls if c.get("passed") is not True]},
        "evidence": sources,
        "frameworks": frameworks,
        "statuses": dict(table["statuses"]),
        "mapping": {"file": DATA_FILE, "schema_version": table["schema_version"],
                    "sha256": hashlib.sha256(data_text.encode("utf-8")).hexdigest()},
        "caveats": [c for c in sc.get("caveats") or [] if isinstance(c, str)],
    }
    return card


# --------------------------------------------------------------------------- Markdown
def _md(value: Any) -> str:
    """An untrusted value as Markdown text (:func:`scorekit._escape.markdown_text`): a line break becomes a
    space (a value never leaves its table cell or line), no raw HTML, link, emphasis or block start."""
    if value is None:
        return "—"
    return markdown_text(str(value), newline=" ")


def _code(value: Any) -> str:
    """A hash-like value as code, only when it is plainly hex; else escaped text."""
    if isinstance(value, str) and re.fullmatch(r"[0-9a-fA-F]{1,128}", value):
        return f"`{value}`"
    return _md(value)


def _verdict_text(source: Mapping[str, Any]) -> str:
    if source.get("kind") == "judged" and source.get("dimensions"):
        return ", ".join(f"{_md(d['name'])}: {_md(d['verdict'] or 'no verdict')}" for d in source["dimensions"])
    return _md(source.get("verdict"))


def render_agent_card_markdown(card: Mapping[str, Any]) -> str:
    """``agent-card.md`` text for a card from :func:`build_agent_card` (every string escaped)."""
    agent = card.get("agent") or {}
    sig = card["signature"]
    conf = confidence_label(card["scorecard"])
    # ci_low/ci_high are the headline interval, named by interval_method (none: Wilson, before SPEC §18).
    methods = [str(d["interval_method"]) for d in card["dimensions"] if d.get("interval_method") is not None]
    lines = [
        f"# Agent Card: {_md(agent.get('name') or 'unnamed agent')} {_md(agent.get('version') or '')}".rstrip(),
        "",
        f"> **Not legal compliance or certification.** {_md(card['disclaimer'])}",
        "",
        "## Release evidence",
        "",
        "| Item | Value |",
        "|---|---|",
        f"| Agent | {_md(agent.get('name'))} |",
        f"| Agent version | {_md(agent.get('version'))} |",
        f"| Decision | **{_md(card['decision'])}** |",
        f"| overall\\_pass | {_md(str(card['overall_pass']).lower())} |",
        f"| Measured decision | {_md(card.get('measured_decision'))} |",
        f"| Decision reasons | {_md('; '.join(card.get('decision_reasons') or []) or None)} |",
        f"| Purpose | {_md(card.get('purpose'))} |",
        f"| Signature | **{_md(sig['outcome'])}**: {_md(sig['reason'])} |",
        f"| Signing key (base64) | {_md(sig.get('public_key'))} |",
        f"| Comparison | {_md(card['comparison']['status'])} |",
        f"| Scorecard generated | {_md(card['scorecard'].get('generated_at'))} |",
        f"| Scorecard content SHA\\-256 (RFC 8785) | {_code(card['scorecard']['content_sha256'])} |",
    ]
    for name in ("suite", "policy", "results", "evidence"):
        lines.append(f"| {name.capitalize()} hash | {_code(card['scorecard']['hashes'].get(name))} |")
    judges = card["scorecard"].get("judges") or []
    lines.append(f"| Judges | {_md(', '.join(map(str, judges)) or None)} |")
    lines.append(f"| Agent Card generated | {_md(card.get('generated_at'))} |")
    lines += [
        "",
        "## Dimensions",
        "",
        "Verdicts as the scorecard states them. INCOMPLETE means evidence is missing or unusable; it is not FAIL.",
        "",
        f"| Dimension | Kind | Verdict | Status | n | Passes | Rate | {_md(interval_label(conf, methods))} "
        "| Threshold |",
        "|---|---|---|---|---:|---:|---:|---|---:|",
    ]
    for d in card["dimensions"]:
        ci = "—" if _num(d.get("rate")) is None else f"{_pct(d.get('ci_low'))} – {_pct(d.get('ci_high'))}"
        method = d.get("interval_method")
        if ci != "—" and len(set(methods)) > 1 and method is not None:  # the column cannot say which: the cell does
            ci += f" ({_md(INTERVAL_NAMES.get(str(method), method))})"
        lines.append(
            f"| {_md(d['name'])} | {_md(d['kind'])} | **{_md(d['verdict'])}** | {_STATUS_WORDS[d['status']]} | "
            f"{_int(d.get('n'))} | {_int(d.get('passes'))} | {_pct(d.get('rate'))} | {ci} | "
            f"{_pct(d.get('threshold'))} |"
        )
    lines += [
        "",
        "## Evidence sources",
        "",
        "| Evidence | Status | Verdict | Detail |",
        "|---|---|---|---|",
    ]
    for s in card["evidence"]:
        lines.append(f"| {_md(s['label'])} | {_STATUS_WORDS[s['status']]} | {_verdict_text(s)} | {_md(s['detail'])} |")
    by_id = {s["id"]: s for s in card["evidence"]}
    lines += ["", "## Control families", ""]
    lines += [f"- **{_STATUS_WORDS.get(k, _md(k))}**: {_md(v)}" for k, v in card["statuses"].items()]
    lines.append("- *evidence says no*: some of the family's evidence has the verdict FAIL, a failed signature "
                 "or a regression.")
    for fw in card["frameworks"]:
        summary = fw["summary"]
        lines += [
            "",
            f"### {_md(fw['name'])}",
            "",
            f"{_md(fw['reference'])}. {summary[EVIDENCED]} evidenced, {summary[PARTIAL]} partial, "
            f"{summary[NOT_EVIDENCED]} not evidenced.",
            "",
            "| Family | Title | Status | Evidence (verdict) | Note |",
            "|---|---|---|---|---|",
        ]
        for fam in fw["families"]:
            status = _STATUS_WORDS[fam["status"]] + (" (evidence says no)" if fam["evidence_says_no"] else "")
            evidence = "; ".join(
                f"{_md(e['source'])}: {_STATUS_WORDS[e['status']]}"
                + (f" ({_verdict_text(by_id[e['source']])})" if by_id[e["source"]].get("verdict") is not None
                   or by_id[e["source"]].get("dimensions") else "")
                for e in fam["evidence"]
            )
            lines.append(f"| {_md(fam['id'])} | {_md(fam['title'])} | {status} | {evidence} | {_md(fam.get('note'))} |")
    caveats = card.get("caveats") or []
    lines += ["", "## Caveats", ""]
    lines += [f"- {_md(c)}" for c in caveats]
    lines += [
        f"- {_md(card['disclaimer'])}",
        f"- Mapping: {_md(card['mapping']['file'])} (sha256 {_code(card['mapping']['sha256'])}).",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- writing
def write_agent_card(card_dict: Mapping[str, Any], out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``agent-card.json`` and ``agent-card.md`` into ``out_dir`` (created if needed).

    Returns
    -------
    dict
        ``{"json": Path, "md": Path}``.

    Raises
    ------
    InputError
        The folder or a file cannot be written.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        paths = {"json": out / "agent-card.json", "md": out / "agent-card.md"}
        text = json.dumps(card_dict, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        markdown = render_agent_card_markdown(card_dict)
        for kind, content in (("json", text), ("md", markdown)):
            data = content.encode("utf-8")
            atomic_write(paths[kind], partial(Path.write_bytes, data=data), mode=0o644)
    except OSError as exc:
        raise InputError(f"{out}: cannot write the Agent Card ({exc.strerror or exc})") from None
    return paths
