"""lm-evaluation-harness importer (SPEC §15 ``lm-eval``): every mapping rule, on the harness's own runs.

The two runs in tests/data/imports/lm-eval were written by lm-eval 0.4.13 itself (``--model dummy
--log_samples``, shared/data/imports-2). Reference values: the harness's own figures (its results
file and the shared expected.json, restated below with their source) and an independent
computation here from the samples files' own fields (``doc_id``, ``filter``, ``metrics``, the
metric values) — never from scorekit.
"""

from __future__ import annotations

import json
import math
import random
import re
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
from scorekit.importers import FORMATS, _lm_eval
from scorekit.importers._read import detect_format

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "lm-eval"
FULL = DATA / "full-dummy"
NAMED = DATA / "named-dummy"
FULL_STAMP = "2026-12-06T20-24-10.049831"
FULL_RESULTS = FULL / f"results_{FULL_STAMP}.json"
NAMED_RESULTS = NAMED / "results_2026-12-06T20-32-18.084218.json"
# made by lm-eval 0.4.13 here with the hidden line of make_lm_eval_runs.sh (--limit 5 --seed 7): a partial run
LIMIT = DATA / "limit5-seed7"
LIMIT_STAMP = "2026-12-07T19-23-43.056200"
# the harness's own figures for it, as its results file has them and `lm_eval` printed them (5 of 12 docs)
LIMIT_HARNESS = {
    "skq_mc": {"acc,none": 0.4, "acc_norm,none": 0.2},
    "skq_gen": {"exact_match,take_first": 0.4, "exact_match,maj@3": 0.4, "exact_match,strict-match": 0.0},
}

# shared/data/imports-2/expected.json, section "lm-eval" (make_expected.py: the results file's own values,
# each equal to the mean of its samples' per-doc values): the harness's headline figures
HARNESS = {
    "skq_mc": {"acc,none": 0.25, "acc_norm,none": 0.25},
    "skq_gen": {"exact_match,take_first": 1 / 3, "exact_match,maj@3": 1 / 3, "exact_match,strict-match": 0.0},
}
# ... and its per-doc values for full-dummy's skq_mc acc,none (doc ids 1, 7, 10 pass) and skq_gen take_first
EXPECTED_PASS_DOCS = {("skq_mc", "acc,none"): {"1", "7", "10"},
                      ("skq_gen", "exact_match,take_first"): {"0", "3", "7", "10"},
                      ("skq_gen", "exact_match,maj@3"): {"0", "3", "7", "10"},
                      ("skq_gen", "exact_match,strict-match"): set()}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _samples(folder: Path, task: str) -> Path:
    (path,) = folder.glob(f"samples_{task}_*.jsonl")
    return path


def _independent(folder: Path, task: str) -> dict[str, dict[str, Any]]:
    """Per dimension: doc id -> the sample's own metric value, read with json from the samples file."""
    out: dict[str, dict[str, Any]] = {}
    for line in _lines(_samples(folder, task)):
        for metric in line["metrics"]:
            out.setdefault(f"{metric},{line['filter']}", {})[str(line["doc_id"])] = line[metric]
    return out


def _runs(path: Path, fmt: str = "lm-eval") -> dict[str, sk.importers.ImportedRun]:
    runs = sk.import_results(path, format=fmt)
    assert len({r.task for r in runs}) == len(runs)
    return {r.task: r for r in runs}


def _copy(tmp_path: Path, src: Path = FULL) -> Path:
    return writable_copy(src, tmp_path / src.name)


def _edit_results(folder: Path, edit: Any) -> Path:
    (path,) = folder.glob("results_*.json")
    data = _json(path)
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _edit_lines(path: Path, edit: Any) -> None:
    lines = _lines(path)
    edit(lines)
    path.write_text("".join((json.dumps(x) if not isinstance(x, str) else x) + "\n" for x in lines), encoding="utf-8")


def _status_counts(run: Any) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for dim, group in run.rows.groupby("dimension"):
        out[str(dim)] = {s: int((group["status"] == s).sum()) for s in ("PASS", "FAIL", "ERROR")}
    return out


