"""The bundled example's README (scorekit/examples/email_assistant/README.md) says what its data holds.

Each test reads the numbers and names a sentence of that README states, then
computes them from ``results.jsonl`` (and its evaluation under ``policy.yml``):
a regenerated example that changes a count fails here until the README says so.
"""

from __future__ import annotations

import collections
import functools
import importlib.util
import json
import re
from pathlib import Path

import pytest

import scorekit as sk
from scorekit.scorers.pii import find_pii

EXAMPLE = Path(sk.example_path()).parent
README = EXAMPLE / "README.md"
GENERATOR = Path(__file__).resolve().parents[1] / "tools" / "generate_email_assistant.py"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def _number(text: str) -> int:
    return WORDS[text] if text in WORDS else int(text)


@functools.cache
def _text() -> str:
    return README.read_text(encoding="utf-8")


def _claim(pattern: str) -> re.Match:
    """The README's sentence matching ``pattern`` (one line); fails naming the pattern when absent."""
    match = re.search(pattern, _text())
    assert match, f"README.md no longer states: {pattern}"
    return match


@functools.cache
def _rows() -> tuple[dict, ...]:
    lines = (EXAMPLE / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def _is_control(row: dict) -> bool:
    return bool({"known-bad", "negative-example"} & set(row.get("tags") or []))


def _agent_rows() -> list[dict]:
    return [r for r in _rows() if not _is_control(r)]


@functools.cache
def _card():
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


def _trials(dimension: str, case: str) -> dict[int, str]:
    """{trial: scored status} of one case on one dimension."""
    ev = _card().evidence
    rows = ev[(ev["dimension"] == dimension) & (ev["case_id"] == case) & ~ev["control"]]
    assert len(rows), (dimension, case)
    return dict(zip(rows["trial"].astype(int), rows["status"].astype(str), strict=True))


# --------------------------------------------------------------------------- the file
def test_raw_agent_and_control_row_counts_are_the_files():
    m = _claim(r"`results\.jsonl` \((\d+) raw rows: (\d+) agent rows and (\d+) known-bad control rows\)")
    raw, agent, controls = map(int, m.groups())
    assert raw == len(_rows())
    assert agent == len(_agent_rows())
    assert controls == sum(map(_is_control, _rows()))


def test_dimensions_listed_are_the_files():
    m = _claim(r"\*\*Dimensions \((\d+)\):\*\* (.+)")
    listed = set(re.findall(r"`([a-z_]+)`", m.group(2))) - {"should_refuse"}
    present = {r["dimension"] for r in _agent_rows()}
    assert int(m.group(1)) == len(present) and listed == present


def test_helpfulness_is_judged_by_a_three_judge_panel_scoring_1_to_5_passing_at_4():
    m = _claim(r"judged `helpfulness` \((\w+)-judge panel, scores (\d)-(\d), pass at (\d)\)")
    judges, low, high, pass_at = _number(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
    sizes = collections.Counter(len(r["judge_votes"]) for r in _agent_rows() if r["dimension"] == "helpfulness")
    assert sizes.most_common(1)[0][0] == judges
    scores = {v["score"] for r in _agent_rows() if r["dimension"] == "helpfulness" for v in r["judge_votes"]
              if isinstance(v.get("score"), int)}
    assert scores <= set(range(low, high + 1))
    assert _card().to_dict()["policy"]["judges"]["pass_score"] == pass_at


def test_case_and_trial_counts_are_the_files():
    m = _claim(r"(\d+)-(\d+) cases per dimension, (\d+) \(dimension, case\) pairs over (\d+) distinct case ids")
    low, high, pairs, distinct = map(int, m.groups())
    cases = collections.defaultdict(collections.Counter)  # dimension -> case -> trials
    for row in _agent_rows():
        cases[row["dimension"]][row["case_id"]] += 1
    per_dimension = [len(c) for c in cases.values()]
    assert (min(per_dimension), max(per_dimension)) == (low, high)
    assert sum(per_dimension) == pairs
    assert len({r["case_id"] for r in _agent_rows()}) == distinct
    m = _claim(r"most cases have (\d+) trials, each dimension has one (\d+)-trial case and one (\d+)-trial case")
    usual, short, long = map(int, m.groups())
    all_counts = collections.Counter(n for c in cases.values() for n in c.values())
    assert all_counts.most_common(1)[0][0] == usual
    for dimension, counts in cases.items():
        lengths = collections.Counter(counts.values())
        assert lengths[short] == 1 and lengths[long] == 1, dimension
        assert set(lengths) == {usual, short, long}, dimension


def test_no_row_carries_status_or_evaluator():
    _claim(r"no row carries `status` or `evaluator`")
    assert not any("status" in r or "evaluator" in r for r in _rows())


def test_every_example_row_scores_as_its_generator_planned():
    _claim(r"a test checks that every row scores as planned")
    spec = importlib.util.spec_from_file_location("_generate_email_assistant", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    planned = module.planned_statuses()
    scored = dict(zip(_card().evidence["id"], _card().evidence["status"].astype(str), strict=True))
    assert scored == planned


def test_the_generator_writes_the_file_byte_for_byte():
    _claim(r"byte-identical on re-run")
    spec = importlib.util.spec_from_file_location("_generate_email_assistant", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in module.build_rows())
    assert text == (EXAMPLE / "results.jsonl").read_text(encoding="utf-8")


def _measured_cases_per_run(dimension: str) -> dict[str, set[str]]:
    """{run: cases of ``dimension`` with a measured (PASS/FAIL) trial in it}, controls left out."""
    ev = _card().evidence
    rows = ev[(ev["dimension"] == dimension) & ~ev["control"]]
    runs: dict[str, set[str]] = {run: set() for run in rows["run"].astype(str)}
    measured = rows[rows["status"].isin(["PASS", "FAIL"])]
    for run, case in zip(measured["run"].astype(str), measured["case_id"].astype(str), strict=True):
        runs[run].add(case)
    return runs


def test_every_row_carries_the_run_of_its_trial():
    m = _claim(r"trial t \(counted from 0\) of every case is in `run-\{t\+(\d+)\}`")
    offset = int(m.group(1))
    assert all(r["run"] == f"run-{r['trial'] + offset}" for r in _rows())
    # one pass over the suite measures a case at most once
    seen = collections.Counter((r["dimension"], r["case_id"], r["run"]) for r in _rows())
    assert max(seen.values()) == 1


def test_complete_runs_measure_every_case_of_their_dimension():
    """SPEC §6: a run counts only when it measured every case that any run of the dimension measured."""
    m = _claim(r"On every dimension `run-(\d+)` to `run-(\d+)` are complete runs .* averages (\d+) runs; "
               r"the other (\d+) runs per dimension are incomplete")
    first, last, averaged, incomplete = map(int, m.groups())
    assert last - first + 1 == averaged >= 3
    expected = {f"run-{i}" for i in range(first, last + 1)}
    for dimension in {r["dimension"] for r in _agent_rows()}:
        runs = _measured_cases_per_run(dimension)
        cases = set().union(*runs.values())
        complete = {run for run, measured in runs.items() if measured == cases}
        assert complete == expected, dimension
        assert len(runs) - len(complete) == incomplete, dimension
    _claim(r"Every ERROR and ABSTAIN row sits in an incomplete run")
    ev = _card().evidence
    missing = ev[ev["status"].isin(["ERROR", "ABSTAIN"])]
    assert len(missing) and not set(missing["run"].astype(str)) & expected


def test_the_clustered_interval_is_wider_than_wilson_as_the_readme_states():
    m = _claim(r"on `(\w+)` the design effect is ([\d.]+) and the 95% interval is ([\d.]+)%-([\d.]+)% "
               r"against Wilson's ([\d.]+)%-([\d.]+)%")
    dimension, deff_text = m.group(1), m.group(2)
    ev = _card().evidence
    rows = ev[(ev["dimension"] == dimension) & ~ev["control"] & ev["status"].isin(["PASS", "FAIL"])]
    per_case = rows.groupby("case_id")["status"].agg(c=lambda s: int((s == "PASS").sum()), n="size")
    low, high, deff = sk.cluster_interval(per_case["c"].to_numpy(), per_case["n"].to_numpy())
    w_low, w_high = sk.wilson_interval(int(per_case["c"].sum()), int(per_case["n"].sum()))
    assert f"{deff:.2f}" == deff_text and deff >= 1.5
    assert [f"{100 * v:.1f}" for v in (low, high, w_low, w_high)] == list(m.groups()[2:])
    assert low < w_low and high > w_high


# --------------------------------------------------------------------------- what is wrong in it
def test_the_failing_dimension_and_the_decision_are_the_evaluations():
    m = _claim(r"`(\w+)` is at (\d+)/(\d+) = ([\d.]+)%, below its ([\d.]+) threshold: `([\w-]+)` deletes "
               r"a promotion instead of archiving it in all (\d+) trials\. Expected decision: \*\*(\w+)\*\*")
    dimension, passes, n, pct, threshold, case, trials, decision = m.groups()
    dims = _card().dimensions
    assert (dims.loc[dimension, "passes"], dims.loc[dimension, "n"]) == (int(passes), int(n))
    assert f"{100 * dims.loc[dimension, 'rate']:.1f}" == pct
    assert dims.loc[dimension, "threshold"] == float(threshold) > dims.loc[dimension, "rate"]
    statuses = _trials(dimension, case)
    assert len(statuses) == int(trials) and set(statuses.values()) == {"FAIL"}
    ev = _card().evidence
    assert set(ev[(ev["case_id"] == case) & (ev["dimension"] == dimension)]["reason"]) == {"forbidden_action"}
    assert _card().decision == decision
    assert _card().decision_reasons == [f"dimension FAIL: {dimension}"]


def test_consistent_failures_fail_every_trial_while_their_dimension_passes():
    line = _claim(r"Other consistent failures.*").group(0)
    named = re.findall(r"`([\w-]+)` \(([\w ,]+?):", line)
    assert len(named) == 3
    dims = _card().dimensions
    for case, dimensions in named:
        for dimension in re.split(r",? and |, ", dimensions):
            assert set(_trials(dimension, case).values()) == {"FAIL"}, (case, dimension)
            assert dims.loc[dimension, "rate"] >= dims.loc[dimension, "threshold"], dimension
    m = _claim(r"(\w+) and (\w+) PASS; (\w+) and (\w+) are INCOMPLETE: each has one missing row")
    for dimension in m.groups()[:2]:
        assert dims.loc[dimension, "verdict"] == "PASS", dimension
    for dimension in m.groups()[2:]:
        assert dims.loc[dimension, "verdict"] == "INCOMPLETE" and dims.loc[dimension, "missing_could_flip"], dimension
        assert dims.loc[dimension, "errors"] + dims.loc[dimension, "abstains"] == 1, dimension
    assert len(_trials("latency", "summarise-long-thread")) == int(_claim(r"over its budgets in all (\d+) trials")[1])


def test_flaky_cases_are_the_ones_whose_trials_disagree():
    line = _claim(r"Flaky cases \(the trials disagree\): .*").group(0)
    m = _claim(r"`([\w-]+)` \(tool_call: (\d+) of (\d+) trials")
    statuses = _trials("tool_call", m.group(1))
    assert (list(statuses.values()).count("FAIL"), len(statuses)) == (int(m.group(2)), int(m.group(3)))
    for dimension in ("action_correctness", "task_completion", "helpfulness"):
        m = _claim(rf"`([\w-]+)` \({dimension}: trial (\d+)")
        statuses = _trials(dimension, m.group(1))
        assert [t for t, s in statuses.items() if s != "PASS"] == [int(m.group(2))], dimension
    named = set(re.findall(r"`([\w-]+)` \([a-z_]+:", line))
    flaky = {case for cases in _card().dimensions["flaky_cases"] for case in cases}
    assert flaky == named == {"schedule-budget-review", "forward-invoice-ap", "triage-reply-today",
                              "reply-vendor-delay"}


ERROR_PHRASES = {
    "action rows? ha(?:s|ve) no `observed_state` snapshot": ("action_correctness", "missing_observed_state"),
    "latency rows? ha(?:s|ve) no timing": ("latency", "missing_latency"),
    "cost rows? ha(?:s|ve) no usage or cost record": ("cost", "missing_cost"),
    'helpfulness rows? ha(?:s|ve) a judge score sent as the string `"5"`': ("helpfulness", "judge_invalid_value"),
}


def test_error_rows_are_the_missing_evidence_the_readme_lists():
    total = int(_claim(r"(\d+) ERROR rows \(missing evidence, left out of pass rates\)")[1])
    ev = _card().evidence
    errors = ev[ev["status"] == "ERROR"]
    assert len(errors) == total
    found = collections.Counter(zip(errors["dimension"], errors["reason"], strict=True))
    stated = {}
    for phrase, key in ERROR_PHRASES.items():
        stated[key] = _number(_claim(rf"(\w+) {phrase}")[1])
    assert stated == dict(found)
    helpfulness = next(r for r in _rows() if r["id"] in set(errors[errors["dimension"] == "helpfulness"]["id"]))
    assert "5" in [v.get("score") for v in helpfulness["judge_votes"]]


def test_abstain_rows_are_the_ties_of_the_four_judge_case():
    m = _claim(r"(\d+) ABSTAIN rows: `([\w-]+)` is judged by (\w+) judges, and (\w+) of its trials end in a 2-2 tie")
    total, case, judges, ties = int(m.group(1)), m.group(2), _number(m.group(3)), _number(m.group(4))
    ev = _card().evidence
    abstains = ev[ev["status"] == "ABSTAIN"]
    assert len(abstains) == total == ties and set(abstains["case_id"]) == {case}
    assert set(abstains["reason"]) == {"panel_tie"}
    assert {len(r["judge_votes"]) for r in _rows() if r["case_id"] == case} == {judges}


def test_pii_and_injection_pass_on_inputs_that_hold_pii_and_canaries():
    m = _claim(r"`pii` and `injection` pass 100% \((\d+)/(\d+) each\)")
    dims = _card().dimensions
    for dimension in ("pii", "injection"):
        assert (dims.loc[dimension, "passes"], dims.loc[dimension, "n"]) == (int(m.group(1)), int(m.group(2)))
    _claim(r"Their inputs contain real-format PII and canaries, and the outputs contain none of them")
    for row in _agent_rows():
        if row["dimension"] == "pii":
            assert find_pii(json.dumps(row["input"], ensure_ascii=False)), row["id"]
            assert not find_pii(row["agent_output"]), row["id"]
        if row["dimension"] == "injection":
            assert row["canary"] in json.dumps([row.get("input"), row.get("context")], ensure_ascii=False)
            assert row["canary"].lower() not in row["agent_output"].lower()


def test_evaluator_controls_are_caught_and_kept_out_of_the_pii_rate():
    m = _claim(r"(\d+) evaluator controls: known-bad `(\w+)` rows whose outputs leak (.+?)\. The PII detector")
    controls = [r for r in _rows() if _is_control(r)]
    assert len(controls) == int(m.group(1)) and {r["dimension"] for r in controls} == {m.group(2)}
    kinds = sorted(sorted(kind for kind, _ in find_pii(r["agent_output"])) for r in controls)
    assert kinds == [["credit_card", "ssn"], ["email", "phone"]]
    result = _card().controls
    assert len(result) == len(controls) and all(c["passed"] and c["status"] == "FAIL" for c in result)
    assert _card().dimensions.loc["pii", "n"] == sum(1 for r in _agent_rows() if r["dimension"] == "pii")


def test_main_readme_describes_the_example_as_its_data_is():
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    m = re.search(r"\((\d+) raw rows, (\w+) dimensions,\s+repeated trials, (\w+) known-bad evaluator controls\)", text)
    assert m, "README.md no longer describes the bundled example's size"
    assert int(m.group(1)) == len(_rows())
    assert _number(m.group(2)) == len({r["dimension"] for r in _agent_rows()})
    assert _number(m.group(3)) == sum(map(_is_control, _rows()))


@pytest.mark.parametrize("phrase", ["523 rows", "every row carries `status`"])
def test_stale_claims_are_gone(phrase):
    assert phrase not in _text()
