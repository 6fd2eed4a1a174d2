"""The example workflow in .github/workflows/ stays valid (SPEC §17, CI).

It is YAML GitHub accepts (the keys a workflow needs), its actions are pinned to a
major version, and every ``scorekit`` command line in it parses with scorekit's own
argument parser, so a renamed flag breaks this test rather than users' CI.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import yaml

from scorekit.cli import build_parser

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "release-gate.example.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def _scorekit_commands(workflow: dict) -> list[list[str]]:
    commands = []
    for step in _steps(workflow):
        for line in str(step.get("run", "")).splitlines():
            line = line.replace("${{ github.sha }}", "abc123")
            words = shlex.split(line)
            if words[:1] == ["scorekit"]:
                commands.append(words[1:])
    return commands


def test_the_workflow_has_what_github_requires(workflow):
    # yaml reads the bare key `on` as True (YAML 1.1); GitHub reads it as the trigger
    assert workflow["name"] and (workflow.get("on") or workflow.get(True))
    for name, job in workflow["jobs"].items():
        assert job["runs-on"], name
        assert all(("uses" in s) != ("run" in s) for s in job["steps"]), name


def test_actions_are_pinned_to_a_version(workflow):
    for step in _steps(workflow):
        if "uses" in step:
            action, _, version = step["uses"].partition("@")
            assert action and version.startswith("v"), step["uses"]


def test_every_scorekit_command_parses_with_the_cli(workflow):
    commands = _scorekit_commands(workflow)
    assert {c[0] for c in commands} == {"run", "release-lint", "gate"}
    parser = build_parser()
    for argv in commands:
        args = parser.parse_args(argv)  # SystemExit (a usage error) fails the test
        assert args.command == argv[0]


def test_the_evidence_job_gates_and_writes_junit(workflow):
    run = next(c for c in _scorekit_commands(workflow) if c[0] == "run")
    args = build_parser().parse_args(run)
    assert args.gate and args.junit == "reports/junit.xml"