# --------------------------------------------------------------------------- the harness's own figures
def test_lm_eval_is_a_registered_format() -> None:
    assert FORMATS["lm-eval"] == "scorekit.importers._lm_eval"
    assert _lm_eval.FORMAT == "lm-eval"


@pytest.mark.parametrize("folder", [FULL, NAMED])
def test_counts_and_pass1_per_dimension_equal_the_harness_and_the_samples_own_values(folder: Path) -> None:
    runs = _runs(folder)
    assert sorted(runs) == ["skq_gen", "skq_mc"]
    results = _json(next(folder.glob("results_*.json")))["results"]
    for task, run in runs.items():
        own = _independent(folder, task)
        assert set(own) == set(HARNESS[task]) == set(run.rows["dimension"])
        counts = _status_counts(run)
        card = sk.evaluate(run, policy={"purpose": "exploratory"})
        dims = {d["name"]: d for d in card.to_dict()["dimensions"]}
        for dim, per_doc in own.items():
            passes = sum(1 for v in per_doc.values() if v == 1)
            assert counts[dim] == {"PASS": passes, "FAIL": len(per_doc) - passes, "ERROR": 0}
            mean = sum(per_doc.values()) / len(per_doc)
            assert mean == pytest.approx(results[task][dim], abs=1e-12)  # the harness's own figure ...
            assert results[task][dim] == pytest.approx(HARNESS[task][dim], abs=1e-12)  # ... as expected.json has it
            assert dims[dim]["rate"] == pytest.approx(HARNESS[task][dim], abs=1e-12)  # scorekit's pass^1
            assert dims[dim]["pass_k"]["1"] == pytest.approx(HARNESS[task][dim], abs=1e-12)
            assert run.source["metrics"][dim] == results[task][dim]
            stderr = dim.replace(",", "_stderr,", 1)
            assert run.source["metrics"][stderr] == results[task][stderr]


def test_per_doc_outcomes_equal_expected_json() -> None:
    runs = _runs(FULL)
    for (task, dim), docs in EXPECTED_PASS_DOCS.items():
        rows = runs[task].rows
        rows = rows[rows["dimension"] == dim]
        assert set(rows.loc[rows["status"] == "PASS", "case_id"]) == docs
        assert sorted(rows["case_id"], key=int) == [str(i) for i in range(12)]
        assert set(rows["trial"]) == {0}


def test_source_carries_the_harness_version_sizes_and_the_run_is_whole() -> None:
    run = _runs(FULL)["skq_gen"]
    src = run.source
    assert (src["format"], src["harness"], src["harness_version"]) == ("lm-eval", "lm-evaluation-harness", "0.4.13")
    assert (src["samples_run"], src["dataset_size"], src["limit"], src["repeats"]) == (12, 12, None, 3)
    assert src["filters"] == ["take_first", "strict-match", "maj@3"]
    assert [Path(f).name for f in src["files"]] == [FULL_RESULTS.name, f"samples_skq_gen_{FULL_STAMP}.jsonl"]
    assert run.partial is False and "partial_run" not in run.rows.columns
    assert sk.read_rows(run.rows) is not None


def test_repeats_are_not_invented_as_trials_and_the_notes_say_why() -> None:
    run = _runs(FULL)["skq_gen"]
    assert all(len(line["resps"][0]) == 3 for line in _lines(_samples(FULL, "skq_gen")))  # 3 generations each
    assert set(run.rows["trial"]) == {0} and len(run.rows) == 12 * 3  # 12 docs x 3 filters, one trial
    notes = " ".join(run.notes)
    assert "repeats 3 times" in notes and "per-repeat outcomes are not in the file" in notes
    assert "the samples' per-dimension means equal the harness's own figures" in notes
    assert "task_hashes" in notes and "is this run's" in notes


