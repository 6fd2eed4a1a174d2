"""What every importer shares (scorekit/importers/_base.py): strict JSON that keeps NaN, file heads."""

from __future__ import annotations

import math

import pytest

import scorekit as sk
from scorekit.importers._base import finite_json, head_bytes, head_text, json_file, parse_json


def test_nan_in_another_tools_json_is_kept_for_the_importer_to_map():
    value = parse_json(b'{"score": NaN, "x": [Infinity]}', "log.json")
    assert math.isnan(value["score"]) and value["x"] == [math.inf]


def test_a_repeated_key_is_refused_naming_the_file():
    with pytest.raises(sk.InputError, match="log.json"):
        parse_json(b'{"a": 1, "a": 2}', "log.json")


def test_bad_json_names_the_file_and_line():
    with pytest.raises(sk.InputError, match=r"log.json:2: not valid JSON"):
        parse_json(b'{\n"a": }', "log.json")


def test_finite_json_replaces_every_non_finite_float_with_none():
    assert finite_json({"a": math.nan, "b": [1.0, math.inf], "c": "NaN"}) == {"a": None, "b": [1.0, None], "c": "NaN"}


def test_heads_of_missing_or_special_files_are_none(tmp_path):
    assert head_bytes(tmp_path / "nope") is None and head_text(tmp_path) is None
    path = tmp_path / "f.json"
    path.write_bytes("\ufeff{\"é\": 1}".encode())
    assert head_text(path, 6) == "{\""  # 3 bytes of BOM dropped, then half of "é" dropped


def test_json_file_of_a_directory_is_an_input_error(tmp_path):
    with pytest.raises(sk.InputError):
        json_file(tmp_path, "Inspect log")
