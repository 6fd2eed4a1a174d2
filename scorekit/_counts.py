"""Scored rows → status counts per (group, case), the sufficient statistics, and run totals.

Every statistic is a function of the PASS, FAIL, ERROR, ABSTAIN counts per (dimension, case),
computed here once, with integer codes and ``np.bincount`` (no Python loop per row).
"""

from __future__ import annotations

import functools
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import _stats

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["STATUSES", "STATUS_DTYPE", "CaseCounts", "RunTotals", "RunVariance", "case_counts_from", "count_cases",
           "flaky_mask", "flat_case_counts", "histogram_case_counts", "run_totals", "run_totals_from", "run_variance",
           "status_codes", "variance_table"]

STATUSES: tuple[str, ...] = ("PASS", "FAIL", "ERROR", "ABSTAIN")
STATUS_DTYPE = pd.CategoricalDtype(list(STATUSES))
PASS, FAIL, ERROR, ABSTAIN = range(4)

_DENSE_FACTOR = 4  # above this many possible combined keys per row, hash the keys instead of a dense bincount


# --------------------------------------------------------------------------- codes
def _first_bad(frame: pd.DataFrame, mask: np.ndarray, column: str) -> str:
    """Name the first masked row by its index label (kept through filtering) and id."""
    pos = int(np.flatnonzero(mask)[0])
    where = f"row {frame.index[pos]!r}"
    if "id" in frame.columns and column != "id":
        where += f" (id {frame['id'].iloc[pos]!r})"
    return where


def status_codes(frame: pd.DataFrame, column: str = "status") -> np.ndarray:
    """Status column → int8 codes 0..3 in the order of ``STATUSES``.

    Raises ``ValueError`` naming the first row with a missing or unknown status:
    a statistic over rows that were never scored would be a silent guess.
    """
    if column not in frame.columns:
        raise KeyError(
            f"column {column!r} not found; the rows must be scored first "
            f"(columns present: {', '.join(map(str, frame.columns))})"
        )
    status = frame[column]
    if isinstance(status.dtype, pd.CategoricalDtype):
        lookup = np.array(
            [STATUSES.index(c) if c in STATUSES else -2 for c in status.cat.categories] + [-1],
            dtype="int8",
        )
        codes = lookup[status.cat.codes.to_numpy()]  # code -1 (missing) picks the last entry
    else:
        codes = pd.Index(STATUSES).get_indexer(status.astype(object)).astype("int8")
        codes = np.where(status.isna().to_numpy(), np.int8(-1), np.where(codes < 0, np.int8(-2), codes))
    if (codes < 0).any():
        missing = codes == -1
        mask = missing if missing.any() else codes == -2
        pos = int(np.flatnonzero(mask)[0])
        value = status.iloc[pos]
        what = "is missing" if missing.any() else f"is {value!r}, not one of {', '.join(STATUSES)}"
        raise ValueError(f"column {column!r} {what} at {_first_bad(frame, mask, column)}")
    result: np.ndarray = codes  # int8 status codes (pandas is untyped, so mypy sees Any)
    return result


# Factorizations of Arrow-backed columns, keyed by the identity of the Arrow
# array. Arrow arrays are immutable and pandas replaces (never edits) the array
# when a value is set, so an entry can never go stale; a weak reference drops it
# when the array dies. Repeated df.scorekit calls on one frame (summary, then
# pass_k, then consistency) then hash each grouping column once.
_FACTORIZE_CACHE: OrderedDict[int, tuple[Any, np.ndarray, np.ndarray]] = OrderedDict()
_FACTORIZE_CACHE_SIZE = 8


def clear_cache() -> None:
    """Forget cached factorizations (benchmarks use it to time a cold start)."""
    _FACTORIZE_CACHE.clear()


def _arrow_identity(values: pd.Series) -> Any:
    array = values.array
    if isinstance(array, pd.arrays.ArrowExtensionArray) or type(array).__name__ == "ArrowStringArray":
        try:
            return array.__arrow_array__()
        except Exception:  # pragma: no cover - an exotic extension array
            return None
    return None


