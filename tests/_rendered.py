"""Shared by the notebook and browser tests: one render of the bundled example per
test process, and a small HTML reader (stdlib ``html.parser``, no new dependency).

``rendered_example()`` is cached, so ``test_notebooks.py`` and ``test_browser.py``
share one papermill execution (a kernel start and the export take seconds).
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import nbformat

EXAMPLE_AGENT = ("email-assistant", "1.0.0")


@functools.cache
def rendered_example() -> Any:
    """``render_notebook`` of the bundled example into a temporary folder (removed at exit)."""
    import scorekit as sk
    from scorekit.render import render_notebook

    root = Path(tempfile.mkdtemp(prefix="scorekit-render-"))
    atexit.register(shutil.rmtree, root, True)
    name, version = EXAMPLE_AGENT
    return render_notebook(sk.example_path(), sk.example_path(file="policy.yml"), agent_name=name,
                           agent_version=version, out_dir=root / name / version, timeout=240)


def write_notebook(path: Path, *sources: str, parameters: str) -> Path:
    """A small notebook: a ``parameters`` cell, then one code cell per source."""
    cells = [nbformat.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]})]
    cells += [nbformat.v4.new_code_cell(source) for source in sources]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.write(nb, path)
    return path


# --------------------------------------------------------------------------- HTML
@dataclass(eq=False)
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self):
        yield self
        for child in self.children:
            yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]

    def all_text(self) -> str:
        return " ".join((self.text + " " + " ".join(c.all_text() for c in self.children)).split())


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.tags.append((tag, element.attrs))
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.tags.append((tag, element.attrs))
        self.stack[-1].children.append(element)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        self.stack[-1].text += data


def parse_html(text: str) -> tuple[Element, list[tuple[str, dict[str, str]]]]:
    """The element tree and the flat list of (tag, attributes) of every start tag."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root, builder.tags


def table_rows(table: Element) -> tuple[list[str], list[list[str]]]:
    """Header texts and the body rows' cell texts of a ``<table>``."""
    header = [cell.all_text() for cell in _header_cells(table)]
    rows = []
    for tbody in table.find_all("tbody"):
        for tr in tbody.find_all("tr"):
            rows.append([c.all_text() for c in tr.children if c.tag in ("th", "td")])
    return header, rows


def _header_cells(table: Element) -> list[Element]:
    cells: list[Element] = []
    for thead in table.find_all("thead"):
        cells.extend(thead.find_all("th"))
    return cells
