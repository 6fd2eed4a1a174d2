"""The pytest plugin (SPEC §19), run for real on test files through ``pytester``.

Each test writes a small suite of evaluation tests, runs pytest on it with the plugin, and reads
back what the plugin wrote (``evidence.parquet``, ``scorecard.json``). The expected rows are
written out by hand from SPEC §19 (passed → PASS, failed assertion → FAIL, set-up / teardown
error or another exception → ERROR ``test_error``, skipped → ABSTAIN ``skipped``).

The plugin is loaded through its ``pytest11`` entry point when scorekit is installed with it, else
with ``-p _scorekit_pytest`` (an editable install made before the entry point existed):
``LOAD`` holds what each run needs, ``OFF`` what turns the plugin off. The entry point itself is
tested where it is installed (``test_the_entry_point_loads_the_plugin``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pandas as pd
import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
MODULE = "_scorekit_pytest"  # the entry point; its work is scorekit.pytest_plugin


def _entry_point_installed() -> bool:
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    return any(ep.value == MODULE for ep in entry_points(group="pytest11"))


INSTALLED = _entry_point_installed()
#: What a run needs to load the plugin, and what turns it off.
LOAD = [] if INSTALLED else ["-p", MODULE]
OFF = ["-p", "no:scorekit"] if INSTALLED else []


@pytest.fixture(autouse=True, scope="module")
def _plugin_imports_loaded(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Import once, in this process, what the plugin imports when it evaluates.

    pytester's in-process runs drop every module first imported inside them, and pandas' Arrow
    extension types cannot be registered twice: imported here first, they are kept.
    """
    import scorekit as sk
    from scorekit.reports import render_reports

    card = sk.evaluate([{"id": "a", "dimension": "pii", "status": "PASS", "evaluator": "pytest"}])
    out = tmp_path_factory.mktemp("warm")
    render_reports(card).write(out)
    pd.read_parquet(out / "evidence.parquet")


def _evidence(out: Path) -> pd.DataFrame:
    frame = pd.read_parquet(out / "evidence.parquet")
    return frame.set_index("id")[["dimension", "case_id", "trial", "status", "reason", "evaluator"]]


def _scorecard(out: Path) -> dict:
    return json.loads((out / "scorecard.json").read_text(encoding="utf-8"))


def _this_checkout_first() -> str:
    """``PYTHONPATH`` for a child interpreter that imports this checkout's scorekit."""
    return os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", *LOAD, *args)


OUTCOMES = """
    import pytest

    pytestmark = pytest.mark.scorekit(dimension="task_completion")

    @pytest.fixture
    def broken_setup():
        raise RuntimeError("the fixture could not start the agent")

    @pytest.fixture
    def broken_teardown():
        yield
        raise RuntimeError("the fixture could not stop the agent")

    def test_passes():
        assert 2 + 2 == 4

    def test_fails_an_assertion():
        assert "refund" in "the agent declined"

    def test_fails_by_pytest_fail():
        pytest.fail("the answer was off topic")

    def test_raises_another_exception():
        raise KeyError("tool")

    def test_setup_error(broken_setup):
        pass

    def test_teardown_error_after_a_pass(broken_teardown):
        assert True

    def test_teardown_error_after_a_fail(broken_teardown):
        assert False

    @pytest.mark.skip(reason="no sandbox")
    def test_skipped_by_mark():
        pass

    def test_skipped_in_the_body():
        pytest.skip("the tool is down")

    @pytest.mark.xfail(reason="known bad")
    def test_xfail_that_fails():
        assert False

    @pytest.mark.xfail(reason="known bad")
    def test_xfail_that_passes():
        assert True

    @pytest.mark.scorekit(dimension="pii", case="no-email-leak")
    def test_own_marker_wins():
        assert True
"""


