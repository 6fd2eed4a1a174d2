"""CLI help (SPEC §14): every sub-command and option has a one-line help; ``scorekit --help`` lists the
exit codes and two examples that parse."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _sub_commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _listing() -> dict[str, str | None]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def _help_text() -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "scorekit", "--help"], capture_output=True, text=True, timeout=120,
                          env=env)


def test_the_top_level_listing_gives_every_sub_command_a_one_line_help():
    listing = _listing()
    assert set(listing) == set(_sub_commands())
    for name, text in listing.items():
        assert text and text.strip() and "\n" not in text, name


@pytest.mark.parametrize("command", sorted(_sub_commands()))
def test_every_option_of_every_sub_command_has_a_one_line_help(command):
    for action in _sub_commands()[command]._actions:
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip() and "\n" not in action.help, f"{command} {name}"


def test_help_lists_the_exit_codes_of_spec_14():
    proc = _help_text()
    assert proc.returncode == 0
    text = proc.stdout
    assert "exit codes:" in text
    codes = re.findall(r"^  ([012])  (.+)$", text.split("exit codes:", 1)[1], flags=re.MULTILINE)
    assert [code for code, _ in codes] == ["0", "1", "2"]
    meaning = dict(codes)
    assert "ok" in meaning["0"] and "evidence says no" in meaning["1"] and "could not run" in meaning["2"]
    assert "SCORECARD.md" in text.split("exit codes:", 1)[1]  # the §13 exception is said


def test_help_shows_two_examples_that_parse():
    text = _help_text().stdout
    examples = [
        line.strip() for line in text.split("examples:", 1)[1].splitlines() if line.strip().startswith("scorekit ")
    ]
    assert len(examples) == 2
    parser = build_parser()
    for example in examples:
        args = parser.parse_args(shlex.split(example)[1:])  # argparse exits 2 on a bad example
        assert args.command in _sub_commands()
