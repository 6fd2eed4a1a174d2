"""``scorecard.html``: the scorecard dictionary as one self-contained HTML5 page.

Self-contained means: one file, inline ``<style>`` only, no ``<script>``, no
external URL anywhere (no fonts, no CDN, no ``url()``), charts drawn as
hand-written inline SVG (no matplotlib: writing the reports must stay fast on a
100,000-row evaluation). A Content-Security-Policy ``<meta>`` forbids scripts and
remote loads as a second line of defence.

Every string from the data is untrusted (agent outputs, case ids, dimension
names, reasons, findings, evaluator and judge names) and passes through
:func:`html.escape` with ``quote=True``, in text and in SVG alike; untrusted text
is never placed in an attribute.
"""

from __future__ import annotations

import html as _html
from pathlib import Path
from typing import Any

from .._findings import SEVERITIES
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
    pass_k_on_curve,
    variance_cells,
    LIST_LIMIT,
    UNDEFINED,
    clean_text,
    comparison_facts,
    evidence_row_count,
    fmt_bool,
    fmt_ci,
    fmt_count,
    fmt_pct,
    more_text,
    pass_k_columns,
    problem_text,
    regression_rows,
    truncate,
)

__all__ = ["OKABE_ITO", "VERDICT_COLOURS", "render_html", "write_html"]

#: The Okabe–Ito colour-blind-safe palette.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
VERDICT_COLOURS = {
    "PASS": OKABE_ITO["bluish_green"],
    "FAIL": OKABE_ITO["vermillion"],
    "INCOMPLETE": OKABE_ITO["orange"],
    "NOT_IN_SCOPE": OKABE_ITO["sky_blue"],
}
_UNKNOWN_COLOUR = "#999999"
_K_COLOURS = (
    OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["bluish_green"], OKABE_ITO["reddish_purple"],
    OKABE_ITO["sky_blue"], OKABE_ITO["vermillion"], OKABE_ITO["yellow"], OKABE_ITO["black"],
)
_DECISIONS = ("PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST")
_VERDICTS = ("PASS", "FAIL", "INCOMPLETE", "NOT_IN_SCOPE")

