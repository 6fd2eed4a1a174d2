"""The step of scorekit's GitHub Action (SPEC §19): ``python -m scorekit._action``.

``action.yml`` at the repository root installs scorekit from the action's own
checkout and runs this module once, with the action's inputs in ``INPUT_*``
environment variables (never interpolated into shell text). It holds no rule of
its own:

1. it runs ``scorekit run`` (:func:`scorekit.cli.main`) with ``--out-dir
   scorekit-reports --junit scorekit-reports/junit.xml`` and, with ``gate: true``,
   ``--gate`` (the job summary and one ``::error::`` per failing dimension);
   with ``gate: false`` it appends the same job summary (:func:`scorekit._ci.append_step_summary`)
   and the step passes whatever the decision;
2. it reads the ``scorecard.json`` just written back through the shipped schema
   and builds its sections (:mod:`scorekit.reports._sections`): the outputs
   ``decision``, ``overall-pass`` and ``scorecard`` are written to ``$GITHUB_OUTPUT``
   (heredoc form with a delimiter no value holds, so a value cannot forge another output);
3. on a pull request (``$GITHUB_EVENT_PATH`` holds ``pull_request.number``) with
   ``comment: true`` it creates or updates ONE comment, found by :data:`MARKER` at the
   start of its body, through ``gh api`` (:func:`comment_body`: the notebook's Markdown
   fragments, every evidence string escaped by :mod:`scorekit._escape`).

The exit status is ``scorekit run``'s: 0 PASS (or ``gate: false``), 1 the evidence
says no, 2 could not run. The comment is a courtesy at the network's edge: when
``gh`` is missing or fails, the step prints a ``::warning::`` and keeps the gate's
status (a comment that could not be posted never turns a verdict around).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._errors import ScorekitError
from ._escape import terminal_text, workflow_command

if TYPE_CHECKING:
    from .reports._sections import Sections

__all__ = ["COMMENT_AUTHOR", "COMMENT_LIMIT", "MARKER", "OUT_DIR", "comment_body", "main", "output_lines",
           "upsert_comment"]

#: The hidden HTML comment that starts the action's pull-request comment (how it is found again).
MARKER = "<!-- scorekit-action: release evidence (updated in place by each run) -->"
#: Where the step writes the reports, relative to the working directory.
OUT_DIR = "scorekit-reports"
#: Who posts the comment with the job's ``GITHUB_TOKEN``; with another token, name its account in
#: ``SCOREKIT_COMMENT_AUTHOR`` (only comments by these accounts are updated).
COMMENT_AUTHOR = "github-actions[bot]"
#: GitHub refuses a comment body longer than 65,536 characters; the body is cut at a line below this.
COMMENT_LIMIT = 60_000

_EXIT_CANNOT_RUN = 2
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_TRUE, _FALSE = ("true", "yes", "1", "on"), ("false", "no", "0", "off")
_GH_TIMEOUT = 120  # seconds per gh call


def _say(message: str) -> None:
    print(f"scorekit action: {terminal_text(message)}")


def _warn(message: str) -> None:
    print(workflow_command("warning", message, title="scorekit action"))


def _flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    value = environ.get(f"INPUT_{name.upper().replace('-', '_')}", "").strip().lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ScorekitError(f"input {name}: expected true or false, got {value!r}")


def _run_argv(environ: Mapping[str, str], out_dir: Path, gate: bool) -> list[str]:
    """The ``scorekit run`` arguments for the inputs (``--name=value``: a value starting with ``-``
    stays a value)."""
    def given(name: str) -> str:
        return environ.get(f"INPUT_{name.upper().replace('-', '_')}", "").strip()

    results = given("results")
    if not results:
        raise ScorekitError("input results: required (the results file or directory to score)")
    argv = ["run", f"--results={results}", f"--out-dir={out_dir}", f"--junit={out_dir / 'junit.xml'}"]
    fmt = given("from") or "auto"
    if fmt == "scorekit":
        pass  # scorekit rows, said explicitly
    elif fmt == "auto":
        found = _detected_format(results)
        if found is not None:
            argv.append(f"--from={found}")
    else:
        argv.append(f"--from={fmt}")
    for name in ("policy", "history", "baseline", "agent-name", "agent-version"):
        if given(name):
            argv.append(f"--{name}={given(name)}")
    if gate:
        argv.append("--gate")
    return argv


def _detected_format(results: str) -> str | None:
    """``from: auto``: the format of a file that is recognisably another tool's (then ``run --from``
    imports it), else None (scorekit rows; a directory is read as rows: name its format with ``from``)."""
    from .importers._read import detect_format

    path = Path(results)
    return detect_format(path, certain=True) if path.is_file() else None


def _run_scorekit(argv: Sequence[str]) -> int:
    from .cli import main as cli_main

    try:
        return cli_main(list(argv))
    except SystemExit as exc:  # argparse: usage and one error line, exit 2
        return exc.code if isinstance(exc.code, int) else _EXIT_CANNOT_RUN


# --------------------------------------------------------------------------- outputs
def output_lines(outputs: Mapping[str, str]) -> str:
    """``$GITHUB_OUTPUT`` text for ``outputs``: ``name<<DELIMITER``, the value, ``DELIMITER`` per output.

    The delimiter is random and checked absent from every value, so no value can end
    its block early and forge another output line.
    """
    while True:
        delimiter = f"scorekit_{uuid.uuid4().hex}"
        if not any(delimiter in value for value in outputs.values()):
            break
    text = ""
    for name, value in outputs.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
            raise ValueError(f"not an output name: {name!r}")
        text += f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
    return text


def _write_outputs(environ: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    target = environ.get("GITHUB_OUTPUT", "")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(output_lines(outputs))
    except OSError as exc:
        raise ScorekitError(f"{target}: cannot write the step outputs ($GITHUB_OUTPUT): "
                            f"{exc.strerror or exc}") from None


# --------------------------------------------------------------------------- the comment
def comment_body(sections: Sections | None, *, exit_code: int = 0) -> str:
    """The pull-request comment: :data:`MARKER`, the decision banner, the summary table and, when a
    baseline or history comparison ran, the comparison; with ``sections`` None (the run could not
    run, exit 2) a line saying so.

    Every string from the evidence is already escaped by the fragments (:mod:`scorekit._escape`);
    ``@name`` is kept from notifying anyone (:func:`scorekit._escape.no_mentions`). A body longer
    than :data:`COMMENT_LIMIT` is cut at a line and says where the rest is.
    """
    from ._escape import no_mentions

    if sections is None:
        text = ("## scorekit run\n\nscorekit could not run (exit "
                f"{exit_code}): the job log names the file, line and field.\n")
        return f"{MARKER}\n{text}"
    from .notebook import Report

    report = Report(sections)
    text = (report.decision(heading="scorekit run") + report.summary()).markdown.rstrip("\n") + "\n"
    if sections.regressions is not None:
        text += "\n## Comparison with the baseline\n\n" + report.comparison().markdown.rstrip("\n") + "\n"
    text = no_mentions(text)
    if len(text) > COMMENT_LIMIT:
        cut = text.rfind("\n", 0, COMMENT_LIMIT)
        text = (text[: cut + 1] + "\n*The comment is cut here (GitHub's size limit); the job summary and "
                "the reports hold the rest.*\n")
    return f"{MARKER}\n{text}"


def _pull_request(environ: Mapping[str, str]) -> int | None:
    """The pull request number of the event, or None (a push, a schedule, no event file)."""
    path = environ.get("GITHUB_EVENT_PATH", "")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _warn(f"cannot read the event ({path}): {exc}; no pull request comment")
        return None
    pull = event.get("pull_request") if isinstance(event, dict) else None
    number = pull.get("number") if isinstance(pull, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def _gh(args: Sequence[str], body: str | None = None) -> str:
    """``gh api ARGS`` (with ``body`` as the JSON request body on stdin); its stdout."""
    command = ["gh", "api", *args]
    if body is not None:
        command += ["--input", "-"]
    try:
        done = subprocess.run(command, input=None if body is None else json.dumps({"body": body}),
                              capture_output=True, text=True, encoding="utf-8", timeout=_GH_TIMEOUT, check=False)
    except FileNotFoundError:
        raise ScorekitError("gh (the GitHub CLI) is not on PATH") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ScorekitError(f"gh api {args[-1] if args else ''}: {exc}") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        raise ScorekitError(f"gh api {args[-1] if args else ''}: {first}")
    return done.stdout


def _pages(text: str) -> list[Any]:
    """The items of ``gh api --paginate``'s output: one JSON array per page, one after another."""
    decoder, at = json.JSONDecoder(), 0
    items: list[Any] = []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return items
        page, at = decoder.raw_decode(text, at)
        if not isinstance(page, list):
            raise ScorekitError("gh api: the comments list is not a JSON array")
        items += page


