"""Acceptance: both notebooks execute with papermill; the rendered report says what scorecard.json says.

The release report is parsed (stdlib html.parser): its decision and per-dimension
numbers (n, passes, rate, Wilson bounds as one-decimal percentages) must equal
``scorecard.json``; it must hold no ``<script>`` and no external URL. Its
Markdown export is plain GitHub Markdown, without a single HTML tag.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from _rendered import EXAMPLE_AGENT, parse_html, rendered_example, table_rows

import scorekit as sk
from scorekit._examples import notebook_path
from scorekit._findings import verification_guidance
from scorekit.reports._format import fmt_ci, fmt_pass_k

PERCENT = re.compile(r"^(\d{1,3}\.\d)%$")
SECTIONS = ("Scope and validation", "Dimensions", "Pass rate against threshold",
            "Reliability over repeated trials: pass^k", "Run-to-run variation", "Controls", "Findings",
            "Comparison with the baseline", "Hashes and signature", "Reproduce")


@pytest.fixture(scope="session")
def rendered():
    return rendered_example()


@pytest.fixture(scope="session")
def scorecard(rendered):
    return json.loads(rendered.reports["json"].read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def report(rendered):
    text = rendered.html.read_text(encoding="utf-8")
    root, tags = parse_html(text)
    return text, root, tags


def _percent(text: str) -> float:
    match = PERCENT.match(text)
    assert match, f"not a one-decimal percentage: {text!r}"
    return float(match.group(1))


def _assert_percent_of(text: str, value: float | None) -> None:
    if value is None:
        assert text == "—"
    else:
        assert abs(_percent(text) - 100 * value) <= 0.05 + 1e-9, (text, value)


# --------------------------------------------------------------------------- release notebook
@pytest.mark.timeout(240)
def test_release_notebook_writes_the_report_the_executed_notebook_and_the_library_reports(rendered):
    out = rendered.out_dir
    assert out.parts[-2:] == EXAMPLE_AGENT
    for name in ("release_scorecard.html", "release_scorecard.md", "release_scorecard.ipynb", "scorecard.json",
                 "scorecard.md", "scorecard.html", "evidence.parquet", "rates.svg", "pass_k.svg"):
        assert (out / name).is_file(), name
    assert not list(out.glob("*.png"))
    assert set(rendered.reports) == {"json", "markdown", "html", "parquet"}  # not signed: no signing key


@pytest.mark.timeout(240)
def test_render_result_decision_is_the_decision_of_scorecard_json(rendered, scorecard):
    assert rendered.decision == scorecard["decision"] == "FAIL"
    assert rendered.overall_pass is scorecard["overall_pass"] is False


@pytest.mark.timeout(240)
def test_scorecard_json_is_the_evaluation_of_the_inputs(scorecard):
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name=EXAMPLE_AGENT[0],
                       agent_version=EXAMPLE_AGENT[1])
    expected = card.to_dict()
    for key in ("decision", "dimensions", "hashes", "findings", "controls", "agent"):
        assert scorecard[key] == expected[key], key


@pytest.mark.timeout(240)
def test_executed_notebook_has_no_error_and_no_stderr_output(rendered):
    nb = nbformat.read(rendered.notebook, as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", cell.source
            assert not (output["output_type"] == "stream" and output["name"] == "stderr"), output["text"]


@pytest.mark.timeout(240)
def test_report_decision_banner_equals_scorecard_json(report, scorecard):
    _, root, _ = report
    (banner,) = [e for e in root.iter() if e.attrs.get("id") == "sk-decision"]
    (value,) = banner.find_all(cls="sk-decision-value")
    assert value.all_text() == scorecard["decision"]
    assert f"sk-decision-{scorecard['decision'].lower()}" in banner.classes
    reasons = [li.all_text() for li in banner.find_all("li")]
    assert reasons == scorecard["decision_reasons"]


def _dimension_rows(root) -> dict[str, dict[str, str]]:
    """Each dimension's cells from the measures, thresholds, reliability and pass^k tables, by column."""
    rows: dict[str, dict[str, str]] = {}
    for cls in ("sk-measures", "sk-thresholds", "sk-reliability", "sk-pass-k"):
        (table,) = root.find_all("table", cls=cls)
        header, body = table_rows(table)
        for row in body:
            rows.setdefault(row[0], {}).update(zip(header, row, strict=True))
    return rows


def _wilson(dim: dict) -> tuple:
    """The pooled Wilson interval: ``wilson_low``/``wilson_high`` (SPEC §18), else (schema_version 1)
    ``ci_low``/``ci_high``."""
    return (dim["wilson_low"], dim["wilson_high"]) if "wilson_low" in dim else (dim["ci_low"], dim["ci_high"])


