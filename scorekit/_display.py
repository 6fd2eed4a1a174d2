"""HTML fragments the notebooks display, drawn from ``Scorecard.to_dict()``.

The release and explore notebooks compute nothing: they show the scorecard
dictionary (the one evidence model, SPEC §1) through these functions. Numbers
go through the report formatters of :mod:`scorekit.reports._format`, so the
notebook, ``scorecard.md`` and ``scorecard.html`` cannot disagree about
``84.7%``.

Every string from the data is untrusted and escaped (:func:`h`); the escape
also breaks ``scheme://`` so text in the data can never read as a URL in the
exported report, which must hold no external URL (SPEC §12). Styles are inline
attributes and a few classes: the fragments look the same live in Jupyter and in
the exported HTML, and carry no script.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .reports._format import (
    DECISION_MEANING,
    LIST_LIMIT,
    REGRESSION_COLUMNS,
    TWO_INTERVALS_NOTE,
    UNDEFINED,
    VARIANCE_HEADER,
    comparison_facts,
    confidence_label,
    fmt_bool,
    fmt_ci,
    fmt_confidence,
    fmt_count,
    fmt_deff,
    fmt_pass_k,
    fmt_pct,
    mde_text,
    more_text,
    pass_k_columns,
    problem_text,
    regression_rows,
    truncate,
    variance_cells,
)
from .reports.html import OKABE_ITO, VERDICT_COLOURS
from .reports.html import h as _escape

__all__ = [
    "DECISION_COLOURS",
    "caveats",
    "comparison",
    "controls_table",
    "intervals_table",
    "decision_banner",
    "dimension_table",
    "files_list",
    "findings_table",
    "h",
    "hashes_table",
    "history_table",
    "reproduction",
    "scope_and_validation",
    "signature_status",
    "table",
    "title",
    "variance_table",
]

#: Banner colour (border) and tint (background) per decision; Okabe–Ito hues, dark text on the tint.
DECISION_COLOURS = {
    "PASS": (OKABE_ITO["bluish_green"], "#e6f5f0"),
    "FAIL": (OKABE_ITO["vermillion"], "#fbece3"),
    "INCOMPLETE": (OKABE_ITO["orange"], "#fdf4e1"),
    "TRIAGE": (OKABE_ITO["sky_blue"], "#eaf5fc"),
    "SELF_TEST": (OKABE_ITO["sky_blue"], "#eaf5fc"),
}
_UNKNOWN = ("#999999", "#f2f2f2")
_TABLE = 'style="border-collapse:collapse;font-size:0.92em;margin:0.4em 0 1em"'
_CELL = "border:1px solid #cccccc;padding:0.2em 0.5em;"
_TH = f'style="{_CELL}background:#f2f2f2;text-align:left;vertical-align:top"'
_TD = f'style="{_CELL}text-align:left;vertical-align:top"'
_NUM = f'style="{_CELL}text-align:right;vertical-align:top;font-variant-numeric:tabular-nums;white-space:nowrap"'


def h(value: Any) -> str:
    """Untrusted text escaped for HTML, with ``scheme://`` broken so it is never a URL."""
    return _escape(value).replace("://", ":&#47;&#47;")


def _hx(value: Any) -> str:
    return UNDEFINED if value is None or value == "" else h(value)


def _code(value: Any) -> str:
    return f"<code>{_hx(value)}</code>"


