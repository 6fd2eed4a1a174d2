"""action_correctness scorer and state matching (SPEC §3, seed "Actions and outcomes")."""

from __future__ import annotations

from pathlib import Path

from _example import any_row, assert_example_rows_score_as_planned
from hypothesis import given
from hypothesis import strategies as st

import scorekit
from scorekit.scorers import actions
from scorekit.scorers._base import Context
from scorekit.scorers.actions import state_matches

EXAMPLE = Path(scorekit.__file__).parent / "examples" / "email_assistant" / "results.jsonl"

json_scalars = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.floats(
    allow_nan=False, allow_infinity=False
) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


def run(**row):
    return actions.score(row, Context())


# --------------------------------------------------------------------------- state_matches
def test_object_matches_as_recursive_subset():
    observed = {"messages": {"m1": {"archived": True, "deleted": False, "labels": ["A"]}}, "count": 3}
    assert state_matches({"messages": {"m1": {"archived": True}}}, observed)
    assert state_matches({}, observed)
    assert not state_matches({"messages": {"m1": {"archived": False}}}, observed)
    assert not state_matches({"messages": {"m2": {}}}, observed)


def test_missing_key_does_not_match():
    assert not state_matches({"a": None}, {})


def test_arrays_match_exactly_in_order():
    assert state_matches(["a", "b"], ["a", "b"])
    assert not state_matches(["a", "b"], ["b", "a"])
    assert not state_matches(["a"], ["a", "b"])
    assert not state_matches(["a", "b"], ["a"])
    assert state_matches([], [])


def test_array_elements_match_by_the_same_rules():
    # objects inside arrays are subsets, element-wise
    assert state_matches([{"id": 1}], [{"id": 1, "extra": True}])
    assert not state_matches([{"id": 1}], [{"id": 2, "extra": True}])


def test_true_does_not_match_1():
    assert not state_matches(True, 1)
    assert not state_matches(1, True)
    assert not state_matches({"unread": False}, {"unread": 0})


def test_1_does_not_match_1_0():
    assert not state_matches(1, 1.0)
    assert not state_matches(1.0, 1)
    assert state_matches(1.0, 1.0)


def test_string_1_does_not_match_1():
    assert not state_matches("1", 1)
    assert not state_matches(1, "1")


def test_none_only_matches_none():
    assert state_matches(None, None)
    for other in (0, False, "", [], {}, "null"):
        assert not state_matches(None, other)
        assert not state_matches(other, None)


def test_object_does_not_match_array_or_scalar():
    assert not state_matches({}, [])
    assert not state_matches([], {})
    assert not state_matches({}, "x")


def test_deeply_nested_state_does_not_raise():
    deep: object = 1
    for _ in range(5000):
        deep = {"k": [deep]}
    assert state_matches(deep, deep)


@given(json_values)
def test_every_json_value_matches_itself(value):
    assert state_matches(value, value)


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6), st.data())
def test_a_subset_of_an_object_matches_it(observed, data):
    keys = data.draw(st.lists(st.sampled_from(sorted(observed)), unique=True) if observed else st.just([]))
    assert state_matches({k: observed[k] for k in keys}, observed)


@given(json_values, json_values)
def test_scalars_match_only_with_equal_type_and_value(a, b):
    if not isinstance(a, (dict, list)) and not isinstance(b, (dict, list)):
        assert state_matches(a, b) == (type(a) is type(b) and a == b)


# --------------------------------------------------------------------------- contract and evidence
def test_missing_action_contract_is_unlabeled():
    assert run(agent_actions=["a"])[:3] == ("ERROR", "missing_action_contract", False)


def test_empty_action_lists_are_no_contract():
    # Nothing can fail: an empty forbidden list, or an empty ordered/set expectation.
    assert run(agent_actions=["a"], expected_actions=[], forbidden_actions=[]).reason == "missing_action_contract"
    assert run(agent_actions=["a"], expected_actions=[], match="set").reason == "missing_action_contract"


def test_empty_exact_expectation_requires_no_actions():
    assert run(agent_actions=[], expected_actions=[], match="exact").status == "PASS"
    assert run(agent_actions=["a"], expected_actions=[], match="exact").reason == "action_sequence_mismatch"


def test_missing_actions_is_error():
    assert run(expected_actions=["a"])[:3] == ("ERROR", "missing_actions", True)
    assert run(forbidden_actions=["a"])[:3] == ("ERROR", "missing_actions", True)


def test_state_only_contract_needs_no_actions():
    assert run(expected_state={"a": 1}, observed_state={"a": 1}).status == "PASS"


