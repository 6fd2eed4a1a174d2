"""The Scorecard: THE evidence model. Reports, plots, gate and notebook read it.

``to_dict()`` is the one truth every renderer works from (SPEC §12); it holds no
rows (those are in ``evidence``, or above ``evidence_rows_in_memory`` in an
``evidence/`` dataset: SPEC §16), and undefined numbers are ``None``, never NaN.

The model does not import its renderers: they import it. :meth:`Scorecard.write`,
:meth:`Scorecard.to_release_payload`, :meth:`Scorecard._repr_html_`, :meth:`Scorecard.style`
and :meth:`Scorecard.log_mlflow` ask :mod:`scorekit._renderers` for the function registered as
``scorecard.write``, ``scorecard.release_payload``, ``scorecard.html``, ``scorecard.style`` and
``scorecard.mlflow``; the front door (``scorekit/__init__.py``) registers
:func:`scorekit.reports.write_reports`, :func:`scorekit.release.to_release_payload`,
:func:`scorekit.notebook.scorecard_html`, :func:`scorekit.notebook.scorecard_style` and
:func:`scorekit.tracking.log_mlflow`, each imported on first use (MLflow only then).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._decide import error_rates
from ._evidence import EvidenceStore
from ._renderers import renderer
from ._validate import Validation
from ._version import SCHEMA_VERSION, __version__

__all__ = ["SCHEMA_VERSION", "Scorecard"]

CAVEATS = (
    "These figures apply to the supplied cases only; choose case coverage and sample sizes appropriate to the "
    "release risk.",
    "Repeated trials of one case may be correlated; pass^k and consistency describe these trials, not independent "
    "samples.",
)
DIMENSION_KEYS = (
    "name", "verdict", "verdict_reasons", "in_scope", "n", "passes", "fails", "errors", "abstains", "rate",
    "ci_low", "ci_high", "interval_method", "wilson_low", "wilson_high", "cases", "deff", "ci_cluster_low",
    "ci_cluster_high", "mde", "coverage", "rate_bounds", "missing_could_flip", "threshold", "measure", "assurance",
    "cases_to_settle", "pass_k", "pass_k_ci", "pass_k_cases", "pass_1", "trials_vary", "curve_k", "repeated_cases",
    "consistency", "flaky_cases", "variance", "judge_agreement",
)
#: Dimension keys written as null when the table has no such column (another part computes them).
_NULL_WHEN_ABSENT = ("judge_agreement",)


def _clean(value: Any) -> Any:
    """JSON-safe plain Python: NaN/inf → None, NumPy scalars → Python scalars."""
    if type(value) is str:  # the common leaf, and long lists of them (case ids, problems)
        return value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(v) is str for v in value):
            return list(value)
        return [_clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_clean(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if value is pd.NA or value is None:
        return None
    return value


@dataclass
class Scorecard:
    """The result of :func:`scorekit.evaluate`.

    Attributes
    ----------
    decision : str
        PASS, FAIL, INCOMPLETE, TRIAGE or SELF_TEST (SPEC §8).
    overall_pass : bool
        True only for PASS.
    dimensions : DataFrame
        One row per dimension (indexed by ``name``): counts, rate, Wilson
        interval, threshold, verdict, pass^k, consistency, flaky cases.
    evidence : DataFrame
        Every scored row: ``id``, ``case_id``, ``trial``, ``dimension``,
        ``status`` (the scored status), ``reason``, ``label``, ``control``,
        ``included`` (counted in the statistics) and the captured fields.
        Above ``evidence_rows_in_memory`` rows (SPEC §16) it is not built and
        raises :class:`~scorekit.EvidenceNotInMemoryError`: use
        :meth:`evidence_dataset`.
    evidence_rows : int
        How many scored rows there are (in memory or not).
    case_counts : DataFrame or None
        Per (dimension, case) ``passes`` and ``n`` (PASS + FAIL) of the agent
        rows, sorted by (dimension, case): what a history record stores and a
        paired comparison reads.
    controls, findings : list of dict
    validation : Validation
    """

    decision: str
    measured_decision: str
    decision_reasons: list[str]
    purpose: str
    scope: dict[str, Any]
    dimensions: pd.DataFrame
    evidence_store: EvidenceStore
    controls: list[dict[str, Any]]
    findings: list[dict[str, Any]]
    validation: Validation
    coverage: float | None
    judges: list[str]
    agent: dict[str, Any]
    policy: dict[str, Any]
    partial: bool = False
    #: Where imported rows came from (SPEC §15): the run's agent, task and source; None otherwise.
    source: dict[str, Any] | None = None
    comparison: dict[str, Any] = field(
        default_factory=lambda: {"status": "not_requested", "required": False, "baseline": None, "regressions": []}
    )
    hashes: dict[str, Any] = field(
        default_factory=lambda: {"suite": None, "policy": None, "results": None, "evidence": None}
    )
    generated_at: str = ""
    #: :attr:`case_counts`, or a function that counts it when first read (the duckdb engine above
    #: ``evidence_rows_in_memory``: from the evidence files, SPEC §16). ``dataclasses.replace`` copies
    #: it as it is, so a copy made before the first read stays uncounted too.
    per_case: Any = field(default=None, repr=False)

    @property
    def case_counts(self) -> pd.DataFrame | None:
        """Per (dimension, case) ``passes`` and ``n`` (PASS + FAIL) of the agent rows, sorted by
        (dimension, case): what a history record stores and a paired comparison reads; None for a
        card made without them."""
        if callable(self.per_case):
            self.per_case = self.per_case()
        counts: pd.DataFrame | None = self.per_case
        return counts

    @case_counts.setter
    def case_counts(self, value: pd.DataFrame | None) -> None:
        self.per_case = value

    def __getstate__(self) -> dict[str, Any]:
        """A pickle or deep copy holds the per-case counts themselves: a function that would count
        them reads the original card's temporary evidence files, which go with that card."""
        self.case_counts  # noqa: B018 - counted now if still to be counted
        return dict(self.__dict__)

    @property
    def overall_pass(self) -> bool:
        return self.decision == "PASS"

    @property
    def evidence(self) -> pd.DataFrame:
        """Every scored row (see the class docstring); above ``evidence_rows_in_memory``
        rows :class:`~scorekit.EvidenceNotInMemoryError` (one line): use :meth:`evidence_dataset`."""
        return self.evidence_store.frame()

    @property
    def evidence_rows(self) -> int:
        """How many scored rows the evaluation has, whether or not they are in memory."""
        return self.evidence_store.rows

    def evidence_dataset(self) -> Any:
        """The scored rows as a ``pyarrow.dataset.Dataset`` over Parquet files (SPEC §16).

        Above ``evidence_rows_in_memory`` rows these are the ``evidence/`` files the
        evaluation wrote (in a temporary directory until :meth:`write` links them
        beside scorecard.json); below it the in-memory rows are written to such a
        directory on first use. Rows are in evidence order when the files are read
        in name order; ``.to_table(columns=[...], filter=...)`` reads only what is asked.

        Examples
        --------
        >>> import scorekit as sk
        >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
        >>> card.evidence_dataset().count_rows() == card.evidence_rows
        True
        """
        return self.evidence_store.dataset()

    def to_dict(self) -> dict[str, Any]:
        """The scorecard as JSON-compatible data (keys as SPEC §12; no rows)."""
        dims = []
        for name, row in self.dimensions.iterrows():
            entry = {"name": name}
            entry.update({k: row[k] if k in row.index else None for k in DIMENSION_KEYS
                          if k != "name" and (k in row.index or k in _NULL_WHEN_ABSENT)})
            dims.append(entry)
        data = {
            "schema_version": SCHEMA_VERSION,
            "scorekit_version": __version__,
            "generated_at": self.generated_at,
            "agent": self.agent,
            "decision": self.decision,
            "overall_pass": self.overall_pass,
            "measured_decision": self.measured_decision,
            "decision_reasons": self.decision_reasons,
            "purpose": self.purpose,
            "partial": self.partial,
            **({"source": self.source} if self.source is not None else {}),
            "scope": self.scope,
            "dimensions": dims,
            "controls": self.controls,
            "findings": self.findings,
            "validation": self.validation.to_dict(),
            "coverage": self.coverage,
            "comparison": self.comparison,
            "hashes": self.hashes,
            "judges": self.judges,
            "evaluators": self.evidence_store.evaluators,
            "confidence": self.policy.get("confidence"),
            "error_rates": error_rates(self.policy, self.comparison),
            "evidence": {"rows": self.evidence_rows, "file": self.evidence_store.file_name},
            "policy": self.policy,
            "caveats": list(CAVEATS),
        }
        cleaned: dict[str, Any] = _clean(data)  # _clean keeps a dict a dict
        return cleaned

    def to_release_payload(
        self,
        agent_name: str | None = None,
        agent_version: str | None = None,
        *,
        weights: Mapping[str, float] | None = None,
        **options: Any,
    ) -> Any:
        """This evaluation as a release-scorecard payload (``SCORECARD.md``, SPEC §13).

        Per-dimension pass rates become metrics (weight 1 unless ``weights``
        says otherwise); Wilson bounds and pass^k become weight-0 secondaries.
        Fails closed: a decision other than PASS is refused unless
        ``require_pass=False``. ``options`` are those of
        :func:`scorekit.release.to_release_payload`.

        Examples
        --------
        >>> import scorekit as sk
        >>> from scorekit.release import render_scorecard
        >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
        >>> payload = card.to_release_payload("email-assistant", "1.0.0", require_pass=False)
        >>> payload.config["decision"], render_scorecard(payload).startswith("---")
        ('FAIL', True)
        """
        return renderer("scorecard.release_payload")(
            self, agent_name=agent_name, agent_version=agent_version, weights=weights, **options
        )

    def to_json(self, *, indent: int | None = 2) -> str:
        """``to_dict()`` as JSON text (NaN can never appear: ``allow_nan=False``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False) + "\n"

    def write(self, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
        """Write the reports into ``out_dir`` (created if needed); return their paths.

        ``scorecard.json`` (validated against the shipped JSON Schema),
        ``scorecard.md``, ``scorecard.html`` (self-contained) and
        ``evidence.parquet`` (every scored row; above ``evidence_rows_in_memory``
        rows the ``evidence/`` dataset instead), each written atomically.
        """
        written: dict[str, Path] = renderer("scorecard.write")(self, out_dir)
        return written

    @property
    def findings_frame(self) -> pd.DataFrame:
        """``findings`` as a DataFrame (for notebooks)."""
        return pd.DataFrame(self.findings)

    def log_mlflow(self, run_id: str | None = None, *, artifacts: bool = True) -> str:
        """Log this scorecard to an MLflow run; return the run id (SPEC §19, ``pip install scorekit[mlflow]``).

        Per-dimension metrics ``<dim>.rate``, ``.ci_low``, ``.ci_high``, ``.assurance`` and
        ``.pass_k.<k>``, params (decision, hashes, policy hash, agent), tags and, with
        ``artifacts``, the report files. ``run_id``: log into that run; default: a new run in
        the active experiment, ended once logged. Names and limits: :mod:`scorekit.tracking`.
        """
        run: str = renderer("scorecard.mlflow")(self, run_id, artifacts=artifacts)
        return run

    def style(self) -> Any:
        """The dimension table as a pandas ``Styler``: rates as percentages, verdicts coloured (SPEC §19).

        The values and their formatting are the reports' (the section model); its HTML is the
        table of :meth:`_repr_html_`. See :func:`scorekit.notebook.scorecard_style`.
        """
        return renderer("scorecard.style")(self)

    def _repr_html_(self) -> str:
        """Jupyter's display (SPEC §17): the report's banner, its summary table (:meth:`style`) and the findings table.

        Rendered from the section model like every report; self-contained, no script.
        """
        html: str = renderer("scorecard.html")(self)
        return html

    def __repr__(self) -> str:
        who = " ".join(str(self.agent[k]) for k in ("name", "version") if self.agent.get(k))
        verdicts = self.dimensions["verdict"].value_counts() if "verdict" in self.dimensions else {}
        counted = ", ".join(f"{int(n)} {v}" for v, n in verdicts.items())
        return (
            f"<Scorecard {who + ': ' if who else ''}{self.decision} "
            f"({self.purpose}); {len(self.dimensions)} dimensions{' (' + counted + ')' if counted else ''}, "
            f"{self.evidence_rows:,} rows, {len(self.findings)} findings>"
        )
