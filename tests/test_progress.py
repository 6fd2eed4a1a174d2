"""Progress bars (scorekit/_progress.py, SPEC §17): a bar only inside ``progress(True)``, for 2+ parts.

The end-to-end runs (a terminal shows a bar, a pipe does not) are tests/engines/test_progress.py and
tests/importers/test_progress.py.
"""

from __future__ import annotations

import io
import sys

from scorekit._progress import progress, progress_bar, progress_on_a_terminal


def test_no_bar_unless_a_front_door_asked_for_one():
    assert progress_bar(10, "scoring") is None
    with progress(False):
        assert progress_bar(10, "scoring") is None


def test_a_bar_inside_progress_true_for_two_parts_or_more(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress(True):
        assert progress_bar(1, "scoring") is None
        bar = progress_bar(3, "scoring")
        assert bar is not None and bar.total == 3 and bar.desc == "scoring"
        bar.close()
    assert progress_bar(3, "scoring") is None  # the block's end restores the setting


def test_progress_on_a_terminal_needs_both_stdout_and_stderr_to_be_one(monkeypatch):
    class Stream(io.StringIO):
        def __init__(self, tty: bool) -> None:
            super().__init__()
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for out, err, shown in ((True, True, True), (True, False, False), (False, True, False)):
        monkeypatch.setattr(sys, "stdout", Stream(out))
        monkeypatch.setattr(sys, "stderr", Stream(err))
        with progress_on_a_terminal():
            bar = progress_bar(2, "importing")
            assert (bar is not None) == shown, (out, err)
            if bar is not None:
                bar.close()
