"""ResultPayload, the aggregate formula, rendering and writing SCORECARD.md (seed "File format", SPEC §13)."""

from __future__ import annotations

import math
import socket
import string

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from release_cards import card_payload

from scorekit.release import (
    AGGREGATE_FORMULA,
    Metric,
    ResultPayload,
    ScorecardInvalidError,
    compute_aggregate,
    hardware_class,
    load_scorecard,
    parse_scorecard_text,
    render_scorecard,
    validate_scorecard,
    write_scorecard,
)


def _payload(**changes) -> ResultPayload:
    return card_payload().replace(**changes)


def _front_and_body(text: str) -> tuple[str, str]:
    assert text.startswith("---\n")
    yaml_text, body = text[4:].split("\n---\n", 1)
    return yaml_text, body


# --------------------------------------------------------------------------- aggregate formula
def test_worked_example_round_100_times_0_40_is_40():
    """Seed: "For a single metric with weight 1.0: round(100 × 0.40, 2) = 40.0"."""
    assert compute_aggregate([Metric("category_accuracy", 0.40, 1.0)]) == 40.0
    payload = _payload(metrics=[Metric("category_accuracy", 0.40, 1.0)])
    text = render_scorecard(payload)
    doc = parse_scorecard_text(text)
    assert doc.aggregate_value == 40.0
    assert doc.front_matter["aggregate"]["components"] == [{"metric": "category_accuracy", "value": 0.4, "weight": 1.0}]
    assert "round(100 × 0.40, 2) = 40.0" in doc.body
    assert "**Aggregate score: 40.0** (out of 100)" in doc.body


def test_aggregate_is_weighted_mean_times_100_rounded_to_2dp():
    metrics = [{"name": "a", "value": 0.9, "weight": 3.0}, {"name": "b", "value": 0.5, "weight": 1.0},
               {"name": "c", "value": 0.1, "weight": 0.0}]
    assert compute_aggregate(metrics) == round(100 * (3 * 0.9 + 0.5) / 4, 2) == 80.0


def test_weight_defaults_to_one():
    assert compute_aggregate([{"name": "a", "value": 0.2}, {"name": "b", "value": 0.4}]) == 30.0
    assert Metric("a", 0.5).weight == 1.0


def test_weight_zero_secondaries_do_not_change_the_aggregate():
    base = [Metric("within_one_bucket_accuracy", 0.8467)]
    assert compute_aggregate(base) == compute_aggregate(base + [Metric("urgent_recall", 0.1, 0.0)]) == 84.67


@pytest.mark.parametrize(
    ("metrics", "match"),
    [
        ([], "must not be empty"),
        ([Metric("a", math.nan)], r"metrics\[0\] \('a'\): value must be a finite number; got nan"),
        ([Metric("a", 0.5), Metric("b", math.inf)], r"metrics\[1\] \('b'\): value must be a finite"),
        ([Metric("a", 1.01)], r"value must be in \[0, 1\]; got 1.01"),
        ([Metric("a", -0.5)], r"value must be in \[0, 1\]"),
        ([Metric("a", 0.5, -1.0)], "weight must be >= 0; got -1.0"),
        ([Metric("a", 0.5, math.nan)], "weight must be a finite number"),
        ([Metric("a", 0.5, 0.0), Metric("b", 0.5, 0.0)], "weights must not all be zero"),
        ([Metric("a", "0.5")], "value must be a finite number; got '0.5'"),
        ([Metric("a", True)], "value must be a finite number; got True"),
    ],
)
def test_compute_aggregate_rejects_bad_metrics_naming_the_value(metrics, match):
    with pytest.raises(ValueError, match=match):
        compute_aggregate(metrics)


weights = st.floats(min_value=0.0, max_value=100.0, allow_nan=False)
values = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(st.lists(st.tuples(values, weights), min_size=1, max_size=8).filter(lambda xs: sum(w for _, w in xs) > 0))
def test_aggregate_is_a_percentage_within_the_component_range(pairs):
    metrics = [Metric(f"m{i}", v, w) for i, (v, w) in enumerate(pairs)]
    aggregate = compute_aggregate(metrics)
    weighted = [v for v, w in pairs if w > 0]
    assert 0.0 <= aggregate <= 100.0
    assert round(100 * min(weighted), 2) - 0.01 <= aggregate <= round(100 * max(weighted), 2) + 0.01
    assert aggregate == round(aggregate, 2)


