"""Hostile files for the promptfoo, τ, OpenAI Evals and Assevra importers (SPEC §20, issue 25).

Every record of another tool's file — a result, item, test, task, simulation — and every field
an importer reads for its meaning is checked for shape: a record that is not an object, or a
field of the wrong type, is an InputError naming the file and the position, never dropped in
silence and never a TypeError traceback. A count the file declares is bounded by what it holds.
Each case starts from a real file of the tool (tests/data/imports) and damages one spot.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from import_logs import DATA, PROMPTFOO_EXPORT

import scorekit as sk

TAU = DATA / "tau" / "gpt-4o-airline-10tasks.json"
TAU2 = DATA / "tau" / "tau2-airline-mini.json"
OPENAI_EXPORT = DATA / "openai-evals" / "openai-evals-items.jsonl"
OPENAI_API = DATA / "openai-evals" / "api-output-items.jsonl"
ASSEVRA = DATA / "assevra" / "demo.jsonl"

Edit = Callable[[Any], None]


def _set(path: tuple[Any, ...], value: Any) -> Edit:
    """An edit putting ``value`` at ``path`` (keys and indexes) of a parsed JSON document."""

    def edit(doc: Any) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _write_json(tmp_path: Path, source: Path, edit: Edit, name: str = "results.json") -> Path:
    doc = json.loads(source.read_text(encoding="utf-8"))
    edit(doc)
    out = tmp_path / name
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


def _write_jsonl(tmp_path: Path, source: Path, line: int, edit: Edit, name: str = "items.jsonl") -> Path:
    """``source`` with its ``line``-th (1-based) object edited in place (``edit`` gets a one-item list)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    holder = [json.loads(lines[line - 1])]
    edit(holder)
    lines[line - 1] = json.dumps(holder[0])
    out = tmp_path / name
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _refused(path: Path, fmt: str, position: str) -> str:
    """The one-line InputError importing ``path`` gives; it names the file and ``position``."""
    with pytest.raises(sk.InputError) as err:
        sk.import_results(path, format=fmt)
    message = str(err.value)
    assert str(path) in message and position in message, message
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- promptfoo
R = ("results", "results")
PROMPTFOO_CASES = [
    (_set((*R, 3), [1, 2]), "results.results[3]: expected an object, found a list"),
    (_set((*R, 0), "a result"), "results.results[0]: expected an object, found a string"),
    (_set(R, 5), "results.results: expected a list, found a number"),
    (_set((*R, 1, "testIdx"), "0"), "results.results[1].testIdx: expected a whole number"),
    (_set((*R, 2, "repeatIndex"), -1), "results.results[2].repeatIndex: expected a whole number"),
    (_set((*R, 1, "testCase"), "x"), "results.results[1].testCase: expected an object, found a string"),
    (_set((*R, 1, "testCase", "assert"), 5), "results.results[1].testCase.assert: expected a list"),
    (_set((*R, 1, "testCase", "assert", 0), 3), "results.results[1].testCase.assert[0]: expected an object"),
    (_set((*R, 2, "gradingResult"), []), "results.results[2].gradingResult: expected an object, found a list"),
    (_set((*R, 2, "gradingResult", "componentResults"), {}),
     "results.results[2].gradingResult.componentResults: expected a list, found an object"),
    (_set((*R, 2, "gradingResult", "componentResults", 1), "x"),
     "results.results[2].gradingResult.componentResults[1]: expected an object"),
    (_set((*R, 0, "response"), "ok"), "results.results[0].response: expected an object"),
    (_set((*R, 0, "cost"), "0.1"), "results.results[0].cost: expected a number, found a string"),
    (_set((*R, 3, "provider"), 7), "results.results[3].provider: expected an object or a string"),
    (_set(("results", "prompts"), 5), "results.prompts: expected a list"),
    (_set(("config",), []), "config: expected an object, found a list"),
    (_set(("config", "tests"), 5), "config.tests: expected a list or a file name"),
]


@pytest.mark.parametrize(("edit", "position"), PROMPTFOO_CASES, ids=[p for _, p in PROMPTFOO_CASES])
def test_promptfoo_damaged_record_is_an_input_error_naming_file_and_position(tmp_path, edit, position):
    _refused(_write_json(tmp_path, PROMPTFOO_EXPORT, edit), "promptfoo", position)


def test_promptfoo_declared_repeat_beyond_the_shared_bound_is_refused(tmp_path):
    path = _write_json(tmp_path, PROMPTFOO_EXPORT, _set(("config", "evaluateOptions"), {"repeat": 10**8}))
    assert "more than the file holds (10000, the larger of 10000 and the results" in _refused(
        path, "promptfoo", "config.evaluateOptions.repeat")


