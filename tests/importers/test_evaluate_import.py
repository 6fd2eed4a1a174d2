"""``sk.evaluate(run)`` takes an ImportedRun (SPEC §15): agent name, source in scorecard.json, partial → TRIAGE."""

from __future__ import annotations

import json

import pandas as pd

import scorekit as sk
from scorekit.importers import ImportedRun


def _run(partial: bool = False, agent: str = "openai/gpt-4o", status: str | None = "success") -> ImportedRun:
    rows = pd.DataFrame([
        {"id": f"{c}/{t}", "dimension": "match", "case_id": str(c), "trial": t, "agent": agent,
         "status": "PASS", "evaluator": "inspect:match", "input": f"q{c}"}
        for c in range(3) for t in range(2)
    ])
    source = {"format": "inspect", "files": ["log.eval"], "status": status, "samples_run": 3, "epochs": 2,
              "dataset_size": 100 if partial else 3, "limit": None, "created": "2026-01-01", "harness": "Inspect AI",
              "harness_version": "0.3.200", "metrics": {"match": {"accuracy": 1.0}}, "notes": ["a note"]}
    return ImportedRun(agent=agent, task="quiz", rows=rows, partial=partial, source=source)


def test_evaluate_of_an_imported_run_names_its_agent_by_default():
    card = sk.evaluate(_run(), policy={"gate": {"thresholds": {"match": 0.5}}})
    assert card.agent["name"] == "openai/gpt-4o"
    assert card.decision == "PASS"
    assert sk.evaluate(_run(), agent_name="mine").agent["name"] == "mine"


def test_the_runs_source_is_written_into_scorecard_json(tmp_path):
    card = sk.evaluate(_run())
    paths = card.write(tmp_path)  # validated against scorecard.schema.json
    data = json.loads(paths["json"].read_text())
    assert data["source"]["format"] == "inspect" and data["source"]["task"] == "quiz"
    assert data["source"]["notes"] == ["a note"] and data["source"]["agent"] == "openai/gpt-4o"


def test_a_scorecard_without_an_import_has_no_source_key():
    assert "source" not in sk.evaluate(_run().rows).to_dict()


def test_a_partial_imported_run_decides_triage_and_says_why():
    card = sk.evaluate(_run(partial=True, status="cancelled"), policy={"gate": {"thresholds": {"match": 0.5}}})
    assert card.decision == "TRIAGE" and card.partial and not card.overall_pass
    assert card.decision_reasons == ["partial import (imported from Inspect AI 0.3.200, 3 of 100 samples, cancelled)"]
