"""SCORECARD.md front-matter validation: the seed's schema v1 plus SPEC §13's stricter checks (release/_schema)."""

from __future__ import annotations

import copy
import math

import pytest
import yaml
from release_cards import card_payload, card_text

from scorekit.release import (
    REQUIRED_FIELDS,
    SEMVER,
    ScorecardInvalidError,
    load_scorecard,
    parse_scorecard_text,
    validate_scorecard,
    variance_stdev,
)

# The seed's "Required fields" table, row by row (kept literal: the test must not
# trust REQUIRED_FIELDS to check REQUIRED_FIELDS).
SEED_REQUIRED_FIELDS = [
    "schema_version",
    "agent.name",
    "agent.version",
    "recipe.dataset.reference",
    "recipe.dataset.description",
    "recipe.dataset.size",
    "recipe.methodology",
    "recipe.config",
    "results.test_cases_run",
    "results.metrics",
    "aggregate.name",
    "aggregate.formula",
    "aggregate.components",
    "aggregate.value",
]


def _delete(front: dict, dotted: str) -> dict:
    *parents, last = dotted.split(".")
    node = front
    for key in parents:
        node = node[key]
    del node[last]
    return front


def _set(front: dict, dotted: str, value) -> dict:
    *parents, last = dotted.split(".")
    node = front
    for key in parents:
        node = node[key] if not key.endswith("]") else node[key.split("[")[0]][int(key.split("[")[1][:-1])]
    node[last] = value
    return front


def _valid_front() -> dict:
    return card_payload(stdev=0.012).to_front_matter()


def _has_problem(problems: list[str], path: str) -> bool:
    return any(p.startswith(f"{path}:") for p in problems)


# --------------------------------------------------------------------------- the seed's example
def test_seed_example_front_matter_parses_and_validates_as_is(seed_front_matter_text, tmp_path):
    # The fixture is the document's example verbatim, comment lines included.
    assert "# acceptance_variance: { ... }" in seed_front_matter_text
    assert "# ... weight-0 secondaries omitted for brevity" in seed_front_matter_text
    path = tmp_path / "SCORECARD.md"
    path.write_text(seed_front_matter_text, encoding="utf-8")
    for doc in (parse_scorecard_text(seed_front_matter_text), load_scorecard(path)):
        assert validate_scorecard(doc) == []
        assert doc.agent_name == "Email Triage"
        assert doc.version == "0.3.0"
        assert doc.aggregate_value == 84.67
        assert [m["name"] for m in doc.metrics] == [
            "within_one_bucket_accuracy", "urgent_vs_not_accuracy", "urgent_recall", "category_accuracy"]
        assert [m["weight"] for m in doc.metrics] == [1.0, 0.0, 0.0, 0.0]
        assert doc.metric_value("urgent_recall") == 0.6571
        assert doc.config == {"harness": "gaia eval benchmark", "model": "Gemma-4-E4B-it-GGUF", "limit": 220,
                              "n_runs": 3}
        assert doc.dataset_reference == "tests/fixtures/email/ground_truth.json"
        assert doc.dataset_size == 220
        assert doc.inherited_from is None
        assert doc.front_matter["generated_at"] == "2026-06-29T21:45:03+00:00"
        assert doc.body.startswith("\n# Email Triage — Eval Scorecard v0.3.0")
        assert doc.reproduction_command is None  # the example elides the commands ("...")
        assert variance_stdev(doc) is None  # its acceptance_variance block is only a comment


def test_required_fields_constant_is_the_seed_table():
    assert list(REQUIRED_FIELDS) == SEED_REQUIRED_FIELDS


@pytest.mark.parametrize("field", SEED_REQUIRED_FIELDS)
def test_missing_required_field_is_invalid(field, seed_front_matter_text, tmp_path):
    front = parse_scorecard_text(seed_front_matter_text).front_matter
    problems = validate_scorecard(_delete(copy.deepcopy(front), field))
    assert f"{field}: required field is missing" in problems
    path = tmp_path / "SCORECARD.md"
    path.write_text("---\n" + yaml.safe_dump(_delete(copy.deepcopy(front), field), sort_keys=False) + "---\n")
    with pytest.raises(ScorecardInvalidError) as info:
        load_scorecard(path)
    assert field in str(info.value)


@pytest.mark.parametrize("field", SEED_REQUIRED_FIELDS)
def test_required_field_that_is_null_is_invalid(field, seed_front_matter_text):
    front = parse_scorecard_text(seed_front_matter_text).front_matter
    assert _has_problem(validate_scorecard(_set(front, field, None)), field)


def test_missing_section_reports_the_section_once():
    front = _delete(_valid_front(), "recipe")
    problems = validate_scorecard(front)
    assert "recipe: required field is missing" in problems
    assert not any(p.startswith("recipe.") for p in problems)


def test_validate_accepts_a_document_or_its_front_matter(seed_front_matter_text):
    doc = parse_scorecard_text(seed_front_matter_text)
    assert validate_scorecard(doc) == validate_scorecard(doc.front_matter) == []
    assert validate_scorecard(["not", "a", "mapping"]) == ["front matter: must be a mapping; got a list"]


