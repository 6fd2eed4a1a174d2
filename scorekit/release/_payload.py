"""What a release scorecard says: :class:`ResultPayload`, its metrics and aggregate.

How a payload becomes ``SCORECARD.md`` text (front matter and human body) and
is written lives in :mod:`scorekit.release._render`.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .._escape import code_text
from .._io import finite_float
from ._parse import reproduction_command_from_body
from ._schema import AGGREGATE_FORMULA, ScorecardInvalidError, _recompute, validate_scorecard

__all__ = [
    "DEFAULT_AGGREGATE_NAME",
    "Metric",
    "ResultPayload",
    "compute_aggregate",
    "hardware_class",
]

DEFAULT_AGGREGATE_NAME = "weighted_accuracy"

# Invisible markers around the free-form notes at the end of the body (the same
# markers the email-triage adapter writes), so notes survive a carry-forward.
NOTES_START = "<!-- scorecard:notes:start -->"
NOTES_END = "<!-- scorecard:notes:end -->"

# Keys each front-matter section defines; anything else found when reading a
# card is kept in ResultPayload.extra and written back in place (additive fields
# survive a carry-forward verbatim).
_KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "": ("schema_version", "agent", "recipe", "results", "aggregate", "generated_at", "inherited_from",
         "measured_version"),
    "agent": ("name", "version"),
    "recipe": ("dataset", "methodology", "config", "environment"),
    "recipe.dataset": ("reference", "description", "size"),
    "results": ("test_cases_run", "metrics", "breakdown", "performance"),
    "aggregate": ("name", "formula", "components", "value"),
}



# --------------------------------------------------------------------------- model
@dataclass(frozen=True)
class Metric:
    """One measured metric: a ``value`` in [0, 1] and its ``weight`` in the aggregate.

    Weight 0 marks a reported secondary: shown, excluded from the aggregate.

    Examples
    --------
    >>> Metric("within_one_bucket_accuracy", 0.8467).to_dict()
    {'name': 'within_one_bucket_accuracy', 'value': 0.8467, 'weight': 1.0}
    """

    name: str
    value: float
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": _plain(self.value), "weight": _plain(self.weight)}

    @classmethod
    def from_mapping(cls, entry: Mapping[str, Any]) -> Metric:
        """A Metric from ``{name, value, weight}`` (or a component ``{metric, value, weight}``)."""
        if not isinstance(entry, Mapping):
            raise TypeError(f"metric must be a Metric or a mapping with name/value/weight; got {entry!r}")
        name = entry.get("name", entry.get("metric"))
        if "value" not in entry:
            raise ValueError(f"metric {name!r}: value is missing")
        return cls(name=name, value=entry["value"], weight=entry.get("weight", 1.0))


def _as_metric(entry: Any) -> Metric:
    return entry if isinstance(entry, Metric) else Metric.from_mapping(entry)


@dataclass
class ResultPayload:
    """Everything a ``SCORECARD.md`` records (seed schema v1, SPEC §13).

    Required: ``agent_name``, ``agent_version`` (semver), ``dataset_reference``,
    ``dataset_description``, ``dataset_size`` (labeled examples available),
    ``methodology``, ``config`` (harness config; ``acceptance_variance`` goes
    here), ``test_cases_run`` (≤ ``dataset_size``) and ``metrics``
    (:class:`Metric` or ``{name, value, weight}`` dicts).

    Optional (keyword-only): ``aggregate_name``; ``generated_at`` (ISO 8601,
    now when None); ``inherited_from`` / ``measured_version`` (set by
    :func:`carry_forward`); ``reproduction_command`` (rendered in the
    ``## Reproduction`` section); ``environment`` (``gaia_commit``,
    ``lemonade_version``, ``model``, ``hardware`` — a class descriptor, never a
    hostname — and ``temperature``); ``breakdown`` (``per_category``,
    ``top_confusions``); ``performance`` (reported, never gated); ``notes``
    (free Markdown at the end of the body, between invisible markers so a
    carry-forward keeps it, as the email-triage adapter does);
    ``aggregate_formula`` and ``aggregate_components`` (None: every metric)
    and ``extra`` (unknown keys per front-matter section, kept when a card is
    read back so a carry-forward keeps them verbatim).

    Examples
    --------
    >>> p = ResultPayload("Email Triage", "0.3.0", "gt.json", "Synthetic corpus", 220,
    ...                   "within-one-bucket acceptance", {"limit": 220}, 100,
    ...                   [Metric("within_one_bucket_accuracy", 0.8467)])
    >>> p.aggregate_value
    84.67
    """

    agent_name: str
    agent_version: str
    dataset_reference: str
    dataset_description: str
    dataset_size: int
    methodology: str
    config: dict[str, Any]
    test_cases_run: int
    metrics: list[Metric]
    _: KW_ONLY
    aggregate_name: str = DEFAULT_AGGREGATE_NAME
    generated_at: str | None = None
    inherited_from: str | None = None
    measured_version: str | None = None
    reproduction_command: str | None = None
    environment: dict[str, Any] | None = None
    breakdown: dict[str, Any] | None = None
    performance: dict[str, Any] | None = None
    notes: str | None = None
    aggregate_formula: str = AGGREGATE_FORMULA
    aggregate_components: list[dict[str, Any]] | None = None
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.metrics, (str, bytes)) or not isinstance(self.metrics, Sequence):
            raise TypeError(f"metrics must be a list of Metric or {{name, value, weight}} dicts; got {self.metrics!r}")
        self.metrics = [_as_metric(m) for m in self.metrics]
        if self.config is None:
            raise ValueError("config must be a mapping (the harness config); got None")
        if not isinstance(self.config, Mapping):
            raise TypeError(f"config must be a mapping; got {self.config!r}")
        self.config = dict(self.config)
        if self.reproduction_command is not None:
            if not isinstance(self.reproduction_command, str):
                raise TypeError(f"reproduction_command must be a str; got {self.reproduction_command!r}")
            # Stored in a fenced block: line endings are normalised and surrounding
            # blank lines dropped, so what is parsed back equals what is kept here.
            if NOTES_START in self.reproduction_command or NOTES_END in self.reproduction_command:
                raise ValueError("reproduction_command must not contain the notes markers")
            command = self.reproduction_command.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
            # Nothing can be escaped inside a code block, and a shell command changed on the way
            # out is another command: a character it cannot show as it is (a control, a bidi
            # control, a line separator, SPEC §20) is refused here, never rewritten.
            shown = code_text(command)
            if shown != command:
                at = next(i for i, (a, b) in enumerate(zip(command, shown, strict=True)) if a != b)
                raise ValueError(f"reproduction_command holds U+{ord(command[at]):04X} at position {at}: a "
                                 "control, bidi or line-separator character a code block cannot show as it is")
            self.reproduction_command = command if command.strip() else None
        if self.notes is not None:
            if not isinstance(self.notes, str):
                raise TypeError(f"notes must be a str; got {self.notes!r}")
            if NOTES_START in self.notes or NOTES_END in self.notes:
                raise ValueError("notes must not contain the notes markers (<!-- scorecard:notes:... -->)")
            notes = self.notes.replace("\r\n", "\n").replace("\r", "\n").strip()
            self.notes = notes or None
        unknown = set(self.extra) - set(_KNOWN_KEYS)
        if unknown:
            raise ValueError(f"extra: sections must be among {sorted(_KNOWN_KEYS)}; got {sorted(unknown)}")

    # ------------------------------------------------------------------ aggregate
    def components(self) -> list[dict[str, Any]]:
        """``aggregate.components``: the stored ones, else one per metric."""
        if self.aggregate_components is not None:
            return [dict(c) for c in self.aggregate_components]
        return [{"metric": m.name, "value": m.value, "weight": m.weight} for m in self.metrics]

    @property
    def aggregate_value(self) -> float:
        """``round(100 · Σ wᵢvᵢ / Σ wᵢ, 2)`` over :meth:`components`."""
        return compute_aggregate(self.components())

    # ------------------------------------------------------------------ front matter
    def to_front_matter(self) -> dict[str, Any]:
        """The front matter as a dict, in the seed's exact key order.

        ``generated_at`` is filled with the current UTC time when None.
        """
        generated_at = self.generated_at or _now()
        dataset = {"reference": self.dataset_reference, "description": self.dataset_description,
                   "size": self.dataset_size}
        recipe: dict[str, Any] = {"dataset": _with_extra(dataset, self.extra.get("recipe.dataset")),
                                  "methodology": self.methodology, "config": self.config}
        if self.environment is not None:
            recipe["environment"] = self.environment
        results: dict[str, Any] = {"test_cases_run": self.test_cases_run,
                                   "metrics": [m.to_dict() for m in self.metrics]}
        if self.breakdown is not None:
            results["breakdown"] = self.breakdown
        if self.performance is not None:
            results["performance"] = self.performance
        aggregate = {"name": self.aggregate_name, "formula": self.aggregate_formula,
                     "components": self.components(), "value": _safe_aggregate(self.components())}
        front: dict[str, Any] = {
            "schema_version": 1,
            "agent": _with_extra({"name": self.agent_name, "version": self.agent_version}, self.extra.get("agent")),
            "recipe": _with_extra(recipe, self.extra.get("recipe")),
            "results": _with_extra(results, self.extra.get("results")),
            "aggregate": _with_extra(aggregate, self.extra.get("aggregate")),
            "generated_at": generated_at,
            "inherited_from": self.inherited_from,
        }
        if self.measured_version is not None:
            front["measured_version"] = self.measured_version
        plain: dict[str, Any] = _plain(_with_extra(front, self.extra.get("")))  # _plain keeps a dict a dict
        return plain

    @classmethod
    def from_front_matter(cls, front_matter: Mapping[str, Any], body: str | None = None) -> ResultPayload:
        """A payload from a card's front matter (and body, for the reproduction command).

        The front matter is validated first (fail closed).

        Raises
        ------
        ScorecardInvalidError
            The front matter is not a valid scorecard (``.problems`` lists why).
        """
        problems = validate_scorecard(front_matter)
        if problems:
            raise ScorecardInvalidError("<front matter>", problems)
        fm = front_matter
        recipe, results, aggregate = fm["recipe"], fm["results"], fm["aggregate"]
        extra = {}
        for section, known in _KNOWN_KEYS.items():
            node = fm if not section else _section(fm, section)
            unknown = {k: v for k, v in node.items() if k not in known}
            if unknown:
                extra[section] = unknown
        generated_at = fm.get("generated_at")
        if isinstance(generated_at, (_dt.date, _dt.datetime)):
            generated_at = generated_at.isoformat()
        return cls(
            agent_name=fm["agent"]["name"],
            agent_version=fm["agent"]["version"],
            dataset_reference=recipe["dataset"]["reference"],
            dataset_description=recipe["dataset"]["description"],
            dataset_size=recipe["dataset"]["size"],
            methodology=recipe["methodology"],
            config=dict(recipe["config"]),
            test_cases_run=results["test_cases_run"],
            metrics=[Metric.from_mapping(m) for m in results["metrics"]],
            aggregate_name=aggregate["name"],
            generated_at=generated_at,
            inherited_from=fm.get("inherited_from"),
            measured_version=fm.get("measured_version"),
            reproduction_command=reproduction_command_from_body(body) if body is not None else None,
            notes=notes_from_body(body) if body is not None else None,
            environment=recipe.get("environment"),
            breakdown=results.get("breakdown"),
            performance=results.get("performance"),
            aggregate_formula=aggregate["formula"],
            aggregate_components=[dict(c) for c in aggregate["components"]],
            extra=extra,
        )

    def replace(self, **changes: Any) -> ResultPayload:
        """A copy with ``changes`` applied (like :func:`dataclasses.replace`)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_"}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"unknown ResultPayload field(s): {sorted(unknown)}")
        values.update(changes)
        return ResultPayload(**values)


