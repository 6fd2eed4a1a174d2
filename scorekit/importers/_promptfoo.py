"""promptfoo eval output → SPEC §2 rows (SPEC §15, format ``promptfoo``).

Reads what ``promptfoo eval -o results.json`` writes (``{evalId, results: {version, prompts,
results: [...], stats}, config, metadata}``). One run per provider (two providers are two agents,
never "flaky" trials of one):

=======================  ========================================================================
case_id                  the test's index, with its description where it has one: its ``testIdx``;
                         under ``--repeat`` (promptfoo gives each repeat a ``testIdx`` of its
                         own) the test's order among the distinct tests (same ``testCase``)
trial                    ``repeatIndex``; versions that write none: the result's position among
                         its test's results for one provider (file order), so ``--repeat N``
                         gives N trials of one case, never N cases
dimension                one per assertion: its ``metric``, else its ``type``
status                   PASS/FAIL from the assertion's ``pass``; its ``score`` is kept
a provider or runtime    ERROR ``provider_error`` on each of the test's assertions (a result
error (not an assertion) whose ``failureReason`` is 2, or whose response carries an error)
cost_usd, latency_ms     the result's ``cost`` and ``latencyMs``
=======================  ========================================================================

A result, its ``testCase``, assertions, grading components, response or prompt that is not the
shape promptfoo writes is an input error naming the file and the position (SPEC §20), and a
declared ``config.evaluateOptions.repeat`` above the larger of 10,000 and the results the file holds
is refused (:func:`~scorekit.importers._base.declared_repeats`, the rule Inspect's epochs and τ²'s
trials follow).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from ._base import (
    amount,
    declared_repeats,
    finite_json,
    head_text,
    json_file,
    kind_of,
    optional_record,
    record,
    record_list,
    source_dict,
)
from ._run import ImportedRun

__all__ = ["FORMAT", "detect", "read"]

FORMAT = "promptfoo"
HARNESS = "promptfoo"
_ERROR_REASON = 2  # promptfoo's ResultFailureReason.ERROR (1 is ASSERT)

RULE_NOTES = (
    "one run per provider; case_id = the test's index (and description); trial = repeatIndex; one dimension per "
    "assertion (its metric, else its type); evaluator = promptfoo:<assertion type>",
    "status = PASS/FAIL from the assertion's pass (its score is kept); a result that failed for a provider or "
    "runtime error (failureReason 2, or an error in the response) -> ERROR provider_error on each of its "
    "assertions; cost and latency are carried (cost_usd, latency_ms)",
)


def detect(path: Path) -> bool:
    """promptfoo output, by content: a JSON object naming ``evalId`` or ``promptfooVersion`` with results."""
    path = Path(path)
    if path.is_dir():
        return any(detect(p) for p in sorted(path.rglob("*.json")) if p.is_file())
    head = head_text(path)
    if not head or not head.lstrip().startswith("{"):
        return False
    return '"results"' in head and ('"evalId"' in head or '"promptfooVersion"' in head)


def _provider(result: Mapping[str, Any], where: str) -> str:
    provider = result.get("provider")
    if isinstance(provider, Mapping):
        label, pid = provider.get("label"), provider.get("id")
        if isinstance(label, str) and label.strip():
            return label
        if isinstance(pid, str) and pid.strip():
            return pid
    elif isinstance(provider, str):
        if provider.strip():
            return provider
    elif provider is not None:
        raise InputError(f"{where}.provider: expected an object or a string, found {kind_of(provider)}")
    return "(unknown provider)"


def _dimension(assertion: Mapping[str, Any]) -> str:
    metric, kind = assertion.get("metric"), assertion.get("type")
    if isinstance(metric, str) and metric.strip():
        return metric
    return str(kind) if isinstance(kind, str) and kind.strip() else "(untyped assertion)"


def _evaluator(assertion: Mapping[str, Any]) -> str:
    kind = assertion.get("type")
    grader = assertion.get("provider")
    if isinstance(grader, Mapping):
        grader = grader.get("id")
    return f"promptfoo:{kind if isinstance(kind, str) and kind else 'assertion'}" + (
        f"@{grader}" if isinstance(grader, str) and grader else "")


def _index(value: Any, where: str) -> int:
    """A whole-number index field (``testIdx``, ``promptIdx``, ``repeatIndex``) of a result."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: expected a whole number >= 0, found {kind_of(value)}")
    return value


