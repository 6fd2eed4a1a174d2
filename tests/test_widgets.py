"""The explorer's callbacks are plain functions: tested without a browser or a kernel.

Every state is a :func:`scorekit.evaluate` under a policy built from the choices;
the widgets only collect choices. The fragments both notebooks display are tested
in test_notebook.py.
"""

from __future__ import annotations

import dataclasses

import pytest
from _rendered import parse_html, table_rows

import scorekit as sk
from scorekit import Policy, PolicyError
from scorekit.widgets import build_explorer, explore_policy, explore_state, show_explorer

EXAMPLE = sk.example_path()
POLICY = sk.example_path(file="policy.yml")
#: The example's cost (67/70) and latency (62/65) PASS 95% only while their missing rows are left
#: out: one counted as FAIL could flip them, so under SPEC §18 they are INCOMPLETE (missing_could_flip).
MISSING_COULD_FLIP = ["cost", "latency"]


def ignoring_missing_rows() -> dict:
    """The example policy, with the missing rows left out of the verdicts (``gate.missing_evidence: ignore``):
    for the tests about what a control re-decides, not about missing evidence."""
    policy = sk.load_policy(POLICY).to_dict()
    policy["gate"]["missing_evidence"] = "ignore"
    return policy


def held_by_missing_rows(card) -> list[str]:
    """The in-scope dimensions that do not PASS, checked to be INCOMPLETE because missing rows could flip them."""
    dims = card.dimensions
    held = dims[~dims["verdict"].isin(["PASS", "NOT_IN_SCOPE"])]
    assert (held["verdict"] == "INCOMPLETE").all() and held["missing_could_flip"].astype(bool).all()
    return sorted(held.index)


@pytest.fixture(scope="module")
def rows():
    return sk.read_rows(EXAMPLE)


# --------------------------------------------------------------------------- explore_policy
def test_picking_dimensions_makes_them_the_scope_and_drops_the_other_thresholds():
    policy = explore_policy(POLICY, dimensions=["pii", "cost"])
    assert policy["gate"]["required_dimensions"] == ["cost", "pii"]
    assert policy["gate"]["thresholds"] == {"cost": 0.95, "pii": 1.0}
    assert sk.load_policy(policy).scope(["pii", "cost", "latency"]) == (["cost", "pii"], False)


def test_moved_thresholds_k_and_purpose_enter_the_policy():
    policy = explore_policy(POLICY, thresholds={"helpfulness": 0.7}, k=3, purpose="exploratory")
    assert policy["gate"]["thresholds"]["helpfulness"] == 0.7
    assert policy["pass_k"] == [1, 2, 3, 4]
    assert policy["purpose"] == "exploratory"


def test_explore_policy_leaves_the_starting_policy_alone_without_choices():
    assert explore_policy(POLICY) == sk.load_policy(POLICY).to_dict()


@pytest.mark.parametrize(
    ("choices", "error", "names"),
    [
        ({"dimensions": []}, ValueError, "dimensions"),
        ({"k": 0}, ValueError, "k must"),
        ({"k": True}, ValueError, "k must"),
        ({"purpose": "ship-it"}, ValueError, "purpose"),
        ({"thresholds": {"pii": 1.5}}, PolicyError, "gate.thresholds.pii"),
    ],
)
def test_bad_choices_are_errors_naming_the_choice(choices, error, names):
    with pytest.raises(error, match=names):
        explore_policy(POLICY, **choices)


# --------------------------------------------------------------------------- explore_state
def test_explore_state_is_evaluate_under_the_explored_policy(rows):
    view = explore_state(rows, policy=POLICY, thresholds={"tool_call": 0.99})
    card = sk.evaluate(rows, policy=view.policy)
    assert view.decision == card.decision
    assert view.card.dimensions.drop(columns=["pass_k", "flaky_cases", "verdict_reasons"]).equals(
        card.dimensions.drop(columns=["pass_k", "flaky_cases", "verdict_reasons"]))


def test_lowering_the_failing_threshold_below_the_rate_turns_the_example_to_pass():
    assert explore_state(EXAMPLE, policy=POLICY).decision == "FAIL"  # action_correctness 89.8% < 95%
    view = explore_state(EXAMPLE, policy=POLICY, thresholds={"action_correctness": 0.85})
    assert view.card.dimensions.loc["action_correctness", ["threshold", "verdict"]].tolist() == [0.85, "PASS"]
    # no dimension FAILs now; only the two whose missing rows could flip them hold the decision back
    assert view.decision == "INCOMPLETE" and held_by_missing_rows(view.card) == MISSING_COULD_FLIP
    assert explore_state(EXAMPLE, policy=ignoring_missing_rows(), thresholds={"action_correctness": 0.85}
                         ).decision == "PASS"


def test_raising_a_threshold_above_the_rate_fails_that_dimension():
    view = explore_state(EXAMPLE, policy=POLICY, thresholds={"tool_call": 0.99})
    assert view.card.dimensions.loc["tool_call", "verdict"] == "FAIL"
    assert view.decision == "FAIL"


def test_leaving_out_the_failing_dimension_takes_it_out_of_scope():
    others = ["cost", "helpfulness", "injection", "latency", "pii", "task_completion", "tool_call"]
    view = explore_state(EXAMPLE, policy=POLICY, dimensions=others)
    assert view.card.dimensions.loc["action_correctness", "verdict"] == "NOT_IN_SCOPE"
    assert view.decision == "INCOMPLETE" and held_by_missing_rows(view.card) == MISSING_COULD_FLIP
    rest = [name for name in others if name not in MISSING_COULD_FLIP]
    view = explore_state(EXAMPLE, policy=POLICY, dimensions=rest)
    assert (view.card.dimensions.loc[["action_correctness", *MISSING_COULD_FLIP], "verdict"] == "NOT_IN_SCOPE").all()
    assert view.decision == "PASS"


