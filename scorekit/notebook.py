"""What the notebooks display: the report's sections as fragments, HTML with a Markdown twin.

The release and explore notebooks compute nothing: they show the scorecard
dictionary (``Scorecard.to_dict()``, the one evidence model, SPEC §1) through
:class:`Report`, which builds its sections once
(:mod:`scorekit.reports._sections`) and renders each through the same templates
as ``scorecard.html`` and ``scorecard.md`` — so the notebook, the reports, the
CLI and the history listing cannot disagree about ``84.7%``.

Each function returns a :class:`Fragment`: Jupyter shows its HTML (the report's
own markup and CSS, charts as the reports' inline SVG, no script); the
Markdown export of an executed notebook (``release_scorecard.md``, written by
:func:`scorekit.render.export_notebook`) uses its Markdown twin, plain GitHub
Markdown without a single HTML tag, whose charts are the ``rates.svg`` and
``pass_k.svg`` files :meth:`Report.write_charts` writes beside it.

Examples
--------
>>> import scorekit as sk
>>> from scorekit.notebook import Report
>>> report = Report(sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict())
>>> fragment = report.decision()
>>> 'class="sk-decision-value">FAIL<' in fragment.html, "**Decision: FAIL**" in fragment.markdown
(True, True)
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .reports._sections import Sections, Table, build_sections, history_sections

__all__ = [
    "CHART_FILES",
    "VERDICT_STYLES",
    "Fragment",
    "Report",
    "files_list",
    "history",
    "imported_runs",
    "imported_runs_html",
    "message",
    "reproduction",
    "scorecard_html",
    "scorecard_style",
    "dimension_style",
    "signature_status",
    "trend",
]

#: The chart files :meth:`Report.write_charts` writes (and the Markdown twins link to).
CHART_FILES = {"rates": "rates.svg", "pass_k": "pass_k.svg"}
_SAFE_LINK = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")


@dataclass(frozen=True)
class Fragment:
    """One displayable piece of the report: ``html`` (with the report's CSS) and its ``markdown`` twin.

    Fragments add up (``a + b``) into one display.
    """

    html: str
    markdown: str

    def _repr_html_(self) -> str:
        from .reports._templates import report_css

        return f'<div class="sk-report"><style>{report_css()}</style>{self.html}</div>'

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __add__(self, other: Fragment) -> Fragment:
        if not isinstance(other, Fragment):
            return NotImplemented
        return Fragment(self.html + "\n" + other.html, self.markdown.rstrip("\n") + "\n\n" + other.markdown)

    def __repr__(self) -> str:
        return f"<Fragment {len(self.html):,} characters of HTML, {len(self.markdown):,} of Markdown>"


def _render(macro: str, *args: Any) -> Fragment:
    """Fragment of the section macro ``macro`` of both templates (``macros.html.j2``, ``macros.md.j2``)."""
    from .reports._templates import macros, tidy_markdown

    html = str(getattr(macros("html"), macro)(*args)).strip()
    markdown = tidy_markdown(str(getattr(macros("md", plain=True), macro)(*args)))
    return Fragment(html, markdown)


def _link(link: str) -> Any:
    """A chart file name for the Markdown twin: a relative path of plain characters, or ValueError."""
    from markupsafe import Markup

    if not _SAFE_LINK.fullmatch(link) or ".." in link.split("/"):
        raise ValueError(f"link must be a relative path of letters, digits, '.', '_', '-'; got {link!r}")
    return Markup(link)


class Report:
    """The sections of one scorecard dictionary, built once, as notebook fragments.

    Parameters
    ----------
    data : mapping or Sections
        ``Scorecard.to_dict()`` (or a ``scorecard.json`` read back), or its sections
        already built (``scorekit.reports.render_reports(card).sections``).
    evidence_rows : int, optional
        Rows written to ``evidence.parquet`` (default: from ``data``).
    """

    def __init__(self, data: Mapping[str, Any] | Sections, *, evidence_rows: int | None = None) -> None:
        self.sections: Sections = data if isinstance(data, Sections) else build_sections(data,
                                                                                        evidence_rows=evidence_rows)

    def __repr__(self) -> str:
        return f"<Report decision={self.sections.decision.value} dimensions={len(self.sections.measures.rows)}>"

    def decision(self, heading: str | None = "Release scorecard") -> Fragment:
        """The heading (``heading``, then the agent name and version; None: no heading) and the decision
        banner with its reasons."""
        return _render("title_and_banner", self.sections, heading)

    def scope_and_validation(self) -> Fragment:
        """Scope (required, in scope, missing dimensions) and the validation counts with the first problems."""
        return _render("scope", self.sections) + _render("validation", self.sections)

    def dimensions(self) -> Fragment:
        """The measures, thresholds and reliability tables, flaky cases and the caveats."""
        return _render("dimensions", self.sections)

    def summary(self, ks: Sequence[str] | None = None) -> Fragment:
        """One compact table: verdict (with the assurance, SPEC §18), n, passes, rate, threshold, the
        headline and Wilson intervals and pass^k (``ks``: those k)."""
        return _render("summary", self.summary_table(ks))

    def summary_table(self, ks: Sequence[str] | None = None) -> Table:
        """The section table :meth:`summary` shows (and :func:`scorecard_style` styles)."""
        from .reports.text import DEMO_COLUMNS

        s = self.sections
        columns = s.present(DEMO_COLUMNS)
        chosen = [c for c in s.summary.columns if c.startswith("pass^")] if ks is None else \
            [f"pass^{k}" for k in ks if f"pass^{k}" in s.summary.columns]
        return s.summary.select(columns + chosen)

    def rate_chart(self, link: str = CHART_FILES["rates"]) -> Fragment:
        """The pass-rate chart (inline SVG); the Markdown twin links the chart file ``link``."""
        from .reports._templates import macros

        s = self.sections
        return Fragment(str(macros("html").rate_chart(s)).strip(),
                        str(macros("md", plain=True).chart(s.rate_chart.title, _link(link))) + "\n")

    def pass_k_chart(self, link: str = CHART_FILES["pass_k"]) -> Fragment:
        """The pass^k chart (inline SVG); the Markdown twin links the chart file ``link``."""
        from .reports._templates import macros

        s = self.sections
        if not s.pass_k_chart.ks:
            return _render("pass_k_chart", s)
        return Fragment(str(macros("html").pass_k_chart(s)).strip(),
                        str(macros("md", plain=True).chart(s.pass_k_chart.title, _link(link))) + "\n")

    def write_charts(self, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
        """Write ``rates.svg`` and ``pass_k.svg`` (standalone SVG files, atomically) into ``out_dir``."""
        from ._io import atomic_write
        from .reports._svg import pass_k_svg, rate_svg

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = {}
        for kind, svg in (("rates", rate_svg(self.sections.rate_chart)),
                          ("pass_k", pass_k_svg(self.sections.pass_k_chart))):
            payload = _standalone(svg).encode("utf-8")
            written[kind] = atomic_write(out / CHART_FILES[kind], partial(Path.write_bytes, data=payload))
        return written

    def variance(self) -> Fragment:
        """The run-to-run variance table (complete runs only, clipped, marked), or why there is none."""
        return _render("variance", self.sections)

    def controls(self) -> Fragment:
        """Evaluator controls (known-bad rows): did the evaluator catch each one? Failed first."""
        return _render("controls", self.sections)

    def findings(self) -> Fragment:
        """The verification guidance once, then each finding: review, suggested fix, cases with their detail."""
        return _render("findings", self.sections)

    def findings_summary(self) -> Fragment:
        """The findings as one table (severity, dimension, reason, cases), without the advice and cases."""
        s = self.sections
        if s.findings is None or not s.finding_items:
            return message("Findings", "none")
        return _render("summary", s.findings)

    def comparison(self) -> Fragment:
        """The comparison with the baseline: status, baseline, method and level, per-dimension tests
        (p-values, cases), the regressed and improved cases."""
        return _render("comparison", self.sections)

    def dimension_notes(self) -> Fragment:
        """Per dimension, what a compact table cannot say (SPEC §18): the assurance and the cases that
        would settle it, the rate had the missing rows been measured, pass^1, the judges' agreement."""
        return _render("dimension_notes", self.sections, True)

    def hashes(self) -> Fragment:
        """The SPEC §10 hashes, the judge identity and the evaluators."""
        return _render("hashes", self.sections)


def _standalone(svg: str) -> str:
    """An inline SVG as a file of its own (the XML namespace an ``<svg>`` element in HTML implies)."""
    return svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1) + "\n"


