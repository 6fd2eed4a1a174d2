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

from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from . import _counts, _stats

__all__ = ["ScorekitAccessor"]


def _ks(k: Any) -> tuple[list[int], bool]:
    """Normalise ``k`` (an int or a list of ints); say whether a list was given."""
    if isinstance(k, (list, tuple, np.ndarray, pd.Index, range)):
        ks = list(k)
        if not ks:
            raise ValueError("k must be a positive integer or a non-empty list of them; got []")
        return [_stats._k(item) for item in ks], True
    return [_stats._k(k)], False


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
        cc = _counts.count_cases(self._obj, by=by, case=case)
        by_list = _counts._by_list(by)
        case_name = case or ("case_id" if "case_id" in self._obj.columns else "id")
        group_part = cc.groups.index[cc.case_group]
        if isinstance(group_part, pd.MultiIndex):
            arrays = [group_part.get_level_values(i) for i in range(group_part.nlevels)]
        else:
            arrays = [group_part]
        index = pd.MultiIndex.from_arrays([*arrays, cc.case_ids], names=[*by_list, case_name])
        return pd.DataFrame(
            {
                "passes": cc.counts[:, _counts.PASS],
                "fails": cc.counts[:, _counts.FAIL],
                "errors": cc.counts[:, _counts.ERROR],
                "abstains": cc.counts[:, _counts.ABSTAIN],
                "n": cc.n,
            },
            index=index,
        )

    def summary(self, *, by: str | Sequence[str] = "dimension", confidence: float = 0.95) -> pd.DataFrame:
        """Pass rate with a Wilson interval per dimension.

        Parameters
        ----------
        by : str or list of str, default "dimension"
            Grouping column(s), e.g. ``["dimension", "model"]``.
        confidence : float, default 0.95
            Confidence level of the Wilson score interval.

        Returns
        -------
        DataFrame
            Indexed by ``by``, columns ``n`` (PASS + FAIL), ``passes``, ``fails``,
            ``errors``, ``abstains``, ``rate`` (NaN when n = 0), ``ci_low``,
            ``ci_high`` and ``coverage`` ((PASS + FAIL) / all agent rows).
        """
        _stats._check_confidence(confidence)
        return _counts.count_groups(self._obj, by=by).summary(confidence=confidence)

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
        ks, as_frame = _ks(k)
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
    def run_rates(self, run: str, *, by: str | Sequence[str] = "dimension") -> pd.DataFrame:
        """Pass rate of each run per dimension: rows are dimensions, columns runs (NaN: no evidence)."""
        by_list = _counts._by_list(by)
        table = _counts.count_groups(self._obj, by=[*by_list, run]).summary()
        return table["rate"].unstack(run)

    def variance(
        self, run: str, *, by: str | Sequence[str] = "dimension", confidence: float = 0.95
    ) -> pd.DataFrame:
        """Run-to-run variation of the pass rate per dimension.

        Parameters
        ----------
        run : str
            Column naming the run (repeated execution of the suite) of each row.
        by : str or list of str, default "dimension"
        confidence : float, default 0.95

        Returns
        -------
        DataFrame
            Indexed by ``by``: ``n_runs`` (runs with evidence), ``mean``,
            ``stdev`` (n − 1), ``cv_pct``, ``ci_low``/``ci_high``/``ci_half_width``
            (Student t, n − 1 dof) and ``z_half_width`` — :func:`scorekit.mean_ci`
            applied to each dimension's per-run rates.
        """
        rates = self.run_rates(run, by=by)
        values = rates.to_numpy(dtype="float64", na_value=np.nan)
        defined = ~np.isnan(values)
        count = defined.sum(axis=1)
        total = np.where(defined, values, 0.0).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(count > 0, total / count, np.nan)
        sq_dev = np.where(defined, (values - mean[:, None]) ** 2, 0.0).sum(axis=1)
        table = _stats.mean_ci_arrays(count, total, sq_dev, confidence)
        out = pd.DataFrame(table, index=rates.index)
        out = out.rename(columns={"n": "n_runs"})
        out["n_runs"] = count.astype(np.int64)
        return out

    # ------------------------------------------------------------------ plots
    def plot_rates(
        self,
        *,
        thresholds: float | Mapping[str, float] | None = None,
        confidence: float = 0.95,
        ax: Any = None,
    ) -> Any:
        """Pass rate per dimension with its Wilson interval; thresholds drawn when given.

        Returns the matplotlib ``Axes``.
        """
        from . import plots

        return plots.plot_rates(self.summary(confidence=confidence), thresholds=thresholds, confidence=confidence,
                                ax=ax)

    def plot_variance(self, run: str = "run", *, confidence: float = 0.95, ax: Any = None) -> Any:
        """Per-run pass rates per dimension with their mean and t-interval band."""
        from . import plots

        return plots.plot_variance(
            self.run_rates(run), self.variance(run, confidence=confidence), confidence=confidence, ax=ax
        )

    def plot_pass_k(self, ks: Iterable[int] = (1, 2, 4, 8), *, ax: Any = None) -> Any:
        """pass^k against k per dimension (how reliability decays with repeats)."""
        from . import plots

        return plots.plot_pass_k(self.pass_k(list(ks)), ax=ax)
