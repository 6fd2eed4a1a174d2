"""DeepEval test runs in (SPEC §15, format ``deepeval``).

DeepEval (``confident-ai/deepeval``) saves a test run (its pydantic ``TestRun``, dumped by
alias) in two places: the cache ``.deepeval/.latest_test_run.json`` as ``{"testRunData":
{...}}`` and, with ``DisplayConfig(results_folder=...)``, the bare export
``test_run_<timestamp>.json``. Both hold ``testCases`` and ``conversationalTestCases``, each
with ``name``, ``success`` and ``metricsData`` (one ``{name, threshold, success, score,
reason, strictMode, evaluationModel, error, evaluationCost, ...}`` per metric), and the run's
own headline: ``metricsScores`` (per metric ``scores``, ``passes``, ``fails``, ``errors``),
``testPassed`` and ``testFailed``.

=======================  ========================================================================
case_id                  the test case's ``name``; a name repeated in one run is one case and its
                         entries are trials 0, 1, … in file order (one case cannot have two
                         definitions: rows that disagree are invalid, SPEC §5); a metric on a
                         traced span (``trace.*Spans[].metricsData``) is case ``<name>/<span>``
dimension                the metric's ``name``
status                   PASS/FAIL from the metric's ``success`` (FAIL ``metric_failed``);
                         a metric with ``error``, or without a score or a success (DeepEval
                         counts those as ``errors``) → ERROR ``metric_error``, the error in detail
score                    the metric's score where it is in [0, 1]: carried, never partial credit
                         (the status decides, SPEC §2)
detail                   ``score S (threshold T, strict): reason`` — or the metric's error text
evaluator                ``deepeval:<metric>``, ``@<evaluationModel>`` where the metric names one
input / context          ``input`` / ``expectedOutput``, ``context``, ``expectedTools`` (suite hash);
                         a conversation: its scenario / expected outcome and context
agent_output             ``actualOutput``; a conversation: its turns, one ``role: content`` a line
tool_calls               ``toolsCalled`` (``inputParameters`` as the arguments)
cost_usd, latency_s      the case's ``tokenCost`` and ``completionTime`` (the agent's, not the
                         metric's ``evaluationCost``, which goes to ``source``)
agent                    ``hyperparameters.model``, else the cases' ``metadata.model``, else
                         ``identifier``, else the file's name (the folder above ``.deepeval``)
=======================  ========================================================================

A case without any ``metricsData`` is ERROR ``unscored`` on every metric of the run, never
dropped. A run without ``testPassed``/``testFailed`` (DeepEval writes them when it wraps a run
up) is partial. ``metricsScores`` counts, ``testPassed`` and ``testFailed`` larger than the file
holds are an input error; smaller ones are noted. A record or field of the wrong shape is an
input error naming the file and its position (SPEC §20).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from ._base import (
    amount,
    bounded_count,
    check_rows,
    finite_json,
    head_text,
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

__all__ = ["FORMAT", "HIDDEN_FILES", "detect", "read"]

FORMAT = "deepeval"
HARNESS = "DeepEval"
#: File names starting with a dot that a directory walk reads anyway: DeepEval's own cache of the
#: latest test run (``.deepeval/.latest_test_run.json``). Nothing else hidden is read.
HIDDEN_FILES = (".latest_test_run.json",)
_WHAT = "DeepEval test run"
_SPANS = ("baseSpans", "agentSpans", "llmSpans", "retrieverSpans", "toolSpans")
_FIRST_KEY = re.compile(r'\A\s*\{\s*"(testRunData|testRunLink|testFile|testCases|conversationalTestCases)"\s*:')

RULE_NOTES = (
    "case_id = the test case's name; dimension = the metric's name; evaluator = deepeval:<metric> "
    "(@<evaluationModel> where named)",
    "status = PASS/FAIL from the metric's success, never from its score: the score is carried (in [0, 1]) with "
    "the threshold and reason in detail; FAIL reason metric_failed",
    "a metric with an error, or without a score or a success (DeepEval counts those as errors) -> ERROR "
    "metric_error, its error text in detail; a case without metricsData -> ERROR unscored on every metric of the run",
    "input = the case's input; context = expectedOutput, context and expectedTools (suite hash); agent_output = "
    "actualOutput (a conversation: its turns); tool_calls = toolsCalled; cost_usd = tokenCost and latency_s = "
    "completionTime (the agent's); the metrics' evaluationCost (the judge's) is summed into source only",
)


# --------------------------------------------------------------------------- detection
def detect(path: Path) -> bool:
    """A DeepEval test run, by content: a JSON object whose first key is one a DeepEval run opens with,
    or one holding ``testCases`` with ``metricsData``/``metricsScores`` in its head."""
    path = Path(path)
    if path.is_dir():
        return False
    head = head_text(path)
    if not head or not head.lstrip().startswith("{"):
        return False
    if _FIRST_KEY.match(head):
        return True
    return '"testCases"' in head and ('"metricsData"' in head or '"metricsScores"' in head)


# --------------------------------------------------------------------------- one metric
def _opt_str(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"{where}: expected a string, found {kind_of(value)}")
    return value


def _opt_bool(value: Any, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise InputError(f"{where}: expected true, false or null, found {kind_of(value)}")


def _opt_number(value: Any, where: str) -> float | None:
    """A number or null; NaN/Infinity carry no value (an unscored metric)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: expected a number, found {kind_of(value)}")
    return float(value) if math.isfinite(value) else None