def history(records: Any, dimensions: Any = None, *, latest: int = 5) -> Fragment:
    """The history listing (``scorekit history``): ``read_history(db)``, and with ``dimensions``
    (``read_history(db, dimensions=True)``) the latest records' rates per dimension."""
    return _render("history", history_sections(records, dimensions, latest=latest))


def trend(records: Any, dimensions: Any, out_dir: str | os.PathLike[str], *, link: str = "trend.png") -> Fragment:
    """The history trend (``scorekit history --plot``): each dimension's rate with its interval across the
    recorded versions of the newest record's suite and policy.

    Drawn once by :func:`scorekit.plots.plot_trend` (matplotlib, imported only here) and written to
    ``out_dir/link``; the HTML shows the same PNG inline, the Markdown twin links the file.
    """
    import base64

    from markupsafe import Markup

    from ._io import atomic_write_bytes
    from .plots import figure_bytes, plot_trend
    from .reports._charts import trend_chart
    from .reports._format import h, md_escape

    chart = trend_chart(records, dimensions)
    payload = figure_bytes(plot_trend(records, dimensions))
    atomic_write_bytes(Path(out_dir) / str(_link(link)), payload)
    source = "data:image/png;base64," + base64.b64encode(payload).decode("ascii")
    html = (f'<figure class="sk-chart" id="sk-trend"><img src="{source}" alt="{h(chart.title)}" '
            f'style="max-width:100%"><figcaption>{h(chart.note)}</figcaption></figure>')
    markdown = f"![{md_escape(chart.title)}]({Markup(_link(link))})\n\n{md_escape(chart.note)}\n"
    return Fragment(html, markdown)


