"""Inspect provenance (SPEC §15): invalidated samples, edited scores, early stops, stored reductions.

The two logs were written by inspect_ai 0.3.285 itself (shared data imports-2, make_inspect_provenance.py):
``quiz-prov`` (8 samples x 3 epochs; sample 1 epoch 1 edited I -> C with ``edit_score``; sample 5 epoch 1
invalidated with ``invalidate_samples``) and ``quiz-early`` (an EarlyStopping manager: 15 of 24 sample epochs
ran, 9 early stops). The reference figures are Inspect's own, restated from imports-2/expected.json (written
by make_expected.py with inspect_ai's ``read_eval_log`` and its own ``pass_k`` reducer over the valid samples),
and recomputed here from each log's own JSON (import_logs.py reads the archives without scorekit).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from import_logs import INSPECT, members, raw_log, write_json_log, write_zip

import scorekit as sk
from scorekit.importers import import_results

PROV = INSPECT / "2026-12-06T20-20-40-00-00_quiz-prov_PZkog4bbywjWH7pcENkRbZ.eval"
EARLY = INSPECT / "2026-12-06T20-20-59-00-00_quiz-early_AkTPKmrpSPWSE6fczpG342.eval"

# imports-2/expected.json, section "inspect" (Inspect's own figures, per file)
EXPECTED: dict[Path, dict[str, Any]] = {
    PROV: {
        "pass_k_valid_match": {"1": 0.6041666666666666, "2": 0.3333333333333333, "3": 0.2857142857142857},
        "results": {"mean": 0.6249999999999999, "pass_k_2": 0.375, "pass_at_2": 0.875},
        "invalidated": {"5#1": ("reviewer@example.org", "sandbox outage during this sample")},
        "history": {"1#1": ["I", "C"]},
        "early_stops": None,
    },
    EARLY: {
        "pass_k_valid_match": {"1": 0.6041666666666666, "2": 0.0, "3": 0.0},
        "results": {"mean": 0.6041666666666666, "pass_k_2": 0.0, "pass_at_2": 0.41666666666666663},
        "invalidated": {},
        "history": {},
        "early_stops": [[3, 2], [5, 2], [6, 2], [8, 2], [2, 3], [3, 3], [5, 3], [6, 3], [8, 3]],
    },
}
PASS_K = {"pass_k": [1, 2, 3]}


def one(path: Path) -> sk.ImportedRun:
    (run,) = import_results(path)
    return run


def valid_values(log: dict[str, Any]) -> dict[Any, list[int]]:
    """Per sample, the 0/1 match values of its valid (not invalidated) epochs, from the log's own JSON."""
    out: dict[Any, list[int]] = {}
    for s in log["samples"]:
        if s.get("invalidation") is None:
            out.setdefault(s["id"], []).append(1 if s["scores"]["match"]["value"] == "C" else 0)
    return out


def pass_hat(values: dict[Any, list[int]], k: int) -> float:
    """τ-bench's pass^k (Inspect's pass_k reducer): mean over samples with k epochs of C(c,k)/C(n,k)."""
    ks = [math.comb(sum(v), k) / math.comb(len(v), k) for v in values.values() if len(v) >= k]
    return sum(ks) / len(ks)


# --------------------------------------------------------------------------- the tool's own figures
@pytest.mark.parametrize("path", [PROV, EARLY], ids=["prov", "early"])
def test_pass_k_over_the_imported_rows_equals_inspects_pass_k_over_the_valid_samples(path):
    run = one(path)
    card = sk.evaluate(run, policy=PASS_K)
    got = card.dimensions.at["match", "pass_k"]
    values = valid_values(raw_log(path))
    for k, want in EXPECTED[path]["pass_k_valid_match"].items():
        assert got[k] == pytest.approx(want, abs=1e-12)
        assert pass_hat(values, int(k)) == pytest.approx(want, abs=1e-12)  # the same, from the log's own JSON