def _ids(items: Sequence[Any], where: str = "evidence.parquet") -> str:
    if not items:
        return UNDEFINED
    shown, omitted = truncate(items, LIST_LIMIT)
    text = ", ".join(_code(item) for item in shown)
    return text + (f" <em>{h(more_text(omitted, where))}</em>" if omitted else "")


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = (), css_class: str = "") -> str:
    """An HTML table; ``header`` is escaped here, cells are HTML already (escape them first).

    ``numeric`` lists the column positions drawn right-aligned.
    """
    right = set(numeric)
    head = "".join(f'<th scope="col" {_TH}>{h(c)}</th>' for c in header)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if i == 0:
                cells.append(f'<th scope="row" {_TH}>{cell}</th>')
            else:
                cells.append(f"<td {_NUM if i in right else _TD}>{cell}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    klass = f' class="{css_class}"' if css_class else ""
    return f"<table{klass} {_TABLE}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _note(text: str) -> str:
    return f'<p style="color:#444444;margin:0.3em 0">{text}</p>'


# --------------------------------------------------------------------------- sections
def title(data: Mapping[str, Any]) -> str:
    """The report heading: agent name and version."""
    agent = data.get("agent") or {}
    who = " ".join(h(v) for v in (agent.get("name"), agent.get("version")) if v not in (None, ""))
    return f'<h1 class="sk-title" style="margin:0 0 0.4em">Release scorecard{": " + who if who else ""}</h1>'


def decision_banner(data: Mapping[str, Any]) -> str:
    """The decision, coloured by decision, with what it means and the reasons for it."""
    decision = data.get("decision")
    colour, tint = DECISION_COLOURS.get(decision, _UNKNOWN) if isinstance(decision, str) else _UNKNOWN
    slug = str(decision).lower().replace("_", "-") if decision in DECISION_COLOURS else "unknown"
    meaning = DECISION_MEANING.get(decision, "") if isinstance(decision, str) else ""
    parts = [
        f'<section id="sk-decision" class="sk-decision sk-decision-{slug}" role="status" aria-label="Decision" '
        f'style="border:4px solid {colour};background:{tint};border-radius:6px;padding:0.8em 1.1em;margin:0.5em 0 1em;'
        f'color:#1a1a1a">',
        f'<div style="font-size:1.9em;font-weight:700;letter-spacing:0.03em">Decision: '
        f'<span class="sk-decision-value" style="background:{colour};color:#ffffff;padding:0 0.35em;'
        f'border-radius:4px">{_hx(decision)}</span></div>',
        f"<div>{h(meaning)}</div>",
        f"<div>overall_pass: <strong>{fmt_bool(data.get('overall_pass'))}</strong> · purpose: "
        f"<strong>{_hx(data.get('purpose'))}</strong>{' (partial scan)' if data.get('partial') else ''}"
        f" · generated_at {_hx(data.get('generated_at'))}</div>",
    ]
    if data.get("measured_decision") not in (None, decision):
        parts.append(f"<div>measured decision (before the comparison): {_hx(data.get('measured_decision'))}</div>")
    reasons = data.get("decision_reasons") or []
    if reasons:
        parts.append('<div style="margin-top:0.4em">Why:</div><ul class="sk-reasons" style="margin:0.2em 0">'
                     + "".join(f"<li>{h(r)}</li>" for r in reasons) + "</ul>")
    parts.append("</section>")
    return "".join(parts)


def scope_and_validation(data: Mapping[str, Any]) -> str:
    """Scope (required, in scope, missing dimensions) and validation counts with the first problems."""
    scope = data.get("scope") or {}
    validation = data.get("validation") or {}
    problems = validation.get("problems") or []
    rows = [
        ["required dimensions", _ids(scope.get("required_dimensions") or [], "scorecard.json")],
        ["dimensions in scope", _ids(scope.get("dimensions") or [], "scorecard.json")],
        ["scope inferred from the rows", fmt_bool(scope.get("inferred"))],
        ["missing dimensions", _ids(scope.get("missing_dimensions") or [], "scorecard.json")],
        ["strict validation", fmt_bool(validation.get("strict"))],
        ["rows labeled / unlabeled / invalid",
         " / ".join(fmt_count(validation.get(k)) for k in ("labeled", "unlabeled", "invalid"))],
        ["coverage (measured / all agent rows)", fmt_pct(data.get("coverage"))],
    ]
    out = table(["", "value"], rows, css_class="sk-scope")
    if problems:
        shown, omitted = truncate(problems, 20)
        out += '<ul class="sk-problems">' + "".join(f"<li><code>{h(problem_text(p))}</code></li>" for p in shown)
        if omitted:
            out += f"<li><em>{h(more_text(omitted, 'scorecard.json'))}</em></li>"
        out += "</ul>"
    return out


def dimension_table(data: Mapping[str, Any], *, ks: Sequence[str] | None = None) -> str:
    """Per-dimension verdict, counts, rate and Wilson interval (percent, one decimal), threshold, pass^k."""
    dims = data.get("dimensions") or []
    conf = confidence_label(data)
    ks = list(pass_k_columns(dims) if ks is None else ks)
    header = ["dimension", "verdict", "n", "passes", "fails", "errors", "abstains", "rate",
              f"{conf} CI low", f"{conf} CI high", "threshold", *[f"pass^{k}" for k in ks],
              "consistency", "flaky cases"]
    rows = []
    for dim in dims:
        verdict = dim.get("verdict")
        colour = VERDICT_COLOURS.get(verdict, "#999999") if isinstance(verdict, str) else "#999999"
        pass_k = dim.get("pass_k") or {}
        rows.append([
            _code(dim.get("name")),
            f'<span class="sk-verdict" style="border-left:6px solid {colour};padding-left:0.3em;font-weight:600">'
            f"{_hx(verdict)}</span>",
            fmt_count(dim.get("n")),
            fmt_count(dim.get("passes")),
            fmt_count(dim.get("fails")),
            fmt_count(dim.get("errors")),
            fmt_count(dim.get("abstains")),
            fmt_pct(dim.get("rate")),
            fmt_pct(dim.get("ci_low")),
            fmt_pct(dim.get("ci_high")),
            fmt_pct(dim.get("threshold")),
            *[h(fmt_pass_k(dim, str(k))) for k in ks],
            fmt_pct(dim.get("consistency")),
            _ids(dim.get("flaky_cases") or []),
        ])
    numeric = [*range(2, 11 + len(ks) + 1)]
    out = table(header, rows, numeric=numeric, css_class="sk-dimensions")
    return out + _note(
        f"Rate = PASS / (PASS + FAIL); ERROR and ABSTAIN rows are missing evaluator evidence, outside the "
        f"denominator. Interval: {h(conf)} Wilson score interval. {UNDEFINED} = no evidence."
    )


def caveats(data: Mapping[str, Any]) -> str:
    """The two caveats of SPEC §6."""
    items = "".join(f"<li>{h(c)}</li>" for c in data.get("caveats") or [])
    return (f'<div class="sk-caveats" style="border-left:4px solid {OKABE_ITO["blue"]};background:#eef5fa;'
            f'padding:0.3em 1em;margin:0.5em 0"><strong>Caveats</strong><ul style="margin:0.2em 0">{items}</ul></div>')


def intervals_table(data: Mapping[str, Any]) -> str:
    """Both intervals per dimension, the design effect and what drop the evidence can detect (SPEC §6)."""
    dims = data.get("dimensions") or []
    if not dims:
        return ""
    conf = confidence_label(data)
    rows = [[_code(d.get("name")), fmt_count(d.get("n")), fmt_count(d.get("cases")), fmt_pct(d.get("rate")),
             fmt_ci(d.get("ci_low"), d.get("ci_high")), fmt_deff(d.get("deff")),
             fmt_ci(d.get("ci_cluster_low"), d.get("ci_cluster_high")), h(mde_text(d.get("mde")))] for d in dims]
    out = table(["dimension", "n", "cases", "rate", f"{conf} Wilson CI", "deff", f"{conf} clustered CI",
                 "this evaluation can detect"], rows, numeric=[1, 2, 3, 4, 5, 6], css_class="sk-intervals")
    return out + _note(h(TWO_INTERVALS_NOTE))


def variance_table(data: Mapping[str, Any]) -> str:
    """The scorecard's run-to-run variance per dimension (SPEC §6): complete runs only, clipped, marked."""
    dims = data.get("dimensions") or []
    rows = [[_code(d.get("name")), *(h(c) for c in cells)] for d in dims if (cells := variance_cells(d)) is not None]
    if not rows:
        return _note("No run-to-run variance: the rows have no run column, and the cases do not share one set of "
                     "trial numbers.")
    conf = confidence_label(data)
    return table(VARIANCE_HEADER, rows, numeric=[2, 3, 4, 5, 6, 7, 8], css_class="sk-variance") + _note(
        f"A run is one pass over the suite; only complete runs (every case measured) are averaged. Interval: "
        f"{h(conf)} t-interval of the mean (Student t over the runs), clipped to [0%, 100%].")


def controls_table(data: Mapping[str, Any]) -> str:
    """Evaluator controls (known-bad rows): did the evaluator catch each one? Failed first."""
    controls = sorted(data.get("controls") or [], key=lambda c: bool(c.get("passed")))
    if not controls:
        return _note("No evaluator controls (known-bad rows) were supplied.")
    failed = sum(1 for c in controls if not c.get("passed"))
    shown, omitted = truncate(controls, LIST_LIMIT)
    rows = [[_code(c.get("id")), _code(c.get("dimension")), _code(c.get("case_id")), _hx(c.get("status")),
             _code(c.get("reason")),
             "caught" if c.get("passed") else f'<strong style="color:{OKABE_ITO["vermillion"]}">NOT caught</strong>']
            for c in shown]
    out = _note(f"{fmt_count(len(controls))} evaluator controls (known-bad rows, outside the agent's scores); "
                f"{fmt_count(failed)} not caught.")
    out += table(["id", "dimension", "case id", "status", "reason", "evaluator"], rows, css_class="sk-controls")
    return out + (_note(h(more_text(omitted))) if omitted else "")


def findings_table(data: Mapping[str, Any]) -> str:
    """Findings, failing evidence first: severity, dimension, reason, rows, case ids, suggested fix."""
    findings = data.get("findings") or []
    if not findings:
        return _note("No findings.")
    rows = []
    for f in findings:
        severity = f.get("severity")
        strong = severity in ("blocker", "high")
        rows.append([
            _code(f.get("dimension")),
            f"<strong>{_hx(severity)}</strong>" if strong else _hx(severity),
            _code(f.get("reason")),
            _hx(f.get("status")),
            fmt_count(f.get("rows")) if "rows" in f else UNDEFINED,
            _ids(f.get("case_ids") or []),
            _hx(f.get("suggested_fix")),
        ])
    out = _note("Each finding groups the non-PASS rows of one (dimension, reason). It says where to look; it "
                "does not prove root cause.")
    return out + table(["dimension", "severity", "reason", "status", "rows", "case ids", "suggested fix"], rows,
                       numeric=[4], css_class="sk-findings")


def comparison(data: Mapping[str, Any]) -> str:
    """The comparison with the baseline: status, baseline, method, per-dimension regressions."""
    comp = data.get("comparison") or {}
    facts = table(["", "value"], [[h(label), h(text)] for label, text in comparison_facts(comp)],
                  css_class="sk-comparison")
    rows = [[_code(r[0]), *[h(c) for c in r[1:]]] for r in regression_rows(comp)]
    if rows:
        facts += table(list(REGRESSION_COLUMNS), rows, numeric=[2, 3, 4, 5, 6], css_class="sk-regressions")
    return facts


def history_table(records: Any, *, limit: int = 10) -> str:
    """The latest records of ``scorekit.history.read_history`` (oldest first), as ``scorekit history`` prints them."""
    from .history import format_history

    if records is None or len(records) == 0:
        return _note("The history database holds no record yet.")
    text = format_history(records.tail(limit))
    return f'<pre class="sk-history" style="font-size:0.85em;overflow-x:auto">{h(text)}</pre>'


def hashes_table(data: Mapping[str, Any]) -> str:
    """The SPEC §10 hashes (suite, policy, results, evidence)."""
    hashes = data.get("hashes") or {}
    rows = [[h(key), _code(hashes.get(key))] for key in ("suite", "policy", "results", "evidence")]
    return table(["hash", "sha256"], rows, css_class="sk-hashes")


def signature_status(outcome: str | None, reason: str = "", envelope: Any = None) -> str:
    """Signature status: not signed, or the verification outcome and what it establishes."""
    if outcome is None:
        return _note("Not signed. Sign <code>scorecard.json</code> with <code>scorekit sign --scorecard "
                     "scorecard.json --key KEY.pem</code>, or give the notebook a <code>signing_key</code>.")
    colour = {"verified": OKABE_ITO["bluish_green"], "integrity-only": OKABE_ITO["orange"]}.get(
        outcome, OKABE_ITO["vermillion"])
    text = (f'<p class="sk-signature">Signature: <strong style="border-left:6px solid {colour};padding-left:0.3em">'
            f"{h(outcome)}</strong> — {h(reason)}</p>")
    if envelope is not None:
        text += _note(f"Envelope: <code>{h(envelope)}</code> (Ed25519 over the RFC 8785 canonical JSON).")
    return text


def reproduction(commands: Sequence[str], facts: Mapping[str, Any] | None = None) -> str:
    """Reproduction commands (escaped, one per block) and environment facts."""
    out = "".join(f'<pre class="sk-command" style="background:#f6f6f6;padding:0.5em;white-space:pre-wrap">'
                  f"{h(c)}</pre>" for c in commands)
    if facts:
        out += table(["", "value"], [[h(k), _hx(v)] for k, v in facts.items()], css_class="sk-environment")
    return out


def files_list(paths: Mapping[str, Any]) -> str:
    """The files written, one per line."""
    return '<ul class="sk-files">' + "".join(
        f"<li>{h(kind)}: <code>{h(path)}</code></li>" for kind, path in paths.items()) + "</ul>"