def _factorize(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    arrow = _arrow_identity(values)
    if arrow is not None:
        hit = _FACTORIZE_CACHE.get(id(arrow))
        if hit is not None and hit[0]() is arrow:
            _FACTORIZE_CACHE.move_to_end(id(arrow))
            return hit[1], hit[2]
    # Hash once, unsorted: sorting happens on the few groups, not the rows.
    codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
    small = np.int32 if len(uniques) < 2**31 else np.int64
    codes = codes.astype(small, copy=False)
    uniques = np.asarray(uniques, dtype=object)
    if arrow is not None:
        key = id(arrow)
        try:
            ref = weakref.ref(arrow, lambda _: _FACTORIZE_CACHE.pop(key, None))
        except TypeError:  # pragma: no cover - not weak-referenceable
            return codes, uniques
        codes.setflags(write=False)
        _FACTORIZE_CACHE[key] = (ref, codes, uniques)
        while len(_FACTORIZE_CACHE) > _FACTORIZE_CACHE_SIZE:
            _FACTORIZE_CACHE.popitem(last=False)
    return codes, uniques


def _level_codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of one grouping column and the values they stand for (unsorted)."""
    name = values.name
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        uniques = pd.Index(values.cat.categories.to_numpy(), name=name)
    else:
        codes, labels = _factorize(values)
        uniques = pd.Index(labels, dtype=values.dtype if values.dtype != object else None, name=name)
    if len(codes) and codes.min() < 0:
        raise ValueError(f"column {name!r} has missing values at {_first_bad(values.to_frame(), codes < 0, str(name))}")
    return codes.astype(np.int64, copy=False), uniques


def _rank_from_order(order: np.ndarray) -> np.ndarray:
    """Position of each value in sorted order, from its argsort."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _decompose(keys: np.ndarray, prefix: list[np.ndarray], radix: list[int]) -> list[np.ndarray]:
    """Split combined keys back into one code array per level (mixed radix)."""
    parts: list[np.ndarray] = []
    rest = keys
    for width in reversed(radix):
        rest, child = np.divmod(rest, width)
        parts.append(child)
    parts.reverse()
    # Without a compressed prefix what is left is 0; with one it indexes the prefix.
    return [part[rest] for part in prefix] + parts


def grouped_status_counts(
    frame: pd.DataFrame, columns: Sequence[str], statuses: np.ndarray
) -> tuple[pd.Index, np.ndarray]:
    """Status counts per observed combination of ``columns`` (an (groups, 4) array), sorted by label,
    and the labels (a MultiIndex for several columns): a hash pass per column gives codes, combined
    into one key per row that one ``np.bincount`` counts; only the observed groups are sorted."""
    levels, codes, counts = grouped_codes(frame, columns, statuses)
    if len(levels) == 1:
        index = levels[0][codes[0]]
        index.name = columns[0]
        return index, counts
    return pd.MultiIndex(levels=levels, codes=codes, names=list(columns), verify_integrity=False), counts


def grouped_codes(
    frame: pd.DataFrame, columns: Sequence[str], statuses: np.ndarray
) -> tuple[list[pd.Index], list[np.ndarray], np.ndarray]:
    """:func:`grouped_status_counts` before its index is built: per column, the sorted labels
    some group has, and each group's code into them (groups sorted by label), and the counts.
    For many groups (one per row and more) the codes are far cheaper than a MultiIndex."""
    columns = list(columns)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"column {missing[0]!r} not found")
    levels: list[pd.Index] = []
    key: np.ndarray | None = None
    size = 1
    prefix: list[np.ndarray] = []  # level codes per key value of a compressed prefix
    radix: list[int] = []  # widths of the levels mixed into the key after the prefix
    for column in columns:
        codes, uniques = _level_codes(frame[column])
        levels.append(uniques)
        width = max(len(uniques), 1)
        if key is None:
            key, size, radix = codes, width, [width]
            continue
        if size * width > 2**62 // len(STATUSES):  # keep the combined key within int64
            key, seen = pd.factorize(key, sort=False)
            prefix, radix = _decompose(np.asarray(seen, dtype=np.int64), prefix, radix), []
            size = len(seen)
        key = key * width + codes
        radix.append(width)
        size *= width
    assert key is not None
    n_status = len(STATUSES)
    if size <= _DENSE_FACTOR * len(key) + 1024:
        counts = np.bincount(key * n_status + statuses, minlength=size * n_status).reshape(size, n_status)
        observed = np.flatnonzero(counts.any(axis=1))
        counts = counts[observed]
    else:
        codes, observed = pd.factorize(key, sort=False)
        counts = np.bincount(codes * n_status + statuses, minlength=len(observed) * n_status).reshape(-1, n_status)
    level_codes = _decompose(np.asarray(observed, dtype=np.int64), prefix, radix)
    del observed
    # Sort groups by label, level by level; relabel each level in sorted order. There may be
    # about as many groups as rows, so each array of them goes as soon as it is used.
    sort_orders = [np.argsort(uniques.to_numpy(), kind="stable") for uniques in levels]
    ranks = [_rank_from_order(o)[codes] for o, codes in zip(sort_orders, level_codes, strict=True)]
    del level_codes
    widths = [max(len(uniques), 1) for uniques in levels]
    if float(np.prod(widths, dtype=np.float64)) < 2.0**62:  # one sort key, most significant level first
        combined = ranks[0].copy()
        for rank, width in zip(ranks[1:], widths[1:], strict=True):
            combined *= width
            combined += rank
        order = np.argsort(combined, kind="stable")
        del combined
    else:
        order = np.lexsort(ranks[::-1])
    sorted_codes = []
    while ranks:
        sorted_codes.append(ranks.pop(0)[order])
    counts = counts[order]
    del order
    sorted_levels = [uniques[o] for uniques, o in zip(levels, sort_orders, strict=True)]
    for i, (level, codes) in enumerate(zip(sorted_levels, sorted_codes, strict=True)):
        used = np.bincount(codes, minlength=len(level)) > 0
        if not used.all():  # a categorical's categories no group has leave, in order
            sorted_levels[i] = level[used]
            sorted_codes[i] = (np.cumsum(used) - 1)[codes]
    return sorted_levels, sorted_codes, counts


