"""Argument types of the command line: each parses one option's text or raises
``argparse.ArgumentTypeError`` with a message naming what was expected and the text given
(argparse adds the option's name; exit code 2, SPEC §14)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["count", "fraction", "int_at_least", "metric_floor", "non_negative", "number", "percentage",
           "positive_int", "semver", "text"]


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def fraction(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1] (the metric's scale), got {text!r}")
    return value


def percentage(text: str) -> float:
    value = number(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 100] (the aggregate's scale), got {text!r}")
    return value


def non_negative(text: str) -> float:
    value = number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def metric_floor(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE (e.g. urgent_recall=0.9), got {text!r}")
    return name.strip(), fraction(value.strip())


def text(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a non-empty text")
    return text


def semver(text: str) -> str:
    from .release import SEMVER

    if not SEMVER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a semver version MAJOR.MINOR.PATCH (e.g. 0.2.5), got {text!r}")
    return text


def int_at_least(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: an integer >= ``minimum``, else a message naming ``what`` was expected."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


positive_int = int_at_least(1, "a positive integer")
count = int_at_least(0, "an integer >= 0")
