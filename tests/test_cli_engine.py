"""``scorekit run`` / ``scorekit validate`` on the malformed-input corpus (SPEC §5, §14; issue 3 acceptance).

Every command runs as a real process (``python -m scorekit``) from inside
``tests/data/malformed`` so problems read ``file:line: field: message`` with the
corpus file names. The commands are independent, so they run concurrently once
per module and the tests read their results.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

import scorekit as sk

MALFORMED = Path(__file__).parent / "data" / "malformed"
ROOT = Path(__file__).resolve().parents[1]
PROBLEM = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<field>[^:]+): (?P<message>.+)$")

# Row-level files: the expected (line, field) of every problem. Each also holds the
# three clean rows of clean.jsonl (ok1, ok2, ok3).
ROW_LEVEL = {
    "bad_json_line.jsonl": [(2, "row"), (4, "row"), (5, "row")],
    "not_object.jsonl": [(2, "row"), (3, "row"), (5, "row"), (6, "row")],
    "wrong_types.jsonl": [(2, "evaluator"), (3, "trial"), (5, "must_include"), (6, "agent_output"), (7, "tags")],
    "nan_infinity.jsonl": [(2, "cost_usd"), (3, "latency_ms"), (5, "input.x"), (6, "cost_usd")],
    "duplicate_ids.jsonl": [(2, "id"), (4, "id"), (6, "id")],  # every row sharing the id
    "unknown_status.jsonl": [(2, "status"), (3, "status"), (5, "status")],
    "unknown_match.jsonl": [(2, "match"), (4, "match")],
    "huge_numbers.jsonl": [(2, "trial"), (4, "input.account"), (5, "usage.tokens")],
}
FILE_LEVEL = ["empty.jsonl", "whitespace.jsonl", "latin1.jsonl", "yaml_not_jsonl.jsonl", "csv_text.jsonl",
              "no_such_file.jsonl", str(MALFORMED)]
BAD_POLICIES = ["unknown_key.yml", "strict_off.yml", "bad_yaml.yml", "no_such_policy.yml"]
# validate under an exploratory policy still exits 1 for invalid rows (checked on a few files).
EXPLORATORY_VALIDATE = ("bad_json_line.jsonl", "duplicate_ids.jsonl", "nan_infinity.jsonl")


@dataclass(frozen=True)
class Result:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    out_dir: Path | None

    def scorecard(self) -> dict:
        assert self.out_dir is not None
        return json.loads((self.out_dir / "scorecard.json").read_text(encoding="utf-8"))

    def problems(self) -> list[re.Match]:
        return [m for m in map(PROBLEM.match, self.stdout.splitlines()) if m]


def _exec(args: tuple[str, ...], out_dir: Path | None) -> Result:
    argv = [sys.executable, "-m", "scorekit", *args]
    if out_dir is not None:
        argv += ["--out-dir", str(out_dir)]
    # The process runs in the corpus folder: make it import the scorekit these tests import.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(argv, cwd=MALFORMED, capture_output=True, text=True, timeout=120, env=env)
    return Result(args, proc.returncode, proc.stdout, proc.stderr, out_dir)


def _commands() -> list[tuple[tuple[str, ...], bool]]:
    """(args, writes reports) of every command the tests below read."""
    cmds: list[tuple[tuple[str, ...], bool]] = []
    for name in [*ROW_LEVEL, "clean.jsonl", "bom_crlf.jsonl", "unlabeled.jsonl"]:
        cmds.append((("validate", name, "--policy", "release.yml"), False))
        cmds.append((("run", "--results", name, "--policy", "release.yml", "--gate"), True))
        if name not in ("clean.jsonl", "bom_crlf.jsonl"):
            cmds.append((("run", "--results", name, "--policy", "exploratory.yml"), True))
    for name in (*EXPLORATORY_VALIDATE, "unlabeled.jsonl"):
        cmds.append((("validate", name, "--policy", "exploratory.yml"), False))
    cmds.append((("validate", "all_bad.jsonl", "--policy", "release.yml"), False))
    cmds.append((("run", "--results", "all_bad.jsonl", "--policy", "release.yml", "--gate"), True))
    cmds.append((("validate", "unlabeled.jsonl"), False))
    cmds.append((("validate", "unlabeled.jsonl", "--policy", "exploratory.yml", "--strict"), False))
    for name in FILE_LEVEL:
        cmds.append((("validate", name), False))
        cmds.append((("run", "--results", name, "--gate"), True))
    for policy in BAD_POLICIES:
        cmds.append((("run", "--results", "clean.jsonl", "--policy", policy), True))
    for policy in BAD_POLICIES[::2]:
        cmds.append((("validate", "clean.jsonl", "--policy", policy), False))
    cmds.append((("run", "--results", "clean.jsonl", "--policy", "release.yml", "--limit", "2", "--gate"), True))
    cmds.append((("run", "--results", "clean.jsonl", "--policy", "release.yml", "--limit", "2"), True))
    cmds.append((("run", "--results", "clean.jsonl", "--policy", "release.yml", "--gate",
                  "--agent-name", "mail-bot", "--agent-version", "2.0.1"), True))
    return cmds


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[tuple[str, ...], Result]:
    base = tmp_path_factory.mktemp("cli-engine")
    jobs = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        for i, (args, writes) in enumerate(_commands()):
            out_dir = base / f"out{i}" if writes else None
            jobs.append(pool.submit(_exec, args, out_dir))
        done = [job.result() for job in jobs]
    return {r.args: r for r in done}


def _no_traceback(result: Result) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout


def _one_line_error(result: Result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


# =========================================================================== row-level problems
@pytest.mark.parametrize("name", sorted(ROW_LEVEL))
def test_validate_lists_every_row_problem_as_file_line_field_message(results, name):
    r = results[("validate", name, "--policy", "release.yml")]
    _no_traceback(r)
    assert r.code == 1
    expected = ROW_LEVEL[name]
    n_invalid = len({line for line, _ in expected})
    first = r.stdout.splitlines()[0]
    assert f"3 labeled, 0 unlabeled, {n_invalid} invalid" in first
    found = [(int(m["line"]), m["field"]) for m in r.problems()]
    assert found == expected
    for m in r.problems():
        assert m["file"] == name
        assert m["message"].strip()


@pytest.mark.parametrize("name", sorted(ROW_LEVEL))
def test_row_problems_make_release_incomplete_and_gate_exit_1(results, name):
    r = results[("run", "--results", name, "--policy", "release.yml", "--gate")]
    _no_traceback(r)
    assert r.code == 1
    card = r.scorecard()
    assert card["decision"] == "INCOMPLETE"
    assert card["overall_pass"] is False
    v = card["validation"]
    assert v["strict"] is True
    assert v["invalid"] == len({line for line, _ in ROW_LEVEL[name]})
    texts = [p["text"] for p in v["problems"]]
    assert [(int(PROBLEM.match(t)["line"]), PROBLEM.match(t)["field"]) for t in texts] == ROW_LEVEL[name]
    assert all(t.startswith(f"{name}:") for t in texts)
    # The clean rows were still scored.
    assert any(d["name"] == "helpfulness" and d["passes"] >= 2 for d in card["dimensions"])


@pytest.mark.parametrize("name", sorted(ROW_LEVEL))
def test_row_problems_under_exploratory_policy_are_dropped_listed_and_triage(results, name):
    r = results[("run", "--results", name, "--policy", "exploratory.yml")]
    _no_traceback(r)
    assert r.code == 0
    card = r.scorecard()
    assert card["decision"] == "TRIAGE"
    assert card["overall_pass"] is False
    assert card["validation"]["strict"] is False
    assert len(card["validation"]["problems"]) == len(ROW_LEVEL[name])
    helpfulness = next(d for d in card["dimensions"] if d["name"] == "helpfulness")
    assert (helpfulness["n"], helpfulness["passes"], helpfulness["errors"]) == (2, 2, 0)
    if name in EXPLORATORY_VALIDATE:
        v = results[("validate", name, "--policy", "exploratory.yml")]
        _no_traceback(v)
        assert v.code == 1  # invalid rows exist whatever the purpose


# =========================================================================== clean files, BOM, unlabeled
@pytest.mark.parametrize("name", ["clean.jsonl", "bom_crlf.jsonl"])
def test_clean_file_passes_and_a_utf8_bom_is_accepted(results, name):
    r = results[("run", "--results", name, "--policy", "release.yml", "--gate")]
    _no_traceback(r)
    assert r.code == 0, r.stderr
    assert r.scorecard()["decision"] == "PASS"
    v = results[("validate", name, "--policy", "release.yml")]
    assert v.code == 0
    assert "3 labeled, 0 unlabeled, 0 invalid" in v.stdout
    assert v.problems() == []


def test_unlabeled_rows_fail_validate_under_release_or_strict_only(results):
    release = results[("validate", "unlabeled.jsonl", "--policy", "release.yml")]
    default = results[("validate", "unlabeled.jsonl")]
    exploratory = results[("validate", "unlabeled.jsonl", "--policy", "exploratory.yml")]
    strict = results[("validate", "unlabeled.jsonl", "--policy", "exploratory.yml", "--strict")]
    for r in (release, default, exploratory, strict):
        _no_traceback(r)
        assert "3 labeled, 2 unlabeled, 0 invalid" in r.stdout
        assert [(int(m["line"]), m["field"]) for m in r.problems()] == [(2, "must_include"), (4, "tool_schemas")]
    assert release.code == 1
    assert default.code == 1  # the default purpose is release: strict
    assert strict.code == 1
    assert exploratory.code == 0
    gate = results[("run", "--results", "unlabeled.jsonl", "--policy", "release.yml", "--gate")]
    assert gate.code == 1 and gate.scorecard()["decision"] == "INCOMPLETE"
    scan = results[("run", "--results", "unlabeled.jsonl", "--policy", "exploratory.yml")]
    assert scan.code == 0 and scan.scorecard()["decision"] == "TRIAGE"


# =========================================================================== file-level problems
@pytest.mark.parametrize("name", FILE_LEVEL, ids=lambda n: Path(n).name if "/" in n else n)
def test_unreadable_results_file_is_exit_2_with_one_line(results, name):
    for args in (("validate", name), ("run", "--results", name, "--gate")):
        r = results[args]
        _no_traceback(r)
        assert r.code == 2, (args, r.stdout, r.stderr)
        line = _one_line_error(r)
        assert line.startswith(f"scorekit {args[0]}: ")
        assert Path(name).name in line
    # No scorecard for an input error.
    run = results[("run", "--results", name, "--gate")]
    assert not (run.out_dir / "scorecard.json").exists()


@pytest.mark.parametrize("policy", BAD_POLICIES)
def test_bad_policy_is_exit_2_with_one_line(results, policy):
    for args in (
        ("validate", "clean.jsonl", "--policy", policy),
        ("run", "--results", "clean.jsonl", "--policy", policy),
    ):
        if args not in results:
            continue
        r = results[args]
        _no_traceback(r)
        assert r.code == 2, (args, r.stdout, r.stderr)
        line = _one_line_error(r)
        assert policy in line


def test_bad_policy_messages_name_the_key_or_the_line(results):
    unknown = _one_line_error(results[("run", "--results", "clean.jsonl", "--policy", "unknown_key.yml")])
    assert "gate.strict" in unknown and "unknown key" in unknown
    strict = _one_line_error(results[("run", "--results", "clean.jsonl", "--policy", "strict_off.yml")])
    assert "strict" in strict and "unknown key" in strict
    yaml_error = _one_line_error(results[("run", "--results", "clean.jsonl", "--policy", "bad_yaml.yml")])
    assert re.search(r"bad_yaml\.yml:\d+: invalid YAML", yaml_error)


# =========================================================================== run output
def test_limit_is_a_partial_scan_triage(results):
    gated = results[("run", "--results", "clean.jsonl", "--policy", "release.yml", "--limit", "2", "--gate")]
    plain = results[("run", "--results", "clean.jsonl", "--policy", "release.yml", "--limit", "2")]
    for r in (gated, plain):
        _no_traceback(r)
        card = r.scorecard()
        assert card["decision"] == "TRIAGE" and card["overall_pass"] is False
        assert sum(d["n"] + d["errors"] + d["abstains"] for d in card["dimensions"]) == 2
    assert gated.code == 1
    assert plain.code == 0


def test_run_scorecard_json_equals_the_library_scorecard(results, monkeypatch):
    r = results[("run", "--results", "clean.jsonl", "--policy", "release.yml", "--gate",
                 "--agent-name", "mail-bot", "--agent-version", "2.0.1")]
    _no_traceback(r)
    assert r.code == 0
    assert "decision: PASS" in r.stdout
    written = r.scorecard()
    monkeypatch.chdir(MALFORMED)
    card = sk.evaluate("clean.jsonl", policy="release.yml", agent_name="mail-bot", agent_version="2.0.1")
    expected = card.to_dict()
    written.pop("generated_at")
    expected.pop("generated_at")
    assert written == expected
    assert written["agent"] == {"name": "mail-bot", "version": "2.0.1"}


@pytest.mark.parametrize("name", sorted(ROW_LEVEL))
def test_run_scorecard_for_malformed_rows_equals_the_library(results, monkeypatch, name):
    r = results[("run", "--results", name, "--policy", "release.yml", "--gate")]
    monkeypatch.chdir(MALFORMED)
    expected = sk.evaluate(name, policy="release.yml").to_dict()
    written = r.scorecard()
    written.pop("generated_at")
    expected.pop("generated_at")
    assert written == expected


def test_run_prints_a_summary_with_the_decision(results):
    r = results[("run", "--results", "bad_json_line.jsonl", "--policy", "release.yml", "--gate")]
    assert "decision: INCOMPLETE" in r.stdout
    assert "gate: not passed" in r.stderr
    assert "scorecard.json" in r.stdout


def test_file_of_only_invalid_rows_with_a_dimension_in_scope(results):
    v = results[("validate", "all_bad.jsonl", "--policy", "release.yml")]
    _no_traceback(v)
    assert v.code == 1
    assert "0 labeled, 0 unlabeled, 2 invalid" in v.stdout
    assert [(int(m["line"]), m["field"]) for m in v.problems()] == [(1, "row"), (2, "row")]
    r = results[("run", "--results", "all_bad.jsonl", "--policy", "release.yml", "--gate")]
    _no_traceback(r)
    assert r.code == 1
    assert r.scorecard()["decision"] == "INCOMPLETE"


# =========================================================================== regressions of bugs found by this campaign
# (rows without a string id, files of only invalid rows: both crashed with a traceback)
def _run_now(tmp_path, *args):
    return _exec(tuple(args), None if args[0] == "validate" else tmp_path / "out")


def test_rows_without_a_string_id_are_invalid_not_a_traceback(tmp_path):
    r = _run_now(tmp_path, "run", "--results", "missing_id.jsonl", "--policy", "release.yml", "--gate")
    _no_traceback(r)
    assert r.code == 1
    assert r.scorecard()["decision"] == "INCOMPLETE"
    v = _run_now(tmp_path, "validate", "missing_id.jsonl", "--policy", "release.yml")
    _no_traceback(v)
    assert v.code == 1
    assert [(int(m["line"]), m["field"]) for m in v.problems()] == [(2, "id"), (4, "id")]


@pytest.mark.parametrize("policy", [(), ("--policy", "exploratory_bare.yml")], ids=["default-release", "exploratory"])
def test_file_of_only_invalid_rows_is_reported_not_a_traceback(tmp_path, policy):
    # No policy threshold names a dimension, so nothing is in scope: that is what crashes.
    v = _run_now(tmp_path, "validate", "all_bad.jsonl", *policy)
    _no_traceback(v)
    assert v.code == 1
    assert [(int(m["line"]), m["field"]) for m in v.problems()] == [(1, "row"), (2, "row")]
    r = _run_now(tmp_path, "run", "--results", "all_bad.jsonl", *policy)
    _no_traceback(r)
    assert r.scorecard()["decision"] == ("TRIAGE" if policy else "INCOMPLETE")


def test_nan_problem_message_names_nan():
    problems = sk.evaluate(
        str(MALFORMED / "nan_infinity.jsonl"), policy=str(MALFORMED / "release.yml")
    ).validation.problems
    nan = next(p for p in problems if p.line == 2)
    assert "finite" in nan.message or "NaN" in nan.message


def _buffered_env() -> dict[str, str]:
    """The environment without PYTHONUNBUFFERED: output stays in Python's buffer until flushed."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def test_run_leaves_fast_with_its_output_complete(tmp_path):
    """The console script skips the interpreter's teardown after `run`: output and files are complete."""
    import scorekit as sk

    out, printed = tmp_path / "out", tmp_path / "stdout.txt"
    with printed.open("w") as stdout:  # a file, not a pipe or a terminal: fully buffered
        code = subprocess.run([sys.executable, "-m", "scorekit", "run", "--results", str(sk.example_path()),
                               "--policy", str(sk.example_path(file="policy.yml")), "--out-dir", str(out), "--gate"],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120, env=_buffered_env()
                              ).returncode
    text = printed.read_text(encoding="utf-8")
    assert code == 1 and text.startswith("decision: FAIL") and text.rstrip().endswith("evidence.parquet")
    assert json.loads((out / "scorecard.json").read_text(encoding="utf-8"))["decision"] == "FAIL"
    assert {p.name for p in out.iterdir()} >= {"scorecard.json", "scorecard.md", "scorecard.html", "evidence.parquet"}
    piped = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m scorekit run --results "
                            f"{sk.example_path()} --out-dir {tmp_path / 'again'} | head -1"],
                           capture_output=True, text=True, timeout=120, env=_buffered_env())
    assert piped.returncode == 0 and piped.stdout.startswith("decision:") and "Traceback" not in piped.stderr


def test_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    import scorekit as sk

    # A file-size limit of 0 blocks: every write to stdout fails (EFBIG).
    proc = subprocess.run(["bash", "-c", f"trap '' XFSZ; ulimit -f 0; {sys.executable} -m scorekit validate "
                           f"{sk.example_path()} > {tmp_path / 'out.txt'}"],
                          capture_output=True, text=True, timeout=120, env=_buffered_env())
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "cannot write the output" in proc.stderr
