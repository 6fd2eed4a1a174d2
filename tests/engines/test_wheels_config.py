"""Wheels carry the C helper (issue 15): the cibuildwheel configuration in
pyproject.toml and .github/workflows/wheels.yml stay valid and agree."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "wheels.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["cibuildwheel"]


def _uses(job: dict) -> list[str]:
    return [step["uses"] for step in job["steps"] if "uses" in step]


def test_wheels_workflow_builds_with_cibuildwheel_on_every_platform(workflow):
    assert workflow["name"] and "jobs" in workflow
    # PyYAML reads the key "on" as True (YAML 1.1): either spelling is the trigger.
    assert workflow.get("on", workflow.get(True))
    job = workflow["jobs"]["wheels"]
    assert any(use.startswith("pypa/cibuildwheel@v") for use in _uses(job))
    systems = " ".join(job["strategy"]["matrix"]["os"])
    assert all(name in systems for name in ("ubuntu", "macos", "windows"))


def test_workflow_actions_are_pinned_to_a_major_version(workflow):
    for job in workflow["jobs"].values():
        for use in _uses(job):
            assert "@v" in use, use


def test_sdist_is_built_too(workflow):
    runs = " ".join(str(step.get("run", "")) for step in workflow["jobs"]["sdist"]["steps"])
    assert "build --sdist" in runs


def test_cibuildwheel_builds_the_supported_pythons_and_tests_the_helper(config):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.11"
    assert "cp311-*" in config["build"].split()
    assert "scorekit._speedups" in config["test-command"] and "test_speedups.py" in config["test-command"]
    assert config["environment"]["CI"] == "1"  # tests/test_speedups.py fails instead of skipping without the helper
    for platform in ("linux", "macos", "windows"):
        assert config[platform]["archs"]
