"""scorecard.json and its shipped JSON Schema (SPEC §12)."""

from __future__ import annotations

import copy
import json
import math
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

import scorekit as sk
from scorekit.reports import REPORT_FILES, write_reports
from scorekit.reports.json import (
    COMPACTED_RECORD_LISTS,
    COMPACTED_STRING_LISTS,
    ScorecardSchemaError,
    load_schema,
    render_json,
    validate_scorecard_json,
)

SCHEMA_PATH = Path(sk.__file__).parent / "schemas" / "scorecard.schema.json"

# Every key SPEC §12 names, as (container path, key); "*" = every item of a list.
TOP_LEVEL_KEYS = (
    "schema_version", "scorekit_version", "generated_at", "agent", "decision", "overall_pass", "purpose",
    "scope", "dimensions", "controls", "findings", "validation", "coverage", "comparison", "hashes", "judges",
)
NESTED_KEYS = (
    (("agent",), ("name", "version")),
    (("scope",), ("required_dimensions", "inferred", "missing_dimensions")),
    (("dimensions", 0), ("name", "verdict", "n", "passes", "fails", "errors", "abstains", "rate", "ci_low",
                         "ci_high", "threshold", "pass_k", "consistency", "flaky_cases")),
    (("controls", 0), ("id", "dimension", "passed")),
    (("findings", 0), ("dimension", "reason", "severity", "case_ids", "suggested_fix")),
    (("validation",), ("strict", "labeled", "unlabeled", "invalid", "problems")),
    (("comparison",), ("status", "baseline", "regressions")),
    (("hashes",), ("suite", "policy", "results", "evidence")),
)
REQUIRED_CASES = [((), key) for key in TOP_LEVEL_KEYS] + [
    (path, key) for path, keys in NESTED_KEYS for key in keys
]


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


@pytest.fixture(scope="module")
def data(card) -> dict:
    return card.to_dict()


@pytest.fixture(scope="module")
def written(card, tmp_path_factory) -> dict[str, Path]:
    return write_reports(card, tmp_path_factory.mktemp("reports"))


def _get(data: dict, path: tuple) -> dict:
    node = data
    for part in path:
        node = node[part]
    return node


def test_schema_is_valid_json_schema_2020_12_shipped_in_the_package():
    schema = json.loads(resources.files("scorekit").joinpath("schemas/scorecard.schema.json").read_text("utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert load_schema() == schema
    assert SCHEMA_PATH.is_file()


def test_schema_documents_every_property_with_a_description():
    schema = load_schema()
    missing = []

    def walk(node, where):
        if isinstance(node, dict):
            for name, sub in (node.get("properties") or {}).items():
                if "description" not in sub:
                    missing.append(f"{where}.{name}")
                walk(sub, f"{where}.{name}")
            for name, sub in (node.get("$defs") or {}).items():
                if "description" not in sub:
                    missing.append(f"$defs.{name}")
                walk(sub, f"$defs.{name}")
            if isinstance(node.get("items"), dict):
                walk(node["items"], f"{where}[]")

    assert "description" in schema
    walk(schema, "$")
    assert missing == []


def test_scorecard_json_validates_against_the_schema(written):
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text("utf-8"))).validate(data)
    validate_scorecard_json(data)


def test_scorecard_json_is_the_dictionary_indented_utf8_without_nan(written, card):
    text = written["json"].read_text(encoding="utf-8")
    data = json.loads(text)
    assert written["json"].name == REPORT_FILES["json"]
    assert text == json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    expected = card.to_dict()
    data.pop("generated_at"), expected.pop("generated_at")
    assert data == expected
    assert "NaN" not in text and "Infinity" not in text


def test_scorecard_json_holds_no_rows_only_the_evidence_hash(written, card):
    data = json.loads(written["json"].read_text(encoding="utf-8"))
    assert "evidence" not in data or not isinstance(data.get("evidence"), list)
    assert len(data["hashes"]["evidence"]) == 64
    text = written["json"].read_text(encoding="utf-8")
    # no agent output (a captured measurement) appears in the JSON
    outputs = card.evidence["agent_output"].dropna()
    assert not any(o in text for o in outputs.head(50) if len(o) > 40)


@pytest.mark.parametrize(("path", "key"), REQUIRED_CASES, ids=[".".join(map(str, p + (k,))) for p, k in REQUIRED_CASES])
def test_schema_rejects_a_card_missing_each_required_key(data, path, key):
    broken = copy.deepcopy(data)
    del _get(broken, path)[key]
    with pytest.raises(ScorecardSchemaError) as info:
        validate_scorecard_json(broken)
    where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    assert where in str(info.value)
    assert repr(key) in str(info.value)


