"""The planned status of every row of the bundled example, from its generator."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import scorekit

GENERATOR = Path(scorekit.__file__).parent / "examples" / "generate_email_assistant.py"


@lru_cache(maxsize=1)
def planned_statuses() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("_generate_email_assistant", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module.planned_statuses()