def test_each_outcome_becomes_its_row(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_outcomes=OUTCOMES)
    result = _run(pytester, "--scorekit-out", "out")
    result.assert_outcomes(passed=3, failed=4, errors=3, skipped=2, xfailed=1, xpassed=1)
    rows = _evidence(pytester.path / "out")
    m = "test_outcomes.py::"
    expected = {
        "test_passes": ("PASS", None),
        "test_fails_an_assertion": ("FAIL", "prescored_fail"),
        "test_fails_by_pytest_fail": ("FAIL", "prescored_fail"),
        "test_raises_another_exception": ("ERROR", "test_error"),
        "test_setup_error": ("ERROR", "test_error"),
        "test_teardown_error_after_a_pass": ("ERROR", "test_error"),
        "test_teardown_error_after_a_fail": ("FAIL", "prescored_fail"),
        "test_skipped_by_mark": ("ABSTAIN", "skipped"),
        "test_skipped_in_the_body": ("ABSTAIN", "skipped"),
        "test_xfail_that_fails": ("FAIL", "prescored_fail"),
        "test_xfail_that_passes": ("PASS", None),
        "test_own_marker_wins": ("PASS", None),
    }
    assert sorted(rows.index) == sorted(m + name for name in expected)
    for name, (status, reason) in expected.items():
        row = rows.loc[m + name]
        assert (row["status"], None if pd.isna(row["reason"]) else row["reason"]) == (status, reason), name
        assert row["trial"] == 0 and row["evaluator"] == "pytest"
        if name != "test_own_marker_wins":
            assert (row["dimension"], row["case_id"]) == ("task_completion", m + name)
    assert tuple(rows.loc[m + "test_own_marker_wins", ["dimension", "case_id"]]) == ("pii", "no-email-leak")
    card = _scorecard(pytester.path / "out")
    assert card["decision"] == "FAIL"
    assert card["validation"]["invalid"] == 0
    assert {d["name"] for d in card["dimensions"]} == {"task_completion", "pii"}
    # The decision line and the files written close the session's output.
    assert "decision: FAIL  (dimension FAIL: task_completion)" in result.outlines
    assert any(line.startswith("wrote ") and line.endswith("evidence.parquet") for line in result.outlines)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_tests_without_the_marker_are_no_evidence(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mixed="""
        import pytest

        def test_unit_helper():
            assert True

        @pytest.mark.scorekit(dimension="task_completion")
        def test_eval():
            assert True
    """)
    # Another plugin asking for every registered plugin (a set): the recorder is hashable.
    pytester.makeconftest("def pytest_sessionfinish(session):\n    session.config.pluginmanager.get_plugins()\n")
    result = _run(pytester, "--scorekit-out", "out")
    assert list(_evidence(pytester.path / "out").index) == ["test_mixed.py::test_eval"]
    assert result.ret == 0


def test_collect_only_evaluates_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gate=ALL_PASS)
    result = _run(pytester, "--collect-only", "--scorekit-out", "out", "--scorekit-gate")
    assert "scorekit: --collect-only: no test ran, nothing evaluated" in result.outlines
    assert result.ret == 0
    assert not (pytester.path / "out").exists()


REPEATED = """
    import pytest

    @pytest.mark.scorekit(dimension="task_completion")
    def test_answers_the_refund_question():
        assert True

    @pytest.mark.scorekit(dimension="task_completion")
    @pytest.mark.parametrize("model", ["small-1", "large"])
    def test_per_model(model):
        assert model != "small-1"
"""


def test_count_runs_are_trials_of_one_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_repeated=REPEATED)
    _run(pytester, "--count", "3", "--scorekit-out", "out")
    rows = _evidence(pytester.path / "out")
    m = "test_repeated.py::"
    expected = {  # pytest-repeat's ids are "{step + 1}-{count}"; trials count from 0 (SPEC §2, as epochs − 1)
        "test_answers_the_refund_question[1-3]": (m + "test_answers_the_refund_question", 0, "PASS"),
        "test_answers_the_refund_question[2-3]": (m + "test_answers_the_refund_question", 1, "PASS"),
        "test_answers_the_refund_question[3-3]": (m + "test_answers_the_refund_question", 2, "PASS"),
        "test_per_model[small-1-1-3]": (m + "test_per_model[small-1]", 0, "FAIL"),
        "test_per_model[small-1-2-3]": (m + "test_per_model[small-1]", 1, "FAIL"),
        "test_per_model[small-1-3-3]": (m + "test_per_model[small-1]", 2, "FAIL"),
        "test_per_model[large-1-3]": (m + "test_per_model[large]", 0, "PASS"),
        "test_per_model[large-2-3]": (m + "test_per_model[large]", 1, "PASS"),
        "test_per_model[large-3-3]": (m + "test_per_model[large]", 2, "PASS"),
    }
    assert {i: (r.case_id, r.trial, r.status) for i, r in rows.iterrows()} == {m + k: v for k, v in expected.items()}
    dimension = _scorecard(pytester.path / "out")["dimensions"][0]
    assert (dimension["n"], dimension["cases"]) == (9, 3)


