"""Stored evidence read back (issue 25 c, d, 8, 11; SPEC §13, §17, §20).

``gate`` refuses a card that records a decision other than PASS; ``compare`` says
in words when a side is partial, the suites or policies differ or the two sides
are the same record; ``report``, ``compare`` and ``history`` recompute every
derived number of a stored scorecard or history record and refuse (exit 2, one
line naming the field) one that disagrees; every string from evidence that they
print is escaped for the terminal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import scorekit as sk
from scorekit import release


# --------------------------------------------------------------------------- (c) gate and the recorded decision
def _example_card(**names):
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), **names)


def test_gate_fails_a_card_that_records_a_decision_other_than_pass(run_cli, tmp_path):
    card = _example_card(agent_name="mail-agent", agent_version="1.4.0")
    assert card.decision == "FAIL"
    path = release.write_scorecard(card.to_release_payload(require_pass=False), tmp_path / "SCORECARD.md")
    code, out, err = run_cli("gate", "--scorecard", path)
    assert code == 1
    assert out.splitlines()[-1] == "outcome: FAIL (decision-not-pass)"
    assert "::error::Candidate scorecard records the scorekit decision FAIL (recipe.config.decision)" in out
    assert release.gate(path).failures == ("decision-not-pass",)
    # A card built from a PASS evaluation still passes.
    rows = [{"id": f"r{i}", "dimension": "task_completion", "status": "PASS", "evaluator": "h"} for i in range(10)]
    card = sk.evaluate(rows, agent_name="mail-agent", agent_version="1.4.0")
    assert card.decision == "PASS"
    path = release.write_scorecard(card.to_release_payload(), tmp_path / "PASS-SCORECARD.md")
    code, out, _ = run_cli("gate", "--scorecard", path)
    assert (code, out.splitlines()[-1]) == (0, "outcome: PASS (first-adoption)")


# --------------------------------------------------------------------------- stored scorecards: recomputed, refused
def _rows(n_cases=10, fails=2, dimension="task_completion", trials=1):
    return [{"id": f"{dimension}-{c}-{t}", "dimension": dimension, "case_id": f"c{c}", "trial": t,
             "status": "FAIL" if c < fails else "PASS", "evaluator": "harness"}
            for c in range(n_cases) for t in range(trials)]


POLICY = {"gate": {"thresholds": {"task_completion": 0.5, "tool_call": 0.95}}}


@pytest.fixture
def stored(tmp_path):
    """Two consistent scorecard.json files: A (PASS) and B (FAIL on tool_call)."""
    a = sk.evaluate(_rows() + _rows(dimension="tool_call", fails=0, trials=2), policy=POLICY,
                    agent_name="agent", agent_version="1")
    b = sk.evaluate(_rows() + _rows(dimension="tool_call", fails=3), policy=POLICY, agent_name="agent",
                    agent_version="2")
    assert (a.decision, b.decision) == ("PASS", "FAIL")
    return a.write(tmp_path / "a")["json"], b.write(tmp_path / "b")["json"]


def _tamper(path, edit):
    data = json.loads(path.read_text("utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _dim(data, name):
    return next(d for d in data["dimensions"] if d["name"] == name)


def _set(name, key, value):
    return lambda data: _dim(data, name).__setitem__(key, value)


D0, D1 = r"\$\.dimensions\[0\]", r"\$\.dimensions\[1\]"  # task_completion, tool_call (sorted by name)
TAMPERED = {
    # what is edited → the field the refusal names, and what it says
    "passes over n": (_set("task_completion", "passes", 15), D0 + r"\.n is 10, but passes 15"),
    "n of 10**30": (_set("task_completion", "n", 10**30), D0 + r"\.n is 1000000000000000000000000000000, not a count"),
    "rate edited": (_set("task_completion", "rate", 0.95), D0 + r"\.rate is 0\.95, but its counts give 0\.8 "),
    "ci_low edited": (_set("task_completion", "ci_low", 0.7), D0 + r"\.ci_low is 0\.7, but its counts give"),
    "count as a float": (_set("task_completion", "passes", 8.0), D0 + r"\.passes is 8\.0, not a count"),
    "cluster interval narrowed": (_set("tool_call", "ci_cluster_low", 0.99),
                                  D1 + r"\.ci_cluster_low is 0\.99, but its counts give"),
    "threshold lowered": (_set("tool_call", "threshold", 0.1), D1 + r"\.threshold is 0\.1, but its counts"),
    "verdict edited": (_set("tool_call", "verdict", "PASS"),
                       D1 + r"\.verdict is 'PASS', but its counts and the stored policy give FAIL"),
    "decision edited": (lambda d: d.update(decision="PASS", overall_pass=True),
                        r"\$\.decision is 'PASS', but the measured decision FAIL and comparison not_requested "
                        r"give FAIL"),
    "both decisions edited": (lambda d: d.update(decision="PASS", measured_decision="PASS", overall_pass=True),
                              r"\$\.measured_decision is PASS, but its verdicts, scope, validation and purpose "
                              r"give FAIL"),
    "failing dimension dropped": (lambda d: d.update(dimensions=[x for x in d["dimensions"]
                                                                if x["name"] != "tool_call"]),
                                  r"\$\.dimensions has no entry for 'tool_call'"),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_report_and_compare_refuse_a_scorecard_that_disagrees_with_its_counts(run_cli, stored, tmp_path, case):
    edit, field = TAMPERED[case]
    a, b = stored
    _tamper(b, edit)
    for argv in (["report", b, "--out-dir", tmp_path / "r"], ["compare", a, b, "--out-dir", tmp_path / "c"],
                 ["compare", b, a, "--out-dir", tmp_path / "c"]):
        code, out, err = run_cli(*argv)
        assert code == 2, (argv, out, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert re.search(f"{re.escape(str(b))}: {field}", err), err
        assert "disagrees with its own evidence" in err
    assert not (tmp_path / "r").exists() and not (tmp_path / "c").exists()


def test_a_dictionary_compared_in_python_is_checked_too(stored):
    a, b = (json.loads(p.read_text("utf-8")) for p in stored)
    b["overall_pass"] = True  # the schema would refuse this in a file; a dictionary is checked all the same
    with pytest.raises(sk.InputError, match=r"^b: \$\.overall_pass is True, but the decision is FAIL"):
        sk.compare(a, b)


def test_a_negative_count_is_refused_too(run_cli, stored, tmp_path):
    a, b = stored
    _tamper(b, _set("task_completion", "n", 10**30))  # schema-valid: refused by the recomputation
    assert run_cli("compare", a, b, "--out-dir", tmp_path)[0] == 2
    _tamper(b, _set("task_completion", "errors", -1))  # refused by the schema already
    code, _, err = run_cli("compare", a, b, "--out-dir", tmp_path)
    assert code == 2 and "$.dimensions[0].errors" in err


def test_a_signed_scorecard_that_verifies_is_still_checked(run_cli, stored, tmp_path):
    from scorekit.signing import sign_scorecard, verify_scorecard, write_keypair

    _, b = stored
    _tamper(b, _set("tool_call", "verdict", "PASS"))
    private, public = write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    envelope = sign_scorecard(b, private)  # the tampered content, signed: the signature verifies
    assert verify_scorecard(b, envelope, public).exit_code == 0
    code, _, err = run_cli("report", b, "--out-dir", tmp_path / "r")
    assert code == 2 and "$.dimensions[1].verdict" in err


def test_the_checker_accepts_every_golden_scorecard():
    from scorekit._stored import check_scorecard

    golden = sorted((Path(__file__).parent / "data" / "golden").glob("*.json"))
    assert len(golden) > 50
    for path in golden:
        check_scorecard(json.loads(path.read_text("utf-8")), path)  # written by scorekit: consistent
    path = next(p for p in golden if p.name == "clean.release.json")
    data = json.loads(path.read_text("utf-8"))
    data["dimensions"][0]["rate"] = 0.5
    with pytest.raises(sk.InputError, match=r"clean\.release\.json: \$\.dimensions\[0\]\.rate is 0\.5"):
        check_scorecard(data, path)


# --------------------------------------------------------------------------- history records edited in place
@pytest.fixture
def history_db(tmp_path):
    from history_cards import make_card

    from scorekit.history import record

    db = tmp_path / "history.sqlite"
    policy = {"gate": {"thresholds": {"task_completion": 0.5}}}
    record(make_card(8, 2, "1", policy=policy), db, label="v1")
    record(make_card(3, 7, "2", policy=policy), db, label="v2")  # FAIL
    return db


def _edit(db, sql):
    import sqlite3

    conn = sqlite3.connect(db)
    with conn:
        conn.execute(sql)
    conn.close()


EDITED = {
    "passes over n": ("UPDATE dimensions SET passes = n + 5 WHERE record_id = 2",
                      r"history record 2 \(label 'v2'\): dimension 'task_completion' n is 10, but passes 15"),
    "n of 1e30": ("UPDATE dimensions SET n = 1e30 WHERE record_id = 1",
                  r"history record 1 \(label 'v1'\): dimension 'task_completion' n is 1e\+30, not a count"),
    "n as text": ("UPDATE dimensions SET n = 'many' WHERE record_id = 1",
                  r"history record 1 \(label 'v1'\): dimension 'task_completion' n is 'many', not a count"),
    "decision edited to PASS": ("UPDATE records SET decision = 'PASS', measured_decision = 'PASS' WHERE id = 2",
                                r"history record 2 \(label 'v2'\): measured_decision is PASS, but its verdicts"),
    "decision edited alone": ("UPDATE records SET decision = 'PASS' WHERE id = 2",
                              r"history record 2 \(label 'v2'\): decision is PASS, but the measured decision FAIL"),
    "verdict edited": ("UPDATE dimensions SET verdict = 'NOT_IN_SCOPE' WHERE record_id = 2",
                       r"history record 2 \(label 'v2'\): dimension 'task_completion' verdict is NOT_IN_SCOPE"),
    "confidence edited": ("UPDATE records SET confidence = 5 WHERE id = 1",
                          r"history record 1 \(label 'v1'\): confidence is 5\.0, not a level"),
    "created_at edited": ("UPDATE records SET created_at = 'yesterday' WHERE id = 1",
                          r"history record 1 \(label 'v1'\): created_at is 'yesterday'"),
    "judges edited": ("UPDATE records SET judges = '{' WHERE id = 1",
                      r"history record 1 \(label 'v1'\): judges is '\{', not a JSON list"),
}


@pytest.mark.parametrize("case", sorted(EDITED))
def test_history_readers_refuse_a_record_edited_in_place(run_cli, history_db, tmp_path, case):
    sql, field = EDITED[case]
    _edit(history_db, sql)
    for argv in (["compare", "v1", "v2", "--history", history_db, "--out-dir", tmp_path / "c"],
                 ["history", history_db], ["history", history_db, "--plot", tmp_path / "trend.png"]):
        code, out, err = run_cli(*argv)
        assert code == 2, (argv, out, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert re.search(f"{re.escape(str(history_db))}: {field}", err), err
    assert not (tmp_path / "trend.png").exists()
    with pytest.raises(sk.HistoryError, match=field):
        sk.history.read_history(history_db)


def test_compare_history_refuses_case_counts_that_do_not_add_up(run_cli, history_db, tmp_path):
    _edit(history_db, "UPDATE cases SET passes = 0 WHERE record_id = 1 AND case_id = 'c0'")
    code, _, err = run_cli("compare", "v1", "v2", "--history", history_db, "--out-dir", tmp_path)
    assert code == 2 and "history record 1 (label 'v1'): dimension 'task_completion' passes and n are 8 and 10, " \
                          "but its cases add up to 7 and 10" in err
    with pytest.raises(sk.HistoryError, match="its cases add up to 7 and 10"):
        sk.history.read_history(history_db, cases=True)


def test_a_regression_baseline_edited_in_place_is_refused(history_db):
    from history_cards import make_card

    from scorekit.history import compare

    # n = passes + fails still holds; the per-case counts give the edit away.
    _edit(history_db, "UPDATE dimensions SET passes = 10, fails = 0 WHERE record_id = 1")
    with pytest.raises(sk.HistoryError, match=r"history record 1 \(label 'v1'\): dimension 'task_completion' "
                                              r"passes and n are 10 and 10, but its cases add up to 8 and 10"):
        compare(make_card(8, 2, "3", policy={"gate": {"thresholds": {"task_completion": 0.5}}}), history_db,
                baseline_label="v1")

