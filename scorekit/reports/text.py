"""The terminal renderer: sections (:mod:`scorekit.reports._sections`) as plain-text tables and lines.

What ``scorekit run``, ``validate``, ``demo`` and ``history`` print. Every value
is already formatted by the section model; this module only aligns columns and
makes each value safe for a terminal and a CI log
(:func:`scorekit._escape.terminal_text`: one line, no escape sequence, no
bidirectional reordering, no workflow command).

Examples
--------
>>> import scorekit as sk
>>> from scorekit.reports._sections import build_sections
>>> from scorekit.reports.text import table_text
>>> s = build_sections(sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict())
>>> print(table_text(s.summary.select(["dimension", "verdict", "rate", "threshold"])).splitlines()[2])
action_correctness  FAIL      89.8%      95.0%
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._escape import terminal_text
from ._sections import History, Sections, Table

__all__ = ["comparison_text", "demo_text", "history_text", "notes_text", "run_text", "table_text", "validation_text"]

#: The columns ``scorekit run`` prints per dimension (labels of :attr:`Sections.summary`; those a scorecard
#: does not have are left out): the headline interval ``{interval}`` (SPEC §18), or before it Wilson and clustered.
RUN_COLUMNS = ("dimension", "verdict", "P(meets threshold)", "n", "cases", "rate", "threshold", "{interval}",
               "{conf} clustered CI")
#: The columns ``scorekit demo`` prints (the pass^k columns follow).
DEMO_COLUMNS = ("dimension", "verdict", "P(meets threshold)", "n", "passes", "rate", "threshold", "{interval}",
                "{conf} Wilson CI")


def _t(value: Any) -> str:
    return terminal_text(str(value))


def table_text(table: Table) -> str:
    """``table`` as aligned columns (numbers right-aligned), a rule under the header."""
    rows = [[_t(c.text) for c in row] for row in table.rows]
    header = [_t(label) for label in table.columns]
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if i in table.numeric else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _columns(s: Sections, labels: Sequence[str]) -> list[str]:
    return s.present(labels)


#: Comparison columns the terminal leaves out (the reports show them): both sides in full and the rule.
TERMINAL_LEFT_OUT = ("baseline", "candidate", "rule")


def notes_text(s: Sections) -> list[str]:
    """The per-dimension sentences (SPEC §18: assurance, rate bounds, pass^1, judge agreement), one line each."""
    lines = [_t(s.assurance_note)] if s.assurance_note else []
    lines += [f"{_t(note.dimension)}: {_t(line)}" for note in s.dimension_notes for line in note.every_line]
    return lines


def comparison_text(s: Sections) -> list[str]:
    """The comparison's table and its regressed / improved cases (first few, then "and N more")."""
    if s.regressions is None:
        return []
    table = s.regressions
    shown = [c for c in table.columns if c not in TERMINAL_LEFT_OUT] if "p-value" in table.columns else table.columns
    lines = [f"comparison: {_t(dict(s.comparison).get('status', ''))}", table_text(table.select(shown))]
    lines += [_t(c.text) for c in s.case_changes]
    return lines


def _decision_line(s: Sections) -> str:
    reasons = "; ".join(s.decision.reasons)
    return f"decision: {_t(s.decision.value)}" + (f"  ({_t(reasons)})" if reasons else "")


def _counts(s: Sections) -> dict[str, str]:
    return dict(s.validation)


def run_text(s: Sections) -> str:
    """What ``scorekit run`` prints: the decision, the row counts, what a verdict means at the stated level,
    one line per dimension, each dimension's notes (SPEC §18), the comparison, the findings count."""
    counts = _counts(s)
    lines = [
        _decision_line(s),
        *([_t(s.source)] if s.source else []),
        f"purpose: {_t(s.decision.purpose)}   rows: {s.evidence_rows}   validation: {counts['labeled']} labeled, "
        f"{counts['unlabeled']} unlabeled, {counts['invalid']} invalid",
        *([_t(s.error_rates)] if s.error_rates else []),
    ]
    if s.summary.rows:
        lines.append(table_text(s.summary.select(_columns(s, RUN_COLUMNS))))
    if s.clustered_wider:
        named = "clustered CI" if s.interval in ("", f"{s.confidence} Wilson CI") else s.interval
        lines.append(f"{_t(named)}: the case is the unit of sampling (repeated trials are correlated), so it is "
                     "wider than Wilson where trials repeat")
    lines += notes_text(s)
    lines += comparison_text(s)
    blockers = sum(1 for f in s.finding_items if f.tone in ("blocker", "high"))
    if blockers:
        lines.append(f"findings: {len(s.finding_items)} ({blockers} blocker/high)")
    return "\n".join(lines)


def demo_text(s: Sections) -> str:
    """What ``scorekit demo`` prints after rendering: decision, table, flaky cases, controls, the caveats."""
    lines = [f"{s.evidence_rows} rows scored", "", _decision_line(s), *([_t(s.error_rates)] if s.error_rates else []),
             ""]
    columns = _columns(s, DEMO_COLUMNS) + [c for c in s.summary.columns if c.startswith("pass^")]
    lines += [table_text(s.summary.select(columns)), ""]
    if s.flaky:
        lines.append("Flaky cases (trials disagree): " + "; ".join(f"{_t(f.dimension)}: {_t(f.cases.text)}"
                                                                   for f in s.flaky))
    lines.append(_t(s.controls_note))
    lines.append(_t(s.rate_note))
    lines += [_t(c) for c in s.caveats]
    return "\n".join(lines)


def validation_text(s: Sections, source: Any, *, strict: bool) -> str:
    """What ``scorekit validate`` prints: the counts of ``source``, then every problem
    (``file:line: field: message``)."""
    counts = _counts(s)
    lines = [f"{_t(source)}: {counts['labeled']} labeled, {counts['unlabeled']} unlabeled, {counts['invalid']} invalid"
             + (" (strict)" if strict else "")]
    lines += [_t(p) for p in s.every_problem()]
    return "\n".join(lines)


def history_text(history: History) -> str:
    """What ``scorekit history`` prints: one line per record, then the latest records' rates per dimension."""
    if history.records is None:
        return "no records"
    out = [table_text(history.records)]
    if history.rates is not None and history.rates.rows:
        out += ["", _t(history.rates_note), table_text(history.rates)]
    return "\n".join(out)
