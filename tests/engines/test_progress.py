"""Progress (SPEC §17): ``scorekit run`` shows a bar on a terminal for long
inputs, never when its output goes to a pipe or a CI log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _corpus import raw_rows, write
from shared import on_terminal

# The worker threshold, lowered for these runs (SCOREKIT_MIN_WORKER_ROWS): a bar is drawn
# where local workers score, and the default threshold would need 150,000 rows.
THRESHOLD = 3000
ENV = dict(os.environ, SCOREKIT_WORKERS="2", SCOREKIT_MIN_WORKER_ROWS=str(THRESHOLD))


@pytest.fixture(scope="module")
def long_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = write(tmp_path_factory.mktemp("progress") / "rows.jsonl", raw_rows(THRESHOLD // 3 + 10))
    assert len(path.read_text().splitlines()) >= THRESHOLD
    return path


def _command(path: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "scorekit", "run", "--results", str(path), "--out-dir", str(out)]


def test_a_piped_run_prints_no_progress_bar(long_input, tmp_path):
    proc = subprocess.run(_command(long_input, tmp_path / "out"), capture_output=True, timeout=600,
                          env=ENV)
    assert proc.returncode in (0, 1), proc.stderr
    assert b"\r" not in proc.stdout and b"\r" not in proc.stderr


def test_a_run_on_a_terminal_shows_a_progress_bar(long_input, tmp_path):
    """stdout and stderr on a pseudo-terminal: tqdm redraws its bar with carriage returns."""
    code, text = on_terminal(_command(long_input, tmp_path / "out"), env=ENV)
    assert code in (0, 1), text[-2000:]
    assert "scoring" in text and "\r" in text.replace("\r\n", "\n")