def test_a_trial_parameter_numbers_the_trials(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_trials="""
        import pytest

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", range(3))
        @pytest.mark.parametrize("prompt", ["polite", "rude"])
        def test_refund(prompt, trial):
            assert True

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", ["first", "second"])
        def test_named_trials(trial):
            assert True

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", [0, 1])
        @pytest.mark.parametrize("k", [1])
        def test_same_id_as_another_parameter(k, trial):
            assert True
    """)
    _run(pytester, "--scorekit-out", "out")
    rows = _evidence(pytester.path / "out")
    m = "test_trials.py::"
    got = {i.removeprefix(m): (r.case_id.removeprefix(m), r.trial) for i, r in rows.iterrows()}
    assert got == {
        **{f"test_refund[{p}-{t}]": (f"test_refund[{p}]", t) for p in ("polite", "rude") for t in range(3)},
        # Not whole numbers: the trial is the value's position in the list.
        "test_named_trials[first]": ("test_named_trials", 0),
        "test_named_trials[second]": ("test_named_trials", 1),
        # k=1 and trial=1 have the same id "1": either removed leaves the case test_same_id_as_another_parameter[1].
        "test_same_id_as_another_parameter[1-0]": ("test_same_id_as_another_parameter[1]", 0),
        "test_same_id_as_another_parameter[1-1]": ("test_same_id_as_another_parameter[1]", 1),
    }


def test_count_and_a_trial_parameter_together(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_both="""
        import pytest

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", [0, 1])
        def test_refund(trial):
            assert True
    """)
    _run(pytester, "--count", "2", "--scorekit-out", "out")
    rows = _evidence(pytester.path / "out")
    assert set(rows["case_id"]) == {"test_both.py::test_refund"}
    # trial * count + step: four distinct trials, no duplicate.
    assert sorted(rows["trial"]) == [0, 1, 2, 3]
    assert _scorecard(pytester.path / "out")["validation"]["invalid"] == 0


def test_tests_that_never_ran_are_missing_evidence(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_stop="""
        import pytest

        pytestmark = pytest.mark.scorekit(dimension="task_completion")

        def test_first():
            assert False

        def test_second():
            assert True
    """)
    _run(pytester, "-x", "--scorekit-out", "out")
    rows = _evidence(pytester.path / "out")
    assert rows.loc["test_stop.py::test_second", "status"] == "ABSTAIN"
    assert rows.loc["test_stop.py::test_second", "reason"] == "not_run"


# --------------------------------------------------------------------------- the gate and the exit status
ALL_PASS = """
    import pytest

    @pytest.mark.scorekit(dimension="helpfulness")
    @pytest.mark.parametrize("question", ["refund", "delivery", "invoice"])
    def test_helpful(question):
        assert True
"""


def test_gate_fails_a_passing_session_whose_decision_is_not_pass(pytester: pytest.Pytester) -> None:
    # Every test passes, but no threshold is declared for the custom dimension: INCOMPLETE (SPEC §7).
    pytester.makepyfile(test_gate=ALL_PASS)
    without = _run(pytester, "--scorekit-out", "out")
    assert without.ret == 0
    assert "decision: INCOMPLETE  (dimension INCOMPLETE: helpfulness)" in without.outlines
    gated = _run(pytester, "--scorekit-out", "out", "--scorekit-gate")
    gated.assert_outcomes(passed=3)
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    assert "scorekit gate: not passed (decision INCOMPLETE)" in gated.outlines


def test_gate_passes_when_the_decision_is_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gate=ALL_PASS)
    pytester.makefile(".yml", policy="gate:\n  thresholds: {helpfulness: 0.6}\n")
    result = _run(pytester, "--scorekit-out", "out", "--scorekit-policy", "policy.yml", "--scorekit-gate")
    assert result.ret == 0
    assert "decision: PASS" in result.outlines
    assert _scorecard(pytester.path / "out")["decision"] == "PASS"


def test_a_failing_test_still_fails_the_session_without_the_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_one="""
        import pytest

        @pytest.mark.scorekit(dimension="helpfulness")
        def test_helpful():
            assert False
    """)
    result = _run(pytester, "--scorekit-out", "out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_no_marked_test_is_said_and_fails_the_session(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = _run(pytester, "--scorekit-out", "out")
    assert "scorekit: no test marked @pytest.mark.scorekit ran: nothing to evaluate" in result.outlines
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not (pytester.path / "out").exists()


# --------------------------------------------------------------------------- usage errors: one line, exit 4
@pytest.mark.parametrize(("policy", "needle"), [
    ("gate:\n  threshold: {helpfulness: 0.6}\n", "gate.threshold"),  # an unknown key
    (None, "missing.yml"),
])
def test_a_bad_policy_is_a_usage_error_naming_the_file(pytester: pytest.Pytester, policy, needle) -> None:
    pytester.makepyfile(test_gate=ALL_PASS)
    name = "missing.yml"
    if policy is not None:
        name = str(pytester.makefile(".yml", policy=policy).name)
    result = _run(pytester, "--scorekit-out", "out", "--scorekit-policy", name)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("ERROR: --scorekit-policy: "), result.errlines
    assert name in errors[0] and needle in errors[0]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "out").exists()


