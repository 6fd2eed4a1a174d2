"""docs/cli.md is the CLI reference generated from the argparse parsers, and stays so.

``tools/gen_cli_docs.py`` writes it from :func:`scorekit.cli.build_parser`; a
sub-command or option added to the parser without re-running the generator
makes the first test fail with the command that fixes it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

from scorekit.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "tools" / "gen_cli_docs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_cli_docs", module)
    spec.loader.exec_module(module)
    return module


def _subcommand_names(parser: argparse.ArgumentParser) -> list[str]:
    return [name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices]


def test_cli_reference_is_what_the_generator_writes_now(generator):
    assert PAGE.exists(), "docs/cli.md is missing: run `python tools/gen_cli_docs.py`"
    assert PAGE.read_text(encoding="utf-8") == generator.render(), (
        "docs/cli.md is not what the generator writes from the current parser: run `python tools/gen_cli_docs.py`")


def test_cli_reference_documents_every_subcommand_and_option(generator):
    text = generator.render()
    parser = build_parser()
    names = _subcommand_names(parser)
    assert {"run", "validate", "gate", "plan", "report", "compare"} <= set(names)
    for name in names:
        assert f"\n## `scorekit {name}`\n" in text, name
        assert f"[`{name}`](#scorekit-{name})" in text, name
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for option in sub._actions:
                    for flag in option.option_strings:
                        assert flag in text, f"scorekit {name} {flag}"
    assert "exit codes:" in text


def test_cli_reference_takes_a_subcommand_added_to_the_parser(generator):
    """The generator reads whatever the parser has: nothing is listed by hand."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    added = sub.add_parser("frobnicate", help="a command added after the generator was written",
                           description="Frobnicate the evidence.")
    added.add_argument("--from", dest="source", metavar="FORMAT", help="where the rows come from")
    text = generator.render(parser)
    assert "[`frobnicate`](#scorekit-frobnicate) | a command added after the generator was written |" in text
    assert "\n## `scorekit frobnicate`\n" in text
    assert "Frobnicate the evidence." in text and "--from FORMAT" in text
    assert "frobnicate" not in generator.render()


def test_cli_reference_does_not_depend_on_the_terminal_width(generator, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = generator.render()
    monkeypatch.setenv("COLUMNS", "250")
    assert generator.render() == narrow


def test_check_mode_names_the_command_that_regenerates(generator, monkeypatch, tmp_path, capsys):
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(generator, "OUTPUT", stale)
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    assert generator.main(["--check"]) == 1
    assert "run `python tools/gen_cli_docs.py`" in capsys.readouterr().err
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
