"""Text from evidence made inert for the medium it is written to (SPEC §20): the one escaping module.

Every string a user or another tool supplied — dimension names, case ids,
reasons, details, evaluator and judge names, agent name and version, labels,
file names, values read back from a scorecard, a history or a ``SCORECARD.md``
— is untrusted. Each writer passes it through the function of its medium here,
and nowhere else does escaping:

=================  =============================  ==========================================
medium             function                       what can never happen
=================  =============================  ==========================================
any (first step)   :func:`clean`                  a control, bidi control, lone surrogate or
                                                  non-character reaches a file
HTML (and SVG)     :func:`html_text`              an element, attribute, entity or URL forms
JSON in a          :func:`script_json`            the data closes its ``<script>`` element,
``<script>``                                      opens a comment, or breaks a JS line
Markdown           :func:`markdown_text`          a line break, HTML, a link, an image, an
                                                  autolink, emphasis, math, a table break, or
                                                  a heading / list / quote started by a value
Markdown code      :func:`code_text`              a control, bidi control or line separator
block (literal)                                   inside the block (:func:`markdown_fence`
                                                  keeps the text from closing it)
XML (JUnit)        :func:`xml_text`               a character XML 1.0 forbids (even escaped)
terminal, CI log   :func:`terminal_text`          a line break, an escape sequence, bidi
                                                  reordering, a workflow command
GitHub annotation  :func:`workflow_command`       its data or properties break out
GitHub comment     :func:`no_mentions` (after     an ``@name`` in the data notifies anyone
                   :func:`markdown_text`)
=================  =============================  ==========================================

The Markdown rules (GitHub-flavoured Markdown, which also renders raw HTML):

1. Every line break — LF, CR, CRLF, VT, FF, NEL (U+0085), LINE SEPARATOR
   (U+2028), PARAGRAPH SEPARATOR (U+2029) — becomes ``newline`` (``<br>`` in a
   report, a space in plain Markdown without HTML): a value stays on its line
   and in its table cell, whatever splits lines (CommonMark, a browser,
   Python's ``str.splitlines``).
2. A TAB becomes a space (a tab indents: a code block, a nested list); other
   controls, bidi controls, lone surrogates and non-characters become U+FFFD
   (:func:`clean`).
3. ``&``, ``<`` and ``>`` become entities: no tag, comment (``<!--``),
   ``<details>``, entity or ``<…>`` autolink can form.
4. ``\\``, backtick, ``*``, ``_``, ``[``, ``]``, ``|``, ``~``, ``#``, ``!`` and
   ``$`` are backslash-escaped: no code span, emphasis, link, image, link
   reference, table cell break, strikethrough, heading or math.
5. The ``:`` of ``scheme://`` and the ``.`` of ``www.`` are backslash-escaped:
   no GFM extended autolink.
6. A value that starts (after spaces) with a list marker (``-``, ``+``,
   ``1.``, ``1)`` followed by a space or the end) or a run of ``-``, ``+``,
   ``=`` has that character escaped: a value printed at the start of a line or
   of a list item cannot open a list, a setext heading or a thematic break
   (``>``, ``#`` and ``*`` are always escaped). ``-5%`` and ``84.7%`` stay as
   they are.

All of these are CommonMark backslash escapes or entities, valid inside a
GFM table cell, and :func:`markdown_unescape` inverts them.

Examples
--------
>>> markdown_text("a|b\\u2028<img src=x onerror=alert(1)>")
'a\\\\|b<br>&lt;img src=x onerror=alert(1)&gt;'
>>> markdown_text("- item", newline=" ")
'\\\\- item'
>>> terminal_text("helpfulness\\n::error::forged")
'helpfulness\\\\n::error::forged'
>>> workflow_command("error", "50% of rows\\nfailed", title="gate: a,b")
'::error title=gate%3A a%2Cb::50%25 of rows%0Afailed'
>>> xml_text("a\\x00b\\r\\nc")
'a\\ufffdb\\nc'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "BIDI_CONTROLS",
    "LINE_BREAKS",
    "annotation_line",
    "clean",
    "code_text",
    "html_text",
    "markdown_fence",
    "markdown_text",
    "markdown_unescape",
    "no_mentions",
    "script_json",
    "terminal_text",
    "workflow_command",
    "xml_text",
]

#: The bidirectional formatting characters (a regex character-class body): the
#: embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks
#: U+200E/U+200F and the Arabic letter mark U+061C. They reorder what a reader
#: sees ("Trojan Source"); every output format neutralises them.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

#: Every character some reader takes as the end of a line: LF, VT, FF, CR, NEL,
#: LINE SEPARATOR and PARAGRAPH SEPARATOR (``str.splitlines`` also splits at
#: U+001C–U+001E, which :func:`clean` replaces as controls).
LINE_BREAKS = "\n\x0b\x0c\r\x85\u2028\u2029"


# --------------------------------------------------------------------------- any medium
# C0 controls except TAB/LF/CR, DEL, C1 controls, lone surrogates and the two
# non-characters U+FFFE/U+FFFF (the characters XML 1.0 forbids, parse errors in
# HTML, terminal escapes in Markdown), and the bidi controls. They become U+FFFD.
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff" + BIDI_CONTROLS + "]")


def clean(text: str) -> str:
    """``text`` with control characters (except TAB, LF, CR), bidirectional controls, lone surrogates and
    non-characters replaced by U+FFFD.

    >>> clean("invoice\\u202efdp.exe")
    'invoice\\ufffdfdp.exe'
    """
    return _BAD_CHARS.sub("\ufffd", text)


# --------------------------------------------------------------------------- HTML
def html_text(text: str) -> str:
    """Untrusted text made inert for HTML text or a quoted attribute (and for inline SVG).

    :func:`clean`, then ``& < > " '`` as entities; the ``/`` of ``scheme://``
    becomes ``&#47;`` (the same character on screen), so text from the data
    never reads as a URL in a page that must hold none (SPEC §12).

    >>> html_text('<a href="https://x">')
    '&lt;a href=&quot;https:&#47;&#47;x&quot;&gt;'
    """
    import html

    return html.escape(clean(text), quote=True).replace("://", ":&#47;&#47;")


# --------------------------------------------------------------------------- JSON inside HTML
_SCRIPT_JSON = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                              "\u2029": "\\u2029"})


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return clean(value) if _BAD_CHARS.search(value) else value
    if isinstance(value, dict):
        return {_cleaned(k): _cleaned(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(v) for v in value]
    return value


def script_json(value: Any) -> str:
    """``value`` as JSON text to place inside ``<script type="application/json">``, read back with ``JSON.parse``.

    Every string :func:`clean` first; then ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\uXXXX``
    escapes (the same JSON value): the text can never hold ``</script``, ``<!--`` or a character
    that ends a JavaScript line. NaN and infinities are refused (not JSON).

    >>> script_json({"case": "</script><script>alert(1)</script>"})
    '{"case":"\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e"}'
    """
    import json

    return json.dumps(_cleaned(value), ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).translate(_SCRIPT_JSON)


# --------------------------------------------------------------------------- XML
_XML_LINE_END = re.compile("\r\n?")


def xml_text(text: str) -> str:
    """Untrusted text for an XML 1.0 text node or attribute value (before the serializer's own escaping).

    XML 1.0 forbids most C0 controls, lone surrogates and U+FFFE/U+FFFF even as
    character references: they become U+FFFD (:func:`clean`). A parser turns
    CR and CRLF in text into LF, so they are written as LF: what is written is
    what a reader gets back.
    """
    return _XML_LINE_END.sub("\n", clean(text))


# --------------------------------------------------------------------------- Markdown
_MD_LINE_BREAK = re.compile("\r\n|[" + LINE_BREAKS + "]")
# Backslash first so the escapes added below are not escaped again.
_MD_BACKSLASH = re.compile(r"([\\`*_\[\]|~#!$])")
# GFM extended autolinks start at "scheme://" and "www.": escaping the ":" or "."
# keeps a URL in the data from becoming a clickable link.
_MD_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9]):(?=//)|(?<![a-z0-9])www\.")
# What would open a block where the value starts a line: a bullet list, a setext
# underline or thematic break ("-", "+", "="), an ordered list ("1." / "1)").
_MD_BLOCK_START = re.compile(r"^( *)(?:([-+=])(?=[-+= \n]|$)|(\d{1,9})([.)])(?=[ \n]|$))")
_MD_NEWLINE_MARK = "\n"  # line breaks are unified to LF before ``newline`` replaces them


def _block_start(match: re.Match[str]) -> str:
    spaces, marker, number, delimiter = match.groups()
    return spaces + ("\\" + marker if marker else number + "\\" + delimiter)


def markdown_text(text: str, *, newline: str = "<br>") -> str:
    """Untrusted text made inert for GitHub-flavoured Markdown, in a table cell or in running text.

    The rules are the module's (see above); ``newline`` replaces every line
    break (``<br>``; ``" "`` in Markdown that must hold no HTML).

    >>> markdown_text("a|b <i>[x](javascript:alert(1))")
    'a\\\\|b &lt;i&gt;\\\\[x\\\\](javascript:alert(1))'
    >>> markdown_text("1. first\\u2029## second")
    '1\\\\. first<br>\\\\#\\\\# second'
    """
    text = clean(_MD_LINE_BREAK.sub(_MD_NEWLINE_MARK, text).replace("\t", " "))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_BACKSLASH.sub(r"\\\1", text)
    text = _MD_AUTOLINK.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], text)
    text = _MD_BLOCK_START.sub(_block_start, text, count=1)
    return text.replace(_MD_NEWLINE_MARK, newline)


_MD_UNESCAPE = re.compile(r"\\([\\`*_\[\]|~#!$:.\-+=)])|&lt;|&gt;|&amp;|<br>")
_MD_ENTITY = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "<br>": "\n"}


def markdown_unescape(text: str) -> str:
    """Inverse of :func:`markdown_text` (for readers and tests): ``markdown_unescape(markdown_text(s)) == s``.

    Exact for text without control characters (TAB included) or line breaks other than LF,
    which :func:`markdown_text` replaces or turns into LF.
    """
    return _MD_UNESCAPE.sub(lambda m: m.group(1) if m.group(1) is not None else _MD_ENTITY[m.group(0)], text)


_CODE_LINE_END = re.compile("\r\n?")
_CODE_SEPARATORS = re.compile("[\u2028\u2029]")


def code_text(text: str) -> str:
    """Untrusted text for the inside of a fenced code block, where nothing can be escaped.

    Lines stay lines (CR and CRLF become LF); the Unicode line and paragraph
    separators, which no shell reads as a line end but a viewer may, and every
    control (except TAB and LF), bidi control and lone surrogate become U+FFFD.

    >>> code_text("make eval\\u202e \\u2028x\\r\\n")
    'make eval\\ufffd \\ufffdx\\n'
    """
    return _CODE_SEPARATORS.sub("\ufffd", clean(_CODE_LINE_END.sub("\n", text)))


def markdown_fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (at least three), so ``text`` cannot close it.

    >>> markdown_fence("a ``` b")
    '````'
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


_MENTION = re.compile(r"@(?=[A-Za-z0-9])")


def no_mentions(markdown: str) -> str:
    """Markdown for a GitHub comment in which no ``@name`` (user or team) notifies anyone.

    GitHub turns ``@name`` in a comment's text into a mention that sends a
    notification; a zero-width space after the ``@`` keeps the text as it reads and
    stops the mention. Apply it to a whole comment whose evidence strings were
    already escaped by :func:`markdown_text`.

    >>> no_mentions("case @octocat") == "case @\u200boctocat"
    True
    """
    return _MENTION.sub("@\u200b", markdown)


# --------------------------------------------------------------------------- terminal and CI log
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
    """``str(value)`` safe to print on a terminal or in a CI log.

    A value can never

    * leave its line: control characters (C0, DEL, C1 — ESC, CR, LF, the OSC-8
      hyperlink introducer ``ESC ]``), the Unicode line and paragraph
      separators and lone surrogates are shown visibly (``\\n``, ``\\x1b``,
      ``\\u2028``);
    * reorder what is shown: the bidi controls are shown visibly too
      (``\\u202e``);
    * become a GitHub Actions workflow command: the runner treats a line that
      starts with ``::`` (after leading white space) as a command, and the
      legacy form ``##[command]`` anywhere in a line. A value that starts with
      ``::`` has its first colon shown as ``\\x3a``, and ``##[`` is shown as
      ``##\\x5b``.

    Examples
    --------
    >>> terminal_text("::add-mask::secret")
    '\\\\x3a:add-mask::secret'
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
    ``message`` and the property values may hold user text. GitHub's escaping:
    data ``%`` → ``%25``, CR → ``%0D``, LF → ``%0A``; properties also ``:`` →
    ``%3A``, ``,`` → ``%2C``; other controls, bidi controls and ``##[`` are
    shown visibly as by :func:`terminal_text`.
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
