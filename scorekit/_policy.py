"""The evaluation policy (SPEC §7): what is in scope, what each dimension must meet.

A policy is read from a YAML or JSON file, a mapping, or ``None`` (all defaults)
by :func:`load_policy` and normalised into a frozen :class:`Policy`. Every key
is optional; unknown keys at any level are an error, as are values of the wrong
type or out of range. Every problem is a one-line :class:`~scorekit.PolicyError`
naming the file (when there is one), the dotted key path and the bad value::

    policy.yml: gate.thresholds.pii: must be a finite number in [0, 1]; got 1.5

:meth:`Policy.to_dict` gives the normalised policy with every default filled in
(the form that is recorded and, without its ``regression`` section, hashed:
:meth:`Policy.hash_payload`, SPEC §10). Numbers are normalised to their kind
(``thresholds: {pii: 1}`` and ``{pii: 1.0}`` are the same policy), lists whose
order carries no meaning (``required_dimensions``, ``judges.panel``, ``pass_k``)
are sorted.

This module imports nothing heavy at import time; PyYAML is imported only when
a YAML file is read.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._errors import InvalidParameterError, PolicyError, StrictJSONError
from ._io import decode_utf8, finite_float, loads_strict, read_input_bytes

__all__ = [
    "BUDGET_KEYS",
    "BUILTIN_THRESHOLDS",
    "DETERMINISTIC_DIMENSIONS",
    "PARTIAL_RULES",
    "PURPOSES",
    "REGRESSION_METHODS",
    "THRESHOLD_BASES",
    "Gate",
    "Judges",
    "PassKThreshold",
    "Policy",
    "Regression",
    "load_policy",
]

#: Built-in default pass-rate thresholds of the deterministic dimensions (SPEC §7).
BUILTIN_THRESHOLDS: Mapping[str, float] = MappingProxyType(
    {
        "task_completion": 0.9,
        "tool_call": 0.95,
        "action_correctness": 0.95,
        "pii": 1.0,
        "injection": 1.0,
        "cost": 0.95,
        "latency": 0.95,
    }
)

#: The built-in deterministic dimensions (SPEC §3); any other name is judged.
DETERMINISTIC_DIMENSIONS: tuple[str, ...] = tuple(BUILTIN_THRESHOLDS)

PURPOSES: tuple[str, ...] = ("release", "exploratory", "self_test")
THRESHOLD_BASES: tuple[str, ...] = ("point", "wilson_lower", "cluster_lower")
REGRESSION_METHODS: tuple[str, ...] = ("interval", "newcombe", "point", "paired")
BUDGET_KEYS: tuple[str, ...] = ("cost_usd", "latency_ms")

# Integers beyond ±(2^53−1) do not survive a round trip through JSON tools.
_MAX_INT = 2**53 - 1

_TOP_KEYS = ("purpose", "confidence", "pass_k", "gate", "judges", "regression", "budgets", "partial")
#: The ``partial`` rules (SPEC §7) besides ``{min: x}``.
PARTIAL_RULES: tuple[str, ...] = ("fail", "abstain")
_GATE_KEYS = (
    "required_dimensions",
    "thresholds",
    "threshold_basis",
    "min_samples",
    "min_coverage",
    "pass_k_thresholds",
)
_JUDGES_KEYS = ("panel", "pass_score")
_REGRESSION_KEYS = ("required", "baseline", "method", "max_drop")
_PASS_K_THRESHOLD_KEYS = ("k", "min")

_SUFFIXES = {".yml": "yaml", ".yaml": "yaml", ".json": "json"}


def _frozen_map(data: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """A read-only mapping with sorted keys (so iteration order is deterministic)."""
    data = data or {}
    return MappingProxyType({k: data[k] for k in sorted(data)})


# --------------------------------------------------------------------------- dataclasses
@dataclass(frozen=True, slots=True)
class PassKThreshold:
    """One ``gate.pass_k_thresholds`` entry: pass^k at ``k`` trials must be ≥ ``min``."""

    k: int
    min: float

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "min": self.min}


@dataclass(frozen=True, slots=True)
class Gate:
    """The ``gate`` section: scope and the bars each dimension must meet."""

    required_dimensions: tuple[str, ...] = ()
    thresholds: Mapping[str, float] = field(default_factory=_frozen_map)
    threshold_basis: str = "point"
    min_samples: int = 1
    min_coverage: float = 1.0
    pass_k_thresholds: Mapping[str, PassKThreshold] = field(default_factory=_frozen_map)

    def __hash__(self) -> int:  # the mappings are read-only views: hash their content
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_coverage": self.min_coverage,
            "min_samples": self.min_samples,
            "pass_k_thresholds": {
                name: self.pass_k_thresholds[name].to_dict() for name in sorted(self.pass_k_thresholds)
            },
            "required_dimensions": sorted(self.required_dimensions),
            "threshold_basis": self.threshold_basis,
            "thresholds": {name: self.thresholds[name] for name in sorted(self.thresholds)},
        }


@dataclass(frozen=True, slots=True)
class Judges:
    """The ``judges`` section: the declared panel (empty: each row's judges) and pass score."""

    panel: tuple[str, ...] = ()
    pass_score: int = 4

    def to_dict(self) -> dict[str, Any]:
        return {"panel": sorted(self.panel), "pass_score": self.pass_score}


@dataclass(frozen=True, slots=True)
class Regression:
    """The ``regression`` section: how to compare with a baseline (not how to score)."""

    required: bool = False
    baseline: str | None = None
    method: str = "interval"
    max_drop: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "max_drop": self.max_drop,
            "method": self.method,
            "required": self.required,
        }


