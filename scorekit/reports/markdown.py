"""``scorecard.md``: the scorecard's sections as GitHub-flavoured Markdown.

The text is the template ``templates/report/scorecard.md.j2`` over the sections
of :func:`scorekit.reports._sections.build_sections`. Every string from the data
(dimension names, case ids, reasons, findings text, problems, evaluator and
judge names) is untrusted and escaped by the environment through
:func:`~scorekit.reports._format.md_escape` (the rules of :mod:`scorekit._escape`), so it cannot inject HTML, links,
images or emphasis, nor break a table.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ._sections import Sections
from ._templates import render_page, write_page

__all__ = ["render_markdown", "write_markdown"]

PAGE = "scorecard.md.j2"


def render_markdown(data: Mapping[str, Any] | Sections, *, evidence_rows: int | None = None) -> str:
    """``Scorecard.to_dict()`` (or its sections, built once) as the Markdown.

    ``evidence_rows``: the rows written to ``evidence.parquet`` (default: from ``data``).
    """
    return render_page(PAGE, data, evidence_rows=evidence_rows)


#: ``write_markdown(data, path, *, evidence_rows=None)``: write ``scorecard.md`` atomically; return its path.
write_markdown = functools.partial(write_page, PAGE)
