"""An Inspect log stopped on its error budget (issue 25 item b; SPEC §2, §15).

No shared log is one, so one is built here from the real quiz log (inspect_ai 0.3.285, zstd members),
shaped as Inspect writes a run that ``fail_on_error`` stopped: status ``error``, the raising sample's
``EvalError`` as the log's ``error``, no ``results`` (Inspect computes no metrics for a failed eval,
and its JSON leaves out None), no ``reductions.json``; the samples that had finished are in the
archive (the raising one with its ``error``), the rest never ran. Expected values come from the
built log's own JSON (import_logs.py, not scorekit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from import_logs import QUIZ, members, value_kind, write_zip

import scorekit as sk
from scorekit.importers import import_results
from scorekit.importers._base import source_line

CRASHED = (7, 2)  # the sample epoch whose error stopped the run
NEVER_RAN = {(8, 1), (8, 2), (8, 3), *((sid, 3) for sid in range(1, 8))}


def _kept(entry: dict[str, Any]) -> bool:
    return (entry["id"], entry["epoch"]) not in NEVER_RAN


def errored_log(path: Path) -> Path:
    """The quiz log as Inspect writes it when a sample's error exceeds ``fail_on_error``."""
    files = members(QUIZ)
    crashed = json.loads(files["samples/{}_epoch_{}.json".format(*CRASHED)])
    header = json.loads(files["header.json"])
    header["status"] = "error"
    header["eval"]["config"]["fail_on_error"] = True
    header.pop("results")
    header["error"] = crashed["error"]
    out: dict[str, bytes] = {}
    for name, data in files.items():
        if name == "reductions.json":
            continue
        if name.startswith("samples/"):
            sample = json.loads(data)
            if not _kept(sample):
                continue
        elif name == "summaries.json" or name.startswith("_journal/summaries/"):
            data = json.dumps([s for s in json.loads(data) if _kept(s)]).encode()
        elif name == "header.json":
            data = json.dumps(header).encode()
        out[name] = data
    return write_zip(path, out, 93)


def raw_samples(path: Path) -> list[dict[str, Any]]:
    return [json.loads(v) for k, v in members(path).items() if k.startswith("samples/")]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return errored_log(tmp_path / "2026-12-01T13-47-40-00-00_quiz-errored.eval")


def test_an_errored_log_keeps_every_scored_sample_valid_and_labeled(log):
    samples = raw_samples(log)  # the built log: 14 sample epochs, one crashed, the eval's error its error
    assert len(samples) == 14 and [(s["id"], s["epoch"]) for s in samples if s.get("error")] == [CRASHED]
    header = json.loads(members(log)["header.json"])
    assert header["status"] == "error" and "results" not in header
    assert header["error"]["message"] == "RuntimeError('simulated tool crash')"
    run = import_results(log)[0]
    rows = run.rows
    assert len(rows) == 24 * 5  # 8 samples x 3 epochs x 5 scorers: none dropped
    card = sk.evaluate(run)
    validation = card.validation.to_dict()
    assert validation["invalid"] == 0 and validation["problems"] == []
    assert validation["labeled"] == len(rows)
    got = {(c, t, d): (s if isinstance(s, str) else "PARTIAL")
           for c, t, d, s in zip(rows["case_id"], rows["trial"], rows["dimension"], rows["status"], strict=True)}
    scored = [s for s in raw_samples(log) if not s.get("error")]
    assert len(scored) == 13
    for sample in scored:
        for scorer, score in sample["scores"].items():
            assert got[(str(sample["id"]), sample["epoch"] - 1, scorer)] == value_kind(score["value"])


def test_the_crashed_samples_rows_hold_its_own_error_message(log):
    rows = import_results(log)[0].rows
    crashed = rows[(rows["case_id"] == "7") & (rows["trial"] == 1)]
    assert len(crashed) == 5 and set(crashed["reason"]) == {"sample_error"}
    assert all("RuntimeError('simulated tool crash')" in d for d in crashed["detail"])


def test_samples_that_never_ran_carry_the_definition_another_epoch_has_and_otherwise_none(log):
    rows = import_results(log)[0].rows
    inputs = {str(s["id"]): s["input"] for s in raw_samples(log)}
    targets = {str(s["id"]): s["target"] for s in raw_samples(log)}
    third = rows[(rows["trial"] == 2) & (rows["case_id"] != "8")]
    assert len(third) == 7 * 5 and set(third["status"]) == {"ERROR"}
    assert all(i == inputs[c] for c, i in zip(third["case_id"], third["input"], strict=True))
    assert all(ctx == {"target": targets[c]} for c, ctx in zip(third["case_id"], third["context"], strict=True))
    eight = rows[rows["case_id"] == "8"]
    assert len(eight) == 3 * 5 and eight["input"].isna().all() and eight["context"].isna().all()
    assert all("simulated tool crash" in d for d in [*third["detail"], *eight["detail"]])


def test_the_source_counts_the_sample_epochs_that_ran_and_the_run_is_partial(log):
    run = import_results(log)[0]
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (14, 24)
    assert run.partial and run.source["status"] == "error"
    assert sk.evaluate(run).decision != "PASS"
    assert source_line(run.source) == "imported from Inspect AI 0.3.285, 7 of 8 samples, 14 of 24 sample epochs, error"


def test_scorekit_import_writes_the_error_text_into_the_rows(log, tmp_path, run_cli):
    out = tmp_path / "out"
    code, _, err = run_cli("import", "--from", "inspect", log, "--out-dir", out)
    assert code == 0, err
    (results,) = out.glob("*/results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    crashed = [r for r in rows if r["case_id"] == "7" and r["trial"] == 1]
    assert len(crashed) == 5 and all("simulated tool crash" in r["detail"] for r in crashed)
    assert not any("input" in r for r in rows if r["case_id"] == "8")


def test_the_scorecard_shows_the_crashed_samples_error_not_a_scorer_blamed(log, tmp_path, run_cli):
    card = sk.evaluate(import_results(log)[0])
    evidence = card.evidence
    crashed = evidence[(evidence["case_id"] == "7") & (evidence["trial"] == 1)]
    assert len(crashed) == 5 and set(crashed["reason"]) == {"sample_error"}
    assert all(d.endswith(": RuntimeError('simulated tool crash')") for d in crashed["detail"])
    shown = [d["detail"] for f in card.findings if f["reason"] == "sample_error" for d in f["details"]
             if d["case_id"] == "7"]
    assert shown and all("RuntimeError('simulated tool crash')" in d for d in shown)
    card.write(tmp_path / "card")
    assert "simulated tool crash" in (tmp_path / "card" / "scorecard.md").read_text(encoding="utf-8")
