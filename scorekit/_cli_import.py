"""CLI of the importers (SPEC §15): ``scorekit import``, ``run --from``, and the foreign-file check.

``scorekit import --from FORMAT SRC... --out-dir D`` writes one folder per run under ``D``
(``results.jsonl``: the run's SPEC §2 rows; ``source.json`` beside it) and ``D/policy.stub.yml``
listing every dimension found with its coverage (thresholds commented out, to fill in), and prints
the runs' table. ``scorekit run --from FORMAT --results SRC [--agent NAME]`` imports and evaluates
one run. ``run`` and ``validate`` given another tool's file without ``--from`` stop (exit 2) with
one line naming the format and ``--from``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._errors import InputError, ScorekitError
from ._terminal import terminal_text as _t

__all__ = ["SOURCE_FILE", "add_parsers", "check_not_foreign", "results_for", "source_beside"]

EXIT_OK = 0
#: The run's source that ``scorekit import`` writes beside each rows file, and ``run --results`` reads.
SOURCE_FILE = "source.json"
#: How a message names each format's file (the rows reader names the JSON ones alike).
_DESCRIPTIONS = {
    "inspect": "an Inspect AI eval log",
    "promptfoo": "a promptfoo eval output",
    "tau": "τ-bench results",
    "openai-evals": "OpenAI Evals run output",
    "assevra": "an Assevra dataset",
    "deepeval": "a DeepEval test run",
    "lm-eval": "lm-evaluation-harness results",
    "helm": "a HELM run",
    "eee": "an Every Eval Ever aggregate",
    "swe-bench": "a SWE-bench harness report",
}


class _Formats:
    """The ``--from`` choices, looked up when asked: a built-in name is checked without looking up the
    importer plug-ins (entry points), so a command that is not given another name pays nothing for
    them; ``--help`` and an unknown name list them all."""

    def __contains__(self, name: object) -> bool:
        from .importers._read import is_format

        return isinstance(name, str) and is_format(name)

    def __iter__(self) -> Any:
        from .importers._read import format_names

        return iter(["auto", *format_names()])


def _formats() -> _Formats:
    return _Formats()


def check_not_foreign(path: str) -> None:
    """InputError naming the format and ``--from`` when the file ``path`` is another tool's results."""
    p = Path(path)
    if not p.is_file():
        return  # the rows reader words a missing file, a directory or a special file
    from .importers._read import detect_format

    found = detect_format(p, certain=True)
    if found is not None:
        what = _DESCRIPTIONS.get(found, f"{found} output")
        raise InputError(f"{path}: {what} (another tool's format), not scorekit rows: read it with --from {found} "
                         f"(or convert it with `scorekit import --from {found}`)")


def _agents(runs: Sequence[Any]) -> str:
    return ", ".join(sorted({repr(r.agent) for r in runs}))


def results_for(args: argparse.Namespace) -> tuple[Any, str | None]:
    """What ``run``/``validate`` evaluate, and the ``agent`` selection left for ``evaluate``.

    With ``--from``: the one imported run of ``--agent`` (or the only agent); otherwise the
    results file, refused when it is another tool's.
    """
    source = args.results
    fmt = getattr(args, "from_format", None)
    if fmt is None:
        check_not_foreign(source)
        return source, args.agent
    from .importers._read import import_results

    runs: list[Any] = list(import_results(source, fmt))
    if args.agent is not None:
        chosen = [r for r in runs if r.agent == args.agent]
        if not chosen:
            raise InputError(f"{source}: no run of agent {args.agent!r}; the source holds {_agents(runs)}")
        runs = chosen
    elif len({r.agent for r in runs}) > 1:
        raise InputError(f"{source}: runs of {len({r.agent for r in runs})} agents ({_agents(runs)}); one "
                         "evaluation measures one agent: choose one with --agent NAME")
    if len(runs) > 1:
        which = "; ".join(f"{r.task} from {', '.join(r.source.get('files', []))}" for r in runs)
        raise InputError(f"{source}: {len(runs)} runs of agent {runs[0].agent!r} ({which}); scorekit run evaluates "
                         "one run: give one log, or `scorekit import` them and run each")
    return runs[0], None


