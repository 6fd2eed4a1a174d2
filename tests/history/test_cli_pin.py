"""``scorekit history [DB]``, ``history pin|unpin DB LABEL`` and ``run --pin`` (SPEC §10, §14).

Exit 0 with one line saying what was pinned; exit 2 with one line naming the
label or the database, never a traceback.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from history_cards import DIM, make_card, run

from scorekit.history import compare, read_history


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def history(db):
    """run-1 (the first run), run-2 (PASS), bad (regressed: FAIL)."""
    run(make_card(40, 0, "1", output="one"), db, label="run-1")
    run(make_card(39, 1, "1", output="two"), db, label="run-2")
    run(make_card(20, 20, "2"), db, label="bad")
    return db


# --------------------------------------------------------------------------- the listing keeps working
def test_history_db_still_lists_the_records(run_cli, history):
    code, out, err = run_cli("history", history)
    assert code == 0, err
    assert all(label in out for label in ("run-1", "run-2", "bad"))


def test_history_without_db_lists_the_default_database(run_cli, history, tmp_path, monkeypatch):
    (tmp_path / "reports").mkdir()
    history.rename(tmp_path / "reports" / "history.sqlite")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("history")
    assert code == 0 and "run-2" in out, err


def test_extra_arguments_after_db_are_exit_2(run_cli, history):
    code, _, err = run_cli("history", history, "run-2")
    assert code == 2 and "unexpected argument 'run-2'" in _one_line(err)


# --------------------------------------------------------------------------- pin
def test_pin_prints_the_pinned_record_and_makes_it_the_baseline(run_cli, history):
    code, out, err = run_cli("history", "pin", history, "run-2")
    assert code == 0, err
    assert out.strip() == (f"pinned record 2 (label 'run-2', agent agent 1) in {history}: the default baseline of "
                           "the runs comparable with it")
    comp = compare(make_card(40, 0, "1", output="three"), history)
    assert comp["baseline"]["id"] == 2 and comp["baseline"]["chosen"] == "pinned"


def test_unpin_prints_the_unpinned_records(run_cli, history):
    run_cli("history", "pin", history, "run-2")
    code, out, err = run_cli("history", "unpin", history, "run-2")
    assert code == 0 and out.strip() == f"unpinned record 2 (label 'run-2') in {history}", err
    assert compare(make_card(40, 0, "1", output="three"), history)["baseline"]["chosen"] == "earliest"
    code, _, err = run_cli("history", "unpin", history, "run-2")
    assert code == 2 and _one_line(err) == f"scorekit history: {history}: no record labelled 'run-2' is pinned"


def test_pin_of_a_label_no_record_carries_is_exit_2_naming_label_and_db(run_cli, history):
    code, out, err = run_cli("history", "pin", history, "release-9")
    assert code == 2 and not out
    assert _one_line(err) == f"scorekit history: {history}: no record labelled 'release-9'"


def test_pin_in_a_database_that_does_not_exist_is_exit_2(run_cli, tmp_path):
    db = tmp_path / "absent.sqlite"
    code, _, err = run_cli("history", "pin", db, "x")
    assert code == 2 and _one_line(err) == f"scorekit history: {db}: no history database here"
    assert not db.exists()


def test_pin_of_a_fail_is_exit_2_saying_why(run_cli, history):
    code, _, err = run_cli("history", "pin", history, "bad")
    line = _one_line(err)
    assert code == 2 and "record 3 labelled 'bad'" in line and "not eligible: decision FAIL" in line
    assert read_history(history)["pin_order"].isna().all()


@pytest.mark.parametrize("argv", [("pin",), ("pin", "DB"), ("unpin", "DB", "a", "b")])
def test_pin_needs_db_and_label(run_cli, history, argv, monkeypatch):
    monkeypatch.chdir(history.parent)
    code, _, err = run_cli("history", *[history.name if a == "DB" else a for a in argv])
    assert code == 2 and "takes DB and LABEL: scorekit history" in _one_line(err)


def test_pin_with_plot_is_exit_2(run_cli, history, tmp_path):
    code, _, err = run_cli("history", "pin", history, "run-2", "--plot", tmp_path / "t.png")
    assert code == 2 and "--plot" in _one_line(err) and read_history(history)["pin_order"].isna().all()


# --------------------------------------------------------------------------- run --pin
def _results(tmp_path, name, passes, fails):
    path = tmp_path / name
    rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "trial": 0, "evaluator": "h",
             "status": "PASS" if i < passes else "FAIL", "agent_output": f"{name} {i}"}
            for i in range(passes + fails)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def policy(tmp_path):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"regression": {"required": True}, "gate": {"thresholds": {DIM: 0.5}}}))
    return path


def _run(run_cli, tmp_path, results, policy, db, label, *extra):
    return run_cli("run", "--results", results, "--policy", policy, "--out-dir", tmp_path / label,
                   "--history", db, "--label", label, "--agent-name", "a", "--agent-version", label, *extra)


def test_run_pin_records_and_pins_an_eligible_run(run_cli, tmp_path, policy, db):
    good = _results(tmp_path, "good.jsonl", 40, 0)
    code, out, err = _run(run_cli, tmp_path, good, policy, db, "v1", "--pin")
    assert code == 0 and "Traceback" not in err
    assert f"pinned record 1 (label 'v1') in {db}: the default baseline of the runs comparable with it" in out
    _run(run_cli, tmp_path, _results(tmp_path, "v2.jsonl", 40, 0), policy, db, "v2")
    _run(run_cli, tmp_path, _results(tmp_path, "v3.jsonl", 40, 0), policy, db, "v3", "--pin")
    frame = read_history(db)
    assert frame["pin_order"].tolist() == [1, pd.NA, 2]
    _, _, err = _run(run_cli, tmp_path, _results(tmp_path, "v4.jsonl", 40, 0), policy, db, "v4")
    assert int(read_history(db).loc[4, "baseline_id"]) == 3  # the latest pin


def test_run_pin_of_a_regressed_run_completes_with_its_exit_code_and_says_why_not(run_cli, tmp_path, policy, db):
    _run(run_cli, tmp_path, _results(tmp_path, "good.jsonl", 40, 0), policy, db, "v1", "--pin")
    bad = _results(tmp_path, "bad.jsonl", 20, 20)
    code, out, err = _run(run_cli, tmp_path, bad, policy, db, "v2", "--pin", "--gate")
    assert code == 1 and "pinned record" not in out and "Traceback" not in err
    (note,) = [line for line in err.splitlines() if "not pinned" in line]
    assert note.startswith("scorekit run: not pinned: ") and "record 2 labelled 'v2'" in note
    assert "not eligible: decision FAIL" in note
    assert (tmp_path / "v2" / "scorecard.json").exists()  # the run itself completed
    assert read_history(db)["pin_order"].tolist() == [1, pd.NA]
    code, _, err = _run(run_cli, tmp_path, bad, policy, db, "v3", "--pin")  # without --gate: exit 0
    assert code == 0 and "not pinned" in err


@pytest.mark.parametrize("drop", ["--history", "--label"])
def test_run_pin_needs_history_and_label(run_cli, tmp_path, policy, db, drop):
    argv = ["run", "--results", _results(tmp_path, "good.jsonl", 40, 0), "--policy", policy,
            "--out-dir", tmp_path / "out", "--history", db, "--label", "v1", "--pin"]
    at = argv.index(drop)
    del argv[at:at + 2]
    code, _, err = run_cli(*argv)
    assert code == 2 and "--pin" in _one_line(err) and not db.exists() and not (tmp_path / "out").exists()


def test_a_record_of_an_unnamed_agent_is_named_so_not_none(tmp_path, capsys):
    import scorekit as sk
    from scorekit.cli import main

    db = tmp_path / "h.sqlite"
    rows = [{"id": f"r{i}", "dimension": "helpfulness", "status": "FAIL" if i < 3 else "PASS", "evaluator": "harness"}
            for i in range(10)]
    sk.evaluate(rows, policy={"gate": {"thresholds": {"helpfulness": 0.9}}}, history=db, label="nameless")
    assert main(["history", "pin", str(db), "nameless"]) == 2  # a FAIL is no baseline
    err = capsys.readouterr().err
    assert "agent not named" in err and "None" not in err and len(err.strip().splitlines()) == 1
    sk.evaluate([{**r, "status": "PASS"} for r in rows], policy={"gate": {"thresholds": {"helpfulness": 0.9}}},
                history=db, label="fine")
    assert main(["history", "pin", str(db), "fine"]) == 0
    out = capsys.readouterr().out
    assert "agent not named" in out and "None" not in out


def test_the_history_listing_shows_which_records_are_pinned(tmp_path, capsys):
    import scorekit as sk
    from scorekit.cli import main

    db = tmp_path / "h.sqlite"
    rows = [{"id": f"r{i}", "dimension": "helpfulness", "status": "PASS" if i else "FAIL", "evaluator": "harness"}
            for i in range(10)]
    for label in ("a", "b", "c"):
        sk.evaluate(rows, policy={"gate": {"thresholds": {"helpfulness": 0.8}}}, history=db, label=label)
    for label in ("a", "b"):
        assert main(["history", "pin", str(db), label]) == 0
    capsys.readouterr()
    assert main(["history", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start, end = lines[0].index("pinned"), lines[0].index("suite")
    label = lines[0].index("label")
    by_label = {line[label:label + 5].strip(): line[start:end].strip() for line in lines[2:5]}
    assert by_label == {"a": "yes", "b": "latest pin", "c": "no"}  # the latest pin: the default baseline
