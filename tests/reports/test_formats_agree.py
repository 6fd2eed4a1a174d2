"""The three formats state the same evidence (SPEC §1: one evidence model), at any size.

Each report is parsed back — JSON with ``json``, Markdown by its tables, HTML
with ``html.parser`` — and must state the same decision, per-dimension counts,
rates, headline and Wilson bounds (as the formatted percentages), pass^k with its interval, findings (dimension,
reason, case ids) and hashes. The dimension table is split in three (measures,
thresholds, reliability, with pass^k beside): each dimension's values are read
back from all of them. Also: ``write_reports`` writes four files atomically, and
writes a 100,000-row card quickly.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from shared import load_benchmark

import scorekit as sk
from scorekit.reports import REPORT_FILES, write_reports
from scorekit.reports._format import (
    INTERVAL_NAMES,
    LIST_LIMIT,
    clean_text,
    fmt_ci,
    fmt_count,
    fmt_pass_k,
    fmt_pct,
    interval_label,
    md_unescape,
    more_text,
)

ROOT = Path(__file__).parents[2]
CORPUS = json.loads((ROOT / "tests" / "data" / "xss" / "corpus.json").read_text("utf-8"))["strings"]
CELL_SPLIT = re.compile(r"(?<!\\)\|")
MORE = re.compile(r"^(.*?)\s*… and ([\d,]+) more \(see [^)]*\)$", re.S)
BENCH_ROWS = 100_000


# --------------------------------------------------------------------------- cards
def _example() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


def _missing_dimension() -> sk.Scorecard:
    rows = [{"id": f"a{i}", "dimension": "task_completion", "case_id": f"c{i // 2}", "trial": i % 2,
             "must_include": ["x"], "agent_output": "x" if i % 3 else "y"} for i in range(12)]
    return sk.evaluate(rows, policy={"gate": {"required_dimensions": ["task_completion", "tool_call"]}})


def _untrusted() -> sk.Scorecard:
    rows = []
    for i, x in enumerate(CORPUS):
        for trial in range(2):
            rows.append({"id": f"r{i}t{trial}{x}", "dimension": f"d{i}{x}", "case_id": f"c{i}{x}", "trial": trial,
                         "status": "FAIL" if trial == 0 else "PASS", "evaluator": f"ev{x}", "reason": f"why{i}{x}"})
    return sk.evaluate(rows, policy={"purpose": "exploratory"}, agent_name=CORPUS[0], agent_version="1.0")


CARDS = {"example": _example, "missing_dimension": _missing_dimension, "untrusted": _untrusted}


@pytest.fixture(scope="module", params=sorted(CARDS))
def written(request, tmp_path_factory):
    card = CARDS[request.param]()
    paths = write_reports(card, tmp_path_factory.mktemp(request.param))
    return card, paths


# --------------------------------------------------------------------------- parsers
def _split_ids(cell: str) -> tuple[list[str], int]:
    """A rendered id list back to (ids shown, number omitted)."""
    omitted = 0
    match = MORE.match(cell)
    if match:
        cell, omitted = match.group(1), int(match.group(2).replace(",", ""))
    if cell in ("—", ""):
        return [], omitted
    return cell.split(", "), omitted


def parse_markdown(text: str) -> dict:
    lines = text.splitlines()

    def table(heading: str) -> list[dict[str, str]]:
        return table_at(lines.index(heading) + 1)

    def table_at(start: int) -> list[dict[str, str]]:
        rows: list[list[str]] = []
        for line in lines[start:]:
            if line.startswith("|"):
                cells = [c.strip() for c in CELL_SPLIT.split(line)[1:-1]]
                if not all(set(c) <= {"-", ":"} for c in cells):
                    rows.append(cells)
            elif rows:
                break
        header = rows[0]
        return [dict(zip(header, row, strict=True)) for row in rows[1:]]

    decision = re.search(r"^\*\*Decision: (.+?)\*\*", text, re.M).group(1)
    dims: dict[str, dict[str, str]] = {}
    headings = ["### Measures", "### Thresholds", "### Reliability"]
    headings += [line for line in lines if line.startswith("| dimension | pass^")]  # the pass^k tables
    for heading in headings:
        if heading not in lines:
            continue
        for row in (table(heading) if heading.startswith("#") else table_at(lines.index(heading))):
            row = {k: md_unescape(v) for k, v in row.items()}
            if "verdict" in row:
                row["verdict"] = row["verdict"].strip("*")
            dims.setdefault(row["dimension"], {}).update(row)
    findings = []
    if "No findings." not in text:
        for row in table("## Findings"):
            ids = row["case ids"]
            match = MORE.match(ids)
            shown = match.group(1) if match else ids
            suffix = int(match.group(2).replace(",", "")) if match else 0
            findings.append({
                "dimension": md_unescape(row["dimension"]),
                "reason": md_unescape(row["reason"]),
                "case_ids": ([] if shown == "—" else [md_unescape(s) for s in shown.split(", ")], suffix),
            })
    hashes = {row["hash"]: row["sha256"] for row in table("## Hashes and identity")}
    rows = int(re.search(r"holds every scored row: ([\d,]+) rows", text).group(1).replace(",", ""))
    return {"decision": decision, "dimensions": dims, "findings": findings, "hashes": hashes, "rows": rows}


class _HTMLTables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[tuple[str, list[str]]]]] = {}
        self.decision: list[str] = []
        self.text: list[str] = []
        self._table: str | None = None
        self._row: list | None = None
        self._cell: list[str] | None = None
        self._codes: list[str] | None = None
        self._code: list[str] | None = None
        self._in_decision = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._codes = [], []
        elif tag == "code" and self._cell is not None:
            self._code = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")
        elif tag == "span" and "decision-value" in (a.get("class") or ""):
            self._in_decision = True

    def handle_endtag(self, tag):
        if tag == "code" and self._code is not None:
            self._codes.append("".join(self._code))
            self._code = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append(("".join(self._cell), self._codes))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "span":
            self._in_decision = False

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._code is not None:
            self._code.append(data)
        if self._in_decision:
            self.decision.append(data)


def parse_html(text: str) -> dict:
    parser = _HTMLTables()
    parser.feed(text)
    parser.close()

    def table(name: str) -> list[dict[str, tuple[str, list[str]]]]:
        rows = parser.tables.get(name) or []
        if not rows:
            return []
        header = [cell for cell, _ in rows[0]]
        return [dict(zip(header, row, strict=True)) for row in rows[1:]]

    dims: dict[str, dict[str, str]] = {}
    for name in ("measures", "thresholds", "reliability", *sorted(t for t in parser.tables if t.startswith("pass-k"))):
        for row in table(name):
            flat = {k: v[0] for k, v in row.items()}
            dims.setdefault(flat["dimension"], {}).update(flat)
    findings = []
    for row in table("findings"):
        text_, codes = row["case ids"]
        match = MORE.match(text_)
        findings.append({
            "dimension": row["dimension"][0],
            "reason": row["reason"][0],
            "case_ids": (codes, int(match.group(2).replace(",", "")) if match else 0),
        })
    hashes = {row["hash"][0]: row["sha256"][0] for row in table("hashes")}
    full = "".join(parser.text)
    rows = int(re.search(r"holds every scored row: ([\d,]+) rows", full).group(1).replace(",", ""))
    return {"decision": "".join(parser.decision), "dimensions": dims, "findings": findings, "hashes": hashes,
            "rows": rows}


def expected_from_json(data: dict, rows: int) -> dict:
    """What both text formats must state, derived from scorecard.json alone."""
    dims = {}
    # The headline interval (ci_low/ci_high, SPEC §18) stands under the label naming its method; the pooled
    # Wilson interval is wilson_low/wilson_high (ci_low/ci_high in a scorecard written before interval_method).
    methods = [d.get("interval_method") for d in data["dimensions"]]
    headline = interval_label("95%", methods)
    mixed = len({m for m in methods if m is not None}) > 1
    for d in data["dimensions"]:
        wilson = (d["wilson_low"], d["wilson_high"]) if "wilson_low" in d else (d["ci_low"], d["ci_high"])
        shown = fmt_ci(d["ci_low"], d["ci_high"])
        if mixed and shown != "—":
            shown += f" ({INTERVAL_NAMES[d['interval_method']]})"
        entry = {
            "verdict": d["verdict"], "n": fmt_count(d["n"]), "passes": fmt_count(d["passes"]),
            "fails": fmt_count(d["fails"]), "errors": fmt_count(d["errors"]), "abstains": fmt_count(d["abstains"]),
            "rate": fmt_pct(d["rate"]), headline: shown, "95% Wilson CI": fmt_ci(*wilson),
            "threshold": fmt_pct(d["threshold"]), "coverage": fmt_pct(d.get("coverage")),
            "consistency": fmt_pct(d["consistency"]), "flaky cases": fmt_count(len(d["flaky_cases"])),
        }
        if headline == "95% CI (Wilson)":  # every headline is the Wilson interval: one column says it
            del entry["95% Wilson CI"]
        entry.update({f"pass^{k}": fmt_pass_k(d, k, interval=True) for k in d["pass_k"]})
        dims[clean_text(d["name"])] = entry
    findings = []
    for f in data["findings"]:
        shown = [clean_text(c) for c in f["case_ids"][:LIST_LIMIT]]
        findings.append({"dimension": clean_text(f["dimension"]), "reason": clean_text(f["reason"]),
                         "case_ids": (shown, max(0, len(f["case_ids"]) - LIST_LIMIT))})
    return {"decision": data["decision"], "dimensions": dims, "findings": findings,
            "hashes": {k: v or "—" for k, v in data["hashes"].items()}, "rows": rows}


def assert_formats_agree(paths: dict[str, Path], rows: int) -> dict:
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    expected = expected_from_json(data, rows)
    md = parse_markdown(paths["markdown"].read_text(encoding="utf-8"))
    html = parse_html(paths["html"].read_text(encoding="utf-8"))
    for name, parsed in (("markdown", md), ("html", html)):
        assert parsed["decision"] == expected["decision"], name
        assert parsed["hashes"] == expected["hashes"], name
        assert parsed["rows"] == expected["rows"], name
        assert parsed["findings"] == expected["findings"], name
        assert set(parsed["dimensions"]) == set(expected["dimensions"]), name
        for dim, want in expected["dimensions"].items():
            got = parsed["dimensions"][dim]
            assert {k: got[k] for k in want} == want, (name, dim)
    return data


# --------------------------------------------------------------------------- tests
def test_json_markdown_and_html_state_the_same_evidence(written):
    card, paths = written
    assert_formats_agree(paths, len(card.evidence))


def test_formats_agree_on_known_values_of_the_example(tmp_path):
    card = _example()
    paths = write_reports(card, tmp_path)
    md = parse_markdown(paths["markdown"].read_text(encoding="utf-8"))
    html = parse_html(paths["html"].read_text(encoding="utf-8"))
    for parsed in (md, html):
        assert parsed["decision"] == "FAIL"
        action = parsed["dimensions"]["action_correctness"]
        assert (action["n"], action["passes"], action["fails"], action["errors"]) == ("59", "53", "6", "2")
        assert action["rate"] == "89.8%" and action["95% Wilson CI"] == "79.5% – 95.3%"
        assert parsed["findings"][1] == {"dimension": "action_correctness", "reason": "forbidden_action",
                                         "case_ids": (["clear-promotions"], 0)}
        assert parsed["hashes"]["suite"] == card.hashes["suite"]


def test_undefined_values_agree_as_dashes(tmp_path):
    card = _missing_dimension()
    paths = write_reports(card, tmp_path)
    for parsed in (parse_markdown(paths["markdown"].read_text("utf-8")), parse_html(paths["html"].read_text("utf-8"))):
        tool = parsed["dimensions"]["tool_call"]
        assert tool["rate"] == tool["95% Wilson CI"] == "—"
        assert tool["n"] == "0"


def test_write_reports_returns_the_four_paths(written):
    card, paths = written
    assert set(paths) == {"json", "markdown", "html", "parquet"}
    for kind, path in paths.items():
        assert path.name == REPORT_FILES[kind] and path.is_file() and path.stat().st_size > 0


def test_write_reports_writes_atomically_and_leaves_no_temporary_files(tmp_path):
    card = _example()
    (tmp_path / "scorecard.json").write_text("old", encoding="utf-8")
    (tmp_path / "unrelated.txt").write_text("keep", encoding="utf-8")
    write_reports(card, tmp_path)
    write_reports(card, tmp_path)  # overwrites in place
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*REPORT_FILES.values(), "unrelated.txt"])
    assert json.loads((tmp_path / "scorecard.json").read_text("utf-8"))["decision"] == "FAIL"
    nested = tmp_path / "a" / "b"
    write_reports(card, nested)
    assert sorted(p.name for p in nested.iterdir()) == sorted(REPORT_FILES.values())


def test_a_failed_render_leaves_the_previous_reports_untouched(tmp_path, monkeypatch):
    card = _example()
    write_reports(card, tmp_path)
    before = {name: (tmp_path / name).stat().st_ino for name in REPORT_FILES.values()}
    import scorekit.reports.html as html_mod

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(html_mod, "render_html", boom)
    with pytest.raises(RuntimeError):
        write_reports(card, tmp_path)
    # every text is rendered before any file is replaced: no report was touched
    assert {name: (tmp_path / name).stat().st_ino for name in REPORT_FILES.values()} == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- scale
def _make_rows(n: int) -> list[dict]:
    return load_benchmark("bench_evaluate").make_rows(n)


@pytest.fixture(scope="module")
def big_card(tmp_path_factory) -> sk.Scorecard:
    """The engine benchmark's 100,000 rows, evaluated once (their speed: benchmarks/bench_evaluate.py)."""
    path = tmp_path_factory.mktemp("bench") / "results.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for row in _make_rows(BENCH_ROWS):
            fh.write(json.dumps(row) + "\n")
    return sk.evaluate(path)