def test_agent_is_model_name_and_the_rows_carry_the_document() -> None:
    assert {r.agent for r in _runs(FULL).values()} == {"i82qcls7"}  # the results' own model_name
    assert all(any("'i82qcls7' looks like the random id" in n for n in r.notes) for r in _runs(FULL).values())
    run = _runs(NAMED)["skq_gen"]
    assert run.agent == "scorekit/dummy-lm" and set(run.rows["agent"]) == {"scorekit/dummy-lm"}
    assert not any("random id" in n for n in run.notes)
    first = _lines(_samples(NAMED, "skq_gen"))[0]
    row = run.rows[(run.rows["case_id"] == "0") & (run.rows["dimension"] == "exact_match,take_first")].iloc[0]
    assert row["input"] == first["doc"] and row["context"] == {"target": first["target"]}
    assert row["agent_output"] == "lol" and row["evaluator"] == "lm-eval:exact_match,take_first"


@pytest.mark.parametrize("model_args", [{"pretrained": "org/m-1", "dtype": "auto"}, "pretrained=org/m-1,dtype=auto"])
def test_without_model_name_the_agent_is_pretrained_of_model_args(tmp_path: Path, model_args: Any) -> None:
    folder = _copy(tmp_path)

    def edit(d: dict[str, Any]) -> None:
        d.pop("model_name")
        d["config"]["model_args"] = model_args

    _edit_results(folder, edit)
    runs = _runs(folder)
    assert {r.agent for r in runs.values()} == {"org/m-1"}
    assert any("pretrained=" in n for n in runs["skq_mc"].notes)
    _edit_results(folder, lambda d: d["config"].update(model_args={}))
    assert {r.agent for r in _runs(folder).values()} == {"dummy"}  # config.model, said in the notes


# --------------------------------------------------------------------------- the layout
def test_the_results_file_alone_reads_its_samples_files_and_a_directory_the_same() -> None:
    from_file = _runs(FULL_RESULTS)
    from_dir = _runs(FULL)
    for task in from_file:
        assert from_file[task].rows.equals(from_dir[task].rows)
    assert not any("skipped" in n for r in from_dir.values() for n in r.notes)  # the samples files are claimed


def test_several_runs_in_one_folder_pick_their_samples_by_date_stamp(tmp_path: Path) -> None:
    folder = tmp_path / "both"
    folder.mkdir()
    for src in (FULL, NAMED):
        for p in src.iterdir():
            shutil.copy(p, folder / p.name)
    runs = sk.import_results(folder, format="auto")
    assert sorted((r.agent, r.task) for r in runs) == [("i82qcls7", "skq_gen"), ("i82qcls7", "skq_mc"),
                                                      ("scorekit/dummy-lm", "skq_gen"), ("scorekit/dummy-lm", "skq_mc")]
    for run in runs:
        results, samples = (Path(f).name for f in run.source["files"])
        assert samples.endswith(results.removeprefix("results_").removesuffix(".json") + ".jsonl")
    named_mc = next(r for r in runs if r.agent == "scorekit/dummy-lm" and r.task == "skq_mc")
    assert set(named_mc.rows.loc[(named_mc.rows["status"] == "PASS") & (named_mc.rows["dimension"] == "acc,none"),
                                 "case_id"]) == {"3", "4", "7"}  # expected.json: named-dummy's own per-doc values


def test_task_names_with_underscores_that_prefix_each_other_are_kept_apart(tmp_path: Path) -> None:
    """Tasks ``skq`` and ``skq_mc``: ``samples_skq_mc_<stamp>`` is skq_mc's file, never skq's."""
    folder = _copy(tmp_path)

    def edit(d: dict[str, Any]) -> None:
        for key in ("results", "configs", "n-samples", "higher_is_better", "versions", "n-shot", "task_hashes"):
            d[key]["skq"] = d[key].pop("skq_gen")

    _edit_results(folder, edit)
    (folder / f"samples_skq_gen_{FULL_STAMP}.jsonl").rename(folder / f"samples_skq_{FULL_STAMP}.jsonl")
    runs = _runs(folder)
    assert set(runs["skq"].rows["dimension"]) == set(HARNESS["skq_gen"])
    assert set(runs["skq_mc"].rows["dimension"]) == set(HARNESS["skq_mc"])