def agent_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows that measure the agent.

    Evaluator control rows (``control`` true) leave, and so do rows a Scorecard's
    evidence marks as not counted (``included`` false: rows an exploratory scan
    dropped), so ``card.evidence.scorekit.summary()`` equals ``card.dimensions``.
    """
    keep = None
    if "control" in frame.columns:
        keep = ~frame["control"].fillna(False).to_numpy(dtype=bool)
    if "included" in frame.columns:
        included = frame["included"].fillna(False).to_numpy(dtype=bool)
        keep = included if keep is None else keep & included
    if keep is not None and not keep.all():
        return frame.loc[keep]
    return frame


def _by_list(by: str | Sequence[str]) -> list[str]:
    if isinstance(by, str):
        return [by]
    by = list(by)
    if not by or not all(isinstance(b, str) for b in by):
        raise TypeError(f"by must be a column name or a list of column names; got {by!r}")
    return by


# --------------------------------------------------------------------------- tables
class _Statuses:
    """Rows of status counts (PASS, FAIL, ERROR, ABSTAIN) and what they measure."""

    counts: npt.NDArray[np.int64]

    @property
    def passes(self) -> np.ndarray:
        return self.counts[:, PASS]

    @property
    def n(self) -> np.ndarray:
        """Measured rows: PASS + FAIL (the pass-rate denominator)."""
        return self.counts[:, PASS] + self.counts[:, FAIL]

    def columns(self) -> dict[str, np.ndarray]:
        """The counts as columns ``passes``, ``fails``, ``errors``, ``abstains``."""
        return {name: self.counts[:, k] for k, name in enumerate(("passes", "fails", "errors", "abstains"))}


@dataclass(frozen=True)
class GroupCounts(_Statuses):
    """Status counts per group (e.g. per dimension)."""

    index: pd.Index
    counts: npt.NDArray[np.int64]  # (G, 4): PASS, FAIL, ERROR, ABSTAIN

    def summary(self, confidence: float = 0.95) -> pd.DataFrame:
        """``n, passes, fails, errors, abstains, rate, ci_low, ci_high, coverage`` per group."""
        n = self.n
        low, high = _stats.wilson_interval(self.passes, n, confidence=confidence)
        total = self.counts.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(n > 0, self.passes / n, np.nan)
            coverage = np.where(total > 0, n / total, np.nan)
        return pd.DataFrame({"n": n, **self.columns(), "rate": rate, "ci_low": low, "ci_high": high,
                             "coverage": coverage}, index=self.index)


@dataclass(frozen=True)
class CaseCounts(_Statuses):
    """Status counts per (group, case): the sufficient statistics of an evaluation, held compact.

    The statistics read each case's PASS, FAIL, ERROR and ABSTAIN counts and nothing else of it, so
    cases of one group with equal counts are one entry: ``counts`` holds each group's distinct count
    vectors (sorted by group, then by the four counts) and ``weights`` how many cases have each. With
    ten trials a case there are a few hundred entries a group however many cases, so a billion rows
    (a hundred million cases) cost kilobytes here. The one statistic that names cases, the flaky ones
    (SPEC §6), is kept as it is counted: ``flaky`` holds, per group, their ids sorted.

    Its integer sums over the entries are exact; every float sum runs over :func:`scorekit._stats.fold`,
    so the floats depend neither on the row order nor on how the rows were partitioned, whichever
    engine counted them.
    """

    groups: GroupCounts
    case_group: np.ndarray  # (K,) index into groups.index, non-decreasing
    counts: npt.NDArray[np.int64]  # (K, 4): distinct within a group, sorted
    weights: npt.NDArray[np.int64]  # (K,) cases with these counts, each >= 1
    flaky: tuple[list[Any], ...]  # per group: ids of the cases with 0 < passes < n, n >= 2, sorted

    def _total(self, values: Any) -> np.ndarray:
        """Per group, the sum over its cases of ``values`` (one value per entry)."""
        return np.bincount(self.case_group, weights=np.asarray(values) * self.weights,
                           minlength=len(self.groups.index))

    def summary(self, confidence: float = 0.95) -> pd.DataFrame:
        """:meth:`GroupCounts.summary` plus the case-clustered interval (SPEC §6, §18).

        Adds ``cases`` (with a measured trial), ``deff`` (the design effect), ``ci_cluster_low`` /
        ``ci_cluster_high`` (Wilson at the effective size N/deff) and ``wilson_low`` /
        ``wilson_high`` (pooled Wilson). ``ci_low`` / ``ci_high`` are the headline interval: the
        clustered one when some case has more than one measured trial (``interval_method``
        ``"wilson_clustered"``), else Wilson (``"wilson"``).
        """
        table = self.groups.summary(confidence=confidence)
        ngroups = len(self.groups.index)
        n = self.n
        low, high, deff = _stats.cluster_interval_grouped(self.passes, n, self.case_group, confidence,
                                                          ngroups=ngroups, weights=self.weights)
        table["cases"] = self._total(n > 0).astype(np.int64)
        table["deff"] = deff
        table["ci_cluster_low"] = low
        table["ci_cluster_high"] = high
        # The headline interval (SPEC §18): case-clustered when some case repeats, else Wilson.
        table["wilson_low"] = table["ci_low"]
        table["wilson_high"] = table["ci_high"]
        repeats = self.most_trials() > 1
        table["ci_low"] = np.where(repeats, low, table["wilson_low"].to_numpy())
        table["ci_high"] = np.where(repeats, high, table["wilson_high"].to_numpy())
        table["interval_method"] = pd.Series(np.where(repeats, "wilson_clustered", "wilson"),
                                             index=table.index, dtype=object)
        return table

    def most_trials(self) -> np.ndarray:
        """The largest number of measured (PASS/FAIL) trials of one case, per group (0 with none)."""
        most = np.zeros(len(self.groups.index), dtype=np.int64)
        np.maximum.at(most, self.case_group, self.n)
        return most

    def trials_vary(self) -> np.ndarray:
        """Per group: its measured cases (nᵢ ≥ 1) have unequal numbers of measured trials (SPEC §18)."""
        vary: np.ndarray = self.most_trials() != self.curve_k().to_numpy()
        return vary

    def per_k(self, ks: Sequence[int], estimator: str = "pass_hat_k") -> pd.DataFrame:
        """Mean over cases with ``n >= k`` of pass^k (or pass@k), one column per k (summed as
        :func:`scorekit._stats.pass_k_interval` sums it)."""
        function = {"pass_hat_k": _stats.pass_hat_k, "pass_at_k": _stats.pass_at_k}[estimator]
        columns = {k: _stats.grouped_case_mean(functools.partial(_per_k, function, k=k), self.passes, self.n,
                                               self.case_group, self.weights, len(self.groups.index))
                   for k in ks}
        frame = pd.DataFrame(columns, index=self.groups.index)
        frame.columns.name = "k"
        return frame

    def per_k_cases(self, ks: Sequence[int]) -> pd.DataFrame:
        """How many cases each k covers (``n >= k``), one column per k (SPEC §6 ``pass_k_cases``)."""
        n = self.n
        frame = pd.DataFrame({k: self._total(n >= k).astype(np.int64) for k in ks}, index=self.groups.index)
        frame.columns.name = "k"
        return frame

    def curve_k(self) -> pd.Series:
        """The largest k every measured case of a group reaches (min nᵢ over cases with nᵢ ≥ 1; 0 with none).

        pass^k is non-increasing in k only over one set of cases, so a curve of
        pass^k against k is drawn for k up to this value; larger ks cover a
        subset of the cases (SPEC §6).
        """
        ngroups = len(self.groups.index)
        n = self.n
        big = np.iinfo(np.int64).max
        least = np.full(ngroups, big, dtype=np.int64)
        measured = n > 0
        np.minimum.at(least, self.case_group[measured], n[measured])
        return pd.Series(np.where(least == big, 0, least), index=self.groups.index, name="curve_k")

    def consistency(self) -> pd.DataFrame:
        """Repeated cases (≥ 2 measured trials), the share whose trials all agree, flaky ids."""
        n_repeated = self._total(self.n >= 2)
        n_flaky = self._total(flaky_mask(self.passes, self.n))
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(n_repeated > 0, (n_repeated - n_flaky) / n_repeated, np.nan)
        return pd.DataFrame(
            {
                "repeated_cases": n_repeated.astype(np.int64),
                "consistency": share,
                "flaky_cases": [list(ids) for ids in self.flaky],
            },
            index=self.groups.index,
        )


def _per_k(function: Any, c: np.ndarray, n: np.ndarray, *, k: int) -> Any:
    return function(c, n, k)


def flaky_mask(passes: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Flaky cases (SPEC §6): repeated (n ≥ 2 measured trials) whose trials disagree (0 < passes < n)."""
    mask: np.ndarray = (n >= 2) & (passes > 0) & (passes < n)
    return mask


