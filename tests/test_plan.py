"""``scorekit plan`` (SPEC §6 power, §14): the same numbers as the library, one-line refusals."""

from __future__ import annotations

import subprocess
import sys

import pytest

import scorekit as sk
from scorekit.cli import main


def test_plan_prints_cases_needed_and_minimum_detectable_drop(capsys):
    assert main(["plan", "--rate", "0.9", "--drop", "0.05"]) == 0
    assert capsys.readouterr().out.startswith("446 cases detect a drop of 5.0 points")
    assert main(["plan", "--rate", "0.9", "--cases", "100"]) == 0
    assert "can detect a drop of 10.5 points or more" in capsys.readouterr().out
    assert main(["plan", "--rate", "0.9", "--cases", "100", "--trials", "5", "--icc", "0.3"]) == 0
    expected = sk.minimum_detectable_drop(0.9, 100, trials=5, icc=0.3)
    assert f"{100 * expected:.1f} points" in capsys.readouterr().out


@pytest.mark.parametrize("args, word", [(["--rate", "1.5", "--cases", "10"], "rate"),
                                        (["--rate", "0.9", "--drop", "0"], "drop"),
                                        (["--rate", "0.9", "--cases", "10", "--icc", "2"], "icc")])
def test_plan_refuses_bad_arguments_in_one_line(args, word):
    proc = subprocess.run([sys.executable, "-m", "scorekit", "plan", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and word in proc.stderr and "Traceback" not in proc.stderr


def test_plan_needs_drop_or_cases():
    proc = subprocess.run([sys.executable, "-m", "scorekit", "plan", "--rate", "0.9"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "--drop" in proc.stderr


