"""The schema of a ``SCORECARD.md``'s front matter: its field table and its validation (SPEC §13).

:func:`validate_scorecard` lists every way a parsed card breaks the schema-v1
contract of the seed (:data:`REQUIRED_FIELDS`) plus the stricter checks of
SPEC §13; :func:`load_scorecard` parses (:mod:`._parse`) and validates, and
raises :class:`ScorecardInvalidError`. :data:`SEMVER` and
:data:`AGGREGATE_FORMULA` are the version and aggregate rules of a card.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
from collections.abc import Mapping
from typing import Any

from .._constraints import is_integer as _is_int
from .._errors import ScorecardInvalidError
from .._io import finite_float
from ._basis import CTX_SIZE_PATHS
from ._parse import ScorecardDocument, _get, _is_number, parse_scorecard

__all__ = [
    "AGGREGATE_FORMULA",
    "REQUIRED_FIELDS",
    "SEMVER",
    "ScorecardInvalidError",
    "load_scorecard",
    "semver_core",
    "validate_scorecard",
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
        digits = int(math.log10(abs(node))) + 1
        problems.append(f"{path}: must be a finite number; got an integer of about {digits} digits")


class _Checker:
    """Collects ``"field.path: message"`` problems while walking the front matter."""

    def __init__(self, front: Mapping[str, Any]) -> None:
        self.front = front
        self.problems: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def section(self, path: str) -> Mapping[str, Any] | None:
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

    def field(self, mapping: Mapping[str, Any] | None, path: str, *, required: bool = True) -> tuple[bool, Any]:
        if mapping is None:
            return False, None
        key = path.rpartition(".")[2]
        if key not in mapping:
            if required:
                self.add(path, "required field is missing")
            return False, None
        return True, mapping[key]

    def text(self, mapping: Mapping[str, Any] | None, path: str) -> None:
        present, value = self.field(mapping, path)
        if present and (not isinstance(value, str) or not value.strip()):
            self.add(path, f"must be a non-empty string; got {value!r}")

    def positive_int(self, mapping: Mapping[str, Any] | None, path: str) -> int | None:
        present, value = self.field(mapping, path)
        if not present:
            return None
        if not _is_int(value) or value < 1:
            self.add(path, f"must be a positive integer; got {value!r}")
            return None
        return int(value)

    def version(self, mapping: Mapping[str, Any] | None, path: str, *, required: bool) -> None:
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
        name: Any = entry.get(name_key)
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
            value: Any = None
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


def validate_scorecard(doc_or_front_matter: ScorecardDocument | Mapping[str, Any]) -> list[str]:
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
    front = (
        doc_or_front_matter.front_matter if isinstance(doc_or_front_matter, ScorecardDocument) else doc_or_front_matter
    )
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
                f"does not recompute from aggregate.components: {AGGREGATE_FORMULA} = {expected!r}, "
                f"card says {value!r}",
            )
    if components is not None and metrics is not None:
        by_name = {name: (v, w) for name, v, w in metrics}
        listed: set[str] = set()
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


def _check_ctx_size(c: _Checker, front: Mapping[str, Any]) -> None:
    """``ctx_size`` where recorded is a positive integer, and its two places agree."""
    recorded: list[tuple[str, int]] = []
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
                total: Any = row.get("total")
                correct: Any = row.get("correct")
                accuracy: Any = row.get("accuracy")
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