@pytest.mark.parametrize("path", [PROV, EARLY], ids=["prov", "early"])
def test_counts_per_status_per_scorer(path):
    run = one(path)
    log = raw_log(path)
    want = Counter()
    for s in log["samples"]:
        valid = s.get("invalidation") is None
        want[("match", "ERROR" if not valid else "PASS" if s["scores"]["match"]["value"] == "C" else "FAIL")] += 1
    want[("match", "ERROR")] += len(EXPECTED[path]["early_stops"] or [])
    got = Counter(zip(run.rows["dimension"], run.rows["status"], strict=True))
    assert got == want
    assert sum(got.values()) == 24  # 8 samples x 3 epochs, every planned sample epoch has its row


@pytest.mark.parametrize("path", [PROV, EARLY], ids=["prov", "early"])
def test_each_stored_reduction_goes_to_source_metrics_under_its_own_key(path):
    metrics = one(path).source["metrics"]
    for reducer, accuracy in EXPECTED[path]["results"].items():
        assert metrics[f"match/{reducer}"]["accuracy"] == accuracy
    assert metrics["match"] == metrics["match/mean"]  # the headline: the first reduction Inspect lists


def test_the_notes_compare_each_reduction_with_scorekits_own_figure():
    notes = one(PROV).notes
    assert ("Inspect match pass_k_2 accuracy 0.375; scorekit pass^2 over valid sample epochs 0.3333 (Inspect counts "
            "the 1 invalidated sample epoch(s))") in notes
    assert any(n.startswith("Inspect match mean accuracy 0.625; scorekit pass^1 over valid sample epochs 0.6042")
               for n in notes)
    assert "Inspect match pass_at_2 accuracy 0.875; scorekit pass@2 over valid sample epochs 0.875: equal" in notes
    early = one(EARLY).notes
    assert "Inspect match pass_k_2 accuracy 0; scorekit pass^2 over valid sample epochs 0: equal" in early


# --------------------------------------------------------------------------- invalidated, edited
def test_an_invalidated_sample_is_error_invalidated_never_counted_with_who_and_why():
    run = one(PROV)
    rows = run.rows.set_index(["case_id", "trial"])
    (author, reason), = EXPECTED[PROV]["invalidated"].values()
    row = rows.loc[("5", 0)]
    assert (row["status"], row["reason"]) == ("ERROR", "invalidated")
    assert author in row["detail"] and reason in row["detail"] and "2026-12-06T20:20:57" in row["detail"]
    assert row["input"] == "What is 5+5?"  # still the case's row, its definition kept
    assert not run.partial and run.source["sample_epochs_run"] == run.source["sample_epochs_planned"] == 24
    note = next(n for n in run.notes if n.startswith("1 sample epoch(s) invalidated"))
    assert "log invalidated: true" in note and "sample 5 epoch 1" in note and reason in note


def test_an_edited_score_uses_its_final_value_and_carries_the_edit():
    run = one(PROV)
    (key, history), = EXPECTED[PROV]["history"].items()
    sid, epoch = key.split("#")
    row = run.rows.set_index(["case_id", "trial"]).loc[(sid, int(epoch) - 1)]
    assert history == ["I", "C"] and row["status"] == "PASS"  # the final value, C
    assert row["detail"].startswith('score edited after the run: "I" -> "C" by reviewer@example.org at 2026-12-06T')
    assert row["detail"].endswith(": manual regrade")
    assert any(n.startswith("1 score edit(s) after the run") and 'sample 1 epoch 1 match: "I" -> "C"' in n
               for n in run.notes)
    unedited = run.rows[(run.rows["status"] != "ERROR") & ~((run.rows["case_id"] == sid) & (run.rows["trial"] == 0))]
    assert unedited["detail"].isna().all() if "detail" in unedited else True


# --------------------------------------------------------------------------- early stopping
def test_an_early_stopped_run_is_partial_and_its_stops_are_error_rows():
    run = one(EARLY)
    assert run.partial and run.rows["partial_run"].all()
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (15, 24)
    stopped = run.rows[run.rows["reason"] == "early_stopped"]
    assert sorted(zip(stopped["case_id"].astype(int), stopped["trial"] + 1, strict=True)) == sorted(
        map(tuple, EXPECTED[EARLY]["early_stops"]))
    assert set(stopped["status"]) == {"ERROR"}
    assert set(stopped["detail"]) == {"stopped early by stop_when_correct: already correct in an earlier epoch"}
    assert any("early stopping by stop_when_correct: 9 sample epoch(s) stopped early" in n for n in run.notes)
    assert any(n.startswith("partial run (TRIAGE)") and "9 sample epoch(s) stopped early" in n for n in run.notes)


