"""The renderer table (scorekit/_renderers.py): the model asks for a renderer by name, the front door names it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import scorekit as sk
from scorekit import _renderers


def test_a_registered_target_is_imported_on_first_use_and_kept():
    _renderers.register("test.basename", "posixpath:basename")
    first = _renderers.renderer("test.basename")
    assert first("a/b.txt") == "b.txt" and _renderers.renderer("test.basename") is first


def test_registering_again_replaces_the_renderer():
    _renderers.register("test.swap", "posixpath:basename")
    assert _renderers.renderer("test.swap")("a/b") == "b"
    _renderers.register("test.swap", "posixpath:dirname")
    assert _renderers.renderer("test.swap")("a/b") == "a"


@pytest.mark.parametrize("target", ["posixpath", "posixpath:", ":basename", "posixpath:not-a-name"])
def test_a_malformed_target_is_refused(target):
    with pytest.raises(ValueError, match="module:function"):
        _renderers.register("test.bad", target)


def test_an_unregistered_name_is_a_lookup_error_naming_it():
    with pytest.raises(LookupError, match="'no.such.renderer'"):
        _renderers.renderer("no.such.renderer")


def test_the_front_door_registers_every_renderer_the_model_asks_for():
    names = _renderers.registered()
    assert {"scorecard.write", "scorecard.release_payload", "scorecard.html", "imported_runs.html"} <= set(names)
    for name in ("scorecard.write", "scorecard.release_payload", "scorecard.html", "imported_runs.html"):
        assert callable(_renderers.renderer(name)), name


def test_import_scorekit_imports_no_renderer_module():
    above = ("scorekit.reports", "scorekit.notebook", "scorekit.release")
    code = f"import sys, scorekit\nprint(sorted(m for m in {above!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_scorecard_writes_and_displays_through_the_registered_renderers(tmp_path, monkeypatch):
    card = sk.evaluate([{"id": "a", "dimension": "pii", "status": "PASS", "evaluator": "h"}])
    calls = []
    monkeypatch.setitem(_renderers._RESOLVED, "scorecard.write", lambda c, out: calls.append(("write", c, out)) or {})
    monkeypatch.setitem(_renderers._RESOLVED, "scorecard.html", lambda c: calls.append(("html", c, None)) or "<p>")
    assert card.write(tmp_path) == {} and card._repr_html_() == "<p>"
    assert calls == [("write", card, tmp_path), ("html", card, None)]
