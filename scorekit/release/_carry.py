"""Patch releases carry the prior scorecard's results forward (seed "Versioning policy", SPEC §13)."""

from __future__ import annotations

import os

from ._payload import ResultPayload, _now
from ._schema import SEMVER, load_scorecard, semver_core

__all__ = ["carry_forward"]


def carry_forward(prev_scorecard_path: str | os.PathLike[str], new_version: str) -> ResultPayload:
    """A payload for patch release ``new_version`` with the prior card's results, verbatim.

    Only a patch bump may carry results forward: same ``major.minor`` and a
    greater ``patch``, between release versions: a prerelease (``1.2.3-rc.1``)
    or build-tagged (``1.2.3+build.5``) version, as the prior card's or as the
    target, is refused (a prerelease's results are not a release's to inherit,
    and a prerelease must be measured). ``inherited_from`` is the prior card's ``agent.version``
    (read from its front matter, never the file name); ``measured_version`` is
    the release whose evaluation produced the results: the prior card's own
    ``measured_version`` when it was itself carried forward, else its
    ``inherited_from`` (a card another tool carried forward without
    ``measured_version``), else its version. Results, aggregate, recipe, environment and the reproduction
    command are kept; ``generated_at`` is now.

    Parameters
    ----------
    prev_scorecard_path : path
        The agent's current ``SCORECARD.md`` (parsed and validated).
    new_version : str
        The patch release's semver version.

    Raises
    ------
    ValueError
        A minor or major bump ("re-run" the evaluation), the same or a lower
        version, a ``new_version`` that is not semver, or a prerelease / build
        version on either side.
    ScorecardFileError, ScorecardInvalidError
        (ValueErrors) the prior card cannot be read or is invalid.

    Examples
    --------
    >>> payload = carry_forward("hub/agents/email/npm/SCORECARD.md", "0.2.5")  # doctest: +SKIP
    >>> payload.inherited_from  # doctest: +SKIP
    '0.2.4'
    """
    if not isinstance(new_version, str) or SEMVER.match(new_version) is None:
        raise ValueError(f"new_version must be a semver string MAJOR.MINOR.PATCH (e.g. 0.2.5); got {new_version!r}")
    _refuse_prerelease(new_version, "new_version")
    doc = load_scorecard(prev_scorecard_path)
    prior = doc.version
    assert prior is not None  # load_scorecard validated agent.version (required)
    _refuse_prerelease(prior, "the prior card's agent.version")
    old, new = semver_core(prior), semver_core(new_version)
    if new[:2] != old[:2]:
        if new[:2] > old[:2]:
            kind = "major" if new[0] != old[0] else "minor"
            raise ValueError(
                f"new_version {new_version} is a {kind} bump from {prior}: results cannot be carried forward; "
                "re-run the evaluation and write a fresh scorecard"
            )
        raise ValueError(
            f"new_version {new_version} is lower than the prior version {prior}: a carry-forward needs a greater "
            "patch of the same major.minor; re-run the evaluation for a new release line"
        )
    if new[2] <= old[2]:
        relation = "the same as" if new[2] == old[2] else "lower than"
        raise ValueError(
            f"new_version {new_version} has a patch {relation} the prior version {prior}: a carry-forward needs a "
            "greater patch number (or re-run the evaluation)"
        )
    previous = ResultPayload.from_front_matter(doc.front_matter, doc.body)
    return previous.replace(
        agent_version=new_version,
        inherited_from=prior,
        # A card carried forward by a tool that does not record measured_version
        # names only the release it came from: that is the closest known measured one.
        measured_version=previous.measured_version or previous.inherited_from or prior,
        generated_at=_now(),
    )


def _refuse_prerelease(version: str, what: str) -> None:
    match = SEMVER.match(version)
    if match is not None and (match["prerelease"] is not None or match["build"] is not None):
        raise ValueError(
            f"{what} {version} is a prerelease or build version: only a release MAJOR.MINOR.PATCH carries results "
            "forward to a patch release; re-run the evaluation"
        )
