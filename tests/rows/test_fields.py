"""Row fields of SPEC §2 added by issue 11: reason, score, agent, run, pii_allowed.

Each test failed before issue 11 (the fields were unknown, ignored, or made the
row invalid).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scorekit as sk
from scorekit.cli import main


def prescored(i, status="PASS", **extra):
    return {"id": f"r{i}", "dimension": "helpfulness", "case_id": f"c{i}", "status": status,
            "evaluator": "harness-x", **extra}


def scored(i, value, **extra):
    return {"id": f"r{i}", "dimension": "helpfulness", "case_id": f"c{i}", "score": value,
            "evaluator": "inspect:model_graded_qa", **extra}


POLICY = {"gate": {"thresholds": {"helpfulness": 0.5}}}


# --------------------------------------------------------------------------- reason
def test_reason_on_prescored_rows_is_kept_in_evidence_and_findings():
    card = sk.evaluate([prescored(1, "FAIL", reason="timeout_in_tool"), prescored(2)], policy=POLICY)
    row = card.evidence.set_index("id").loc["r1"]
    assert row["reason"] == "timeout_in_tool"
    assert row["detail"] == "pre-scored FAIL by harness-x"
    # 1 of 2 PASSes the 0.5 threshold with assurance 0.5: SPEC §18's low_confidence advisory sits beside it
    found = {f["reason"]: f for f in card.findings if f["dimension"] == "helpfulness"}
    assert sorted(found) == ["low_confidence", "timeout_in_tool"]
    assert found["timeout_in_tool"]["case_ids"] == ["c1"] and found["low_confidence"]["severity"] == "info"


def test_prescored_reason_defaults_to_prescored_status():
    card = sk.evaluate([prescored(1, "ERROR")], policy=POLICY)
    assert card.evidence.iloc[0]["reason"] == "prescored_error"


# --------------------------------------------------------------------------- score + partial
@pytest.mark.parametrize("partial, expected", [
    ("fail", ("FAIL", "partial_credit")),
    ("abstain", ("ABSTAIN", "partial_credit")),
    ({"min": 0.5}, ("PASS", None)),
    ({"min": 0.75}, ("FAIL", "below_partial_min")),
])
def test_score_follows_the_policys_partial_rule(partial, expected):
    card = sk.evaluate([scored(1, 0.5)], policy={**POLICY, "partial": partial})
    row = card.evidence.iloc[0]
    assert (row["status"], None if row["reason"] != row["reason"] else row["reason"]) == expected


def test_score_one_passes_and_zero_fails_whatever_the_rule():
    for partial in ("fail", "abstain", {"min": 0.9}):
        card = sk.evaluate([scored(1, 1), scored(2, 0.0)], policy={**POLICY, "partial": partial})
        assert card.evidence["status"].tolist() == ["PASS", "FAIL"]
        assert card.evidence["reason"].tolist()[1] == "score_zero"


@given(value=st.floats(min_value=0, max_value=1, exclude_min=True, exclude_max=True))
def test_partial_credit_is_never_rounded_up(value):
    card = sk.evaluate([scored(1, value)], policy=POLICY)
    assert card.evidence.iloc[0]["status"] == "FAIL"
    card = sk.evaluate([scored(1, value)], policy={**POLICY, "partial": {"min": 0.999}})
    assert (card.evidence.iloc[0]["status"] == "PASS") == (value >= 0.999)


@pytest.mark.parametrize("bad", [1.5, -0.1, "0.5", True, None])
def test_score_outside_unit_interval_makes_the_row_invalid(bad):
    row = scored(1, bad)
    card = sk.evaluate([row], policy={**POLICY, "purpose": "exploratory"})
    if bad is None:  # null is absent: no score, no status, no votes
        assert card.evidence.iloc[0]["reason"] == "missing_judge_votes"
    else:
        assert card.validation.invalid == 1
        assert card.validation.problems[0].field == "score"


def test_score_needs_an_evaluator():
    row = scored(1, 0.5)
    del row["evaluator"]
    card = sk.evaluate([row], policy={**POLICY, "purpose": "exploratory"})
    assert [p.field for p in card.validation.problems] == ["evaluator"]


def test_status_wins_over_score():
    card = sk.evaluate([scored(1, 0.2, status="PASS")], policy=POLICY)
    assert card.evidence.iloc[0]["status"] == "PASS"


def test_score_is_measured_and_enters_the_results_hash():
    a = sk.evaluate([scored(1, 0.5)], policy=POLICY)
    b = sk.evaluate([scored(1, 0.25)], policy=POLICY)
    assert a.hashes["results"] != b.hashes["results"]
    assert a.hashes["suite"] == b.hashes["suite"]


# --------------------------------------------------------------------------- agent
def two_agents():
    return [prescored(1, agent="gpt-4o"), prescored(2, agent="claude-3-5"), prescored(3, "FAIL", agent="gpt-4o")]


def test_rows_of_two_agents_are_an_input_error_naming_them():
    with pytest.raises(sk.InputError) as info:
        sk.evaluate(two_agents(), policy=POLICY)
    message = str(info.value)
    assert "'claude-3-5'" in message and "'gpt-4o'" in message and "--agent NAME" in message


def test_agent_selects_one_agents_rows():
    card = sk.evaluate(two_agents(), policy=POLICY, agent="gpt-4o")
    assert sorted(card.evidence["id"]) == ["r1", "r3"]
    assert card.agent["name"] == "gpt-4o"


def test_one_named_agent_names_the_scorecard():
    card = sk.evaluate([prescored(1, agent="gpt-4o")], policy=POLICY)
    assert card.agent["name"] == "gpt-4o"
    assert sk.evaluate([prescored(1, agent="gpt-4o")], policy=POLICY, agent_name="mail-bot").agent["name"] == "mail-bot"


def test_rows_without_agent_beside_named_rows_are_another_agent():
    with pytest.raises(sk.InputError, match="rows without agent"):
        sk.evaluate([prescored(1, agent="gpt-4o"), prescored(2)], policy=POLICY)


def test_unknown_agent_selection_is_an_input_error():
    with pytest.raises(sk.InputError, match="no row of agent 'llama'"):
        sk.evaluate(two_agents(), policy=POLICY, agent="llama")


def test_agent_is_not_in_the_suite_hash():
    a = sk.evaluate([prescored(1, agent="gpt-4o")], policy=POLICY)
    b = sk.evaluate([prescored(1, agent="claude-3-5")], policy=POLICY)
    assert a.hashes["suite"] == b.hashes["suite"]


def test_mock_agent_is_a_self_test():
    card = sk.evaluate([prescored(1, agent="mockllm/model")], policy=POLICY)
    assert card.decision == "SELF_TEST"
    assert "the agent is a mock" in card.decision_reasons
    assert sk.evaluate([prescored(1)], policy=POLICY, agent_name="Mock-Agent").decision == "SELF_TEST"


def test_cli_mixed_agents_exit_2_and_agent_picks_one(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in two_agents()))
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    assert main(["run", "--results", str(path), "--policy", str(policy), "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--agent NAME" in err[0] and "'gpt-4o'" in err[0]
    code = main(["run", "--results", str(path), "--policy", str(policy), "--agent", "claude-3-5",
                 "--out-dir", str(tmp_path / "o")])
    assert code == 0
    card = json.loads((tmp_path / "o" / "scorecard.json").read_text())
    assert card["agent"]["name"] == "claude-3-5"
    assert sum(d["n"] for d in card["dimensions"]) == 1


def test_agent_must_be_a_non_empty_string():
    card = sk.evaluate([prescored(1, agent="")], policy={**POLICY, "purpose": "exploratory"})
    assert card.validation.problems[0].field == "agent"


# --------------------------------------------------------------------------- run
def test_run_is_kept_in_the_evidence_and_measured():
    rows = [prescored(1, run=1), prescored(2, run="nightly-2")]
    card = sk.evaluate(rows, policy=POLICY)
    assert card.evidence["run"].tolist() == ["1", "nightly-2"]
    other = sk.evaluate([prescored(1, run=2), prescored(2, run="nightly-2")], policy=POLICY)
    assert card.hashes["results"] != other.hashes["results"]
    assert card.hashes["suite"] == other.hashes["suite"]


@pytest.mark.parametrize("bad", [-1, 1.5, "", [1]])
def test_bad_run_makes_the_row_invalid(bad):
    card = sk.evaluate([prescored(1, run=bad)], policy={**POLICY, "purpose": "exploratory"})
    assert card.validation.problems[0].field == "run"
