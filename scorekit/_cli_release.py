"""CLI sub-commands for the release scorecard (SPEC §13): gate, carry-forward, refresh-check, release-lint.

``add_parsers(sub)`` registers them on the ``scorekit`` sub-parsers object.
Each handler is a front door: the rules live in ``scorekit.release``.

Exit codes follow SPEC §13 here, not the general §14 rule: a missing,
unreadable or invalid ``SCORECARD.md`` is exit 1 (the evidence says no), as in
the source document — so handlers turn the release errors into a one-line
message and 1 instead of letting ``scorekit.cli.main`` map them to 2. Bad
arguments stay exit 2 (argparse's own usage error, or a malformed thresholds
manifest); ``--help`` exits 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import _cli_types as types
from ._errors import ScorekitError
from ._terminal import annotation_line
from ._terminal import terminal_text as _t

__all__ = ["add_parsers"]

EXIT_OK, EXIT_NO = 0, 1


def _say(command: str, message: str) -> None:
    print(f"scorekit {command}: {_t(message)}", file=sys.stderr)


def _print_report(lines: tuple[str, ...] | list[str]) -> None:
    """A release report: scorekit's annotations (lines starting ``::``) with their data escaped as GitHub
    requires, every other line as user text (a card's agent name cannot start a command line)."""
    for line in lines:
        print(annotation_line(line) if line.startswith("::") else _t(line))


def _check_rebaseline(args: argparse.Namespace) -> str | None:
    """The rebaseline reason, or an argparse error (exit 2) when the pair is incomplete."""
    if args.rebaseline and args.reason is None:
        args.subparser.error("--rebaseline requires --reason TEXT (say why the basis change is deliberate)")
    if args.reason is not None and not args.rebaseline:
        args.subparser.error("--reason is only meaningful with --rebaseline")
    return args.reason if args.rebaseline else None


# --------------------------------------------------------------------------- commands
def _cmd_gate(args: argparse.Namespace) -> int:
    from .release._gate import gate

    reason = _check_rebaseline(args)
    min_metrics: dict[str, float] = {}
    for name, value in args.min_metric or []:
        if name in min_metrics:
            args.subparser.error(f"--min-metric: {name} given twice")
        min_metrics[name] = value
    if args.min_urgent_recall is not None:
        if "urgent_recall" in min_metrics:
            args.subparser.error("--min-urgent-recall and --min-metric urgent_recall=... both given; use one")
        min_metrics["urgent_recall"] = args.min_urgent_recall
    result = gate(
        args.scorecard,
        baseline_file=args.baseline_file,
        baseline_ref=args.baseline_ref,
        min_aggregate=args.min_aggregate,
        min_metrics=min_metrics or None,
        regression_k=args.regression_k,
        allow_regression=args.allow_regression,
        variance_metric=args.variance_metric,
        rebaseline_reason=reason,
        thresholds=args.thresholds,
        require_ctx_match=args.require_ctx_match,
        expected_version=args.expected_version,
    )
    _print_report(result.lines)
    if not result.passed:
        first_error = next(a for a in result.annotations if a.startswith("::error::"))
        _say("gate", f"not passed: {first_error.removeprefix('::error::')}")
    return result.exit_code


def _cmd_carry_forward(args: argparse.Namespace) -> int:
    from .release import ScorecardFileError, ScorecardInvalidError, carry_forward, write_scorecard

    try:
        payload = carry_forward(args.scorecard, args.version)
    except (ScorecardFileError, ScorecardInvalidError) as exc:
        _say("carry-forward", str(exc))
        return EXIT_NO
    except ValueError as exc:  # a minor/major bump, the same or a lower version: re-run instead
        _say("carry-forward", f"{args.scorecard}: {exc}")
        return EXIT_NO
    out = args.out if args.out is not None else args.scorecard
    try:
        written = write_scorecard(payload, out)
    except ScorecardInvalidError as exc:  # fail closed: an invalid card is never written
        _say("carry-forward", str(exc))
        return EXIT_NO
    except OSError as exc:
        raise ScorekitError(f"{out}: cannot write the scorecard ({exc.strerror or exc})") from None
    print(_t(f"carried forward {payload.agent_name} v{payload.inherited_from} -> v{payload.agent_version} "
             f"(measured on v{payload.measured_version}, aggregate {payload.aggregate_value} unchanged)"))
    print(f"wrote {_t(written)}")
    return EXIT_OK


def _cmd_release_lint(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .release._lint import lint_doc_root

    if (args.doc_root is None) == (not args.scorecards):
        args.subparser.error("give either --doc-root DIR or SCORECARD.md files (as a pre-commit hook passes them)")
    roots = [args.doc_root] if args.doc_root is not None else []
    for name in args.scorecards:
        if Path(name).name != "SCORECARD.md":
            args.subparser.error(f"{name}: release-lint checks the SCORECARD.md of a doc root; name that file")
        root = str(Path(name).parent)
        if root not in roots:
            roots.append(root)
    worst = EXIT_OK
    for root in roots:  # the exit code is the worst of the doc roots
        problems = lint_doc_root(root)
        for problem in problems:
            print(_t(problem))
        if problems:
            _say("release-lint", f"{root}: {len(problems)} problem{'s' if len(problems) > 1 else ''}")
            worst = EXIT_NO
        else:
            print(f"{_t(root)}: SCORECARD.md, README.md link and aggregate, package.json files: ok")
    return worst


def _cmd_refresh_check(args: argparse.Namespace) -> int:
    from .release._refresh import refresh_check

    result = refresh_check(
        args.scorecard,
        limit=args.limit,
        experiments=args.experiments,
        ctx_size=args.ctx_size,
        model=args.model,
        dataset_reference=args.dataset_reference,
        dataset_size=args.dataset_size,
        full_limit=args.full_limit,
        rebaseline_reason=_check_rebaseline(args),
    )
    _print_report(result.lines)
    if result.exit_code:
        _say("refresh-check", f"{result.status_line}: {result.problems[0]}")
    return result.exit_code


def _add_rebaseline(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--rebaseline", action="store_true", help=f"accept {what} deliberately (needs --reason)")
    parser.add_argument("--reason", type=types.text, metavar="TEXT", help="why the rebaseline is deliberate (reported)")


# --------------------------------------------------------------------------- parsers
def add_parsers(sub: Any) -> None:
    """Register ``gate``, ``carry-forward``, ``refresh-check`` and ``release-lint`` on ``sub``.

    ``sub`` is the object ``ArgumentParser.add_subparsers`` returned.
    """
    gate = sub.add_parser(
        "gate",
        help="release gate for SCORECARD.md: presence, bars, basis, regression (exit 0 pass, 1 blocked)",
        description="Exit 1 for a missing or invalid candidate or baseline, a candidate that is not for "
        "--expected-version or records no ctx_size under --require-ctx-match, a bar or floor not met, "
        "a mistyped --baseline-ref, a basis difference (without --rebaseline) or a regression beyond "
        "the noise band; exit 0 for a first adoption (no baseline, or no file at an existing ref), an equal, "
        "improved or within-band score, or an allowed regression. Prints GitHub Actions annotations.",
    )
    gate.add_argument("--scorecard", required=True, metavar="PATH", help="the candidate SCORECARD.md")
    baseline = gate.add_mutually_exclusive_group()
    baseline.add_argument("--baseline-file", metavar="F", help="the prior release's SCORECARD.md (must exist)")
    baseline.add_argument("--baseline-ref", metavar="REF",
                          help="git ref of the prior release; the baseline is the candidate's path at REF "
                               "(no file there: first adoption; no such ref: error)")
    gate.add_argument("--min-aggregate", type=types.percentage, metavar="N",
                      help="absolute bar on aggregate.value, 0-100 scale (80 is the 80%% bar)")
    gate.add_argument("--min-urgent-recall", type=types.fraction, metavar="R",
                      help="floor on the urgent_recall metric, [0, 1]; fails if the metric is absent")
    gate.add_argument("--min-metric", type=types.metric_floor, action="append", metavar="NAME=VALUE",
                      help="floor on any metric, [0, 1] scale; repeatable; fails if the metric is absent")
    gate.add_argument("--regression-k", type=types.non_negative, default=1.0, metavar="K",
                      help="noise band width in recorded stdevs (default 1)")
    gate.add_argument("--variance-metric", metavar="NAME",
                      help="metric whose acceptance_variance stdev sets the band (default: the weight > 0 metric)")
    gate.add_argument("--allow-regression", action="store_true",
                      help="let a regression pass with a ::warning:: naming both versions and scores")
    gate.add_argument("--thresholds", metavar="FILE",
                      help="thresholds manifest (JSON/YAML: acceptance_target, urgent_recall_floor, "
                           "acceptance_enforce, require_ctx_match); explicit flags override it")
    gate.add_argument("--require-ctx-match", action="store_true",
                      help="fail a candidate that records no ctx_size (recipe.environment or recipe.config)")
    gate.add_argument("--expected-version", type=types.semver, metavar="X.Y.Z",
                      help="fail unless the candidate's agent.version is X.Y.Z; warn when its results were "
                           "measured on another release")
    _add_rebaseline(gate, "a basis difference (ctx_size, model, dataset reference/size, limit)")
    gate.set_defaults(handler=_cmd_gate, subparser=gate)

    carry = sub.add_parser(
        "carry-forward",
        help="carry a patch release's scorecard forward (in place unless --out)",
        description="Patch releases only: the new patch must be greater; a minor or major bump needs a re-run "
                    "(exit 1).",
    )
    carry.add_argument("--scorecard", required=True, metavar="PATH", help="the current SCORECARD.md")
    carry.add_argument("--version", required=True, type=types.semver, metavar="X.Y.Z", help="the new patch version")
    carry.add_argument("--out", metavar="P", help="write here instead of rewriting PATH in place")
    carry.set_defaults(handler=_cmd_carry_forward, subparser=carry)

    refresh = sub.add_parser(
        "refresh-check",
        help="say whether a planned eval run is a full profile (may commit) or a subset smoke run (never commits)",
        description="Prints 'profile=<full|subset|unknown> commit=<allowed|never|blocked>' first. Exit 1 when a "
                    "full run's basis differs from the committed card's or it plans fewer experiments than the "
                    "committed n_runs (unless --rebaseline --reason), or the committed card is unusable.",
    )
    refresh.add_argument("--scorecard", required=True, metavar="PATH", help="the committed SCORECARD.md")
    refresh.add_argument("--limit", required=True, type=types.positive_int, metavar="N", help="the run's --limit")
    refresh.add_argument("--experiments", required=True, type=types.positive_int, metavar="N",
                         help="the run's number of repeated runs")
    refresh.add_argument("--ctx-size", type=types.positive_int, metavar="N", help="the run's context size")
    refresh.add_argument("--model", type=types.text, metavar="M", help="the run's model")
    refresh.add_argument("--dataset-reference", type=types.text, metavar="R", help="the run's dataset reference")
    refresh.add_argument("--dataset-size", type=types.positive_int, metavar="N", help="the run's dataset size")
    refresh.add_argument("--full-limit", type=types.positive_int, metavar="N",
                         help="limit from which a run is full (default: the dataset size)")
    _add_rebaseline(refresh, "a basis difference or fewer experiments")
    refresh.set_defaults(handler=_cmd_refresh_check, subparser=refresh)

    lint = sub.add_parser(
        "release-lint",
        help="check the scorecard storage convention in an agent's doc root",
        description="SCORECARD.md present and valid; README.md links ./SCORECARD.md or the file's URL pinned to "
                    "the release's tag (v1.4.0 or 1.4.0, optionally after a prefix such as agent-pkg-email-; no "
                    "URL of it pinned to a branch or another tag) and any aggregate it quotes equals the card's; "
                    "package.json (if any) lists SCORECARD.md in files; no scorecards/ folder.",
    )
    lint.add_argument("--doc-root", metavar="DIR", help="folder of the agent's canonical README")
    lint.add_argument("scorecards", nargs="*", metavar="SCORECARD.md",
                      help="instead of --doc-root: SCORECARD.md files, each checked in its folder as the doc root "
                           "(as a pre-commit hook passes them); the exit code is the worst")
    lint.set_defaults(handler=_cmd_release_lint, subparser=lint)