@dataclass(frozen=True, slots=True)
class Policy:
    """A validated, normalised policy (SPEC §7). Build it with :func:`load_policy`.

    Attributes
    ----------
    purpose : {"release", "exploratory", "self_test"}
    confidence : float
        Confidence level of the Wilson intervals, in (0, 1).
    pass_k : tuple of int
        The k values reported for pass^k / pass@k, sorted and de-duplicated.
    gate : Gate
    judges : Judges
    regression : Regression
    budgets : mapping of str to float
        ``cost_usd`` and/or ``latency_ms``; empty when the policy sets none.
    partial : "fail", "abstain" or mapping {"min": float}
        How a row's ``score`` strictly between 0 and 1 counts (SPEC §7): FAIL,
        ABSTAIN, or PASS at ``score >= min``.
    """

    purpose: str = "release"
    confidence: float = 0.95
    pass_k: tuple[int, ...] = (1, 2, 4, 8)
    gate: Gate = field(default_factory=Gate)
    judges: Judges = field(default_factory=Judges)
    regression: Regression = field(default_factory=Regression)
    budgets: Mapping[str, float] = field(default_factory=_frozen_map)
    partial: str | Mapping[str, float] = "fail"

    def __hash__(self) -> int:  # the mappings are read-only views: hash their content
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    @property
    def strict(self) -> bool:
        """True unless the purpose is exploratory or self_test: strict validation is
        mandatory for release and cannot be switched off (fail closed)."""
        return self.purpose not in ("exploratory", "self_test")

    def to_dict(self) -> dict[str, Any]:
        """The normalised policy as plain JSON-compatible data, every default filled in.

        Keys are sorted at every level, so equal policies give equal JSON.
        """
        return {
            "budgets": {name: self.budgets[name] for name in sorted(self.budgets)},
            "confidence": self.confidence,
            "gate": self.gate.to_dict(),
            "judges": self.judges.to_dict(),
            "partial": self.partial if isinstance(self.partial, str) else {"min": self.partial["min"]},
            "pass_k": sorted(self.pass_k),
            "purpose": self.purpose,
            "regression": self.regression.to_dict(),
        }

    def hash_payload(self) -> dict[str, Any]:
        """:meth:`to_dict` without the ``regression`` section (what the policy hash covers).

        How to compare is not how to score: a baseline recorded under an optional
        comparison stays comparable once the comparison is required (SPEC §10).
        """
        payload = self.to_dict()
        del payload["regression"]
        return payload

    def threshold_for(self, dimension: str) -> float | None:
        """The pass-rate threshold of ``dimension``.

        The policy's own ``gate.thresholds`` first, then the built-in default of a
        deterministic dimension; ``None`` for a judged or custom dimension the
        policy does not name (nothing was declared for it to meet).
        """
        if dimension in self.gate.thresholds:
            return self.gate.thresholds[dimension]
        return BUILTIN_THRESHOLDS.get(dimension)

    def scope(self, row_dimensions: Iterable[str]) -> tuple[list[str], bool]:
        """The dimensions the decision covers, and whether the scope was inferred.

        Scope = ``required_dimensions`` ∪ the dimensions the policy itself names
        in ``gate.thresholds`` or ``gate.pass_k_thresholds`` ∪ (only when
        ``required_dimensions`` is empty) ``row_dimensions``, the dimensions of
        the agent rows. Built-in default thresholds never extend the scope.

        Parameters
        ----------
        row_dimensions : iterable of str
            Dimensions present on the agent (non-control) rows. Values that are
            not non-empty strings (e.g. NaN from an invalid row) are ignored;
            such rows are reported by validation.

        Returns
        -------
        scope : list of str
            Sorted, without duplicates.
        inferred : bool
            True when ``required_dimensions`` is empty (scope taken from the rows).
        """
        inferred = not self.gate.required_dimensions
        names = set(self.gate.required_dimensions)
        names.update(self.gate.thresholds)
        names.update(self.gate.pass_k_thresholds)
        if inferred:
            names.update(d for d in row_dimensions if isinstance(d, str) and d)
        return sorted(names), inferred