# --------------------------------------------------------------------------- front matter layout
def test_front_matter_has_the_seed_layout():
    front = card_payload(stdev=0.01).to_front_matter()
    assert list(front) == [
        "schema_version",
        "agent",
        "recipe",
        "results",
        "aggregate",
        "generated_at",
        "inherited_from",
    ]
    assert front["schema_version"] == 1
    assert list(front["agent"]) == ["name", "version"]
    assert list(front["recipe"]) == ["dataset", "methodology", "config"]
    assert list(front["recipe"]["dataset"]) == ["reference", "description", "size"]
    assert list(front["results"]) == ["test_cases_run", "metrics"]
    assert list(front["aggregate"]) == ["name", "formula", "components", "value"]
    assert front["aggregate"]["name"] == "weighted_accuracy"
    assert (
        front["aggregate"]["formula"] == AGGREGATE_FORMULA == "round(100 * sum(weight_i * value_i) / sum(weight_i), 2)"
    )
    assert front["aggregate"]["value"] == 84.67
    assert front["inherited_from"] is None
    assert "acceptance_variance" in front["recipe"]["config"]
    assert validate_scorecard(front) == []


def test_optional_blocks_are_placed_where_the_seed_puts_them():
    payload = _payload(
        environment={"gaia_commit": "a1b2c3d", "lemonade_version": "10.8.0", "model": "Gemma-4-E4B-it-GGUF",
                     "hardware": "AMD Ryzen AI MAX+ (Strix Halo)", "temperature": 0.0},
        breakdown={"per_category": [{"category": "fyi", "total": 88, "correct": 54, "accuracy": 0.6136}],
                   "top_confusions": [{"expected": "fyi", "predicted": "needs_response", "count": 28}]},
        performance={"ttft_s": 0.41, "throughput_tps": 23.5, "pipeline_s": 180.2, "peak_memory_gb": 7.9,
                     "emails_per_run": 220, "total_input_tokens": 812345, "total_output_tokens": 40211,
                     "llm_classified_count": 61, "tokens_per_triage": 742.3},
        measured_version="0.2.9", inherited_from="0.2.9",
    )
    front = payload.to_front_matter()
    assert list(front["recipe"]) == ["dataset", "methodology", "config", "environment"]
    assert list(front["results"]) == ["test_cases_run", "metrics", "breakdown", "performance"]
    assert list(front)[-2:] == ["inherited_from", "measured_version"]
    assert validate_scorecard(front) == []
    body = _front_and_body(render_scorecard(payload))[1]
    for heading in ("## Category breakdown", "## Performance", "## Environment", "## Reproduction"):
        assert heading in body
    assert "Tokens per triage (`tokens_per_triage`) | 742.3" in body
    assert "Reported, never gated" in body
    assert "AMD Ryzen AI MAX+ (Strix Halo)" in body


def test_metrics_may_be_given_as_dicts_and_numpy_numbers():
    payload = _payload(metrics=[{"name": "a", "value": np.float64(0.25), "weight": np.int64(2)},
                                {"name": "b", "value": np.float32(0.5)}], test_cases_run=np.int64(100))
    assert all(isinstance(m, Metric) for m in payload.metrics)
    doc = parse_scorecard_text(render_scorecard(payload))
    assert validate_scorecard(doc) == []
    assert doc.metrics == [{"name": "a", "value": 0.25, "weight": 2}, {"name": "b", "value": 0.5, "weight": 1.0}]
    assert doc.aggregate_value == round(100 * (2 * 0.25 + 0.5) / 3, 2)


def test_yaml_is_dumped_in_payload_order_not_sorted():
    yaml_text, _ = _front_and_body(render_scorecard(card_payload()))
    keys = [line.split(":")[0] for line in yaml_text.splitlines() if line and not line.startswith((" ", "-"))]
    assert keys == ["schema_version", "agent", "recipe", "results", "aggregate", "generated_at", "inherited_from"]


# --------------------------------------------------------------------------- body
def test_body_has_title_aggregate_metrics_recomputation_and_reproduction():
    text = render_scorecard(card_payload())
    body = _front_and_body(text)[1]
    assert body.lstrip("\n").startswith("# Email Triage — Eval Scorecard v0.3.0\n")
    assert "**Aggregate score: 84.67** (out of 100)" in body
    assert "| within\\_one\\_bucket\\_accuracy | 0.8467 | 1.0 | yes |" in body
    assert "| urgent\\_recall | 0.6571 | 0.0 | no (reported, weight 0) |" in body
    assert "Σ w·v / Σ w = 0.8467 / 1.0 = 0.8467 → round(100 × 0.8467, 2) = 84.67" in body
    section = body.split("## Reproduction", 1)[1]
    assert "```bash\ngaia eval benchmark --model Gemma-4-E4B-it-GGUF" in section


def test_worked_recomputation_shows_every_weighted_term():
    payload = _payload(metrics=[Metric("a", 0.9, 3.0), Metric("b", 0.5, 1.0), Metric("c", 0.2, 0.0)])
    body = _front_and_body(render_scorecard(payload))[1]
    assert "Σ w·v = 3.0 × 0.90 + 1.0 × 0.50 = 3.20" in body
    assert "Σ w   = 3.0 + 1.0 = 4.0" in body
    assert "round(100 × 0.80, 2) = 80.0" in body
    assert "Weight-0 components contribute nothing to the aggregate: c." in body