def _per_case(frame: pd.DataFrame, by: list[str], case: str | None) -> tuple[np.ndarray, pd.Index, Any, np.ndarray]:
    """Per (group, case) of the agent rows of ``frame``, sorted: each group's first case marked, the
    groups, the case ids and the (K, 4) status counts."""
    if case is None:
        case = "case_id" if "case_id" in frame.columns else "id"
    if case not in frame.columns:
        raise KeyError(f"column {case!r} not found; needed to group repeated trials into cases")
    rows = agent_rows(frame)
    index, counts = grouped_status_counts(rows, [*by, case], status_codes(rows))
    first = np.ones(len(index), dtype=bool)  # each group's first case (cases are sorted by group)
    first[1:] = np.any([codes[1:] != codes[:-1] for codes in index.codes[:-1]], axis=0)
    group_index = index.droplevel(-1)[first]
    if isinstance(group_index, pd.MultiIndex):
        group_index = group_index.remove_unused_levels()
    return first, group_index, index.levels[-1].to_numpy(dtype=object)[index.codes[-1]], counts


def count_cases(
    frame: pd.DataFrame, by: str | Sequence[str] = "dimension", case: str | None = None
) -> CaseCounts:
    """Status counts per (group, case) of the agent rows of ``frame``.

    ``case`` defaults to ``case_id`` when present, else ``id`` (each row its own
    case, as SPEC §2 says for a missing ``case_id``).
    """
    return _case_counts(*_per_case(frame, _by_list(by), case))


