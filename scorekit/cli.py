"""``scorekit`` command line: each sub-command is a few lines calling the library.

Exit codes (SPEC §14): 0 ok; 1 the evidence says no; 2 the command could not
run (bad arguments, unreadable input). A user's mistake is a one-line message
on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

from ._errors import ScorekitError
from ._version import __version__

EXIT_OK, EXIT_NO, EXIT_CANNOT_RUN = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with a one-line message (it already does; keep it explicit)."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised through main()
        self.print_usage(sys.stderr)
        self.exit(EXIT_CANNOT_RUN, f"{self.prog}: error: {message}\n")


# --------------------------------------------------------------------------- formatting
def _pct(value: float) -> str:
    return "—" if value != value else f"{100 * value:.1f}%"


def format_summary(summary, pass_k) -> str:  # type: ignore[no-untyped-def]
    """Plain-text table of a summary (and pass^k) DataFrame, rates as percentages."""
    headers = ["dimension", "n", "passes", "errors", "abstains", "rate", "95% Wilson CI"]
    headers += [f"pass^{k}" for k in pass_k.columns]
    rows = []
    for name, row in summary.iterrows():
        ci = "—" if row["rate"] != row["rate"] else f"{_pct(row['ci_low'])} – {_pct(row['ci_high'])}"
        counts = [int(row[c]) for c in ("n", "passes", "errors", "abstains")]  # iterrows made them floats
        cells = [str(name), *map(str, counts)]
        cells += [_pct(row["rate"]), ci]
        cells += [_pct(v) for v in pass_k.loc[name]]
        rows.append(cells)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


# --------------------------------------------------------------------------- commands
def _example_thresholds(policy_path: Path) -> dict[str, float]:
    """The ``gate.thresholds`` the bundled example policy declares (drawn on the plot)."""
    import yaml

    policy = yaml.safe_load(policy_path.read_text(encoding="utf-8")) or {}
    return {str(k): float(v) for k, v in (policy.get("gate") or {}).get("thresholds", {}).items()}


def _cmd_demo(args: argparse.Namespace) -> int:
    from . import plots
    from ._examples import example_path
    from ._rows import read_rows

    results = example_path("email_assistant", "results.jsonl")
    rows = read_rows(results)
    ks = [1, 2, 4]
    summary = rows.scorekit.summary()
    pass_k = rows.scorekit.pass_k(ks)
    consistency = rows.scorekit.consistency()
    print(f"scorekit {__version__} demo — bundled example: {results.parent.name} ({len(rows)} rows)")
    print()
    print(format_summary(summary, pass_k))
    print()
    flaky = {d: c for d, c in consistency["flaky_cases"].items() if c}
    if flaky:
        print("Flaky cases (trials disagree): " + "; ".join(f"{d}: {', '.join(c)}" for d, c in flaky.items()))
    print(
        "Rates are PASS/(PASS+FAIL); ERROR and ABSTAIN rows are missing evidence, outside the denominator.\n"
        "These figures apply to the supplied cases only, and repeated trials of a case may be correlated."
    )
    out_dir = Path(args.out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScorekitError(f"{out_dir}: cannot create the output folder ({exc.strerror})") from None
    png = out_dir / "rates.png"
    thresholds = _example_thresholds(example_path("email_assistant", "policy.yml"))
    plots.save_figure(plots.plot_rates(summary, thresholds=thresholds), png)
    pass_k_png = out_dir / "pass_k.png"
    plots.save_figure(plots.plot_pass_k(pass_k), pass_k_png)
    print(f"\nwrote {png}\nwrote {pass_k_png}")
    return EXIT_OK


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="scorekit",
        description="Turn captured AI-agent evaluation results into release evidence.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    demo = sub.add_parser("demo", help="summarise the bundled example evaluation and plot its rates")
    demo.add_argument("--out-dir", default="reports/demo", help="where to write the plots (default: reports/demo)")
    demo.set_defaults(handler=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except ScorekitError as exc:
        print(f"scorekit {args.command}: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        print("scorekit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
