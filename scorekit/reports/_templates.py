"""The Jinja2 environments of the reports: HTML (autoescape) and Markdown (escaped the same way).

Templates live in ``scorekit/templates/report/`` (shipped in the wheel). Both
environments escape *every* value a template prints through ``finalize``: HTML
with :func:`~scorekit.reports._format.h`, Markdown with
:func:`~scorekit.reports._format.md_escape` (the rules of :mod:`scorekit._escape`,
the one escaping module) — a template cannot forget to escape,
and only the templates' literal text is markup. Macro output (already escaped)
is :class:`markupsafe.Markup` and passes through unchanged. Undefined names are
errors (``StrictUndefined``), never an empty string.

Jinja2 is imported here, inside the functions: ``import scorekit`` stays light.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._format import h, md_escape

if TYPE_CHECKING:
    import jinja2

__all__ = ["TEMPLATES", "html_env", "macros", "markdown_env", "render", "render_page", "report_css", "tidy_markdown",
           "write_page"]

#: Where the report templates are.
TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "report"


@cache
def report_css(*, page: bool = False) -> Any:
    """The section styles (every rule under ``.sk-report``), shared by the report page and the notebook
    fragments; ``page`` adds the page's own rules (body, headings) of ``scorecard.html``.

    Returned as :class:`markupsafe.Markup`: it is scorekit's own file, printed into ``<style>`` as it is.
    """
    from markupsafe import Markup

    names = ("page.css", "report.css") if page else ("report.css",)
    return Markup("".join((TEMPLATES / name).read_text(encoding="utf-8") for name in names))


@cache
def _bytecode_cache() -> Any:
    """Jinja2's per-user bytecode cache (in the temp directory, mode 0700, checked), or None.

    Compiling the templates costs about 70 ms, more than rendering them; with
    the cache a later process loads the compiled code (keyed by each template's
    source checksum, so an edited template is compiled again). A cache that
    cannot be made or written only costs that time.
    """
    import jinja2

    class Cache(jinja2.FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Any) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    try:
        return Cache(pattern="__scorekit_jinja2_%s.cache")
    except (OSError, RuntimeError):
        return None


def _environment(finalize: Any) -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        bytecode_cache=_bytecode_cache(),
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        finalize=finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
    )


@cache
def html_env() -> jinja2.Environment:
    """The HTML environment: every value escaped by :func:`h`; the SVG charts as globals."""
    from markupsafe import Markup

    from ._svg import pass_k_svg, rate_svg

    def finalize(value: Any) -> Any:
        return value if isinstance(value, Markup) else Markup(h(value))

    env = _environment(finalize)
    env.globals.update(rate_svg=lambda chart: Markup(rate_svg(chart)),
                       pass_k_svg=lambda chart: Markup(pass_k_svg(chart)))
    return env


@cache
def markdown_env(newline: str = "<br>") -> jinja2.Environment:
    """The Markdown environment: every value escaped by :func:`md_escape` (a line break becomes ``newline``)."""
    from markupsafe import Markup

    def finalize(value: Any) -> Any:
        return value if isinstance(value, Markup) else Markup(md_escape(value, newline=newline))

    return _environment(finalize)


def tidy_markdown(text: str) -> str:
    """One blank line between blocks, none at the ends: template layout, not content, made the others.

    Lines are split at LF only (the templates' own line ends): ``str.splitlines`` would also split at
    U+2028, U+2029, NEL, VT and FF, and turn a character inside a value into a line break.
    """
    lines = [line.rstrip() for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def render(name: str, **context: Any) -> str:
    """Render the page template ``name`` (``scorecard.html.j2``, ``scorecard.md.j2``)."""
    if name.endswith(".md.j2"):
        return tidy_markdown(markdown_env().get_template(name).render(**context))
    return html_env().get_template(name).render(css=report_css(page=True), **context) + "\n"


def render_page(name: str, source: Any, *, evidence_rows: int | None = None) -> str:
    """The page ``name`` of ``source``: built sections, or a scorecard dictionary to build them from."""
    from ._sections import Sections, build_sections

    sections = source if isinstance(source, Sections) else build_sections(source, evidence_rows=evidence_rows)
    return render(name, s=sections)


def write_page(name: str, data: Any, path: Any, *, evidence_rows: int | None = None) -> Path:
    """Render the page ``name`` of ``data`` and write it to ``path`` atomically; return the path."""
    from .._io import atomic_write_bytes

    payload = render_page(name, data, evidence_rows=evidence_rows).encode("utf-8")
    return atomic_write_bytes(path, payload)


def macros(kind: str, *, plain: bool = False) -> Any:
    """The section macros as a module (``macros("html").banner(sections)``); ``kind`` is ``html`` or ``md``.

    ``plain`` Markdown holds no HTML at all: a line break in the data becomes a space.
    """
    if kind == "html":
        return html_env().get_template("macros.html.j2").module
    return markdown_env(" " if plain else "<br>").get_template("macros.md.j2").module
