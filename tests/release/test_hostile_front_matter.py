"""Hostile or broken front matter: never a traceback, never a hang, never a silent change.

A scorecard is read by the release gate on CI from files anyone can edit, so a
YAML alias bomb, a self-referencing alias, deep nesting, a duplicated key or a
value YAML cannot build is a one-line "unusable scorecard" (exit 1 in the
release commands, SPEC §13/§14) — and what ``render_scorecard`` writes reads
back exactly, whatever the strings in it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit._escape import code_text
from scorekit.release import (
    Metric,
    ResultPayload,
    ScorecardFileError,
    parse_scorecard,
    parse_scorecard_text,
    render_scorecard,
)
from scorekit.release._parse import MAX_FRONT_MATTER_CHARS, MAX_FRONT_MATTER_DEPTH


def _alias_bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        ref = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([ref] * 9)}]")
    return "\n".join(lines)


HOSTILE = [
    ("alias_bomb", _alias_bomb(), "too large"),
    ("self_referencing_alias", "a: &a [*a]", "nested too deeply"),
    ("deeper_than_the_bound", "a: " + "[" * (MAX_FRONT_MATTER_DEPTH + 5) + "]" * (MAX_FRONT_MATTER_DEPTH + 5),
     "nested too deeply"),
    ("deeper_than_the_yaml_composer_can_recurse", "a: " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("larger_than_the_bound", "a: '" + "x" * MAX_FRONT_MATTER_CHARS + "'", "too large"),
    ("duplicate_key", "schema_version: 1\nschema_version: 2", "duplicate key 'schema_version'"),
    ("impossible_date", "generated_at: 2026-13-45", "month must be in 1..12"),
    ("impossible_day", "generated_at: 2026-02-30T10:00:00Z", "day is out of range"),
    ("integer_with_too_many_digits", "recipe: {dataset: {size: 1" + "0" * 5000 + "}}", "not valid YAML"),
    ("python_object_tag", "a: !!python/object/apply:os.system ['true']", "not valid YAML"),
]
IDS = [case for case, _, _ in HOSTILE]


@pytest.mark.parametrize(("case", "yaml_text", "expected"), HOSTILE, ids=IDS)
def test_hostile_front_matter_is_a_one_line_file_error(case, yaml_text, expected, tmp_path):
    path = tmp_path / "SCORECARD.md"
    path.write_text(f"---\n{yaml_text}\n---\n# body\n", encoding="utf-8")
    with pytest.raises(ScorecardFileError) as info:
        parse_scorecard(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and expected in message


def test_more_values_than_the_bound_is_too_large(monkeypatch):
    monkeypatch.setattr("scorekit.release._parse.MAX_FRONT_MATTER_VALUES", 10)
    parse_scorecard_text("---\na: [1, 2, 3, 4, 5, 6, 7, 8]\n---\n")  # 10 values with the mapping and the list
    with pytest.raises(ScorecardFileError, match="too large"):
        parse_scorecard_text("---\na: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n---\n")


def test_file_larger_than_the_bound_is_refused_without_reading_it_all(monkeypatch, tmp_path):
    monkeypatch.setattr("scorekit.release._parse.MAX_SCORECARD_BYTES", 20)
    path = tmp_path / "SCORECARD.md"
    path.write_text("---\na: 1\n---\n# body\n", encoding="utf-8")  # 20 bytes
    assert parse_scorecard(path).front_matter == {"a": 1}
    path.write_text("---\na: 1\n---\n# body!\n", encoding="utf-8")
    with pytest.raises(ScorecardFileError, match="too large for a scorecard"):
        parse_scorecard(path)


def test_front_matter_at_the_depth_bound_is_read():
    depth = MAX_FRONT_MATTER_DEPTH - 1  # the mapping itself is one level
    doc = parse_scorecard_text("---\na: " + "[" * depth + "]" * depth + "\n---\n")
    node, levels = doc.front_matter, 1
    while node:
        node = node["a"] if isinstance(node, dict) else node[0]
        levels += 1
    assert levels == MAX_FRONT_MATTER_DEPTH


def _cli(run_cli, *argv) -> tuple[int, str]:
    code, _, err = run_cli(*argv)
    return code, err


@pytest.mark.parametrize(("case", "yaml_text", "expected"), HOSTILE, ids=IDS)
def test_release_commands_exit_1_with_one_line_on_hostile_front_matter(case, yaml_text, expected, tmp_path, run_cli):
    root = tmp_path / "doc-root"
    root.mkdir()
    card = root / "SCORECARD.md"
    card.write_text(f"---\n{yaml_text}\n---\n", encoding="utf-8")
    (root / "README.md").write_text("[scorecard](./SCORECARD.md)\n", encoding="utf-8")
    commands = [
        ("gate", "--scorecard", card),
        ("carry-forward", "--scorecard", card, "--version", "0.3.1", "--out", tmp_path / "out.md"),
        ("refresh-check", "--scorecard", card, "--limit", "220", "--experiments", "3"),
        ("release-lint", "--doc-root", root),
    ]
    for argv in commands:
        code, err = _cli(run_cli, *argv)
        assert code == 1, (argv[0], err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv[0], err)
    assert not (tmp_path / "out.md").exists()


# --------------------------------------------------------------------------- what is written reads back exactly
# Characters that YAML or Markdown treat specially, line breaks of every kind
# (PyYAML once turned a trailing U+0085 into a space), and the card's own markers.
_TRICKY = list("-.#`~|>!&*?%@[]{},<>:'\"\\ \t\n\r") + [
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "é",
    "---",
    "## Reproduction",
]
tricky_text = st.lists(st.sampled_from(_TRICKY + ["a", "b"]), min_size=1, max_size=12).map("".join).filter(str.strip)


@settings(max_examples=150, deadline=None)
@given(name=tricky_text, reference=tricky_text, key=tricky_text, value=tricky_text, metric=tricky_text,
       command=st.one_of(st.none(), tricky_text))
def test_rendered_card_reads_back_exactly_whatever_its_strings(name, reference, key, value, metric, command):
    args = (name, "1.0.0", reference, value, 10, value, {key: value}, 10,
            [Metric("within_one_bucket_accuracy", 0.5), Metric("x" + metric, 0.25, 0.0)])
    kwargs = {"environment": {"hardware": value}, "generated_at": "2026-01-01T00:00:00+00:00"}
    if command is not None and code_text(command.replace("\r\n", "\n").replace("\r", "\n")) != \
            command.replace("\r\n", "\n").replace("\r", "\n"):
        # A code block shows its text as it is: a command it cannot show is refused, never rewritten.
        with pytest.raises(ValueError, match="reproduction_command holds U\\+"):
            ResultPayload(*args, reproduction_command=command, **kwargs)
        command = None
    payload = ResultPayload(*args, reproduction_command=command, **kwargs)
    doc = parse_scorecard_text(render_scorecard(payload))
    assert doc.front_matter == payload.to_front_matter()
    assert doc.reproduction_command == payload.reproduction_command


def test_agent_name_cannot_inject_front_matter_or_a_reproduction_section():
    evil = "Evil\n---\nschema_version: 2\n## Reproduction\n```bash\nrm -rf /\n```"
    payload = ResultPayload(evil, "1.0.0", "d.json", "demo", 10, "exact match", {}, 10,
                            [Metric("category_accuracy", 0.4)], reproduction_command="make eval")
    doc = parse_scorecard_text(render_scorecard(payload))
    assert doc.front_matter["schema_version"] == 1 and doc.agent_name == evil
    assert doc.reproduction_command == "make eval"