# --------------------------------------------------------------------------- τ-bench and τ²-bench
TAU_CASES = [
    (_set((3,), [1, 2]), "[3]: expected an object, found a list"),
    (_set((0,), "x"), "[0]: expected an object, found a string"),
    (_set((5, "reward"), "1"), "[5].reward: expected a number, found a string"),
    (_set((5, "reward"), True), "[5].reward: expected a number, found a boolean"),
    (_set((2, "info"), 5), "[2].info: expected an object, found a number"),
    (_set((2, "info", "task"), "x"), "[2].info.task: expected an object, found a string"),
    (_set((4, "task_id"), [1]), "[4].task_id: expected a string or an integer, found a list"),
]


@pytest.mark.parametrize(("edit", "position"), TAU_CASES, ids=[p for _, p in TAU_CASES])
def test_tau_damaged_result_is_an_input_error_naming_file_and_position(tmp_path, edit, position):
    _refused(_write_json(tmp_path, TAU, edit), "tau", position)


TAU2_CASES = [
    (_set(("simulations", 1), [1]), "simulations[1]: expected an object, found a list"),
    (_set(("simulations",), "x"), "simulations: expected a list, found a string"),
    (_set(("tasks",), "x"), "tasks: expected a list, found a string"),
    (_set(("tasks", 0), 5), "tasks[0]: expected an object, found a number"),
    (_set(("info",), 5), "info: expected an object, found a number"),
    (_set(("info", "agent_info"), "m"), "info.agent_info: expected an object, found a string"),
    (_set(("simulations", 0, "reward_info"), "x"), "simulations[0].reward_info: expected an object"),
    (_set(("simulations", 0, "reward_info", "reward"), "1"), "simulations[0].reward_info.reward: expected a number"),
    (_set(("simulations", 2, "agent_cost"), "0.1"), "simulations[2].agent_cost: expected a number"),
    (_set(("simulations", 2, "duration"), [3]), "simulations[2].duration: expected a number"),
    (_set(("info", "num_trials"), "3"), "info.num_trials: expected a whole number"),
]


@pytest.mark.parametrize(("edit", "position"), TAU2_CASES, ids=[p for _, p in TAU2_CASES])
def test_tau2_damaged_record_is_an_input_error_naming_file_and_position(tmp_path, edit, position):
    _refused(_write_json(tmp_path, TAU2, edit), "tau", position)


