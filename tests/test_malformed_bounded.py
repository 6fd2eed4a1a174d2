"""The hostile-input corpus under a time and a memory bound (issue 11).

Every command runs as its own process with ``RLIMIT_AS`` at 2 GiB (set by a
small launcher before scorekit is imported) and a timeout, on the hostile
files committed in ``tests/data/malformed`` and on special files made here in
``tmp_path`` (a FIFO without a writer, symlinks to ``/dev/zero``,
``/dev/urandom`` and to a FIFO): each ends with its expected exit code, no
traceback, and — for exit 2 — one line on stderr. Reading ``/dev/zero`` to the
end would need more than the 2 GiB allowed; a FIFO would block until the
timeout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform != "linux",
                                reason="FIFOs, /dev/zero and RLIMIT_AS as on Linux")

MALFORMED = Path(__file__).parent / "data" / "malformed"
SEED_CARD = Path(__file__).parent / "release" / "data" / "seed_example_SCORECARD.md"
ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 2 << 30  # bytes of address space per process
TIME_LIMIT_S = 180  # generous: each command needs a second or two

# Sets the memory bound in the child itself (no preexec_fn: the commands run from threads).
LAUNCHER = ("import resource, runpy, sys; "
            f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
            "sys.argv = ['scorekit', *sys.argv[1:]]; runpy.run_module('scorekit', run_name='__main__', alter_sys=True)")


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    code: int


# The committed corpus (paths relative to tests/data/malformed).
CORPUS = [
    Case(("validate", "deep_nesting.jsonl", "--policy", "release.yml"), 1),
    Case(("run", "--results", "deep_nesting.jsonl", "--policy", "release.yml", "--gate", "--out-dir", "{tmp}/deep"), 1),
    Case(("validate", "deeper_nesting.jsonl", "--policy", "release.yml"), 1),
    Case(("validate", "forged_commands.jsonl", "--policy", "release.yml"), 1),
    Case(("run", "--results", "forged_commands.jsonl", "--policy", "release.yml", "--gate", "--out-dir", "{tmp}/f"), 1),
    Case(("validate", "array_rows.json", "--policy", "release.yml"), 0),
    Case(("run", "--results", "array_rows.json", "--policy", "release.yml", "--gate", "--out-dir", "{tmp}/a"), 0),
    Case(("validate", "array_problems.json", "--policy", "release.yml"), 1),
    Case(("validate", "single_object.json"), 2),
    Case(("validate", "inspect_log.json"), 2),
    Case(("run", "--results", "tau_results.json", "--out-dir", "{tmp}/t"), 2),
    Case(("validate", "array_syntax_error.json"), 2),
    Case(("validate", "pretty_jsonl.jsonl"), 2),
    Case(("validate", "deep_cell.csv"), 1),
    Case(("validate", "clean.jsonl", "--policy", "huge_threshold.yml"), 2),
    Case(("run", "--results", "clean.jsonl", "--policy", "huge_threshold.json", "--out-dir", "{tmp}/h"), 2),
    Case(("verify", "--scorecard", "long_number_scorecard.json"), 1),
    Case(("attest", "--scorecard", "long_number_scorecard.json", "--out-dir", "{tmp}/card"), 2),
    Case(("sign", "--scorecard", "long_number_scorecard.json", "--key", "{tmp}/k.pem", "--out", "{tmp}/x.sig.json"), 2),
]

# Readers of special files: (args with {s} for the special file's path and its suffix, expected exit code).
SPECIAL = [
    (("validate", "{s}.jsonl"), 2),
    (("run", "--results", "{s}.jsonl", "--out-dir", "{tmp}/out"), 2),
    (("render", "--results", "{s}.jsonl", "--out-dir", "{tmp}/render"), 2),
    (("validate", "clean.jsonl", "--policy", "{s}.yml"), 2),
    (("gate", "--scorecard", "{s}.md"), 1),
    (("gate", "--scorecard", "{card}", "--baseline-file", "{s}.md"), 1),
    (("carry-forward", "--scorecard", "{s}.md", "--version", "1.0.1"), 1),
    (("refresh-check", "--scorecard", "{s}.md", "--limit", "1", "--experiments", "1"), 1),
    (("gate", "--scorecard", "{card}", "--thresholds", "{s}.json"), 2),
    (("verify", "--scorecard", "{s}.json", "--signature", "long_number_scorecard.sig.json"), 2),
    (("verify", "--scorecard", "{tmp}/ok.json", "--signature", "{s}.sig.json"), 2),
    (("verify", "--scorecard", "{tmp}/ok.json", "--signature", "long_number_scorecard.sig.json",
      "--public-key", "{s}.pub"), 2),
    (("sign", "--scorecard", "{tmp}/ok.json", "--key", "{s}.pem", "--out", "{tmp}/ok.sig.json"), 2),
    (("attest", "--scorecard", "{s}.json", "--out-dir", "{tmp}/card"), 2),
    (("history", "{s}.sqlite"), 2),
    (("run", "--results", "clean.jsonl", "--history", "{s}.sqlite", "--out-dir", "{tmp}/hist"), 2),
    (("release-lint", "--doc-root", "{tmp}/docs-{kind}"), 1),
]
KINDS = ("fifo", "zero", "urandom", "link-to-fifo")
# Every reader meets a FIFO and /dev/zero; the other two kinds go to one reader of each file type.
FEW_READERS = {0, 3, 4, 10, 12, 14}
SUFFIXES = (".jsonl", ".yml", ".md", ".json", ".sig.json", ".pub", ".pem", ".sqlite")


def _make_special(path: Path, kind: str, tmp: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-to-fifo":
        target = tmp / f"target-{path.name}"
        os.mkfifo(target)
        path.symlink_to(target)
    else:
        path.symlink_to(f"/dev/{kind}")


def _exec(args: tuple[str, ...]) -> tuple[tuple[str, ...], subprocess.CompletedProcess]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, *args], cwd=MALFORMED, capture_output=True, text=True,
                          timeout=TIME_LIMIT_S, env=env, errors="replace")
    return args, proc


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[tuple[Case, subprocess.CompletedProcess]]:
    tmp = tmp_path_factory.mktemp("bounded")
    from scorekit.signing import write_keypair

    write_keypair(tmp / "k.pem", tmp / "k.pub")
    (tmp / "ok.json").write_text('{"decision": "PASS"}', encoding="utf-8")
    fill = {"tmp": str(tmp), "card": str(SEED_CARD)}
    cases = [Case(tuple(a.format(**fill) for a in case.args), case.code) for case in CORPUS]
    for kind in KINDS:
        stem = tmp / f"special-{kind}"
        for suffix in SUFFIXES:
            _make_special(Path(f"{stem}{suffix}"), kind, tmp)
        docs = tmp / f"docs-{kind}"
        docs.mkdir()
        shutil.copy(SEED_CARD, docs / "SCORECARD.md")
        (docs / "README.md").write_text("[Scorecard](./SCORECARD.md)\n", encoding="utf-8")
        _make_special(docs / "package.json", kind, tmp)
        for i, (args, code) in enumerate(SPECIAL):
            if kind not in ("fifo", "zero") and i not in FEW_READERS:
                continue
            cases.append(Case(tuple(a.format(s=stem, kind=kind, **fill) for a in args), code))
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(pool.map(_exec, [case.args for case in cases]))
    return [(case, done[case.args]) for case in cases]


def test_every_hostile_input_ends_in_time_with_its_exit_code_and_no_traceback(runs):
    wrong = [(case.args, case.code, proc.returncode, proc.stderr[-300:]) for case, proc in runs
             if proc.returncode != case.code or "Traceback" in proc.stderr + proc.stdout]
    assert wrong == [], wrong


def test_an_input_error_is_one_line_on_stderr(runs):
    for case, proc in runs:
        if case.code == 2:
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            assert len(lines) == 1 and lines[0].startswith(f"scorekit {case.args[0]}: "), (case.args, proc.stderr)


def test_special_files_are_refused_as_not_regular(runs):
    for case, proc in runs:
        if any("special-" in a or "docs-" in a for a in case.args):
            assert "not a regular file" in proc.stdout + proc.stderr, (case.args, proc.stdout, proc.stderr)


def test_forged_commands_in_rows_are_printed_inert(runs):
    for case, proc in runs:
        if "forged_commands.jsonl" in case.args:
            for line in (proc.stdout + proc.stderr).split("\n"):
                # The one workflow command a gated run writes is its own, for a dimension that stops the
                # release; the rows' forged commands never start a line.
                own = line.startswith("::error title=scorekit gate%3A ") and "::FORGED" not in line.split("::", 2)[1]
                assert own or not line.lstrip().startswith("::"), (case.args, line)
                assert "##[" not in line, (case.args, line)
            assert "\x1b" not in proc.stdout + proc.stderr and "\u202e" not in proc.stdout + proc.stderr
