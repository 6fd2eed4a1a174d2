"""SWE-bench harness results in (SPEC §15, format ``swe-bench``).

Two shapes, told apart by content, both written by ``swebench.harness.run_evaluation``:

* the **run report** ``<model>.<run_id>.json`` (``reporting.make_run_report``): the id lists
  ``resolved_ids``, ``unresolved_ids``, ``empty_patch_ids``, ``error_ids``, ``incomplete_ids``
  (these five part the dataset: each instance is in one), ``submitted_ids``,
  ``completed_ids``, swebench 5's ``infra_failure_ids`` / ``ambiguous_failure_ids`` /
  ``failure_reasons`` (a classification of unresolved and errored instances, inside those
  lists), the counts ``total_instances``, ``resolved_instances``, … and ``schema_version``
  (2; older reports lack it and some lists: a missing list is empty, noted). With a docker
  client it adds ``unstopped_*``/``unremoved_images`` (carried in ``source``, not rows);
* the **per-instance reports** ``logs/run_evaluation/<run_id>/<model>/<instance>/report.json``
  (``grading.get_eval_report``): ``{instance_id: {patch_is_None, patch_exists,
  patch_successfully_applied, resolved, tests_status}}``.

A run report is read with the per-instance reports of its layout (found at
``logs/run_evaluation/<run_id>/<model>/`` beside the report or one folder up): they are its
files (:func:`claims`), each resolved/unresolved instance's ``tests_status`` goes to its row's
``detail``, and their ``resolved`` must agree with the report's lists. Per-instance reports
with no run report are read as one run (from the first instance folder of the model folder).

One row per instance, dimension ``resolved``, case = the instance id, trial 0, run = the
run id: resolved → PASS; unresolved → FAIL ``unresolved``; empty patch → FAIL
``empty_patch``; error → ERROR ``harness_error``; incomplete → ERROR ``incomplete``; swebench
5's infrastructure / ambiguous classification is advisory (the instance keeps its outcome, as
in swebench's own count) and goes to the row's ``detail``. Instances ``total_instances``
counts that no list names are counted in ``sample_epochs_planned`` (no rows: nothing names
them). Fewer completed than ``total_instances`` makes the run partial. agent = the model the
model folder names (the harness writes its ``/`` as ``__``, read back), else the report's file
name; task = the run id. SWE-bench's own
resolved rates go to ``source["metrics"]``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from ._base import (
    HEAD_BYTES,
    ROWS_FLOOR,
    ROWS_PER_ITEM,
    bounded_count,
    head_bytes,
    head_text,
    json_file,
    kind_of,
    nonblank,
    optional_record,
    parse_json,
    record,
    record_list,
    source_dict,
)
from ._run import ImportedRun

__all__ = ["DIMENSION", "FORMAT", "OUTCOME_LISTS", "claims", "detect", "read"]

FORMAT = "swe-bench"
DIMENSION = "resolved"
_HARNESS = "SWE-bench harness"
_REPORT = "report.json"
#: The lists that part the dataset, in the order a message names them, and what each instance in them is.
OUTCOME_LISTS: dict[str, tuple[str, str | None]] = {
    "resolved_ids": ("PASS", None),
    "unresolved_ids": ("FAIL", "unresolved"),
    "empty_patch_ids": ("FAIL", "empty_patch"),
    "error_ids": ("ERROR", "harness_error"),
    "incomplete_ids": ("ERROR", "incomplete"),
}
_OTHER_LISTS = ("submitted_ids", "completed_ids", "infra_failure_ids", "ambiguous_failure_ids",
                "unstopped_containers", "unremoved_images")
#: A count the report states and the list it counts (the harness writes one as the other's length).
_COUNTED = {
    "resolved_instances": "resolved_ids",
    "unresolved_instances": "unresolved_ids",
    "empty_patch_instances": "empty_patch_ids",
    "error_instances": "error_ids",
    "completed_instances": "completed_ids",
    "submitted_instances": "submitted_ids",
    "infra_failure_instances": "infra_failure_ids",
    "ambiguous_failure_instances": "ambiguous_failure_ids",
    "unstopped_instances": "unstopped_containers",
}
_SHOWN = 5  # test names a detail lists per category
#: The keys a run report may open with (what a larger file's head is told by).
_REPORT_KEYS = frozenset({*OUTCOME_LISTS, *_OTHER_LISTS, *_COUNTED, "total_instances", "failure_reasons",
                          "schema_version"})
_FIRST_KEY = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"([a-z_]+)"\s*:')


# --------------------------------------------------------------------------- detection
def _report_shape(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("resolved_ids"), list)
            and isinstance(data.get("unresolved_ids"), list)
            and any(k in data for k in ("total_instances", "submitted_ids", "completed_ids", "schema_version")))


def _instance_shape(data: Any, instance: str) -> bool:
    if not isinstance(data, dict) or len(data) != 1 or instance not in data:
        return False
    body = data[instance]
    return isinstance(body, dict) and "resolved" in body and (
        "patch_successfully_applied" in body or "patch_exists" in body or "tests_status" in body)


def _parsed_head(path: Path) -> Any:
    text = head_text(path)
    if text is None or not text.lstrip()[:1] == "{":
        return None
    try:
        return parse_json(text.encode("utf-8"), str(path))
    except InputError:
        return None


def _is_instance_report(path: Path) -> bool:
    """A per-instance report by content: its one key is its folder's name (the instance), holding ``resolved``."""
    instance = path.parent.name
    head = head_bytes(path)
    if head is None:
        return False
    if len(head) < HEAD_BYTES:  # the whole file: its shape decides
        return _instance_shape(_parsed_head(path), instance)
    # a larger one (long tests_status lists): its head opens with the instance's key and the patch fields
    opening = re.compile(rb'\A\s*\{\s*' + re.escape(json.dumps(instance).encode("utf-8")) + rb'\s*:\s*\{')
    return bool(opening.match(head)) and (b'"patch_exists"' in head or b'"patch_is_None"' in head)


