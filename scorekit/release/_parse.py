"""Read a ``SCORECARD.md`` into its parts: YAML front matter and Markdown body (SPEC §13).

:func:`parse_scorecard` (a file) and :func:`parse_scorecard_text` (text) only
answer "is this a scorecard file at all?" and raise :class:`ScorecardFileError`
with a one-line message when not; they return a :class:`ScorecardDocument`.
Whether its fields keep the contract is :mod:`._schema`'s question
(:func:`~._schema.validate_scorecard`, :func:`~._schema.load_scorecard`).
:func:`reproduction_command_from_body` reads the body's reproduction command.

PyYAML is imported inside :func:`parse_scorecard_text` only (``import
scorekit.release`` stays light).
"""

from __future__ import annotations

import codecs
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import FileProblem, ScorecardFileError
from .._io import read_bounded

__all__ = [
    "MAX_FRONT_MATTER_CHARS",
    "MAX_FRONT_MATTER_DEPTH",
    "MAX_FRONT_MATTER_VALUES",
    "MAX_SCORECARD_BYTES",
    "ScorecardDocument",
    "ScorecardFileError",
    "parse_scorecard",
    "parse_scorecard_text",
    "reproduction_command_from_body",
]

# Bounds on what a reader accepts. A real card is a few kilobytes and its front
# matter five levels deep; these are far above that, and keep a hostile or broken
# file (a YAML alias bomb, a self-referencing alias, megabytes of data, a device
# such as /dev/zero) from hanging or crashing the gate instead of being reported
# as unusable.
MAX_SCORECARD_BYTES = 16_000_000
MAX_FRONT_MATTER_CHARS = 1_000_000
MAX_FRONT_MATTER_VALUES = 100_000
MAX_FRONT_MATTER_DEPTH = 64


# --------------------------------------------------------------------------- document
def _get(mapping: Any, dotted: str, default: Any = None) -> Any:
    """``mapping["a"]["b"]`` for ``"a.b"``; ``default`` when any step is missing or not a mapping."""
    node = mapping
    for key in dotted.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return node


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class ScorecardDocument:
    """A parsed ``SCORECARD.md``: the front matter mapping, the Markdown body, and where it came from.

    The convenience properties read the front matter and return None when a
    field is missing (call :func:`validate_scorecard` or use
    :func:`load_scorecard` before trusting them).

    Examples
    --------
    >>> doc = parse_scorecard_text("---\\nagent: {name: Demo, version: 1.0.0}\\n---\\n# Demo\\n")
    >>> doc.agent_name, doc.version, doc.aggregate_value
    ('Demo', '1.0.0', None)
    """

    front_matter: dict[str, Any]
    body: str
    source: str = "<text>"

    @property
    def agent_name(self) -> str | None:
        value: str | None = _get(self.front_matter, "agent.name")
        return value

    @property
    def version(self) -> str | None:
        value = _get(self.front_matter, "agent.version")
        return None if value is None else str(value)

    @property
    def aggregate_value(self) -> float | None:
        value = _get(self.front_matter, "aggregate.value")
        return float(value) if _is_number(value) else None

    @property
    def metrics(self) -> list[dict[str, Any]]:
        """``results.metrics`` as dicts with name/value/weight (weight defaults to 1.0)."""
        metrics = _get(self.front_matter, "results.metrics")
        if not isinstance(metrics, list):
            return []
        out: list[dict[str, Any]] = []
        for entry in metrics:
            if isinstance(entry, Mapping):
                out.append({"name": entry.get("name"), "value": entry.get("value"), "weight": entry.get("weight", 1.0)})
        return out

    def metric_value(self, name: str) -> float | None:
        """The value of metric ``name`` in ``results.metrics``, or None when absent."""
        for entry in self.metrics:
            if entry["name"] == name:
                return float(entry["value"]) if _is_number(entry["value"]) else None
        return None

    @property
    def config(self) -> dict[str, Any]:
        value = _get(self.front_matter, "recipe.config")
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def dataset_reference(self) -> str | None:
        value: str | None = _get(self.front_matter, "recipe.dataset.reference")
        return value

    @property
    def dataset_size(self) -> int | None:
        value: int | None = _get(self.front_matter, "recipe.dataset.size")
        return value

    @property
    def inherited_from(self) -> str | None:
        value: str | None = _get(self.front_matter, "inherited_from")
        return value

    @property
    def measured_version(self) -> str | None:
        value: str | None = _get(self.front_matter, "measured_version")
        return value

    @property
    def reproduction_command(self) -> str | None:
        """The command in the body's ``## Reproduction`` fenced block (None when not recorded)."""
        return reproduction_command_from_body(self.body)


