"""Every Eval Ever records in (SPEC §15, format ``eee``).

An Every Eval Ever (EEE, ``evaleval/every_eval_ever``, schema 0.3.0) evaluation is an aggregate
JSON (``schema_version``, ``evaluation_id``, ``source_metadata``, ``eval_library``,
``model_info``, ``evaluation_results[]`` with ``evaluation_result_id``, ``evaluation_name``,
``source_data``, ``metric_config`` and ``score_details.score``) whose
``detailed_evaluation_results`` points to its instance-level sidecar ``<uuid>_samples.jsonl``
(``file_path``, ``hash_algorithm``, ``checksum``, ``total_rows``): one line per sample and
aggregate result, ``evaluation.score`` / ``evaluation.is_correct``. The aggregate is the file
read (by content); the sidecar is found beside it under ``file_path``'s file name (the path is
the datastore's ``data/...``, rooted elsewhere) and belongs to it (:func:`claims`).

Mapping (each rule is recorded in the run's ``source["notes"]``): one run per aggregate;
case = the instance's ``sample_id``; dimension = the aggregate result the line scores: its
``evaluation_result_id`` (the schema's join key; ``evaluation_name`` is shared by the metrics
of one task, e.g. lm-eval's ``acc`` and ``acc_norm``), else its ``evaluation_name`` where no
id is given; trial = the line's repetition of that (result, sample) in file order (the 0.3.0
instance record is closed and has no repetition field: a converter writing Inspect epochs
writes one line per epoch); agent = ``model_info.id`` (else ``name``); task = the results'
``source_data.dataset_name`` when they share one, else the first segment of ``evaluation_id``.

Outcome of a line: ``error`` set → ERROR ``sample_error``; no ``evaluation`` → ERROR
``unscored``; a score strictly in (0, 1) → ``score`` (policy ``partial``: the schema says
``is_correct`` is meaningful for binary metrics only, and converters round it differently);
otherwise ``is_correct`` true → PASS, false → FAIL ``incorrect`` — a score of 0 beside
``is_correct`` true is FAIL ``inconsistent_score`` (fail closed); without ``is_correct`` a score
of 1 → PASS, 0 → FAIL, anything else → ERROR ``unscored``.

Fail closed (SPEC §1, §20): a checksum the sidecar does not match, a ``total_rows`` other than
the lines it holds, a line of another evaluation or model, a line a result name cannot place,
a record of the wrong shape or a required key missing are input errors naming the file and
position. An aggregate without instance-level data is :class:`NoSamplesError`. The run is
partial when the aggregate scored instances the sidecar lacks (``uncertainty.num_samples`` above
the samples present, an aggregate score the mean of the instance scores does not reproduce within
1e-6, a result without instance lines), when fewer samples ran than ``source_data.samples_number``
says the dataset holds, or when samples repeat unequally; ``source_data.sample_ids`` a result lists
without a line are ERROR ``no_instance`` rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from .._io import finite_float, read_input_bytes
from ._base import (
    HEAD_BYTES,
    amount,
    bounded_count,
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
from ._openai_evals import jsonl_objects
from ._run import ImportedRun

__all__ = ["FORMAT", "claims", "detect", "instance_file", "read"]

FORMAT = "eee"
_WHAT = "Every Eval Ever aggregate"
_INSTANCES = "Every Eval Ever instance-level file"
#: An aggregate score and the mean of its instance scores agree within this (else the run is partial).
TOLERANCE = 1e-6
_HASHES = {"sha256": hashlib.sha256, "md5": hashlib.md5}
_KEYS = ('"evaluation_results"', '"model_info"', '"schema_version"')
_COVERS = ", so scorekit's figure covers only the instances present"


def detect(path: Path) -> bool:
    """True when ``path`` is an EEE aggregate: a JSON object naming evaluation_results, model_info, schema_version.

    Its first 64 KiB decide for a larger file; a smaller one is parsed and its keys checked. Never raises.
    """
    head = head_bytes(Path(path))
    if head is None:
        return False
    text = head.decode("utf-8", errors="ignore").removeprefix("\ufeff").lstrip()
    if not text.startswith("{") or not all(k in text for k in _KEYS):
        return False
    if len(head) < HEAD_BYTES:  # the whole file: its shape decides
        try:
            data = json_file(Path(path), _WHAT)
        except InputError:
            return False
        return isinstance(data, dict) and "evaluation_results" in data and "model_info" in data
    return True


def _details(data: Any, path: Path) -> dict[str, Any] | None:
    found = data.get("detailed_evaluation_results") if isinstance(data, dict) else None
    return None if found is None else dict(record(found, f"{path}: detailed_evaluation_results"))


def instance_file(path: Path, details: dict[str, Any]) -> Path:
    """Where the aggregate ``path``'s instance-level file is: beside it, under ``file_path``'s file name."""
    where = f"{path}: detailed_evaluation_results.file_path"
    named = details.get("file_path")
    if nonblank(named) is None:
        raise InputError(f"{where}: expected a file path, found {kind_of(named)}")
    name = Path(str(named).replace("\\", "/")).name
    if name in ("", ".", ".."):
        raise InputError(f"{where}: {str(named)[:80]!r} names no file")
    return path.parent / name


def claims(path: Path) -> set[Path]:
    """The instance-level file an aggregate names (read with it, not noted as skipped in a directory)."""
    try:
        details = _details(json_file(Path(path), _WHAT), Path(path))
        return set() if details is None else {instance_file(Path(path), details)}
    except InputError:
        return set()


# --------------------------------------------------------------------------- the aggregate
def _text(value: Any, where: str) -> str:
    if nonblank(value) is None:
        raise InputError(f"{where}: expected a non-empty string, found {kind_of(value)}")
    return str(value)


def _optional_text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    return _text(value, where)


def _number(value: Any, where: str) -> float | None:
    """A number the file states (None: null; NaN/Infinity carry no value); anything else an input error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: expected a number, found {kind_of(value)}")
    return finite_float(value)


