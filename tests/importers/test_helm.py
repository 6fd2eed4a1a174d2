"""HELM importer (SPEC §15 ``helm``): the shared run directories, their variants and damaged copies.

Reference figures are HELM's own: its ``stats.json`` read here with ``json`` (not through scorekit),
and the shared data's expected.json (imports-2, section ``helm``: written by make_expected.py from
HELM's own files), restated below with that source.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import writable_copy

import scorekit as sk
from scorekit._errors import NoSamplesError
from scorekit.importers import FORMATS, _helm
from scorekit.importers._read import detect_format

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "helm"
MMLU = DATA / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
SIMPLE = DATA / "simple_mcqa:model=simple_model1"
#: built by hand after HELM 0.5.16's source (tests/data/build_helm_simple_runs.py; README of tests/data/imports): the
#: held-back runs of make_helm_runs.sh, whose helm-run could not run here (crfm-helm needs torch)
CLASSIFICATION = DATA / "simple_classification:model=simple_model1"
SIMPLE1 = DATA / "simple1:model=simple_model1"
METRICS = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match")
#: expected.json ("helm" section of shared/data/imports-2): HELM's headline means per split.
EXPECTED = {
    MMLU.name: {"model": "openai/gpt2", "request_states": 10,
                "headline": {"exact_match@test": 0.1111111111111111, "exact_match@valid": 0.0,
                             "quasi_exact_match@test": 0.1111111111111111, "quasi_exact_match@valid": 0.0,
                             "prefix_exact_match@test": 0.1111111111111111, "prefix_exact_match@valid": 0.0},
                "passing": {"id222"}},
    SIMPLE.name: {"model": "simple/model1", "request_states": 10,
                  "headline": {"exact_match@test": 0.0, "quasi_exact_match@test": 0.0,
                               "prefix_exact_match@test": 0.0},
                  "passing": set()},
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _dump(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _copy(tmp_path: Path, source: Path = SIMPLE) -> Path:
    """A writable copy of a shared run directory (its name kept) to damage or vary."""
    return writable_copy(source, tmp_path / source.name)


def _one(path: Path) -> sk.importers.ImportedRun:
    runs = sk.import_results(path, format="helm")
    assert len(runs) == 1
    return runs[0]


def _helm_means(folder: Path) -> dict[str, float]:
    """HELM's own aggregate (stats.json) of each unperturbed stat, keyed ``name@split``."""
    out = {}
    for stat in _json(folder / "stats.json"):
        name = stat["name"]
        if "perturbation" not in name and "sub_split" not in name and stat["count"]:
            out[f"{name['name']}@{name['split']}"] = stat["mean"]
    return out


def _file_counts(folder: Path) -> dict[str, dict[str, int]]:
    """PASS/FAIL per ``metric@split``, counted from per_instance_stats.json's own means."""
    out: dict[str, dict[str, int]] = {}
    for entry in _json(folder / "per_instance_stats.json"):
        for stat in entry["stats"]:
            if stat["name"]["name"] in METRICS:
                slot = out.setdefault(f"{stat['name']['name']}@{stat['name']['split']}", {"PASS": 0, "FAIL": 0})
                slot["PASS" if stat["mean"] == 1 else "FAIL"] += 1
    return out


def _dimensions(card: Any) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in card.to_dict()["dimensions"]}


def test_helm_is_registered_format() -> None:
    assert FORMATS["helm"] == "scorekit.importers._helm"
    assert _helm.FORMAT == "helm"