def _section(front: Mapping[str, Any], dotted: str) -> Mapping[str, Any]:
    node = front
    for key in dotted.split("."):
        node = node[key]
    return node


def _with_extra(known: dict[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    if extra:
        clash = set(known) & set(extra)
        if clash:
            raise ValueError(f"extra: keys {sorted(clash)} are schema fields; set them on the payload instead")
        known.update(extra)
    return known


def _safe_aggregate(components: list[dict[str, Any]]) -> float | None:
    """The aggregate, or None when the components cannot give one (validation then names why)."""
    try:
        return compute_aggregate(components)
    except (TypeError, ValueError):
        return None


def notes_from_body(body: str) -> str | None:
    """The free-form notes between the notes markers of a body (None when absent)."""
    start, end = body.find(NOTES_START), body.find(NOTES_END)
    if start == -1 or end < start:
        return None
    return body[start + len(NOTES_START):end].strip() or None


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _plain(value: Any) -> Any:
    """Plain Python for ``yaml.safe_dump``: NumPy scalars → Python, tuples → lists (NaN kept: validation rejects it)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if value is not None and type(value).__name__ == "NAType":
        return None
    return value


# --------------------------------------------------------------------------- aggregate
def compute_aggregate(metrics: Sequence[Metric | Mapping[str, Any]]) -> float:
    """The aggregate score ``round(100 · Σ wᵢvᵢ / Σ wᵢ, 2)``, a percentage in [0, 100].

    Parameters
    ----------
    metrics : sequence of Metric or mapping
        ``{name, value, weight}`` (or components ``{metric, value, weight}``);
        ``weight`` defaults to 1.0. Values must be finite and in [0, 1],
        weights finite, ≥ 0 and not all zero.

    Raises
    ------
    ValueError
        Naming the metric and the bad value.

    Examples
    --------
    >>> compute_aggregate([Metric("category_accuracy", 0.40)])
    40.0
    >>> compute_aggregate([{"name": "a", "value": 0.8467, "weight": 1.0}, {"name": "b", "value": 0.2, "weight": 0.0}])
    84.67
    """
    if isinstance(metrics, (str, bytes, Mapping)) or not isinstance(metrics, Sequence):
        raise TypeError(f"metrics must be a list of Metric or mappings; got {metrics!r}")
    if not metrics:
        raise ValueError("metrics must not be empty: the aggregate of no metric is undefined")
    triples = []
    for index, entry in enumerate(metrics):
        metric = _as_metric(entry)
        label = f"metrics[{index}] ({metric.name!r})"
        for what, number in (("value", metric.value), ("weight", metric.weight)):
            if finite_float(number) is None:
                raise ValueError(f"{label}: {what} must be a finite number; got {number!r}")
        if not 0.0 <= metric.value <= 1.0:
            raise ValueError(f"{label}: value must be in [0, 1]; got {metric.value!r}")
        if metric.weight < 0:
            raise ValueError(f"{label}: weight must be >= 0; got {metric.weight!r}")
        triples.append((str(metric.name), float(metric.value), float(metric.weight)))
    if sum(w for _, _, w in triples) <= 0:
        raise ValueError("metrics: weights must not all be zero (the aggregate would be undefined)")
    return _recompute(triples)


# --------------------------------------------------------------------------- environment
def hardware_class(*, cpuinfo: str | os.PathLike[str] = "/proc/cpuinfo") -> str:
    """A hardware class descriptor for ``recipe.environment.hardware``: the CPU model.

    Read from ``model name`` in ``/proc/cpuinfo`` (Linux), else
    :func:`platform.processor`, else the machine architecture. Never the
    hostname: a scorecard names a class of hardware, not a machine.

    Examples
    --------
    >>> hardware_class()  # doctest: +SKIP
    'AMD Ryzen AI MAX+ 395 w/ Radeon 8060S'
    """
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("model name", "hardware", "cpu model") and value.strip():
            return " ".join(value.split())
    processor = platform.processor().strip()
    if processor:
        return processor
    return platform.machine() or "unknown"
