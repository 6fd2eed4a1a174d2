"""``scorekit refresh-check``: full profile (may commit) vs subset smoke run (never commits), SPEC §13."""

from __future__ import annotations

import pytest

from scorekit.release._refresh import refresh_check


@pytest.fixture
def committed(tmp_path, write_card):
    """The committed card: dataset size 220, limit 220, n_runs 3, ctx_size 16384."""
    return write_card(tmp_path, dataset_size=220, limit=220, n_runs=3, ctx_size=16384)




def test_subset_run_never_commits(committed, run_cli):
    result = refresh_check(committed, limit=20, experiments=1)
    assert (result.exit_code, result.profile, result.commit) == (0, "subset", "never")
    code, out, err = run_cli("refresh-check", "--scorecard", committed, "--limit", "20", "--experiments", "1")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "profile=subset commit=never"
    assert "subset smoke run: never commits" in out


def test_subset_run_ignores_basis_and_experiments(committed):
    result = refresh_check(committed, limit=219, experiments=1, ctx_size=4096, model="other")
    assert (result.exit_code, result.status_line) == (0, "profile=subset commit=never")


@pytest.mark.parametrize("experiments", [3, 5])
def test_full_run_with_the_committed_basis_may_commit(committed, run_cli, experiments):
    result = refresh_check(committed, limit=220, experiments=experiments, ctx_size=16384,
                           model="Gemma-4-E4B-it-GGUF", dataset_reference="tests/fixtures/email/ground_truth.json",
                           dataset_size=220)
    assert (result.exit_code, result.profile, result.commit, result.problems) == (0, "full", "allowed", ())
    code, out, _ = run_cli("refresh-check", "--scorecard", committed, "--limit", "220",
                           "--experiments", experiments, "--ctx-size", "16384")
    assert code == 0 and out.splitlines()[0] == "profile=full commit=allowed"


def test_full_run_with_too_few_experiments_fails_fast_and_is_not_silently_a_subset(committed, run_cli):
    result = refresh_check(committed, limit=220, experiments=2)
    assert (result.exit_code, result.profile, result.commit) == (1, "full", "blocked")
    assert "experiments 2 < committed recipe.config.n_runs 3" in result.problems[0]
    code, out, err = run_cli("refresh-check", "--scorecard", committed, "--limit", "220", "--experiments", "2")
    assert code == 1 and out.splitlines()[0] == "profile=full commit=blocked"
    assert "::error::experiments 2 < committed recipe.config.n_runs 3" in out
    assert len(err.splitlines()) == 1 and err.startswith("scorekit refresh-check: profile=full commit=blocked")


def test_n_runs_defaults_to_1_when_not_recorded(tmp_path, write_card):
    card = write_card(tmp_path, n_runs=None)
    assert refresh_check(card, limit=220, experiments=1).status_line == "profile=full commit=allowed"


@pytest.mark.parametrize(
    ("option", "flag", "field"),
    [
        ({"ctx_size": 8192}, "--ctx-size", "ctx_size"),
        ({"model": "Qwen3-4B-GGUF"}, "--model", "recipe.config.model"),
        ({"dataset_reference": "tests/fixtures/email/vendor.json"}, "--dataset-reference", "recipe.dataset.reference"),
        ({"dataset_size": 200}, "--dataset-size", "recipe.dataset.size"),
    ],
)
def test_full_run_whose_basis_differs_fails_fast(committed, option, flag, field):
    result = refresh_check(committed, limit=220, experiments=3, **option)
    assert (result.exit_code, result.status_line) == (1, "profile=full commit=blocked")
    (problem,) = result.problems
    assert problem == f"basis differs: {flag} {next(iter(option.values()))!r}, committed " + field + " " + repr(
        {"--ctx-size": 16384, "--model": "Gemma-4-E4B-it-GGUF",
         "--dataset-reference": "tests/fixtures/email/ground_truth.json", "--dataset-size": 220}[flag])


def test_limit_is_compared_with_the_committed_config_limit(tmp_path, write_card):
    card = write_card(tmp_path, dataset_size=249, limit=249)
    result = refresh_check(card, limit=300, experiments=3)
    assert result.status_line == "profile=full commit=blocked"
    assert result.problems == ("basis differs: --limit 300, committed recipe.config.limit 249",)