@pytest.mark.parametrize("folder", [MMLU, SIMPLE], ids=["mmlu", "simple_mcqa"])
def test_helm_counts_and_pass1_per_split_equal_helms_own(folder: Path) -> None:
    run = _one(folder)
    expected = EXPECTED[folder.name]
    spec = _json(folder / "run_spec.json")
    assert run.agent == spec["adapter_spec"]["model_deployment"] and run.task == spec["name"]
    assert not run.partial and run.source["format"] == "helm"
    assert run.source["samples_run"] == expected["request_states"]
    rows = run.rows
    for dimension, want in _file_counts(folder).items():
        mine = rows[rows["dimension"] == dimension]
        assert (mine["status"] == "PASS").sum() == want["PASS"], dimension
        assert (mine["status"] == "FAIL").sum() == want["FAIL"], dimension
    assert not (rows["status"] == "ERROR").any()
    assert set(rows.loc[rows["status"] == "PASS", "case_id"]) == expected["passing"]
    assert set(rows["dimension"]) == set(_file_counts(folder))
    card = sk.evaluate(run, policy={"purpose": "exploratory"})
    dims = _dimensions(card)
    helm = _helm_means(folder)
    for dimension, mean in expected["headline"].items():
        assert dims[dimension]["pass_k"]["1"] == pytest.approx(mean, abs=1e-12)  # expected.json
        assert helm[dimension] == pytest.approx(mean, abs=1e-12)  # stats.json, read here
        assert run.source["metrics"][dimension]["mean"] == pytest.approx(mean, abs=1e-12)
    for metric in METRICS:  # every split HELM reports, quasi_prefix too (stats.json)
        for key in [f"{metric}@{split}" for split in ("test", "valid") if f"{metric}@{split}" in helm]:
            assert dims[key]["pass_k"]["1"] == pytest.approx(helm[key], abs=1e-12)


def test_helm_mmlu_split_figures_as_the_tool_reports_them() -> None:
    """The tool's headline is per split: exact_match test 1 of 9 = 0.1111, valid 0 of 1 = 0.0."""
    run = _one(MMLU)
    dims = _dimensions(sk.evaluate(run, policy={"purpose": "exploratory"}))
    assert (dims["exact_match@test"]["passes"], dims["exact_match@test"]["fails"]) == (1, 8)
    assert (dims["exact_match@valid"]["passes"], dims["exact_match@valid"]["fails"]) == (0, 1)
    assert dims["exact_match@test"]["pass_k"]["1"] == pytest.approx(1 / 9)
    assert any("<metric>@<split>" in note for note in run.notes)


def test_helm_rows_carry_instance_input_and_completion() -> None:
    run = _one(SIMPLE)
    state = _json(SIMPLE / "scenario_state.json")["request_states"]
    first = state[0]
    row = run.rows[(run.rows["case_id"] == first["instance"]["id"]) & (run.rows["dimension"] == "exact_match@test")]
    assert len(row) == 1
    assert row["input"].iloc[0]["text"] == first["instance"]["input"]["text"]
    assert row["agent_output"].iloc[0] == first["result"]["completions"][0]["text"]
    assert row["trial"].iloc[0] == first["train_trial_index"] and row["evaluator"].iloc[0] == "helm:exact_match"
    assert row["reason"].iloc[0] == "helm_zero"


def test_helm_reads_older_helms_plain_text_inputs(tmp_path: Path) -> None:
    """HELM 0.2 wrote an instance's input and a reference's output as the text itself, not ``{text}``."""
    folder = _copy(tmp_path)
    state = _json(folder / "scenario_state.json")
    for rs in state["request_states"]:
        rs["instance"]["input"] = rs["instance"]["input"]["text"]
        for ref in rs["instance"]["references"]:
            ref["output"] = ref["output"]["text"]
    _dump(folder / "scenario_state.json", state)
    old, new = _one(SIMPLE).rows, _one(folder).rows
    assert old["input"].tolist() == new["input"].tolist() and old["status"].tolist() == new["status"].tolist()


# --------------------------------------------------------------------------- detection and the layout
def test_helm_detect_by_content(tmp_path: Path) -> None:
    assert _helm.detect(MMLU) and _helm.detect(SIMPLE)
    assert _helm.detect(MMLU / "run_spec.json")
    for name in ("per_instance_stats.json", "stats.json", "scenario_state.json", "scenario.json"):
        assert not _helm.detect(MMLU / name), name  # read with the run spec, not again
    alone = tmp_path / "renamed.json"
    shutil.copy(SIMPLE / "per_instance_stats.json", alone)
    assert _helm.detect(alone)  # per-instance stats with no run spec beside them
    spec = tmp_path / "spec" / "anything.json"
    spec.parent.mkdir()
    shutil.copy(SIMPLE / "run_spec.json", spec)
    assert _helm.detect(spec)
    other = tmp_path / "rows.json"
    _dump(other, [{"id": "a", "dimension": "x", "status": "PASS", "evaluator": "e"}])
    assert not _helm.detect(other) and not _helm.detect(tmp_path / "missing.json") and not _helm.detect(tmp_path)


