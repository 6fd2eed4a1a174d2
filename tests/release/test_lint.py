"""``scorekit release-lint``: the storage convention as a check (seed 001 "Storage convention")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.release._lint import lint_doc_root, tag_names_version

GOOD_README = """# @amd-gaia/agent-email

Triage your inbox on device.

**Aggregate score: 84.67** (out of 100) — see the [release scorecard](./SCORECARD.md).
"""


@pytest.fixture
def doc_root(tmp_path, write_card) -> Path:
    """A doc root that follows the convention: SCORECARD.md, README linking it, package.json listing it."""
    root = tmp_path / "npm"
    write_card(root)  # aggregate 84.67
    (root / "README.md").write_text(GOOD_README, encoding="utf-8")
    (root / "package.json").write_text(json.dumps({"name": "@amd-gaia/agent-email", "version": "0.3.0",
                                                   "files": ["client", "README.md", "SCORECARD.md"]}),
                                       encoding="utf-8")
    return root




def test_doc_root_following_the_convention_has_no_problems(doc_root, run_cli):
    assert lint_doc_root(doc_root) == []
    code, out, err = run_cli("release-lint", "--doc-root", doc_root)
    assert (code, err) == (0, "") and out.strip().endswith("ok")


def test_package_json_is_optional(doc_root):
    (doc_root / "package.json").unlink()
    assert lint_doc_root(doc_root) == []


# --------------------------------------------------------------------------- SCORECARD.md
def test_missing_scorecard_is_a_problem(doc_root):
    (doc_root / "SCORECARD.md").unlink()
    (problem,) = lint_doc_root(doc_root)
    assert problem.startswith(f"{doc_root / 'SCORECARD.md'}: not found")


def test_invalid_scorecard_lists_every_problem(doc_root, make_card_text):
    text = make_card_text(set={"aggregate.value": 90.0, "agent.version": "three"})
    (doc_root / "SCORECARD.md").write_text(text, encoding="utf-8")
    problems = lint_doc_root(doc_root)
    assert any("agent.version" in p for p in problems) and any("aggregate.value" in p for p in problems)
    assert all(p.startswith(str(doc_root / "SCORECARD.md")) for p in problems)


def test_unparseable_scorecard_is_one_problem(doc_root):
    (doc_root / "SCORECARD.md").write_text("---\n[1, 2]\n---\n", encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert "not a mapping" in problem


def test_missing_doc_root_is_a_problem_and_exit_1(tmp_path, run_cli):
    code, out, err = run_cli("release-lint", "--doc-root", tmp_path / "nope")
    assert code == 1 and out.strip() == f"{tmp_path / 'nope'}: doc root not found"
    assert err == f"scorekit release-lint: {tmp_path / 'nope'}: 1 problem\n"


# --------------------------------------------------------------------------- README link
def test_missing_readme_is_a_problem(doc_root):
    (doc_root / "README.md").unlink()
    (problem,) = lint_doc_root(doc_root)
    assert problem.startswith(f"{doc_root / 'README.md'}: not found")


@pytest.mark.parametrize(
    "link",
    [
        "[scorecard](./SCORECARD.md)",
        "[scorecard](./SCORECARD.md#reproduction)",
        '[scorecard](./SCORECARD.md "Eval scorecard")',
        "[scorecard]\n\n[scorecard]: ./SCORECARD.md",
        '<a href="./SCORECARD.md">scorecard</a>',
        "<./SCORECARD.md>",
        "See ./SCORECARD.md.",
    ],
)
def test_readme_linking_dot_slash_scorecard_is_accepted(doc_root, link):
    (doc_root / "README.md").write_text(f"# Agent\n\n{link}\n", encoding="utf-8")
    assert lint_doc_root(doc_root) == []


@pytest.mark.parametrize(
    ("link", "hint"),
    [
        ("[scorecard](SCORECARD.md)", True),
        ("See SCORECARD.md", True),
        ("[scorecard](../SCORECARD.md)", False),
        ("[scorecard](docs/./SCORECARD.md)", False),
        ("[scorecard](./SCORECARD.mdx)", False),
        ("[scorecard](./scorecard.md)", False),
        ("[scorecard](./SCORECARD.md.bak)", False),
        ("no link at all", False),
    ],
)
def test_readme_must_link_the_relative_dot_slash_scorecard(doc_root, link, hint):
    (doc_root / "README.md").write_text(f"# Agent\n\n{link}\n", encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert problem.startswith(f"{doc_root / 'README.md'}: does not link ./SCORECARD.md")
    assert ("must be the relative ./SCORECARD.md" in problem) == hint


# ------------------------------------------------------------------ README link: absolute URL pinned to the tag
@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/org/repo/blob/v0.3.0/SCORECARD.md",
        "https://github.com/org/repo/blob/0.3.0/SCORECARD.md",
        "https://github.com/amd/gaia/blob/agent-pkg-email-v0.3.0/hub/agents/email/npm/SCORECARD.md",
        "https://github.com/org/repo/tree/v0.3.0/SCORECARD.md#reproduction",
        "https://raw.githubusercontent.com/org/repo/v0.3.0/SCORECARD.md",
        "https://raw.githubusercontent.com/org/repo/refs/tags/v0.3.0/npm/SCORECARD.md",
        "https://gitlab.com/group/sub/repo/-/blob/v0.3.0/SCORECARD.md",
    ],
)
def test_readme_link_to_scorecard_pinned_to_the_release_tag_is_accepted(doc_root, url):
    # The card's agent.version is 0.3.0.
    (doc_root / "README.md").write_text(f"# Agent\n\nSee the [release scorecard]({url}).\n", encoding="utf-8")
    assert lint_doc_root(doc_root) == []
    (doc_root / "README.md").write_text(f"# Agent\n\nScorecard: {url}\n", encoding="utf-8")  # a bare URL
    assert lint_doc_root(doc_root) == []


@pytest.mark.parametrize(
    ("url", "pinned_to"),
    [
        ("https://github.com/org/repo/blob/main/SCORECARD.md", "'main'"),
        ("https://github.com/org/repo/blob/v0.2.9/SCORECARD.md", "'v0.2.9'"),
        ("https://github.com/org/repo/blob/v0.3.0-rc.1/SCORECARD.md", "'v0.3.0-rc.1'"),
        ("https://github.com/org/repo/blob/v10.3.0/SCORECARD.md", "'v10.3.0'"),
        ("https://raw.githubusercontent.com/org/repo/refs/heads/main/SCORECARD.md", "'main'"),
        ("https://github.com/org/repo/blob/3f2c1a9e8b7d6c5b4a39281706f5e4d3c2b1a098/SCORECARD.md",
         "'3f2c1a9e8b7d6c5b4a39281706f5e4d3c2b1a098'"),
    ],
)
def test_readme_link_to_scorecard_pinned_to_another_tag_or_a_branch_is_refused(doc_root, url, pinned_to):
    readme = doc_root / "README.md"
    readme.write_text(f"# Agent\n\n[scorecard]({url})\n", encoding="utf-8")
    problems = lint_doc_root(doc_root)
    assert problems[0] == (f"{readme}:3: links {url}, pinned to {pinned_to}, not to the tag of release 0.3.0 "
                           "(v0.3.0): a branch, a commit or another tag shows another card")
    assert problems[1].startswith(f"{readme}: does not link ./SCORECARD.md or SCORECARD.md at the release's tag")
    # Beside a relative link it is still wrong: that link shows another card than the release's.
    readme.write_text(f"# Agent\n\n[scorecard](./SCORECARD.md), also [here]({url})\n", encoding="utf-8")
    assert lint_doc_root(doc_root) == problems[:1]


@given(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)),
       st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)),
       st.sampled_from(["", "v", "agent-pkg-email-v", "release-", "pkg_v"]))
def test_a_tag_names_the_release_only_for_its_own_version(mine, other, prefix):
    version = ".".join(map(str, mine))
    tag = prefix + ".".join(map(str, other))
    assert tag_names_version(tag, version) == (mine == other)
    assert not tag_names_version(f"{prefix}{version}-rc.1", version)


def test_readme_link_to_scorecard_url_that_names_no_tag_is_refused(doc_root):
    readme = doc_root / "README.md"
    readme.write_text("# Agent\n\n[scorecard](https://example.org/agents/email/SCORECARD.md)\n", encoding="utf-8")
    (problem, missing) = lint_doc_root(doc_root)
    assert problem.startswith(f"{readme}:3: links https://example.org/agents/email/SCORECARD.md, which does not "
                              "say the git tag it is pinned to")
    assert "does not link ./SCORECARD.md" in missing


# --------------------------------------------------------------------------- README aggregate quote
@pytest.mark.parametrize(
    "quote",
    [
        "**Aggregate score: 84.67** (out of 100)",
        "Aggregate score: 84.67",
        "aggregate score of 84.67",
        "The aggregate is 84.67.",
        "Aggregate: 84.67%",
        "Aggregate score: `84.67`",
        "![aggregate](https://img.shields.io/badge/aggregate-84.67-green)",
        "Aggregate score: 84.670",
    ],
)
def test_readme_aggregate_equal_to_the_card_is_accepted(doc_root, quote):
    (doc_root / "README.md").write_text(f"# Agent\n\n{quote}\n\n[card](./SCORECARD.md)\n", encoding="utf-8")
    assert lint_doc_root(doc_root) == []


@pytest.mark.parametrize(
    ("quote", "quoted"),
    [
        ("**Aggregate score: 83.9** (out of 100)", "83.9"),
        ("aggregate score of 85", "85"),
        ("Aggregate: 84.7%", "84.7"),
        ("![aggregate](https://img.shields.io/badge/aggregate-80.10-green)", "80.10"),
    ],
)
def test_readme_aggregate_different_from_the_card_is_a_problem(doc_root, quote, quoted):
    (doc_root / "README.md").write_text(f"# Agent\n\n[card](./SCORECARD.md)\n\n{quote}\n", encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert problem == (f"{doc_root / 'README.md'}:5: quotes aggregate {quoted}, "
                       "but SCORECARD.md's aggregate.value is 84.67")


@pytest.mark.parametrize(
    "text",
    [
        "aggregate.value = round(100 × 0.40, 2) = 40.0",
        "## Aggregate score formula\n\nround(100 × Σ(wᵢ × vᵢ) / Σ(wᵢ), 2) = 40.0",
        "The aggregate is recomputable from 4 components.",
        "Aggregates of 3 runs are reported.",
    ],
)
def test_text_that_does_not_quote_an_aggregate_is_not_checked(doc_root, text):
    (doc_root / "README.md").write_text(f"# Agent\n\n[card](./SCORECARD.md)\n\n{text}\n", encoding="utf-8")
    assert lint_doc_root(doc_root) == []


def test_every_stale_quote_is_reported(doc_root):
    (doc_root / "README.md").write_text("[card](./SCORECARD.md)\n\nAggregate score: 80.0\n\nAggregate: 81\n",
                                        encoding="utf-8")
    assert [p.split(": quotes")[0] for p in lint_doc_root(doc_root)] == [
        f"{doc_root / 'README.md'}:3", f"{doc_root / 'README.md'}:5"]


# --------------------------------------------------------------------------- package.json and scorecards/
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON"),
        ('{"files": [NaN]}', "invalid JSON"),
        ('["SCORECARD.md"]', "must be a JSON object"),
        ('{"name": "x"}', 'has no "files" array'),
        ('{"files": "SCORECARD.md"}', '"files" must be an array'),
        ('{"files": ["README.md", "client"]}', '"files" does not list SCORECARD.md'),
        ('{"files": ["*.md"]}', '"files" does not list SCORECARD.md'),
    ],
)
def test_package_json_must_list_scorecard_in_files(doc_root, content, message):
    (doc_root / "package.json").write_text(content, encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert problem.startswith(str(doc_root / "package.json")) and message in problem


@pytest.mark.parametrize("entry", ["SCORECARD.md", "./SCORECARD.md"])
def test_package_json_files_entry_by_name_is_accepted(doc_root, entry):
    (doc_root / "package.json").write_text(json.dumps({"files": [entry]}), encoding="utf-8")
    assert lint_doc_root(doc_root) == []


def test_package_json_listing_a_scorecards_directory_is_a_problem(doc_root):
    (doc_root / "package.json").write_text(json.dumps({"files": ["SCORECARD.md", "scorecards/"]}), encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert "not a scorecards/ directory" in problem


def test_scorecards_folder_is_a_problem(doc_root):
    (doc_root / "scorecards").mkdir()
    (doc_root / "scorecards" / "v0.2.3.md").write_text("old", encoding="utf-8")
    (problem,) = lint_doc_root(doc_root)
    assert problem.startswith(f"{doc_root / 'scorecards'}: a scorecards/ folder is not the convention")


def test_every_problem_is_printed_one_line_each_and_exit_1(doc_root, run_cli):
    (doc_root / "scorecards").mkdir()
    (doc_root / "README.md").write_text("Aggregate score: 12.5\n", encoding="utf-8")
    (doc_root / "package.json").write_text('{"files": []}', encoding="utf-8")
    code, out, err = run_cli("release-lint", "--doc-root", doc_root)
    assert code == 1
    assert len(out.splitlines()) == 4 == len(lint_doc_root(doc_root))
    assert err == f"scorekit release-lint: {doc_root}: 4 problems\n"
