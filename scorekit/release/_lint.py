"""The storage convention as a check (seed 001 "Storage convention"; SPEC §13).

``<doc-root>/`` holds the agent's canonical ``README.md`` and a single
``SCORECARD.md`` updated in place; the README links it as ``./SCORECARD.md``
(which resolves both in-repo and in the published npm package); a
``package.json``, when the doc root is an npm package, lists ``SCORECARD.md``
in ``files``; there is no ``scorecards/`` folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from .._files import DEFAULT_LIMIT, FileProblem, read_bounded
from ._document import ScorecardFileError, ScorecardInvalidError, load_scorecard

__all__ = ["README_AGGREGATE_PATTERN", "README_LINK_PATTERN", "lint_doc_root"]

# ``./SCORECARD.md`` as a whole path: a Markdown link target ``(./SCORECARD.md)``,
# ``(./SCORECARD.md#reproduction)``, a reference definition, an HTML href or a bare
# mention. Not ``../SCORECARD.md``, ``docs/./SCORECARD.md`` or ``./SCORECARD.mdx``.
README_LINK_PATTERN = re.compile(r"(?<![\w./\\-])\./SCORECARD\.md(?![\w-])(?!\.\w)")
_BARE_NAME = re.compile(r"(?<![\w./\\-])SCORECARD\.md(?![\w-])(?!\.\w)")

# An aggregate the README quotes: the word "aggregate" (any case), optionally
# "score", then separators (spaces, ':', '=', '-', '|', Markdown emphasis or code
# marks, "of" / "is") and a number on the same line — "**Aggregate score:
# 84.67**", "aggregate score of 84.67", "Aggregate: 84.67%", "aggregate-84.67"
# (a badge), "| Aggregate score | 84.67 |" (a table row). "aggregate.value =
# round(100 × …)" and "aggregate score formula" are not quotes.
README_AGGREGATE_PATTERN = re.compile(
    r"\baggregate(?:[ \t]+score)?(?:[ \t*_:=`|-]|[ \t](?:of|is)[ \t])+[ \t*_`]*"
    r"(?P<value>\d{1,3}(?:\.\d+)?)(?![\d.]*\d)",
    re.IGNORECASE,
)

_PACKAGE_FILES_ENTRIES = ("SCORECARD.md", "./SCORECARD.md", "/SCORECARD.md")


def lint_doc_root(path: str | os.PathLike[str]) -> list[str]:
    """Every way ``path`` breaks the scorecard storage convention; ``[]`` when none.

    Checks, each problem one line naming the file:

    - ``SCORECARD.md`` exists and is a valid scorecard;
    - ``README.md`` exists and links the relative path ``./SCORECARD.md``
      (strict: a bare ``SCORECARD.md`` or ``../SCORECARD.md`` does not count,
      because only ``./SCORECARD.md`` resolves both in-repo and on npm);
    - every aggregate the README quotes (:data:`README_AGGREGATE_PATTERN`,
      e.g. ``Aggregate score: 84.67``) equals the card's ``aggregate.value``;
    - a ``package.json``, if present, is valid JSON whose ``files`` array
      lists ``SCORECARD.md`` (globs such as ``*.md`` are not accepted: the
      document asks for the file by name);
    - there is no ``scorecards/`` folder in the doc root.

    Parameters
    ----------
    path : str or os.PathLike
        The doc root (the folder of the agent's canonical README).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import tempfile
    >>> problems = lint_doc_root(tempfile.mkdtemp())  # an empty folder
    >>> len(problems), "SCORECARD.md: not found" in problems[0], "README.md: not found" in problems[1]
    (2, True, True)
    """
    root = Path(path)
    if not root.is_dir():
        what = "not found" if not root.exists() else "not a directory"
        return [f"{root}: doc root {what}"]
    problems: list[str] = []

    card = root / "SCORECARD.md"
    aggregate: float | None = None
    if not card.exists():
        problems.append(f"{card}: not found (each agent package ships a single SCORECARD.md in its doc root)")
    else:
        try:
            aggregate = float(load_scorecard(card).aggregate_value)
        except ScorecardInvalidError as exc:
            found = list(getattr(exc, "problems", [])) or [str(exc)]
            problems.extend(f"{card}: invalid scorecard: {p}" for p in found)
        except ScorecardFileError as exc:
            problems.append(str(exc))

    problems.extend(_readme_problems(root / "README.md", aggregate))
    problems.extend(_package_problems(root / "package.json"))

    for entry in sorted(root.iterdir()):
        if entry.name.lower() == "scorecards" and entry.is_dir():
            problems.append(
                f"{entry}: a scorecards/ folder is not the convention; keep one SCORECARD.md "
                "updated in place (per-version copies come from the publish snapshot)"
            )
    return problems


def _readme_problems(readme: Path, aggregate: float | None) -> list[str]:
    if not readme.is_file():
        what = "is not a file" if readme.exists() else "not found"
        return [f"{readme}: {what} (the doc root's README must link ./SCORECARD.md)"]
    try:
        text = read_bounded(readme, DEFAULT_LIMIT).decode("utf-8-sig")
    except FileProblem as problem:
        return [problem.message(str(readme), "README file")]
    except UnicodeDecodeError as exc:
        return [f"{readme}: not UTF-8 (invalid byte at offset {exc.start})"]
    except OSError as exc:
        return [f"{readme}: cannot read: {exc.strerror or exc}"]
    problems = []
    if not README_LINK_PATTERN.search(text):
        hint = (" (it names SCORECARD.md, but the link must be the relative ./SCORECARD.md, "
                "which resolves both in-repo and in the npm package)") if _BARE_NAME.search(text) else ""
        problems.append(f"{readme}: does not link ./SCORECARD.md{hint}")
    if aggregate is not None:
        for match in README_AGGREGATE_PATTERN.finditer(text):
            quoted = float(match.group("value"))
            if quoted != aggregate:
                line = text.count("\n", 0, match.start()) + 1
                problems.append(
                    f"{readme}:{line}: quotes aggregate {match.group('value')}, "
                    f"but SCORECARD.md's aggregate.value is {aggregate}"
                )
    return problems


def _package_problems(package: Path) -> list[str]:
    if not package.exists():
        return []

    def reject_constant(token: str) -> Any:
        raise ValueError(f"{token} is not allowed")

    try:
        data = json.loads(read_bounded(package, DEFAULT_LIMIT).decode("utf-8-sig"), parse_constant=reject_constant)
    except FileProblem as problem:  # a FIFO or a device: never hang or read without end
        return [problem.message(str(package), "package.json file")]
    except UnicodeDecodeError as exc:
        return [f"{package}: not UTF-8 (invalid byte at offset {exc.start})"]
    except json.JSONDecodeError as exc:
        return [f"{package}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"]
    except (ValueError, RecursionError) as exc:
        return [f"{package}: invalid JSON: {exc}"]
    except OSError as exc:
        return [f"{package}: cannot read: {exc.strerror or exc}"]
    if not isinstance(data, dict):
        return [f"{package}: must be a JSON object"]
    files = data.get("files")
    if files is None:
        return [f"{package}: has no \"files\" array; list SCORECARD.md in it so npm ships the scorecard"]
    if not isinstance(files, list):
        return [f"{package}: \"files\" must be an array; got {type(files).__name__}"]
    problems = []
    if not any(isinstance(f, str) and f in _PACKAGE_FILES_ENTRIES for f in files):
        problems.append(f"{package}: \"files\" does not list SCORECARD.md (by name; a glob does not count)")
    for entry in files:
        if isinstance(entry, str) and entry.lstrip("./").lower().split("/")[0] == "scorecards":
            problems.append(f"{package}: \"files\" lists {entry!r}; ship SCORECARD.md, not a scorecards/ directory")
    return problems

