"""The package's own data tables (scorekit/_datafiles.py): shipped, safe-loaded, well formed."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from scorekit._datafiles import data_text, load_data_yaml

TABLES = sorted(p.name for p in resources.files("scorekit").joinpath("data").iterdir() if p.name.endswith(".yaml"))


def test_every_table_is_shipped_and_named():
    assert {"findings.yaml", "control_families.yaml", "pii_patterns.yaml", "refusal_phrases.yaml"} <= set(TABLES)


@pytest.mark.parametrize("name", TABLES)
def test_each_table_loads_safely_to_the_same_value_as_the_pure_python_safe_loader(name):
    assert load_data_yaml(name) == yaml.safe_load(data_text(name))


def test_a_python_tag_in_a_table_is_refused_not_executed(monkeypatch):
    import scorekit._datafiles as datafiles

    monkeypatch.setattr(datafiles, "data_text", lambda name: "!!python/object/apply:os.system ['true']")
    with pytest.raises(yaml.YAMLError):
        datafiles.load_data_yaml("evil.yaml")


def test_a_missing_table_is_an_error():
    with pytest.raises(FileNotFoundError):
        data_text("no-such-table.yaml")