def _count(value: Any, where: str) -> int | None:
    """A count the aggregate declares (compared with what the sidecar holds, never materialised)."""
    return bounded_count(value, where, at_most=sys.maxsize, what="a whole number")


def _judges(metric: Any, where: str) -> list[str]:
    """The model ids of the LLM judges a metric names (``llm_scoring.judges[].model_info.id``)."""
    scoring = optional_record(metric.get("llm_scoring"), where)
    out = []
    for i, judge in enumerate(record_list(scoring.get("judges"), f"{where}.judges")):
        at = f"{where}.judges[{i}]"
        model = optional_record(record(judge, at).get("model_info"), f"{at}.model_info")
        if nonblank(model.get("id")) is not None:
            out.append(str(model["id"]))
    return out


def _result(value: Any, where: str) -> dict[str, Any]:
    """One aggregate result: its key (id, else name), headline score and what it declares."""
    result = record(value, where)
    name = _text(result.get("evaluation_name"), f"{where}.evaluation_name")
    rid = _optional_text(result.get("evaluation_result_id"), f"{where}.evaluation_result_id")
    metric = optional_record(result.get("metric_config"), f"{where}.metric_config")
    details = record(result.get("score_details"), f"{where}.score_details")
    if "score" not in details:
        raise InputError(f"{where}.score_details: the required key score is missing")
    uncertainty = optional_record(details.get("uncertainty"), f"{where}.score_details.uncertainty")
    data = optional_record(result.get("source_data"), f"{where}.source_data")
    ids = record_list(data.get("sample_ids"), f"{where}.source_data.sample_ids")
    error = optional_record(uncertainty.get("standard_error"), f"{where}.score_details.uncertainty.standard_error")
    return {
        "key": rid if rid is not None else name,
        "id": rid,
        "name": name,
        "metric": nonblank(metric.get("metric_id")) or nonblank(metric.get("metric_name")),
        "score": _number(details.get("score"), f"{where}.score_details.score"),
        "stderr": _number(error.get("value"), f"{where}.score_details.uncertainty.standard_error.value"),
        "num_samples": _count(uncertainty.get("num_samples"), f"{where}.score_details.uncertainty.num_samples"),
        "samples_number": _count(data.get("samples_number"), f"{where}.source_data.samples_number"),
        "sample_ids": [record_key(s, f"{where}.source_data.sample_ids[{i}]") for i, s in enumerate(ids)],
        "dataset": nonblank(data.get("dataset_name")),
        "judges": _judges(metric, f"{where}.metric_config.llm_scoring"),
    }