def test_results_without_samples_files_is_an_input_error_naming_log_samples(tmp_path: Path, run_cli: Any) -> None:
    folder = tmp_path / "no-samples"
    folder.mkdir()
    path = folder / FULL_RESULTS.name
    shutil.copy(FULL_RESULTS, path)
    with pytest.raises(NoSamplesError, match="--log_samples") as err:
        _lm_eval.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    code, _, stderr = run_cli("import", "--from", "lm-eval", path, "--out-dir", tmp_path / "out")
    assert code == 2 and "--log_samples" in stderr and len(stderr.strip().splitlines()) == 1
    # in a directory beside a run with samples, it is skipped with a note
    other = _copy(tmp_path, NAMED)
    shutil.copy(FULL_RESULTS, other / FULL_RESULTS.name)
    runs = sk.import_results(other)
    assert len(runs) == 2 and all(any("--log_samples" in n for n in r.notes) for r in runs)


def test_an_output_path_naming_a_json_file_gives_its_stem_and_stamp(tmp_path: Path) -> None:
    """``--output_path run.json`` makes ``run_<stamp>.json`` beside ``samples_<task>_<stamp>.jsonl``."""
    folder = _copy(tmp_path)
    (folder / FULL_RESULTS.name).rename(folder / f"my_run_{FULL_STAMP}.json")
    runs = _runs(folder / f"my_run_{FULL_STAMP}.json")
    assert sorted(runs) == ["skq_gen", "skq_mc"] and len(runs["skq_mc"].rows) == 24


def test_a_group_of_tasks_is_no_run_and_is_noted(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit_results(folder, lambda d: d["results"].update(skq={"alias": "skq", "acc,none": 0.25}))
    runs = _runs(folder)
    assert sorted(runs) == ["skq_gen", "skq_mc"]
    assert all(any("groups 'skq'" in n for n in r.notes) for r in runs.values())


def test_a_task_missing_its_samples_file_while_others_have_theirs_is_an_input_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / f"samples_skq_mc_{FULL_STAMP}.jsonl").unlink()
    with pytest.raises(sk.InputError, match=r"task 'skq_mc' has no samples file") as err:
        sk.import_results(folder / FULL_RESULTS.name)
    assert not isinstance(err.value, NoSamplesError)


def test_detect_by_content_never_by_name_and_never_another_formats_file(tmp_path: Path) -> None:
    renamed = tmp_path / "whatever.txt"
    shutil.copy(FULL_RESULTS, renamed)
    assert _lm_eval.detect(renamed) and detect_format(FULL_RESULTS) == "lm-eval"
    assert not _lm_eval.detect(_samples(FULL, "skq_mc"))  # read with its results file, not alone
    assert detect_format(_samples(FULL, "skq_mc")) is None and detect_format(NAMED_RESULTS) == "lm-eval"
    assert not _lm_eval.detect(tmp_path) and not _lm_eval.detect(tmp_path / "absent.json")
    others = [p for p in DATA.parent.rglob("*") if p.is_file() and DATA not in p.parents]
    assert others and not [p for p in others if _lm_eval.detect(p)]


def test_a_large_results_file_is_detected_from_its_head(tmp_path: Path) -> None:
    data = _json(FULL_RESULTS)
    data["configs"]["skq_mc"]["description"] = "x" * 200_000  # lm-eval writes configs before its version
    path = tmp_path / FULL_RESULTS.name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert _lm_eval.detect(path)


# --------------------------------------------------------------------------- values
def _one_task(tmp_path: Path, task: str = "skq_mc", src: Path = FULL, stamp: str = FULL_STAMP) -> Path:
    """A copy of ``src`` (full-dummy) holding only ``task`` (results and samples), for ``run --from``."""
    folder = _copy(tmp_path, src)
    other = "skq_gen" if task == "skq_mc" else "skq_mc"

    def edit(d: dict[str, Any]) -> None:
        for key in ("results", "configs", "n-samples", "higher_is_better", "versions", "n-shot", "task_hashes"):
            d[key].pop(other)

    _edit_results(folder, edit)
    (folder / f"samples_{other}_{stamp}.jsonl").unlink()
    return folder


