"""``view.html`` (SPEC §19): the data it embeds, its escaping, the row limit, and the page in headless Chromium.

Scorecards are made with the library from rows built here, so every expected
value (which cases fail, which fell or rose, which row carries which reason) is
known from the rows, not from the code under test. The browser tests open the
page from ``file://`` with Debian's chromium through ``/usr/bin/chromedriver``
(as tests/test_browser.py does, with its skip / CI behaviour).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

import scorekit as sk
from scorekit.reports.view import ROW_LIMIT, render_view, view_data, write_view

# "__proto__": a plain JavaScript object keyed by it would set its prototype instead of adding the case.
HOSTILE = ("<script>alert(1)</script>", "javascript:alert(1)", "</script><b id=pwn>x</b>", "__proto__")
RATES = {"alpha_dim": 0.5, "beta_dim": 1.0, "gamma_dim": 0.75}  # per-dimension pass rate (of 4 cases)
POLICY = {"purpose": "exploratory"}


def _rows(version: str) -> list[dict]:
    """Three dimensions of 4 plain cases × 2 trials (rates RATES), plus ``task`` with 6 cases × 3 trials.

    ``task``: in version 1 case ``t1`` fails every trial; in version 2 ``t1`` passes and ``t2`` fails
    (so t2 fell and t1 rose). Version 2 also has a ``tool_timeout`` FAIL and an ERROR on ``t3``, an output
    holding ``needle`` on ``t4`` and the hostile case ids (every trial PASS).
    """
    rows = []
    for dim, rate in RATES.items():
        for c in range(4):
            for t in range(2):
                rows.append({"id": f"{dim}-{c}-{t}", "dimension": dim, "case_id": f"{dim[0]}{c}", "trial": t,
                             "status": "PASS" if c < rate * 4 else "FAIL", "evaluator": "harness"})
    failing = "t1" if version == "1" else "t2"
    cases = [f"t{c}" for c in range(6)] + list(HOSTILE)
    for case in cases:
        for t in range(3):
            row = {"id": f"task-{case}-{t}", "dimension": "task", "case_id": case, "trial": t,
                   "status": "FAIL" if case == failing else "PASS", "evaluator": "harness",
                   "agent_output": f"answer of {case} trial {t}"}
            if version == "2" and case == "t3":
                row.update({"status": "FAIL", "reason": "tool_timeout"} if t == 0 else {})
                row.update({"status": "ERROR", "reason": "crashed"} if t == 1 else {})
            if version == "2" and case == "t4" and t == 2:
                row["agent_output"] = "the needle is here " + "long " * 100
            rows.append(row)
    return rows


def _card(version: str) -> sk.Scorecard:
    return sk.evaluate(_rows(version), policy=POLICY, agent_name="agent", agent_version=version)


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> tuple[Path, Path]:
    """Folders holding scorecard.json and evidence.parquet of version 1 (A) and version 2 (B)."""
    root = tmp_path_factory.mktemp("view")
    for version in ("1", "2"):
        _card(version).write(root / f"v{version}")
    return root / "v1", root / "v2"


def _embedded(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="sk-data">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))


# --------------------------------------------------------------------------- escaping and embedding
def test_the_page_is_self_contained_and_its_csp_allows_only_its_own_inline_script_and_style(cards):
    html = render_view(cards[1], cards[0])
    assert len(re.findall(r"<script", html)) == 2  # the JSON data and the page's own script
    assert not re.search(r"\b(href|src|action)\s*=", html, re.I)
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html.replace("http://www.w3.org/2000/svg", ""), re.I)
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)
    csp = csp.replace("&#x27;", "'").replace("&#39;", "'")
    assert csp.startswith("default-src 'none';")
    for tag in ("script", "style"):
        body = re.search(rf"<{tag}>(.*?)</{tag}>", html, re.S).group(1)
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert f"{tag}-src 'sha256-{digest}'" in csp
    assert "unsafe" not in csp


def test_hostile_case_ids_are_data_inside_the_json_never_markup(cards):
    html = render_view(cards[1])
    assert "alert(1)</script>" not in html and "<b id=pwn>" not in html  # the markup never reaches the page
    data = _embedded(html)
    assert set(HOSTILE) <= set(data["rows"]["case_id"])


def test_rows_are_embedded_with_status_reason_and_an_output_excerpt(cards):
    data = view_data(cards[1])
    rows = data["rows"]
    expected = [r for r in _rows("2")]
    assert data["rows_total"] == len(expected) and len(rows["id"]) == len(expected)
    by_id = {r["id"]: r for r in expected}
    for i, row_id in enumerate(rows["id"]):
        row = by_id[row_id]
        assert rows["case_id"][i] == row["case_id"]
        assert rows["dimensions"][rows["dimension"][i]] == row["dimension"]
        assert ("PASS", "FAIL", "ERROR", "ABSTAIN")[rows["status"][i]] == row["status"]
        assert rows["trial"][i] == row["trial"]
        if row["status"] != "PASS":
            assert rows["reason"][i] == row.get("reason", f"prescored_{row['status'].lower()}")
    long = rows["output"][rows["id"].index("task-t4-2")]
    assert long.startswith("the needle is here") and long.endswith("…") and len(long) == 301
    assert [r[0]["t"] for r in data["table"]["rows"]] == sorted([*RATES, "task"])



def test_evaluator_control_rows_are_left_out_of_the_grid_and_counted_in_the_total():
    rows = [{"id": f"r{i}", "dimension": "task", "case_id": f"c{i}", "trial": 0, "status": "PASS",
             "evaluator": "harness"} for i in range(5)]
    rows.append({"id": "ctl", "dimension": "task", "case_id": "ctl", "trial": 0, "status": "FAIL",
                 "evaluator": "harness", "tags": ["known-bad"]})
    data = view_data(sk.evaluate(rows, policy=POLICY))
    assert data["rows_total"] == 6 and data["rows"]["id"] == ["r0", "r1", "r2", "r3", "r4"]

def test_above_the_row_limit_the_page_holds_per_case_counts(cards):
    rows = _rows("2")
    at = view_data(cards[1], row_limit=len(rows))
    assert at["rows"] is not None and at["counts"] is None
    over = view_data(cards[1], row_limit=len(rows) - 1)
    assert over["rows"] is None and over["rows_total"] == len(rows)
    counts = over["counts"]
    expected = Counter((r["dimension"], r["case_id"], r["status"]) for r in rows)
    got = {}
    for j, case in enumerate(counts["case_id"]):
        dim = counts["dimensions"][counts["dimension"][j]]
        for status, key in (("PASS", "passes"), ("FAIL", "fails"), ("ERROR", "errors"), ("ABSTAIN", "abstains")):
            if counts[key][j]:
                got[(dim, case, status)] = counts[key][j]
    assert got == dict(expected)
    html = render_view(cards[1], row_limit=len(rows) - 1)
    assert '"rows":null' in html.replace(" ", "")


def test_the_real_limit_embeds_200000_rows_and_not_200001(tmp_path):
    """The module constant itself, as the acceptance states it (evaluating 200,001 rows twice takes ~20 s)."""
    assert ROW_LIMIT == 200_000
    rows = [{"id": f"r{i}", "dimension": "task", "case_id": f"c{i // 3}", "trial": i % 3,
             "status": "PASS" if i % 7 else "FAIL", "evaluator": "h"} for i in range(ROW_LIMIT + 1)]
    sk.evaluate(rows, policy=POLICY).write(tmp_path / "over")
    sk.evaluate(rows[:-1], policy=POLICY).write(tmp_path / "at")
    over, at = view_data(tmp_path / "over"), view_data(tmp_path / "at")
    assert over["rows"] is None and over["counts"] is not None and over["rows_total"] == ROW_LIMIT + 1
    assert at["rows"] is not None and len(at["rows"]["id"]) == ROW_LIMIT


def test_the_comparison_lists_the_cases_that_fell_and_rose(cards):
    compare = view_data(cards[1], cards[0])["compare"]
    assert [r[:2] for r in compare["regressed"]] == [["task", "t2"], ["task", "t3"]]
    assert [r[:2] for r in compare["improved"]] == [["task", "t1"]]
    assert compare["regressed"][0][2:] == ["100.0%", "0.0%", "-100.0 pp"]
    assert compare["title"] == "agent 1 → agent 2"
    assert [r[0]["t"] for r in compare["table"]["rows"]] == sorted([*RATES, "task"])


def test_a_scorecard_in_memory_compares_alike(cards):
    compare = view_data(_card("2"), _card("1"))["compare"]
    assert [r[:2] for r in compare["regressed"]] == [["task", "t2"], ["task", "t3"]]
    assert [r[:2] for r in compare["improved"]] == [["task", "t1"]]


def test_evidence_that_does_not_add_up_to_the_scorecard_is_refused(cards, tmp_path):
    import shutil

    folder = tmp_path / "mixed"
    shutil.copytree(cards[1], folder)
    shutil.copy(cards[0] / "evidence.parquet", folder / "evidence.parquet")  # version 1's rows
    # Refused by the evidence hash its writer stamped, before any count is compared: rows with the same
    # totals but other failing cases would otherwise show another scorecard's cases.
    with pytest.raises(sk.InputError, match=r"written for another scorecard \(hashes\.evidence"):
        view_data(folder)


def test_numbers_with_thousands_separators_sort_as_numbers():
    from types import SimpleNamespace

    from scorekit.reports.view import _sort_key

    cells = [SimpleNamespace(kind="num", text=t) for t in ("1,500", "200", "12,345.5 (2.1%)", "−1,000")]
    assert [_sort_key(c) for c in cells] == [1500.0, 200.0, 12345.5, -1000.0]


def test_without_evidence_the_page_still_shows_the_scorecard(cards, tmp_path):
    import shutil

    folder = tmp_path / "bare"
    folder.mkdir()
    shutil.copy(cards[1] / "scorecard.json", folder / "scorecard.json")
    data = view_data(folder)
    assert data["rows_total"] is None and data["rows"] is None and data["table"]["rows"]
    assert write_view(folder) == folder / "view.html"


def test_write_view_writes_beside_the_scorecard_or_where_asked(cards, tmp_path):
    assert write_view(cards[1] / "scorecard.json") == cards[1] / "view.html"
    assert write_view(cards[1], out=tmp_path / "x.html") == tmp_path / "x.html"
    with pytest.raises(TypeError, match="out="):
        write_view(_card("1"))


# --------------------------------------------------------------------------- headless Chromium
@pytest.fixture(scope="module")
def driver():
    from test_browser import chrome

    with chrome() as browser:
        yield browser


@pytest.fixture(scope="module")
def page(cards, tmp_path_factory) -> Path:
    return write_view(cards[1], cards[0], out=tmp_path_factory.mktemp("page") / "view.html")


def _open(driver, path: Path) -> None:
    driver.get(path.resolve().as_uri())
    driver.find_element("id", "sk-decision")


def _grid_cases(driver, dimension: str) -> list[str]:
    return driver.execute_script("""
        for (const sec of document.querySelectorAll('#sk-grids section')) {
          if (sec.querySelector('h3 code').textContent === arguments[0])
            return Array.from(sec.querySelectorAll('td.sk-case')).map(td => td.textContent);
        }
        return null;""", dimension)


def _no_request_left(driver) -> None:
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"] == []


@pytest.mark.timeout(240)
def test_browser_sorts_the_dimension_table_by_a_column(driver, page):
    from selenium.webdriver.common.by import By

    _open(driver, page)
    names = lambda: [td.text for td in driver.find_elements(By.CSS_SELECTOR, "#sk-dimensions tbody td:first-child")]  # noqa: E731
    assert names() == ["alpha_dim", "beta_dim", "gamma_dim", "task"]
    button = driver.find_element(By.XPATH, "//table[@id='sk-dimensions']//th/button[text()='rate']")
    button.click()  # alpha 50%, gamma 75%, task 22 of 26 (84.6%), beta 100%
    assert names() == ["alpha_dim", "gamma_dim", "task", "beta_dim"]
    button.click()
    assert names() == ["beta_dim", "task", "gamma_dim", "alpha_dim"]
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_filters_by_status_reason_and_text(driver, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(driver, page)
    everything = sorted(["t0", "t1", "t2", "t3", "t4", "t5", *HOSTILE])
    assert sorted(_grid_cases(driver, "task")) == everything
    status = Select(driver.find_element(By.ID, "sk-filter-status"))
    status.select_by_value("FAIL")
    assert _grid_cases(driver, "task") == ["t2", "t3"]
    assert _grid_cases(driver, "alpha_dim") == ["a2", "a3"]  # rate 50%: cases 2 and 3 fail
    status.select_by_value("ERROR")
    assert _grid_cases(driver, "task") == ["t3"]
    assert _grid_cases(driver, "alpha_dim") == []
    status.select_by_value("")
    reason = Select(driver.find_element(By.ID, "sk-filter-reason"))
    assert "tool_timeout" in [o.text for o in reason.options]
    reason.select_by_value("tool_timeout")
    assert _grid_cases(driver, "task") == ["t3"]
    reason.select_by_value("prescored_fail")
    assert _grid_cases(driver, "task") == ["t2"]
    reason.select_by_value("")
    text = driver.find_element(By.ID, "sk-filter-text")
    text.send_keys("NEEDLE")
    assert _grid_cases(driver, "task") == ["t4"]
    assert _grid_cases(driver, "beta_dim") == []
    text.clear()
    text.send_keys("x")  # clear() fires no input event: type, then erase, so the grid redraws
    text.send_keys("\b")
    assert sorted(_grid_cases(driver, "task")) == everything
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_shows_a_cases_rows_on_click(driver, page):
    from selenium.webdriver.common.by import By

    _open(driver, page)
    cell = driver.find_element(By.XPATH, "//div[@id='sk-grids']//td[contains(@class,'sk-case') and text()='t3']")
    cell.click()
    panel = driver.find_element(By.ID, "sk-case")
    assert panel.is_displayed()
    assert panel.find_element(By.CLASS_NAME, "sk-case-id").text == "t3"
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in panel.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert [r[:4] for r in rows] == [["task", "0", "FAIL", "tool_timeout"], ["task", "1", "ERROR", "crashed"],
                                     ["task", "2", "PASS", "—"]]
    assert rows[2][5] == "answer of t3 trial 2"


@pytest.mark.timeout(240)
def test_browser_shows_the_comparison_with_its_regressed_and_improved_cases(driver, page):
    from selenium.webdriver.common.by import By

    _open(driver, page)
    assert "agent 1 → agent 2" in driver.find_element(By.CSS_SELECTOR, "#sk-compare h2").text
    cases = lambda box: [tr.find_elements(By.TAG_NAME, "td")[1].text  # noqa: E731
                         for tr in driver.find_elements(By.CSS_SELECTOR, f"#{box} tbody tr")]
    assert cases("sk-regressed") == ["t2", "t3"]
    assert cases("sk-improved") == ["t1"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#sk-compare-table tbody tr")) == 4
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_keeps_hostile_case_ids_as_text(driver, page):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    _open(driver, page)
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018
    assert len(driver.find_elements(By.TAG_NAME, "script")) == 2
    assert driver.find_elements(By.ID, "pwn") == [] and driver.find_elements(By.TAG_NAME, "a") == []
    assert driver.find_elements(By.CSS_SELECTOR, "#sk-grids b") == []
    shown = _grid_cases(driver, "task")
    assert set(HOSTILE) <= set(shown) and len(shown) == len(set(shown)) == 6 + len(HOSTILE)  # each case once
    hostile = driver.find_element(By.XPATH, "//div[@id='sk-grids']//td[contains(@class,'sk-case')]"
                                            "[text()='javascript:alert(1)']")
    hostile.click()
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018
    assert driver.find_element(By.CSS_SELECTOR, "#sk-case .sk-case-id").text == "javascript:alert(1)"
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_above_the_row_limit_shows_per_case_counts_and_says_so(driver, cards, tmp_path):
    from selenium.webdriver.common.by import By

    path = write_view(cards[1], out=tmp_path / "big.html", row_limit=10)
    _open(driver, path)
    note = driver.find_element(By.ID, "sk-limit-note")
    assert note.is_displayed() and "per-case counts" in note.text and "10 this page embeds" in note.text
    assert driver.find_elements(By.CSS_SELECTOR, "table.sk-counts")
    alpha = driver.execute_script("""
        for (const sec of document.querySelectorAll('#sk-grids section'))
          if (sec.querySelector('h3 code').textContent === 'alpha_dim')
            return Array.from(sec.querySelectorAll('tbody tr')).map(
              tr => Array.from(tr.children).map(td => td.textContent));""")
    assert alpha == [["a0", "2", "0", "0", "0"], ["a1", "2", "0", "0", "0"], ["a2", "0", "2", "0", "0"],
                     ["a3", "0", "2", "0", "0"]]
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_draws_the_first_500_cases_of_a_dimension_until_asked_for_all(driver, tmp_path):
    from selenium.webdriver.common.by import By

    rows = [{"id": f"w{c}", "dimension": "wide", "case_id": f"c{c:03d}", "trial": 0, "status": "PASS",
             "evaluator": "harness"} for c in range(501)]
    path = write_view(sk.evaluate(rows, policy=POLICY), out=tmp_path / "wide.html")
    _open(driver, path)
    assert _grid_cases(driver, "wide") == [f"c{c:03d}" for c in range(500)]
    more = driver.find_element(By.CSS_SELECTOR, "#sk-grids .sk-more")
    assert "first 500 of 501 matching cases" in more.text
    more.find_element(By.TAG_NAME, "button").click()
    assert _grid_cases(driver, "wide") == [f"c{c:03d}" for c in range(501)]
    assert driver.find_elements(By.CSS_SELECTOR, "#sk-grids .sk-more") == []
    _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_check_for_requests_sees_one_the_csp_blocks(driver, page, tmp_path):
    """The no-request check can fail: an image by URL slipped into the page is blocked and logged."""
    html = page.read_text(encoding="utf-8").replace("<main", '<img src="http://127.0.0.1:9/x.png" alt=""><main', 1)
    bad = tmp_path / "bad.html"
    bad.write_text(html, encoding="utf-8")
    _open(driver, bad)
    with pytest.raises(AssertionError):
        _no_request_left(driver)


@pytest.mark.timeout(240)
def test_browser_page_fits_1200_px_without_sideways_scrolling(driver, page):
    from test_browser import _at_width

    _at_width(driver, 1200)
    try:
        _open(driver, page)
        scroll, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert inner == 1200 and scroll <= inner
        wide = driver.execute_script("""return Array.from(document.querySelectorAll('table')).filter(
            t => t.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right + 0.5).length""")
        assert wide == 0
    finally:
        driver.set_window_size(1280, 2000)