def _is_run_report(path: Path) -> bool:
    """A run report by content: a small file by its shape; a larger one by its head.

    The harness writes the counts first (``total_instances``, ``resolved_instances``, …) and then
    the id lists, which for a full dataset run past the head: a larger file's first key must be
    one of the report's and its head must name ``resolved_ids`` or ``resolved_instances``.
    """
    head = head_bytes(path)
    if head is None:
        return False
    if len(head) < HEAD_BYTES:  # the whole file: its shape decides
        return _report_shape(_parsed_head(path))
    first = _FIRST_KEY.match(head)
    return (first is not None and first.group(1).decode("ascii") in _REPORT_KEYS
            and (b'"resolved_ids"' in head or b'"resolved_instances"' in head))


def detect(path: Path) -> bool:
    """True when ``path`` is a SWE-bench run report, or the first per-instance report of a run with none (by content).

    A per-instance ``report.json`` is recognised by its one key (its folder's name, the instance)
    holding ``resolved`` and the patch fields; only the first instance folder of its model folder
    reads the run, and none when the run's report is beside the logs (it reads them). Never raises.
    """
    try:
        path = Path(path)
        if not path.is_file():
            return False
        if _is_run_report(path):
            return True
        if path.name != _REPORT or not _is_instance_report(path):
            return False
        return _lead(path.parent.parent, _mtime(path.parent.parent)) == path.parent.name \
            and _run_report_of(path.parent.parent) is None
    except Exception:  # noqa: BLE001 - detection never raises: the file is simply not ours
        return False


def _mtime(folder: Path) -> int:
    return folder.stat().st_mtime_ns


@functools.lru_cache(maxsize=64)
def _lead(model_dir: Path, mtime: int) -> str | None:
    """The first instance folder (by name) of ``model_dir`` holding a report.json; cached per folder state.

    ``mtime`` is part of the key only: a folder that changes is listed again. The cache keeps a
    directory walk linear (each report.json of a model folder asks the same question).
    """
    names = sorted(d.name for d in model_dir.iterdir() if (d / _REPORT).is_file())
    return names[0] if names else None


def _run_report_of(model_dir: Path) -> Path | None:
    """The run report ``<model>.<run_id>.json`` written beside ``logs/`` (or one folder below its parent)."""
    run_dir = model_dir.parent
    if run_dir.parent.name != "run_evaluation" or run_dir.parent.parent.name != "logs":
        return None
    base = run_dir.parent.parent.parent
    name = f"{model_dir.name}.{run_dir.name}.json"
    # literal paths, never a glob of folder names (SPEC §20)
    for candidate in [base / name, *sorted(d / name for d in base.iterdir() if d.is_dir())]:
        if candidate.is_file() and _is_run_report(candidate):
            return candidate
    return None