def test_values_map_to_pass_fail_score_and_error_unscored(tmp_path: Path) -> None:
    folder = _one_task(tmp_path)
    path = folder / f"samples_skq_mc_{FULL_STAMP}.jsonl"
    text = path.read_text(encoding="utf-8").splitlines()
    edits = {0: '"acc": 0.4', 1: '"acc": true', 2: '"acc": NaN', 3: '"acc": null', 4: '"acc": false'}
    for i, new in edits.items():
        text[i] = text[i].replace(f'"acc": {json.loads(text[i])["acc"]}', new)
    del_line = json.loads(text[5])
    del del_line["acc_norm"]
    text[5] = json.dumps(del_line)
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    run = _runs(folder)["skq_mc"]
    rows = run.rows.set_index(["case_id", "dimension"])
    assert rows.loc[("0", "acc,none"), "score"] == 0.4 and not isinstance(rows.loc[("0", "acc,none"), "status"], str)
    assert rows.loc[("1", "acc,none"), "status"] == "PASS"
    assert rows.loc[("2", "acc,none"), ["status", "reason"]].tolist() == ["ERROR", "unscored"]
    assert rows.loc[("3", "acc,none"), ["status", "reason"]].tolist() == ["ERROR", "unscored"]
    assert rows.loc[("4", "acc,none"), "status"] == "FAIL"
    assert rows.loc[("5", "acc_norm,none"), ["status", "reason"]].tolist() == ["ERROR", "unscored"]
    assert sk.read_rows(run.rows) is not None
    assert any("score, decided by the policy's partial rule" in n for n in run.notes)
    assert any("differ from the harness's figures" in n for n in run.notes)


def test_a_metric_whose_values_are_not_pass_fail_makes_no_rows_and_is_named(tmp_path: Path) -> None:
    folder = _one_task(tmp_path)
    path = folder / f"samples_skq_mc_{FULL_STAMP}.jsonl"

    def perplexity(lines: list[Any]) -> None:  # a log-likelihood per sample, and a corpus-level pair
        for i, line in enumerate(lines):
            line["metrics"] += ["perplexity", "bleu"]
            line["perplexity"] = -0.5 - i
            line["bleu"] = [line["target"], "lol"]

    _edit_lines(path, perplexity)
    _edit_results(folder, lambda d: d["higher_is_better"]["skq_mc"].update(acc_norm=False))
    run = _runs(folder)["skq_mc"]
    assert set(run.rows["dimension"]) == {"acc,none"}  # never a PASS from a value that is not one
    notes = " ".join(run.notes)
    for dim in ("perplexity,none", "bleu,none", "acc_norm,none"):
        assert f"dimension {dim} not imported" in notes
    assert "outside [0, 1]" in notes and "lists" in notes and "lower is better" in notes


def test_a_task_with_no_pass_fail_metric_is_no_run(tmp_path: Path) -> None:
    folder = _one_task(tmp_path)
    _edit_results(folder, lambda d: d["higher_is_better"]["skq_mc"].update(acc=False, acc_norm=False))
    with pytest.raises(NoSamplesError, match="no metric maps to pass/fail"):
        sk.import_results(next(folder.glob("results_*.json")))
    with pytest.raises(sk.InputError, match="nothing to import.*no metric maps to pass/fail"):
        sk.import_results(folder)


# --------------------------------------------------------------------------- partial runs
def test_a_limit_makes_the_run_partial_and_triage(tmp_path: Path) -> None:
    folder = _one_task(tmp_path)
    path = folder / f"samples_skq_mc_{FULL_STAMP}.jsonl"
    _edit_lines(path, lambda lines: lines.__delitem__(slice(5, None)))

    def edit(d: dict[str, Any]) -> None:
        d["config"]["limit"] = 5.0
        d["n-samples"]["skq_mc"]["effective"] = 5

    _edit_results(folder, edit)
    run = _runs(folder)["skq_mc"]
    assert run.partial and run.rows["partial_run"].all()
    assert run.source["limit"] == 5.0 and run.source["dataset_size"] == 12 and run.source["samples_run"] == 5
    assert any("config.limit" in n and "5 of the dataset's 12" in n for n in run.notes)
    policy = {"purpose": "release", "gate": {"thresholds": {"acc,none": 0.0, "acc_norm,none": 0.0}}}
    assert sk.evaluate(run, policy=policy).decision == "TRIAGE"


