"""User text made safe for a terminal or a CI log (scorekit/_terminal.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scorekit._terminal import annotation_line, terminal_text, workflow_command


@given(st.text())
def test_terminal_text_is_one_line_without_control_or_bidi_characters(text):
    out = terminal_text(text)
    assert "\n" not in out and "\r" not in out and "\x1b" not in out
    assert not any(ch in out for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
    assert not out.lstrip().startswith("::") and "##[" not in out


def test_plain_text_is_unchanged():
    assert terminal_text("task_completion 84.7% – 95.3%") == "task_completion 84.7% – 95.3%"


@given(st.text(), st.text())
def test_a_workflow_command_is_one_line_whatever_its_data(message, title):
    line = workflow_command("error", message, title=title)
    assert "\n" not in line and "\r" not in line
    assert line.startswith("::error title=") and line.count("::") >= 2


def test_workflow_command_escapes_percent_newline_colon_and_comma():
    assert workflow_command("error", "50% of\nrows", title="gate: a,b") == \
        "::error title=gate%3A a%2Cb::50%25 of%0Arows"


def test_an_unknown_command_name_is_refused():
    import pytest

    with pytest.raises(ValueError, match="not a workflow command name"):
        workflow_command("error::x", "m")


def test_an_annotation_line_round_trips_through_workflow_command():
    line = workflow_command("warning", "a%b\nc", title="t: 1")
    assert annotation_line(line) == line
