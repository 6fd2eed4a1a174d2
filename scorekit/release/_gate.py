"""The release gate for ``SCORECARD.md`` (SPEC §13, seed 001 "Gate logic").

:func:`gate` checks a candidate scorecard and, when a baseline is named,
compares it with the prior release's card. It returns a :class:`GateResult`
(exit code, outcome, human summary, GitHub Actions annotations); it never
raises for what the evidence says — a missing, unreadable or invalid card,
a bar not met, a mistyped git ref or a regression are all exit code 1. Only
bad arguments (a negative ``regression_k``, a malformed thresholds manifest)
raise.

Order of the checks, as in the document:

1. presence and validity of the candidate; the scorekit decision it records
   (``recipe.config.decision``), which must be PASS when recorded; its
   ``agent.version`` against ``expected_version`` (and which release its
   results were measured on);
   a recorded ``ctx_size`` when ``require_ctx_match``;
2. the absolute bar (``min_aggregate``) and metric floors (``min_metrics``) —
   on every path, first adoption included;
3. baseline resolution: ``baseline_file`` (must exist) or ``baseline_ref``
   (the ref must exist; the file missing at an existing ref is a first
   adoption); neither is a first adoption;
4. basis comparability (``ctx_size``, ``model``, dataset reference and size,
   ``limit``): a difference fails unless ``rebaseline_reason`` is given;
5. the variance-aware regression check: a regression only when
   ``candidate < baseline − k·stdev·100`` (strict ``<`` without a recorded
   stdev); ``allow_regression`` turns it into a warning.

Every failing check is reported (not only the first), so a CI log shows the
whole picture; ``outcome`` names the first failure.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import BaselineError as _BaselineError
from .._errors import PolicyError
from .._io import decode_utf8, finite_float, read_input_bytes
from .._terminal import workflow_command
from ._basis import ABSENT, BASIS_FIELDS, basis_mismatches, basis_of, ctx_size_of, variance_stdev
from ._parse import ScorecardDocument, ScorecardFileError, _get, parse_scorecard_text
from ._schema import SEMVER, ScorecardInvalidError, _kind, load_scorecard, validate_scorecard

__all__ = [
    "BASIS_FIELDS",
    "GateResult",
    "basis_differences",
    "gate",
    "load_thresholds",
]

EXIT_OK, EXIT_NO = 0, 1

# Outcomes. Exit 0: the first five; exit 1: the rest.
FIRST_ADOPTION = "first-adoption"
EQUAL = "equal"
WITHIN_BAND = "within-band"
IMPROVED = "improved"
REGRESSION_ALLOWED = "regression-allowed"
INVALID_CANDIDATE = "invalid-candidate"
DECISION_NOT_PASS = "decision-not-pass"
VERSION_MISMATCH = "version-mismatch"
CTX_SIZE_MISSING = "ctx-size-missing"
BAR_NOT_MET = "bar-not-met"
INVALID_BASELINE = "invalid-baseline"
BASIS_MISMATCH = "basis-mismatch"
REGRESSION = "regression"


# --------------------------------------------------------------------------- result
@dataclass(frozen=True)
class GateResult:
    """What the gate decided, and why.

    Attributes
    ----------
    exit_code : int
        0 (pass) or 1 (the evidence says no), as in the document's table.
    outcome : str
        ``first-adoption``, ``equal``, ``within-band``, ``improved`` or
        ``regression-allowed`` when passed; otherwise the first failure:
        ``invalid-candidate``, ``decision-not-pass``, ``version-mismatch``, ``ctx-size-missing``,
        ``bar-not-met``, ``invalid-baseline``, ``basis-mismatch`` or
        ``regression``.
    failures : tuple of str
        Every failure kind found, in the order checked (empty when passed).
    lines : tuple of str
        The whole report in order: summary lines and annotations interleaved.
    candidate_version, baseline_version : str or None
    candidate_score, baseline_score : float or None
        ``aggregate.value`` of each card (None when not read).
    band_floor : float or None
        The lowest candidate score that is not a regression
        (``baseline − k·stdev·100``, or the baseline itself without a stdev).
    """

    exit_code: int
    outcome: str
    failures: tuple[str, ...]
    lines: tuple[str, ...]
    candidate_version: str | None = None
    candidate_score: float | None = None
    baseline_version: str | None = None
    baseline_score: float | None = None
    band_floor: float | None = None

    @property
    def passed(self) -> bool:
        """True when ``exit_code`` is 0."""
        return self.exit_code == EXIT_OK

    @property
    def annotations(self) -> tuple[str, ...]:
        """The GitHub Actions workflow commands (``::error::``/``::warning::``)."""
        return tuple(line for line in self.lines if line.startswith("::"))

    @property
    def messages(self) -> tuple[str, ...]:
        """The human-readable lines (everything that is not an annotation)."""
        return tuple(line for line in self.lines if not line.startswith("::"))

    def report(self) -> str:
        """The report as printed by ``scorekit gate`` (one string, newline-separated)."""
        return "\n".join(self.lines)


class _Report:
    """Collects the ordered report lines and the failure kinds."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failures: list[str] = []

    def info(self, text: str) -> None:
        self.lines.append(text)

    def warning(self, text: str) -> None:
        self.lines.append(workflow_command("warning", text))

    def fail(self, kind: str, text: str) -> None:
        self.failures.append(kind)
        self.lines.append(workflow_command("error", text))

    def result(self, passed_outcome: str, **fields: Any) -> GateResult:
        outcome = self.failures[0] if self.failures else passed_outcome
        if self.failures:
            self.lines.append(f"outcome: FAIL ({', '.join(dict.fromkeys(self.failures))})")
        else:
            self.lines.append(f"outcome: PASS ({passed_outcome})")
        return GateResult(
            exit_code=EXIT_NO if self.failures else EXIT_OK,
            outcome=outcome,
            failures=tuple(self.failures),
            lines=tuple(self.lines),
            **fields,
        )


