"""mkdocs hooks of the documentation site (mkdocs.yml ``hooks:``).

scorekit's docstrings are numpydoc and cross-reference with Sphinx roles (``:func:`evaluate```,
``:class:`~scorekit.Scorecard```). mkdocstrings renders the backquoted name as code but leaves the
role's text in front of it; this hook drops the role and, as Sphinx does for a leading ``~``, shows
the last dotted part only.
"""

from __future__ import annotations

import re
from typing import Any

#: A Sphinx role before a name rendered as code: ``:func:<code>name</code>``.
ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const):<code>(~?)([^<]*)</code>")


def _code(match: re.Match[str]) -> str:
    name = match[2]
    if match[1]:  # ~a.b.C shows C
        name = name.rsplit(".", 1)[-1]
    return f"<code>{name}</code>"


def strip_roles(html: str) -> str:
    """The page's HTML without the Sphinx roles' text in front of code names."""
    return ROLE.sub(_code, html)


def on_page_content(html: str, **kwargs: Any) -> str:
    """mkdocs event: the HTML of a page's body, after the Markdown (and mkdocstrings) rendering."""
    return strip_roles(html)
