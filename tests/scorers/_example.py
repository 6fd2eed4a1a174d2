"""The planned status of every row of the bundled example, from its generator."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import scorekit

# The example's generator lives outside the package (tools/); its cases are data in the package.
GENERATOR = Path(__file__).resolve().parents[2] / "tools" / "generate_email_assistant.py"


@lru_cache(maxsize=1)
def planned_statuses() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("_generate_email_assistant", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module.planned_statuses()


def example_rows(dimension: str) -> list[dict]:
    """The bundled example's rows of one dimension, as parsed JSON."""
    import json

    path = Path(scorekit.__file__).parent / "examples" / "email_assistant" / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["dimension"] == dimension]


def assert_example_rows_score_as_planned(dimension: str, scorer, ctx=None) -> None:
    """Every example row of ``dimension`` scores to the status its generator planned."""
    from scorekit.scorers import Context

    ctx = ctx or Context()
    planned = planned_statuses()
    rows = example_rows(dimension)
    assert rows
    for row in rows:
        assert scorer(row, ctx).status == planned[row["id"]], row["id"]


def any_value():
    """Hypothesis strategy: arbitrary JSON-ish values, with a few meaningful strings."""
    from hypothesis import strategies as st

    return st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
        | st.sampled_from(["name", "arguments", "#", "$ref", "I can't", "a@b.co"]),
        lambda children: st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "arguments", "type", "$ref", "properties"]) | st.text(max_size=3),
            children,
            max_size=3,
        ),
        max_leaves=12,
    )


def any_row(fields: list[str]):
    """Hypothesis strategy: rows with arbitrary values in ``fields``
    (scorers never raise on data: every irregularity is an outcome)."""
    from hypothesis import strategies as st

    return st.dictionaries(st.sampled_from(fields), any_value(), max_size=6)