# --------------------------------------------------------------------------- parse
def parse_scorecard(path: str | os.PathLike[str]) -> ScorecardDocument:
    """Read a ``SCORECARD.md`` file into a :class:`ScorecardDocument` (no validation).

    Accepts a UTF-8 byte-order mark and CRLF line endings.

    Raises
    ------
    ScorecardFileError
        Missing file, a directory, not a regular file (a FIFO, a device), unreadable, larger than
        :data:`MAX_SCORECARD_BYTES`, not UTF-8, or see :func:`parse_scorecard_text`.

    Examples
    --------
    >>> doc = parse_scorecard("SCORECARD.md")  # doctest: +SKIP
    >>> doc.version, doc.aggregate_value  # doctest: +SKIP
    ('0.3.0', 84.67)
    """
    source = os.fspath(path)
    try:  # a regular file only, and bounded: /dev/zero, a FIFO or a huge file never exhausts memory or hangs
        raw = read_bounded(Path(source), MAX_SCORECARD_BYTES)
    except FileProblem as problem:
        reason = {
            "missing": "file does not exist",
            "directory": "is a directory, not a scorecard file",
            "special": f"is not a regular file ({problem.detail}), not a scorecard file",
            "too_large": f"is too large for a scorecard (more than {MAX_SCORECARD_BYTES} bytes)",
        }.get(problem.kind, f"cannot be read ({problem.detail})")
        raise ScorecardFileError(source, reason) from None
    try:
        text = raw.decode("utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else "utf-8")
    except UnicodeDecodeError as exc:
        raise ScorecardFileError(
            source, f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from exc
    return parse_scorecard_text(text, source=source)


def parse_scorecard_text(text: str, *, source: str = "<text>") -> ScorecardDocument:
    """Split scorecard text into YAML front matter (``yaml.safe_load``) and body.

    The first line must be ``---``; the front matter ends at the next line that
    is ``---``. A leading byte-order mark and CRLF line endings are accepted (the
    body is returned with ``\\n`` line endings).

    Raises
    ------
    ScorecardFileError
        No front matter, front matter not closed, invalid YAML (a duplicated
        key included), front matter that is not a mapping (a list, a scalar,
        empty), or front matter beyond :data:`MAX_FRONT_MATTER_CHARS`,
        :data:`MAX_FRONT_MATTER_VALUES` (aliases expanded) or
        :data:`MAX_FRONT_MATTER_DEPTH`.

    Examples
    --------
    >>> doc = parse_scorecard_text("---\\nschema_version: 1\\n---\\n# Title\\n")
    >>> doc.front_matter, doc.body
    ({'schema_version': 1}, '# Title\\n')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        raise ScorecardFileError(source, "no front matter (the first line must be '---')")
    closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if closing is None:
        raise ScorecardFileError(source, "front matter is not closed (no second '---' line)")

    import yaml  # lazy: keep `import scorekit.release` light

    from .._policy import yaml_loader  # SafeLoader that also refuses duplicate keys

    yaml_text = "\n".join(lines[1:closing]) + "\n"
    if len(yaml_text) > MAX_FRONT_MATTER_CHARS:
        raise ScorecardFileError(
            source, f"front matter is too large ({len(yaml_text)} characters; at most {MAX_FRONT_MATTER_CHARS})"
        )
    try:
        # A duplicated key is ambiguous (a reader sees the first value, PyYAML keeps the last).
        front = yaml.load(yaml_text, Loader=yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1 for 1-based, +1 for '---'
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScorecardFileError(source, f"front matter is not valid YAML{where}: {problem}") from exc
    except RecursionError:
        raise ScorecardFileError(source, "front matter is not valid YAML: nested too deeply") from None
    except ValueError as exc:  # a date such as 2026-13-45, an integer literal with thousands of digits
        raise ScorecardFileError(source, f"front matter is not valid YAML: {exc}") from None
    _check_front_matter_bounds(front, source)
    if front is None:
        raise ScorecardFileError(source, "front matter is empty (expected a mapping)")
    if not isinstance(front, dict):
        kind = "a list" if isinstance(front, list) else f"a scalar ({type(front).__name__})"
        raise ScorecardFileError(source, f"front matter is {kind}, not a mapping")
    body = "\n".join(lines[closing + 1:])
    return ScorecardDocument(front_matter=front, body=body, source=source)


def _check_front_matter_bounds(front: Any, source: str) -> None:
    """Refuse front matter deeper than MAX_FRONT_MATTER_DEPTH or with more than MAX_FRONT_MATTER_VALUES values.

    Walked iteratively, counting a value each time it is reached: YAML aliases
    are shared references, so an alias bomb or a self-referencing alias is
    counted as the tree every later reader would walk.
    """
    pending = [(front, 1)]
    seen = 0
    while pending:
        node, depth = pending.pop()
        seen += 1
        if seen > MAX_FRONT_MATTER_VALUES:
            raise ScorecardFileError(
                source, f"front matter is too large (more than {MAX_FRONT_MATTER_VALUES} values, aliases expanded)"
            )
        if depth > MAX_FRONT_MATTER_DEPTH:
            raise ScorecardFileError(
                source, f"front matter is nested too deeply (more than {MAX_FRONT_MATTER_DEPTH} levels)"
            )
        if isinstance(node, dict):
            pending.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, list):
            pending.extend((value, depth + 1) for value in node)



# --------------------------------------------------------------------------- reproduction
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_HEADING = re.compile(r"^#{1,6}\s")


def reproduction_command_from_body(body: str) -> str | None:
    """The content of the first fenced code block under the ``## Reproduction`` heading.

    Returns None when the body has no such section or no fenced block in it
    (e.g. the pointer to the scorecard documentation a card without a command has).

    Examples
    --------
    >>> reproduction_command_from_body("## Reproduction\\n\\n```bash\\nmake eval\\n```\\n")
    'make eval'
    """
    lines = body.replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.strip().lower() == "## reproduction"), None)
    if start is None:
        return None
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if _HEADING.match(line) or line.startswith("<!-- scorecard:notes:start"):
            return None  # the section (or the free-form notes) ended before any fenced block
        match = _FENCE.match(line)
        if match:
            fence = match.group("fence")
            content: list[str] = []
            for inner in lines[i + 1:]:
                stripped = inner.strip()
                if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                    return "\n".join(content)
                content.append(inner)
            return None  # unclosed fence: nothing trustworthy to recover
        i += 1
    return None

