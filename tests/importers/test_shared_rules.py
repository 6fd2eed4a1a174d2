"""The rules every importer shares, each with one home in ``importers/_base`` (SPEC §15, §20).

A declared repeat count (Inspect's epochs, τ²'s trials, promptfoo's ``--repeat``) follows one bound;
rows built as a cross product (every item × every grader a file names) are capped per item held; the
source line states the sample epochs a run lacks; a format read from one file of a directory layout
(τ²'s ``results.json`` + ``simulations/``) claims the layout's other files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from import_logs import DATA, PROMPTFOO_EXPORT, json_log, write_json_log

import scorekit as sk
from scorekit.importers import import_results
from scorekit.importers._base import REPEATS_BOUND, source_line

TAU_DIR = DATA / "tau" / "mock-llm_agent-dir"


def _promptfoo(tmp_path: Path, repeat: int) -> Path:
    doc = json.loads(PROMPTFOO_EXPORT.read_text(encoding="utf-8"))
    doc.setdefault("config", {})["evaluateOptions"] = {"repeat": repeat}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _inspect(tmp_path: Path, epochs: int) -> Path:
    log = json_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}], scorers=["s"])
    log["eval"].setdefault("config", {})["epochs"] = epochs
    return write_json_log(tmp_path / "log.json", log)


def _tau2(tmp_path: Path, trials: int) -> Path:
    data = {"info": {"num_trials": trials, "agent_info": {"llm": "m"}}, "tasks": [{"id": "a"}],
            "simulations": [{"task_id": "a", "trial": 0, "reward_info": {"reward": 1.0}}]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


WRITERS = {"inspect": (_inspect, "eval.config.epochs"), "tau": (_tau2, "info.num_trials"),
           "promptfoo": (_promptfoo, "config.evaluateOptions.repeat")}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_declared_repeat_count_above_the_shared_bound_is_refused_in_the_same_words(tmp_path, fmt):
    write, position = WRITERS[fmt]
    path = write(tmp_path, REPEATS_BOUND + 1)
    with pytest.raises(sk.InputError) as err:
        import_results(path, fmt)
    assert str(err.value) == (f"{path}: {position}: {REPEATS_BOUND + 1} is more than the file holds "
                              f"({REPEATS_BOUND}, the larger of {REPEATS_BOUND} and the "
                              f"{ {'inspect': 'sample epochs', 'tau': 'simulations', 'promptfoo': 'results'}[fmt]} "
                              "the file holds)")


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_declared_repeat_count_within_the_bound_is_a_plan_counted_never_refused(tmp_path, fmt):
    write, _ = WRITERS[fmt]
    runs = import_results(write(tmp_path, 5_000), fmt)  # promptfoo: one run per provider
    for run in runs:
        assert run.partial
        assert run.source["sample_epochs_planned"] >= 5_000 > run.source["sample_epochs_run"]
        assert len(run.rows) < 100  # the plan is counted, not written as rows


def _items(n: int, *, own_grader: bool) -> str:
    lines = []
    for i in range(n):
        grader = f"g{i}" if own_grader else "g"
        lines.append(json.dumps({"run_id": "r", "data_source_idx": i, "item": {"q": i}, "passes": {grader: True},
                                 "sample": {"sampled_model_name": "m"}}))
    return "\n".join(lines) + "\n"


def test_openai_evals_items_each_naming_their_own_grader_are_refused_not_multiplied(tmp_path):
    """800 items × 800 graders would be 640,000 rows from 800 lines (every item is ERROR ungraded on the others)."""
    path = tmp_path / "items.jsonl"
    path.write_text(_items(800, own_grader=True), encoding="utf-8")
    with pytest.raises(sk.InputError) as err:
        import_results(path, "openai-evals")
    assert str(err.value).startswith(f"{path}: the file would make 640000 rows from the 1600 items and grader "
                                     "results it holds (more than 64 per item)")


def test_openai_evals_items_sharing_graders_are_read_whatever_their_number(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(_items(800, own_grader=False), encoding="utf-8")
    (run,) = import_results(path, "openai-evals")
    assert len(run.rows) == 800 and set(run.rows["status"]) == {"PASS"}


def test_the_source_line_states_the_sample_epochs_an_inspect_log_lacks(tmp_path):
    """Every listed sample ran once, one of three epochs: '2 of 2 samples' alone hid 4 missing epochs."""
    samples = [{"id": i, "epoch": 1, "input": f"q{i}", "scores": {"s": {"value": "C"}}} for i in (1, 2)]
    log = json_log(samples, status="error", scorers=["s"])
    log["eval"].setdefault("config", {})["epochs"] = 3
    (run,) = import_results(write_json_log(tmp_path / "log.json", log), "inspect")
    line = source_line(run.source)
    assert "2 samples" in line or "2 of 2 samples" in line
    assert line.endswith(", 2 of 6 sample epochs, error")


def test_the_source_line_says_nothing_of_epochs_a_run_does_not_lack(tmp_path):
    (run,) = import_results(_inspect(tmp_path, 1), "inspect")
    assert "sample epochs" not in source_line(run.source)


def test_a_tau2_results_directory_claims_its_simulation_files(tmp_path):
    """τ²'s layout: results.json is read, simulations/*.json belong to it and are not each 'skipped'."""
    (run,) = import_results(TAU_DIR)
    assert not [n for n in run.source["notes"] if "skipped" in n]
    assert len(run.rows) == len(json.loads((TAU_DIR / "results.json").read_text())["simulation_index"])


def test_a_file_beside_a_tau2_layout_that_no_format_reads_is_still_noted(tmp_path):
    root = tmp_path / "run"
    shutil.copytree(TAU_DIR, root)
    (root / "notes.txt").write_text("by hand\n", encoding="utf-8")
    (root / "simulations" / "scratch.txt").write_text("by hand\n", encoding="utf-8")
    (run,) = import_results(root)
    skipped = [n for n in run.source["notes"] if "skipped" in n]
    assert [n.split(":")[0] for n in skipped] == [f"skipped {root / 'notes.txt'}",
                                                   f"skipped {root / 'simulations' / 'scratch.txt'}"]
