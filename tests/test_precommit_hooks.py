"""The pre-commit hooks (SPEC §19): ``.pre-commit-hooks.yaml`` run as pre-commit runs them.

pre-commit calls a hook's ``entry`` with its ``args`` and then MANY file names at once (as
many as fit on a command line), so every hook's command takes several files and its exit
code is the worst of them. The fast tests read the YAML and run each hook's ``entry``
exactly as declared, with ``scorekit`` mapped to ``python -m scorekit`` from this checkout
(the console script on PATH may be another checkout's), on good and bad files; the ``files``
patterns are checked on names a user has. The slow test runs ``pre-commit try-repo`` on this
checkout, which builds the hooks' virtualenv by pip-installing the repository into a fresh
temporary store on every call (it needs the package index; about two minutes a call here).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from release_cards import card_text

ROOT = Path(__file__).resolve().parents[1]
HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
GOOD_ROW = '{"id": "a", "dimension": "task_completion", "case_id": "c1", "status": "PASS", "evaluator": "ci"}\n'
README = "# agent\n\n**Aggregate score: 84.67** (out of 100): see the [release scorecard](./SCORECARD.md).\n"


def _hooks() -> dict[str, dict]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))}


def run_hook(hook_id: str, *files: Path) -> subprocess.CompletedProcess[str]:
    """Run the hook as pre-commit would: entry + args + the file names, in one call."""
    hook = _hooks()[hook_id]
    command = shlex.split(hook["entry"]) + list(hook.get("args", []))
    assert command[0] == "scorekit"
    argv = [sys.executable, "-m", "scorekit", *command[1:], *(str(f) for f in files)]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)


def _matches(hook_id: str, name: str) -> bool:
    return re.search(_hooks()[hook_id]["files"], name) is not None


# --------------------------------------------------------------------------- the manifest
def test_manifest_declares_the_three_hooks_of_the_spec():
    hooks = _hooks()
    assert set(hooks) == {"scorekit-validate", "scorekit-policy", "scorekit-release-lint"}
    assert hooks["scorekit-validate"]["entry"] == "scorekit validate --strict"
    assert hooks["scorekit-policy"]["entry"] == "scorekit policy-lint"
    assert hooks["scorekit-release-lint"]["entry"] == "scorekit release-lint"
    for hook in hooks.values():
        # language python: pre-commit pip-installs this repository; files are passed (the default).
        assert hook["language"] == "python" and hook.get("pass_filenames", True) is True
        assert hook["name"] and hook["description"]


@pytest.mark.parametrize(("hook_id", "name", "expected"), [
    ("scorekit-validate", "results.jsonl", True),
    ("scorekit-validate", "evals/run-2/results.jsonl", True),
    ("scorekit-validate", "package.json", False),
    ("scorekit-validate", "results.jsonl.bak", False),
    ("scorekit-policy", "policy.yml", True),
    ("scorekit-policy", "evals/release-policy.yaml", True),
    ("scorekit-policy", "config/policy.json", True),
    ("scorekit-policy", "scorekit/_policy.py", False),
    ("scorekit-policy", "policy.yml.orig", False),
    ("scorekit-release-lint", "SCORECARD.md", True),
    ("scorekit-release-lint", "hub/agents/email/npm/SCORECARD.md", True),
    ("scorekit-release-lint", "MY_SCORECARD.md", False),
    ("scorekit-release-lint", "docs/scorecard.md", False),
])
def test_files_patterns_pick_the_files_a_user_has(hook_id, name, expected):
    assert _matches(hook_id, name) is expected


# --------------------------------------------------------------------------- scorekit-validate
def test_validate_hook_passes_good_rows_files(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(GOOD_ROW, encoding="utf-8")
    shutil.copy(ROOT / "scorekit" / "examples" / "email_assistant" / "results.jsonl", second)
    done = run_hook("scorekit-validate", first, second)
    assert done.returncode == 0, done.stderr
    assert f"{first}: 1 labeled, 0 unlabeled, 0 invalid (strict)" in done.stdout
    assert f"{second}: 525 labeled" in done.stdout


def test_validate_hook_fails_on_any_bad_file_and_names_it(tmp_path):
    good, invalid, unlabeled = tmp_path / "good.jsonl", tmp_path / "invalid.jsonl", tmp_path / "unlabeled.jsonl"
    good.write_text(GOOD_ROW, encoding="utf-8")
    invalid.write_text(GOOD_ROW + '{"id": "b"}\n', encoding="utf-8")
    unlabeled.write_text('{"id": "a", "dimension": "task_completion", "agent_output": "hi"}\n', encoding="utf-8")
    done = run_hook("scorekit-validate", good, invalid)
    assert done.returncode == 1
    assert f"{invalid}:2: dimension: required field is missing" in done.stdout.splitlines()
    assert run_hook("scorekit-validate", unlabeled, good).returncode == 1  # --strict: unlabeled fails too


def test_validate_hook_unreadable_file_is_exit_2_in_one_line_and_the_others_still_checked(tmp_path):
    good, invalid = tmp_path / "good.jsonl", tmp_path / "invalid.jsonl"
    good.write_text(GOOD_ROW, encoding="utf-8")
    invalid.write_text('{"id": "b"}\n', encoding="utf-8")
    missing = tmp_path / "missing.jsonl"
    done = run_hook("scorekit-validate", missing, invalid, good)
    assert done.returncode == 2  # the worst: could not run on one file
    assert done.stderr.splitlines() == [f"scorekit validate: {missing}: no such file"]
    assert f"{invalid}:1: dimension: required field is missing" in done.stdout
    assert f"{good}: 1 labeled" in done.stdout
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------- scorekit-policy
def test_policy_hook_passes_good_policies(tmp_path):
    mine = tmp_path / "policy.yml"
    mine.write_text("purpose: release\ngate:\n  thresholds:\n    task_completion: 0.9\n", encoding="utf-8")
    example = ROOT / "scorekit" / "examples" / "email_assistant" / "policy.yml"
    done = run_hook("scorekit-policy", mine, example)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{mine}: ok", f"{example}: ok"]


def test_policy_hook_names_file_and_key_of_each_bad_policy_exit_2(tmp_path):
    good, out_of_range, unknown = tmp_path / "policy.yml", tmp_path / "range-policy.yml", tmp_path / "key-policy.json"
    good.write_text("purpose: release\n", encoding="utf-8")
    out_of_range.write_text("gate:\n  thresholds:\n    helpfulness: 1.5\n", encoding="utf-8")
    unknown.write_text('{"gate": {"threshold": {}}}', encoding="utf-8")
    done = run_hook("scorekit-policy", out_of_range, good, unknown)
    assert done.returncode == 2
    errors = done.stderr.splitlines()
    assert len(errors) == 2 and "Traceback" not in done.stderr
    assert errors[0].startswith(f"scorekit policy-lint: {out_of_range}: gate.thresholds.helpfulness: ")
    assert errors[1].startswith(f"scorekit policy-lint: {unknown}: gate.threshold: unknown key")
    assert done.stdout.splitlines() == [f"{good}: ok"]


def test_policy_hook_bad_yaml_names_the_line(tmp_path):
    broken = tmp_path / "policy.yml"
    broken.write_text("gate:\n  thresholds: [\n", encoding="utf-8")
    done = run_hook("scorekit-policy", broken)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"scorekit policy-lint: {broken}") and "invalid YAML" in line


def test_policy_hook_file_names_are_escaped_on_the_terminal(tmp_path):
    good, bad = tmp_path / "x\n::error::FORGED-policy.yml", tmp_path / "y\x1b[31m-policy.yml"
    good.write_text("purpose: release\n", encoding="utf-8")
    bad.write_text("purpos: release\n", encoding="utf-8")
    done = run_hook("scorekit-policy", good, bad)
    assert done.returncode == 2
    lines = (done.stdout + done.stderr).splitlines()
    assert len(lines) == 2 and not any(line.startswith("::") for line in lines)
    assert "\x1b" not in done.stdout + done.stderr and "FORGED" in done.stdout and "purpos: unknown key" in done.stderr


# --------------------------------------------------------------------------- scorekit-release-lint
def _doc_root(path: Path, readme: str = README) -> Path:
    path.mkdir(parents=True)
    (path / "SCORECARD.md").write_text(card_text(), encoding="utf-8")
    (path / "README.md").write_text(readme, encoding="utf-8")
    return path / "SCORECARD.md"


def test_release_lint_hook_checks_each_scorecards_doc_root(tmp_path):
    first, second = _doc_root(tmp_path / "a"), _doc_root(tmp_path / "b" / "npm")
    done = run_hook("scorekit-release-lint", first, second)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [str(first.parent), str(second.parent)]


def test_release_lint_hook_fails_when_any_doc_root_breaks_the_convention(tmp_path):
    good = _doc_root(tmp_path / "good")
    unlinked = _doc_root(tmp_path / "unlinked", readme="# agent\n\nNo link here.\n")
    invalid = _doc_root(tmp_path / "invalid")
    invalid.write_text("---\n[1, 2]\n---\n", encoding="utf-8")
    done = run_hook("scorekit-release-lint", good, unlinked, invalid)
    assert done.returncode == 1
    assert f"scorekit release-lint: {unlinked.parent}: 1 problem" in done.stderr
    assert any(line.startswith(str(invalid)) for line in done.stdout.splitlines())
    assert f"{good.parent}: SCORECARD.md, README.md link and aggregate, package.json files: ok" in done.stdout


def test_release_lint_needs_doc_root_or_scorecard_files(tmp_path):
    card = _doc_root(tmp_path / "a")
    for argv in (["release-lint"], ["release-lint", "--doc-root", str(card.parent), str(card)],
                 ["release-lint", str(card.parent / "README.md")]):
        done = subprocess.run([sys.executable, "-m", "scorekit", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and "Traceback" not in done.stderr, argv
        assert done.stderr.splitlines()[-1].startswith("scorekit release-lint: error: ")


# --------------------------------------------------------------------------- the real thing
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_pre_commit_try_repo_runs_each_hook(tmp_path):
    pytest.importorskip("pre_commit")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: pre-commit try-repo clones the repository")
    repo = tmp_path / "user-repo"
    _doc_root(repo / "agent")
    (repo / "results.jsonl").write_text(GOOD_ROW, encoding="utf-8")
    (repo / "bad-results.jsonl").write_text('{"id": "b"}\n', encoding="utf-8")
    (repo / "policy.yml").write_text("purpose: release\n", encoding="utf-8")
    (repo / "bad-policy.yml").write_text("purpos: release\n", encoding="utf-8")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "files"]):
        subprocess.run(["git", *argv], cwd=repo, check=True, env=env, timeout=60)

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        # Every hook of the manifest, each on the given files its `files:` pattern selects. With a clean
        # checkout the hooks' virtualenv is built once (keyed by the commit) and the second call reuses it.
        argv = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "--verbose", "--files", *files]
        return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=900)

    good = try_repo("results.jsonl", "policy.yml", "agent/SCORECARD.md")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.count("Passed") == 3
    bad = try_repo("results.jsonl", "bad-results.jsonl", "policy.yml", "bad-policy.yml", "agent/SCORECARD.md")
    assert bad.returncode == 1, bad.stdout + bad.stderr  # pre-commit reports any failing hook as 1
    assert bad.stdout.count("Failed") == 2 and bad.stdout.count("Passed") == 1
    assert "bad-results.jsonl:1: dimension: required field is missing" in bad.stdout
    assert "scorekit policy-lint: bad-policy.yml: purpos: unknown key" in bad.stdout