_SIGNATURE_TONES = {"verified": "pass", "integrity-only": "incomplete"}


def signature_status(outcome: str | None, reason: str = "", envelope: Any = None) -> Fragment:
    """Signature status: not signed, or the verification outcome and what it establishes."""
    tone = _SIGNATURE_TONES.get(outcome or "", "fail")
    return _render("signature", outcome, tone, reason, None if envelope is None else str(envelope))


def reproduction(commands: Sequence[str], facts: Mapping[str, Any] | None = None) -> Fragment:
    """Reproduction commands (one per block) and environment facts."""
    from markupsafe import Markup

    from ._escape import code_text
    from .reports._format import UNDEFINED, md_fence
    from .reports._templates import macros

    pairs = [(str(k), UNDEFINED if v is None or v == "" else str(v)) for k, v in (facts or {}).items()]
    html = str(macros("html").reproduction(list(commands), pairs)).strip()
    # Inside a fence the commands are literal: cleaned of controls and separators (code_text), never escaped.
    literal = [Markup(code_text(str(c))) for c in commands]
    fence = Markup(md_fence("\n".join(literal)))
    from .reports._templates import tidy_markdown

    markdown = tidy_markdown(str(macros("md", plain=True).reproduction(literal, fence, pairs)))
    return Fragment(html, markdown)


