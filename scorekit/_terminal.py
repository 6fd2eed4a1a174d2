"""Text a user supplied, made safe to print on a terminal or in a CI log (one home).

Everything the CLI prints that came from a user — file names, dimension names,
case ids, labels, agent names and versions, values read from a scorecard —
goes through :func:`terminal_text`, so a value can never

* leave its line: control characters (C0, DEL, C1 — ESC, CR, LF, the OSC-8
  hyperlink introducer ``ESC ]``), the Unicode line and paragraph separators
  and lone surrogates are shown visibly (``\\n``, ``\\x1b``, ``\\u2028``);
* reorder what is shown: the bidirectional overrides, embeddings, isolates and
  marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) are shown
  visibly too (``\\u202e``);
* become a GitHub Actions workflow command: the runner treats a line that
  starts with ``::`` (after leading white space) as a command, and the legacy
  form ``##[command]`` anywhere in a line. A value that starts with ``::`` has
  its first colon shown as ``\\x3a``, and ``##[`` is shown as ``##\\x5b``.

:func:`workflow_command` writes scorekit's own annotations with GitHub's
escaping (data: ``%`` → ``%25``, CR → ``%0D``, LF → ``%0A``; properties also
``:`` → ``%3A``, ``,`` → ``%2C``; other controls, bidi controls and ``##[``
shown visibly as above), and :func:`annotation_line` re-emits an
annotation line scorekit composed through it, so its data cannot break out
either.

Examples
--------
>>> terminal_text("helpfulness\\n::error::forged")
'helpfulness\\\\n::error::forged'
>>> terminal_text("::add-mask::secret")
'\\\\x3a:add-mask::secret'
>>> workflow_command("error", "50% of rows\\nfailed", title="gate: a,b")
'::error title=gate%3A a%2Cb::50%25 of rows%0Afailed'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["BIDI_CONTROLS", "annotation_line", "terminal_text", "workflow_command"]

#: The bidirectional formatting characters (a regex character-class body): the
#: embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks
#: U+200E/U+200F and the Arabic letter mark U+061C. They reorder what a reader
#: sees ("Trojan Source"); every output format neutralises them.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + BIDI_CONTROLS + "]")
_UNSAFE_IN_DATA = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + BIDI_CONTROLS + "]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(value: Any) -> str:
    """``str(value)`` safe to print: one line, no terminal escape, no bidi reordering, no workflow command.

    Examples
    --------
    >>> terminal_text("\\x1b]8;;https://evil.example\\x1b\\\\click\\x1b]8;;\\x1b\\\\")
    '\\\\x1b]8;;https://evil.example\\\\x1b\\\\click\\\\x1b]8;;\\\\x1b\\\\'
    >>> terminal_text("abc\\u202edcba")
    'abc\\\\u202edcba'
    >>> terminal_text("  ::stop-commands::x"), terminal_text("a ##[error]b")
    ('  \\\\x3a:stop-commands::x', 'a ##\\\\x5berror]b')
    """
    text = value if isinstance(value, str) else str(value)
    text = _UNSAFE.sub(_visible, text)
    if "##[" in text:
        text = text.replace("##[", "##\\x5b")
    stripped = text.lstrip()  # the runner trims leading white space before looking for "::"
    if stripped.startswith("::"):
        text = text[: len(text) - len(stripped)] + "\\x3a" + stripped[1:]
    return text


def _escape_data(text: str) -> str:
    text = _UNSAFE_IN_DATA.sub(_visible, text).replace("##[", "##\\x5b")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: Any, **properties: Any) -> str:
    """A GitHub Actions workflow command line (``::error::…``) with its data and properties escaped.

    ``command`` is scorekit's own (``error``, ``warning``, ``notice``);
    ``message`` and the property values may hold user text.
    """
    if not re.fullmatch(r"[a-z][a-z-]*", command):
        raise ValueError(f"not a workflow command name: {command!r}")
    props = ",".join(f"{name}={_escape_property(str(value))}" for name, value in properties.items()
                     if value is not None)
    return f"::{command}{' ' + props if props else ''}::{_escape_data(str(message))}"


_ANNOTATION = re.compile(r"::([a-z][a-z-]*)(?: ([^:]*))?::(.*)", re.DOTALL)
_UNESCAPES = {"%0D": "\r", "%0A": "\n", "%25": "%", "%3A": ":", "%2C": ","}
_DATA_ESCAPES = re.compile("%0D|%0A|%25")
_PROPERTY_ESCAPES = re.compile("%0D|%0A|%25|%3A|%2C")


def _unescape(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: _UNESCAPES[m.group()], text)


def annotation_line(line: str) -> str:
    """An annotation line scorekit composed (``::error::DATA``), re-emitted through :func:`workflow_command`.

    DATA may already carry GitHub's escapes (they are undone first, as the
    runner undoes them) or raw line breaks; either way the line printed is one
    line with its data escaped once. A line that is not an annotation is
    :func:`terminal_text`.
    """
    match = _ANNOTATION.fullmatch(line)
    if match is None:
        return terminal_text(line)
    command, props, data = match.groups()
    properties = {}
    for pair in (props or "").split(","):
        name, sep, value = pair.partition("=")
        if sep:
            properties[name.strip()] = _unescape(_PROPERTY_ESCAPES, value)
    return workflow_command(command, _unescape(_DATA_ESCAPES, data), **properties)