@pytest.mark.timeout(240)
def test_report_dimension_numbers_equal_scorecard_json(report, scorecard):
    _, root, _ = report
    by_name = _dimension_rows(root)
    assert list(by_name) == [d["name"] for d in scorecard["dimensions"]]
    for dim in scorecard["dimensions"]:
        row = by_name[dim["name"]]
        assert row["verdict"] == dim["verdict"]
        for count in ("n", "passes", "fails", "errors", "abstains"):
            assert int(row[count].replace(",", "")) == dim[count], (dim["name"], count)
        _assert_percent_of(row["rate"], dim["rate"])
        assert row["95% Wilson CI"] == fmt_ci(*_wilson(dim))
        _assert_percent_of(row["threshold"], dim["threshold"])
        _assert_percent_of(row["coverage"], dim["coverage"])
        for k, value in dim["pass_k"].items():
            cell = row[f"pass^{k}"]
            assert cell == fmt_pass_k(dim, k, interval=True)  # a value over a subset of the cases says so
            _assert_percent_of(cell.split(" (")[0], value)


@pytest.mark.timeout(240)
def test_release_report_shows_verdict_reasons_coverage_and_judge_identity_like_scorecard_html(report, rendered,
                                                                                              scorecard):
    _, root, _ = report
    library, _ = parse_html(rendered.reports["html"].read_text(encoding="utf-8"))
    by_name, library_rows = _dimension_rows(root), _dimension_rows(library)
    assert by_name == library_rows  # the same tables, cell for cell
    for dim in scorecard["dimensions"]:
        assert by_name[dim["name"]]["verdict reasons"] == ("; ".join(dim["verdict_reasons"]) or "—").replace("; ", " ")
    (judges,) = [e for e in root.iter() if e.attrs.get("id") == "sk-judges"]
    assert all(judge in judges.all_text() for judge in scorecard["judges"])


@pytest.mark.timeout(240)
def test_report_shows_both_intervals_per_dimension(report, scorecard):
    # Issue 12: the Wilson and the case-clustered interval, with the design effect.
    _, root, _ = report
    by_name = _dimension_rows(root)
    for dim in scorecard["dimensions"]:
        row = by_name[dim["name"]]
        assert row["95% Wilson CI"] == fmt_ci(*_wilson(dim))
        assert row["95% clustered CI"] == fmt_ci(dim["ci_cluster_low"], dim["ci_cluster_high"])
        assert int(row["cases"]) == dim["cases"]
    assert any(d["deff"] is not None and d["deff"] > 1.5 for d in scorecard["dimensions"])
    text = report[0]
    assert "Two intervals per dimension" in text


@pytest.mark.timeout(240)
def test_report_pass_k_never_rises_with_k_on_the_curve(report, scorecard):
    _, root, _ = report
    (table,) = root.find_all("table", cls="sk-pass-k")
    header, rows = table_rows(table)
    ks = [h.removeprefix("pass^") for h in header if h.startswith("pass^")]
    for row in rows:
        cells = [row[header.index(f"pass^{k}")] for k in ks]
        # a cell is the value, then its interval when it has one ("88.3% (CI 69.2% – 100.0%)", SPEC §18)
        on_curve = [_percent(c.split(" (CI ")[0]) for c in cells if c != "—" and "(over " not in c]
        assert len(on_curve) >= 2 and on_curve == sorted(on_curve, reverse=True), row[0]


@pytest.mark.timeout(240)
def test_report_run_to_run_bounds_stay_within_0_and_100_percent(report, scorecard):
    _, root, _ = report
    tables = root.find_all("table", cls="sk-variance")
    assert tables, "the example has complete runs: the report shows a run-to-run table"
    header, rows = table_rows(tables[0])
    cell = header.index("t interval of the mean")
    for row in rows:
        for part in re.findall(r"(-?\d+(?:\.\d+)?)%", row[cell]):
            assert 0.0 <= float(part) <= 100.0, row


@pytest.mark.timeout(240)
def test_report_hashes_equal_scorecard_json(report, scorecard):
    _, root, _ = report
    (table,) = root.find_all("table", cls="sk-hashes")
    _, rows = table_rows(table)
    assert {row[0]: row[1] for row in rows} == scorecard["hashes"]