def test_missing_observed_state_is_error_not_fail():
    out = run(agent_actions=["a"], expected_actions=["a"], expected_state={"done": True})
    assert out[:3] == ("ERROR", "missing_observed_state", True)


def test_missing_observed_state_is_never_pass_even_for_empty_expectation():
    assert run(expected_state={}).reason == "missing_observed_state"


def test_forbidden_action_fails_even_when_state_is_missing():
    out = run(agent_actions=["delete_message"], forbidden_actions=["delete_message"], expected_state={"x": 1})
    assert out[:3] == ("FAIL", "forbidden_action", True)


def test_missing_expected_action_fails_even_when_state_is_missing():
    out = run(agent_actions=["b"], expected_actions=["a"], expected_state={"x": 1})
    assert out.reason == "missing_expected_action"


def test_state_mismatch_fails_even_when_actions_are_missing():
    out = run(expected_actions=["a"], expected_state={"x": 1}, observed_state={"x": 2})
    assert out[:3] == ("FAIL", "state_mismatch", True)


def test_actions_default_to_tool_call_names():
    calls = [{"name": "search_messages", "arguments": {"q": "x"}}, {"name": "archive_message"}]
    assert run(tool_calls=calls, expected_actions=["search_messages", "archive_message"]).status == "PASS"
    assert run(tool_calls=calls, forbidden_actions=["archive_message"]).reason == "forbidden_action"
    assert run(tool_calls=[], expected_actions=["a"]).reason == "missing_expected_action"


def test_agent_actions_win_over_tool_calls():
    out = run(agent_actions=["a"], tool_calls=[{"name": "b"}], expected_actions=["a"], forbidden_actions=["b"])
    assert out.status == "PASS"


def test_action_objects_use_their_name():
    acts = [{"name": "get_message", "arguments": {"id": "m1"}}, "forward_message"]
    assert run(agent_actions=acts, expected_actions=["get_message", "forward_message"]).status == "PASS"


# --------------------------------------------------------------------------- forbidden
def test_forbidden_action_anywhere_fails():
    out = run(agent_actions=["search", "delete_message", "archive"], forbidden_actions=["delete_message"])
    assert out[:3] == ("FAIL", "forbidden_action", True)


def test_forbidden_sequence_fails_as_ordered_subsequence():
    forbidden = [["read_secret", "send_email"]]
    assert run(agent_actions=["read_secret", "send_email"], forbidden_actions=forbidden).reason == "forbidden_action"
    # not necessarily contiguous
    assert (
        run(agent_actions=["read_secret", "summarise", "send_email"], forbidden_actions=forbidden).reason
        == "forbidden_action"
    )


def test_forbidden_sequence_in_other_order_passes():
    forbidden = [["read_secret", "send_email"]]
    assert run(agent_actions=["send_email", "read_secret"], forbidden_actions=forbidden).status == "PASS"
    assert run(agent_actions=["read_secret"], forbidden_actions=forbidden).status == "PASS"
    assert run(agent_actions=["send_email"], forbidden_actions=forbidden).status == "PASS"


def test_forbidden_sequence_with_repeated_names():
    forbidden = [["send_email", "send_email"]]
    assert run(agent_actions=["send_email"], forbidden_actions=forbidden).status == "PASS"
    assert (
        run(agent_actions=["send_email", "x", "send_email"], forbidden_actions=forbidden).reason == "forbidden_action"
    )


def test_forbidden_action_checked_before_expected_actions():
    out = run(
        agent_actions=["delete_message"], expected_actions=["archive_message"], forbidden_actions=["delete_message"]
    )
    assert out.reason == "forbidden_action"


# --------------------------------------------------------------------------- expected (match modes)
def test_ordered_is_the_default_match():
    assert run(agent_actions=["a", "x", "b"], expected_actions=["a", "b"]).status == "PASS"
    assert run(agent_actions=["b", "a"], expected_actions=["a", "b"])[:3] == ("FAIL", "missing_expected_action", True)


def test_ordered_match_is_an_ordered_subsequence():
    assert run(agent_actions=["s", "g", "f", "l"], expected_actions=["g", "f", "l"], match="ordered").status == "PASS"
    out = run(agent_actions=["s", "g", "f"], expected_actions=["g", "f", "l"], match="ordered")
    assert out.reason == "missing_expected_action"
    assert run(agent_actions=["a"], expected_actions=["a", "a"], match="ordered").reason == "missing_expected_action"


def test_exact_match_requires_equal_sequences():
    assert run(agent_actions=["a", "b"], expected_actions=["a", "b"], match="exact").status == "PASS"
    for observed in (["a", "x", "b"], ["b", "a"], ["a"], ["a", "b", "b"]):
        out = run(agent_actions=observed, expected_actions=["a", "b"], match="exact")
        assert out[:3] == ("FAIL", "action_sequence_mismatch", True), observed


