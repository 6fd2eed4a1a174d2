"""scorekit: captured AI-agent evaluation results → release evidence you can trust.

Public names are listed in ``__all__``; modules whose names start with an
underscore are private. Importing scorekit registers the ``df.scorekit``
DataFrame accessor. Heavy dependencies (SciPy, matplotlib, pyarrow, nbconvert,
papermill, cryptography, jsonschema, rfc8785) are imported only by the
functions that need them.

The model does not import its renderers: ``Scorecard.write``, ``to_release_payload``,
``_repr_html_`` and an ``ImportedRun``'s display ask :mod:`scorekit._renderers` for a
function by name, and this front door registers which ``"module:function"`` does each
(imported on first use, so registering costs nothing).
"""

from __future__ import annotations

from . import accessor as _accessor  # noqa: F401  (registers df.scorekit)
from ._compare import compare
from ._counts import STATUSES
from ._errors import (
    EvidenceNotInMemoryError,
    HistoryError,
    InputError,
    PolicyError,
    Problem,
    ScorekitError,
    SignatureError,
)
from ._evaluate import evaluate
from ._examples import example_path
from ._policy import Policy, load_policy
from ._renderers import register as _register
from ._rows import read_rows
from ._scorecard import Scorecard
from ._stats import (
    cases_needed,
    cluster_interval,
    mean_ci,
    minimum_detectable_drop,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
    z_value,
)
from ._version import __version__
from .importers import ImportedRun
from .importers._read import import_results
from .importers._tools import tool_contracts

# What renders the model (scorekit._renderers): the layers above it, named here, imported on first use.
_register("scorecard.write", "scorekit.reports:write_reports")
_register("scorecard.release_payload", "scorekit.release:to_release_payload")
_register("scorecard.html", "scorekit.notebook:scorecard_html")
_register("imported_runs.html", "scorekit.notebook:imported_runs_html")
_register("scorecard.style", "scorekit.notebook:scorecard_style")
_register("scorecard.mlflow", "scorekit.tracking:log_mlflow")

__all__ = [
    "STATUSES",
    "EvidenceNotInMemoryError",
    "HistoryError",
    "ImportedRun",
    "InputError",
    "PolicyError",
    "Problem",
    "ScorekitError",
    "SignatureError",
    "Policy",
    "Scorecard",
    "__version__",
    "evaluate",
    "load_policy",
    "example_path",
    "import_results",
    "tool_contracts",
    "cases_needed",
    "compare",
    "cluster_interval",
    "mean_ci",
    "minimum_detectable_drop",
    "pass_at_k",
    "pass_hat_k",
    "read_rows",
    "wilson_interval",
    "z_value",
]
