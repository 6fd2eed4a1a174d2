"""ImportedRun and ImportedRuns (scorekit/importers/_run.py): what an import gives, and how Jupyter shows it."""

from __future__ import annotations

from html.parser import HTMLParser

import scorekit as sk
from scorekit.importers import ImportedRuns


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_data(self, data):
        if self.rows and data.strip():
            self.rows[-1].append(data.strip())


def _runs() -> ImportedRuns:
    return sk.import_results(sk.example_path("imports", "sample-export.json"))  # promptfoo: two providers


def test_import_results_gives_a_list_of_runs():
    runs = _runs()
    assert isinstance(runs, list) and isinstance(runs, ImportedRuns) and len(runs) == 2
    assert all(isinstance(run, sk.ImportedRun) for run in runs)


def test_a_list_of_runs_displays_as_one_table_with_a_row_per_run():
    runs = _runs()
    parser = _Cells()
    parser.feed(runs._repr_html_())
    body = [row for row in parser.rows[1:] if row]
    assert len(body) == len(runs) and "script" not in parser.tags
    assert [row[0] for row in body] == [run.agent for run in runs]


def test_one_run_displays_as_the_same_table_row():
    runs = _runs()
    one, many = _Cells(), _Cells()
    one.feed(runs[0]._repr_html_())
    many.feed(runs._repr_html_())
    assert one.rows[1] == many.rows[1]


def test_repr_names_agent_task_rows_and_status():
    run = _runs()[0]
    text = repr(run)
    assert text.startswith("<ImportedRun agent=") and f"rows={len(run.rows)}" in text and "status=" in text
