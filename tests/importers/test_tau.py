"""τ-bench / τ²-bench importer (SPEC §15 ``tau``): every mapping rule, on the shared file."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import writable_copy

import scorekit as sk
from scorekit._errors import NoSamplesError
from scorekit.importers import FORMATS, _tau

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "tau"
TAU = DATA / "gpt-4o-airline-10tasks.json"
TAU2 = DATA / "tau2-airline-mini.json"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: Any, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _one(path: Path) -> sk.importers.ImportedRun:
    runs = _tau.read(path)
    assert len(runs) == 1
    return runs[0]


def _status(run: Any, case: str, trial: int) -> tuple[str, Any]:
    rows = run.rows
    row = rows[(rows["case_id"] == case) & (rows["trial"] == trial)]
    assert len(row) == 1
    reason = row["reason"].iloc[0] if "reason" in rows.columns else None
    return row["status"].iloc[0], (None if isinstance(reason, float) and math.isnan(reason) else reason)


def _tau_pass_hat_k(results: list[dict[str, Any]], k: int) -> float:
    """τ-bench's own formula, from the file's JSON: mean over tasks of C(c, k) / C(n, k)."""
    by_task: dict[Any, list[bool]] = {}
    for r in results:
        by_task.setdefault(r["task_id"], []).append(1 - 1e-6 <= r["reward"] <= 1 + 1e-6)
    return sum(math.comb(sum(v), k) / math.comb(len(v), k) for v in by_task.values()) / len(by_task)


def test_tau_is_registered_format() -> None:
    assert FORMATS["tau"] == "scorekit.importers._tau"
    assert _tau.FORMAT == "tau"


def test_tau_counts_equal_source() -> None:
    source = _json(TAU)
    run = _one(TAU)
    rows = run.rows
    assert len(rows) == len(source)
    assert set(rows["dimension"]) == {"tau_reward"}
    passes = sum(1 for r in source if abs(r["reward"] - 1) <= 1e-6)
    assert (rows["status"] == "PASS").sum() == passes
    assert (rows["status"] == "FAIL").sum() == len(source) - passes
    assert run.source["samples_run"] == len({r["task_id"] for r in source})
    assert run.source["epochs"] == max(r["trial"] for r in source) + 1


def test_tau_pass_k_equals_tau_bench_formula() -> None:
    source = _json(TAU)
    run = _one(TAU)
    card = sk.evaluate(run.rows, policy={"pass_k": [1, 2, 3, 4], "gate": {"thresholds": {"tau_reward": 0.1}}})
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "tau_reward")
    for k in (1, 2, 3, 4):
        expected = _tau_pass_hat_k(source, k)
        assert dim["pass_k"][str(k)] == pytest.approx(expected, abs=1e-12)
        assert run.source["metrics"][f"pass^{k}"] == pytest.approx(expected, abs=1e-12)
    assert dim["rate"] == pytest.approx(_tau_pass_hat_k(source, 1))


def test_tau_reward_one_within_tolerance_is_pass(tmp_path: Path) -> None:
    rewards = [1.0, 1 - 5e-7, 1 + 5e-7, 1 - 2e-6, 0.999, 0.5, 0.0, 1]
    data = [{"task_id": i, "trial": 0, "reward": r, "info": {}, "traj": []} for i, r in enumerate(rewards)]
    run = _one(_write(tmp_path, data))
    statuses = [_status(run, str(i), 0)[0] for i in range(len(rewards))]
    assert statuses == ["PASS", "PASS", "PASS", "FAIL", "FAIL", "FAIL", "FAIL", "PASS"]
    assert _status(run, "5", 0)[1] == "reward_not_one"


def test_tau_cut_off_run_scores_zero_and_fails(tmp_path: Path) -> None:
    """A run stopped at the step or error limit carries reward 0 in τ-bench: FAIL here, not ERROR."""
    source = _json(TAU)
    cut = next(r for r in source if r["reward"] == 0.0)
    run = _one(_write(tmp_path, [cut]))
    assert _status(run, str(cut["task_id"]), cut["trial"]) == ("FAIL", "reward_not_one")


def test_tau_agent_from_file_stem() -> None:
    run = _one(TAU)
    assert run.agent == "gpt-4o-airline-10tasks"
    assert set(run.rows["agent"]) == {"gpt-4o-airline-10tasks"}
    assert any("file name's stem" in note for note in run.notes)


def test_tau_case_is_task_and_trial_is_trial_and_run() -> None:
    source = _json(TAU)
    run = _one(TAU)
    got = sorted(zip(run.rows["case_id"], run.rows["trial"], run.rows["run"], strict=True))
    assert got == sorted((str(r["task_id"]), r["trial"], r["trial"]) for r in source)


def test_tau_task_definition_is_case_input() -> None:
    source = _json(TAU)
    run = _one(TAU)
    first = run.rows.iloc[0]
    assert first["input"] == source[0]["info"]["task"]


def test_tau_rows_pass_validation() -> None:
    rows = sk.read_rows(_one(TAU).rows)
    assert len(rows) == 40


def test_tau_every_mapping_decision_noted() -> None:
    notes = " ".join(_one(TAU).notes)
    for word in ("tau_reward", "1e-06", "case_id = the task id", "agent =", "traj"):
        assert word in notes


def test_tau_unequal_trials_is_partial(tmp_path: Path) -> None:
    source = _json(TAU)
    short = [r for r in source if not (r["task_id"] == 3 and r["trial"] == 3)]
    run = _one(_write(tmp_path, short))
    assert run.partial is True
    assert any(note.startswith("partial:") for note in run.notes)
    assert _one(TAU).partial is False


def test_tau_no_results_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(sk.InputError, match="holds no results"):
        _tau.read(_write(tmp_path, []))


def test_tau_nan_reward_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nan.json"
    path.write_text('[{"task_id": 0, "trial": 0, "reward": NaN, "info": {}, "traj": []}]', encoding="utf-8")
    with pytest.raises(sk.InputError) as err:
        _tau.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_tau_result_without_task_id_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(sk.InputError, match="task_id"):
        _tau.read(_write(tmp_path, [{"task_id": 0, "reward": 1.0}, {"task_id": None, "reward": 1.0}]))


def test_tau_null_reward_is_error_and_a_non_number_reward_an_input_error(tmp_path: Path) -> None:
    run = _one(_write(tmp_path, [{"task_id": 0, "trial": 0, "reward": None}]))
    assert _status(run, "0", 0) == ("ERROR", "invalid_reward")
    for bad in ("1", True, [1]):  # a damaged record: refused naming its position, never a row
        data = [{"task_id": 0, "trial": 0, "reward": 1.0}, {"task_id": 1, "trial": 0, "reward": bad}]
        with pytest.raises(sk.InputError, match=r"results.json: \[1\]\.reward: expected a number"):
            _tau.read(_write(tmp_path, data))


def test_tau_detect_by_content_not_name(tmp_path: Path) -> None:
    renamed = tmp_path / "results.txt"
    shutil.copy(TAU, renamed)
    assert _tau.detect(renamed) and _tau.detect(TAU2)
    rows = tmp_path / "tau.json"
    rows.write_text('{"id": "r1", "dimension": "pii", "agent_output": "x"}\n', encoding="utf-8")
    assert not _tau.detect(rows)
    assert not _tau.detect(tmp_path)  # a directory is not a τ results file


# --------------------------------------------------------------------------- τ²-bench
def test_tau2_agent_from_agent_info_llm() -> None:
    run = _one(TAU2)
    assert run.agent == _json(TAU2)["info"]["agent_info"]["llm"] == "claude-sonnet-4-5"
    assert run.task == "airline"
    assert run.source["harness"] == "tau2-bench"
    assert run.source["dataset_size"] == 2 and run.source["epochs"] == 2


def test_tau2_agent_without_llm_is_file_stem(tmp_path: Path) -> None:
    data = _json(TAU2)
    data["info"]["agent_info"]["llm"] = None
    assert _one(_write(tmp_path, data, "my-agent.json")).agent == "my-agent"


def test_tau2_infrastructure_error_is_error() -> None:
    run = _one(TAU2)
    assert _status(run, "1", 0) == ("ERROR", "infrastructure_error")
    assert run.source["metrics"]["infra_error_count"] == 1


def test_tau2_counts_and_pass_k_equal_tau2_metrics() -> None:
    """τ² leaves infrastructure errors out of its metrics; scorekit's ERROR rows are outside the denominators."""
    data = _json(TAU2)
    evaluated = [s for s in data["simulations"] if s["termination_reason"] != "infrastructure_error"]
    results = [{"task_id": s["task_id"], "reward": s["reward_info"]["reward"]} for s in evaluated]
    run = _one(TAU2)
    card = sk.evaluate(run.rows, policy={"purpose": "exploratory"})
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "tau_reward")
    assert (dim["passes"], dim["fails"], dim["errors"]) == (2, 1, 1)
    assert dim["pass_k"]["1"] == pytest.approx(_tau_pass_hat_k(results, 1))
    assert run.source["metrics"]["pass^1"] == pytest.approx(_tau_pass_hat_k(results, 1))


