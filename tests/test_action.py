"""scorekit's GitHub Action (SPEC §19): ``action.yml`` and its step ``python -m scorekit._action``.

The step runs in a subprocess as the runner would run it: a fake ``GITHUB_*``
environment (an event file, the job summary and output files, the repository)
and, first on PATH, a fake ``gh`` — a small script that answers ``gh api`` like
GitHub's REST API (list with pages, create, update; comments kept in a JSON file).
Nothing of scorekit is mocked: the rows are scored, the reports written, the
scorecard read back. ``gh`` is the only stand-in, for the network's edge.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

import scorekit as sk
from scorekit._action import MARKER, output_lines

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / ".github" / "workflows" / "scorekit-action.yml"
REPOSITORY = "acme/agent"

#: SPEC §19's inputs (with the defaults it states) and outputs, written down here, not read from the action.
SPEC_INPUTS = {"results", "from", "policy", "history", "baseline", "agent-name", "agent-version", "gate",
               "comment", "python-version"}
SPEC_OUTPUTS = {"decision", "overall-pass", "scorecard"}

FAKE_GH = r'''
import json, os, re, sys

store = os.environ["FAKE_GH_STORE"]
with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(sys.argv[1:]) + "\n")
if os.environ.get("FAKE_GH_FAIL"):
    sys.stderr.write("error connecting to api.github.com\n")
    sys.exit(1)
args = sys.argv[1:]
assert args[0] == "api", args
method, paginate, body, path = "GET", False, None, None
i = 1
while i < len(args):
    a = args[i]
    if a == "--method":
        method = args[i + 1]; i += 2; continue
    if a == "--paginate":
        paginate = True; i += 1; continue
    if a == "--input":
        assert args[i + 1] == "-"; body = json.loads(sys.stdin.read()); i += 2; continue
    assert not a.startswith("-"), a
    path = a; i += 1
state = json.load(open(store, encoding="utf-8")) if os.path.exists(store) else {"next": 100, "comments": []}

def save():
    json.dump(state, open(store, "w", encoding="utf-8"))

listed = re.fullmatch(r"repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
edited = re.fullmatch(r"repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
if listed and method == "GET":
    mine = [c for c in state["comments"] if c["repo"] == listed[1] and c["issue"] == int(listed[2])]
    pages = [mine[k:k + 2] for k in range(0, len(mine), 2)] or [[]]  # two per page, like per_page=2
    out = pages if paginate else pages[:1]
    sys.stdout.write("".join(json.dumps([{"id": c["id"], "body": c["body"], "user": {"login": c["user"]}}
                                         for c in page]) for page in out))
elif listed and method == "POST":
    comment = {"id": state["next"], "repo": listed[1], "issue": int(listed[2]), "body": body["body"],
               "user": "github-actions[bot]"}
    state["next"] += 1; state["comments"].append(comment); save()
    print(json.dumps({"id": comment["id"], "body": comment["body"]}))
elif edited and method == "PATCH":
    found = [c for c in state["comments"] if c["repo"] == edited[1] and c["id"] == int(edited[2])]
    if not found:
        sys.stderr.write("gh: Not Found (HTTP 404)\n"); sys.exit(1)
    found[0]["body"] = body["body"]; save()
    print(json.dumps({"id": found[0]["id"], "body": found[0]["body"]}))
else:
    sys.stderr.write(f"gh: unexpected {method} {path}\n"); sys.exit(1)
'''


# --------------------------------------------------------------------------- the fake runner
class Runner:
    """One job's fake GitHub environment in ``tmp``: event, summary, outputs, and a fake ``gh``."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.work = tmp / "work"
        self.work.mkdir()
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        gh = bin_dir / "gh"
        gh.write_text(f"#!{sys.executable}\n{FAKE_GH}", encoding="utf-8")
        gh.chmod(0o755)
        self.bin = bin_dir
        self.store, self.log = tmp / "comments.json", tmp / "gh.log"
        self.summary, self.output = tmp / "summary.md", tmp / "output.txt"
        self.summary.write_text("earlier step\n", encoding="utf-8")
        self.event = tmp / "event.json"
        self.pull_request(7)

    def pull_request(self, number: int) -> None:
        self.event.write_text(json.dumps({"action": "synchronize", "number": number,
                                          "pull_request": {"number": number, "title": "x"}}), encoding="utf-8")

    def push(self) -> None:
        self.event.write_text(json.dumps({"ref": "refs/heads/main", "commits": []}), encoding="utf-8")

    def run(self, **inputs: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "FAKE_GH"))}
        env.update({
            "PATH": os.pathsep.join([str(self.bin), env.get("PATH", "")]),
            "PYTHONPATH": os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]),
            "GITHUB_EVENT_PATH": str(self.event), "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_OUTPUT": str(self.output), "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_ACTIONS": "true",
            "FAKE_GH_STORE": str(self.store), "FAKE_GH_LOG": str(self.log),
        })
        for name, value in inputs.items():
            if name == "fail_gh":
                env["FAKE_GH_FAIL"] = value
            elif name == "comment_author":
                env["SCOREKIT_COMMENT_AUTHOR"] = value
            elif name == "no_gh":  # no gh anywhere on PATH
                (self.tmp / "empty").mkdir(exist_ok=True)
                env["PATH"] = str(self.tmp / "empty")
            else:
                env[f"INPUT_{name.upper()}"] = value
        return subprocess.run([sys.executable, "-m", "scorekit._action"], cwd=self.work, env=env,
                              capture_output=True, text=True, encoding="utf-8", timeout=300, check=False)

    def comments(self) -> list[dict]:
        if not self.store.exists():
            return []
        return json.loads(self.store.read_text(encoding="utf-8"))["comments"]

    def gh_calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def outputs(self) -> dict[str, str]:
        return parse_github_output(self.output.read_text(encoding="utf-8"))