def test_an_early_stopped_run_decides_triage():
    run = one(EARLY)
    assert sk.evaluate(run).decision == "SELF_TEST"  # its agent is Inspect's mockllm (SPEC §8 puts that first)
    real = run.rows.assign(agent="agent-p")
    assert sk.evaluate(real, policy={"gate": {"thresholds": {"match": 0.1}}}).decision == "TRIAGE"
    complete = one(PROV).rows.assign(agent="agent-p")
    assert sk.evaluate(complete, policy={"gate": {"thresholds": {"match": 0.1}}}).decision != "TRIAGE"


def test_import_and_run_from_the_cli(run_cli, tmp_path):
    code, out, err = run_cli("import", "--from", "inspect", EARLY, "--out-dir", tmp_path / "out")
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    source = json.loads((folder / "source.json").read_text())
    assert source["metrics"]["match/pass_at_2"]["accuracy"] == EXPECTED[EARLY]["results"]["pass_at_2"]
    assert len(sk.read_rows(folder / "results.jsonl")) == 24
    assert '"match"' in (tmp_path / "out" / "policy.stub.yml").read_text()
    code, _, err = run_cli("run", "--from", "inspect", "--results", EARLY, "--out-dir", tmp_path / "card", "--gate")
    assert code == 1, err  # a mock agent's partial run never passes a gate
    card = json.loads((tmp_path / "card" / "scorecard.json").read_text())
    assert card["decision"] == "SELF_TEST"
    assert import_results(EARLY, format="auto")[0].source["format"] == "inspect"


# --------------------------------------------------------------------------- the same records in a JSON log
def json_copy(path: Path, tmp: Path, change: Callable[[dict[str, Any]], None] | None = None) -> Path:
    log = raw_log(path)
    if change:
        change(log)
    return write_json_log(tmp / f"{path.stem}.json", log)


@pytest.mark.parametrize("path", [PROV, EARLY], ids=["prov", "early"])
def test_a_json_log_with_the_same_records_gives_the_same_rows(tmp_path, path):
    a, b = one(path), one(json_copy(path, tmp_path))
    cols = ["case_id", "trial", "dimension", "status", "reason", "detail"]
    key = ["case_id", "trial", "dimension"]
    ordered = [run.rows[cols].sort_values(key).reset_index(drop=True) for run in (a, b)]
    assert ordered[0].equals(ordered[1])
    assert a.partial == b.partial and a.source["metrics"] == b.source["metrics"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False))
def test_counts_and_pass_k_are_the_same_whatever_the_order_of_the_samples(tmp_path_factory, rnd):
    tmp = tmp_path_factory.mktemp("shuffled")
    path = json_copy(PROV, tmp, lambda log: rnd.shuffle(log["samples"]))
    run = one(path)
    assert Counter(run.rows["status"]) == {"PASS": 14, "FAIL": 9, "ERROR": 1}
    got = sk.evaluate(run, policy=PASS_K).dimensions.at["match", "pass_k"]
    assert got == pytest.approx(EXPECTED[PROV]["pass_k_valid_match"], abs=1e-12)


def test_every_sample_invalidated_leaves_nothing_counted(tmp_path):
    stamp = {"timestamp": "2026-12-06T20:21:00Z", "author": "a@example.org", "reason": "wrong dataset version"}
    run = one(json_copy(PROV, tmp_path, lambda log: [s.update(invalidation=stamp) for s in log["samples"]]))
    assert set(run.rows["reason"]) == {"invalidated"} and set(run.rows["status"]) == {"ERROR"}
    card = sk.evaluate(run.rows.assign(agent="agent-p"), policy={"gate": {"thresholds": {"match": 0.1}}})
    assert card.decision != "PASS" and not card.overall_pass
    assert any("scorekit pass^2 over valid sample epochs (none)" in n for n in run.notes)
    note = next(n for n in run.notes if n.startswith("24 sample epoch(s) invalidated"))
    assert note.count("by a@example.org") == 20 and note.endswith("; and 4 more")  # the first 20 named