# --------------------------------------------------------------------------- value checks
def _invalid(path: str, message: str) -> InvalidParameterError:
    """A problem at a key path; turned into a PolicyError with the file name."""
    return InvalidParameterError(f"{path}: {message}" if path else message, path=path, reason=message)


_SHOWN_DIGITS = 30  # a longer integer is described by its length in messages


def _show(value: Any) -> str:
    """The offending value as the user wrote it (YAML/JSON spelling where it differs)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    if isinstance(value, numbers.Integral):
        if abs(int(value)) >= 10**_SHOWN_DIGITS:  # repr would be a screenful (or beyond Python's digit limit)
            return f"an integer of about {int(math.log10(abs(int(value)))) + 1} digits"
        return repr(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, numbers.Number):
        return repr(value)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a value of type {type(value).__name__}"


def _join(path: str, key: Any) -> str:
    text = key if isinstance(key, str) else _show(key)
    return f"{path}.{text}" if path else text


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _number(
    value: Any, path: str, low: float, high: float, *, open_low: bool = False, open_high: bool = False
) -> float:
    lo, hi = ("(" if open_low else "["), (")" if open_high else "]")
    bounds = f"{lo}{_fmt(low)}, {_fmt(high)}{hi}"
    x = finite_float(value)
    if x is None:
        raise _invalid(path, f"must be a finite number in {bounds}; got {_show(value)}")
    if x < low or x > high or (open_low and x == low) or (open_high and x == high):
        raise _invalid(path, f"must be a finite number in {bounds}; got {_show(value)}")
    return x


def _nonneg_number(value: Any, path: str) -> float:
    x = finite_float(value)
    if x is None or x < 0:
        raise _invalid(path, f"must be a finite number >= 0; got {_show(value)}")
    return x


def _integer(value: Any, path: str, low: int, high: int = _MAX_INT) -> int:
    what = f"an integer >= {low}" if high == _MAX_INT else f"an integer in [{low}, {high}]"
    if not _is_int(value) or value < low:
        raise _invalid(path, f"must be {what}; got {_show(value)}")
    if value > high:
        if high == _MAX_INT:
            what += " and <= 2^53-1"
        raise _invalid(path, f"must be {what}; got {_show(value)}")
    return int(value)


def _choice(value: Any, path: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _invalid(path, f"must be one of {', '.join(choices)}; got {_show(value)}")
    return value


def _boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _invalid(path, f"must be true or false; got {_show(value)}")
    return value


def _name(value: Any, path: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _invalid(path, f"{what} must be a non-empty string; got {_show(value)}")
    return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


def _section(value: Any, path: str, allowed: tuple[str, ...] | None) -> Mapping[Any, Any]:
    """A mapping-valued key; ``null`` (all children commented out) means empty.

    With ``allowed``, every key must be one of them (unknown keys are an error).
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _invalid(path, f"must be a mapping; got {_show(value)}")
    if allowed is not None:
        for key in value:
            if not (isinstance(key, str) and key in allowed):
                raise _invalid(_join(path, key), f"unknown key (expected one of: {', '.join(allowed)})")
    return value