def test_no_reproduction_command_points_at_the_scorecard_docs():
    body = _front_and_body(render_scorecard(_payload(reproduction_command=None)))[1]
    # The seed project's sentence, restated here independently of the renderer's constant.
    assert ("## Reproduction\n\nSee the [eval-scorecard docs](https://amd-gaia.ai/docs/reference/eval-scorecard) "
            "and the [`adding-eval-scorecard` skill](.claude/skills/adding-eval-scorecard/SKILL.md) "
            "for the full reproduction recipe.\n") in body
    assert parse_scorecard_text(render_scorecard(_payload(reproduction_command="  \n"))).reproduction_command is None


def test_reproduction_command_with_backticks_and_lines_survives():
    command = "PYTHONPATH=\"$(pwd)\" \\\n  gaia eval benchmark --limit 220\necho ```done```"
    doc = parse_scorecard_text(render_scorecard(_payload(reproduction_command=command)))
    assert doc.reproduction_command == command


def test_carried_forward_card_says_so():
    body = _front_and_body(render_scorecard(_payload(agent_version="0.2.5", inherited_from="0.2.4",
                                                     measured_version="0.2.3")))[1]
    assert "Carried forward" in body and "measured on v0.2.3" in body and "v0.2.4 scorecard" in body
    assert "Carried forward" not in _front_and_body(render_scorecard(card_payload()))[1]


def test_variance_section_is_rendered_when_recorded():
    body = _front_and_body(render_scorecard(card_payload(stdev=0.0123)))[1]
    assert "## Run-to-run variance" in body and "0.0123" in body


def test_markdown_in_names_is_escaped():
    payload = _payload(agent_name="Evil | <script>", metrics=[Metric("a|b", 0.5)])
    body = _front_and_body(render_scorecard(payload))[1]
    assert "<script>" not in body and "a\\|b" in body
    assert parse_scorecard_text(render_scorecard(payload)).agent_name == "Evil | <script>"


# --------------------------------------------------------------------------- round trip
names = st.text(alphabet=string.ascii_letters + string.digits + " -_.()#:'\"|*—é", min_size=1, max_size=30).filter(
    lambda s: s.strip())
metric_names = st.text(alphabet=string.ascii_lowercase + "_^@", min_size=1, max_size=20)
semver = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(0, 30), st.integers(0, 30), st.integers(0, 300))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), names)
commands = st.text(alphabet=string.printable.replace("\r", "").replace("\x0b", "").replace("\x0c", ""),
                   max_size=80)


@st.composite
def payloads(draw):
    size = draw(st.integers(1, 10_000))
    metric_list = draw(st.lists(st.tuples(metric_names, values, weights), min_size=1, max_size=6,
                                unique_by=lambda t: t[0]).filter(lambda ms: sum(w for *_, w in ms) > 0))
    config = draw(st.dictionaries(st.text(string.ascii_lowercase + "_", min_size=1, max_size=10),
                                  st.one_of(scalars, st.lists(scalars, max_size=3)), max_size=4))
    inherited = draw(st.one_of(st.none(), semver))
    return ResultPayload(
        draw(names), draw(semver), draw(names), draw(names), size, draw(names), config,
        draw(st.integers(1, size)), [Metric(n, v, w) for n, v, w in metric_list],
        aggregate_name=draw(st.sampled_from(["weighted_accuracy", "acceptance"])),
        generated_at="2026-06-29T21:45:03+00:00",
        inherited_from=inherited,
        measured_version=draw(st.one_of(st.none(), semver)) if inherited else None,
        reproduction_command=draw(st.one_of(st.none(), commands)),
        notes=draw(st.one_of(st.none(), commands)),
        environment=draw(st.one_of(st.none(), st.fixed_dictionaries(
            {"model": names, "hardware": names, "temperature": st.floats(0, 2)}))),
        performance=draw(st.one_of(st.none(), st.dictionaries(
            st.sampled_from(["ttft_s", "tokens_per_triage", "total_input_tokens"]),
            st.floats(0, 1e6, allow_nan=False), min_size=1))),
    )


@given(payloads())
def test_render_parse_validate_round_trip(payload):
    text = render_scorecard(payload)
    doc = parse_scorecard_text(text)
    assert validate_scorecard(doc) == []
    assert doc.front_matter == payload.to_front_matter()
    assert doc.aggregate_value == payload.aggregate_value
    assert doc.reproduction_command == payload.reproduction_command
    again_notes = ResultPayload.from_front_matter(doc.front_matter, doc.body).notes
    assert again_notes == payload.notes
    again = ResultPayload.from_front_matter(doc.front_matter, doc.body)
    assert render_scorecard(again) == text