_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  margin: 0 auto; max-width: 1200px; padding: 1.5rem; color: #1a1a1a; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.wide { overflow-x: auto; }
code, .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.decision { border: 3px solid; border-radius: 6px; padding: .8rem 1rem; margin: 0 0 1rem; }
.decision .label { font-size: 1.8rem; font-weight: 700; letter-spacing: .03em; }
.decision-pass { border-color: #009E73; background: #e6f5f0; }
.decision-fail { border-color: #D55E00; background: #fbece3; }
.decision-incomplete { border-color: #E69F00; background: #fdf4e1; }
.decision-triage, .decision-self-test, .decision-unknown { border-color: #56B4E9; background: #eaf5fc; }
.v { font-weight: 700; padding: 0 .3rem; border-radius: 3px; white-space: nowrap; }
.v-pass { color: #00694d; } .v-fail { color: #a84300; } .v-incomplete { color: #8a5f00; }
.v-not-in-scope, .v-unknown { color: #2b6f96; }
.sev-blocker { font-weight: 700; color: #a84300; } .sev-high { font-weight: 700; } .sev-info { color: #555555; }
.caveats { border-left: 4px solid #0072B2; background: #eef5fa; padding: .5rem 1rem; }
.more { font-style: italic; color: #555; }
.muted { color: #555; }
svg { max-width: 100%; height: auto; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; }
dl.kv dt { font-weight: 600; } dl.kv dd { margin: 0; }
ol.fixes li { margin-bottom: .6rem; }
@media print { .wide { overflow: visible; } }
"""


def h(value: Any) -> str:
    """Untrusted text, escaped for HTML text or a quoted attribute."""
    return _html.escape(clean_text(value), quote=True)


def _hx(value: Any) -> str:
    """Escaped text, or "—" for None / empty."""
    return UNDEFINED if value is None or value == "" else h(value)


def _slug(value: Any, known: tuple[str, ...]) -> str:
    """A CSS class suffix from a closed set (never from untrusted text)."""
    return str(value).lower().replace("_", "-") if value in known else "unknown"


def _id_list(items: list[Any], *, limit: int = LIST_LIMIT, where: str = "evidence.parquet") -> str:
    if not items:
        return UNDEFINED
    shown, omitted = truncate(items, limit)
    text = ", ".join(f'<code>{h(item)}</code>' for item in shown)
    if omitted:
        text += f' <span class="more">{h(more_text(omitted, where))}</span>'
    return text


def _case_details(finding: dict[str, Any]) -> str:
    """Each listed case of a finding with what its rows show (its ``detail``)."""
    details = finding.get("details") or []
    if not details:
        return ""
    shown, omitted = truncate(details, DETAIL_LIMIT)
    items = "".join(f"<li><code>{h(d.get('case_id'))}</code>: {h(d.get('detail'))}</li>" for d in shown)
    more = len(finding.get("case_ids") or []) - len({d.get("case_id") for d in details})
    tail = f'<li class="more">{h(more_text(omitted + max(more, 0), "evidence.parquet (column detail)"))}</li>' if omitted or more > 0 else ""
    return f'<ul class="case-details">{items}{tail}</ul>'


def _verdict(value: Any) -> str:
    return f'<span class="v v-{_slug(value, _VERDICTS)}">{_hx(value)}</span>'


def _num(text: str) -> str:
    return f'<td class="num">{text}</td>'


# --------------------------------------------------------------------------- charts
def _short(name: Any, limit: int = 26) -> str:
    text = clean_text(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rate_chart(dims: list[dict[str, Any]], conf: str) -> str:
    """Pass rate per dimension: bar = rate, whisker = Wilson interval, tick = threshold."""
    label_w, plot_w, right_w, row_h, top = 210, 440, 150, 30, 26
    width = label_w + plot_w + right_w
    legend_h = 46
    height = top + row_h * len(dims) + 24 + legend_h

    def x(value: float) -> float:
        return label_w + plot_w * min(max(float(value), 0.0), 1.0)

    parts = [
        f'<svg role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="system-ui, sans-serif" font-size="12" '
        f'aria-label="Pass rate per dimension with {h(conf)} Wilson interval whiskers and threshold ticks">',
        f"<title>Pass rate per dimension ({h(conf)} Wilson interval, threshold)</title>",
    ]
    axis_y = top + row_h * len(dims)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tx = x(tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{axis_y}" stroke="#dddddd" stroke-width="1"/>')
        parts.append(f'<text x="{tx:.1f}" y="{top - 10}" text-anchor="middle" fill="#444444">{fmt_pct(tick)}</text>')
    for i, dim in enumerate(dims):
        y0 = top + i * row_h
        cy = y0 + row_h / 2
        verdict = dim.get("verdict")
        colour = VERDICT_COLOURS.get(verdict, _UNKNOWN_COLOUR) if isinstance(verdict, str) else _UNKNOWN_COLOUR
        parts.append("<g>")
        parts.append(
            f"<title>{h(dim.get('name'))}: rate {fmt_pct(dim.get('rate'))}, "
            f"{h(conf)} CI {fmt_ci(dim.get('ci_low'), dim.get('ci_high'))}, "
            f"threshold {fmt_pct(dim.get('threshold'))}, verdict {_hx(verdict)}, n {fmt_count(dim.get('n'))}</title>"
        )
        parts.append(f'<text x="{label_w - 8}" y="{cy + 4:.1f}" text-anchor="end" fill="#1a1a1a">{h(_short(dim.get("name")))}</text>')
        parts.append(f'<rect x="{label_w}" y="{y0 + 7}" width="{plot_w}" height="{row_h - 14}" fill="#f2f2f2"/>')
        rate = dim.get("rate")
        if rate is None:
            parts.append(f'<text x="{label_w + 6}" y="{cy + 4:.1f}" fill="#555555" font-style="italic">no evidence (n = 0)</text>')
        else:
            parts.append(
                f'<rect x="{label_w}" y="{y0 + 7}" width="{x(rate) - label_w:.1f}" height="{row_h - 14}" '
                f'fill="{colour}" fill-opacity="0.85"/>'
            )
        lo, hi = dim.get("ci_low"), dim.get("ci_high")
        if lo is not None and hi is not None:
            x1, x2 = x(lo), x(hi)
            parts.append(f'<line x1="{x1:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" y2="{cy:.1f}" stroke="#000000" stroke-width="1.5"/>')
            for xe in (x1, x2):
                parts.append(f'<line x1="{xe:.1f}" y1="{cy - 6:.1f}" x2="{xe:.1f}" y2="{cy + 6:.1f}" stroke="#000000" stroke-width="1.5"/>')
        threshold = dim.get("threshold")
        if threshold is not None:
            xt = x(threshold)
            parts.append(
                f'<line x1="{xt:.1f}" y1="{y0 + 2}" x2="{xt:.1f}" y2="{y0 + row_h - 2}" stroke="{OKABE_ITO["blue"]}" '
                f'stroke-width="3"/>'
            )
        parts.append(
            f'<text x="{label_w + plot_w + 10}" y="{cy + 4:.1f}" fill="#1a1a1a">{fmt_pct(rate)} '
            f'<tspan font-weight="700" fill="#1a1a1a">{_hx(verdict)}</tspan></text>'
        )
        parts.append("</g>")
    # legend
    ly = axis_y + 24
    lx = label_w
    for verdict in _VERDICTS:
        parts.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{VERDICT_COLOURS[verdict]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{ly + 10}" fill="#1a1a1a">{verdict}</text>')
        lx += 30 + 8 * len(verdict)
    ly2 = ly + 22
    parts.append(f'<line x1="{label_w}" y1="{ly2 + 6}" x2="{label_w + 24}" y2="{ly2 + 6}" stroke="#000000" stroke-width="1.5"/>')
    parts.append(f'<line x1="{label_w}" y1="{ly2}" x2="{label_w}" y2="{ly2 + 12}" stroke="#000000" stroke-width="1.5"/>')
    parts.append(f'<line x1="{label_w + 24}" y1="{ly2}" x2="{label_w + 24}" y2="{ly2 + 12}" stroke="#000000" stroke-width="1.5"/>')
    parts.append(f'<text x="{label_w + 30}" y="{ly2 + 10}" fill="#1a1a1a">{h(conf)} Wilson interval</text>')
    tx = label_w + 200
    parts.append(f'<line x1="{tx}" y1="{ly2 - 2}" x2="{tx}" y2="{ly2 + 14}" stroke="{OKABE_ITO["blue"]}" stroke-width="3"/>')
    parts.append(f'<text x="{tx + 8}" y="{ly2 + 10}" fill="#1a1a1a">threshold</text>')
    parts.append("</svg>")
    return "".join(parts)


def _pass_k_chart(dims: list[dict[str, Any]], ks: list[str]) -> str:
    """pass^k per dimension: one thin bar per k (colours by k, legend below)."""
    label_w, plot_w, right_w, bar_h, gap, top = 210, 440, 70, 9, 10, 26
    group_h = bar_h * len(ks) + gap
    width = label_w + plot_w + right_w
    height = top + group_h * len(dims) + 44
    colours = {k: _K_COLOURS[i % len(_K_COLOURS)] for i, k in enumerate(ks)}

    def x(value: float) -> float:
        return label_w + plot_w * min(max(float(value), 0.0), 1.0)

    parts = [
        f'<svg role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="system-ui, sans-serif" font-size="11" '
        f'aria-label="pass^k per dimension for k = {h(", ".join(ks))}">',
        "<title>pass^k per dimension (probability that all k trials of a case pass)</title>",
    ]
    bottom = top + group_h * len(dims)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tx = x(tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{bottom}" stroke="#dddddd" stroke-width="1"/>')
        parts.append(f'<text x="{tx:.1f}" y="{top - 10}" text-anchor="middle" fill="#444444">{fmt_pct(tick)}</text>')
    for i, dim in enumerate(dims):
        y0 = top + i * group_h
        pass_k = dim.get("pass_k") or {}
        parts.append(
            f'<text x="{label_w - 8}" y="{y0 + bar_h * len(ks) / 2 + 4:.1f}" text-anchor="end" fill="#1a1a1a">'
            f"{h(_short(dim.get('name')))}</text>"
        )
        for j, k in enumerate(ks):
            value = pass_k.get(k)
            y = y0 + j * bar_h
            parts.append("<g>")
            parts.append(f"<title>{h(dim.get('name'))}: pass^{h(k)} = {h(fmt_pass_k(dim, k))}</title>")
            if value is None:
                parts.append(f'<text x="{label_w + 4}" y="{y + bar_h - 1}" fill="#777777" font-size="9">{UNDEFINED} (no case with {h(k)} trials)</text>')
            elif not pass_k_on_curve(dim, k):
                # Over a subset of the cases: never drawn as a bar beside the others (it may be higher).
                parts.append(f'<text x="{label_w + 4}" y="{y + bar_h - 1}" fill="#777777" font-size="9">'
                             f"{h(fmt_pass_k(dim, k))}: not comparable</text>")
                parts.append("</g>")
                continue
            else:
                parts.append(
                    f'<rect x="{label_w}" y="{y}" width="{x(value) - label_w:.1f}" height="{bar_h - 1}" fill="{colours[k]}"/>'
                )
            parts.append(f'<text x="{label_w + plot_w + 6}" y="{y + bar_h - 1}" fill="#1a1a1a" font-size="9">{fmt_pct(value)}</text>')
            parts.append("</g>")
    ly = bottom + 18
    lx = label_w
    for k in ks:
        parts.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{colours[k]}"/>')
        parts.append(f'<text x="{lx + 16}" y="{ly + 10}" fill="#1a1a1a">pass^{h(k)}</text>')
        lx += 70
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------- page
def render_html(data: dict[str, Any], *, evidence_rows: int | None = None) -> str:
    """The scorecard as one self-contained HTML5 page.

    Parameters
    ----------
    data : dict
        ``Scorecard.to_dict()``.
    evidence_rows : int, optional
        Rows written to ``evidence.parquet`` (default: from ``data``).
    """
    decision = data.get("decision")
    agent = data.get("agent") or {}
    conf = confidence_label(data)
    dims = data.get("dimensions") or []
    ks = pass_k_columns(dims)
    out: list[str] = []
    add = out.append

    add("<!DOCTYPE html>")
    add('<html lang="en">')
    add("<head>")
    add('<meta charset="utf-8">')
    add('<meta name="viewport" content="width=device-width, initial-scale=1">')
    add(
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
    )
    add('<meta name="referrer" content="no-referrer">')
    add(f"<title>Scorecard: {_hx(decision)}</title>")
    add(f"<style>{_CSS}</style>")
    add("</head>")
    add("<body>")
    add("<header>")
    who = " ".join(h(v) for v in (agent.get("name"), agent.get("version")) if v not in (None, ""))
    add(f"<h1>Agent evaluation scorecard{': ' + who if who else ''}</h1>")
    add(
        f'<section id="decision" class="decision decision-{_slug(decision, _DECISIONS)}" aria-label="Decision">'
        f'<div class="label">Decision: <span class="decision-value">{_hx(decision)}</span></div>'
        f"<div>{h(DECISION_MEANING.get(decision, '')) if isinstance(decision, str) else ''}</div>"
        f"<div>overall_pass: <strong>{fmt_bool(data.get('overall_pass'))}</strong>"
        f" · purpose: <strong>{_hx(data.get('purpose'))}</strong>"
        + (" (partial scan)" if data.get("partial") else "")
        + "</div>"
    )
    if data.get("measured_decision") not in (None, decision):
        add(f"<div>measured decision (before the comparison): {_hx(data.get('measured_decision'))}</div>")
    reasons = data.get("decision_reasons") or []
    if reasons:
        add("<ul>" + "".join(f"<li>{h(r)}</li>" for r in reasons) + "</ul>")
    add("</section>")
    add('<dl class="kv" id="identity">')
    add(f"<dt>agent</dt><dd>{_hx(agent.get('name'))}</dd>")
    add(f"<dt>agent version</dt><dd>{_hx(agent.get('version'))}</dd>")
    add(f"<dt>generated_at</dt><dd>{_hx(data.get('generated_at'))}</dd>")
    add(f"<dt>scorekit</dt><dd>{_hx(data.get('scorekit_version'))} (schema_version {_hx(data.get('schema_version'))})</dd>")
    add("</dl>")
    add("</header>")
    add("<main>")

    # ---- scope ---------------------------------------------------------------------
    scope = data.get("scope") or {}
    add('<section id="scope"><h2>Scope</h2><dl class="kv">')
    add(f"<dt>required dimensions</dt><dd>{_id_list(scope.get('required_dimensions') or [], where='scorecard.json')}</dd>")
    if "dimensions" in scope:
        add(f"<dt>dimensions in scope</dt><dd>{_id_list(scope.get('dimensions') or [], where='scorecard.json')}</dd>")
    inferred = scope.get("inferred")
    add(
        f"<dt>inferred</dt><dd>{fmt_bool(inferred)}"
        + (" (scope inferred from the rows: an entirely absent dimension cannot be detected;"
           " declare gate.required_dimensions)" if inferred else "")
        + "</dd>"
    )
    add(f"<dt>missing dimensions</dt><dd>{_id_list(scope.get('missing_dimensions') or [], where='scorecard.json')}</dd>")
    add("</dl></section>")

    # ---- dimensions ----------------------------------------------------------------
    add('<section id="dimensions-section"><h2>Dimensions</h2>')
    add(
        f"<p>Pass rate = PASS / (PASS + FAIL); ERROR and ABSTAIN rows are missing evaluator evidence, outside the "
        f"denominator. Interval: {h(conf)} Wilson score interval. Undefined values (no evidence) are shown as "
        f"{UNDEFINED}.</p>"
    )
    if dims:
        add(f'<figure>{_rate_chart(dims, conf)}</figure>')
        header = ["dimension", "verdict", "n", "passes", "fails", "errors", "abstains", "rate",
                  f"{conf} Wilson CI", "threshold", "coverage", "consistency", "flaky cases"]
        header += [f"pass^{k}" for k in ks]
        header.append("verdict reasons")
        add('<div class="wide"><table id="dimensions"><thead><tr>'
            + "".join(f'<th scope="col">{h(c)}</th>' for c in header) + "</tr></thead><tbody>")
        for dim in dims:
            pass_k = dim.get("pass_k") or {}
            cells = [
                f'<th scope="row"><code>{_hx(dim.get("name"))}</code></th>',
                f"<td>{_verdict(dim.get('verdict'))}</td>",
                _num(fmt_count(dim.get("n"))),
                _num(fmt_count(dim.get("passes"))),
                _num(fmt_count(dim.get("fails"))),
                _num(fmt_count(dim.get("errors"))),
                _num(fmt_count(dim.get("abstains"))),
                _num(fmt_pct(dim.get("rate"))),
                _num(fmt_ci(dim.get("ci_low"), dim.get("ci_high"))),
                _num(fmt_pct(dim.get("threshold"))),
                _num(fmt_pct(dim.get("coverage"))),
                _num(fmt_pct(dim.get("consistency"))),
                _num(fmt_count(len(dim.get("flaky_cases") or []))),
            ]
            cells += [_num(h(fmt_pass_k(dim, k))) for k in ks]
            why = dim.get("verdict_reasons") or []
            cells.append("<td>" + ("<br>".join(h(r) for r in why) if why else UNDEFINED) + "</td>")
            add("<tr>" + "".join(cells) + "</tr>")
        add("</tbody></table></div>")
        if ks:
            add("<p>pass^k is the chance that all k trials of a case pass (τ-bench). It can only fall as k grows over "
                "one set of cases; a value marked “over N of M cases” covers only the cases with at least k trials "
                "and is not comparable with the smaller ks.</p>")
        add(f'<h3>Intervals and power</h3><p class="note" id="two-intervals">{h(TWO_INTERVALS_NOTE)}</p>')
        power_header = ["dimension", "n", "cases", "rate", f"{conf} Wilson CI", "deff", f"{conf} clustered CI",
                        "this evaluation can detect"]
        add('<div class="wide"><table id="intervals"><thead><tr>'
            + "".join(f'<th scope="col">{h(c)}</th>' for c in power_header) + "</tr></thead><tbody>")
        for dim in dims:
            add("<tr>" + "".join([
                f'<th scope="row"><code>{_hx(dim.get("name"))}</code></th>',
                _num(fmt_count(dim.get("n"))), _num(fmt_count(dim.get("cases"))), _num(fmt_pct(dim.get("rate"))),
                _num(fmt_ci(dim.get("ci_low"), dim.get("ci_high"))), _num(fmt_deff(dim.get("deff"))),
                _num(fmt_ci(dim.get("ci_cluster_low"), dim.get("ci_cluster_high"))),
                f"<td>{h(mde_text(dim.get('mde')))}</td>",
            ]) + "</tr>")
        add("</tbody></table></div>")
        add('<h3>Run-to-run variance</h3>')
        var_rows = [(dim, cells) for dim in dims if (cells := variance_cells(dim)) is not None]
        if var_rows:
            add(f"<p>A run is one pass over the suite; only complete runs (every case measured) are averaged. "
                f"Interval: {h(conf)} t-interval of the mean (Student t over the runs), clipped to [0%, 100%].</p>")
            add('<div class="wide"><table id="variance"><thead><tr>'
                + "".join(f'<th scope="col">{h(c)}</th>' for c in VARIANCE_HEADER) + "</tr></thead><tbody>")
            for dim, cells in var_rows:
                add("<tr>" + f'<th scope="row"><code>{_hx(dim.get("name"))}</code></th>'
                    + "".join(_num(h(c)) if i < 8 else f"<td>{h(c)}</td>" for i, c in enumerate(cells)) + "</tr>")
            add("</tbody></table></div>")
        else:
            add("<p>No run-to-run variance: the rows have no run column, and the cases do not share one set of trial "
                "numbers.</p>")
        if ks and any(v is not None for d in dims for v in (d.get("pass_k") or {}).values()):
            add(f"<h3>Reliability: pass^k</h3><figure>{_pass_k_chart(dims, ks)}</figure>")
    else:
        add("<p>No dimension was measured.</p>")
    add(f"<p>Overall coverage (measured / all agent rows in scope): <strong>{fmt_pct(data.get('coverage'))}</strong></p>")
    add('<h3>Flaky cases</h3><ul id="flaky">')
    flaky = [d for d in dims if d.get("flaky_cases")]
    for dim in flaky:
        add(
            f"<li><code>{_hx(dim.get('name'))}</code> ({fmt_count(len(dim['flaky_cases']))} of "
            f"{fmt_count(dim.get('repeated_cases'))} repeated cases): {_id_list(dim['flaky_cases'])}</li>"
        )
    if not flaky:
        add("<li>None: every repeated case's trials agree.</li>")
    add("</ul>")
    add('<div class="caveats" id="caveats"><h3>Caveats</h3><ul>')
    for caveat in data.get("caveats") or []:
        add(f"<li>{h(caveat)}</li>")
    add("</ul></div>")
    add("</section>")

    # ---- findings ------------------------------------------------------------------
    findings = data.get("findings") or []
    add('<section id="findings-section"><h2>Findings</h2>')
    if findings:
        add("<p>Failing evidence first: each finding groups the non-PASS rows of one (dimension, reason). "
            "A finding says where to look; it does not prove root cause.</p>")
        add('<div class="wide"><table id="findings"><thead><tr>'
            + "".join(f'<th scope="col">{c}</th>' for c in ("#", "severity", "dimension", "reason", "status", "rows", "case ids"))
            + "</tr></thead><tbody>")
        for i, f in enumerate(findings, 1):
            severity = f.get("severity")
            sev_class = _slug(severity, SEVERITIES)
            add(
                "<tr>"
                + _num(str(i))
                + f'<td class="sev-{sev_class}">{_hx(severity)}</td>'
                + f"<td><code>{_hx(f.get('dimension'))}</code></td>"
                + f"<td><code>{_hx(f.get('reason'))}</code></td>"
                + f"<td>{_hx(f.get('status'))}</td>"
                + _num(fmt_count(f.get("rows")) if "rows" in f else UNDEFINED)
                + f"<td>{_id_list(f.get('case_ids') or [])}</td>"
                + "</tr>"
            )
        add("</tbody></table></div>")
        add('<ol class="fixes">')
        for f in findings:
            add(
                f"<li><strong><code>{_hx(f.get('dimension'))}</code> / <code>{_hx(f.get('reason'))}</code></strong>"
                f" ({_hx(f.get('severity'))})"
                + (f"<br>Review: {h(f['review'])}" if f.get("review") else "")
                + f"<br>Suggested fix: {_hx(f.get('suggested_fix'))}"
                + _case_details(f)
                + "</li>"
            )
        add("</ol>")
    else:
        add("<p>No findings.</p>")
    add("</section>")

    # ---- validation ----------------------------------------------------------------
    validation = data.get("validation") or {}
    problems = validation.get("problems") or []
    add('<section id="validation"><h2>Validation</h2><dl class="kv">')
    add(f"<dt>strict</dt><dd>{fmt_bool(validation.get('strict'))}</dd>")
    if "complete" in validation:
        add(f"<dt>complete</dt><dd>{fmt_bool(validation.get('complete'))}</dd>")
    add(f"<dt>labeled</dt><dd>{fmt_count(validation.get('labeled'))}</dd>")
    add(f"<dt>unlabeled</dt><dd>{fmt_count(validation.get('unlabeled'))}</dd>")
    add(f"<dt>invalid</dt><dd>{fmt_count(validation.get('invalid'))}</dd>")
    add(f"<dt>problems</dt><dd>{fmt_count(len(problems))}</dd>")
    add("</dl>")
    if problems:
        shown, omitted = truncate(problems)
        add('<ul id="problems">' + "".join(f"<li><code>{h(problem_text(p))}</code></li>" for p in shown))
        if omitted:
            add(f'<li class="more">{h(more_text(omitted, "scorecard.json"))}</li>')
        add("</ul>")
    add("</section>")

    # ---- controls ------------------------------------------------------------------
    controls = sorted(data.get("controls") or [], key=lambda c: bool(c.get("passed")))  # failed first
    add('<section id="controls-section"><h2>Controls</h2>')
    if controls:
        failed = sum(1 for c in controls if not c.get("passed"))
        add(f"<p>Evaluator controls (known-bad rows, outside agent scores): {fmt_count(len(controls))}, "
            f"failed {fmt_count(failed)} (listed first).</p>")
        shown, omitted = truncate(controls)
        add('<table id="controls"><thead><tr>'
            + "".join(f'<th scope="col">{c}</th>' for c in ("id", "dimension", "case id", "status", "reason", "passed"))
            + "</tr></thead><tbody>")
        for c in shown:
            caught = "caught" if c.get("passed") else '<span class="v v-fail">NOT caught</span>'
            add(
                f"<tr><td><code>{_hx(c.get('id'))}</code></td><td><code>{_hx(c.get('dimension'))}</code></td>"
                f"<td><code>{_hx(c.get('case_id'))}</code></td><td>{_hx(c.get('status'))}</td>"
                f"<td><code>{_hx(c.get('reason'))}</code></td><td>{caught}</td></tr>"
            )
        add("</tbody></table>")
        if omitted:
            add(f'<p class="more">{h(more_text(omitted))}</p>')
    else:
        add("<p>No evaluator controls (known-bad rows) were supplied.</p>")
    add("</section>")

    # ---- comparison ----------------------------------------------------------------
    comparison = data.get("comparison") or {}
    add('<section id="comparison"><h2>Comparison</h2><dl class="kv">')
    for label, text in comparison_facts(comparison):
        add(f"<dt>{h(label)}</dt><dd>{h(text)}</dd>")
    add("</dl>")
    reg_rows = regression_rows(comparison)
    if reg_rows:
        add('<div class="wide"><table id="regressions"><thead><tr>'
            + "".join(f'<th scope="col">{h(c)}</th>' for c in REGRESSION_COLUMNS) + "</tr></thead><tbody>")
        for row in reg_rows:
            status = row[1]
            cells = [f"<td><code>{h(row[0])}</code></td>",
                     f'<td><span class="v v-{"fail" if status == "regressed" else "pass" if status == "ok" else "unknown"}">'
                     f"{h(status)}</span></td>"]
            cells += [_num(h(c)) for c in row[2:-1]] + [f"<td>{h(row[-1])}</td>"]
            add("<tr>" + "".join(cells) + "</tr>")
        add("</tbody></table></div>")
    add("</section>")

    # ---- evidence, hashes, judges --------------------------------------------------
    hashes = data.get("hashes") or {}
    n_rows = evidence_row_count(data, evidence_rows)
    add('<section id="evidence"><h2>Evidence</h2>')
    add(
        f"<p><code>evidence.parquet</code> holds every scored row: <strong>{fmt_count(n_rows)}</strong> rows "
        "(content hash <code>hashes.evidence</code> below). This report shows failing evidence first (findings "
        "with their case ids) and omits passing rows; filter <code>status != \"PASS\"</code> in evidence.parquet "
        "for every failing row.</p>"
    )
    add("</section>")
    add('<section id="hashes-section"><h2>Hashes</h2><table id="hashes"><thead><tr><th scope="col">hash</th>'
        '<th scope="col">sha256</th></tr></thead><tbody>')
    for key in ("suite", "policy", "results", "evidence"):
        add(f'<tr><th scope="row">{key}</th><td><code>{_hx(hashes.get(key))}</code></td></tr>')
    add("</tbody></table>")
    judges = data.get("judges") or []
    add(f'<p id="judges">Judge identity: {_id_list(judges, where="scorecard.json") if judges else "no judges"}</p>')
    add("</section>")
    add("</main>")
    add(f'<footer class="muted"><p>Written by scorekit {_hx(data.get("scorekit_version"))}; '
        "one self-contained file, no scripts, no external resources.</p></footer>")
    add("</body>")
    add("</html>")
    return "\n".join(out) + "\n"


def write_html(data: dict[str, Any], path: str | Path, *, evidence_rows: int | None = None) -> Path:
    """Write ``scorecard.html`` atomically; return its path."""
    payload = render_html(data, evidence_rows=evidence_rows).encode("utf-8")
    return atomic_write(path, lambda tmp: tmp.write_bytes(payload))
