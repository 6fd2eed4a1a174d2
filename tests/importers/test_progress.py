"""Progress of an import (SPEC §17): a bar over a directory's files on a terminal, never in a pipe."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared import on_terminal

SHARED = Path(__file__).resolve().parents[1] / "data" / "imports" / "inspect"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    for log in sorted(SHARED.glob("*.eval"))[:2]:
        shutil.copy(log, folder / log.name)
    assert len(list(folder.iterdir())) == 2
    return folder


def _command(logs: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "scorekit", "import", "--from", "inspect", str(logs), "--out-dir", str(out)]


def test_a_piped_import_prints_no_progress_bar(logs, tmp_path):
    proc = subprocess.run(_command(logs, tmp_path / "out"), capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert b"\r" not in proc.stdout and b"\r" not in proc.stderr


def test_an_import_on_a_terminal_shows_a_progress_bar(logs, tmp_path):
    code, text = on_terminal(_command(logs, tmp_path / "out"), timeout=300)
    assert code == 0, text
    assert "importing" in text and "\r" in text.replace("\r\n", "\n")
