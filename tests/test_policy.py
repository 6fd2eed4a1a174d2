"""Policy loading, validation and normalisation (SPEC §7, §10 policy hash)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from scorekit import PolicyError
from scorekit._examples import example_path
from scorekit._policy import (
    BUDGET_KEYS,
    BUILTIN_THRESHOLDS,
    DETERMINISTIC_DIMENSIONS,
    Gate,
    Judges,
    PassKThreshold,
    Policy,
    Regression,
    load_policy,
)

DEFAULT_DICT = {
    "budgets": {},
    "confidence": 0.95,
    "gate": {
        "min_coverage": 1.0,
        "min_samples": 1,
        "missing_evidence": "bound",
        "pass_k_thresholds": {},
        "required_dimensions": [],
        "threshold_basis": "point",
        "thresholds": {},
    },
    "judges": {"panel": [], "pass_score": 4},
    "partial": "fail",
    "pass_k": [1, 2, 4, 8],
    "purpose": "release",
    "regression": {"baseline": None, "max_drop": 0.0, "method": "paired", "multiplicity": "holm", "required": False},
}


def error(policy) -> str:
    """The PolicyError message load_policy raises for ``policy`` (always one line)."""
    with pytest.raises(PolicyError) as info:
        load_policy(policy)
    message = str(info.value)
    assert "\n" not in message
    return message


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def gate(**keys) -> dict:
    return {"gate": keys}


# --------------------------------------------------------------------------- constants
def test_builtin_thresholds_are_the_spec_defaults():
    assert dict(BUILTIN_THRESHOLDS) == {
        "task_completion": 0.9,
        "tool_call": 0.95,
        "action_correctness": 0.95,
        "pii": 1.0,
        "injection": 1.0,
        "cost": 0.95,
        "latency": 0.95,
    }


def test_builtin_thresholds_are_read_only():
    with pytest.raises(TypeError):
        BUILTIN_THRESHOLDS["pii"] = 0.5  # type: ignore[index]


def test_deterministic_dimensions_are_the_seven_builtins():
    assert set(DETERMINISTIC_DIMENSIONS) == set(BUILTIN_THRESHOLDS)
    assert len(DETERMINISTIC_DIMENSIONS) == 7


# --------------------------------------------------------------------------- defaults
def test_none_gives_every_default():
    policy = load_policy(None)
    assert policy.purpose == "release"
    assert policy.confidence == 0.95
    assert policy.pass_k == (1, 2, 4, 8)
    assert policy.gate.required_dimensions == ()
    assert dict(policy.gate.thresholds) == {}
    assert policy.gate.threshold_basis == "point"
    assert policy.gate.min_samples == 1
    assert policy.gate.min_coverage == 1.0
    assert dict(policy.gate.pass_k_thresholds) == {}
    assert policy.judges.panel == ()
    assert policy.judges.pass_score == 4
    assert policy.regression.required is False
    assert policy.regression.baseline is None
    assert policy.regression.method == "paired"
    assert policy.regression.multiplicity == "holm"
    assert policy.gate.missing_evidence == "bound"
    assert policy.regression.max_drop == 0.0
    assert dict(policy.budgets) == {}


def test_no_argument_means_defaults():
    assert load_policy() == Policy()


def test_empty_mapping_gives_all_defaults():
    assert load_policy({}) == Policy()


def test_empty_sections_give_section_defaults():
    policy = load_policy({"gate": {}, "judges": {}, "regression": {}, "budgets": {}})
    assert policy == Policy()


def test_default_to_dict_fills_every_default():
    assert load_policy(None).to_dict() == DEFAULT_DICT


def test_null_section_or_list_means_its_default():
    # YAML "gate:" with every child commented out is null.
    policy = load_policy(
        {
            "gate": {"required_dimensions": None, "thresholds": None, "pass_k_thresholds": None},
            "judges": {"panel": None},
            "regression": {"baseline": None},
            "budgets": None,
        }
    )
    assert policy == Policy()
    assert load_policy({"gate": None, "judges": None, "regression": None}) == Policy()


def test_null_scalar_is_an_error():
    assert error({"confidence": None}) == "confidence: must be a finite number in (0, 1); got null"
    assert error({"pass_k": None}).startswith("pass_k: must be a non-empty list")
    assert error(gate(min_samples=None)).startswith("gate.min_samples: must be an integer >= 1; got null")


def test_policy_instance_is_validated_again():
    policy = load_policy({"purpose": "exploratory"})
    assert load_policy(policy) == policy
    # A Policy built by hand cannot bypass the checks (e.g. switch strict mode off).
    hand_made = dataclasses.replace(policy, purpose="Release")
    with pytest.raises(PolicyError, match="purpose"):
        load_policy(hand_made)


def test_unknown_purpose_is_strict():
    policy = load_policy({"purpose": "exploratory"})
    assert dataclasses.replace(policy, purpose="Release").strict


def test_policy_is_frozen():
    policy = load_policy({"gate": {"thresholds": {"x": 0.5}}, "budgets": {"cost_usd": 1}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.purpose = "exploratory"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.gate.min_samples = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.gate.thresholds["x"] = 0.1  # type: ignore[index]
    with pytest.raises(TypeError):
        policy.budgets["cost_usd"] = 9  # type: ignore[index]


def test_dataclasses_hold_exactly_the_spec_keys():
    names = lambda cls: [f.name for f in dataclasses.fields(cls)]  # noqa: E731
    assert names(Policy) == [
        "purpose", "confidence", "pass_k", "gate", "judges", "regression", "budgets", "partial", "tool_contracts",
    ]
    assert names(Gate) == [
        "required_dimensions",
        "thresholds",
        "threshold_basis",
        "missing_evidence",
        "min_samples",
        "min_coverage",
        "pass_k_thresholds",
    ]
    assert names(Judges) == ["panel", "pass_score"]
    assert names(Regression) == ["required", "baseline", "method", "max_drop", "multiplicity"]
    assert names(PassKThreshold) == ["k", "min"]


def test_policy_error_is_a_value_error():
    with pytest.raises(ValueError):
        load_policy({"purpose": "prod"})


# --------------------------------------------------------------------------- purpose / strict
@pytest.mark.parametrize("purpose", ["release", "exploratory", "self_test"])
def test_each_purpose_is_accepted(purpose):
    assert load_policy({"purpose": purpose}).purpose == purpose


def test_unknown_purpose_is_rejected_with_its_value():
    assert error({"purpose": "prod"}) == "purpose: must be one of release, exploratory, self_test; got 'prod'"


def test_purpose_is_case_sensitive():
    assert "got 'Release'" in error({"purpose": "Release"})


def test_purpose_must_be_a_string():
    assert error({"purpose": 1}) == "purpose: must be one of release, exploratory, self_test; got 1"


@pytest.mark.parametrize(("purpose", "strict"), [("release", True), ("exploratory", False), ("self_test", False)])
def test_strict_only_under_release(purpose, strict):
    assert load_policy({"purpose": purpose}).strict is strict


def test_strict_cannot_be_switched_off_by_a_key():
    assert error({"strict": False}).startswith("strict: unknown key")
    assert load_policy(None).strict is True


# --------------------------------------------------------------------------- confidence
@pytest.mark.parametrize("value", [0.5, 0.9, 0.95, 0.99, 1e-9])
def test_confidence_inside_open_unit_interval_is_accepted(value):
    assert load_policy({"confidence": value}).confidence == value


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, -0.1, 1.5])
def test_confidence_outside_open_unit_interval_is_rejected(value):
    assert error({"confidence": value}) == f"confidence: must be a finite number in (0, 1); got {value!r}"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_confidence_must_be_finite(value):
    assert error({"confidence": value}).startswith("confidence: must be a finite number in (0, 1)")


def test_confidence_string_is_not_a_number():
    assert error({"confidence": "0.95"}) == "confidence: must be a finite number in (0, 1); got '0.95'"


def test_confidence_bool_is_not_a_number():
    assert error({"confidence": True}) == "confidence: must be a finite number in (0, 1); got true"


def test_confidence_is_stored_as_float():
    value = load_policy({"confidence": np.float32(0.5)}).confidence
    assert type(value) is float and value == 0.5


# --------------------------------------------------------------------------- pass_k
def test_pass_k_is_sorted_and_deduplicated():
    assert load_policy({"pass_k": [8, 2, 2, 1, 4]}).pass_k == (1, 2, 4, 8)


def test_single_int_pass_k_is_accepted_as_a_list():
    assert load_policy({"pass_k": 3}).pass_k == (3,)


def test_pass_k_tuple_is_accepted():
    assert load_policy({"pass_k": (2, 1)}).pass_k == (1, 2)


def test_pass_k_empty_list_is_rejected():
    assert error({"pass_k": []}) == "pass_k: must be a non-empty list of integers >= 1; got a list"


@pytest.mark.parametrize(
    ("value", "shown"), [(0, "0"), (-1, "-1"), (2.0, "2.0"), (True, "true"), ("2", "'2'"), ([2], "a list")]
)
def test_pass_k_entries_must_be_positive_ints(value, shown):
    assert error({"pass_k": [1, value]}) == f"pass_k[1]: must be an integer >= 1; got {shown}"


@pytest.mark.parametrize("value", [0, -3])
def test_pass_k_single_int_must_be_positive(value):
    assert error({"pass_k": value}) == f"pass_k[0]: must be an integer >= 1; got {value}"


@pytest.mark.parametrize("value", ["1,2", 2.0, True, {"k": 1}])
def test_pass_k_wrong_type_is_rejected(value):
    assert error({"pass_k": value}).startswith("pass_k: must be a non-empty list of integers >= 1; got")


def test_pass_k_beyond_safe_integer_is_rejected():
    assert error({"pass_k": [2**53]}) == (
        f"pass_k[0]: must be an integer >= 1 and <= 2^53-1; got {2**53}"
    )


def test_pass_k_numpy_ints_become_python_ints():
    ks = load_policy({"pass_k": [np.int64(2), np.int32(1)]}).pass_k
    assert ks == (1, 2) and all(type(k) is int for k in ks)


# --------------------------------------------------------------------------- gate.required_dimensions
def test_required_dimensions_are_stored_sorted():
    policy = load_policy(gate(required_dimensions=["tool_call", "helpfulness", "pii"]))
    assert policy.gate.required_dimensions == ("helpfulness", "pii", "tool_call")


def test_required_dimensions_duplicate_is_rejected():
    assert error(gate(required_dimensions=["pii", "pii"])) == (
        "gate.required_dimensions[1]: duplicate dimension name 'pii'"
    )


@pytest.mark.parametrize(("value", "shown"), [("", "''"), ("  ", "'  '"), (1, "1"), (None, "null")])
def test_required_dimension_must_be_a_non_empty_string(value, shown):
    assert error(gate(required_dimensions=["pii", value])) == (
        f"gate.required_dimensions[1]: dimension name must be a non-empty string; got {shown}"
    )


def test_required_dimensions_string_where_list_expected():
    assert error(gate(required_dimensions="pii")) == (
        "gate.required_dimensions: must be a list of dimension names; got 'pii'"
    )


# --------------------------------------------------------------------------- gate.thresholds
def test_thresholds_are_stored_as_floats():
    policy = load_policy(gate(thresholds={"pii": 1, "helpfulness": 0.8, "tool_call": 0}))
    assert dict(policy.gate.thresholds) == {"helpfulness": 0.8, "pii": 1.0, "tool_call": 0.0}
    assert all(type(v) is float for v in policy.gate.thresholds.values())


def test_threshold_bounds_zero_and_one_are_accepted():
    policy = load_policy(gate(thresholds={"a": 0.0, "b": 1.0}))
    assert dict(policy.gate.thresholds) == {"a": 0.0, "b": 1.0}


def test_threshold_above_one_is_rejected():
    assert error(gate(thresholds={"pii": 1.5})) == (
        "gate.thresholds.pii: must be a finite number in [0, 1]; got 1.5"
    )


def test_threshold_below_zero_is_rejected():
    assert error(gate(thresholds={"pii": -0.1})) == (
        "gate.thresholds.pii: must be a finite number in [0, 1]; got -0.1"
    )


def test_threshold_percentage_is_rejected():
    assert "got 90" in error(gate(thresholds={"task_completion": 90}))


@pytest.mark.parametrize(("value", "shown"), [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_threshold_must_be_finite(value, shown):
    assert error(gate(thresholds={"pii": value})) == (
        f"gate.thresholds.pii: must be a finite number in [0, 1]; got {shown}"
    )


def test_threshold_bool_is_not_a_number():
    assert error(gate(thresholds={"pii": True})) == (
        "gate.thresholds.pii: must be a finite number in [0, 1]; got true"
    )


def test_threshold_string_is_not_a_number():
    assert error(gate(thresholds={"pii": "0.9"})) == (
        "gate.thresholds.pii: must be a finite number in [0, 1]; got '0.9'"
    )


def test_threshold_mapping_is_not_a_number():
    assert error(gate(thresholds={"pii": {"min": 1}})) == (
        "gate.thresholds.pii: must be a finite number in [0, 1]; got a mapping"
    )


def test_thresholds_list_where_mapping_expected():
    assert error(gate(thresholds=[0.9])) == "gate.thresholds: must be a mapping; got a list"


@pytest.mark.parametrize(("key", "shown"), [("", "''"), (" ", "' '"), (1, "1"), (None, "null")])
def test_threshold_dimension_name_must_be_a_non_empty_string(key, shown):
    assert error(gate(thresholds={key: 0.5})) == (
        f"gate.thresholds: dimension name must be a non-empty string; got {shown}"
    )


def test_threshold_long_string_value_is_shortened():
    message = error(gate(thresholds={"pii": "x" * 500}))
    assert len(message) < 200 and message.endswith("...'")


# --------------------------------------------------------------------------- gate.threshold_basis
@pytest.mark.parametrize("basis", ["point", "wilson_lower", "cluster_lower"])
def test_threshold_basis_values_are_accepted(basis):
    assert load_policy(gate(threshold_basis=basis)).gate.threshold_basis == basis


def test_unknown_threshold_basis_is_rejected():
    assert error(gate(threshold_basis="wilson")) == (
        "gate.threshold_basis: must be one of point, wilson_lower, cluster_lower; got 'wilson'"
    )


# --------------------------------------------------------------------------- gate.min_samples
@pytest.mark.parametrize("value", [1, 5, np.int64(30)])
def test_min_samples_positive_int_is_accepted(value):
    got = load_policy(gate(min_samples=value)).gate.min_samples
    assert got == value and type(got) is int


@pytest.mark.parametrize(("value", "shown"), [(0, "0"), (-2, "-2")])
def test_min_samples_below_one_is_rejected(value, shown):
    assert error(gate(min_samples=value)) == f"gate.min_samples: must be an integer >= 1; got {shown}"


@pytest.mark.parametrize(("value", "shown"), [(True, "true"), (1.0, "1.0"), (2.5, "2.5"), ("3", "'3'")])
def test_min_samples_rejects_bools_floats_and_strings(value, shown):
    assert error(gate(min_samples=value)) == f"gate.min_samples: must be an integer >= 1; got {shown}"


# --------------------------------------------------------------------------- gate.min_coverage
@pytest.mark.parametrize("value", [0, 0.0, 0.9, 1, 1.0])
def test_min_coverage_in_closed_unit_interval_is_accepted(value):
    got = load_policy(gate(min_coverage=value)).gate.min_coverage
    assert got == value and type(got) is float


@pytest.mark.parametrize("value", [-0.01, 1.01, math.nan, "1.0", False])
def test_min_coverage_outside_unit_interval_or_not_a_number_is_rejected(value):
    assert error(gate(min_coverage=value)).startswith("gate.min_coverage: must be a finite number in [0, 1]; got")


# --------------------------------------------------------------------------- gate.pass_k_thresholds
def test_pass_k_thresholds_are_parsed():
    rules = {"action_correctness": {"k": 3, "min": 0.8}, "pii": {"k": 2, "min": 1}}
    policy = load_policy(gate(pass_k_thresholds=rules))
    entries = policy.gate.pass_k_thresholds
    assert entries["action_correctness"] == PassKThreshold(k=3, min=0.8)
    assert entries["pii"] == PassKThreshold(k=2, min=1.0) and type(entries["pii"].min) is float
    assert policy.to_dict()["gate"]["pass_k_thresholds"] == {
        "action_correctness": {"k": 3, "min": 0.8},
        "pii": {"k": 2, "min": 1.0},
    }


@pytest.mark.parametrize("missing", ["k", "min"])
def test_pass_k_threshold_needs_k_and_min(missing):
    entry = {"k": 3, "min": 0.8}
    del entry[missing]
    assert error(gate(pass_k_thresholds={"tool_call": entry})) == (
        f"gate.pass_k_thresholds.tool_call.{missing}: missing (both k and min are required)"
    )


def test_pass_k_threshold_unknown_key_is_rejected():
    assert error(gate(pass_k_thresholds={"tool_call": {"k": 3, "min": 0.8, "max": 1}})) == (
        "gate.pass_k_thresholds.tool_call.max: unknown key (expected one of: k, min)"
    )


@pytest.mark.parametrize(("value", "shown"), [(0, "0"), (True, "true"), (3.0, "3.0"), ("3", "'3'")])
def test_pass_k_threshold_k_must_be_a_positive_int(value, shown):
    assert error(gate(pass_k_thresholds={"tool_call": {"k": value, "min": 0.8}})) == (
        f"gate.pass_k_thresholds.tool_call.k: must be an integer >= 1; got {shown}"
    )


@pytest.mark.parametrize(("value", "shown"), [(1.2, "1.2"), (-0.5, "-0.5"), (math.nan, "nan"), (True, "true")])
def test_pass_k_threshold_min_must_be_in_unit_interval(value, shown):
    assert error(gate(pass_k_thresholds={"tool_call": {"k": 2, "min": value}})) == (
        f"gate.pass_k_thresholds.tool_call.min: must be a finite number in [0, 1]; got {shown}"
    )


def test_pass_k_threshold_entry_must_be_a_mapping():
    assert error(gate(pass_k_thresholds={"tool_call": 0.8})) == (
        "gate.pass_k_thresholds.tool_call: must be a mapping {k: <integer >= 1>, min: <number in [0, 1]>}; got 0.8"
    )


def test_pass_k_thresholds_list_where_mapping_expected():
    assert error(gate(pass_k_thresholds=[{"k": 2, "min": 0.5}])) == (
        "gate.pass_k_thresholds: must be a mapping; got a list"
    )


def test_pass_k_threshold_dimension_name_must_be_a_string():
    assert error(gate(pass_k_thresholds={"": {"k": 2, "min": 0.5}})) == (
        "gate.pass_k_thresholds: dimension name must be a non-empty string; got ''"
    )


# --------------------------------------------------------------------------- judges
def test_judges_panel_is_stored_sorted():
    policy = load_policy({"judges": {"panel": ["judge-b", "judge-a"], "pass_score": 3}})
    assert policy.judges == Judges(panel=("judge-a", "judge-b"), pass_score=3)


def test_judges_panel_duplicate_is_rejected():
    assert error({"judges": {"panel": ["a", "b", "a"]}}) == "judges.panel[2]: duplicate judge name 'a'"


@pytest.mark.parametrize(("value", "shown"), [("", "''"), (7, "7"), ({"name": "a"}, "a mapping")])
def test_judges_panel_entries_must_be_non_empty_strings(value, shown):
    assert error({"judges": {"panel": [value]}}) == (
        f"judges.panel[0]: judge name must be a non-empty string; got {shown}"
    )


def test_judges_panel_string_where_list_expected():
    assert error({"judges": {"panel": "gpt-judge"}}) == (
        "judges.panel: must be a list of judge names; got 'gpt-judge'"
    )


@pytest.mark.parametrize("score", [1, 2, 3, 4, 5])
def test_pass_score_one_to_five_is_accepted(score):
    assert load_policy({"judges": {"pass_score": score}}).judges.pass_score == score


@pytest.mark.parametrize(("value", "shown"), [(0, "0"), (6, "6"), (4.0, "4.0"), (True, "true"), ("4", "'4'")])
def test_pass_score_must_be_an_int_from_one_to_five(value, shown):
    assert error({"judges": {"pass_score": value}}) == (
        f"judges.pass_score: must be an integer in [1, 5]; got {shown}"
    )


def test_judges_must_be_a_mapping():
    assert error({"judges": ["a", "b"]}) == "judges: must be a mapping; got a list"


# --------------------------------------------------------------------------- regression
def test_regression_values_are_parsed():
    policy = load_policy(
        {"regression": {"required": True, "baseline": "v1.2", "method": "newcombe", "max_drop": 0.02}}
    )
    assert policy.regression == Regression(required=True, baseline="v1.2", method="newcombe", max_drop=0.02)


@pytest.mark.parametrize("method", ["newcombe", "point", "paired"])
def test_regression_methods_are_accepted(method):
    assert load_policy({"regression": {"method": method}}).regression.method == method


def test_unknown_regression_method_is_rejected():
    assert error({"regression": {"method": "bootstrap"}}) == (
        "regression.method: must be one of paired, newcombe, point; got 'bootstrap'"
    )


@pytest.mark.parametrize(("value", "shown"), [("yes", "'yes'"), (1, "1"), (None, "null")])
def test_regression_required_must_be_a_bool(value, shown):
    assert error({"regression": {"required": value}}) == (
        f"regression.required: must be true or false; got {shown}"
    )


@pytest.mark.parametrize(("value", "shown"), [(2024, "2024"), ("", "''"), (["v1"], "a list")])
def test_regression_baseline_must_be_null_or_a_label(value, shown):
    assert error({"regression": {"baseline": value}}) == (
        f"regression.baseline: must be null or a non-empty string label; got {shown}"
    )


@pytest.mark.parametrize("value", [0, 0.0, 0.05, 1, 1.0])
def test_max_drop_in_unit_interval_is_accepted(value):
    got = load_policy({"regression": {"max_drop": value}}).regression.max_drop
    assert got == value and type(got) is float


@pytest.mark.parametrize("value", [-0.01, 1.5, math.inf, math.nan, "0.1", True])
def test_max_drop_must_be_finite_and_within_zero_and_one(value):
    assert error({"regression": {"max_drop": value}}).startswith(
        "regression.max_drop: must be a finite number in [0, 1]; got"
    )


def test_regression_must_be_a_mapping():
    assert error({"regression": True}) == "regression: must be a mapping; got true"


# --------------------------------------------------------------------------- budgets
def test_budgets_are_stored_as_floats():
    policy = load_policy({"budgets": {"latency_ms": 3000, "cost_usd": 0.05}})
    assert dict(policy.budgets) == {"cost_usd": 0.05, "latency_ms": 3000.0}
    assert all(type(v) is float for v in policy.budgets.values())
    assert set(BUDGET_KEYS) == {"cost_usd", "latency_ms"}


def test_zero_budget_is_accepted():
    assert dict(load_policy({"budgets": {"cost_usd": 0}}).budgets) == {"cost_usd": 0.0}


def test_only_named_budgets_are_filled_in():
    assert load_policy({"budgets": {"cost_usd": 1}}).to_dict()["budgets"] == {"cost_usd": 1.0}


def test_unknown_budget_key_is_rejected():
    assert error({"budgets": {"latency_s": 3}}) == (
        "budgets.latency_s: unknown key (expected one of: cost_usd, latency_ms)"
    )


@pytest.mark.parametrize(
    ("value", "shown"), [(-1, "-1"), (math.nan, "nan"), (math.inf, "inf"), (True, "true"), ("0.05", "'0.05'")]
)
def test_budget_must_be_a_non_negative_finite_number(value, shown):
    assert error({"budgets": {"cost_usd": value}}) == (
        f"budgets.cost_usd: must be a finite number >= 0; got {shown}"
    )


def test_budgets_list_where_mapping_expected():
    assert error({"budgets": [0.05]}) == "budgets: must be a mapping; got a list"


# --------------------------------------------------------------------------- unknown keys / shape
def test_unknown_top_level_key_lists_expected_keys():
    assert error({"purpose": "release", "thresholds": {}}) == (
        "thresholds: unknown key (expected one of: purpose, confidence, pass_k, gate, judges, regression, budgets, "
        "partial, tool_contracts)"
    )


def test_unknown_nested_key_names_dotted_path():
    assert error(gate(thresholdz={"pii": 1.0})) == (
        "gate.thresholdz: unknown key (expected one of: required_dimensions, thresholds, "
        "threshold_basis, missing_evidence, min_samples, min_coverage, pass_k_thresholds)"
    )


def test_unknown_judges_key_is_rejected():
    assert error({"judges": {"pass_scor": 4}}) == (
        "judges.pass_scor: unknown key (expected one of: panel, pass_score)"
    )


def test_unknown_regression_key_is_rejected():
    assert error({"regression": {"baseline_label": "v1"}}) == (
        "regression.baseline_label: unknown key (expected one of: required, baseline, method, max_drop, multiplicity)"
    )


def test_non_string_key_is_unknown():
    assert error({1: "x"}).startswith("1: unknown key (expected one of: purpose")
    assert error({"gate": {None: 1}}).startswith("gate.null: unknown key")


def test_keys_are_case_sensitive():
    assert error({"Purpose": "release"}).startswith("Purpose: unknown key")


def test_gate_list_where_mapping_expected():
    assert error({"gate": [{"thresholds": {}}]}) == "gate: must be a mapping; got a list"


def test_gate_string_where_mapping_expected():
    assert error({"gate": "strict"}) == "gate: must be a mapping; got 'strict'"


def test_any_mapping_type_is_accepted():
    policy = load_policy(MappingProxyType({"gate": MappingProxyType({"thresholds": {"x": 0.5}})}))
    assert dict(policy.gate.thresholds) == {"x": 0.5}


@pytest.mark.parametrize("value", [42, ["purpose"], b"policy.yml", 0.5])
def test_argument_of_another_type_is_rejected(value):
    assert error(value).startswith("policy must be None, a mapping, a Policy or the path of a YAML/JSON file; got")


def test_bytes_pathlike_is_rejected():
    class BytesPath:
        def __fspath__(self):
            return b"policy.yml"

    os.PathLike.register(BytesPath)
    assert error(BytesPath()).startswith("policy path must be text")


# --------------------------------------------------------------------------- files
YAML_POLICY = """\
purpose: exploratory
confidence: 0.9
pass_k: [1, 3]
gate:
  required_dimensions: [pii, helpfulness]
  thresholds:
    helpfulness: 0.8
  threshold_basis: wilson_lower
  min_samples: 5
  min_coverage: 0.9
  pass_k_thresholds:
    pii: {k: 3, min: 1}
