"""Bridge: a scorekit evaluation becomes a release scorecard payload (issue 5, SPEC §13)."""

from __future__ import annotations

import pytest

import scorekit as sk
from scorekit import cli
from scorekit.release import ResultPayload, gate, load_scorecard, refresh_check, to_release_payload, write_scorecard


def _rows(task=("PASS",) * 8 + ("FAIL",) * 2, pii=("PASS",) * 5):
    rows = [{"id": f"t{i}", "dimension": "task_completion", "status": s, "evaluator": "harness",
             "case_id": f"case-{i % 5}", "trial": i // 5} for i, s in enumerate(task)]
    rows += [{"id": f"p{i}", "dimension": "pii", "status": s, "evaluator": "harness", "case_id": f"case-{i}"}
             for i, s in enumerate(pii)]
    return rows


PASSING = {"gate": {"thresholds": {"task_completion": 0.5}}}  # 8/10 clears it: the evaluation decides PASS


@pytest.fixture
def card():
    return sk.evaluate(_rows(), policy=PASSING, agent_name="Email Assistant", agent_version="1.2.0")


def test_dimension_rates_become_weight_one_metrics(card):
    payload = to_release_payload(card, secondaries=False)
    dims = {d["name"]: d for d in card.to_dict()["dimensions"]}
    assert [(m.name, m.weight) for m in payload.metrics] == [
        (f"{name}_pass_rate", 1.0) for name in dims]
    assert {m.name: m.value for m in payload.metrics} == {
        f"{name}_pass_rate": d["rate"] for name, d in dims.items()}
    assert payload.aggregate_value == round(100 * sum(d["rate"] for d in dims.values()) / len(dims), 2)


def test_weights_override_per_dimension(card):
    payload = to_release_payload(card, weights={"pii": 0.0}, secondaries=False)
    assert {m.name: m.weight for m in payload.metrics} == {"pii_pass_rate": 0.0, "task_completion_pass_rate": 1.0}
    assert payload.aggregate_value == 80.0


@pytest.mark.parametrize(("weights", "match"), [({"latency": 1.0}, "not in scope"), ({"pii": -1}, "weights"),
                                                 ({"pii": 0, "task_completion": 0}, "all be zero")])
def test_bad_weights_are_refused(card, weights, match):
    with pytest.raises(ValueError, match=match):
        to_release_payload(card, weights=weights)


def test_wilson_interval_and_pass_hat_k_are_weight_zero_secondaries(card):
    payload = to_release_payload(card)
    metrics = {m.name: m for m in payload.metrics}
    low, high = sk.wilson_interval(8, 10)
    assert metrics["task_completion_ci_low"].value == pytest.approx(low)
    assert metrics["task_completion_ci_high"].value == pytest.approx(high)
    assert metrics["task_completion_pass_hat_2"].weight == 0.0
    assert metrics["task_completion_pass_hat_2"].value == pytest.approx(
        card.to_dict()["dimensions"][1]["pass_k"]["2"])
    assert all("^" not in name for name in metrics)
    assert all(m.weight == 0.0 for name, m in metrics.items() if not name.endswith("_pass_rate"))
    assert payload.aggregate_value == to_release_payload(card, secondaries=False).aggregate_value


def test_undefined_rate_is_refused_naming_the_dimension():
    card = sk.evaluate(_rows(pii=("ERROR",) * 3), policy=PASSING, agent_name="A", agent_version="1.0.0")
    with pytest.raises(ValueError, match=r"undefined rate.*\['pii'\]"):
        to_release_payload(card, require_pass=False)  # INCOMPLETE: refused by default anyway


def test_counts_are_distinct_cases_and_dataset_size(card):
    payload = to_release_payload(card)
    assert payload.test_cases_run == 5  # case-0 … case-4, shared by both dimensions
    assert payload.dataset_size == 5
    assert to_release_payload(card, dataset_size=220).dataset_size == 220
    with pytest.raises(ValueError, match="dataset_size"):
        to_release_payload(card, dataset_size=4)


def test_version_must_be_semver():
    card = sk.evaluate(_rows(), policy=PASSING, agent_name="A", agent_version="2024-06")
    with pytest.raises(ValueError, match="semver"):
        to_release_payload(card)
    assert to_release_payload(card, agent_version="2.0.1").agent_version == "2.0.1"
    with pytest.raises(ValueError, match="agent_version must be a semver"):
        to_release_payload(card, agent_version="2.0")


def test_agent_name_is_required():
    card = sk.evaluate(_rows(), policy=PASSING, agent_version="1.0.0")
    with pytest.raises(ValueError, match="agent_name"):
        to_release_payload(card)
    assert to_release_payload(card, agent_name="Named").agent_name == "Named"


def test_recipe_names_scorekit_decision_and_hashes(card):
    payload = to_release_payload(card, reproduction_command="scorekit run --results results.jsonl", limit=10)
    data = card.to_dict()
    assert payload.methodology.startswith(f"scorekit {sk.__version__} evaluate")
    assert payload.config["decision"] == data["decision"]
    assert payload.config["purpose"] == data["purpose"]
    assert payload.config["policy_hash"] == data["hashes"]["policy"]
    assert payload.config["suite_hash"] == data["hashes"]["suite"]
    assert payload.config["results_hash"] == data["hashes"]["results"]
    assert payload.config["limit"] == 10
    assert payload.dataset_reference == f"sha256:{data['hashes']['suite']}"
    assert payload.reproduction_command == "scorekit run --results results.jsonl"


def test_scorecard_method_delegates_to_the_bridge(card):
    via_method = card.to_release_payload("Email Assistant", "1.2.1", weights={"pii": 2.0}, generated_at="2026-01-01")
    direct = to_release_payload(card, agent_name="Email Assistant", agent_version="1.2.1", weights={"pii": 2.0},
                                generated_at="2026-01-01")
    assert isinstance(via_method, ResultPayload)
    assert via_method.to_front_matter() == direct.to_front_matter()


def test_evaluation_produces_a_valid_scorecard_file(card, tmp_path):
    payload = card.to_release_payload(reproduction_command="scorekit run --results results.jsonl --gate")
    doc = load_scorecard(write_scorecard(payload, tmp_path / "SCORECARD.md"))
    assert doc.version == "1.2.0"
    assert doc.reproduction_command == "scorekit run --results results.jsonl --gate"
    assert doc.aggregate_value == payload.aggregate_value


def test_bundled_example_evaluation_bridges():
    card = sk.evaluate(sk.read_rows(sk.example_path()), policy=sk.example_path(file="policy.yml"),
                       agent_name="Email Assistant", agent_version="1.2.0")
    payload = card.to_release_payload(require_pass=False)  # the example decides FAIL
    assert payload.config["decision"] == "FAIL"
    assert payload.test_cases_run <= payload.dataset_size
    assert len([m for m in payload.metrics if m.weight > 0]) == len(card.to_dict()["scope"]["dimensions"])


def test_an_evaluation_that_did_not_pass_is_refused_by_default():
    # Fail closed: the gate reads only the aggregate, so a card built from a FAIL
    # (or INCOMPLETE) evaluation would pass it.
    failing = sk.evaluate(_rows(), agent_name="A", agent_version="1.0.0")  # default threshold 0.9: FAIL
    assert failing.decision != "PASS"
    with pytest.raises(ValueError, match=r"decided FAIL .* require_pass=False"):
        to_release_payload(failing)
    assert to_release_payload(failing, require_pass=False).config["decision"] == "FAIL"


def test_a_partial_scan_must_state_its_limit_and_dataset_size():
    partial = sk.evaluate(_rows(), policy=PASSING, agent_name="A", agent_version="1.0.0", limit=12)
    with pytest.raises(ValueError, match="partial scan"):
        to_release_payload(partial, require_pass=False)
    payload = to_release_payload(partial, require_pass=False, limit=12, dataset_size=15)
    assert payload.config["limit"] == 12 and payload.dataset_size == 15


# --------------------------------------------------------------------------- what refresh-check needs
def test_card_written_from_the_bundled_example_passes_refresh_check_when_nothing_changed(tmp_path, capsys):
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="Email Assistant", agent_version="1.2.0")
    payload = card.to_release_payload(require_pass=False)  # the example decides FAIL
    path = write_scorecard(payload, tmp_path / "SCORECARD.md")
    config = load_scorecard(path).config
    # The whole evaluation ran: limit is the cases run, and one evaluation is one run.
    assert (config["limit"], config["n_runs"]) == (payload.test_cases_run, 1)
    assert payload.test_cases_run == payload.dataset_size

    same = refresh_check(path, limit=payload.test_cases_run, experiments=1)
    assert (same.exit_code, same.status_line, same.problems) == (0, "profile=full commit=allowed", ())
    code = cli.main(["refresh-check", "--scorecard", str(path), "--limit", str(payload.test_cases_run),
                     "--experiments", "1"])
    assert code == 0 and capsys.readouterr().out.startswith("profile=full commit=allowed")
    # The gate sees the same card as its own equal baseline, and refuses it only for its FAIL decision (§13).
    result = gate(path, baseline_file=path)
    assert (result.exit_code, result.failures) == (1, ("decision-not-pass",))


def test_limit_recorded_by_the_bridge_is_compared_by_the_gate(card, tmp_path):
    full = write_scorecard(to_release_payload(card, dataset_size=10), tmp_path / "full-SCORECARD.md")
    limited = write_scorecard(to_release_payload(card, dataset_size=10, limit=5, agent_version="1.2.1"),
                              tmp_path / "SCORECARD.md")
    assert load_scorecard(full).config["limit"] == 5  # the 5 cases run, though the dataset has 10
    assert gate(limited, baseline_file=full).outcome == "equal"
    wider = write_scorecard(to_release_payload(card, dataset_size=10, limit=10, agent_version="1.2.1"),
                            tmp_path / "wider-SCORECARD.md")
    result = gate(wider, baseline_file=full)
    assert result.outcome == "basis-mismatch" and any("recipe.config.limit: candidate 10, baseline 5" in line
                                                       for line in result.lines)


def test_n_runs_is_recorded_and_refresh_check_wants_as_many_experiments(card, tmp_path):
    path = write_scorecard(to_release_payload(card, n_runs=3), tmp_path / "SCORECARD.md")
    assert load_scorecard(path).config["n_runs"] == 3
    assert refresh_check(path, limit=5, experiments=3).exit_code == 0
    fewer = refresh_check(path, limit=5, experiments=2)
    assert fewer.exit_code == 1 and "experiments 2 < committed recipe.config.n_runs 3" in fewer.problems[0]


@pytest.mark.parametrize(("option", "value"), [("limit", 0), ("limit", True), ("limit", 2.5), ("n_runs", 0),
                                               ("n_runs", "3")])
def test_limit_and_n_runs_must_be_positive_integers(card, option, value):
    with pytest.raises(ValueError, match=f"{option} must be a positive integer"):
        to_release_payload(card, **{option: value})


# --------------------------------------------------------------------------- recipe.environment.hardware
def test_bridge_fills_hardware_with_the_cpu_model_never_the_hostname(card, tmp_path, monkeypatch):
    import socket

    from scorekit.release import hardware_class

    payload = to_release_payload(card, hardware="auto", environment={"model": "Gemma-4-E4B-it-GGUF"})
    assert payload.environment == {"model": "Gemma-4-E4B-it-GGUF", "hardware": hardware_class()}
    assert payload.environment["hardware"].lower() != socket.gethostname().lower()
    doc = load_scorecard(write_scorecard(payload, tmp_path / "SCORECARD.md"))
    assert doc.front_matter["recipe"]["environment"]["hardware"] == hardware_class()
    explicit = to_release_payload(card, hardware="NVIDIA GeForce RTX 4090")
    assert explicit.environment == {"hardware": "NVIDIA GeForce RTX 4090"}
    assert to_release_payload(card).environment is None  # nothing asked for: no environment block


def test_hostname_as_hardware_is_refused(card, monkeypatch):
    monkeypatch.setattr("socket.gethostname", lambda: "build-box-17.corp.example")
    monkeypatch.setattr("platform.node", lambda: "build-box-17.corp.example")
    for environment, hardware in [
        ({"hardware": "build-box-17.corp.example"}, None),
        ({"hardware": "BUILD-BOX-17"}, None),
        (None, "build-box-17"),
    ]:
        with pytest.raises(ValueError, match="hostname"):
            to_release_payload(card, environment=environment, hardware=hardware)
    # Even when the machine's own description is its name, "auto" does not write it.
    monkeypatch.setattr("scorekit.release._bridge.hardware_class", lambda: "build-box-17")
    with pytest.raises(ValueError, match="hostname"):
        to_release_payload(card, hardware="auto")


@pytest.mark.parametrize(("environment", "hardware", "match"), [
    ({"hardware": "AMD Ryzen AI MAX+ (Strix Halo)"}, "NVIDIA GeForce RTX 4090", "disagree"),
    (None, "", "class descriptor"),
    (["hardware"], None, "environment must be a mapping"),
])
def test_bad_hardware_or_environment_is_refused(card, environment, hardware, match):
    with pytest.raises((ValueError, TypeError), match=match):
        to_release_payload(card, environment=environment, hardware=hardware)
