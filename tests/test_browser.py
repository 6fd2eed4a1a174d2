"""Acceptance: headless Chromium opens the rendered reports (file:// URL).

The decision banner and the charts must be there, and the page must log no
console error. Selenium drives Debian's ``chromium`` through
``/usr/bin/chromedriver`` given explicitly, so Selenium Manager never downloads
a browser or a driver. Without a browser the test skips only when ``CI`` is
unset; under CI a missing browser fails (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from _rendered import rendered_example

CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-dev-shm-usage", "--window-size=1280,2000")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _browser_missing() -> str | None:
    if _chromium() is None:
        return "no chromium on PATH"
    if not CHROMEDRIVER.is_file():
        return f"no {CHROMEDRIVER}"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def driver():
    missing = _browser_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the browser test cannot run: {missing}")
        pytest.skip(f"headless browser unavailable: {missing}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = _chromium()  # the system browser: nothing for Selenium Manager to fetch
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def rendered():
    return rendered_example()


def _severe(browser) -> list[dict]:
    return [entry for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]


@pytest.mark.timeout(240)
def test_browser_shows_the_decision_banner_and_the_charts_without_console_errors(driver, rendered):
    from selenium.webdriver.common.by import By

    decision = json.loads(rendered.reports["json"].read_text(encoding="utf-8"))["decision"]
    for page in (rendered.html, rendered.reports["html"]):
        driver.get(page.resolve().as_uri())
        banner = driver.find_element(By.ID, "sk-decision")
        assert banner.is_displayed()
        assert banner.find_element(By.CLASS_NAME, "sk-decision-value").text == decision
        charts = driver.find_elements(By.CSS_SELECTOR, "svg[role=img]")
        assert len(charts) == 2, page.name  # rates and pass^k, inline
        assert all(chart.is_displayed() and chart.size["width"] > 300 for chart in charts)
        assert driver.find_elements(By.CSS_SELECTOR, "table.sk-measures tbody tr")
        assert not driver.find_elements(By.TAG_NAME, "script")
        assert _severe(driver) == []