def test_notes_are_kept_apart_from_the_reproduction_command():
    notes = "## Dataset\n\n```\nnot a command\n```\n\nSee EVALUATION.md."
    for command in (None, "make eval"):
        doc = parse_scorecard_text(render_scorecard(_payload(reproduction_command=command, notes=notes)))
        assert doc.reproduction_command == command
        assert ResultPayload.from_front_matter(doc.front_matter, doc.body).notes == notes
    with pytest.raises(ValueError, match="markers"):
        _payload(notes="<!-- scorecard:notes:end -->")


# --------------------------------------------------------------------------- from_front_matter
def test_from_front_matter_keeps_unknown_keys_in_place(seed_front_matter_text):
    front = parse_scorecard_text(seed_front_matter_text).front_matter
    front["results"]["notes"] = "scored by hand"
    front["agent"]["id"] = "email"
    front["publisher"] = {"team": "gaia"}
    payload = ResultPayload.from_front_matter(front)
    out = payload.to_front_matter()
    assert out["results"]["notes"] == "scored by hand" and out["agent"]["id"] == "email"
    assert out["publisher"] == {"team": "gaia"}
    # the seed lists only the gated component; it stays that way
    assert out["aggregate"] == front["aggregate"]


def test_from_front_matter_refuses_an_invalid_card():
    front = card_payload().to_front_matter()
    front["agent"]["version"] = "latest"
    with pytest.raises(ScorecardInvalidError, match="agent.version"):
        ResultPayload.from_front_matter(front)


# --------------------------------------------------------------------------- write
def test_write_scorecard_writes_a_valid_card(tmp_path):
    path = write_scorecard(card_payload(stdev=0.01), tmp_path / "SCORECARD.md")
    doc = load_scorecard(path)
    assert doc.aggregate_value == 84.67
    assert [p.name for p in tmp_path.iterdir()] == ["SCORECARD.md"]  # no temporary file left behind


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"test_cases_run": 221}, "results.test_cases_run"),
        ({"agent_version": "0.3"}, "agent.version"),
        ({"metrics": [Metric("a", math.nan)]}, "results.metrics[0].value"),
        ({"metrics": [Metric("a", 0.5, 0.0)]}, "results.metrics"),
        ({"agent_name": ""}, "agent.name"),
        ({"dataset_size": 0}, "recipe.dataset.size"),
        ({"inherited_from": "v1"}, "inherited_from"),
        ({"config": {"acceptance_variance": {"acc": {"mean": 0.8, "stdev": -1.0}}}},
         "recipe.config.acceptance_variance.acc.stdev"),
        ({"performance": {"ttft_s": math.inf}}, "results.performance.ttft_s"),
    ],
)
def test_write_scorecard_refuses_an_invalid_payload_naming_the_field(tmp_path, changes, field):
    path = tmp_path / "SCORECARD.md"
    path.write_text("previous card\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"SCORECARD.md: invalid scorecard: ") as info:
        write_scorecard(_payload(**changes), path)
    assert field in str(info.value)
    assert path.read_text(encoding="utf-8") == "previous card\n"  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["SCORECARD.md"]


def test_render_refuses_an_invalid_payload():
    with pytest.raises(ScorecardInvalidError, match="results.test_cases_run"):
        render_scorecard(_payload(test_cases_run=999))


def test_payload_checks_its_types():
    with pytest.raises(TypeError, match="metrics"):
        _payload(metrics="within_one_bucket_accuracy")
    with pytest.raises(TypeError, match="config"):
        _payload(config=[("limit", 220)])
    with pytest.raises(TypeError, match="unknown ResultPayload field"):
        _payload(agent="x")


# --------------------------------------------------------------------------- environment
def test_hardware_class_is_the_cpu_model_never_the_hostname(tmp_path, monkeypatch):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen AI MAX+ 395  w/ Radeon\n")

    def no_hostname(*_):
        raise AssertionError("the hostname must never be read")

    monkeypatch.setattr(socket, "gethostname", no_hostname)
    assert hardware_class(cpuinfo=cpuinfo) == "AMD Ryzen AI MAX+ 395 w/ Radeon"
    monkeypatch.setattr("platform.processor", lambda: "")
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    assert hardware_class(cpuinfo=tmp_path / "missing") == "x86_64"
    monkeypatch.setattr("platform.processor", lambda: "Intel64 Family 6")
    assert hardware_class(cpuinfo=tmp_path / "missing") == "Intel64 Family 6"


def test_hardware_class_here_is_not_the_hostname():
    assert hardware_class() and hardware_class() != socket.gethostname()