def _acc_gate(run_cli: Any, tmp_path: Path, results: Path, threshold: float) -> tuple[int, str, Any, Any]:
    """``run --from lm-eval --gate`` with a release policy on ``acc,none``: (exit code, stderr, card, acc entry)."""
    policy = tmp_path / "policy.yml"
    policy.write_text(yaml.safe_dump({"purpose": "release", "gate": {"required_dimensions": ["acc,none"],
                                                                     "thresholds": {"acc,none": threshold}}}))
    code, _, err = run_cli("run", "--from", "lm-eval", "--results", results, "--policy", policy, "--gate",
                           "--out-dir", tmp_path / "out")
    card = _json(tmp_path / "out" / "scorecard.json")
    return code, err, card, next(d for d in card["dimensions"] if d["name"] == "acc,none")


def test_the_harness_limit_run_matches_its_own_figures_and_is_partial_triage() -> None:
    runs = _runs(LIMIT)
    data = _json(LIMIT / f"results_{LIMIT_STAMP}.json")
    assert data["config"]["limit"] == 5.0 and data["model_name"] == "0k9ep1fr"  # lm-eval's random name, no pretrained=
    for task, run in runs.items():
        assert data["n-samples"][task] == {"original": 12, "effective": 5}
        own = _independent(LIMIT, task)
        assert set(own) == set(LIMIT_HARNESS[task]) == set(run.rows["dimension"])
        counts = _status_counts(run)
        dims = {d["name"]: d for d in sk.evaluate(run, policy={"purpose": "exploratory"}).to_dict()["dimensions"]}
        for dim, per_doc in own.items():
            assert len(per_doc) == 5
            passes = sum(1 for v in per_doc.values() if v == 1)
            assert counts[dim] == {"PASS": passes, "FAIL": 5 - passes, "ERROR": 0}
            assert data["results"][task][dim] == pytest.approx(LIMIT_HARNESS[task][dim], abs=1e-12)
            assert dims[dim]["rate"] == pytest.approx(LIMIT_HARNESS[task][dim], abs=1e-12)  # pass^1
            assert dims[dim]["pass_k"]["1"] == pytest.approx(LIMIT_HARNESS[task][dim], abs=1e-12)
        assert run.agent == "0k9ep1fr" and run.partial and run.rows["partial_run"].all()
        assert any("'0k9ep1fr' looks like the random id" in n for n in run.notes)
        src = run.source
        assert (src["limit"], src["dataset_size"], src["samples_run"]) == (5.0, 12, 5)
        assert any("config.limit 5.0" in n and "5 of the dataset's 12" in n for n in run.notes)
        policy = {"purpose": "release", "gate": {"thresholds": dict.fromkeys(LIMIT_HARNESS[task], 0.0)}}
        assert sk.evaluate(run, policy=policy).decision == "TRIAGE"
    assert sorted(runs) == ["skq_gen", "skq_mc"]
    assert {r.task for r in sk.import_results(LIMIT / f"results_{LIMIT_STAMP}.json", format="auto")} == set(runs)


