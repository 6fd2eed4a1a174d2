"""The examples in scorekit's docstrings run and show what they print (the suite runs no doctests otherwise)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import scorekit

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(scorekit.__path__, "scorekit.") if not info.name.endswith("__main__")
)


def test_every_module_is_listed():
    assert {"scorekit.release._gate", "scorekit.render", "scorekit.widgets", "scorekit._stats"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0