def _author(comment: dict[str, Any]) -> str:
    user = comment.get("user")
    return str(user.get("login", "")) if isinstance(user, dict) else ""


def upsert_comment(repository: str, number: int, body: str,
                   authors: frozenset[str] = frozenset({COMMENT_AUTHOR})) -> tuple[str, int]:
    """Create or update the ONE comment of pull request ``number`` whose body starts with :data:`MARKER`
    and whose author is one of ``authors`` (the account the action posts as).

    Returns ``("created" | "updated", comment id)``. The oldest such comment is the one
    updated; other comments are never touched: anyone can start a comment with the marker, and
    taking over theirs would let its author edit the evidence afterwards.

    Raises
    ------
    ScorekitError
        ``gh`` is missing, refused or answered something that is not GitHub's REST shape.
    """
    if not _REPOSITORY.fullmatch(repository):
        raise ScorekitError(f"GITHUB_REPOSITORY {repository!r} is not owner/name")
    listed = _pages(_gh(["--paginate", f"repos/{repository}/issues/{number}/comments"]))
    ours = sorted(c["id"] for c in listed if isinstance(c, dict) and isinstance(c.get("id"), int)
                  and str(c.get("body", "")).startswith(MARKER) and _author(c) in authors)
    if ours:
        answer = _gh(["--method", "PATCH", f"repos/{repository}/issues/comments/{ours[0]}"], body)
        action = "updated"
    else:
        answer = _gh(["--method", "POST", f"repos/{repository}/issues/{number}/comments"], body)
        action = "created"
    try:
        comment_id = json.loads(answer)["id"]
    except (ValueError, KeyError, TypeError):
        raise ScorekitError(f"gh api: no comment id in the answer to the {action[:-1]} request") from None
    return action, int(comment_id)


