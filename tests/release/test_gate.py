"""The release gate as a library (SPEC §13; seed 001 "Gate logic" and its exit-code table).

One test per row of the document's exit-code table (named after the row), then
SPEC §13's stricter differences, the noise band, basis comparability, the
thresholds manifest, a render → write → parse → validate → gate round trip and
two properties. The git-ref cases are in test_gate_cli.py.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit._errors import PolicyError
from scorekit.release._gate import GateResult, basis_differences, gate, load_thresholds

SEED_EXAMPLE = Path(__file__).parent / "data" / "seed_example_SCORECARD.md"


def _errors(result: GateResult) -> list[str]:
    return [a for a in result.annotations if a.startswith("::error::")]


def _warnings(result: GateResult) -> list[str]:
    return [a for a in result.annotations if a.startswith("::warning::")]


@pytest.fixture
def pair(tmp_path, write_card):
    """``pair(baseline_options, candidate_options) -> (candidate_path, baseline_path)``."""

    def make(baseline: dict, candidate: dict) -> tuple[Path, Path]:
        base = write_card(tmp_path, filename="prev/SCORECARD.md", **{"version": "0.2.3", **baseline})
        cand = write_card(tmp_path, filename="SCORECARD.md", **{"version": "0.2.4", **candidate})
        return cand, base

    return make


# --------------------------------------------------------------------------- the exit-code table, row by row
@pytest.mark.parametrize("case", ["missing", "directory", "no front matter", "invalid"])
def test_missing_or_invalid_candidate_scorecard_exits_1(tmp_path, make_card_text, case):
    path = tmp_path / "SCORECARD.md"
    if case == "directory":
        path.mkdir()
    elif case == "no front matter":
        path.write_text("# Email Triage\n\nno front matter here\n", encoding="utf-8")
    elif case == "invalid":
        path.write_text(make_card_text(drop=("recipe.methodology",)), encoding="utf-8")
    result = gate(path)
    assert (result.exit_code, result.outcome) == (1, "invalid-candidate")
    assert len(_errors(result)) == 1 and str(path) in _errors(result)[0]
    if case == "invalid":
        assert any("recipe.methodology" in line for line in result.messages)


def test_below_min_aggregate_bar_exits_1(write_card, tmp_path):
    card = write_card(tmp_path, value=0.7999)  # aggregate 79.99
    result = gate(card, min_aggregate=80)
    assert (result.exit_code, result.outcome) == (1, "bar-not-met")
    assert "below the bar 80" in _errors(result)[0]
    assert gate(card, min_aggregate=79.99).exit_code == 0


@pytest.mark.parametrize("case", ["below", "metric absent"])
def test_below_min_urgent_recall_floor_or_metric_absent_exits_1(write_card, tmp_path, case):
    secondaries = {"urgent_recall": 0.6571} if case == "below" else {"category_accuracy": 0.4567}
    card = write_card(tmp_path, secondaries=secondaries)
    result = gate(card, min_metrics={"urgent_recall": 0.66})
    assert (result.exit_code, result.outcome) == (1, "bar-not-met")
    assert ("absent" in _errors(result)[0]) == (case == "metric absent")
    if case == "below":
        assert gate(card, min_metrics={"urgent_recall": 0.6571}).exit_code == 0


def test_regression_beyond_the_variance_band_vs_baseline_exits_1(pair):
    cand, base = pair({"value": 0.8467, "stdev": 0.0116}, {"value": 0.8350})  # 83.50 < 84.67 - 1.16
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (1, "regression")
    assert result.band_floor == 83.51
    assert "v0.2.3=84.67 → v0.2.4=83.5" in _errors(result)[0]


def test_no_baseline_first_adoption_bar_and_floor_met_exits_0(write_card, tmp_path):
    card = write_card(tmp_path)
    result = gate(card, min_aggregate=80, min_metrics={"urgent_recall": 0.65})
    assert (result.exit_code, result.outcome) == (0, "first-adoption")
    assert result.annotations == ()
    assert (result.candidate_version, result.candidate_score, result.baseline_score) == ("0.3.0", 84.67, None)


# "File absent at --baseline-ref → 0" needs a git repository: see
# test_gate_cli.py::test_file_absent_at_baseline_ref_exits_0.


def test_equal_score_patch_carry_forward_exits_0(pair):
    cand, base = pair({"value": 0.8467}, {"value": 0.8467, "inherited_from": "0.2.3", "measured_version": "0.2.3"})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (0, "equal")
    assert result.annotations == ()


@pytest.mark.parametrize(("candidate", "outcome"), [(0.8351, "within-band"), (0.8467, "equal"), (0.9, "improved")])
def test_dip_within_the_variance_band_or_score_improved_exits_0(pair, candidate, outcome):
    cand, base = pair({"value": 0.8467, "stdev": 0.0116}, {"value": candidate})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (0, outcome)


# --------------------------------------------------------------------------- the noise band
@pytest.mark.parametrize(
    ("baseline", "stdev", "at_edge", "below", "floor"),
    [
        (0.8467, 0.0116, 0.8351, 0.8350, 83.51),
        # 80.01 - 100 x 0.0002 is 79.99000000000001 in naive floating point: 79.99 must still pass.
        (0.8001, 0.0002, 0.7999, 0.7998, 79.99),
    ],
)
def test_band_edge_is_exactly_baseline_minus_k_stdev_times_100(pair, baseline, stdev, at_edge, below, floor):
    cand, base = pair({"value": baseline, "stdev": stdev}, {"value": at_edge})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome, result.band_floor) == (0, "within-band", floor)
    cand, base = pair({"value": baseline, "stdev": stdev}, {"value": below})
    assert gate(cand, baseline_file=base).outcome == "regression"


def test_regression_k_scales_the_band(pair):
    cand, base = pair({"value": 0.8467, "stdev": 0.0116}, {"value": 0.8300})  # 83.00
    assert gate(cand, baseline_file=base, regression_k=1).exit_code == 1
    wide = gate(cand, baseline_file=base, regression_k=2)  # floor 82.35
    assert (wide.exit_code, wide.band_floor) == (0, 82.35)
    cand, base = pair({"value": 0.8467, "stdev": 0.0116}, {"value": 0.8466})
    assert gate(cand, baseline_file=base, regression_k=0).outcome == "regression"  # k = 0: strict


def test_without_a_recorded_stdev_any_dip_is_a_regression(pair):
    cand, base = pair({"value": 0.8467}, {"value": 0.8466})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome, result.band_floor) == (1, "regression", 84.67)


def test_band_uses_the_baseline_stdev_not_the_candidates(pair):
    cand, base = pair({"value": 0.8467}, {"value": 0.8400, "stdev": 0.05})
    assert gate(cand, baseline_file=base).outcome == "regression"


def test_variance_metric_names_the_metric_whose_stdev_sets_the_band(pair):
    variance = {"n_runs": 3, "within_one_bucket_accuracy": {"mean": 0.8467, "stdev": 0.0001},
                "urgent_recall": {"mean": 0.6571, "stdev": 0.02}}
    cand, base = pair({"value": 0.8467, "config_extra": {"acceptance_variance": variance}}, {"value": 0.8400})
    assert gate(cand, baseline_file=base).outcome == "regression"  # default: the weight > 0 metric
    result = gate(cand, baseline_file=base, variance_metric="urgent_recall")
    assert (result.outcome, result.band_floor) == ("within-band", 82.67)
    unknown = gate(cand, baseline_file=base, variance_metric="no_such_metric")
    assert unknown.outcome == "regression"
    assert any("no_such_metric" in w for w in _warnings(unknown))


def test_allow_regression_prints_the_documented_warning_and_exits_0(pair):
    cand, base = pair({"value": 0.65}, {"value": 0.40})
    result = gate(cand, baseline_file=base, allow_regression=True)
    assert (result.exit_code, result.outcome) == (0, "regression-allowed")
    assert result.annotations == ("::warning::Scorecard regression allowed by --allow-regression: "
                                  "v0.2.3=65.0 → v0.2.4=40.0",)
    warning_at = result.lines.index(result.annotations[0])
    assert result.lines[warning_at + 1].startswith(
        "WARNING: Regression override active. Prior version v0.2.3 scored 65.0; candidate v0.2.4 scored 40.0.")


def test_regression_without_allow_is_an_error_annotation(pair):
    cand, base = pair({"value": 0.65}, {"value": 0.40})
    result = gate(cand, baseline_file=base)
    assert result.exit_code == 1
    assert _errors(result)[0].startswith("::error::Scorecard regression: v0.2.3=65.0 → v0.2.4=40.0")


# --------------------------------------------------------------------------- stricter than the document (SPEC §13)
def test_baseline_file_that_does_not_exist_exits_1(write_card, tmp_path):
    card = write_card(tmp_path)
    result = gate(card, baseline_file=tmp_path / "nope" / "SCORECARD.md")
    assert (result.exit_code, result.outcome) == (1, "invalid-baseline")
    assert "--baseline-file not found" in _errors(result)[0]


@pytest.mark.parametrize(
    "edit",
    [
        {"set": {"aggregate.value": 84.68}},  # does not recompute from its components
        {"set": {"results.metrics": [{"name": "within_one_bucket_accuracy", "value": float("nan"), "weight": 1.0}]}},
        {"set": {"agent.version": "v0.2.3"}},  # not semver
        {"stdev": 0.0116, "set": {"recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev": -0.01}},
        {"stdev": 0.0116, "set": {"recipe.config.acceptance_variance.within_one_bucket_accuracy.stdev": math.inf}},
        {"set": {"results.test_cases_run": 221}},  # more than recipe.dataset.size
    ],
    ids=["aggregate-does-not-recompute", "nan-metric", "non-semver", "negative-stdev", "infinite-stdev",
         "more-cases-than-dataset"],
)
def test_invalid_baseline_exits_1(pair, edit):
    cand, base = pair(edit, {"value": 0.8467})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (1, "invalid-baseline")
    assert "Baseline scorecard unusable" in _errors(result)[0]


@pytest.mark.parametrize(
    "edit",
    [
        {"set": {"aggregate.value": 90.0}},
        {"set": {"results.metrics": [{"name": "within_one_bucket_accuracy", "value": 1.2, "weight": 1.0}],
                 "aggregate.components": [{"metric": "within_one_bucket_accuracy", "value": 1.2, "weight": 1.0}],
                 "aggregate.value": 100.0}},
        {"set": {"results.metrics": [{"name": "within_one_bucket_accuracy", "value": 0.8467, "weight": -1.0}]}},
        {"set": {"agent.version": "0.3"}},
        {"set": {"recipe.config.temperature": math.nan}},
    ],
    ids=["aggregate-does-not-recompute", "value-above-1", "negative-weight", "non-semver", "nan-anywhere"],
)
def test_stricter_checks_make_the_candidate_invalid(write_card, tmp_path, edit):
    result = gate(write_card(tmp_path, **edit))
    assert (result.exit_code, result.outcome) == (1, "invalid-candidate")


def test_bars_apply_on_every_path_including_a_comparison(pair):
    cand, base = pair({"value": 0.70}, {"value": 0.75})  # improved, yet below the 80 bar
    result = gate(cand, baseline_file=base, min_aggregate=80)
    assert (result.exit_code, result.outcome, result.failures) == (1, "bar-not-met", ("bar-not-met",))


def test_every_failure_is_reported_and_outcome_names_the_first(pair):
    cand, base = pair({"value": 0.90}, {"value": 0.70, "model": "other-model"})
    result = gate(cand, baseline_file=base, min_aggregate=80)
    assert result.failures == ("bar-not-met", "basis-mismatch", "regression")
    assert result.outcome == "bar-not-met"
    assert result.lines[-1] == "outcome: FAIL (bar-not-met, basis-mismatch, regression)"


def test_min_metric_generalises_the_floor_to_any_metric(write_card, tmp_path):
    card = write_card(tmp_path)
    assert gate(card, min_metrics={"category_accuracy": 0.45}).exit_code == 0
    assert gate(card, min_metrics={"category_accuracy": 0.46}).outcome == "bar-not-met"
    both = gate(card, min_metrics={"category_accuracy": 0.46, "urgent_vs_not_accuracy": 0.6})
    assert len(_errors(both)) == 2


def test_performance_rows_are_reported_never_gated(write_card, tmp_path):
    card = write_card(tmp_path, performance={"ttft_s": 1.5, "tokens_per_triage": 812.0})
    assert gate(card).exit_code == 0
    result = gate(card, min_metrics={"ttft_s": 0.5})  # not a metric: a floor on it cannot be met
    assert result.outcome == "bar-not-met" and "'ttft_s' is absent" in _errors(result)[0]


# --------------------------------------------------------------------------- basis comparability
@pytest.mark.parametrize(
    ("field", "baseline", "candidate"),
    [
        ("ctx_size", {"ctx_size": 8192}, {"ctx_size": 16384}),
        ("recipe.config.model", {"model": "Gemma-4-E4B-it-GGUF"}, {"model": "Qwen3-4B-GGUF"}),
        ("recipe.dataset.reference", {}, {"dataset_reference": "tests/fixtures/email/vendor_249.json"}),
        ("recipe.dataset.size", {}, {"dataset_size": 249}),
        ("recipe.config.limit", {"limit": 220}, {"limit": 100}),
    ],
)
def test_basis_difference_exits_1_naming_the_field_and_both_values(pair, field, baseline, candidate):
    cand, base = pair({"value": 0.8467, **baseline}, {"value": 0.8467, **candidate})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (1, "basis-mismatch")
    (error,) = _errors(result)
    assert field in error
    expected = {**{"ctx_size": None, "model": "Gemma-4-E4B-it-GGUF", "dataset_reference":
                   "tests/fixtures/email/ground_truth.json", "dataset_size": 220, "limit": 220}}
    key = next(iter(candidate))
    assert repr(candidate[key]) in error and repr(baseline.get(key, expected[key])) in error


def test_basis_field_absent_on_both_sides_is_equal_and_on_one_side_a_difference(pair):
    cand, base = pair({"value": 0.8467}, {"value": 0.8467})  # neither records ctx_size
    assert gate(cand, baseline_file=base).outcome == "equal"
    cand, base = pair({"value": 0.8467}, {"value": 0.8467, "ctx_size": 16384})
    result = gate(cand, baseline_file=base)
    assert result.outcome == "basis-mismatch"
    assert "ctx_size: candidate 16384, baseline (absent)" in _errors(result)[0]


def test_ctx_size_change_in_recipe_environment_is_a_basis_mismatch(pair):
    # The source project writes ctx_size in recipe.environment: a change there must not pass unseen.
    cand, base = pair({"value": 0.8467, "ctx_size": 32768, "ctx_size_at": "environment"},
                      {"value": 0.8467, "ctx_size": 16384, "ctx_size_at": "environment"})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (1, "basis-mismatch")
    (error,) = _errors(result)
    assert "ctx_size: candidate 16384, baseline 32768" in error


def test_ctx_size_recorded_in_config_on_one_side_and_environment_on_the_other_is_the_same_basis(pair):
    cand, base = pair({"value": 0.8467, "ctx_size": 16384, "ctx_size_at": "config"},
                      {"value": 0.8467, "ctx_size": 16384, "ctx_size_at": "environment"})
    assert gate(cand, baseline_file=base).outcome == "equal"


def test_candidate_whose_ctx_sizes_disagree_is_invalid(tmp_path, write_card):
    card = write_card(tmp_path, ctx_size=8192, set={"recipe.environment": {"ctx_size": 16384}})
    result = gate(card)
    assert (result.exit_code, result.outcome) == (1, "invalid-candidate")
    assert any("recipe.environment.ctx_size: 16384 disagrees with recipe.config.ctx_size 8192" in line
               for line in result.lines)


def test_null_acceptance_variance_baseline_uses_the_strict_comparison(pair):
    cand, base = pair({"value": 0.8467, "config_extra": {"acceptance_variance": None}}, {"value": 0.8466})
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome, result.band_floor) == (1, "regression", 84.67)
    cand, base = pair({"value": 0.8467, "config_extra": {"acceptance_variance": None}}, {"value": 0.8467})
    assert (gate(cand, baseline_file=base).exit_code, gate(cand, baseline_file=base).outcome) == (0, "equal")


def test_rebaseline_with_a_reason_accepts_a_basis_difference_as_a_warning(pair):
    cand, base = pair({"value": 0.8467, "dataset_size": 220}, {"value": 0.8500, "dataset_size": 249})
    result = gate(cand, baseline_file=base, rebaseline_reason="vendor-derived 249-email corpus (#2094)")
    assert (result.exit_code, result.outcome) == (0, "improved")
    (warning,) = _warnings(result)
    assert "recipe.dataset.size: candidate 249, baseline 220" in warning
    assert "vendor-derived 249-email corpus (#2094)" in warning


def test_rebaseline_does_not_waive_the_regression_check(pair):
    cand, base = pair({"value": 0.8467}, {"value": 0.80, "ctx_size": 16384})
    result = gate(cand, baseline_file=base, rebaseline_reason="ctx window pinned")
    assert (result.exit_code, result.outcome) == (1, "regression")
    allowed = gate(cand, baseline_file=base, rebaseline_reason="ctx window pinned", allow_regression=True)
    assert (allowed.exit_code, allowed.outcome) == (0, "regression-allowed")


def test_basis_differences_treats_true_and_1_as_different():
    assert basis_differences({"recipe": {"config": {"limit": True}}}, {"recipe": {"config": {"limit": 1}}})


# --------------------------------------------------------------------------- thresholds manifest
def _manifest(tmp_path: Path, data: dict, name: str = "thresholds.json") -> Path:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        import yaml

        path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("target", "bar"), [(0.80, 80.0), (80, 80.0), (80.0, 80.0), (0.55, 55.0), (55, 55.0)])
def test_acceptance_target_is_read_as_a_fraction_up_to_1_and_as_the_aggregate_scale_above(tmp_path, write_card,
                                                                                          target, bar):
    manifest = _manifest(tmp_path, {"acceptance_target": target})
    assert load_thresholds(manifest)["min_aggregate"] == bar
    # A card exactly at the bar meets it (0.55 * 100 is 55.00000000000001 in floating point).
    assert gate(write_card(tmp_path, value=bar / 100), thresholds=manifest).exit_code == 0
    assert gate(write_card(tmp_path, value=bar / 100 - 0.0001), thresholds=manifest).outcome == "bar-not-met"


def test_acceptance_target_of_1_is_the_100_percent_bar(tmp_path):
    assert load_thresholds(_manifest(tmp_path, {"acceptance_target": 1}))["min_aggregate"] == 100.0


def test_manifest_bars_are_enforced_when_acceptance_enforce_is_true(tmp_path, write_card):
    card = write_card(tmp_path)  # 84.67, urgent_recall 0.6571
    manifest = _manifest(tmp_path, {"acceptance_target": 0.85, "urgent_recall_floor": 0.9,
                                    "acceptance_enforce": True})
    result = gate(card, thresholds=manifest)
    assert (result.exit_code, result.failures) == (1, ("bar-not-met", "bar-not-met"))


def test_manifest_bars_only_warn_when_acceptance_enforce_is_false(tmp_path, write_card):
    card = write_card(tmp_path)
    manifest = _manifest(tmp_path, {"acceptance_target": 0.85, "urgent_recall_floor": 0.9,
                                    "acceptance_enforce": False})
    result = gate(card, thresholds=manifest)
    assert (result.exit_code, result.outcome) == (0, "first-adoption")
    assert len(_warnings(result)) == 2 and all("not enforced" in w for w in _warnings(result))


def test_acceptance_enforce_defaults_to_true(tmp_path, write_card):
    manifest = _manifest(tmp_path, {"acceptance_target": 0.85})
    assert load_thresholds(manifest)["enforce"] is True
    assert gate(write_card(tmp_path), thresholds=manifest).exit_code == 1


# --------------------------------------------------------------------------- expected_version
def test_expected_version_passes_only_the_card_of_that_release(tmp_path, write_card):
    card = write_card(tmp_path, version="0.2.4")
    passed = gate(card, expected_version="0.2.4")
    assert (passed.exit_code, passed.outcome) == (0, "first-adoption")
    assert "version: agent.version 0.2.4 is the expected release" in passed.messages and not _warnings(passed)
    stale = gate(card, expected_version="0.2.5")
    assert (stale.exit_code, stale.outcome) == (1, "version-mismatch")
    assert "is for v0.2.4, not the expected release v0.2.5" in _errors(stale)[0]
    assert gate(card, expected_version="0.2.4-rc.1").outcome == "version-mismatch"  # exact, not "close enough"


def test_expected_version_names_the_release_a_carried_forward_card_was_measured_on(tmp_path, write_card):
    card = write_card(tmp_path, version="0.2.5", inherited_from="0.2.4", measured_version="0.2.3")
    result = gate(card, expected_version="0.2.5")
    assert (result.exit_code, result.outcome) == (0, "first-adoption")
    (warning,) = _warnings(result)
    assert "v0.2.5 publishes results measured on v0.2.3" in warning and "carried forward from v0.2.4" in warning


def test_expected_version_names_the_source_of_a_card_carried_without_measured_version(tmp_path, write_card):
    # The source project's carry-forward records inherited_from only.
    card = write_card(tmp_path, version="0.2.4", inherited_from="0.2.3")
    result = gate(card, expected_version="0.2.4")
    assert result.exit_code == 0
    (warning,) = _warnings(result)
    assert "carried forward from v0.2.3" in warning and "measured on v0.2.3 or an earlier release" in warning


@pytest.mark.parametrize("bad", ["v0.2.4", "0.2", "", 24])
def test_expected_version_that_is_not_semver_is_a_bad_argument(tmp_path, write_card, bad):
    with pytest.raises(ValueError, match="expected_version"):
        gate(write_card(tmp_path), expected_version=bad)


# --------------------------------------------------------------------------- require_ctx_match
def test_require_ctx_match_fails_a_candidate_without_ctx_size(tmp_path, write_card):
    card = write_card(tmp_path)  # records no ctx_size anywhere
    result = gate(card, require_ctx_match=True)
    assert (result.exit_code, result.outcome) == (1, "ctx-size-missing")
    assert "records no ctx_size" in _errors(result)[0] and "--require-ctx-match" in _errors(result)[0]
    assert gate(card).exit_code == 0  # not required: a first adoption


@pytest.mark.parametrize("where", ["environment", "config"])
def test_require_ctx_match_passes_a_candidate_with_ctx_size_in_either_place(tmp_path, write_card, where):
    card = write_card(tmp_path, ctx_size=16384, ctx_size_at=where)
    result = gate(card, require_ctx_match=True)
    assert (result.exit_code, result.outcome) == (0, "first-adoption")
    assert "ctx_size: 16384 recorded (--require-ctx-match)" in result.messages


def test_require_ctx_match_true_in_the_manifest_fails_a_candidate_without_ctx_size(tmp_path, write_card):
    card = write_card(tmp_path)
    # Enforced whatever acceptance_enforce says: the source project keys it off require_ctx_match alone.
    for enforce in (True, False):
        manifest = _manifest(tmp_path, {"require_ctx_match": True, "acceptance_enforce": enforce})
        assert load_thresholds(manifest)["require_ctx_match"] is True
        result = gate(card, thresholds=manifest)
        assert (result.exit_code, result.outcome) == (1, "ctx-size-missing")
        assert "require_ctx_match" in _errors(result)[0]
    off = _manifest(tmp_path, {"require_ctx_match": False}, "off.json")
    assert gate(card, thresholds=off).exit_code == 0
    stamped = write_card(tmp_path / "stamped", ctx_size=16384, ctx_size_at="environment")
    assert gate(stamped, thresholds=manifest).exit_code == 0


def test_explicit_bars_override_the_manifest_and_are_always_enforced(tmp_path, write_card):
    card = write_card(tmp_path)
    manifest = _manifest(tmp_path, {"acceptance_target": 0.85, "urgent_recall_floor": 0.9,
                                    "acceptance_enforce": True})
    assert gate(card, thresholds=manifest, min_aggregate=80, min_metrics={"urgent_recall": 0.6}).exit_code == 0
    relaxed = _manifest(tmp_path, {"acceptance_target": 0.5, "acceptance_enforce": False}, "relaxed.json")
    assert gate(card, thresholds=relaxed, min_aggregate=90).outcome == "bar-not-met"


def test_manifest_comment_keys_are_ignored_and_yaml_is_read(tmp_path, write_card):
    manifest = _manifest(tmp_path, {"_comment": "data, not code", "_acceptance_comment": {"nested": 1},
                                    "acceptance_target": 0.8, "urgent_recall_floor": 0.65,
                                    "acceptance_enforce": True}, "thresholds.yml")
    loaded = load_thresholds(manifest)
    assert (loaded["min_aggregate"], loaded["min_metrics"], loaded["enforce"]) == (80.0, {"urgent_recall": 0.65}, True)
    assert gate(write_card(tmp_path), thresholds=manifest).exit_code == 0


def test_source_project_manifest_shape_is_accepted(tmp_path, write_card):
    # The source project's quality_gate_thresholds.json shares the file with its per-run FP/FN harness.
    manifest = _manifest(tmp_path, {"_comment": "...", "fp_max": 0.05, "fn_max": 0.02, "axis": "needs_attention",
                                    "enforce": False, "acceptance_target": 0.80, "urgent_recall_floor": 0.90,
                                    "acceptance_enforce": True, "require_ctx_match": False})
    result = gate(write_card(tmp_path), thresholds=manifest)
    assert result.failures == ("bar-not-met",)  # urgent_recall 0.6571 < 0.90
    assert "urgent_recall_floor" in _errors(result)[0]


def test_thresholds_mapping_is_checked_like_the_file(write_card, tmp_path):
    card = write_card(tmp_path)
    assert gate(card, thresholds={"acceptance_target": 0.85, "_why": "x"}).outcome == "bar-not-met"
    with pytest.raises(PolicyError, match="unknown key 'min_aggregate'"):  # never silently ignored
        gate(card, thresholds={"min_aggregate": 90})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"acceptance_enforced": True}, "unknown key 'acceptance_enforced'"),
        ({"acceptance_target": 180}, "acceptance_target"),
        ({"acceptance_target": -0.1}, "acceptance_target"),
        ({"acceptance_target": "80"}, "acceptance_target"),
        ({"acceptance_target": True}, "acceptance_target"),
        ({"urgent_recall_floor": 1.5}, "urgent_recall_floor"),
        ({"acceptance_enforce": "yes please"}, "acceptance_enforce"),
        ({"require_ctx_match": "yes"}, "require_ctx_match"),
        ([0.8], "mapping"),
    ],
)
def test_bad_thresholds_manifest_is_a_policy_error(tmp_path, data, message):
    manifest = _manifest(tmp_path, data)
    with pytest.raises(PolicyError, match=message) as info:
        load_thresholds(manifest)
    assert str(manifest) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.json", None, "not found"),
        ("thresholds.txt", "{}", "must be .json"),
        ("nan.json", '{"acceptance_target": NaN}', "NaN"),
        ("dup.json", '{"acceptance_target": 0.8, "acceptance_target": 0.9}', "duplicate"),
        ("bad.yml", "acceptance_target: [", "invalid YAML"),
        ("empty.yml", "", "empty document"),
    ],
)
def test_unreadable_thresholds_manifest_is_a_policy_error(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(PolicyError, match=message):
        load_thresholds(path)


# --------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    "kwargs",
    [
        {"baseline_file": "a.md", "baseline_ref": "v1"},
        {"regression_k": -1},
        {"regression_k": math.nan},
        {"min_aggregate": 101},
        {"min_metrics": {"urgent_recall": 1.5}},
        {"rebaseline_reason": "  "},
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(write_card, tmp_path, kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs)).split("_")[0]):
        gate(write_card(tmp_path), **kwargs)


# --------------------------------------------------------------------------- round trip and the seed's card
def test_round_trip_render_write_parse_validate_gate_exits_0(tmp_path, make_payload):
    from scorekit.release import parse_scorecard, validate_scorecard, write_scorecard

    payload = make_payload(version="0.2.4", stdev=0.0116)
    path = write_scorecard(payload, tmp_path / "SCORECARD.md")
    doc = parse_scorecard(path)
    assert validate_scorecard(doc) == []
    assert doc.aggregate_value == payload.aggregate_value == 84.67
    result = gate(path, baseline_file=path, min_aggregate=80, min_metrics={"urgent_recall": 0.65})
    assert (result.exit_code, result.outcome) == (0, "equal")


def test_seed_example_card_gates_as_a_first_adoption_with_the_80_percent_bar():
    result = gate(SEED_EXAMPLE, min_aggregate=80, min_metrics={"urgent_recall": 0.65})
    assert (result.exit_code, result.outcome, result.candidate_score) == (0, "first-adoption", 84.67)


# --------------------------------------------------------------------------- properties
_values = st.integers(min_value=0, max_value=10_000).map(lambda n: n / 10_000)
_stdevs = st.one_of(st.none(), st.integers(min_value=0, max_value=500).map(lambda n: n / 10_000))
_ks = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])


def _gate_values(baseline: float, candidate: float, stdev: float | None, k: float, bar: float | None,
                 write_card) -> GateResult:
    with tempfile.TemporaryDirectory() as tmp:
        base = write_card(tmp, filename="prev/SCORECARD.md", version="0.2.3", value=baseline, stdev=stdev)
        cand = write_card(tmp, filename="SCORECARD.md", version="0.2.4", value=candidate)
        return gate(cand, baseline_file=base, regression_k=k, min_aggregate=bar)


# write_card is a pure function returned by a fixture: safe to reuse across examples.
_reuse_fixture = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@_reuse_fixture
@given(value=_values, stdev=_stdevs, k=_ks)
def test_gating_a_card_against_itself_always_passes_with_an_equal_score(value, stdev, k, write_card):
    with tempfile.TemporaryDirectory() as tmp:
        card = write_card(tmp, value=value, stdev=stdev)
        result = gate(card, baseline_file=card, regression_k=k)
    assert (result.exit_code, result.outcome) == (0, "equal")


@_reuse_fixture
@given(baseline=_values, higher=_values, lower=_values, stdev=_stdevs, k=_ks,
       bar=st.one_of(st.none(), st.integers(min_value=0, max_value=100).map(float)))
def test_lowering_the_candidate_aggregate_never_turns_a_fail_into_a_pass(baseline, higher, lower, stdev, k, bar,
                                                                        write_card):
    higher, lower = max(higher, lower), min(higher, lower)
    high = _gate_values(baseline, higher, stdev, k, bar, write_card)
    low = _gate_values(baseline, lower, stdev, k, bar, write_card)
    if high.exit_code == 1:
        assert low.exit_code == 1
    if low.exit_code == 0:
        assert high.exit_code == 0