# --------------------------------------------------------------------------- stricter checks (SPEC §13)
STRICTER = [
    ("nan_metric_value", "results.metrics[0].value", math.nan),
    ("inf_metric_value", "results.metrics[0].value", math.inf),
    ("metric_value_above_one", "results.metrics[0].value", 1.5),
    ("metric_value_below_zero", "results.metrics[1].value", -0.01),
    ("metric_value_as_string", "results.metrics[0].value", "0.8467"),
    ("negative_weight", "results.metrics[1].weight", -1.0),
    ("nan_weight", "results.metrics[0].weight", math.nan),
    ("non_semver_version_two_parts", "agent.version", "0.3"),
    ("non_semver_version_v_prefix", "agent.version", "v0.3.0"),
    ("non_semver_version_leading_zero", "agent.version", "0.03.0"),
    ("non_semver_version_float", "agent.version", 0.3),
    ("non_semver_inherited_from", "inherited_from", "latest"),
    ("non_semver_measured_version", "measured_version", "0.2"),
    ("test_cases_run_above_size", "results.test_cases_run", 221),
    ("test_cases_run_zero", "results.test_cases_run", 0),
    ("test_cases_run_not_integer", "results.test_cases_run", 12.5),
    ("test_cases_run_bool", "results.test_cases_run", True),
    ("dataset_size_string", "recipe.dataset.size", "220"),
    ("aggregate_that_does_not_recompute", "aggregate.value", 84.68),
    ("aggregate_nan", "aggregate.value", math.nan),
    ("aggregate_above_100", "aggregate.value", 184.67),
    ("schema_version_2", "schema_version", 2),
    ("schema_version_string", "schema_version", "1"),
    ("empty_agent_name", "agent.name", ""),
    ("negative_baseline_stdev", "recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev", -0.01),
    ("nan_baseline_stdev", "recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev", math.nan),
    ("inf_baseline_stdev", "recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev", math.inf),
    ("string_baseline_stdev", "recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev", "0.01"),
    ("nan_baseline_mean", "recipe.config.acceptance_variance.within_one_bucket_accuracy.mean", math.nan),
    ("nan_in_config", "recipe.config.temperature", math.nan),
    ("inf_in_performance", "results.performance.ttft_s", math.inf),
    ("generated_at_number", "generated_at", 12),
]


@pytest.mark.parametrize(("case", "path", "value"), STRICTER, ids=[c[0] for c in STRICTER])
def test_stricter_check_makes_card_invalid(case, path, value, tmp_path):
    front = _valid_front()
    front["results"]["performance"] = {"ttft_s": 0.4}
    front["measured_version"] = "0.2.4"
    front = _set(front, path, value)
    problems = validate_scorecard(front)
    assert _has_problem(problems, path), problems
    card = tmp_path / "SCORECARD.md"
    card.write_text("---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n", encoding="utf-8")
    with pytest.raises(ScorecardInvalidError) as info:
        load_scorecard(card)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{card}: invalid scorecard: ")
    assert info.value.problems == problems


def test_all_zero_weights_are_invalid():
    front = _valid_front()
    front["results"]["metrics"][0]["weight"] = 0.0
    front["aggregate"]["components"][0]["weight"] = 0.0
    problems = validate_scorecard(front)
    assert _has_problem(problems, "results.metrics") and _has_problem(problems, "aggregate.components")
    assert any("all be zero" in p for p in problems)


def test_component_that_disagrees_with_its_metric_is_invalid():
    front = _valid_front()
    front["aggregate"]["components"][0]["value"] = 0.9
    front["aggregate"]["value"] = 90.0  # recomputes from the components, but they lie about the metric
    assert _has_problem(validate_scorecard(front), "aggregate.components[0]")


def test_weighted_metric_missing_from_components_is_invalid():
    front = _valid_front()
    front["results"]["metrics"][1]["weight"] = 1.0
    del front["aggregate"]["components"][1]
    assert any("'urgent_vs_not_accuracy' has weight 1.0 > 0 but is not a component" in p
               for p in validate_scorecard(front))


def test_component_not_in_metrics_is_invalid():
    front = _valid_front()
    front["aggregate"]["components"].append({"metric": "made_up", "value": 0.5, "weight": 0.0})
    assert _has_problem(validate_scorecard(front), "aggregate.components[4].metric")


def test_duplicate_metric_name_is_invalid():
    front = _valid_front()
    front["results"]["metrics"][1]["name"] = "within_one_bucket_accuracy"
    assert any("duplicate" in p for p in validate_scorecard(front))


def test_weight_defaults_to_one_when_omitted():
    front = _valid_front()
    del front["results"]["metrics"][0]["weight"]
    del front["aggregate"]["components"][0]["weight"]
    assert validate_scorecard(front) == []


def test_null_baseline_stdev_means_not_recorded():
    front = _valid_front()
    front["recipe"]["config"]["acceptance_variance"]["within_one_bucket_accuracy"]["stdev"] = None
    assert validate_scorecard(front) == []
    assert variance_stdev(front) is None


