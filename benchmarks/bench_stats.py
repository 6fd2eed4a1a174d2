"""Benchmark the statistics path: summary + case-clustered interval + pass_k([1, 2, 4, 8]) + consistency.

Builds a synthetic table of pre-scored rows (default 100,000 cases × 10 trials ×
10 dimensions = 10,000,000 rows, typed as ``scorekit.read_rows`` types them) and
prints, all measured in this one process so machine noise cancels out:

(a) the ratio of scorekit's time to a bare-NumPy ``bincount`` computation of the
    same numbers (counts, Wilson bounds, case-clustered bounds and design
    effects, the headline interval, pass^k, consistency and flaky ids);
(b) the ratio of the obvious pandas ``groupby().apply()`` + statsmodels version
    a user would write to scorekit, on a 1,000,000-row subsample (it is too slow
    for the full table);
(c) peak additional memory (tracemalloc; pyarrow's own pool reported beside it)
    against ``df.memory_usage(deep=True).sum()``.

Usage::

    python benchmarks/bench_stats.py [--cases 100000] [--trials 10] [--dims 10]
                                     [--repeat 3] [--naive-cases 10000]

Targets (issue 2): (a) ≤ 3×, (b) ≥ 20×, (c) < 3×.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd

import scorekit  # noqa: F401  (registers df.scorekit)
from scorekit import _stats

KS = [1, 2, 4, 8]


# --------------------------------------------------------------------------- data
def make_rows(cases: int, trials: int, dims: int, seed: int = 7) -> pd.DataFrame:
    """Pre-scored rows: per-case pass probabilities, ~2% ERROR and ~0.5% ABSTAIN."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    n = cases * trials * dims
    dim_of_row = np.repeat(np.arange(dims), cases * trials)
    case_of_row = np.tile(np.repeat(np.arange(cases), trials), dims)
    trial_of_row = np.tile(np.arange(trials), cases * dims)
    # A realistic mix: most cases reliable, some flaky, some broken.
    p_case = rng.beta(8, 1.2, size=dims * cases)
    p_row = p_case[dim_of_row * cases + case_of_row]
    u = rng.random(n)
    status = np.where(u < p_row, 0, 1).astype(np.int8)
    missing = rng.random(n)
    status[missing < 0.02] = 2
    status[missing > 0.995] = 3
    dim_names = pd.array([f"dimension_{d:02d}" for d in range(dims)], dtype="str")
    case_names = pd.array([f"case-{c:06d}" for c in range(cases)], dtype="str")
    ids = pc.binary_join_element_wise("row-", pa.array(np.arange(n)).cast(pa.string()), "").to_pandas()
    return pd.DataFrame(
        {
            "id": ids,
            "dimension": dim_names[dim_of_row],
            "case_id": case_names[case_of_row],
            "trial": trial_of_row.astype(np.int64),
            "status": pd.Categorical.from_codes(status, dtype=scorekit._counts.STATUS_DTYPE),
        }
    )


# --------------------------------------------------------------------------- the three ways
def with_scorekit(df: pd.DataFrame) -> tuple:
    # Cold start every time: scorekit caches the factorization of a grouping
    # column between calls on the same frame; a repeat must not profit from the
    # previous repeat's cache.
    scorekit._counts.clear_cache()
    summary = df.scorekit.summary()
    # The case-clustered interval from the per-(dimension, case) counts, sorted
    # by (dimension, case) as the scorecard passes them.
    cases = scorekit._counts.count_cases(df)
    cluster = _stats.cluster_interval_grouped(
        cases.passes, cases.n, cases.case_group, 0.95, ngroups=len(cases.groups.index), weights=cases.weights
    )
    return summary, cluster, df.scorekit.pass_k(KS), df.scorekit.consistency()


