"""``scorekit carry-forward``: patch releases carry the card forward; the gate's equal-score case passes."""

from __future__ import annotations

import shutil

import pytest

from scorekit.release import load_scorecard
from scorekit.release._gate import gate


@pytest.fixture
def card(tmp_path, write_card):
    return write_card(tmp_path / "npm", version="0.2.4", stdev=0.0116)


def test_carry_forward_rewrites_the_card_in_place_and_the_gate_passes_against_the_original(card, tmp_path, run_cli):
    original = shutil.copy(card, tmp_path / "prev-SCORECARD.md")
    code, out, err = run_cli("carry-forward", "--scorecard", card, "--version", "0.2.5")
    assert (code, err) == (0, "")
    assert f"wrote {card}" in out
    doc = load_scorecard(card)
    assert (doc.version, doc.inherited_from, doc.aggregate_value) == ("0.2.5", "0.2.4", 84.67)
    result = gate(card, baseline_file=original)
    assert (result.exit_code, result.outcome) == (0, "equal")
    code, out, _ = run_cli("gate", "--scorecard", card, "--baseline-file", original, "--min-aggregate", "80")
    assert code == 0 and out.splitlines()[-1] == "outcome: PASS (equal)"


def test_carry_forward_with_out_leaves_the_card_untouched(card, tmp_path, run_cli):
    before = card.read_bytes()
    out_path = tmp_path / "next" / "SCORECARD.md"
    out_path.parent.mkdir()
    code, out, _ = run_cli("carry-forward", "--scorecard", card, "--version", "0.2.9", "--out", out_path)
    assert code == 0 and f"wrote {out_path}" in out
    assert card.read_bytes() == before
    assert load_scorecard(out_path).version == "0.2.9"
    assert gate(out_path, baseline_file=card).outcome == "equal"


@pytest.mark.parametrize(
    ("version", "words"),
    [("0.3.0", "minor bump"), ("1.0.0", "major bump"), ("0.2.4", "same"), ("0.2.3", "lower"), ("0.1.9", "lower")],
    ids=["minor", "major", "same", "downgrade-patch", "downgrade-minor"],
)
def test_carry_forward_other_than_a_patch_bump_is_exit_1_with_one_line(card, run_cli, version, words):
    before = card.read_bytes()
    code, out, err = run_cli("carry-forward", "--scorecard", card, "--version", version)
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"scorekit carry-forward: {card}: ") and words in err
    assert card.read_bytes() == before


def test_prerelease_carry_forward_is_exit_1_with_one_line(card, tmp_path, write_card, run_cli):
    before = card.read_bytes()
    code, out, err = run_cli("carry-forward", "--scorecard", card, "--version", "0.2.5-rc.1")
    assert (code, out) == (1, "") and len(err.splitlines()) == 1 and "prerelease" in err
    assert card.read_bytes() == before
    rc_card = write_card(tmp_path / "rc", version="0.2.5-rc.1")
    code, out, err = run_cli("carry-forward", "--scorecard", rc_card, "--version", "0.2.6")
    assert (code, out) == (1, "") and len(err.splitlines()) == 1 and "prerelease" in err


@pytest.mark.parametrize("case", ["missing", "directory", "no front matter", "invalid"])
def test_carry_forward_from_a_missing_or_invalid_card_is_exit_1(tmp_path, make_card_text, run_cli, case):
    path = tmp_path / "SCORECARD.md"
    if case == "directory":
        path.mkdir()
    elif case == "no front matter":
        path.write_text("# nothing\n", encoding="utf-8")
    elif case == "invalid":
        path.write_text(make_card_text(version="0.2.4", set={"aggregate.value": 12.0}), encoding="utf-8")
    code, out, err = run_cli("carry-forward", "--scorecard", path, "--version", "0.2.5")
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and str(path) in err and "Traceback" not in err


@pytest.mark.parametrize("version", ["0.2", "v0.2.5", "0.2.5.1", ""])
def test_carry_forward_to_a_non_semver_version_is_a_usage_error_exit_2(card, run_cli, version):
    code, out, err = run_cli("carry-forward", "--scorecard", card, "--version", version)
    assert code == 2 and out == "" and "usage: scorekit carry-forward" in err


def test_carry_forward_into_a_missing_folder_is_exit_2_with_one_line(card, tmp_path, run_cli):
    code, out, err = run_cli("carry-forward", "--scorecard", card, "--version", "0.2.5",
                             "--out", tmp_path / "no" / "such" / "SCORECARD.md")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "cannot write the scorecard" in err
