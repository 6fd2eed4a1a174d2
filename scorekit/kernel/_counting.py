"""Steps 3 and 4: each partition's rows counted where they are, and the counts merged exactly
(SPEC §5–§9, §16): sums add, sets unite, and a (dimension, run, case) group split across
partitions (counted twice) is corrected from its exact groups."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._counts import FAIL, PASS, STATUSES, RunTotals, agent_rows, run_totals_from
from .._findings import FindingGroups, finding_groups
from .._partial import release_memory
from .._tally import row_lists
from ._repeated import find_repeated
from ._runner import Runner, run_all
from ._shard import Shard, hash_rows
from ._table import included

__all__ = ["ShardCounts", "counts", "group_hashes", "merge_cases", "run_groups", "run_totals"]

RUNS = ("run", "trial")  # the two run bases; which one counts is known only once every partition is counted


def agent_frame(shard: Shard) -> pd.DataFrame:
    """The partition's agent rows (included, not controls) with what counting reads (an evidence
    frame's own ``included`` column, else the rows' under ``strict``)."""
    counted = shard.counting[["dimension", "case_id", "trial", "run", "status", "control"]]
    flags = shard.counting["included"].to_numpy(dtype=bool) if "included" in shard.counting \
        else included(shard.counting, shard.strict)
    rows = agent_rows(counted.assign(included=flags))
    rows = rows[["dimension", "case_id", "trial", "run", "status"]]
    status = rows["status"].cat.codes.to_numpy()
    return rows.assign(passed=status == PASS, measured=(status == PASS) | (status == FAIL))


def _groups(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per (dimension, run, case) of ``rows`` with a ``column`` value: measured at all, PASS rows,
    PASS + FAIL rows."""
    present = rows[column].notna().to_numpy()
    kept = rows if present.all() else rows[present]  # no copy of the rows when every one has a value
    return kept.groupby(["dimension", column, "case_id"], observed=True, sort=False).agg(
        m=("measured", "any"), p=("passed", "sum"), n=("measured", "sum")).reset_index()


@dataclass
class ShardCounts:
    """Step 3: what one partition's rows count."""

    labels: dict[str, int]
    unlabeled: list[tuple[int, Any, Any, Any, Any]]
    controls: list[dict[str, Any]]
    cases: pd.DataFrame  # per (dimension, case): the four status counts and, per run basis, present/measured
    per_run: dict[str, pd.DataFrame]  # per basis, per (dimension, run): m, p, n, c over the partition's groups
    use_run: bool
    trial_missing: set[str]  # dimensions with an agent row without a trial number
    findings: FindingGroups


def counts(shard: Shard) -> ShardCounts:
    """Step 3: the partition's rows counted (see :class:`ShardCounts`)."""
    frame = shard.counting
    findings = finding_groups(frame)  # first, and memory given back after each part: the parts' peaks do not add up
    release_memory()
    labels, unlabeled, controls = row_lists(frame)
    rows = agent_frame(shard)
    cases = _per_case(rows)
    release_memory()
    per_run = {}
    for basis in RUNS:
        per_run[basis] = _groups(rows, basis).groupby(["dimension", basis], observed=True, sort=False).agg(
            m=("m", "sum"), p=("p", "sum"), n=("n", "sum"), c=("m", "size")).reset_index()
    out = ShardCounts(
        labels=labels, unlabeled=unlabeled, controls=controls, cases=_plain(cases),
        per_run={basis: _plain(frame) for basis, frame in per_run.items()},
        use_run=bool(rows["run"].notna().any()),
        trial_missing={str(d) for d in rows.loc[rows["trial"].isna(), "dimension"].unique()},
        findings=findings,
    )
    del rows
    release_memory()  # what grouping allocated goes back before the next step
    return out


