"""Every code block of README.md and of docs/ (its subfolders too) runs as written, in order.

The harness reads a Markdown file's fenced blocks and runs the ``bash`` and
``python`` ones top to bottom in one empty temporary folder, as a reader would:
shell blocks with ``bash -e -o pipefail`` and this interpreter's ``bin``
folder (the installed ``scorekit``, ``python``) first on PATH; Python blocks
in one namespace, in this process. A shell block must exit 0, and a Python
block must not raise.

Two markers, an HTML comment on the line just above a fence (invisible on
GitHub), say otherwise:

* ``<!-- doc-test: exit N -->`` — the block is expected to exit N (a gate that
  says no). Keep such a block to the one command that exits so.
* ``<!-- doc-test: skip — REASON -->`` — the block is not run. Only for blocks
  that cannot run inside the suite (``make test`` is the suite itself, a
  benchmark needs minutes and gigabytes); the reason is required.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: README.md and every page of the docs site, in its folders too (docs/importers/ holds one page per
#: format). docs/api/ is left out: its pages are mkdocstrings directives (``::: scorekit``) with no
#: code block, rendered and checked by tests/test_docs_site.py.
DOCUMENTS = [ROOT / "README.md",
             *sorted(p for p in (ROOT / "docs").rglob("*.md") if "api" not in p.relative_to(ROOT / "docs").parts[:1])]
SHELL = {"bash", "sh", "shell"}
PYTHON = {"python", "py"}
#: Languages whose blocks are shown, never run (data, not commands).
SHOWN = {"yaml", "yml", "json", "text", "console", "toml", "ini", "csv", "markdown", "md"}
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*doc-test:\s*(?P<what>skip|exit\s+\d+)\s*(?:[—–-]+\s*(?P<reason>.*?))?\s*-->\s*$")
#: Most opt-outs a document may have: they must stay rare.
MAX_SKIPS = 2


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    source: str
    skip: str | None = None  # the reason, when the block is marked skip
    exit_code: int = 0

    @property
    def where(self) -> str:
        """``docs/importers/index.md:12`` for a page of the repository (several are called index.md)."""
        shown = self.path.relative_to(ROOT).as_posix() if self.path.is_relative_to(ROOT) else self.path.name
        return f"{shown}:{self.line}"


def code_blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path`` in order, with the marker just above each (if any)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, fence, lang = i, match["fence"], match["lang"].lower()
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        assert i < len(lines), f"{path.name}:{start + 1}: code block never closed"
        i += 1
        skip, exit_code = None, 0
        marker = MARKER.match(lines[start - 1].strip()) if start > 0 else None
        if marker:
            if marker["what"] == "skip":
                skip = marker["reason"] or ""
            else:
                exit_code = int(marker["what"].split()[1])
        blocks.append(Block(path, start + 1, lang, "\n".join(body) + "\n", skip, exit_code))
    return blocks


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("GITHUB_STEP_SUMMARY", None)  # `run --gate` would append to the CI job's summary
    env.pop("GITHUB_ACTIONS", None)
    env["MPLBACKEND"] = "Agg"
    return env


def run_block(block: Block, folder: Path, namespace: dict) -> None:
    """Run one block in ``folder``; fail naming the block's file and line."""
    if block.lang in SHELL:
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.source], cwd=folder, env=_shell_env(),
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == block.exit_code, (
            f"{block.where}: the {block.lang} block exited {proc.returncode}, not {block.exit_code}\n"
            f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
        assert "Traceback (most recent call last)" not in proc.stderr, f"{block.where}: a traceback\n{proc.stderr}"
        return
    assert block.exit_code == 0, f"{block.where}: an exit code marker on a {block.lang} block"
    # Line numbers of a traceback are those of the Markdown file.
    code = compile("\n" * block.line + block.source, str(block.path), "exec")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        exec(code, namespace)
    finally:
        os.chdir(cwd)


def run_document(path: Path, folder: Path) -> list[Block]:
    """Run every runnable block of ``path`` in order in ``folder``; return the blocks run."""
    namespace: dict = {"__name__": "__doc_test__"}
    ran = []
    for block in code_blocks(path):
        if block.skip is not None or block.lang not in SHELL | PYTHON:
            continue
        run_block(block, folder, namespace)
        ran.append(block)
    return ran


# --------------------------------------------------------------------------- the documents
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_code_block_runs_as_written_in_order(path, tmp_path):
    ran = run_document(path, tmp_path)
    assert ran, f"{path.relative_to(ROOT).as_posix()}: no code block ran"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_code_block_says_how_it_is_treated(path):
    """Each fence names a language the harness runs or only shows, so no block is skipped by accident."""
    for block in code_blocks(path):
        assert block.lang in SHELL | PYTHON | SHOWN, f"{block.where}: fence language {block.lang!r}"
        if block.skip is not None or block.exit_code:
            assert block.lang in SHELL | PYTHON, f"{block.where}: a marker on a block that is not run anyway"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_opt_outs_are_rare_and_give_their_reason(path):
    skipped = [b for b in code_blocks(path) if b.skip is not None]
    assert len(skipped) <= MAX_SKIPS, [b.where for b in skipped]
    for block in skipped:
        assert len(block.skip.split()) >= 3, f"{block.where}: a skip marker must say why the block cannot run"


def test_a_marker_line_is_only_read_directly_above_its_fence(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- doc-test: skip — shown only, needs a GPU -->\n```bash\nexit 3\n```\n\n"
                   "<!-- doc-test: exit 1 -->\n\n```bash\nfalse\n```\n"
                   "<!-- doc-test: exit 1 -->\n```bash\nfalse\n```\n", encoding="utf-8")
    blocks = code_blocks(doc)
    assert [(b.skip, b.exit_code) for b in blocks] == [("shown only, needs a GPU", 0), (None, 0), (None, 1)]
    with pytest.raises(AssertionError, match="doc.md:8: the bash block exited 1, not 0"):
        run_document(doc, tmp_path)


def test_blocks_share_the_folder_and_python_blocks_share_a_namespace(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("```bash\necho 41 > n.txt\n```\n\n```python\nn = int(open('n.txt').read())\n```\n\n"
                   "```python\nassert n + 1 == 42\n```\n\n```python\nraise ValueError('from the doc')\n```\n",
                   encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(ValueError, match="from the doc") as caught:
        run_document(doc, work)
    assert caught.traceback[-1].lineno + 1 == 14  # the line of the raise in doc.md
