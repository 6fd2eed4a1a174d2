"""``compare.html``, ``compare.md`` and the terminal table of :func:`scorekit.compare` (SPEC §17).

The comparison DataFrame becomes one section (:class:`CompareSections`) of
already-formatted cells — the reports' own formatters (:mod:`._format`) and
:class:`~._sections.Table` — rendered by the report templates
(``compare.html.j2``, ``compare.md.j2``) and by :func:`~.text.table_text`.

Examples
--------
>>> import scorekit as sk
>>> from scorekit.reports.compare import compare_sections
>>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
>>> c = compare_sections(sk.compare(card, card))
>>> c.table.cell("tool_call", "difference").text, c.table.cell("tool_call", "significant").text
('+0.0 pp', 'no')
>>> dict(c.facts)["regressed means"]
'a drop shown at the 2.5% level across the 8 dimensions compared, Holm'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._format import UNDEFINED, clean_text, fmt_confidence, fmt_count, fmt_pct, fmt_pp, fmt_side
from ._sections import Cell, Table, _table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARE_FILES", "CompareSections", "compare_sections", "compare_text", "fmt_p", "render_compare_html",
           "render_compare_markdown", "write_compare"]

#: Report kind → file name (SPEC §17).
COMPARE_FILES = {"html": "compare.html", "markdown": "compare.md"}
COLUMNS = ("dimension", "A", "B", "difference", "interval of the difference", "p (adjusted)", "significant",
           "cases fell / rose", "verdict")
CASE_COLUMNS = ("dimension", "rate", "case", "A", "B", "change")
_METHOD_NAMES = {"paired": "paired t", "newcombe": "Newcombe"}


@dataclass(frozen=True)
class CompareSections:
    """The comparison as a page: ``title`` (A → B), ``facts``, a ``note``, the ``table`` and the changed ``cases``.

    ``cases`` is None when no side pair holds per-case counts (``cases_note`` then says so).
    """

    title: str
    facts: tuple[tuple[str, str], ...]
    note: str
    table: Table
    version: str
    cases: Table | None = None
    cases_note: str = ""


def _value(value: Any) -> Any:
    import pandas as pd

    return None if value is None or bool(pd.isna(value)) else value  # NaN, pd.NA → None


def _side_text(side: Mapping[str, Any]) -> str:
    """One side of the header: label, agent, decision and source status (SPEC §17)."""
    label, agent = side.get("label"), side.get("agent")
    who = "" if agent and agent == label else f"agent {agent or 'not named'}, "
    partial = " (partial)" if side.get("partial") else ""
    return (f"{label} — {who}decision {side.get('decision') or 'not recorded'}{partial}, "
            f"source: {side.get('source')}")


def fmt_p(value: Any) -> str:
    """A p-value with two significant digits (``0.0031``; ``< 0.0001`` below that; ``1``); undefined → "—".

    >>> fmt_p(0.003141), fmt_p(0.5), fmt_p(1.0), fmt_p(2e-9), fmt_p(None)
    ('0.0031', '0.5', '1', '< 0.0001', '—')
    """
    value = _value(value)
    if value is None:
        return UNDEFINED
    p = float(value)
    return "< 0.0001" if p < 0.0001 else f"{p:.2g}"


def _changed_total(changed: Any) -> str:
    return fmt_count(changed["total"]) if isinstance(changed, Mapping) else UNDEFINED


def _case_rows(name: Any, r: Any) -> list[list[Cell]]:
    """The listed cases of one dimension whose rate fell, then those whose rate rose."""
    rows = []
    for direction, key in (("fell", "regressed_cases"), ("rose", "improved_cases")):
        changed = r[key]
        if not isinstance(changed, Mapping):
            continue
        for case in changed["listed"]:
            rows.append([Cell(clean_text(name), "code"), Cell(direction), Cell(clean_text(case["case_id"]), "code"),
                         Cell(fmt_pct(case["baseline"]), "num"), Cell(fmt_pct(case["candidate"]), "num"),
                         Cell(fmt_pp(case["change"]), "num")])
    return rows


def compare_sections(frame: pd.DataFrame) -> CompareSections:
    """Sections of :func:`scorekit.compare`'s DataFrame (its ``attrs`` name the sides and the test)."""
    from .._regression import CASES_LISTED
    from .._version import __version__

    a, b = clean_text(frame.attrs.get("a", "A")), clean_text(frame.attrs.get("b", "B"))
    confidence = fmt_confidence(frame.attrs.get("confidence", 0.95))
    rows = []
    case_rows: list[list[Cell]] = []
    listed = False
    for name, r in frame.iterrows():
        sides = [fmt_side({"rate": _value(r[f"rate_{s}"]), "ci_low": _value(r[f"ci_low_{s}"]),
                           "ci_high": _value(r[f"ci_high_{s}"]), "n": int(r[f"n_{s}"])}) for s in "ab"]
        regressed = _value(r["significant"])
        undefined = regressed is None
        low, high = _value(r["ci_low"]), _value(r["ci_high"])
        method = _METHOD_NAMES.get(str(r["method_used"]), str(r["method_used"]))
        interval = UNDEFINED if low is None or high is None else f"{fmt_pp(low)} – {fmt_pp(high)} ({method})"
        p = UNDEFINED if undefined else f"{fmt_p(r['p_adjusted'])} (p {fmt_p(r['p_value'])})"
        listed = listed or isinstance(r["regressed_cases"], Mapping)
        rows.append([
            Cell(clean_text(name), "code"),
            Cell(clean_text(sides[0]), "num"),
            Cell(clean_text(sides[1]), "num"),
            Cell(fmt_pp(_value(r["difference"])), "num"),
            Cell(clean_text(interval), "num"),
            Cell(p, "num"),
            Cell(UNDEFINED if undefined else ("yes" if bool(regressed) else "no"),
                 "status", tone="unknown" if undefined else ("fail" if bool(regressed) else "pass")),
            Cell(f"{_changed_total(r['regressed_cases'])} / {_changed_total(r['improved_cases'])}", "num"),
            Cell(clean_text(r["verdict_change"]) or "unchanged"),
        ])
        case_rows += _case_rows(name, r)
    side_facts: Mapping[str, Any] = frame.attrs.get("sides") or {}
    facts = (
        *((which.upper(), clean_text(_side_text(side_facts[which]) if which in side_facts else name))
          for which, name in (("a", a), ("b", b))),
        *(("note", clean_text(note[:1].upper() + note[1:] + ".")) for note in frame.attrs.get("notes") or ()),
        ("intervals", f"{confidence}; Wilson for each rate"),
        *((("regressed means", clean_text(frame.attrs["meaning"])),) if frame.attrs.get("meaning") else ()),
    )
    note = (f"difference = B − A in percentage points, with its {confidence} interval (unadjusted): paired t over "
            f"the cases measured on both sides when both hold per-case counts, else Newcombe's interval from each "
            f"side's case-clustered interval. p: the one-sided test of a drop, Holm-adjusted across the dimensions "
            f"compared (unadjusted in brackets); regressed: the adjusted p is at most "
            f"{fmt_confidence(frame.attrs.get('alpha', 0.025))}. Cases fell / rose: the shared cases whose rate "
            f"fell or rose.")
    if listed:
        cases_note = (f"The shared cases whose rate fell or rose, largest change first, then by case id; at most "
                      f"{CASES_LISTED} listed per dimension and direction (the totals are in the table above).")
    else:
        cases_note = ("A or B holds no per-case counts (a stored scorecard.json): the cases that changed cannot "
                      "be listed.")
        note += " " + cases_note
    return CompareSections(title=f"{a} → {b}", facts=facts, note=note,
                           table=_table("compare", list(COLUMNS), rows), version=__version__,
                           cases=_table("compare-cases", list(CASE_COLUMNS), case_rows) if case_rows else None,
                           cases_note=cases_note)