def with_bare_numpy(df: pd.DataFrame) -> dict:
    """The same numbers with the fewest operations: factorize, bincount, vector maths."""
    dim_codes, dims = pd.factorize(df["dimension"])
    case_codes, cases = pd.factorize(df["case_id"])
    status = df["status"].cat.codes.to_numpy()
    key = dim_codes.astype(np.int64) * len(cases) + case_codes
    counts = np.bincount(key * 4 + status, minlength=len(dims) * len(cases) * 4).reshape(len(dims), len(cases), 4)
    c = counts[..., 0].astype(float)
    n = c + counts[..., 1]
    present = counts.sum(axis=2) > 0
    dim_counts = counts.sum(axis=1)
    dc, dn = dim_counts[:, 0], dim_counts[:, 0] + dim_counts[:, 1]
    z = _stats.z_value(0.95)
    p = dc / dn

    def wilson(size: np.ndarray, z: float | np.ndarray = z) -> tuple[np.ndarray, np.ndarray]:
        denom = 1 + z * z / size
        center = (p + z * z / (2 * size)) / denom
        half = z * np.sqrt(p * (1 - p) / size + z * z / (4 * size * size)) / denom
        return np.where(dc == 0, 0.0, np.clip(center - half, 0, 1)), np.where(
            dc == dn, 1.0, np.clip(center + half, 0, 1)
        )

    out = {"n": dn, "rate": p}
    out["wilson_low"], out["wilson_high"] = wilson(dn)
    # Case-clustered interval: the Wilson interval at N/deff (SPEC §6), per dimension along the case axis.
    m = (n > 0).sum(axis=1)
    ceiling = (n * n).sum(axis=1) / dn
    residual = c - p[:, None] * n
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = m / (m - 1) * (residual * residual).sum(axis=1) / (dn * p * (1 - p))
    out["deff"] = np.where(m == 1, dn, np.where((p == 0) | (p == 1), ceiling, np.clip(raw, 1, ceiling)))
    # The quantile: Student t with m − 1 dof when some case repeats (and m > 1), else z (SPEC §6).
    from scipy.special import stdtrit

    repeats = (n > 1).any(axis=1) & (m > 1)
    quantile = np.where(repeats, stdtrit(np.maximum(m - 1, 1), 0.975), z)
    out["ci_cluster_low"], out["ci_cluster_high"] = wilson(dn / out["deff"], quantile)
    # The headline interval (SPEC §18): case-clustered when some case has more than one measured trial.
    clustered = (n > 1).any(axis=1)
    out["ci_low"] = np.where(clustered, out["ci_cluster_low"], out["wilson_low"])
    out["ci_high"] = np.where(clustered, out["ci_cluster_high"], out["wilson_high"])
    out["interval_method"] = np.where(clustered, "wilson_clustered", "wilson")
    for k in KS:
        prod = np.ones_like(c)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(k):
                prod *= (c - i) / (n - i)
        prod = np.where(c < k, 0.0, prod)
        ok = present & (n >= k)
        with np.errstate(invalid="ignore"):
            out[f"pass^{k}"] = np.where(ok, prod, 0).sum(axis=1) / ok.sum(axis=1)
    repeated = present & (n >= 2)
    flaky = repeated & (c > 0) & (c < n)
    out["consistency"] = 1 - flaky.sum(axis=1) / repeated.sum(axis=1)
    order = np.argsort(cases.to_numpy())  # flaky ids sorted, as scorekit reports them
    case_sorted = cases.to_numpy()[order]
    out["flaky_cases"] = [case_sorted[flaky[d][order]].tolist() for d in range(len(dims))]
    out["dimensions"] = list(dims)
    return out


