"""Reading a SCORECARD.md into front matter and body, and its bad files (release/_parse)."""

from __future__ import annotations

import pytest
from release_cards import card_text

from scorekit import InputError
from scorekit.release import (
    ScorecardDocument,
    ScorecardFileError,
    load_scorecard,
    parse_scorecard,
    parse_scorecard_text,
    validate_scorecard,
)
from scorekit.release._parse import reproduction_command_from_body

# --------------------------------------------------------------------------- bad files
BAD_TEXTS = [
    ("no_front_matter", "# Email Triage\n\nno front matter here\n", "no front matter"),
    ("empty_file", "", "no front matter"),
    ("unclosed_front_matter", "---\nschema_version: 1\nagent: {name: x}\n", "not closed"),
    ("invalid_yaml", "---\nschema_version: 1\nagent: [unclosed\n---\nbody\n", "not valid YAML"),
    ("list_front_matter", "---\n- schema_version\n- 1\n---\n", "a list, not a mapping"),
    ("scalar_front_matter", "---\njust a string\n---\n", "a scalar"),
    ("empty_front_matter", "---\n---\n# body\n", "empty"),
]


@pytest.mark.parametrize(("case", "text", "expected"), BAD_TEXTS, ids=[c[0] for c in BAD_TEXTS])
def test_bad_file_is_a_one_line_file_error(case, text, expected, tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text(text, encoding="utf-8")
    for call in (parse_scorecard, load_scorecard):
        with pytest.raises(ScorecardFileError) as info:
            call(path)
        message = str(info.value)
        assert "\n" not in message
        assert message.startswith(f"{path}: ") and expected in message
        assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)


def test_invalid_yaml_message_names_the_file_line(tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text("---\nschema_version: 1\nagent:\n  name: [x\n---\n", encoding="utf-8")
    with pytest.raises(ScorecardFileError, match=r"not valid YAML at line \d+"):
        parse_scorecard(path)


def test_directory_instead_of_file_is_a_file_error(tmp_path):
    with pytest.raises(ScorecardFileError, match="is a directory") as info:
        load_scorecard(tmp_path)
    assert "\n" not in str(info.value)


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(ScorecardFileError, match="does not exist"):
        load_scorecard(tmp_path / "SCORECARD.md")


def test_file_that_is_not_utf8_is_a_file_error(tmp_path, seed_front_matter_text):
    path = tmp_path / "SCORECARD.md"
    path.write_bytes(seed_front_matter_text.encode("utf-16"))
    with pytest.raises(ScorecardFileError, match="not UTF-8") as info:
        load_scorecard(path)
    assert "\n" not in str(info.value)
    path.write_bytes(seed_front_matter_text.encode("latin-1", errors="replace").replace(b"?", b"\xe9"))
    with pytest.raises(ScorecardFileError, match="not UTF-8"):
        parse_scorecard(path)


def test_utf8_bom_and_crlf_line_endings_are_accepted(tmp_path):
    text = card_text()
    path = tmp_path / "SCORECARD.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    doc = load_scorecard(path)
    plain = parse_scorecard_text(text)
    assert doc.front_matter == plain.front_matter
    assert doc.body == plain.body and "\r" not in doc.body
    assert doc.reproduction_command == plain.reproduction_command is not None


def test_bom_in_text_is_accepted(seed_front_matter_text):
    assert validate_scorecard(parse_scorecard_text("\ufeff" + seed_front_matter_text)) == []


def test_parse_text_names_its_source():
    with pytest.raises(ScorecardFileError, match=r"^HEAD~1:SCORECARD.md: no front matter"):
        parse_scorecard_text("hello", source="HEAD~1:SCORECARD.md")


def test_parse_does_not_validate():
    doc = parse_scorecard_text("---\nschema_version: 7\n---\n")
    assert isinstance(doc, ScorecardDocument) and doc.front_matter == {"schema_version": 7}
    assert doc.version is None and doc.aggregate_value is None and doc.metrics == [] and doc.config == {}


# --------------------------------------------------------------------------- reproduction section
def test_reproduction_command_is_read_from_the_fenced_block():
    body = "# T\n\n## Reproduction\n\nRun this:\n\n````bash\necho '```'\nmake eval\n````\n\n## Later\n"
    assert reproduction_command_from_body(body) == "echo '```'\nmake eval"
    assert reproduction_command_from_body("## Reproduction\n\n~~~\nA=1 run\n~~~\n") == "A=1 run"


@pytest.mark.parametrize("body", ["# no section\n", "## Reproduction\n\nNo reproduction command recorded.\n",
                                  "## Reproduction\n\nSee the [eval-scorecard docs](https://amd-gaia.ai/docs/reference/"
                                  "eval-scorecard) for the full reproduction recipe.\n",
                                  "## Reproduction\n\n## Next\n\n```\nnot this\n```\n",
                                  "## Reproduction\n\n```\nnever closed\n"])
def test_reproduction_command_absent_is_none(body):
    assert reproduction_command_from_body(body) is None