# --------------------------------------------------------------------------- the instance-level file
def _checked_bytes(path: Path, sidecar: Path, details: dict[str, Any], notes: list[str]) -> bool:
    """Read the sidecar and check its checksum; True when one was declared (a mismatch is an input error)."""
    if not sidecar.is_file():
        raise NoSamplesError(f"{path}: the {_INSTANCES} it names ({sidecar.name}, detailed_evaluation_results."
                             "file_path) is not beside it: scorekit needs the per-sample results")
    data = read_input_bytes(sidecar, _INSTANCES, limit=None)
    checksum = _optional_text(details.get("checksum"), f"{path}: detailed_evaluation_results.checksum")
    algorithm = _optional_text(details.get("hash_algorithm"), f"{path}: detailed_evaluation_results.hash_algorithm")
    if checksum is None:
        notes.append("the aggregate declares no checksum of its instance-level file: the file is read unverified")
        return False
    algorithm = algorithm or "sha256"
    if algorithm not in _HASHES:
        raise InputError(f"{path}: detailed_evaluation_results.hash_algorithm: {algorithm[:40]!r} is not one the "
                         "schema names (sha256, md5)")
    digest = _HASHES[algorithm](data).hexdigest()
    if digest != checksum.strip().lower():
        raise InputError(f"{sidecar}: its {algorithm} is {digest}, not the checksum {checksum[:80]} that {path.name} "
                         "declares (detailed_evaluation_results.checksum): not the instance-level file the aggregate "
                         "describes")
    notes.append(f"the instance-level file matches the aggregate's {algorithm} checksum")
    return True


def _outcome(line: dict[str, Any], where: str) -> tuple[dict[str, Any], float | None]:
    """A line's status (or score), reason and detail, and its score (None: none, or not finite)."""
    error = line.get("error")
    if error is not None and not isinstance(error, str):
        raise InputError(f"{where}: error: expected a string or null, found {kind_of(error)}")
    evaluation = optional_record(line.get("evaluation"), f"{where}: evaluation")
    score = _number(evaluation.get("score"), f"{where}: evaluation.score")
    correct = evaluation.get("is_correct")
    if correct is not None and not isinstance(correct, bool):
        raise InputError(f"{where}: evaluation.is_correct: expected a boolean, found {kind_of(correct)}")
    if error is not None and error.strip():
        return {"status": "ERROR", "reason": "sample_error", "detail": error[:2000]}, score
    if not evaluation:
        return {"status": "ERROR", "reason": "unscored", "detail": "no evaluation"}, score
    shown = f"score {evaluation.get('score')!r}, is_correct {json.dumps(correct)}"
    if score is not None and 0 < score < 1:
        return {"score": score, "detail": shown}, score
    if correct is True and score == 0:
        return {"status": "FAIL", "reason": "inconsistent_score", "detail": shown}, score
    if correct is True or (correct is None and score == 1):
        return {"status": "PASS"}, score
    if correct is False or score == 0:
        return {"status": "FAIL", "reason": "incorrect", "detail": shown}, score
    return {"status": "ERROR", "reason": "unscored", "detail": shown}, score


