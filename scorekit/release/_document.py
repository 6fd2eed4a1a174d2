"""Read and check a ``SCORECARD.md``: Markdown with YAML front matter (SPEC §13).

Parsing (:func:`parse_scorecard`) only answers "is this a scorecard file at
all?" and raises :class:`ScorecardFileError` with a one-line message when not.
Validation (:func:`validate_scorecard`) lists every way a parsed card breaks
the schema-v1 contract of the seed plus the stricter checks of SPEC §13;
:func:`load_scorecard` does both and raises :class:`ScorecardInvalidError`.

PyYAML is imported inside :func:`parse_scorecard_text` only (``import
scorekit.release`` stays light).
"""

from __future__ import annotations

import codecs
import datetime as _dt
import math
import numbers
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import FileProblem, ScorecardFileError, ScorecardInvalidError
from .._io import finite_float, read_bounded

__all__ = [
    "ABSENT",
    "AGGREGATE_FORMULA",
    "BASIS_FIELDS",
    "CTX_SIZE",
    "CTX_SIZE_PATHS",
    "REQUIRED_FIELDS",
    "SEMVER",
    "ScorecardDocument",
    "ScorecardFileError",
    "ScorecardInvalidError",
    "basis_mismatches",
    "basis_of",
    "ctx_size_of",
    "load_scorecard",
    "parse_scorecard",
    "parse_scorecard_text",
    "reproduction_command_from_body",
    "semver_core",
    "validate_scorecard",
    "variance_stdev",
]

#: MAJOR.MINOR.PATCH with optional pre-release and build metadata (semver.org 2.0.0).
#: ASCII digits only, anchored at both ends (``\Z``: no trailing newline accepted).
SEMVER = re.compile(
    r"^(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)\.(?P<patch>0|[1-9][0-9]*)"
    r"(?:-(?P<prerelease>(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+(?P<build>[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?\Z"
)

#: The human-readable formula string written into ``aggregate.formula``.
AGGREGATE_FORMULA = "round(100 * sum(weight_i * value_i) / sum(weight_i), 2)"

#: The 14 required fields of the seed's table, in its order.
REQUIRED_FIELDS = (
    "schema_version",
    "agent.name",
    "agent.version",
    "recipe.dataset.reference",
    "recipe.dataset.description",
    "recipe.dataset.size",
    "recipe.methodology",
    "recipe.config",
    "results.test_cases_run",
    "results.metrics",
    "aggregate.name",
    "aggregate.formula",
    "aggregate.components",
    "aggregate.value",
)