def _comment(environ: Mapping[str, str], sections: Sections | None, exit_code: int) -> None:
    number = _pull_request(environ)
    if number is None:
        return
    repository = environ.get("GITHUB_REPOSITORY", "")
    authors = frozenset({COMMENT_AUTHOR, environ.get("SCOREKIT_COMMENT_AUTHOR", "").strip()} - {""})
    try:
        action, comment_id = upsert_comment(repository, number, comment_body(sections, exit_code=exit_code),
                                            authors)
    except ScorekitError as exc:
        _warn(f"the pull request comment was not written: {exc}")
        return
    _say(f"{action} comment {comment_id} on pull request #{number}")


# --------------------------------------------------------------------------- the step
def main(environ: Mapping[str, str] | None = None) -> int:
    """Run the action's step with ``environ`` (default: the process environment); return its exit code."""
    env = os.environ if environ is None else environ
    out_dir = Path(OUT_DIR)
    try:
        wants_comment = _flag(env, "comment", True)
    except ScorekitError as exc:
        print(f"scorekit action: {terminal_text(exc)}", file=sys.stderr)
        return _EXIT_CANNOT_RUN
    try:
        gate = _flag(env, "gate", True)
        argv = _run_argv(env, out_dir, gate)
    except ScorekitError as exc:
        print(f"scorekit action: {terminal_text(exc)}", file=sys.stderr)
        if wants_comment:  # an earlier run's PASS must not stay on the pull request
            _comment(env, None, _EXIT_CANNOT_RUN)
        return _EXIT_CANNOT_RUN
    code = _run_scorekit(argv)
    sections = None
    outputs = {"decision": "", "overall-pass": "false", "scorecard": ""}
    try:
        if code != _EXIT_CANNOT_RUN:
            from .reports._sections import build_sections
            from .reports.json import read_scorecard_json

            scorecard = out_dir / "scorecard.json"
            data = read_scorecard_json(scorecard)
            sections = build_sections(data)
            outputs = {"decision": str(data["decision"]), "overall-pass": "true" if data["overall_pass"] else "false",
                       "scorecard": str(scorecard.resolve())}
            if not gate:
                from ._ci import append_step_summary

                append_step_summary(sections, env)
        _write_outputs(env, outputs)
    except ScorekitError as exc:
        print(f"scorekit action: {terminal_text(exc)}", file=sys.stderr)
        code = _EXIT_CANNOT_RUN
    if wants_comment:
        _comment(env, sections, code)
    return code


if __name__ == "__main__":
    sys.exit(main())
