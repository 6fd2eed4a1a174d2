"""The measurement basis of a card: what a number was measured under (SPEC §13).

Two cards' aggregates compare only on the same basis (:data:`BASIS_FIELDS`:
context size, model, dataset reference and size, ``--limit``).
:func:`basis_of` reads it from a card's front matter, :func:`basis_mismatches`
is the one comparison of the gate and of ``refresh-check``, and
:func:`variance_stdev` reads the recorded run-to-run variation a gate's noise
band is built from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._parse import ScorecardDocument, _get, _is_number

__all__ = [
    "ABSENT",
    "BASIS_FIELDS",
    "CTX_SIZE",
    "CTX_SIZE_PATHS",
    "basis_mismatches",
    "basis_of",
    "ctx_size_of",
    "variance_stdev",
]

#: The basis field of the context size: read by :func:`ctx_size_of` from either of
#: :data:`CTX_SIZE_PATHS`, not from one dotted path.
CTX_SIZE = "ctx_size"

#: Where a card records its context size: ``recipe.environment.ctx_size`` (where the
#: source project's adapter writes it) or ``recipe.config.ctx_size``. A card that
#: records both with different values is invalid.
CTX_SIZE_PATHS: tuple[str, ...] = ("recipe.environment.ctx_size", "recipe.config.ctx_size")

#: What changes the thing measured (SPEC §13: ``ctx_size``, ``model``, dataset
#: reference and size), plus ``limit``: the seed warns that aggregates are
#: comparable only at a consistent ``--limit``.
BASIS_FIELDS: tuple[str, ...] = (
    CTX_SIZE,
    "recipe.config.model",
    "recipe.dataset.reference",
    "recipe.dataset.size",
    "recipe.config.limit",
)

class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


#: Stands for a basis field a card does not record (``None`` is a recorded null).
ABSENT: Any = _Absent()


def ctx_size_of(front_matter: Mapping[str, Any]) -> Any:
    """The context size a card was measured under, or :data:`ABSENT` when it records none.

    Read from ``recipe.environment.ctx_size``, else ``recipe.config.ctx_size``;
    a null in either place is "not recorded". (:func:`validate_scorecard`
    refuses a card whose two places disagree.)

    Examples
    --------
    >>> ctx_size_of({"recipe": {"environment": {"ctx_size": 16384}, "config": {}}})
    16384
    >>> ctx_size_of({"recipe": {"environment": {"ctx_size": None}, "config": {"ctx_size": 8192}}})
    8192
    >>> ctx_size_of({"recipe": {"config": {}}})
    (absent)
    """
    for path in CTX_SIZE_PATHS:
        value = _get(front_matter, path)
        if value is not None:
            return value
    return ABSENT


def basis_of(front_matter: Mapping[str, Any], *, fields: Sequence[str] = BASIS_FIELDS) -> dict[str, Any]:
    """``{field: value}`` of a card's basis; :data:`ABSENT` for a field it does not record.

    Fields are dotted front-matter paths, except :data:`CTX_SIZE` (``"ctx_size"``),
    read by :func:`ctx_size_of` from ``recipe.environment`` or ``recipe.config``.

    Examples
    --------
    >>> basis_of({"recipe": {"config": {"model": "m1"}}}, fields=["recipe.config.model", "recipe.config.limit"])
    {'recipe.config.model': 'm1', 'recipe.config.limit': (absent)}
    >>> basis_of({"recipe": {"environment": {"ctx_size": 16384}}}, fields=["ctx_size"])
    {'ctx_size': 16384}
    """
    return {field: ctx_size_of(front_matter) if field == CTX_SIZE else _get(front_matter, field, ABSENT)
            for field in fields}


def basis_mismatches(candidate: Mapping[str, Any], reference: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(field, candidate value, reference value)`` for each field of ``candidate`` that differs.

    The one basis comparison of the gate (candidate card vs baseline card, both
    from :func:`basis_of`) and of ``refresh-check`` (the planned run's basis vs
    the committed card's). A field absent on both sides is equal; absent on one
    side (:data:`ABSENT`) is a difference; ``True`` is not ``1`` here.

    Examples
    --------
    >>> basis_mismatches({"recipe.config.model": "m1", "recipe.config.limit": 5},
    ...                  {"recipe.config.model": "m2", "recipe.config.limit": 5})
    [('recipe.config.model', 'm1', 'm2')]
    """
    out: list[tuple[str, Any, Any]] = []
    for field, mine in candidate.items():
        theirs = reference.get(field, ABSENT)
        if not _same_basis_value(mine, theirs):
            out.append((field, mine, theirs))
    return out


def _same_basis_value(a: Any, b: Any) -> bool:
    if a is ABSENT or b is ABSENT:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


# --------------------------------------------------------------------------- variance lookup
def variance_stdev(doc: ScorecardDocument | Mapping[str, Any], metric: str | None = None) -> float | None:
    """The recorded run-to-run stdev (on the [0, 1] scale) of ``metric``.

    Read from ``recipe.config.acceptance_variance.<metric>.stdev``. ``metric``
    defaults to the metric with weight > 0 in ``results.metrics`` (the first
    one if several). Returns None when no block, no entry for the metric, or a
    null stdev (a single run) is recorded.

    Examples
    --------
    >>> fm = {"results": {"metrics": [{"name": "acc", "value": 0.8, "weight": 1.0}]},
    ...       "recipe": {"config": {"acceptance_variance": {"n_runs": 3, "acc": {"mean": 0.8, "stdev": 0.01}}}}}
    >>> variance_stdev(fm)
    0.01
    """
    front = doc.front_matter if isinstance(doc, ScorecardDocument) else doc
    if metric is None:
        metrics = _get(front, "results.metrics")
        for entry in metrics if isinstance(metrics, list) else []:
            if isinstance(entry, Mapping) and _is_number(entry.get("weight", 1.0)) and entry.get("weight", 1.0) > 0:
                metric = entry.get("name")
                break
        if metric is None:
            return None
    block = _get(front, "recipe.config.acceptance_variance")
    if not isinstance(block, Mapping):
        return None
    stats = block.get(metric)
    if not isinstance(stats, Mapping):
        return None
    stdev: Any = stats.get("stdev")
    return float(stdev) if _is_number(stdev) else None
