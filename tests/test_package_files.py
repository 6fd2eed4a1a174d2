"""The package's own files (SPEC §19 "Package"): py.typed, LICENSE, SECURITY.md, CITATION.cff, one
version number, and ``scorekit[all]`` naming every extra. The wheel's contents are checked where
the wheel is built (tests/test_render.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

import scorekit

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_license_is_apache_2_0_in_the_metadata_and_the_file():
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"  # an SPDX expression (PEP 639)
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:5] == ["Apache", "License", "Version", "2.0,", "January"]
    for clause in ("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "1. Definitions.",
                   "9. Accepting Warranty or Additional Liability.", "END OF TERMS AND CONDITIONS",
                   "APPENDIX: How to apply the Apache License to your work."):
        assert clause in text, clause


def test_citation_is_cff_1_2_0_with_the_package_version():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "type", "license"):  # the schema's required three + ours
        assert cff[key], key
    assert all(isinstance(author, dict) and (author.get("name") or author.get("family-names"))
               for author in cff["authors"])
    assert cff["version"] == scorekit.__version__  # one version number
    assert cff["license"] == PYPROJECT["project"]["license"]
    assert cff["type"] == "software"


def test_the_version_has_one_home():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "scorekit/_version.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", scorekit.__version__)


def test_all_extra_installs_every_other_extra():
    extras = PYPROJECT["project"]["optional-dependencies"]
    (all_requirement,) = extras["all"]
    named = re.fullmatch(r"scorekit\[(?P<names>[\w,\s-]+)\]", all_requirement)
    assert named, all_requirement
    assert {n.strip() for n in named["names"].split(",")} == set(extras) - {"all", "dev"}
    assert "mlflow" in extras


def test_py_typed_marks_the_package_typed():
    marker = ROOT / "scorekit" / "py.typed"
    assert marker.is_file() and marker.read_text(encoding="utf-8") == ""


def test_security_policy_says_how_to_report_and_what_is_guaranteed():
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert "## Reporting a vulnerability" in text and "privately" in text
    assert "SPEC §20" in text and "SCOREKIT_MAX_DECOMPRESSED" in text and "_escape.py" in text
