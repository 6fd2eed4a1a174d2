"""Output that cannot forge CI commands (issue 11 acceptance).

Every CLI command is fed a string carrying ``\\n::error::``, ``\\r::add-mask::``,
``::stop-commands::``, ``##[error]``, an OSC-8 hyperlink (ESC) and U+202E
wherever a user can put text: dimension, id, case id, evaluator, field names,
agent name and version, labels, policy thresholds, SCORECARD.md fields,
options, and file and folder names. No output line (stdout or stderr) may then
be a workflow command scorekit did not write: a line starting with ``::``
(after white space, as the runner trims it) is one of scorekit's own
``::error::``/``::warning::`` annotations, only ``gate`` and
``refresh-check`` write any, and none starts with the forged command; ``##[``,
ESC, CR and the bidi controls never reach the output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SEED_CARD = Path(__file__).parent / "release" / "data" / "seed_example_SCORECARD.md"

# What a hostile user writes (no slash or NUL: it is also used as a file name).
X = (
    "x\n::error::FORGED\r::add-mask::FORGED\x1b]8;;mailto:e.invalid\x1b\\\u202e##[error]FORGED"
    "\n  ::stop-commands::FORGED"
)
FORBIDDEN_CHARS = ("\x1b", "\r", "\u202e", "\u2066", "\u200f")
ANNOTATING = {"gate", "refresh-check", "run"}  # run: only with --gate (SPEC §17)


def _rows() -> list[dict]:
    return [
        {"id": X + "1", "dimension": X, "case_id": X, "status": "PASS", "evaluator": X, "reason": X},
        {"id": X + "2", "dimension": X, "case_id": X + "b", "status": "FAIL", "evaluator": "harness", "reason": X},
        {"id": "tc1", "dimension": "task_completion", "case_id": X + "tc", "must_include": [X],
         "agent_output": "nothing"},
        {"id": "bad-status", "dimension": "helpfulness", "status": X, "evaluator": "h"},
        {"id": "bad-key", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", "input": {X: float("nan")}},
        {"id": X + "bad", "dimension": X, "status": "PASS", "evaluator": "h", X: 1},
    ]


def _card_files(folder: Path) -> tuple[Path, Path]:
    _, front_text, body = SEED_CARD.read_text(encoding="utf-8").split("---\n", 2)
    front = yaml.safe_load(front_text)
    front["agent"]["name"] = X
    front["recipe"]["config"]["model"] = "m" + X
    front["recipe"]["dataset"]["reference"] = X
    card = folder / "SCORECARD.md"
    card.write_text("---\n" + yaml.safe_dump(front, allow_unicode=True) + "---\n" + body, encoding="utf-8")
    base = yaml.safe_load(yaml.safe_dump(front))
    base["agent"]["version"] = "0.2.0"
    base["results"]["metrics"][0]["value"] = base["aggregate"]["components"][0]["value"] = 0.9
    base["aggregate"]["value"] = 90.0
    baseline = folder / f"{X}BASE.md"
    baseline.write_text("---\n" + yaml.safe_dump(base, allow_unicode=True) + "---\n" + body, encoding="utf-8")
    return card, baseline


def _run(args: list[str], cwd: Path) -> tuple[list[str], subprocess.CompletedProcess]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "scorekit", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env, encoding="utf-8", errors="strict")
    return args, proc


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> list[tuple[list[str], subprocess.CompletedProcess]]:
    d = tmp_path_factory.mktemp("hostile-text")
    results = d / f"{X}.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _rows()), encoding="utf-8")
    policy = d / f"{X}.yml"
    policy.write_text(yaml.safe_dump({"purpose": "release", "gate": {"thresholds": {X: 0.5}}}, allow_unicode=True),
                      encoding="utf-8")
    out = d / f"out{X}"
    db = d / f"{X}.sqlite"
    card, baseline = _card_files(d)
    doc_root = d / f"docs{X}"
    doc_root.mkdir()
    (doc_root / "SCORECARD.md").write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    (doc_root / "README.md").write_text(f"# {X}\nno link here\n", encoding="utf-8")
    (doc_root / "package.json").write_text(json.dumps({"files": [X]}), encoding="utf-8")

    # First the commands whose files the others read.
    first = [
        ["run", "--results", str(results), "--policy", str(policy), "--out-dir", str(out), "--gate",
         "--agent-name", X, "--agent-version", X, "--label", X, "--history", str(db)],
        ["keygen", "--out-private", str(d / f"{X}.pem"), "--out-public", str(d / f"{X}.pub")],
    ]
    done = [_run(args, d) for args in first]
    scorecard = out / "scorecard.json"
    envelope = d / f"{X}.sig.json"
    done.append(_run(["sign", "--scorecard", str(scorecard), "--key", str(d / f"{X}.pem"), "--out", str(envelope)], d))
    data = json.loads(scorecard.read_text(encoding="utf-8"))
    data["decision"] = X
    data["comparison"]["status"] = X
    edited = d / f"edited{X}.json"
    edited.write_text(json.dumps(data), encoding="utf-8")

    later = [
        ["run", "--results", str(results), "--policy", str(policy), "--out-dir", str(d / "again"),
         "--history", str(db), "--baseline", X, "--label", X],
        ["validate", str(results), "--policy", str(policy)],
        ["validate", str(d / f"missing{X}.jsonl")],
        ["validate", str(results), "--policy", str(d / f"missing{X}.yml")],
        ["run", "--results", str(results), X],  # argparse: unrecognized arguments
        ["run", "--results", str(results), "--limit", X],  # argparse: a bad value
        ["history", str(db)],
        ["history", str(d / f"missing{X}.sqlite")],
        ["verify", "--scorecard", str(scorecard), "--signature", str(envelope), "--public-key", str(d / f"{X}.pub")],
        ["verify", "--scorecard", str(edited), "--signature", str(envelope)],
        ["verify", "--scorecard", str(d / f"missing{X}.json")],
        ["attest", "--scorecard", str(edited), "--out-dir", str(d / f"card{X}")],
        ["sign", "--scorecard", str(scorecard), "--key", str(d / f"missing{X}.pem")],
        ["keygen", "--out-private", str(d / f"{X}.pem"), "--out-public", str(d / f"{X}.pub")],  # exists: refused
        ["gate", "--scorecard", str(card), "--baseline-file", str(baseline), "--min-aggregate", "90",
         "--min-metric", f"{X}=0.5", "--variance-metric", X],
        ["gate", "--scorecard", str(card), "--baseline-file", str(baseline), "--allow-regression"],
        ["gate", "--scorecard", str(d / f"missing{X}.md")],
        ["carry-forward", "--scorecard", str(card), "--version", "0.3.1", "--out", str(d / f"{X}C.md")],
        ["carry-forward", "--scorecard", str(card), "--version", "1.0.0"],
        ["refresh-check", "--scorecard", str(card), "--limit", "220", "--experiments", "3", "--model", X,
         "--dataset-reference", X],
        ["refresh-check", "--scorecard", str(card), "--limit", "220", "--experiments", "3", "--model", X,
         "--rebaseline", "--reason", X],
        ["release-lint", "--doc-root", str(doc_root)],
        ["release-lint", "--doc-root", str(d / f"missing{X}")],
        ["render", "--results", str(results), "--policy", str(policy), "--agent-name", X, "--agent-version", X,
         "--out-dir", str(d / f"render{X}")],
        ["render", "--results", str(d / f"missing{X}.jsonl")],
    ]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done += list(pool.map(lambda args: _run(args, d), later))
    return done


def _command_lines(args: list[str], proc: subprocess.CompletedProcess) -> list[str]:
    # Only LF ends a line here: a CR left in the output is itself a failure (checked below).
    return [line for text in (proc.stdout, proc.stderr) for line in text.split("\n")]


def test_no_output_line_is_a_workflow_command_scorekit_did_not_write(outputs):
    for args, proc in outputs:
        assert "Traceback" not in proc.stderr, (args[0], proc.stderr)
        for line in _command_lines(args, proc):
            stripped = line.lstrip()
            if stripped.startswith("::"):
                assert args[0] in ANNOTATING, (args[0], line)
                assert re.match(r"::(error|warning)( title=[^:\n]*)?::", stripped), (args[0], line)
                assert not re.match(r"::[a-z-]+::FORGED", stripped), (args[0], line)
            assert "##[" not in line, (args[0], line)


def test_no_control_or_bidi_character_reaches_the_output(outputs):
    for args, proc in outputs:
        for text in (proc.stdout, proc.stderr):
            for char in FORBIDDEN_CHARS:
                assert char not in text, (args[0], repr(char), text[:400])


def test_the_user_text_is_shown_visibly_not_dropped(outputs):
    shown = "x\\n::error::FORGED\\r::add-mask::FORGED\\x1b]8;;mailto:e.invalid\\x1b"  # repr or terminal_text
    commands = {args[0] for args, proc in outputs if shown in proc.stdout + proc.stderr}
    assert {"run", "validate", "history", "gate", "carry-forward", "refresh-check", "release-lint", "sign",
            "verify", "attest", "keygen", "render"} <= commands


def test_the_commands_still_run_as_usual(outputs):
    codes = {}
    for args, proc in outputs:
        codes.setdefault(args[0], set()).add(proc.returncode)
        assert proc.returncode in (0, 1, 2), (args, proc.returncode)
    run = next(proc for args, proc in outputs if args[0] == "run" and "--gate" in args)
    assert run.returncode == 1 and run.stdout.startswith("decision: FAIL"), run.stdout + run.stderr
    render = next(proc for args, proc in outputs if args[0] == "render" and "--policy" in args)
    assert render.returncode == 0, render.stderr
    gate = next(proc for args, proc in outputs if args[0] == "gate" and "--min-aggregate" in args)
    assert gate.returncode == 1 and "::error::" in gate.stdout
    verify = next(proc for args, proc in outputs if args[0] == "verify" and "--public-key" in args)
    assert verify.returncode == 0 and verify.stdout.startswith("verified:")


def test_argparse_errors_are_escaped(outputs):
    bad = next(proc for args, proc in outputs if args[0] == "run" and args[3:] == [X])
    assert bad.returncode == 2
    assert "unrecognized arguments: x\\n::error::FORGED" in bad.stderr


# --------------------------------------------------------------------------- the helpers
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from scorekit._terminal import BIDI_CONTROLS, annotation_line, terminal_text, workflow_command  # noqa: E402

BIDI = [chr(c) for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))]


@given(st.text())
def test_terminal_text_is_one_line_and_never_a_workflow_command(text):
    shown = terminal_text(text)
    assert shown.splitlines() in ([shown], [])
    assert not shown.lstrip().startswith("::") and "##[" not in shown
    assert not any(c in shown for c in ("\x1b", "\r", "\n", "\x85", "\u2028", "\u2029", *BIDI))
    shown.encode("utf-8")  # printable: lone surrogates are shown as \udxxx, not written


@given(st.text(), st.text())
def test_workflow_command_data_and_properties_cannot_break_out(message, title):
    line = workflow_command("error", message, title=title)
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    head, data = line.split("::", 2)[1:]
    assert head.startswith("error title=") and head.count("=") == 1 + title.count("=")
    assert ":" not in head.split("=", 1)[1] and "," not in head.split("=", 1)[1]
    assert annotation_line(line) == line  # re-emitting an escaped annotation changes nothing


def test_workflow_command_follows_githubs_escaping():
    assert workflow_command("warning", "100% done\r\nnext") == "::warning::100%25 done%0D%0Anext"
    assert workflow_command("error", "x", file="a:b,c%d") == "::error file=a%3Ab%2Cc%25d::x"
    with pytest.raises(ValueError):
        workflow_command("error::x", "y")


@pytest.mark.parametrize("char", BIDI)
def test_bidi_controls_are_neutralised_in_html_markdown_and_the_agent_card(char):
    from scorekit.agent_card import _md
    from scorekit.reports._format import clean_text, md_escape
    from scorekit.reports.html import h

    assert char in f"[{BIDI_CONTROLS}]" or any(ord(a) <= ord(char) <= ord(b)
                                             for a, b in re.findall(r"(.)-(.)", BIDI_CONTROLS))
    text = f"invoice{char}fdp.exe"
    for escaped in (clean_text(text), md_escape(text), h(text), _md(text), terminal_text(text)):
        assert char not in escaped, escaped
