"""No traceback on numbers too large for a float in release files (issue 11, hostile input).

A 400-digit integer acceptance_target in a thresholds manifest and a 400-digit
weight in SCORECARD.md raised OverflowError (math.isfinite) before: now each is
the one-line message a bad value gets, with the document's exit code.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from shared import scorekit_process

from scorekit._io import finite_float

SEED = Path(__file__).parent / "data" / "seed_example_SCORECARD.md"
HUGE = "9" * 400


def cli(*args: str) -> subprocess.CompletedProcess:
    return scorekit_process(*args, timeout=120)


def test_huge_integer_is_no_finite_float():
    assert finite_float(int(HUGE)) is None and finite_float(-int(HUGE)) is None
    assert finite_float(10**300) == 1e300


def test_huge_acceptance_target_is_one_line_exit_2(tmp_path):
    manifest = tmp_path / "thresholds.json"
    manifest.write_text(json.dumps({"acceptance_target": int(HUGE)}))
    proc = cli("gate", "--scorecard", str(SEED), "--thresholds", str(manifest))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "acceptance_target" in proc.stderr


@pytest.mark.parametrize("command", [
    ["gate", "--scorecard", "{card}"],
    ["carry-forward", "--scorecard", "{card}", "--version", "9.9.9", "--out", "{out}"],
    ["refresh-check", "--scorecard", "{card}", "--limit", "5", "--experiments", "1"],
])
def test_huge_weight_in_scorecard_is_an_invalid_card(tmp_path, command):
    card = tmp_path / "SCORECARD.md"
    card.write_text(SEED.read_text(encoding="utf-8").replace("weight: 1.0", f"weight: {HUGE}", 1), encoding="utf-8")
    args = [a.format(card=card, out=tmp_path / "out.md") for a in command]
    proc = cli(*args)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "results.metrics[0].weight" in proc.stdout + proc.stderr


def test_refresh_check_annotations_are_escaped(tmp_path):
    card = tmp_path / "SCORECARD.md"
    card.write_text(SEED.read_text(encoding="utf-8").replace("weight: 1.0", "weight: -1", 1), encoding="utf-8")
    from scorekit.release import refresh_check

    result = refresh_check(card, limit=5, experiments=1)
    assert all("\n" not in line for line in result.lines)
    assert any(line.startswith("::error::") for line in result.lines)
