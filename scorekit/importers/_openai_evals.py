"""OpenAI Evals run output items in (SPEC §15, format ``openai-evals``).

A JSON Lines file of a run's output items, in either of the two shapes OpenAI gives
them:

* the **API** object ``eval.run.output_item`` (``GET /evals/{id}/runs/{id}/output_items``):
  ``run_id``, ``eval_id``, ``datasource_item_id``, ``datasource_item``, ``results``
  (one ``{name, passed, score, type}`` per grader), ``sample`` (``model``, ``output``,
  ``usage``, ``error``) and ``status``;
* the **export** the dashboard downloads: ``run_id``, ``data_source_idx``, ``item``,
  ``sample`` (``sampled_model_name``, ``outputs``, ``token_usage``, ``error``),
  ``grades``, ``grader_samples`` and ``passes`` (grader name → bool).

One dimension per grader the file uses, PASS/FAIL from that grader's ``passed`` (only
``true`` is a PASS; a value that is not a boolean is ERROR ``invalid_passed``); an item
whose sample errored is ERROR ``item_error`` on every grader of the file; a grader the
file uses that an item lacks is ERROR ``ungraded``. case = the data-source item, trial
= the run's index in the file (order of first appearance), agent = the sampled model
(else the file name's stem), one run per file (per sampled model, should a file mix
models: one evaluation measures one agent).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError, StrictJSONError
from .._io import decode_utf8, finite_float, loads_strict, read_bounded, read_input_bytes
from ._base import check_rows, kind_of, nonblank, optional_record, record, record_key, record_list, source_dict
from ._run import ImportedRun

__all__ = ["FORMAT", "detect", "first_object", "jsonl_objects", "read"]

FORMAT = "openai-evals"
_WHAT = "OpenAI Evals output items file"
_HEAD = 1 << 20


# --------------------------------------------------------------------------- JSON Lines (shared with assevra)
def first_object(path: Path) -> dict[str, Any] | None:
    """The first JSON Lines object of ``path`` if its first 1 MiB holds one whole line, else None (never raises)."""
    try:
        head = read_bounded(path, _HEAD, head=True)
    except Exception:  # noqa: BLE001 - detection never raises
        return None
    for raw in head.split(b"\n")[:-1] if b"\n" in head else [head]:
        line = raw.strip().lstrip(b"\xef\xbb\xbf")
        if not line:
            continue
        if line[:1] != b"{":
            return None
        try:
            value = loads_strict(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
        return value if isinstance(value, dict) else None
    return None


def jsonl_objects(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of the JSON Lines file ``path``.

    Raises
    ------
    InputError
        One line naming the file (and line): unreadable, not UTF-8, a line that is not
        strict JSON or not an object.
    """
    text = decode_utf8(read_input_bytes(path, what, limit=None), str(path))
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = loads_strict(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        except StrictJSONError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        if not isinstance(value, dict):
            raise InputError(f"{path}:{number}: expected a JSON object, got {type(value).__name__}")
        yield number, value


# --------------------------------------------------------------------------- the two shapes
def _is_item(value: dict[str, Any]) -> bool:
    if value.get("object") == "eval.run.output_item":
        return True
    if isinstance(value.get("results"), list) and "datasource_item_id" in value:
        return True
    return "run_id" in value and "passes" in value and "item" in value  # passes' shape: checked when read


def detect(path: Path) -> bool:
    """True when the first line of ``path`` is an OpenAI Evals output item (by content)."""
    first = first_object(path)
    return first is not None and _is_item(first)


def _has_error(error: Any) -> bool:
    """An error the source reports: a non-empty text, or an object with any non-empty value."""
    if isinstance(error, dict):
        return any(v not in (None, "", False) for v in error.values())
    return error not in (None, "", False, {}, [])


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("code") or error)
    return str(error)


def _normalise(value: dict[str, Any], path: Path, number: int) -> dict[str, Any]:
    """One output item as {run, case, item, model, error, grades, usage, output, eval}, its shape checked."""
    where = f"{path}:{number}"
    sample = optional_record(value.get("sample"), f"{where}: sample")
    grades: dict[str, Any] = {}
    if "passes" not in value:  # the API object
        for i, result in enumerate(record_list(value.get("results"), f"{where}: results", missing_ok=False)):
            name = nonblank(record(result, f"{where}: results[{i}]").get("name"))
            if name is None:
                raise InputError(f"{where}: results[{i}]: a grader result without a name")
            grades[name] = result.get("passed")
        case_field = "datasource_item_id"
        item = value.get("datasource_item")
        model = nonblank(sample.get("model"))
        usage = sample.get("usage")
        outputs = sample.get("output")
    else:  # the dashboard export
        passes = optional_record(value.get("passes"), f"{where}: passes")
        scored = optional_record(value.get("grades"), f"{where}: grades")
        for name in [*passes, *(n for n in scored if n not in passes)]:
            grades[name] = passes.get(name)
        case_field = next((f for f in ("data_source_idx", "datasource_item_id", "data_source_id") if f in value),
                          "data_source_idx")
        item = value.get("item")
        model = nonblank(sample.get("sampled_model_name")) or nonblank(sample.get("model"))
        usage = sample.get("token_usage")
        outputs = sample.get("outputs")
    usage = optional_record(usage, f"{where}: sample usage")
    outputs = record_list(outputs, f"{where}: sample outputs")
    output = None
    if outputs:
        last = record(outputs[-1], f"{where}: sample outputs[{len(outputs) - 1}]")
        output = last.get("content") if isinstance(last.get("content"), str) else None
    created = value.get("created_at")
    if created is not None and (isinstance(created, bool) or not isinstance(created, (int, float))):
        raise InputError(f"{where}: created_at: expected a number, found {kind_of(created)}")
    error = sample.get("error")
    if not _has_error(error) and value.get("status") == "error":
        error = "the item's status is error"
    return {
        "run": nonblank(value.get("run_id")),
        "case": record_key(value.get(case_field), f"{where}: {case_field}"),
        "item": item,
        "model": model,
        "error": _error_text(error) if _has_error(error) else None,
        "grades": grades,
        "usage": dict(usage) if usage else None,
        "output": output,
        "eval": nonblank(value.get("eval_id")),
        "created": created if finite_float(created) is not None else None,
    }


