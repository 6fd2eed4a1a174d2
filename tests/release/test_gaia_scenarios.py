"""The seed project's own release-card scenarios, re-expressed as scorekit tests (issue 11, SPEC §13).

Source of the scenarios (read, not copied): amd/gaia ``tests/unit/eval/test_scorecard_gate.py``
and ``tests/unit/eval/test_release_scorecard.py`` (newest stored versions), with the facts
taken from the code they exercise — ``src/gaia/eval/scorecard_gate.py``,
``src/gaia/eval/release_scorecard.py`` and the email adapter
``hub/agents/email/python/packaging/gen_scorecard.py`` — and from the shape of the real
``hub/agents/email/npm/SCORECARD.md`` (v0.5.0). Facts that carry over: ``ctx_size`` lives
in ``recipe.environment``; a single-run card has ``acceptance_variance: null``; the
thresholds manifest has ``require_ctx_match``; secondaries are weight-0 metrics listed in
``aggregate.components``; results may carry an additive ``capability_quality`` block.

Every scenario below agrees with scorekit except these differences (each deliberate; the
test that pins scorekit's side is named):

 1. Bad command-line arguments (no ``--scorecard``; both ``--baseline-file`` and
    ``--baseline-ref``) exit 2 in scorekit, 1 there. SPEC §14: a command that could not
    run is exit 2; §13 keeps exit 1 for what the evidence says (missing/invalid cards).
    -> test_bad_gate_arguments_are_a_usage_error_exit_2
 2. A context-size change is accepted with ``--rebaseline --reason TEXT`` (a reason is
    required and reported), not ``--allow-ctx-mismatch``; and the regression check still
    runs afterwards instead of being skipped (SPEC §13: the basis difference is waived,
    the evidence is still compared; combine with ``--allow-regression`` if intended).
    -> test_ctx_mismatch_acknowledged_still_checks_regression
 3. A baseline without ``ctx_size`` against a candidate with one (their one-time
    "transitional" pass) and the reverse (candidate lost its stamp) exit 1 in scorekit,
    0 there: absent on one side is a basis difference (SPEC §13 basis; §1 fail closed).
    -> test_ctx_recorded_on_one_side_only_is_a_basis_difference
 4. The basis also covers ``model``, ``recipe.dataset.reference``/``size`` and
    ``limit``; there a model or limit change between releases passes unseen
    (SPEC §13 basis; the seed warns scores are comparable only at a consistent limit).
    -> test_model_or_limit_change_is_a_basis_difference
 5. Stricter validity (SPEC §13 deliberate differences): non-semver versions, metric
    values outside [0, 1], NaN/inf anywhere, negative or all-zero weights,
    ``test_cases_run > recipe.dataset.size`` and an aggregate that does not recompute
    from its components make a card invalid (exit 1); there only the presence of most
    fields and a finite ``aggregate.value`` are checked. scorekit also requires the
    document's full table (``recipe.dataset.description``, ``aggregate.components``),
    which that validator does not check, and a positive-integer ``ctx_size`` that agrees
    between ``recipe.environment`` and ``recipe.config`` (their gate reads only
    ``recipe.environment`` and takes a non-number there as no stamp).
    -> test_cards_their_validator_accepts_but_the_document_forbids_are_invalid
 6. ``--baseline-ref`` naming a ref that does not exist is exit 1 (there: git show
    fails and it is treated as a first adoption, exit 0). An existing ref without the
    file is a first adoption in both (SPEC §13). Covered in test_gate_cli.py.
 7. carry-forward: the new patch must be greater (there only major.minor is compared,
    so 0.2.3 -> 0.2.3 or 0.2.2 passes); ``measured_version`` is added beside
    ``inherited_from`` (SPEC §13). Prerelease/build versions are refused by both.
    -> test_carry_forward_needs_a_greater_patch
 8. Python API shapes differ (scorekit's names are fixed by SPEC §13/§14):
    ``compute_aggregate`` returns the value (there ``(components, value)``); a card's
    text is parsed by ``parse_scorecard_text`` and a file by ``parse_scorecard`` (there
    one function takes both); ``capability_quality`` is kept verbatim as an additive
    block (``ResultPayload.extra``) rather than a payload field (its body section is
    rendered as theirs is: test_capability_quality_section_reads_as_theirs).
10. Out-of-range arguments (``--min-aggregate`` outside [0, 100], a floor outside [0, 1],
    a negative ``--regression-k``) are usage errors (exit 2); there they are used as
    given. The noise band's stdev is that of the metric with weight > 0 (or
    ``--variance-metric NAME``), there always ``within_one_bucket_accuracy``'s — the same
    for that project's cards, whose weighted metric it is (SPEC §13: metric names are
    parameters). -> test_out_of_range_gate_arguments_are_usage_errors
 9. Body prose differs (the front matter is the contract), while the headings, the
    breakdown's and capability-quality tables' columns and the reproduction pointer are
    theirs (``## Category breakdown``, with "(pooled across all N runs)" when ``n_runs``
    > 1; ``## Capability quality`` with ``| Capability | Metric | Value |`` at four
    decimals; without a command, their sentence pointing at the eval-scorecard docs and
    skill): the recipe is a list, not a table; metrics are a table with an "In
    aggregate" column; the worked recomputation shows each sum; the sections' order is
    variance, breakdown, performance, capability quality, environment, reproduction;
    and the italic notes under the pooled breakdown, performance and capability quality
    are scorekit's own words (theirs name the email agent's files). Table cells are
    escaped by scorekit's Markdown rules (SPEC §20), theirs only for ``|`` and line
    breaks. -> test_body_headings_and_reproduction_pointer_read_as_theirs

Not carried over (they test that project's files, not card semantics): its release
workflow YAML, the email adapter reading benchmark/quality JSON, its drafting-report
script, and its Lemonade/git probes.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scorekit import cli
from scorekit.release import (
    REQUIRED_FIELDS,
    Metric,
    ResultPayload,
    carry_forward,
    compute_aggregate,
    gate,
    load_scorecard,
    parse_scorecard,
    parse_scorecard_text,
    render_scorecard,
    validate_scorecard,
    write_scorecard,
)
from scorekit.release._basis import ABSENT, ctx_size_of


# --------------------------------------------------------------------------- card builders (their shapes)
def _unit_payload(version: str = "1.0.0", accuracy: float = 0.5) -> ResultPayload:
    """Their minimal unit card: one weighted metric, 10 of 100 cases run, config with a model only."""
    return ResultPayload(
        "test-agent", version, "test/fixture", "test dataset", 100, "unit test", {"model": "test"}, 10,
        [{"name": "category_accuracy", "value": accuracy, "weight": 1.0}],
        aggregate_name="weighted_accuracy", generated_at="2026-07-16T07:54:50.556072+00:00",
    )


def _unit_card(path: Path, version: str, accuracy: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_scorecard(_unit_payload(version, accuracy)), encoding="utf-8")
    return path


def _acceptance_card(path: Path, *, version: str, within_one: float, urgent_recall: float = 0.85,
                     stdev: float | None = None, environment: dict | None = None) -> Path:
    """Their acceptance card: within-one gated, urgent_recall and category_accuracy weight 0, n_runs 3."""
    config: dict = {"model": "test", "n_runs": 3}
    if stdev is not None:
        config["acceptance_variance"] = {"n_runs": 3,
                                         "within_one_bucket_accuracy": {"n": 3, "mean": within_one, "stdev": stdev}}
    payload = ResultPayload(
        "test-agent", version, "test/fixture", "test dataset", 100, "unit test", config, 100,
        [{"name": "within_one_bucket_accuracy", "value": within_one, "weight": 1.0},
         {"name": "urgent_recall", "value": urgent_recall, "weight": 0.0},
         {"name": "category_accuracy", "value": 0.42, "weight": 0.0}],
        environment=environment, generated_at="2026-07-16T07:54:50+00:00",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_scorecard(payload), encoding="utf-8")
    return path


# The real email card's front matter, shape for shape (our own words and numbers): environment
# with ctx_size, a five-metric acceptance_variance block, every secondary listed as a weight-0
# component, performance with float counts, breakdown, capability_quality, a Windows-style
# ground_truth path and a timestamp with microseconds.
REAL_SHAPE_FRONT_MATTER = """\
schema_version: 1
agent: {name: Mail Sorter, version: 0.5.0}
recipe:
  dataset:
    reference: tests/fixtures/mail/labels.json
    description: 'Labelled synthetic mailbox: urgent / needs_response / fyi / promotional / personal'
    size: 299
  methodology: 'benchmark over the labelled mailbox; within-one-bucket acceptance, averaged over 3 run(s)'
  config:
    harness: mail benchmark
    model: Small-4B-GGUF
    corpus: tests/fixtures/mail/inbox.mbox
    ground_truth: tests\\fixtures\\mail\\labels.json
    limit: 250
    n_runs: 3
    acceptance_variance:
      n_runs: 3
      within_one_bucket_accuracy: {n: 3, mean: 0.8453, stdev: 0.0023, min: 0.844, max: 0.848, cv_pct: 0.27,
                                   ci95_half_width: 0.0026, ci95_low: 0.8427, ci95_high: 0.8479}
      urgent_vs_not_accuracy: {n: 3, mean: 0.7987, stdev: 0.0046}
      urgent_recall: {n: 3, mean: 1.0, stdev: 0.0}
      personal_recall: {n: 3, mean: 0.3636, stdev: 0.0}
      category_accuracy: {n: 3, mean: 0.7813, stdev: 0.0023}
  environment: {gaia_commit: eca42a0e, lemonade_version: 10.10.0, model: Small-4B-GGUF, ctx_size: 16384,
                hardware: AMD Ryzen AI MAX+ (Strix Halo)}