def _name_list(value: Any, path: str, what: str) -> tuple[str, ...]:
    """A list of unique non-empty strings; ``null`` means empty."""
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise _invalid(path, f"must be a list of {what}s; got {_show(value)}")
    seen: set[str] = set()
    for i, item in enumerate(value):
        name = _name(item, f"{path}[{i}]", what)
        if name in seen:
            raise _invalid(f"{path}[{i}]", f"duplicate {what} {_show(name)}")
        seen.add(name)
    return tuple(sorted(seen))


def _pass_k(value: Any, path: str) -> tuple[int, ...]:
    if _is_int(value):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise _invalid(path, f"must be a non-empty list of integers >= 1; got {_show(value)}")
    ks = {_integer(item, f"{path}[{i}]", 1) for i, item in enumerate(value)}
    return tuple(sorted(ks))


def _thresholds(value: Any, path: str) -> Mapping[str, float]:
    out: dict[str, float] = {}
    for key, item in _section(value, path, None).items():
        name = _name(key, path, "dimension name")
        out[name] = _number(item, _join(path, name), 0.0, 1.0)
    return _frozen_map(out)


def _pass_k_thresholds(value: Any, path: str) -> Mapping[str, PassKThreshold]:
    out: dict[str, PassKThreshold] = {}
    for key, item in _section(value, path, None).items():
        name = _name(key, path, "dimension name")
        where = _join(path, name)
        if not isinstance(item, Mapping):
            shape = "{k: <integer >= 1>, min: <number in [0, 1]>}"
            raise _invalid(where, f"must be a mapping {shape}; got {_show(item)}")
        entry = _section(item, where, _PASS_K_THRESHOLD_KEYS)
        for required in _PASS_K_THRESHOLD_KEYS:
            if required not in entry:
                raise _invalid(_join(where, required), "missing (both k and min are required)")
        out[name] = PassKThreshold(
            k=_integer(entry["k"], _join(where, "k"), 1),
            min=_number(entry["min"], _join(where, "min"), 0.0, 1.0),
        )
    return _frozen_map(out)


def _gate(value: Any) -> Gate:
    data = _section(value, "gate", _GATE_KEYS)
    kwargs: dict[str, Any] = {}
    if "required_dimensions" in data:
        kwargs["required_dimensions"] = _name_list(
            data["required_dimensions"], "gate.required_dimensions", "dimension name"
        )
    if "thresholds" in data:
        kwargs["thresholds"] = _thresholds(data["thresholds"], "gate.thresholds")
    if "threshold_basis" in data:
        kwargs["threshold_basis"] = _choice(data["threshold_basis"], "gate.threshold_basis", THRESHOLD_BASES)
    if "min_samples" in data:
        kwargs["min_samples"] = _integer(data["min_samples"], "gate.min_samples", 1)
    if "min_coverage" in data:
        kwargs["min_coverage"] = _number(data["min_coverage"], "gate.min_coverage", 0.0, 1.0)
    if "pass_k_thresholds" in data:
        kwargs["pass_k_thresholds"] = _pass_k_thresholds(data["pass_k_thresholds"], "gate.pass_k_thresholds")
    return Gate(**kwargs)


def _judges(value: Any) -> Judges:
    data = _section(value, "judges", _JUDGES_KEYS)
    kwargs: dict[str, Any] = {}
    if "panel" in data:
        kwargs["panel"] = _name_list(data["panel"], "judges.panel", "judge name")
    if "pass_score" in data:
        kwargs["pass_score"] = _integer(data["pass_score"], "judges.pass_score", 1, 5)
    return Judges(**kwargs)