class _Result:
    """One promptfoo result, its shape checked: what the rows are built from."""

    __slots__ = ("agent", "asserts", "components", "cost", "description", "error", "fingerprint", "input",
                 "latency", "output", "prompt_idx", "repeat", "test_idx")

    def __init__(self, raw: Any, where: str) -> None:
        result = record(raw, where)
        self.test_idx = _index(result.get("testIdx"), f"{where}.testIdx")
        prompt_idx, repeat = result.get("promptIdx"), result.get("repeatIndex")
        self.prompt_idx = None if prompt_idx is None else _index(prompt_idx, f"{where}.promptIdx")
        self.repeat = None if repeat is None else _index(repeat, f"{where}.repeatIndex")
        self.agent = _provider(result, where)
        test = optional_record(result.get("testCase"), f"{where}.testCase")
        asserts = record_list(test.get("assert"), f"{where}.testCase.assert")
        self.asserts = [record(a, f"{where}.testCase.assert[{j}]") for j, a in enumerate(asserts)]
        grading = optional_record(result.get("gradingResult"), f"{where}.gradingResult")
        components = record_list(grading.get("componentResults"), f"{where}.gradingResult.componentResults")
        self.components = []
        for j, comp in enumerate(components):
            at = f"{where}.gradingResult.componentResults[{j}]"
            component = record(comp, at)
            self.components.append((component, optional_record(component.get("assertion"), f"{at}.assertion")))
        response = optional_record(result.get("response"), f"{where}.response")
        prompt = optional_record(result.get("prompt"), f"{where}.prompt")
        description = test.get("description")
        self.description = description if isinstance(description, str) and description.strip() else None
        # one test's repeats share their testCase (promptfoo gives each repeat a testIdx of its own)
        self.fingerprint = json.dumps(test if test else {"vars": result.get("vars")},
                                      sort_keys=True, ensure_ascii=False, default=str)
        self.input = finite_json({"vars": test.get("vars", result.get("vars")), "prompt": prompt.get("raw")})
        self.output = _output(response)
        self.cost = amount(result.get("cost"), f"{where}.cost")
        self.latency = amount(result.get("latencyMs"), f"{where}.latencyMs")
        self.error = _provider_error(result, response, grading)


def _provider_error(result: Mapping[str, Any], response: Mapping[str, Any],
                    grading: Mapping[str, Any]) -> str | None:
    """The error message of a result that failed for a provider or runtime error, else None."""
    if result.get("failureReason") == _ERROR_REASON:
        return str(result.get("error") or response.get("error") or "provider error")
    if response.get("error"):
        return str(response["error"])
    if result.get("error") and not grading:
        return str(result["error"])
    return None


def _output(response: Mapping[str, Any]) -> str | None:
    output = response.get("output")
    if output is None:
        return None
    if isinstance(output, str):
        return output
    return json.dumps(finite_json(output), ensure_ascii=False, sort_keys=True)


def _case_ids(results: list[_Result]) -> tuple[dict[str, str], bool]:
    """Each test's case_id (fingerprint → id), and whether a test ran more than once (``--repeat``).

    promptfoo numbers every repeat of a test as a new ``testIdx``; the results of one test
    share its ``testCase``. Without repeats the test's index is its ``testIdx``; with them,
    the test's order among the distinct tests (by its first ``testIdx``).
    """
    first: dict[str, int] = {}
    indices: dict[str, set[int]] = {}
    described: dict[str, str | None] = {}
    for r in results:
        if r.fingerprint not in first or r.test_idx < first[r.fingerprint]:
            first[r.fingerprint] = r.test_idx
        indices.setdefault(r.fingerprint, set()).add(r.test_idx)
        described.setdefault(r.fingerprint, r.description)
    repeated = any(len(v) > 1 for v in indices.values())
    order = sorted(first, key=first.__getitem__)
    ids = {}
    for ordinal, fp in enumerate(order):
        index = ordinal if repeated else first[fp]
        ids[fp] = f"{index}: {described[fp]}" if described[fp] is not None else str(index)
    return ids, repeated