def test_tau2_reward_within_tolerance_is_pass() -> None:
    assert _status(_one(TAU2), "1", 1) == ("PASS", None)


def test_tau2_cost_and_duration_carried() -> None:
    rows = _one(TAU2).rows
    row = rows[(rows["case_id"] == "0") & (rows["trial"] == 0)].iloc[0]
    assert row["cost_usd"] == 0.0412 and row["latency_s"] == 32.1


def test_tau2_unscored_simulation_is_error(tmp_path: Path) -> None:
    data = _json(TAU2)
    data["simulations"][1]["reward_info"] = None
    assert _status(_one(_write(tmp_path, data)), "0", 1) == ("ERROR", "unscored")


def test_tau2_missing_simulation_is_error_not_run_and_partial(tmp_path: Path) -> None:
    data = _json(TAU2)
    del data["simulations"][1]  # task 0, trial 1 never ran
    run = _one(_write(tmp_path, data))
    assert run.partial is True
    assert _status(run, "0", 1) == ("ERROR", "not_run")
    assert len(run.rows) == 4
    assert _one(TAU2).partial is False


def test_tau2_no_simulations_is_input_error(tmp_path: Path) -> None:
    data = _json(TAU2)
    data["simulations"] = []
    with pytest.raises(sk.InputError, match="no results|no simulations"):
        _tau.read(_write(tmp_path, data))