@pytest.mark.parametrize(
    ("path", "key", "value"),
    [
        (("dimensions", 0), "rate", "high"),
        (("dimensions", 0), "rate", 1.5),
        (("dimensions", 0), "ci_low", -0.1),
        (("dimensions", 0), "n", 2.5),
        (("dimensions", 0), "passes", -1),
        (("dimensions", 0), "verdict", "MAYBE"),
        (("dimensions", 0), "pass_k", {"two": 0.5}),
        (("dimensions", 0), "flaky_cases", [1]),
        ((), "decision", "SHIP_IT"),
        ((), "overall_pass", "yes"),
        ((), "coverage", "all"),
        ((), "judges", "judge-a"),
        (("hashes",), "suite", "ABC"),
        (("scope",), "inferred", "false"),
        (("validation",), "labeled", None),
    ],
)
def test_schema_types_each_key(data, path, key, value):
    broken = copy.deepcopy(data)
    _get(broken, path)[key] = value
    with pytest.raises(ScorecardSchemaError):
        validate_scorecard_json(broken)


def test_schema_allows_undefined_numbers_as_null(data):
    card = copy.deepcopy(data)
    dim = card["dimensions"][0]
    for key in ("rate", "ci_low", "ci_high", "threshold", "consistency", "coverage", "measure"):
        dim[key] = None
    dim["pass_k"] = {"1": None, "8": None}
    card["coverage"] = None
    validate_scorecard_json(card)


def test_schema_rejects_overall_pass_that_contradicts_the_decision(data):
    card = copy.deepcopy(data)
    card["overall_pass"] = not card["overall_pass"]
    with pytest.raises(ScorecardSchemaError, match=r"\$\.overall_pass"):
        validate_scorecard_json(card)


def test_schema_allows_extra_keys_everywhere(data):
    card = copy.deepcopy(data)
    card["new_top_level"] = {"x": 1}
    card["dimensions"][0]["new_field"] = [1, 2]
    card["findings"][0]["new_field"] = "x"
    card["hashes"]["signature"] = "abc"
    card["agent"]["build"] = 7
    validate_scorecard_json(card)


def test_validation_error_names_the_json_path(data):
    card = copy.deepcopy(data)
    card["dimensions"][2]["rate"] = "high"
    card["findings"][1]["case_ids"] = ["ok", 5]
    with pytest.raises(ScorecardSchemaError) as info:
        validate_scorecard_json(card)
    message = str(info.value)
    assert "$.dimensions[2].rate" in message
    assert "$.findings[1].case_ids[1]" in message
    assert ("$.dimensions[2].rate", "'high' is not of type 'number', 'null'") in info.value.errors


def test_write_reports_refuses_a_card_that_does_not_match_the_schema(card, tmp_path, monkeypatch):
    bad = card.to_dict()
    bad["decision"] = "SHIP_IT"
    monkeypatch.setattr(type(card), "to_dict", lambda self: bad)
    with pytest.raises(ScorecardSchemaError, match=r"\$\.decision"):
        write_reports(card, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_undefined_numbers_are_json_null_never_nan(tmp_path):
    rows = [
        {"id": "a", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"},
    ]
    card = sk.evaluate(rows, policy={"gate": {"required_dimensions": ["task_completion", "tool_call"]}})
    paths = write_reports(card, tmp_path)
    text = paths["json"].read_text(encoding="utf-8")
    data = json.loads(text)
    tool = next(d for d in data["dimensions"] if d["name"] == "tool_call")
    assert tool["n"] == 0
    assert tool["rate"] is None and tool["ci_low"] is None and tool["ci_high"] is None
    assert "NaN" not in text
    validate_scorecard_json(data)


def test_compact_validation_is_sound_for_long_lists(data):
    """The fast path validates long lists through representatives; a bad item anywhere is still found."""
    card = copy.deepcopy(data)
    card["findings"][0]["case_ids"] = [f"case-{i}" for i in range(5000)]
    card["validation"]["problems"] = [
        {"source": "r.jsonl", "line": i, "field": "id", "message": "duplicate id", "id": f"x{i}", "text": "t"}
        for i in range(1, 3001)
    ]
    validate_scorecard_json(card)
    card["findings"][0]["case_ids"][4321] = None
    card["validation"]["problems"][2500]["line"] = "2501"
    with pytest.raises(ScorecardSchemaError) as info:
        validate_scorecard_json(card)
    paths = {path for path, _ in info.value.errors}
    assert paths == {"$.findings[0].case_ids[4321]", "$.validation.problems[2500].line"}


def test_compacted_lists_have_type_only_item_schemas():
    """The compact fast path is sound only while these item schemas check JSON types alone."""
    schema = load_schema()
    type_only = {"type", "description", "properties", "required"}

    def resolve(node):
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
        return node

    def at(path):
        node = schema
        for part in path:
            node = resolve(node)
            node = node["items"] if part == "*" else node["properties"][part]
        return resolve(node)

    for path in COMPACTED_STRING_LISTS:
        node = at(path)
        assert set(node) <= {"type", "description", "items"}, path
        assert node["items"] == {"type": "string"}, path
    for path in COMPACTED_RECORD_LISTS:
        node = at(path)
        assert set(node) <= {"type", "description", "items"}, path
        item = resolve(node["items"])
        assert set(item) <= type_only, path
        for name, prop in item["properties"].items():
            assert set(prop) <= {"type", "description"}, (path, name)


def test_render_json_matches_to_json(card):
    data = card.to_dict()
    assert render_json(data) == json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert math.isfinite(data["coverage"])