def _model_dir_of(report: Path) -> Path | None:
    """The per-instance folder ``logs/run_evaluation/<run_id>/<model>`` of a run report, where one exists."""
    stem = report.name.removesuffix(".json")
    splits = [(stem[:i], stem[i + 1:]) for i, c in enumerate(stem) if c == "."]
    for base in (report.parent, report.parent.parent):
        for model, run_id in splits:
            if model and run_id and (folder := base / "logs" / "run_evaluation" / run_id / model).is_dir():
                return folder
    return None


def _layout(model_dir: Path) -> set[Path]:
    files = {p for p in model_dir.rglob("*") if p.is_file()}
    run_json = model_dir.parent / "run.json"
    return files | ({run_json} if run_json.is_file() else set())


def claims(path: Path) -> set[Path]:
    """The files of the run's layout read with ``path``: its per-instance folders (and the run's ``run.json``)."""
    path = Path(path)
    try:
        if path.name == _REPORT and detect(path):
            return _layout(path.parent.parent)
        folder = _model_dir_of(path) if _is_run_report(path) else None
    except OSError:
        return set()
    return set() if folder is None else _layout(folder)


# --------------------------------------------------------------------------- shared
def _ids(data: Mapping[str, Any], key: str, where: str, notes: list[str]) -> list[str]:
    if key not in data:
        if key not in ("unstopped_containers", "unremoved_images"):  # docker state: only with a docker client
            notes.append(f"the report has no {key}: read as empty")
        return []
    out = []
    for i, value in enumerate(record_list(data[key], f"{where}: {key}", missing_ok=False)):
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: {key}[{i}]: expected an instance id (a string), found {kind_of(value)}")
        out.append(value)
    return out


def _names(value: Any, where: str) -> list[str]:
    names = record_list(value, where)
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise InputError(f"{where}[{i}]: expected a test name (a string), found {kind_of(name)}")
    return names


def _tests_detail(body: Mapping[str, Any], where: str) -> str | None:
    """What an unresolved instance's per-instance report says: the patch did not apply, or the failing tests."""
    if body.get("patch_successfully_applied") is False:
        return "patch_successfully_applied is false: the patch did not apply, or the tests left no parseable output"
    status = optional_record(body.get("tests_status"), f"{where}.tests_status")
    parts = []
    for category in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        group = optional_record(status.get(category), f"{where}.tests_status.{category}")
        _names(group.get("success"), f"{where}.tests_status.{category}.success")
        failing = _names(group.get("failure"), f"{where}.tests_status.{category}.failure")
        if failing:
            more = f" (+{len(failing) - _SHOWN} more)" if len(failing) > _SHOWN else ""
            parts.append(f"{category} failing: {', '.join(failing[:_SHOWN])}{more}")
    return "; ".join(parts) or None


def _instance_report(path: Path, instance: str) -> Mapping[str, Any] | None:
    """The body of a per-instance report (None: an empty file, which the harness counts an error)."""
    head = head_bytes(path)
    if head is not None and len(head) < HEAD_BYTES and not head.strip():
        return None
    data = json_file(path, "SWE-bench per-instance report")
    top = record(data, str(path))
    if instance not in top:
        raise InputError(f"{path}: no {instance!r} key (the instance its folder names)")
    body = record(top[instance], f"{path}: {instance}")
    if not isinstance(body.get("resolved"), bool):
        raise InputError(f"{path}: {instance}.resolved: expected a boolean, found {kind_of(body.get('resolved'))}")
    return body


def _row(instance: str, agent: str, run_id: str, status: str, reason: str | None, detail: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"{instance}/{DIMENSION}",
        "dimension": DIMENSION,
        "case_id": instance,
        "trial": 0,
        "status": status,
        "evaluator": "swe-bench",
        "agent": agent,
        "run": run_id,
    }
    if reason is not None:
        row["reason"] = reason
    if detail is not None:
        row["detail"] = detail
    return row


_SLASH = "'__' read back as '/': the harness writes a model name's '/' as '__' in folder and file names"


def _model(name: str) -> str:
    """The model a folder or file name stands for: the harness wrote its ``/`` as ``__``.

    Examples
    --------
    >>> _model("org__agent-swe-b"), _model("agent-swe-a")
    ('org/agent-swe-b', 'agent-swe-a')
    """
    return name.replace("__", "/")