def test_tau2_rows_pass_validation() -> None:
    assert len(sk.read_rows(_one(TAU2).rows)) == 4


# --------------------------------------------------------------------------- property
_REWARDS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.sampled_from([1.0, 1, 1 - 1e-7, 1 + 1e-7, 0.9999989, 1.0000011]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rewards=st.lists(_REWARDS, min_size=1, max_size=6), tau2=st.booleans())
def test_tau_never_pass_unless_reward_one(tmp_path: Path, rewards: list[Any], tau2: bool) -> None:
    if tau2:
        data: Any = {"info": {"num_trials": 1, "agent_info": {"llm": "m"}}, "tasks": [],
                     "simulations": [{"task_id": str(i), "trial": 0, "termination_reason": "user_stop",
                                      "reward_info": {"reward": r}} for i, r in enumerate(rewards)]}
    else:
        data = [{"task_id": i, "trial": 0, "reward": r} for i, r in enumerate(rewards)]
    if any(r is not None and (isinstance(r, bool) or not isinstance(r, (int, float))) for r in rewards):
        with pytest.raises(sk.InputError, match="reward: expected a number"):
            _tau.read(_write(tmp_path, data))
        return
    run = _one(_write(tmp_path, data))
    for i, reward in enumerate(rewards):
        status, _ = _status(run, str(i), 0)
        is_one = (isinstance(reward, (int, float)) and not isinstance(reward, bool)
                  and abs(reward - 1) <= 1e-6)
        assert (status == "PASS") == is_one


# --------------------------------------------------------------------------- τ² directory layout
TAU2_DIR = DATA / "mock-llm_agent-dir"


def test_tau2_directory_layout_imports_with_tau2s_own_figures() -> None:
    """``tau2 convert-results --to dir`` output: results.json's simulation_index + simulations/*.json (SPEC §15)."""
    runs = sk.import_results(TAU2_DIR, format="tau")
    assert len(runs) == 1
    run = runs[0]
    assert (run.agent, run.task, len(run.rows)) == ("gpt-4.1-mini", "mock", 12)
    assert run.source["epochs"] == 3 and run.source["dataset_size"] == 4 and not run.partial
    # τ²'s own figures for this run (shared expected.json, computed by tau2's compute_metrics)
    assert run.source["metrics"]["avg_reward"] == pytest.approx(0.25)
    for k in (1, 2, 3):
        assert run.source["metrics"][f"pass^{k}"] == pytest.approx(0.25)
    passed = run.rows[run.rows["status"] == "PASS"]
    assert set(passed["case_id"]) == {"create_task_1_nl_eval"} and len(passed) == 3
    # the simulations' own outcomes, read from each simulations/<id>.json independently
    for sim_file in (TAU2_DIR / "simulations").glob("*.json"):
        sim = _json(sim_file)
        expected = "PASS" if abs(sim["reward_info"]["reward"] - 1) <= 1e-6 else "FAIL"
        assert _status(run, sim["task_id"], sim["trial"])[0] == expected
    card = sk.evaluate(run)
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "tau_reward")
    assert dim["pass_k"]["2"] == pytest.approx(0.25)


