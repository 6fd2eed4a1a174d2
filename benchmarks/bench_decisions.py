"""Simulate the error rates of scorekit's decisions (SPEC §18): a simulation, not a timing.

The §18 design: an agent that did not change, measured on 8 dimensions of 50
cases × 3 trials. Each case's true pass rate is drawn from Beta(4, 1), afresh
per repetition and per dimension; each trial passes with its case's rate
(binomial counts). Every comparison goes through
:func:`scorekit._regression.regressions`, the function the gate calls, with the
per-dimension and per-(dimension, case) count tables a history record holds.
Printed, each with its Monte-Carlo standard error √(p̂(1 − p̂)/reps):

(a) the per-run false-FAIL rate — P(any dimension regressed) when the baseline
    and the candidate are two independent runs of the same case rates — for
    ``paired``, ``newcombe`` and ``point``, with ``multiplicity: holm`` (the
    default) and ``none``, and the old ``interval`` method when the installed
    scorekit still offers it (the "today" line of issue 26);
(b) the 20-run rate: one history, its first run recorded, then 20 consecutive
    runs of the unchanged agent, each against the default baseline (SPEC §10:
    pinned, else the earliest comparable eligible record — here run 1);
    P(≥ 1 false FAIL over the 20). For contrast the old ratchet, whose baseline
    is the latest passing record;
(c) the power at the reported MDE: one dimension's case rates lowered by that
    dimension's own reported ``mde`` (from the baseline's evidence:
    :func:`scorekit._stats.dimension_mde` at ``one_sided_alpha(confidence)``
    divided by the 8 dimensions under Holm), clipped into [0, 1], detected
    (regressed after Holm) by ``paired``; the realised mean drop is printed;
(d) one dimension whose true rate is exactly its threshold: how often each
    ``threshold_basis`` PASSes it (``point`` is a coin flip; the lower bounds
    are one-sided tests at α), and the mean ``assurance`` reported;
(e) on the same runs, the coverage by the pooled Wilson interval and by the
    case-clustered one (the headline interval when trials repeat) of these
    cases' true rate and of the population rate a/(a + b) the cases are drawn
    from (the clustered interval's target: the case is the unit of sampling).

A run is one call of ``regressions`` (Holm works across the dimensions of that
one call). Under ``multiplicity: none`` every dimension is tested on its own,
so many runs share one call (their dimensions renamed apart), which gives the
same verdicts faster. Under ``holm`` the batched call's p-values go through
:func:`scorekit._regression.holm_adjust`, the step-down the gate applies, run
by run; a sample of runs is re-decided one call per run and must agree
(``--exact`` decides every run so: the same figures, ~50 ms a run).

Usage::

    python benchmarks/bench_decisions.py [--reps 2000] [--runs 20] [--power-reps 2000]
                                         [--dims 8] [--cases 50] [--trials 3]
                                         [--confidence 0.95] [--max-drop 0] [--seed 26]
                                         [--sections per-run,20-run,power,threshold]
                                         [--exact] [--check 5]

Targets (SPEC §18, α = (1 − confidence)/2 = 0.025): per run ≤ α + 0.01 for
``paired`` and ``newcombe``; over 20 runs ≤ 1 − (1 − α)^20 = 0.397; power ≥ 0.75.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from scorekit import _regression, _stats

#: (method, multiplicity) pairs of the per-run table, in print order.
PER_RUN = (("paired", "holm"), ("newcombe", "holm"),
           ("paired", "none"), ("newcombe", "none"), ("point", "none"), ("interval", "none"))
#: (method, multiplicity, baseline) of the 20-run table.
TWENTY_RUNS = (("paired", "holm", "earliest"), ("newcombe", "holm", "earliest"),
               ("paired", "none", "earliest"), ("paired", "holm", "ratchet"), ("paired", "none", "ratchet"),
               ("interval", "none", "ratchet"))
Config = TypeVar("Config", tuple[str, str], tuple[str, str, str])
#: Runs that share one ``regressions`` call under ``multiplicity: none``.
BATCH = 250


# --------------------------------------------------------------------------- the design
@dataclass(frozen=True)
class Design:
    """The simulated evaluation: dimensions × cases × trials, case rates from Beta(a, b)."""

    dims: int = 8
    cases: int = 50
    trials: int = 3
    a: float = 4.0
    b: float = 1.0
    confidence: float = 0.95
    max_drop: float = 0.0

    @property
    def alpha(self) -> float:
        """The one-sided level of every test (SPEC §18)."""
        return _stats.one_sided_alpha(self.confidence)

    def case_rates(self, rng: np.random.Generator, reps: int) -> np.ndarray:
        """True case rates, shape (reps, dims, cases)."""
        return rng.beta(self.a, self.b, size=(reps, self.dims, self.cases))

    def run(self, rng: np.random.Generator, rates: np.ndarray) -> np.ndarray:
        """Passing trials per (…, dimension, case): one run of the agent."""
        return rng.binomial(self.trials, rates).astype(np.int16)


def supports(function: Callable[..., Any], parameter: str) -> bool:
    """Whether the installed ``function`` takes ``parameter`` (the code before issue 26 does not)."""
    return parameter in inspect.signature(function).parameters


def methods_available() -> tuple[str, ...]:
    """The regression methods the installed :func:`regressions` accepts."""
    return tuple(_regression.METHODS)


# --------------------------------------------------------------------------- one gate call
class Tables:
    """Count tables of many runs at once, named so that runs never share a dimension."""

    def __init__(self, design: Design, groups: int) -> None:
        self.design = design
        self.groups = groups
        self.names = np.array([f"g{g:05d}/d{d:02d}" for g in range(groups) for d in range(design.dims)], dtype=object)
        case_ids = np.array([f"case-{c:03d}" for c in range(design.cases)], dtype=object)
        self.case_dimension = pd.array(np.repeat(self.names, design.cases), dtype="str")
        self.case_id = pd.array(np.tile(case_ids, groups * design.dims), dtype="str")

    def frames(self, passes: np.ndarray, count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Per-dimension and per-(dimension, case) counts of the first ``count`` groups of ``passes``."""
        d = self.design
        rows = count * d.dims
        flat = passes.reshape(rows, d.cases).astype(np.int64)
        dims = pd.DataFrame({"passes": flat.sum(axis=1), "n": np.full(rows, d.cases * d.trials, dtype=np.int64)},
                            index=pd.Index(self.names[:rows], dtype="str", name="dimension"))
        cases = pd.DataFrame({"dimension": self.case_dimension[: rows * d.cases],
                              "case_id": self.case_id[: rows * d.cases],
                              "passes": flat.ravel(), "n": np.full(rows * d.cases, d.trials, dtype=np.int64)})
        return dims, cases


