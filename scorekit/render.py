"""Render the release notebook: execute it with papermill, export it with nbconvert.

:func:`render_notebook` is ``scorekit render``: it checks the parameters against
the notebook's ``parameters`` cell (``papermill.inspect_notebook``), executes the
notebook with papermill in a kernel of *this* interpreter, then exports the
executed notebook to HTML without code cells (an offline template: no script,
no external URL) and to Markdown. The notebook itself evaluates once and writes
the library's reports (``scorecard.json/.md/.html``, ``evidence.parquet``)
beside them; the decision returned is the one in that ``scorecard.json``.

papermill, nbconvert, nbformat and jupyter_client are imported inside the
functions: ``import scorekit`` stays light.

Examples
--------
>>> import scorekit as sk, tempfile
>>> from scorekit.render import render_notebook
>>> result = render_notebook(sk.example_path(), sk.example_path(file="policy.yml"),
...                          out_dir=tempfile.mkdtemp())  # doctest: +SKIP
>>> result.decision, result.html.name  # doctest: +SKIP
('FAIL', 'release_scorecard.html')
"""

from __future__ import annotations

import ast
import json
import logging
import os
import re
import shlex
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ._errors import FileProblem, InputError, ScorekitError
from ._examples import notebook_path
from ._io import atomic_write_bytes, check_regular, read_json_strict

__all__ = [
    "DEFAULT_TIMEOUT",
    "RenderResult",
    "check_offline_html",
    "default_out_dir",
    "execute_notebook",
    "export_notebook",
    "notebook_parameters",
    "render_notebook",
    "reproduction_commands",
]

#: Seconds one notebook cell may run before the render gives up.
DEFAULT_TIMEOUT = 600
#: The nbconvert template (under ``scorekit/templates/``) of the exported HTML.
TEMPLATE_NAME = "scorekit_report"
TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
#: Output types the Markdown export takes, best first: never ``text/html`` (release_scorecard.md holds no HTML).
MARKDOWN_PRIORITY = ["text/markdown", "image/svg+xml", "image/png", "image/jpeg", "text/latex", "text/plain"]
#: Files of the library's reports the notebook writes (``Scorecard.write``) and the signature.
LIBRARY_REPORTS = {
    "json": "scorecard.json",
    "markdown": "scorecard.md",
    "html": "scorecard.html",
    "parquet": "evidence.parquet",
    "evidence_dataset": "evidence",  # instead of evidence.parquet above evidence_rows_in_memory rows (SPEC §16)
    "signature": "scorecard.sig.json",
}


@dataclass(frozen=True)
class RenderResult:
    """What :func:`render_notebook` wrote, and the decision of the scorecard it wrote.

    Attributes
    ----------
    out_dir : Path
    notebook : Path
        The executed notebook (``.ipynb``).
    html, markdown : Path
        The exported report, without code cells.
    reports : dict of str to Path
        The library's reports written by this execution: ``json``, ``markdown``,
        ``html``, ``parquet`` (``evidence_dataset``, the ``evidence/`` directory, instead
        above ``evidence_rows_in_memory`` rows) and ``signature`` when signed.
    decision : str or None
        ``decision`` of the ``scorecard.json`` written; None when the notebook
        wrote none (a custom ``notebook``).
    overall_pass : bool
    parameters : dict
        The parameters the notebook was executed with.
    """

    out_dir: Path
    notebook: Path
    html: Path
    markdown: Path
    reports: dict[str, Path] = field(default_factory=dict)
    decision: str | None = None
    overall_pass: bool = False
    parameters: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- parameters
_UNSAFE_SEGMENT = re.compile(r"[^A-Za-z0-9._+-]+")


def _segment(value: str | None, fallback: str) -> str:
    """One safe directory name from an agent name or version (no separators, no ``..``)."""
    text = _UNSAFE_SEGMENT.sub("-", str(value)).strip("-.") if value not in (None, "") else ""
    return text or fallback