def test_set_match_is_membership():
    assert run(agent_actions=["b", "x", "a"], expected_actions=["a", "b"], match="set").status == "PASS"
    assert run(agent_actions=["a"], expected_actions=["a", "a"], match="set").status == "PASS"
    assert run(agent_actions=["b"], expected_actions=["a", "b"], match="set").reason == "missing_expected_action"


def test_expected_action_arguments_match_as_subset():
    observed = [{"name": "create_event", "arguments": {"title": "Q1", "duration_minutes": 30, "room": "A"}}]
    ok = [{"name": "create_event", "arguments": {"duration_minutes": 30}}]
    bad_type = [{"name": "create_event", "arguments": {"duration_minutes": "30"}}]
    bad_float = [{"name": "create_event", "arguments": {"duration_minutes": 30.0}}]
    assert run(agent_actions=observed, expected_actions=ok).status == "PASS"
    assert run(agent_actions=observed, expected_actions=bad_type).reason == "missing_expected_action"
    assert run(agent_actions=observed, expected_actions=bad_float, match="exact").reason == "action_sequence_mismatch"


def test_expected_arguments_checked_against_tool_call_arguments():
    calls = [{"name": "forward_message", "arguments": {"to": ["ap@example.com"]}}]
    want = [{"name": "forward_message", "arguments": {"to": ["ap@example.com"]}}]
    wrong = [{"name": "forward_message", "arguments": {"to": ["evil@example.com"]}}]
    assert run(tool_calls=calls, expected_actions=want).status == "PASS"
    assert run(tool_calls=calls, expected_actions=wrong).reason == "missing_expected_action"


def test_expected_arguments_are_not_matched_by_an_action_without_arguments():
    # Fail closed: arguments that were expected but not captured cannot be a match.
    want = [{"name": "mark_read", "arguments": {"ids": ["m1"]}}]
    assert run(agent_actions=["mark_read"], expected_actions=want).status == "FAIL"
    assert run(agent_actions=[{"name": "mark_read"}], expected_actions=want).status == "FAIL"
    assert (
        run(agent_actions=[{"name": "mark_read", "arguments": {"ids": ["m1"]}}], expected_actions=want).status == "PASS"
    )


def test_expected_actions_checked_before_state():
    out = run(agent_actions=["b"], expected_actions=["a"], expected_state={"x": 1}, observed_state={"x": 2})
    assert out.reason == "missing_expected_action"


# --------------------------------------------------------------------------- state in the scorer
def test_state_mismatch_fails():
    out = run(agent_actions=["a"], expected_actions=["a"], expected_state={"x": 1}, observed_state={"x": 1.0})
    assert out[:3] == ("FAIL", "state_mismatch", True)


def test_matching_state_and_actions_pass():
    out = run(
        agent_actions=["search_messages", "archive_message"],
        expected_actions=["search_messages", "archive_message"],
        forbidden_actions=["delete_message"],
        expected_state={"messages": {"m1": {"archived": True}}},
        observed_state={"messages": {"m1": {"archived": True, "deleted": False}, "m2": {}}},
    )
    assert out[:3] == ("PASS", None, True)


def test_scalar_expected_state():
    assert run(expected_state=0, observed_state=0).status == "PASS"
    assert run(expected_state=0, observed_state=False).reason == "state_mismatch"


def test_reasons_cover_every_code():
    emitted = {
        run().reason,
        run(expected_actions=["a"]).reason,
        run(expected_state={}).reason,
        run(agent_actions=["a"], forbidden_actions=["a"]).reason,
        run(agent_actions=[], expected_actions=["a"]).reason,
        run(agent_actions=[], expected_actions=["a"], match="exact").reason,
        run(expected_state=1, observed_state=2).reason,
    }
    assert emitted == set(actions.REASONS)


def test_example_rows_score_to_their_planned_status():
    assert_example_rows_score_as_planned("action_correctness", actions.score)


# Scorers never raise on data (whatever the row validation let through or not):
# every irregularity is an outcome.
_ANY_ROW = any_row(
    [
        "agent_actions",
        "tool_calls",
        "expected_actions",
        "forbidden_actions",
        "match",
        "expected_state",
        "observed_state",
    ]
)


@given(_ANY_ROW)
def test_never_raises_on_arbitrary_rows(row):
    outcome = actions.score(row, Context())
    assert outcome.status in ("PASS", "FAIL", "ERROR", "ABSTAIN")
    assert (outcome.reason is None) == (outcome.status == "PASS")
