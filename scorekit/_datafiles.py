"""The package's own data tables (``scorekit/data/*.yaml``): read once, parsed safely.

These files ship with scorekit and are reviewed like code, so they are parsed
with libyaml's C safe loader when PyYAML has it (about 10× faster than the pure
Python one; the same safe subset of YAML). User-supplied YAML (policies) goes
through the strict loader in ``_policy`` instead.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

__all__ = ["data_text", "load_data_yaml"]


def data_text(name: str) -> str:
    """Text of ``scorekit/data/<name>``."""
    return resources.files("scorekit").joinpath("data", name).read_text(encoding="utf-8")


def load_data_yaml(name: str) -> Any:
    """Parse ``scorekit/data/<name>`` with a safe loader (C-accelerated when available)."""
    import yaml  # lazy: keeps `import scorekit` light

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(data_text(name), Loader=loader)  # noqa: S506 - a safe loader