def test_100000_row_card_writes_every_row_to_the_evidence(big_card, tmp_path):
    assert len(big_card.evidence) == BENCH_ROWS
    paths = write_reports(big_card, tmp_path)
    assert set(paths) == set(REPORT_FILES)
    assert len(pd.read_parquet(paths["parquet"], columns=["id"])) == BENCH_ROWS


def test_100000_row_card_formats_agree_and_truncate_long_lists(big_card, tmp_path):
    paths = write_reports(big_card, tmp_path)
    data = assert_formats_agree(paths, BENCH_ROWS)
    long = [f for f in data["findings"] if len(f["case_ids"]) > LIST_LIMIT]
    assert long, "the benchmark has findings with more case ids than a report lists"
    md = paths["markdown"].read_text("utf-8")
    html = paths["html"].read_text("utf-8")
    for f in long:
        note = more_text(len(f["case_ids"]) - LIST_LIMIT)
        assert note in md and note in html
    assert "100,000 rows" in md and "100,000 rows" in html
    assert len(md) < 200_000 and len(html) < 400_000  # reports stay readable; rows live in the parquet


# --------------------------------------------------------------------------- comparison
def _with_comparison(card: sk.Scorecard) -> dict:
    from scorekit._regression import regressions

    # A perfect baseline, both sides without per-case counts or design effects: Newcombe on the pooled
    # counts, no multiplicity control, so three dimensions regress against it.
    candidate = card.dimensions.drop(columns="deff")
    baseline = candidate.assign(passes=candidate["n"])
    data = card.to_dict()
    data["comparison"] = {
        "status": "regressed", "required": True, "method": "newcombe", "max_drop": 0.0,
        "multiplicity": "none", "alpha": 0.025, "comparisons": 8,
        "baseline": {"id": 3, "label": "v1.0", "agent": {"name": "mail", "version": "1.0"},
                     "created_at": "2026-01-01T00:00:00+00:00", "decision": "PASS"},
        "regressions": regressions(baseline, candidate, "newcombe", multiplicity="none"),
        "baseline_label": None, "rescored_from": None, "detail": "regressed against record 3",
    }
    return data


