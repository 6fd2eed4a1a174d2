"""The storage convention as a check (seed 001 "Storage convention"; SPEC §13).

``<doc-root>/`` holds the agent's canonical ``README.md`` and a single
``SCORECARD.md`` updated in place; the README links it as ``./SCORECARD.md``
(which resolves both in-repo and in the published npm package) or by an
absolute URL pinned to the release's tag (which shows the released card
wherever the README is read); a
``package.json``, when the doc root is an npm package, lists ``SCORECARD.md``
in ``files``; there is no ``scorecards/`` folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .._errors import FileProblem, InputError, StrictJSONError
from .._io import DEFAULT_LIMIT, decode_utf8, loads_strict, read_bounded
from ._parse import ScorecardFileError
from ._schema import ScorecardInvalidError, load_scorecard

__all__ = ["README_AGGREGATE_PATTERN", "README_LINK_PATTERN", "README_URL_PATTERN", "lint_doc_root", "pinned_ref",
           "tag_names_version"]

# ``./SCORECARD.md`` as a whole path: a Markdown link target ``(./SCORECARD.md)``,
# ``(./SCORECARD.md#reproduction)``, a reference definition, an HTML href or a bare
# mention. Not ``../SCORECARD.md``, ``docs/./SCORECARD.md`` or ``./SCORECARD.mdx``.
README_LINK_PATTERN = re.compile(r"(?<![\w./\\-])\./SCORECARD\.md(?![\w-])(?!\.\w)")
_BARE_NAME = re.compile(r"(?<![\w./\\-])SCORECARD\.md(?![\w-])(?!\.\w)")

# An absolute http(s) URL whose path ends in /SCORECARD.md (a fragment or query may follow).
README_URL_PATTERN = re.compile(
    r"https?://[^\s<>()\[\]\"'`]+?/SCORECARD\.md(?=$|[\s#?<>()\[\]\"'`*]|[.,;:!](?:\s|$))", re.MULTILINE
)
# Path segments after which a forge names the ref: GitHub and GitLab (``/-/blob/``)
# ``blob``/``tree``/``raw``, Bitbucket ``src``; Gitea ``src/tag|branch|commit/<ref>``.
_REF_MARKERS = ("blob", "tree", "raw", "src")
_RAW_HOSTS = ("raw.githubusercontent.com",)

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


def pinned_ref(url: str) -> str | None:
    """The git ref (tag, branch or commit) a forge URL of a file is pinned to; None when the URL does not say.

    GitHub ``/blob/<ref>/``, ``/tree/<ref>/``, ``/raw/<ref>/`` and
    ``raw.githubusercontent.com/<owner>/<repo>/<ref>/``; GitLab ``/-/blob/<ref>/``;
    Bitbucket ``/src/<ref>/``; Gitea ``/src/tag/<ref>/``. ``refs/tags/<tag>``
    and ``refs/heads/<branch>`` are read as the tag or branch; percent-escapes
    are decoded.

    Examples
    --------
    >>> pinned_ref("https://github.com/org/repo/blob/v1.4.0/SCORECARD.md")
    'v1.4.0'
    >>> pinned_ref("https://raw.githubusercontent.com/org/repo/refs/tags/agent-v1.4.0/hub/SCORECARD.md")
    'agent-v1.4.0'
    >>> pinned_ref("https://example.com/SCORECARD.md") is None
    True
    """
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    segments = [unquote(s) for s in parts.path.split("/") if s]
    host = (parts.hostname or "").lower()
    start = None
    if host in _RAW_HOSTS:
        start = 2  # <owner>/<repo>/<ref>/...
    elif "-" in segments[:-2] and segments[segments.index("-") + 1] in _REF_MARKERS:
        start = segments.index("-") + 2  # GitLab: <group>/.../<repo>/-/blob/<ref>/...
    else:
        for index, segment in enumerate(segments[:-1]):
            if index >= 2 and segment in _REF_MARKERS:  # after <owner>/<repo> at least
                start = index + 1
                break
    if start is None:
        return None
    rest = segments[start:-1]  # the ref and the folders up to SCORECARD.md
    if len(rest) >= 2 and rest[0] in ("tag", "branch", "commit"):  # Gitea
        rest = rest[1:]
    if len(rest) >= 3 and rest[0] == "refs" and rest[1] in ("tags", "heads"):
        rest = rest[2:]
    return rest[0] if rest else None


def tag_names_version(ref: str, version: str) -> bool:
    """True when the git tag ``ref`` names release ``version``.

    Counted: ``v1.4.0`` and ``1.4.0``, alone or after a package prefix ending
    in ``-`` or ``_`` (``agent-pkg-email-v1.4.0``, the source project's tags).
    Not counted: another version (``v1.4.1``, ``v1.4.0-rc.1``, ``v11.4.0``), a
    branch (``main``) or a commit.

    Examples
    --------
    >>> [tag_names_version(t, "1.4.0") for t in ("v1.4.0", "1.4.0", "agent-pkg-email-v1.4.0", "v1.4.0-rc.1", "main")]
    [True, True, True, False, False]
    """
    return re.fullmatch(rf"(?:.*[-_])?v?{re.escape(version)}", ref) is not None


def lint_doc_root(path: str | os.PathLike[str]) -> list[str]:
    """Every way ``path`` breaks the scorecard storage convention; ``[]`` when none.

    Checks, each problem one line naming the file:

    - ``SCORECARD.md`` exists and is a valid scorecard;
    - ``README.md`` exists and links ``SCORECARD.md`` either by the relative
      path ``./SCORECARD.md`` (strict: a bare ``SCORECARD.md`` or
      ``../SCORECARD.md`` does not count, because only ``./SCORECARD.md``
      resolves both in-repo and on npm) or by an absolute URL pinned to the
      release's tag (:func:`pinned_ref`, :func:`tag_names_version`: for
      ``agent.version`` 1.4.0, ``.../blob/v1.4.0/.../SCORECARD.md``); every
      absolute URL of a ``SCORECARD.md`` in it must be so pinned — one pinned
      to a branch, a commit or another tag shows another card than the
      release's;
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
    version: str | None = None
    if not card.exists():
        problems.append(f"{card}: not found (each agent package ships a single SCORECARD.md in its doc root)")
    else:
        try:
            doc = load_scorecard(card)
            assert doc.aggregate_value is not None  # load_scorecard validated aggregate.value (required)
            aggregate, version = doc.aggregate_value, doc.version
        except ScorecardInvalidError as exc:
            found = list(getattr(exc, "problems", [])) or [str(exc)]
            problems.extend(f"{card}: invalid scorecard: {p}" for p in found)
        except ScorecardFileError as exc:
            problems.append(str(exc))

    problems.extend(_readme_problems(root / "README.md", aggregate, version))
    problems.extend(_package_problems(root / "package.json"))

    for entry in sorted(root.iterdir()):
        if entry.name.lower() == "scorecards" and entry.is_dir():
            problems.append(
                f"{entry}: a scorecards/ folder is not the convention; keep one SCORECARD.md "
                "updated in place (per-version copies come from the publish snapshot)"
            )
    return problems


