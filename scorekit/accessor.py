"""``df.scorekit``: the DataFrame front door.

The accessor holds no statistics of its own: every method turns the DataFrame
into a call of :mod:`scorekit._counts` / :mod:`scorekit._stats` (numbers) or
:mod:`scorekit.plots` (figures). pandas rebuilds an accessor on every attribute
access, so ``__init__`` only keeps a reference.

The frame is a table of scored rows: at least ``dimension`` and ``status``
(PASS/FAIL/ERROR/ABSTAIN), optionally ``case_id`` (repeated trials of one case)
and ``control`` (evaluator control rows, excluded from agent scores). ERROR and
ABSTAIN rows never enter a pass-rate denominator.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from . import _counts, _stats

__all__ = ["ScorekitAccessor"]


@pd.api.extensions.register_dataframe_accessor("scorekit")
class ScorekitAccessor:
    """Evaluation statistics on a DataFrame of scored rows (``df.scorekit``).

    Examples
    --------
    >>> import pandas as pd, scorekit
    >>> df = pd.DataFrame({"dimension": ["pii"] * 3, "case_id": ["a", "a", "b"],
    ...                    "status": ["PASS", "FAIL", "PASS"]})
    >>> df.scorekit.summary()[["n", "passes", "rate"]]
               n  passes      rate
    dimension
    pii        3       2  0.666667
    """

    def __init__(self, pandas_obj: pd.DataFrame) -> None:
        self._obj = pandas_obj

    # ------------------------------------------------------------------ evaluation
    def evaluate(
        self,
        policy: Any = None,
        *,
        agent_name: str | None = None,
        agent_version: str | None = None,
        limit: int | None = None,
    ) -> Any:
        """Score these rows and decide: :func:`scorekit.evaluate` on this DataFrame."""
        from ._evaluate import evaluate

        return evaluate(self._obj, policy, agent_name=agent_name, agent_version=agent_version, limit=limit)

    # ------------------------------------------------------------------ counts
    def counts(self, *, by: str | Sequence[str] = "dimension", case: str | None = None) -> pd.DataFrame:
        """Status counts per (group, case): the sufficient statistics.

        Parameters
        ----------
        by : str or list of str, default "dimension"
            Grouping column(s).
        case : str, optional
            Case column; defaults to ``case_id`` (or ``id`` when absent).

        Returns
        -------
        DataFrame
            Indexed by (``by``..., case) with ``passes``, ``fails``, ``errors``,
            ``abstains`` and ``n`` (PASS + FAIL).
        """
        return _counts.case_table(self._obj, by=by, case=case)

    def summary(self, *, by: str | Sequence[str] = "dimension", confidence: float = 0.95) -> pd.DataFrame:
        """Pass rate with its headline, Wilson and case-clustered intervals per dimension.

        Parameters
        ----------
        by : str or list of str, default "dimension"
            Grouping column(s), e.g. ``["dimension", "model"]``.
        confidence : float, default 0.95
            Confidence level of both intervals.

        Returns
        -------
        DataFrame
            Indexed by ``by``, columns ``n`` (PASS + FAIL), ``passes``, ``fails``,
            ``errors``, ``abstains``, ``rate`` (NaN when n = 0), ``ci_low``,
            ``ci_high`` (the headline interval: case-clustered when some case
            has more than one measured trial, else Wilson; SPEC §18),
            ``coverage`` ((PASS + FAIL) / all agent rows), ``cases`` (cases
            with a measured trial), ``deff`` (design effect of repeated
            trials), ``ci_cluster_low`` / ``ci_cluster_high`` (the
            case-clustered interval, SPEC §6), ``wilson_low`` /
            ``wilson_high`` (the pooled Wilson interval, always) and
            ``interval_method`` (``"wilson_clustered"`` or ``"wilson"``: which
            interval ``ci_low`` / ``ci_high`` are).
        """
        _stats._check_confidence(confidence)
        return _counts.count_cases(self._obj, by=by).summary(confidence=confidence)

    def pass_k(self, k: int | Sequence[int], *, by: str | Sequence[str] = "dimension") -> pd.Series | pd.DataFrame:
        """pass^k per dimension: mean over cases with at least k measured trials.

        Parameters
        ----------
        k : int or list of int
            One k gives a Series; a list gives a DataFrame with one column per k.
        by : str or list of str, default "dimension"

        Returns
        -------
        Series or DataFrame
            NaN where no case has k measured (PASS/FAIL) trials.
        """
        return self._per_k(k, by, "pass_hat_k", "pass^")

    def pass_at_k(self, k: int | Sequence[int], *, by: str | Sequence[str] = "dimension") -> pd.Series | pd.DataFrame:
        """pass@k per dimension (Chen et al.), same shapes as :meth:`pass_k`."""
        return self._per_k(k, by, "pass_at_k", "pass@")

    def _per_k(self, k: Any, by: Any, estimator: str, label: str) -> pd.Series | pd.DataFrame:
        ks, as_frame = _stats.k_values(k)
        table = _counts.count_cases(self._obj, by=by).per_k(ks, estimator)
        if as_frame:
            return table
        series = table[ks[0]]
        series.name = f"{label}{ks[0]}"
        return series

    def consistency(self, *, by: str | Sequence[str] = "dimension") -> pd.DataFrame:
        """Agreement of repeated trials per dimension.

        Returns
        -------
        DataFrame
            ``repeated_cases`` (cases with ≥ 2 measured trials), ``consistency``
            (share of them whose trials all agree; NaN with none) and
            ``flaky_cases`` (sorted list of the other case ids).
        """
        return _counts.count_cases(self._obj, by=by).consistency()

    # ------------------------------------------------------------------ run-to-run variance
    def run_rates(self, run: str = "run", *, by: str | Sequence[str] = "dimension",
                  confidence: float = 0.95) -> pd.DataFrame:
        """Pass rate of each complete run per dimension: rows are dimensions, columns runs.

        NaN where a run is not complete for the dimension (see :meth:`variance`).
        """
        return _counts.run_variance(self._obj, run=run, by=by, confidence=confidence).rates

    def variance(
        self, run: str = "run", *, by: str | Sequence[str] = "dimension", confidence: float = 0.95
    ) -> pd.DataFrame:
        """Run-to-run variation of the pass rate per dimension (SPEC §6).

        Parameters
        ----------
        run : str, default "run"
            Column naming the run (one pass over the suite) of each row; without
            it the trial index stands in, only where every case of a dimension
            has the same set of trial numbers.
        by : str or list of str, default "dimension"
        confidence : float, default 0.95

        Returns
        -------
        DataFrame
            Indexed by ``by``: ``basis`` (run / trial / None), ``runs`` (complete
            runs: every case measured), ``incomplete_runs`` (counted, not
            averaged), ``mean``, ``stdev`` (n − 1), ``cv_pct``, ``ci_low`` /
            ``ci_high`` (Student t, clipped to [0, 1]), ``ci_half_width``,
            ``z_half_width``, ``clipped`` and ``note`` (why there is none: fewer
            than 2 complete runs). The same numbers as the scorecard's
            ``variance``: :func:`scorekit._counts.run_variance` computes both.
        """
        return _counts.run_variance(self._obj, run=run, by=by, confidence=confidence).table

    # ------------------------------------------------------------------ plots
    def plot_rates(
        self,
        *,
        thresholds: float | Mapping[str, float] | None = None,
        confidence: float = 0.95,
        ax: Any = None,
    ) -> Any:
        """Pass rate per dimension with its headline interval (``summary()``'s ``ci_low``/``ci_high``, named in
        the legend by ``interval_method``); thresholds drawn when given.

        Returns the matplotlib ``Axes``.
        """
        from . import plots

        return plots.plot_rates(self.summary(confidence=confidence), thresholds=thresholds, confidence=confidence,
                                ax=ax)

    def plot_variance(self, run: str = "run", *, confidence: float = 0.95, ax: Any = None) -> Any:
        """Per-run pass rates per dimension with their mean and t-interval band (complete runs only)."""
        from . import plots

        result = _counts.run_variance(self._obj, run=run, confidence=confidence)
        return plots.plot_variance(result.rates, result.table, confidence=confidence, ax=ax)

    def plot_trend(self, *, ax: Any = None) -> Any:
        """The history trend on ``read_history(db)``'s frame (SPEC §17, §19): each dimension's rate
        with its Wilson interval across the recorded versions of the newest record's suite and policy.

        The frame is the record frame :func:`scorekit.history.read_history` returns: one row per
        record, indexed by ``id``, with the per-dimension columns ``<dimension>.rate``, ``.ci_low``,
        ``.ci_high``, ``.n``, ``.verdict`` (read back as rows by
        :func:`scorekit.history.dimension_rows`); any subset of its rows will do. Drawn by
        :func:`scorekit.plots.plot_trend`, the chart of ``scorekit history --plot``
        (``read_history(db).scorekit.plot_trend()``). Returns the matplotlib ``Axes``.

        Raises
        ------
        ValueError
            The frame is not ``read_history(db)``'s (no ``suite_hash``, ``policy_hash``, ``label``,
            ``agent_version`` column).
        """
        from . import plots
        from .history import dimension_rows

        missing = [c for c in ("suite_hash", "policy_hash", "label", "agent_version") if c not in self._obj.columns]
        if missing:
            raise ValueError(f"plot_trend draws read_history(db)'s frame; this frame has no {', '.join(missing)}")
        return plots.plot_trend(self._obj, dimension_rows(self._obj), ax=ax)

    def plot_pass_k(self, ks: Iterable[int] = (1, 2, 4, 8), *, ax: Any = None) -> Any:
        """pass^k against k per dimension (how reliability decays with repeats), each line
        over the ks every case of the dimension reaches (SPEC §6)."""
        from . import plots

        ks = list(ks)
        cases = _counts.count_cases(self._obj)
        return plots.plot_pass_k(cases.per_k(ks), curve_k=cases.curve_k(), cases=cases.per_k_cases(ks), ax=ax)
