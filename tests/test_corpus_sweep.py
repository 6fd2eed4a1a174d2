"""Every command on every kind of corpus file: exit 0/1/2 and a message, never a traceback (issue 25).

The sweep itself lives in ``benchmarks/sweep_corpus.py`` (its docstring says what the corpus holds
and how each invocation is bounded: ``RLIMIT_AS`` 2 GiB, or the session's resident memory polled for
the duckdb and dask engines, and 60 s). Here:

* the default suite runs its subset: each command on one file of every kind (rows, another tool's
  log, scorecard.json, history database, SCORECARD.md, policy, folder, an empty file) and each
  kind's commands on the hostile and derived files most likely to break them (~300 invocations,
  forked from a process that imported ``scorekit.cli`` once);
* ``pytest -m slow tests/test_corpus_sweep.py`` (or ``SCOREKIT_SWEEP_FULL=1``) runs the full
  matrix: every command on every corpus file, the derived copies through their kind's commands
  (``python benchmarks/sweep_corpus.py`` is the same sweep from the command line, with its table);
* the sweep's own checks are shown to catch a traceback, a crash, a silent failure and an
  over-limit allocation, so that a clean sweep means something.

Other tools' real files (the shared ``imports`` folders) join the corpus when named in
``SCOREKIT_SWEEP_CORPUS`` (folders separated by ``os.pathsep``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from shared import load_benchmark

sweep = load_benchmark("sweep_corpus")

pytestmark = pytest.mark.skipif(sys.platform != "linux" or not hasattr(os, "pidfd_open"),
                                reason="fork, RLIMIT_AS, /proc and pidfd as on Linux")


def _extra_corpus() -> list[Path]:
    return [Path(p) for p in os.environ.get("SCOREKIT_SWEEP_CORPUS", "").split(os.pathsep) if p]


@pytest.fixture(scope="module")
def runner():
    runner = sweep.Runner("fork", jobs=2)
    yield runner
    runner.close()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, runner):
    return sweep.build_workspace(tmp_path_factory.mktemp("sweep"), _extra_corpus(), runner.run_one)


def _assert_clean(outcomes) -> None:
    failures = [o for o in outcomes if o.problems]
    if failures:
        pytest.fail(f"{len(failures)} of {len(outcomes)} invocations broke the rule:\n"
                    f"{sweep.failure_table(failures)}\n\n{sweep.cause_summary(failures)}", pytrace=False)


def _invocation(argv: tuple[str, ...], module: str, tmp_path: Path, engine: bool = False):
    """``python -m MODULE ARGV`` as the sweep runs an invocation."""
    target = sweep.Target(tmp_path, "self-test", "other", "hostile")
    return sweep.Invocation("self-test", argv, target, engine, f"python -m {module}", tmp_path, module)


# --------------------------------------------------------------------------- the sweep's own checks
@pytest.mark.parametrize(("argv", "problem"), [
    (("-n", "1", "-r", "1", "1 / 0"), "traceback"),  # timeit prints the traceback, exit 1
    (("-n", "1", "-r", "1", "import os; os.abort()"), "exit -6"),
    (("-n", "1", "-r", "1", "import os; os._exit(1)"), "no message"),
    (("-n", "1", "-r", "1", "x = bytearray(3 << 30)"), "traceback"),  # MemoryError under RLIMIT_AS
])
@pytest.mark.parametrize("mode", ["fork", "spawn"])
def test_the_sweep_flags_what_breaks_the_rule(mode, argv, problem, tmp_path):
    runner = sweep.Runner(mode, jobs=1)
    try:
        (outcome,) = sweep.sweep([_invocation(argv, "timeit", tmp_path)], runner, confirm=False)
    finally:
        runner.close()
    assert problem in outcome.problems, (outcome.problems, outcome.stderr)
    if problem == "traceback":
        assert sweep.cause_of(outcome).endswith(("ZeroDivisionError: division by zero", "MemoryError"))


def test_the_sweep_kills_a_session_over_the_memory_limit(tmp_path):
    """Without RLIMIT_AS (the engines' case) the session's resident memory is polled and the session killed."""
    runner = sweep.Runner("fork", jobs=1)
    code = "x = bytearray(5 << 29); x[::4096] = b'1' * len(x[::4096]); import time; time.sleep(60)"  # 2.5 GiB
    try:
        (outcome,) = sweep.sweep([_invocation(("-n", "1", "-r", "1", code), "timeit", tmp_path, engine=True)], runner,
                                 confirm=False)
    finally:
        runner.close()
    assert outcome.killed == "memory" and "memory" in outcome.problems
    assert outcome.seconds < sweep.TIME_LIMIT_S


def test_a_clean_exit_with_a_message_passes(tmp_path):
    """The counterpart: exit 2 with one line on stderr (argparse's own refusal) breaks nothing."""
    runner = sweep.Runner("fork", jobs=1)
    try:
        (outcome,) = sweep.sweep([_invocation((), "scorekit", tmp_path)], runner, confirm=False)
    finally:
        runner.close()
    assert (outcome.code, outcome.problems) == (2, [])
    assert "scorekit: error: the following arguments are required" in outcome.stderr


def test_a_failure_of_fork_mode_only_is_dropped_when_spawn_passes(tmp_path, monkeypatch):
    """A fork-mode failure is re-run as a fresh process and kept only if it recurs there."""
    inv = _invocation(("--version",), "scorekit", tmp_path)
    runner = sweep.Runner("fork", jobs=1)
    real = sweep.Runner.outcome

    def broken_in_fork(self, invocation):
        outcome = real(self, invocation)
        if self.mode == "fork":
            outcome.problems = ["traceback"]
        return outcome

    monkeypatch.setattr(sweep.Runner, "outcome", broken_in_fork)
    try:
        (outcome,) = sweep.sweep([inv], runner)
    finally:
        runner.close()
    assert (outcome.problems, outcome.confirmed) == ([], False)


# --------------------------------------------------------------------------- the corpus
def test_the_subset_runs_every_command_on_every_kind(workspace):
    matrix = sweep.Matrix(workspace.root / "check", workspace.refs, workspace.labels)
    invocations = sweep.subset_matrix(matrix, workspace)
    covered = {(i.command, i.target.kind) for i in invocations}
    kinds = {t.kind for t in workspace.targets if t.label in sweep.SUBSET_EVERY_COMMAND.values()}
    assert kinds == set(sweep.KINDS)
    missing = {(c.name, k) for c in sweep.COMMANDS for k in kinds} - covered
    assert not missing
    assert sweep.DASK.name in {i.command for i in invocations}
    origins = {i.target.origin for i in invocations}
    assert origins == {"corpus", "generated", "hostile", "truncated", "flipped"}


@pytest.mark.timeout(1800)
def test_every_command_on_each_kind_of_file(workspace, runner):
    matrix = sweep.Matrix(workspace.root / "subset", workspace.refs, workspace.labels)
    _assert_clean(sweep.sweep(sweep.subset_matrix(matrix, workspace), runner))


@pytest.mark.slow
@pytest.mark.timeout(0)
def test_every_command_on_every_file(request):
    chosen = request.config.option.markexpr or ""
    if ("slow" not in chosen or "not slow" in chosen) and not os.environ.get("SCOREKIT_SWEEP_FULL"):
        pytest.skip("the full corpus sweep (~1 h on 2 busy cores): pytest -m slow, or SCOREKIT_SWEEP_FULL=1")
    workspace, runner = request.getfixturevalue("workspace"), request.getfixturevalue("runner")
    matrix = sweep.Matrix(workspace.root / "full", workspace.refs, workspace.labels)
    invocations = sweep.full_matrix(matrix, workspace.targets, workspace.dask_subset, workspace.render_subset)
    _assert_clean(sweep.sweep(invocations, runner))