results:
  test_cases_run: 250
  metrics:
  - {name: within_one_bucket_accuracy, value: 0.8453, weight: 1.0}
  - {name: urgent_vs_not_accuracy, value: 0.7987, weight: 0.0}
  - {name: urgent_recall, value: 1.0, weight: 0.0}
  - {name: personal_recall, value: 0.3636, weight: 0.0}
  - {name: category_accuracy, value: 0.7813, weight: 0.0}
  breakdown:
    per_category:
    - {category: fyi, total: 162, correct: 124, accuracy: 0.7654}
    - {category: personal, total: 99, correct: 36, accuracy: 0.3636}
    top_confusions:
    - {expected: personal, predicted: needs_response, count: 44}
  performance: {ttft_s: 24.673, throughput_tps: 23.767, total_input_tokens: 316983.667,
                llm_classified_count: 250.0, emails_per_run: 250}
  capability_quality:
    spam: {precision: 0.1078, recall: 0.3333, f1: 0.1629}
aggregate:
  name: weighted_accuracy
  formula: round(100 * sum(weight_i * value_i) / sum(weight_i), 2)
  components:
  - {metric: within_one_bucket_accuracy, value: 0.8453, weight: 1.0}
  - {metric: urgent_vs_not_accuracy, value: 0.7987, weight: 0.0}
  - {metric: urgent_recall, value: 1.0, weight: 0.0}
  - {metric: personal_recall, value: 0.3636, weight: 0.0}
  - {metric: category_accuracy, value: 0.7813, weight: 0.0}
  value: 84.53
