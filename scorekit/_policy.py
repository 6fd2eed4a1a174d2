"""The evaluation policy (SPEC §7): what is in scope, what each dimension must meet.

A policy is read from a YAML or JSON file, a mapping, or ``None`` (all defaults)
by :func:`load_policy` and normalised into a frozen :class:`Policy`. Every key
is optional; unknown keys at any level are an error, as are values of the wrong
type or out of range. Every problem is a one-line :class:`~scorekit.PolicyError`
naming the file (when there is one), the dotted key path and the bad value::

    policy.yml: gate.thresholds.pii: must be a finite number in [0, 1]; got 1.5

What each key must be is declared as data, :data:`POLICY_CONSTRAINTS`, and
checked by the one validator of :mod:`scorekit._constraints` (the same that
checks the arguments of the public functions).

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

import dataclasses
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._constraints import (
    MAX_SAFE_INT,
    Boolean,
    Constraint,
    Either,
    Integral,
    Interval,
    ListOf,
    MapOf,
    OneOf,
    Optional,
    Section,
    Text,
    check_document,
    is_integer,
)
from ._constraints import show_value as _show
from ._errors import InputError, InvalidParameterError, PolicyError, StrictJSONError
from ._io import decode_utf8, loads_strict, read_input_bytes

__all__ = [
    "BUDGET_KEYS",
    "BUILTIN_THRESHOLDS",
    "DETERMINISTIC_DIMENSIONS",
    "PARTIAL_RULES",
    "POLICY_CONSTRAINTS",
    "PURPOSES",
    "MISSING_EVIDENCE_RULES",
    "MULTIPLICITY_CONTROLS",
    "REGRESSION_METHODS",
    "RETIRED_REGRESSION_METHODS",
    "THRESHOLD_BASES",
    "Gate",
    "Judges",
    "PassKThreshold",
    "Policy",
    "Regression",
    "ToolContracts",
    "load_policy",
    "parse_json",
    "parse_yaml",
    "readable_recorded_policy",
    "yaml_loader",
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
REGRESSION_METHODS: tuple[str, ...] = ("paired", "newcombe", "point")
#: Methods an older scorekit could record but a policy may no longer choose (SPEC §10): each
#: with the words of its refusal. A stored policy that recorded one is read back with today's
#: default method (:func:`readable_recorded_policy`): reading is not choosing.
RETIRED_REGRESSION_METHODS: Mapping[str, str] = MappingProxyType(
    {"interval": "'interval' has no fixed error rate and is no longer a method; use paired or newcombe"}
)
MULTIPLICITY_CONTROLS: tuple[str, ...] = ("holm", "none")
MISSING_EVIDENCE_RULES: tuple[str, ...] = ("bound", "ignore")
BUDGET_KEYS: tuple[str, ...] = ("cost_usd", "latency_ms")

#: The ``partial`` rules (SPEC §7) besides ``{min: x}``.
PARTIAL_RULES: tuple[str, ...] = ("fail", "abstain")

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
    missing_evidence: str = "bound"
    min_samples: int = 1
    min_coverage: float = 1.0
    pass_k_thresholds: Mapping[str, PassKThreshold] = field(default_factory=_frozen_map)

    def __hash__(self) -> int:  # the mappings are read-only views: hash their content
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_coverage": self.min_coverage,
            "min_samples": self.min_samples,
            "missing_evidence": self.missing_evidence,
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
    method: str = "paired"
    max_drop: float = 0.0
    multiplicity: str = "holm"

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "max_drop": self.max_drop,
            "method": self.method,
            "multiplicity": self.multiplicity,
            "required": self.required,
        }


@dataclass(frozen=True, slots=True)
class ToolContracts:
    """The policy's ``tool_contracts``: the path as written and the tool name → JSON Schema read from it."""

    path: str
    schemas: Mapping[str, Any] = field(default_factory=_frozen_map)

    def __hash__(self) -> int:
        return hash((self.path, json.dumps(dict(self.schemas), sort_keys=True, default=str)))


