"""``scorekit gate`` on the command line, including ``--baseline-ref`` in a real git repository.

SPEC §13/§14: gate failures (missing or invalid cards, bars, regressions,
mistyped refs) are exit 1 with GitHub Actions annotations on stdout and one
line on stderr; bad arguments are argparse's exit 2; ``--help`` exits 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit import cli

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")




def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return proc.stdout


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """An empty git repository; git never looks above tmp_path."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "commit", "-q", "--allow-empty", "-m", "start")
    return root


CARD = "hub/agents/email/npm/SCORECARD.md"


# --------------------------------------------------------------------------- exit codes through the CLI
def test_gate_passes_a_first_adoption_with_bars_met(run_cli, write_card, tmp_path):
    card = write_card(tmp_path)
    code, out, err = run_cli("gate", "--scorecard", card, "--min-aggregate", "80", "--min-urgent-recall", "0.65")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1] == "outcome: PASS (first-adoption)"


@pytest.mark.parametrize("case", ["missing", "directory", "unclosed front matter", "list front matter"])
def test_missing_or_invalid_candidate_is_exit_1_with_one_line_and_no_traceback(run_cli, tmp_path, case):
    path = tmp_path / "SCORECARD.md"
    if case == "directory":
        path.mkdir()
    elif case == "unclosed front matter":
        path.write_text("---\nschema_version: 1\n", encoding="utf-8")
    elif case == "list front matter":
        path.write_text("---\n- a\n- b\n---\n", encoding="utf-8")
    code, out, err = run_cli("gate", "--scorecard", path)
    assert code == 1
    assert out.splitlines()[0].startswith("::error::Candidate scorecard")
    assert len(err.splitlines()) == 1 and err.startswith("scorekit gate: not passed:") and str(path) in err
    assert "Traceback" not in out + err


def test_regression_is_exit_1_and_allow_regression_prints_the_documented_lines(run_cli, write_card, tmp_path):
    base = write_card(tmp_path, filename="prev/SCORECARD.md", version="0.2.3", value=0.65)
    card = write_card(tmp_path, version="0.2.4", value=0.40)
    code, out, err = run_cli("gate", "--scorecard", card, "--baseline-file", base)
    assert code == 1 and "::error::Scorecard regression: v0.2.3=65.0 → v0.2.4=40.0" in out
    code, out, err = run_cli("gate", "--scorecard", card, "--baseline-file", base, "--allow-regression")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    at = lines.index("::warning::Scorecard regression allowed by --allow-regression: v0.2.3=65.0 → v0.2.4=40.0")
    assert lines[at + 1].startswith("WARNING: Regression override active. Prior version v0.2.3 scored 65.0; "
                                    "candidate v0.2.4 scored 40.0.")


def test_regression_k_and_variance_metric_reach_the_library(run_cli, write_card, tmp_path):
    base = write_card(tmp_path, filename="prev/SCORECARD.md", version="0.2.3", value=0.8467, stdev=0.0116)
    card = write_card(tmp_path, version="0.2.4", value=0.8300)
    assert run_cli("gate", "--scorecard", card, "--baseline-file", base)[0] == 1
    assert run_cli("gate", "--scorecard", card, "--baseline-file", base, "--regression-k", "2")[0] == 0
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-file", base, "--regression-k", "2",
                           "--variance-metric", "urgent_recall")
    assert code == 1 and "::warning::No acceptance_variance stdev recorded for 'urgent_recall'" in out


def test_min_metric_and_thresholds_reach_the_library(run_cli, write_card, tmp_path):
    card = write_card(tmp_path)
    assert run_cli("gate", "--scorecard", card, "--min-metric", "category_accuracy=0.45")[0] == 0
    code, out, _ = run_cli("gate", "--scorecard", card, "--min-metric", "category_accuracy=0.5",
                           "--min-metric", "urgent_vs_not_accuracy=0.5")
    assert code == 1 and out.count("::error::") == 1
    manifest = tmp_path / "quality_gate_thresholds.json"
    manifest.write_text(json.dumps({"_comment": "data, not code", "acceptance_target": 0.80,
                                    "urgent_recall_floor": 0.90, "acceptance_enforce": False}), encoding="utf-8")
    code, out, _ = run_cli("gate", "--scorecard", card, "--thresholds", manifest)
    assert code == 0 and out.count("::warning::") == 1  # urgent_recall 0.6571 < 0.90, reported only
    code, out, _ = run_cli("gate", "--scorecard", card, "--thresholds", manifest, "--min-urgent-recall", "0.7")
    assert code == 1 and out.count("::error::") == 1 and out.count("::warning::") == 0


def test_expected_version_flag_exits_1_for_another_release_and_names_where_results_were_measured(
        run_cli, write_card, tmp_path):
    card = write_card(tmp_path, version="0.2.4", inherited_from="0.2.3", measured_version="0.2.3")
    code, out, err = run_cli("gate", "--scorecard", card, "--expected-version", "0.2.4")
    assert code == 0 and "::warning::Scorecard v0.2.4 publishes results measured on v0.2.3" in out
    code, out, err = run_cli("gate", "--scorecard", card, "--expected-version", "0.2.5")
    assert code == 1 and "not the expected release v0.2.5" in err and err.count("\n") == 1
    code, out, err = run_cli("gate", "--scorecard", card, "--expected-version", "v0.2.4")
    assert code == 2 and "--expected-version" in err  # a tag name is not X.Y.Z: a usage error