def _frame(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame.from_records(rows)


def _created(model_dir: Path | None) -> str | None:
    """``created_at`` of the run's ``run.json`` (swebench 5 writes one per run id), where there is one."""
    run_json = None if model_dir is None else model_dir.parent / "run.json"
    if run_json is None or not run_json.is_file():
        return None
    return nonblank(record(json_file(run_json, "SWE-bench run.json"), str(run_json)).get("created_at"))


_COMMON_NOTES = [
    f"dimension {DIMENSION}, one row per instance (case_id = the instance id, trial 0, run = the run id): "
    "resolved → PASS; unresolved → FAIL unresolved; empty patch → FAIL empty_patch; error → ERROR harness_error; "
    "incomplete → ERROR incomplete",
    "SWE-bench's resolved rate counts every instance (errors and incomplete ones as not resolved); scorekit leaves "
    "ERROR rows out of pass^1's denominator (SPEC §3), so pass^1 = resolved / (resolved + unresolved + empty "
    "patch); SWE-bench's own rates are in metrics",
]


# --------------------------------------------------------------------------- the run report
def read(path: Path) -> list[ImportedRun]:
    """The one run of a SWE-bench run report, or of the per-instance reports of a model folder.

    Raises
    ------
    InputError
        One line naming the file and position: unreadable, not strict JSON, a list or count of
        the wrong shape, an instance in two outcome lists, a count that disagrees with its list,
        a per-instance report that disagrees with the run report, or no instances at all.
    """
    path = Path(path)
    data = json_file(path, "SWE-bench report")
    if _report_shape(data):
        return [_from_run_report(path, data)]
    if path.name == _REPORT and _instance_shape(data, path.parent.name):
        return [_from_instances(path.parent.parent)]
    if isinstance(data, dict) and "resolved_ids" in data:
        record_list(data["resolved_ids"], f"{path}: resolved_ids", missing_ok=False)
        record_list(data.get("unresolved_ids"), f"{path}: unresolved_ids", missing_ok=False)
    raise InputError(f"{path}: not a SWE-bench report (expected a run report with resolved_ids and unresolved_ids, "
                     "or a per-instance report.json {instance_id: {resolved, ...}})")


def _from_run_report(path: Path, data: Mapping[str, Any]) -> ImportedRun:
    where = str(path)
    notes = list(_COMMON_NOTES)
    lists = {key: _ids(data, key, where, notes) for key in (*OUTCOME_LISTS, *_OTHER_LISTS)}
    outcome: dict[str, tuple[str, int]] = {}
    for key in OUTCOME_LISTS:
        for i, instance in enumerate(lists[key]):
            if instance in outcome:
                first, j = outcome[instance]
                raise InputError(f"{where}: {key}[{i}]: instance {instance!r} is also {first}[{j}]")
            outcome[instance] = (key, i)
    if not outcome:
        raise NoSamplesError(f"{where}: the SWE-bench report names no instance")
    counts: dict[str, int | None] = {}
    for count, key in _COUNTED.items():
        counts[count] = bounded_count(data.get(count), f"{where}: {count}", at_most=len(lists[key]) if key in data
                                      else max(ROWS_FLOOR, ROWS_PER_ITEM * len(outcome)), what=key)
        if key in data and counts[count] is not None and counts[count] != len(lists[key]):
            raise InputError(f"{where}: {count}: {counts[count]} but {key} holds {len(lists[key])}")
    total = bounded_count(data.get("total_instances"), f"{where}: total_instances",
                          at_most=max(ROWS_FLOOR, ROWS_PER_ITEM * len(outcome)),
                          what=f"at most {ROWS_PER_ITEM} per instance named, or {ROWS_FLOOR}")
    if total is not None and total < len(outcome):
        raise InputError(f"{where}: total_instances: {total} but the outcome lists name {len(outcome)} instances")
    graded = set(lists["resolved_ids"]) | set(lists["unresolved_ids"])
    if "completed_ids" in data:
        completed = set(lists["completed_ids"])
        for key in ("resolved_ids", "unresolved_ids"):
            for i, instance in enumerate(lists[key]):
                if instance not in completed:
                    raise InputError(f"{where}: {key}[{i}]: instance {instance!r} is not in completed_ids")
        for i, instance in enumerate(lists["completed_ids"]):
            if instance not in graded and instance not in set(lists["error_ids"]):
                raise InputError(f"{where}: completed_ids[{i}]: instance {instance!r} is neither resolved, "
                                 "unresolved nor an error")
    else:
        completed = graded
        notes.append("completed = the resolved and unresolved instances (the report lists no completed_ids)")
    classified = set(lists["unresolved_ids"]) | set(lists["error_ids"])
    for key in ("infra_failure_ids", "ambiguous_failure_ids"):
        for i, instance in enumerate(lists[key]):
            if instance not in classified:
                raise InputError(f"{where}: {key}[{i}]: instance {instance!r} is neither unresolved nor an error")
    reasons = optional_record(data.get("failure_reasons"), f"{where}: failure_reasons")
    for instance, reason in reasons.items():
        if not isinstance(reason, str):
            raise InputError(f"{where}: failure_reasons.{instance}: expected a string, found {kind_of(reason)}")
    submitted = set(lists["submitted_ids"])
    infra = set(lists["infra_failure_ids"])
    ambiguous = set(lists["ambiguous_failure_ids"])

    model_dir = _model_dir_of(path)
    if model_dir is not None:
        agent, run_id = _model(model_dir.name), model_dir.parent.name
        notes.append(f"agent = {agent!r}, the model named by the per-instance folder {model_dir.name!r} ({_SLASH}); "
                     f"task = the run id {run_id!r}; the report itself names neither")
    else:
        stem = path.name.removesuffix(".json")
        name, _, run_id = stem.rpartition(".")
        if not name or not run_id:
            name, run_id = stem, stem
        agent = _model(name)
        notes.append(f"agent = {agent!r}, task = the run id {run_id!r}: from the file name <model>.<run_id>.json "
                     f"(split at its last dot, {_SLASH}; the report names neither and no per-instance folder was "
                     "found)")
    bodies = _bodies(model_dir, graded, set(lists["resolved_ids"]), notes)
    rows: list[dict[str, Any]] = []
    for key, (status, reason) in OUTCOME_LISTS.items():
        for instance in lists[key]:
            detail: str | None = None
            why = reasons.get(instance)
            body = bodies.get(instance)
            if key == "unresolved_ids" and body is not None:
                detail = _tests_detail(body, f"{model_dir}/{instance}/{_REPORT}: {instance}")
            if instance in infra or instance in ambiguous:
                label = "likely infrastructure failure" if instance in infra else "ambiguous failure"
                detail = "; ".join(x for x in (detail, f"{label}: {why}" if why else label) if x)
            if key == "incomplete_ids":
                detail = ("submitted, not completed" if instance in submitted
                          else "no prediction submitted (in incomplete_ids)")
            elif key == "error_ids" and detail is None:
                detail = "the harness left no usable report.json for this instance"
            rows.append(_row(instance, agent, run_id, status, reason, detail))
    if infra or ambiguous:
        notes.append(f"{len(infra)} likely infrastructure and {len(ambiguous)} ambiguous failure(s) "
                     "(infra_failure_ids, ambiguous_failure_ids) keep their outcome, as swebench's own count does "
                     "(its classification is advisory); the failure reason goes to detail")
    held = len(outcome)
    planned = total if total is not None else held
    unnamed = planned - held
    partial = len(completed) < planned
    if unnamed:
        notes.append(f"{unnamed} instance(s) of total_instances are in no outcome list: counted in "
                     "sample_epochs_planned, no rows (nothing names them)")
    if partial:
        notes.append(f"partial: {len(completed)} of {planned} instances completed (total_instances)")
    if total is None:
        notes.append("the report states no total_instances: the instances it names are the dataset")
    version = data.get("schema_version")
    if version is None:
        notes.append("the report has no schema_version (an older harness)")
    elif isinstance(version, bool) or not isinstance(version, int):
        raise InputError(f"{where}: schema_version: expected a whole number, found {kind_of(version)}")
    resolved = len(lists["resolved_ids"])
    n_submitted = counts["submitted_instances"] if counts["submitted_instances"] is not None else len(submitted)
    metrics: dict[str, Any] = {
        "resolved_rate_of_total": resolved / planned if planned else None,
        "resolved_rate_of_submitted": resolved / n_submitted if n_submitted else None,
        "counts": {k: v for k, v in {"total_instances": total, **counts}.items() if v is not None},
    }
    extra: dict[str, Any] = {}
    if "unstopped_containers" in data or "unremoved_images" in data:
        extra["docker"] = {"unstopped_containers": lists["unstopped_containers"],
                           "unremoved_images": lists["unremoved_images"]}
        notes.append("unstopped_containers / unremoved_images (docker state after the run) are in source, not rows")
    files = [str(path)]
    if model_dir is not None:
        files.append(str(model_dir))
    source = source_dict(
        fmt=FORMAT, files=files, status=None, samples_run=len(completed), epochs=1, dataset_size=total,
        created=_created(model_dir), harness=_HARNESS, harness_version=None, metrics=metrics, notes=notes,
        schema_version=version, sample_epochs_run=len(completed), sample_epochs_planned=planned, **extra,
    )
    return ImportedRun(agent=agent, task=run_id, rows=_frame(rows), partial=partial, source=source)


def _bodies(model_dir: Path | None, graded: set[str], resolved: set[str], notes: list[str]) -> dict[str, Any]:
    """The per-instance reports of the graded instances, each checked against the run report's verdict."""
    if model_dir is None:
        notes.append("no per-instance reports found (logs/run_evaluation/<run_id>/<model>/ beside the report or one "
                     "folder up): rows carry no tests_status detail")
        return {}
    bodies: dict[str, Any] = {}
    for instance in sorted(graded):
        report = model_dir / instance / _REPORT
        if not report.is_file():
            continue
        body = _instance_report(report, instance)
        if body is None:
            continue
        if body["resolved"] != (instance in resolved):
            raise InputError(f"{report}: {instance}.resolved is {str(body['resolved']).lower()} but the run report "
                             f"lists it in {'resolved_ids' if instance in resolved else 'unresolved_ids'}")
        bodies[instance] = body
    notes.append(f"per-instance reports read from {model_dir}: an unresolved instance's failing FAIL_TO_PASS / "
                 "PASS_TO_PASS tests (or a patch that did not apply) go to its detail")
    return bodies


# --------------------------------------------------------------------------- per-instance reports only
def _from_instances(model_dir: Path) -> ImportedRun:
    agent, run_id = _model(model_dir.name), model_dir.parent.name
    notes = list(_COMMON_NOTES)
    notes.append(f"built from the per-instance reports under {model_dir} (no run report <model>.<run_id>.json "
                 "beside the logs): total_instances, empty patches and instances never submitted are not known")
    notes.append(f"agent = {agent!r}, the model named by the folder {model_dir.name!r} ({_SLASH}); "
                 f"task = the run id {run_id!r}, its parent folder's name")
    rows: list[dict[str, Any]] = []
    missing = 0
    for folder in sorted((d for d in model_dir.iterdir() if d.is_dir()), key=lambda d: d.name):
        instance = folder.name
        report = folder / _REPORT
        body = _instance_report(report, instance) if report.is_file() else None
        if body is None:
            missing += 1
            rows.append(_row(instance, agent, run_id, "ERROR", "harness_error",
                             "the harness left no usable report.json for this instance"))
            continue
        where = f"{report}: {instance}"
        if body["resolved"]:
            rows.append(_row(instance, agent, run_id, "PASS", None, None))
        elif body.get("patch_is_None") is True or body.get("patch_exists") is False:
            rows.append(_row(instance, agent, run_id, "FAIL", "empty_patch", "no patch"))
        else:
            detail = _tests_detail(body, where)
            if body.get("infra_failure") is True:  # advisory (swebench 5): the instance stays unresolved
                why = nonblank(body.get("infra_failure_reason"))
                label = f"likely infrastructure failure: {why}" if why else "likely infrastructure failure"
                detail = "; ".join(x for x in (detail, label) if x)
            rows.append(_row(instance, agent, run_id, "FAIL", "unresolved", detail))
    if not rows:
        raise NoSamplesError(f"{model_dir}: no per-instance SWE-bench reports")
    partial = missing > 0
    if partial:
        notes.append(f"partial: {missing} instance folder(s) hold no usable report.json: ERROR harness_error")
    resolved = sum(1 for r in rows if r["status"] == "PASS")
    completed = len(rows) - missing
    source = source_dict(
        fmt=FORMAT, files=[str(model_dir)], status=None, samples_run=completed, epochs=1, dataset_size=None,
        created=_created(model_dir), harness=_HARNESS, harness_version=None,
        metrics={"resolved_rate_of_completed": resolved / completed if completed else None,
                 "counts": {"completed_instances": completed, "resolved_instances": resolved}},
        notes=notes, sample_epochs_run=completed, sample_epochs_planned=len(rows),
    )
    return ImportedRun(agent=agent, task=run_id, rows=_frame(rows), partial=partial, source=source)