def _trials(results: list[_Result]) -> tuple[list[int], bool]:
    """Each result's trial, and whether they came from ``repeatIndex``.

    ``repeatIndex`` where every result has one; else (versions that write none) the results of
    one test, provider and prompt in file order are its trials 0, 1, … (SPEC §15).
    """
    if all(r.repeat is not None for r in results):
        return [r.repeat for r in results if r.repeat is not None], True
    seen: Counter[tuple[str, str, int | None]] = Counter()
    out = []
    for r in results:
        key = (r.agent, r.fingerprint, r.prompt_idx)
        out.append(seen[key])
        seen[key] += 1
    return out, False


def _rows_of(r: _Result, case: str, trial: int, counts: Counter[str]) -> list[dict[str, Any]]:
    base: dict[str, Any] = {"case_id": case, "trial": trial, "agent": r.agent, "input": r.input}
    if r.output is not None:
        base["agent_output"] = r.output
    if r.cost is not None:
        base["cost_usd"] = r.cost
    if r.latency is not None:
        base["latency_ms"] = r.latency
    rows: dict[str, dict[str, Any]] = {}
    if r.error is not None:
        counts["errors"] += 1
        for assertion in r.asserts or [a for _, a in r.components] or [{"type": "provider"}]:
            dim = _dimension(assertion)
            rows[dim] = {**base, "dimension": dim, "status": "ERROR", "reason": "provider_error",
                         "evaluator": _evaluator(assertion), "detail": r.error}
        return list(rows.values())
    worst = {"PASS": 0, "FAIL": 1, "ERROR": 2}
    for component, assertion in r.components:
        dim = _dimension(assertion)
        passed = component.get("pass")
        status = "PASS" if passed is True else "FAIL" if passed is False else "ERROR"
        row = {**base, "dimension": dim, "status": status, "evaluator": _evaluator(assertion)}
        if status == "ERROR":
            row["reason"] = "unscored"
        score = component.get("score")
        if isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= 1:
            row["score"] = score
        if dim in rows:  # two assertions on one dimension: one row, PASS only when both pass (fail closed)
            counts["merged"] += 1
            if worst[status] > worst[rows[dim]["status"]]:
                rows[dim] = row
            continue
        rows[dim] = row
    if not rows:  # no assertion ran: every assertion the test declares is ERROR, never dropped
        for assertion in r.asserts or [{"type": "assertion"}]:
            dim = _dimension(assertion)
            rows[dim] = {**base, "dimension": dim, "status": "ERROR", "reason": "unscored",
                         "evaluator": _evaluator(assertion)}
    return list(rows.values())


def _prompt_metrics(prompt: Mapping[str, Any], where: str) -> Any:
    return finite_json(dict(optional_record(prompt.get("metrics"), f"{where}.metrics")))


def _declared_repeat(config: Mapping[str, Any], name: str, held: int) -> int | None:
    options = optional_record(config.get("evaluateOptions"), f"{name}: config.evaluateOptions")
    return declared_repeats(options.get("repeat"), f"{name}: config.evaluateOptions.repeat", held=held,
                            holds="results")


def _dataset_size(config: Mapping[str, Any], name: str) -> int | None:
    tests = config.get("tests")
    if isinstance(tests, list):
        return len(tests)
    if tests is None or isinstance(tests, str):  # a file of tests (tests.csv) or none: not counted here
        return None
    raise InputError(f"{name}: config.tests: expected a list or a file name, found {kind_of(tests)}")