def files_list(paths: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> Fragment:
    """The files written, one per line."""
    items = paths.items() if isinstance(paths, Mapping) else paths
    return _render("files", [(str(kind), str(path)) for kind, path in items])


def message(label: str, text: str) -> Fragment:
    """A one-line message (``label: text``), e.g. why the explorer cannot decide."""
    return _render("message", label, text)


#: The verdict colours of ``report.css`` (``.sk-v-*``), for the Styler's own ``<style>`` (it is shown
#: without the report's CSS as well).
VERDICT_STYLES = {
    "pass": "color: #00694d; font-weight: 700",
    "fail": "color: #a84300; font-weight: 700",
    "incomplete": "color: #8a5f00; font-weight: 700",
    "not-in-scope": "color: #2b6f96; font-weight: 700",
    "unknown": "color: #2b6f96; font-weight: 700",
}


def dimension_style(data: Mapping[str, Any], *, evidence_rows: int | None = None) -> Any:
    """The summary table of the scorecard dictionary ``data`` as a pandas ``Styler`` (SPEC §19).

    One row per dimension, indexed by its name, with the columns of :meth:`Report.summary`. The
    counts (``n``, ``passes``) and the proportions (``rate``, ``threshold``, ``P(meets threshold)``)
    are the dictionary's numbers, shown by the reports' own formatters
    (:func:`~scorekit.reports._format.fmt_count`, :func:`~scorekit.reports._format.fmt_pct`:
    percentages, "—" when undefined); every other column (verdict, intervals, pass^k) holds the
    section model's text. So each cell reads as in ``scorecard.html``. Verdicts are coloured
    (:data:`VERDICT_STYLES`, from a closed set: never from the data); every value, the index and the
    labels are HTML-escaped (``escape="html"``), and the table's id is a digest of its content, so two
    scorecards shown in one notebook keep their own colours.
    """
    return _styled(Report(data, evidence_rows=evidence_rows), data)


def _styled(report: Report, data: Mapping[str, Any]) -> Any:
    """:func:`dimension_style` of ``report``, the sections of ``data`` already built."""
    import hashlib

    import pandas as pd
    from pandas.io.formats.style import Styler

    from .reports._format import clean_text, fmt_count, fmt_pct
    from .reports._sections import ASSURED_LABEL

    table = report.summary_table()
    dims = list(data.get("dimensions") or [])
    if len(dims) != len(table.rows):  # pragma: no cover - the section model keeps every dimension
        raise ValueError("the summary table and the dictionary disagree about the dimensions")
    numbers = {"n": ("n", fmt_count), "passes": ("passes", fmt_count), "rate": ("rate", fmt_pct),
               "threshold": ("threshold", fmt_pct), ASSURED_LABEL: ("assurance", fmt_pct)}
    columns: dict[str, list[Any]] = {}
    for j, label in enumerate(table.columns[1:], start=1):
        if label in numbers:
            key = numbers[label][0]
            columns[label] = [float("nan") if d.get(key) is None else d[key] for d in dims]
        else:
            columns[label] = [row[j].text for row in table.rows]
    frame = pd.DataFrame(columns, index=pd.Index([str(d.get("name")) for d in dims], name="dimension"))
    for label in set(numbers) & set(frame.columns):
        if numbers[label][1] is fmt_count:
            frame[label] = frame[label].astype("Int64")
    digest = hashlib.sha256(repr((table.columns, table.rows)).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    styler = Styler(frame, uuid=f"sk{digest}", cell_ids=False)
    styler.format(escape="html")
    for label in set(numbers) & set(frame.columns):
        styler.format(numbers[label][1], subset=[label], escape="html")
    styler.format_index(clean_text, escape="html")
    styler.format_index(escape="html", axis=1)
    if "verdict" in frame.columns:
        tones = [row[table.column("verdict")].tone for row in table.rows]
        styler.apply(lambda _: [VERDICT_STYLES.get(t, VERDICT_STYLES["unknown"]) for t in tones],
                     subset=["verdict"])
    numeric = [table.columns[j] for j in sorted(table.numeric)]
    if numeric:
        styler.set_table_styles({label: [{"selector": "td", "props": "text-align: right"}] for label in numeric},
                                overwrite=False)
    styler.hide(axis="index", names=True)  # the index keeps its name (dimension) for the user; one header row
    styler.set_table_attributes('class="sk-summary sk-styled"')
    return styler


def scorecard_style(card: Any) -> Any:
    """``Scorecard.style()``: :func:`dimension_style` of ``card.to_dict()``."""
    return dimension_style(card.to_dict(), evidence_rows=card.evidence_rows)


def scorecard_html(card: Any) -> str:
    """Jupyter's display of a :class:`~scorekit.Scorecard` (``Scorecard._repr_html_``, SPEC §17): the
    report's banner, its summary table (the :func:`dimension_style` Styler's HTML) and the findings
    table, self-contained, no script."""
    data = card.to_dict()
    report = Report(data, evidence_rows=card.evidence_rows)
    table = _styled(report, data).to_html()
    styled = Fragment(f'<div class="sk-table">{table}</div>', report.summary().markdown)
    return (report.decision(heading=None) + styled + report.findings_summary())._repr_html_()


def imported_runs(runs: Sequence[Any]) -> Fragment:
    """Imported runs (:class:`~scorekit.ImportedRun`) as one table, a row per run: the table
    ``scorekit import`` prints (agent, task, rows, dimensions, coverage, status)."""
    from .reports._sections import runs_table

    return _render("table", runs_table(list(runs)))


def imported_runs_html(runs: Sequence[Any]) -> str:
    """Jupyter's display of imported runs (``ImportedRun._repr_html_``, ``ImportedRuns._repr_html_``)."""
    return imported_runs(runs)._repr_html_()
