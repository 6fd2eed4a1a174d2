"""The one escaping module (scorekit/_escape.py): each medium's rules, checked on their own.

What every writer makes of hostile evidence is checked in ``tests/test_hostile_text.py``.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scorekit as sk

LINE_BREAK_CHARS = "\r\x0b\x0c\x85\u2028\u2029\x1c\x1d\x1e"
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _forbidden(char: str) -> bool:
    """A character no writer may let through: controls (except LF), line separators, bidi, surrogates."""
    code = ord(char)
    return (char != "\n" and (code < 0x20 or 0x7F <= code <= 0x9F)) or char in LINE_BREAK_CHARS + BIDI \
        or 0xD800 <= code <= 0xDFFF


def _markdown_tree(text: str) -> list[dict[str, Any]]:
    import mistune

    parse = mistune.create_markdown(renderer=None, plugins=["table", "url", "strikethrough"])
    return parse(text)


def _walk(nodes: list[dict[str, Any]]):
    for node in nodes:
        yield node
        yield from _walk(node.get("children") or [])


_INLINE = {"text", "softbreak", "linebreak", "blank_line", "inline_html"}


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029"])
def test_every_line_break_becomes_the_newline_in_markdown(brk):
    from scorekit._escape import markdown_text

    assert markdown_text(f"a{brk}b") == "a<br>b"
    assert markdown_text(f"a{brk}b", newline=" ") == "a b"


@pytest.mark.parametrize(("value", "escaped"), [
    ("- x", "\\- x"), ("+ x", "\\+ x"), ("= x", "\\= x"), ("  1. x", "  1\\. x"), ("12) x", "12\\) x"),
    ("# x", "\\# x"), ("> x", "&gt; x"), ("<!-- x", "&lt;\\!-- x"), ("$x$", "\\$x\\$"), ("a - b", "a - b"),
])
def test_a_value_cannot_start_a_block(value, escaped):
    from scorekit._escape import markdown_text, markdown_unescape

    assert markdown_text(value) == escaped
    assert markdown_unescape(escaped) == value
    tree = _markdown_tree(f"- {markdown_text(value)}\n")
    assert [n["type"] for n in _walk(tree) if n["type"] not in _INLINE] == ["list", "list_item", "block_text"]


@pytest.mark.parametrize("value", ["-5%", "84.7%", "+1", "2024.1 release", "a = b"])
def test_numbers_and_signs_that_open_no_block_are_left_alone(value):
    from scorekit._escape import markdown_text

    assert markdown_text(value) == value


def test_xml_text_holds_only_what_xml_can():
    from scorekit._escape import xml_text

    text = "".join(map(chr, range(0x20))) + "\ud800\ufffe]]>"
    element = ET.Element("a", v=xml_text(text))
    element.text = xml_text(text)
    back = ET.fromstring(ET.tostring(element, encoding="unicode"))
    want = "\ufffd" * 9 + "\t\n\ufffd\ufffd\n" + "\ufffd" * 18 + "\ufffd\ufffd]]>"
    assert back.text == want and back.get("v") == want


def test_there_is_one_escaping_module():
    """Every writer's escaping is :mod:`scorekit._escape`: no other module of the package escapes on its own."""
    root = Path(sk.__file__).parent
    pattern = re.compile(r"html\.escape\(|markupsafe\.escape|import escape\b|\.replace\(\"\|\"|_BAD_CHARS|"
                         r"_MD_SPECIAL|_UNSAFE\b")
    owners = {"_escape.py"}
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name not in owners and pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_hostile_tests_forbid_every_control_and_separator():
    """The tests' notion of a forbidden character covers every control and line/paragraph separator."""
    for code in range(0x110000):
        char = chr(code)
        if unicodedata.category(char) in ("Cc", "Zl", "Zp") and char != "\n":
            assert _forbidden(char), hex(code)


@given(st.text())
def test_markdown_text_is_one_line_without_controls_and_round_trips(text):
    from scorekit._escape import markdown_text, markdown_unescape

    out = markdown_text(text, newline="<br>")
    assert not any(_forbidden(c) or c == "\n" for c in out)
    assert "<" not in out.replace("<br>", "")
    wanted = "".join("\n" if c in "\n\x0b\x0c\x85\u2028\u2029" else " " if c == "\t" else c
                     for c in text.replace("\r\n", "\n").replace("\r", "\n"))
    wanted = "".join("\ufffd" if _forbidden(c) and c != "\n" else c for c in wanted)
    assert markdown_unescape(out) == wanted


def test_code_text_keeps_lines_and_drops_what_a_code_block_cannot_escape():
    from scorekit._escape import code_text, markdown_fence

    text = code_text("run \u202eevil\x1b[31m\x00\r\nnext\u2028x\u2029y\tz ```")
    assert text == "run \ufffdevil\ufffd[31m\ufffd\nnext\ufffdx\ufffdy\tz ```"
    assert markdown_fence(text) == "````"


def test_script_json_cannot_close_the_script_element_or_break_a_line():
    import json

    from scorekit._escape import script_json

    value = {"</script>": ["</script><!--<script>alert(1)</script>", "a\u2028b\u2029c", "x & y > z",
                           "bidi\u202eexe", "nul\x00"]}
    text = script_json(value)
    assert not set("<>&\u2028\u2029\u202e\x00") & set(text)
    back = json.loads(text)
    assert back == {"</script>": ["</script><!--<script>alert(1)</script>", "a\u2028b\u2029c", "x & y > z",
                                  "bidi\ufffdexe", "nul\ufffd"]}
    with pytest.raises(ValueError):
        script_json({"rate": float("nan")})
