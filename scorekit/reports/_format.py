"""Shared formatting for the Markdown and HTML reports (and atomic file writes).

Every report renders the same dictionary (``Scorecard.to_dict()``), and every
number a reader compares between formats goes through one function here, so the
Markdown and HTML reports cannot disagree about ``84.7%``.

Rules (SPEC §12):

* rates, interval bounds, thresholds, coverage, consistency and pass^k are
  percentages with one decimal (``84.7%``);
* an undefined number (``None`` in the dictionary, NaN in the DataFrame) is shown
  as :data:`UNDEFINED` ("—"), never as ``0%``;
* a value that is not exactly 1 is never shown as ``100.0%`` and a value that is
  not exactly 0 never as ``0.0%`` (``99.96%`` is shown as ``99.9%``): a FAIL
  against a threshold of 100% must not read ``100.0%``;
* long lists are cut at :data:`LIST_LIMIT` items with "… and N more (see …)".
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, TypeVar

__all__ = [
    "DECISION_MEANING",
    "LIST_LIMIT",
    "UNDEFINED",
    "atomic_write",
    "clean_text",
    "evidence_row_count",
    "fmt_bool",
    "fmt_ci",
    "fmt_count",
    "fmt_pct",
    "fmt_value",
    "md_escape",
    "md_unescape",
    "more_text",
    "pass_k_columns",
    "truncate",
]

T = TypeVar("T")

#: How undefined numbers are shown (never ``0%``).
UNDEFINED = "—"
#: Longest list a report prints before "… and N more".
LIST_LIMIT = 50

#: What each decision means (seed document, "Scorecard and release scope").
DECISION_MEANING = {
    "PASS": "Complete release evidence meets every included and required threshold.",
    "FAIL": "A measured threshold or a required compatible regression comparison fails.",
    "INCOMPLETE": "Required evaluation evidence or comparison is missing or unusable.",
    "TRIAGE": "A partial or exploratory scan; never a passing release gate.",
    "SELF_TEST": "An evaluator demonstration, including mock judges; never a passing release gate.",
}


# --------------------------------------------------------------------------- numbers
def _is_undefined(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return value is None
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def fmt_pct(value: Any) -> str:
    """A proportion in [0, 1] as a percentage with one decimal; undefined → "—".

    >>> fmt_pct(0.8473), fmt_pct(None), fmt_pct(1.0), fmt_pct(0.99996), fmt_pct(0.0)
    ('84.7%', '—', '100.0%', '99.9%', '0.0%')
    """
    if _is_undefined(value):
        return UNDEFINED
    x = float(value)
    pct = round(100.0 * x, 1)
    if pct >= 100.0 and x < 1.0:
        pct = 99.9
    elif pct <= 0.0 and x > 0.0:
        pct = 0.1
    return f"{pct:.1f}%"


def fmt_ci(low: Any, high: Any) -> str:
    """An interval as ``"79.5% – 95.3%"``; "—" when either bound is undefined."""
    if _is_undefined(low) or _is_undefined(high):
        return UNDEFINED
    return f"{fmt_pct(low)} – {fmt_pct(high)}"


def fmt_count(value: Any) -> str:
    """An integer count with thousands separators (``16,667``); undefined → "—"."""
    if _is_undefined(value):
        return UNDEFINED
    return f"{int(value):,}"


def fmt_bool(value: Any) -> str:
    """``true`` / ``false`` as in the JSON; None → "—"."""
    if value is None:
        return UNDEFINED
    return "true" if value else "false"


def fmt_value(value: Any) -> str:
    """Any scalar of the dictionary as short text (numbers as in the JSON)."""
    if value is None:
        return UNDEFINED
    if isinstance(value, bool):
        return fmt_bool(value)
    if isinstance(value, float):
        return UNDEFINED if not math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt_value(v) for v in value) if value else UNDEFINED
    if isinstance(value, dict):
        return ", ".join(f"{k}: {fmt_value(v)}" for k, v in value.items()) if value else UNDEFINED
    return str(value)


def pass_k_columns(dimensions: Sequence[dict[str, Any]]) -> list[str]:
    """The k values reported by any dimension, as strings sorted numerically."""
    keys: set[str] = set()
    for dim in dimensions:
        keys.update(str(k) for k in (dim.get("pass_k") or {}))

    def order(k: str) -> tuple[int, float, str]:
        try:
            return (0, float(k), k)
        except ValueError:
            return (1, 0.0, k)

    return sorted(keys, key=order)


# --------------------------------------------------------------------------- lists
def truncate(items: Iterable[T], limit: int = LIST_LIMIT) -> tuple[list[T], int]:
    """The first ``limit`` items and how many were left out."""
    items = list(items)
    if len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit


def more_text(omitted: int, where: str = "evidence.parquet") -> str:
    """``"… and 12 more (see evidence.parquet)"``; empty when nothing was omitted."""
    if omitted <= 0:
        return ""
    return f"… and {omitted:,} more (see {where})"


def evidence_row_count(data: dict[str, Any], evidence_rows: int | None = None) -> int | None:
    """Rows in ``evidence.parquet``: the explicit count, else the dictionary's own.

    Uses ``data["evidence"]["rows"]`` when the scorecard carries it, else the
    validation counts (every row is labeled, unlabeled or invalid).
    """
    if evidence_rows is not None:
        return int(evidence_rows)
    evidence = data.get("evidence")
    if isinstance(evidence, dict) and isinstance(evidence.get("rows"), int):
        return int(evidence["rows"])
    validation = data.get("validation") or {}
    try:
        return int(validation["labeled"]) + int(validation["unlabeled"]) + int(validation["invalid"])
    except (KeyError, TypeError, ValueError):
        return None


# --------------------------------------------------------------------------- text
# C0 controls except TAB/LF/CR, DEL, C1 controls, lone surrogates and the two
# non-characters U+FFFE/U+FFFF: parse errors in HTML and invisible or dangerous
# (terminal escapes) in Markdown. They become U+FFFD.
_BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean_text(value: Any) -> str:
    """``str(value)`` with control characters, lone surrogates and non-characters replaced by U+FFFD."""
    text = value if isinstance(value, str) else fmt_value(value)
    return _BAD_CHARS.sub("\ufffd", text)


# Backslash first so the escapes added below are not escaped again.
_MD_BACKSLASH = re.compile(r"([\\`*_\[\]|~#!])")


def md_escape(value: Any) -> str:
    """Untrusted text made inert for Markdown: no HTML, no link, no emphasis, no table break.

    ``&``, ``<`` and ``>`` become HTML entities (so no tag or autolink can form);
    ``\\``, backtick, ``*``, ``_``, ``[``, ``]``, ``|``, ``~``, ``#`` and ``!`` are
    backslash-escaped (CommonMark/GFM escapes, also valid inside table cells); a
    line break becomes ``<br>`` so it cannot end a table row or start a block.

    >>> md_escape("a|b <i>[x](javascript:alert(1))")
    'a\\\\|b &lt;i&gt;\\\\[x\\\\](javascript:alert(1))'
    """
    text = clean_text(value)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_BACKSLASH.sub(r"\\\1", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\n", "<br>")


_MD_UNESCAPE = re.compile(r"\\([\\`*_\[\]|~#!])|&lt;|&gt;|&amp;|<br>")
_MD_ENTITY = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "<br>": "\n"}


def md_unescape(text: str) -> str:
    """Inverse of :func:`md_escape` (for readers and tests): ``md_unescape(md_escape(s)) == s``.

    Exact for text without control characters or carriage returns, which
    :func:`md_escape` replaces or normalises.
    """
    return _MD_UNESCAPE.sub(lambda m: m.group(1) if m.group(1) is not None else _MD_ENTITY[m.group(0)], text)


# --------------------------------------------------------------------------- files
def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], None]) -> Path:
    """Write ``path`` atomically: ``write(tmp)`` fills a temporary file in the same
    directory, which then replaces ``path`` (``os.replace``). A reader never sees
    half a file; on error the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; reports get the usual permissions (read once, at import).
_UMASK = _read_umask()
