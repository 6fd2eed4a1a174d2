"""Who renders the model: a table of names the layer above fills (dependency inversion).

The model (:class:`~scorekit.Scorecard`, :class:`~scorekit.ImportedRun`) offers ``write``,
``to_release_payload`` and Jupyter's ``_repr_html_``, but the code that does them (reports,
the release bridge, the notebook fragments) sits above it and imports it. So the model
imports none of them: it asks this module for a renderer by name, and the front door
(``scorekit/__init__.py``) registers, once, which ``"module:function"`` does each.

A target is a string so that registering imports nothing: ``import scorekit`` stays light
and the renderer's module (Jinja2, jsonschema, pyarrow) is imported on first use only,
with :mod:`importlib`, then kept. This module imports nothing of scorekit: the lowest
layer, usable from the model and the importers alike.

Examples
--------
>>> from scorekit._renderers import register, renderer
>>> register("example.basename", "posixpath:basename")
>>> renderer("example.basename")("reports/scorecard.json")
'scorecard.json'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["register", "registered", "renderer"]

_TARGETS: dict[str, str] = {}
_RESOLVED: dict[str, Callable[..., Any]] = {}


def register(name: str, target: str) -> None:
    """Name ``target`` (``"package.module:function"``) as the renderer ``name``; nothing is imported yet.

    Raises
    ------
    ValueError
        ``target`` is not of the form ``"module:function"``.
    """
    module, sep, function = target.partition(":")
    if not sep or not module or not function.isidentifier():
        raise ValueError(f"a renderer target is 'module:function'; got {target!r}")
    _TARGETS[name] = target
    _RESOLVED.pop(name, None)


def registered() -> dict[str, str]:
    """Every registered name and its ``"module:function"`` target (a copy)."""
    return dict(_TARGETS)


def renderer(name: str) -> Callable[..., Any]:
    """The function registered as ``name``, its module imported on first use.

    Raises
    ------
    LookupError
        Nothing registered ``name`` (the front door registers every renderer the model asks for).
    """
    found = _RESOLVED.get(name)
    if found is not None:
        return found
    try:
        target = _TARGETS[name]
    except KeyError:
        raise LookupError(f"no renderer registered as {name!r} (scorekit/__init__.py registers them)") from None
    module, _, function = target.partition(":")
    resolved: Callable[..., Any] = getattr(importlib.import_module(module), function)
    _RESOLVED[name] = resolved
    return resolved