def case_counts_from(dimensions: Any, case_ids: Any, counts: np.ndarray) -> CaseCounts:
    """The :class:`CaseCounts` (by dimension) of status counts already summed per (dimension, case)
    and sorted by (dimension, case id), as an engine that counts where its rows are has them.

    ``dimensions`` and ``case_ids`` are text arrays (Arrow or pandas) of one entry per (dimension,
    case); ``counts`` is (K, 4) in :data:`STATUSES` order.
    """
    first, groups = _dimension_starts(dimensions)
    return _case_counts(first, groups, pd.array(case_ids, dtype="str"),
                        np.asarray(counts, dtype=np.int64).reshape(len(first), 4))


def histogram_case_counts(dimensions: Any, counts: np.ndarray, weights: Any,
                          flaky: Mapping[str, Sequence[Any]]) -> CaseCounts:
    """The :class:`CaseCounts` of a histogram an engine counted where its rows are: per dimension, each
    distinct status-count vector of its cases (``counts``, (K, 4) in :data:`STATUSES` order, sorted
    by (dimension, counts)) and how many cases have it (``weights``); ``flaky`` maps a dimension to
    its flaky case ids (SPEC §6), sorted."""
    first, groups = _dimension_starts(dimensions)
    counts = np.asarray(counts, dtype=np.int64).reshape(len(first), 4)
    weights = np.asarray(weights, dtype=np.int64)
    return _compact(first, groups, counts, weights,
                    tuple(list(flaky.get(str(name), ())) for name in groups))


def _dimension_starts(dimensions: Any) -> tuple[np.ndarray, pd.Index]:
    """Each dimension's first entry marked (the entries sorted by dimension) and the dimensions."""
    dims = pd.Series(pd.array(dimensions, dtype="str"))
    codes, groups = pd.factorize(dims, sort=False)  # already sorted: codes are non-decreasing
    return (np.r_[True, codes[1:] != codes[:-1]][: len(codes)],
            pd.Index(pd.array(groups, dtype="str"), name="dimension"))


def _case_counts(first: np.ndarray, groups: pd.Index, case_ids: Any, counts: np.ndarray) -> CaseCounts:
    """:class:`CaseCounts` of per-case ``counts`` sorted by (group, case id), ``first`` marking each
    group's first case: the flaky ids taken, then the cases of equal counts made one entry."""
    group = (np.cumsum(first) - 1).astype(np.int64)
    flaky = flaky_mask(counts[:, PASS], counts[:, PASS] + counts[:, FAIL])
    where = np.flatnonzero(flaky)
    ids = np.asarray(case_ids[where], dtype=object) if len(where) else np.zeros(0, dtype=object)
    bounds = np.searchsorted(group[where], np.arange(1, len(groups)))
    flaky_ids = tuple(part.tolist() for part in np.split(ids, bounds)) if len(groups) else ()
    # One entry per distinct (group, counts), sorted, with the number of cases that have it.
    table = np.column_stack([group, counts]) if len(counts) else np.zeros((0, 5), dtype=np.int64)
    entries, weights = _stats.distinct_rows(table)
    return _compact(np.r_[True, entries[1:, 0] != entries[:-1, 0]][: len(entries)], groups, entries[:, 1:],
                    weights.astype(np.int64), flaky_ids)


def _compact(first: np.ndarray, groups: pd.Index, counts: np.ndarray, weights: np.ndarray,
             flaky: tuple[list[Any], ...]) -> CaseCounts:
    """:class:`CaseCounts` of distinct ``counts`` per group with their ``weights``, ``first`` marking
    each group's first entry."""
    starts = np.flatnonzero(first)
    weighted = counts * weights[:, None]
    group_counts = np.add.reduceat(weighted, starts, axis=0) if len(starts) else counts[:0]
    return CaseCounts(groups=GroupCounts(index=groups, counts=group_counts),
                      case_group=(np.cumsum(first) - 1).astype(np.int64), counts=counts, weights=weights,
                      flaky=flaky)


