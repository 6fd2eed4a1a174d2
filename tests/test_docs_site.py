"""The documentation site builds with ``mkdocs build --strict`` (SPEC §19, mkdocs.yml at the root).

The site is mkdocs-material over ``docs/``; its API reference pages (``docs/api/``) are
mkdocstrings directives rendered from the numpydoc docstrings. ``--strict`` turns every warning
into a failure: a page missing from the nav or a nav entry without its page, a link to a missing
page or anchor, a docstring griffe cannot parse (a parameter it does not document, a section it
cannot read). The code blocks of the same pages run in tests/test_readme.py.

mkdocs-material and mkdocstrings[python] come with the ``dev`` extra. Without them the build test
skips only when ``CI`` is unset; under CI it fails (as tests/test_browser.py does for a browser).
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import scorekit as sk
from scorekit import history, importers
from scorekit.accessor import ScorekitAccessor

ROOT = Path(__file__).resolve().parents[1]
#: What the build needs: mkdocs, the material theme, mkdocstrings and its Python handler.
NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _hooks():
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "tools" / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _missing() -> str | None:
    for module in NEEDED:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # the parent package of a dotted name is absent
            found = False
        if not found:
            return f"{module} is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built once for this module, into a temporary folder (never site/ in the checkout)."""
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the docs site cannot be built: {missing}")
        pytest.skip(f"docs site tools unavailable: {missing}")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # material's end-of-life banner, not a build warning
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mkdocs build --strict exited {proc.returncode}\n{proc.stderr[-6000:]}"
    return out


def _page(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_with_every_warning_an_error(site):
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()


@pytest.mark.parametrize(("page", "obj", "anchor"), [
    ("api/scorekit", sk.wilson_interval, "scorekit.wilson_interval"),
    ("api/scorekit", sk.evaluate, "scorekit.evaluate"),
    ("api/scorekit", sk.read_rows, "scorekit.read_rows"),
    ("api/importers", importers.import_results, "scorekit.importers.import_results"),
    ("api/history", history.read_history, "scorekit.history.read_history"),
    ("api/accessor", ScorekitAccessor.pass_k, "scorekit.accessor.ScorekitAccessor.pass_k"),
])
def test_the_api_reference_is_rendered_from_the_docstrings(site, page, obj, anchor):
    text = _page(site, page)
    assert f'id="{anchor}"' in text, f"{page}: no entry for {anchor}"
    summary = html.escape(inspect.getdoc(obj).splitlines()[0], quote=False)
    summary = re.sub(r"``(.+?)``", r"<code>\1</code>", summary)  # a code span as Markdown renders it
    assert summary in text, f"{page}: {anchor}'s docstring is not on the page"


def test_numpydoc_parameters_are_rendered_as_parameters(site):
    """The numpy style is parsed (a Parameters table naming each one), not shown as raw text."""
    text = _page(site, "api/scorekit")
    entry = text[text.index('id="scorekit.wilson_interval"'):text.index('id="scorekit.z_value"')]
    assert "Parameters:" in entry and "<code>successes</code>" in entry and "<code>confidence</code>" in entry
    assert "----------" not in entry


def test_every_import_format_has_its_own_page():
    """One page per built-in importer (SPEC §19), named as its ``--from`` format, plus the index."""
    pages = {p.stem for p in (ROOT / "docs" / "importers").glob("*.md")}
    assert pages == {*importers.FORMATS, "index", "plug-ins"}


@pytest.mark.parametrize(("html", "shown"), [
    (":func:<code>evaluate</code> returns", "<code>evaluate</code> returns"),
    ("a :class:<code>~scorekit.Scorecard</code>", "a <code>Scorecard</code>"),
    (":py:meth:<code>Scorecard.write</code>", "<code>Scorecard.write</code>"),
    ("see :mod:<code>scorekit._renderers</code>.", "see <code>scorekit._renderers</code>."),
    ("<code>kept</code>, :unknown:<code>kept</code>", "<code>kept</code>, :unknown:<code>kept</code>"),
])
def test_the_hook_shows_a_sphinx_role_as_its_code_name(html, shown):
    assert _hooks().strip_roles(html) == shown


def test_no_sphinx_role_text_is_left_on_the_api_pages(site):
    for page in sorted((site / "api").glob("*/index.html")):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r":(func|class|meth|mod|attr|data):<code>", text), page.parent.name