def test_only_the_basis_given_on_the_command_line_is_compared(tmp_path, write_card):
    card = write_card(tmp_path, ctx_size=None, model="Gemma-4-E4B-it-GGUF")
    assert refresh_check(card, limit=220, experiments=3).exit_code == 0  # no --ctx-size: not compared
    result = refresh_check(card, limit=220, experiments=3, ctx_size=16384)  # the card records none
    assert result.problems == ("basis differs: --ctx-size 16384, committed ctx_size (absent)",)


def test_refresh_check_reads_the_committed_ctx_size_from_recipe_environment(tmp_path, write_card):
    card = write_card(tmp_path, dataset_size=220, limit=220, n_runs=3, ctx_size=16384, ctx_size_at="environment")
    assert refresh_check(card, limit=220, experiments=3, ctx_size=16384).status_line == "profile=full commit=allowed"
    result = refresh_check(card, limit=220, experiments=3, ctx_size=32768)
    assert result.problems == ("basis differs: --ctx-size 32768, committed ctx_size 16384",)


def test_full_limit_sets_the_full_threshold(committed):
    assert refresh_check(committed, limit=220, experiments=3, full_limit=249).status_line == \
        "profile=subset commit=never"
    low = refresh_check(committed, limit=100, experiments=3, full_limit=100)
    assert low.status_line == "profile=full commit=blocked"  # full, but at a limit the card was not measured at
    assert low.problems == ("basis differs: --limit 100, committed recipe.config.limit 220",)


def test_dataset_size_given_sets_the_full_threshold(committed):
    result = refresh_check(committed, limit=220, experiments=3, dataset_size=249)
    assert result.status_line == "profile=subset commit=never"  # 220 < the run's 249-example dataset


def test_rebaseline_with_a_reason_lets_a_full_run_commit_with_a_warning(committed, run_cli):
    result = refresh_check(committed, limit=220, experiments=2, ctx_size=32768, rebaseline_reason="ctx 32k (#1892)")
    assert (result.exit_code, result.status_line) == (0, "profile=full commit=allowed")
    assert len(result.problems) == 2
    (warning,) = [line for line in result.lines if line.startswith("::warning::")]
    assert "ctx 32k (#1892)" in warning and "--ctx-size 32768" in warning and "experiments 2" in warning
    code, out, _ = run_cli("refresh-check", "--scorecard", committed, "--limit", "220", "--experiments", "2",
                           "--rebaseline", "--reason", "ctx 32k (#1892)")
    assert code == 0 and out.splitlines()[0] == "profile=full commit=allowed"


@pytest.mark.parametrize("case", ["missing", "invalid"])
def test_unusable_committed_card_exits_1(tmp_path, make_card_text, run_cli, case):
    path = tmp_path / "SCORECARD.md"
    if case == "invalid":
        path.write_text(make_card_text(set={"results.test_cases_run": 500}), encoding="utf-8")
    result = refresh_check(path, limit=220, experiments=3)
    assert (result.exit_code, result.status_line) == (1, "profile=unknown commit=blocked")
    code, out, err = run_cli("refresh-check", "--scorecard", path, "--limit", "220", "--experiments", "3")
    assert code == 1 and out.splitlines()[0] == "profile=unknown commit=blocked"
    assert str(path) in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_committed_card_with_a_bad_n_runs_exits_1(tmp_path, write_card):
    card = write_card(tmp_path, n_runs=None, config_extra={"n_runs": "three"})
    result = refresh_check(card, limit=220, experiments=3)
    assert result.exit_code == 1 and "recipe.config.n_runs must be a positive integer" in result.problems[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["--limit", "0", "--experiments", "1"],
        ["--limit", "ten", "--experiments", "1"],
        ["--limit", "10"],
        ["--limit", "10", "--experiments", "1", "--rebaseline"],
        ["--limit", "10", "--experiments", "1", "--reason", "why"],
        ["--limit", "10", "--experiments", "1", "--model", ""],
        ["--limit", "10", "--experiments", "1", "--full-limit", "-5"],
    ],
)
def test_bad_arguments_are_a_usage_error_exit_2(committed, run_cli, argv):
    code, out, err = run_cli("refresh-check", "--scorecard", committed, *argv)
    assert code == 2 and out == "" and "usage: scorekit refresh-check" in err


@pytest.mark.parametrize(
    "kwargs",
    [{"limit": 0, "experiments": 1}, {"limit": 10, "experiments": True}, {"limit": 10, "experiments": 1, "model": ""},
     {"limit": 10, "experiments": 1, "full_limit": 2.5}],
)
def test_bad_library_arguments_raise_value_error(committed, kwargs):
    with pytest.raises(ValueError, match="must be"):
        refresh_check(committed, **kwargs)