def default_out_dir(agent_name: str | None = None, agent_version: str | None = None) -> Path:
    """``reports/<agent>/<version>``, each part reduced to a safe directory name.

    >>> default_out_dir("mail agent", "1.4.0").as_posix()
    'reports/mail-agent/1.4.0'
    >>> default_out_dir(None, None).as_posix()
    'reports/agent/unversioned'
    """
    return Path("reports") / _segment(agent_name, "agent") / _segment(agent_version, "unversioned")


def notebook_parameters(notebook: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """The parameters a notebook declares in its ``parameters`` cell (``papermill.inspect_notebook``).

    Returns
    -------
    dict
        name → ``{"name", "inferred_type_name", "default", "help"}``, in cell order.

    Examples
    --------
    >>> from scorekit.render import notebook_parameters
    >>> list(notebook_parameters())[:4]
    ['results', 'policy', 'agent_name', 'agent_version']
    """
    import papermill

    path = _notebook(notebook)
    try:
        return dict(papermill.inspect_notebook(str(path)))
    except Exception as exc:  # noqa: BLE001 - any reading problem is the user's notebook file
        raise InputError(f"{path}: cannot read the notebook's parameters ({_one_line(exc)})") from None


def _notebook(notebook: str | os.PathLike[str] | None) -> Path:
    if notebook is None:
        return notebook_path("release_scorecard")
    path = Path(notebook)
    _require_file("notebook", path)
    return path


def _require_file(label: str, path: str | os.PathLike[str]) -> None:
    """InputError unless ``path`` is a regular file (a FIFO would hang papermill's reader)."""
    try:
        check_regular(path)
    except FileProblem as problem:
        if problem.kind == "missing":
            raise InputError(f"{label}: no such file: {_as_text(path)}") from None
        raise InputError(problem.message(str(_as_text(path)), f"{label} file")) from None


def _kind(spec: Mapping[str, Any]) -> str | None:
    """The declared type of a parameter: its annotation, else the type of its literal default."""
    declared = spec.get("inferred_type_name")
    if declared in ("int", "float", "bool", "str"):
        return str(declared)
    try:
        default = ast.literal_eval(str(spec.get("default")))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    for kind in (bool, int, float, str):  # bool first: True is an int too
        if isinstance(default, kind):
            return kind.__name__
    return None


def _coerce(name: str, value: Any, spec: Mapping[str, Any]) -> Any:
    """A ``-p KEY VALUE`` text as the type of the parameter's default (int, float, bool), else text."""
    if not isinstance(value, str):
        return value
    kind = _kind(spec)
    try:
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
    except ValueError:
        raise InputError(f"parameter {name!r}: expected {kind}, got {value!r}") from None
    if kind == "bool":
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise InputError(f"parameter {name!r}: expected true or false, got {value!r}")
    return value


def _resolve_parameters(
    known: Mapping[str, Mapping[str, Any]], explicit: Mapping[str, Any], extra: Mapping[str, Any] | None
) -> dict[str, Any]:
    params = {k: v for k, v in explicit.items() if v is not None}
    for name, value in (extra or {}).items():
        if not isinstance(name, str) or not name:
            raise InputError(f"parameters: names must be non-empty strings; got {name!r}")
        if name in params:
            raise InputError(f"parameter {name!r} is given twice (as an option and with -p)")
        params[name] = value
    unknown = [name for name in params if name not in known]
    if unknown:
        listed = ", ".join(known) if known else "none"
        raise InputError(f"unknown parameter {unknown[0]!r}; the notebook's parameters are: {listed}")
    return {name: _coerce(name, value, known[name]) for name, value in params.items()}


def _as_text(value: Any) -> Any:
    return os.fspath(value) if isinstance(value, os.PathLike) else value


# --------------------------------------------------------------------------- kernel
@cache
def _kernel_manager_class() -> type:
    """A kernel manager whose ``python3`` kernel is always this interpreter.

    A ``python3`` kernel spec found first on the Jupyter path (a user-level one,
    ``JUPYTER_PATH``, or a system one outside a virtual environment) may name
    another Python that lacks scorekit. The native spec ipykernel builds from
    ``sys.executable`` avoids that; other kernel names resolve as usual.
    """
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class ThisInterpreterSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> Any:
            if kernel_name == "python3":
                from ipykernel.kernelspec import RESOURCES, get_kernel_dict

                return self.kernel_spec_class(resource_dir=RESOURCES, **get_kernel_dict())
            return super().get_kernel_spec(kernel_name)

    class ThisInterpreterKernelManager(AsyncKernelManager):
        # jupyter_client types KernelManager.start_kernel as a plain method; AsyncKernelManager's,
        # the one overridden here, is a coroutine at run time (papermill awaits it).
        async def start_kernel(self, **kw: Any) -> None:  # type: ignore[override]  # see the comment above
            # The kernel's own stdout/stderr (not the cells': those are captured into
            # the notebook) would interleave with the CLI's one-line messages, e.g. a
            # traceback when a timed-out kernel is shut down.
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            await super().start_kernel(**kw)

        @default("kernel_spec_manager")
        def _default_specs(self) -> KernelSpecManager:
            return ThisInterpreterSpecs(data_dir=self.data_dir)

        @default("transport_encryption")
        def _default_encryption(self) -> str:
            # CurveZMQ keys for the kernel's local sockets when pyzmq has them
            # (ipykernel otherwise warns that the channel is plain text).
            import zmq

            return "auto" if zmq.has("curve") else "disabled"

    return ThisInterpreterKernelManager


def _last_started_cell(output: Path) -> str:
    """The execution count of the last cell papermill started (the one that timed out)."""
    try:
        nb = json.loads(output.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "?"
    started = "?"
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("metadata", {}).get("papermill", {}).get("start_time"):
            started = str(cell.get("execution_count") or f"#{index}")
    return started


def execute_notebook(
    notebook: str | os.PathLike[str],
    output: str | os.PathLike[str],
    parameters: Mapping[str, Any],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    progress: bool = False,
) -> Path:
    """Execute ``notebook`` with papermill into ``output`` in a ``python3`` kernel of this interpreter.

    Raises
    ------
    ScorekitError
        A cell raised (the message names the cell's execution count and the
        error; the executed notebook is kept at ``output``), a cell ran longer
        than ``timeout`` seconds, or the kernel died or did not start.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    _quiet_logger("papermill")
    output = Path(output)
    kept = f"the executed notebook is kept at {output}"
    try:
        papermill.execute_notebook(
            str(notebook),
            str(output),
            parameters=dict(parameters),
            kernel_name="python3",
            progress_bar=progress,
            start_timeout=60,
            execution_timeout=timeout,
            kernel_manager_class=_kernel_manager_class(),
        )
    except PapermillExecutionError as exc:
        evalue = _one_line(exc.evalue) or "(no message)"
        raise ScorekitError(f"notebook cell {exc.exec_count} raised {exc.ename}: {evalue} ({kept})") from None
    except TimeoutError:
        raise ScorekitError(
            f"notebook cell {_last_started_cell(output)} did not finish within {timeout:g} s (--timeout); {kept}"
        ) from None
    except RuntimeError as exc:  # nbclient: DeadKernelError, kernel start-up failures
        raise ScorekitError(f"the notebook kernel failed: {_one_line(exc)} ({kept})") from None
    return output


def _quiet_logger(name: str) -> None:
    """Give a library's logger a NullHandler: without logging configured, Python would print its
    warnings and errors on stderr beside our one-line message. A configured root still gets them."""
    logger = logging.getLogger(name)
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


# --------------------------------------------------------------------------- export
_SCRIPT = re.compile(r"<\s*script\b", re.IGNORECASE)
# Attributes whose value the browser loads (or navigates to) by itself.
_RESOURCE_ATTRS = frozenset({"src", "href", "srcset", "imagesrcset", "action", "formaction", "poster", "data",
                             "xlink:href", "background", "cite", "ping", "longdesc", "lowsrc", "dynsrc", "manifest",
                             "codebase", "archive", "classid", "icon", "profile", "usemap"})
_EMBEDDING_TAGS = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "link", "base", "applet",
                             "portal", "fencedframe"})
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(.))", re.DOTALL)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.DOTALL)
# CSS that loads something: url(...) (or src(...)) not of a data: URI or a #fragment,
# @import in any form, and image-set(), which takes bare strings.
_CSS_LOAD = re.compile(r"""(?:\burl|\bsrc)\(\s*(?!['"]?\s*(?:data:|\#))|@import|image-set\(""", re.IGNORECASE)
_REFRESH_URL = re.compile(r"url\s*=", re.IGNORECASE)


def _css_loads(css: str) -> bool:
    """True when the CSS text loads an outside resource (CSS escapes and comments undone first)."""
    text = _CSS_COMMENT.sub("", css)
    text = _CSS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) and int(m.group(1), 16) <= 0x10FFFF
                           else (m.group(2) or "\ufffd"), text)
    return _CSS_LOAD.search(text) is not None


def _local(value: str) -> bool:
    """A reference that loads nothing from outside: a ``data:`` URI or an in-page ``#fragment``."""
    value = "".join(value.split()).lower()  # browsers drop tabs and newlines inside URLs
    return value.startswith(("data:", "#"))


def _srcset_urls(value: str) -> list[str]:
    """The URL of every candidate of a ``srcset`` (HTML's parsing: a URL is a run of
    non-space characters, so a ``data:`` URI's own commas do not split it)."""
    urls: list[str] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i].isspace() or value[i] == ","):
            i += 1
        start = i
        while i < n and not value[i].isspace():
            i += 1
        url = value[start:i]
        if url.endswith(","):  # a candidate without descriptors
            urls.append(url.rstrip(","))
            continue
        if url:
            urls.append(url)
        depth = 0
        while i < n:  # descriptors, up to a comma outside parentheses
            if value[i] == "(":
                depth += 1
            elif value[i] == ")":
                depth = max(0, depth - 1)
            elif value[i] == "," and depth == 0:
                i += 1
                break
            i += 1
    return urls


def check_offline_html(text: str) -> list[str]:
    """Reasons ``text`` is not a self-contained, script-free page (empty when it is).

    The page is parsed with :mod:`html.parser` and checked for what a browser
    would *load*: a ``<script>`` (or another embedding tag: iframe, object,
    embed, link, base), an inline event handler, a resource attribute (``src``,
    ``href``, every ``srcset`` candidate, ``poster``, ``action``...) that is not
    a ``data:`` URI or an in-page ``#fragment``, a ``<meta http-equiv=refresh>``
    to a URL, and CSS (in ``<style>`` or a ``style`` attribute, escapes
    undone) with ``url()`` of something else, ``@import`` or ``image-set()``.
    Text is not a resource: a case id reading ``https://example.com/x`` is fine.

    >>> check_offline_html('<p>see https://example.com/x</p><img src="data:image/png;base64,AAAA">')
    []
    >>> check_offline_html('<img src="https://example.com/x.png">')
    ["a resource reference (src='https://example.com/x.png')"]
    >>> check_offline_html('<script src="x.js"></script>')[0]
    'a <script> tag'
    """
    from html.parser import HTMLParser

    problems: list[str] = []

    class Scan(HTMLParser):
        in_style = False

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in _EMBEDDING_TAGS:
                problems.append(f"a <{tag}> tag")
            self.in_style = tag == "style"
            attributes = {name: (value or "") for name, value in attrs}
            if tag == "meta" and attributes.get("http-equiv", "").strip().lower() == "refresh" \
                    and _REFRESH_URL.search(attributes.get("content", "")):
                problems.append("a <meta http-equiv=refresh> to a URL")
            for name, value in attrs:
                value = (value or "").strip()
                if name.startswith("on"):
                    problems.append(f"an inline event handler ({name})")
                elif name in ("srcset", "imagesrcset"):
                    if any(not _local(url) for url in _srcset_urls(value)):
                        problems.append(f"a resource reference ({name}={value[:40]!r})")
                elif name in _RESOURCE_ATTRS and value and not _local(value):
                    problems.append(f"a resource reference ({name}={value[:40]!r})")
                elif name == "style" and _css_loads(value):
                    problems.append("a CSS url() or @import")

        handle_startendtag = handle_starttag

        def handle_endtag(self, tag: str) -> None:
            if tag == "style":
                self.in_style = False

        def handle_data(self, data: str) -> None:
            if self.in_style and _css_loads(data):
                problems.append("a CSS url() or @import")

        def unknown_decl(self, data: str) -> None:  # <![CDATA[...]]> inside inline SVG
            if _css_loads(data):
                problems.append("a CSS url() or @import")

    scan = Scan(convert_charrefs=True)
    scan.feed(text)
    scan.close()
    if _SCRIPT.search(text) and "a <script> tag" not in problems:
        problems.insert(0, "a <script> tag")
    return list(dict.fromkeys(problems))


def export_notebook(executed: str | os.PathLike[str], out_dir: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Export an executed notebook to ``<stem>.html`` (offline, no code) and ``<stem>.md``.

    The HTML uses scorekit's nbconvert template (inline CSS, SVG charts inline and
    images as data URIs, no script, no external URL) and is checked before it is
    written. The Markdown is plain GitHub Markdown: each output's Markdown twin
    (:mod:`scorekit.notebook`), image or text, never its HTML
    (:data:`MARKDOWN_PRIORITY`); its images go to ``<stem>_files/``.
    """
    import nbformat
    from nbconvert import HTMLExporter, MarkdownExporter
    from traitlets.config import Config

    executed = Path(executed)
    out = Path(out_dir)
    stem = executed.stem
    nb = nbformat.read(executed, as_version=4)
    options = {"exclude_input": True, "exclude_input_prompt": True, "exclude_output_prompt": True}

    html_exporter = HTMLExporter(template_name=TEMPLATE_NAME, extra_template_basedirs=[str(TEMPLATES_DIR)],
                                 **options)
    body, _ = html_exporter.from_notebook_node(nb, resources={"metadata": {"name": stem}})
    problems = check_offline_html(body)
    if problems:
        raise ScorekitError(f"{executed}: the exported HTML would not be self-contained: {problems[0]}; not written")
    html_path = out / f"{stem}.html"
    _write_text(html_path, body)

    # Plain GitHub Markdown: an output's Markdown twin (scorekit.notebook fragments), else its image or
    # text, never its HTML.
    md_exporter = MarkdownExporter(config=Config({"NbConvertBase": {"display_data_priority": MARKDOWN_PRIORITY}}),
                                   **options)
    files_dir = f"{stem}_files"
    text, resources = md_exporter.from_notebook_node(
        nb, resources={"metadata": {"name": stem}, "output_files_dir": files_dir, "unique_key": stem}
    )
    for name, data in (resources.get("outputs") or {}).items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else str(data).encode("utf-8"))
    md_path = out / f"{stem}.md"
    _write_text(md_path, text)
    return html_path, md_path


def _write_text(path: Path, text: str) -> None:
    payload = text.encode("utf-8")
    atomic_write_bytes(path, payload)


# --------------------------------------------------------------------------- reproduction
def reproduction_commands(parameters: Mapping[str, Any]) -> list[str]:
    """Shell commands that reproduce a render and check its result, from the notebook's parameters.

    >>> reproduction_commands({"results": "r.jsonl", "policy": "p.yml", "out_dir": "out"})[0]
    'scorekit render --results r.jsonl --policy p.yml --out-dir out'
    """
    def value(name: str) -> str | None:
        v = parameters.get(name)
        return None if v is None else str(_as_text(v))

    q = shlex.quote
    render = ["scorekit", "render", "--results", q(value("results") or "RESULTS")]
    for option, name in (("--policy", "policy"), ("--agent-name", "agent_name"), ("--agent-version", "agent_version")):
        if value(name) is not None:
            render += [option, q(value(name) or "")]
    for name in ("history", "label", "baseline", "signing_key", "public_key", "alpha"):
        if value(name) is not None:
            render += ["-p", name, q(value(name) or "")]
    if value("out_dir") is not None:
        render += ["--out-dir", q(value("out_dir") or "")]
    run = ["scorekit", "run", "--results", q(value("results") or "RESULTS")]
    for option, name in (("--policy", "policy"), ("--agent-name", "agent_name"), ("--agent-version", "agent_version"),
                         ("--history", "history"), ("--label", "label"), ("--baseline", "baseline"),
                         ("--sign", "signing_key")):
        if value(name) is not None:
            run += [option, q(value(name) or "")]
    out_dir = value("out_dir")
    commands = [" ".join(render), " ".join(run + ["--out-dir", q(out_dir or "reports")])]
    if value("signing_key") is not None:
        scorecard = q(str(Path(out_dir or "reports") / "scorecard.json"))
        verify = ["scorekit", "verify", "--scorecard", scorecard]
        if value("public_key") is not None:
            verify += ["--public-key", q(value("public_key") or "")]
        commands.append(" ".join(verify))
    return commands


# --------------------------------------------------------------------------- render
def _fresh(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since
    except OSError:
        return False


def render_notebook(
    results: str | os.PathLike[str],
    policy: str | os.PathLike[str] | None = None,
    *,
    agent_name: str | None = None,
    agent_version: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: bool = False,
    notebook: str | os.PathLike[str] | None = None,
) -> RenderResult:
    """Execute the release notebook on a results file and export it (``scorekit render``).

    Parameters
    ----------
    results : path-like
        Results file (JSON Lines, CSV or Parquet).
    policy : path-like, optional
        Policy file; default: the release defaults (SPEC §7).
    agent_name, agent_version : str, optional
    parameters : mapping, optional
        Further notebook parameters (``history``, ``label``, ``baseline``,
        ``signing_key``, ``public_key``...). Text values are converted to the type
        of the parameter's default when that is int, float or bool.
    out_dir : path-like, optional
        Default ``reports/<agent>/<version>/`` (:func:`default_out_dir`).
    timeout : float, default 600
        Seconds a single cell may run.
    progress : bool, default False
        Show papermill's progress bar (on stderr).
    notebook : path-like, optional
        Another notebook with a ``parameters`` cell; default: the bundled
        ``release_scorecard.ipynb``.

    Returns
    -------
    RenderResult

    Raises
    ------
    InputError
        Unknown or badly typed parameter, missing results/policy/notebook file.
    ScorekitError
        The output folder cannot be created, a cell raised or timed out (the
        executed notebook is kept in ``out_dir``), or the export failed.

    Examples
    --------
    >>> import scorekit as sk
    >>> from scorekit.render import render_notebook
    >>> result = render_notebook(sk.example_path(), sk.example_path(file="policy.yml"),
    ...                          agent_name="mail-agent", agent_version="1.4.0")  # doctest: +SKIP
    >>> result.decision, result.html.name  # doctest: +SKIP
    ('FAIL', 'release_scorecard.html')
    """
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    for name, path in (("results", results), ("policy", policy)):
        if path is not None:
            _require_file(name, path)
    nb = _notebook(notebook)
    known = notebook_parameters(nb)
    target = Path(out_dir) if out_dir is not None else default_out_dir(agent_name, agent_version)
    explicit = {
        "results": _as_text(results),
        "policy": _as_text(policy),
        "agent_name": agent_name,
        "agent_version": agent_version,
        "out_dir": str(target),
    }
    params = _resolve_parameters(known, explicit, {k: _as_text(v) for k, v in (parameters or {}).items()})
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScorekitError(f"{target}: cannot create the output folder ({exc.strerror or exc})") from None

    started = time.time() - 1.0  # file systems with coarse timestamps
    executed = execute_notebook(nb, target / nb.name, params, timeout=timeout, progress=progress)
    html, markdown = export_notebook(executed, target)

    reports = {kind: target / name for kind, name in LIBRARY_REPORTS.items() if _fresh(target / name, started)}
    decision, overall = None, False
    if "json" in reports:
        data = read_json_strict(reports["json"], "scorecard", InputError)
        if isinstance(data, dict):
            decision, overall = data.get("decision"), data.get("overall_pass") is True
    return RenderResult(
        out_dir=target,
        notebook=executed,
        html=html,
        markdown=markdown,
        reports=reports,
        decision=decision,
        overall_pass=overall,
        parameters=params,
    )


def _one_line(value: Any) -> str:
    text = str(value).strip()
    return text.splitlines()[0] if text else ""
