"""``SCORECARD.md`` text of a :class:`~scorekit.release._payload.ResultPayload`, and writing it.

``render_scorecard`` turns a payload into ``SCORECARD.md`` text: YAML front
matter in the seed's exact layout (``yaml.safe_dump``, ``sort_keys=False``) and
a human body with the worked recomputation of the aggregate and a
``## Reproduction`` section. ``write_scorecard`` validates what it renders and
writes atomically. Every text from the payload passes through the reports'
Markdown escape (:func:`~scorekit.reports._format.md_escape`, the rules of :mod:`scorekit._escape`). PyYAML is
imported inside the functions that need it.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._escape import LINE_BREAKS, code_text
from .._io import atomic_write, finite_float
from ..reports._format import clean_text, md_escape, md_fence
from ._parse import parse_scorecard_text
from ._payload import NOTES_END, NOTES_START, ResultPayload
from ._schema import ScorecardInvalidError, validate_scorecard

__all__ = ["REPRODUCTION_FALLBACK", "render_scorecard", "write_scorecard"]

#: The ``## Reproduction`` text when the payload records no command: the seed project's pointer to its
#: scorecard documentation and skill, word for word, so a card reads the same from either renderer.
REPRODUCTION_FALLBACK = (
    "See the [eval-scorecard docs](https://amd-gaia.ai/docs/reference/eval-scorecard) "
    "and the [`adding-eval-scorecard` skill](.claude/skills/adding-eval-scorecard/SKILL.md) "
    "for the full reproduction recipe."
)

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


def _md(value: Any) -> str:
    return md_escape(value)


def _code(value: Any) -> str:
    """``value`` as a Markdown code span, or escaped text when a code span cannot hold it."""
    text = clean_text(value)
    if "`" in text or any(char in LINE_BREAKS for char in str(value)) or not text.strip():
        return _md(value)
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
        out += _breakdown_section(breakdown, recipe["config"].get("n_runs"), results["test_cases_run"])

    performance = results.get("performance")
    if isinstance(performance, Mapping) and performance:
        out += ["## Performance", "", "Observed figures, mean across the run's scenarios. Reported, never gated.", ""]
        out += _table(["Measure", "Value"],
                      [[_md(_PERFORMANCE_LABELS.get(k, k)) + f" (`{k}`)" if k in _PERFORMANCE_LABELS else _md(k),
                        _fmt_number(v)] for k, v in performance.items()], "lr") + [""]

    capability_quality = results.get("capability_quality")
    if isinstance(capability_quality, Mapping):
        out += _capability_quality_section(capability_quality)

    environment = recipe.get("environment")
    if isinstance(environment, Mapping) and environment:
        out += ["## Environment", ""]
        out += _table(["Field", "Value"], [[_md(k), _md(_inline(v))] for k, v in environment.items()]) + [""]

    out += ["## Reproduction", ""]
    if reproduction_command:
        command = code_text(reproduction_command)  # ResultPayload refuses what this would change
        fence = md_fence(command)
        out += ["Run the following commands from the repository root:", "", f"{fence}bash", command, fence, ""]
    else:
        out += [REPRODUCTION_FALLBACK, ""]
    if notes:
        out += [NOTES_START, notes, NOTES_END, ""]
    return "\n".join(out)


def _breakdown_section(breakdown: Mapping[str, Any], n_runs: Any, test_cases_run: Any) -> list[str]:
    """``## Category breakdown``: the seed project's heading, which names the pooling of a multi-run card."""
    runs = n_runs if isinstance(n_runs, int) and not isinstance(n_runs, bool) else 0
    if runs > 1:
        out = [f"## Category breakdown (pooled across all {runs} runs)", "",
               f"_Every run scores each of the {_fmt_number(test_cases_run)} test cases, so the totals below add up "
               f"to {runs} × test_cases_run._", ""]
    else:
        out = ["## Category breakdown", ""]
    per_category = breakdown.get("per_category") or []
    if per_category:
        out += _table(["Category", "Total", "Correct", "Accuracy"],
                      [[_md(r.get("category")), _fmt_number(r.get("total")), _fmt_number(r.get("correct")),
                        _fmt_metric(r.get("accuracy"))] for r in per_category], "lrrr") + [""]
    confusions = breakdown.get("top_confusions") or []
    if confusions:
        out += ["**Top confusions** (expected → predicted)", ""]
        out += _table(["Expected", "Predicted", "Count"],
                      [[_md(r.get("expected")), _md(r.get("predicted")), _fmt_number(r.get("count"))]
                       for r in confusions], "llr") + [""]
    return out


def _capability_quality_section(block: Mapping[str, Any]) -> list[str]:
    """``## Capability quality``: one row per (capability, metric) with a number, four decimals, as the seed
    project writes it; a capability that is not a mapping, or a value that is not a number, has no row."""
    rows = [[_md(capability), _md(metric), f"{float(value):.4f}"]
            for capability, metrics in block.items() if isinstance(metrics, Mapping)
            for metric, value in metrics.items()
            if isinstance(value, numbers.Real) and not isinstance(value, bool)]
    if not rows:
        return []
    return ["## Capability quality", "",
            "_Other capabilities of the agent, each scored by its own evaluation. Reported only: they do not feed "
            "the aggregate above and the release gate does not read them._", "",
            *_table(["Capability", "Metric", "Value"], rows), ""]


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
    command in a fenced block, or :data:`REPRODUCTION_FALLBACK`, the seed project's pointer to its
    scorecard documentation).

    Raises
    ------
    ScorecardInvalidError
        The payload does not make a valid card (``.problems`` names the fields).

    Examples
    --------
    >>> from scorekit.release import Metric, ResultPayload
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

    def _write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    return atomic_write(target, _write)