def test_null_acceptance_variance_is_the_same_as_absent(tmp_path):
    # The source project's adapter writes acceptance_variance: null on a single run.
    front = card_payload(config_extra={"acceptance_variance": None}).to_front_matter()
    assert front["recipe"]["config"]["acceptance_variance"] is None
    assert validate_scorecard(front) == []
    assert variance_stdev(front) is None
    path = tmp_path / "SCORECARD.md"
    path.write_text(card_text(config_extra={"acceptance_variance": None}), encoding="utf-8")
    assert load_scorecard(path).config["acceptance_variance"] is None


def test_zero_baseline_stdev_is_valid():
    front = _valid_front()
    front["recipe"]["config"]["acceptance_variance"]["within_one_bucket_accuracy"]["stdev"] = 0.0
    assert validate_scorecard(front) == []
    assert variance_stdev(front) == 0.0


def test_breakdown_with_more_correct_than_total_is_invalid():
    front = _valid_front()
    front["results"]["breakdown"] = {"per_category": [{"category": "fyi", "total": 3, "correct": 4, "accuracy": 1.0}],
                                     "top_confusions": [{"expected": "fyi", "predicted": "urgent", "count": 0}]}
    problems = validate_scorecard(front)
    assert _has_problem(problems, "results.breakdown.per_category[0].correct")
    assert _has_problem(problems, "results.breakdown.top_confusions[0].count")


def test_optional_blocks_are_valid_with_or_without(seed_front_matter_text):
    front = parse_scorecard_text(seed_front_matter_text).front_matter
    front["recipe"]["environment"] = {"gaia_commit": "a1b2c3d", "lemonade_version": "10.8.0",
                                      "model": "Gemma-4-E4B-it-GGUF", "hardware": "AMD Ryzen AI MAX+ (Strix Halo)"}
    front["results"]["breakdown"] = {
        "per_category": [{"category": "fyi", "total": 88, "correct": 54, "accuracy": 0.6136},
                         {"category": "needs_response", "total": 44, "correct": 17, "accuracy": 0.3864}],
        "top_confusions": [{"expected": "fyi", "predicted": "needs_response", "count": 28}]}
    front["results"]["performance"] = {"ttft_s": 0.41, "tokens_per_triage": 512.5, "llm_classified_count": 61}
    assert validate_scorecard(front) == []


def test_the_seed_optional_yaml_snippet_validates(seed_front_matter_text):
    snippet = yaml.safe_load(
        "recipe:\n  environment:\n    gaia_commit: a1b2c3d\n    lemonade_version: 10.8.0\n"
        "    model: Gemma-4-E4B-it-GGUF\n    hardware: AMD Ryzen AI MAX+ (Strix Halo)\nresults:\n  breakdown:\n"
        "    per_category:\n      - {category: fyi, total: 88, correct: 54, accuracy: 0.6136}\n"
        "      - {category: needs_response, total: 44, correct: 17, accuracy: 0.3864}\n"
        "    top_confusions:\n      - {expected: fyi, predicted: needs_response, count: 28}\n"
    )
    front = parse_scorecard_text(seed_front_matter_text).front_matter
    front["recipe"]["environment"] = snippet["recipe"]["environment"]
    front["results"]["breakdown"] = snippet["results"]["breakdown"]
    assert validate_scorecard(front) == []




def test_ctx_size_in_environment_and_config_disagreeing_is_invalid():
    front = card_payload(ctx_size=8192, ctx_size_at="config", environment={"ctx_size": 16384}).to_front_matter()
    (problem,) = validate_scorecard(front)
    assert problem == ("recipe.environment.ctx_size: 16384 disagrees with recipe.config.ctx_size 8192: "
                       "a card is measured under one context size")
    front["recipe"]["config"]["ctx_size"] = 16384  # both places, the same value
    assert validate_scorecard(front) == []


@pytest.mark.parametrize("value", [0, -1, "16k", 16384.0, True])
@pytest.mark.parametrize("where", ["environment", "config"])
def test_ctx_size_that_is_not_a_positive_integer_is_invalid(where, value):
    front = card_payload(ctx_size=16384, ctx_size_at=where).to_front_matter()
    front["recipe"][where]["ctx_size"] = value
    assert _has_problem(validate_scorecard(front), f"recipe.{where}.ctx_size")


# --------------------------------------------------------------------------- semver
@pytest.mark.parametrize("version", ["0.2.4", "1.0.0", "10.20.30", "1.0.0-rc.1", "1.0.0-alpha.beta+exp.sha.5114f85",
                                     "1.0.0+build.5"])
def test_semver_accepts(version):
    assert SEMVER.match(version)


@pytest.mark.parametrize("version", ["0.2", "v0.2.4", "01.2.3", "1.2.3\n", "1.2.3-", "1.2.3+", "1.2.3.4", "",
                                     "1.2.3-01", "\u0661.\u0662.\u0663", " 1.2.3"])
def test_semver_rejects(version):
    assert SEMVER.match(version) is None