def _per_case(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (dimension, case) of the agent ``rows``: the four status counts and, per run basis, whether
    a row has a run value (``present``) and whether such a row is PASS or FAIL (``measured``). By
    group number (a code per row), not a frame of flags per row."""
    grouped = rows.groupby(["dimension", "case_id"], observed=True, sort=False)
    numbered = grouped.ngroup().to_numpy(dtype=np.float64)  # NaN: a row without a case is in no group
    keep = ~np.isnan(numbered)
    if not keep.all():
        rows, numbered = rows[keep], numbered[keep]
    ids = numbered.astype(np.int64)
    n = int(grouped.ngroups)
    first = np.zeros(n, dtype=np.intp)
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1)  # each group's first row
    status = rows["status"].cat.codes.to_numpy().astype(np.int64)
    numbers = np.bincount(ids * len(STATUSES) + status, minlength=n * len(STATUSES)).reshape(n, len(STATUSES))
    measured = rows["measured"].to_numpy()
    cases = {"dimension": rows["dimension"].iloc[first].array, "case_id": rows["case_id"].iloc[first].array,
             **{name: numbers[:, k] for k, name in enumerate(STATUSES)}}
    for basis in RUNS:
        present = rows[basis].notna().to_numpy()
        cases[f"{basis}_present"] = np.bincount(ids[present], minlength=n) > 0
        cases[f"{basis}_measured"] = np.bincount(ids[present & measured], minlength=n) > 0
    return pd.DataFrame(cases)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with categorical columns as their values (partitions' categories differ)."""
    return frame.assign(**{name: frame[name].astype(frame[name].cat.categories.dtype)
                           for name in frame.columns if isinstance(frame[name].dtype, pd.CategoricalDtype)})


def group_hashes(shard: Shard, basis: str) -> tuple[np.ndarray]:
    """Step 4, kept where the shard is: 64-bit hashes of the partition's (dimension, run, case) groups
    (``basis``: the run column)."""
    groups = _groups(agent_frame(shard), basis)
    return (hash_rows(groups[["dimension", basis, "case_id"]]) if len(groups) else np.zeros(0, dtype=np.uint64),)


def run_groups(shard: Shard, basis: str, hashes: np.ndarray) -> pd.DataFrame:
    """Step 4: the partition's (dimension, run, case) groups whose hash is in ``hashes``, exactly."""
    groups = _groups(agent_frame(shard), basis)
    if not len(groups):
        return _plain(groups)
    return _plain(groups[np.isin(hash_rows(groups[["dimension", basis, "case_id"]]), hashes)])


def merge_cases(parts: list[ShardCounts]) -> pd.DataFrame:
    """The partitions' per-(dimension, case) rows summed, sorted by (dimension, case)."""
    frames = [p.cases for p in parts if len(p.cases)]
    if not frames:
        return parts[0].cases.iloc[:0] if parts else pd.DataFrame()
    merged = pd.concat(frames, ignore_index=True)
    if len(frames) > 1:
        merged = merged.groupby(["dimension", "case_id"], sort=False).agg(
            {name: ("sum" if name in STATUSES else "any") for name in merged.columns[2:]}).reset_index()
    order = np.lexsort((merged["case_id"].to_numpy(), merged["dimension"].to_numpy()))
    return merged.iloc[order].reset_index(drop=True)


def _split_groups(runner: Runner, marked: list[Any], basis: str, rows: int) -> pd.DataFrame | None:
    """Step 4: the per-(dimension, run) corrections for the (dimension, run, case) groups with rows in
    two partitions (counted once in each): their hashes repeat across partitions; those groups come
    back exactly (a hash collision only brings back more), are taken out and put in once."""
    if len(marked) < 2:
        return None
    (repeated,) = find_repeated(runner, group_hashes, marked, 1, rows, basis)
    if not len(repeated):
        return None
    exact = pd.concat(run_all(runner, run_groups, marked, basis, repeated), ignore_index=True)
    if not len(exact):
        return None
    twice = exact.groupby(["dimension", basis], sort=False).agg(m=("m", "sum"), c=("m", "size"))
    once = exact.groupby(["dimension", basis, "case_id"], sort=False)["m"].any().groupby(
        level=[0, 1], sort=False).agg(["sum", "size"])
    fix = twice.join(once).reset_index()
    return pd.DataFrame({"dimension": fix["dimension"], basis: fix[basis], "m": fix["sum"] - fix["m"], "p": 0,
                         "n": 0, "c": fix["size"] - fix["c"]})


def run_totals(runner: Runner, marked: list[Any], parts: list[ShardCounts], cases: pd.DataFrame,
               groups: pd.Index, rows: int) -> RunTotals:
    """The :class:`~scorekit._counts.RunTotals` of the partitions' counts (what run-to-run
    variance reads, SPEC §9), step 4 correcting the groups split across partitions."""
    if not len(groups):
        return RunTotals.without_runs(groups)
    use_run = any(p.use_run for p in parts)
    basis = "run" if use_run else "trial"
    code = {name: i for i, name in enumerate(groups)}
    unbalanced = np.zeros(len(groups), dtype=bool)
    if not use_run:
        for dim in set().union(*(p.trial_missing for p in parts)):
            unbalanced[code[dim]] = True
    frames = [p.per_run[basis] for p in parts if len(p.per_run[basis])]
    fix = _split_groups(runner, marked, basis, rows)
    if fix is not None:
        frames.append(fix)
    summed_rows: list[tuple[Any, Any, int, int, int, int]] = []
    if frames:
        summed = pd.concat(frames, ignore_index=True).groupby(["dimension", basis], sort=True)[
            ["m", "p", "n", "c"]].sum()
        summed_rows = [(str(d), str(r) if use_run else int(r), int(m), int(p), int(n), int(c))
                       for (d, r), (m, p, n, c) in zip(summed.index, summed.to_numpy().tolist(), strict=True)]
    dims = cases["dimension"].map(code).to_numpy()
    universe = np.bincount(dims[cases[f"{basis}_measured"].to_numpy(dtype=bool)], minlength=len(groups))
    n_cases = np.bincount(dims[cases[f"{basis}_present"].to_numpy(dtype=bool)], minlength=len(groups))
    return run_totals_from(groups, summed_rows, column=basis, use_run=use_run, unbalanced=unbalanced,
                           universe=universe, n_cases=n_cases)
