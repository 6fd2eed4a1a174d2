"""Progress of an import (SPEC §17): a bar over a directory's files on a terminal, never in a pipe."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

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
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 120 columns: room for a bar
    proc = subprocess.Popen(_command(logs, tmp_path / "out"), stdout=follower, stderr=follower,
                            stdin=subprocess.DEVNULL)
    os.close(follower)
    seen = bytearray()
    try:
        while select.select([leader], [], [], 300)[0]:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            seen += data
    finally:
        os.close(leader)
        proc.wait(timeout=300)
    assert proc.returncode == 0, seen.decode(errors="replace")
    assert b"importing" in seen and b"\r" in seen
