"""CLI sub-command ``render``: execute the release notebook (papermill), export it (nbconvert).

``add_parsers(sub)`` registers it on the ``scorekit`` sub-parsers object. Exit
codes (SPEC §14): 0 rendered (whatever the decision: ``render`` is a report,
not a gate — use ``scorekit run --gate`` to gate); 2 could not run: a bad
parameter, a missing file, a notebook cell that raised or timed out (the
executed notebook is kept in the output folder). Handlers raise
``ScorekitError``; ``scorekit.cli.main`` prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._terminal import terminal_text as _t

__all__ = ["add_parsers"]

EXIT_OK = 0


def _cmd_render(args: argparse.Namespace) -> int:
    from .render import render_notebook

    extra: dict[str, str] = {}
    for key, value in args.parameters or []:
        if key in extra:
            from ._errors import InputError

            raise InputError(f"parameter {key!r} is given twice with -p")
        extra[key] = value
    result = render_notebook(
        args.results,
        args.policy,
        agent_name=args.agent_name,
        agent_version=args.agent_version,
        parameters=extra,
        out_dir=args.out_dir,
        timeout=args.timeout,
        progress=sys.stdout.isatty(),
        notebook=args.notebook,
    )
    decision = _t(result.decision) if result.decision is not None else "— (the notebook wrote no scorecard.json)"
    print(f"decision: {decision}")
    print(f"report: {_t(result.html)}")
    for path in (result.markdown, result.notebook, *result.reports.values()):
        print(f"wrote {_t(path)}")
    return EXIT_OK


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_parsers(sub: Any) -> None:
    """Register ``render`` on ``sub`` (the ``scorekit`` sub-parsers object)."""
    from .render import DEFAULT_TIMEOUT

    render = sub.add_parser(
        "render",
        help="execute the release notebook on a results file and export it to HTML and Markdown",
        description="Execute the release notebook with papermill and export it with nbconvert (HTML without "
                    "code cells, offline: no script, no external URL; and Markdown). The notebook writes "
                    "scorecard.json/.md/.html and evidence.parquet beside the executed .ipynb. Exit 0 when "
                    "rendered, whatever the decision; 2 when it could not run (a cell that raised included).",
    )
    render.add_argument(
        "--results", required=True, metavar="F", help="results file (JSONL, JSON array, CSV or Parquet)"
    )
    render.add_argument("--policy", metavar="P", help="policy file (YAML or JSON); default: release defaults")
    render.add_argument("--agent-name", metavar="N", help="name of the agent measured (default out-dir segment)")
    render.add_argument("--agent-version", metavar="V", help="version of the agent measured (default out-dir segment)")
    render.add_argument("-p", "--parameter", nargs=2, action="append", dest="parameters", metavar=("KEY", "VALUE"),
                        help="another notebook parameter (history, label, baseline, signing_key, public_key); "
                             "repeatable")
    render.add_argument("--out-dir", metavar="D", help="output folder (default: reports/<agent>/<version>/)")
    render.add_argument("--timeout", type=_timeout, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds one notebook cell may run (default: {DEFAULT_TIMEOUT})")
    render.add_argument("--notebook", metavar="NB",
                        help="another notebook with a 'parameters' cell (default: the bundled release notebook)")
    render.set_defaults(handler=_cmd_render)
