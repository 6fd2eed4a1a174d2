"""``scorekit plan`` (SPEC §6 power, §14, §18): the same numbers as the library, one-line refusals."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest

import scorekit as sk
from scorekit.cli import main


def test_plan_prints_cases_needed_and_minimum_detectable_drop(capsys):
    assert main(["plan", "--rate", "0.9", "--drop", "0.05"]) == 0
    assert capsys.readouterr().out.startswith("566 cases detect a drop of 5.0 points")
    assert main(["plan", "--rate", "0.9", "--cases", "100"]) == 0
    assert "can detect a drop of 11.9 points or more" in capsys.readouterr().out
    assert main(["plan", "--rate", "0.9", "--cases", "100", "--trials", "5", "--icc", "0.3"]) == 0
    expected = sk.minimum_detectable_drop(0.9, 100, trials=5, icc=0.3)
    assert f"{100 * expected:.1f} points" in capsys.readouterr().out


def test_plan_alpha_defaults_to_the_gates_one_sided_level(capsys):
    # SPEC §6/§18: one level, (1 − 0.95)/2 = 0.025, for the tests and the power that plans them.
    assert main(["plan", "--rate", "0.9", "--drop", "0.05"]) == 0
    default = capsys.readouterr().out
    assert "one-sided alpha 0.025" in default
    assert main(["plan", "--rate", "0.9", "--drop", "0.05", "--alpha", "0.025"]) == 0
    assert capsys.readouterr().out == default
    assert main(["plan", "--rate", "0.9", "--drop", "0.05", "--alpha", "0.05"]) == 0
    assert capsys.readouterr().out.startswith("446 cases detect a drop of 5.0 points")
    assert main(["plan", "--rate", "0.9", "--cases", "100", "--alpha", "0.05"]) == 0
    assert "can detect a drop of 10.5 points or more" in capsys.readouterr().out


def test_plan_help_says_alpha_is_the_gates_level(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default 0.025" in text and "(1 - confidence)/2" in text


def reference_assurance(rate, cases, trials, icc, threshold):
    """P(rate >= threshold) under Beta(x + ½, n′ − x + ½), n′ = N/deff, x = rate·n′ (scipy.stats.beta)."""
    from scipy.stats import beta

    size = cases * trials / (1 + (trials - 1) * icc)
    x = rate * size
    return float(beta.sf(threshold, x + 0.5, size - x + 0.5))


def shown(p):
    return "over 99.9%" if 0.9995 <= p < 1 else f"{100 * p:.1f}%"


@pytest.mark.parametrize(
    ("args", "rate", "cases", "trials", "icc"),
    [
        (["--rate", "0.9", "--cases", "3", "--alpha", "0.05"], 0.9, 3, 1, 0.0),
        (["--rate", "0.8", "--cases", "10", "--trials", "3", "--icc", "0.5"], 0.8, 10, 3, 0.5),
        (["--rate", "0.7", "--drop", "0.4", "--power", "0.5"], 0.7, None, 1, 0.0),
    ],
    ids=["cases", "trials-icc", "drop"],
)
def test_plan_prints_the_assurance_of_a_suite_of_that_size(capsys, args, rate, cases, trials, icc):
    assert main(["plan", *args]) == 0
    out = capsys.readouterr().out
    alpha = 0.05 if "--alpha" in args else 0.025
    power = float(args[args.index("--power") + 1]) if "--power" in args else 0.8
    if cases is None:
        drop = float(args[args.index("--drop") + 1])
        cases = sk.cases_needed(rate, drop, trials=trials, icc=icc, alpha=alpha, power=power)
    else:
        drop = sk.minimum_detectable_drop(rate, cases, trials=trials, icc=icc, alpha=alpha, power=power)
    meets = reference_assurance(rate, cases, trials, icc, rate - drop)
    size = f"{cases:,} cases" + (f" × {trials} trials" if trials > 1 else "")
    assert (f"a dimension measuring {100 * rate:.1f}% over {size} meets a threshold of "
            f"{100 * (rate - drop):.1f}% (that rate less the drop) with probability {shown(meets)}") in out
    at_rate = reference_assurance(rate, cases, trials, icc, rate)
    assert f"a threshold equal to the measured rate is met with probability {shown(at_rate)}" in out


def test_plan_assurance_near_certainty_is_not_rounded_to_certainty(capsys):
    assert main(["plan", "--rate", "0.9", "--drop", "0.05"]) == 0
    out = capsys.readouterr().out
    assert reference_assurance(0.9, 566, 1, 0.0, 0.85) >= 0.9995
    assert "with probability over 99.9%" in out and "100.0%" not in out


def test_plan_with_a_drop_below_zero_says_so(capsys):
    assert main(["plan", "--rate", "0.1", "--cases", "3"]) == 0
    out = capsys.readouterr().out
    assert "the drop reaches 0%" in out and "meets a threshold" not in out
    assert re.search(r"equal to the measured rate is met with probability \d+\.\d%", out)
    assert not math.isnan(reference_assurance(0.1, 3, 1, 0.0, 0.1))


@pytest.mark.parametrize("args, word", [(["--rate", "1.5", "--cases", "10"], "rate"),
                                        (["--rate", "0.9", "--drop", "0"], "drop"),
                                        (["--rate", "0.9", "--cases", "10", "--icc", "2"], "icc"),
                                        (["--rate", "0.9", "--cases", "10", "--alpha", "1.5"], "alpha"),
                                        (["--rate", "0.9", "--cases", "10", "--alpha", "0.5"], "(0, 0.5)"),
                                        (["--rate", "0.9", "--drop", "0.05", "--alpha", "0.7"], "(0, 0.5)"),
                                        (["--rate", "0.9", "--cases", "10", "--alpha", "0"], "(0, 0.5)")])
def test_plan_refuses_bad_arguments_in_one_line(args, word):
    proc = subprocess.run([sys.executable, "-m", "scorekit", "plan", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and word in proc.stderr and "Traceback" not in proc.stderr


def test_plan_needs_drop_or_cases():
    proc = subprocess.run([sys.executable, "-m", "scorekit", "plan", "--rate", "0.9"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "--drop" in proc.stderr
