"""Builders of release scorecards for tests (helper LIB; imported by ``tests/release/conftest.py``).

Import by name (``from release_cards import card_text``) — not ``from conftest import``: the
name ``conftest`` belongs to ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

RELEASE_DATA = Path(__file__).parent / "data"
SEED_EXAMPLE = RELEASE_DATA / "seed_example_SCORECARD.md"

PRIMARY = "within_one_bucket_accuracy"
DEFAULT_SECONDARIES = {"urgent_vs_not_accuracy": 0.58, "urgent_recall": 0.6571, "category_accuracy": 0.4567}
DEFAULT_REPRODUCTION = (
    "gaia eval benchmark --model Gemma-4-E4B-it-GGUF --ground-truth tests/fixtures/email/ground_truth.json "
    "--limit 220 --output-dir /tmp/email-eval"
)
_UNSET = object()


def card_payload(
    *,
    version: str = "0.3.0",
    value: float = 0.8467,
    secondaries: Mapping[str, float] | None = _UNSET,  # type: ignore[assignment]  # _UNSET: not given; None: none
    stdev: float | None = None,
    mean: float | None = None,
    limit: int | None = 220,
    n_runs: int | None = 3,
    model: str | None = "Gemma-4-E4B-it-GGUF",
    ctx_size: int | None = None,
    ctx_size_at: str = "config",
    agent_name: str = "Email Triage",
    dataset_reference: str = "tests/fixtures/email/ground_truth.json",
    dataset_description: str = "Synthetic email corpus (FakeGmailBackend, schema-2.0 triage taxonomy)",
    dataset_size: int = 220,
    test_cases_run: int | None = None,
    primary: str = PRIMARY,
    inherited_from: str | None = None,
    measured_version: str | None = None,
    reproduction_command: str | None = DEFAULT_REPRODUCTION,
    config_extra: Mapping[str, Any] | None = None,
    generated_at: str = "2026-06-29T21:45:03+00:00",
    **payload_options: Any,
):
    """A valid ResultPayload shaped like the seed's email-triage card.

    ``ctx_size`` goes into ``recipe.config`` (``ctx_size_at="config"``) or
    ``recipe.environment`` (``"environment"``, where the source project's
    adapter writes it, merged into any ``environment=`` given).
    """
    from scorekit.release import Metric, ResultPayload

    if secondaries is _UNSET:
        secondaries = DEFAULT_SECONDARIES
    config: dict[str, Any] = {"harness": "gaia eval benchmark"}
    if model is not None:
        config["model"] = model
    if limit is not None:
        config["limit"] = limit
    if n_runs is not None:
        config["n_runs"] = n_runs
    if ctx_size is not None and ctx_size_at == "config":
        config["ctx_size"] = ctx_size
    elif ctx_size is not None:
        if ctx_size_at != "environment":
            raise ValueError(f"ctx_size_at must be 'config' or 'environment'; got {ctx_size_at!r}")
        payload_options["environment"] = {**(payload_options.get("environment") or {}), "ctx_size": ctx_size}
    if stdev is not None:
        config["acceptance_variance"] = {
            "n_runs": n_runs or 3,
            primary: {"n": n_runs or 3, "mean": value if mean is None else mean, "stdev": stdev},
        }
    config.update(config_extra or {})
    metrics = [Metric(primary, value, 1.0)] + [Metric(n, v, 0.0) for n, v in (secondaries or {}).items()]
    if test_cases_run is None:
        test_cases_run = min(limit, dataset_size) if limit is not None else dataset_size
    return ResultPayload(
        agent_name, version, dataset_reference, dataset_description, dataset_size,
        "gaia eval benchmark — within-one-bucket acceptance (exact-or-adjacent, #1437)", config,
        test_cases_run, metrics, inherited_from=inherited_from, measured_version=measured_version,
        reproduction_command=reproduction_command, generated_at=generated_at, **payload_options,
    )


def _edit(front: dict, set_: Mapping[str, Any] | None, drop: Iterable[str]) -> dict:
    for dotted, value in (set_ or {}).items():
        *parents, last = dotted.split(".")
        node = front
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    for dotted in drop:
        *parents, last = dotted.split(".")
        node = front
        for key in parents:
            node = node[key]
        del node[last]
    return front


def card_text(*, set: Mapping[str, Any] | None = None, drop: Iterable[str] = (), **options: Any) -> str:  # noqa: A002
    """SCORECARD.md text; valid unless ``set``/``drop`` edit the front matter (see :func:`card_payload`)."""
    import yaml

    from scorekit.release import render_scorecard

    payload = card_payload(**options)
    text = render_scorecard(payload)
    drop = tuple(drop)
    if not set and not drop:
        return text
    body = text.split("\n---\n", 1)[1]
    front = _edit(payload.to_front_matter(), set, drop)
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n" + body


def write_card_file(tmp_path: Path, *, filename: str = "SCORECARD.md", **options: Any) -> Path:
    """Write :func:`card_text` to ``tmp_path / filename`` (parents created); return the path."""
    path = Path(tmp_path) / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(card_text(**options), encoding="utf-8")
    return path
