"""τ-bench and τ²-bench results in (SPEC §15, format ``tau``).

Two shapes, told apart by content:

* **τ-bench** (``sierra-research/tau-bench``) writes a JSON list of results, one per
  (task, trial): ``{task_id, trial, reward, info, traj}``. It names no model: the agent
  is the file name's stem.
* **τ²-bench** (``sierra-research/tau2-bench``) writes one JSON object ``{timestamp,
  info, tasks, simulations}`` (``Results`` in ``tau2/data_model/simulation.py``): each
  simulation has ``task_id``, ``trial``, ``termination_reason`` and
  ``reward_info.reward``; the agent is ``info.agent_info.llm``. Its directory layout
  (``tau2 convert-results --to dir``, τ² 1.0's ``Results.save(format="dir")``: a
  ``results.json`` with ``info`` and ``tasks`` and no ``simulations``, beside a
  ``simulations/`` folder of ``<id>.json`` files) is read as τ²'s ``Results.load`` reads it:
  each simulation from its own file (in file-name order), and ``results.json``'s
  ``simulation_index``, where present, checked against the files (a listed simulation without
  its file, or a file the index does not list, is an input error, as τ² refuses them). A
  ``results.json`` with a ``simulation_index`` but no ``simulations/`` folder beside it is read
  from the index (task, trial, reward, termination, cost, duration). A τ² leaderboard
  ``submission.json`` holds only aggregate pass^k figures and no simulation: a source without
  samples (:class:`~scorekit._errors.NoSamplesError`, naming the file).

Every result is one row of dimension ``tau_reward``: PASS when the reward is 1 within
1e-6 (τ's own ``is_successful``), else FAIL ``reward_not_one`` — a partial reward is
not partial credit, and a run cut off at the step or error limit scores 0 there and
FAILs here. A τ² simulation ended by an infrastructure error is ERROR
``infrastructure_error`` (τ² leaves those out of its metrics too); one without a
reward is ERROR ``unscored``; a listed task with fewer simulations than
``info.num_trials`` gets an ERROR ``not_run`` row per missing trial and makes the run
partial (``num_trials`` is a count the file declares: above the larger of
:data:`~scorekit.importers._base.REPEATS_BOUND` and the simulations the file holds it is an
input error, SPEC §20; missing pairs beyond the tasks
and simulations the file holds are counted in ``sample_epochs_planned``, not written as
rows). A result, task or simulation that is not an object, or a reward, cost or duration
that is not a number, is an input error naming the file and its position. pass^k over
the rows equals τ's own (mean over tasks of C(c, k)/C(n, k)).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from .._io import finite_float, read_bounded, read_json_strict
from ._base import (
    amount,
    declared_repeats,
    kind_of,
    nonblank,
    optional_record,
    record,
    record_key,
    record_list,
    source_dict,
)
from ._run import ImportedRun

__all__ = ["DIMENSION", "FORMAT", "TOLERANCE", "claims", "detect", "pass_hat_k_by_task", "read"]

#: The folder of τ²'s directory layout beside ``results.json`` (τ²'s ``SIMULATIONS_DIR``).
SIMULATIONS_DIR = "simulations"

FORMAT = "tau"
DIMENSION = "tau_reward"
#: A reward within this of 1 is a success (τ-bench's and τ²-bench's ``is_successful``).
TOLERANCE = 1e-6
_WHAT = "τ-bench results file"
#: The largest k of the source's own pass^k headline (τ reports k = 1 … its trials; a file stating
#: thousands of trials per task would cost thousands of passes over it).
MAX_HEADLINE_K = 16
_HEAD = 1 << 16


def detect(path: Path) -> bool:
    """True when ``path`` is a τ-bench results list or a τ²-bench results object (by content).

    Its first 64 KiB must name ``task_id`` and ``reward`` (a list) or ``simulations`` or
    ``agent_info`` (an object); a file no longer than that is also parsed and its shape checked.
    """
    try:
        head = read_bounded(path, _HEAD, head=True)
    except Exception:  # noqa: BLE001 - detection never raises: the file is simply not ours
        return False
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] == b"[":
        if b'"task_id"' not in head or b'"reward"' not in head:
            return False
    elif text[:1] == b"{":
        if b'"simulations"' not in head and b'"agent_info"' not in head and b'"pass_1"' not in head:
            return False
    else:
        return False
    if len(head) == _HEAD:  # a larger file: its head decides (parsing it twice would double the import)
        return True
    try:
        data = read_json_strict(path, _WHAT, InputError)
    except InputError:
        return False
    return _shape(data, path) is not None


def claims(path: Path) -> set[Path]:
    """The files of τ²'s directory layout read with ``path``: ``simulations/*.json`` beside its ``results.json``.

    They are read with ``results.json`` (each simulation's outcome), so a directory walk does not
    note each of them as a file it skipped.
    """
    folder = _simulations_folder(Path(path))
    return set() if folder is None else set(_simulation_files(folder))


def _simulations_folder(path: Path) -> Path | None:
    """The ``simulations/`` folder beside ``path`` when it is one (τ²'s ``_detect_format``: a sibling folder)."""
    folder = path.parent / SIMULATIONS_DIR
    return folder if folder.is_dir() else None


def _simulation_files(folder: Path) -> list[Path]:
    """The simulation files of the layout, in name order (τ²'s ``sorted(sims_dir.glob("*.json"))``)."""
    return sorted(p for p in folder.glob("*.json") if p.is_file())


def _leaderboard(data: Any) -> bool:
    """A τ² leaderboard submission: ``results`` per domain with ``pass_1``… figures, and no simulation."""
    if not isinstance(data, dict) or "simulations" in data or "simulation_index" in data:
        return False
    results = data.get("results")
    return isinstance(results, dict) and any(isinstance(v, dict) and "pass_1" in v for v in results.values())


def _shape(data: Any, path: Path | None = None) -> str | None:
    if isinstance(data, list):
        first = next((x for x in data if isinstance(x, dict)), None)
        if first is not None and "task_id" in first and "reward" in first:
            return "tau"
        return None
    if isinstance(data, dict) and "info" in data and (
            "simulations" in data or "simulation_index" in data
            or ("tasks" in data and path is not None and _simulations_folder(path) is not None)):
        return "tau2"  # its shape is checked by the reader: a damaged τ² file is an error naming the field
    if _leaderboard(data):
        return "leaderboard"
    return None


def read(path: Path) -> list[ImportedRun]:
    """The one run of a τ-bench or τ²-bench results file.

    Raises
    ------
    InputError
        One line naming the file: unreadable, not strict JSON, not a τ results file,
        no results in it, or a result without a task id.
    """
    path = Path(path)
    data = read_json_strict(path, _WHAT, InputError)
    shape = _shape(data, path)
    if shape == "tau":
        return [_tau1(data, path)]
    if shape == "tau2":
        return [_tau2(data, path)]
    if shape == "leaderboard":
        raise NoSamplesError(f"{path}: a τ²-bench leaderboard submission: it holds only leaderboard figures "
                             "(pass_k per domain), no simulation to import; give the run's results.json or its "
                             "directory")
    if data == [] or (isinstance(data, dict) and (data.get("simulations") == [] or data.get("simulation_index") == [])):
        raise NoSamplesError(f"{path}: the {_WHAT} holds no results")
    if isinstance(data, list):  # a τ-bench list whose first result is not one
        first = next((i for i, x in enumerate(data) if not isinstance(x, dict)), None)
        if first is not None:
            record(data[first], f"{path}: [{first}]")
    raise InputError(
        f"{path}: not a τ-bench results file (expected a list of {{task_id, trial, reward}} "
        "or a τ²-bench {info, tasks, simulations} object)"
    )


# --------------------------------------------------------------------------- shared
def _reward_status(reward: Any, where: str) -> tuple[str, str | None, float | None]:
    """(status, reason, reward as float) of one reward value: a number, or null (no reward: ERROR).

    Raises
    ------
    InputError
        The reward is not a number (a string, a boolean, a list, an object), naming ``where``.
    """
    if reward is None:
        return "ERROR", "invalid_reward", None
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise InputError(f"{where}: expected a number, found {kind_of(reward)}")
    value = finite_float(reward)
    if value is None:
        return "ERROR", "invalid_reward", None
    if abs(value - 1.0) <= TOLERANCE:
        return "PASS", None, value
    return "FAIL", "reward_not_one", value


def _trials(raw: list[Any], keys: list[str], notes: list[str]) -> list[int]:
    """Each result's trial: its own non-negative integer ``trial``, else its position among its task's results."""
    seen: Counter[str] = Counter()
    out: list[int] = []
    numbered = 0
    for trial, key in zip(raw, keys, strict=True):
        if isinstance(trial, int) and not isinstance(trial, bool) and trial >= 0:
            out.append(trial)
        else:
            out.append(seen[key])
            numbered += 1
        seen[key] += 1
    if numbered:
        notes.append(f"{numbered} result(s) state no usable trial number: numbered by their order within the task")
    return out


def pass_hat_k_by_task(success: dict[str, list[bool]], k: int) -> float | None:
    """τ's pass^k: the mean over tasks of C(c, k) / C(n, k) (None when a task has fewer than k trials)."""
    if not success or any(len(v) < k for v in success.values()):
        return None
    return sum(math.comb(sum(v), k) / math.comb(len(v), k) for v in success.values()) / len(success)


def _headline(rewards: dict[str, list[float]], success: dict[str, list[bool]]) -> dict[str, Any]:
    """The source's own headline numbers, computed its way: average reward and pass^k for k = 1..min trials."""
    values = [r for v in rewards.values() for r in v]
    metrics: dict[str, Any] = {"avg_reward": sum(values) / len(values) if values else None}
    max_k = min(min((len(v) for v in success.values()), default=0), MAX_HEADLINE_K)
    for k in range(1, max_k + 1):
        metrics[f"pass^{k}"] = pass_hat_k_by_task(success, k)
    return metrics


def _row(case: str, trial: int, agent: str, evaluator: str, status: str, reason: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"{case}/trial-{trial}",
        "dimension": DIMENSION,
        "case_id": case,
        "trial": trial,
        "status": status,
        "evaluator": evaluator,
        "agent": agent,
        "run": trial,
    }
    if reason is not None:
        row["reason"] = reason
    return row


def _frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame.from_records(rows)


_COMMON_NOTES = [
    f"dimension {DIMENSION}: PASS when the reward is 1 within {TOLERANCE:g} (τ's is_successful), "
    "else FAIL reward_not_one; a partial reward is not partial credit",
    "case_id = the task id; trial = the result's trial; run = the trial (each τ trial is one pass over the tasks)",
    "a reward that is null is ERROR invalid_reward; one that is not a number is an input error",
]


# --------------------------------------------------------------------------- τ-bench
def _tau1(data: list[Any], path: Path) -> ImportedRun:
    notes = list(_COMMON_NOTES)
    agent = task = path.stem
    notes.append(f"agent = {agent!r}, the file name's stem: τ-bench results name no model")
    notes.append(f"task = {task!r}, the file name's stem: τ-bench results name no environment")
    entries: list[dict[str, Any]] = []
    infos: list[Any] = []
    for i, entry in enumerate(data):
        entries.append(dict(record(entry, f"{path}: [{i}]")))
        info = optional_record(entry.get("info"), f"{path}: [{i}].info")
        infos.append(optional_record(info.get("task"), f"{path}: [{i}].info.task") if info else {})
    keys = [record_key(e.get("task_id"), f"{path}: [{i}].task_id") for i, e in enumerate(entries)]
    trials = _trials([e.get("trial") for e in entries], keys, notes)
    rows: list[dict[str, Any]] = []
    rewards: dict[str, list[float]] = {}
    success: dict[str, list[bool]] = {}
    with_input = 0
    for i, (entry, case, trial) in enumerate(zip(entries, keys, trials, strict=True)):
        status, reason, value = _reward_status(entry.get("reward"), f"{path}: [{i}].reward")
        row = _row(case, trial, agent, "tau-bench", status, reason)
        if infos[i]:
            row["input"] = dict(infos[i])
            with_input += 1
        rows.append(row)
        if value is not None:
            rewards.setdefault(case, []).append(value)
            success.setdefault(case, []).append(status == "PASS")
    if with_input:
        notes.append("input = info.task (user id, instruction, expected actions): the case definition "
                     "(in the suite hash)")
    notes.append("trajectories (traj) and the user simulator's cost (info.user_cost) are not carried")
    counts = Counter(keys)
    partial = len(set(counts.values())) > 1
    if partial:
        notes.append(
            f"partial: tasks ran unequal numbers of trials (from {min(counts.values())} to {max(counts.values())})"
        )
    source = source_dict(
        fmt=FORMAT, files=[str(path)], status=None, samples_run=len(counts), epochs=max(counts.values()),
        created=None, harness="tau-bench", harness_version=None, metrics=_headline(rewards, success), notes=notes,
        sample_epochs_run=len(entries), sample_epochs_planned=len(counts) * max(counts.values()),
    )
    return ImportedRun(agent=agent, task=task, rows=_frame(rows), partial=partial, source=source)


# --------------------------------------------------------------------------- τ²-bench
def _indexed(entry: dict[str, Any]) -> dict[str, Any]:
    """A ``simulation_index`` entry (its reward flat) in the shape of a full simulation (``reward_info.reward``)."""
    sim: dict[str, Any] = {k: entry[k] for k in ("task_id", "trial", "termination_reason", "agent_cost", "duration")
                           if k in entry}
    if "reward" in entry:
        sim["reward_info"] = {"reward": entry["reward"]}
    return sim


def _layout_simulations(data: dict[str, Any], path: Path, folder: Path,
                        notes: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The simulations of τ²'s directory layout, one per ``simulations/<id>.json`` (in name order), with the
    prefix naming a field of each (``simulations/<id>.json: ``); ``results.json``'s ``simulation_index``,
    where present, must list exactly them.

    Raises
    ------
    InputError
        A simulation file unreadable, not strict JSON or not an object (naming it), or the index and the
        files disagree (naming the index entry or the file).
    """
    sims: list[dict[str, Any]] = []
    places: list[str] = []
    by_id: dict[str, Path] = {}
    for file in _simulation_files(folder):
        sims.append(dict(record(read_json_strict(file, "τ²-bench simulation file", InputError), f"{file}")))
        places.append(f"{file}: ")
        by_id[file.stem] = file
    notes.append(f"τ²'s directory layout: each simulation read from its own file in {folder.name}/ (as τ²'s "
                 "Results.load reads it): task, trial, reward_info.reward, termination, cost, duration")
    if "simulation_index" in data:
        index = record_list(data["simulation_index"], f"{path}: simulation_index", missing_ok=False)
        listed: set[str] = set()
        for i, item in enumerate(index):
            ident = record_key(record(item, f"{path}: simulation_index[{i}]").get("id"),
                               f"{path}: simulation_index[{i}].id")
            if ident not in by_id:
                raise InputError(f"{path}: simulation_index[{i}]: simulation {ident!r} has no file "
                                 f"{folder.name}/{ident}.json (τ² refuses the layout too)")
            listed.add(ident)
        extra = sorted(set(by_id) - listed)
        if extra:
            raise InputError(f"{by_id[extra[0]]}: a simulation file results.json's simulation_index does not list "
                             f"({len(extra)} such file(s); τ² refuses the layout too)")
        notes.append("results.json's simulation_index lists exactly the simulation files (checked)")
    return sims, places


def _tau2_tasks(value: Any, path: Path) -> dict[str, Any]:
    """Task id → definition, from a τ² file's ``tasks`` (absent: none listed)."""
    tasks: dict[str, Any] = {}
    for i, item in enumerate(record_list(value, f"{path}: tasks")):
        task = record(item, f"{path}: tasks[{i}]")
        key = record_key(task.get("id"), f"{path}: tasks[{i}].id")
        if key in tasks:
            raise InputError(f"{path}: tasks[{i}].id: task {key!r} is listed twice")
        tasks[key] = task
    return tasks


def _tau2(data: dict[str, Any], path: Path) -> ImportedRun:
    notes = list(_COMMON_NOTES)
    info = record(data["info"], f"{path}: info")
    agent = nonblank(optional_record(info.get("agent_info"), f"{path}: info.agent_info").get("llm"))
    if agent is None:
        agent = path.stem
        notes.append(f"agent = {agent!r}, the file name's stem: info.agent_info.llm is not set")
    else:
        notes.append("agent = info.agent_info.llm")
    environment = optional_record(info.get("environment_info"), f"{path}: info.environment_info")
    task = nonblank(environment.get("domain_name")) or path.stem
    notes.append(f"task = {task!r} (info.environment_info.domain_name, else the file name's stem)")
    tasks = _tau2_tasks(data.get("tasks"), path)
    folder = None if "simulations" in data else _simulations_folder(path)
    files: list[str] = [str(path)]
    if folder is not None:  # tau2 convert-results --to dir: results.json + simulations/<id>.json
        sims, places = _layout_simulations(data, path, folder, notes)
        files.append(str(folder))
    else:
        field = "simulations" if "simulations" in data else "simulation_index"
        listed = record_list(data[field], f"{path}: {field}", missing_ok=False)
        sims = [dict(record(sim, f"{path}: {field}[{i}]")) for i, sim in enumerate(listed)]
        places = [f"{path}: {field}[{i}]." for i in range(len(sims))]
        if field == "simulation_index":  # the layout's results.json without its simulations/ folder
            sims = [_indexed(entry) for entry in sims]
            notes.append("results.json of τ²'s directory layout without its simulations/ folder: the simulations are "
                         "read from its simulation_index (task, trial, reward, termination, cost, duration)")
    if not sims:
        raise NoSamplesError(f"{path}: the {_WHAT} holds no simulations")
    flat = folder is None and "simulations" not in data  # an index entry's reward is its own field
    keys = [record_key(s.get("task_id"), f"{where}task_id") for s, where in zip(sims, places, strict=True)]
    trials = _trials([s.get("trial") for s in sims], keys, notes)
    rows: list[dict[str, Any]] = []
    rewards: dict[str, list[float]] = {}
    success: dict[str, list[bool]] = {}
    infra = unscored = 0
    for sim, case, trial, where in zip(sims, keys, trials, places, strict=True):
        status: str
        reason: str | None
        value: float | None
        reward_info = optional_record(sim.get("reward_info"), f"{where}reward_info")
        if sim.get("termination_reason") == "infrastructure_error":
            status, reason, value = "ERROR", "infrastructure_error", None
            infra += 1
        elif "reward" not in reward_info:
            status, reason, value = "ERROR", "unscored", None
            unscored += 1
        else:
            status, reason, value = _reward_status(reward_info["reward"],
                                                   f"{where}reward" if flat else f"{where}reward_info.reward")
        row = _row(case, trial, agent, "tau2-bench", status, reason)
        if case in tasks:
            row["input"] = tasks[case]
        cost = amount(sim.get("agent_cost"), f"{where}agent_cost")
        if cost is not None:
            row["cost_usd"] = cost
        duration = amount(sim.get("duration"), f"{where}duration")
        if duration is not None:
            row["latency_s"] = duration
        rows.append(row)
        if value is not None:
            rewards.setdefault(case, []).append(value)
            success.setdefault(case, []).append(status == "PASS")
    notes.append("input = the task's definition from tasks (user scenario, evaluation criteria): in the suite hash")
    notes.append("cost_usd = the simulation's agent_cost; latency_s = its duration; messages are not carried")
    if infra:
        notes.append(f"{infra} simulation(s) ended by an infrastructure error: ERROR infrastructure_error "
                     "(τ² leaves them out of its metrics too)")
    if unscored:
        notes.append(f"{unscored} simulation(s) have no reward: ERROR unscored")
    # a declared count is bounded by what the file holds (SPEC §20); the (task, trial) pairs it plans
    # that the file lacks are ERROR rows as far as the file holds one task or simulation per pair,
    # and beyond that counted (sample_epochs_planned), never materialised
    epochs = declared_repeats(info.get("num_trials"), f"{path}: info.num_trials", held=len(sims),
                              holds="simulations") or None
    partial = False
    ran = Counter(keys)
    pairs = set(zip(keys, trials, strict=True))
    planned = None
    if epochs is not None and tasks:
        inside = sum(1 for key, trial in pairs if key in tasks and trial < epochs)
        planned = len(tasks) * epochs + len(pairs) - inside  # a simulation outside the plan counts too
        missing, budget = len(tasks) * epochs - inside, len(sims) + len(tasks)
        if 0 < missing <= budget:
            present: dict[str, set[int]] = {}
            for key, trial in pairs:
                present.setdefault(key, set()).add(trial)
            for case, definition in tasks.items():
                held = present.get(case, set())
                for trial in (t for t in range(epochs) if t not in held):  # missing evidence, never dropped
                    row = _row(case, trial, agent, "tau2-bench", "ERROR", "not_run")
                    row["input"] = definition
                    rows.append(row)
            notes.append(f"partial: {missing} listed (task, trial) pair(s) of {len(tasks)} tasks × {epochs} trials "
                         "have no simulation: ERROR not_run")
        elif missing:
            notes.append(f"partial: {missing} listed (task, trial) pair(s) of {len(tasks)} tasks × {epochs} trials "
                         f"have no simulation: more than the {budget} tasks and simulations the file holds, so "
                         "they are counted in sample_epochs_planned, not written as rows")
        partial = missing > 0
    if len(set(ran.values())) > 1 and not partial:
        partial = True
        notes.append(f"partial: tasks ran unequal numbers of trials (from {min(ran.values())} to {max(ran.values())})")
    metrics = _headline(rewards, success)
    metrics["infra_error_count"] = infra
    source = source_dict(
        fmt=FORMAT, files=files, status=None, samples_run=len(ran), epochs=epochs,
        dataset_size=len(tasks) or None, created=nonblank(data.get("timestamp")), harness="tau2-bench",
        harness_version=nonblank(info.get("git_commit")), metrics=metrics, notes=notes,
        sample_epochs_run=len(pairs), sample_epochs_planned=planned if planned is not None else len(pairs),
    )
    return ImportedRun(agent=agent, task=task, rows=_frame(rows), partial=partial, source=source)
