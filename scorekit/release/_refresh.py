"""The refresh rule as a check (seed 001 "Keeping the scorecard current"; SPEC §13).

Before any eval spend, :func:`refresh_check` says which profile a planned run
is, compared with the committed ``SCORECARD.md``:

- **full** — ``limit`` reaches the whole dataset (``limit ≥ recipe.dataset.size``,
  or ``≥ full_limit``) and ``experiments ≥`` the committed ``recipe.config.n_runs``
  (1 when not recorded): the only profile allowed to commit a refreshed card;
- **subset** — ``limit`` below that: an end-to-end smoke run that never commits.

A full run fails fast when its basis differs from the committed card's — the
``ctx_size``, ``model``, dataset reference and size given for the run, and its
``limit`` against the committed ``recipe.config.limit`` (a card that records
none differs) — or when it plans
fewer experiments than the committed ``n_runs`` (that is not silently turned
into a subset run); ``rebaseline_reason`` marks such a change deliberate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .._terminal import workflow_command
from ._basis import CTX_SIZE, basis_mismatches, basis_of
from ._parse import ScorecardFileError, _get
from ._schema import ScorecardInvalidError, load_scorecard

__all__ = ["RefreshResult", "refresh_check"]

EXIT_OK, EXIT_NO = 0, 1

# The command-line flag that gives each basis field of a planned run (named in messages).
_FLAGS = {
    CTX_SIZE: "--ctx-size",
    "recipe.config.model": "--model",
    "recipe.dataset.reference": "--dataset-reference",
    "recipe.dataset.size": "--dataset-size",
    "recipe.config.limit": "--limit",
}


@dataclass(frozen=True)
class RefreshResult:
    """What profile a planned run is and whether it may commit.

    Attributes
    ----------
    exit_code : int
        0 (a subset run, or a full run that may commit), 1 (fail fast).
    profile : str
        ``full``, ``subset``, or ``unknown`` when the committed card is unusable.
    commit : str
        ``allowed`` (full), ``never`` (subset) or ``blocked`` (fail fast).
    problems : tuple of str
        Why a run is blocked (or, under a rebaseline, what changed).
    lines : tuple of str
        The report: the parseable status line first, then details and annotations.
    """

    exit_code: int
    profile: str
    commit: str
    problems: tuple[str, ...]
    lines: tuple[str, ...]

    @property
    def status_line(self) -> str:
        """``profile=<full|subset|unknown> commit=<allowed|never|blocked>``, for CI scripts."""
        return f"profile={self.profile} commit={self.commit}"

    def report(self) -> str:
        """The report as printed by ``scorekit refresh-check``."""
        return "\n".join(self.lines)


def _positive_int(name: str, value: Any, *, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")


def _text(name: str, value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")


def _blocked(problems: list[str], lines: list[str], profile: str = "unknown") -> RefreshResult:
    status = f"profile={profile} commit=blocked"
    return RefreshResult(EXIT_NO, profile, "blocked", tuple(problems),
                         (status, *lines, *(workflow_command("error", p) for p in problems)))


def refresh_check(
    scorecard_path: str | os.PathLike[str],
    *,
    limit: int,
    experiments: int,
    ctx_size: int | None = None,
    model: str | None = None,
    dataset_reference: str | None = None,
    dataset_size: int | None = None,
    full_limit: int | None = None,
    rebaseline_reason: str | None = None,
) -> RefreshResult:
    """Decide a planned run's profile against the committed ``SCORECARD.md``.

    Parameters
    ----------
    scorecard_path : str or os.PathLike
        The committed card. Missing, unreadable or invalid → exit 1.
    limit : int
        The run's ``--limit`` (test cases to run).
    experiments : int
        The run's number of repeated runs (``--experiments``).
    ctx_size, model, dataset_reference, dataset_size : optional
        The run's basis; each one given is compared with the committed card's
        (``ctx_size`` from ``recipe.environment`` or ``recipe.config``,
        ``recipe.config.model``, ``recipe.dataset.reference``,
        ``recipe.dataset.size``).
    full_limit : int, optional
        The limit from which a run is full; default ``dataset_size`` when
        given, else the committed ``recipe.dataset.size``.
    rebaseline_reason : str, optional
        Accept a basis difference or fewer experiments deliberately (reported
        as a ``::warning::`` naming the reason).

    Returns
    -------
    RefreshResult

    Raises
    ------
    ValueError
        A bad argument (a limit that is not a positive integer, an empty model...).

    Examples
    --------
    >>> from scorekit.release import refresh_check  # doctest: +SKIP
    >>> refresh_check("SCORECARD.md", limit=20, experiments=1).status_line  # doctest: +SKIP
    'profile=subset commit=never'
    """
    _positive_int("limit", limit, optional=False)
    _positive_int("experiments", experiments, optional=False)
    for name, value in (("ctx_size", ctx_size), ("dataset_size", dataset_size), ("full_limit", full_limit)):
        _positive_int(name, value, optional=True)
    for name, text in (("model", model), ("dataset_reference", dataset_reference),
                       ("rebaseline_reason", rebaseline_reason)):
        _text(name, text)

    try:
        card = load_scorecard(scorecard_path)
    except (ScorecardFileError, ScorecardInvalidError) as exc:
        return _blocked([f"committed scorecard unusable: {exc}"], [])

    front = card.front_matter
    n_runs = _get(front, "recipe.config.n_runs")
    if n_runs is None:
        n_runs = 1
    elif isinstance(n_runs, bool) or not isinstance(n_runs, int) or n_runs < 1:
        return _blocked([f"{card.source}: recipe.config.n_runs must be a positive integer; got {n_runs!r}"], [])

    committed_size = card.dataset_size
    assert committed_size is not None  # load_scorecard validated recipe.dataset.size (required)
    threshold = full_limit or dataset_size or committed_size
    where = ("--full-limit" if full_limit else "--dataset-size" if dataset_size
             else "the committed recipe.dataset.size")
    plan = f"run: limit {limit}, experiments {experiments}; full from limit {threshold} ({where}), " \
           f"committed n_runs {n_runs}"
    if limit < threshold:
        lines = ["profile=subset commit=never", plan,
                 f"subset smoke run: never commits (limit {limit} < {threshold}: "
                 "a small-sample number is not a stand-in for the published figure)"]
        return RefreshResult(EXIT_OK, "subset", "never", (), tuple(lines))

    problems = []
    if experiments < n_runs:
        problems.append(
            f"experiments {experiments} < committed recipe.config.n_runs {n_runs}: a full run must repeat "
            "at least as many runs as the committed card (it is not silently a subset run)"
        )
    planned = {CTX_SIZE: ctx_size, "recipe.config.model": model,
               "recipe.dataset.reference": dataset_reference, "recipe.dataset.size": dataset_size,
               "recipe.config.limit": limit}
    planned = {field: value for field, value in planned.items() if value is not None}  # only what was given
    for field, value, committed in basis_mismatches(planned, basis_of(front, fields=list(planned))):
        problems.append(f"basis differs: {_FLAGS[field]} {value!r}, committed {field} {committed!r}")

    if problems and rebaseline_reason is None:
        return _blocked(
            problems,
            [plan, "full run: fails fast before any eval spend (use --rebaseline --reason TEXT if deliberate)"],
            profile="full",
        )
    lines = ["profile=full commit=allowed", plan,
             "full run: may commit a refreshed card if it clears the bars and the gate"]
    if problems:
        lines.append(workflow_command("warning", f"Rebaseline: {'; '.join(problems)}. Reason: {rebaseline_reason}"))
    return RefreshResult(EXIT_OK, "full", "allowed", tuple(problems), tuple(lines))