def read(path: Path) -> list[ImportedRun]:
    """The runs (one per provider) of a promptfoo output file, or of every one in a directory."""
    path = Path(path)
    if path.is_dir():
        from ._read import read_directory

        return read_directory(path, [FORMAT])
    name = str(path)
    doc = record(json_file(path, "promptfoo output"), name)
    raw = doc.get("results")
    summary = raw if isinstance(raw, Mapping) else {}
    where = f"{name}: results.results" if summary else f"{name}: results"
    listed = summary.get("results") if summary else raw
    if listed is None:
        raise InputError(f"{name}: not promptfoo output (no results list)")
    results = [_Result(r, f"{where}[{i}]") for i, r in enumerate(record_list(listed, where, missing_ok=False))]
    if not results:
        raise NoSamplesError(f"{name}: promptfoo output without results: nothing to import")
    config = optional_record(doc.get("config"), f"{name}: config")
    meta = optional_record(doc.get("metadata"), f"{name}: metadata")
    prompts = [record(p, f"{name}: results.prompts[{i}]")
               for i, p in enumerate(record_list(summary.get("prompts"), f"{name}: results.prompts"))]
    dataset_size = _dataset_size(config, name)
    declared = _declared_repeat(config, name, len(results))
    cases, repeated = _case_ids(results)
    trials, from_index = _trials(results)
    by_agent: dict[str, list[int]] = {}
    for i, r in enumerate(results):
        by_agent.setdefault(r.agent, []).append(i)
    notes = list(RULE_NOTES)
    if repeated:
        notes.append("promptfoo gives each repeat of a test (--repeat) a testIdx of its own: the results sharing a "
                     "test (its testCase) are one case, case_id = the test's order among the distinct tests")
    if not from_index:
        notes.append("trial = the result's position among its test's results for one provider and prompt in file "
                     "order (this promptfoo version writes no repeatIndex): --repeat N gives N trials of one case")
    import pandas as pd

    runs = []
    for agent, mine in by_agent.items():
        counts: Counter[str] = Counter()
        rows: list[dict[str, Any]] = []
        for i in mine:
            rows.extend(_rows_of(results[i], cases[results[i].fingerprint], trials[i], counts))
        seen: set[tuple[Any, ...]] = set()
        for row in rows:
            key = (row["case_id"], row["trial"], row["dimension"])
            if key in seen:
                prompt_ids = {results[i].prompt_idx for i in mine}
                raise InputError(f"{name}: provider {agent} has two results of test {row['case_id']} "
                                 f"(trial {row['trial']}) on {row['dimension']}; "
                                 f"{len(prompt_ids)} prompts: import one prompt per file")
            seen.add(key)
            row["id"] = f"{row['case_id']}/{row['trial']}/{row['dimension']}"
        per_case = Counter(cases[results[i].fingerprint] for i in mine)  # results (trials) per case
        samples_run = len(per_case)
        trials_per_case = declared if declared is not None else max(per_case.values())
        run_notes = list(notes)
        if counts["errors"]:
            run_notes.append(f"{counts['errors']} result(s) failed for a provider or runtime error: "
                             "ERROR provider_error")
        if counts["merged"]:
            run_notes.append(f"{counts['merged']} assertion(s) shared a dimension with another of the same test: "
                             "one row each, PASS only when all of them passed")
        partial = dataset_size is not None and samples_run < dataset_size
        if partial:
            run_notes.append(f"partial run (TRIAGE): {samples_run} of the config's {dataset_size} tests ran")
        if dataset_size is None:
            run_notes.append("the config lists no tests inline: whether every test ran cannot be checked")
        if declared is not None and min(per_case.values()) < declared:
            partial = True
            run_notes.append(f"partial run (TRIAGE): a test ran fewer than the config's {declared} repeats")
        metrics = {"prompts": [_prompt_metrics(p, f"{name}: results.prompts[{j}]")
                               for j, p in enumerate(prompts) if p.get("provider") == agent]}
        source = source_dict(
            fmt=FORMAT, files=[name], status=None, samples_run=samples_run, dataset_size=dataset_size,
            epochs=trials_per_case, sample_epochs_run=len(mine),
            sample_epochs_planned=max(len(mine), (dataset_size or samples_run) * trials_per_case),
            created=summary.get("timestamp") or meta.get("evaluationCreatedAt"), harness=HARNESS,
            harness_version=meta.get("promptfooVersion"), metrics=metrics, notes=run_notes,
            eval_id=doc.get("evalId"),
        )
        task = str(config.get("description") or doc.get("evalId") or path.stem)
        runs.append(ImportedRun(agent=agent, task=task, rows=pd.DataFrame(rows), partial=partial, source=source))
    return runs
