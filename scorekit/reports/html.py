"""``scorecard.html``: the scorecard's sections as one self-contained HTML5 page.

Self-contained means: one file, inline ``<style>`` only, no ``<script>``, no
external URL anywhere (no fonts, no CDN, no ``url()``), charts drawn as inline
SVG (:mod:`scorekit.reports._svg`; no matplotlib: writing the reports must stay
fast on a 100,000-row evaluation). A Content-Security-Policy ``<meta>`` forbids
scripts and remote loads as a second line of defence.

The page is the template ``templates/report/scorecard.html.j2`` over the
sections of :func:`scorekit.reports._sections.build_sections`; every string
from the data is untrusted and escaped by the environment
(:mod:`scorekit.reports._templates`), in text and in SVG alike, and is never
placed in an attribute.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ._charts import OKABE_ITO, VERDICT_COLOURS
from ._format import h
from ._sections import Sections
from ._templates import render_page, write_page

__all__ = ["OKABE_ITO", "VERDICT_COLOURS", "h", "render_html", "write_html"]

PAGE = "scorecard.html.j2"


def render_html(data: Mapping[str, Any] | Sections, *, evidence_rows: int | None = None) -> str:
    """``Scorecard.to_dict()`` (or its sections, built once) as the page.

    ``evidence_rows``: the rows written to ``evidence.parquet`` (default: from ``data``).
    """
    return render_page(PAGE, data, evidence_rows=evidence_rows)


#: ``write_html(data, path, *, evidence_rows=None)``: write ``scorecard.html`` atomically; return its path.
write_html = functools.partial(write_page, PAGE)