def _readme_problems(readme: Path, aggregate: float | None, version: str | None = None) -> list[str]:
    if not readme.is_file():
        what = "is not a file" if readme.exists() else "not found"
        return [f"{readme}: {what} (the doc root's README must link ./SCORECARD.md)"]
    try:
        text = decode_utf8(read_bounded(readme, DEFAULT_LIMIT), str(readme))
    except FileProblem as problem:
        return [problem.message(str(readme), "README file")]
    except InputError as exc:  # not UTF-8
        return [str(exc)]
    problems = []
    pinned = False
    for match in README_URL_PATTERN.finditer(text):
        url, line = match.group(0), text.count("\n", 0, match.start()) + 1
        ref = pinned_ref(url)
        if version is None:
            problems.append(f"{readme}:{line}: links {url}, which cannot be checked against the release's tag "
                            "(SCORECARD.md has no valid agent.version)")
        elif ref is None:
            problems.append(f"{readme}:{line}: links {url}, which does not say the git tag it is pinned to; "
                            f"link ./SCORECARD.md or the file at the release's tag (e.g. .../blob/v{version}/...)")
        elif not tag_names_version(ref, version):
            problems.append(f"{readme}:{line}: links {url}, pinned to {ref!r}, not to the tag of release "
                            f"{version} (v{version}): a branch, a commit or another tag shows another card")
        else:
            pinned = True
    if not pinned and not README_LINK_PATTERN.search(text):
        hint = (" (it names SCORECARD.md, but the link must be the relative ./SCORECARD.md, "
                "which resolves both in-repo and in the npm package, or the file's URL at the release's tag)"
                ) if _BARE_NAME.search(text) else ""
        problems.append(f"{readme}: does not link ./SCORECARD.md or SCORECARD.md at the release's tag{hint}")
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

    try:  # strict: a second "files" key must not be read one way here and another way by npm
        data = loads_strict(decode_utf8(read_bounded(package, DEFAULT_LIMIT), str(package)), nonfinite="overflow")
    except FileProblem as problem:  # a FIFO or a device: never hang or read without end
        return [problem.message(str(package), "package.json file")]
    except InputError as exc:  # not UTF-8
        return [str(exc)]
    except json.JSONDecodeError as exc:
        return [f"{package}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"]
    except StrictJSONError as exc:
        reason = f"{exc.detail} is not allowed" if exc.kind == "constant" else str(exc)
        return [f"{package}: invalid JSON: {reason}"]
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