def _regression(value: Any) -> Regression:
    data = _section(value, "regression", _REGRESSION_KEYS)
    kwargs: dict[str, Any] = {}
    if "required" in data:
        kwargs["required"] = _boolean(data["required"], "regression.required")
    if "baseline" in data and data["baseline"] is not None:
        baseline = data["baseline"]
        if not isinstance(baseline, str) or not baseline.strip():
            raise _invalid(
                "regression.baseline", f"must be null or a non-empty string label; got {_show(baseline)}"
            )
        kwargs["baseline"] = baseline
    if "method" in data:
        kwargs["method"] = _choice(data["method"], "regression.method", REGRESSION_METHODS)
    if "max_drop" in data:
        kwargs["max_drop"] = _number(data["max_drop"], "regression.max_drop", 0.0, 1.0)
    return Regression(**kwargs)


def _budgets(value: Any) -> Mapping[str, float]:
    data = _section(value, "budgets", BUDGET_KEYS)
    return _frozen_map({key: _nonneg_number(data[key], _join("budgets", key)) for key in data})


def _partial(value: Any) -> str | Mapping[str, float]:
    if isinstance(value, str) and value in PARTIAL_RULES:
        return value
    if isinstance(value, Mapping):
        data = _section(value, "partial", ("min",))
        if "min" in data:
            return _frozen_map({"min": _number(data["min"], "partial.min", 0.0, 1.0, open_low=True)})
    raise _invalid("partial", f"must be fail, abstain or {{min: <number in (0, 1]>}}; got {_show(value)}")


def _build(document: Any) -> Policy:
    """Validate a parsed policy document (``None`` = all defaults) into a Policy."""
    if document is None:
        return Policy()
    if not isinstance(document, Mapping):
        raise _invalid("", f"the policy must be a mapping of keys to values; got {_show(document)}")
    data = _section(document, "", _TOP_KEYS)
    kwargs: dict[str, Any] = {}
    if "purpose" in data:
        kwargs["purpose"] = _choice(data["purpose"], "purpose", PURPOSES)
    if "confidence" in data:
        kwargs["confidence"] = _number(
            data["confidence"], "confidence", 0.0, 1.0, open_low=True, open_high=True
        )
    if "pass_k" in data:
        kwargs["pass_k"] = _pass_k(data["pass_k"], "pass_k")
    if "gate" in data:
        kwargs["gate"] = _gate(data["gate"])
    if "judges" in data:
        kwargs["judges"] = _judges(data["judges"])
    if "regression" in data:
        kwargs["regression"] = _regression(data["regression"])
    if "budgets" in data:
        kwargs["budgets"] = _budgets(data["budgets"])
    if "partial" in data:
        kwargs["partial"] = _partial(data["partial"])
    return Policy(**kwargs)


# --------------------------------------------------------------------------- file reading
@cache
def _yaml_loader() -> type:
    """A SafeLoader that rejects duplicate mapping keys (built on first use)."""
    import yaml

    class _UniqueKeySafeLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        duplicate = key in seen
                    except TypeError:  # unhashable: the base class reports it
                        continue
                    if duplicate:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping",
                            node.start_mark,
                            f"found duplicate key {_show(key)}",
                            key_node.start_mark,
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return _UniqueKeySafeLoader


def _one_line(text: Any) -> str:
    """``text`` with line breaks replaced by spaces (messages are one line)."""
    return " ".join(str(text).splitlines())