@pytest.mark.timeout(240)
def test_report_has_no_script_tag_and_no_external_url(report):
    text, _, tags = report
    assert not [tag for tag, _ in tags if tag in ("script", "iframe", "object", "embed", "link", "base")]
    assert "<script" not in text.lower()
    assert "http://" not in text and "https://" not in text
    for tag, attrs in tags:
        for name, value in attrs.items():
            if name in ("src", "href", "srcset", "action", "poster", "data"):
                assert value.startswith(("data:", "#")), (tag, name, value[:80])
            assert not name.startswith("on"), (tag, name)  # no inline event handlers either


@pytest.mark.timeout(240)
def test_report_hides_code_and_shows_every_section(report):
    text, root, _ = report
    assert "sk.evaluate(" not in text and "signing_key = None" not in text
    assert not root.find_all(cls="input_area")
    headings = [h.all_text().removesuffix("¶").strip() for h in root.iter() if h.tag == "h2"]
    for section in SECTIONS:
        assert section in headings, section


@pytest.mark.timeout(240)
def test_report_charts_are_the_reports_inline_svg(report, rendered):
    text, root, tags = report
    svgs = [attrs for tag, attrs in tags if tag == "svg"]
    assert len(svgs) == 2 and all(a.get("role") == "img" and a.get("aria-label") for a in svgs)  # rates, pass^k
    assert not [tag for tag, _ in tags if tag == "img"]
    library = re.findall(r"<svg.*?</svg>", rendered.reports["html"].read_text(encoding="utf-8"), re.S)
    files = [(rendered.out_dir / name).read_text(encoding="utf-8") for name in ("rates.svg", "pass_k.svg")]

    def drawing(svg: str) -> list:  # elements and attributes (nbconvert re-serialises the markup)
        return [(tag, sorted((k, v) for k, v in attrs.items() if k != "xmlns")) for tag, attrs in parse_html(svg)[1]]

    charts = re.findall(r"<svg.*?</svg>", text, re.S)
    assert [drawing(c) for c in charts] == [drawing(c) for c in library] == [drawing(c) for c in files]
    assert [parse_html(c)[0].all_text() for c in charts] == [parse_html(c)[0].all_text() for c in library]


@pytest.mark.timeout(240)
def test_markdown_report_is_plain_github_markdown_with_the_chart_files(rendered, scorecard):
    text = rendered.markdown.read_text(encoding="utf-8")
    assert scorecard["decision"] in text
    assert not re.search(r"<[A-Za-z!/?]", text), re.search(r".{0,40}<[A-Za-z!/?].{0,40}", text).group(0)
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert images == ["rates.svg", "pass_k.svg"]
    for image in images:
        assert (rendered.out_dir / image).read_text(encoding="utf-8").startswith("<svg ")
    # the measures table; a scorecard naming its headline interval (SPEC §18) shows it before the Wilson one
    assert re.search(r"\| dimension \| n \| passes \| fails \| errors \| abstains \| rate \| "
                     r"(95% CI \([a-zA-Z-]+\) \| )?95% Wilson CI \| coverage \|", text)


@pytest.mark.timeout(240)
def test_verification_guidance_is_said_once_in_each_report(rendered, scorecard):
    from scorekit.reports._format import md_escape

    guidance = verification_guidance()
    html_text = parse_html(rendered.html.read_text(encoding="utf-8"))[0].all_text()
    assert html_text.count(guidance) == 1
    assert rendered.markdown.read_text(encoding="utf-8").count(md_escape(guidance)) == 1
    library_html = parse_html(rendered.reports["html"].read_text(encoding="utf-8"))[0].all_text()
    assert library_html.count(guidance) == 1
    assert rendered.reports["markdown"].read_text(encoding="utf-8").count(md_escape(guidance)) == 1
    # every finding keeps its own advice and its cases' detail
    for finding in scorecard["findings"]:
        assert finding["suggested_fix"].removesuffix(" " + guidance) in html_text
        for detail in finding["details"][:20]:
            assert " ".join(detail["detail"].split()) in html_text


@pytest.mark.timeout(240)
def test_report_reproduction_commands_name_the_inputs(report):
    _, root, _ = report
    commands = [e.all_text() for e in root.find_all("pre", cls="sk-command")]
    assert commands and commands[0].startswith("scorekit render --results ")
    assert "--agent-name email-assistant --agent-version 1.0.0" in commands[0]
    assert any(c.startswith("scorekit run --results ") for c in commands)