def test_tau2_huge_num_trials_from_a_small_file_is_refused_not_materialised(tmp_path):
    """Item 5: ``info.num_trials: 10**8`` with one listed task short of a trial was over 2 GB of rows."""
    data = {"info": {"num_trials": 10**8, "agent_info": {"llm": "m"}}, "tasks": [{"id": "a"}, {"id": "b"}],
            "simulations": [{"task_id": "a", "trial": 0, "reward_info": {"reward": 1.0}}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert path.stat().st_size < 1024
    message = _refused(path, "tau", "info.num_trials")
    assert "100000000 is more than the file holds" in message


def test_tau2_planned_trials_beyond_what_the_file_holds_are_counted_not_materialised(tmp_path):
    """A plan within the bound (5,000 trials × 2 tasks) but far beyond the 3 records held: no 9,999 rows."""
    data = {"info": {"num_trials": 5000, "agent_info": {"llm": "m"}}, "tasks": [{"id": "a"}, {"id": "b"}],
            "simulations": [{"task_id": "a", "trial": 0, "reward_info": {"reward": 1.0}}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = sk.import_results(path, format="tau")[0]
    assert len(run.rows) == 1 and run.partial
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (1, 10_000)
    assert any("counted in sample_epochs_planned" in note for note in run.notes)
    assert sk.evaluate(run).decision == "TRIAGE"


# --------------------------------------------------------------------------- OpenAI Evals
OPENAI_EXPORT_CASES = [
    (2, _set((0, "sample"), "x"), ":2: sample: expected an object, found a string"),
    (1, _set((0, "passes"), [True]), ":1: "),  # not an item of either shape any more: named by its line
    (2, _set((0, "grades"), 5), ":2: grades: expected an object, found a number"),
    (2, _set((0, "sample"), {"outputs": 5}), ":2: sample outputs: expected a list, found a number"),
    (2, _set((0, "sample"), {"outputs": ["x"]}), ":2: sample outputs[0]: expected an object"),
    (2, _set((0, "sample"), {"token_usage": "x"}), ":2: sample usage: expected an object"),
    (2, _set((0, "created_at"), "today"), ":2: created_at: expected a number, found a string"),
]


@pytest.mark.parametrize(("line", "edit", "position"), OPENAI_EXPORT_CASES, ids=[p for *_, p in OPENAI_EXPORT_CASES])
def test_openai_evals_damaged_item_is_an_input_error_naming_file_and_line(tmp_path, line, edit, position):
    _refused(_write_jsonl(tmp_path, OPENAI_EXPORT, line, edit), "openai-evals", position)


OPENAI_API_CASES = [
    (1, _set((0, "results"), 5), ":1: results: expected a list, found a number"),
    (2, _set((0, "results", 0), "x"), ":2: results[0]: expected an object, found a string"),
    (1, _set((0, "sample"), ["x"]), ":1: sample: expected an object, found a list"),
]


@pytest.mark.parametrize(("line", "edit", "position"), OPENAI_API_CASES, ids=[p for *_, p in OPENAI_API_CASES])
def test_openai_evals_api_item_damaged_is_an_input_error(tmp_path, line, edit, position):
    _refused(_write_jsonl(tmp_path, OPENAI_API, line, edit), "openai-evals", position)


# --------------------------------------------------------------------------- Assevra
ASSEVRA_CASES = [
    (2, _set((0,), [1, 2]), ":2: expected a JSON object"),
    (3, _set((0, "case_id"), ["a"]), ":3: case_id: expected a string, found a list"),
    (1, _set((0, "dimension"), {"x": 1}), ":1: dimension: expected a string, found an object"),
    (2, _set((0, "id"), [1]), ":2: id: expected a string, found a list"),
]


@pytest.mark.parametrize(("line", "edit", "position"), ASSEVRA_CASES, ids=[p for *_, p in ASSEVRA_CASES])
def test_assevra_damaged_row_is_an_input_error_naming_file_and_line(tmp_path, line, edit, position):
    _refused(_write_jsonl(tmp_path, ASSEVRA, line, edit, name="dataset.jsonl"), "assevra", position)


# --------------------------------------------------------------------------- every node, every wrong kind
def _nodes(doc: Any, path: tuple[Any, ...] = (), depth: int = 5) -> Iterator[tuple[Any, ...]]:
    """The paths of every object and list of ``doc`` down to ``depth`` (a trajectory is not walked)."""
    if depth == 0:
        return
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        if key in ("traj", "messages", "policy"):
            continue
        if isinstance(value, (dict, list)):
            yield (*path, key)
            yield from _nodes(value, (*path, key), depth - 1)


@pytest.mark.parametrize(("source", "fmt"), [(PROMPTFOO_EXPORT, "promptfoo"), (TAU2, "tau")],
                         ids=["promptfoo", "tau2"])
def test_any_record_replaced_by_a_wrong_kind_imports_or_is_an_input_error_never_a_traceback(tmp_path, source, fmt):
    doc = json.loads(source.read_text(encoding="utf-8"))
    paths = list(_nodes(doc))
    assert len(paths) > 20
    refused = 0
    for path in paths:
        for wrong in (5, "x", [1], {"z": None}):
            damaged = copy.deepcopy(doc)
            _set(path, wrong)(damaged)
            out = tmp_path / "results.json"
            out.write_text(json.dumps(damaged), encoding="utf-8")
            try:
                sk.import_results(out, format=fmt)
            except sk.InputError as exc:
                assert str(out) in str(exc) and "\n" not in str(exc)
                refused += 1
    assert refused > len(paths)  # most damage is refused, the rest is a field scorekit does not read


# --------------------------------------------------------------------------- the CLI: exit 2, one line
CLI_CASES = [
    ("promptfoo", lambda tmp: _write_json(tmp, PROMPTFOO_EXPORT, _set((*R, 3), [1, 2]))),
    ("tau", lambda tmp: _write_json(tmp, TAU, _set((3, "reward"), "1"))),
    ("tau", lambda tmp: _write_json(tmp, TAU2, _set(("info", "num_trials"), 10**8))),
    ("openai-evals", lambda tmp: _write_jsonl(tmp, OPENAI_EXPORT, 2, _set((0, "sample"), "x"))),
    ("assevra", lambda tmp: _write_jsonl(tmp, ASSEVRA, 3, _set((0, "case_id"), ["a"]), name="dataset.jsonl")),
]


@pytest.mark.parametrize(("fmt", "make"), CLI_CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CLI_CASES)])
def test_cli_import_of_a_damaged_file_exits_2_in_one_line(run_cli, tmp_path, fmt, make):
    path = make(tmp_path)
    code, out, err = run_cli("import", "--from", fmt, path, "--out-dir", tmp_path / "out")
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0], err
    assert "Traceback" not in err and not re.search(r"\bTypeError\b", err)