# --------------------------------------------------------------------------- thresholds manifest
_THRESHOLD_KEYS = ("acceptance_target", "urgent_recall_floor", "acceptance_enforce", "require_ctx_match")
# The source project keeps its per-run FP/FN harness settings in the same file;
# they configure another check, so they are accepted and ignored here.
_FOREIGN_KEYS = ("fp_max", "fn_max", "axis", "enforce")


def load_thresholds(source: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Read and check a thresholds manifest (JSON or YAML file, or its mapping) for :func:`gate`.

    Keys: ``acceptance_target`` (the aggregate bar), ``urgent_recall_floor``
    (the anti-gaming floor on the ``urgent_recall`` metric, [0, 1]) and
    ``acceptance_enforce`` (bool, default ``true``: when ``false`` the bar and
    floor are reported as warnings but not enforced). Keys starting with ``_``
    are comments. ``acceptance_target`` is read on the [0, 1] scale when it is
    at most 1 (``0.80`` is the 80 % bar, as in the source project's manifest)
    and on the aggregate's 0–100 scale when above 1 (``80``); 1 itself means
    100. ``require_ctx_match`` (bool, default ``false``): when ``true`` a
    candidate that records no ``ctx_size`` fails, whatever
    ``acceptance_enforce`` says (as ``--require-ctx-match``). The per-run
    harness keys the source project keeps in the same file (``fp_max``,
    ``fn_max``, ``axis``, ``enforce``) are ignored. Any other key is an error —
    a misspelt ``acceptance_enforce`` must not switch enforcement off.

    Parameters
    ----------
    source : str, os.PathLike or mapping
        A ``.json``, ``.yml`` or ``.yaml`` file (UTF-8, BOM accepted), or a
        mapping with the file's keys.

    Returns
    -------
    dict
        ``{"min_aggregate": float | None (0–100 scale), "min_metrics":
        {"urgent_recall": float} or {}, "enforce": bool, "require_ctx_match":
        bool, "source": str, "acceptance_target": the value as written}``.

    Raises
    ------
    PolicyError
        One line naming the file and key: unreadable file, invalid JSON/YAML,
        not a mapping, unknown key, a value of the wrong type or out of range.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "thresholds.json"
    >>> _ = p.write_text(json.dumps({"acceptance_target": 0.8, "urgent_recall_floor": 0.9,
    ...                              "acceptance_enforce": True, "_comment": "data, not code"}))
    >>> t = load_thresholds(p)
    >>> t["min_aggregate"], t["min_metrics"], t["enforce"], t["require_ctx_match"]
    (80.0, {'urgent_recall': 0.9}, True, False)
    """
    if isinstance(source, Mapping):
        return _normalise_thresholds(source, "<thresholds>")
    from .._policy import parse_json, parse_yaml

    name = str(source)
    p = Path(source)
    suffix = p.suffix.lower()
    if suffix not in (".json", ".yml", ".yaml"):
        raise PolicyError(f"{name}: thresholds manifest must be .json, .yml or .yaml; got {p.suffix or 'no extension'}")
    text = decode_utf8(read_input_bytes(p, "thresholds manifest", PolicyError, name=name), name, PolicyError)
    data = parse_json(text, name) if suffix == ".json" else parse_yaml(text, name)
    return _normalise_thresholds(data, name)


def _normalise_thresholds(data: Any, name: str) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        found = "an empty document" if data is None else _kind(data)
        raise PolicyError(f"{name}: thresholds manifest must be a mapping of keys to values; got {found}")
    for key in data:
        if not isinstance(key, str):
            raise PolicyError(f"{name}: keys must be strings; got {key!r}")
        if key.startswith("_") or key in _THRESHOLD_KEYS or key in _FOREIGN_KEYS:
            continue
        raise PolicyError(
            f"{name}: unknown key {key!r}; expected {', '.join(_THRESHOLD_KEYS)} "
            "(keys starting with '_' are comments)"
        )

    target = data.get("acceptance_target")
    min_aggregate = None
    if target is not None:
        if not _is_number(target) or not 0 <= target <= 100:
            raise PolicyError(
                f"{name}: acceptance_target: must be a number in [0, 1] (a fraction: 0.80 is the 80% bar) "
                f"or in (1, 100] (the aggregate's scale); got {target!r}"
            )
        # round: 0.55 * 100 is 55.00000000000001 in binary floating point, which a 55.0 card must meet.
        min_aggregate = round(float(target) * 100, 10) if target <= 1 else float(target)
    floor = data.get("urgent_recall_floor")
    min_metrics: dict[str, float] = {}
    if floor is not None:
        if not _is_number(floor) or not 0 <= floor <= 1:
            raise PolicyError(f"{name}: urgent_recall_floor: must be a number in [0, 1]; got {floor!r}")
        min_metrics["urgent_recall"] = float(floor)
    enforce = data.get("acceptance_enforce", True)
    if not isinstance(enforce, bool):
        raise PolicyError(f"{name}: acceptance_enforce: must be true or false; got {enforce!r}")
    require_ctx = data.get("require_ctx_match", False)
    if not isinstance(require_ctx, bool):
        raise PolicyError(f"{name}: require_ctx_match: must be true or false; got {require_ctx!r}")
    return {
        "min_aggregate": min_aggregate,
        "min_metrics": min_metrics,
        "enforce": enforce,
        "require_ctx_match": require_ctx,
        "source": name,
        "acceptance_target": target,
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and finite_float(value) is not None


# --------------------------------------------------------------------------- helpers
def basis_differences(candidate: Mapping[str, Any], baseline: Mapping[str, Any]) -> list[str]:
    """Basis fields that differ between two front matters, one message each.

    The fields are :data:`BASIS_FIELDS` (``ctx_size``, ``model``, dataset
    reference and size, ``limit``). A field absent on both sides is equal;
    absent on one side is a difference.

    Examples
    --------
    >>> a = {"recipe": {"config": {"model": "m1", "limit": 220}, "dataset": {"reference": "d", "size": 220}}}
    >>> b = {"recipe": {"config": {"model": "m2", "limit": 220}, "dataset": {"reference": "d", "size": 220}}}
    >>> basis_differences(a, b)
    ["recipe.config.model: candidate 'm1', baseline 'm2'"]
    """
    return [f"{field}: candidate {mine!r}, baseline {theirs!r}"
            for field, mine, theirs in basis_mismatches(basis_of(candidate), basis_of(baseline))]


def _score(value: float) -> str:
    # str(float): 65 -> "65.0", 84.67 -> "84.67", as in the document's example annotation.
    return str(float(value))


def _band_floor(baseline: float, k: float, stdev: float | None) -> float:
    """Lowest non-regressing score; rounded to 10 dp so 84.67 − 1.16 is exactly 83.51."""
    if stdev is None:
        return float(baseline)
    return round(float(baseline) - k * 100 * stdev, 10)


# --------------------------------------------------------------------------- git baseline
def _git(directory: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(  # noqa: S603 - fixed argv, no shell
            ["git", "-C", str(directory), *args],
            capture_output=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise _BaselineError("--baseline-ref needs git, which was not found on PATH") from None
    except OSError as exc:
        raise _BaselineError(f"--baseline-ref: cannot run git: {exc.strerror or exc}") from None


def _stderr_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    text = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return text[-1] if text else f"git exited {proc.returncode}"


def _read_at_ref(candidate_path: Path, ref: str) -> tuple[str | None, str]:
    """``(text or None, "ref:path")``: the candidate's path at ``ref``; None when absent there.

    Raises _BaselineError when not in a git repository, the ref does not name a
    commit, or the path at the ref is not a file.
    """
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n\r"):
        raise _BaselineError(f"--baseline-ref: not a valid git ref: {ref!r} "
                             "(omit --baseline-ref for a first adoption)")
    directory = candidate_path.absolute().parent
    top = _git(directory, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise _BaselineError(
            f"--baseline-ref {ref}: {candidate_path} is not inside a git repository "
            f"({_stderr_line(top)}); use --baseline-file, or omit the flag for a first adoption"
        )
    prefix = _git(directory, "rev-parse", "--show-prefix")
    if prefix.returncode != 0:  # pragma: no cover - toplevel succeeded just before
        raise _BaselineError(f"--baseline-ref {ref}: {_stderr_line(prefix)}")
    repo_path = prefix.stdout.decode("utf-8", "surrogateescape").strip() + candidate_path.name
    where = f"{ref}:{repo_path}"
    commit = _git(directory, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if commit.returncode != 0:
        raise _BaselineError(
            f"--baseline-ref {ref}: no such commit, tag or branch in this repository "
            "(a mistyped ref is an error; omit --baseline-ref for a first adoption)"
        )
    sha = commit.stdout.decode("ascii", "replace").strip()
    kind = _git(directory, "cat-file", "-t", f"{sha}:{repo_path}")
    if kind.returncode != 0:
        return None, where
    object_type = kind.stdout.decode("ascii", "replace").strip()
    if object_type != "blob":
        raise _BaselineError(f"{where}: is a {object_type} at that ref, not a scorecard file")
    blob = _git(directory, "cat-file", "blob", f"{sha}:{repo_path}")
    if blob.returncode != 0:  # pragma: no cover - cat-file -t just found it
        raise _BaselineError(f"{where}: {_stderr_line(blob)}")
    try:
        text = blob.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BaselineError(f"{where}: not UTF-8 (invalid byte at offset {exc.start})") from None
    return text, where


def _doc_from_text(text: str, source: str) -> ScorecardDocument:
    doc = parse_scorecard_text(text, source=source)
    problems = validate_scorecard(doc)
    if problems:
        raise ScorecardInvalidError(source, problems)
    return doc


# --------------------------------------------------------------------------- the gate
def _check_arguments(
    baseline_file: Any, baseline_ref: Any, min_aggregate: Any, min_metrics: Any, regression_k: Any,
    rebaseline_reason: Any, expected_version: Any,
) -> None:
    if baseline_file is not None and baseline_ref is not None:
        raise ValueError("baseline_file and baseline_ref are mutually exclusive; got both")
    if min_aggregate is not None and (not _is_number(min_aggregate) or not 0 <= min_aggregate <= 100):
        raise ValueError(f"min_aggregate must be a number in [0, 100] (the aggregate's scale); got {min_aggregate!r}")
    for name, floor in dict(min_metrics or {}).items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"min_metrics keys must be metric names; got {name!r}")
        if not _is_number(floor) or not 0 <= floor <= 1:
            raise ValueError(f"min_metrics[{name!r}] must be a number in [0, 1]; got {floor!r}")
    if not _is_number(regression_k) or regression_k < 0:
        raise ValueError(f"regression_k must be a finite number >= 0; got {regression_k!r}")
    if rebaseline_reason is not None and (not isinstance(rebaseline_reason, str) or not rebaseline_reason.strip()):
        raise ValueError(f"rebaseline_reason must be a non-empty string; got {rebaseline_reason!r}")
    if expected_version is not None and (not isinstance(expected_version, str) or not SEMVER.match(expected_version)):
        raise ValueError(f"expected_version must be a semver string MAJOR.MINOR.PATCH; got {expected_version!r}")


def gate(
    candidate_path: str | os.PathLike[str],
    *,
    baseline_file: str | os.PathLike[str] | None = None,
    baseline_ref: str | None = None,
    min_aggregate: float | None = None,
    min_metrics: Mapping[str, float] | None = None,
    regression_k: float = 1.0,
    allow_regression: bool = False,
    variance_metric: str | None = None,
    rebaseline_reason: str | None = None,
    thresholds: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    require_ctx_match: bool = False,
    expected_version: str | None = None,
) -> GateResult:
    """Gate a candidate ``SCORECARD.md`` (SPEC §13; the document's exit-code table).

    Parameters
    ----------
    candidate_path : str or os.PathLike
        The candidate card. Missing, unreadable or invalid → exit 1.
    baseline_file : str or os.PathLike, optional
        The prior release's card. It must exist and be valid (exit 1 otherwise).
    baseline_ref : str, optional
        A git ref (tag, branch, commit); the baseline is the candidate's path at
        that ref. A ref that does not exist, or a candidate outside a git
        repository, is exit 1; an existing ref without the file is a first
        adoption (exit 0). Mutually exclusive with ``baseline_file``.
    min_aggregate : float, optional
        The absolute bar on ``aggregate.value`` (0–100 scale: 80 is the 80 % bar).
    min_metrics : mapping of str to float, optional
        Floors on named metrics, on the metric's [0, 1] scale
        (``{"urgent_recall": 0.9}`` is ``--min-urgent-recall 0.9``). A named
        metric missing from the card fails loud.
    regression_k : float, default 1.0
        Width of the noise band in recorded standard deviations.
    allow_regression : bool, default False
        Turn a regression into a ``::warning::`` and pass.
    variance_metric : str, optional
        The metric whose ``acceptance_variance`` stdev sets the band; default
        the metric with weight > 0.
    rebaseline_reason : str, optional
        Accept a basis difference (ctx_size, model, dataset reference or size,
        limit) deliberately; reported as a warning naming the reason. The
        regression check still applies (combine with ``allow_regression``).
    thresholds : str, os.PathLike or mapping, optional
        A thresholds manifest file, or a mapping with its keys (see
        :func:`load_thresholds`).
        Explicit ``min_aggregate`` / ``min_metrics`` entries override it and are
        always enforced; manifest bars are enforced only when its
        ``acceptance_enforce`` is true. Its ``require_ctx_match: true`` is
        ``require_ctx_match=True``.
    require_ctx_match : bool, default False
        Fail a candidate that records no ``ctx_size`` (in ``recipe.environment``
        or ``recipe.config``), on every path, first adoption included.
    expected_version : str, optional
        The release being gated (``X.Y.Z``): fail unless the candidate's
        ``agent.version`` is exactly this. When the card's ``measured_version``
        or ``inherited_from`` says its results were measured on another release
        (a carried-forward card), a ``::warning::`` names that release.

    Returns
    -------
    GateResult

    Raises
    ------
    ValueError
        A bad argument (both baselines, ``regression_k`` < 0, a bar out of range).
    PolicyError
        A malformed thresholds manifest.

    Examples
    --------
    >>> from scorekit.release import gate  # doctest: +SKIP
    >>> result = gate("SCORECARD.md", baseline_file="prev/SCORECARD.md", min_aggregate=80)  # doctest: +SKIP
    >>> result.exit_code, result.outcome  # doctest: +SKIP
    (0, 'equal')
    """
    _check_arguments(baseline_file, baseline_ref, min_aggregate, min_metrics, regression_k, rebaseline_reason,
                     expected_version)
    if not isinstance(require_ctx_match, bool):
        raise ValueError(f"require_ctx_match must be True or False; got {require_ctx_match!r}")

    manifest = None if thresholds is None else load_thresholds(thresholds)
    report = _Report()
    candidate_path = Path(candidate_path)

    # 1. Presence and validity of the candidate.
    try:
        candidate = load_scorecard(candidate_path)
    except ScorecardFileError as exc:
        report.fail(INVALID_CANDIDATE, f"Candidate scorecard unusable: {exc}")
        return report.result(INVALID_CANDIDATE)
    except ScorecardInvalidError as exc:
        report.fail(INVALID_CANDIDATE, f"Candidate scorecard invalid: {exc}")
        for problem in getattr(exc, "problems", []):
            report.info(f"  - {problem}")
        return report.result(INVALID_CANDIDATE)
    assert candidate.aggregate_value is not None  # load_scorecard validated aggregate.value (required)
    cand_version, cand_score = candidate.version, candidate.aggregate_value
    report.info(
        f"candidate: {candidate.agent_name} v{cand_version}  aggregate {_score(cand_score)}  ({candidate_path})"
    )
    fields: dict[str, Any] = {"candidate_version": cand_version, "candidate_score": cand_score}
    _check_decision(report, candidate)

    # 1a. The release the card is for, and the release its results were measured on.
    if expected_version is not None:
        _check_version(report, candidate, expected_version)

    # 1b. A recorded context size, when required (on every path).
    manifest_ctx = manifest is not None and manifest.get("require_ctx_match", False)
    if require_ctx_match or manifest_ctx:
        origin = (
            f"thresholds {manifest['source']}: require_ctx_match"
            if manifest is not None and not require_ctx_match
            else "--require-ctx-match"
        )
        ctx_size = ctx_size_of(candidate.front_matter)
        if ctx_size is ABSENT:
            report.fail(CTX_SIZE_MISSING, f"Candidate scorecard records no ctx_size (recipe.environment.ctx_size "
                                          f"or recipe.config.ctx_size), required by {origin}: state the context "
                                          "window the results were measured under")
        else:
            report.info(f"ctx_size: {ctx_size} recorded ({origin})")

    # 2. Bars and floors, on every path.
    _check_bars(report, candidate, min_aggregate, min_metrics, manifest)

    # 3. Baseline.
    baseline = None
    if baseline_file is not None:
        source = Path(baseline_file)
        if not source.exists():
            report.fail(INVALID_BASELINE, f"--baseline-file not found: {source}")
        else:
            try:
                baseline = load_scorecard(source)
            except (ScorecardFileError, ScorecardInvalidError) as exc:
                report.fail(INVALID_BASELINE, f"Baseline scorecard unusable: {exc}")
    elif baseline_ref is not None:
        try:
            text, where = _read_at_ref(candidate_path, baseline_ref)
            if text is None:
                report.info(f"baseline: no {where} at ref {baseline_ref}: first adoption (presence and bars only)")
            else:
                baseline = _doc_from_text(text, where)
        except _BaselineError as exc:
            report.fail(INVALID_BASELINE, str(exc))
        except (ScorecardFileError, ScorecardInvalidError) as exc:
            report.fail(INVALID_BASELINE, f"Baseline scorecard unusable: {exc}")
    else:
        report.info("baseline: none given: first adoption (presence and bars only)")
    if baseline is None:
        return report.result(FIRST_ADOPTION, **fields)

    assert baseline.aggregate_value is not None  # load_scorecard validated aggregate.value (required)
    base_version, base_score = baseline.version, baseline.aggregate_value
    fields.update(baseline_version=base_version, baseline_score=base_score)
    report.info(f"baseline: {baseline.agent_name} v{base_version}  aggregate {_score(base_score)}  ({baseline.source})")

    # 4. Basis comparability.
    differences = basis_differences(candidate.front_matter, baseline.front_matter)
    if differences and rebaseline_reason is None:
        for difference in differences:
            report.fail(
                BASIS_MISMATCH,
                f"Scorecard basis differs from the baseline: {difference} "
                "(scores are not comparable; use --rebaseline --reason TEXT if deliberate)",
            )
    elif differences:
        report.warning(f"Rebaseline: {'; '.join(differences)}. Reason: {rebaseline_reason}")
    else:
        report.info("basis: ctx_size, model, dataset reference and size, limit: same as the baseline")
        if rebaseline_reason is not None:
            report.info(f"rebaseline requested ({rebaseline_reason}) but the basis is unchanged")

    # 5. Variance-aware regression check.
    # A negative or non-finite recorded stdev made the baseline invalid above (SPEC §13).
    stdev = variance_stdev(baseline, variance_metric)
    floor = _band_floor(base_score, regression_k, stdev)
    fields["band_floor"] = floor
    if stdev is None:
        if variance_metric is not None:
            report.warning(f"No acceptance_variance stdev recorded for {variance_metric!r} in the baseline: "
                           "strict comparison")
        report.info(f"band: none recorded: a regression is any score below {_score(base_score)}")
    else:
        report.info(f"band: regression below {floor:g} = {_score(base_score)} - {regression_k:g} x 100 x "
                    f"stdev {stdev:g} ({variance_metric or 'the weighted metric'})")
    passed_outcome = IMPROVED if cand_score > base_score else EQUAL if cand_score == base_score else WITHIN_BAND
    if cand_score < floor:
        pair = f"v{base_version}={_score(base_score)} → v{cand_version}={_score(cand_score)}"
        if allow_regression:
            report.warning(f"Scorecard regression allowed by --allow-regression: {pair}")
            report.info(
                f"WARNING: Regression override active. Prior version v{base_version} scored {_score(base_score)}; "
                f"candidate v{cand_version} scored {_score(cand_score)}. "
                "This regression has been explicitly acknowledged."
            )
            passed_outcome = REGRESSION_ALLOWED
        else:
            report.fail(REGRESSION, f"Scorecard regression: {pair} (below {floor:g}; "
                                    "investigate, or use --allow-regression if intentional)")
    return report.result(passed_outcome, **fields)


def _check_decision(report: _Report, candidate: ScorecardDocument) -> None:
    """A card recording the scorekit decision it was built from releases only a PASS (SPEC §13).

    ``to_release_payload(require_pass=False)`` records a FAIL, INCOMPLETE,
    TRIAGE or SELF_TEST evaluation in ``recipe.config.decision``: a card to
    show, never one to release. A card without the key (not built by
    scorekit) is gated on its aggregate alone, as the document says.
    """
    decision = _get(candidate.front_matter, "recipe.config.decision", ABSENT)
    if decision is ABSENT:
        return
    if decision == "PASS":
        report.info("decision: the scorekit evaluation behind this card decided PASS (recipe.config.decision)")
        return
    report.fail(DECISION_NOT_PASS,
                f"Candidate scorecard records the scorekit decision {decision!s} (recipe.config.decision), not "
                "PASS: a card built with to_release_payload(require_pass=False) is shown, never released")


def _check_version(report: _Report, candidate: ScorecardDocument, expected: str) -> None:
    """``agent.version`` must be ``expected``; say when the results were measured on another release."""
    version = candidate.version
    if version == expected:
        report.info(f"version: agent.version {version} is the expected release")
    else:
        report.fail(VERSION_MISMATCH, f"Candidate scorecard is for v{version}, not the expected release v{expected} "
                                      "(agent.version; regenerate or carry the card forward for this release)")
    measured, inherited = candidate.measured_version, candidate.inherited_from
    if measured is not None and measured != version:
        report.warning(f"Scorecard v{version} publishes results measured on v{measured} (measured_version"
                       + (f"; carried forward from v{inherited}" if inherited else "") + "), not on this release")
    elif measured is None and inherited is not None and inherited != version:
        report.warning(f"Scorecard v{version} publishes results carried forward from v{inherited} (inherited_from: "
                       f"measured on v{inherited} or an earlier release), not measured on this release")


def _check_bars(
    report: _Report,
    candidate: ScorecardDocument,
    min_aggregate: float | None,
    min_metrics: Mapping[str, float] | None,
    manifest: Mapping[str, Any] | None,
) -> None:
    """Absolute bar and metric floors: explicit arguments, then the manifest's (unless overridden)."""
    # (label, bar, enforced)
    bars: list[tuple[str, float, bool]] = []
    floors: dict[str, tuple[float, bool, str]] = {}
    if manifest is not None:
        enforce = bool(manifest.get("enforce", True))
        origin = f"thresholds {manifest.get('source', '')}".rstrip()
        if min_aggregate is None and manifest.get("min_aggregate") is not None:
            written = manifest.get("acceptance_target", manifest["min_aggregate"])
            bars.append((f"{origin}: acceptance_target {written!r}", float(manifest["min_aggregate"]), enforce))
        for name, value in dict(manifest.get("min_metrics") or {}).items():
            key = "urgent_recall_floor" if name == "urgent_recall" else name
            floors[name] = (float(value), enforce, f"{origin}: {key}")
    if min_aggregate is not None:
        bars.append(("required", float(min_aggregate), True))
    for name, value in dict(min_metrics or {}).items():
        floors[name] = (float(value), True, "required")

    assert candidate.aggregate_value is not None  # load_scorecard validated aggregate.value (required)
    score = candidate.aggregate_value
    for label, bar, enforced in bars:
        if score >= bar:
            report.info(f"bar: aggregate {_score(score)} >= {bar:g} ({label}): met")
        elif enforced:
            report.fail(BAR_NOT_MET, f"Scorecard aggregate {_score(score)} is below the bar {bar:g} ({label})")
        else:
            report.warning(f"Scorecard aggregate {_score(score)} is below the bar {bar:g} "
                           f"({label}; not enforced: acceptance_enforce is false)")
    for name, (floor, enforced, label) in floors.items():
        value = candidate.metric_value(name)
        if value is not None and value >= floor:
            report.info(f"floor: {name} {value:g} >= {floor:g} ({label}): met")
            continue
        problem = (f"Scorecard metric {name!r} is absent, so the floor {floor:g} cannot be checked"
                   if value is None else f"Scorecard metric {name} {value:g} is below the floor {floor:g}")
        if enforced:
            report.fail(BAR_NOT_MET, f"{problem} ({label})")
        else:
            report.warning(f"{problem} ({label}; not enforced: acceptance_enforce is false)")
