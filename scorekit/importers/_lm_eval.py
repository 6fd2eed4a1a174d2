"""lm-evaluation-harness output in (SPEC §15, format ``lm-eval``).

``lm_eval ... --output_path OUT --log_samples`` writes, under ``OUT/<model>/``, one aggregate
``results_<stamp>.json`` (``<stem>_<stamp>.json`` when ``--output_path`` names a ``.json`` file)
and, per task, ``samples_<task>_<stamp>.jsonl`` (``<stamp>`` is the run's
``datetime.now().isoformat()`` with ``:`` → ``-``). The results file is read — given itself, or
found in a directory — and its tasks' samples files are found beside it by that exact name
(the task name as ``configs`` spells it, underscores and all; lm-eval's sanitized
``re.sub(r"\\W", "_", task)`` form too), so several runs in one folder never mix. A results file
whose tasks have no samples file is an input error naming ``--log_samples``.

One run per (model, task). A samples file holds one line per document **per filter**: its
``doc_id``, ``filter``, ``metrics`` (the metric names) and each metric's value for that document
after that filter. dimension = ``<metric>,<filter>`` as the harness names it in ``results``
(``exact_match,strict-match``, ``acc,none``); case = ``doc_id``; trial = 0. A task that repeats
(``repeats: 3``) keeps every generation in ``resps``, but lm-eval scores only what its filter
makes of them (``take_first``: the first; ``maj@3``: the majority) and logs one value per document
and filter: per-repeat outcomes are not in the file, so each filter is its own dimension with
one trial (stated in the notes, never invented). Values:

=====================================  =====================================================
the sample's metric value              row
=====================================  =====================================================
1 / ``true``                           PASS
0 / ``false``                          FAIL
a number in (0, 1)                     ``score`` (the policy's ``partial`` rule decides)
null, NaN, absent, no line for the     ERROR ``unscored``
document under that filter
=====================================  =====================================================

A metric whose per-sample values are not pass/fail — any number outside [0, 1] (perplexity's
log-likelihoods, a 0–100 score), a list (corpus-level ``bleu``/``ter`` keep (reference,
prediction) pairs), a text — or that the results mark ``higher_is_better: false`` makes no rows:
it is named in the notes and its aggregate stays in ``source["metrics"]``; never a PASS. A metric
whose values mix numbers with other shapes is a damaged file (input error). agent =
``model_name``, else the ``pretrained=`` of ``config.model_args`` (an object or lm-eval's
``k=v,...`` text), else ``config.model``; task = the task name. A ``config.limit``, fewer
``n-samples`` effective than original, or a (document, filter) without a line makes the run
partial. The harness's own metric values and stderrs go to ``source["metrics"]``, its
``lm_eval_version`` to ``harness_version``.

Older lm-eval (0.4.3–0.4.6) logged samples without ``filter`` and ``metrics``: the metrics are
then the task's ``results`` keys, and with several filters the lines are read in lm-eval's
order (each filter's documents in turn) — stated in the notes, refused when the lines do not
split so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from .._io import finite_float, read_input_bytes
from ._base import (
    HEAD_BYTES,
    bounded_count,
    check_rows,
    declared_repeats,
    finite_json,
    head_bytes,
    json_file,
    kind_of,
    nonblank,
    optional_record,
    parse_json,
    record,
    record_key,
    record_list,
    source_dict,
)
from ._run import ImportedRun

__all__ = ["FORMAT", "HARNESS", "claims", "detect", "read", "samples_files"]

FORMAT = "lm-eval"
HARNESS = "lm-evaluation-harness"
_WHAT = "lm-evaluation-harness results file"
#: How far into a large results file detection looks for lm-eval's own top-level keys.
_DETECT_BYTES = 4 << 20
#: The results entries of a task that are not metrics.
_NOT_METRICS = frozenset({"alias", "name", "sample_len", "samples"})
#: The largest dataset size a file may state (a count, not rows: it makes none).
_MAX_SIZE = 1 << 53


# --------------------------------------------------------------------------- detection
def _is_results(data: Any) -> bool:
    return (isinstance(data, dict) and "results" in data
            and ("lm_eval_version" in data or ("configs" in data and "versions" in data)))


def detect(path: Path) -> bool:
    """True when ``path`` is an lm-evaluation-harness results file (by content: its top-level keys).

    A JSON object with ``results`` and lm-eval's ``lm_eval_version``, or ``configs`` with
    ``versions``. A samples file is not detected: it is read with its results file (:func:`claims`).
    """
    head = head_bytes(Path(path))
    if head is None or head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{" or b'"results"' not in head:
        return False
    if len(head) < HEAD_BYTES:
        try:
            return _is_results(parse_json(head, str(path)))
        except InputError:
            return False
    head = head_bytes(Path(path), _DETECT_BYTES) or b""
    return b'"lm_eval_version"' in head or (b'"configs"' in head and b'"versions"' in head)


# --------------------------------------------------------------------------- the layout
def _stamp(path: Path) -> str | None:
    """The run's date stamp in a results file's name (``results_<stamp>.json``, ``<stem>_<stamp>.json``)."""
    stem = path.name[:-5] if path.name.endswith(".json") else path.stem
    head, sep, stamp = stem.rpartition("_")
    return stamp if sep and head and stamp else None


def _names(task: str, stamp: str) -> list[str]:
    """The file names lm-eval gives ``task``'s samples (never one leaving the folder)."""
    names = [f"samples_{task}_{stamp}.jsonl", f"samples_{re.sub(r'[^0-9A-Za-z_]', '_', task)}_{stamp}.jsonl"]
    return [n for i, n in enumerate(names) if n not in names[:i] and "/" not in n and "\\" not in n
            and "\x00" not in n and n not in (".", "..")]