def render_compare_html(sections: CompareSections) -> str:
    from ._templates import render

    return render("compare.html.j2", c=sections)


def render_compare_markdown(sections: CompareSections) -> str:
    from ._templates import render

    return render("compare.md.j2", c=sections)


def compare_text(sections: CompareSections) -> str:
    """What ``scorekit compare`` prints: the title, the header facts (each side, the notes), then the table.

    Every value from evidence — labels, agent names, sources, dimension names — goes
    through :func:`scorekit._terminal.terminal_text`: one line each, never a workflow command.
    """
    from .._terminal import terminal_text
    from .text import table_text

    lines = [f"comparison: {terminal_text(sections.title)}"]
    lines += [f"{terminal_text(label)}: {terminal_text(value)}" for label, value in sections.facts]
    lines.append(table_text(sections.table))
    if sections.cases is not None:
        lines += ["", f"cases that changed: {terminal_text(sections.cases_note)}", table_text(sections.cases)]
    return "\n".join(lines)


def write_compare(sections: CompareSections, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``compare.html`` and ``compare.md`` into ``out_dir`` (created if needed), each atomically."""
    from .._io import atomic_write_bytes

    texts = {"html": render_compare_html(sections), "markdown": render_compare_markdown(sections)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {kind: atomic_write_bytes(out / COMPARE_FILES[kind], text) for kind, text in texts.items()}
