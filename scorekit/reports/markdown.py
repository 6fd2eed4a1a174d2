"""``scorecard.md``: the scorecard dictionary as GitHub-flavoured Markdown.

Every string from the data (dimension names, case ids, reasons, findings text,
problems, evaluator and judge names) is untrusted and goes through
:func:`~scorekit.reports._format.md_escape`, so it cannot inject HTML, links,
images or emphasis, nor break a table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._io import atomic_write
from ._format import (
    DECISION_MEANING,
    confidence_label,
    REGRESSION_COLUMNS,
    DETAIL_LIMIT,
    TWO_INTERVALS_NOTE,
    VARIANCE_HEADER,
    fmt_deff,
    fmt_pass_k,
    mde_text,
    variance_cells,
    LIST_LIMIT,
    UNDEFINED,
    comparison_facts,
    evidence_row_count,
    fmt_bool,
    fmt_ci,
    fmt_count,
    fmt_pct,
    md_escape,
    more_text,
    pass_k_columns,
    problem_text,
    regression_rows,
    truncate,
)

__all__ = ["render_markdown", "write_markdown"]


def _e(value: Any) -> str:
    """Escaped text, or "—" for None / empty."""
    if value is None or value == "":
        return UNDEFINED
    return md_escape(value)


def _id_list(items: list[Any], *, limit: int = LIST_LIMIT, where: str = "evidence.parquet") -> str:
    """A comma-separated, escaped list, cut at ``limit`` with "… and N more (see …)"."""
    if not items:
        return UNDEFINED
    shown, omitted = truncate(items, limit)
    text = ", ".join(md_escape(item) for item in shown)
    if omitted:
        text += " " + more_text(omitted, where)
    return text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out


def render_markdown(data: dict[str, Any], *, evidence_rows: int | None = None) -> str:
    """The scorecard as Markdown text.

    Parameters
    ----------
    data : dict
        ``Scorecard.to_dict()``.
    evidence_rows : int, optional
        Rows written to ``evidence.parquet`` (default: from ``data``).
    """
    decision = str(data.get("decision"))
    agent = data.get("agent") or {}
    conf = confidence_label(data)
    out: list[str] = []
    add = out.append

    # ---- decision ------------------------------------------------------------------
    add(f"# Scorecard: {_e(decision)}")
    add("")
    add(f"**Decision: {_e(decision)}** — {md_escape(DECISION_MEANING.get(decision, ''))}")
    add("")
    add(f"- overall_pass: **{fmt_bool(data.get('overall_pass'))}**")
    if data.get("measured_decision") not in (None, decision):
        add(f"- measured decision (before the comparison): {_e(data.get('measured_decision'))}")
    add(f"- purpose: {_e(data.get('purpose'))}" + (" (partial scan)" if data.get("partial") else ""))
    add(f"- agent: {_e(agent.get('name'))}, version {_e(agent.get('version'))}")
    add(f"- generated_at: {_e(data.get('generated_at'))}")
    add(f"- scorekit {_e(data.get('scorekit_version'))}, schema_version {_e(data.get('schema_version'))}")
    reasons = data.get("decision_reasons") or []
    if reasons:
        add("- decision reasons:")
        for reason in reasons:
            add(f"  - {md_escape(reason)}")
    add("")

    # ---- scope ---------------------------------------------------------------------
    scope = data.get("scope") or {}
    add("## Scope")
    add("")
    add(f"- required dimensions: {_id_list(scope.get('required_dimensions') or [], where='scorecard.json')}")
    if "dimensions" in scope:
        add(f"- dimensions in scope: {_id_list(scope.get('dimensions') or [], where='scorecard.json')}")
    inferred = scope.get("inferred")
    add(
        f"- inferred: {fmt_bool(inferred)}"
        + (" (scope inferred from the rows: an entirely absent dimension cannot be detected;"
           " declare gate.required_dimensions)" if inferred else "")
    )
    add(f"- missing dimensions: {_id_list(scope.get('missing_dimensions') or [], where='scorecard.json')}")
    add("")

    # ---- dimensions ----------------------------------------------------------------
    dims = data.get("dimensions") or []
    ks = pass_k_columns(dims)
    add("## Dimensions")
    add("")
    add(
        f"Pass rate = PASS / (PASS + FAIL); ERROR and ABSTAIN rows are missing evaluator evidence, "
        f"outside the denominator. Interval: {conf} Wilson score interval. "
        f"Undefined values (no evidence) are shown as {UNDEFINED}."
    )
    add("")
    header = ["dimension", "verdict", "n", "passes", "fails", "errors", "abstains", "rate",
              f"{conf} Wilson CI", "threshold", "coverage", "consistency", "flaky cases"]
    header += [f"pass^{md_escape(k)}" for k in ks]
    header.append("verdict reasons")
    rows = []
    for dim in dims:
        pass_k = dim.get("pass_k") or {}
        row = [
            _e(dim.get("name")),
            f"**{_e(dim.get('verdict'))}**",
            fmt_count(dim.get("n")),
            fmt_count(dim.get("passes")),
            fmt_count(dim.get("fails")),
            fmt_count(dim.get("errors")),
            fmt_count(dim.get("abstains")),
            fmt_pct(dim.get("rate")),
            fmt_ci(dim.get("ci_low"), dim.get("ci_high")),
            fmt_pct(dim.get("threshold")),
            fmt_pct(dim.get("coverage")),
            fmt_pct(dim.get("consistency")),
            fmt_count(len(dim.get("flaky_cases") or [])),
        ]
        row += [md_escape(fmt_pass_k(dim, k)) for k in ks]
        row.append("; ".join(md_escape(r) for r in dim.get("verdict_reasons") or []) or UNDEFINED)
        rows.append(row)
    out.extend(_table(header, rows) if rows else ["No dimension was measured."])
    add("")
    if dims and ks:
        add("pass^k is the chance that all k trials of a case pass (τ-bench). It can only fall as k grows over one set "
            "of cases; a value marked \"over N of M cases\" covers only the cases with at least k trials and is not "
            "comparable with the smaller ks.")
        add("")
    if dims:
        add("### Intervals and power")
        add("")
        add(md_escape(TWO_INTERVALS_NOTE))
        add("")
        power_rows = [
            [_e(dim.get("name")), fmt_count(dim.get("n")), fmt_count(dim.get("cases")), fmt_pct(dim.get("rate")),
             fmt_ci(dim.get("ci_low"), dim.get("ci_high")), fmt_deff(dim.get("deff")),
             fmt_ci(dim.get("ci_cluster_low"), dim.get("ci_cluster_high")), md_escape(mde_text(dim.get("mde")))]
            for dim in dims
        ]
        out.extend(_table(["dimension", "n", "cases", "rate", f"{conf} Wilson CI", "deff",
                           f"{conf} clustered CI", "this evaluation can detect"], power_rows))
        add("")
        add("### Run-to-run variance")
        add("")
        var_rows = [[_e(dim.get("name")), *(md_escape(c) for c in cells)]
                    for dim in dims if (cells := variance_cells(dim)) is not None]
        if var_rows:
            add("A run is one pass over the suite; only complete runs (every case measured) are averaged. "
                f"Interval: {conf} t-interval of the mean (Student t over the runs), clipped to [0%, 100%].")
            add("")
            out.extend(_table(VARIANCE_HEADER, var_rows))
        else:
            add("No run-to-run variance: the rows have no run column, and the cases do not share one set of trial "
                "numbers.")
        add("")
    add(f"Overall coverage (measured / all agent rows in scope): {fmt_pct(data.get('coverage'))}")
    add("")

    flaky = [d for d in dims if d.get("flaky_cases")]
    add("### Flaky cases")
    add("")
    if flaky:
        for dim in flaky:
            add(f"- {_e(dim.get('name'))} ({fmt_count(len(dim['flaky_cases']))} of "
                f"{fmt_count(dim.get('repeated_cases'))} repeated cases): {_id_list(dim['flaky_cases'])}")
    else:
        add("None: every repeated case's trials agree.")
    add("")

    # ---- caveats -------------------------------------------------------------------
    add("### Caveats")
    add("")
    for caveat in data.get("caveats") or []:
        add(f"- {md_escape(caveat)}")
    add("")

    # ---- findings (failing evidence first) -----------------------------------------
    findings = data.get("findings") or []
    add("## Findings")
    add("")
    if findings:
        add("Failing evidence first: each finding groups the non-PASS rows of one (dimension, reason). "
            "A finding says where to look; it does not prove root cause.")
        add("")
        f_rows = []
        for i, f in enumerate(findings, 1):
            f_rows.append([
                str(i), _e(f.get("severity")), _e(f.get("dimension")), _e(f.get("reason")), _e(f.get("status")),
                fmt_count(f.get("rows")) if "rows" in f else UNDEFINED,
                _id_list(f.get("case_ids") or []),
            ])
        out.extend(_table(["#", "severity", "dimension", "reason", "status", "rows", "case ids"], f_rows))
        add("")
        for i, f in enumerate(findings, 1):
            add(f"{i}. **{_e(f.get('dimension'))} / {_e(f.get('reason'))}** ({_e(f.get('severity'))})")
            if f.get("review"):
                add(f"    - Review: {md_escape(f['review'])}")
            add(f"    - Suggested fix: {_e(f.get('suggested_fix'))}")
            details = f.get("details") or []
            if details:
                add("    - Cases:")
                shown, omitted = truncate(details, DETAIL_LIMIT)
                for d in shown:
                    add(f"        - {md_escape(d.get('case_id'))}: {md_escape(d.get('detail'))}")
                more = len(f.get("case_ids") or []) - len({d.get("case_id") for d in details})
                if omitted or more > 0:
                    add("        - " + more_text(omitted + max(more, 0), "evidence.parquet (column detail)"))
    else:
        add("No findings.")
    add("")

    # ---- validation ----------------------------------------------------------------
    validation = data.get("validation") or {}
    add("## Validation")
    add("")
    add(f"- strict: {fmt_bool(validation.get('strict'))}"
        + (f", complete: {fmt_bool(validation.get('complete'))}" if "complete" in validation else ""))
    add(f"- labeled: {fmt_count(validation.get('labeled'))}, unlabeled: {fmt_count(validation.get('unlabeled'))}, "
        f"invalid: {fmt_count(validation.get('invalid'))}")
    problems = validation.get("problems") or []
    add(f"- problems: {fmt_count(len(problems))}")
    if problems:
        add("")
        shown, omitted = truncate(problems)
        for p in shown:
            add(f"- {md_escape(problem_text(p))}")
        if omitted:
            add(f"- {more_text(omitted, 'scorecard.json')}")
    add("")

    # ---- controls ------------------------------------------------------------------
    controls = sorted(data.get("controls") or [], key=lambda c: bool(c.get("passed")))  # failed first
    add("## Controls")
    add("")
    if controls:
        failed = sum(1 for c in controls if not c.get("passed"))
        add(f"Evaluator controls (known-bad rows, outside agent scores): {fmt_count(len(controls))}, "
            f"failed {fmt_count(failed)} (listed first).")
        add("")
        shown, omitted = truncate(controls)
        c_rows = [[_e(c.get("id")), _e(c.get("dimension")), _e(c.get("case_id")), _e(c.get("status")),
                   _e(c.get("reason")), "caught" if c.get("passed") else "**NOT caught**"] for c in shown]
        out.extend(_table(["id", "dimension", "case id", "status", "reason", "passed"], c_rows))
        if omitted:
            add("")
            add(more_text(omitted))
    else:
        add("No evaluator controls (known-bad rows) were supplied.")
    add("")

    # ---- comparison ----------------------------------------------------------------
    comparison = data.get("comparison") or {}
    add("## Comparison")
    add("")
    for label, text in comparison_facts(comparison):
        add(f"- {label}: {md_escape(text)}")
    reg_rows = regression_rows(comparison)
    if reg_rows:
        add("")
        out.extend(_table(list(REGRESSION_COLUMNS), [[md_escape(c) for c in row] for row in reg_rows]))
    add("")

    # ---- evidence, hashes, judges --------------------------------------------------
    hashes = data.get("hashes") or {}
    n_rows = evidence_row_count(data, evidence_rows)
    add("## Evidence")
    add("")
    add(f"`evidence.parquet` holds every scored row: {fmt_count(n_rows)} rows "
        f"(content hash `hashes.evidence` below). This report shows failing evidence first "
        f"(findings with their case ids) and omits passing rows; filter `status != \"PASS\"` "
        f"in evidence.parquet for every failing row.")
    add("")
    add("## Hashes")
    add("")
    out.extend(_table(["hash", "sha256"], [[k, _e(hashes.get(k))] for k in ("suite", "policy", "results", "evidence")]))
    add("")
    judges = data.get("judges") or []
    add(f"Judge identity: {_id_list(judges, where='scorecard.json') if judges else 'no judges'}")
    add("")
    return "\n".join(out) + "\n"


def write_markdown(data: dict[str, Any], path: str | Path, *, evidence_rows: int | None = None) -> Path:
    """Write ``scorecard.md`` atomically; return its path."""
    payload = render_markdown(data, evidence_rows=evidence_rows).encode("utf-8")
    return atomic_write(path, lambda tmp: tmp.write_bytes(payload))