judges: {panel: [judge-a, judge-b, judge-c], pass_score: 3}
regression: {required: true, baseline: v1, method: point, max_drop: 0.05}
budgets: {cost_usd: 0.05, latency_ms: 3000}
"""

EXPECTED_FILE_DICT = {
    "budgets": {"cost_usd": 0.05, "latency_ms": 3000.0},
    "confidence": 0.9,
    "gate": {
        "min_coverage": 0.9,
        "min_samples": 5,
        "missing_evidence": "bound",
        "pass_k_thresholds": {"pii": {"k": 3, "min": 1.0}},
        "required_dimensions": ["helpfulness", "pii"],
        "threshold_basis": "wilson_lower",
        "thresholds": {"helpfulness": 0.8},
    },
    "judges": {"panel": ["judge-a", "judge-b", "judge-c"], "pass_score": 3},
    "partial": "fail",
    "pass_k": [1, 3],
    "purpose": "exploratory",
    "regression": {"baseline": "v1", "max_drop": 0.05, "method": "point", "multiplicity": "holm", "required": True},
}


@pytest.mark.parametrize("name", ["policy.yml", "policy.yaml", "POLICY.YML"])
def test_yaml_file_loads(tmp_path, name):
    assert load_policy(write(tmp_path, name, YAML_POLICY)).to_dict() == EXPECTED_FILE_DICT


def test_json_file_loads(tmp_path):
    path = write(tmp_path, "policy.json", json.dumps(EXPECTED_FILE_DICT))
    assert load_policy(path).to_dict() == EXPECTED_FILE_DICT


def test_path_may_be_a_string(tmp_path):
    path = write(tmp_path, "policy.yml", YAML_POLICY)
    assert load_policy(str(path)) == load_policy(path)


def test_file_errors_name_the_file(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n  thresholds:\n    pii: 1.5\n")
    assert error(path) == f"{path}: gate.thresholds.pii: must be a finite number in [0, 1]; got 1.5"


def test_file_error_uses_the_path_as_given(tmp_path, monkeypatch):
    write(tmp_path, "policy.yml", "purpose: prod\n")
    monkeypatch.chdir(tmp_path)
    assert error("policy.yml") == "policy.yml: purpose: must be one of release, exploratory, self_test; got 'prod'"


def test_unknown_key_in_file_names_file_and_dotted_path(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n  thresholdz: {pii: 1.0}\n")
    assert error(path).startswith(f"{path}: gate.thresholdz: unknown key (expected one of: required_dimensions")


def test_utf8_bom_is_accepted_in_yaml(tmp_path):
    path = write(tmp_path, "policy.yml", b"\xef\xbb\xbf" + YAML_POLICY.encode())
    assert load_policy(path).to_dict() == EXPECTED_FILE_DICT


def test_utf8_bom_is_accepted_in_json(tmp_path):
    path = write(tmp_path, "policy.json", b"\xef\xbb\xbf" + json.dumps({"purpose": "self_test"}).encode())
    assert load_policy(path).purpose == "self_test"


def test_non_ascii_utf8_is_accepted(tmp_path):
    path = write(tmp_path, "policy.yml", "# Qualität\ngate:\n  thresholds: {höflichkeit: 0.8}\n")
    assert dict(load_policy(path).gate.thresholds) == {"höflichkeit": 0.8}


@pytest.mark.parametrize("content", ["", "\n", "# only a comment\n", "---\n", "null\n", "~\n"])
def test_empty_yaml_file_means_all_defaults(tmp_path, content):
    assert load_policy(write(tmp_path, "policy.yml", content)) == Policy()


@pytest.mark.parametrize("content", ["", " \n", "{}", "null"])
def test_empty_json_file_means_all_defaults(tmp_path, content):
    assert load_policy(write(tmp_path, "policy.json", content)) == Policy()


def test_directory_reported_as_permission_error_is_still_a_directory(tmp_path, monkeypatch):
    path = tmp_path / "policy.yml"
    path.mkdir()

    def refuse(self):  # what Windows raises for a directory
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert error(path) == f"{path}: is a directory, not a policy file"


def test_missing_file_is_a_policy_error(tmp_path):
    path = tmp_path / "nope.yml"
    assert error(path) == f"{path}: policy file not found"


def test_directory_is_a_policy_error(tmp_path):
    path = tmp_path / "policy.yml"
    path.mkdir()
    assert error(path) == f"{path}: is a directory, not a policy file"


def test_unreadable_file_is_a_policy_error(tmp_path, monkeypatch):
    path = write(tmp_path, "policy.yml", "purpose: release\n")

    real_open = os.open

    def refuse(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)  # the reader opens with os.open (O_NONBLOCK: a FIFO cannot hang it)
    assert error(path) == f"{path}: cannot read policy file: Permission denied"


def test_not_utf8_is_a_policy_error(tmp_path):
    path = write(tmp_path, "policy.yml", b"purpose: r\xe9lease\n")
    assert error(path) == f"{path}: not UTF-8 (invalid byte at offset 10)"


def test_utf16_file_is_not_utf8(tmp_path):
    path = write(tmp_path, "policy.json", '{"purpose": "release"}'.encode("utf-16"))
    assert error(path).startswith(f"{path}: not UTF-8")


@pytest.mark.parametrize("suffix", [".txt", ".toml", ""])
def test_unsupported_file_type_is_rejected(tmp_path, suffix):
    path = write(tmp_path, f"policy{suffix}", "purpose: release\n")
    message = error(path)
    assert message.startswith(f"{path}: unsupported policy file type")
    assert message.endswith("expected .yml, .yaml or .json")


def test_invalid_yaml_reports_line_number(tmp_path):
    path = write(tmp_path, "policy.yml", "purpose: release\ngate:\n  thresholds: {pii: 1.0\n  min_samples: 2\n")
    message = error(path)
    assert message.startswith(f"{path}:4: invalid YAML:")


def test_yaml_bad_indentation_reports_line_number(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n  min_samples: 2\n   min_coverage: 0.9\n")
    assert error(path).startswith(f"{path}:3: invalid YAML:")


def test_yaml_tab_indentation_is_invalid(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n\tmin_samples: 2\n")
    assert error(path).startswith(f"{path}:2: invalid YAML:")


def test_yaml_python_tag_is_refused_by_the_safe_loader(tmp_path):
    path = write(tmp_path, "policy.yml", "purpose: !!python/object/apply:os.getcwd []\n")
    message = error(path)
    assert message.startswith(f"{path}:1: invalid YAML:") and "python/object" in message


def test_yaml_control_character_is_invalid(tmp_path):
    path = write(tmp_path, "policy.yml", "confidence: 0.9\npurpose: rel\x07ease\n")
    assert error(path) == (
        f"{path}:2: invalid YAML: unacceptable character #x0007: special characters are not allowed"
    )


def test_yaml_unhashable_key_is_invalid(tmp_path):
    path = write(tmp_path, "policy.yml", "? [a, b]\n: 1\n")
    assert error(path).startswith(f"{path}:1: invalid YAML:")


def test_yaml_duplicate_key_is_an_error(tmp_path):
    path = write(tmp_path, "policy.yml", "purpose: release\nconfidence: 0.9\npurpose: exploratory\n")
    assert error(path) == (
        f"{path}:3: invalid YAML: while constructing a mapping: found duplicate key 'purpose'"
    )


def test_yaml_nested_duplicate_key_is_an_error(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n  thresholds:\n    pii: 1.0\n    tool_call: 0.9\n    pii: 0.5\n")
    assert error(path) == f"{path}:5: invalid YAML: while constructing a mapping: found duplicate key 'pii'"


def test_yaml_merge_keys_are_not_duplicates(tmp_path):
    # A top-level anchor would be an unknown key; anchor inside the allowed structure instead.
    text = (
        "gate:\n"
        "  pass_k_thresholds:\n"
        "    pii: &base {k: 2, min: 0.5}\n"
        "    tool_call:\n"
        "      <<: *base\n"
        "      min: 0.9\n"
    )
    entries = load_policy(write(tmp_path, "policy.yml", text)).gate.pass_k_thresholds
    assert entries["pii"] == PassKThreshold(2, 0.5)
    assert entries["tool_call"] == PassKThreshold(2, 0.9)


@pytest.mark.parametrize(("literal", "shown"), [(".nan", "nan"), (".inf", "inf"), ("-.inf", "-inf")])
def test_yaml_nan_and_infinity_are_rejected(tmp_path, literal, shown):
    path = write(tmp_path, "policy.yml", f"gate:\n  thresholds:\n    pii: {literal}\n")
    assert error(path) == f"{path}: gate.thresholds.pii: must be a finite number in [0, 1]; got {shown}"


def test_yaml_yes_is_not_a_number(tmp_path):
    path = write(tmp_path, "policy.yml", "gate:\n  min_samples: yes\n")
    assert error(path) == f"{path}: gate.min_samples: must be an integer >= 1; got true"


def test_yaml_date_baseline_is_rejected(tmp_path):
    path = write(tmp_path, "policy.yml", "regression:\n  baseline: 2024-01-01\n")
    assert error(path) == (
        f"{path}: regression.baseline: must be null or a non-empty string label; got a value of type date"
    )


def test_yaml_quoted_baseline_label_is_accepted(tmp_path):
    path = write(tmp_path, "policy.yml", "regression:\n  baseline: '2024-01-01'\n")
    assert load_policy(path).regression.baseline == "2024-01-01"


@pytest.mark.parametrize("content", ["- purpose: release\n", "release\n", "42\n"])
def test_yaml_document_must_be_a_mapping(tmp_path, content):
    path = write(tmp_path, "policy.yml", content)
    assert error(path).startswith(f"{path}: the policy must be a mapping of keys to values; got")


@pytest.mark.parametrize("content", ["[1, 2]", '"release"', "3.5", "true"])
def test_json_document_must_be_a_mapping(tmp_path, content):
    path = write(tmp_path, "policy.json", content)
    assert error(path).startswith(f"{path}: the policy must be a mapping of keys to values; got")


def test_mapping_document_must_be_a_mapping_message_without_file():
    assert error({"gate": {"thresholds": "x"}}) == "gate.thresholds: must be a mapping; got 'x'"


def test_invalid_json_reports_line_number(tmp_path):
    path = write(tmp_path, "policy.json", '{\n  "purpose": "release",\n  "confidence": 0.9,\n}\n')
    assert error(path).startswith(f"{path}:4: invalid JSON:")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_rejected(tmp_path, token):
    path = write(tmp_path, "policy.json", f'{{"gate": {{"thresholds": {{"pii": {token}}}}}}}')
    assert error(path) == f"{path}: invalid JSON: {token} is not allowed (numbers must be finite)"


def test_json_overflowing_number_is_not_finite(tmp_path):
    path = write(tmp_path, "policy.json", '{"confidence": 1e400}')
    assert error(path) == f"{path}: confidence: must be a finite number in (0, 1); got inf"


def test_json_overlong_integer_is_a_policy_error(tmp_path):
    path = write(tmp_path, "policy.json", '{"pass_k": [' + "9" * 5000 + "]}")
    assert error(path).startswith(f"{path}: invalid JSON: Exceeds the limit")


def test_yaml_overlong_integer_is_a_policy_error(tmp_path):
    path = write(tmp_path, "policy.yml", "pass_k: " + "9" * 5000 + "\n")
    assert error(path).startswith(f"{path}: invalid YAML: Exceeds the limit")


def test_json_duplicate_key_is_an_error(tmp_path):
    path = write(tmp_path, "policy.json", '{"purpose": "release", "purpose": "exploratory"}')
    assert error(path) == f"{path}: invalid JSON: duplicate key 'purpose'"


def test_json_true_is_not_a_number(tmp_path):
    path = write(tmp_path, "policy.json", '{"gate": {"min_coverage": true}}')
    assert error(path) == f"{path}: gate.min_coverage: must be a finite number in [0, 1]; got true"


def test_deeply_nested_yaml_is_a_policy_error(tmp_path):
    path = write(tmp_path, "policy.yml", "gate: " + "[" * 5000 + "]" * 5000 + "\n")
    assert error(path) == f"{path}: invalid YAML: nested too deeply"


def test_deeply_nested_json_is_a_policy_error(tmp_path):
    path = write(tmp_path, "policy.json", '{"gate": ' + "[" * 100000 + "]" * 100000 + "}")
    assert error(path) == f"{path}: invalid JSON: nested too deeply"


def test_example_policy_loads():
    policy = load_policy(example_path("email_assistant", "policy.yml"))
    assert policy.purpose == "release" and policy.strict
    assert policy.pass_k == (1, 2, 4)
    assert "helpfulness" in policy.gate.required_dimensions
    assert policy.threshold_for("helpfulness") == 0.8
    assert policy.gate.min_coverage == 0.9
    assert policy.judges == Judges(panel=(), pass_score=4)
    scope, inferred = policy.scope(["pii", "tool_call"])
    assert inferred is False and len(scope) == 8


# --------------------------------------------------------------------------- to_dict / hash payload
def test_to_dict_keys_are_sorted_at_every_level():
    def check(value):
        if isinstance(value, dict):
            assert list(value) == sorted(value)
            for item in value.values():
                check(item)
        elif isinstance(value, list):
            for item in value:
                check(item)

    policy = load_policy(
        {
            "budgets": {"latency_ms": 1, "cost_usd": 1},
            "gate": {
                "thresholds": {"z": 0.1, "a": 0.2},
                "pass_k_thresholds": {"z": {"min": 0.5, "k": 2}, "a": {"k": 1, "min": 0.1}},
            },
        }
    )
    data = policy.to_dict()
    check(data)
    assert list(data["gate"]["thresholds"]) == ["a", "z"]
    assert json.dumps(data) == json.dumps(data, sort_keys=True)


def test_to_dict_is_plain_json_data():
    def check(value):
        if isinstance(value, dict):
            assert type(value) is dict and all(type(k) is str for k in value)
            for item in value.values():
                check(item)
        elif isinstance(value, list):
            assert type(value) is list
            for item in value:
                check(item)
        else:
            assert value is None or type(value) in (str, int, float, bool)

    data = load_policy(json.loads(json.dumps(EXPECTED_FILE_DICT))).to_dict()
    check(data)
    assert json.loads(json.dumps(data, allow_nan=False)) == data


def test_to_dict_round_trips_through_load_policy():
    policy = load_policy(EXPECTED_FILE_DICT)
    assert load_policy(policy.to_dict()) == policy
    assert load_policy(policy.to_dict()).to_dict() == policy.to_dict()


def test_to_dict_returns_a_fresh_copy():
    policy = load_policy(None)
    policy.to_dict()["gate"]["thresholds"]["pii"] = 0.0
    assert policy.to_dict() == DEFAULT_DICT


def test_equivalent_spellings_normalise_to_the_same_policy():
    a = load_policy(
        {
            "pass_k": [4, 1, 2, 2],
            "gate": {"required_dimensions": ["tool_call", "pii"], "thresholds": {"pii": 1}},
            "judges": {"panel": ["b", "a"]},
            "budgets": {"cost_usd": 1},
        }
    )
    b = load_policy(
        {
            "pass_k": [1, 2, 4],
            "gate": {"required_dimensions": ["pii", "tool_call"], "thresholds": {"pii": 1.0}},
            "judges": {"panel": ["a", "b"]},
            "budgets": {"cost_usd": 1.0},
        }
    )
    assert a == b
    assert json.dumps(a.to_dict()) == json.dumps(b.to_dict())


def test_regression_section_not_in_hash_payload():
    payload = load_policy(None).hash_payload()
    assert "regression" not in payload
    expected = dict(DEFAULT_DICT)
    del expected["regression"]
    expected["gate"] = {k: v for k, v in expected["gate"].items() if k != "missing_evidence"}  # the default: unhashed
    assert payload == expected


def test_regression_settings_do_not_change_hash_payload():
    plain = load_policy(None)
    required = load_policy({"regression": {"required": True, "baseline": "v1", "method": "point", "max_drop": 0.1}})
    assert plain.hash_payload() == required.hash_payload()
    assert plain.to_dict() != required.to_dict()


@pytest.mark.parametrize(
    "change",
    [
        {"purpose": "exploratory"},
        {"confidence": 0.9},
        {"pass_k": [1]},
        {"gate": {"thresholds": {"pii": 0.99}}},
        {"gate": {"required_dimensions": ["pii"]}},
        {"gate": {"threshold_basis": "wilson_lower"}},
        {"gate": {"min_samples": 2}},
        {"gate": {"min_coverage": 0.5}},
        {"gate": {"missing_evidence": "ignore"}},
        {"gate": {"pass_k_thresholds": {"pii": {"k": 2, "min": 1}}}},
        {"judges": {"panel": ["a"]}},
        {"judges": {"pass_score": 5}},
        {"budgets": {"cost_usd": 0.1}},
    ],
)
def test_every_scoring_setting_changes_hash_payload(change):
    assert load_policy(change).hash_payload() != load_policy(None).hash_payload()


def test_hash_payload_leaves_to_dict_intact():
    policy = load_policy(None)
    policy.hash_payload()
    assert "regression" in policy.to_dict()


# --------------------------------------------------------------------------- threshold_for
def test_threshold_for_policy_threshold_overrides_builtin():
    assert load_policy(gate(thresholds={"pii": 0.99})).threshold_for("pii") == 0.99


@pytest.mark.parametrize(("dimension", "value"), sorted(BUILTIN_THRESHOLDS.items()))
def test_threshold_for_builtin_default(dimension, value):
    assert load_policy(None).threshold_for(dimension) == value


def test_threshold_for_judged_dimension_the_policy_names():
    assert load_policy(gate(thresholds={"helpfulness": 0.8})).threshold_for("helpfulness") == 0.8


def test_threshold_for_unnamed_judged_dimension_is_none():
    assert load_policy(None).threshold_for("helpfulness") is None


def test_threshold_for_policy_zero_threshold_is_not_replaced_by_builtin():
    assert load_policy(gate(thresholds={"pii": 0})).threshold_for("pii") == 0.0


# --------------------------------------------------------------------------- scope
def test_scope_is_inferred_from_rows_when_no_required_dimensions():
    scope, inferred = load_policy(None).scope(["tool_call", "pii", "pii", "helpfulness"])
    assert scope == ["helpfulness", "pii", "tool_call"]
    assert inferred is True


def test_scope_with_required_dimensions_ignores_other_row_dimensions():
    policy = load_policy(gate(required_dimensions=["pii", "tool_call"]))
    scope, inferred = policy.scope(["pii", "helpfulness", "latency"])
    assert scope == ["pii", "tool_call"]
    assert inferred is False


def test_required_dimension_without_rows_stays_in_scope():
    scope, _ = load_policy(gate(required_dimensions=["injection"])).scope([])
    assert scope == ["injection"]


def test_policy_thresholds_extend_scope():
    policy = load_policy(gate(required_dimensions=["pii"], thresholds={"helpfulness": 0.8}))
    assert policy.scope(["pii"]) == (["helpfulness", "pii"], False)
    inferred_policy = load_policy(gate(thresholds={"helpfulness": 0.8}))
    assert inferred_policy.scope(["pii"]) == (["helpfulness", "pii"], True)


def test_pass_k_thresholds_extend_scope():
    rules = {"action_correctness": {"k": 3, "min": 0.8}}
    policy = load_policy(gate(required_dimensions=["pii"], pass_k_thresholds=rules))
    assert policy.scope(["pii"]) == (["action_correctness", "pii"], False)


def test_builtin_defaults_never_extend_scope():
    scope, inferred = load_policy(None).scope(["helpfulness"])
    assert scope == ["helpfulness"] and inferred is True
    assert load_policy(None).scope([]) == ([], True)
    scope, _ = load_policy(gate(required_dimensions=["helpfulness"])).scope(["pii"])
    assert scope == ["helpfulness"]


def test_scope_accepts_any_iterable():
    policy = load_policy(None)
    assert policy.scope(d for d in ("b", "a")) == (["a", "b"], True)
    assert policy.scope(np.array(["b", "a", "b"], dtype=object)) == (["a", "b"], True)


def test_scope_ignores_values_that_are_not_dimension_names():
    assert load_policy(None).scope(["pii", None, math.nan, ""]) == (["pii"], True)


def test_key_with_line_break_still_gives_a_one_line_message():
    assert error({"gate": {"thresholds": {"a\nb": 2}}}) == (
        "gate.thresholds.a b: must be a finite number in [0, 1]; got 2"
    )


def test_policy_is_hashable_by_content():
    a = load_policy({"gate": {"thresholds": {"pii": 1}}, "budgets": {"cost_usd": 1}})
    b = load_policy({"gate": {"thresholds": {"pii": 1.0}}, "budgets": {"cost_usd": 1.0}})
    assert hash(a) == hash(b) and len({a, b, load_policy(None)}) == 2
    assert hash(a.gate) == hash(b.gate)


# --------------------------------------------------------------------------- partial (SPEC §7)
@pytest.mark.parametrize("value, expected", [("fail", "fail"), ("abstain", "abstain"), ({"min": 0.7}, {"min": 0.7}),
                                             ({"min": 1}, {"min": 1.0})])
def test_partial_rule_is_read(value, expected):
    assert load_policy({"partial": value}).to_dict()["partial"] == expected


@pytest.mark.parametrize("value, message", [
    ("round", "partial: must be fail, abstain or {min: <number in (0, 1]>}; got 'round'"),
    ({"min": 0}, "partial.min: must be a finite number in (0, 1]; got 0"),
    ({"min": 1.5}, "partial.min: must be a finite number in (0, 1]; got 1.5"),
    ({"max": 0.5}, "partial.max: unknown key (expected one of: min)"),
    ({}, "partial: must be fail, abstain or {min: <number in (0, 1]>}; got a mapping"),
])
def test_partial_rule_rejects_bad_values(value, message):
    assert error({"partial": value}) == message


def test_partial_rule_enters_the_policy_hash():
    assert load_policy({"partial": "abstain"}).hash_payload() != load_policy(None).hash_payload()


# --------------------------------------------------------------------------- Policy.replace
def test_policy_replace_returns_a_new_validated_policy():
    base = load_policy({"gate": {"thresholds": {"pii": 1.0}}, "pass_k": [1, 2]})
    changed = base.replace(purpose="exploratory", pass_k=[3, 1], confidence=0.9)
    assert isinstance(changed, Policy) and changed is not base
    assert (changed.purpose, changed.pass_k, changed.confidence) == ("exploratory", (1, 3), 0.9)
    assert changed.gate == base.gate and base.purpose == "release" and base.pass_k == (1, 2)  # the original stays
    # A section as its dataclass or as a mapping of its keys: the same policy.
    gate = dataclasses.replace(base.gate, thresholds={"pii": 1, "cost": 0.5})
    as_object = base.replace(gate=gate)
    as_mapping = base.replace(gate={"thresholds": {"pii": 1, "cost": 0.5}})
    assert as_object == as_mapping == load_policy({"gate": {"thresholds": {"cost": 0.5, "pii": 1.0}}, "pass_k": [1, 2]})
    assert dict(as_object.gate.thresholds) == {"cost": 0.5, "pii": 1.0}  # normalised like a loaded policy
    assert base.replace() == base


def test_policy_replace_unknown_name_is_the_unknown_policy_key_error():
    with pytest.raises(PolicyError) as replaced:
        load_policy(None).replace(purpse="release")
    with pytest.raises(PolicyError) as loaded:
        load_policy({"purpse": "release"})
    assert str(replaced.value) == str(loaded.value)
    assert str(replaced.value).startswith("purpse: unknown key")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"confidence": 1.5}, "confidence: must be a finite number in (0, 1); got 1.5"),
        ({"purpose": "prod"}, "purpose: must be one of release, exploratory, self_test; got 'prod'"),
        ({"gate": {"thresholds": {"pii": 2}}}, "gate.thresholds.pii: must be a finite number in [0, 1]; got 2"),
        ({"pass_k": [0]}, "pass_k[0]: must be an integer >= 1; got 0"),
    ],
)
def test_policy_replace_invalid_value_names_the_parameter_and_the_value(changes, message):
    with pytest.raises(PolicyError) as info:
        load_policy(None).replace(**changes)
    assert str(info.value) == message


def test_policy_replace_checks_a_hand_built_section():
    base = load_policy(None)
    with pytest.raises(PolicyError, match=r"^gate.threshold_basis: must be one of .*; got 'nope'$"):
        base.replace(gate=dataclasses.replace(base.gate, threshold_basis="nope"))


# --------------------------------------------------------------------------- issue 26 keys (SPEC §7, §10, §18)
#: The policy hash of the bundled example policy, computed at main ecf8f4a (before
#: gate.missing_evidence and regression.multiplicity existed): it must not move.
EXAMPLE_POLICY_HASH = "5624232704fc0cd14306abc208e569932909e8d609b5997141dbcb662b6db181"
#: The same for the all-defaults policy.
DEFAULT_POLICY_HASH = "e51398621cd4fd6285d4d8a7ea30a967cad59eb38cf563b76ecb17e52db68569"


def _policy_hash(policy) -> str:
    from scorekit._hashing import SCORING_VERSION, row_digest

    return row_digest({"scoring_version": SCORING_VERSION, "policy": load_policy(policy).hash_payload()})


def test_policies_written_before_the_new_keys_keep_their_hash():
    assert _policy_hash(example_path("email_assistant", "policy.yml")) == EXAMPLE_POLICY_HASH
    assert _policy_hash(None) == DEFAULT_POLICY_HASH
    assert _policy_hash({"gate": {"missing_evidence": "bound"}}) == DEFAULT_POLICY_HASH
    assert _policy_hash({"regression": {"multiplicity": "none", "method": "newcombe"}}) == DEFAULT_POLICY_HASH


def test_missing_evidence_ignore_is_a_scoring_setting_and_is_recorded():
    policy = load_policy({"gate": {"missing_evidence": "ignore"}})
    assert policy.gate.missing_evidence == "ignore"
    assert policy.to_dict()["gate"]["missing_evidence"] == "ignore"
    assert policy.hash_payload()["gate"]["missing_evidence"] == "ignore"
    assert "missing_evidence" not in load_policy(None).hash_payload()["gate"]
    assert load_policy(None).to_dict()["gate"]["missing_evidence"] == "bound"


def test_unknown_missing_evidence_is_rejected():
    assert error(gate(missing_evidence="count")) == (
        "gate.missing_evidence: must be one of bound, ignore; got 'count'"
    )


@pytest.mark.parametrize("multiplicity", ["holm", "none"])
def test_multiplicity_values_are_accepted(multiplicity):
    assert load_policy({"regression": {"multiplicity": multiplicity}}).regression.multiplicity == multiplicity


@pytest.mark.parametrize("value, shown", [("bonferroni", "'bonferroni'"), (True, "true"), (None, "null")])
def test_unknown_multiplicity_is_rejected(value, shown):
    assert error({"regression": {"multiplicity": value}}) == (
        f"regression.multiplicity: must be one of holm, none; got {shown}"
    )


def test_interval_method_is_refused_naming_the_key_and_the_alternatives():
    message = error({"regression": {"method": "interval"}})
    assert message.startswith("regression.method: ")
    assert "interval" in message and "use paired or newcombe" in message


@pytest.mark.parametrize(
    "content, words",
    [
        ("regression:\n  method: interval\n", ["regression.method", "use paired or newcombe"]),
        ("regression:\n  multiplicity: bonferroni\n", ["regression.multiplicity", "holm, none", "'bonferroni'"]),
        ("gate:\n  missing_evidence: count\n", ["gate.missing_evidence", "bound, ignore"]),
    ],
)
def test_cli_run_refuses_the_policy_in_one_line(run_cli, tmp_path, content, words):
    bad = write(tmp_path, "bad.yml", content)
    code, out, err = run_cli("run", "--results", example_path(), "--policy", bad, "--out-dir", tmp_path / "out")
    assert code == 2
    (line,) = err.strip().splitlines()
    assert str(bad) in line and all(word in line for word in words), line
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_readable_recorded_policy_reads_a_retired_method_with_the_default():
    from scorekit._policy import readable_recorded_policy

    recorded = {"confidence": 0.9, "regression": {"method": "interval", "max_drop": 0.02, "required": True}}
    readable = readable_recorded_policy(recorded)
    assert readable == {"confidence": 0.9, "regression": {"max_drop": 0.02, "required": True}}
    assert recorded["regression"]["method"] == "interval"  # the record itself is left as it was
    policy = load_policy(readable)
    assert policy.regression == Regression(required=True, method="paired", max_drop=0.02)
    # anything else is left for load_policy to judge
    assert readable_recorded_policy({"regression": {"method": "bogus"}}) == {"regression": {"method": "bogus"}}
    assert readable_recorded_policy({"regression": {"method": ["interval"]}})["regression"] == {"method": ["interval"]}
