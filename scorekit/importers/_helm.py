"""HELM run directories in (SPEC §15, format ``helm``).

``helm-run`` writes one directory per run (``benchmark_output/runs/<suite>/<run name>/``):
``run_spec.json`` (the run's name, ``adapter_spec`` with the model and ``num_train_trials``,
``metric_specs``), ``scenario_state.json`` (every request state: the instance — id, split,
perturbation, input, references — its ``train_trial_index`` and the completion),
``per_instance_stats.json`` (HELM's ``PerInstanceStats``: ``instance_id``, ``perturbation``,
``train_trial_index`` and ``stats``, each ``{name: {name, split, sub_split, perturbation},
count, sum, mean, ...}``), ``stats.json`` (the aggregates, one per stat name and context) and
``scenario.json``. The directory is read from its ``run_spec.json`` (or, without one, from its
``per_instance_stats.json``), told by content; the other files of the layout are claimed.

One row per (instance, train trial, main metric): case = the instance id, trial = run =
``train_trial_index``, dimension = ``<metric>@<split>`` — HELM reports every stat per split
(``exact_match`` on ``test`` and on ``valid``), so each split is its own dimension and its pass^1
equals HELM's own figure for that split. An instance HELM ran under a perturbation (same id,
another input) is its own dimension ``<metric>@<split>/<perturbation>``, as HELM reports it; the
unperturbed dimension holds the original instances only. The main metrics are HELM's 0/1
correctness stats (:data:`CORRECTNESS`) the per-instance stats hold; a run with none of them takes
the stats its run spec names (``metric_specs[].args.names``) that every instance scores 0 or 1. The
other named stats (F1, ROUGE, BLEU) are no pass/fail dimension: HELM's aggregates of them go to
``source["metrics"]``. 1 → PASS, 0 → FAIL ``helm_zero``, in between (a correctness stat HELM does
not write so) → ``score`` (the policy's ``partial`` rule). An instance of the scenario state
without its stat (no per-instance entry, a count of 0, NaN) is ERROR ``unscored``, never dropped.
Agent = the adapter's ``model_deployment`` (else ``model``), task = the run spec's name; HELM's
aggregate stats of those metrics go to ``source["metrics"]`` keyed ``<metric>@<split>``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from .._io import finite_float, loads_strict
from ._base import (
    HEAD_BYTES,
    check_rows,
    declared_repeats,
    head_bytes,
    json_file,
    kind_of,
    nonblank,
    optional_record,
    record,
    record_key,
    record_list,
    source_dict,
)
from ._run import ImportedRun

__all__ = ["CORRECTNESS", "FORMAT", "claims", "detect", "read"]

FORMAT = "helm"
RUN_SPEC = "run_spec.json"
STATE = "scenario_state.json"
STATS = "per_instance_stats.json"
AGGREGATE = "stats.json"
#: Every file ``helm-run`` (and ``helm-summarize``) writes into a run directory.
LAYOUT = (RUN_SPEC, "scenario.json", STATE, AGGREGATE, STATS, "instances.json", "predictions.json",
          "display_predictions.json", "display_requests.json")
#: HELM's per-instance correctness stats (0 or 1 per instance): main metrics whether or not the run
#: spec names them (a reference metric computes exact_match without naming it).
CORRECTNESS = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match",
               "exact_match_indicator", "final_number_exact_match", "math_equiv", "math_equiv_chain_of_thought")
#: HELM's aggregate count of instances per split, carried into ``source["metrics"]`` beside the metrics.
_COUNTS = ("num_instances",)
_WHAT = "HELM run file"

Key = tuple[str, str | None, int]  # (instance id, perturbation as canonical JSON or None, train trial)


# --------------------------------------------------------------------------- detection
def _parse_head(path: Path) -> tuple[bytes, Any] | None:
    """(head, parsed JSON or None when the file is longer than the head) of a JSON file, or None."""
    head = head_bytes(path)
    if head is None:
        return None
    if len(head) == HEAD_BYTES:
        return head, None
    try:
        return head, loads_strict(head.decode("utf-8").removeprefix("\ufeff"), nonfinite="keep")
    except (UnicodeDecodeError, ValueError):
        return None


def _is_run_spec(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("adapter_spec"), dict)
            and isinstance(data.get("name"), str) and ("metric_specs" in data or "scenario_spec" in data))


def _is_instance_stats(data: Any) -> bool:
    return (isinstance(data, list) and bool(data) and isinstance(data[0], dict)
            and "instance_id" in data[0] and "stats" in data[0])


def _kind(path: Path) -> str | None:
    """``spec`` (a HELM run spec), ``stats`` (HELM's per-instance stats) or None, by content."""
    parsed = _parse_head(path)
    if parsed is None:
        return None
    head, data = parsed
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start == b"{" and b'"adapter_spec"' in head and (b'"metric_specs"' in head or b'"scenario_spec"' in head):
        return "spec" if data is None or _is_run_spec(data) else None  # a longer file: its head decides
    if start == b"[" and b'"instance_id"' in head and b'"stats"' in head:
        return "stats" if data is None or _is_instance_stats(data) else None
    return None


def detect(path: Path) -> bool:
    """True for a HELM run directory, its ``run_spec.json``, or a ``per_instance_stats.json`` without a run spec.

    By content: a run spec is an object with ``name``, ``adapter_spec`` and ``metric_specs``;
    per-instance stats a list of ``{instance_id, stats}``. Where both are in one directory, the run
    spec is the file that is read (and claims the others), so a directory walk reads the run once.
    """
    try:
        path = Path(path)
        if path.is_dir():
            return _kind(path / RUN_SPEC) == "spec" or _kind(path / STATS) == "stats"
        kind = _kind(path)
        if kind == "stats":
            return _kind(path.parent / RUN_SPEC) != "spec"
        return kind == "spec"
    except Exception:  # noqa: BLE001 - detection never raises: the file is simply not ours
        return False


def claims(path: Path) -> set[Path]:
    """The other files of the run directory ``path`` is read with (HELM's layout, :data:`LAYOUT`)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    return {p for name in LAYOUT if (p := folder / name).is_file() and p != path}


# --------------------------------------------------------------------------- shapes
def _index(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: expected a whole number >= 0, found {kind_of(value)} {json.dumps(value)[:40]}")
    return value


def _optional_text(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InputError(f"{where}: expected a string, found {kind_of(value)}")
    return value


def _perturbation(value: Any, where: str) -> str | None:
    """A perturbation description as canonical JSON (HELM keys results by it), or None for the original."""
    if value is None:
        return None
    description = record(value, where)
    if nonblank(description.get("name")) is None:
        raise InputError(f"{where}.name: expected a perturbation's name, found {kind_of(description.get('name'))}")
    return json.dumps(description, sort_keys=True, ensure_ascii=False)


def _stat_value(stat: Any, where: str) -> tuple[str, str | None, str | None, float | None, int]:
    """(name, split, sub_split, the instance's value or None, count) of one HELM ``Stat``.

    The value is ``mean`` (else ``sum / count``); a count of 0, a null or non-finite mean is no value.
    """
    stat = record(stat, where)
    name = record(stat.get("name"), f"{where}.name")
    metric = nonblank(name.get("name"))
    if metric is None:
        raise InputError(f"{where}.name.name: expected a stat's name, found {kind_of(name.get('name'))}")
    split = _optional_text(name.get("split"), f"{where}.name.split")
    sub_split = _optional_text(name.get("sub_split"), f"{where}.name.sub_split")
    count = _index(stat.get("count"), f"{where}.count")
    value = None
    for field in ("mean", "sum"):
        raw = stat.get(field)
        if raw is not None and (isinstance(raw, bool) or not isinstance(raw, (int, float))):
            raise InputError(f"{where}.{field}: expected a number, found {kind_of(raw)}")
    if count > 0:
        if stat.get("mean") is not None:
            value = finite_float(stat["mean"])
        elif stat.get("sum") is not None:
            total = finite_float(stat["sum"])
            value = None if total is None else total / count
    return metric, split, sub_split, value, count


# --------------------------------------------------------------------------- the files
def _names(spec: dict[str, Any], where: str) -> list[str]:
    """The stat names the run spec's metric specs list (``args.names``), in order."""
    names: list[str] = []
    for i, metric_spec in enumerate(record_list(spec.get("metric_specs"), f"{where}: metric_specs")):
        args = optional_record(record(metric_spec, f"{where}: metric_specs[{i}]").get("args"),
                               f"{where}: metric_specs[{i}].args")
        listed = args.get("names")
        if isinstance(listed, list):
            names += [n for n in listed if isinstance(n, str) and n not in names]
    return names


class _Instances:
    """The scenario state's request states, one entry per (instance, perturbation, train trial)."""

    def __init__(self) -> None:
        self.split: dict[Key, str | None] = {}
        self.sub_split: dict[Key, str | None] = {}
        self.input: dict[Key, Any] = {}
        self.output: dict[Key, str | None] = {}
        self.requests: Counter[Key] = Counter()
        self.created: list[float] = []

    def read(self, state: Any, path: Path) -> dict[str, Any]:
        state = record(state, str(path))
        states = record_list(state.get("request_states"), f"{path}: request_states", missing_ok=False)
        for i, request_state in enumerate(states):
            where = f"{path}: request_states[{i}]"
            request_state = record(request_state, where)
            instance = record(request_state.get("instance"), f"{where}.instance")
            key = (record_key(instance.get("id"), f"{where}.instance.id"),
                   _perturbation(instance.get("perturbation"), f"{where}.instance.perturbation"),
                   _index(request_state.get("train_trial_index"), f"{where}.train_trial_index"))
            split = _optional_text(instance.get("split"), f"{where}.instance.split")
            sub_split = _optional_text(instance.get("sub_split"), f"{where}.instance.sub_split")
            if key not in self.split:
                self.split[key], self.sub_split[key] = split, sub_split
                self.input[key] = _instance_input(instance, f"{where}.instance")
            if request_state.get("request_mode") == "calibration":
                continue
            self.requests[key] += 1
            result = optional_record(request_state.get("result"), f"{where}.result")
            completions = record_list(result.get("completions"), f"{where}.result.completions")
            text = None
            if completions:
                first = record(completions[0], f"{where}.result.completions[0]")
                text = _optional_text(first.get("text"), f"{where}.result.completions[0].text")
            self.output[key] = text if self.requests[key] == 1 else None  # several requests: no one output
            when = result.get("request_datetime")
            if isinstance(when, (int, float)) and not isinstance(when, bool) and finite_float(when) is not None:
                self.created.append(float(when))
        return dict(optional_record(state.get("adapter_spec"), f"{path}: adapter_spec"))


def _text(value: Any, where: str) -> str | None:
    """An instance's input or a reference's output: ``{text}`` (HELM 0.3 on), or the text itself (HELM 0.2)."""
    if value is None or isinstance(value, str):
        return value
    return _optional_text(record(value, where).get("text"), f"{where}.text")


def _instance_input(instance: Any, where: str) -> Any:
    """The instance's input text and references (with their tags: the answer key), for the suite hash."""
    out: dict[str, Any] = {}
    text = _text(instance.get("input"), f"{where}.input")
    if text is not None:
        out["text"] = text
    references = []
    for j, reference in enumerate(record_list(instance.get("references"), f"{where}.references")):
        reference = record(reference, f"{where}.references[{j}]")
        tags = record_list(reference.get("tags"), f"{where}.references[{j}].tags")
        references.append({"text": _text(reference.get("output"), f"{where}.references[{j}].output"),
                           "tags": [t for t in tags if isinstance(t, str)]})
    if references:
        out["references"] = references
    return out or None


def _instance_stats(data: Any, path: Path, wanted: set[str]) -> tuple[dict[Key, dict[str, Any]], set[str], int]:
    """Per key: {split, sub_split, values: {metric: value or None}}; the metrics counted more than once; entries."""
    out: dict[Key, dict[str, Any]] = {}
    weighted: set[str] = set()
    entries = record_list(data, str(path), missing_ok=False)
    for i, entry in enumerate(entries):
        where = f"{path}: [{i}]"
        entry = record(entry, where)
        if "instance_id" not in entry or "stats" not in entry:
            missing = "instance_id" if "instance_id" not in entry else "stats"
            raise InputError(f"{where}: no {missing} (not HELM's per-instance stats)")
        key = (record_key(entry.get("instance_id"), f"{where}.instance_id"),
               _perturbation(entry.get("perturbation"), f"{where}.perturbation"),
               _index(entry.get("train_trial_index"), f"{where}.train_trial_index"))
        slot = out.setdefault(key, {"split": None, "sub_split": None, "values": {}})
        for j, stat in enumerate(record_list(entry.get("stats"), f"{where}.stats", missing_ok=False)):
            name = stat.get("name") if type(stat) is dict else None
            metric = name.get("name") if type(name) is dict else None
            if metric not in wanted and type(metric) is str and metric:
                continue  # a stat of another metric: its shape is all that is read of it
            metric, split, sub_split, value, count = _stat_value(stat, f"{where}.stats[{j}]")
            if metric not in wanted:
                continue
            if metric in slot["values"] and slot["values"][metric] != value:
                raise InputError(f"{where}.stats[{j}]: {metric} of instance {key[0]} (train trial {key[2]}) "
                                 "stated twice with different values")
            slot["values"][metric] = value
            slot["split"] = slot["split"] or split
            slot["sub_split"] = slot["sub_split"] or sub_split
            if count > 1:
                weighted.add(metric)
    return out, weighted, len(entries)


def _aggregates(data: Any, path: Path, metrics: list[str]) -> tuple[dict[str, Any], int]:
    """HELM's own aggregate stats of ``metrics`` (and its instance counts), keyed ``metric@split``; repeats."""
    wanted = set(metrics) | set(_COUNTS)
    out: dict[str, Any] = {}
    repeated = 0
    for i, stat in enumerate(record_list(data, str(path), missing_ok=False)):
        where = f"{path}: [{i}]"
        stat = record(stat, where)
        metric, split, sub_split, _, count = _stat_value(stat, where)
        if metric not in wanted:
            continue
        name = stat["name"]
        key = metric + (f"@{split}" if split else "") + (f"[{sub_split}]" if sub_split else "")
        perturbation = name.get("perturbation")
        if perturbation is not None:
            described = record(perturbation, f"{where}.name.perturbation")
            key += f"/{described.get('name')}:{described.get('computed_on', 'perturbed')}"
        if key in out:
            repeated += 1
            continue
        out[key] = {"count": count, "sum": finite_float(stat.get("sum")) if stat.get("sum") is not None else None,
                    "mean": finite_float(stat.get("mean")) if stat.get("mean") is not None else None}
    return out, repeated


# --------------------------------------------------------------------------- read
def read(path: Path) -> list[ImportedRun]:
    """The one run of a HELM run directory (given as the directory, its run spec or its per-instance stats).

    Raises
    ------
    InputError
        One line naming the file and position: a file that is not strict JSON, a record of the wrong
        shape (a stat that is not an object, a count that is not a whole number), a required key
        missing, no model named, or a declared trial count above what the files could hold.
    NoSamplesError
        The run holds no instance (nothing in the scenario state nor the per-instance stats).
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    spec_path: Path | None = folder / RUN_SPEC
    stats_path: Path | None = folder / STATS
    spec: Any = None
    stats_data: Any = None
    if path.is_file():
        data = json_file(path, _WHAT)
        if _is_run_spec(data):
            spec_path, spec = path, data
        elif isinstance(data, list):
            stats_path, stats_data = path, data
        else:
            raise InputError(f"{path}: not a HELM run spec (name, adapter_spec, metric_specs) nor per-instance stats")
    if spec is None and spec_path is not None and spec_path.is_file():
        spec = json_file(spec_path, _WHAT)
        if not _is_run_spec(spec):
            raise InputError(f"{spec_path}: not a HELM run spec (an object with name, adapter_spec and metric_specs)")
    elif spec is None:
        spec_path = None
    if stats_data is None and stats_path is not None and stats_path.is_file():
        stats_data = json_file(stats_path, _WHAT)
    elif stats_data is None:
        stats_path = None
    state_path = folder / STATE
    aggregate_path = folder / AGGREGATE
    return [_run(folder, spec, spec_path, stats_data, stats_path,
                 state_path if state_path.is_file() else None,
                 aggregate_path if aggregate_path.is_file() else None)]


def _label(perturbation: str | None, labels: dict[str, str]) -> str | None:
    return None if perturbation is None else labels[perturbation]


def _labels(perturbations: set[str]) -> dict[str, str]:
    """Each perturbation's dimension label: its name, with a digest where two descriptions share one."""
    names = Counter(json.loads(p)["name"] for p in perturbations)
    out = {}
    for p in perturbations:
        name = json.loads(p)["name"]
        out[p] = name if names[name] == 1 else f"{name}#{hashlib.sha256(p.encode()).hexdigest()[:8]}"
    return out


def _dimension(metric: str, split: str | None, label: str | None) -> str:
    return metric + (f"@{split}" if split else "") + (f"/{label}" if label else "")


def _run(folder: Path, spec: Any, spec_path: Path | None, stats_data: Any, stats_path: Path | None,
         state_path: Path | None, aggregate_path: Path | None) -> ImportedRun:
    notes: list[str] = []
    files = [str(p) for p in (spec_path, state_path, stats_path, aggregate_path) if p is not None]
    adapter: dict[str, Any] = {}
    named: list[str] = []
    if spec is not None:
        adapter = dict(record(spec["adapter_spec"], f"{spec_path}: adapter_spec"))
        named = _names(spec, str(spec_path))
    instances = _Instances()
    if state_path is not None:
        state_adapter = instances.read(json_file(state_path, _WHAT), state_path)
        adapter = adapter or state_adapter
    else:
        notes.append(f"no {STATE}: the instances HELM ran cannot be checked against the scored ones, so the run "
                     "is partial")
    wanted = set(named) | set(CORRECTNESS)
    scored: dict[Key, dict[str, Any]] = {}
    weighted: set[str] = set()
    entries = 0
    if stats_path is not None:
        scored, weighted, entries = _instance_stats(stats_data, stats_path, wanted)
    else:
        notes.append(f"no {STATS}: HELM scored no instance (its metrics did not run), so every instance is ERROR "
                     "unscored and the run is partial")
    keys: list[Key] = list(instances.split) + [k for k in scored if k not in instances.split]
    if not keys:
        where = stats_path or state_path or spec_path or folder
        raise NoSamplesError(f"{where}: the HELM run holds no instance")

    # the main metrics: HELM's correctness stats, and named stats every instance scores 0 or 1
    order = [*named, *(m for m in CORRECTNESS if m not in named)]
    present = {m for slot in scored.values() for m in slot["values"]}
    given = [(m, v) for slot in scored.values() for m, v in slot["values"].items() if v is not None]
    bad = sorted({m for m, v in given if m in CORRECTNESS and not 0 <= v <= 1})
    if bad:
        odd = next(k for k, slot in scored.items() if not 0 <= (slot["values"].get(bad[0]) or 0) <= 1)
        raise InputError(f"{stats_path}: instance {odd[0]} (train trial {odd[2]}): {bad[0]} is outside [0, 1] "
                         "(HELM's correctness stats are 0 or 1): not a file HELM writes")
    graded = {m for m, v in given if v not in (0, 1)}
    metrics = [m for m in CORRECTNESS if m in present]
    if not metrics:  # a run without HELM's correctness stats: the named stats every instance scores 0 or 1
        metrics = [m for m in order if m in present and m not in graded]
    continuous = sorted(present - set(metrics))
    if continuous:
        notes.append(f"named stat(s) {', '.join(continuous)} (F1, ROUGE, BLEU, ...: not HELM's 0/1 correctness "
                     "stats) are not pass/fail dimensions; HELM's aggregates of them are in source metrics")
    if not metrics and (present or not named):
        why = "" if named else " (its run spec names none: metric_specs args.names are empty)"
        raise NoSamplesError(f"{stats_path or spec_path or folder}: the per-instance stats hold no 0/1 stat of the "
                             f"run's main metrics{why} ({', '.join(order[:6])}, ...): nothing to import as rows")
    if not metrics:
        metrics = list(named)  # none of them scored: every instance unscored on the metrics the run names

    agent = nonblank(adapter.get("model_deployment")) or nonblank(adapter.get("model"))
    if agent is None:
        raise InputError(f"{spec_path or state_path or folder}: adapter_spec names no model_deployment nor model")
    notes.append("agent = the adapter's model_deployment" if nonblank(adapter.get("model_deployment"))
                 else "agent = the adapter's model (it names no model_deployment)")
    task = nonblank(spec.get("name")) if spec is not None else None
    if task is None:
        task = folder.name
        notes.append(f"task = {task!r}, the run directory's name: no {RUN_SPEC}")
    else:
        notes.append("task = the run spec's name")

    # every (instance, trial) with its split and perturbation; dimensions per (split, perturbation)
    split_of: dict[Key, str | None] = {}
    for key in keys:
        split_of[key] = instances.split.get(key) or scored.get(key, {}).get("split")
    labels = _labels({k[1] for k in keys if k[1] is not None})
    groups: dict[tuple[str | None, str | None], list[str]] = {}
    for key in keys:
        values = scored.get(key, {}).get("values", {})
        group = groups.setdefault((split_of[key], key[1]), [])
        group += [m for m in metrics if m in values and m not in group]
    for found in groups.values():
        if not found:  # a split or perturbation no instance of which was scored: unscored on every main metric
            found += metrics
        found.sort(key=metrics.index)
    check_rows(str(stats_path or state_path or folder), sum(len(groups[(split_of[k], k[1])]) for k in keys),
               held=len(keys) + entries, items="instances and per-instance stats")

    rows: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for key in keys:
        case, perturbation, trial = key
        split = split_of[key]
        slot = scored.get(key)
        values = slot["values"] if slot is not None else {}
        label = _label(perturbation, labels)
        for metric in groups[(split, perturbation)]:
            dimension = _dimension(metric, split, label)
            row: dict[str, Any] = {
                "id": f"{case}/trial-{trial}/{dimension}",
                "dimension": dimension,
                "case_id": case,
                "trial": trial,
                "evaluator": f"helm:{metric}",
                "agent": agent,
                "run": trial,
            }
            value = values.get(metric)
            if value is None:
                row.update(status="ERROR", reason="unscored",
                           detail=(f"HELM states no {metric} for this instance" if slot is not None
                                   else "HELM's per-instance stats hold no entry for this instance"))
                counts["ERROR"] += 1
            elif value == 1:
                row["status"] = "PASS"
                counts["PASS"] += 1
            elif value == 0:
                row.update(status="FAIL", reason="helm_zero", detail=f"HELM {metric} = 0")
                counts["FAIL"] += 1
            else:
                row["score"] = value
                counts["score"] += 1
            if instances.input.get(key) is not None:
                row["input"] = instances.input[key]
            if instances.output.get(key) is not None:
                row["agent_output"] = instances.output[key]
            rows.append(row)

    # what the run planned: train trials
    trials = sorted({k[2] for k in keys})
    samples = {(k[0], k[1]) for k in keys}
    declared = declared_repeats(adapter.get("num_train_trials"), f"{spec_path or state_path}: "
                                "adapter_spec.num_train_trials", held=len(keys), holds="instance trials")
    planned = max(declared or 0, len(trials))
    partial = state_path is None or stats_path is None
    if len(keys) < len(samples) * planned:
        partial = True
        notes.append(f"{len(samples) * planned - len(keys)} (instance, train trial) pair(s) of the "
                     f"{planned} train trial(s) are absent from the run: partial")

    notes += [
        "dimension = <metric>@<split>: HELM reports every stat per split (test, valid), so each split is its own "
        "dimension and its pass^1 equals HELM's own figure for that split",
        f"main metrics: HELM's 0/1 correctness stats the per-instance stats hold (else the named stats every "
        f"instance scores 0 or 1): {', '.join(metrics)}; 1 → PASS, 0 → FAIL helm_zero, in (0, 1) → score "
        "(policy partial)",
        "an instance of the scenario state without its stat (no per-instance entry, count 0, NaN) is ERROR unscored",
        "case_id = the instance id; trial = run = train_trial_index (each train trial is one pass over the "
        "instances with its own in-context examples)",
        "perturbed instances (same id, perturbed input) are their own dimensions <metric>@<split>/<perturbation>, "
        "as HELM reports them; the unperturbed dimension holds the original instances only",
        "input = the instance's input text and references with their tags (suite hash); agent_output = the first "
        "completion where an instance made one request",
        "limit = adapter_spec.max_eval_instances: HELM's sampling protocol (its own figures are over that sample), "
        "not a run cut short",
        "HELM's aggregates of the main metrics (stats.json) are in metrics, keyed <metric>@<split>"
        "[<sub_split>]/<perturbation>:<computed_on>; the run directory states no HELM version",
    ]
    if any(v for v in instances.sub_split.values()):
        notes.append("sub_splits are pooled into their split's dimension (HELM's per-sub_split aggregates are "
                     "in metrics)")
    if weighted:
        notes.append(f"per-instance stat(s) {', '.join(sorted(weighted))} count more than once for an instance: "
                     "HELM weights its aggregate by count, scorekit counts each instance once")
    unscored = counts["ERROR"]
    if unscored:
        notes.append(f"{unscored} row(s) ERROR unscored")
    extra = [k for k in scored if k not in instances.split] if state_path is not None else []
    if extra:
        notes.append(f"{len(extra)} per-instance stat entr(y/ies) name an instance the scenario state lacks: "
                     "imported as they are")

    metrics_out: dict[str, Any] = {}
    if aggregate_path is not None:
        metrics_out, repeated = _aggregates(json_file(aggregate_path, _WHAT), aggregate_path,
                                            [*metrics, *continuous])
        if repeated:
            notes.append(f"{repeated} aggregate stat(s) repeat a name in {AGGREGATE}: the first is kept")
    else:
        notes.append(f"no {AGGREGATE}: HELM's own aggregates are not available")
    limit = adapter.get("max_eval_instances")
    created = None
    if instances.created:
        try:
            created = datetime.fromtimestamp(min(instances.created), tz=UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            notes.append("request_datetime out of range: created not stated")
    import pandas as pd

    source = source_dict(
        fmt=FORMAT, files=files, status=None, samples_run=len(samples), epochs=planned,
        created=created, harness="HELM", harness_version=None, metrics=metrics_out, notes=notes,
        limit=limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
        sample_epochs_run=len(keys), sample_epochs_planned=len(samples) * planned,
    )
    return ImportedRun(agent=agent, task=task, rows=pd.DataFrame.from_records(rows), partial=partial, source=source)