def test_tau2_directory_layout_damaged_index_names_its_position(tmp_path: Path) -> None:
    data = _json(TAU2_DIR / "results.json")
    data["simulation_index"][2]["reward"] = "1"
    with pytest.raises(sk.InputError, match=r"results.json: simulation_index\[2\]\.reward: expected a number"):
        _tau.read(_write(tmp_path, data))


# --------------------------------------------------------------------------- τ² 1.0 directory layout, file by file
TAU2_EXPECTED = {"metrics": {"avg_reward": 0.25, "pass_hat_ks": {"1": 0.25, "2": 0.25, "3": 0.25}},
                 "num_trials": 3, "total_tasks": 4}  # shared data/imports-2/expected.json, section "tau2"
LEADERBOARD = DATA / "leaderboard" / "claude-opus-4-5_sierra_2026-02-26" / "submission.json"


def _layout_copy(tmp_path: Path, *, index: bool = True) -> Path:
    """The real directory copied to ``tmp_path`` (a test may then damage the copy), its index kept or dropped."""
    target = writable_copy(TAU2_DIR, tmp_path / "run")
    if not index:
        data = _json(target / "results.json")
        del data["simulation_index"]
        (target / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return target


def _expected_from_files(folder: Path) -> tuple[dict[tuple[str, int], str], dict[int, float]]:
    """Each simulation's outcome and τ²'s pass^k (mean over tasks of C(c,k)/C(n,k)), from the files' own JSON."""
    outcomes: dict[tuple[str, int], str] = {}
    success: dict[str, list[bool]] = {}
    for sim_file in sorted((folder / "simulations").glob("*.json")):
        sim = _json(sim_file)
        ok = 1 - 1e-6 <= sim["reward_info"]["reward"] <= 1 + 1e-6
        outcomes[(sim["task_id"], sim["trial"])] = "PASS" if ok else "FAIL"
        success.setdefault(sim["task_id"], []).append(ok)
    pass_k = {k: sum(math.comb(sum(v), k) / math.comb(len(v), k) for v in success.values()) / len(success)
              for k in (1, 2, 3)}
    return outcomes, pass_k


@pytest.mark.parametrize("index", [True, False])
@pytest.mark.parametrize("how", ["directory", "results.json", "auto directory", "auto results.json"])
def test_tau2_layout_reads_each_simulation_file_with_tau2s_own_figures(tmp_path: Path, index: bool, how: str) -> None:
    folder = _layout_copy(tmp_path, index=index)
    source = folder if how.endswith("directory") else folder / "results.json"
    runs = sk.import_results(source, format="auto" if how.startswith("auto") else "tau")
    assert len(runs) == 1
    run = runs[0]
    outcomes, pass_k = _expected_from_files(folder)
    assert len(run.rows) == len(outcomes) == TAU2_EXPECTED["total_tasks"] * TAU2_EXPECTED["num_trials"]
    for (task, trial), status in outcomes.items():
        assert _status(run, task, trial)[0] == status
    assert run.rows["status"].value_counts().to_dict() == {"FAIL": 9, "PASS": 3}
    for k, value in TAU2_EXPECTED["metrics"]["pass_hat_ks"].items():
        assert run.source["metrics"][f"pass^{k}"] == pytest.approx(value) == pytest.approx(pass_k[int(k)])
    assert run.source["metrics"]["avg_reward"] == pytest.approx(TAU2_EXPECTED["metrics"]["avg_reward"])
    assert not run.partial and run.source["epochs"] == 3 and run.source["dataset_size"] == 4
    dim = next(d for d in sk.evaluate(run).to_dict()["dimensions"] if d["name"] == "tau_reward")
    assert dim["pass_k"]["2"] == pytest.approx(TAU2_EXPECTED["metrics"]["pass_hat_ks"]["2"])


def test_tau2_layout_without_its_folder_reads_the_index_alike(tmp_path: Path) -> None:
    shutil.copy(TAU2_DIR / "results.json", tmp_path / "results.json")
    alone = _one(tmp_path / "results.json")
    with_files = _one(TAU2_DIR / "results.json")
    key = ["case_id", "trial", "status"]
    assert alone.rows[key].sort_values(key).values.tolist() == with_files.rows[key].sort_values(key).values.tolist()


def _one_sim(folder: Path) -> Path:
    return sorted((folder / "simulations").glob("*.json"))[0]


@pytest.mark.parametrize(("damage", "message"), [
    (lambda sim: sim["reward_info"].update(reward="1.0"), r": reward_info\.reward: expected a number, found a string"),
    (lambda sim: sim.pop("task_id"), r": task_id: "),
    (lambda sim: sim.update(reward_info=[1.0]), r": reward_info: expected an object"),
    (lambda sim: sim.update(duration="fast"), r": duration: "),
])
def test_tau2_damaged_simulation_file_exits_2_naming_file_and_field(run_cli, tmp_path: Path, damage: Any,
                                                                    message: str) -> None:
    folder = _layout_copy(tmp_path)
    sim_file = _one_sim(folder)
    sim = _json(sim_file)
    damage(sim)
    sim_file.write_text(json.dumps(sim), encoding="utf-8")
    with pytest.raises(sk.InputError, match=sim_file.name + message):
        sk.import_results(folder, format="tau")
    code, _out, err = run_cli("import", "--from", "tau", folder, "--out-dir", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1 and sim_file.name in err and "Traceback" not in err


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", ""])
def test_tau2_unreadable_simulation_file_is_an_input_error_naming_it(tmp_path: Path, text: str) -> None:
    folder = _layout_copy(tmp_path)
    sim_file = _one_sim(folder)
    sim_file.write_text(text, encoding="utf-8")
    with pytest.raises(sk.InputError, match=sim_file.name) as info:
        sk.import_results(folder / "results.json", format="tau")
    assert "\n" not in str(info.value)


def test_tau2_index_and_files_must_agree_as_tau2_requires(tmp_path: Path) -> None:
    folder = _layout_copy(tmp_path)
    gone = _one_sim(folder)
    gone.unlink()
    with pytest.raises(sk.InputError, match=rf"simulation_index\[\d+\]: simulation '{gone.stem}' has no file"):
        sk.import_results(folder, format="tau")
    folder = _layout_copy(tmp_path / "extra")
    shutil.copy(_one_sim(folder), folder / "simulations" / "0-extra.json")
    with pytest.raises(sk.InputError, match=r"0-extra\.json: a simulation file results\.json's simulation_index"):
        sk.import_results(folder, format="tau")


def test_tau2_layout_import_and_run_from_the_cli(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "tau", TAU2_DIR, "--out-dir", tmp_path / "out")
    assert code == 0, err
    written = sorted(p for p in (tmp_path / "out").iterdir() if p.is_dir())
    assert len(written) == 1 and (tmp_path / "out" / "policy.stub.yml").is_file()
    rows = sk.read_rows(written[0] / "results.jsonl")
    assert len(rows) == 12 and (rows["status"] == "PASS").sum() == 3
    policy = tmp_path / "policy.yml"
    policy.write_text("gate:\n  thresholds:\n    tau_reward: 0.2\n", encoding="utf-8")
    code, out, err = run_cli("run", "--from", "auto", "--results", TAU2_DIR, "--policy", policy,
                             "--out-dir", tmp_path / "r1")
    assert code in (0, 1) and "Traceback" not in err, err
    card = json.loads((tmp_path / "r1" / "scorecard.json").read_text(encoding="utf-8"))
    assert card["source"]["format"] == "tau" and card["agent"]["name"] == "gpt-4.1-mini"


def test_tau2_leaderboard_submission_is_a_source_without_samples(run_cli, tmp_path: Path) -> None:
    data = _json(LEADERBOARD)
    assert "simulations" not in data and all("pass_1" in v for v in data["results"].values())  # figures only
    assert _tau.detect(LEADERBOARD)
    with pytest.raises(NoSamplesError, match=r"submission\.json: .*only leaderboard figures"):
        sk.import_results(LEADERBOARD, format="tau")
    for fmt in ("tau", "auto"):
        code, _out, err = run_cli("import", "--from", fmt, LEADERBOARD, "--out-dir", tmp_path / fmt)
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert "submission.json" in err and "leaderboard" in err
        code, _out, err = run_cli("run", "--from", fmt, "--results", LEADERBOARD, "--out-dir", tmp_path / fmt)
        assert code == 2 and "leaderboard" in err and len(err.strip().splitlines()) == 1
    # in a directory it is skipped with a note; a directory left with nothing is the error
    with pytest.raises(sk.InputError, match="nothing to import.*leaderboard"):
        sk.import_results(LEADERBOARD.parent.parent, format="auto")


# --------------------------------------------------------------------------- τ² run where every reward is 0
ALLFAIL_DIR = DATA / "mock-llm_agent-allfail-dir"
# τ²'s own figures for it (tau2 1.0.1's load_results_dict + compute_metrics, as make_expected.py's tau2 section)
ALLFAIL_EXPECTED = {"avg_reward": 0.0, "pass_hat_ks": {"1": 0.0, "2": 0.0}, "total_simulations": 6, "total_tasks": 3,
                    "infra_error_count": 0, "num_trials": 2,
                    "simulations": [[task, trial, "user_stop", 0.0]
                                    for task in ("create_task_1", "impossible_task_1", "update_task_1")
                                    for trial in (0, 1)]}


def test_tau2_all_fail_directory_has_tau2s_own_figures() -> None:
    """A real τ² 1.0.1 run (3 tasks x 2 trials, every reward 0): nothing passes, pass^1 = pass^2 = 0 as τ² says."""
    (run,) = sk.import_results(ALLFAIL_DIR, format="auto")
    assert run.source["format"] == "tau" and (run.agent, run.task) == ("gpt-4.1-mini", "mock")
    assert run.source["epochs"] == ALLFAIL_EXPECTED["num_trials"] and not run.partial
    assert run.source["dataset_size"] == ALLFAIL_EXPECTED["total_tasks"]
    assert len(run.rows) == ALLFAIL_EXPECTED["total_simulations"]
    assert (run.rows["status"] == "FAIL").all() and set(run.rows["reason"]) == {"reward_not_one"}
    assert run.source["metrics"]["avg_reward"] == ALLFAIL_EXPECTED["avg_reward"]
    assert run.source["metrics"]["infra_error_count"] == ALLFAIL_EXPECTED["infra_error_count"]
    # each simulation file's own task, trial and reward, read without scorekit
    sims = sorted([s["task_id"], s["trial"], s["termination_reason"], s["reward_info"]["reward"]]
                  for s in map(_json, (ALLFAIL_DIR / "simulations").glob("*.json")))
    assert sims == ALLFAIL_EXPECTED["simulations"]
    got = sorted(zip(run.rows["case_id"], run.rows["trial"], run.rows["status"], strict=True))
    assert got == [(task, trial, "FAIL") for task, trial, _, _ in sims]
    card = sk.evaluate(run, policy={"pass_k": [1, 2]})
    pass_k = next(d for d in card.to_dict()["dimensions"] if d["name"] == "tau_reward")["pass_k"]
    for k, want in ALLFAIL_EXPECTED["pass_hat_ks"].items():
        assert run.source["metrics"][f"pass^{k}"] == want
        assert pass_k[k] == want
        results = [{"task_id": t, "reward": r} for t, _, _, r in sims]
        assert _tau_pass_hat_k(results, int(k)) == want  # τ-bench's formula on the files' own rewards


def test_tau2_all_fail_directory_fails_its_gate_from_the_cli(run_cli, tmp_path: Path) -> None:
    code, _out, err = run_cli("import", "--from", "tau", ALLFAIL_DIR, "--out-dir", tmp_path / "out")
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    rows = sk.read_rows(folder / "results.jsonl")
    assert len(rows) == 6 and (rows["status"] == "FAIL").all()
    assert json.loads((folder / "source.json").read_text(encoding="utf-8"))["metrics"]["pass^2"] == 0.0
    policy = tmp_path / "policy.yml"
    policy.write_text("gate:\n  thresholds:\n    tau_reward: 0.2\n", encoding="utf-8")
    code, _out, err = run_cli("run", "--from", "tau", "--results", ALLFAIL_DIR, "--policy", policy,
                              "--out-dir", tmp_path / "card", "--gate")
    assert code == 1, err
    card = json.loads((tmp_path / "card" / "scorecard.json").read_text(encoding="utf-8"))
    assert card["decision"] == "FAIL" and not card["overall_pass"]
