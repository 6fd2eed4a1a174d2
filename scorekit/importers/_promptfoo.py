"""promptfoo eval output → SPEC §2 rows (SPEC §15, format ``promptfoo``).

Reads what ``promptfoo eval -o results.json`` writes (``{evalId, results: {version, prompts,
results: [...], stats}, config, metadata}``). One run per provider (two providers are two agents,
never "flaky" trials of one):

=======================  ========================================================================
case_id                  the test's index (``testIdx``), with its description where it has one
trial                    ``repeatIndex`` (0 without ``--repeat``)
dimension                one per assertion: its ``metric``, else its ``type``
status                   PASS/FAIL from the assertion's ``pass``; its ``score`` is kept
a provider or runtime    ERROR ``provider_error`` on each of the test's assertions (a result
error (not an assertion) whose ``failureReason`` is 2, or whose response carries an error)
cost_usd, latency_ms     the result's ``cost`` and ``latencyMs``
=======================  ========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from ._base import finite_json, head_text, json_file, source_dict
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


def _obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _provider(result: Mapping[str, Any]) -> str:
    provider = result.get("provider")
    if isinstance(provider, Mapping):
        label, pid = provider.get("label"), provider.get("id")
        if isinstance(label, str) and label.strip():
            return label
        if isinstance(pid, str) and pid.strip():
            return pid
    if isinstance(provider, str) and provider.strip():
        return provider
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


def _is_provider_error(result: Mapping[str, Any]) -> str | None:
    """The error message of a result that failed for a provider or runtime error, else None."""
    response = _obj(result.get("response"))
    if result.get("failureReason") == _ERROR_REASON:
        return str(result.get("error") or response.get("error") or "provider error")
    if response.get("error"):
        return str(response["error"])
    if result.get("error") and not isinstance(result.get("gradingResult"), Mapping):
        return str(result["error"])
    return None


def _output(result: Mapping[str, Any]) -> str | None:
    output = _obj(result.get("response")).get("output")
    if output is None:
        return None
    if isinstance(output, str):
        return output
    import json

    return json.dumps(finite_json(output), ensure_ascii=False, sort_keys=True)


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if finite_json(value) is not None and value >= 0 else None


def _rows_of(result: Mapping[str, Any], agent: str, counts: dict[str, int]) -> list[dict[str, Any]]:
    test_idx = result.get("testIdx")
    if isinstance(test_idx, bool) or not isinstance(test_idx, int):
        raise InputError("a result without an integer testIdx")
    test = _obj(result.get("testCase"))
    description = test.get("description")
    case = f"{test_idx}: {description}" if isinstance(description, str) and description.strip() else str(test_idx)
    repeat = result.get("repeatIndex")
    trial = repeat if isinstance(repeat, int) and not isinstance(repeat, bool) and repeat >= 0 else 0
    base: dict[str, Any] = {"case_id": case, "trial": trial, "agent": agent}
    prompt = _obj(result.get("prompt"))
    base["input"] = finite_json({"vars": test.get("vars", result.get("vars")), "prompt": prompt.get("raw")})
    text = _output(result)
    if text is not None:
        base["agent_output"] = text
    cost, latency = _number(result.get("cost")), _number(result.get("latencyMs"))
    if cost is not None:
        base["cost_usd"] = cost
    if latency is not None:
        base["latency_ms"] = latency
    grading = _obj(result.get("gradingResult"))
    components = [c for c in grading.get("componentResults") or [] if isinstance(c, Mapping)]
    asserts = [a for a in test.get("assert") or [] if isinstance(a, Mapping)]
    error = _is_provider_error(result)
    rows: dict[str, dict[str, Any]] = {}
    if error is not None:
        counts["errors"] += 1
        for assertion in asserts or [_obj(c.get("assertion")) for c in components] or [{"type": "provider"}]:
            dim = _dimension(assertion)
            rows[dim] = {**base, "dimension": dim, "status": "ERROR", "reason": "provider_error",
                         "evaluator": _evaluator(assertion)}
        return list(rows.values())
    for component in components:
        assertion = _obj(component.get("assertion"))
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
            worst = {"PASS": 0, "FAIL": 1, "ERROR": 2}
            if worst[status] > worst[rows[dim]["status"]]:
                rows[dim] = row
            continue
        rows[dim] = row
    if not rows:  # no assertion ran: every assertion the test declares is ERROR, never dropped
        for assertion in asserts or [{"type": "assertion"}]:
            dim = _dimension(assertion)
            rows[dim] = {**base, "dimension": dim, "status": "ERROR", "reason": "unscored",
                         "evaluator": _evaluator(assertion)}
    return list(rows.values())


def read(path: Path) -> list[ImportedRun]:
    """The runs (one per provider) of a promptfoo output file, or of every one in a directory."""
    path = Path(path)
    if path.is_dir():
        from ._read import read_directory

        return read_directory(path, [FORMAT])
    name = str(path)
    doc = json_file(path, "promptfoo output")
    if not isinstance(doc, Mapping):
        raise InputError(f"{name}: not promptfoo output (expected an object)")
    summary = _obj(doc.get("results"))
    results = summary.get("results") if summary else doc.get("results")
    if not isinstance(results, list):
        raise InputError(f"{name}: not promptfoo output (no results list)")
    results = [r for r in results if isinstance(r, Mapping)]
    if not results:
        raise NoSamplesError(f"{name}: promptfoo output without results: nothing to import")
    config = _obj(doc.get("config"))
    meta = _obj(doc.get("metadata"))
    tests = config.get("tests")
    dataset_size = len(tests) if isinstance(tests, list) else None
    by_agent: dict[str, list[Mapping[str, Any]]] = {}
    for result in results:
        by_agent.setdefault(_provider(result), []).append(result)
    prompts = [p for p in summary.get("prompts") or [] if isinstance(p, Mapping)]
    runs = []
    for agent, mine in by_agent.items():
        counts = {"errors": 0, "merged": 0}
        rows: list[dict[str, Any]] = []
        try:
            for result in mine:
                rows.extend(_rows_of(result, agent, counts))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
        prompt_ids = {r.get("promptIdx") for r in mine}
        seen: set[tuple[Any, ...]] = set()
        for row in rows:
            key = (row["case_id"], row["trial"], row["dimension"])
            if key in seen:
                raise InputError(f"{name}: provider {agent} has two results of test {row['case_id']} "
                                 f"(trial {row['trial']}) on {row['dimension']}; "
                                 f"{len(prompt_ids)} prompts: import one prompt per file")
            seen.add(key)
            row["id"] = f"{row['case_id']}/{row['trial']}/{row['dimension']}"
        samples_run = len({r.get("testIdx") for r in mine})
        notes = list(RULE_NOTES)
        if counts["errors"]:
            notes.append(f"{counts['errors']} result(s) failed for a provider or runtime error: ERROR provider_error")
        if counts["merged"]:
            notes.append(f"{counts['merged']} assertion(s) shared a dimension with another of the same test: one "
                         "row each, PASS only when all of them passed")
        partial = dataset_size is not None and samples_run < dataset_size
        if partial:
            notes.append(f"partial run (TRIAGE): {samples_run} of the config's {dataset_size} tests ran")
        if dataset_size is None:
            notes.append("the config lists no tests inline: whether every test ran cannot be checked")
        own = [p for p in prompts if p.get("provider") in (agent, _obj(mine[0].get("provider")).get("id"))]
        metrics = {"prompts": [finite_json(dict(_obj(p.get("metrics")))) for p in own]}
        import pandas as pd

        source = source_dict(
            fmt=FORMAT, files=[name], status=None, samples_run=samples_run, dataset_size=dataset_size,
            created=summary.get("timestamp") or meta.get("evaluationCreatedAt"), harness=HARNESS,
            harness_version=meta.get("promptfooVersion"), metrics=metrics, notes=notes,
            eval_id=doc.get("evalId"),
        )
        task = str(config.get("description") or doc.get("evalId") or path.stem)
        runs.append(ImportedRun(agent=agent, task=task, rows=pd.DataFrame(rows), partial=partial, source=source))
    return runs
