"""Where carried-forward results came from, one basis rule for gate and refresh-check, README quotes.

SPEC §13: ``measured_version`` names the release whose evaluation produced the
results; the gate and ``refresh-check`` compare the same basis (``ctx_size``,
``model``, dataset reference and size, ``limit``); ``release-lint`` checks every
aggregate the README quotes.
"""

from __future__ import annotations

import json

import pytest
from release_cards import write_card_file

from scorekit.release import carry_forward, gate, lint_doc_root, load_scorecard, refresh_check, write_scorecard
from scorekit.release._basis import BASIS_FIELDS


# --------------------------------------------------------------------------- measured_version
def test_carrying_a_card_carried_without_measured_version_names_its_source_as_measured(tmp_path):
    # A card the source project carried forward records inherited_from but no measured_version:
    # its results were measured on (at the latest) the release it inherited from, not on itself.
    prior = write_card_file(tmp_path, version="0.2.4", inherited_from="0.2.3")
    assert load_scorecard(prior).measured_version is None
    payload = carry_forward(prior, "0.2.5")
    assert (payload.inherited_from, payload.measured_version) == ("0.2.4", "0.2.3")
    write_scorecard(payload, prior)
    text = prior.read_text(encoding="utf-8")
    assert "measured on v0.2.3 and carried forward verbatim from the v0.2.4 scorecard" in text


def test_carrying_a_measured_card_names_it_as_measured(tmp_path):
    prior = write_card_file(tmp_path, version="0.2.4")
    payload = carry_forward(prior, "0.2.5")
    assert (payload.inherited_from, payload.measured_version) == ("0.2.4", "0.2.4")


# --------------------------------------------------------------------------- one basis rule
BASIS_CHANGES = [
    ("ctx_size", {"ctx_size": 8192}, {"ctx_size": 8192}),
    ("recipe.config.model", {"model": "other-model"}, {"model": "other-model"}),
    ("recipe.dataset.reference", {"dataset_reference": "other.json"}, {"dataset_reference": "other.json"}),
    ("recipe.dataset.size", {"dataset_size": 221}, {"dataset_size": 221, "full_limit": 220}),
    ("recipe.config.limit", {"limit": 219, "test_cases_run": 219}, {"limit": 221}),
]


def test_every_basis_field_is_compared_by_both_commands():
    assert sorted(field for field, _, _ in BASIS_CHANGES) == sorted(BASIS_FIELDS)


@pytest.mark.parametrize(("field", "card_change", "run_change"), BASIS_CHANGES, ids=[c[0] for c in BASIS_CHANGES])
def test_gate_and_refresh_check_flag_the_same_basis_field(tmp_path, field, card_change, run_change):
    committed = write_card_file(tmp_path / "committed", ctx_size=16384, limit=220, dataset_size=220)
    options = {"ctx_size": 16384, "limit": 220, "dataset_size": 220, **card_change}
    candidate = write_card_file(tmp_path / "candidate", version="0.3.1", **options)

    gated = gate(candidate, baseline_file=committed)
    assert gated.outcome == "basis-mismatch"
    assert [line for line in gated.annotations if "basis differs" in line and f" {field}:" in line]

    run = {
        "ctx_size": 16384,
        "model": "Gemma-4-E4B-it-GGUF",
        "dataset_reference": "tests/fixtures/email/ground_truth.json",
        "dataset_size": 220,
        "limit": 220,
        **run_change,
    }
    checked = refresh_check(committed, experiments=3, **run)
    assert (checked.exit_code, checked.profile) == (1, "full")
    assert [problem for problem in checked.problems if f"committed {field} " in problem]


def test_refresh_check_with_the_committed_basis_agrees_with_the_gate(tmp_path):
    committed = write_card_file(tmp_path, ctx_size=16384, limit=220, dataset_size=220)
    checked = refresh_check(committed, limit=220, experiments=3, ctx_size=16384, model="Gemma-4-E4B-it-GGUF",
                            dataset_reference="tests/fixtures/email/ground_truth.json", dataset_size=220)
    assert (checked.exit_code, checked.commit) == (0, "allowed")
    assert gate(committed, baseline_file=committed).outcome == "equal"


# --------------------------------------------------------------------------- README quotes
def test_readme_quoting_a_stale_aggregate_in_a_table_row_is_a_problem(tmp_path):
    root = tmp_path / "npm"
    write_card_file(root)  # aggregate 84.67
    (root / "package.json").write_text(json.dumps({"files": ["SCORECARD.md"]}), encoding="utf-8")
    readme = root / "README.md"
    readme.write_text("[scorecard](./SCORECARD.md)\n\n| Metric | Value |\n|---|---|\n| Aggregate score | 80.1 |\n",
                      encoding="utf-8")
    (problem,) = lint_doc_root(root)
    assert problem == f"{readme}:5: quotes aggregate 80.1, but SCORECARD.md's aggregate.value is 84.67"
    readme.write_text("[scorecard](./SCORECARD.md)\n\n| Aggregate score | 84.67 |\n", encoding="utf-8")
    assert lint_doc_root(root) == []