def _measured(line: dict[str, Any], where: str, row: dict[str, Any]) -> None:
    """The line's input (suite hash), output, token usage and latency, onto ``row``."""
    given = optional_record(line.get("input"), f"{where}: input")
    if given:
        row["input"] = {k: given[k] for k in ("raw", "formatted", "reference", "choices") if given.get(k) is not None}
    raw = record_list(optional_record(line.get("output"), f"{where}: output").get("raw"), f"{where}: output.raw")
    if raw:
        row["agent_output"] = raw[0] if len(raw) == 1 and isinstance(raw[0], str) else json.dumps(raw)
    usage = optional_record(line.get("token_usage"), f"{where}: token_usage")
    if usage:
        row["usage"] = dict(usage)
    latency = amount(optional_record(line.get("performance"), f"{where}: performance").get("latency_ms"),
                     f"{where}: performance.latency_ms")
    if latency is not None:
        row["latency_ms"] = latency


# --------------------------------------------------------------------------- read
def read(path: Path) -> list[ImportedRun]:
    """The one run of an EEE aggregate and its instance-level file.

    Raises
    ------
    NoSamplesError
        The aggregate has no instance-level data (no ``detailed_evaluation_results``, its file
        absent, or no line in it).
    InputError
        One line naming the file and position: not an aggregate, a record of the wrong shape, a
        required key missing, a checksum or ``total_rows`` the instance file does not match, a
        line of another evaluation or model, a line no aggregate result can be told for.
    """
    path = Path(path)
    data = json_file(path, _WHAT)
    doc = record(data, str(path))
    for key in ("evaluation_results", "model_info"):
        if key not in doc:
            raise InputError(f"{path}: not an {_WHAT}: the required key {key} is missing")
    notes: list[str] = []
    model = record(doc["model_info"], f"{path}: model_info")
    agent = nonblank(model.get("id"))
    if agent is None:
        agent = _text(model.get("name"), f"{path}: model_info.id")
        notes.append("agent = model_info.name: model_info.id is not set")
    else:
        notes.append("agent = model_info.id")
    evaluation_id = _text(doc.get("evaluation_id"), f"{path}: evaluation_id")
    results = [_result(r, f"{path}: evaluation_results[{i}]")
               for i, r in enumerate(record_list(doc["evaluation_results"], f"{path}: evaluation_results",
                                                 missing_ok=False))]
    by_key: dict[str, dict[str, Any]] = {}
    for i, result in enumerate(results):
        if result["key"] in by_key:
            why = "" if result["id"] is not None else (
                ": it and an earlier result share evaluation_name and have no evaluation_result_id, so neither "
                "they nor the instance lines can be told apart (every_eval_ever's lm-eval converter before 0.3.0 "
                "wrote this)")
            raise InputError(f"{path}: evaluation_results[{i}]: result {result['key']!r} is listed twice{why}")
        by_key[result["key"]] = result
    by_name: dict[str, list[str]] = {}
    for result in results:
        by_name.setdefault(result["name"], []).append(result["key"])
    details = _details(doc, path)
    if details is None:
        raise NoSamplesError(f"{path}: the {_WHAT} has no instance-level data (detailed_evaluation_results): "
                             "scorekit needs the per-sample <uuid>_samples.jsonl its converter writes with "
                             "instances included")
    fmt = details.get("format", "jsonl")
    if fmt != "jsonl":
        raise InputError(f"{path}: detailed_evaluation_results.format: expected jsonl, found {json.dumps(fmt)[:40]}")
    sidecar = instance_file(path, details)
    checksum_ok = _checked_bytes(path, sidecar, details, notes)
    lines = list(jsonl_objects(sidecar, _INSTANCES))
    total = details.get("total_rows")
    where_total = f"{path}: detailed_evaluation_results.total_rows"
    bounded_count(total, where_total, at_most=len(lines), what=f"lines of {sidecar.name}")
    if total is not None and total != len(lines):
        raise InputError(f"{where_total}: {total}, but {sidecar.name} holds {len(lines)} lines")
    if not lines:
        raise NoSamplesError(f"{sidecar}: the {_INSTANCES} of {path.name} holds no instance lines")
    return [_run(path, sidecar, doc, agent, evaluation_id, results, by_key, by_name, lines, notes, checksum_ok)]


