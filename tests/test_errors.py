"""scorekit/_errors.py: one exception hierarchy, every class a ScorekitError, all in one module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import scorekit
from scorekit import _errors


def _scorekit_modules() -> list:
    names = [info.name for info in pkgutil.walk_packages(scorekit.__path__, prefix="scorekit.")
             if ".examples" not in info.name and not info.name.endswith("__main__")]  # __main__ runs the CLI
    return [importlib.import_module(name) for name in sorted(names)]


def _exception_classes() -> dict[str, type]:
    found = {}
    for module in _scorekit_modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__.startswith("scorekit"):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_exception_class_in_scorekit_is_a_scorekit_error():
    classes = _exception_classes()
    assert "scorekit._errors.InputError" in classes  # the walk found the package's classes
    not_ours = sorted(name for name, cls in classes.items() if not issubclass(cls, _errors.ScorekitError))
    assert not_ours == []


def test_every_exception_class_lives_in_errors():
    elsewhere = sorted(name for name, cls in _exception_classes().items() if cls.__module__ != "scorekit._errors")
    assert elsewhere == []


def test_the_exception_tree_is_drawn_in_the_docstring():
    doc = _errors.__doc__ or ""
    for name, cls in inspect.getmembers(_errors, inspect.isclass):
        if issubclass(cls, BaseException):
            assert f" {name} " in doc or f" {name}\n" in doc, name
            for base in cls.__bases__:  # each built-in base a user may catch is named beside the class
                if base.__module__ == "builtins" and base is not Exception:
                    assert base.__name__ in doc, (name, base.__name__)


@pytest.mark.parametrize(
    ("public", "cls"),
    [
        ("scorekit.ScorekitError", _errors.ScorekitError),
        ("scorekit.InputError", _errors.InputError),
        ("scorekit.PolicyError", _errors.PolicyError),
        ("scorekit.SignatureError", _errors.SignatureError),
        ("scorekit.HistoryError", _errors.HistoryError),
        ("scorekit.release.ScorecardFileError", _errors.ScorecardFileError),
        ("scorekit.release.ScorecardInvalidError", _errors.ScorecardInvalidError),
        ("scorekit.reports.ScorecardSchemaError", _errors.ScorecardSchemaError),
    ],
)
def test_public_exception_names_stay_importable_where_documented(public, cls):
    module, _, name = public.rpartition(".")
    assert getattr(importlib.import_module(module), name) is cls


@pytest.mark.parametrize(
    ("cls", "builtin"),
    [
        (_errors.InputError, ValueError),
        (_errors.PolicyError, ValueError),
        (_errors.ScorecardSchemaError, ValueError),
        (_errors.StrictJSONError, ValueError),
        (_errors.DuplicateKeyError, ValueError),
        (_errors.InvalidParameterError, ValueError),
        (_errors.InvalidParameterError, TypeError),
    ],
)
def test_errors_for_bad_input_are_also_the_builtin_a_user_expects(cls, builtin):
    assert issubclass(cls, builtin) and issubclass(cls, _errors.ScorekitError)


def test_a_duplicate_key_is_a_strict_json_error_naming_the_key():
    exc = _errors.DuplicateKeyError("status")
    assert isinstance(exc, _errors.StrictJSONError) and isinstance(exc, _errors.ScorekitError)
    assert (exc.key, exc.kind, exc.detail, str(exc)) == ("status", "duplicate_key", "status",
                                                        "duplicate object key 'status'")


def test_file_problem_words_each_kind_in_one_line():
    assert _errors.FileProblem("missing").message("p.yml", "policy file") == "p.yml: policy file not found"
    assert (_errors.FileProblem("too_large", 16 << 20).message("p.yml", "policy file")
            == "p.yml: too large for a policy file (more than 16 MiB)")
    assert (_errors.FileProblem("special", "a FIFO").message("k.pem", "private key")
            == "k.pem: not a regular file (a FIFO), not a private key")


def test_scorecard_file_error_is_one_line():
    exc = _errors.ScorecardFileError("SCORECARD.md", "invalid YAML:\n  line 3")
    assert str(exc) == "SCORECARD.md: invalid YAML: line 3" and isinstance(exc, _errors.InputError)