def _call(design: Design, tables: Tables, base: np.ndarray, cand: np.ndarray, method: str,
          multiplicity: str) -> tuple[np.ndarray, np.ndarray]:
    """One ``regressions`` call over ``len(base)`` runs.

    Returns the regressed flags and the p-values (NaN where an entry has none:
    ``point``, an undefined comparison, a scorekit before issue 26), each of
    shape (runs, dims).
    """
    count = base.shape[0]
    base_dims, base_cases = tables.frames(base, count)
    cand_dims, cand_cases = tables.frames(cand, count)
    extra = {"multiplicity": multiplicity} if supports(_regression.regressions, "multiplicity") else {}
    entries = _regression.regressions(base_dims, cand_dims, method, design.max_drop, design.confidence,
                                      baseline_cases=base_cases, candidate_cases=cand_cases, **extra)
    by_name = {entry["dimension"]: entry for entry in entries}
    chosen = [by_name[name] for name in tables.names[: count * design.dims]]
    flags = np.array([entry["regressed"] for entry in chosen], dtype=bool)
    p_values = np.array([math.nan if entry.get("p_value") is None or not entry.get("controlled", True)
                         else entry["p_value"] for entry in chosen], dtype="float64")
    return flags.reshape(count, design.dims), p_values.reshape(count, design.dims)


