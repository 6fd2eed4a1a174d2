"""The pytest plugin's work (SPEC §19): a session's marked tests become §2 rows, evaluated and written.

pytest loads the plugin through the ``pytest11`` entry point ``scorekit``, the top-level module
``_scorekit_pytest`` (options and marker only, so that other projects' sessions do not import
scorekit). A session run with ``--scorekit-out DIR`` calls :func:`start`, which registers a
:class:`ScorekitRecorder`: it turns the tests marked ``@pytest.mark.scorekit(dimension=...,
case=...)`` into rows, evaluates them (:func:`scorekit.evaluate`, the policy of
``--scorekit-policy``), writes the scorecard and its reports into ``DIR`` and prints the decision
at the end of the session; with ``--scorekit-gate`` the exit status is 1 unless it is PASS.

What a test's outcome becomes (the worst phase wins, in the order FAIL, ERROR, ABSTAIN, PASS):

* the test body passed → ``PASS``;
* the body failed an assertion (``AssertionError``, or ``pytest.fail``) → ``FAIL``;
* an error in set-up or teardown, or any other exception in the body → ``ERROR`` ``test_error``;
* skipped (a skip mark, ``pytest.skip``, ``pytest.importorskip``, ``pytest.xfail`` called in the
  body) → ``ABSTAIN`` ``skipped``;
* collected but never run (``-x``, ``--maxfail``, an interrupted session) → ``ABSTAIN`` ``not_run``.

An ``xfail`` mark does not change the row: the evidence records what the body did (an expected
failure is still a failure of what the test measures; a non-strict XPASS is a PASS).

The case is the marker's ``case``, else the test's node id without its trial parameter; the trial
is pytest-repeat's step (``--count N``: trials 0 … N−1) or the value of a parameter named
``trial`` (a whole number ≥ 0, else its position in the parameter list); both at once give
``trial * count + step``. Tests without the marker are not evidence and are left out. A marker
on a class or module (``pytestmark``) applies to each test; the closest marker naming a key wins.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

    from ._policy import Policy
    from ._scorecard import Scorecard

__all__ = ["MARKER", "ScorekitRecorder", "start"]

#: The marker's name: ``@pytest.mark.scorekit(dimension=..., case=...)``.
MARKER = "scorekit"
#: The keys the marker takes.
MARKER_KEYS = ("dimension", "case")
#: The evaluator every row names (SPEC §2: a pre-scored row names what produced its status).
EVALUATOR = "pytest"
#: pytest-repeat's parameter (``--count N``).
REPEAT_PARAM = "__pytest_repeat_step_number"
#: The parameter a test names to mark its repeated runs.
TRIAL_PARAM = "trial"
#: The status order: the worst phase of a test decides its row.
_WORST = {"PASS": 0, "ABSTAIN": 1, "ERROR": 2, "FAIL": 3}
_REASONS = {"ERROR": "test_error", "ABSTAIN": "skipped"}


def start(config: pytest.Config, *, out: str, policy: str | None, gate: bool) -> ScorekitRecorder:
    """Start recording a session's marked tests (``--scorekit-out DIR``): load the policy, register the recorder.

    Called by the entry point :mod:`_scorekit_pytest` from ``pytest_configure``.

    Parameters
    ----------
    config : pytest.Config
        The session's configuration.
    out : str
        The folder the scorecard and its reports are written into.
    policy : str or None
        The policy file; None for scorekit's defaults.
    gate : bool
        Make the session's exit status 1 unless the decision is PASS.

    Returns
    -------
    ScorekitRecorder
        The plugin registered (as ``scorekit-recorder``) for the rest of the session.

    Raises
    ------
    pytest.UsageError
        A bad policy file (one line naming it; pytest's exit status 4), or a pytest-xdist worker.
    """
    # pytest-xdist: refused on the controller (-n N) before any worker starts, and on a worker (each would
    # write its own part) should one start anyway.
    if hasattr(config, "workerinput") or getattr(config.option, "numprocesses", None):
        raise pytest.UsageError("--scorekit-out does not support pytest-xdist (-n); run without -n")
    recorder = ScorekitRecorder(out, _load_policy(policy), gate)
    config.pluginmanager.register(recorder, "scorekit-recorder")
    return recorder


def _load_policy(path: str | None) -> Policy:
    """The policy, or a usage error of one line naming the file (pytest's exit status 4)."""
    from ._errors import ScorekitError
    from ._policy import load_policy

    try:
        return load_policy(path)
    except ScorekitError as exc:
        raise pytest.UsageError(f"--scorekit-policy: {_one_line(exc)}") from None


def _one_line(value: object) -> str:
    from ._escape import terminal_text

    return terminal_text(str(value))


@dataclass
class _Trial:
    """One marked test: where its row goes, and the worst outcome of its phases so far."""

    nodeid: str
    dimension: str
    case: str
    trial: int
    status: str = "PASS"
    ran: bool = False

    def see(self, status: str) -> None:
        self.ran = True
        if _WORST[status] > _WORST[self.status]:
            self.status = status

    def row(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.nodeid, "dimension": self.dimension, "case_id": self.case,
                               "trial": self.trial, "status": self.status, "evaluator": EVALUATOR}
        if self.status in _REASONS:
            row["reason"] = _REASONS[self.status]
        return row


def _marker_fields(item: pytest.Item) -> dict[str, Any] | None:
    """The marker's keys, the closest marker naming each winning; None for a test without the marker."""
    fields: dict[str, Any] = {}
    found = False
    for mark in item.iter_markers(MARKER):  # closest first
        found = True
        unknown = sorted(set(mark.kwargs) - set(MARKER_KEYS))
        if mark.args or unknown:
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{MARKER} takes only the keywords "
                                    f"{', '.join(MARKER_KEYS)} (got {', '.join(unknown) or 'a positional argument'})")
        for key, value in mark.kwargs.items():
            fields.setdefault(key, value)
    if not found:
        return None
    for key in MARKER_KEYS:
        value = fields.get(key)
        if (key == "dimension" or value is not None) and not (isinstance(value, str) and value.strip()):
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{MARKER} needs {key}= a non-empty string")
    return fields


def _repeat_count(item: pytest.Item) -> int:
    mark = item.get_closest_marker("repeat")
    return int(mark.args[0]) if mark is not None and mark.args else int(item.config.getoption("count", 1) or 1)


def _trial_and_case(item: pytest.Item, case: str | None) -> tuple[int, str]:
    """The trial number and the case (the given one, else the node id without the trial parameter)."""
    callspec = getattr(item, "callspec", None)
    params: dict[str, Any] = dict(callspec.params) if callspec is not None else {}
    ids = list(getattr(callspec, "_idlist", None) or ([callspec.id] if callspec is not None else []))
    trial, drop = 0, []
    if TRIAL_PARAM in params:
        value = params[TRIAL_PARAM]
        index = int(callspec.indices[TRIAL_PARAM]) if callspec is not None else 0
        number = value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else index
        trial = number
        drop.append(str(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool)
                     else f"{TRIAL_PARAM}{index}")
    if REPEAT_PARAM in params:
        count, step = _repeat_count(item), int(params[REPEAT_PARAM])
        trial = trial * count + step if TRIAL_PARAM in params else step
        drop.append(f"{step + 1}-{count}")
    if case is not None:
        return trial, case
    for token in reversed(drop):  # pytest-repeat parametrizes last: its id is the last one
        # Removing any one occurrence of the id must give one answer (["1", "1"] does; ["1", "x", "1"] does not).
        without = {tuple(ids[:i] + ids[i + 1:]) for i, part in enumerate(ids) if part == token}
        if len(without) != 1:
            raise pytest.UsageError(
                f"{item.nodeid}: cannot tell its trial parameter's id ({token!r}) in its node id; "
                f"name the case: @pytest.mark.{MARKER}(dimension=..., case=...)")
        ids = list(without.pop())
    base = item.nodeid[: -len(callspec.id) - 2] if callspec is not None and callspec.id else item.nodeid
    return trial, base + (f"[{'-'.join(ids)}]" if ids else "")


def _status(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str:
    """The status one phase of a test says."""
    excinfo = call.excinfo
    if excinfo is None:
        return "PASS"
    if excinfo.errisinstance((pytest.skip.Exception, pytest.xfail.Exception)) and report.when != "teardown":
        return "ABSTAIN"
    if report.when == "call" and excinfo.errisinstance((AssertionError, pytest.fail.Exception)):
        return "FAIL"
    return "ERROR"


@dataclass(eq=False)  # hashed by identity: pluggy keeps plugins in sets (PluginManager.get_plugins)
class ScorekitRecorder:
    """Registered for a session run with ``--scorekit-out``: records the marked tests, then evaluates."""

    out: str
    policy: Policy
    gate: bool
    trials: dict[str, _Trial] = field(default_factory=dict)
    card: Scorecard | None = None
    written: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    error: str | None = None

    @pytest.hookimpl(trylast=True)  # after -k / -m deselection
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            fields = _marker_fields(item)
            if fields is None:
                continue
            trial, case = _trial_and_case(item, fields.get("case"))
            self.trials[item.nodeid] = _Trial(item.nodeid, fields["dimension"], case, trial)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        trial = self.trials.get(item.nodeid)
        if trial is not None:
            trial.see(_status(report, call))
        return report

    def rows(self) -> list[dict[str, Any]]:
        """The rows of the marked tests (SPEC §2), in the order they were collected.

        A marked test that was collected but never ran (``-x``, ``--maxfail``, an interrupted
        session) is missing evidence: ``ABSTAIN`` ``not_run``, never left out.
        """
        return [t.row() if t.ran else {**t.row(), "status": "ABSTAIN", "reason": "not_run"}
                for t in self.trials.values()]

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from ._errors import ScorekitError

        if session.config.getoption("collectonly"):
            self.error = "--collect-only: no test ran, nothing evaluated"
            return
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR:  # e.g. a bad marker found at collection
            self.error = "the session stopped on a usage error: nothing evaluated, nothing written"
            return
        rows = self.rows()
        try:
            if not rows:
                raise ScorekitError(f"no test marked @pytest.mark.{MARKER} ran: nothing to evaluate")
            self._evaluate(rows)
        except (ScorekitError, OSError) as exc:
            self.error = _one_line(exc)
        # Exit status: a session that could not be evaluated, or (with the gate) whose decision is not PASS, is 1.
        failed = self.error is not None or (self.gate and not (self.card is not None and self.card.overall_pass))
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _evaluate(self, rows: list[dict[str, Any]]) -> None:
        from ._evaluate import evaluate
        from .reports import render_reports
        from .reports.text import run_text

        self.card = evaluate(rows, policy=self.policy)
        reports = render_reports(self.card)
        try:
            self.written = reports.write(self.out)
        except OSError as exc:
            raise OSError(f"{self.out}: cannot write the reports ({exc.strerror or exc})") from None
        self.summary = run_text(reports.sections)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.section("scorekit")
        if self.error is not None:
            terminalreporter.line(f"scorekit: {self.error}", red=True)
            return
        for line in self.summary.splitlines():
            terminalreporter.line(line)
        for path in self.written.values():
            terminalreporter.line(f"wrote {_one_line(os.fspath(path))}")
        if self.gate and self.card is not None and not self.card.overall_pass:
            terminalreporter.line(f"scorekit gate: not passed (decision {_one_line(self.card.decision)})", red=True)