def test_comparison_regressions_agree_and_list_regressed_first():
    from scorekit.reports import render_html, render_markdown, validate_scorecard_json
    from scorekit.reports._format import regression_columns, regression_rows

    data = _with_comparison(_example())
    validate_scorecard_json(data)
    expected = regression_rows(data["comparison"])
    md = render_markdown(data)
    lines = md.splitlines()
    start = lines.index("## Comparison")
    md_rows = [[md_unescape(c.strip().removeprefix("**").removesuffix("**")) for c in CELL_SPLIT.split(line)[1:-1]]
               for line in lines[start:] if line.startswith("| ")][:len(expected) + 1]
    columns = list(regression_columns(data["comparison"]))
    assert "p-value" in columns  # the entries carry SPEC §18's tests
    assert md_rows[0] == columns
    assert md_rows[1:] == expected
    parser = _HTMLTables()
    parser.feed(render_html(data))
    html_rows = [[cell for cell, _ in row] for row in parser.tables["regressions"]]
    assert html_rows[0] == columns
    assert html_rows[1:] == expected
    statuses = [row[1] for row in expected]
    assert statuses == sorted(statuses, key=lambda s: s != "regressed")
    assert statuses.count("regressed") == 3
    first = expected[0]
    assert first[0] == "action_correctness"
    assert first[2] == "100.0% (93.9% – 100.0%), n 59" and first[3] == "89.8% (79.5% – 95.3%), n 59"
    assert first[4] == "-10.2 pp (-20.5 pp to -2.0 pp)"
    assert first[5:8] == ["0.0108", "0.0108", "newcombe"] and first[8] == "—"  # no per-case counts
    for text in (md, render_html(data)):
        assert "record 3, label v1.0, agent mail 1.0" in text
        assert "3 regressed of 8 compared" in text