def test_an_exploratory_purpose_never_passes():
    view = explore_state(EXAMPLE, policy=POLICY, thresholds={"action_correctness": 0.85}, purpose="exploratory")
    assert view.decision == "TRIAGE"


def test_view_table_shows_the_chosen_k_from_the_card():
    view = explore_state(EXAMPLE, policy=POLICY, k=3)
    assert "pass^3" in view.table.columns
    for name, entry in view.card.dimensions["pass_k"].items():
        assert view.table.loc[name, "pass^3"] == entry["3"]
    assert view.table["rate"].equals(view.card.dimensions["rate"])


def test_view_html_shows_the_decision_the_table_and_the_reports_two_svg_charts():
    view = explore_state(EXAMPLE, policy=POLICY, k=2)
    root, tags = parse_html(view._repr_html_())
    (value,) = root.find_all(cls="sk-decision-value")
    assert value.all_text() == view.decision
    (table,) = root.find_all("table", cls="sk-summary")
    header, body = table_rows(table)
    assert "pass^2" in header and "pass^4" not in header
    assert [r[0] for r in body] == list(view.card.dimensions.index)
    assert [attrs.get("role") for tag, attrs in tags if tag == "svg"] == ["img", "img"]  # rates, pass^k
    assert not [tag for tag, _ in tags if tag in ("script", "img")]


# --------------------------------------------------------------------------- widgets
def test_explorer_controls_start_from_the_policy():
    explorer = build_explorer(EXAMPLE, policy=POLICY)
    policy = sk.load_policy(POLICY)
    assert set(explorer.checks) == set(policy.gate.required_dimensions)
    assert all(box.value for box in explorer.checks.values())
    assert {n: s.value for n, s in explorer.sliders.items()} == dict(policy.gate.thresholds)
    assert explorer.k.value == max(policy.pass_k)
    assert explorer.purpose.value == "release"
    assert explorer.view.decision == "FAIL"


def test_moving_a_slider_re_decides_and_calls_back():
    seen = []
    explorer = build_explorer(EXAMPLE, policy=ignoring_missing_rows(),
                              on_update=lambda e: seen.append(e.view.decision))
    assert explorer.view.decision == "FAIL"
    explorer.sliders["action_correctness"].value = 0.85
    assert explorer.view.decision == "PASS"
    assert seen == ["PASS"]
    explorer.purpose.value = "self_test"
    assert explorer.view.decision == "SELF_TEST"
    explorer.k.value = 3
    assert "pass^3" in explorer.view.table.columns


def test_unchecking_a_dimension_takes_it_out_of_scope():
    explorer = build_explorer(EXAMPLE, policy=POLICY)
    explorer.checks["action_correctness"].value = False
    assert explorer.view.card.dimensions.loc["action_correctness", "verdict"] == "NOT_IN_SCOPE"
    assert explorer.view.decision == "INCOMPLETE" and held_by_missing_rows(explorer.view.card) == MISSING_COULD_FLIP
    for name in MISSING_COULD_FLIP:
        explorer.checks[name].value = False
    assert explorer.view.decision == "PASS"


def test_unchecking_every_dimension_is_a_message_not_an_exception():
    explorer = build_explorer(EXAMPLE, policy=POLICY)
    for box in explorer.checks.values():
        box.value = False
    assert explorer.view is None
    assert "at least one dimension" in explorer.message
    assert "Cannot decide" in explorer._repr_html_()
    explorer.checks["pii"].value = True
    assert explorer.view is not None and explorer.view.decision == "PASS"


def test_a_dimension_without_a_threshold_keeps_none_until_its_slider_moves():
    policy = sk.load_policy(POLICY).to_dict()
    del policy["gate"]["thresholds"]["helpfulness"]  # judged: no built-in default
    explorer = build_explorer(EXAMPLE, policy=policy)
    assert "helpfulness" not in explorer.choices()["thresholds"]
    assert explorer.view.card.dimensions.loc["helpfulness", "verdict"] == "INCOMPLETE"  # fail closed, not 0%
    explorer.sliders["helpfulness"].value = 0.8
    assert explorer.view.card.dimensions.loc["helpfulness", "verdict"] == "PASS"


def test_show_explorer_updates_one_display_in_place(capsys):
    explorer = show_explorer(EXAMPLE, policy=ignoring_missing_rows())
    first = capsys.readouterr().out  # outside IPython, display() prints the text form
    assert "<Explorer 8 dimensions, FAIL>" in first
    explorer.sliders["action_correctness"].value = 0.85
    assert "<Explorer 8 dimensions, PASS>" in capsys.readouterr().out


def test_explore_policy_is_the_policy_replaced_by_the_choices(monkeypatch):
    # The explorer edits no policy by hand: its mapping is Policy.replace()'s, normalised like a loaded policy.
    calls = []
    original = Policy.replace

    def spy(self, **changes):
        calls.append(sorted(changes))
        return original(self, **changes)

    monkeypatch.setattr(Policy, "replace", spy)
    got = explore_policy(POLICY, dimensions=["pii"], thresholds={"pii": 1}, k=3, purpose="exploratory")
    assert calls == [["gate", "pass_k", "purpose"]]
    base = sk.load_policy(POLICY)
    gate = dataclasses.replace(base.gate, required_dimensions=("pii",), thresholds={"pii": 1.0}, pass_k_thresholds={})
    assert got == original(base, gate=gate, pass_k=[*base.pass_k, 3], purpose="exploratory").to_dict()
    assert type(got["gate"]["thresholds"]["pii"]) is float


def test_explore_policy_k_is_checked_by_the_one_validator():
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1; got True$"):
        explore_policy(POLICY, k=True)
