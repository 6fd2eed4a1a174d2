"""Benchmark the importers: time per item of every format scorekit imports, at two sizes.

``formats`` (the default) writes, in a temporary directory, one file of each format
``sk.import_results`` reads — Inspect AI ``.eval`` and ``.json`` (and a ``.json`` with
provenance records), promptfoo ``results.json``, τ-bench, τ²-bench, OpenAI Evals output items,
an Assevra dataset, an lm-eval results file with its samples file, a DeepEval test run, a HELM
run directory, an Every Eval Ever aggregate with its instance file and a SWE-bench run report
with its per-instance reports — each holding N items (samples, results, simulations, output
items, rows, sample lines, test cases, instance trials, instance lines, instances), at each size
of ``--sizes``. Every file is built from the project's real files of that tool
(``tests/data/imports``): their records cloned with new ids, the bulky parts a scorer never
reads trimmed (Inspect's events and messages, τ-bench's trajectories), so the shapes are the
tools' own. Each file is imported with ``sk.import_results(path, format=FMT)`` (after a
warm-up on a small file of the same format) and the best of ``--runs`` is printed as total
seconds and µs per item. An importer linear in its input shows the same µs/item at both
sizes: the last column is the ratio of the two totals (≈ the size ratio, 10 by default;
a quadratic importer shows ≈ 100).

``inspect-ai`` times importing a directory of Inspect logs against inspect_ai's own reader
(``read_eval_log``), each in its own process, in a virtual environment holding inspect_ai.
``lm-eval`` writes an lm-eval results file with its samples file of ``--items`` lines (as
``formats`` does) and times ``sk.import_results`` against lm-eval's own loading of them
(``lm_eval.utils``' file pickers, then ``datasets.load_dataset("json")``, as its
``EvaluationTracker`` reads a run back), each in its own process: medians of ``--runs``, in
seconds and µs per sample line, and their ratio. ``eee`` does the same with an Every Eval Ever
aggregate and its instance file against every_eval_ever's own models of them (each line
through ``strict_json_loads`` and ``InstanceLevelEvaluationLog``, as its validator reads them),
its ``validate_file`` of both files beside them.

Usage::

    python benchmarks/bench_import.py [formats] [--sizes 10000 100000] [--runs 1] [--only tau2 promptfoo]
    python -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect_ai
    python benchmarks/bench_import.py inspect-ai [--dir tests/data/imports/inspect] [--runs 5] \\
        [--inspect-python /tmp/inspect-venv/bin/python]
    python -m venv /tmp/lmeval-venv && /tmp/lmeval-venv/bin/pip install --no-deps lm_eval \\
        && /tmp/lmeval-venv/bin/pip install datasets jinja2  # what its loading needs
    python benchmarks/bench_import.py lm-eval [--items 100000] [--runs 3] \\
        [--lm-eval-python /tmp/lmeval-venv/bin/python]
    # every_eval_ever is not on PyPI: install its checkout (github.com/evaleval/every_eval_ever), Python >= 3.12
    python3.12 -m venv /tmp/eee-venv && /tmp/eee-venv/bin/pip install --no-deps ./every_eval_ever \\
        && /tmp/eee-venv/bin/pip install pydantic rich  # what its models and validator need
    python benchmarks/bench_import.py eee [--items 100000] [--runs 3] [--eee-python /tmp/eee-venv/bin/python]
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "imports"
sys.path.insert(0, str(ROOT / "tests" / "importers"))  # the .eval reader/writer the importer tests use

TASKS_PER_TRIAL = 4  # trials (epochs, repeats, runs) per case in the generated files


# --------------------------------------------------------------------------- generators (one per format)
def _trimmed(sample: dict[str, Any]) -> dict[str, Any]:
    """A real Inspect sample without what no scorer reads (its events, attachments, all but 2 messages)."""
    return {**sample, "events": [], "attachments": {}, "messages": sample.get("messages", [])[:2]}


def _inspect_sample(template: dict[str, Any], sample_id: int, epoch: int) -> dict[str, Any]:
    return {**template, "id": sample_id, "epoch": epoch, "uuid": f"s{sample_id}e{epoch}",
            "input": f"question {sample_id}"}


def write_inspect_eval(path: Path, n: int) -> Path:
    """An Inspect ``.eval`` of n sample-epochs (n / 4 samples × 4 epochs).

    Its members are deflated (as Inspect's older logs are, and ZIP64 past 65,535 members, as
    Python's zipfile writes it): the zstd writer of the importer tests has no ZIP64.
    """
    import zipfile

    from import_logs import QUIZ, members

    real = members(QUIZ)
    header = json.loads(real["header.json"])
    template = _trimmed(json.loads(next(v for k, v in real.items() if k.startswith("samples/"))))
    cases = n // TASKS_PER_TRIAL
    header["eval"]["dataset"].update(samples=cases, sample_ids=list(range(1, cases + 1)))
    header["eval"]["config"]["epochs"] = TASKS_PER_TRIAL
    files = {"_journal/start.json": real["_journal/start.json"]}
    summaries = []
    for epoch in range(1, TASKS_PER_TRIAL + 1):
        for sample_id in range(1, cases + 1):
            sample = _inspect_sample(template, sample_id, epoch)
            files[f"samples/{sample_id}_epoch_{epoch}.json"] = json.dumps(sample).encode()
            summaries.append({k: sample[k] for k in ("id", "epoch", "input", "target", "scores")})
    files["summaries.json"] = json.dumps(summaries).encode()
    files["header.json"] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def write_inspect_json(path: Path, n: int) -> Path:
    """An Inspect ``.json`` log of n sample-epochs (n / 4 samples × 4 epochs)."""
    from import_logs import SECURITY

    log = json.loads(SECURITY.read_text(encoding="utf-8"))
    template = _trimmed(log["samples"][0])
    cases = n // TASKS_PER_TRIAL
    log["eval"]["dataset"].update(samples=cases, sample_ids=list(range(1, cases + 1)))
    log["eval"]["config"]["epochs"] = TASKS_PER_TRIAL
    log["samples"] = [_inspect_sample(template, i, e) for e in range(1, TASKS_PER_TRIAL + 1)
                      for i in range(1, cases + 1)]
    log.pop("reductions", None)
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def write_inspect_provenance(path: Path, n: int) -> Path:
    """An Inspect ``.json`` log of n sample-epochs with provenance, cloned from the real quiz-prov log.

    Every sample carries the real edited score (its history: the original, then one edit), every
    8th is invalidated (the real invalidation record), and every 4th sample's last epoch is an
    early stop (absent from the samples, listed in ``results.early_stopping``).
    """
    from import_logs import INSPECT, raw_log

    log = raw_log(INSPECT / "2026-12-06T20-20-40-00-00_quiz-prov_PZkog4bbywjWH7pcENkRbZ.eval")
    edited = _trimmed(next(s for s in log["samples"] if s["scores"]["match"].get("history")))
    invalid = next(s for s in log["samples"] if s.get("invalidation"))["invalidation"]
    cases = n // TASKS_PER_TRIAL
    log["eval"]["dataset"].update(samples=cases, sample_ids=list(range(1, cases + 1)))
    log["eval"]["config"]["epochs"] = TASKS_PER_TRIAL
    stops = [{"id": i, "epoch": TASKS_PER_TRIAL, "reason": "already correct"} for i in range(1, cases + 1, 4)]
    log["results"]["early_stopping"] = {"manager": "bench", "early_stops": stops, "metadata": {}}
    stopped = {(s["id"], s["epoch"]) for s in stops}
    log["samples"] = [{**_inspect_sample(edited, i, e), **({"invalidation": invalid} if i % 8 == 0 else {})}
                      for e in range(1, TASKS_PER_TRIAL + 1) for i in range(1, cases + 1) if (i, e) not in stopped]
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def write_promptfoo(path: Path, n: int) -> Path:
    """promptfoo ``results.json`` of n results: n / 4 tests × ``--repeat 2`` × 2 providers (promptfoo's numbering)."""
    doc = json.loads((DATA / "promptfoo" / "sample-export.json").read_text(encoding="utf-8"))
    template = {r["provider"]["id"]: r for r in doc["results"]["results"] if r["testIdx"] == 0}
    tests, repeat = n // 4, 2
    results = []
    for k in range(tests):
        for r in range(repeat):
            for provider in sorted(template):
                result = copy.copy(template[provider])
                result["testCase"] = {**result["testCase"], "vars": {"riddle": f"riddle {k}"}}
                result.update(testIdx=k * repeat + r, vars={"riddle": f"riddle {k}"}, id=f"{k}-{r}-{provider}")
                results.append(result)
    doc["results"]["results"] = results
    doc["config"]["tests"] = [{"vars": {"riddle": f"riddle {k}"}} for k in range(tests)]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_tau(path: Path, n: int) -> Path:
    """τ-bench results of n (task, trial) results: n / 4 tasks × 4 trials, trajectories trimmed."""
    real = json.loads((DATA / "tau" / "gpt-4o-airline-10tasks.json").read_text(encoding="utf-8"))
    out = []
    for i in range(n):
        entry = dict(real[i % len(real)], task_id=i // TASKS_PER_TRIAL, trial=i % TASKS_PER_TRIAL, traj=[])
        out.append(entry)
    path.write_text(json.dumps(out), encoding="utf-8")
    return path


def write_tau2(path: Path, n: int) -> Path:
    """A τ²-bench results object of n simulations: n / 4 tasks × ``num_trials`` 4."""
    doc = json.loads((DATA / "tau" / "tau2-airline-mini.json").read_text(encoding="utf-8"))
    task, sims = doc["tasks"][0], doc["simulations"]
    cases = n // TASKS_PER_TRIAL
    doc["info"]["num_trials"] = TASKS_PER_TRIAL
    doc["tasks"] = [dict(task, id=str(i)) for i in range(cases)]
    doc["simulations"] = [dict(sims[(i + t) % len(sims)], id=f"{i}-{t}", task_id=str(i), trial=t, messages=[])
                          for t in range(TASKS_PER_TRIAL) for i in range(cases)]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_openai_evals(path: Path, n: int) -> Path:
    """OpenAI Evals output items (the dashboard export) of n items: n / 4 data-source items × 4 runs."""
    lines = (DATA / "openai-evals" / "openai-evals-items.jsonl").read_text(encoding="utf-8").splitlines()
    real = [json.loads(line) for line in lines if line.strip()]
    cases = n // TASKS_PER_TRIAL
    with path.open("w", encoding="utf-8") as out:
        for run in range(TASKS_PER_TRIAL):
            for i in range(cases):
                out.write(json.dumps(dict(real[i % len(real)], run_id=f"evalrun_{run}", data_source_idx=i)) + "\n")
    return path


def write_assevra(path: Path, n: int) -> Path:
    """An Assevra dataset of n rows: its demo rows cloned, n / 4 cases × 4 trials named ``-t<n>``."""
    lines = (DATA / "assevra" / "demo.jsonl").read_text(encoding="utf-8").splitlines()
    real = [json.loads(line) for line in lines if line.strip()]
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            case, trial = divmod(i, TASKS_PER_TRIAL)
            row = dict(real[case % len(real)], case_id=f"case-{case}", id=f"case-{case}-t{trial + 1}")
            out.write(json.dumps(row) + "\n")
    return path


def write_lm_eval(path: Path, n: int) -> Path:
    """An lm-eval results file with its samples file of n lines: skq_gen's n / 3 documents × its 3 filters.

    ``path`` names the results file; it and ``samples_skq_gen_<stamp>.jsonl`` are written in a folder
    of their own (the results file's stem), so runs of other sizes never share a samples file.
    """
    import hashlib

    real = DATA / "lm-eval" / "full-dummy"
    results_file = next(real.glob("results_*.json"))
    stamp = results_file.stem.removeprefix("results_")
    lines = [json.loads(line) for line in
             (real / f"samples_skq_gen_{stamp}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    by_filter: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_filter.setdefault(line["filter"], []).append(line)
    docs = max(1, n // len(by_filter))
    out = []
    for filt, real_lines in by_filter.items():  # lm-eval's order: each filter's documents in turn
        for i in range(docs):
            out.append(dict(real_lines[i % len(real_lines)], doc_id=i, filter=filt))
    doc = json.loads(results_file.read_text(encoding="utf-8"))
    for key in ("results", "configs", "n-samples", "higher_is_better", "versions", "n-shot", "task_hashes"):
        doc[key].pop("skq_mc", None)
    doc["n-samples"]["skq_gen"] = {"original": docs, "effective": docs}
    doc["task_hashes"]["skq_gen"] = hashlib.sha256("".join(
        x["doc_hash"] + x["prompt_hash"] + x["target_hash"] for x in out).encode()).hexdigest()
    folder = path.parent / path.stem
    folder.mkdir(exist_ok=True)
    results = folder / f"results_{stamp}.json"
    results.write_text(json.dumps(doc), encoding="utf-8")
    with (folder / f"samples_skq_gen_{stamp}.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(x) + "\n" for x in out)
    return results


def write_deepeval(path: Path, n: int) -> Path:
    """A DeepEval test run export of n test cases: run-a's six cases cloned with new names (3 metrics each),
    ``metricsScores``, ``testPassed`` and ``testFailed`` counted over the clones as DeepEval counts them."""
    real = json.loads((DATA / "deepeval" / "run-a" / "test_run_20261206_201157.json").read_text(encoding="utf-8"))
    cases = [dict(real["testCases"][i % len(real["testCases"])], name=f"case-{i}", order=i) for i in range(n)]
    scores: dict[str, dict[str, Any]] = {}
    for case in cases:
        for m in case["metricsData"]:
            entry = scores.setdefault(m["name"], {"metric": m["name"], "scores": [], "passes": 0, "fails": 0,
                                                  "errors": 0})
            if m.get("score") is None or m.get("success") is None:
                entry["errors"] += 1
            else:
                entry["scores"].append(m["score"])
                entry["passes" if m["success"] else "fails"] += 1
    passed = sum(1 for c in cases if c["success"])
    doc = dict(real, testCases=cases, metricsScores=list(scores.values()), testPassed=passed,
               testFailed=len(cases) - passed)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_helm(path: Path, n: int) -> Path:
    """A HELM run directory of n (instance, train trial) pairs: n / 4 instances × 4 train trials.

    Built from the real mmlu run directory: its request states and per-instance stats cloned with new
    instance ids; returns the run spec, the file the directory is read from.
    """
    real = DATA / "helm" / "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
    spec = json.loads((real / "run_spec.json").read_text(encoding="utf-8"))
    state = json.loads((real / "scenario_state.json").read_text(encoding="utf-8"))
    stats = json.loads((real / "per_instance_stats.json").read_text(encoding="utf-8"))
    cases = n // TASKS_PER_TRIAL
    spec["adapter_spec"]["num_train_trials"] = TASKS_PER_TRIAL
    states, entries = state["request_states"], stats
    state["request_states"] = [
        dict(states[i % len(states)], train_trial_index=t,
             instance=dict(states[i % len(states)]["instance"], id=f"id{i}"))
        for t in range(TASKS_PER_TRIAL) for i in range(cases)]
    per_instance = [dict(entries[i % len(entries)], instance_id=f"id{i}", train_trial_index=t)
                    for t in range(TASKS_PER_TRIAL) for i in range(cases)]
    path.mkdir(parents=True, exist_ok=True)
    for name, data in (("run_spec", spec), ("scenario_state", state), ("per_instance_stats", per_instance)):
        (path / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    (path / "stats.json").write_text((real / "stats.json").read_text(encoding="utf-8"), encoding="utf-8")
    return path / "run_spec.json"


def write_eee(path: Path, n: int) -> Path:
    """An Every Eval Ever aggregate and its instance file of n lines: n / 8 samples × 2 results × 4 repetitions.

    Built from the shared lm-eval conversion (skq_mc: acc, acc_norm), its lines cloned with new sample ids,
    the aggregate's scores, sample counts, sha256 checksum and total_rows stated as the converter does.
    """
    import hashlib

    folder = DATA / "eee" / "lm_eval-converted" / "skq_mc" / "scorekit" / "dummy-lm"
    doc = json.loads((folder / "e9a70a55-a357-471b-9b11-fa588ec527f9.json").read_text(encoding="utf-8"))
    lines = (folder / "e9a70a55-a357-471b-9b11-fa588ec527f9_samples.jsonl").read_text(encoding="utf-8").splitlines()
    real = [json.loads(line) for line in lines if line.strip()]
    results = [r["evaluation_result_id"] for r in doc["evaluation_results"]]
    cases = max(1, n // (len(results) * TASKS_PER_TRIAL))
    out, correct = [], dict.fromkeys(results, 0)
    for _trial in range(TASKS_PER_TRIAL):
        for i in range(cases):
            for k, result in enumerate(results):
                line = dict(real[(i * len(results) + k) % len(real)], evaluation_result_id=result, sample_id=str(i))
                correct[result] += bool(line["evaluation"]["is_correct"])
                out.append(json.dumps(line) + "\n")
    body = "".join(out).encode()
    side = path.with_name(f"{path.stem}_samples.jsonl")
    side.write_bytes(body)
    for r in doc["evaluation_results"]:
        r["score_details"]["score"] = correct[r["evaluation_result_id"]] / (cases * TASKS_PER_TRIAL)
        r["score_details"]["uncertainty"]["num_samples"] = cases
    doc["detailed_evaluation_results"].update(file_path=f"data/skq_mc/scorekit/dummy-lm/{side.name}",
                                              checksum=hashlib.sha256(body).hexdigest(), total_rows=len(out))
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_swe_bench(path: Path, n: int) -> Path:
    """A SWE-bench run report of n instances with its per-instance reports beside it (logs/run_evaluation/...).

    run-a's seven instances cloned with new ids (each keeps its real outcome list), and each completed
    instance's real report.json under ``logs/run_evaluation/<run_id>/<model>/<id>/``; model and run id
    come from ``path``'s name (``<model>.<run_id>.json``), as the harness names the report.
    """
    run_a = DATA / "swe-bench" / "run-a"
    real = json.loads((run_a / "reports" / "agent-swe-a.toy-a.json").read_text(encoding="utf-8"))
    model, run_id = path.name.removesuffix(".json").rsplit(".", 1)
    folder = path.parent / "logs" / "run_evaluation" / run_id / model
    bodies = {p.parent.name: json.loads(p.read_text(encoding="utf-8"))[p.parent.name]
              for p in (run_a / "logs" / "run_evaluation" / "toy-a" / "agent-swe-a").glob("*/report.json")}
    lists = ("resolved_ids", "unresolved_ids", "empty_patch_ids", "error_ids", "incomplete_ids", "completed_ids",
             "submitted_ids")
    where = {key: set(real[key]) for key in lists}
    pattern = sorted(set().union(*(where[k] for k in lists[:5])))
    report: dict[str, Any] = {key: [] for key in lists}
    for i in range(n):
        template = pattern[i % len(pattern)]
        instance = f"bench__repo-{i}"
        for key in lists:
            if template in where[key]:
                report[key].append(instance)
        if template in bodies:
            (folder / instance).mkdir(parents=True, exist_ok=True)
            (folder / instance / "report.json").write_text(json.dumps({instance: bodies[template]}), encoding="utf-8")
    lists_of = {key: report.get(key, real[key]) for key in real if key.endswith("_ids")}
    # in the harness's own key order (its counts first, then the id lists), indented as it writes it
    out = {key: (n if key == "total_instances" else len(lists_of[key.replace("_instances", "_ids")]))
           if key.endswith("_instances") else lists_of.get(key, real[key]) for key in real}
    path.write_text(json.dumps(out, indent=4), encoding="utf-8")
    return path


#: --from name, file name, generator.
FORMATS: dict[str, tuple[str, str, Callable[[Path, int], Path]]] = {
    "inspect-eval": ("inspect", "log.eval", write_inspect_eval),
    "inspect-json": ("inspect", "log.json", write_inspect_json),
    "inspect-prov": ("inspect", "prov.json", write_inspect_provenance),
    "promptfoo": ("promptfoo", "results.json", write_promptfoo),
    "tau": ("tau", "tau-results.json", write_tau),
    "tau2": ("tau", "tau2-results.json", write_tau2),
    "openai-evals": ("openai-evals", "items.jsonl", write_openai_evals),
    "assevra": ("assevra", "dataset.jsonl", write_assevra),
    "lm-eval": ("lm-eval", "lm-eval-results.json", write_lm_eval),
    "deepeval": ("deepeval", "test_run_bench.json", write_deepeval),
    "helm": ("helm", "helm-run", write_helm),
    "eee": ("eee", "eee-aggregate.json", write_eee),
    "swe-bench": ("swe-bench", "agent.bench.json", write_swe_bench),
}


def _time_import(path: Path, fmt: str, runs: int) -> tuple[float, int]:
    import scorekit as sk

    best, rows = float("inf"), 0
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        imported = sk.import_results(path, format=fmt)
        best = min(best, time.perf_counter() - start)
        rows = sum(len(r.rows) for r in imported)
        del imported
    return best, rows


def bench_formats(sizes: list[int], runs: int, only: list[str] | None) -> int:
    names = only or list(FORMATS)
    print(f"{'format':<14}" + "".join(f"{f'{n:,} items':>26}" for n in sizes) + f"{'ratio':>9}")
    print(f"{'':<14}" + "".join(f"{'total s':>12}{'µs/item':>10}{'':>4}" for _ in sizes))
    with tempfile.TemporaryDirectory(prefix="sk-bench-import-") as tmp:
        root = Path(tmp)
        for name in names:
            fmt, file_name, write = FORMATS[name]
            warm = write(root / f"warm-{file_name}", 400)
            _time_import(warm, fmt, 1)  # imports and caches, outside the timing
            totals: list[float] = []
            cells = []
            for n in sizes:
                path = write(root / f"{n}-{file_name}", n)
                seconds, rows = _time_import(path, fmt, runs)
                path.unlink()
                totals.append(seconds)
                cells.append(f"{seconds:>12.2f}{seconds / n * 1e6:>10.1f}{'':>4}")
            ratio = totals[-1] / totals[0] if len(totals) > 1 and totals[0] else float("nan")
            print(f"{name:<14}" + "".join(cells) + f"{ratio:>9.1f}   ({rows:,} rows at {sizes[-1]:,})", flush=True)
    if len(sizes) > 1:
        print(f"size ratio {sizes[-1] / sizes[0]:g}: a linear importer's ratio is about the same")
    return 0


# --------------------------------------------------------------------------- scorekit vs inspect_ai
_SCOREKIT = """
import json, sys, time
import scorekit as sk
d, runs, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sk.import_results(d, format=fmt)  # warm-up: imports, first read
times = []
for _ in range(runs):
    t = time.perf_counter(); out = sk.import_results(d, format=fmt); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "runs": len(out), "rows": sum(len(r.rows) for r in out)}))
"""

_INSPECT = """
import json, sys, time
from pathlib import Path
from inspect_ai.log import read_eval_log
d, runs = Path(sys.argv[1]), int(sys.argv[2])
files = sorted(p for p in d.rglob("*") if p.suffix in (".eval", ".json"))
def read_all():
    return [read_eval_log(str(p)) for p in files]
read_all()  # warm-up
times = []
for _ in range(runs):
    t = time.perf_counter(); logs = read_all(); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "logs": len(logs), "samples": sum(len(l.samples or []) for l in logs)}))
"""


def _run(python: str, code: str, *args: object) -> dict[str, Any]:
    proc = subprocess.run([python, "-c", code, *map(str, args)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{python}: benchmark failed:\n{proc.stderr.strip()}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def bench_inspect_ai(directory: Path, runs: int, inspect_python: str) -> int:
    if not Path(inspect_python).exists():
        return _no_venv(inspect_python, "inspect_ai")
    ours = _run(sys.executable, _SCOREKIT, directory, runs, "inspect")
    theirs = _run(inspect_python, _INSPECT, directory, runs)
    a, b = _median(ours["times"]), _median(theirs["times"])
    print(f"directory: {directory} ({theirs['logs']} logs, {theirs['samples']} samples)")
    print(f"scorekit.import_results:   {a * 1000:8.1f} ms median of {runs} ({ours['runs']} runs, "
          f"{ours['rows']} rows)")
    print(f"inspect_ai read_eval_log:  {b * 1000:8.1f} ms median of {runs}")
    print(f"ratio (inspect_ai / scorekit): {b / a:.2f}x")
    return 0


# --------------------------------------------------------------------------- scorekit vs lm-eval
# lm-eval reads its own output back with Hugging Face datasets: EvaluationTracker.recreate_metadata_card
# picks the files with lm_eval.utils' get_results_filenames / get_sample_results_filenames /
# get_latest_filename and loads them with load_dataset("json", ...), and the card it writes tells
# users to load a run's samples the same way. A fresh cache_dir each run: the JSON is parsed, not
# an Arrow copy cached by the run before.
_LM_EVAL = """
import json, sys, tempfile, time
from pathlib import Path
import datasets
from lm_eval.utils import (get_file_task_name, get_latest_filename, get_results_filenames,
                           get_sample_results_filenames)
datasets.disable_progress_bars()
datasets.logging.set_verbosity_error()
d, runs = Path(sys.argv[1]), int(sys.argv[2])
def read_all():
    names = [str(p) for p in sorted(d.iterdir())]
    with tempfile.TemporaryDirectory() as cache:
        results = datasets.load_dataset("json", data_files=get_latest_filename(get_results_filenames(names)),
                                        split="train", cache_dir=cache)
        samples = {get_file_task_name(Path(f).name): datasets.load_dataset("json", data_files=f, split="train",
                                                                           cache_dir=cache)
                   for f in get_sample_results_filenames(names)}
        return results["results"][0], {task: ds.num_rows for task, ds in samples.items()}
read_all()  # warm-up: imports, first read
times = []
for _ in range(runs):
    t = time.perf_counter(); out = read_all(); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "tasks": sorted(out[0]), "rows": sum(out[1].values())}))
"""


def _no_venv(python: str, tool: str) -> int:
    print(f"{python}: no such interpreter; make a virtual environment holding {tool} (see this file's docstring)",
          file=sys.stderr)
    return 2


def _side_by_side(ours: dict[str, Any], theirs: dict[str, Any], tool: str, items: int, runs: int) -> None:
    a, b = _median(ours["times"]), _median(theirs["times"])
    print(f"{'scorekit.import_results':<34}{a:8.2f} s {a / items * 1e6:8.1f} µs/item  median of {runs} "
          f"({ours['rows']:,} rows)")
    print(f"{tool:<34}{b:8.2f} s {b / items * 1e6:8.1f} µs/item  median of {runs} ({theirs['rows']:,} rows)")
    print(f"ratio ({tool.split()[0]} / scorekit): {b / a:.2f}x")


def bench_lm_eval(items: int, runs: int, lm_eval_python: str) -> int:
    if not Path(lm_eval_python).exists():
        return _no_venv(lm_eval_python, "lm_eval and datasets")
    with tempfile.TemporaryDirectory(prefix="sk-bench-lm-eval-") as tmp:
        results = write_lm_eval(Path(tmp) / "lm-eval.json", items)
        lines = sum(1 for _ in next(results.parent.glob("samples_*.jsonl")).open(encoding="utf-8"))
        print(f"lm-eval results file with its samples file: {lines:,} sample lines ({results.parent.name}/)")
        ours = _run(sys.executable, _SCOREKIT, results, runs, "lm-eval")
        theirs = _run(lm_eval_python, _LM_EVAL, results.parent, runs)
    _side_by_side(ours, theirs, "lm-eval (datasets.load_dataset)", lines, runs)
    return 0


# --------------------------------------------------------------------------- scorekit vs every_eval_ever
# every_eval_ever has no loader returning records beside its validator: the validator reads an
# aggregate and each instance line with strict_json_loads (no duplicate keys, no NaN) and checks
# them against its pydantic models, EvaluationLog and InstanceLevelEvaluationLog. Loading is that,
# keeping the models (the aggregate's detailed_evaluation_results.file_path names the instance
# file); validate_file, its check of both files, is timed beside it.
_EEE = """
import json, sys, time
from pathlib import Path
from every_eval_ever.eval_types import EvaluationLog
from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog
from every_eval_ever.validator.json_utils import strict_json_loads
from every_eval_ever.validator.validation_core import validate_file
path, runs = Path(sys.argv[1]), int(sys.argv[2])
def load():
    log = EvaluationLog.model_validate(strict_json_loads(path.read_text(encoding="utf-8")))
    side = path.with_name(Path(log.detailed_evaluation_results.file_path).name)
    with side.open(encoding="utf-8") as f:
        rows = [InstanceLevelEvaluationLog.model_validate(strict_json_loads(line)) for line in f if line.strip()]
    return log, rows
def validate():
    reports = [validate_file(p) for p in (path, path.with_name(f"{path.stem}_samples.jsonl"))]
    errors = [e for r in reports for e in r.errors]
    if errors:
        raise SystemExit(f"every_eval_ever refuses the files: {errors[:3]}")
load(); validate()  # warm-up: imports, first read
times, checks = [], []
for _ in range(runs):
    t = time.perf_counter(); log, rows = load(); times.append(time.perf_counter() - t)
    del log, rows
    t = time.perf_counter(); validate(); checks.append(time.perf_counter() - t)
print(json.dumps({"times": times, "validate": checks, "rows": len(load()[1])}))
"""

#: The name of the aggregate eee mode writes: EEE's schema wants a UUID4 file name for the instance file.
EEE_NAME = "e9a70a55-a357-471b-9b11-fa588ec527f9.json"


def bench_eee(items: int, runs: int, eee_python: str) -> int:
    if not Path(eee_python).exists():
        return _no_venv(eee_python, "every_eval_ever")
    with tempfile.TemporaryDirectory(prefix="sk-bench-eee-") as tmp:
        aggregate = write_eee(Path(tmp) / EEE_NAME, items)
        lines = sum(1 for _ in aggregate.with_name(f"{aggregate.stem}_samples.jsonl").open(encoding="utf-8"))
        print(f"Every Eval Ever aggregate with its instance file: {lines:,} instance lines")
        ours = _run(sys.executable, _SCOREKIT, aggregate, runs, "eee")
        theirs = _run(eee_python, _EEE, aggregate, runs)
    _side_by_side(ours, theirs, "every_eval_ever (pydantic models)", lines, runs)
    check = _median(theirs["validate"])
    print(f"{'every_eval_ever validate_file':<34}{check:8.2f} s {check / lines * 1e6:8.1f} µs/item  "
          f"median of {runs} (both files valid)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    formats = sub.add_parser("formats", help="time per item of every format, at two sizes (the default)")
    formats.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    formats.add_argument("--runs", type=int, default=1, help="best of this many imports per file")
    formats.add_argument("--only", nargs="+", choices=list(FORMATS), help="these formats only")
    versus = sub.add_parser("inspect-ai", help="scorekit against inspect_ai's own reader on a log directory")
    versus.add_argument("--dir", type=Path, default=DATA / "inspect")
    versus.add_argument("--runs", type=int, default=5)
    versus.add_argument("--inspect-python", default="/tmp/inspect-venv/bin/python")
    lm_eval = sub.add_parser("lm-eval", help="scorekit against lm-eval's own loading of its results and samples")
    lm_eval.add_argument("--items", type=int, default=100_000, help="sample lines in the generated samples file")
    lm_eval.add_argument("--runs", type=int, default=3)
    lm_eval.add_argument("--lm-eval-python", default="/tmp/lmeval-venv/bin/python")
    eee = sub.add_parser("eee", help="scorekit against every_eval_ever's own models of an aggregate and its lines")
    eee.add_argument("--items", type=int, default=100_000, help="lines in the generated instance file")
    eee.add_argument("--runs", type=int, default=3)
    eee.add_argument("--eee-python", default="/tmp/eee-venv/bin/python")
    args = parser.parse_args(argv)
    if args.command == "eee":
        return bench_eee(args.items, args.runs, args.eee_python)
    if args.command == "lm-eval":
        return bench_lm_eval(args.items, args.runs, args.lm_eval_python)
    if args.command == "inspect-ai":
        return bench_inspect_ai(args.dir, args.runs, args.inspect_python)
    if args.command is None:
        args = formats.parse_args([])
    return bench_formats(args.sizes, args.runs, args.only)


if __name__ == "__main__":
    sys.exit(main())
