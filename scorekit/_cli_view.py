"""CLI sub-command ``view``: one self-contained, interactive page over a scorecard (SPEC §19).

``add_parsers(sub)`` registers it on the ``scorekit`` sub-parsers object. The
page is :func:`scorekit.reports.view.write_view`'s; this handler only writes
it (and with ``--serve`` serves it on 127.0.0.1 until interrupted). Exit codes
(SPEC §14): 0 written (Ctrl-C ending ``--serve`` included); 2 could not run —
a missing or invalid scorecard, one whose derived numbers disagree with its
counts (named by field, SPEC §20), an unwritable output. Handlers raise
``ScorekitError``; ``scorekit.cli.main`` prints one line and exits 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._errors import ScorekitError
from ._terminal import terminal_text as _t

__all__ = ["add_parsers"]

EXIT_OK = 0


def _cmd_view(args: argparse.Namespace) -> int:
    from .reports.view import serve_view, write_view

    try:
        path = write_view(args.scorecard, args.other, out=args.out)
    except OSError as exc:
        raise ScorekitError(f"{args.out or args.scorecard}: cannot write the page ({exc.strerror or exc})") from None
    print(f"wrote {_t(path)}", flush=True)
    if args.serve:
        serve_view(path, announce=lambda url: print(f"serving {url} (Ctrl-C to stop)", flush=True))
    return EXIT_OK


def add_parsers(sub: Any) -> None:
    """Register ``view`` on ``sub`` (the ``scorekit`` sub-parsers object)."""
    view = sub.add_parser(
        "view",
        help="write one self-contained interactive page (view.html) over a scorecard and its evidence rows",
        description="Write view.html: the decision, a sortable dimension table, per dimension a case x trial "
                    "grid coloured by status with filters (status, reason, text), a case's rows on click and, "
                    "given OTHER, the comparison with the cases that fell or rose. One file, no external URL, "
                    "works from file://. The scorecard is checked first (its derived numbers recomputed). "
                    "Exit 0 when written; 2 when it could not run.",
    )
    view.add_argument("scorecard", metavar="DIR|scorecard.json",
                      help="a scorecard.json, or the folder holding it (its evidence rows are read from beside it)")
    view.add_argument("other", nargs="?", metavar="OTHER",
                      help="a second scorecard (or its folder) to compare with: the baseline A; the first is B")
    view.add_argument("--out", metavar="FILE", help="where to write the page (default: view.html beside the scorecard)")
    view.add_argument("--serve", action="store_true",
                      help="then serve the page on 127.0.0.1 on a free port until interrupted (prints the URL)")
    view.set_defaults(handler=_cmd_view)
