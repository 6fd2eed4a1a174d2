"""``scorekit report`` / ``render_stored``: re-render a stored scorecard.json (SPEC §17)."""

from __future__ import annotations

import json
import re

import pytest

import scorekit as sk
from scorekit import InputError
from scorekit.reports import REPORT_FILES, render_stored, write_reports


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    out = tmp_path_factory.mktemp("original")
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="mail-agent", agent_version="2.1.0")
    return write_reports(card, out)


def test_rerendered_reports_equal_the_originals(stored, tmp_path):
    written = render_stored(stored["json"], tmp_path)
    assert set(written) == {"markdown", "html"}
    for kind in written:
        assert written[kind].read_bytes() == stored[kind].read_bytes(), kind


def test_default_out_dir_is_beside_the_scorecard(stored, tmp_path):
    copy = tmp_path / "scorecard.json"
    copy.write_bytes(stored["json"].read_bytes())
    written = render_stored(copy)
    assert {p.parent for p in written.values()} == {tmp_path}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [REPORT_FILES["json"], REPORT_FILES["markdown"], REPORT_FILES["html"]])


def test_report_cli_reproduces_the_original_numbers(run_cli, stored, tmp_path):
    code, out, err = run_cli("report", stored["json"], "--out-dir", tmp_path)
    assert code == 0, err
    assert out.splitlines() == [f"wrote {tmp_path / 'scorecard.md'}", f"wrote {tmp_path / 'scorecard.html'}"]
    percentages = re.compile(r"\d+\.\d%")
    for kind in ("markdown", "html"):
        again = (tmp_path / REPORT_FILES[kind]).read_text("utf-8")
        assert percentages.findall(again) == percentages.findall(stored[kind].read_text("utf-8"))


def test_a_file_that_is_not_a_scorecard_is_exit_2_in_one_line(run_cli, tmp_path):
    bad = tmp_path / "scorecard.json"
    bad.write_text(json.dumps({"decision": "PASS"}), encoding="utf-8")
    code, out, err = run_cli("report", bad, "--out-dir", tmp_path / "r")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and str(bad) in err and "is a required property" in err
    assert not (tmp_path / "r").exists()  # nothing rendered, nothing written


@pytest.mark.parametrize("text, says", [
    ('{"decision": NaN}', "NaN"),
    ("not json", "not valid JSON"),
    ('{"a": 1, "a": 2}', "a"),
])
def test_an_unreadable_scorecard_is_exit_2_naming_the_file(run_cli, tmp_path, text, says):
    bad = tmp_path / "scorecard.json"
    bad.write_text(text, encoding="utf-8")
    code, _, err = run_cli("report", bad)
    assert code == 2 and str(bad) in err and says in err and len(err.strip().splitlines()) == 1


def test_a_missing_scorecard_is_exit_2(run_cli, tmp_path):
    code, _, err = run_cli("report", tmp_path / "nope.json")
    assert code == 2 and "not found" in err


def test_a_tampered_number_is_refused_not_rendered(stored, tmp_path):
    data = json.loads(stored["json"].read_text("utf-8"))
    data["dimensions"][0]["rate"] = 0.123
    path = tmp_path / "scorecard.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=r"scorecard\.json: \$\.dimensions\[0\]\.rate is 0\.123, but its counts give"):
        render_stored(path)  # SPEC §20: recomputed from the stored counts, never shown as evidence
    assert not (tmp_path / "scorecard.md").exists()
