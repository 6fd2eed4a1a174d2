"""What a release scorecard says (:class:`ResultPayload`) and how it is written.

``render_scorecard`` turns a payload into ``SCORECARD.md`` text: YAML front
matter in the seed's exact layout (``yaml.safe_dump``, ``sort_keys=False``) and
a human body with the worked recomputation of the aggregate and a
``## Reproduction`` section. ``write_scorecard`` validates what it renders and
writes atomically. PyYAML is imported inside the functions that need it.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import os
import platform
import re
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .._io import finite_float
from ._document import (
    AGGREGATE_FORMULA,
    ScorecardInvalidError,
    _recompute,
    parse_scorecard_text,
    reproduction_command_from_body,
    validate_scorecard,
)

__all__ = [
    "DEFAULT_AGGREGATE_NAME",
    "Metric",
    "ResultPayload",
    "compute_aggregate",
    "hardware_class",
    "render_scorecard",
    "write_scorecard",
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

_PERFORMANCE_LABELS = {
    "ttft_s": "Time to first token (s)",
    "throughput_tps": "Throughput (tokens/s)",
    "pipeline_s": "Pipeline time (s)",
    "peak_memory_gb": "Peak memory (GB)",
    "emails_per_run": "Emails per run",
    "total_input_tokens": "Total input tokens",
    "total_output_tokens": "Total output tokens",
    "llm_classified_count": "LLM-classified count",
    "tokens_per_triage": "Tokens per triage",
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
        return _plain(_with_extra(front, self.extra.get("")))

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


def _section(front: Mapping, dotted: str) -> Mapping:
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
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


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


# --------------------------------------------------------------------------- render
def _md(value: Any) -> str:
    from ..reports._format import md_escape  # lazy: only rendering needs it

    return md_escape(value)


def _code(value: Any) -> str:
    """``value`` as a Markdown code span, or escaped text when a code span cannot hold it."""
    from ..reports._format import clean_text  # lazy

    text = clean_text(value)
    if "`" in text or "\n" in text or "\r" in text or not text.strip():
        return _md(text)
    return f"`{text}`"


def _fmt_metric(value: Any) -> str:
    """A metric value as written: two decimals when exact (0.40), else the shortest repr (0.8467)."""
    if finite_float(value) is not None:
        value = float(value)
        return f"{value:.2f}" if round(value, 2) == value else repr(value)
    return str(value)


def _fmt_number(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return repr(round(value, 4)) if math.isfinite(value) else repr(value)
    return _md(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> list[str]:
    align = align or "l" * len(header)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _worked_recomputation(components: list[dict[str, Any]], value: float) -> list[str]:
    weighted = [c for c in components if float(c.get("weight", 1.0)) > 0]
    zero = [c for c in components if float(c.get("weight", 1.0)) == 0]
    sum_wv = sum(float(c.get("weight", 1.0)) * float(c["value"]) for c in weighted)
    sum_w = sum(float(c.get("weight", 1.0)) for c in weighted)
    ratio = sum_wv / sum_w
    terms = " + ".join(f"{float(c.get('weight', 1.0))!r} × {_fmt_metric(c['value'])}" for c in weighted)
    weights = " + ".join(repr(float(c.get("weight", 1.0))) for c in weighted)
    lines = [
        "Worked recomputation from `aggregate.components` (no eval harness needed):",
        "",
        "```text",
        f"Σ w·v = {terms} = {_fmt_metric(sum_wv)}",
        f"Σ w   = {weights} = {sum_w!r}" if len(weighted) > 1 else f"Σ w   = {sum_w!r}",
        f"Σ w·v / Σ w = {_fmt_metric(sum_wv)} / {sum_w!r} = {_fmt_metric(ratio)} → "
        f"round(100 × {_fmt_metric(ratio)}, 2) = {float(value)!r}",
        "```",
    ]
    if zero:
        names = ", ".join(str(c["metric"]) for c in zero)
        lines += ["", f"Weight-0 components contribute nothing to the aggregate: {_md(names)}."]
    return lines


def _render_body(front: dict[str, Any], reproduction_command: str | None, notes: str | None = None) -> str:
    agent, recipe, results, aggregate = front["agent"], front["recipe"], front["results"], front["aggregate"]
    version, value = agent["version"], aggregate["value"]
    out = [f"# {_md(agent['name'])} — Eval Scorecard v{_md(version)}", "",
           f"**Aggregate score: {float(value)!r}** (out of 100)", ""]
    if front.get("inherited_from"):
        measured = front.get("measured_version") or front["inherited_from"]
        out += [
            f"> **Carried forward (patch release).** These results were measured on v{_md(measured)} and carried "
            f"forward verbatim from the v{_md(front['inherited_from'])} scorecard; the evaluation was not re-run "
            f"for v{_md(version)}.",
            "",
        ]

    dataset = recipe["dataset"]
    out += ["## Recipe", "",
            f"- **Dataset:** {_code(dataset['reference'])}",
            f"- **Description:** {_md(dataset['description'])}",
            f"- **Dataset size:** {dataset['size']} labeled examples",
            f"- **Test cases run:** {results['test_cases_run']} of {dataset['size']}",
            f"- **Methodology:** {_md(recipe['methodology'])}", ""]
    config = {k: v for k, v in recipe["config"].items() if k != "acceptance_variance"}
    if config:
        out += ["**Config**", ""]
        out += _table(["Key", "Value"], [[_md(k), _md(_inline(v))] for k, v in config.items()])
        out += [""]

    out += ["## Metrics", ""]
    rows = []
    for m in results["metrics"]:
        weight = float(m.get("weight", 1.0))
        rows.append([_md(m["name"]), _fmt_metric(m["value"]), repr(weight),
                     "yes" if weight > 0 else "no (reported, weight 0)"])
    out += _table(["Metric", "Value", "Weight", "In aggregate"], rows, "lrrl") + [""]

    out += [f"## Aggregate: {_md(aggregate['name'])}", "", f"Formula: {_code(aggregate['formula'])}", ""]
    out += _worked_recomputation(aggregate["components"], value) + [""]

    variance = recipe["config"].get("acceptance_variance")
    if isinstance(variance, Mapping):
        out += _variance_section(variance)

    breakdown = results.get("breakdown")
    if isinstance(breakdown, Mapping):
        out += ["## Breakdown", ""]
        per_category = breakdown.get("per_category") or []
        if per_category:
            out += ["**Per category**", ""]
            out += _table(["Category", "Total", "Correct", "Accuracy"],
                          [[_md(r.get("category")), _fmt_number(r.get("total")), _fmt_number(r.get("correct")),
                            _fmt_metric(r.get("accuracy"))] for r in per_category], "lrrr") + [""]
        confusions = breakdown.get("top_confusions") or []
        if confusions:
            out += ["**Top confusions** (expected → predicted)", ""]
            out += _table(["Expected", "Predicted", "Count"],
                          [[_md(r.get("expected")), _md(r.get("predicted")), _fmt_number(r.get("count"))]
                           for r in confusions], "llr") + [""]

    performance = results.get("performance")
    if isinstance(performance, Mapping) and performance:
        out += ["## Performance", "", "Observed figures, mean across the run's scenarios. Reported, never gated.", ""]
        out += _table(["Measure", "Value"],
                      [[_md(_PERFORMANCE_LABELS.get(k, k)) + f" (`{k}`)" if k in _PERFORMANCE_LABELS else _md(k),
                        _fmt_number(v)] for k, v in performance.items()], "lr") + [""]

    environment = recipe.get("environment")
    if isinstance(environment, Mapping) and environment:
        out += ["## Environment", ""]
        out += _table(["Field", "Value"], [[_md(k), _md(_inline(v))] for k, v in environment.items()]) + [""]

    out += ["## Reproduction", ""]
    if reproduction_command:
        fence = _fence_for(reproduction_command)
        out += ["Run the following commands from the repository root:", "", f"{fence}bash",
                reproduction_command, fence, ""]
    else:
        out += ["No reproduction command recorded.", ""]
    if notes:
        out += [NOTES_START, notes, NOTES_END, ""]
    return "\n".join(out)


def _inline(value: Any) -> str:
    if isinstance(value, (Mapping, list)):
        import json

        return json.dumps(value, ensure_ascii=False, default=str)
    if value is None:
        return "null"
    return str(value)


def _variance_section(block: Mapping[str, Any]) -> list[str]:
    out = ["## Run-to-run variance", "",
           f"From {block.get('n_runs', '?')} runs over the same corpus. Recorded for the gate's noise band; "
           "never affects the aggregate.", ""]
    rows = []
    for name, stats in block.items():
        if not isinstance(stats, Mapping):
            continue
        low = next((stats[k] for k in stats if k.startswith("ci") and k.endswith("_low")), None)
        high = next((stats[k] for k in stats if k.startswith("ci") and k.endswith("_high")), None)
        ci = "—" if low is None or high is None else f"[{_fmt_number(low)}, {_fmt_number(high)}]"
        rows.append([_md(name), _fmt_number(stats.get("n")), _fmt_number(stats.get("mean")),
                     _fmt_number(stats.get("stdev")), _fmt_number(stats.get("cv_pct")), ci,
                     _fmt_number(stats.get("z_half_width"))])
    if rows:
        out += _table(["Metric", "Runs", "Mean", "Stdev", "CV %", "CI (t)", "± z"], rows, "lrrrrrr") + [""]
    return out


def render_scorecard(payload: ResultPayload) -> str:
    """``SCORECARD.md`` text for ``payload``: YAML front matter + human-readable body.

    The front matter is ``yaml.safe_dump(payload.to_front_matter(),
    sort_keys=False)``. The body has the title, the aggregate, the recipe,
    the metrics table, the worked recomputation of the aggregate, variance /
    breakdown / performance / environment sections when present, a
    carry-forward note when inherited, and a ``## Reproduction`` section (the
    command in a fenced block, or "No reproduction command recorded.").

    Raises
    ------
    ScorecardInvalidError
        The payload does not make a valid card (``.problems`` names the fields).

    Examples
    --------
    >>> p = ResultPayload("Demo", "1.0.0", "d.json", "demo", 10, "exact match", {}, 10,
    ...                   [Metric("category_accuracy", 0.40)], reproduction_command="make eval")
    >>> "round(100 × 0.40, 2) = 40.0" in render_scorecard(p)
    True
    """
    return _render(payload, "<payload>")


def _render(payload: ResultPayload, source: str) -> str:
    if not isinstance(payload, ResultPayload):
        raise TypeError(f"payload must be a ResultPayload; got {type(payload).__name__}")
    front = payload.to_front_matter()
    problems = validate_scorecard(front)
    if problems:  # fail closed: never produce the text of an invalid card
        raise ScorecardInvalidError(source, problems)
    import yaml  # lazy

    yaml_text = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
    if yaml.safe_load(yaml_text) != front:
        # PyYAML writes some Unicode line breaks (U+0085 at the end of a string) raw
        # in a quoted scalar and reads them back as spaces; escaping every non-ASCII
        # character is always exact, so the card says what was validated.
        yaml_text = yaml.safe_dump(front, sort_keys=False, allow_unicode=False, default_flow_style=False, width=100)
    return f"---\n{yaml_text}---\n\n{_render_body(front, payload.reproduction_command, payload.notes)}"


def write_scorecard(payload: ResultPayload, path: str | os.PathLike[str]) -> Path:
    """Render ``payload`` and write it to ``path`` atomically, after validating it.

    The rendered text is parsed back and validated before anything is written:
    an invalid payload never reaches disk.

    Raises
    ------
    ScorecardInvalidError
        (a ValueError) naming the first invalid field, e.g.
        ``SCORECARD.md: invalid scorecard: results.test_cases_run: must be <= ...``.

    Examples
    --------
    >>> write_scorecard(payload, "hub/agents/email/npm/SCORECARD.md")  # doctest: +SKIP
    """
    target = Path(path)
    text = _render(payload, os.fspath(path))
    # Belt and braces: what YAML gives back is what is validated and written.
    doc = parse_scorecard_text(text, source=os.fspath(path))
    problems = validate_scorecard(doc)
    if problems:
        raise ScorecardInvalidError(os.fspath(path), problems)

    from .._io import atomic_write

    def _write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    return atomic_write(target, _write)
