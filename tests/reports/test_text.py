"""The terminal renderer: sections as aligned tables, every value safe for a terminal and a CI log."""

from __future__ import annotations

import pandas as pd

import scorekit as sk
from scorekit.reports._format import LIST_LIMIT
from scorekit.reports._sections import build_sections, history_sections
from scorekit.reports.text import history_text, run_text, table_text, validation_text


def _card(name: str = "pii"):
    rows = [{"id": f"r{i}", "dimension": name, "case_id": f"c{i}", "status": "PASS" if i % 4 else "FAIL",
             "evaluator": "harness"} for i in range(8)]
    return sk.evaluate(rows, policy={"purpose": "exploratory"})


def test_terminal_tables_escape_control_characters_and_workflow_commands():
    card = _card("::error::forged\x1b[31m\u202e")
    text = run_text(build_sections(card.to_dict()))
    assert "\x1b" not in text and "\u202e" not in text
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())
    assert "\\x3a:error::forged" in text or "\ufffd" in text


def test_numbers_are_right_aligned_and_text_left_aligned():
    s = build_sections(_card().to_dict())
    lines = table_text(s.summary.select(["dimension", "verdict", "n", "rate"])).splitlines()
    header, rule, row = lines
    assert header.split() == ["dimension", "verdict", "n", "rate"]
    assert row.startswith("pii") and row.endswith("75.0%")
    assert len(rule) == len(header)


def test_validate_prints_every_problem_the_report_cuts_at_the_list_limit(tmp_path):
    lines = ['{"id": "ok", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}']
    lines += [f'{{"id": "bad{i}", "dimension": "task_completion", "trial": "t{i}"}}' for i in range(LIST_LIMIT + 5)]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = sk.evaluate(path)
    s = build_sections(card.to_dict())
    assert len(s.problems) == LIST_LIMIT and s.problems_more == "… and 5 more (see scorecard.json)"
    printed = validation_text(s, path, strict=False).splitlines()
    assert printed[0].endswith(f"1 labeled, 0 unlabeled, {LIST_LIMIT + 5} invalid")
    assert len(printed) == 1 + LIST_LIMIT + 5 and all("rows.jsonl:" in line for line in printed[1:])


def test_scorekit_run_prints_its_tables_without_importing_matplotlib(tmp_path):
    import subprocess
    import sys

    code = ("import sys, contextlib, io\n"
            "from scorekit import cli\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    code = cli.main(['run', '--results', {str(sk.example_path())!r}, '--out-dir', {str(tmp_path)!r}])\n"
            "assert code == 0 and '95% CI (case-clustered)' in out.getvalue(), out.getvalue()\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_run_and_demo_tables_put_the_threshold_as_a_percentage_beside_the_rate():
    from scorekit.reports.text import demo_text

    s = build_sections(sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict())
    for text in (run_text(s), demo_text(s)):
        header = next(line for line in text.splitlines() if line.startswith("dimension")).split("  ")
        labels = [label.strip() for label in header if label.strip()]
        assert labels.index("threshold") == labels.index("rate") + 1, labels
        row = next(line for line in text.splitlines() if line.startswith("action_correctness"))
        assert "89.8%      95.0%" in row


def test_history_lists_the_records_and_the_latest_rates_per_dimension(tmp_path):
    from scorekit.history import read_history

    db = tmp_path / "history.sqlite"
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), history=db, label="v1")
    text = history_text(history_sections(read_history(db), read_history(db, dimensions=True)))
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["id", "created_at", "label", "agent"] and "v1" in lines[2]
    rates = lines[lines.index(next(line for line in lines if line.startswith("dimension"))):]
    action = next(line for line in rates if line.startswith("action_correctness"))
    assert action.split()[-4:] == ["89.8%", "79.5%", "–", "95.3%"]
    assert len([line for line in rates[2:] if line.strip()]) == len(card.dimensions)


def test_history_listing_of_no_records_says_so():
    assert history_text(history_sections(pd.DataFrame())) == "no records"