def _parse_yaml(text: str, name: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = exc.problem or exc.context or "cannot be parsed"
        if exc.context and exc.problem:
            problem = f"{exc.context}: {exc.problem}"
        raise PolicyError(f"{where}: invalid YAML: {_one_line(problem)}") from None
    except yaml.reader.ReaderError as exc:  # a control character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise PolicyError(
            f"{name}:{line}: invalid YAML: unacceptable character #x{char:04x}: {_one_line(exc.reason)}"
        ) from None
    except yaml.YAMLError as exc:
        raise PolicyError(f"{name}: invalid YAML: {_one_line(exc)}") from None
    except RecursionError:
        raise PolicyError(f"{name}: invalid YAML: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal with too many digits
        raise PolicyError(f"{name}: invalid YAML: {_one_line(exc)}") from None


def _parse_json(text: str, name: str) -> Any:
    if not text.strip():
        return None
    try:  # 1e999 is read as inf, for the value check to name it with its key
        return loads_strict(text, nonfinite="overflow")
    except json.JSONDecodeError as exc:
        raise PolicyError(f"{name}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except StrictJSONError as exc:
        reason = {
            "duplicate_key": f"duplicate key {_show(exc.detail)}",
            "constant": f"{exc.detail} is not allowed (numbers must be finite)",
            "too_long": exc.detail,  # Python's own words: "Exceeds the limit (4300 digits) ..."
        }.get(exc.kind, str(exc))
        raise PolicyError(f"{name}: invalid JSON: {reason}") from None


def _read_file(name: str) -> Any:
    """Parse the policy file ``name`` (also the name used in messages)."""
    p = Path(name)
    kind = _SUFFIXES.get(p.suffix.lower())
    if kind is None:
        raise PolicyError(
            f"{name}: unsupported policy file type {p.suffix or '(no extension)'!s}; "
            "expected .yml, .yaml or .json"
        )
    text = decode_utf8(read_input_bytes(p, "policy file", PolicyError, name=name), name, PolicyError)
    return _parse_yaml(text, name) if kind == "yaml" else _parse_json(text, name)


# --------------------------------------------------------------------------- entry point
def load_policy(policy: Policy | Mapping[str, Any] | str | os.PathLike[str] | None = None) -> Policy:
    """Read, validate and normalise a policy (SPEC §7).

    Parameters
    ----------
    policy : Policy, mapping, str, os.PathLike or None
        ``None`` for all defaults; a mapping with the policy keys; a
        :class:`Policy` (returned unchanged); or the path of a YAML (``.yml``,
        ``.yaml``) or JSON (``.json``) file. A UTF-8 byte-order mark is
        accepted; an empty file (or a ``null`` document) means all defaults.

    Returns
    -------
    Policy
        Frozen, with every default filled in.

    Raises
    ------
    PolicyError
        One line naming the file (if any), the dotted key path and the bad
        value: an unknown key, a value of the wrong type or out of range, a
        duplicate key, a missing/unreadable/non-UTF-8 file, or invalid YAML or
        JSON (with the line number).

    Examples
    --------
    >>> from scorekit._policy import load_policy
    >>> policy = load_policy({"gate": {"thresholds": {"helpfulness": 0.8}}})
    >>> policy.threshold_for("helpfulness"), policy.threshold_for("pii")
    (0.8, 1.0)
    >>> policy.scope(["pii", "tool_call"])
    (['helpfulness', 'pii', 'tool_call'], True)
    >>> load_policy({"purpose": "prod"})
    Traceback (most recent call last):
    ...
    scorekit._errors.PolicyError: purpose: must be one of release, exploratory, self_test; got 'prod'
    """
    name: str | None = None
    if isinstance(policy, Policy):
        # Re-validate: a Policy built by hand bypassed the checks (e.g. a
        # misspelt purpose would otherwise switch strict validation off).
        policy = policy.to_dict()
    if policy is None or isinstance(policy, Mapping):
        document: Any = policy
    elif isinstance(policy, (str, os.PathLike)):
        path = os.fspath(policy)
        if not isinstance(path, str):  # a PathLike whose __fspath__ returns bytes
            raise PolicyError(f"policy path must be text, not bytes; got {path!r}")
        name = path
        document = _read_file(path)
    else:
        raise PolicyError(
            "policy must be None, a mapping, a Policy or the path of a YAML/JSON file; "
            f"got {type(policy).__name__}"
        )
    try:
        return _build(document)
    except InvalidParameterError as exc:
        message = _one_line(str(exc))
        raise PolicyError(f"{name}: {message}" if name else message) from None