class Gate:
    """Regressed flags per (run, dimension), as the gate decides them.

    ``multiplicity: none`` (or a scorekit without it): one ``regressions``
    call per batch of runs — each dimension is tested on its own, so runs can
    share a call. ``holm``, ``exact=True``: one call per run, Holm applied by
    ``regressions`` across that run's dimensions. ``holm``, ``exact=False``
    (faster): the p-values of a batched ``multiplicity: none`` call, then
    :func:`scorekit._regression.holm_adjust` — the gate's own step-down — over
    each run's usable p-values; the first ``check`` runs and up to ``check``
    runs whose smallest p-value is ≤ α are also decided one call per run and
    must agree (else AssertionError).
    """

    def __init__(self, design: Design, *, exact: bool = False, check: int = 5) -> None:
        self.design = design
        self.exact = exact
        self.check = check
        self.single = Tables(design, 1)
        self.batch = Tables(design, BATCH)
        self.calls = 0
        self.checked = 0

    def _per_run(self, base: np.ndarray, cand: np.ndarray, method: str, multiplicity: str) -> np.ndarray:
        out = np.empty(base.shape[:2], dtype=bool)
        for i in range(base.shape[0]):
            out[i] = _call(self.design, self.single, base[i: i + 1], cand[i: i + 1], method, multiplicity)[0][0]
            self.calls += 1
        return out

    def _batched(self, base: np.ndarray, cand: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
        flags, p_values = [], []
        for start in range(0, base.shape[0], BATCH):
            stop = min(start + BATCH, base.shape[0])
            f, p = _call(self.design, self.batch, base[start:stop], cand[start:stop], method, "none")
            flags.append(f)
            p_values.append(p)
            self.calls += 1
        empty = np.empty((0, self.design.dims))
        return (np.concatenate(flags) if flags else empty.astype(bool),
                np.concatenate(p_values) if p_values else empty)

    def regressed(self, base: np.ndarray, cand: np.ndarray, method: str, multiplicity: str) -> np.ndarray:
        """``base``, ``cand``: passes of shape (runs, dims, cases) → bool (runs, dims)."""
        if multiplicity == "none" or not supports(_regression.regressions, "multiplicity"):
            return self._batched(base, cand, method)[0]
        if self.exact or method == "point":
            return self._per_run(base, cand, method, multiplicity)
        _, p_values = self._batched(base, cand, method)
        out = np.zeros(p_values.shape, dtype=bool)
        for i, row in enumerate(p_values):
            usable = np.isfinite(row)
            if usable.any():
                out[i, usable] = _regression.holm_adjust(row[usable], self.design.alpha)[1]
        if self.check:
            # The first runs, and the runs whose smallest p-value is at or below α (where Holm decides).
            smallest = np.where(np.isfinite(p_values), p_values, np.inf).min(axis=1)
            close = np.flatnonzero(smallest <= self.design.alpha)[: self.check]
            sample = np.union1d(np.arange(min(self.check, base.shape[0])), close)
            exact = self._per_run(base[sample], cand[sample], method, multiplicity)
            assert np.array_equal(exact, out[sample]), f"{method}, {multiplicity}: batched Holm differs"
            self.checked += len(sample)
        return out


def configurations(wanted: Iterable[Config]) -> Iterator[Config]:
    """The configurations whose method the installed scorekit knows.

    A scorekit without ``multiplicity`` (before issue 26) runs every
    configuration as it always did: each dimension tested on its own.
    """
    for config in wanted:
        if config[0] in methods_available():
            yield config


def runnable(wanted: Iterable[Config]) -> list[Config]:
    """What the printed tables run: known methods, and ``holm`` only where the gate offers it."""
    holm = supports(_regression.regressions, "multiplicity")
    return [config for config in configurations(wanted) if config[1] == "none" or holm]


# --------------------------------------------------------------------------- (a) per run
def per_run(design: Design, reps: int, seed: int, configs: Sequence[tuple[str, str]] = PER_RUN,
            gate: Gate | None = None) -> dict[tuple[str, str], int]:
    """False FAILs (any dimension regressed) of an unchanged agent in ``reps`` runs, per configuration."""
    rng = np.random.default_rng(seed)
    rates = design.case_rates(rng, reps)
    base, cand = design.run(rng, rates), design.run(rng, rates)
    gate = gate or Gate(design)
    return {(m, mult): int(gate.regressed(base, cand, m, mult).any(axis=1).sum())
            for m, mult in configurations(configs)}


# --------------------------------------------------------------------------- (b) 20 runs
def twenty_runs(design: Design, reps: int, runs: int, seed: int,
                configs: Sequence[tuple[str, str, str]] = TWENTY_RUNS,
                gate: Gate | None = None) -> dict[tuple[str, str, str], np.ndarray]:
    """Per history (rep) and configuration, the number of false FAILs among ``runs`` runs after the first.

    ``earliest``: every run is compared with the first record (the default
    baseline of SPEC §10). ``ratchet``: the baseline is the latest run that did
    not regress (the first run counts: it found no baseline).
    """
    rng = np.random.default_rng(seed)
    rates = design.case_rates(rng, reps)
    first = design.run(rng, rates)
    later = np.stack([design.run(rng, rates) for _ in range(runs)], axis=1)  # (reps, runs, dims, cases)
    gate = gate or Gate(design)
    out: dict[tuple[str, str, str], np.ndarray] = {}
    for method, multiplicity, baseline in configurations(configs):
        fails = np.zeros(reps, dtype=np.int64)
        current = first.copy()
        for k in range(runs):
            failed = np.asarray(gate.regressed(current, later[:, k], method, multiplicity).any(axis=1))
            fails += failed
            if baseline == "ratchet":
                current = np.where(failed[:, None, None], current, later[:, k])
        out[(method, multiplicity, baseline)] = fails
    return out


# --------------------------------------------------------------------------- (c) power
def reported_mde(design: Design, passes: np.ndarray) -> np.ndarray:
    """The ``mde`` each dimension's scorecard reports, from its counts (shape (reps, dims, cases))."""
    reps = passes.shape[0]
    c = passes.reshape(-1).astype(np.int64)
    n = np.full_like(c, design.trials)
    group = np.repeat(np.arange(reps * design.dims), design.cases)
    _, _, deff = _stats.cluster_interval_grouped(c, n, group, design.confidence, ngroups=reps * design.dims)
    dim_passes = passes.sum(axis=2).reshape(-1)
    dim_n = np.full_like(dim_passes, design.cases * design.trials)
    extra = {"comparisons": design.dims} if supports(_stats.dimension_mde, "comparisons") else {}
    mde = _stats.dimension_mde(dim_passes, dim_n, deff, design.confidence, **extra)
    return np.asarray(mde, dtype="float64").reshape(reps, design.dims)


@dataclass(frozen=True)
class Power:
    detected: int
    reps: int
    mde: float  # mean reported mde of the dropped dimension
    drop: float  # mean realised drop of its true mean case rate (after clipping into [0, 1])
    other_fails: int  # runs where an unchanged dimension was called regressed


def power_at_mde(design: Design, reps: int, seed: int, method: str = "paired",
                 multiplicity: str = "holm", gate: Gate | None = None) -> Power:
    """How often a drop of its own reported ``mde`` on dimension 0 is detected."""
    rng = np.random.default_rng(seed)
    rates = design.case_rates(rng, reps)
    base = design.run(rng, rates)
    mde = reported_mde(design, base)[:, 0]
    lowered = rates.copy()
    lowered[:, 0] = np.clip(rates[:, 0] - mde[:, None], 0.0, 1.0)
    cand = design.run(rng, lowered)
    flags = (gate or Gate(design)).regressed(base, cand, method, multiplicity)
    drop = (rates[:, 0] - lowered[:, 0]).mean(axis=1)
    return Power(int(flags[:, 0].sum()), reps, float(mde.mean()), float(drop.mean()),
                 int(flags[:, 1:].any(axis=1).sum()))


# --------------------------------------------------------------------------- (d), (e) one dimension's evidence
@dataclass(frozen=True)
class AtThreshold:
    reps: int
    passes: dict[str, int]  # PASS verdicts per threshold basis
    assurance: float  # mean reported assurance (NaN where this scorekit has none)
    covered: dict[str, int]  # runs whose interval holds the true rate, per interval


def at_threshold(design: Design, reps: int, seed: int) -> AtThreshold:
    """One dimension whose true rate is exactly its threshold: how often each basis PASSes it.

    The dimension's true rate is the mean of its case rates (every case has
    the same trials); the threshold is set to it in each repetition. The same
    runs give the coverage of the two intervals a scorecard reports.
    """
    rng = np.random.default_rng(seed)
    rates = design.case_rates(rng, reps)[:, 0]  # (reps, cases)
    truth = rates.mean(axis=1)
    passes = design.run(rng, rates).astype(np.int64)
    c, n = passes.sum(axis=1), np.full(reps, design.cases * design.trials)
    w_low, w_high = (np.asarray(v, dtype="float64") for v in _stats.wilson_interval(c, n, design.confidence))
    group = np.repeat(np.arange(reps), design.cases)
    k_low, k_high, deff = _stats.cluster_interval_grouped(passes.ravel(), np.full(passes.size, design.trials), group,
                                                          design.confidence, ngroups=reps)
    verdicts = {"point": c / n >= truth, "wilson_lower": w_low >= truth, "cluster_lower": k_low >= truth}
    assurance = math.nan
    if hasattr(_stats, "assurance"):
        assurance = float(np.nanmean(np.asarray(_stats.assurance(c, n, truth, deff), dtype="float64")))
    population = design.a / (design.a + design.b)  # the mean of Beta(a, b): the rate over all possible cases
    covered = {"wilson (pooled), these cases' rate": (w_low <= truth) & (truth <= w_high),
               "wilson_clustered, these cases' rate": (k_low <= truth) & (truth <= k_high),
               "wilson (pooled), population rate": (w_low <= population) & (population <= w_high),
               "wilson_clustered, population rate": (k_low <= population) & (population <= k_high)}
    return AtThreshold(reps, {k: int(v.sum()) for k, v in verdicts.items()}, assurance,
                       {k: int(v.sum()) for k, v in covered.items()})


# --------------------------------------------------------------------------- figures
def standard_error(rate: float, reps: int) -> float:
    """Monte-Carlo standard error of a binomial proportion."""
    return math.sqrt(max(rate * (1.0 - rate), 0.0) / reps) if reps else math.nan


def twenty_run_target(alpha: float, runs: int) -> float:
    """1 − (1 − α)^runs: the chance of ≥ 1 false FAIL in ``runs`` independent tests at level α."""
    return 1.0 - (1.0 - alpha) ** runs


def _line(label: str, k: int, reps: int, target: str, ok: bool | None) -> str:
    rate = k / reps
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    return f"  {label:<46} {rate:7.3f} ± {standard_error(rate, reps):.3f}   {target:<12} {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="repetitions (histories) for (a) and (b)")
    parser.add_argument("--runs", type=int, default=20, help="consecutive runs per history in (b)")
    parser.add_argument("--power-reps", type=int, default=2000, help="repetitions for (c), (d) and (e)")
    parser.add_argument("--dims", type=int, default=8)
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--max-drop", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--sections", default="per-run,20-run,power,threshold",
                        help="comma-separated: per-run, 20-run, power, threshold")
    parser.add_argument("--exact", action="store_true",
                        help="under Holm, one regressions call per run (slow) instead of batched p-values")
    parser.add_argument("--check", type=int, default=5,
                        help="runs per batched Holm call also decided one call per run (must agree)")
    args = parser.parse_args(argv)
    sections = {s.strip() for s in args.sections.split(",") if s.strip()}
    design = Design(args.dims, args.cases, args.trials, confidence=args.confidence, max_drop=args.max_drop)
    alpha = design.alpha
    gate = Gate(design, exact=args.exact, check=args.check)

    print(f"python {sys.version.split()[0]}, pandas {pd.__version__}, numpy {np.__version__}; "
          f"regression methods {', '.join(methods_available())}; "
          f"multiplicity {'yes' if supports(_regression.regressions, 'multiplicity') else 'not available'}; "
          f"dimension_mde(comparisons=) {'yes' if supports(_stats.dimension_mde, 'comparisons') else 'no'}")
    print(f"design: {design.dims} dimensions × {design.cases} cases × {design.trials} trials, case rates "
          f"Beta({design.a:g}, {design.b:g}); confidence {design.confidence:g}, α = {alpha:g}, "
          f"max_drop {design.max_drop:g}; seed {args.seed}")
    start_all = time.perf_counter()

    if "per-run" in sections:
        start = time.perf_counter()
        counts = per_run(design, args.reps, args.seed, runnable(PER_RUN), gate)
        print(f"\n(a) per-run false-FAIL rate of an unchanged agent, {args.reps} runs "
              f"({time.perf_counter() - start:.0f} s)")
        for (method, multiplicity), k in counts.items():
            controlled = method in ("paired", "newcombe")
            target = f"≤ {alpha + 0.01:.3f}" if controlled else "(no target)"
            ok = k / args.reps <= alpha + 0.01 if controlled and multiplicity == "holm" else None
            print(_line(f"{method}, multiplicity {multiplicity}", k, args.reps, target, ok))

    if "20-run" in sections:
        start = time.perf_counter()
        fails = twenty_runs(design, args.reps, args.runs, args.seed + 1, runnable(TWENTY_RUNS), gate)
        goal = twenty_run_target(alpha, args.runs)
        print(f"\n(b) P(≥ 1 false FAIL in {args.runs} consecutive runs), {args.reps} histories "
              f"({time.perf_counter() - start:.0f} s)")
        for (method, multiplicity, baseline), per_history in fails.items():
            k = int((per_history > 0).sum())
            label = f"{method}, {multiplicity}, baseline {baseline}"
            ok = k / args.reps <= goal if baseline == "earliest" else None
            print(_line(label, k, args.reps, f"≤ {goal:.3f}", ok)
                  + f"   (mean false FAILs per history {per_history.mean():.2f})")

    if "power" in sections:
        start = time.perf_counter()
        result = power_at_mde(design, args.power_reps, args.seed + 2, gate=gate)
        control = "Holm" if supports(_regression.regressions, "multiplicity") else "no multiplicity control"
        print(f"\n(c) power at the reported MDE, paired + {control}, {args.power_reps} runs "
              f"({time.perf_counter() - start:.0f} s): mean reported mde {result.mde:.4f}, "
              f"mean realised drop {result.drop:.4f}")
        print(_line("detected (its dimension regressed)", result.detected, result.reps, "≥ 0.750",
                    result.detected / result.reps >= 0.75))
        print(_line("an unchanged dimension regressed", result.other_fails, result.reps, "", None))

    if "threshold" in sections:
        start = time.perf_counter()
        t = at_threshold(design, args.power_reps, args.seed + 3)
        print(f"\n(d) one dimension exactly at its threshold, {t.reps} runs ({time.perf_counter() - start:.0f} s): "
              f"P(PASS) per threshold_basis; mean reported assurance {t.assurance:.3f}")
        for basis, k in t.passes.items():
            target = "(≈ ½: a coin flip)" if basis == "point" else f"≤ {alpha:.3f}"
            print(_line(f"threshold_basis {basis}", k, t.reps, target, None))
        print(f"\n(e) coverage of the true rate by the two-sided {design.confidence:g} intervals, same runs")
        for interval, k in t.covered.items():
            print(_line(interval, k, t.reps, f"nominal {design.confidence:g}", None))

    how = ("one call per run" if args.exact else
           f"batched p-values + holm_adjust, {gate.checked} runs re-decided one call per run: identical")
    print(f"\n{gate.calls} regressions calls (Holm: {how}); wall time {time.perf_counter() - start_all:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