def _dimension(line: dict[str, Any], where: str, by_key: dict[str, Any], by_name: dict[str, list[str]]) -> str:
    rid = _optional_text(line.get("evaluation_result_id"), f"{where}: evaluation_result_id")
    name = _text(line.get("evaluation_name"), f"{where}: evaluation_name")
    if rid is not None:
        return rid
    keys = by_name.get(name, [])
    if len(keys) > 1:
        raise InputError(f"{where}: evaluation_name {name[:80]!r} names {len(keys)} aggregate results "
                         f"({', '.join(keys[:5])}) and the line has no evaluation_result_id: which one it scores "
                         "cannot be told")
    return keys[0] if keys else name


def _run(path: Path, sidecar: Path, doc: Any, agent: str, evaluation_id: str, results: list[dict[str, Any]],
         by_key: dict[str, dict[str, Any]], by_name: dict[str, list[str]], lines: list[tuple[int, dict[str, Any]]],
         notes: list[str], checksum_ok: bool) -> ImportedRun:
    library = optional_record(doc.get("eval_library"), f"{path}: eval_library")
    harness = nonblank(library.get("name"))
    version = nonblank(library.get("version"))
    harness = None if harness == "unknown" else harness
    version = None if version == "unknown" else version
    datasets = {r["dataset"] for r in results if r["dataset"] is not None}
    task = datasets.pop() if len(datasets) == 1 else evaluation_id.split("/")[0] or evaluation_id
    notes += [
        "dimension = the aggregate result a line scores: its evaluation_result_id (the schema's join key), else its "
        "evaluation_name where no id is given",
        "case_id = sample_id; trial = the line's repetition of its (result, sample) in file order (schema 0.3.0 has "
        "no repetition field); run = the trial",
        f"task = {task!r}: the results' source_data.dataset_name when they share one, else evaluation_id's first "
        "segment",
        "a line with an error is ERROR sample_error; without evaluation ERROR unscored; a score in (0, 1) is partial "
        "credit (policy partial; is_correct is meaningful for binary metrics only); else is_correct true PASS, "
        "false FAIL incorrect (true beside a score of 0: FAIL inconsistent_score); without is_correct a score of "
        "1 PASS, 0 FAIL, anything else ERROR unscored",
        "input (raw, formatted, reference, choices) is the case definition (suite hash); output.raw, token_usage "
        "and performance.latency_ms are carried; messages, answer_attribution and metadata are not",
    ]
    rows: list[dict[str, Any]] = []
    seen: Counter[tuple[str, str]] = Counter()
    scores: dict[str, list[float | None]] = {}
    for number, line in lines:
        where = f"{sidecar}:{number}"
        for key, expected in (("evaluation_id", evaluation_id), ("model_id", agent)):
            value = _text(line.get(key), f"{where}: {key}")
            if value != expected:  # the sidecar's foreign keys: a line of another evaluation is not this run's
                raise InputError(f"{where}: {key} {value[:80]!r} is not the aggregate's {expected[:80]!r}")
        dimension = _dimension(line, where, by_key, by_name)
        case = record_key(line.get("sample_id"), f"{where}: sample_id")
        trial = seen[(dimension, case)]
        seen[(dimension, case)] += 1
        outcome, score = _outcome(line, where)
        scores.setdefault(dimension, []).append(score)
        judges = by_key.get(dimension, {}).get("judges") or []
        row: dict[str, Any] = {
            "id": f"{dimension}/{case}/trial-{trial}",
            "dimension": dimension,
            "case_id": case,
            "trial": trial,
            "evaluator": f"eee:{dimension}" + (f"@{'+'.join(judges)}" if judges else ""),
            "agent": agent,
            "run": trial,
            **outcome,
        }
        _measured(line, where, row)
        rows.append(row)
    partial_why: list[str] = []
    missing_rows = 0
    present: dict[str, set[str]] = {}
    for dimension, case in seen:
        present.setdefault(dimension, set()).add(case)
    metrics: dict[str, Any] = {}
    for result in results:
        key = result["key"]
        have = set(present.get(key, set()))
        for case in result["sample_ids"]:
            if case not in have:  # listed by the aggregate, no line: missing evidence, never dropped
                rows.append({"id": f"{key}/{case}/trial-0", "dimension": key, "case_id": case, "trial": 0,
                             "status": "ERROR", "reason": "no_instance", "evaluator": f"eee:{key}", "agent": agent,
                             "run": 0, "detail": "listed in source_data.sample_ids, no instance line"})
                have.add(case)
                missing_rows += 1
        values = scores.get(key, [])
        mean = (sum(v for v in values if v is not None) / len(values)
                if values and all(v is not None for v in values) else None)
        ran = len(present.get(key, set()))
        metrics[key] = {"evaluation_name": result["name"], "metric": result["metric"], "score": result["score"],
                        "standard_error": result["stderr"], "num_samples": result["num_samples"],
                        "dataset_size": result["samples_number"], "instances": ran, "instance_mean": mean}
        if not values:
            partial_why.append(f"result {key!r} has no instance lines{_COVERS}")
            continue
        if result["num_samples"] is not None and result["num_samples"] > ran:
            partial_why.append(f"result {key!r}: the aggregate scored {result['num_samples']} samples "
                               f"(uncertainty.num_samples), the instance file holds {ran}{_COVERS}")
        if result["samples_number"] is not None and result["samples_number"] > ran:
            partial_why.append(f"result {key!r}: {ran} of the dataset's {result['samples_number']} samples ran "
                               "(source_data.samples_number)")
        agg = result["score"]
        if (mean is not None and agg is not None and 0 <= agg <= 1 and all(0 <= v <= 1 for v in values if v is not None)
                and not math.isclose(agg, mean, rel_tol=0, abs_tol=TOLERANCE)):
            partial_why.append(f"result {key!r}: the aggregate score {agg:g} is not the mean of its {len(values)} "
                               f"instance score(s), {mean:g}: the aggregate scored instances the instance file does "
                               f"not hold{_COVERS}")
    for key in present:
        if key not in by_key:
            notes.append(f"instance lines score {key!r}, which the aggregate does not list: kept as a dimension")
    repeats = Counter(seen.values())
    if len(repeats) > 1:
        partial_why.append(f"samples repeat unequally (from {min(seen.values())} to {max(seen.values())} lines)")
    if missing_rows:
        notes.append(f"{missing_rows} sample id(s) the aggregate lists have no instance line: ERROR no_instance")
    notes += [f"partial: {why}" for why in partial_why]
    errored = sum(1 for r in rows if r.get("reason") == "sample_error")
    if errored:
        notes.append(f"{errored} line(s) carry an error: ERROR sample_error (the aggregate may have counted them)")
    source_meta = optional_record(doc.get("source_metadata"), f"{path}: source_metadata")
    sizes = {r["samples_number"] for r in results if r["samples_number"] is not None}
    epochs = max(seen.values())
    import pandas as pd

    source = source_dict(
        fmt=FORMAT, files=[str(path), str(sidecar)], status=None,
        samples_run=len({case for _, case in seen}), epochs=epochs,
        dataset_size=sizes.pop() if len(sizes) == 1 else None,
        created=nonblank(doc.get("evaluation_timestamp")) or nonblank(doc.get("retrieved_timestamp")),
        harness=harness or "Every Eval Ever", harness_version=version, metrics=metrics, notes=notes,
        sample_epochs_run=len(seen), sample_epochs_planned=len(seen) + missing_rows,
        schema_version=doc.get("schema_version"), evaluation_id=evaluation_id,
        retrieved_timestamp=doc.get("retrieved_timestamp"), evaluation_timestamp=doc.get("evaluation_timestamp"),
        source_metadata=dict(source_meta), eval_library=dict(library), model_info=dict(doc["model_info"]),
        checksum_ok=checksum_ok, total_rows=len(lines),
    )
    frame = pd.DataFrame.from_records(rows)
    return ImportedRun(agent=agent, task=task, rows=frame, partial=bool(partial_why), source=source)