def _num_text(value: float) -> str:
    return repr(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def _metric(value: Any, where: str) -> dict[str, Any]:
    """One ``metricsData`` entry as {name, status, reason, detail, score, evaluator, cost}, its shape checked."""
    m = record(value, where)
    name = nonblank(m.get("name"))
    if name is None:
        raise InputError(f"{where}.name: a metric without a name (found {kind_of(m.get('name'))})")
    success = _opt_bool(m.get("success"), f"{where}.success")
    score = _opt_number(m.get("score"), f"{where}.score")
    threshold = _opt_number(m.get("threshold"), f"{where}.threshold")
    reason = _opt_str(m.get("reason"), f"{where}.reason")
    error = _opt_str(m.get("error"), f"{where}.error")
    model = _opt_str(m.get("evaluationModel"), f"{where}.evaluationModel")
    strict = _opt_bool(m.get("strictMode"), f"{where}.strictMode")
    flaky = _opt_bool(m.get("flaky"), f"{where}.flaky")
    cost = amount(m.get("evaluationCost"), f"{where}.evaluationCost")
    said = []
    if score is not None:
        said.append(f"score {_num_text(score)}")
    if threshold is not None:
        said.append(f"threshold {_num_text(threshold)}" + (", strict" if strict else ""))
    head = ", ".join(said)
    why: str | None
    if error is not None and error.strip():
        status, why, detail = "ERROR", "metric_error", error.strip()  # fail closed, even beside a score
    elif score is None or success is None:
        status, why = "ERROR", "metric_error"
        detail = "the metric recorded no " + ("score" if score is None else "success") + " (DeepEval counts an error)"
    else:
        status, why = ("PASS", None) if success else ("FAIL", "metric_failed")
        detail = head + (f": {reason}" if reason and reason.strip() else "") if head else (reason or "")
    out = {"name": name, "status": status, "reason": why, "detail": detail or None,
           "evaluator": f"deepeval:{name}" + (f"@{model}" if nonblank(model) else ""), "cost": cost,
           "flaky": bool(flaky),
           "counted": "errors" if score is None or success is None else "passes" if success else "fails"}
    if score is not None and 0 <= score <= 1:
        out["score"] = score
    return out


def _metrics(value: Any, where: str) -> list[dict[str, Any]] | None:
    """A case's (or span's) ``metricsData``: None when absent, else its metrics."""
    if value is None:
        return None
    return [_metric(m, f"{where}[{i}]") for i, m in enumerate(record_list(value, where, missing_ok=False))]


# --------------------------------------------------------------------------- one test case
def _tool_calls(value: Any, where: str) -> list[dict[str, Any]] | None:
    calls = record_list(value, where)
    out = []
    for i, call in enumerate(calls):
        c = record(call, f"{where}[{i}]")
        name = nonblank(c.get("name"))
        if name is None:
            raise InputError(f"{where}[{i}].name: a tool call without a name")
        args = optional_record(c.get("inputParameters"), f"{where}[{i}].inputParameters")
        out.append({"name": name, "arguments": finite_json(dict(args))})
    return out or None


def _turns(value: Any, where: str) -> str | None:
    lines = []
    for i, turn in enumerate(record_list(value, where)):
        t = record(turn, f"{where}[{i}]")
        role = _opt_str(t.get("role"), f"{where}[{i}].role") or "?"
        content = _opt_str(t.get("content"), f"{where}[{i}].content") or ""
        lines.append(f"{role}: {content}")
    return "\n".join(lines) if lines else None


def _put(into: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        into[key] = value


def _case(value: Any, where: str, conversational: bool) -> dict[str, Any]:
    """One test case as {name, success, metrics, spans, definition, measured}, its shape checked."""
    c = record(value, where)
    if c.get("name") is None:
        raise InputError(f"{where}.name: missing (DeepEval names every test case)")
    name = record_key(c.get("name"), f"{where}.name")
    success = _opt_bool(c.get("success"), f"{where}.success")
    metrics = _metrics(c.get("metricsData"), f"{where}.metricsData")
    definition: dict[str, Any] = {}
    measured: dict[str, Any] = {}
    context: dict[str, Any] = {}
    if conversational:
        about = {k: c[k] for k in ("scenario", "userDescription") if c.get(k) is not None}
        for k, v in about.items():
            _opt_str(v, f"{where}.{k}")
        _put(definition, "input", about or None)
        _put(context, "expected_outcome", _opt_str(c.get("expectedOutcome"), f"{where}.expectedOutcome"))
        _put(measured, "agent_output", _turns(c.get("turns"), f"{where}.turns"))
    else:
        _put(definition, "input", finite_json(c.get("input")))
        _put(context, "expected_output", _opt_str(c.get("expectedOutput"), f"{where}.expectedOutput"))
        if c.get("expectedTools") is not None:
            context["expected_tools"] = finite_json(record_list(c.get("expectedTools"), f"{where}.expectedTools"))
        _put(measured, "agent_output", _opt_str(c.get("actualOutput"), f"{where}.actualOutput"))
        _put(measured, "tool_calls", _tool_calls(c.get("toolsCalled"), f"{where}.toolsCalled"))
        _put(measured, "cost_usd", amount(c.get("tokenCost"), f"{where}.tokenCost"))
        _put(measured, "latency_s", amount(c.get("completionTime"), f"{where}.completionTime"))
    if c.get("context") is not None:
        context["context"] = finite_json(record_list(c.get("context"), f"{where}.context"))
    if context:
        definition["context"] = context
    return {"name": name, "success": success, "metrics": metrics, "spans": _spans(c.get("trace"), f"{where}.trace"),
            "definition": definition, "measured": measured}


def _spans(value: Any, where: str) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(span name, its definition, its metrics) of every traced span that carries metricsData."""
    trace = optional_record(value, where)
    out = []
    for kind in _SPANS:
        for i, span in enumerate(record_list(trace.get(kind), f"{where}.{kind}")):
            at = f"{where}.{kind}[{i}]"
            s = record(span, at)
            metrics = _metrics(s.get("metricsData"), f"{at}.metricsData")
            if not metrics:
                continue
            name = nonblank(s.get("name")) or nonblank(s.get("uuid")) or f"{kind}[{i}]"
            definition = {"input": finite_json(s["input"])} if s.get("input") is not None else {}
            if isinstance(s.get("output"), str):
                definition["agent_output"] = s["output"]
            out.append((name, definition, metrics))
    return out


# --------------------------------------------------------------------------- the run
def _run_data(doc: Mapping[str, Any], name: str) -> tuple[Mapping[str, Any], str]:
    if "testRunData" in doc:
        return record(doc["testRunData"], f"{name}: testRunData"), f"{name}: testRunData."
    if "testCases" not in doc and "conversationalTestCases" not in doc:
        if "testRunLink" in doc:
            raise NoSamplesError(f"{name}: the DeepEval cache holds only a link to the run on Confident AI "
                                 "(testRunLink), no test run data: nothing to import")
        raise InputError(f"{name}: not a DeepEval test run (no testRunData, testCases or conversationalTestCases)")
    return doc, f"{name}: "


def _path_name(path: Path) -> str:
    """The file's stem, or for a hidden cache (``run-a/.deepeval/.latest_test_run.json``) the folder it sits in."""
    if not path.stem.startswith("."):
        return path.stem
    for parent in path.resolve().parents:
        if parent.name and not parent.name.startswith("."):
            return parent.name
    return "deepeval"


def _agent(data: Mapping[str, Any], raw: list[Mapping[str, Any]], path: Path,
           at: str) -> tuple[str, str]:
    hyper = optional_record(data.get("hyperparameters"), f"{at}hyperparameters")
    for key in ("model", "model_name", "llm"):
        if nonblank(hyper.get(key)):
            return str(hyper[key]), f"agent = hyperparameters.{key}"
    tagged = {c.get("metadata", {}).get("model") if isinstance(c.get("metadata"), Mapping) else None for c in raw}
    if len(tagged) == 1 and nonblank(next(iter(tagged))):
        return str(next(iter(tagged))), "agent = the model every test case's metadata names (no hyperparameters.model)"
    identifier = nonblank(data.get("identifier"))
    if identifier is not None:
        return identifier, "agent = the run's identifier: DeepEval names no model of the agent under test"
    name = _path_name(path)
    return name, (f"agent = {name!r}, from the file's name: DeepEval names no model of the agent under test "
                  "(no hyperparameters.model, identifier or metadata.model)")


def _check_headline(data: Mapping[str, Any], at: str, held: dict[str, Counter[str]], cases: list[dict[str, Any]],
                    notes: list[str]) -> dict[str, Any]:
    """The run's own figures (``metricsScores``, ``testPassed``, ``testFailed``), bounded by what the file holds."""
    metrics: dict[str, Any] = {}
    for i, entry in enumerate(record_list(data.get("metricsScores"), f"{at}metricsScores")):
        where = f"{at}metricsScores[{i}]"
        e = record(entry, where)
        name = nonblank(e.get("metric"))
        if name is None:
            raise InputError(f"{where}.metric: expected the metric's name, found {kind_of(e.get('metric'))}")
        have = held.get(name, Counter())
        total = sum(have.values())
        figures = {k: bounded_count(e.get(k), f"{where}.{k}", at_most=total, what=f"{name} results")
                   for k in ("passes", "fails", "errors")}
        declared = sum(v for v in figures.values() if v is not None)
        if declared > total:
            raise InputError(f"{where}: {declared} results is more than the file holds ({total}, {name} results)")
        scores = [_opt_number(s, f"{where}.scores[{j}]") for j, s in
                  enumerate(record_list(e.get("scores"), f"{where}.scores"))]
        if len(scores) > total:
            raise InputError(f"{where}.scores: {len(scores)} scores is more than the file holds ({total}, {name} "
                             "results)")
        if any(figures[k] is not None and figures[k] != have[k] for k in figures):
            notes.append(f"DeepEval's metricsScores for {name} ({figures}) differ from the file's test cases "
                         f"({dict(have)}): the rows follow the test cases")
        kept = [s for s in scores if s is not None]
        metrics[name] = {**figures, "mean_score": sum(kept) / len(kept) if kept else None}
    out: dict[str, Any] = {"metricsScores": metrics}
    stated = [c["success"] for c in cases if c["success"] is not None]
    for key, want in (("testPassed", sum(stated)), ("testFailed", len(stated) - sum(stated))):
        value = bounded_count(data.get(key), f"{at}{key}", at_most=len(cases), what="test cases")
        out[key] = value
        if value is not None and value != want:
            notes.append(f"DeepEval's {key} ({value}) differs from the test cases' own success ({want})")
    return out


def read(path: Path) -> list[ImportedRun]:
    """The run of a DeepEval test run file (``.latest_test_run.json`` or an export), or of every one in a directory.

    Raises
    ------
    InputError
        One line naming the file and the position: not JSON, not a DeepEval test run, a record
        or field of the wrong shape, a count larger than the file holds, or no test cases.
    """
    path = Path(path)
    if path.is_dir():
        from ._read import read_directory

        return read_directory(path, [FORMAT])
    name = str(path)
    doc = record(json_file(path, _WHAT), name)
    data, at = _run_data(doc, name)
    raw: list[Mapping[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for key, conversational in (("testCases", False), ("conversationalTestCases", True)):
        for i, value in enumerate(record_list(data.get(key), f"{at}{key}")):
            cases.append(_case(value, f"{at}{key}[{i}]", conversational))
            raw.append(value)
    if not cases:
        raise NoSamplesError(f"{name}: the {_WHAT} holds no test cases: nothing to import")
    return [_build(path, data, at, cases, raw)]


def _entries(cases: list[dict[str, Any]]) -> Iterator[tuple[str, int, dict[str, Any], list[dict[str, Any]] | None]]:
    """(case id, trial, definition + measured fields, metrics) of every case and every metric-carrying span.

    A case evaluated on its spans only (component-level evaluation: no metricsData of its own) is its spans.
    """
    seen: Counter[str] = Counter()
    for c in cases:
        trial = seen[c["name"]]
        seen[c["name"]] += 1
        if c["metrics"] or not c["spans"]:
            yield c["name"], trial, {**c["definition"], **c["measured"]}, c["metrics"]
        for span, fields, metrics in c["spans"]:
            case = f"{c['name']}/{span}"
            yield case, seen[case], fields, metrics
            seen[case] += 1


def _per_metric(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """PASS/FAIL/ERROR rows per metric, as imported."""
    out: dict[str, Counter[str]] = {}
    for row in rows:
        out.setdefault(row["dimension"], Counter())[row["status"]] += 1
    return {m: {"passed": c["PASS"], "failed": c["FAIL"], "errored": c["ERROR"]} for m, c in out.items()}


def _build(path: Path, data: Mapping[str, Any], at: str, cases: list[dict[str, Any]],
           raw: list[Mapping[str, Any]]) -> ImportedRun:
    notes = list(RULE_NOTES)
    agent, agent_note = _agent(data, raw, path, at)
    notes.append(agent_note)
    entries = list(_entries(cases))
    used: dict[str, None] = {}  # the metrics run on test cases (a case without metricsData is ERROR on each)
    for c in cases:
        used.update(dict.fromkeys(m["name"] for m in c["metrics"] or ()))
    bare = sum(1 for *_, metrics in entries if not metrics)
    held = sum(len(m or ()) for *_, m in entries)
    check_rows(str(path), held + bare * len(used), held=len(entries) + held, items="test cases and metric results")
    rows: list[dict[str, Any]] = []
    counted: dict[str, Counter[str]] = {}
    merged = 0
    cost = 0.0
    for case, trial, fields, metrics in entries:
        base = {"case_id": case, "trial": trial, "agent": agent, **fields}
        if not metrics:
            for metric in used:
                rows.append({**{k: v for k, v in base.items() if k in ("case_id", "trial", "agent")},
                             "id": f"{case}/{trial}/{metric}", "dimension": metric, "status": "ERROR",
                             "reason": "unscored", "evaluator": f"deepeval:{metric}",
                             "detail": "the test case has no metricsData: no metric ran on it"})
            continue
        mine: dict[str, dict[str, Any]] = {}
        for m in metrics:
            counted.setdefault(m["name"], Counter())[m["counted"]] += 1
            cost += m["cost"] or 0.0
            row = {**base, "id": f"{case}/{trial}/{m['name']}", "dimension": m["name"], "status": m["status"],
                   "evaluator": m["evaluator"]}
            for key in ("reason", "detail", "score"):
                if m.get(key) is not None:
                    row[key] = m[key]
            worst = {"PASS": 0, "FAIL": 1, "ERROR": 2}
            if m["name"] in mine:  # one metric twice on a case: one row, PASS only when both pass
                merged += 1
                if worst[row["status"]] > worst[mine[m["name"]]["status"]]:
                    mine[m["name"]] = row
                continue
            mine[m["name"]] = row
        rows.extend(mine.values())
    if not rows:
        raise NoSamplesError(f"{path}: no metric ran on any of the {len(cases)} test case(s): nothing to import")
    if bare:
        notes.append(f"{bare} test case(s) without metricsData: ERROR unscored on every metric of the run")
    flaky = sum(1 for *_, metrics in entries for m in metrics or () if m["flaky"])
    if flaky:
        notes.append(f"{flaky} metric result(s) marked flaky: rows like any other (DeepEval leaves a flaky metric out "
                     "of its test case's success, not out of metricsScores)")
    if merged:
        notes.append(f"{merged} metric result(s) repeated a metric's name on one test case: one row each, the "
                     "worst status kept (fail closed)")
    names = Counter(c["name"] for c in cases)
    if any(n > 1 for n in names.values()):
        notes.append("test case names repeat: the entries of one name are trials 0, 1, … of one case (file order); "
                     "entries that define the case differently are invalid rows")
    if any(c["spans"] for c in cases):
        notes.append("metrics on traced spans are rows of case <test case>/<span name>, the span's input as input")
    headline = _check_headline(data, at, counted, cases, notes)
    partial = data.get("testPassed") is None and data.get("testFailed") is None
    if partial:
        notes.append("partial: the run has no testPassed/testFailed, which DeepEval writes when it wraps a run up")
    run_cost = amount(data.get("evaluationCost"), f"{at}evaluationCost")
    duration = amount(data.get("runDuration"), f"{at}runDuration")
    identifier = nonblank(data.get("identifier"))
    test_file = nonblank(data.get("testFile"))
    task = nonblank(data.get("datasetAlias")) or (Path(test_file).stem if test_file else None) or identifier \
        or _path_name(path)
    trials = Counter(case for case, *_ in entries)
    import pandas as pd

    source = source_dict(
        fmt=FORMAT, files=[str(path)], status=None, samples_run=len(trials), epochs=max(trials.values()),
        created=None, harness=HARNESS, harness_version=None,
        metrics={**headline, "evaluationCost": run_cost if run_cost is not None else (cost or None),
                 "runDuration": duration,
                 "per_metric": _per_metric(rows)},
        notes=notes, sample_epochs_run=len(entries), sample_epochs_planned=len(entries),
        identifier=identifier, hyperparameters=finite_json(dict(optional_record(data.get("hyperparameters"),
                                                                                f"{at}hyperparameters"))) or None,
    )
    return ImportedRun(agent=agent, task=task, rows=pd.DataFrame.from_records(rows), partial=partial, source=source)