def test_require_ctx_match_flag_exits_1_for_a_candidate_without_ctx_size(run_cli, write_card, tmp_path):
    card = write_card(tmp_path)
    code, out, err = run_cli("gate", "--scorecard", card, "--require-ctx-match")
    assert code == 1 and "::error::Candidate scorecard records no ctx_size" in out
    assert err.count("\n") == 1 and "records no ctx_size" in err
    stamped = write_card(tmp_path / "stamped", ctx_size=16384, ctx_size_at="environment")
    assert run_cli("gate", "--scorecard", stamped, "--require-ctx-match")[0] == 0


def test_basis_difference_is_exit_1_unless_rebaseline_with_a_reason(run_cli, write_card, tmp_path):
    base = write_card(tmp_path, filename="prev/SCORECARD.md", version="0.2.3", ctx_size=8192)
    card = write_card(tmp_path, version="0.2.4", ctx_size=16384)
    code, out, err = run_cli("gate", "--scorecard", card, "--baseline-file", base)
    assert code == 1 and "ctx_size: candidate 16384, baseline 8192" in out
    code, out, err = run_cli("gate", "--scorecard", card, "--baseline-file", base,
                             "--rebaseline", "--reason", "ctx window pinned to 16384 (#1892)")
    assert code == 0 and "::warning::Rebaseline: ctx_size: candidate 16384, baseline 8192" in out
    assert "ctx window pinned to 16384 (#1892)" in out


# --------------------------------------------------------------------------- usage errors: exit 2
@pytest.mark.parametrize(
    "argv",
    [
        ["--min-metric", "urgent_recall"],
        ["--min-metric", "=0.5"],
        ["--min-metric", "urgent_recall=abc"],
        ["--min-metric", "urgent_recall=1.5"],
        ["--min-metric", "urgent_recall=nan"],
        ["--min-metric", "a=0.1", "--min-metric", "a=0.2"],
        ["--min-metric", "urgent_recall=0.5", "--min-urgent-recall", "0.6"],
        ["--min-aggregate", "180"],
        ["--min-urgent-recall", "65"],
        ["--regression-k", "-1"],
        ["--rebaseline"],
        ["--reason", "because"],
        ["--rebaseline", "--reason", " "],
        ["--baseline-file", "a.md", "--baseline-ref", "v0.2.3"],
    ],
)
def test_bad_arguments_are_a_usage_error_exit_2(run_cli, write_card, tmp_path, argv):
    code, out, err = run_cli("gate", "--scorecard", write_card(tmp_path), *argv)
    assert code == 2
    assert "usage: scorekit gate" in err and "error:" in err
    assert out == ""


def test_bad_thresholds_manifest_is_exit_2_with_one_line(run_cli, write_card, tmp_path):
    manifest = tmp_path / "thresholds.json"
    manifest.write_text(json.dumps({"acceptance_enforced": False}), encoding="utf-8")
    code, out, err = run_cli("gate", "--scorecard", write_card(tmp_path), "--thresholds", manifest)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [err.strip()] and "unknown key 'acceptance_enforced'" in err


