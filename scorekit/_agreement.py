"""Judge agreement: Krippendorff's alpha (nominal) from additive counts (SPEC §18).

Where the rows of a dimension carry votes from two or more judges, the scorecard
reports how far the judges agree beyond chance: Krippendorff's alpha at the
nominal level over the PASS/FAIL value of each valid vote, each row a *unit*
and each judge a *coder* (which votes are valid values:
:func:`scorekit.scorers.judges.cast_votes`).

For two categories alpha needs only, per unit u with m_u ≥ 2 values of which
p_u are PASS and f_u = m_u − p_u FAIL, the coincidences

    o_PP = Σ p_u (p_u − 1) / (m_u − 1)
    o_FF = Σ f_u (f_u − 1) / (m_u − 1)
    o_PF = o_FP = Σ p_u f_u / (m_u − 1)

with the marginals n_P = o_PP + o_PF = Σ p_u, n_F = Σ f_u and n = n_P + n_F =
Σ m_u (pairable values). With the nominal difference (0 for equal values, 1
otherwise) the observed disagreement is D_o = 2 o_PF / n and the expected one
D_e = 2 n_P n_F / (n (n − 1)), so

    alpha = 1 − D_o / D_e = 1 − (n − 1) o_PF / (n_P n_F),

undefined (None) when every value is one category (D_e = 0). Units with fewer
than two values pair with nothing and do not count.

Every sum is a function of how many units have each (m_u, p_u): that count
(:data:`Histogram`) is what a partition of rows carries
(:attr:`scorekit._partial.Partial.agreement`, per dimension). Its counts are
integers, so partitions add them up exactly in any order and grouping
(:func:`scorekit._partial.merge_agreement`), and
:func:`krippendorff_alpha` computes alpha from them exactly (rational
arithmetic, one rounding at the end): the same float whichever engine and
partitioning counted the rows (SPEC §16).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

__all__ = ["Histogram", "agreement", "judge_agreement", "krippendorff_alpha"]

#: Units per (values m, PASS values p), m ≥ 2: the additive form of one dimension's votes.
Histogram = dict[tuple[int, int], int]


def krippendorff_alpha(histogram: Mapping[tuple[int, int], int]) -> float | None:
    """Krippendorff's alpha, nominal level, of two-valued (PASS/FAIL) data given as unit counts.

    Parameters
    ----------
    histogram : mapping of (int, int) to int
        How many units have ``m`` values of which ``p`` are PASS, keyed ``(m, p)``;
        units with ``m < 2`` are ignored.

    Returns
    -------
    float or None
        ``1 − (n − 1) o_PF / (n_P n_F)`` (see the module docstring), computed exactly and
        rounded once; None when no unit is pairable or every value is one category.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability.
       Annenberg School for Communication, University of Pennsylvania.
       https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    Three units rated by two coders: (PASS, PASS), (PASS, FAIL), (FAIL, FAIL).

    >>> krippendorff_alpha({(2, 2): 1, (2, 1): 1, (2, 0): 1})
    0.4444444444444444
    >>> krippendorff_alpha({(2, 2): 3}) is None  # no variation: alpha is undefined
    True
    """
    n = n_pass = 0
    o_pf = Fraction(0)
    for (m, p), units in histogram.items():
        if m < 2 or not units:
            continue
        n += units * m
        n_pass += units * p
        o_pf += Fraction(units * p * (m - p), m - 1)
    n_fail = n - n_pass
    if not n_pass or not n_fail:
        return None
    return float(1 - (n - 1) * o_pf / (n_pass * n_fail))


def agreement(histogram: Mapping[tuple[int, int], int]) -> dict[str, Any] | None:
    """One dimension's ``judge_agreement`` (SPEC §18): ``krippendorff_alpha``,
    ``unanimous_share`` (units whose values are all one category, of all units) and
    ``units`` (rows with two or more valid votes); None without such a unit.

    Examples
    --------
    >>> agreement({(3, 3): 2, (3, 1): 1, (2, 0): 1})
    {'krippendorff_alpha': 0.6428571428571429, 'unanimous_share': 0.75, 'units': 4}
    >>> agreement({}) is None
    True
    """
    units = sum(count for (m, _), count in histogram.items() if m >= 2)
    if not units:
        return None
    unanimous = sum(count for (m, p), count in histogram.items() if m >= 2 and p in (0, m))
    return {"krippendorff_alpha": krippendorff_alpha(histogram), "unanimous_share": unanimous / units,
            "units": units}


def judge_agreement(histograms: Mapping[str, Mapping[tuple[int, int], int]],
                    names: Iterable[Any]) -> list[dict[str, Any] | None]:
    """The ``judge_agreement`` column of a dimension table: :func:`agreement` of each
    dimension in ``names`` (None for a dimension without judged units).

    Examples
    --------
    >>> judge_agreement({"tone": {(2, 2): 1, (2, 0): 1}}, ["cost", "tone"])
    [None, {'krippendorff_alpha': 1.0, 'unanimous_share': 1.0, 'units': 2}]
    """
    return [agreement(histograms.get(str(name), {})) for name in names]