def parse_github_output(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` read as the runner reads it: ``name=value`` lines and ``name<<DELIM`` blocks."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line:
            i += 1
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1:end])
            i = end + 1
        else:
            name, value = line.split("=", 1)
            outputs[name] = value
            i += 1
    return outputs


def _rows_file(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def runner(tmp_path) -> Runner:
    return Runner(tmp_path)


@pytest.fixture
def passing(tmp_path) -> tuple[Path, Path]:
    """40 task_completion rows that include what they must: PASS under a policy requiring only that dimension."""
    rows = [{"id": f"t{i}", "dimension": "task_completion", "case_id": f"case-{i}", "agent_output": "done",
             "must_include": ["done"]} for i in range(40)]
    results = _rows_file(tmp_path / "results.jsonl", rows)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"gate": {"required_dimensions": ["task_completion"]}}), encoding="utf-8")
    return results, policy


EXAMPLE, EXAMPLE_POLICY = str(sk.example_path()), str(sk.example_path(file="policy.yml"))


# --------------------------------------------------------------------------- runs
def test_a_passing_run_comments_once_then_updates_that_comment(runner, passing):
    results, policy = passing
    first = runner.run(results=str(results), policy=str(policy), agent_name="mail", agent_version="1.0")
    assert first.returncode == 0, first.stderr
    comments = runner.comments()
    assert len(comments) == 1 and comments[0]["issue"] == 7 and comments[0]["repo"] == REPOSITORY
    body = comments[0]["body"]
    assert body.startswith(MARKER + "\n")
    assert "**Decision: PASS**" in body and "| task\\_completion | **PASS** |" in body
    assert "created comment 100 on pull request #7" in first.stdout

    outputs = runner.outputs()
    scorecard = Path(outputs["scorecard"])
    assert outputs["decision"] == "PASS" and outputs["overall-pass"] == "true"
    assert scorecard.is_absolute() and scorecard == runner.work / "scorekit-reports" / "scorecard.json"
    assert json.loads(scorecard.read_text(encoding="utf-8"))["decision"] == "PASS"
    summary = runner.summary.read_text(encoding="utf-8")
    assert summary.startswith("earlier step\n\n# scorekit run") and "**Decision: PASS**" in summary
    cases = {c.get("name"): c for c in ET.parse(runner.work / "scorekit-reports" / "junit.xml").getroot().iter(
        "testcase")}
    assert set(cases) == {"task_completion"} and cases["task_completion"].find("failure") is None

    runner.pull_request(7)
    second = runner.run(results=str(results), policy=str(policy), agent_name="mail", agent_version="2.0")
    assert second.returncode == 0, second.stderr
    after = runner.comments()
    assert [c["id"] for c in after] == [100], "the second run adds no comment"
    assert after[0]["body"].startswith(MARKER) and after[0]["body"] != body  # the new version is named
    assert "2\\.0" in after[0]["body"] or "2.0" in after[0]["body"]
    assert "updated comment 100 on pull request #7" in second.stdout
    methods = [call[call.index("--method") + 1] if "--method" in call else "GET" for call in runner.gh_calls()]
    assert methods == ["GET", "POST", "GET", "PATCH"]
    assert runner.summary.read_text(encoding="utf-8").count("# scorekit run") == 2  # appended, never overwritten


def test_with_a_history_the_comment_carries_the_comparison(runner, passing):
    results, policy = passing
    history = str(runner.tmp / "history.sqlite")
    first = runner.run(results=str(results), policy=str(policy), history=history, agent_version="1")
    assert first.returncode == 0, first.stderr
    assert "| task\\_completion | ok |" not in runner.comments()[0]["body"]  # nothing to compare with yet
    second = runner.run(results=str(results), policy=str(policy), history=history, agent_version="2")
    assert second.returncode == 0, second.stderr
    [comment] = runner.comments()
    body = comment["body"]
    assert "## Comparison with the baseline" in body and "- baseline: record 1" in body
    assert "| task\\_completion | ok |" in body and "40 shared" in body


def test_only_the_marked_comment_is_updated_among_many(runner, passing):
    """Other people's comments (over several pages) stay as they are; the marked one is found on page 2."""
    results, policy = passing
    runner.store.write_text(json.dumps({"next": 10, "comments": [
        {"id": 1, "repo": REPOSITORY, "issue": 7, "body": "LGTM", "user": "alice"},
        {"id": 2, "repo": REPOSITORY, "issue": 7, "body": "quoting: " + MARKER, "user": "bob"},
        {"id": 3, "repo": REPOSITORY, "issue": 7, "body": MARKER + "\nold", "user": "github-actions[bot]"},
        {"id": 4, "repo": REPOSITORY, "issue": 8, "body": MARKER + "\nanother PR", "user": "github-actions[bot]"},
    ]}), encoding="utf-8")
    done = runner.run(results=str(results), policy=str(policy))
    assert done.returncode == 0, done.stderr
    bodies = {c["id"]: c["body"] for c in runner.comments()}
    assert set(bodies) == {1, 2, 3, 4}
    assert bodies[1] == "LGTM" and bodies[2] == "quoting: " + MARKER and bodies[4] == MARKER + "\nanother PR"
    assert bodies[3].startswith(MARKER) and "**Decision: PASS**" in bodies[3]


def test_a_failing_gate_exits_1_and_still_comments_and_sets_outputs(runner):
    done = runner.run(results=EXAMPLE, policy=EXAMPLE_POLICY)
    assert done.returncode == 1, done.stderr
    assert runner.outputs() == {"decision": "FAIL", "overall-pass": "false",
                                "scorecard": str(runner.work / "scorekit-reports" / "scorecard.json")}
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert any("action_correctness FAIL" in line for line in errors)
    [comment] = runner.comments()
    assert "**Decision: FAIL**" in comment["body"] and "| action\\_correctness | **FAIL** |" in comment["body"]
    junit = ET.parse(runner.work / "scorekit-reports" / "junit.xml").getroot()
    failed = {c.get("name") for c in junit.iter("testcase") if c.find("failure") is not None}
    assert failed == {"action_correctness"}
    assert "**Decision: FAIL**" in runner.summary.read_text(encoding="utf-8")


def test_gate_false_reports_the_fail_without_failing_the_step(runner):
    done = runner.run(results=EXAMPLE, policy=EXAMPLE_POLICY, gate="false", comment="false")
    assert done.returncode == 0, done.stderr
    assert runner.outputs()["decision"] == "FAIL"
    assert not [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert "**Decision: FAIL**" in runner.summary.read_text(encoding="utf-8")  # the summary all the same
    assert runner.gh_calls() == [] and runner.comments() == []  # comment: false


def test_a_push_event_makes_no_comment(runner, passing):
    results, policy = passing
    runner.push()
    done = runner.run(results=str(results), policy=str(policy))
    assert done.returncode == 0, done.stderr
    assert runner.gh_calls() == [] and runner.comments() == []
    assert runner.outputs()["decision"] == "PASS"


def test_a_gh_failure_is_a_warning_and_keeps_the_gates_status(runner):
    done = runner.run(results=EXAMPLE, policy=EXAMPLE_POLICY, fail_gh="1")
    assert done.returncode == 1, done.stderr  # the gate's own verdict, not gh's
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1 and "comment was not written" in warnings[0]
    assert "error connecting to api.github.com" in warnings[0]
    assert runner.outputs()["decision"] == "FAIL"


def test_without_gh_the_comment_is_a_warning(runner, passing):
    results, policy = passing
    done = runner.run(results=str(results), policy=str(policy), no_gh="1")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1 and "gh (the GitHub CLI) is not on PATH" in warnings[0]
    assert runner.outputs()["decision"] == "PASS"


def test_could_not_run_is_exit_2_and_the_comment_says_so(runner, passing, tmp_path):
    results, policy = passing
    runner.run(results=str(results), policy=str(policy))  # a PASS comment first
    done = runner.run(results=str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2
    assert "missing.jsonl" in done.stderr and "Traceback" not in done.stderr
    [comment] = runner.comments()
    assert "could not run (exit 2)" in comment["body"] and "PASS" not in comment["body"]
    assert runner.outputs() == {"decision": "", "overall-pass": "false", "scorecard": ""}


@pytest.mark.parametrize(("inputs", "words"), [
    ({}, "input results: required"),
    ({"gate": "maybe"}, "input gate: expected true or false"),
])
def test_a_bad_input_is_exit_2_in_one_line(runner, passing, inputs, words):
    results, policy = passing
    runner.run(results=str(results), policy=str(policy))  # a PASS comment first
    given = {"results": str(results), **inputs} if inputs else {}
    done = runner.run(**given)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scorekit action: ") and words in lines[0]
    [comment] = runner.comments()  # the earlier PASS does not stay on the pull request
    assert "could not run (exit 2)" in comment["body"] and "PASS" not in comment["body"]


def test_a_bad_comment_input_is_exit_2_and_calls_no_gh(runner, passing):
    results, _ = passing
    done = runner.run(results=str(results), comment="sometimes")
    assert done.returncode == 2 and "input comment: expected true or false" in done.stderr
    assert runner.gh_calls() == []


def test_a_marked_comment_by_someone_else_is_never_taken_over(runner, passing):
    """Anyone can start a comment with the marker; updating theirs would let them edit the evidence later."""
    results, policy = passing
    forged = MARKER + "\n**Decision: PASS** (forged)"
    runner.store.write_text(json.dumps({"next": 10, "comments": [
        {"id": 1, "repo": REPOSITORY, "issue": 7, "body": forged, "user": "mallory"},
        {"id": 2, "repo": REPOSITORY, "issue": 7, "body": MARKER + "\nold", "user": "release-bot"},
    ]}), encoding="utf-8")
    assert runner.run(results=str(results), policy=str(policy)).returncode == 0
    bodies = {c["id"]: (c["user"], c["body"]) for c in runner.comments()}
    assert bodies[1] == ("mallory", forged) and bodies[2] == ("release-bot", MARKER + "\nold")
    assert set(bodies) == {1, 2, 10} and bodies[10][0] == "github-actions[bot]"  # its own, created
    # With another token, its account is named: that account's marked comment is the one updated.
    assert runner.run(results=str(results), policy=str(policy), comment_author="release-bot").returncode == 0
    bodies = {c["id"]: (c["user"], c["body"]) for c in runner.comments()}
    assert bodies[1] == ("mallory", forged) and "**Decision: PASS**" in bodies[2][1] and len(bodies) == 3


def test_a_value_starting_with_a_dash_stays_a_value(runner, passing):
    """``--agent-name=-x``: an input is never read as an option of scorekit run."""
    results, policy = passing
    done = runner.run(results=str(results), policy=str(policy), agent_name="--gate", comment="false")
    assert done.returncode == 0, done.stderr
    data = json.loads(Path(runner.outputs()["scorecard"]).read_text(encoding="utf-8"))
    assert data["agent"]["name"] == "--gate"


# --------------------------------------------------------------------------- hostile evidence
HOSTILE = "x|y\n::error::forged\u2028`tick` <!-- --> @octocat ##[error]z \r::add-mask::m"


def _hostile_rows(text: str) -> list[dict]:
    rows = []
    for case in range(3):
        for trial in range(2):
            rows.append({"id": f"r{case}-{trial}", "dimension": f"dim {text}", "case_id": f"case {case} {text}",
                         "trial": trial, "status": "FAIL" if case == 0 and trial else "PASS",
                         "evaluator": f"e {text}", "reason": f"why {text}" if case == 0 and trial else None})
    return [{k: v for k, v in r.items() if v is not None} for r in rows]


def _hostile_run(runner: Runner, text: str) -> tuple[subprocess.CompletedProcess[str], str]:
    results = _rows_file(runner.tmp / "results.jsonl", _hostile_rows(text))
    policy = runner.tmp / "policy.json"
    policy.write_text(json.dumps({"gate": {"thresholds": {f"dim {text}": 0.99}}}), encoding="utf-8")
    done = runner.run(results=str(results), policy=str(policy), agent_name=f"agent {text}")
    [comment] = runner.comments()
    return done, comment["body"]


def test_hostile_names_cannot_break_the_comment_or_the_log(tmp_path):
    from test_escape import _markdown_tree
    from test_hostile_text import assert_markdown_safe

    (tmp_path / "h").mkdir()
    (tmp_path / "p").mkdir()
    hostile_run, hostile = _hostile_run(Runner(tmp_path / "h"), HOSTILE)
    plain_run, plain = _hostile_run(Runner(tmp_path / "p"), "plain")
    assert hostile_run.returncode == plain_run.returncode == 1, hostile_run.stderr  # the dimension FAILs

    # the comment: one marker, at the start, never closed or reopened by the data; the same Markdown
    # structure (tables with as many cells) as with plain names; no mention.
    assert hostile.startswith(MARKER + "\n")
    assert hostile.count("<!--") == 1 and hostile.count("-->") == 1
    assert "@octocat" not in hostile and "@\u200boctocat" in hostile
    assert_markdown_safe(hostile[len(MARKER) + 1:].replace("\u200b", ""), plain[len(MARKER) + 1:])
    html_blocks = [n for n in _markdown_tree(hostile) if n["type"] == "block_html"]
    assert [n["raw"].strip() for n in html_blocks] == [MARKER]  # the marker alone, closed where it ends
    def cells(body: str) -> list[int]:  # unescaped pipes of each dimension row
        return [len(re.findall(r"(?<!\\)(?:\\\\)*\|", line)) for line in body.split("\n") if line.startswith("| dim ")]

    assert cells(hostile) == cells(plain) and len(cells(plain)) == 1

    # the log: every line starting with "::" is one scorekit wrote, its data escaped
    for stream in (hostile_run.stdout, hostile_run.stderr):
        for line in stream.splitlines():
            if line.lstrip().startswith("::"):
                assert line.startswith(("::error title=scorekit gate", "::warning title=scorekit action")), line
            assert "##[error]" not in line
    assert "\u2028" not in hostile_run.stdout + hostile_run.stderr
    # the outputs file parses into exactly the three outputs
    assert set(parse_github_output((tmp_path / "h" / "output.txt").read_text(encoding="utf-8"))) == SPEC_OUTPUTS


def test_an_output_value_cannot_forge_another_output():
    forged = "FAIL\nscorekit_x\noverall-pass=true\ndecision<<EOF\nPASS\nEOF"
    text = output_lines({"decision": forged, "overall-pass": "false"})
    assert parse_github_output(text) == {"decision": forged, "overall-pass": "false"}
    with pytest.raises(ValueError):
        output_lines({"bad\nname": "x"})


# --------------------------------------------------------------------------- action.yml and the workflow
@pytest.fixture(scope="module")
def action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_action_inputs_and_outputs_are_the_specs(action):
    assert set(action["inputs"]) == SPEC_INPUTS
    assert set(action["outputs"]) == SPEC_OUTPUTS
    assert action["inputs"]["results"]["required"] is True
    assert {k: action["inputs"][k]["default"] for k in ("from", "gate", "comment")} == {
        "from": "auto", "gate": "true", "comment": "true"}
    assert action["runs"]["using"] == "composite"
    for name, output in action["outputs"].items():
        assert output["value"] == f"${{{{ steps.scorekit.outputs.{name} }}}}"


def test_action_steps_are_thin_and_never_interpolate_inputs_into_shell(action):
    steps = action["runs"]["steps"]
    assert [s.get("uses", "").split("@")[0] for s in steps if "uses" in s] == ["actions/setup-python"]
    runs = [s for s in steps if "run" in s]
    assert len(runs) == 2
    for step in runs:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], step["run"]  # every value arrives through env:
        assert len(step["run"].strip().splitlines()) == 1
    step = next(s for s in runs if s.get("id") == "scorekit")
    assert step["run"].strip().endswith("-m scorekit._action")
    env = step["env"]
    for name in SPEC_INPUTS - {"python-version"}:
        assert env[f"INPUT_{name.upper().replace('-', '_')}"] == f"${{{{ inputs.{name} }}}}"
    install = next(s for s in runs if s is not step)
    assert install["env"]["SCOREKIT_SOURCE"] == "${{ github.action_path }}"  # the action's own checkout


def test_the_workflow_uses_the_action_on_the_bundled_example(action):
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    [step] = [s for s in steps if s.get("uses") == "./"]
    assert set(step["with"]) <= set(action["inputs"])
    assert (ROOT / step["with"]["results"]).resolve() == Path(EXAMPLE).resolve()
    assert (ROOT / step["with"]["policy"]).resolve() == Path(EXAMPLE_POLICY).resolve()
    for s in steps:
        assert "${{" not in str(s.get("run", "")), s
    assert workflow[True if True in workflow else "on"]["pull_request"]  # yaml reads `on:` as True


def _regressing_run(runner: Runner, text: str) -> str:
    """Two runs into one history: every case passes, then three hostile-named cases fail (the regressed
    case list of the comparison names them). Returns the comment after the second run."""
    policy = runner.tmp / "policy.json"
    policy.write_text(json.dumps({"gate": {"thresholds": {f"dim {text}": 0.5}}}), encoding="utf-8")
    for version, failing in (("1", 0), ("2", 3)):
        rows = [{"id": f"r{c}-{t}", "dimension": f"dim {text}", "case_id": f"case {c} {text}", "trial": t,
                 "status": "FAIL" if c < failing else "PASS", "evaluator": "e"} for c in range(20) for t in range(2)]
        results = _rows_file(runner.tmp / "results.jsonl", rows)
        done = runner.run(results=str(results), policy=str(policy), history=str(runner.tmp / "h.sqlite"),
                          agent_version=version)
        assert done.returncode == 0, done.stderr
        assert not [line for line in done.stdout.splitlines() if line.lstrip().startswith("::")]
    [comment] = runner.comments()
    return comment["body"]


def test_a_hostile_case_id_in_the_comparison_cannot_break_the_comment(tmp_path):
    from test_hostile_text import assert_markdown_safe

    (tmp_path / "h").mkdir()
    (tmp_path / "p").mkdir()
    hostile = _regressing_run(Runner(tmp_path / "h"), HOSTILE)
    plain = _regressing_run(Runner(tmp_path / "p"), "plain")
    assert "3 regressed cases: case 0 plain" in plain
    assert "3 regressed cases: case 0 x\\|y ::error::forged" in hostile  # the case ids, escaped
    assert hostile.count("<!--") == 1 and hostile.count("-->") == 1 and "@octocat" not in hostile
    assert_markdown_safe(hostile[len(MARKER) + 1:].replace("\u200b", ""), plain[len(MARKER) + 1:])


INSPECT_LOG = ROOT / "tests" / "data" / "imports" / "inspect" / "2025-05-12T20-28-26-04-00_security-guide.json"


def test_from_auto_imports_another_tools_file_and_from_scorekit_reads_rows(runner):
    """The default ``from: auto`` recognises an Inspect AI log (which ``run`` without ``--from`` refuses);
    ``from: scorekit`` reads the file as scorekit rows, so the same log is then exit 2."""
    done = runner.run(results=str(INSPECT_LOG), comment="false")
    assert done.returncode == 1, done.stderr  # a partial import (limit 3): TRIAGE, not PASS
    assert runner.outputs()["decision"] == "TRIAGE"
    assert "imported from Inspect AI" in done.stdout
    refused = runner.run(results=str(INSPECT_LOG), comment="false", **{"from": "scorekit"})
    assert refused.returncode == 2 and "--from inspect" in refused.stderr