def test_release_commands_help_exits_0():
    for command in ("gate", "carry-forward", "refresh-check", "release-lint"):
        proc = subprocess.run([sys.executable, "-m", "scorekit", command, "--help"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert f"usage: scorekit {command}" in proc.stdout


def test_invalid_candidate_through_the_console_entry_point_is_exit_1_without_traceback(tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text("---\nagent: [unclosed\n---\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "scorekit", "gate", "--scorecard", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1


# --------------------------------------------------------------------------- --baseline-ref in a git repository
def _commit_card(repo: Path, write_card, message: str, **options) -> Path:
    path = write_card(repo, filename=CARD, **options)
    _git(repo, "add", CARD)
    _git(repo, "commit", "-q", "-m", message)
    return path


@needs_git
def test_baseline_ref_compares_with_the_card_at_the_tag(run_cli, repo, write_card, tmp_path, monkeypatch):
    _commit_card(repo, write_card, "v0.2.3", version="0.2.3", value=0.65)
    _git(repo, "tag", "agent-pkg-email-v0.2.3")
    card = write_card(repo, filename=CARD, version="0.2.4", value=0.40)  # the working tree's candidate
    monkeypatch.chdir(tmp_path)  # run from outside the repository: the path is resolved from the card's folder
    code, out, err = run_cli("gate", "--scorecard", card, "--baseline-ref", "agent-pkg-email-v0.2.3")
    assert code == 1 and "::error::Scorecard regression: v0.2.3=65.0 → v0.2.4=40.0" in out
    assert f"agent-pkg-email-v0.2.3:{CARD}" in out
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-ref", "agent-pkg-email-v0.2.3",
                           "--allow-regression")
    assert (
        code == 0 and "::warning::Scorecard regression allowed by --allow-regression: v0.2.3=65.0 → v0.2.4=40.0" in out
    )


@needs_git
def test_baseline_ref_with_a_relative_scorecard_path_from_a_subdirectory(run_cli, repo, write_card, monkeypatch):
    card = _commit_card(repo, write_card, "v0.2.3", version="0.2.3", value=0.8467)
    _git(repo, "tag", "v0.2.3")
    monkeypatch.chdir(repo / "hub" / "agents")
    code, out, _ = run_cli("gate", "--scorecard", Path("email/npm/SCORECARD.md"), "--baseline-ref", "v0.2.3")
    assert code == 0 and out.splitlines()[-1] == "outcome: PASS (equal)"
    assert card.exists()


@needs_git
def test_file_absent_at_baseline_ref_exits_0(run_cli, repo, write_card):
    _git(repo, "tag", "agent-pkg-email-v0.1.0")  # released before the scorecard existed
    card = _commit_card(repo, write_card, "add scorecard", version="0.2.0")
    result_code, out, err = run_cli("gate", "--scorecard", card, "--baseline-ref", "agent-pkg-email-v0.1.0")
    assert (result_code, err) == (0, "")
    assert "first adoption" in out and out.splitlines()[-1] == "outcome: PASS (first-adoption)"


@needs_git
def test_file_absent_at_baseline_ref_still_applies_the_bars(run_cli, repo, write_card):
    _git(repo, "tag", "v0.1.0")
    card = _commit_card(repo, write_card, "add scorecard", version="0.2.0", value=0.70)
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-ref", "v0.1.0", "--min-aggregate", "80")
    assert code == 1 and "below the bar 80" in out


@needs_git
@pytest.mark.parametrize("ref", ["agent-pkg-email-v0.2.33", "no-such-branch", "0123456789abcdef0123", "-v"])
def test_mistyped_baseline_ref_exits_1(run_cli, repo, write_card, ref):
    card = _commit_card(repo, write_card, "v0.2.3", version="0.2.3")
    _git(repo, "tag", "agent-pkg-email-v0.2.3")
    code, out, err = run_cli("gate", "--scorecard", card, f"--baseline-ref={ref}")
    assert code == 1
    assert "::error::--baseline-ref" in out and "first adoption" in out  # says how to get one
    assert err.startswith("scorekit gate: not passed: --baseline-ref")


@needs_git
def test_baseline_ref_outside_a_git_repository_exits_1(run_cli, write_card, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    card = write_card(tmp_path / "plain")
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-ref", "v0.2.3")
    assert code == 1 and "is not inside a git repository" in out


@needs_git
def test_invalid_card_at_baseline_ref_exits_1(run_cli, repo, write_card, make_card_text):
    path = repo / CARD
    path.parent.mkdir(parents=True)
    path.write_text(make_card_text(version="0.2.3", set={"aggregate.value": 99.0}), encoding="utf-8")
    _git(repo, "add", CARD)
    _git(repo, "commit", "-q", "-m", "bad card")
    _git(repo, "tag", "v0.2.3")
    card = write_card(repo, filename=CARD, version="0.2.4")
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-ref", "v0.2.3")
    assert code == 1 and f"Baseline scorecard unusable: v0.2.3:{CARD}: invalid scorecard: aggregate.value" in out


@needs_git
def test_directory_at_baseline_ref_is_not_a_first_adoption(run_cli, repo, write_card):
    (repo / CARD).mkdir(parents=True)
    (repo / CARD / "x.md").write_text("x", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "odd")
    _git(repo, "tag", "v0.2.3")
    card = write_card(repo, filename="hub/agents/email/npm2/SCORECARD.md")
    moved = repo / CARD
    shutil.rmtree(moved)
    moved.write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run_cli("gate", "--scorecard", moved, "--baseline-ref", "v0.2.3")
    assert code == 1 and "is a tree at that ref" in out


# --------------------------------------------------------------------------- help
RELEASE_COMMANDS = ("gate", "carry-forward", "refresh-check", "release-lint")


def _release_subparsers():
    import argparse

    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    return {name: (sub.choices[name], helps.get(name)) for name in RELEASE_COMMANDS}


def test_every_release_command_and_option_has_a_one_line_help():
    for name, (parser, summary) in _release_subparsers().items():
        assert summary and "\n" not in summary, name
        options = [a for a in parser._actions if a.option_strings and "-h" not in a.option_strings]
        assert options, name
        for action in options:
            assert action.help and action.help.strip() and "\n" not in action.help, (name, action.option_strings)


@pytest.mark.parametrize("command", RELEASE_COMMANDS)
def test_release_command_help_lists_every_option_and_exits_0(run_cli, command):
    parser, _ = _release_subparsers()[command]
    code, out, _ = run_cli(command, "--help")
    assert code == 0
    for action in parser._actions:
        for flag in action.option_strings:
            assert flag in out, flag


def test_gate_help_documents_the_compatibility_flags(run_cli):
    code, out, _ = run_cli("gate", "--help")
    assert code == 0
    assert "--require-ctx-match" in out and "--expected-version X.Y.Z" in out and "require_ctx_match" in out