@pytest.mark.parametrize("option", [["--scorekit-gate"], ["--scorekit-policy", "policy.yml"]])
def test_gate_or_policy_without_out_is_a_usage_error(pytester: pytest.Pytester, option) -> None:
    pytester.makepyfile(test_gate=ALL_PASS)
    result = _run(pytester, *option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --scorekit-policy and --scorekit-gate need --scorekit-out DIR" in result.errlines


@pytest.mark.parametrize("marker", ['scorekit(case="x")', 'scorekit(dimension="")', 'scorekit("task_completion")',
                                    'scorekit(dimension="pii", dimesion="pii")'])
def test_a_bad_marker_is_a_usage_error_naming_the_test(pytester: pytest.Pytester, marker) -> None:
    pytester.makepyfile(test_marker=f"import pytest\n\n@pytest.mark.{marker}\ndef test_x():\n    assert True\n")
    result = _run(pytester, "--scorekit-out", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any(line.startswith("ERROR: test_marker.py::test_x: @pytest.mark.scorekit") for line in result.errlines)
    assert not (pytester.path / "out").exists()


def test_xdist_is_refused_before_any_worker_starts(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_gate=ALL_PASS)
    result = _run(pytester, "--scorekit-out", "out", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert errors == ["ERROR: --scorekit-out does not support pytest-xdist (-n); run without -n"], result.errlines
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "out").exists()


def test_a_trial_id_it_cannot_find_asks_for_the_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ids="""
        import pytest

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", [0, 1], ids=["once", "twice"])
        def test_x(trial):
            assert True

        @pytest.mark.scorekit(dimension="task_completion", case="named")
        @pytest.mark.parametrize("trial", [0, 1], ids=["once", "twice"])
        def test_named(trial):
            assert True
    """)
    result = _run(pytester, "--scorekit-out", "out", "test_ids.py::test_x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any("cannot tell its trial parameter's id ('0')" in line for line in result.errlines)
    # A session stopped by a usage error evaluates and writes nothing, not even the tests that were fine.
    pytester.makepyfile(test_mixed="""
        import pytest

        @pytest.mark.scorekit(dimension="task_completion")
        def test_fine():
            assert True

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("question,trial", [("q1", 0), ("q1", 1)])
        def test_joined(question, trial):
            assert True
    """)
    mixed = _run(pytester, "--scorekit-out", "out", "test_mixed.py")
    assert mixed.ret == pytest.ExitCode.USAGE_ERROR
    assert any("test_joined[q1-0]: cannot tell its trial parameter's id" in line for line in mixed.errlines)
    assert not (pytester.path / "out").exists()
    # Given a case, the id is not needed.
    named = _run(pytester, "--scorekit-out", "out", "test_ids.py::test_named")
    assert named.ret == 0 and sorted(_evidence(pytester.path / "out")["trial"]) == [0, 1]


def test_an_ambiguous_trial_id_asks_for_the_case(pytester: pytest.Pytester) -> None:
    # k=1, m="x", trial=1: "1-x-1" without one "1" is "x-1" or "1-x", two different cases.
    pytester.makepyfile(test_ambiguous="""
        import pytest

        @pytest.mark.scorekit(dimension="task_completion")
        @pytest.mark.parametrize("trial", [0, 1])
        @pytest.mark.parametrize("m", ["x"])
        @pytest.mark.parametrize("k", [1])
        def test_x(m, trial, k):
            assert True
    """)
    result = _run(pytester, "--scorekit-out", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any("test_x[1-x-1]: cannot tell its trial parameter's id ('1')" in line for line in result.errlines)


# --------------------------------------------------------------------------- zero cost without --scorekit-out
def _output(result: pytest.RunResult) -> list[str]:
    """The session's output without its timing, and without pytest's own ``plugins:`` header line (it names
    every installed plugin distribution, scorekit among them when it is loaded through its entry point)."""
    return [re.sub(r" in [0-9.]+s", " in Ts", line) for line in result.outlines if not line.startswith("plugins: ")]


def test_without_out_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_outcomes=OUTCOMES)
    before = sorted(p.name for p in pytester.path.iterdir())
    loaded = pytester.runpytest("-p", "no:cacheprovider", *LOAD, "--count", "2")
    disabled = pytester.runpytest("-p", "no:cacheprovider", *OFF, "--count", "2")
    assert loaded.ret == disabled.ret == pytest.ExitCode.TESTS_FAILED
    assert _output(loaded) == _output(disabled)
    assert not any("scorekit" in line for line in _output(loaded))
    assert sorted(p.name for p in pytester.path.iterdir()) == before


def test_strict_markers_accept_the_marker_only_with_the_plugin(pytester: pytest.Pytester,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # In a fresh interpreter: pytest's mark generator remembers the markers an earlier in-process run registered.
    monkeypatch.setenv("PYTHONPATH", _this_checkout_first())
    pytester.makepyfile(test_gate=ALL_PASS)
    assert pytester.runpytest_subprocess("-p", "no:cacheprovider", *LOAD, "--strict-markers").ret == 0
    # The reference: without the plugin, --strict-markers refuses the unknown marker.
    refused = pytester.runpytest_subprocess("-p", "no:cacheprovider", *OFF, "--strict-markers")
    assert refused.ret == pytest.ExitCode.INTERRUPTED
    assert "'scorekit' not found in `markers` configuration option" in refused.stdout.str()


IMPORTS_PROBE = """
    import json, sys

    WATCH = ("scorekit", "pandas", "numpy", "scipy", "pyarrow", "jinja2", "matplotlib")

    def pytest_sessionfinish(session):
        loaded = sorted(m for m in WATCH if m in sys.modules)
        with open("loaded.json", "w") as f:
            json.dump({"loaded": loaded, "plugin": "_scorekit_pytest" in sys.modules}, f)
"""


def test_without_out_scorekit_is_not_even_imported(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # A fresh interpreter: this process has loaded everything already.
    pytester.makeconftest(IMPORTS_PROBE)
    pytester.makepyfile(test_gate=ALL_PASS)
    monkeypatch.setenv("PYTHONPATH", _this_checkout_first())  # this checkout's plugin in the child
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *LOAD)
    assert result.ret == 0
    seen = json.loads((pytester.path / "loaded.json").read_text())
    assert seen == {"loaded": [], "plugin": True}
    # The reference: with --scorekit-out, the same probe sees scorekit and its dependencies imported.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *LOAD, "--scorekit-out", "out")
    assert {"scorekit", "pandas", "jinja2"} <= set(json.loads((pytester.path / "loaded.json").read_text())["loaded"])


def test_the_entry_point_module_imports_only_pytest(tmp_path: Path) -> None:
    import subprocess

    script = ("import json, sys; import pytest; before = set(sys.modules);"
              f" import {MODULE}; print(json.dumps(sorted(set(sys.modules) - before)))")
    env = {**os.environ, "PYTHONPATH": _this_checkout_first()}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env,
                         cwd=tmp_path).stdout
    assert json.loads(out) == [MODULE]


# --------------------------------------------------------------------------- the entry point
def test_pyproject_declares_the_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"scorekit": MODULE}
    assert any(d.startswith("pytest-repeat") for d in project["optional-dependencies"]["dev"])


@pytest.mark.skipif(not INSTALLED, reason="scorekit is installed without its pytest11 entry point (reinstall it)")
def test_the_entry_point_loads_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gate=ALL_PASS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--scorekit-out", "out")
    assert result.ret == 0
    assert "decision: INCOMPLETE  (dimension INCOMPLETE: helpfulness)" in result.outlines
    off = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:scorekit", "--scorekit-out", "out")
    assert off.ret == pytest.ExitCode.USAGE_ERROR  # the option is the plugin's: unknown without it



# --------------------------------------------------------------------------- hostile input (SPEC §20)
def test_a_hostile_marker_is_escaped_in_the_summary(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_hostile="""
        import pytest

        @pytest.mark.scorekit(dimension="help\\x1b[2Jful\\n::error::x", case="c\\x1b]0;title\\x07")
        def test_x():
            assert True
    """)
    result = _run(pytester, "--scorekit-out", "out")
    text = result.stdout.str()
    assert "\x1b" not in text and "\x07" not in text
    assert not any(line.startswith("::error::") for line in result.outlines)
    # The evidence keeps the marker's values as given (data, escaped by whatever renders it).
    row = _evidence(pytester.path / "out").iloc[0]
    assert (row["dimension"], row["case_id"]) == ("help\x1b[2Jful\n::error::x", "c\x1b]0;title\x07")