def test_the_harness_limit_run_through_the_cli_import_and_run_gates_triage(run_cli: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("import", "--from", "lm-eval", LIMIT, "--out-dir", tmp_path / "imp")
    assert code == 0, err
    for task in LIMIT_HARNESS:
        folder = tmp_path / "imp" / f"0k9ep1fr__{task}"
        assert set(sk.read_rows(folder / "results.jsonl")["dimension"]) == set(LIMIT_HARNESS[task])
        assert _json(folder / "source.json")["limit"] == 5.0
    assert (tmp_path / "imp" / "policy.stub.yml").is_file()
    results = next(_one_task(tmp_path, "skq_mc", LIMIT, LIMIT_STAMP).glob("results_*.json"))
    code, err, card, acc = _acc_gate(run_cli, tmp_path, results, 0.3)
    assert acc["rate"] == pytest.approx(0.4) and card["decision"] == "TRIAGE" and code == 1, err


def test_a_missing_line_under_one_filter_is_error_and_partial(tmp_path: Path) -> None:
    folder = _one_task(tmp_path, "skq_gen")
    path = folder / f"samples_skq_gen_{FULL_STAMP}.jsonl"
    _edit_lines(path, lambda lines: lines.__delitem__(-1))  # maj@3's doc 11: no line
    run = _runs(folder)["skq_gen"]
    row = run.rows[(run.rows["case_id"] == "11") & (run.rows["dimension"] == "exact_match,maj@3")].iloc[0]
    assert (row["status"], row["reason"]) == ("ERROR", "unscored") and "maj@3" in row["detail"]
    assert row["input"] == _lines(_samples(FULL, "skq_gen"))[11]["doc"]  # the case's definition is kept
    assert run.partial and len(run.rows) == 36


# --------------------------------------------------------------------------- damaged files
@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: lines.__setitem__(2, [1, 2]), r"samples_skq_mc_[^:]*\.jsonl:3: expected an object, found a list"),
    (lambda lines: lines[3].pop("doc_id"), r"\.jsonl:4: doc_id: expected a string or an integer, found null"),
    (lambda lines: lines[4].update(metrics="acc"), r"\.jsonl:5: metrics: expected a list, found a string"),
    (lambda lines: lines[5].update(filter=7), r"\.jsonl:6: filter: expected a name, found a number"),
    (lambda lines: lines[6].pop("filter"), r"\.jsonl:7: filter: missing, where other lines name theirs"),
    (lambda lines: lines[7].update(acc="1.0"), r"\.jsonl:8: acc: expected a number, a boolean or null"),
    (lambda lines: lines.append(dict(lines[0])), r"\.jsonl:13: doc_id 0 under filter 'none' is also on line 1"),
])
def test_a_damaged_sample_line_is_exit_2_naming_file_and_line(tmp_path: Path, run_cli: Any, edit: Any,
                                                                message: str) -> None:
    folder = _copy(tmp_path)
    _edit_lines(folder / f"samples_skq_mc_{FULL_STAMP}.jsonl", edit)
    code, _, err = run_cli("import", "--from", "lm-eval", folder, "--out-dir", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert re.search(message, err), err


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["n-samples"]["skq_mc"].update(effective=13, original=13),
     r"n-samples\.skq_mc\.effective: 13 is more than the file holds \(12, documents in samples_skq_mc"),
    (lambda d: d["n-samples"]["skq_mc"].update(effective=12, original=5), r"effective: 12 is more than original"),
    (lambda d: d["configs"]["skq_gen"].update(repeats=10**9), r"configs\.skq_gen\.repeats: 1000000000 is more"),
    (lambda d: d.update(results=[1]), r"results_[^:]*\.json: results: expected an object, found a list"),
    (lambda d: d["config"].update(limit="5"), r"config\.limit: expected a number or null, found a string"),
    (lambda d: (d.pop("model_name"), d["config"].update(model_args=[1])),
     r"config\.model_args: expected an object or a string, found a list"),
    (lambda d: d["n-samples"].update(skq_mc=[12]), r"n-samples\.skq_mc: expected an object, found a list"),
])
def test_a_damaged_results_file_is_exit_2_naming_file_and_position(tmp_path: Path, run_cli: Any, edit: Any,
                                                                   message: str) -> None:
    folder = _copy(tmp_path)
    path = _edit_results(folder, edit)
    code, _, err = run_cli("import", "--from", "lm-eval", path, "--out-dir", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert str(path) in err and re.search(message, err), err


# --------------------------------------------------------------------------- legacy samples
def test_samples_without_filter_and_metrics_are_read_in_the_harness_order(tmp_path: Path) -> None:
    """lm-eval 0.4.3–0.4.6 logged no ``filter``/``metrics``: each filter's documents in turn."""
    folder = _copy(tmp_path)
    for task in ("skq_mc", "skq_gen"):
        _edit_lines(folder / f"samples_{task}_{FULL_STAMP}.jsonl",
                    lambda lines: [(x.pop("filter"), x.pop("metrics")) for x in lines])
    legacy, current = _runs(folder), _runs(FULL)
    for task in current:
        cols = ["id", "dimension", "case_id", "status"]
        assert legacy[task].rows[cols].equals(current[task].rows[cols])
    assert any("lm-eval before 0.4.7" in n for n in legacy["skq_gen"].notes)


# --------------------------------------------------------------------------- CLI
def test_scorekit_import_writes_rows_source_and_policy_stub(run_cli: Any, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "lm-eval", NAMED, "--out-dir", tmp_path)
    assert code == 0, err
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(folders) == 2
    for folder in folders:
        source = _json(folder / "source.json")
        rows = sk.read_rows(folder / "results.jsonl")
        assert source["format"] == "lm-eval" and set(rows["agent"]) == {"scorekit/dummy-lm"}
    stub = (tmp_path / "policy.stub.yml").read_text()
    assert set(yaml.safe_load(stub)["gate"]["required_dimensions"]) == {*HARNESS["skq_mc"], *HARNESS["skq_gen"]}
    assert '# "exact_match,maj@3": 0.9    # coverage 100.0% (12 of 12 rows)' in stub


def test_run_from_gates_a_task_and_refuses_two_at_once(run_cli: Any, tmp_path: Path) -> None:
    folder = _one_task(tmp_path)
    results = next(folder.glob("results_*.json"))
    code, err, card, acc = _acc_gate(run_cli, tmp_path, results, 0.2)
    policy = tmp_path / "policy.yml"
    assert card["source"]["format"] == "lm-eval" and card["agent"]["name"] == "i82qcls7"
    assert acc["rate"] == pytest.approx(0.25)  # the harness's acc
    assert (code == 0) == (card["decision"] == "PASS"), (code, card["decision"], err)
    policy.write_text(yaml.safe_dump({"purpose": "release", "gate": {"required_dimensions": ["acc,none"],
                                                                     "thresholds": {"acc,none": 0.9}}}))
    code, out, err = run_cli("run", "--from", "lm-eval", "--results", results, "--policy", policy, "--gate",
                             "--out-dir", tmp_path / "out2")
    assert code == 1 and _json(tmp_path / "out2" / "scorecard.json")["decision"] != "PASS"
    code, out, err = run_cli("run", "--from", "auto", "--results", FULL_RESULTS, "--out-dir", tmp_path / "out3")
    assert code == 2 and "2 runs" in err and len(err.strip().splitlines()) == 1


def test_run_without_from_names_the_format(run_cli: Any, tmp_path: Path) -> None:
    code, _, err = run_cli("run", "--results", FULL_RESULTS, "--out-dir", tmp_path)
    assert code == 2 and "--from lm-eval" in err and str(FULL_RESULTS) in err


# --------------------------------------------------------------------------- property
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_counts_are_preserved_whatever_the_line_order(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / f"shuffled-{seed}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(FULL, folder)
    for p in folder.iterdir():
        p.chmod(0o644)
    for task in ("skq_mc", "skq_gen"):
        _edit_lines(folder / f"samples_{task}_{FULL_STAMP}.jsonl", random.Random(seed).shuffle)
    shuffled, original = _runs(folder), _runs(FULL)
    for task in original:
        assert _status_counts(shuffled[task]) == _status_counts(original[task])
        key = ["case_id", "dimension"]
        a = shuffled[task].rows.sort_values(key)[[*key, "status"]].reset_index(drop=True)
        b = original[task].rows.sort_values(key)[[*key, "status"]].reset_index(drop=True)
        assert a.equals(b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.one_of(st.booleans(), st.none(), st.sampled_from([0, 1, 0.0, 1.0, 0.5, math.nan]),
                                 st.floats(0, 1)), min_size=12, max_size=12))
def test_a_value_is_pass_only_when_it_is_one(tmp_path: Path, values: list[Any]) -> None:
    folder = tmp_path / "values"
    if not folder.exists():
        shutil.copytree(_one_task(tmp_path / "base"), folder)
    path = folder / f"samples_skq_mc_{FULL_STAMP}.jsonl"
    lines = _lines(_samples(FULL, "skq_mc"))
    for line, value in zip(lines, values, strict=True):
        line["acc"] = value
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    rows = _runs(folder)["skq_mc"].rows
    rows = rows[rows["dimension"] == "acc,none"].set_index("case_id")
    for i, value in enumerate(values):
        status = rows.loc[str(i), "status"]
        assert (status == "PASS") == (value is not None and not (isinstance(value, float) and math.isnan(value))
                                      and float(value) == 1)