def test_helm_does_not_claim_other_formats_files_nor_they_its() -> None:
    root = DATA.parent
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if DATA in path.parents:
            found = detect_format(path)
            assert found == ("helm" if path.name == "run_spec.json" else None), path
        else:
            assert not _helm.detect(path), path


def test_helm_directory_walk_reads_each_run_once_and_notes_nothing_skipped() -> None:
    runs = sk.import_results(DATA, format="auto")
    assert sorted(r.task for r in runs) == sorted(_json(d / "run_spec.json")["name"]
                                                  for d in (MMLU, SIMPLE, CLASSIFICATION))
    for run in runs:  # simple1 has no main metric: skipped with a note, nothing else is
        assert all(str(SIMPLE1) in note for note in run.notes if "skipped" in note)
    assert _helm.claims(MMLU / "run_spec.json") == {MMLU / n for n in ("scenario.json", "scenario_state.json",
                                                                        "stats.json", "per_instance_stats.json")}


def test_helm_reads_the_run_from_its_run_spec_or_its_stats_file() -> None:
    by_dir, by_spec = _one(MMLU), _one(MMLU / "run_spec.json")
    assert by_dir.rows.equals(by_spec.rows)
    assert sk.import_results(MMLU / "run_spec.json", format="auto")[0].task == by_dir.task


def test_helm_stats_without_run_spec_take_model_from_scenario_state(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "run_spec.json").unlink()
    run = _one(folder / "per_instance_stats.json")
    assert run.agent == "simple/model1" and run.task == folder.name
    assert len(run.rows) == 40 and not run.partial


# --------------------------------------------------------------------------- lose nothing, fail closed
def test_helm_instance_without_stats_is_error_unscored_never_dropped(tmp_path: Path) -> None:
    folder = _copy(tmp_path, MMLU)
    stats = _json(folder / "per_instance_stats.json")
    dropped = stats.pop(3)["instance_id"]
    _dump(folder / "per_instance_stats.json", stats)
    run = _one(folder)
    mine = run.rows[run.rows["case_id"] == dropped]
    assert len(mine) == 4 and set(mine["status"]) == {"ERROR"} and set(mine["reason"]) == {"unscored"}
    assert len(run.rows) == 40
    dims = _dimensions(sk.evaluate(run, policy={"purpose": "exploratory"}))
    assert dims["exact_match@test"]["errors"] == 1 and dims["exact_match@test"]["passes"] == 1


