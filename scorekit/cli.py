"""``scorekit`` command line: each sub-command is a few lines calling the library.

Exit codes (SPEC §14): 0 ok; 1 the evidence says no; 2 the command could not
run (bad arguments, unreadable input). A user's mistake is a one-line message
on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from . import _cli_evidence, _cli_import, _cli_release, _cli_render, _cli_view
from . import _cli_types as types
from ._errors import ScorekitError
from ._evidence import EVIDENCE_ROWS_IN_MEMORY
from ._terminal import terminal_text as _t
from ._version import __version__

if TYPE_CHECKING:
    from ._policy import Policy
    from .reports import RenderedReports
    from .reports._sections import Sections

EXIT_OK, EXIT_NO, EXIT_CANNOT_RUN = 0, 1, 2


# --------------------------------------------------------------------------- commands
def _cmd_demo(args: argparse.Namespace) -> int:
    """Render the release notebook on the bundled example; print its decision and table."""
    from ._errors import InputError
    from ._examples import example_path
    from .render import render_notebook
    from .reports._sections import build_sections
    from .reports.text import demo_text
    from .signing import read_json_strict

    results = example_path("email_assistant", "results.jsonl")
    out_dir = Path(args.out_dir)  # render_notebook creates it
    print(f"scorekit {__version__} demo — rendering the release notebook on the bundled example "
          f"{results.parent.name} into {_t(out_dir)}", flush=True)
    rendered = render_notebook(results, example_path("email_assistant", "policy.yml"), agent_name="email-assistant",
                               agent_version="demo", out_dir=out_dir, progress=sys.stdout.isatty())
    # Everything printed below is read from the scorecard.json the notebook wrote.
    data = read_json_strict(rendered.reports["json"], "scorecard", InputError)
    print()
    print(demo_text(build_sections(data)))
    print(f"\nreport: {_t(rendered.html)}")
    for path in (rendered.markdown, rendered.notebook, *rendered.reports.values(),
                 rendered.out_dir / "rates.svg", rendered.out_dir / "pass_k.svg"):
        print(f"wrote {_t(path)}")
    return EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from ._evaluate import evaluate
    from ._progress import progress_on_a_terminal
    from .reports import render_reports
    from .reports.text import run_text

    if args.pin and (args.history is None or args.label is None):
        raise ScorekitError("--pin pins this run's history record: give --history DB and --label L too")
    if args.mlflow is not None:  # before the evaluation: a missing extra is said at once
        from .tracking import require_mlflow

        require_mlflow()
    with progress_on_a_terminal():
        results, agent = _cli_import.results_for(args)  # --from: one imported run (SPEC §15)
        card = evaluate(
            results,
            policy=args.policy,
            agent_name=args.agent_name,
            agent_version=args.agent_version,
            agent=agent,
            limit=args.limit,
            history=args.history,
            label=args.label,
            baseline=args.baseline,
            engine=args.engine,
            scheduler=args.scheduler,
            evidence_rows_in_memory=args.evidence_rows_in_memory,
            source=_cli_import.source_beside(args),  # scorekit import's source.json (SPEC §15)
        )
    reports = render_reports(card)  # the reports and the lines below show the same sections
    written = _write(reports, args.out_dir)
    if args.junit:
        written["junit"] = _write_junit(reports.sections, args.junit)
    print(run_text(reports.sections))
    if args.gate:
        from ._ci import append_step_summary, gate_annotations

        append_step_summary(reports.sections)
        for line in gate_annotations(reports.sections):
            print(line)
    for path in written.values():
        print(f"wrote {_t(path)}")
    if args.pin:
        _pin_run(args.history, args.label)
    if args.mlflow is not None:
        run_id = card.log_mlflow(args.mlflow or None)
        print(f"logged to MLflow run {_t(run_id)}")
    if args.gate and not card.overall_pass:
        print(f"gate: not passed (decision {card.decision})", file=sys.stderr)
        return EXIT_NO
    return EXIT_OK


def _pin_run(db: str, label: str) -> None:
    """``run --pin``: pin the record just written when it is eligible; else say why not (the run's exit
    code stays its own)."""
    from . import history
    from ._errors import InputError

    try:
        record_id = history.pin(db, label)
    except InputError as exc:  # not eligible as a baseline: a FAIL, a regressed run
        print(f"scorekit run: not pinned: {_t(exc)}", file=sys.stderr)
        return
    print(f"pinned record {record_id} (label {_t(repr(label))}) in {_t(db)}: the default baseline of the runs "
          "comparable with it")


def _write(reports: RenderedReports, out_dir: str) -> dict[str, Path]:
    try:
        return reports.write(out_dir)
    except OSError as exc:
        raise ScorekitError(f"{out_dir}: cannot write the reports ({exc.strerror or exc})") from None


def _write_junit(sections: Sections, path: str) -> Path:
    from .reports.junit import write_junit

    try:
        return write_junit(sections, path)
    except OSError as exc:
        raise ScorekitError(f"{path}: cannot write the JUnit report ({exc.strerror or exc})") from None


def _cmd_report(args: argparse.Namespace) -> int:
    """Re-render the Markdown and HTML reports of a stored scorecard.json (SPEC §17)."""
    from .reports import render_stored

    try:
        written = render_stored(args.scorecard, args.out_dir)
    except OSError as exc:
        raise ScorekitError(f"{args.out_dir or args.scorecard}: cannot write the reports "
                            f"({exc.strerror or exc})") from None
    for path in written.values():
        print(f"wrote {_t(path)}")
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    """Two evaluations side by side (SPEC §17): print the table, write compare.html and compare.md."""
    from ._compare import compare
    from .reports.compare import compare_sections, compare_text, write_compare

    sections = compare_sections(compare(args.a, args.b, history=args.history))
    try:
        written = write_compare(sections, args.out_dir)
    except OSError as exc:
        raise ScorekitError(f"{args.out_dir}: cannot write the comparison ({exc.strerror or exc})") from None
    print(compare_text(sections))
    for path in written.values():
        print(f"wrote {_t(path)}")
    return EXIT_OK


def _cmd_plan(args: argparse.Namespace) -> int:
    """Power planning (SPEC §6, §18): the cases a drop needs, or the drop a number of cases can detect.

    Also prints the threshold assurance such a suite gives: the probability that
    a dimension measuring the stated rate truly meets a threshold one drop below it.
    """
    from ._stats import cases_needed, minimum_detectable_drop, one_sided_alpha

    alpha = one_sided_alpha(0.95) if args.alpha is None else args.alpha
    if not 0 < alpha < 0.5:  # a one-sided level: 0.5 and above detect nothing (z ≤ 0)
        raise ScorekitError(f"alpha must be a one-sided level in (0, 0.5) ((1 - confidence)/2: 0.025 at 95%); "
                            f"got {alpha!r}")
    options = {"trials": args.trials, "icc": args.icc, "alpha": alpha, "power": args.power}
    setting = (f"rate {100 * args.rate:.1f}%, {args.trials} trial(s) per case, icc {args.icc:g}, "
               f"one-sided alpha {alpha:g}, power {100 * args.power:g}%")
    try:
        if args.drop is not None:
            drop, cases = args.drop, int(cases_needed(args.rate, args.drop, **options))
            print(f"{cases:,} cases detect a drop of {100 * drop:.1f} points ({setting})")
        else:
            drop, cases = float(minimum_detectable_drop(args.rate, args.cases, **options)), args.cases
            print(f"{cases:,} cases can detect a drop of {100 * drop:.1f} points or more ({setting})")
    except (TypeError, ValueError) as exc:
        raise ScorekitError(str(exc)) from None
    print(_plan_assurance(args.rate, drop, cases, args.trials, args.icc))
    return EXIT_OK


def _probability_text(p: float) -> str:
    """A probability as a percentage that never rounds up to certainty ("over 99.9%")."""
    return "over 99.9%" if p >= 0.9995 and p < 1.0 else f"{100 * p:.1f}%"


def _plan_assurance(rate: float, drop: float, cases: int, trials: int, icc: float) -> str:
    """What ``plan`` says about threshold assurance (SPEC §18) at the planned size.

    N = cases·trials trials measuring ``rate``, design effect
    1 + (trials − 1)·icc: the probability that the true rate meets
    ``rate − drop``, and (for contrast) a threshold equal to the rate itself.
    """
    from ._stats import jeffreys_assurance

    size = f"{cases:,} cases" + (f" × {trials} trials" if trials > 1 else "")
    threshold = rate - drop
    effective = cases * trials / (1.0 + (trials - 1) * icc)
    passes = rate * effective
    at_rate = _probability_text(float(jeffreys_assurance(passes, effective, rate)))
    contrast = (f"a threshold equal to the measured rate is met with probability {at_rate} "
                "(a PASS on the point estimate at its threshold is close to a coin flip)")
    if threshold <= 0:
        return f"a dimension measuring {100 * rate:.1f}% over {size}: the drop reaches 0%\n{contrast}"
    meets = _probability_text(float(jeffreys_assurance(passes, effective, threshold)))
    return (f"a dimension measuring {100 * rate:.1f}% over {size} meets a threshold of {100 * threshold:.1f}% "
            f"(that rate less the drop) with probability {meets} (threshold assurance, SPEC §18)\n{contrast}")


_HISTORY_ACTIONS = ("pin", "unpin")


def _cmd_history(args: argparse.Namespace) -> int:
    """``history [DB] [--plot FILE]`` lists (and draws) the records; ``history pin|unpin DB LABEL`` pins."""
    from . import history
    from .reports._sections import history_sections
    from .reports.text import history_text

    if args.db in _HISTORY_ACTIONS and (args.more or not Path(args.db).exists()):
        return _history_pin(args)
    if args.more:
        raise ScorekitError(f"unexpected argument {_t(repr(args.more[0]))} after DB (to pin: scorekit history pin DB "
                            "LABEL)")
    records = history.read_history(args.db)
    dimensions = history.read_history(args.db, dimensions=True) if len(records) else None
    print(history_text(history_sections(records, dimensions)))  # every value escaped for the terminal
    if args.plot:
        if not len(records):
            raise ScorekitError(f"{args.db}: no records to plot")
        from .plots import plot_trend, save_figure

        try:
            save_figure(plot_trend(records, dimensions), args.plot)
        except (OSError, ValueError) as exc:  # matplotlib: unknown format suffix, unwritable path
            raise ScorekitError(f"{args.plot}: cannot write the trend ({getattr(exc, 'strerror', None) or exc})") \
                from None
        print(f"wrote {_t(args.plot)}")
    return EXIT_OK


def _history_pin(args: argparse.Namespace) -> int:
    """``history pin DB LABEL`` / ``history unpin DB LABEL``: one line saying which record is (un)pinned."""
    from . import history

    action = args.db
    if len(args.more) != 2:
        raise ScorekitError(f"{action} takes DB and LABEL: scorekit history {action} DB LABEL")
    if args.plot:
        raise ScorekitError(f"--plot draws the listing; it does not go with history {action}")
    db, label = args.more
    records = history.read_history(db)  # every record checked before one is changed (SPEC §20)
    if action == "unpin":
        ids = history.unpin(db, label)
        print(f"unpinned {'record' if len(ids) == 1 else 'records'} {', '.join(map(str, ids))} "
              f"(label {_t(repr(label))}) in {_t(db)}")
        return EXIT_OK
    record_id = history.pin(db, label)
    row = records.loc[record_id] if record_id in records.index else None
    named = [] if row is None else [str(v) for v in (row["agent_name"], row["agent_version"]) if isinstance(v, str)]
    agent = f", agent {_t(' '.join(named))}" if named else ("" if row is None else ", agent not named")
    print(f"pinned record {record_id} (label {_t(repr(label))}{agent}) in {_t(db)}: the default baseline of the "
          "runs comparable with it")
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from ._policy import load_policy

    policy = load_policy(args.policy)
    files: list[str] = args.results
    if len(files) == 1:
        return _validate_one(argparse.Namespace(**{**vars(args), "results": files[0]}), policy)
    return _each_file(args.command, files,
                      lambda name: _validate_one(argparse.Namespace(**{**vars(args), "results": name}), policy))


def _validate_one(args: argparse.Namespace, policy: Policy) -> int:
    from ._evaluate import evaluate
    from .reports._sections import build_sections
    from .reports.text import validation_text

    results, agent = _cli_import.results_for(args)
    card = evaluate(results, policy=policy, agent=agent)
    v = card.validation
    strict = args.strict or policy.strict
    print(validation_text(build_sections(card.to_dict(), evidence_rows=card.evidence_rows), args.results,
                          strict=strict))
    if v.invalid or (strict and v.unlabeled):
        return EXIT_NO
    return EXIT_OK


def _each_file(command: str, files: Sequence[str], check: Callable[[str], int]) -> int:
    """Run ``check`` on every file (as a pre-commit hook passes them, SPEC §19); the exit code is the worst.

    A file that cannot be read or parsed is its one line on stderr (as :func:`main` writes it) and exit 2
    for that file; the others are still checked.
    """
    worst = EXIT_OK
    for name in files:
        try:
            code = check(name)
        except ScorekitError as exc:
            message = _t(exc) if str(exc) else type(exc).__name__
            print(f"scorekit {command}: {message}", file=sys.stderr)
            code = EXIT_CANNOT_RUN
        worst = max(worst, code)
    return worst


def _cmd_policy_lint(args: argparse.Namespace) -> int:
    from ._policy import load_policy

    def check(name: str) -> int:
        load_policy(name)  # a bad policy: PolicyError naming the file and the dotted key (exit 2)
        print(f"{_t(name)}: ok")
        return EXIT_OK

    return _each_file(args.command, args.policies, check)


# --------------------------------------------------------------------------- parser
def _build_kind() -> str:
    """Whether the optional C helper runs (pip hides the build's warning)."""
    from ._accel import describe

    return describe()


_EPILOG = """\
exit codes:
  0  ok (the gate passed, the signature verified, the rows are valid)
  1  the evidence says no: gate not passed, verification failed, invalid rows
     found by validate; gate, carry-forward, refresh-check and release-lint
     also for a missing, unreadable or invalid SCORECARD.md
  2  the command could not run: bad arguments, an unreadable input file, a bad
     policy, a notebook cell that raised (one line naming file, line, field)

examples:
  scorekit run --results results.jsonl --policy policy.yml --out-dir reports --gate
  scorekit gate --scorecard SCORECARD.md --baseline-ref origin/main --min-aggregate 80

Run "scorekit COMMAND --help" for the options of a command.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with its error line escaped: "unrecognized arguments: ..." repeats the user's words as given."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_CANNOT_RUN, f"{self.prog}: error: {_t(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    # argparse itself exits 2 with a usage line and one error line: SPEC §14's "could not run".
    # Sub-parsers are of the same class (add_subparsers' default parser_class).
    parser = _Parser(
        prog="scorekit",
        description="Turn captured AI-agent evaluation results into release evidence.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__} ({_build_kind()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser("demo", help="render the release notebook on the bundled example evaluation")
    demo.add_argument("--out-dir", default="reports/demo", help="where to write the report (default: reports/demo)")
    demo.set_defaults(handler=_cmd_demo)

    run = sub.add_parser("run", help="score a results file and decide (writes scorecard.json)")
    run.add_argument("--results", required=True, metavar="F", help="results file (JSONL, JSON array, CSV or Parquet)")
    run.add_argument("--policy", metavar="P", help="policy file (YAML or JSON); default: release defaults")
    run.add_argument("--out-dir", default="reports", metavar="D", help="where to write the reports (default: reports)")
    run.add_argument("--gate", action="store_true",
                     help="exit 1 unless the decision is PASS; print ::error:: per failing dimension and append "
                          "the summary to $GITHUB_STEP_SUMMARY when set")
    run.add_argument("--junit", metavar="FILE",
                     help="also write JUnit XML: one test case per dimension in scope "
                          "(FAIL: failure, INCOMPLETE: error)")
    run.add_argument("--agent-name", metavar="N", help="name of the agent measured (recorded in the scorecard)")
    run.add_argument("--agent-version", metavar="V", help="version of the agent measured (recorded in the scorecard)")
    run.add_argument("--agent", metavar="NAME",
                     help="evaluate only the rows whose agent field is NAME (rows of several agents need it)")
    run.add_argument(
        "--limit", type=types.positive_int, metavar="N", help="score only the first N rows (a partial scan: TRIAGE)"
    )
    run.add_argument("--history", nargs="?", const="reports/history.sqlite", default=None, metavar="DB",
                     help="compare with and record into this SQLite history (default DB: reports/history.sqlite)")
    run.add_argument("--engine", choices=("pandas", "dask", "duckdb"), default="pandas",
                     help="where rows are scored: pandas (in process and local workers; default), dask (a cluster; "
                          "pip install scorekit[dask]) or duckdb (pre-scored rows in Parquet, CSV or "
                          "JSON Lines; pip install scorekit[duckdb])")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="dask scheduler address for --engine dask (default: a local cluster)")
    run.add_argument("--evidence-rows-in-memory", type=types.count, default=EVIDENCE_ROWS_IN_MEMORY, metavar="N",
                     help="above N scored rows the evidence is written as an evidence/ Parquet dataset instead of "
                          f"evidence.parquet and not held in memory (default: {EVIDENCE_ROWS_IN_MEMORY:,})")
    run.add_argument("--label", metavar="L", help="label of this run's history record")
    run.add_argument("--baseline", metavar="L",
                     help="compare with the latest history record labelled L (default: the latest pinned "
                          "comparable eligible record, else the earliest one; never simply the latest)")
    run.add_argument("--pin", action="store_true",
                     help="pin this run's history record (with --history and --label) as the default baseline, "
                          "when it is eligible (a FAIL or a regressed run is not pinned: the run says why)")
    run.add_argument("--mlflow", nargs="?", const="", default=None, metavar="RUN_ID",
                     help="log the scorecard (metrics per dimension, params, tags, the report files) to MLflow: "
                          "into the run RUN_ID, or a new run of the active experiment (MLFLOW_TRACKING_URI, "
                          "MLFLOW_EXPERIMENT_NAME); pip install scorekit[mlflow]")
    run.set_defaults(handler=_cmd_run)

    plan = sub.add_parser("plan", help="how many cases a release decision needs (power, SPEC §6)",
                          description="Plan an evaluation's size: the cases needed to detect a drop of the pass rate, "
                                      "or the smallest drop a number of cases can detect (one-sided normal "
                                      "approximation, Miller 2024).")
    plan.add_argument("--rate", type=float, required=True, metavar="R", help="the expected pass rate, in (0, 1)")
    size = plan.add_mutually_exclusive_group(required=True)
    size.add_argument(
        "--drop", type=float, metavar="D", help="the drop to detect (0.05 = 5 points): prints the cases needed"
    )
    size.add_argument(
        "--cases", type=types.positive_int, metavar="N", help="the cases measured: prints the smallest detectable drop"
    )
    plan.add_argument("--trials", type=types.positive_int, default=1, metavar="T", help="trials per case (default 1)")
    plan.add_argument("--icc", type=float, default=0.0, metavar="I",
                      help="correlation of trials within a case, in [0, 1] (default 0)")
    plan.add_argument(
        "--alpha", type=float, default=None, metavar="A",
        help="one-sided significance level (default 0.025: the gate's own level, (1 - confidence)/2 at its "
             "default confidence 0.95, so the drop is the one its regression test catches with that power)",
    )
    plan.add_argument("--power", type=float, default=0.8, metavar="P", help="power, in (0, 1) (default 0.8)")
    plan.set_defaults(handler=_cmd_plan)

    report = sub.add_parser("report", help="re-render the reports of a stored scorecard.json",
                            description="Re-render scorecard.md and scorecard.html from a stored scorecard.json "
                                        "(checked against the shipped schema first). The numbers are the stored "
                                        "scorecard's; evidence.parquet is left as it is.")
    report.add_argument("scorecard", metavar="SCORECARD_JSON", help="a scorecard.json written by scorekit")
    report.add_argument("--out-dir", metavar="D", help="where to write the reports (default: beside the scorecard)")
    report.set_defaults(handler=_cmd_report)

    comp = sub.add_parser("compare", help="two evaluations side by side, per dimension",
                          description="Compare evaluation B with evaluation A per dimension: both rates with their "
                                      "Wilson intervals, the difference (B - A) with its interval, the one-sided "
                                      "test of a drop (paired t where both sides hold per-case counts, else "
                                      "Newcombe from the clustered intervals), Holm-adjusted across the "
                                      "dimensions compared, the cases that fell or rose, and the verdict change "
                                      "(SPEC §18). Prints the table and writes compare.html and compare.md. "
                                      "Exit 0.")
    comp.add_argument("a", metavar="A", help="scorecard.json of the first evaluation (with --history: a label)")
    comp.add_argument("b", metavar="B", help="scorecard.json of the second evaluation (with --history: a label)")
    comp.add_argument("--history", metavar="DB", help="read A and B as labels of this history database")
    comp.add_argument("--out-dir", default=".", metavar="D",
                      help="where to write compare.html and compare.md (default: the current folder)")
    comp.set_defaults(handler=_cmd_compare)

    hist = sub.add_parser(
        "history", help="list the evaluations recorded in a history database; pin a release as the baseline",
        usage="scorekit history [DB] [--plot FILE.png]\n       scorekit history pin DB LABEL\n"
              "       scorekit history unpin DB LABEL",
        description="List the records of a history database (and draw their trend), or pin the latest record "
                    "labelled LABEL: without --baseline, a run compares with the latest pinned comparable "
                    "eligible record, else the earliest one, never simply the latest (SPEC §10). Only an "
                    "eligible record (decision PASS, comparison not regressed; or a first run measured PASS) "
                    "can be pinned; older pins are kept and the latest pin wins. unpin removes the pins of "
                    "LABEL. Exit 2 when the database or the label does not exist or the record is not eligible.")
    hist.add_argument("db", nargs="?", default="reports/history.sqlite", metavar="DB",
                      help="the SQLite history (default: reports/history.sqlite)")
    hist.add_argument("more", nargs="*", help=argparse.SUPPRESS)  # pin|unpin DB LABEL: DB is then "pin"
    hist.add_argument("--plot", metavar="FILE.png",
                      help="also draw each dimension's rate with its interval across the recorded versions "
                           "of the newest record's suite and policy (format from the suffix: png, svg, pdf)")
    hist.set_defaults(handler=_cmd_history)

    validate = sub.add_parser("validate", help="classify rows as labeled / unlabeled / invalid")
    validate.add_argument("results", metavar="F", nargs="+",
                          help="results file (JSONL, JSON array, CSV or Parquet); several are validated one by one "
                               "(as a pre-commit hook passes them) and the exit code is the worst")
    validate.add_argument("--policy", metavar="P", help="policy file (YAML or JSON); default: release defaults")
    validate.add_argument(
        "--strict", action="store_true", help="unlabeled rows also fail (always on under purpose: release)"
    )
    validate.add_argument("--agent", metavar="NAME", help="validate only the rows whose agent field is NAME")
    validate.set_defaults(handler=_cmd_validate)

    policy_lint = sub.add_parser(
        "policy-lint",
        help="check policy files: parse them and check every key (SPEC §7)",
        description="Read each policy file as `run` and `validate` read it (YAML or JSON; unknown keys, wrong types "
                    "and out-of-range values are errors). A bad policy is one line naming the file and the key, "
                    "and exit 2; the exit code is the worst of the files.",
    )
    policy_lint.add_argument("policies", metavar="P", nargs="+", help="policy file (.yml, .yaml or .json)")
    policy_lint.set_defaults(handler=_cmd_policy_lint)

    _cli_evidence.add_parsers(sub)  # keygen, sign, verify, attest (SPEC §11) and run --sign
    _cli_release.add_parsers(sub)  # gate, carry-forward, refresh-check, release-lint (SPEC §13)
    _cli_render.add_parsers(sub)  # render: papermill + nbconvert (SPEC §12, §14)
    _cli_import.add_parsers(sub)  # import, run/validate --from (SPEC §15)
    _cli_view.add_parsers(sub)  # view: one interactive page over a scorecard (SPEC §19)
    return parser




def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except ScorekitError as exc:
        message = _t(exc) if str(exc) else type(exc).__name__  # one line: line breaks are shown as \n
        print(f"scorekit {args.command}: {message}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        print("scorekit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into e.g. `head`, which stopped reading: not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


# Commands that end holding large structures (100,000 scored rows) and nothing
# that needs tearing down (no child process, open file or database): the
# console script leaves at once after flushing its output, instead of spending
# a tenth of a second freeing memory the system reclaims anyway.
_FAST_EXIT_COMMANDS = frozenset({"run", "validate"})


def console() -> None:
    """The ``scorekit`` console script (and ``python -m scorekit``): :func:`main`, then exit."""
    argv = sys.argv[1:]
    code = main(argv)
    if not argv or argv[0] not in _FAST_EXIT_COMMANDS:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that went away (`| head`): not an error of ours
        pass
    except (OSError, ValueError) as exc:  # a full disk, a file-size limit, a closed stream
        print(f"scorekit {argv[0]}: cannot write the output: {exc}", file=sys.stderr)
        code = EXIT_CANNOT_RUN
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    console()