@pytest.mark.timeout(300)
def test_history_comparison_and_signature_appear_in_the_report(tmp_path):
    from scorekit import signing
    from scorekit.render import render_notebook

    db = tmp_path / "history.sqlite"
    sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name="email-assistant",
                agent_version="0.9.0", history=db, label="v0.9.0")
    private, public = signing.write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    result = render_notebook(
        sk.example_path(), sk.example_path(file="policy.yml"), agent_name="email-assistant", agent_version="1.0.0",
        parameters={"history": str(db), "label": "v1.0.0", "baseline": "v0.9.0", "signing_key": str(private),
                    "public_key": str(public)},
        out_dir=tmp_path / "out", timeout=240,
    )
    assert result.reports["signature"].is_file()
    assert signing.verify_scorecard(result.reports["json"], public_key_path=public).outcome == "verified"
    data = json.loads(result.reports["json"].read_text(encoding="utf-8"))
    # Same captured output under another version: a re-score, not a new run (SPEC §10).
    assert data["comparison"]["status"] == "unusable" and data["comparison"]["rescored_from"] is not None
    root, _ = parse_html(result.html.read_text(encoding="utf-8"))
    (status,) = root.find_all(cls="sk-signature")
    assert "verified" in status.all_text()
    (comparison,) = [e for e in root.iter() if e.attrs.get("id") == "sk-comparison"]
    terms = [e.all_text() for e in comparison.children if e.tag == "dt"]
    facts = dict(zip(terms, [e.all_text() for e in comparison.children if e.tag == "dd"], strict=True))
    assert facts["status"] == data["comparison"]["status"]
    assert facts["baseline label asked for"] == "v0.9.0"
    assert facts["detail"] == data["comparison"]["detail"]
    (history,) = root.find_all("table", cls="sk-history")
    labels = [row[2] for row in table_rows(history)[1]]
    assert labels == ["v0.9.0", "v1.0.0"]
    (rates,) = root.find_all("table", cls="sk-history-rates")
    header, body = table_rows(rates)
    latest = {row[0]: row for row in body if row[2] == "v1.0.0"}
    # the history's rates are the scorecard's, in the same words; a record keeps counts, not cases, so its
    # interval is the pooled Wilson one (wilson_low/wilson_high), and the column says so
    assert header[-1] == "95% Wilson CI"
    for dim in data["dimensions"]:
        assert latest[dim["name"]][-1] == fmt_ci(*_wilson(dim))
    # The trend across the recorded versions: the PNG beside the report, inline in the HTML, linked from the .md.
    trend = result.out_dir / "trend.png"
    assert trend.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (figure,) = [e for e in root.iter() if e.attrs.get("id") == "sk-trend"]
    assert "2 records of suite" in figure.all_text()
    assert "](trend.png)" in result.markdown.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- explore notebook
@pytest.mark.timeout(240)
def test_explore_notebook_executes_headless_and_shows_the_initial_state(tmp_path):
    from scorekit.render import execute_notebook

    executed = execute_notebook(notebook_path("explore"), tmp_path / "explore.ipynb", {}, timeout=240)
    nb = nbformat.read(executed, as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)  # the controls
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert len(html) == 1
    root, _ = parse_html(html[0])
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    (value,) = root.find_all(cls="sk-decision-value")
    assert value.all_text() == card.decision
    (table,) = root.find_all("table", cls="sk-summary")
    header, rows = table_rows(table)
    assert [r[0] for r in rows] == list(card.dimensions.index)
    rate = header.index("rate")
    for row, (_, dim) in zip(rows, card.dimensions.iterrows(), strict=True):
        _assert_percent_of(row[rate], dim["rate"])
    assert len(root.find_all("svg")) == 2 and not root.find_all("img")


def test_notebooks_have_a_parameters_cell_and_no_stored_outputs():
    for name in ("release_scorecard", "explore"):
        nb = nbformat.read(notebook_path(name), as_version=4)
        nbformat.validate(nb)
        tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, name
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")
        assert nb.metadata["kernelspec"]["name"] == "python3"


def test_release_notebook_parameters_are_the_documented_ones():
    from scorekit.render import notebook_parameters

    params = notebook_parameters()
    assert list(params) == ["results", "policy", "agent_name", "agent_version", "history", "label", "baseline",
                            "signing_key", "public_key", "out_dir", "alpha"]
    assert all(p["default"] == "None" for p in params.values())


def test_one_copy_of_the_notebooks_in_the_checkout():
    root = Path(__file__).resolve().parents[1]
    if not (root / "notebooks").is_dir():
        pytest.skip("not a checkout")
    assert not (root / "scorekit" / "notebooks").exists()
    assert notebook_path("release_scorecard") == root / "notebooks" / "release_scorecard.ipynb"