def case_table(
    frame: pd.DataFrame, by: str | Sequence[str] = "dimension", case: str | None = None
) -> pd.DataFrame:
    """:func:`count_cases` as a DataFrame: one row per (group, case) with its status counts.

    Indexed by (``by``..., case), with ``passes``, ``fails``, ``errors``,
    ``abstains`` and ``n`` (PASS + FAIL); ``case`` defaults as in :func:`count_cases`.
    """
    by = _by_list(by)
    first, groups, case_ids, counts = _per_case(frame, by, case)
    case_name = case or ("case_id" if "case_id" in frame.columns else "id")
    group_part = groups[np.cumsum(first) - 1]
    if isinstance(group_part, pd.MultiIndex):
        arrays = [group_part.get_level_values(i) for i in range(group_part.nlevels)]
    else:
        arrays = [group_part]
    index = pd.MultiIndex.from_arrays([*arrays, case_ids], names=[*by, case_name])
    return pd.DataFrame({name: counts[:, k] for k, name in enumerate(("passes", "fails", "errors", "abstains"))}
                        | {"n": counts[:, PASS] + counts[:, FAIL]}, index=index)


def flat_case_counts(dimensions: Any, case_ids: Any, counts: np.ndarray) -> pd.DataFrame:
    """Per-case status ``counts`` ((K, 4), sorted by (dimension, case)) as flat columns ``dimension``,
    ``case_id``, ``passes``, ``n`` (PASS + FAIL): ``Scorecard.case_counts``, the per-case counts a
    history record stores and a paired comparison reads."""
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 4)
    return pd.DataFrame(  # text columns as Arrow strings: no Python object per case (10M cases at scale)
        {
            "dimension": pd.array(dimensions, dtype="str"),
            "case_id": pd.array(case_ids, dtype="str"),
            "passes": counts[:, PASS],
            "n": counts[:, PASS] + counts[:, FAIL],
        }
    )


# --------------------------------------------------------------------------- run-to-run variance
@dataclass(frozen=True)
class RunVariance:
    """Run-to-run variance per group (SPEC §6), the one computation every front door shows.

    table : DataFrame indexed by group
        ``basis`` (``"run"``, ``"trial"``, or None when there is no run
        structure), ``runs`` (complete runs), ``incomplete_runs``, ``mean``,
        ``stdev`` (n − 1), ``cv_pct``, ``ci_low`` / ``ci_high`` (Student t,
        n − 1 dof, clipped to [0, 1]), ``ci_half_width``, ``z_half_width``,
        ``clipped`` (the t interval reached outside [0, 1]) and ``note`` (why
        there is no variance, or None). Numbers are NaN with fewer than 2
        complete runs.
    rates : DataFrame
        Pass rate of each complete run: groups × runs (NaN where a run is not
        complete for the group).
    """

    table: pd.DataFrame
    rates: pd.DataFrame


_VARIANCE_NUMBERS = ("mean", "stdev", "cv_pct", "ci_low", "ci_high", "ci_half_width", "z_half_width")


def run_variance(
    frame: pd.DataFrame, *, run: str = "run", by: str | Sequence[str] = "dimension", confidence: float = 0.95
) -> RunVariance:
    """Run-to-run variance of the pass rate of the agent rows of ``frame`` (SPEC §6).

    A run is one pass over the suite: rows are grouped by the ``run`` column;
    without one (or with no value in it) the trial index stands in, but only for
    a group whose every case has the same set of trial indices. A run counts
    only when it measured (PASS or FAIL) every case that any run of the group
    measured; the others are counted as ``incomplete_runs`` and not averaged.
    Rows with no value in the run column are left out. Fewer than 2 complete
    runs give no variance (NaN numbers and a ``note``). Rates are bounded, so
    the interval is clipped to [0, 1] and ``clipped`` says when it was.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"id": [f"r{i}" for i in range(6)], "dimension": "d", "case_id": ["a", "b"] * 3,
    ...                      "run": [0, 0, 1, 1, 2, 2], "status": ["PASS", "PASS", "PASS", "FAIL", "FAIL", "FAIL"]})
    >>> v = run_variance(rows).table
    >>> int(v.loc["d", "runs"]), float(v.loc["d", "mean"]), bool(v.loc["d", "clipped"])
    (3, 0.5, True)
    """
    _stats._check_confidence(confidence)
    return variance_table(run_totals(frame, run=run, by=by), confidence=confidence)


@dataclass(frozen=True)
class RunTotals:
    """What run-to-run variance reads from the rows (SPEC §6), reduced per group and per (group, run)
    (:func:`run_totals`, :func:`run_totals_from`); :func:`variance_table` does the rest."""

    groups: pd.Index  # every group of the agent rows, sorted
    column: str | None  # the run basis (run or trial); None: the rows have no such column
    note: str | None  # why no run has a value ("no row has a trial value"), else None
    unbalanced: np.ndarray  # per group: trials stand in for runs and the cases have unequal trial sets
    universe: np.ndarray  # per group: cases measured (PASS or FAIL) in any run
    run_labels: pd.Index  # the run (or trial) values, sorted
    # Per (group, run) present, sorted by (group, run): the group, the run label, the cases measured in
    # the run, its PASS rows and its PASS + FAIL rows.
    run_group: np.ndarray
    run_code: np.ndarray
    run_cases: np.ndarray
    run_pass: np.ndarray
    run_n: np.ndarray

    @classmethod
    def without_runs(cls, groups: pd.Index, *, column: str | None = None, note: str | None = None,
                     unbalanced: np.ndarray | None = None) -> RunTotals:
        """Totals with no (group, run) entry: no run column (``column`` None), or no row with a value."""
        ngroups = len(groups)
        empty = np.zeros(0, dtype=np.int64)
        return cls(groups, column, note, np.zeros(ngroups, dtype=bool) if unbalanced is None else unbalanced,
                   np.zeros(ngroups, dtype=np.int64), pd.Index([]), empty, empty, empty, empty, empty)


