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
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._format import UNDEFINED, clean_text, fmt_confidence, fmt_pp, fmt_side
from ._sections import Cell, Table, _table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COMPARE_FILES", "CompareSections", "compare_sections", "compare_text", "render_compare_html",
           "render_compare_markdown", "write_compare"]

#: Report kind → file name (SPEC §17).
COMPARE_FILES = {"html": "compare.html", "markdown": "compare.md"}
COLUMNS = ("dimension", "A", "B", "difference", "interval of the difference", "significant", "verdict")


@dataclass(frozen=True)
class CompareSections:
    """The comparison as a page: ``title`` (A → B), ``facts``, a ``note`` and the ``table``."""

    title: str
    facts: tuple[tuple[str, str], ...]
    note: str
    table: Table
    version: str


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


def compare_sections(frame: pd.DataFrame) -> CompareSections:
    """Sections of :func:`scorekit.compare`'s DataFrame (its ``attrs`` name the sides)."""
    from .._version import __version__

    a, b = clean_text(frame.attrs.get("a", "A")), clean_text(frame.attrs.get("b", "B"))
    confidence = fmt_confidence(frame.attrs.get("confidence", 0.95))
    rows = []
    for name, r in frame.iterrows():
        sides = [fmt_side({"rate": _value(r[f"rate_{s}"]), "ci_low": _value(r[f"ci_low_{s}"]),
                           "ci_high": _value(r[f"ci_high_{s}"]), "n": int(r[f"n_{s}"])}) for s in "ab"]
        significant = _value(r["significant"])
        undefined = significant is None
        low, high = _value(r["diff_low"]), _value(r["diff_high"])
        interval = UNDEFINED if low is None or high is None else f"{fmt_pp(low)} – {fmt_pp(high)} ({r['interval']})"
        rows.append([
            Cell(clean_text(name), "code"),
            Cell(clean_text(sides[0]), "num"),
            Cell(clean_text(sides[1]), "num"),
            Cell(fmt_pp(_value(r["difference"])), "num"),
            Cell(clean_text(interval), "num"),
            Cell(UNDEFINED if undefined else ("yes" if bool(significant) else "no"),
                 "status", tone="unknown" if undefined else ("fail" if bool(significant) else "pass")),
            Cell(clean_text(r["verdict_change"]) or "unchanged"),
        ])
    side_facts: Mapping[str, Any] = frame.attrs.get("sides") or {}
    facts = (
        *((which.upper(), clean_text(_side_text(side_facts[which]) if which in side_facts else name))
          for which, name in (("a", a), ("b", b))),
        *(("note", clean_text(note[:1].upper() + note[1:] + ".")) for note in frame.attrs.get("notes") or ()),
        ("intervals", f"{confidence}; Wilson for each rate"),
    )
    note = (f"difference = B − A in percentage points, with its {confidence} interval: paired t over the cases "
            f"measured on both sides when both hold per-case counts, else Newcombe's interval for two "
            f"independent rates. Significant: the interval excludes 0.")
    return CompareSections(title=f"{a} → {b}", facts=facts, note=note,
                           table=_table("compare", list(COLUMNS), rows), version=__version__)


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
    return "\n".join([*lines, table_text(sections.table)])


def write_compare(sections: CompareSections, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``compare.html`` and ``compare.md`` into ``out_dir`` (created if needed), each atomically."""
    from .._io import atomic_write_bytes

    texts = {"html": render_compare_html(sections), "markdown": render_compare_markdown(sections)}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {kind: atomic_write_bytes(out / COMPARE_FILES[kind], text) for kind, text in texts.items()}