# Two decimals: an aggregate "recomputes" when it equals round(..., 2) of its components.
_RECOMPUTE_TOLERANCE = 1e-9

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

    front_matter: dict
    body: str
    source: str = "<text>"

    @property
    def agent_name(self) -> str | None:
        return _get(self.front_matter, "agent.name")

    @property
    def version(self) -> str | None:
        value = _get(self.front_matter, "agent.version")
        return None if value is None else str(value)

    @property
    def aggregate_value(self) -> float | None:
        value = _get(self.front_matter, "aggregate.value")
        return float(value) if _is_number(value) else None

    @property
    def metrics(self) -> list[dict]:
        """``results.metrics`` as dicts with name/value/weight (weight defaults to 1.0)."""
        metrics = _get(self.front_matter, "results.metrics")
        if not isinstance(metrics, list):
            return []
        out = []
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
    def config(self) -> dict:
        value = _get(self.front_matter, "recipe.config")
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def dataset_reference(self) -> str | None:
        return _get(self.front_matter, "recipe.dataset.reference")

    @property
    def dataset_size(self) -> int | None:
        return _get(self.front_matter, "recipe.dataset.size")

    @property
    def inherited_from(self) -> str | None:
        return _get(self.front_matter, "inherited_from")

    @property
    def measured_version(self) -> str | None:
        return _get(self.front_matter, "measured_version")

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

    from .._policy import _yaml_loader  # SafeLoader that also refuses duplicate keys

    yaml_text = "\n".join(lines[1:closing]) + "\n"
    if len(yaml_text) > MAX_FRONT_MATTER_CHARS:
        raise ScorecardFileError(
            source, f"front matter is too large ({len(yaml_text)} characters; at most {MAX_FRONT_MATTER_CHARS})"
        )
    try:
        # A duplicated key is ambiguous (a reader sees the first value, PyYAML keeps the last).
        front = yaml.load(yaml_text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
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


def load_scorecard(path: str | os.PathLike[str]) -> ScorecardDocument:
    """Parse and validate a ``SCORECARD.md``.

    Raises
    ------
    ScorecardFileError
        The file is not a scorecard at all (see :func:`parse_scorecard`).
    ScorecardInvalidError
        It parsed but :func:`validate_scorecard` found problems (``.problems``).

    Examples
    --------
    >>> doc = load_scorecard("hub/agents/email/npm/SCORECARD.md")  # doctest: +SKIP
    """
    doc = parse_scorecard(path)
    problems = validate_scorecard(doc)
    if problems:
        raise ScorecardInvalidError(doc.source, problems)
    return doc


# --------------------------------------------------------------------------- reproduction
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_HEADING = re.compile(r"^#{1,6}\s")


def reproduction_command_from_body(body: str) -> str | None:
    """The content of the first fenced code block under the ``## Reproduction`` heading.

    Returns None when the body has no such section or no fenced block in it
    (e.g. "No reproduction command recorded.").

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
            content = []
            for inner in lines[i + 1:]:
                stripped = inner.strip()
                if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                    return "\n".join(content)
                content.append(inner)
            return None  # unclosed fence: nothing trustworthy to recover
        i += 1
    return None


# --------------------------------------------------------------------------- validate
def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def semver_core(version: str) -> tuple[int, int, int]:
    """``(major, minor, patch)`` of a semver string; ValueError naming it when not semver.

    Examples
    --------
    >>> semver_core("0.2.4")
    (0, 2, 4)
    """
    match = SEMVER.match(version) if isinstance(version, str) else None
    if match is None:
        raise ValueError(f"version must be a semver string MAJOR.MINOR.PATCH; got {version!r}")
    return int(match["major"]), int(match["minor"]), int(match["patch"])


def _walk_non_finite(node: Any, path: str, problems: list[str]) -> None:
    if isinstance(node, Mapping):
        for key, value in node.items():
            _walk_non_finite(value, f"{path}.{key}" if path else str(key), problems)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _walk_non_finite(value, f"{path}[{index}]", problems)
    elif isinstance(node, float) and not math.isfinite(node):
        problems.append(f"{path}: must be a finite number; got {node!r}")
    elif isinstance(node, int) and not isinstance(node, bool) and finite_float(node) is None:
        problems.append(f"{path}: must be a finite number; got an integer of about {int(math.log10(abs(node))) + 1} digits")


class _Checker:
    """Collects ``"field.path: message"`` problems while walking the front matter."""

    def __init__(self, front: Mapping) -> None:
        self.front = front
        self.problems: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def section(self, path: str) -> Mapping | None:
        parent_path, _, key = path.rpartition(".")
        parent = self.front if not parent_path else _get(self.front, parent_path)
        if not isinstance(parent, Mapping):
            return None  # the parent is already reported
        if key not in parent:
            self.add(path, "required field is missing")
            return None
        value = parent[key]
        if not isinstance(value, Mapping):
            self.add(path, f"must be a mapping; got {_kind(value)}")
            return None
        return value

    def field(self, mapping: Mapping | None, path: str, *, required: bool = True) -> tuple[bool, Any]:
        if mapping is None:
            return False, None
        key = path.rpartition(".")[2]
        if key not in mapping:
            if required:
                self.add(path, "required field is missing")
            return False, None
        return True, mapping[key]

    def text(self, mapping: Mapping | None, path: str) -> None:
        present, value = self.field(mapping, path)
        if present and (not isinstance(value, str) or not value.strip()):
            self.add(path, f"must be a non-empty string; got {value!r}")

    def positive_int(self, mapping: Mapping | None, path: str) -> int | None:
        present, value = self.field(mapping, path)
        if not present:
            return None
        if not _is_int(value) or value < 1:
            self.add(path, f"must be a positive integer; got {value!r}")
            return None
        return int(value)

    def version(self, mapping: Mapping | None, path: str, *, required: bool) -> None:
        present, value = self.field(mapping, path, required=required)
        if not present or (value is None and not required):
            return
        if not isinstance(value, str) or SEMVER.match(value) is None:
            self.add(path, f"must be a semver string MAJOR.MINOR.PATCH (e.g. 0.2.4); got {value!r}")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"


def _check_weighted_list(
    checker: _Checker, entries: Any, path: str, name_key: str
) -> list[tuple[str, float, float]] | None:
    """Check a list of {name_key, value, weight}; return (name, value, weight) or None when unusable."""
    if not isinstance(entries, list):
        checker.add(path, f"must be a list of {{{name_key}, value, weight}} mappings; got {_kind(entries)}")
        return None
    if not entries:
        checker.add(path, "must list at least one entry")
        return None
    out: list[tuple[str, float, float]] = []
    ok = True
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        if not isinstance(entry, Mapping):
            checker.add(where, f"must be a mapping with {name_key}, value, weight; got {_kind(entry)}")
            ok = False
            continue
        name = entry.get(name_key)
        if not isinstance(name, str) or not name.strip():
            checker.add(f"{where}.{name_key}", f"must be a non-empty string; got {name!r}")
            ok = False
        elif name in seen:
            checker.add(f"{where}.{name_key}", f"duplicate metric name {name!r}")
            ok = False
        else:
            seen.add(name)
        if "value" not in entry:
            checker.add(f"{where}.value", "required field is missing")
            ok = False
            value = None
        else:
            value = entry["value"]
            if finite_float(value) is None:
                checker.add(f"{where}.value", f"must be a finite number in [0, 1]; got {value!r}")
                ok = False
            elif not 0.0 <= value <= 1.0:
                checker.add(f"{where}.value", f"must be in [0, 1]; got {value!r}")
                ok = False
        weight = entry.get("weight", 1.0)  # the seed: each weight defaults to 1.0
        if finite_float(weight) is None:
            checker.add(f"{where}.weight", f"must be a finite number >= 0; got {weight!r}")
            ok = False
        elif weight < 0:
            checker.add(f"{where}.weight", f"must be >= 0; got {weight!r}")
            ok = False
        if ok:
            out.append((name, float(value), float(weight)))
    if not ok:
        return None
    if sum(w for _, _, w in out) <= 0:
        checker.add(path, "weights must not all be zero (the aggregate would be undefined)")
        return None
    return out


def _recompute(components: list[tuple[str, float, float]]) -> float:
    """``round(100 · Σ wᵢvᵢ / Σ wᵢ, 2)`` over ``(name, value, weight)``, summed left to right like the source project.

    The weights are first scaled by a power of two (exact in binary floating
    point): the result is bit-for-bit the plain formula's, except where the plain
    formula would underflow or overflow (a weight of 5e-324 gave 0.0, not the value).
    """
    exponent = math.frexp(max(w for _, _, w in components))[1]
    weighted_sum = total = 0.0
    for _, value, weight in components:
        scaled = math.ldexp(weight, -exponent)
        weighted_sum += scaled * value
        total += scaled
    return round(100.0 * weighted_sum / total, 2)


def validate_scorecard(doc_or_front_matter: ScorecardDocument | Mapping) -> list[str]:
    """Every problem with a parsed scorecard, as ``"field.path: message"``; ``[]`` when valid.

    Checks the seed's 14 required fields and SPEC §13's stricter rules:
    ``schema_version == 1``; semver ``agent.version`` (and ``inherited_from`` /
    ``measured_version`` when not null); no NaN/inf anywhere; metric values in
    [0, 1]; weights finite, ≥ 0, not all zero; positive integer
    ``test_cases_run`` ≤ ``recipe.dataset.size``; ``aggregate.value``
    recomputes from ``aggregate.components`` to 2 dp and the components agree
    with ``results.metrics`` (weight-0 metrics may be omitted from the
    components); an ``acceptance_variance`` block, when present and not null
    (null, as written for a single run, is the same as absent), has a finite
    ``mean`` and a finite, non-negative (or null) ``stdev`` per metric;
    ``ctx_size``, in ``recipe.environment`` and/or ``recipe.config``, is a
    positive integer and the two agree; the optional ``environment``,
    ``breakdown`` and ``performance`` blocks are well-formed.

    Examples
    --------
    >>> validate_scorecard({"schema_version": 2})[:2]
    ['schema_version: must be 1; got 2', 'agent: required field is missing']
    """
    front = doc_or_front_matter.front_matter if isinstance(doc_or_front_matter, ScorecardDocument) else doc_or_front_matter
    if not isinstance(front, Mapping):
        return [f"front matter: must be a mapping; got {_kind(front)}"]
    c = _Checker(front)

    # schema_version
    if "schema_version" not in front:
        c.add("schema_version", "required field is missing")
    elif not _is_int(front["schema_version"]) or front["schema_version"] != 1:
        c.add("schema_version", f"must be 1; got {front['schema_version']!r}")

    # agent
    agent = c.section("agent")
    c.text(agent, "agent.name")
    c.version(agent, "agent.version", required=True)

    # recipe
    recipe = c.section("recipe")
    dataset = c.section("recipe.dataset") if recipe is not None else None
    c.text(dataset, "recipe.dataset.reference")
    c.text(dataset, "recipe.dataset.description")
    size = c.positive_int(dataset, "recipe.dataset.size")
    c.text(recipe, "recipe.methodology")
    config = c.section("recipe.config") if recipe is not None else None
    # null is what the source project's adapter writes for a single run: the same as absent.
    if config is not None and config.get("acceptance_variance") is not None:
        _check_variance(c, config["acceptance_variance"])
    if recipe is not None and "environment" in recipe and recipe["environment"] is not None:
        _check_environment(c, recipe["environment"])
    if recipe is not None:
        _check_ctx_size(c, front)

    # results
    results = c.section("results")
    run = c.positive_int(results, "results.test_cases_run")
    if run is not None and size is not None and run > size:
        c.add("results.test_cases_run", f"must be <= recipe.dataset.size ({size}); got {run}")
    present, metrics_raw = c.field(results, "results.metrics")
    metrics = _check_weighted_list(c, metrics_raw, "results.metrics", "name") if present else None
    if results is not None and results.get("breakdown") is not None:
        _check_breakdown(c, results["breakdown"])
    if results is not None and results.get("performance") is not None:
        _check_performance(c, results["performance"])

    # aggregate
    aggregate = c.section("aggregate")
    c.text(aggregate, "aggregate.name")
    c.text(aggregate, "aggregate.formula")
    present, comps_raw = c.field(aggregate, "aggregate.components")
    components = _check_weighted_list(c, comps_raw, "aggregate.components", "metric") if present else None
    present, value = c.field(aggregate, "aggregate.value")
    value_ok = False
    if present:
        if finite_float(value) is None:
            c.add("aggregate.value", f"must be a finite number in [0, 100]; got {value!r}")
        elif not 0.0 <= value <= 100.0:
            c.add("aggregate.value", f"must be in [0, 100]; got {value!r}")
        else:
            value_ok = True
    if components is not None and value_ok:
        expected = _recompute(components)
        if abs(expected - float(value)) > _RECOMPUTE_TOLERANCE:
            c.add(
                "aggregate.value",
                f"does not recompute from aggregate.components: {AGGREGATE_FORMULA} = {expected!r}, card says {value!r}",
            )
    if components is not None and metrics is not None:
        by_name = {name: (v, w) for name, v, w in metrics}
        listed = set()
        for index, (name, v, w) in enumerate(components):
            listed.add(name)
            if name not in by_name:
                c.add(f"aggregate.components[{index}].metric", f"{name!r} is not in results.metrics")
            elif by_name[name] != (v, w):
                mv, mw = by_name[name]
                c.add(
                    f"aggregate.components[{index}]",
                    f"{name!r} has value {v!r}, weight {w!r} but results.metrics says value {mv!r}, weight {mw!r}",
                )
        for name, _, w in metrics:
            if w > 0 and name not in listed:
                c.add("aggregate.components", f"metric {name!r} has weight {w!r} > 0 but is not a component")

    # optional top-level fields
    c.version(front, "inherited_from", required=False)
    c.version(front, "measured_version", required=False)
    if front.get("generated_at") is not None and not isinstance(front["generated_at"], (str, _dt.date)):
        c.add("generated_at", f"must be an ISO 8601 timestamp string; got {front['generated_at']!r}")

    # NaN/inf anywhere (including blocks nobody else checks); a field already
    # reported above is not reported twice.
    non_finite: list[str] = []
    _walk_non_finite(front, "", non_finite)
    reported = {p.split(": ", 1)[0] for p in c.problems}
    c.problems += [p for p in non_finite if p.split(": ", 1)[0] not in reported]
    return list(dict.fromkeys(c.problems))  # one report per problem, first-seen order


def _check_variance(c: _Checker, block: Any) -> None:
    path = "recipe.config.acceptance_variance"
    if not isinstance(block, Mapping):
        c.add(path, f"must be a mapping; got {_kind(block)}")
        return
    if "n_runs" in block and (not _is_int(block["n_runs"]) or block["n_runs"] < 1):
        c.add(f"{path}.n_runs", f"must be a positive integer; got {block['n_runs']!r}")
    for name, stats in block.items():
        if name == "n_runs" or not isinstance(stats, Mapping):
            continue  # additive scalars are allowed; only per-metric mappings are read
        where = f"{path}.{name}"
        if "mean" not in stats:
            c.add(f"{where}.mean", "required field is missing")
        elif finite_float(stats["mean"]) is None:
            c.add(f"{where}.mean", f"must be a finite number; got {stats['mean']!r}")
        if "stdev" not in stats:
            c.add(f"{where}.stdev", "required field is missing (null when undefined)")
        elif stats["stdev"] is not None:
            stdev = stats["stdev"]
            if finite_float(stdev) is None:
                c.add(f"{where}.stdev", f"must be a finite number >= 0 or null; got {stdev!r}")
            elif stdev < 0:
                c.add(f"{where}.stdev", f"must be >= 0; got {stdev!r}")
        for key, value in stats.items():
            if key in ("mean", "stdev") or value is None:
                continue
            if key == "n" and (not _is_int(value) or value < 1):
                c.add(f"{where}.n", f"must be a positive integer; got {value!r}")
            elif key != "n" and not _is_number(value):
                c.add(f"{where}.{key}", f"must be a number or null; got {value!r}")


def _check_environment(c: _Checker, env: Any) -> None:
    path = "recipe.environment"
    if not isinstance(env, Mapping):
        c.add(path, f"must be a mapping; got {_kind(env)}")
        return
    for key in ("gaia_commit", "lemonade_version", "model", "hardware"):
        if key in env and env[key] is not None and not isinstance(env[key], (str, int, float)):
            c.add(f"{path}.{key}", f"must be a string; got {_kind(env[key])}")
    if "hardware" in env and env["hardware"] is not None and not isinstance(env["hardware"], str):
        c.add(f"{path}.hardware", f"must be a hardware class descriptor string; got {env['hardware']!r}")
    temperature = env.get("temperature")
    if temperature is not None and (finite_float(temperature) is None or temperature < 0):
        c.add(f"{path}.temperature", f"must be a finite number >= 0; got {temperature!r}")


def _check_ctx_size(c: _Checker, front: Mapping) -> None:
    """``ctx_size`` where recorded is a positive integer, and its two places agree."""
    recorded = []
    for path in CTX_SIZE_PATHS:
        value = _get(front, path)
        if value is None:
            continue  # absent, null, or under a section that is not a mapping (reported elsewhere)
        if not _is_int(value) or value < 1:
            c.add(path, f"must be a positive integer (the context size in tokens) or null; got {value!r}")
            return
        recorded.append((path, int(value)))
    if len(recorded) == 2 and recorded[0][1] != recorded[1][1]:
        (first, a), (second, b) = recorded
        c.add(first, f"{a} disagrees with {second} {b}: a card is measured under one context size")


def _check_breakdown(c: _Checker, block: Any) -> None:
    path = "results.breakdown"
    if not isinstance(block, Mapping):
        c.add(path, f"must be a mapping; got {_kind(block)}")
        return
    per_category = block.get("per_category")
    if per_category is not None:
        if not isinstance(per_category, list):
            c.add(f"{path}.per_category", f"must be a list; got {_kind(per_category)}")
        else:
            for index, row in enumerate(per_category):
                where = f"{path}.per_category[{index}]"
                if not isinstance(row, Mapping):
                    c.add(where, f"must be a mapping; got {_kind(row)}")
                    continue
                if not isinstance(row.get("category"), str) or not row.get("category"):
                    c.add(f"{where}.category", f"must be a non-empty string; got {row.get('category')!r}")
                total, correct, accuracy = row.get("total"), row.get("correct"), row.get("accuracy")
                if not _is_int(total) or total < 0:
                    c.add(f"{where}.total", f"must be an integer >= 0; got {total!r}")
                elif not _is_int(correct) or not 0 <= correct <= total:
                    c.add(f"{where}.correct", f"must be an integer in [0, total={total}]; got {correct!r}")
                if accuracy is not None and (not _is_number(accuracy) or not 0.0 <= accuracy <= 1.0):
                    c.add(f"{where}.accuracy", f"must be a number in [0, 1]; got {accuracy!r}")
    confusions = block.get("top_confusions")
    if confusions is not None:
        if not isinstance(confusions, list):
            c.add(f"{path}.top_confusions", f"must be a list; got {_kind(confusions)}")
        else:
            for index, row in enumerate(confusions):
                where = f"{path}.top_confusions[{index}]"
                if not isinstance(row, Mapping):
                    c.add(where, f"must be a mapping; got {_kind(row)}")
                    continue
                for key in ("expected", "predicted"):
                    if not isinstance(row.get(key), str):
                        c.add(f"{where}.{key}", f"must be a string; got {row.get(key)!r}")
                if not _is_int(row.get("count")) or row["count"] < 1:
                    c.add(f"{where}.count", f"must be a positive integer; got {row.get('count')!r}")


def _check_performance(c: _Checker, block: Any) -> None:
    path = "results.performance"
    if not isinstance(block, Mapping):
        c.add(path, f"must be a mapping; got {_kind(block)}")
        return
    for key, value in block.items():
        if value is None:
            continue  # not measured
        if not _is_number(value):
            c.add(f"{path}.{key}", f"must be a number or null; got {value!r}")
        elif finite_float(value) is not None and value < 0:
            c.add(f"{path}.{key}", f"must be >= 0; got {value!r}")


# --------------------------------------------------------------------------- basis
#: The basis field of the context size: read by :func:`ctx_size_of` from either of
#: :data:`CTX_SIZE_PATHS`, not from one dotted path.
CTX_SIZE = "ctx_size"

#: Where a card records its context size: ``recipe.environment.ctx_size`` (where the
#: source project's adapter writes it) or ``recipe.config.ctx_size``. A card that
#: records both with different values is invalid.
CTX_SIZE_PATHS: tuple[str, ...] = ("recipe.environment.ctx_size", "recipe.config.ctx_size")

#: What changes the thing measured (SPEC §13: ``ctx_size``, ``model``, dataset
#: reference and size), plus ``limit``: the seed warns that aggregates are
#: comparable only at a consistent ``--limit``.
BASIS_FIELDS: tuple[str, ...] = (
    CTX_SIZE,
    "recipe.config.model",
    "recipe.dataset.reference",
    "recipe.dataset.size",
    "recipe.config.limit",
)

class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


#: Stands for a basis field a card does not record (``None`` is a recorded null).
ABSENT: Any = _Absent()


def ctx_size_of(front_matter: Mapping[str, Any]) -> Any:
    """The context size a card was measured under, or :data:`ABSENT` when it records none.

    Read from ``recipe.environment.ctx_size``, else ``recipe.config.ctx_size``;
    a null in either place is "not recorded". (:func:`validate_scorecard`
    refuses a card whose two places disagree.)

    Examples
    --------
    >>> ctx_size_of({"recipe": {"environment": {"ctx_size": 16384}, "config": {}}})
    16384
    >>> ctx_size_of({"recipe": {"environment": {"ctx_size": None}, "config": {"ctx_size": 8192}}})
    8192
    >>> ctx_size_of({"recipe": {"config": {}}})
    (absent)
    """
    for path in CTX_SIZE_PATHS:
        value = _get(front_matter, path)
        if value is not None:
            return value
    return ABSENT


def basis_of(front_matter: Mapping[str, Any], *, fields: Sequence[str] = BASIS_FIELDS) -> dict[str, Any]:
    """``{field: value}`` of a card's basis; :data:`ABSENT` for a field it does not record.

    Fields are dotted front-matter paths, except :data:`CTX_SIZE` (``"ctx_size"``),
    read by :func:`ctx_size_of` from ``recipe.environment`` or ``recipe.config``.

    Examples
    --------
    >>> basis_of({"recipe": {"config": {"model": "m1"}}}, fields=["recipe.config.model", "recipe.config.limit"])
    {'recipe.config.model': 'm1', 'recipe.config.limit': (absent)}
    >>> basis_of({"recipe": {"environment": {"ctx_size": 16384}}}, fields=["ctx_size"])
    {'ctx_size': 16384}
    """
    return {field: ctx_size_of(front_matter) if field == CTX_SIZE else _get(front_matter, field, ABSENT)
            for field in fields}


def basis_mismatches(candidate: Mapping[str, Any], reference: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(field, candidate value, reference value)`` for each field of ``candidate`` that differs.

    The one basis comparison of the gate (candidate card vs baseline card, both
    from :func:`basis_of`) and of ``refresh-check`` (the planned run's basis vs
    the committed card's). A field absent on both sides is equal; absent on one
    side (:data:`ABSENT`) is a difference; ``True`` is not ``1`` here.

    Examples
    --------
    >>> basis_mismatches({"recipe.config.model": "m1", "recipe.config.limit": 5},
    ...                  {"recipe.config.model": "m2", "recipe.config.limit": 5})
    [('recipe.config.model', 'm1', 'm2')]
    """
    out = []
    for field, mine in candidate.items():
        theirs = reference.get(field, ABSENT)
        if not _same_basis_value(mine, theirs):
            out.append((field, mine, theirs))
    return out


def _same_basis_value(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


# --------------------------------------------------------------------------- variance lookup
def variance_stdev(doc: ScorecardDocument | Mapping, metric: str | None = None) -> float | None:
    """The recorded run-to-run stdev (on the [0, 1] scale) of ``metric``.

    Read from ``recipe.config.acceptance_variance.<metric>.stdev``. ``metric``
    defaults to the metric with weight > 0 in ``results.metrics`` (the first
    one if several). Returns None when no block, no entry for the metric, or a
    null stdev (a single run) is recorded.

    Examples
    --------
    >>> fm = {"results": {"metrics": [{"name": "acc", "value": 0.8, "weight": 1.0}]},
    ...       "recipe": {"config": {"acceptance_variance": {"n_runs": 3, "acc": {"mean": 0.8, "stdev": 0.01}}}}}
    >>> variance_stdev(fm)
    0.01
    """
    front = doc.front_matter if isinstance(doc, ScorecardDocument) else doc
    if metric is None:
        metrics = _get(front, "results.metrics")
        for entry in metrics if isinstance(metrics, list) else []:
            if isinstance(entry, Mapping) and _is_number(entry.get("weight", 1.0)) and entry.get("weight", 1.0) > 0:
                metric = entry.get("name")
                break
        if metric is None:
            return None
    block = _get(front, "recipe.config.acceptance_variance")
    if not isinstance(block, Mapping):
        return None
    stats = block.get(metric)
    if not isinstance(stats, Mapping):
        return None
    stdev = stats.get("stdev")
    return float(stdev) if _is_number(stdev) else None
