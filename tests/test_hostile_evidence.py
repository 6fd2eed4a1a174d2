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


# --------------------------------------------------------------------------- (d) what compare's header says
def _compare_outputs(run_cli, out_dir, *argv):
    code, out, err = run_cli("compare", *argv, "--out-dir", out_dir)
    assert (code, err) == (0, ""), err
    return out, (out_dir / "compare.md").read_text("utf-8"), (out_dir / "compare.html").read_text("utf-8")


def test_compare_names_the_partial_side_and_the_differing_suites(run_cli, tmp_path):
    rows, policy = _rows(n_cases=20, fails=1), {"gate": {"thresholds": {"task_completion": 0.5}}}
    full = sk.evaluate(rows, policy=policy, agent_name="agent", agent_version="1").write(tmp_path / "full")["json"]
    triage = sk.evaluate(rows, policy=policy, agent_name="agent", agent_version="2", limit=8)
    assert (triage.decision, triage.partial) == ("TRIAGE", True)
    part = triage.write(tmp_path / "part")["json"]
    for text in _compare_outputs(run_cli, tmp_path / "c", full, part):
        assert "B is partial (decision TRIAGE)" in text
        assert "decision PASS" in text and "decision TRIAGE (partial)" in text
        assert "The suite hashes differ" in text
        assert "A is partial" not in text
    # Said the other way round too: the side, not the position, is named.
    for text in _compare_outputs(run_cli, tmp_path / "d", part, full):
        assert "A is partial (decision TRIAGE)" in text and "B is partial" not in text


def test_compare_of_history_records_with_different_suites_covers_the_shared_cases_counted(run_cli, tmp_path):
    from history_cards import make_card

    from scorekit.history import record

    db = tmp_path / "history.sqlite"
    policy = {"gate": {"thresholds": {"task_completion": 0.5}}}
    record(make_card(8, 2, "1", policy=policy), db, label="v1")          # cases c0..c9
    record(make_card(9, 3, "2", policy=policy), db, label="v2")          # cases c0..c11: another suite
    out, md, html = _compare_outputs(run_cli, tmp_path / "c", "v1", "v2", "--history", db)
    sentence = "The suite hashes differ: the comparison covers only the 10 cases measured on both sides " \
               "(0 only in A, 2 only in B)"
    for text in (out, md, html):
        assert sentence in text
    table = sk.compare("v1", "v2", history=db)
    assert (int(table.loc["task_completion", "n_a"]), int(table.loc["task_completion", "n_b"])) == (10, 10)
    assert int(table.loc["task_completion", "passes_b"]) == 9  # c0..c8 pass; c9 fails; c10, c11 left out


def test_compare_says_when_the_two_sides_are_the_same_record(run_cli, stored, tmp_path):
    from history_cards import make_card

    from scorekit.history import record

    a, _ = stored
    for text in _compare_outputs(run_cli, tmp_path / "c", a, a):
        assert "A and B are the same record (the same file)" in text
    db = tmp_path / "history.sqlite"
    record(make_card(8, 2, "1", policy={"gate": {"thresholds": {"task_completion": 0.5}}}), db, label="v1")
    for text in _compare_outputs(run_cli, tmp_path / "h", "v1", "v1", "--history", db):
        assert "A and B are the same record (history record 1)" in text
    out, _, _ = _compare_outputs(run_cli, tmp_path / "x", a, stored[1])
    assert "same record" not in out


# --------------------------------------------------------------------------- 11: evidence strings on the terminal
HOSTILE = "agent\n::error::injected \x1b[31mred\x1b[0m \u2028 \u202eevil\r::warning::x"
UNSAFE_ON_A_LINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _assert_terminal_safe(text):
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert UNSAFE_ON_A_LINE.search(line) is None, line
        assert "##[" not in line


def test_compare_and_history_print_hostile_names_escaped(run_cli, tmp_path):
    from scorekit.history import record

    policy = {"gate": {"thresholds": {"task_completion": 0.5, "::error::dim": 0.5}}}
    rows = _rows() + _rows(dimension="::error::dim")
    cards = [sk.evaluate(rows, policy=policy, agent_name=HOSTILE, agent_version=f"{v}\n::error::v") for v in (1, 2)]
    paths = [card.write(tmp_path / f"r{i}")["json"] for i, card in enumerate(cards)]
    db = tmp_path / "history.sqlite"
    for i, card in enumerate(cards):
        record(card, db, label=f"{HOSTILE}{i}")
    runs = [("compare", *paths, "--out-dir", tmp_path / "c"),
            ("compare", f"{HOSTILE}0", f"{HOSTILE}1", "--history", db, "--out-dir", tmp_path / "h"),
            ("history", db), ("report", paths[0], "--out-dir", tmp_path / "r")]
    for argv in runs:
        code, out, err = run_cli(*argv)
        assert code == 0, (argv, err)
        _assert_terminal_safe(out)
        _assert_terminal_safe(err)
    code, out, _ = run_cli(*runs[0])
    assert "agent\\n\\x3a:error::injected" not in out  # escaped in place, not only at line start:
    assert "agent\\n::error::injected" in out          # the line break is shown, the text kept