def test_an_edit_without_an_original_in_its_history_is_a_score_the_edit_added(tmp_path):
    """Inspect's edit_score on a score the sample lacks writes history=[edit]: no old value to show."""
    def added(log: dict[str, Any]) -> None:
        score = log["samples"][3]["scores"]["match"]
        score["history"] = [{"value": score["value"], "provenance": {"author": "a@example.org", "reason": "added"}}]
    log = raw_log(PROV)
    run = one(json_copy(PROV, tmp_path, added))
    detail = run.rows["detail"].dropna()
    assert any(d.startswith("score edited after the run: (no score before: added by this edit) -> ")
               and d.endswith("a@example.org: added") for d in detail)
    label = f"sample {log['samples'][3]['id']} epoch {log['samples'][3]['epoch']}"
    assert f"1 match score(s) added after the run by a score edit, where the sample had none: {label}" in run.notes
    assert not any(n.startswith("scorer match exists only") for n in run.notes)  # the run scored match itself


# --------------------------------------------------------------------------- damaged provenance records
def _member(path: Path, name: str, change: Callable[[dict[str, Any]], None]) -> Callable[[Path], Path]:
    """An .eval copy of ``path`` whose member ``name`` (JSON) is changed, the others as they are."""
    def build(tmp: Path) -> Path:
        files = members(path)
        data = json.loads(files[name])
        change(data)
        files[name] = json.dumps(data).encode()
        return write_zip(tmp / "log.eval", files, 93)
    return build