def with_groupby_apply(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What a user would write first: groupby().apply() and statsmodels per group."""
    from statsmodels.stats.proportion import proportion_confint

    def per_dimension(g: pd.DataFrame) -> pd.Series:
        passes = int((g["status"] == "PASS").sum())
        fails = int((g["status"] == "FAIL").sum())
        n = passes + fails
        low, high = proportion_confint(passes, n, alpha=0.05, method="wilson") if n else (math.nan, math.nan)
        return pd.Series(
            {"n": n, "passes": passes, "rate": passes / n if n else math.nan, "ci_low": low, "ci_high": high}
        )

    def per_case(g: pd.DataFrame) -> pd.Series:
        c = int((g["status"] == "PASS").sum())
        n = c + int((g["status"] == "FAIL").sum())
        out = {f"pass^{k}": (math.comb(c, k) / math.comb(n, k) if n >= k else math.nan) for k in KS}
        out["repeated"] = n >= 2
        out["flaky"] = n >= 2 and 0 < c < n
        return pd.Series(out)

    summary = df.groupby("dimension", observed=True).apply(per_dimension)
    cases = df.groupby(["dimension", "case_id"], observed=True).apply(per_case).reset_index()
    per_dim = cases.groupby("dimension").agg(
        **{f"pass^{k}": (f"pass^{k}", "mean") for k in KS},
        repeated=("repeated", "sum"),
        flaky=("flaky", "sum"),
    )
    per_dim["consistency"] = 1 - per_dim["flaky"] / per_dim["repeated"]
    per_dim["flaky_cases"] = cases[cases["flaky"].astype(bool)].groupby("dimension")["case_id"].agg(sorted)
    return summary, per_dim


# --------------------------------------------------------------------------- checks
def check_same_numbers(sk: tuple, ref: dict) -> None:
    summary, cluster, pass_k, consistency = sk
    order = [ref["dimensions"].index(d) for d in summary.index]
    np.testing.assert_allclose(summary["n"].to_numpy(), ref["n"][order])
    for column in ("rate", "wilson_low", "wilson_high"):
        np.testing.assert_allclose(summary[column].to_numpy(), ref[column][order], rtol=1e-12)
    assert summary["interval_method"].tolist() == ref["interval_method"][order].tolist(), "interval methods differ"
    # NumPy's pairwise sum and bincount's sequential one round the residual sum of squares differently.
    for got, column in zip(cluster, ("ci_cluster_low", "ci_cluster_high", "deff"), strict=True):
        np.testing.assert_allclose(got, ref[column][order], rtol=1e-10)
    for column in ("ci_low", "ci_high", "ci_cluster_low", "ci_cluster_high"):  # the headline: clustered here
        np.testing.assert_allclose(summary[column].to_numpy(), ref[column][order], rtol=1e-10)
    for k in KS:
        np.testing.assert_allclose(pass_k[k].to_numpy(), ref[f"pass^{k}"][order], rtol=1e-9, equal_nan=True)
    np.testing.assert_allclose(consistency["consistency"].to_numpy(), ref["consistency"][order], rtol=1e-12)
    for got, want in zip(consistency["flaky_cases"], [ref["flaky_cases"][i] for i in order], strict=True):
        assert got == want, "flaky case ids differ"


def timed(fn, *args, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def peak_memory(fn, *args) -> tuple[int, int]:
    """Peak bytes allocated while ``fn`` runs: (tracemalloc, pyarrow pool)."""
    import pyarrow as pa

    gc.collect()
    pool = pa.default_memory_pool()
    arrow_before = pool.bytes_allocated()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arrow_peak = max(pool.max_memory() - arrow_before, 0)
    return peak, arrow_peak


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--dims", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--naive-cases", type=int, default=10_000, help="cases in the groupby-apply subsample")
    args = parser.parse_args(argv)

    print(f"python {sys.version.split()[0]}, pandas {pd.__version__}, numpy {np.__version__}")
    start = time.perf_counter()
    df = make_rows(args.cases, args.trials, args.dims)
    input_bytes = int(df.memory_usage(deep=True).sum())
    print(f"built {len(df):,} rows ({args.cases:,} cases × {args.trials} trials × {args.dims} dimensions) "
          f"in {time.perf_counter() - start:.1f} s; DataFrame memory {input_bytes / 2**20:,.0f} MiB")

    t_sk, sk = timed(with_scorekit, df, repeat=args.repeat)
    t_np, ref = timed(with_bare_numpy, df, repeat=args.repeat)
    check_same_numbers(sk, ref)
    print(f"\n(a) scorekit summary+cluster+pass_k+consistency: {t_sk:.3f} s   bare NumPy: {t_np:.3f} s   "
          f"ratio {t_sk / t_np:.2f}×  (target ≤ 3×; same numbers checked)")

    sub = df[df["case_id"] < f"case-{args.naive_cases:06d}"]
    t_sub, _ = timed(with_scorekit, sub, repeat=args.repeat)
    t_naive, _ = timed(with_groupby_apply, sub, repeat=1)
    print(f"(b) on a {len(sub):,}-row subsample: groupby-apply+statsmodels {t_naive:.2f} s, "
          f"scorekit {t_sub:.3f} s: {t_naive / t_sub:,.0f}× faster "
          f"(per row vs the full-table run: {t_naive / len(sub) / (t_sk / len(df)):,.0f}×; target ≥ 20×)")

    traced, arrow = peak_memory(with_scorekit, df)
    print(f"(c) peak additional memory: {traced / 2**20:,.0f} MiB traced + {arrow / 2**20:,.0f} MiB pyarrow pool "
          f"= {(traced + arrow) / input_bytes:.2f}× the input DataFrame's {input_bytes / 2**20:,.0f} MiB (target < 3×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