def _outcome(item: dict[str, Any], grader: str) -> tuple[str, str | None]:
    if item["error"] is not None:
        return "ERROR", "item_error"
    if grader not in item["grades"]:
        return "ERROR", "ungraded"
    passed = item["grades"][grader]
    if passed is True:
        return "PASS", None
    if passed is False:
        return "FAIL", "grader_failed"
    return "ERROR", "invalid_passed"


def read(path: Path) -> list[ImportedRun]:
    """The run(s) of an OpenAI Evals output items file: one, or one per sampled model.

    Raises
    ------
    InputError
        One line naming the file and line: unreadable, not JSON Lines, a line that is not
        an output item, an item without its data-source index, or no items at all.
    """
    path = Path(path)
    items: list[dict[str, Any]] = []
    for number, value in jsonl_objects(path, _WHAT):
        if not _is_item(value):
            raise InputError(f"{path}:{number}: not an OpenAI Evals output item (no run_id with passes, "
                             "nor an eval.run.output_item)")
        items.append(_normalise(value, path, number))
    if not items:
        raise NoSamplesError(f"{path}: the {_WHAT} holds no output items")
    graders: dict[str, None] = {}  # dicts keep first-appearance order with O(1) membership
    runs: dict[str | None, int] = {}
    by_model: dict[str | None, list[dict[str, Any]]] = {}
    for item in items:
        graders.update(dict.fromkeys(item["grades"]))
        runs.setdefault(item["run"], len(runs))
        by_model.setdefault(item["model"], []).append(item)
    # every item makes a row per grader the file uses: a file naming a grader of its own on each item
    # would make items × graders rows (SPEC §20: linear in the file)
    check_rows(str(path), len(items) * len(graders), held=len(items) + sum(len(i["grades"]) for i in items),
               items="items and grader results")
    named = [m for m in by_model if m is not None]
    return [_run(path, mine, list(graders), runs, model, len(named) > 1) for model, mine in by_model.items()]


def _run(path: Path, items: list[dict[str, Any]], graders: list[str], runs: dict[str | None, int],
         model: str | None, split: bool) -> ImportedRun:
    notes = [
        f"one dimension per grader the file uses ({', '.join(graders) or 'none'}): PASS when its passed is true, "
        "FAIL grader_failed when false, ERROR invalid_passed otherwise",
        "an item whose sample errored is ERROR item_error on every grader; a grader an item lacks is ERROR ungraded",
        "case_id = the data-source item's index; trial = the run's index in the file (order of first appearance); "
        "run = the run id",
        "input = the data-source item (in the suite hash); the graders' raw grades and samples are not carried",
    ]
    agent = model if model is not None else path.stem
    if model is None:
        notes.append(f"agent = {agent!r}, the file name's stem: the items name no sampled model")
    else:
        notes.append("agent = the sampled model")
    if split:
        notes.append("the file mixes sampled models: one run per model, never mixed")
    evals = {i["eval"] for i in items if i["eval"] is not None}
    task = evals.pop() if len(evals) == 1 else path.stem
    rows: list[dict[str, Any]] = []
    counts: dict[str, Counter[str]] = {g: Counter() for g in graders}
    for item in items:
        trial = runs[item["run"]]
        for grader in graders:
            status, reason = _outcome(item, grader)
            counts[grader][status] += 1
            row: dict[str, Any] = {
                "id": f"run-{trial}/item-{item['case']}/{grader}",
                "dimension": grader,
                "case_id": item["case"],
                "trial": trial,
                "status": status,
                "evaluator": f"openai-evals:{grader}",
                "agent": agent,
                "run": item["run"] if item["run"] is not None else trial,
            }
            if reason is not None:
                row["reason"] = reason
            if item["item"] is not None:
                row["input"] = item["item"]
            if item["output"] is not None:
                row["agent_output"] = item["output"]
            if item["usage"] is not None:
                row["usage"] = item["usage"]
            rows.append(row)
    per_run: dict[int, set[str]] = {}
    for item in items:
        per_run.setdefault(runs[item["run"]], set()).add(item["case"])
    cases = set().union(*per_run.values())
    partial = any(len(v) < len(cases) for v in per_run.values())
    if partial:
        notes.append("partial: a run in the file covers fewer data-source items than the file holds")
    errored = sum(1 for i in items if i["error"] is not None)
    if errored:
        notes.append(f"{errored} item(s) errored: ERROR item_error")
    import pandas as pd

    created = [i["created"] for i in items if i["created"] is not None]
    source = source_dict(
        fmt=FORMAT, files=[str(path)], status=None, samples_run=len(cases), epochs=len(per_run),
        created=min(created) if created else None, harness="openai-evals", harness_version=None,
        metrics={g: {"passed": c["PASS"], "failed": c["FAIL"], "errored": c["ERROR"]} for g, c in counts.items()},
        notes=notes, sample_epochs_run=len(items), sample_epochs_planned=len(cases) * len(per_run),
    )
    return ImportedRun(agent=agent, task=task, rows=pd.DataFrame.from_records(rows), partial=partial, source=source)