def samples_files(path: Path, tasks: list[str]) -> dict[str, Path | None]:
    """Each task's samples file beside the results file ``path`` (matched by the run's date stamp), or None."""
    stamp = _stamp(path)
    out: dict[str, Path | None] = {}
    for task in tasks:
        found = None
        if stamp is not None:
            found = next((path.parent / n for n in _names(task, stamp) if (path.parent / n).is_file()), None)
        out[task] = found
    return out


def claims(path: Path) -> set[Path]:
    """The samples files of the run whose results file is ``path`` (same date stamp), read with it."""
    path = Path(path)
    stamp = _stamp(path)
    if stamp is None or not path.parent.is_dir():
        return set()
    tail = f"_{stamp}.jsonl"
    return {p for p in path.parent.iterdir() if p.name.startswith("samples_") and p.name.endswith(tail)
            and p.is_file()}


# --------------------------------------------------------------------------- the results file
def _created(value: Any) -> str | None:
    if isinstance(value, str):
        return nonblank(value)
    number = finite_float(value)
    if number is None:
        return None
    try:
        return datetime.fromtimestamp(number, tz=UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def _pretrained(value: Any, where: str) -> str | None:
    """``pretrained`` of lm-eval's ``model_args``: an object, or its ``k=v,k=v`` text."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        return nonblank(value.get("pretrained"))
    if isinstance(value, str):
        for part in value.split(","):
            key, sep, text = part.partition("=")
            if sep and key.strip() == "pretrained":
                return nonblank(text.strip())
        return None
    raise InputError(f"{where}: expected an object or a string, found {kind_of(value)}")


def _agent(data: Mapping[str, Any], config: Mapping[str, Any], path: Path) -> tuple[str, str]:
    name = nonblank(data.get("model_name"))
    if name is not None:
        note = "agent = model_name (the harness's own name for the model)"
        if re.fullmatch(r"[a-z0-9]{8}", name) and _pretrained(config.get("model_args"), f"{path}: config.model_args") \
                is None:
            note += (f"; {name!r} looks like the random id lm-eval gives a model run without pretrained= "
                     "(it changes from run to run: name the agent with --model_args pretrained=...)")
        return name, note
    pretrained = _pretrained(config.get("model_args"), f"{path}: config.model_args")
    if pretrained is not None:
        return pretrained, "agent = the pretrained= of config.model_args (the file states no model_name)"
    model = nonblank(config.get("model"))
    if model is not None:
        return model, f"agent = config.model {model!r}: the file states no model_name and no pretrained="
    return path.parent.name or path.stem, "agent = the results file's folder: the file names no model"


def _limit(value: Any, where: str) -> Any:
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise InputError(f"{where}: expected a number or null, found {kind_of(value)}")


def _n_samples(value: Any, where: str) -> tuple[int | None, int | None]:
    """(original, effective) of a task's ``n-samples`` entry (absent: both None)."""
    entry = optional_record(value, where)
    original = bounded_count(entry.get("original"), f"{where}.original", at_most=_MAX_SIZE, what="a dataset size")
    effective = bounded_count(entry.get("effective"), f"{where}.effective", at_most=_MAX_SIZE,
                              what="a dataset size")
    if original is not None and effective is not None and effective > original:
        raise InputError(f"{where}.effective: {effective} is more than original ({original})")
    return original, effective


def read(path: Path) -> list[ImportedRun]:
    """The runs of an lm-evaluation-harness results file: one per task, read from its samples files.

    Raises
    ------
    NoSamplesError
        No task has a samples file beside the results file (lm-eval writes them with
        ``--log_samples``), or no metric of any task maps to pass/fail per sample.
    InputError
        One line naming the file and position: unreadable, not strict JSON, not a results
        file, a record or field of the wrong shape, a task lacking its samples file while others
        have theirs, a count larger than the samples file holds.
    """
    path = Path(path)
    data = record(json_file(path, _WHAT), str(path))
    if not _is_results(data):
        raise InputError(f"{path}: not an lm-evaluation-harness results file (expected an object with results "
                         "and configs, versions or lm_eval_version)")
    results = record(data["results"], f"{path}: results")
    configs = optional_record(data.get("configs"), f"{path}: configs")
    tasks = list(configs) if configs else [t for t in results if t not in optional_record(
        data.get("group_subtasks"), f"{path}: group_subtasks")]
    n_samples = optional_record(data.get("n-samples"), f"{path}: n-samples")
    sizes = {t: _n_samples(n_samples.get(t), f"{path}: n-samples.{t}") for t in tasks}
    files = samples_files(path, tasks)
    empty = [t for t in tasks if files[t] is None and sizes[t][1] == 0]  # lm-eval writes no file for no document
    wanted = [t for t in tasks if t not in empty]
    missing = [t for t in wanted if files[t] is None]
    stamp = _stamp(path) or "<stamp>"
    if wanted and len(missing) == len(wanted):
        raise NoSamplesError(f"{path}: no samples file beside it for its tasks (expected "
                             f"samples_{missing[0]}_{stamp}.jsonl): lm-eval writes them only with --log_samples")
    if missing:
        raise InputError(f"{path}: task {missing[0]!r} has no samples file (expected samples_{missing[0]}_{stamp}"
                         f".jsonl beside it) while {len(wanted) - len(missing)} other task(s) have theirs")
    if not wanted:
        raise NoSamplesError(f"{path}: the results name no task with documents to import")
    config = optional_record(data.get("config"), f"{path}: config")
    common = _Common(
        path=path, data=data, config=config, agent=_agent(data, config, path),
        limit=_limit(config.get("limit"), f"{path}: config.limit"),
        version=nonblank(data.get("lm_eval_version")), created=_created(data.get("date")),
        better=optional_record(data.get("higher_is_better"), f"{path}: higher_is_better"),
        hashes=optional_record(data.get("task_hashes"), f"{path}: task_hashes"),
    )
    runs: list[ImportedRun] = []
    unmapped: list[str] = []
    for task in wanted:
        sample_file = files[task]
        assert sample_file is not None
        run = _task_run(common, task, sample_file, results, configs, sizes[task])
        if isinstance(run, str):
            unmapped.append(run)
        else:
            runs.append(run)
    if not runs:
        raise NoSamplesError(f"{path}: no metric maps to pass/fail per sample ({'; '.join(unmapped)})")
    groups = [g for g in results if configs and g not in configs]
    if unmapped or empty or groups:
        extra = [f"not imported: {u}" for u in unmapped] + [f"task {t!r} has no documents (n-samples effective 0)"
                                                            for t in empty]
        if groups:
            extra.append(f"groups {', '.join(map(repr, groups))}: aggregates of their tasks with no samples of "
                         "their own, not runs")
        runs = [ImportedRun(agent=r.agent, task=r.task, rows=r.rows, partial=r.partial,
                            source={**r.source, "notes": [*r.source["notes"], *extra]}) for r in runs]
    return runs


class _Common:
    """What every task of one results file shares."""

    def __init__(self, *, path: Path, data: Mapping[str, Any], config: Mapping[str, Any], agent: tuple[str, str],
                 limit: Any, version: str | None, created: str | None, better: Mapping[str, Any],
                 hashes: Mapping[str, Any]) -> None:
        self.path, self.data, self.config, self.limit = path, data, config, limit
        self.agent, self.agent_note = agent
        self.version, self.created, self.better, self.hashes = version, created, better, hashes


# --------------------------------------------------------------------------- the samples file
def _lines(path: Path) -> list[tuple[int, Mapping[str, Any]]]:
    """(line number, object) of every non-blank line (split on bytes: a U+2028 in a text is not a line end).

    Only what rows use is kept of each line: its prompt ``arguments`` and raw ``resps`` are
    dropped, ``filtered_resps`` becomes its one text (``_output``), and a document's ``doc`` is
    kept on its first line only, so a large file does not keep every generation alive.
    """
    data = read_input_bytes(path, "lm-evaluation-harness samples file", limit=None)
    out: list[tuple[int, Mapping[str, Any]]] = []
    seen: set[int | str] = set()
    for number, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            obj = record(parse_json(raw, f"{path}:{number}"), f"{path}:{number}")
            slim = {k: v for k, v in obj.items() if k not in ("arguments", "resps", "filtered_resps")}
            slim["_output"] = _output(obj.get("filtered_resps"))
            key = obj.get("doc_id")
            if isinstance(key, (int, str)) and not isinstance(key, bool):
                if key in seen:
                    slim.pop("doc", None)
                seen.add(key)
            out.append((number, slim))
    return out


def _result_keys(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (metric, filter) pairs a task's ``results`` entry reports (stderrs and labels left out)."""
    pairs = []
    for key in entry:
        metric, sep, filt = str(key).partition(",")
        if sep and not metric.endswith("_stderr") and key not in _NOT_METRICS:
            pairs.append((metric, filt))
    return pairs


def _legacy_filters(lines: list[tuple[int, Mapping[str, Any]]], filters: list[str], path: Path) -> list[str]:
    """The filter of each line of a samples file that names none (lm-eval 0.4.3–0.4.6): filters' blocks in turn."""
    if len(filters) <= 1:
        return [filters[0] if filters else "none"] * len(lines)
    if len(lines) % len(filters):
        raise InputError(f"{path}: its lines name no filter and do not split into the {len(filters)} filters the "
                         f"results report ({', '.join(filters)})")
    block = len(lines) // len(filters)
    return [filters[i // block] for i in range(len(lines))]


def _kind(value: Any) -> str:
    """``none`` (no value), ``number`` (a boolean or a real number) or the JSON kind of any other value."""
    if isinstance(value, bool):
        return "number"
    if value is None or isinstance(value, (int, float)):
        return "number" if finite_float(value) is not None else "none"
    return kind_of(value)


def _outcome(value: Any) -> dict[str, Any]:
    """The row fields of one mapped metric value (a boolean, a number in [0, 1], or none)."""
    if _kind(value) == "none":
        return {"status": "ERROR", "reason": "unscored", "detail": "no value: not scored"}
    x = float(value)
    if x == 1:
        return {"status": "PASS"}
    if x == 0:
        return {"status": "FAIL"}
    return {"score": x}


def _task_run(common: _Common, task: str, sample_file: Path, results: Mapping[str, Any],
              configs: Mapping[str, Any], size: tuple[int | None, int | None]) -> ImportedRun | str:
    path = common.path
    entry = optional_record(results.get(task), f"{path}: results.{task}")
    task_config = optional_record(configs.get(task), f"{path}: configs.{task}")
    lines = _lines(sample_file)
    notes = [common.agent_note, f"task = {task!r} (the task name in the results)"]
    reported = _result_keys(entry)
    report_filters = list(dict.fromkeys(f for _, f in reported))
    named = [("filter" in obj) for _, obj in lines]
    if any(named) and not all(named):
        at = next(n for (n, _), has in zip(lines, named, strict=True) if not has)
        raise InputError(f"{sample_file}:{at}: filter: missing, where other lines name theirs")
    legacy = bool(lines) and not any(named)
    filters = (_legacy_filters(lines, report_filters, sample_file) if legacy else [])
    if legacy:
        notes.append("the samples name no filter and no metrics (lm-eval before 0.4.7): metrics = the task's "
                     f"results keys; filters read in lm-eval's order ({', '.join(report_filters) or 'none'}), "
                     "each filter's documents in turn")
    # (doc, filter) -> (line, object); dimension -> (metric, filter), in the file's order
    by_pair: dict[tuple[str, str], tuple[int, Mapping[str, Any]]] = {}
    docs: dict[str, Mapping[str, Any]] = {}
    dims: dict[str, tuple[str, str]] = {}
    held = 0
    for i, (number, obj) in enumerate(lines):
        where = f"{sample_file}:{number}"
        doc = record_key(obj.get("doc_id"), f"{where}: doc_id")
        if legacy:
            filt = filters[i]
            metrics = [m for m, f in reported if f == filt]
        else:
            value = obj.get("filter")
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"{where}: filter: expected a name, found {kind_of(value)}")
            filt = value
            if "metrics" in obj:
                metrics = record_list(obj["metrics"], f"{where}: metrics", missing_ok=False)
            else:
                metrics = [m for m, f in reported if f == filt]
            for j, metric in enumerate(metrics):
                if not isinstance(metric, str) or not metric.strip():
                    raise InputError(f"{where}: metrics[{j}]: expected a metric name, found {kind_of(metric)}")
        if (doc, filt) in by_pair:
            raise InputError(f"{where}: doc_id {doc} under filter {filt!r} is also on line {by_pair[doc, filt][0]}")
        by_pair[doc, filt] = (number, obj)
        docs.setdefault(doc, obj)
        held += 1 + len(metrics)
        for metric in metrics:
            dims.setdefault(f"{metric},{filt}", (metric, filt))
    if not docs:
        raise NoSamplesError(f"{sample_file}: the samples file holds no sample")
    filters_used = list(dict.fromkeys(f for _, f in dims.values()))
    check_rows(str(sample_file), len(docs) * len(dims), held=held, items="sample lines and metric values")
    original, effective = size
    bounded_count(effective, f"{path}: n-samples.{task}.effective", at_most=len(docs),
                  what=f"documents in {sample_file.name}")
    repeats = declared_repeats(task_config.get("repeats"), f"{path}: configs.{task}.repeats", held=len(lines),
                               holds="sample lines")
    better = optional_record(common.better.get(task), f"{path}: higher_is_better.{task}")
    # classify each dimension: mapped (pass/fail per sample) or not, with why
    skipped: dict[str, str] = {}
    for dim, (metric, filt) in dims.items():
        kinds: dict[str, int] = {}
        outside = None
        for doc in docs:
            found = by_pair.get((doc, filt))
            if found is None:
                continue
            value = found[1].get(metric)
            kind = _kind(value)
            if kind == "number" and outside is None and not 0 <= (finite_float(value) or 0.0) <= 1:
                outside = (found[0], value)
            kinds.setdefault(kind, found[0])
        shapes = [k for k in kinds if k not in ("none", "number")]
        if shapes and "number" in kinds:
            at = max(kinds[shapes[0]], kinds["number"])
            raise InputError(f"{sample_file}:{at}: {metric}: expected a number, a boolean or null like the other "
                             f"samples' {metric} under filter {filt!r}, found {shapes[0]}")
        if better.get(metric) is False:
            skipped[dim] = "lower is better (higher_is_better: false): a value of 1 is not a pass"
        elif shapes:
            skipped[dim] = f"its per-sample values are {shapes[0]}s (an aggregate's inputs), not pass/fail"
        elif outside is not None:
            skipped[dim] = (f"its per-sample values are not pass/fail ({json.dumps(finite_json(outside[1]))} on line "
                            f"{outside[0]}, outside [0, 1])")
    mapped = [d for d in dims if d not in skipped]
    if not mapped:
        return f"task {task!r}: " + "; ".join(f"{d}: {why}" for d, why in skipped.items())
    for dim, why in skipped.items():
        notes.append(f"dimension {dim} not imported: {why}; the harness's aggregate stays in source metrics")
    notes.append("dimension = <metric>,<filter> as the harness names it; one sample line per document per filter: "
                 "1/true -> PASS, 0/false -> FAIL, a number in (0,1) -> score (the policy's partial rule), "
                 "null/NaN/absent -> ERROR unscored")
    notes.append("case_id = doc_id; input = the document (doc), context = its target (in the suite hash); "
                 "agent_output = the filtered response where it is one text")
    if repeats is not None and repeats > 1:
        notes.append(f"the task repeats {repeats} times: resps holds every generation, but the harness logs one "
                     "value per document and filter (its filter reduces the repeats, e.g. take_first keeps the "
                     "first, maj@ the majority); per-repeat outcomes are not in the file, so each filter is its "
                     "own dimension with one trial (trial 0) and pass^k over repeats cannot be had")
    else:
        notes.append("trial = 0: the task does not repeat (one value per document and filter)")
    rows: list[dict[str, Any]] = []
    absent = 0
    partial_cells = 0
    for doc, first in docs.items():
        definition: dict[str, Any] = {}
        if "doc" in first:
            definition["input"] = finite_json(first["doc"])
        if "target" in first:
            definition["context"] = {"target": finite_json(first["target"])}
        for dim in mapped:
            metric, filt = dims[dim]
            found = by_pair.get((doc, filt))
            row: dict[str, Any] = {"id": f"doc-{doc}/{dim}", "dimension": dim, "case_id": doc, "trial": 0,
                                   "evaluator": f"lm-eval:{dim}", "agent": common.agent, **definition}
            if found is None:
                absent += 1
                row.update(status="ERROR", reason="unscored", detail=f"no sample line for filter {filt!r}")
            else:
                obj = found[1]
                if metric not in obj:
                    row.update(status="ERROR", reason="unscored", detail=f"the sample has no {metric} value")
                else:
                    outcome = _outcome(obj[metric])
                    partial_cells += "score" in outcome
                    row.update(outcome)
                text = obj.get("_output")
                if text is not None:
                    row["agent_output"] = text
            rows.append(row)
    partial_why = []
    if common.limit is not None:
        partial_why.append(f"a sample limit was set (config.limit {common.limit})")
    if original is not None and effective is not None and effective < original:
        partial_why.append(f"{effective} of the dataset's {original} documents ran (n-samples)")
    if absent:
        partial_why.append(f"{absent} (document, dimension) pair(s) have no sample line: ERROR unscored")
    if effective is not None and len(docs) > effective:
        notes.append(f"the samples file holds {len(docs)} documents, more than n-samples effective ({effective})")
    if partial_why:
        notes.append("partial run (TRIAGE): " + "; ".join(partial_why))
    if partial_cells:
        notes.append(f"{partial_cells} row(s) with a value in (0,1): score, decided by the policy's partial rule; "
                     "the harness averages them")
    figures = {k: v for k, v in entry.items() if k not in _NOT_METRICS}
    notes.extend(_agreement(rows, mapped, figures))
    expected_hash = nonblank(common.hashes.get(task))
    if expected_hash is not None:
        notes.append(_hash_note(lines, expected_hash))
    import pandas as pd

    source = source_dict(
        fmt=FORMAT, files=[str(path), str(sample_file)], status=None, samples_run=len(docs), epochs=1,
        dataset_size=original, limit=common.limit, created=common.created, harness=HARNESS,
        harness_version=common.version, metrics=figures, notes=notes,
        sample_epochs_run=len(docs), sample_epochs_planned=max(len(docs), effective or 0),
        n_samples={"original": original, "effective": effective}, repeats=repeats, filters=filters_used,
        num_fewshot=optional_record(common.data.get("n-shot"), f"{path}: n-shot").get(task),
    )
    return ImportedRun(agent=common.agent, task=task, rows=pd.DataFrame.from_records(rows),
                       partial=bool(partial_why), source=source)


def _output(value: Any) -> str | None:
    """The filtered response as text, where the sample has exactly one text (a generation task)."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0]
    return None


def _agreement(rows: list[dict[str, Any]], mapped: list[str], metrics: Mapping[str, Any]) -> list[str]:
    """A note per dimension whose samples' mean differs from the harness's own figure (they agree on 0/1 values)."""
    sums: dict[str, list[float]] = {d: [0.0, 0.0] for d in mapped}
    for row in rows:
        status = row.get("status")
        if status in ("PASS", "FAIL") or "score" in row:
            acc = sums[row["dimension"]]
            acc[0] += 1.0 if status == "PASS" else float(row.get("score", 0.0))
            acc[1] += 1
    differ = []
    for dim, (total, n) in sums.items():
        figure = finite_float(metrics.get(dim))
        if figure is not None and n and abs(total / n - figure) > 1e-9:
            differ.append(f"{dim}: samples' mean {total / n:.6g}, harness {figure:.6g}")
    if not differ:
        return ["the samples' per-dimension means equal the harness's own figures"]
    return ["the samples' means differ from the harness's figures (" + "; ".join(differ) + "): partial credit, "
            "ERROR rows or a non-mean aggregation"]


def _hash_note(lines: list[tuple[int, Mapping[str, Any]]], expected: str) -> str:
    """Whether the samples file is the results' own: lm-eval's task hash over its lines' hashes."""
    import hashlib

    parts = []
    for _, obj in lines:
        values = [obj.get(k) for k in ("doc_hash", "prompt_hash", "target_hash")]
        texts = [v for v in values if isinstance(v, str)]
        if len(texts) != len(values):
            return "task_hashes not checked: the sample lines carry no doc/prompt/target hashes"
        parts.append("".join(texts))
    got = hashlib.sha256("".join(parts).encode("utf-8")).hexdigest()
    if got == expected:
        return "the samples file matches the results' task_hashes entry (it is this run's)"
    return "the samples file does not match the results' task_hashes entry (lm-eval versions hash differently)"