def _history(i: int, **fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda s: s["scores"]["match"]["history"][i].update(fields)


def _stops(change: Callable[[list[Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda h: change(h["results"]["early_stopping"]["early_stops"])


def _pop_value(s: dict[str, Any]) -> None:
    s["scores"]["match"]["history"][1].pop("value")


def _set_at(i: int, value: Any) -> Callable[[list[Any]], None]:
    return lambda stops: stops.__setitem__(i, value)


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "invalidation-string": (_member(PROV, "samples/5_epoch_1.json", lambda s: s.update(invalidation="oops")),
                            r"log\.eval!samples/5_epoch_1\.json: invalidation: expected an object, found a string"),
    "invalidation-no-author": (_member(PROV, "samples/5_epoch_1.json", lambda s: s["invalidation"].pop("author")),
                               r"samples/5_epoch_1\.json: invalidation\.author: expected a string, found null"),
    "history-entry-no-value": (_member(PROV, "samples/1_epoch_1.json", _pop_value),
                               r'log\.eval!samples/1_epoch_1\.json: scores\["match"\]\.history\[1\]: no value'),
    "history-number": (_member(PROV, "samples/1_epoch_1.json", lambda s: s["scores"]["match"].update(history=5)),
                       r'log\.eval!samples/1_epoch_1\.json: scores\["match"\]\.history: expected a list'),
    "history-entry-list": (_member(PROV, "samples/1_epoch_1.json",
                                   lambda s: s["scores"]["match"]["history"].__setitem__(0, [1])),
                           r'1_epoch_1\.json: scores\["match"\]\.history\[0\]: expected an object, found a list'),
    "edit-provenance-number": (_member(PROV, "samples/1_epoch_1.json", _history(1, provenance=5)),
                               r'scores\["match"\]\.history\[1\]\.provenance: expected an object, found a number'),
    "early-stop-list": (_member(EARLY, "header.json", _stops(_set_at(2, [6, 2]))),
                        r"log\.eval: results\.early_stopping\.early_stops\[2\]: expected an object, found a list"),
    "early-stop-epoch-zero": (_member(EARLY, "header.json", _stops(lambda stops: stops[0].update(epoch=0))),
                              r"log\.eval: results\.early_stopping\.early_stops\[0\]\.epoch: expected a whole number"),
    "early-stop-id-object": (_member(EARLY, "header.json", _stops(lambda stops: stops[4].update(id={"id": 2}))),
                             r"log\.eval: results\.early_stopping\.early_stops\[4\]\.id: expected a string or"),
    "early-stops-missing": (_member(EARLY, "header.json", lambda h: h["results"]["early_stopping"].pop("early_stops")),
                            r"log\.eval: results\.early_stopping\.early_stops: expected a list, found null"),
    "early-stopping-string": (_member(EARLY, "header.json", lambda h: h["results"].update(early_stopping="x")),
                              r"log\.eval: results\.early_stopping: expected an object, found a string"),
    "early-stop-of-a-sample-that-ran": (_member(EARLY, "header.json", _stops(_set_at(0, {"id": 1, "epoch": 2}))),
                                        r"log\.eval: results\.early_stopping: sample 1 epoch 2 is both stopped early"),
    "early-stop-beyond-the-epochs": (_member(EARLY, "header.json", _stops(_set_at(0, {"id": 3, "epoch": 9}))),
                                     r"log\.eval: results\.early_stopping: sample 3 epoch 9 is beyond the eval's 3"),
    "log-invalidated-string": (_member(PROV, "header.json", lambda h: h.update(invalidated="yes")),
                               r"log\.eval: invalidated: expected true or false, found a string"),
    "reducer-number": (_member(PROV, "header.json", lambda h: h["results"]["scores"][1].update(reducer=5)),
                       r"log\.eval: results\.scores\[1\]\.reducer: expected a string"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_provenance_record_is_an_input_error_and_exit_2_naming_file_and_position(run_cli, tmp_path, case):
    build, message = CASES[case]
    path = build(tmp_path)
    with pytest.raises(sk.InputError, match=message):
        import_results(path, format="inspect")
    for argv in (["import", "--from", "inspect", path, "--out-dir", tmp_path / "out"],
                 ["run", "--from", "inspect", "--results", path, "--out-dir", tmp_path / "card"]):
        code, _, err = run_cli(*argv)
        (line,) = err.strip().splitlines()  # one line, no traceback
        assert code == 2 and str(path) in line and re.search(message, line), err


# --------------------------------------------------------------------------- a second run of the same script
# Written by make_inspect_provenance.py (its "hidden" logs, inspect_ai 0.3.285): a JSON log with a score edited
# twice and a score added by edit_score, an .eval log with every sample invalidated, a JSON early-stopped log.
PROV_Q = INSPECT / "2026-12-07T19-23-24-00-00_quiz-prov_Qn3QfLsLttCTWLqnAYxL6P.json"
INVALL = INSPECT / "2026-12-07T19-23-25-00-00_quiz-invall_3YVDNqATSK7QQxzterrjDs.eval"
EARLY_Q = INSPECT / "2026-12-07T19-23-26-00-00_quiz-early_LHKg6pWPjGxpcBSm4sT6AD.json"
NAN = float("nan")

# Inspect's own figures: make_expected.py's inspect section run on these files with inspect_ai 0.3.285
# (read_eval_log; pass^k by Inspect's pass_k reducer over the valid samples' match scores)
EXPECTED_2: dict[Path, dict[str, Any]] = {
    PROV_Q: {
        "pass_k_valid_match": {"1": 0.4583333333333333, "2": 0.125, "3": 0.0},
        "results": {"match": {"mean": 0.4583333333333333, "pass_k_2": 0.16666666666666666, "pass_at_2": 0.75},
                    "human_review": {"mean": 1.0, "pass_k_2": NAN, "pass_at_2": NAN}},
        "invalidated": {"2#3": ("a@example.org", "contaminated items"), "7#2": ("a@example.org", "contaminated items")},
        "history": {"2#1": {"match": ["I", "C", "I"]}, "5#1": {"human_review": ["C"]}},
        "early_stops": None, "samples_present": 24,
    },
    INVALL: {
        "pass_k_valid_match": {},
        "results": {"match": {"mean": 0.75, "pass_k_2": 0.75}},
        "invalidated": {f"{i}#{e}": ("a@example.org", "wrong dataset version") for i in range(1, 5) for e in (1, 2)},
        "history": {}, "early_stops": None, "samples_present": 8,
    },
    EARLY_Q: {
        "pass_k_valid_match": {"1": 0.5208333333333333, "2": 0.0, "3": 0.0},
        "results": {"match": {"mean": 0.5208333333333333, "pass_k_2": 0.0, "pass_at_2": 0.4666666666666666}},
        "invalidated": {}, "history": {},
        "early_stops": [[1, 2], [5, 2], [8, 2], [1, 3], [4, 3], [5, 3], [8, 3]], "samples_present": 17,
    },
}
SECOND = pytest.mark.parametrize("path", list(EXPECTED_2), ids=["prov-json", "invalidated-all", "early-json"])
REAL = {"gate": {"thresholds": {"match": 0.1}}}  # a gate on match; the agent renamed from mockllm (SPEC §8)


def expected_rows(log: dict[str, Any]) -> Counter:
    """(dimension, status, reason) per row, from the log's own JSON: every scorer any sample carries, an invalidated
    sample epoch ERROR on each, a missing score ERROR unscored, an early stop ERROR early_stopped on each."""
    scorers = sorted({name for s in log["samples"] for name in s["scores"]})
    want: Counter = Counter()
    for s in log["samples"]:
        for name in scorers:
            score = s["scores"].get(name)
            want[(name, "ERROR", "invalidated") if s.get("invalidation") is not None else
                 (name, "ERROR", "unscored") if score is None else
                 (name, {"C": "PASS", "I": "FAIL"}[score["value"]], None)] += 1
    stops = (log["results"].get("early_stopping") or {}).get("early_stops", [])
    for name in scorers:
        want[(name, "ERROR", "early_stopped")] += len(stops)
    return +want


def eval_copy(path: Path, tmp: Path) -> Path:
    """The same records as an .eval archive (header.json + samples/<id>_epoch_<n>.json, zstd), written here."""
    log = json.loads(path.read_text())
    files = {"header.json": json.dumps({k: v for k, v in log.items() if k != "samples"}).encode()}
    files.update((f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s).encode()) for s in log["samples"])
    return write_zip(tmp / f"{path.stem}.eval", files, 93)


@SECOND
def test_second_run_pass_k_over_the_valid_samples_equals_inspects(path):
    got = sk.evaluate(one(path), policy=PASS_K).dimensions.at["match", "pass_k"]
    want = EXPECTED_2[path]["pass_k_valid_match"]
    values = valid_values(raw_log(path))
    for k in ("1", "2", "3"):
        if k in want:
            assert got[k] == pytest.approx(want[k], abs=1e-12)
            assert pass_hat(values, int(k)) == pytest.approx(want[k], abs=1e-12)
        else:  # no valid sample: nothing to compute, in Inspect's reducer as in scorekit
            assert got[k] is None and not values


@SECOND
def test_second_run_counts_per_status_per_scorer(path):
    run = one(path)
    log = raw_log(path)
    assert len(log["samples"]) == EXPECTED_2[path]["samples_present"]
    got = Counter((d, s, r if isinstance(r, str) else None)
                  for d, s, r in zip(run.rows["dimension"], run.rows["status"], run.rows["reason"], strict=True))
    assert got == expected_rows(log)
    invalidated = run.rows[run.rows["reason"] == "invalidated"]
    assert {f"{c}#{t + 1}" for c, t in zip(invalidated["case_id"], invalidated["trial"], strict=True)} == set(
        EXPECTED_2[path]["invalidated"])
    for (author, reason), detail in zip([EXPECTED_2[path]["invalidated"][f"{c}#{t + 1}"] for c, t in zip(
            invalidated["case_id"], invalidated["trial"], strict=True)], invalidated["detail"], strict=True):
        assert author in detail and reason in detail


@SECOND
def test_second_run_stored_reductions_are_carried_as_inspect_wrote_them(path):
    metrics = one(path).source["metrics"]
    for scorer, reductions in EXPECTED_2[path]["results"].items():
        for reducer, accuracy in reductions.items():
            got = metrics[f"{scorer}/{reducer}"]["accuracy"]
            assert got is None if math.isnan(accuracy) else got == accuracy  # NaN never reaches a row or source


def test_a_score_edited_twice_keeps_its_last_value_and_both_edits_in_order():
    run = one(PROV_Q)
    assert EXPECTED_2[PROV_Q]["history"]["2#1"]["match"] == ["I", "C", "I"]
    row = run.rows.set_index(["case_id", "trial", "dimension"]).loc[("2", 0, "match")]
    assert row["status"] == "FAIL"  # the last value, I
    first, second = row["detail"].removeprefix("score edited after the run: ").split("; ")
    assert first.startswith('"I" -> "C" by a@example.org at ') and first.endswith(": first regrade")
    assert second.startswith('"C" -> "I" by b@example.org at ') and second.endswith(": second regrade")
    assert any(n.startswith("3 score edit(s) after the run") for n in run.notes)


def test_a_scorer_added_by_an_edit_is_its_own_dimension_and_fails_closed_elsewhere():
    """edit_score added human_review to one sample epoch: its other valid sample epochs are ERROR, never PASS."""
    run = one(PROV_Q)
    log = raw_log(PROV_Q)
    (added,) = [s for s in log["samples"] if "human_review" in s["scores"]]
    assert (added["id"], added["epoch"]) == (5, 1) and len(added["scores"]["human_review"]["history"]) == 1
    rows = run.rows[run.rows["dimension"] == "human_review"].set_index(["case_id", "trial"])
    assert rows.loc[("5", 0), "status"] == "PASS"
    assert rows.loc[("5", 0), "detail"].startswith(
        'score edited after the run: (no score before: added by this edit) -> "C" by a@example.org at ')
    others = rows.drop(index=("5", 0))
    assert set(others["status"]) == {"ERROR"}
    missing = others[others["reason"] == "unscored"]
    assert len(missing) == 21 and set(missing["detail"]) == {
        "no human_review score: human_review was added after the run by a score edit on 1 sample epoch(s) only "
        "(sample 5 epoch 1)"}
    assert any(n.startswith("scorer human_review exists only through scores added after the run by a score edit "
                            "(1 sample epoch(s): sample 5 epoch 1): it is a dimension of its own") for n in run.notes)
    assert ("Inspect human_review pass_k_2 accuracy nan; scorekit pass^2 over valid sample epochs (none): neither "
            "has a value") in run.notes
    card = sk.evaluate(run.rows.assign(agent="agent-q"), policy=REAL)
    assert card.decision != "PASS" and not card.overall_pass


def test_every_sample_invalidated_by_inspect_counts_nothing_and_never_passes(run_cli, tmp_path):
    run = one(INVALL)
    assert len(run.rows) == 8 and set(run.rows["reason"]) == {"invalidated"} and set(run.rows["status"]) == {"ERROR"}
    assert "Inspect match mean accuracy 0.75; scorekit pass^1 over valid sample epochs (none) (Inspect counts the 8 " \
           "invalidated sample epoch(s))" in run.notes
    assert any(n.startswith("8 sample epoch(s) invalidated in Inspect (log invalidated: true)") for n in run.notes)
    card = sk.evaluate(run.rows.assign(agent="agent-r"), policy=REAL)
    assert card.decision != "PASS" and not card.overall_pass
    code, _, err = run_cli("run", "--from", "inspect", "--results", INVALL, "--out-dir", tmp_path / "card", "--gate")
    assert code == 1, err
    assert json.loads((tmp_path / "card" / "scorecard.json").read_text())["decision"] != "PASS"


def test_a_json_early_stopped_log_is_partial_with_inspects_stops():
    run = one(EARLY_Q)
    assert run.partial and (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (17, 24)
    stopped = run.rows[run.rows["reason"] == "early_stopped"]
    assert sorted(zip(stopped["case_id"].astype(int), stopped["trial"] + 1, strict=True)) == sorted(
        map(tuple, EXPECTED_2[EARLY_Q]["early_stops"]))
    assert sk.evaluate(run.rows.assign(agent="agent-q"), policy=REAL).decision == "TRIAGE"
    equal = "Inspect match pass_at_2 accuracy 0.4667; scorekit pass@2 over valid sample epochs 0.4667: equal"
    assert equal in run.notes


@SECOND
def test_second_run_json_and_eval_logs_of_the_same_records_give_the_same_rows(tmp_path, path):
    other = json_copy(path, tmp_path) if path.suffix == ".eval" else eval_copy(path, tmp_path)
    a, b = one(path), one(other)
    cols = ["case_id", "trial", "dimension", "status", "reason", "detail"]
    ordered = [run.rows[cols].sort_values(cols[:3]).reset_index(drop=True) for run in (a, b)]
    assert ordered[0].equals(ordered[1])
    assert (a.partial, a.source["metrics"], a.notes) == (b.partial, b.source["metrics"], b.notes)


def test_second_run_import_and_run_from_the_cli(run_cli, tmp_path):
    code, _, err = run_cli("import", "--from", "auto", PROV_Q, "--out-dir", tmp_path / "out")
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    assert json.loads((folder / "source.json").read_text())["format"] == "inspect"
    assert len(sk.read_rows(folder / "results.jsonl")) == 48  # 24 sample epochs x (match, human_review)
    stub = (tmp_path / "out" / "policy.stub.yml").read_text()
    assert '"match"' in stub and '"human_review"' in stub
    code, _, err = run_cli("run", "--from", "inspect", "--results", PROV_Q, "--out-dir", tmp_path / "card", "--gate")
    assert code == 1, err  # a mock agent, and a scorer covering one sample epoch: never a pass


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False))
def test_second_run_counts_pass_k_and_added_scorer_do_not_depend_on_sample_order(tmp_path_factory, rnd):
    tmp = tmp_path_factory.mktemp("shuffled2")
    run = one(json_copy(PROV_Q, tmp, lambda log: rnd.shuffle(log["samples"])))
    got = Counter((d, s, r if isinstance(r, str) else None)
                  for d, s, r in zip(run.rows["dimension"], run.rows["status"], run.rows["reason"], strict=True))
    assert got == expected_rows(raw_log(PROV_Q))
    assert sk.evaluate(run, policy=PASS_K).dimensions.at["match", "pass_k"] == pytest.approx(
        EXPECTED_2[PROV_Q]["pass_k_valid_match"], abs=1e-12)
    assert any(n.startswith("scorer human_review exists only through scores added") for n in run.notes)


def _sample_of(log: dict[str, Any], sid: int, epoch: int) -> dict[str, Any]:
    return next(s for s in log["samples"] if (s["id"], s["epoch"]) == (sid, epoch))


def _no_author(log: dict[str, Any]) -> None:
    _sample_of(log, 5, 1)["scores"]["human_review"]["history"][0]["provenance"].pop("author")


def _no_value(log: dict[str, Any]) -> None:
    _sample_of(log, 2, 1)["scores"]["match"]["history"][2].pop("value")


JSON_CASES = {
    "added-score-edit-without-author": (_no_author, r'\.json: samples\[\d+\]\.scores\["human_review"\]\.history\[0\]'
                                                    r'\.provenance\.author: expected a string, found null'),
    "second-edit-without-value": (_no_value, r'\.json: samples\[1\]\.scores\["match"\]\.history\[2\]: no value'),
}


@pytest.mark.parametrize("case", list(JSON_CASES))
def test_a_damaged_edit_in_the_json_log_is_exit_2_naming_file_and_position(run_cli, tmp_path, case):
    change, message = JSON_CASES[case]
    path = json_copy(PROV_Q, tmp_path, change)
    with pytest.raises(sk.InputError, match=message):
        import_results(path, format="inspect")
    code, _, err = run_cli("import", "--from", "auto", path, "--out-dir", tmp_path / "out")
    (line,) = err.strip().splitlines()
    assert code == 2 and str(path) in line and re.search(message, line), err
