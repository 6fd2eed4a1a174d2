"""The examples in the release modules' docstrings run and show what they print (the suite runs no doctests otherwise)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "scorekit.release",
    "scorekit.release._bridge",
    "scorekit.release._carry",
    "scorekit.release._document",
    "scorekit.release._gate",
    "scorekit.release._lint",
    "scorekit.release._ordinal",
    "scorekit.release._payload",
    "scorekit.release._refresh",
    "scorekit.release._variance",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0
