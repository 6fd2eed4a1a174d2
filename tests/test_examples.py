"""The bundled examples and notebooks (scorekit/_examples.py)."""

from __future__ import annotations

import json

import pytest

import scorekit as sk
from scorekit._examples import EXAMPLES, NOTEBOOKS, notebook_path


@pytest.mark.parametrize("file", ["results.jsonl", "policy.yml", "README.md", "cases.yaml"])
def test_every_file_of_the_example_is_shipped(file):
    assert sk.example_path(file=file).is_file()


def test_the_example_rows_are_json_lines_of_the_eight_dimensions():
    lines = sk.example_path().read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert len({r["dimension"] for r in rows}) == 8 and len({r["id"] for r in rows}) == len(rows)


def test_an_unknown_example_names_the_known_ones():
    with pytest.raises(ValueError, match="email_assistant"):
        sk.example_path("nope")


def test_a_missing_file_of_an_example_is_file_not_found():
    with pytest.raises(FileNotFoundError, match="no file 'nope.txt'"):
        sk.example_path(file="nope.txt")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_is_found_and_is_a_notebook(name):
    path = notebook_path(name)
    assert path.suffix == ".ipynb" and json.loads(path.read_text(encoding="utf-8"))["nbformat"] == 4


def test_the_catalogues_name_what_is_shipped():
    assert EXAMPLES == ("email_assistant", "imports") and set(NOTEBOOKS) == {"release_scorecard", "explore"}