def _policy(keys: dict[str, Any]) -> Policy:
    if isinstance(keys.get("tool_contracts"), str):  # read by load_policy, which knows the policy file
        keys = {**keys, "tool_contracts": ToolContracts(keys["tool_contracts"])}
    return Policy(**keys)


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
    tool_contracts : ToolContracts or None
        The ``tool_contracts`` key (SPEC §15): its path as written (OpenAI / Anthropic /
        MCP tool definitions, relative to the policy file's folder) and the contracts
        read from it, given to every ``tool_call`` row that has no ``tool_schemas``.
        The path is recorded in :meth:`to_dict` when set; it is not in the policy hash
        (the contracts are answer keys: they enter the suite hash on the rows).
    """

    purpose: str = "release"
    confidence: float = 0.95
    pass_k: tuple[int, ...] = (1, 2, 4, 8)
    gate: Gate = field(default_factory=Gate)
    judges: Judges = field(default_factory=Judges)
    regression: Regression = field(default_factory=Regression)
    budgets: Mapping[str, float] = field(default_factory=_frozen_map)
    partial: str | Mapping[str, float] = "fail"
    tool_contracts: ToolContracts | None = None

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
        out = {
            "budgets": {name: self.budgets[name] for name in sorted(self.budgets)},
            "confidence": self.confidence,
            "gate": self.gate.to_dict(),
            "judges": self.judges.to_dict(),
            "partial": self.partial if isinstance(self.partial, str) else {"min": self.partial["min"]},
            "pass_k": sorted(self.pass_k),
            "purpose": self.purpose,
            "regression": self.regression.to_dict(),
        }
        if self.tool_contracts is not None:  # absent unless set: existing policies keep their form and hash
            out["tool_contracts"] = self.tool_contracts.path
        return out

    def hash_payload(self) -> dict[str, Any]:
        """:meth:`to_dict` without the ``regression`` section (what the policy hash covers).

        How to compare is not how to score: a baseline recorded under an optional
        comparison stays comparable once the comparison is required (SPEC §10).
        """
        payload = self.to_dict()
        del payload["regression"]
        payload.pop("tool_contracts", None)  # the contracts themselves enter the suite hash, on the rows
        if self.gate.missing_evidence == Gate().missing_evidence:  # default: a policy older than the key keeps its hash
            del payload["gate"]["missing_evidence"]
        return payload

    def replace(self, **changes: Any) -> Policy:
        """A new validated Policy with ``changes`` (:func:`dataclasses.replace` semantics).

        Each keyword is a policy key (``purpose``, ``confidence``, ``pass_k``,
        ``gate``, ``judges``, ``regression``, ``budgets``, ``partial``) and
        replaces that whole key: a section is given as its dataclass (e.g.
        ``dataclasses.replace(policy.gate, thresholds=...)``) or as a mapping
        of its keys (keys left out take their defaults). The result is checked
        by the one validator, as :func:`load_policy` checks a policy file.

        Raises
        ------
        PolicyError
            An unknown name (the same error as an unknown policy key) or a bad
            value, naming the dotted key path and the value.

        Examples
        --------
        >>> policy = load_policy({"gate": {"thresholds": {"pii": 1.0}}})
        >>> policy.replace(purpose="exploratory", pass_k=[1, 3]).to_dict()["pass_k"]
        [1, 3]
        >>> policy.replace(confidence=1.5)
        Traceback (most recent call last):
        ...
        scorekit._errors.PolicyError: confidence: must be a finite number in (0, 1); got 1.5
        """
        document = self.to_dict()
        # Contracts already read stay as read (their path is relative to the policy file they came from).
        kept = self.tool_contracts if "tool_contracts" not in changes else None
        if kept is not None:
            document.pop("tool_contracts", None)
        for name, value in changes.items():
            document[name] = value.to_dict() if isinstance(value, (Gate, Judges, Regression)) else value
        result = load_policy(document)
        return result if kept is None else dataclasses.replace(result, tool_contracts=kept)

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


# --------------------------------------------------------------------------- value checks (as data)
class _Retiring(Constraint):
    """``accepted``, refusing each retired value with its own reason (what to use instead)."""

    def __init__(self, accepted: Constraint, retired: Mapping[str, str]) -> None:
        self.accepted = accepted
        self.retired = retired

    def describe(self, style: Any) -> str:
        return self.accepted.describe(style)

    def is_satisfied_by(self, value: Any) -> bool:
        return self.accepted.is_satisfied_by(value)

    def check(self, value: Any, path: str, style: Any) -> Any:
        if isinstance(value, str) and value in self.retired:
            self.fail(value, path, style, reason=self.retired[value])
        return self.accepted.check(value, path, style)


_DIMENSION = Text("dimension name")
_UNIT = Interval(0, 1)

#: What every policy key must be (SPEC §7), checked by :func:`scorekit._constraints.check_document`:
#: unknown keys are errors at every level, and each problem names the dotted key path and the
#: value as written. Each section builds its dataclass from the keys it was given.
POLICY_CONSTRAINTS = Section(
    {
        "purpose": OneOf(*PURPOSES),
        "confidence": Interval(0, 1, closed="neither"),
        "pass_k": ListOf(Integral(1, MAX_SAFE_INT), "a non-empty list of integers >= 1", single=is_integer,
                         null_is_empty=False, non_empty=True),
        "gate": Section(
            {
                "required_dimensions": ListOf(_DIMENSION, "a list of dimension names", distinct="dimension name"),
                "thresholds": MapOf(_DIMENSION, _UNIT, build=_frozen_map),
                "threshold_basis": OneOf(*THRESHOLD_BASES),
                "missing_evidence": OneOf(*MISSING_EVIDENCE_RULES),
                "min_samples": Integral(1, MAX_SAFE_INT),
                "min_coverage": _UNIT,
                "pass_k_thresholds": MapOf(
                    _DIMENSION,
                    Section(
                        {"k": Integral(1, MAX_SAFE_INT), "min": _UNIT},
                        required=("k", "min"),
                        missing="missing (both k and min are required)",
                        what="a mapping {k: <integer >= 1>, min: <number in [0, 1]>}",
                        null_is_empty=False,
                        build=lambda keys: PassKThreshold(**keys),
                    ),
                    build=_frozen_map,
                ),
            },
            build=lambda keys: Gate(**keys),
        ),
        "judges": Section(
            {
                "panel": ListOf(Text("judge name"), "a list of judge names", distinct="judge name"),
                "pass_score": Integral(1, 5),
            },
            build=lambda keys: Judges(**keys),
        ),
        "regression": Section(
            {
                "required": Boolean(),
                "baseline": Optional(Text(what="a non-empty string label")),
                "method": _Retiring(OneOf(*REGRESSION_METHODS), RETIRED_REGRESSION_METHODS),
                "max_drop": _UNIT,
                "multiplicity": OneOf(*MULTIPLICITY_CONTROLS),
            },
            build=lambda keys: Regression(**keys),
        ),
        "budgets": Section({key: Interval(0) for key in BUDGET_KEYS}, document_order=True, build=_frozen_map),
        "partial": Either(
            OneOf(*PARTIAL_RULES),
            Section({"min": Interval(0, 1, closed="right")}, build=_frozen_map),
            what="fail, abstain or {min: <number in (0, 1]>}",
        ),
        "tool_contracts": Optional(Text(what="the path of a tool definitions file")),
    },
    subject="the policy",
    what="a mapping of keys to values",
    build=_policy,
)


# --------------------------------------------------------------------------- file reading
@cache
def yaml_loader() -> type:
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


def parse_yaml(text: str, name: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=yaml_loader())  # noqa: S506 - a SafeLoader subclass
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


def parse_json(text: str, name: str) -> Any:
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
    return parse_yaml(text, name) if kind == "yaml" else parse_json(text, name)


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
    given = policy if isinstance(policy, Policy) else None
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
        result: Policy = check_document(document, POLICY_CONSTRAINTS)
    except InvalidParameterError as exc:
        message = _one_line(str(exc))
        raise PolicyError(f"{name}: {message}" if name else message) from None
    if result.tool_contracts is not None:
        path = result.tool_contracts.path
        if given is not None and given.tool_contracts is not None and given.tool_contracts.path == path:
            contracts = given.tool_contracts  # already read, relative to the policy file it came from
        else:
            contracts = ToolContracts(path, _read_tool_contracts(path, name))
        result = dataclasses.replace(result, tool_contracts=contracts)
    return result


def readable_recorded_policy(document: Mapping[str, Any]) -> dict[str, Any]:
    """A policy recorded by an earlier scorekit, as this one reads it back (SPEC §10).

    A retired ``regression.method`` (``interval``, recorded by every stored
    scorecard and history record written before it was retired) is dropped, so
    the record is read, and compared with today's default method, instead of
    being refused: reading an old file is not choosing a method. Everything else
    is left for :func:`load_policy` to check as usual.

    Parameters
    ----------
    document : mapping
        The recorded policy (``scorecard.json``'s ``policy``, a history record's).

    Returns
    -------
    dict
        A shallow copy, its ``regression`` section copied when changed.

    Examples
    --------
    >>> readable_recorded_policy({"regression": {"method": "interval", "max_drop": 0.02}})
    {'regression': {'max_drop': 0.02}}
    >>> load_policy(readable_recorded_policy({"regression": {"method": "interval"}})).regression.method
    'paired'
    """
    out = dict(document)
    section = out.get("regression")
    method = section.get("method") if isinstance(section, Mapping) else None
    if isinstance(section, Mapping) and isinstance(method, str) and method in RETIRED_REGRESSION_METHODS:
        out["regression"] = {key: value for key, value in section.items() if key != "method"}
    return out


def _read_tool_contracts(path: str, policy_name: str | None) -> Mapping[str, Any]:
    """The ``tool_contracts`` file read (relative to the policy file's folder), or a PolicyError naming it."""
    from .importers._tools import tool_contracts

    target = Path(path)
    if policy_name is not None and not target.is_absolute():
        target = Path(policy_name).parent / target
    try:
        return _frozen_map(dict(tool_contracts(target)))
    except InputError as exc:
        prefix = f"{policy_name}: " if policy_name else ""
        raise PolicyError(f"{prefix}tool_contracts: {_one_line(str(exc))}") from None