def test_helm_stat_with_count_zero_or_nan_is_unscored(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    stats = _json(folder / "per_instance_stats.json")
    em = next(s for s in stats[0]["stats"] if s["name"]["name"] == "exact_match")
    em.update(count=0, sum=0)
    del em["mean"]
    qem = next(s for s in stats[1]["stats"] if s["name"]["name"] == "quasi_exact_match")
    qem["mean"] = math.nan
    (folder / "per_instance_stats.json").write_text(json.dumps(stats), encoding="utf-8")  # NaN as HELM's json writes
    rows = _one(folder).rows
    errors = rows[rows["status"] == "ERROR"]
    assert sorted(zip(errors["case_id"], errors["dimension"], strict=True)) == sorted(
        [(stats[0]["instance_id"], "exact_match@test"), (stats[1]["instance_id"], "quasi_exact_match@test")])


def test_helm_without_per_instance_stats_is_partial_and_triage(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "per_instance_stats.json").unlink()
    run = _one(folder)
    assert run.partial and set(run.rows["status"]) == {"ERROR"} and len(run.rows) == 40
    assert run.rows["partial_run"].all()
    assert sk.evaluate(run).decision == "TRIAGE"


def test_helm_missing_train_trial_is_partial_and_triage(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    spec = _json(folder / "run_spec.json")
    spec["adapter_spec"]["num_train_trials"] = 3
    _dump(folder / "run_spec.json", spec)
    run = _one(folder)
    assert run.partial and run.source["sample_epochs_planned"] == 30 and run.source["sample_epochs_run"] == 10
    assert sk.evaluate(run).decision == "TRIAGE"


def _two_trials(tmp_path: Path, passes: dict[str, list[int]]) -> Path:
    """The simple run with a second train trial; exact_match per instance and trial as ``passes`` says."""
    folder = _copy(tmp_path)
    state = _json(folder / "scenario_state.json")
    stats = _json(folder / "per_instance_stats.json")
    state["request_states"] += [dict(rs, train_trial_index=1) for rs in state["request_states"]]
    stats += [dict(entry, train_trial_index=1) for entry in stats]
    new_stats = []
    for entry in stats:
        entry = json.loads(json.dumps(entry))
        for stat in entry["stats"]:
            if stat["name"]["name"] == "exact_match":
                v = passes[entry["instance_id"]][entry["train_trial_index"]]
                stat.update(sum=v, mean=float(v), min=v, max=v)
        new_stats.append(entry)
    spec = _json(folder / "run_spec.json")
    spec["adapter_spec"]["num_train_trials"] = 2
    _dump(folder / "run_spec.json", spec)
    _dump(folder / "scenario_state.json", state)
    _dump(folder / "per_instance_stats.json", new_stats)
    return folder


def test_helm_train_trials_give_pass_k(tmp_path: Path) -> None:
    ids = [e["instance_id"] for e in _json(SIMPLE / "per_instance_stats.json")]
    passes = {i: [1, 1] if n < 3 else [1, 0] if n < 6 else [0, 0] for n, i in enumerate(ids)}
    run = _one(_two_trials(tmp_path, passes))
    assert not run.partial and run.source["epochs"] == 2
    dims = _dimensions(sk.evaluate(run, policy={"purpose": "exploratory", "pass_k": [1, 2]}))
    em = dims["exact_match@test"]
    # pass^k by its definition over the file's own values: mean over instances of C(c, k) / C(n, k)
    for k in (1, 2):
        want = sum(math.comb(sum(v), k) / math.comb(2, k) for v in passes.values()) / len(passes)
        assert em["pass_k"][str(k)] == pytest.approx(want, abs=1e-12)
    # HELM's own aggregate is the mean over trials of each trial's mean over instances: pass^1 here
    helm = sum(sum(v[t] for v in passes.values()) / len(passes) for t in (0, 1)) / 2
    assert em["pass_k"]["1"] == pytest.approx(helm, abs=1e-12)


def test_helm_perturbed_instances_are_their_own_dimension(tmp_path: Path) -> None:
    folder = _copy(tmp_path, MMLU)
    state = _json(folder / "scenario_state.json")
    stats = _json(folder / "per_instance_stats.json")
    typos = {"name": "typos", "robustness": True, "fairness": False, "computed_on": "perturbed", "prob": 0.1}
    extra_states, extra_stats = [], []
    for rs in state["request_states"]:
        rs = json.loads(json.dumps(rs))
        rs["instance"]["perturbation"] = typos
        rs["instance"]["input"]["text"] += " (with typos)"
        extra_states.append(rs)
    for entry in stats:
        entry = json.loads(json.dumps(entry))
        entry["perturbation"] = typos
        for stat in entry["stats"]:
            stat["name"]["perturbation"] = typos
            if stat["name"]["name"] == "exact_match":
                stat.update(sum=1, mean=1.0, min=1, max=1)
        extra_stats.append(entry)
    state["request_states"] += extra_states
    _dump(folder / "scenario_state.json", state)
    _dump(folder / "per_instance_stats.json", stats + extra_stats)
    run = _one(folder)
    dims = _dimensions(sk.evaluate(run, policy={"purpose": "exploratory"}))
    assert dims["exact_match@test"]["pass_k"]["1"] == pytest.approx(1 / 9)  # HELM's unperturbed figure, unchanged
    assert dims["exact_match@test/typos"]["pass_k"]["1"] == 1.0
    assert dims["quasi_exact_match@test/typos"]["pass_k"]["1"] == pytest.approx(1 / 9)
    assert len(run.rows) == 80 and run.source["samples_run"] == 20


def test_helm_named_stats_are_dimensions_only_when_0_or_1(tmp_path: Path) -> None:
    """F1-like named stats stay in source; without correctness stats, named stats scored 0 or 1 are dimensions."""
    folder = _copy(tmp_path)
    spec = _json(folder / "run_spec.json")
    spec["metric_specs"][0]["args"]["names"] += ["f1_score", "safe_answer"]
    stats = _json(folder / "per_instance_stats.json")
    for n, entry in enumerate(stats):
        entry["stats"].append({"name": {"name": "f1_score", "split": "test"}, "count": 1, "sum": n / 10,
                               "mean": n / 10})
        entry["stats"].append({"name": {"name": "safe_answer", "split": "test"}, "count": 1, "sum": n % 2,
                               "mean": float(n % 2)})
    _dump(folder / "run_spec.json", spec)
    _dump(folder / "per_instance_stats.json", stats)
    run = _one(folder)
    assert set(run.rows["dimension"]) == {f"{m}@test" for m in METRICS}  # HELM's correctness stats
    assert any("f1_score, safe_answer" in note and "not pass/fail" in note for note in run.notes)
    for entry in stats:  # a run without correctness stats: its named 0/1 stats are the dimensions
        entry["stats"] = [s for s in entry["stats"] if s["name"]["name"] not in METRICS]
    _dump(folder / "per_instance_stats.json", stats)
    rows = _one(folder).rows
    assert set(rows["dimension"]) == {"safe_answer@test"}
    assert (rows["status"] == "PASS").sum() == 5 and (rows["status"] == "FAIL").sum() == 5


def test_helm_correctness_stat_in_between_is_partial_credit(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    stats = _json(folder / "per_instance_stats.json")
    next(s for s in stats[0]["stats"] if s["name"]["name"] == "exact_match").update(sum=0.5, mean=0.5)
    _dump(folder / "per_instance_stats.json", stats)
    rows = _one(folder).rows
    row = rows[(rows["case_id"] == stats[0]["instance_id"]) & (rows["dimension"] == "exact_match@test")]
    assert row["score"].iloc[0] == 0.5 and row["status"].isna().all()


def test_helm_run_without_a_0_1_stat_has_no_samples(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    stats = _json(folder / "per_instance_stats.json")
    for entry in stats:  # no exact_match stat for any instance
        entry["stats"] = [s for s in entry["stats"] if "match" not in s["name"]["name"]]
    _dump(folder / "per_instance_stats.json", stats)
    run = _one(folder)  # the run spec names them: every instance is unscored on each
    assert len(run.rows) == 40 and set(run.rows["reason"]) == {"unscored"}
    spec = _json(folder / "run_spec.json")
    spec["metric_specs"] = [m for m in spec["metric_specs"] if "names" not in m["args"]]
    _dump(folder / "run_spec.json", spec)  # a language-modeling run: logprobs and token counts only
    with pytest.raises(NoSamplesError, match="no 0/1 stat of the run's main metrics"):
        _helm.read(folder)
    shutil.copytree(MMLU, tmp_path / MMLU.name)
    runs = sk.import_results(tmp_path, format="auto")  # in a directory: skipped with a note, the others read
    assert [r.task for r in runs] == [_json(MMLU / "run_spec.json")["name"]]
    assert any(note.startswith("skipped ") and "no 0/1 stat" in note for note in runs[0].notes)


@pytest.mark.parametrize(("damage", "message"), [
    (lambda d: d["stats"].__setitem__(2, [1]), r"per_instance_stats.json: \[4\]\.stats\[2\]: expected an object, "
                                               r"found a list"),
    (lambda d: d.pop("instance_id"), r"per_instance_stats.json: \[4\]: no instance_id"),
    (lambda d: d.__setitem__("train_trial_index", "0"), r"per_instance_stats.json: \[4\]\.train_trial_index: "
                                                         r"expected a whole number"),
    (lambda d: d["stats"][16].__setitem__("mean", "0"), r"per_instance_stats.json: \[4\]\.stats\[16\]\.mean: "
                                                        r"expected a number, found a string"),
    (lambda d: d["stats"][16].__setitem__("count", 1.5), r"per_instance_stats.json: \[4\]\.stats\[16\]\.count: "
                                                         r"expected a whole number"),
    (lambda d: d["stats"][16]["name"].pop("name"), r"per_instance_stats.json: \[4\]\.stats\[16\]\.name\.name"),
])
def test_helm_damaged_per_instance_stats_exit_2_naming_file_and_position(run_cli, tmp_path, damage, message):
    folder = _copy(tmp_path)
    stats = _json(folder / "per_instance_stats.json")
    assert stats[4]["stats"][16]["name"]["name"] == "exact_match"
    damage(stats[4])
    _dump(folder / "per_instance_stats.json", stats)
    with pytest.raises(sk.InputError, match=message):
        _one(folder)
    code, out, err = run_cli("import", "--from", "helm", folder, "--out-dir", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "per_instance_stats.json" in err


def test_helm_damaged_scenario_state_and_declared_count_exit_2(run_cli, tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    state = _json(folder / "scenario_state.json")
    state["request_states"][7] = "x"
    _dump(folder / "scenario_state.json", state)
    with pytest.raises(sk.InputError, match=r"scenario_state.json: request_states\[7\]: expected an object"):
        _one(folder)
    folder = _copy(tmp_path / "b")
    spec = _json(folder / "run_spec.json")
    spec["adapter_spec"]["num_train_trials"] = 10**8  # a count larger than the files hold
    _dump(folder / "run_spec.json", spec)
    code, _, err = run_cli("run", "--from", "helm", "--results", folder, "--out-dir", tmp_path / "out")
    assert code == 2 and "adapter_spec.num_train_trials: 100000000 is more than the file holds" in err
    folder = _copy(tmp_path / "c")
    stats = _json(folder / "per_instance_stats.json")
    next(s for s in stats[0]["stats"] if s["name"]["name"] == "exact_match")["mean"] = 7.0
    _dump(folder / "per_instance_stats.json", stats)
    with pytest.raises(sk.InputError, match=r"exact_match is outside \[0, 1\]"):
        _one(folder)


def test_helm_run_spec_without_model_is_an_input_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    for name in ("run_spec.json", "scenario_state.json"):
        data = _json(folder / name)
        for key in ("model", "model_deployment"):
            data["adapter_spec"].pop(key)
        _dump(folder / name, data)
    with pytest.raises(sk.InputError, match="names no model_deployment nor model"):
        _one(folder)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_helm_counts_are_preserved_under_shuffling(tmp_path_factory, seed: int) -> None:
    folder = _copy(tmp_path_factory.mktemp("shuffle"), MMLU)
    rng = random.Random(seed)
    for name, field in (("per_instance_stats.json", None), ("scenario_state.json", "request_states")):
        data = _json(folder / name)
        items = data if field is None else data[field]
        rng.shuffle(items)
        for entry in items:
            if "stats" in entry:
                rng.shuffle(entry["stats"])
        _dump(folder / name, data)
    rows = _one(folder).rows
    counts = rows.groupby(["dimension", "status"]).size().to_dict()
    assert counts == _one(MMLU).rows.groupby(["dimension", "status"]).size().to_dict()


# --------------------------------------------------------------------------- the command line
def test_helm_scorekit_import_writes_rows_source_and_stub(run_cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, err = run_cli("import", "--from", "helm", MMLU, SIMPLE, "--out-dir", out)
    assert code == 0, err
    folders = sorted(p for p in out.iterdir() if p.is_dir())
    assert len(folders) == 2
    for folder in folders:
        source = _json(folder / "source.json")
        rows = sk.read_rows(folder / "results.jsonl")
        assert source["format"] == "helm" and set(rows["agent"]) == {source["agent"]}
    stub = yaml.safe_load((out / "policy.stub.yml").read_text())
    assert "exact_match@test" in stub["gate"]["required_dimensions"]
    assert "exact_match@valid" in stub["gate"]["required_dimensions"]
    code, stdout, err = run_cli("import", "--from", "auto", DATA, "--out-dir", tmp_path / "auto")
    assert code == 0, err
    assert len([p for p in (tmp_path / "auto").iterdir() if p.is_dir()]) == 3  # mmlu, simple_mcqa, classification


def test_helm_run_from_gates_as_the_evidence_says(run_cli, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(yaml.safe_dump({"purpose": "release", "gate": {"thresholds": {"exact_match@test": 0.5}}}))
    code, out, err = run_cli("run", "--from", "helm", "--results", SIMPLE, "--policy", policy,
                             "--out-dir", tmp_path / "r", "--gate")
    assert code == 1, err  # every instance fails exact_match: the gate does not pass
    card = _json(tmp_path / "r" / "scorecard.json")
    assert card["source"]["format"] == "helm" and card["agent"]["name"] == "simple/model1"
    assert card["decision"] != "PASS"
    code, out, err = run_cli("run", "--from", "helm", "--results", SIMPLE / "run_spec.json", "--policy", policy,
                             "--out-dir", tmp_path / "r2")
    assert code == 0, err
    assert "imported from HELM" in out


def test_helm_run_spec_given_to_run_without_from_exits_2_naming_from_helm(run_cli, tmp_path: Path) -> None:
    code, _, err = run_cli("run", "--results", MMLU / "run_spec.json", "--out-dir", tmp_path)
    assert code == 2 and "--from helm" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------- make_helm_runs.sh's other runs
def test_helm_simple_classification_counts_and_pass1_equal_helms_own() -> None:
    """simple_classification names exact_match & co. (get_exact_match_metric_specs): one 0/1 stat per instance."""
    run = _one(CLASSIFICATION)
    spec = _json(CLASSIFICATION / "run_spec.json")
    assert (run.agent, run.task) == ("simple/model1", "simple_classification:model=simple_model1") == (
        spec["adapter_spec"]["model_deployment"], spec["name"])
    assert not run.partial and run.source["samples_run"] == 10
    want = _file_counts(CLASSIFICATION)  # from per_instance_stats.json, read here
    assert set(want) == {f"{m}@test" for m in METRICS} and all(w == {"PASS": 0, "FAIL": 10} for w in want.values())
    rows = run.rows
    assert set(rows["dimension"]) == set(want) and not (rows["status"] == "ERROR").any()
    for dimension, counts in want.items():
        mine = rows[rows["dimension"] == dimension]
        assert ((mine["status"] == "PASS").sum(), (mine["status"] == "FAIL").sum()) == (counts["PASS"], counts["FAIL"])
    dims = _dimensions(sk.evaluate(run, policy={"purpose": "exploratory"}))
    helm = _helm_means(CLASSIFICATION)  # HELM's own stats.json
    for dimension in want:
        assert dims[dimension]["pass_k"]["1"] == pytest.approx(helm[dimension], abs=1e-12) == 0.0
        assert run.source["metrics"][dimension]["mean"] == helm[dimension]
    state = _json(CLASSIFICATION / "scenario_state.json")["request_states"]
    assert sorted(set(rows["case_id"])) == sorted(rs["instance"]["id"] for rs in state)


def test_helm_simple1_names_no_main_metric_so_it_has_no_samples(run_cli, tmp_path: Path) -> None:
    """simple1 (BasicGenerationMetric(names=[])): token counts, finish reasons, logprobs, no correctness stat.

    SPEC §15: a source without samples is an input error naming the file; in a directory it is skipped with a note
    and the other runs are read.
    """
    spec = _json(SIMPLE1 / "run_spec.json")
    assert [m["args"].get("names") for m in spec["metric_specs"] if "names" in m["args"]] == [[]]
    stats = _json(SIMPLE1 / "per_instance_stats.json")
    assert len(stats) == 30 and {e["train_trial_index"] for e in stats} == {0, 1, 2}  # 10 instances x 3 trials
    assert not {s["name"]["name"] for e in stats for s in e["stats"]} & set(_helm.CORRECTNESS)
    for path in (SIMPLE1, SIMPLE1 / "run_spec.json"):
        with pytest.raises(NoSamplesError, match=r"per_instance_stats\.json: .*no 0/1 stat.*run spec names none"):
            _helm.read(path)
    code, out, err = run_cli("import", "--from", "helm", SIMPLE1 / "run_spec.json", "--out-dir", tmp_path / "o")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "per_instance_stats.json" in err, err
    assert "Traceback" not in err and not (tmp_path / "o").exists()
    code, out, err = run_cli("import", "--from", "auto", SIMPLE1, "--out-dir", tmp_path / "a")
    assert code == 2 and "nothing to import" in err and "no 0/1 stat" in err, err
    folder = tmp_path / "runs"
    for source in (SIMPLE1, CLASSIFICATION):
        shutil.copytree(source, folder / source.name)
    runs = sk.import_results(folder, format="helm")
    assert [r.task for r in runs] == ["simple_classification:model=simple_model1"]
    skipped = [n for n in runs[0].notes if n.startswith("skipped ")]  # the run once, not each of its files
    assert len(skipped) == 1 and "simple1" in skipped[0] and "no 0/1 stat" in skipped[0], skipped
