"""carry_forward: patch releases inherit the prior card's results (seed "Versioning policy", SPEC §13)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from release_cards import card_text, write_card_file

from scorekit.release import (
    ResultPayload,
    ScorecardFileError,
    ScorecardInvalidError,
    carry_forward,
    load_scorecard,
    parse_scorecard,
    parse_scorecard_text,
    render_scorecard,
    write_scorecard,
)

COMMAND = "PYTHONPATH=\"$(pwd)\" gaia eval benchmark --limit 220 --output-dir /tmp/email-eval"


def _prior(tmp_path, version="0.2.4", **options):
    return write_card_file(tmp_path, version=version, reproduction_command=COMMAND, stdev=0.011, **options)


def test_patch_bump_carries_results_forward_verbatim(tmp_path):
    prior = _prior(tmp_path)
    before = load_scorecard(prior).front_matter
    payload = carry_forward(prev_scorecard_path=prior, new_version="0.2.5")
    assert isinstance(payload, ResultPayload)
    assert payload.agent_version == "0.2.5"
    assert payload.inherited_from == "0.2.4"
    assert payload.measured_version == "0.2.4"
    assert payload.reproduction_command == COMMAND
    after = payload.to_front_matter()
    for key in ("results", "aggregate", "recipe"):
        assert after[key] == before[key], key
    assert after["agent"] == {"name": before["agent"]["name"], "version": "0.2.5"}


def test_carried_card_writes_valid_and_keeps_the_reproduction_command(tmp_path):
    prior = _prior(tmp_path)
    write_scorecard(carry_forward(prior, "0.2.5"), prior)  # in place, as the seed's example does
    doc = load_scorecard(prior)
    assert doc.version == "0.2.5" and doc.inherited_from == "0.2.4" and doc.measured_version == "0.2.4"
    assert doc.reproduction_command == COMMAND
    assert doc.aggregate_value == 84.67


def test_inherited_from_is_read_from_front_matter_not_filename(tmp_path):
    prior = write_card_file(tmp_path, version="0.2.4", filename="SCORECARD-v0.1.0.md")
    assert carry_forward(prior, "0.2.5").inherited_from == "0.2.4"


def test_chain_of_carry_forwards_keeps_the_measured_version(tmp_path):
    prior = _prior(tmp_path)
    write_scorecard(carry_forward(prior, "0.2.5"), prior)
    second = carry_forward(prior, "0.2.6")
    assert second.inherited_from == "0.2.5"
    assert second.measured_version == "0.2.4"
    write_scorecard(second, prior)
    assert parse_scorecard(prior).reproduction_command == COMMAND


def test_patch_may_jump_more_than_one(tmp_path):
    assert carry_forward(_prior(tmp_path), "0.2.9").agent_version == "0.2.9"


@pytest.mark.parametrize(
    ("new_version", "kind"),
    [("0.3.0", "minor"), ("0.3.5", "minor"), ("1.0.0", "major"), ("1.2.4", "major")],
)
def test_minor_or_major_bump_requires_rerun(tmp_path, new_version, kind):
    with pytest.raises(ValueError, match="re-run") as info:
        carry_forward(_prior(tmp_path), new_version)
    assert kind in str(info.value) and "0.2.4" in str(info.value)


@pytest.mark.parametrize(
    ("new_version", "match"),
    [("0.2.4", "same as"), ("0.2.3", "lower than"), ("0.2.0", "lower than"), ("0.1.9", "lower than"),
     ("0.1.5", "lower than")],
)
def test_same_or_lower_version_is_refused(tmp_path, new_version, match):
    with pytest.raises(ValueError, match=match) as info:
        carry_forward(_prior(tmp_path), new_version)
    assert "re-run" in str(info.value)


@pytest.mark.parametrize("new_version", ["0.2", "v0.2.5", "0.2.5.1", "", None, 25])
def test_new_version_must_be_semver(tmp_path, new_version):
    with pytest.raises(ValueError, match="new_version must be a semver"):
        carry_forward(_prior(tmp_path), new_version)


@pytest.mark.parametrize("new_version", ["0.2.5-rc.1", "0.2.5-alpha", "0.2.5+build.7", "0.2.5-rc.1+b"])
def test_prerelease_carry_forward_target_is_refused(tmp_path, new_version):
    with pytest.raises(ValueError, match="prerelease or build version") as info:
        carry_forward(_prior(tmp_path), new_version)
    assert "re-run" in str(info.value) and new_version in str(info.value)


@pytest.mark.parametrize("prior", ["0.2.4-rc.1", "0.2.4-beta.2", "0.2.4+build.7"])
def test_prerelease_prior_card_is_not_carried_forward(tmp_path, prior):
    # A prerelease card is valid on its own, but its results are not a release's to inherit.
    path = _prior(tmp_path, version=prior)
    assert load_scorecard(path).version == prior
    with pytest.raises(ValueError, match="the prior card's agent.version .* prerelease or build version"):
        carry_forward(path, "0.2.5")


def test_invalid_prior_card_is_refused(tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text(card_text(set={"aggregate.value": 99.0}), encoding="utf-8")
    with pytest.raises(ScorecardInvalidError, match="aggregate.value"):
        carry_forward(path, "0.3.1")


def test_missing_prior_card_is_refused(tmp_path):
    with pytest.raises(ScorecardFileError, match="does not exist"):
        carry_forward(tmp_path / "SCORECARD.md", "0.3.1")


def test_seed_example_carries_forward_with_its_components_verbatim(tmp_path, seed_front_matter_text):
    path = tmp_path / "SCORECARD.md"
    path.write_text(seed_front_matter_text, encoding="utf-8")
    before = parse_scorecard(path).front_matter
    payload = carry_forward(path, "0.3.1")
    after = parse_scorecard_text(render_scorecard(payload)).front_matter
    assert after["aggregate"] == before["aggregate"]  # still only the gated component, value 84.67
    assert after["results"] == before["results"]
    assert after["recipe"] == before["recipe"]
    assert after["inherited_from"] == "0.3.0" and after["measured_version"] == "0.3.0"


def test_extra_fields_survive_a_carry_forward(tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text(card_text(set={"results.notes": "hand-checked", "publisher": "gaia"}), encoding="utf-8")
    after = carry_forward(path, "0.3.1").to_front_matter()
    assert after["results"]["notes"] == "hand-checked" and after["publisher"] == "gaia"


@given(st.integers(0, 5), st.integers(0, 5), st.integers(0, 20), st.integers(0, 6), st.integers(0, 6),
       st.integers(0, 25))
def test_only_a_greater_patch_of_the_same_line_is_carried(tmp_path_factory, a, b, c, x, y, z):
    prior = _prior(tmp_path_factory.mktemp("card"), version=f"{a}.{b}.{c}")
    new = f"{x}.{y}.{z}"
    if (x, y) == (a, b) and z > c:
        payload = carry_forward(prior, new)
        assert (payload.agent_version, payload.inherited_from) == (new, f"{a}.{b}.{c}")
    else:
        with pytest.raises(ValueError, match="re-run"):
            carry_forward(prior, new)


ADAPTER_CARD = "adapter_style_SCORECARD.md"  # laid out the way the email-triage adapter renders its card


def test_adapter_style_card_validates_and_carries_forward_verbatim(tmp_path):
    from release_cards import RELEASE_DATA

    path = tmp_path / "SCORECARD.md"
    path.write_text((RELEASE_DATA / ADAPTER_CARD).read_text(encoding="utf-8"), encoding="utf-8")
    before = load_scorecard(path)
    assert before.reproduction_command.startswith("# Step 1: run the benchmark\nPYTHONPATH=")
    payload = carry_forward(path, "0.4.3")
    assert payload.notes == "Dataset pointers and a metric glossary live in EVALUATION.md."
    write_scorecard(payload, path)
    after = load_scorecard(path)
    for key in ("recipe", "results", "aggregate"):
        assert after.front_matter[key] == before.front_matter[key], key
    assert after.reproduction_command == before.reproduction_command
    assert (after.version, after.inherited_from, after.measured_version) == ("0.4.3", "0.4.2", "0.4.2")
    assert "EVALUATION.md" in after.body
