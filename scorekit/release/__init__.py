"""Release scorecards: ``SCORECARD.md`` with YAML front matter, its aggregate, carry-forward and gate (SPEC §13).

A release scorecard records the eval recipe, the measured metrics, one
recomputable aggregate ``round(100 · Σ wᵢvᵢ / Σ wᵢ, 2)`` and how to reproduce
it. Build a :class:`ResultPayload` (by hand, from ordinal classification
metrics, or from an evaluation with :meth:`scorekit.Scorecard.to_release_payload`),
then :func:`write_scorecard`; read one back with :func:`load_scorecard`.

Importing this package is light: PyYAML and SciPy load inside the functions
that need them.

Examples
--------
>>> from scorekit.release import Metric, ResultPayload, compute_aggregate
>>> compute_aggregate([Metric("within_one_bucket_accuracy", 0.40)])
40.0
"""

from __future__ import annotations

from ._basis import variance_stdev
from ._bridge import to_release_payload
from ._carry import carry_forward
from ._gate import GateResult, gate, load_thresholds
from ._lint import lint_doc_root
from ._ordinal import (
    DEFAULT_ATTENTION,
    DEFAULT_SCALE,
    breakdown,
    category_accuracy,
    needs_attention_accuracy,
    ordinal_metrics,
    per_category_breakdown,
    top_confusions,
    urgent_recall,
    within_one_bucket_accuracy,
)
from ._parse import ScorecardDocument, ScorecardFileError, parse_scorecard, parse_scorecard_text
from ._payload import Metric, ResultPayload, compute_aggregate, hardware_class
from ._refresh import RefreshResult, refresh_check
from ._render import render_scorecard, write_scorecard
from ._schema import (
    AGGREGATE_FORMULA,
    REQUIRED_FIELDS,
    SEMVER,
    ScorecardInvalidError,
    load_scorecard,
    validate_scorecard,
)
from ._variance import acceptance_variance

__all__ = [
    "AGGREGATE_FORMULA",
    "DEFAULT_ATTENTION",
    "DEFAULT_SCALE",
    "REQUIRED_FIELDS",
    "SEMVER",
    "GateResult",
    "Metric",
    "RefreshResult",
    "ResultPayload",
    "ScorecardDocument",
    "ScorecardFileError",
    "ScorecardInvalidError",
    "acceptance_variance",
    "breakdown",
    "carry_forward",
    "category_accuracy",
    "compute_aggregate",
    "gate",
    "hardware_class",
    "lint_doc_root",
    "load_thresholds",
    "load_scorecard",
    "needs_attention_accuracy",
    "ordinal_metrics",
    "parse_scorecard",
    "parse_scorecard_text",
    "per_category_breakdown",
    "refresh_check",
    "render_scorecard",
    "to_release_payload",
    "top_confusions",
    "urgent_recall",
    "validate_scorecard",
    "variance_stdev",
    "within_one_bucket_accuracy",
    "write_scorecard",
]