def source_beside(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``source.json`` beside the ``--results`` file (written by ``scorekit import``, SPEC §15),
    checked against the scorecard schema's ``source``; None with ``--from``, for a directory or
    without one. A malformed one is an :class:`~scorekit.InputError` naming it (exit 2)."""
    if getattr(args, "from_format", None) is not None:
        return None  # an imported run carries its own source
    results = Path(args.results)
    path = results.parent / SOURCE_FILE
    if not results.is_file() or not (path.exists() or path.is_symlink()):
        return None
    from ._io import read_json_strict
    from .reports.json import load_schema

    record = read_json_strict(path, "run's source", InputError, limit=1 << 24)
    from jsonschema import Draft202012Validator

    error = next(iter(Draft202012Validator(load_schema()["properties"]["source"]).iter_errors(record)), None)
    if error is not None:
        where = "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise InputError(f"{path}: not the source.json `scorekit import` writes (${where}: {error.message})")
    checked: dict[str, Any] = record
    return checked


# --------------------------------------------------------------------------- scorekit import
def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:80] or "run"


def _write_text(path: Path, text: str) -> None:
    from ._io import atomic_write

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    atomic_write(path, write)


def _rows_jsonl(run: Any) -> str:
    from ._rows._formats import frame_records

    lines = [json.dumps(row, ensure_ascii=False, allow_nan=False, sort_keys=False)
             for _, row, *_ in frame_records(run.rows)]
    return "\n".join(lines) + "\n"


def policy_stub(runs: Sequence[Any]) -> str:
    """``policy.stub.yml``: every dimension found, its coverage, and a commented threshold to fill in."""
    from .importers._run import dimension_coverage

    cover: dict[str, list[int]] = {}
    for run in runs:
        for dimension, (measured, total) in dimension_coverage(run).items():
            entry = cover.setdefault(dimension, [0, 0])
            entry[0] += measured
            entry[1] += total
    lines = [
        "# Policy stub written by `scorekit import` (SPEC §7, §15): every dimension the imported runs",
        "# measure, with its coverage (rows with a PASS, FAIL or score / all rows). Declare a threshold",
        "# for each dimension the release needs (uncomment and set it): a dimension in scope without",
        "# one is INCOMPLETE under release.",
        "purpose: release",
        "partial: fail            # partial credit (Inspect's P, scores in (0,1)): fail | abstain | {min: 0.7}",
        "gate:",
        "  required_dimensions:",
    ]
    lines += [f"    - {json.dumps(d)}" for d in sorted(cover)]
    lines.append("  thresholds:")
    for dimension in sorted(cover):
        measured, total = cover[dimension]
        pct = f"{100 * measured / total:.1f}%" if total else "—"
        lines.append(f"    # {json.dumps(dimension)}: 0.9    # coverage {pct} ({measured} of {total} rows)")
    return "\n".join(lines) + "\n"


def _cmd_import(args: argparse.Namespace) -> int:
    from ._progress import progress_on_a_terminal
    from .importers._read import import_results
    from .reports._sections import runs_table
    from .reports.text import table_text

    with progress_on_a_terminal():
        runs = [run for src in args.sources for run in import_results(src, args.from_format)]
    out = Path(args.out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        used: set[str] = set()
        for run in runs:
            base = _slug(f"{run.agent}__{run.task}")
            name, n = (base if re.search(r"[A-Za-z0-9]", base) else "run"), 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            used.add(name)
            folder = out / name
            folder.mkdir(exist_ok=True)
            _write_text(folder / "results.jsonl", _rows_jsonl(run))
            record = {"agent": run.agent, "task": run.task, "partial": run.partial, **run.source}
            _write_text(folder / SOURCE_FILE, json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False)
                        + "\n")
            written += [folder / "results.jsonl", folder / SOURCE_FILE]
        _write_text(out / "policy.stub.yml", policy_stub(runs))
        written.append(out / "policy.stub.yml")
    except OSError as exc:
        raise ScorekitError(f"{out}: cannot write the import ({exc.strerror or exc})") from None
    print(table_text(runs_table(runs)))
    for path in written:
        print(f"wrote {_t(path)}")
    return EXIT_OK


# --------------------------------------------------------------------------- parsers
def add_parsers(sub: Any) -> None:
    """Register ``import`` and add ``--from`` to ``run`` and ``validate`` (already registered)."""
    formats = _formats()
    imp = sub.add_parser(
        "import", help="read other tools' results (Inspect AI, promptfoo, ...) into scorekit rows",
        description="Read other tools' results files into scorekit rows (SPEC §15): one folder per run "
                    "(agent, task, log) with results.jsonl and source.json, and policy.stub.yml.",
    )
    imp.add_argument("--from", dest="from_format", default="auto", choices=formats, metavar="FORMAT",
                     help="the tool that wrote SRC: %(choices)s (auto: by content; default)")
    imp.add_argument("sources", nargs="+", metavar="SRC", help="a results file or a directory of them")
    imp.add_argument("--out-dir", required=True, metavar="D", help="where to write the runs and policy.stub.yml")
    imp.set_defaults(handler=_cmd_import)
    for command in ("run", "validate"):
        parser = getattr(sub, "choices", {}).get(command)
        if parser is not None and "--from" not in parser._option_string_actions:
            parser.add_argument("--from", dest="from_format", choices=formats, metavar="FORMAT",
                                help="the results are another tool's (%(choices)s): import them first")
