"""Acceptance (issue 13): one scorecard through every renderer says every number in the same words.

The bundled example is evaluated into a history, then shown by the HTML report,
the Markdown report, the notebook fragments (their HTML and their Markdown
twin), the terminal tables of ``scorekit run`` and ``scorekit demo``, and the
``scorekit history`` listing (terminal and notebook). Each renderer's tables are
parsed back; every value a renderer shows for a dimension must be the string the
report formatters give for the number in ``scorecard.json``.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

import pytest
from _rendered import parse_html, table_rows

import scorekit as sk
from scorekit import cli
from scorekit.reports._format import (
    assurance_text,
    clean_text,
    fmt_ci,
    fmt_count,
    fmt_deff,
    fmt_pass_k,
    fmt_pct,
    interval_label,
    md_unescape,
    mde_text,
    settle_text,
)

CELL_SPLIT = re.compile(r"(?<!\\)\|")
#: Renderers of the history listing: a record stores counts, not cases, so they show the Wilson interval.
HISTORY_LISTINGS = ("scorekit history", "notebook history", "notebook history Markdown")


def expected(dim: dict, conf: str = "95%") -> dict[str, str]:
    """What every renderer must say for ``dim``, by column label, from the JSON alone.

    A dimension naming its headline interval (``interval_method``, SPEC §18) shows it under its own label
    and the pooled Wilson interval (``wilson_low``/``wilson_high``) under ``95% Wilson CI``; one written
    before shows ``ci_low``/``ci_high`` as the Wilson interval.
    """
    wilson = (dim["wilson_low"], dim["wilson_high"]) if "wilson_low" in dim else (dim["ci_low"], dim["ci_high"])
    words = {
        "n": fmt_count(dim["n"]), "passes": fmt_count(dim["passes"]), "fails": fmt_count(dim["fails"]),
        "errors": fmt_count(dim["errors"]), "abstains": fmt_count(dim["abstains"]), "rate": fmt_pct(dim["rate"]),
        f"{conf} Wilson CI": fmt_ci(*wilson), "coverage": fmt_pct(dim["coverage"]),
        "verdict": dim["verdict"], "threshold": fmt_pct(dim["threshold"]), "measure (point)": fmt_pct(dim["measure"]),
        "cases": fmt_count(dim["cases"]), "deff": fmt_deff(dim["deff"]),
        f"{conf} clustered CI": fmt_ci(dim["ci_cluster_low"], dim["ci_cluster_high"]),
        "this evaluation can detect": mde_text(dim["mde"]), "consistency": fmt_pct(dim["consistency"]),
        "flaky cases": fmt_count(len(dim["flaky_cases"])),
    }
    words.update({f"pass^{k}": fmt_pass_k(dim, k, interval=True) for k in dim["pass_k"]})
    if "interval_method" in dim:
        words[interval_label(conf, [dim["interval_method"]])] = fmt_ci(dim["ci_low"], dim["ci_high"])
        words["P(meets threshold)"] = fmt_pct(dim["assurance"])  # the compact tables
        said, settle = assurance_text(dim["threshold"], dim["assurance"]), settle_text(dim["cases_to_settle"])
        words["assurance"] = f"{said}; {settle}" if settle else said  # the thresholds table, beside the verdict
    return words


def interval_shown(dim: dict, conf: str = "95%") -> str:
    """The label of the interval every renderer shows beside the rate."""
    return interval_label(conf, [dim.get("interval_method")])


# --------------------------------------------------------------------------- readers
def html_rows(html: str) -> dict[str, dict[str, str]]:
    """Every table of an HTML text whose first column is a dimension, merged by dimension (a cell's lines,
    ``<br>``-separated, read back joined by "; " as the Markdown and the terminal write them)."""
    root, _ = parse_html(html.replace("<br>", "; "))
    rows: dict[str, dict[str, str]] = {}
    for table in root.find_all("table"):
        header, body = table_rows(table)
        if header and header[0] == "dimension":
            for row in body:
                rows.setdefault(row[0], {}).update(zip(header, row, strict=True))
    return rows


def markdown_rows(text: str) -> dict[str, dict[str, str]]:
    """Every Markdown table whose first column is a dimension, merged by dimension."""
    rows: dict[str, dict[str, str]] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [md_unescape(c.strip()).strip("*") for c in CELL_SPLIT.split(line)[1:-1]]
        if header is None:
            header = cells
        elif not all(set(c) <= {"-", ":"} for c in cells) and header[0] == "dimension":
            rows.setdefault(cells[0], {}).update(zip(header, cells, strict=True))
    return rows


def terminal_rows(text: str) -> dict[str, dict[str, str]]:
    """Every aligned terminal table (a header, a rule of dashes, rows) whose first column is a dimension."""
    lines = text.splitlines()
    rows: dict[str, dict[str, str]] = {}
    for i in range(1, len(lines)):
        if not re.fullmatch(r"-+(  -+)*", lines[i]):
            continue
        spans = [m.span() for m in re.finditer(r"-+", lines[i])]
        spans = [(a, b if j + 1 < len(spans) else None) for j, (a, b) in enumerate(spans)]
        header = [lines[i - 1][a:b].strip() for a, b in spans]
        if header[0] != "dimension":
            continue
        gaps = [(b, spans[j + 1][0]) for j, (_, b) in enumerate(spans[:-1])]
        for line in lines[i + 1:]:
            if not line.strip() or any(line[a:b].strip() for a, b in gaps):  # the table has ended
                break
            cells = [line[a:b].strip() for a, b in spans]
            rows.setdefault(cells[0], {}).update(zip(header, cells, strict=True))
    return rows


# --------------------------------------------------------------------------- the scorecard
@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("every")
    db = folder / "history.sqlite"
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name="email-assistant",
                       agent_version="1.0.0", history=db, label="v1.0.0")
    return card, card.to_dict(), db, folder


def _renderings(evaluated) -> dict[str, dict[str, dict[str, str]]]:
    from scorekit import history, notebook
    from scorekit.reports import render_html, render_markdown
    from scorekit.reports._sections import build_sections
    from scorekit.reports.text import demo_text

    card, data, db, folder = evaluated
    report = notebook.Report(data)
    fragments = [report.dimensions(), report.summary()]
    listing = notebook.history(history.read_history(db), history.read_history(db, dimensions=True))
    run_out, history_out = io.StringIO(), io.StringIO()
    rows = folder / "results.jsonl"
    rows.write_bytes(sk.example_path().read_bytes())
    with redirect_stdout(run_out):
        assert cli.main(["run", "--results", str(rows), "--policy", str(sk.example_path(file="policy.yml")),
                         "--out-dir", str(folder / "run")]) == 0
    with redirect_stdout(history_out):
        assert cli.main(["history", str(db)]) == 0
    return {
        "scorecard.html": html_rows(render_html(data)),
        "scorecard.md": markdown_rows(render_markdown(data)),
        "notebook HTML": html_rows("".join(f.html for f in fragments)),
        "notebook Markdown": markdown_rows("\n\n".join(f.markdown for f in fragments)),
        "scorekit run": terminal_rows(run_out.getvalue()),
        "scorekit demo": terminal_rows(demo_text(build_sections(data))),
        "scorekit history": terminal_rows(history_out.getvalue()),
        "notebook history": html_rows(listing.html),
        "notebook history Markdown": markdown_rows(listing.markdown),
    }


def test_every_renderer_states_each_number_of_the_scorecard_in_the_same_words(evaluated):
    _, data, _, _ = evaluated
    renderings = _renderings(evaluated)
    names = [clean_text(d["name"]) for d in data["dimensions"]]
    for renderer, rows in renderings.items():
        assert list(rows) == names, renderer
        for dim in data["dimensions"]:
            want = expected(dim)
            got = rows[dim["name"]]
            shown = {label: value for label, value in got.items() if label in want}
            assert shown == {label: want[label] for label in shown}, (renderer, dim["name"])
            # every renderer shows at least the count, the rate and its interval: the reports the headline one,
            # the history listings the pooled Wilson interval they recompute from the stored counts
            interval = "95% Wilson CI" if renderer in HISTORY_LISTINGS else interval_shown(dim)
            assert {"n", "rate", interval} <= set(shown), (renderer, sorted(got))
    # and the reports show every number of a dimension (the assurance as the sentence beside the verdict; the
    # notebook's summary adds the compact "P(meets threshold)")
    for renderer in ("scorecard.html", "scorecard.md", "notebook HTML", "notebook Markdown"):
        for dim in data["dimensions"]:
            compact = {"P(meets threshold)"} if renderer.startswith("scorecard") else set()
            assert set(expected(dim)) - compact <= set(renderings[renderer][dim["name"]]), renderer


def test_thresholds_stand_as_percentages_beside_the_rates_everywhere(evaluated):
    renderings = _renderings(evaluated)
    for renderer in ("scorecard.html", "scorecard.md", "notebook HTML", "notebook Markdown", "scorekit run",
                     "scorekit demo"):
        for name, row in renderings[renderer].items():
            labels = list(row)
            assert "threshold" in labels, (renderer, labels)
            assert re.fullmatch(r"\d{1,3}\.\d%|—", row["threshold"]), (renderer, name, row["threshold"])
    for renderer in ("scorekit run", "scorekit demo"):  # the terminal tables: one table, threshold right of rate
        labels = list(next(iter(renderings[renderer].values())))
        assert labels.index("threshold") == labels.index("rate") + 1, (renderer, labels)


def test_sections_are_built_from_the_dictionary_alone(evaluated):
    """The same sections from ``to_dict()`` and from ``scorecard.json`` read back: no DataFrame is needed."""
    from scorekit.reports import write_reports
    from scorekit.reports._sections import build_sections

    card, data, _, folder = evaluated
    paths = write_reports(card, folder / "again")
    read_back = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert build_sections(read_back) == build_sections(data, evidence_rows=len(card.evidence))


def test_every_renderer_states_the_decision_fields_in_the_same_words(evaluated):
    """The same, for a scorecard carrying the issue 26 fields (SPEC §18): the headline interval under its
    label, the pooled Wilson interval, pass^k with its interval and the assurance."""
    from _issue26_fields import with_decision_fields

    from scorekit import notebook
    from scorekit.reports import render_html, render_markdown
    from scorekit.reports._sections import build_sections
    from scorekit.reports.text import demo_text, run_text

    data = with_decision_fields(evaluated[1])
    s = build_sections(data)
    report = notebook.Report(s)
    fragments = [report.dimensions(), report.summary()]
    renderings = {
        "scorecard.html": html_rows(render_html(s)),
        "scorecard.md": markdown_rows(render_markdown(s)),
        "notebook HTML": html_rows("".join(f.html for f in fragments)),
        "notebook Markdown": markdown_rows("\n\n".join(f.markdown for f in fragments)),
        "scorekit run": terminal_rows(run_text(s)),
        "scorekit demo": terminal_rows(demo_text(s)),
    }
    for renderer, rows in renderings.items():
        for dim in data["dimensions"]:
            want, got = expected(dim), rows[dim["name"]]
            shown = {label: value for label, value in got.items() if label in want}
            assert shown == {label: want[label] for label in shown}, (renderer, dim["name"])
            assert {"n", "rate", "95% CI (case-clustered)"} <= set(shown), (renderer, sorted(got))
            if renderer != "scorekit run":  # the terminal keeps to the headline interval
                assert "95% Wilson CI" in shown, (renderer, sorted(got))
            assert "P(meets threshold)" in shown or got["assurance"].startswith(
                f"meets {fmt_pct(dim['threshold'])} with probability {fmt_pct(dim['assurance'])}"), renderer