def run_totals(frame: pd.DataFrame, *, run: str = "run", by: str | Sequence[str] = "dimension") -> RunTotals:
    """:class:`RunTotals` of the agent rows of ``frame`` (the rules of :func:`run_variance`)."""
    by = _by_list(by)
    rows = agent_rows(frame)
    statuses = status_codes(rows)
    groups, _ = grouped_status_counts(rows, by, statuses) if len(rows) else (pd.Index([], name=by[0]), None)
    ngroups = len(groups)
    case = "case_id" if "case_id" in rows.columns else "id"
    use_run = run in rows.columns and bool(rows[run].notna().any())
    column = run if use_run else "trial"
    if not ngroups or column not in rows.columns:
        return RunTotals.without_runs(groups)
    has_value = rows[column].notna().to_numpy()
    every = bool(has_value.all())
    unbalanced = np.zeros(ngroups, dtype=bool)
    if not use_run and not every:  # a missing trial number breaks the trial sets
        missing = rows.loc[~has_value, by]
        np.logical_or.at(unbalanced, groups.get_indexer(
            pd.MultiIndex.from_frame(missing) if len(by) > 1 else missing[by[0]]), True)
    # No copy of the rows when every one has a value (the common case: ~400 MB at 2M rows).
    kept, kept_statuses = (rows, statuses) if every else (rows[has_value], statuses[has_value])
    if not len(kept):
        return RunTotals.without_runs(groups, column=column, note=f"no row has a {column} value", unbalanced=unbalanced)
    # Codes, not a MultiIndex: with trials as runs there is a (group, run, case) per row.
    labels, codes, counts = grouped_codes(kept, [*by, column, case], kept_statuses)
    levels = len(by)
    if levels == 1:  # through the level's few labels: no lookup per (group, run, case)
        gcode = groups.get_indexer(labels[0])[codes[0]].astype(np.int64)
    else:
        index = pd.MultiIndex(levels=labels, codes=codes, names=[*by, column, case], verify_integrity=False)
        gcode = groups.get_indexer(index.droplevel([-1, -2]))
        del index
    rcode = codes[levels].astype(np.int64, copy=False)
    ccode = codes[levels + 1].astype(np.int64, copy=False)
    del codes
    nruns, ncases = len(labels[levels]), len(labels[levels + 1])

    def per_group(pairs: np.ndarray) -> np.ndarray:  # distinct cases per group of (group, case) keys
        return np.bincount(np.unique(pairs) // ncases, minlength=ngroups)

    measured = (counts[:, PASS] + counts[:, FAIL]) > 0
    keys, at = np.unique(gcode * nruns + rcode, return_inverse=True)
    return _run_totals(groups, column, use_run, unbalanced, per_group(gcode[measured] * ncases + ccode[measured]),
                       per_group(gcode * ncases + ccode), labels[levels], keys // nruns, keys % nruns,
                       *(np.bincount(at, weights=w, minlength=len(keys))
                         for w in (measured, counts[:, PASS], counts[:, PASS] + counts[:, FAIL], None)))


def run_totals_from(groups: pd.Index, per_run: Sequence[tuple[Any, Any, int, int, int, int]], *, column: str,
                    use_run: bool, unbalanced: np.ndarray, universe: np.ndarray, n_cases: np.ndarray) -> RunTotals:
    """The :class:`RunTotals` of agent rows an engine counted where they are (the rules of
    :func:`run_totals`).

    ``per_run`` holds, sorted by (group, run), one ``(group, run, cases measured, PASS rows,
    PASS + FAIL rows, cases present)`` per (group, run) that has rows; ``column`` is the run
    basis (``run`` when ``use_run``, else ``trial``); ``unbalanced`` marks the groups with an
    agent row without a trial number (trials as runs); ``universe`` and ``n_cases`` are, per
    group, the cases measured in some run and the cases present at some run.
    """
    code = {name: i for i, name in enumerate(groups)}
    labels = sorted({r for _, r, *_ in per_run})
    at = {label: i for i, label in enumerate(labels)}
    numbers = np.array([row[2:] for row in per_run], dtype=np.int64).reshape(-1, 4)
    return _run_totals(groups, column, use_run, unbalanced, universe, n_cases,
                       pd.Index(pd.array(labels, dtype="str" if use_run else "Int64"), name=column),
                       np.array([code[g] for g, *_ in per_run], dtype=np.int64),
                       np.array([at[r] for _, r, *_ in per_run], dtype=np.int64), *numbers.T)


def _run_totals(groups: pd.Index, column: str, use_run: bool, unbalanced: np.ndarray, universe: np.ndarray,
                n_cases: np.ndarray, run_labels: pd.Index, run_group: np.ndarray, run_code: np.ndarray,
                *sums: np.ndarray) -> RunTotals:
    """What :func:`run_totals` and :func:`run_totals_from` share: per (group, run), ``sums`` are the
    cases measured, PASS rows, PASS + FAIL rows and cases present; trials stand in for runs only
    where every case of the group has the same set of trial numbers."""
    if not len(run_group):
        return RunTotals.without_runs(groups, column=column, note=f"no row has a {column} value",
                                      unbalanced=unbalanced)
    cases, passes, n, present = (np.asarray(s).astype(np.int64) for s in sums)
    if not use_run:  # the (trial, case) pairs present are all combinations of the group's trials and cases
        trials = np.bincount(run_group, minlength=len(groups))
        pairs = np.bincount(run_group, weights=present, minlength=len(groups))
        unbalanced = unbalanced | ((trials > 0) & (pairs != trials * n_cases))
    return RunTotals(groups=groups, column=column, note=None, unbalanced=unbalanced,
                     universe=np.asarray(universe, np.int64), run_labels=run_labels, run_group=run_group,
                     run_code=run_code, run_cases=cases, run_pass=passes, run_n=n)


def variance_table(totals: RunTotals, *, confidence: float = 0.95) -> RunVariance:
    """:class:`RunVariance` from :class:`RunTotals` (the numbers of :func:`run_variance`).

    A run is complete when it measured every case of its group's universe; the
    mean, stdev and Student-t interval are over the complete runs' pass rates,
    summed in (group, run) order so the floats do not depend on the row order.
    """
    _stats._check_confidence(confidence)
    groups = totals.groups
    ngroups = len(groups)
    table = pd.DataFrame(index=groups)
    table["basis"] = pd.Series([None] * ngroups, index=groups, dtype=object)
    table["runs"] = np.zeros(ngroups, dtype=np.int64)
    table["incomplete_runs"] = np.zeros(ngroups, dtype=np.int64)
    for name in _VARIANCE_NUMBERS:
        table[name] = np.full(ngroups, np.nan)
    table["clipped"] = np.zeros(ngroups, dtype=bool)
    table["note"] = pd.Series([totals.note or "no run column and no trial numbers"] * ngroups, index=groups,
                              dtype=object)
    empty_rates = pd.DataFrame(index=groups)
    if not ngroups or totals.column is None or totals.note is not None:
        return RunVariance(table, empty_rates)
    unbalanced = totals.unbalanced
    run_group = totals.run_group
    run_pass = totals.run_pass.astype(np.float64)
    run_n = totals.run_n.astype(np.float64)
    complete = ((totals.run_cases == totals.universe[run_group]) & (totals.universe[run_group] > 0)
                & ~unbalanced[run_group])
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(run_n > 0, run_pass / run_n, np.nan)
    n_complete = np.bincount(run_group, weights=complete, minlength=ngroups)
    n_incomplete = np.bincount(run_group, weights=~complete & ~unbalanced[run_group], minlength=ngroups)
    total = np.bincount(run_group, weights=np.where(complete, rate, 0.0), minlength=ngroups)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n_complete > 0, total / n_complete, np.nan)
    sq_dev = np.bincount(run_group, weights=np.where(complete, (rate - mean[run_group]) ** 2, 0.0),
                         minlength=ngroups)
    stats = _stats.mean_ci_arrays(n_complete, total, sq_dev, confidence)
    enough = n_complete >= 2
    table["basis"] = [totals.column if not unbalanced[g] else None for g in range(ngroups)]
    table["runs"] = np.where(unbalanced, 0, n_complete).astype(np.int64)
    table["incomplete_runs"] = n_incomplete.astype(np.int64)
    for name in _VARIANCE_NUMBERS:
        table[name] = np.where(enough & ~unbalanced, stats[name], np.nan)
    low, high = table["ci_low"].to_numpy(), table["ci_high"].to_numpy()
    table["clipped"] = (low < 0) | (high > 1)
    table["ci_low"], table["ci_high"] = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    table["note"] = pd.Series([
        "no run column, and the cases do not share one set of trial numbers" if unbalanced[g]
        else f"fewer than 2 complete runs ({int(n_complete[g])} complete, {int(n_incomplete[g])} incomplete)"
        if not enough[g] else None for g in range(ngroups)], index=groups, dtype=object)
    nruns = len(totals.run_labels)
    rates = np.full((ngroups, nruns), np.nan)
    rates[run_group[complete], totals.run_code[complete]] = rate[complete]
    rate_frame = pd.DataFrame(rates, index=groups, columns=pd.Index(totals.run_labels, name=totals.column))
    rate_frame = rate_frame.loc[:, rate_frame.notna().any(axis=0).to_numpy()]
    return RunVariance(table, rate_frame)
