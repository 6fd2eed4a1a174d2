"""scorekit's pytest plugin, as pytest loads it (SPEC §19): the options and the marker, nothing else.

pytest imports every ``pytest11`` plugin in every session of every project in the environment.
This module is that entry point (``scorekit = "_scorekit_pytest"``), and it lives outside the
``scorekit`` package on purpose: importing anything under ``scorekit`` runs ``scorekit/__init__``,
which imports pandas (about a second). Here only pytest is imported; the plugin's work
(:mod:`scorekit.pytest_plugin`) is imported when a session is run with ``--scorekit-out DIR``.
Disable the plugin with ``-p no:scorekit``.
"""

from __future__ import annotations

import pytest

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare ``--scorekit-out``, ``--scorekit-policy`` and ``--scorekit-gate``."""
    group = parser.getgroup("scorekit", "scorekit: tests marked @pytest.mark.scorekit as evaluation evidence")
    group.addoption("--scorekit-out", metavar="DIR", default=None,
                    help="evaluate the tests marked @pytest.mark.scorekit and write the scorecard and its "
                         "reports into DIR (without it the plugin does nothing)")
    group.addoption("--scorekit-policy", metavar="P", default=None,
                    help="the policy file (YAML or JSON) of the evaluation (default: scorekit's defaults)")
    group.addoption("--scorekit-gate", action="store_true", default=False,
                    help="exit status 1 unless the evaluation's decision is PASS")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; with ``--scorekit-out``, start recording (:func:`scorekit.pytest_plugin.start`)."""
    config.addinivalue_line(
        "markers",
        "scorekit(dimension, case=None): the test is one trial of a scorekit evaluation case "
        "(recorded with --scorekit-out DIR)")
    out = config.getoption("scorekit_out")
    policy = config.getoption("scorekit_policy")
    gate = bool(config.getoption("scorekit_gate"))
    if out is None:
        if policy is not None or gate:
            raise pytest.UsageError("--scorekit-policy and --scorekit-gate need --scorekit-out DIR")
        return
    from scorekit.pytest_plugin import start

    start(config, out=str(out), policy=policy, gate=gate)