generated_at: '2026-07-16T07:54:50.556072+00:00'
inherited_from: null
"""

REAL_SHAPE_BODY = """
# Mail Sorter — Eval Scorecard v0.5.0

**Aggregate score: 84.53** (out of 100)

## Reproduction

Run the following commands from the repository root:

```sh
python tests/fixtures/mail/make_inbox.py
mail-bench --model Small-4B-GGUF --limit 250 --output-dir /tmp/mail-eval
```

## Environment

| Field | Value |
|-------|-------|
| ctx_size | 16384 |
"""


def _real_shape(tmp_path: Path, *, edit=None, name: str = "SCORECARD.md") -> Path:
    front = yaml.safe_load(REAL_SHAPE_FRONT_MATTER)
    if edit is not None:
        edit(front)
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n" + REAL_SHAPE_BODY,
                    encoding="utf-8")
    return path


@pytest.fixture
def run_gate(capsys):
    def run(*argv) -> tuple[int, str]:
        try:
            code = cli.main(["gate", *(str(a) for a in argv)])
        except SystemExit as exc:
            code = exc.code
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


# =========================================================================== test_scorecard_gate.py
def test_missing_candidate_card_exits_1(tmp_path, run_gate):
    assert run_gate("--scorecard", tmp_path / "SCORECARD.md")[0] == 1


def test_strict_regression_against_a_baseline_file_exits_1(tmp_path, run_gate):
    base = _unit_card(tmp_path / "baseline" / "SCORECARD.md", "0.2.3", 0.8)
    cand = _unit_card(tmp_path / "candidate" / "SCORECARD.md", "0.2.4", 0.5)
    assert run_gate("--scorecard", cand, "--baseline-file", base)[0] == 1


def test_no_baseline_is_a_presence_only_first_adoption_exit_0(tmp_path, run_gate):
    assert run_gate("--scorecard", _unit_card(tmp_path / "SCORECARD.md", "1.0.0", 0.6))[0] == 0


@pytest.mark.parametrize(("before", "after"), [(0.5, 0.5), (0.5, 0.8)], ids=["equal", "improved"])
def test_equal_or_improved_score_exits_0(tmp_path, run_gate, before, after):
    base = _unit_card(tmp_path / "baseline" / "SCORECARD.md", "0.2.3", before)
    cand = _unit_card(tmp_path / "candidate" / "SCORECARD.md", "0.2.4", after)
    assert run_gate("--scorecard", cand, "--baseline-file", base)[0] == 0


def test_allow_regression_exits_0_with_a_warning_annotation(tmp_path, run_gate):
    base = _unit_card(tmp_path / "baseline" / "SCORECARD.md", "0.2.3", 0.8)
    cand = _unit_card(tmp_path / "candidate" / "SCORECARD.md", "0.2.4", 0.5)
    code, out = run_gate("--scorecard", cand, "--baseline-file", base, "--allow-regression")
    assert code == 0 and "::warning::Scorecard regression allowed by --allow-regression: v0.2.3=80.0 → v0.2.4=50.0" \
        in out


def test_baseline_file_that_does_not_exist_exits_1(tmp_path, run_gate):
    cand = _unit_card(tmp_path / "SCORECARD.md", "1.0.0", 0.6)
    assert run_gate("--scorecard", cand, "--baseline-file", tmp_path / "nonexistent-SCORECARD.md")[0] == 1


@pytest.mark.parametrize(
    "text", ["this is not valid yaml front matter at all\ngarbage\n", ""], ids=["corrupt", "empty"]
)
def test_corrupt_or_empty_candidate_exits_1(tmp_path, run_gate, text):
    path = tmp_path / "SCORECARD.md"
    path.write_text(text, encoding="utf-8")
    assert run_gate("--scorecard", path)[0] == 1


@pytest.mark.parametrize(
    "text", ["this is not valid yaml front matter at all\ngarbage\n", ""], ids=["corrupt", "empty"]
)
def test_corrupt_or_empty_baseline_exits_1(tmp_path, run_gate, text):
    base = tmp_path / "baseline" / "SCORECARD.md"
    base.parent.mkdir()
    base.write_text(text, encoding="utf-8")
    cand = _unit_card(tmp_path / "candidate" / "SCORECARD.md", "0.2.4", 0.9)
    assert run_gate("--scorecard", cand, "--baseline-file", base)[0] == 1


def test_bad_gate_arguments_are_a_usage_error_exit_2(tmp_path, run_gate):
    # Difference 1: that gate returns 1 for these.
    cand = _unit_card(tmp_path / "SCORECARD.md", "1.0.0", 0.6)
    assert run_gate()[0] == 2
    code, out = run_gate("--scorecard", cand, "--baseline-file", cand, "--baseline-ref", "v1.0.0")
    assert code == 2 and "not allowed with argument" in out


@pytest.mark.parametrize("argv", [("--min-aggregate", "180"), ("--min-urgent-recall", "1.5"),
                                  ("--regression-k", "-1")])
def test_out_of_range_gate_arguments_are_usage_errors(tmp_path, run_gate, argv):
    # Difference 10.
    card = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.0", within_one=0.85)
    assert run_gate("--scorecard", card, *argv)[0] == 2


@pytest.mark.parametrize(("within_one", "bar", "code"), [(0.75, "80", 1), (0.83, "80", 0), (0.10, None, 0)],
                         ids=["below-bar", "at-or-above-bar", "no-bar-report-mode"])
def test_absolute_acceptance_bar_applies_on_first_adoption(tmp_path, run_gate, within_one, bar, code):
    card = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.0", within_one=within_one)
    assert run_gate("--scorecard", card, *(["--min-aggregate", bar] if bar else []))[0] == code


@pytest.mark.parametrize(("within_one", "recall", "code"), [(0.90, 0.50, 1), (0.83, 0.78, 0)],
                         ids=["buried-urgent-mail", "above-floor"])
def test_urgent_recall_floor_beside_the_bar(tmp_path, run_gate, within_one, recall, code):
    card = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.0", within_one=within_one, urgent_recall=recall)
    assert run_gate("--scorecard", card, "--min-aggregate", "80", "--min-urgent-recall", "0.70")[0] == code


def test_urgent_recall_floor_on_a_card_without_the_metric_fails_loud(tmp_path, run_gate):
    card = _unit_card(tmp_path / "SCORECARD.md", "0.3.0", 0.9)  # category_accuracy only
    code, out = run_gate("--scorecard", card, "--min-urgent-recall", "0.70")
    assert code == 1 and "'urgent_recall' is absent" in out


@pytest.mark.parametrize(
    ("base_value", "base_stdev", "cand_value", "code"),
    [(0.84, 0.02, 0.83, 0), (0.84, 0.02, 0.80, 1), (0.84, None, 0.83, 1), (0.84, 0.02, 0.84, 0)],
    ids=["dip-within-band", "dip-beyond-band", "no-stdev-strict", "equal-carry-forward"],
)
def test_variance_aware_regression_band(tmp_path, run_gate, base_value, base_stdev, cand_value, code):
    base = _acceptance_card(tmp_path / "base.md", version="0.3.0", within_one=base_value, stdev=base_stdev)
    cand = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.1", within_one=cand_value, stdev=base_stdev)
    assert run_gate("--scorecard", cand, "--baseline-file", base)[0] == code


def _ctx_pair(folder: Path, base_ctx: int | None, cand_ctx: int | None, cand_value: float = 0.85):
    """(candidate, baseline) acceptance cards: baseline v0.3.0 at 0.84, candidate v0.3.1; ctx_size None = unstamped."""
    def stamp(ctx):
        return None if ctx is None else {"ctx_size": ctx}

    base = _acceptance_card(folder / "base.md", version="0.3.0", within_one=0.84, environment=stamp(base_ctx))
    cand = _acceptance_card(folder / "SCORECARD.md", version="0.3.1", within_one=cand_value,
                            environment=stamp(cand_ctx))
    return cand, base


def test_same_ctx_size_on_both_sides_runs_the_normal_comparison(tmp_path, run_gate):
    cand, base = _ctx_pair(tmp_path, 16384, 16384)
    code, out = run_gate("--scorecard", cand, "--baseline-file", base)
    assert code == 0 and "outcome: PASS (improved)" in out


def test_ctx_mismatch_without_acknowledgement_exits_1(tmp_path, run_gate):
    cand, base = _ctx_pair(tmp_path, 32768, 16384)
    code, out = run_gate("--scorecard", cand, "--baseline-file", base)
    assert code == 1 and "ctx_size: candidate 16384, baseline 32768" in out


def test_ctx_mismatch_acknowledged_still_checks_regression(tmp_path, run_gate):
    # Difference 2: acknowledged with --rebaseline --reason (their --allow-ctx-mismatch), regression still checked.
    better, base = _ctx_pair(tmp_path, 32768, 16384)
    ack = ("--rebaseline", "--reason", "ctx window pinned to 16384")
    code, out = run_gate("--scorecard", better, "--baseline-file", base, *ack)
    assert code == 0 and "::warning::Rebaseline: ctx_size: candidate 16384, baseline 32768" in out
    # The absolute bar still applies to an acknowledged mismatch (as there).
    assert run_gate("--scorecard", better, "--baseline-file", base, *ack, "--min-aggregate", "95")[0] == 1
    worse, _ = _ctx_pair(tmp_path / "worse", 32768, 16384, cand_value=0.60)
    assert run_gate("--scorecard", worse, "--baseline-file", base, *ack)[0] == 1  # there: 0 (comparison skipped)
    assert run_gate("--scorecard", worse, "--baseline-file", base, *ack, "--allow-regression")[0] == 0


def test_ctx_recorded_on_one_side_only_is_a_basis_difference(tmp_path, run_gate):
    # Difference 3: their transitional pass (baseline unstamped) and its reverse are exit 1 here.
    stamped, unstamped = _ctx_pair(tmp_path, None, 16384, cand_value=0.60)
    code, out = run_gate("--scorecard", stamped, "--baseline-file", unstamped)
    assert code == 1 and "ctx_size: candidate 16384, baseline (absent)" in out
    reverse, stamped_base = _ctx_pair(tmp_path / "rev", 16384, None)
    code, out = run_gate("--scorecard", reverse, "--baseline-file", stamped_base)
    assert code == 1 and "ctx_size: candidate (absent), baseline 16384" in out


def test_require_ctx_match_fails_a_candidate_without_a_ctx_stamp(tmp_path, run_gate):
    cand = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.1", within_one=0.85)
    assert run_gate("--scorecard", cand, "--require-ctx-match")[0] == 1
    stamped = _acceptance_card(tmp_path / "s" / "SCORECARD.md", version="0.3.1", within_one=0.85,
                               environment={"ctx_size": 16384})
    assert run_gate("--scorecard", stamped, "--require-ctx-match")[0] == 0


def test_their_thresholds_manifest_drives_the_gate(tmp_path, run_gate):
    # The manifest's keys as they ship it: FP/FN harness keys, bars, enforce switches, comments.
    import json

    manifest = tmp_path / "quality_gate_thresholds.json"
    data = {"_comment": "ours", "fp_max": 0.05, "fn_max": 0.02, "axis": "needs_attention", "enforce": False,
            "acceptance_target": 0.80, "urgent_recall_floor": 0.90, "acceptance_enforce": True,
            "require_ctx_match": False}
    manifest.write_text(json.dumps(data), encoding="utf-8")
    card = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.1", within_one=0.85, urgent_recall=0.95)
    assert run_gate("--scorecard", card, "--thresholds", manifest)[0] == 0
    manifest.write_text(json.dumps({**data, "require_ctx_match": True}), encoding="utf-8")  # flipped once stamped
    assert run_gate("--scorecard", card, "--thresholds", manifest)[0] == 1


@pytest.mark.parametrize(
    ("front", "expected"),
    [({"recipe": {"environment": {"ctx_size": 16384}}}, 16384),
     ({"recipe": {"config": {"model": "test"}}}, ABSENT),  # a card from before the stamp
     ({"recipe": {"environment": {"gpu": "stx-halo"}}}, ABSENT),  # environment without the key
     ({"recipe": {"environment": None}}, ABSENT)],
    ids=["stamped", "legacy-unstamped", "environment-without-ctx", "null-environment"],
)
def test_ctx_stamp_is_read_from_recipe_environment(front, expected):
    found = ctx_size_of(front)
    assert found is ABSENT if expected is ABSENT else found == expected


def test_ctx_stamp_of_a_written_card(tmp_path):
    stamped = _acceptance_card(tmp_path / "SCORECARD.md", version="0.3.1", within_one=0.85,
                               environment={"ctx_size": 16384})
    assert ctx_size_of(parse_scorecard(stamped).front_matter) == 16384
    legacy = _acceptance_card(tmp_path / "legacy" / "SCORECARD.md", version="0.3.0", within_one=0.834)
    assert ctx_size_of(parse_scorecard(legacy).front_matter) is ABSENT


def test_model_or_limit_change_is_a_basis_difference(tmp_path):
    # Difference 4: there neither is compared.
    base = tmp_path / "base.md"
    base.write_text(render_scorecard(_unit_payload("0.2.3", 0.5).replace(config={"model": "test", "limit": 20})),
                    encoding="utf-8")
    for config in ({"model": "other", "limit": 20}, {"model": "test", "limit": 12}):
        cand = tmp_path / "SCORECARD.md"
        cand.write_text(render_scorecard(_unit_payload("0.2.4", 0.5).replace(config=config)), encoding="utf-8")
        assert gate(cand, baseline_file=base).outcome == "basis-mismatch"


# =========================================================================== the real card's shape
def test_real_shaped_card_validates_and_gates_against_itself(tmp_path):
    card = _real_shape(tmp_path)
    doc = load_scorecard(card)
    assert (doc.version, doc.aggregate_value, ctx_size_of(doc.front_matter)) == ("0.5.0", 84.53, 16384)
    assert doc.reproduction_command.startswith("python tests/fixtures/mail/make_inbox.py")
    result = gate(card, baseline_file=card, min_aggregate=80, min_metrics={"urgent_recall": 0.90},
                  require_ctx_match=True, expected_version="0.5.0")
    assert (result.exit_code, result.outcome) == (0, "equal")
    assert "band: regression below 84.3 = 84.53 - 1 x 100 x stdev 0.0023 (the weighted metric)" in result.messages


def test_real_shaped_single_run_card_with_null_variance_is_valid(tmp_path):
    def single_run(front):
        front["recipe"]["config"]["acceptance_variance"] = None
        front["recipe"]["config"]["n_runs"] = 1

    card = _real_shape(tmp_path, edit=single_run)
    assert gate(card).exit_code == 0
    base = _real_shape(tmp_path, edit=single_run, name="prev/SCORECARD.md")
    assert gate(card, baseline_file=base).band_floor == 84.53  # no recorded stdev: strict comparison


def test_real_shaped_card_carries_forward_verbatim_with_its_additive_blocks(tmp_path):
    card = _real_shape(tmp_path)
    before = parse_scorecard(card).front_matter
    payload = carry_forward(card, "0.5.1")
    write_scorecard(payload, card)
    after = load_scorecard(card)
    for key in ("recipe", "results", "aggregate"):
        assert after.front_matter[key] == before[key], key  # environment, breakdown, capability_quality included
    assert (after.version, after.inherited_from, after.measured_version) == ("0.5.1", "0.5.0", "0.5.0")
    assert after.reproduction_command == load_scorecard(_real_shape(tmp_path / "orig")).reproduction_command
    assert gate(card, baseline_file=_real_shape(tmp_path / "orig"), expected_version="0.5.1").outcome == "equal"


def test_real_shaped_card_whose_ctx_was_changed_is_caught(tmp_path):
    base = _real_shape(tmp_path / "prev")
    cand = _real_shape(tmp_path, edit=lambda f: f["recipe"]["environment"].update(ctx_size=32768))
    result = gate(cand, baseline_file=base)
    assert (result.exit_code, result.outcome) == (1, "basis-mismatch")


# =========================================================================== test_release_scorecard.py
def test_rendered_card_parses_back_and_validates():
    text = render_scorecard(_unit_payload())
    lines = text.splitlines()
    assert lines[0] == "---" and "---" in lines[1:]
    body = text.split("\n---\n", 1)[1]
    assert body.strip() and "## Reproduction" in body
    doc = parse_scorecard_text(text)
    assert validate_scorecard(doc) == []
    assert "test_cases_run" in doc.front_matter["results"] and "size" in doc.front_matter["recipe"]["dataset"]


@pytest.mark.parametrize("section", ["schema_version", "agent", "recipe", "results", "aggregate"])
def test_each_required_section_missing_is_flagged(section):
    front = parse_scorecard_text(render_scorecard(_unit_payload())).front_matter
    del front[section]
    assert validate_scorecard(front)
    assert any(field == section or field.startswith(section + ".") for field in REQUIRED_FIELDS)


@pytest.mark.parametrize("dotted", ["aggregate.value", "agent.version", "recipe.dataset.size"])
def test_missing_nested_required_field_is_flagged_by_name(dotted):
    front = parse_scorecard_text(render_scorecard(_unit_payload())).front_matter
    parent, key = dotted.rsplit(".", 1)
    node = front
    for part in parent.split("."):
        node = node[part]
    del node[key]
    assert any(dotted in problem for problem in validate_scorecard(front))


@pytest.mark.parametrize(("dotted", "value"), [("results.metrics", []), ("agent", "not-a-dict"),
                                               ("aggregate.value", math.nan), ("aggregate.value", math.inf),
                                               ("aggregate.value", -math.inf), ("aggregate.value", "46.0")])
def test_malformed_field_is_flagged_not_a_crash(dotted, value):
    front = parse_scorecard_text(render_scorecard(_unit_payload())).front_matter
    parent, _, key = dotted.rpartition(".")
    (front[parent] if parent else front)[key] = value
    problems = validate_scorecard(front)
    assert any(problem.startswith(dotted.split(".")[0]) for problem in problems)


def test_aggregate_formula_cases():
    assert compute_aggregate([{"name": "acc", "value": 0.5, "weight": 1.0}]) == 50.0
    assert compute_aggregate(
        [{"name": "a", "value": 0.4167, "weight": 1.0}, {"name": "b", "value": 0.5, "weight": 2.0}]
    ) == round(100 * (0.4167 + 2 * 0.5) / 3, 2)
    for bad in ([], [{"name": "x", "value": 0.5, "weight": 0.0}]):
        with pytest.raises(ValueError):
            compute_aggregate(bad)


def test_reproduction_section_with_and_without_a_command():
    with_command = render_scorecard(_unit_payload().replace(reproduction_command="gaia eval benchmark --limit 25"))
    assert "gaia eval benchmark --limit 25" in with_command
    without = render_scorecard(_unit_payload())
    assert "## Reproduction" in without and "eval-scorecard" in without  # their own check


def test_import_of_the_release_package_stays_light():
    # Their check: importing the card module pulls in no harness. Ours: no YAML or SciPy until used.
    code = ("import sys; before = set(sys.modules); import scorekit.release; added = set(sys.modules) - before; "
            "heavy = [m for m in added if m.split('.')[0] in ('yaml', 'scipy', 'matplotlib')]; "
            "assert not heavy, heavy")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_carry_forward_of_a_patch_copies_results_and_optional_blocks(tmp_path):
    src = _unit_payload("0.2.3", 0.75).replace(
        breakdown={"per_category": [{"category": "fyi", "total": 6, "correct": 4, "accuracy": 0.6667}],
                   "top_confusions": [{"expected": "fyi", "predicted": "needs_response", "count": 2}]},
        environment={"gaia_commit": "abc1234", "lemonade_version": "10.7.0", "model": "Gemma-4-E4B-it-GGUF",
                     "hardware": "AMD Ryzen AI MAX+ (Strix Halo)"},
        performance={"ttft_s": 8.541, "throughput_tps": 12.1, "pipeline_s": 1894.0, "peak_memory_gb": 6.2,
                     "emails_per_run": 20},
        extra={"results": {"capability_quality": {"briefing": {"approval": 0.95}}}},
    )
    card = tmp_path / "SCORECARD.md"
    card.write_text(render_scorecard(src), encoding="utf-8")
    result = carry_forward(card, "0.2.4")
    assert (result.agent_version, result.inherited_from) == ("0.2.4", "0.2.3")  # read from front matter
    assert result.metrics == [Metric("category_accuracy", 0.75, 1.0)]
    assert (result.breakdown, result.environment, result.performance) == (src.breakdown, src.environment,
                                                                          src.performance)
    assert result.extra["results"]["capability_quality"]["briefing"]["approval"] == 0.95


@pytest.mark.parametrize("new_version", ["0.3.0", "1.0.0"], ids=["minor", "major"])
def test_minor_or_major_bump_is_refused_with_re_run(tmp_path, new_version):
    card = _unit_card(tmp_path / "SCORECARD.md", "0.2.3", 0.75)
    with pytest.raises(ValueError, match="re-run"):
        carry_forward(card, new_version)


def test_carry_forward_needs_a_greater_patch(tmp_path):
    # Difference 7: there the same or a lower patch is carried.
    card = _unit_card(tmp_path / "SCORECARD.md", "0.2.3", 0.75)
    for version in ("0.2.3", "0.2.2"):
        with pytest.raises(ValueError, match="patch"):
            carry_forward(card, version)
    for version in ("0.2.4-rc.1", "0.2.4+build.1"):  # refused by both
        with pytest.raises(ValueError, match="prerelease"):
            carry_forward(card, version)


def test_fresh_card_has_null_inherited_from():
    payload = _unit_payload()
    assert payload.inherited_from is None
    assert parse_scorecard_text(render_scorecard(payload)).front_matter.get("inherited_from") is None


def test_a_second_agent_card_validates_and_passes_the_gate(tmp_path):
    payload = ResultPayload(
        "Hello World Agent", "0.1.0", "tests/fixtures/hello/ground_truth.json", "Hello world evaluation dataset", 50,
        "exact match accuracy", {"model": "Gemma-4-E4B-it-GGUF", "limit": 20}, 20,
        [{"name": "accuracy", "value": 0.75, "weight": 1.0}], reproduction_command="gaia eval agent --category hello",
    )
    path = write_scorecard(payload, tmp_path / "SCORECARD.md")
    assert validate_scorecard(parse_scorecard(path)) == []
    assert cli.main(["gate", "--scorecard", str(path)]) == 0


def test_secondaries_are_shown_with_weight_zero_and_leave_the_aggregate_alone():
    payload = _unit_payload().replace(metrics=[
        {"name": "within_one_bucket_accuracy", "value": 0.875, "weight": 1.0},
        {"name": "urgent_vs_not_accuracy", "value": 0.88, "weight": 0.0},
        {"name": "urgent_recall", "value": 0.72, "weight": 0.0},
        {"name": "category_accuracy", "value": 0.46, "weight": 0.0},
        {"name": "draft_approval_rate", "value": 0.73, "weight": 0.0}])
    assert payload.aggregate_value == round(100 * 0.875, 2)
    text = render_scorecard(payload)
    assert "draft_approval_rate" in text and validate_scorecard(parse_scorecard_text(text)) == []


def test_adapter_variance_block_shape_validates():
    # The block their adapter copies from quality.json: n, mean, stdev and a CI, no min/max/cv.
    block = {"n_runs": 2, "within_one_bucket_accuracy": {"n": 2, "mean": 0.84, "stdev": 0.02, "ci95_low": 0.81,
                                                         "ci95_high": 0.87}}
    payload = _unit_payload().replace(config={"model": "test", "n_runs": 2, "acceptance_variance": block},
                                      metrics=[{"name": "within_one_bucket_accuracy", "value": 0.84, "weight": 1.0}])
    assert validate_scorecard(payload.to_front_matter()) == []


@pytest.mark.parametrize(
    ("block", "front_key", "heading"),
    [("breakdown", "breakdown", "## Category breakdown"), ("performance", "performance", "## Performance"),
     ("environment", "environment", "## Environment")],
)
def test_optional_block_round_trips_and_leaves_the_aggregate_alone(block, front_key, heading):
    values = {
        "breakdown": {"per_category": [{"category": "fyi", "total": 50, "correct": 30, "accuracy": 0.6},
                                       {"category": "spam", "total": 20, "correct": 18, "accuracy": 0.9}],
                      "top_confusions": [{"expected": "fyi", "predicted": "needs_response", "count": 12}]},
        "performance": {"ttft_s": 8.541, "throughput_tps": 12.1, "pipeline_s": 1894.0, "peak_memory_gb": 6.2,
                        "emails_per_run": 20},
        "environment": {"gaia_commit": "abc1234", "lemonade_version": "10.8.0", "model": "Gemma-4-E4B-it-GGUF",
                        "hardware": "AMD Ryzen AI MAX+ (Strix Halo)", "temperature": 0.0},
    }
    plain = _unit_payload(accuracy=0.46)
    with_block = plain.replace(**{block: values[block]})
    text = render_scorecard(with_block)
    front = parse_scorecard_text(text).front_matter
    section = front["recipe"] if block == "environment" else front["results"]
    assert section[front_key] == values[block] and validate_scorecard(front) == []
    assert heading in text and heading not in render_scorecard(plain)
    assert front_key not in (parse_scorecard_text(render_scorecard(plain)).front_matter["recipe" if block ==
                                                                                          "environment" else "results"])
    assert front_key not in REQUIRED_FIELDS
    assert with_block.aggregate_value == plain.aggregate_value
    if block == "breakdown":
        assert all(column in text for column in ("Category", "Total", "Correct", "Accuracy", "needs_response"))
    if block == "environment":
        assert "| Field | Value |" in text


# =========================================================================== what their validator accepts
@pytest.mark.parametrize(
    "edit",
    [
        lambda f: f["agent"].update(version="0.5"),
        lambda f: f["results"]["metrics"][1].update(value=1.2),
        lambda f: f["results"]["performance"].update(ttft_s=math.nan),
        lambda f: f["results"]["metrics"][1].update(weight=-1.0),
        lambda f: f["results"].update(test_cases_run=300),
        lambda f: f["aggregate"].update(value=90.0),
        lambda f: f["recipe"]["dataset"].pop("description"),
        lambda f: f["aggregate"].pop("components"),
        lambda f: f["recipe"]["environment"].update(ctx_size="16k"),
        lambda f: f["recipe"]["config"].update(ctx_size=8192),
        lambda f: f["recipe"]["config"]["acceptance_variance"]["within_one_bucket_accuracy"].update(stdev=-0.01),
    ],
    ids=["non-semver", "value-above-1", "nan-in-performance", "negative-weight", "run-more-than-size",
         "aggregate-does-not-recompute", "no-dataset-description", "no-components", "ctx-size-not-an-integer",
         "ctx-size-disagrees", "negative-baseline-stdev"],
)
def test_cards_their_validator_accepts_but_the_document_forbids_are_invalid(tmp_path, edit):
    # Difference 5: each of these passes that validator (it checks presence and a finite aggregate.value).
    card = _real_shape(tmp_path, edit=edit)
    result = gate(card)
    assert (result.exit_code, result.outcome) == (1, "invalid-candidate")


# --------------------------------------------------------------------------- difference 9: what reads as theirs
# Their expected strings, restated from their renderer and their email card (SCORECARD.md v0.5.0),
# not from scorekit's constants.
THEIR_FALLBACK = ("See the [eval-scorecard docs](https://amd-gaia.ai/docs/reference/eval-scorecard) and the "
                  "[`adding-eval-scorecard` skill](.claude/skills/adding-eval-scorecard/SKILL.md) for the full "
                  "reproduction recipe.")
THEIR_CAPABILITY_QUALITY = {  # their TestCapabilityQualityRoundTrip block
    "spam": {"precision": 0.92, "recall": 0.88, "f1": 0.9},
    "action_items": {"precision": 0.8, "recall": 0.75, "f1": 0.77},
    "briefing": {"approval": 0.95, "must_include_recall": 0.9, "faithful": 1.0, "hallucination_free": 1.0},
}
_BREAKDOWN = {"per_category": [{"category": "fyi", "total": 15, "correct": 11, "accuracy": 0.7333}],
              "top_confusions": [{"expected": "fyi", "predicted": "needs_response", "count": 4}]}


def _body(text: str) -> str:
    return text.split("\n---\n", 1)[1]


def test_body_headings_and_reproduction_pointer_read_as_theirs():
    single = _body(render_scorecard(_unit_payload().replace(breakdown=_BREAKDOWN)))
    assert "\n## Category breakdown\n\n| Category | Total | Correct | Accuracy |\n" in single
    assert "## Breakdown" not in single and "pooled" not in single
    assert f"## Reproduction\n\n{THEIR_FALLBACK}\n" in single
    pooled = _body(render_scorecard(_unit_payload().replace(breakdown=_BREAKDOWN,
                                                            config={"model": "test", "n_runs": 3})))
    assert "\n## Category breakdown (pooled across all 3 runs)\n" in pooled
    assert "each of the 10 test cases" in pooled and "3 × test_cases_run" in pooled
    with_command = _body(render_scorecard(_unit_payload().replace(reproduction_command="make eval")))
    assert THEIR_FALLBACK not in with_command and "```bash\nmake eval\n```" in with_command


def test_capability_quality_section_reads_as_theirs():
    payload = _unit_payload().replace(extra={"results": {"capability_quality": THEIR_CAPABILITY_QUALITY}})
    text = render_scorecard(payload)
    assert parse_scorecard_text(text).front_matter["results"]["capability_quality"] == THEIR_CAPABILITY_QUALITY
    section = _body(text).split("## Capability quality\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert lines[0] == "| Capability | Metric | Value |"
    # Their rows, in their order, four decimals (cells escaped by scorekit's Markdown rules: `_` as `\_`).
    assert [line.replace("\\_", "_") for line in lines[2:]] == [
        "| spam | precision | 0.9200 |", "| spam | recall | 0.8800 |", "| spam | f1 | 0.9000 |",
        "| action_items | precision | 0.8000 |", "| action_items | recall | 0.7500 |",
        "| action_items | f1 | 0.7700 |", "| briefing | approval | 0.9500 |",
        "| briefing | must_include_recall | 0.9000 |", "| briefing | faithful | 1.0000 |",
        "| briefing | hallucination_free | 1.0000 |"]
    assert "Report" in section or "Reported" in section  # says the block is not gated
    assert "## Capability quality" not in render_scorecard(_unit_payload())
    assert payload.aggregate_value == _unit_payload().aggregate_value


def test_capability_quality_rows_only_for_numbers_and_cells_escaped():
    block = {"spam": {"f1": 0.5, "note": "text", "flag": True}, "broken": [1, 2],
             "a|b\nc <x>": {"p\u2028q": 0.25}}
    body = _body(render_scorecard(_unit_payload().replace(extra={"results": {"capability_quality": block}})))
    section = body.split("## Capability quality\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    assert len(rows) == 2 and rows[0] == "| spam | f1 | 0.5000 |"
    assert rows[1].count(" | ") == 2 and rows[1].endswith("| 0.2500 |")  # the hostile names stay in their cells
    assert "\u2028" not in section and "<x>" not in section
    none = {"spam": {"note": "text"}, "broken": 3}
    assert "## Capability quality" not in render_scorecard(
        _unit_payload().replace(extra={"results": {"capability_quality": none}}))


def test_card_with_every_gaia_section_round_trips_through_lint_and_gate(tmp_path, run_gate):
    payload = _unit_payload().replace(breakdown=_BREAKDOWN, config={"model": "test", "n_runs": 3},
                                      extra={"results": {"capability_quality": THEIR_CAPABILITY_QUALITY}})
    card = tmp_path / "SCORECARD.md"
    write_scorecard(payload, card)
    (tmp_path / "README.md").write_text("# agent\n\nSee the [scorecard](./SCORECARD.md).\n", encoding="utf-8")
    from scorekit.release._lint import lint_doc_root

    assert lint_doc_root(tmp_path) == []
    assert run_gate("--scorecard", card, "--baseline-file", card)[0] == 0
    again = carry_forward(card, "1.0.1")
    write_scorecard(again, card)
    text = card.read_text(encoding="utf-8")
    assert "## Capability quality" in text and "## Category breakdown (pooled across all 3 runs)" in text
    assert THEIR_FALLBACK in text
