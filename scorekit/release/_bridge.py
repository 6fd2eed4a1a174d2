"""From an evaluation (:class:`scorekit.Scorecard`) to a release scorecard payload.

Each in-scope dimension's pass rate becomes a metric (weight 1 unless
``weights`` says otherwise); its Wilson interval bounds and pass^k figures
become weight-0 secondaries, shown on the card and excluded from the aggregate.
Fail closed: a dimension whose rate is undefined (no evidence) is an error,
never a silent 0 or a dropped row.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._io import finite_float
from ._payload import DEFAULT_AGGREGATE_NAME, Metric, ResultPayload, hardware_class
from ._schema import SEMVER, validate_scorecard

if TYPE_CHECKING:
    from .._scorecard import Scorecard

__all__ = ["to_release_payload"]


def _case_count(card: Any, *, included_only: bool) -> int:
    """Distinct case ids of the card's agent rows (controls leave; ``included_only``: rows not
    counted in the statistics leave too), read in batches when the rows are not in memory."""
    store = getattr(card, "evidence_store", None)
    if store is None:
        return 0
    seen: set[Any] = set()
    for rows in store.frames(["case_id", "control", "included"]):
        if not len(rows) or "case_id" not in rows.columns:
            continue
        mask = ~rows["control"].astype(bool) if "control" in rows.columns else None
        if included_only and "included" in rows.columns:
            included = rows["included"].astype(bool)
            mask = included if mask is None else mask & included
        kept = rows if mask is None else rows[mask]
        seen.update(kept["case_id"].dropna().unique().tolist())
    return len(seen)


def _weight(weights: Mapping[str, Any], name: str) -> float:
    weight = weights.get(name, 1.0)
    if finite_float(weight) is None or weight < 0:
        raise ValueError(f"weights[{name!r}] must be a finite number >= 0; got {weight!r}")
    return float(weight)


def _hostnames() -> set[str]:
    """This machine's names (lower case): a hardware field must never be one of them."""
    import platform
    import socket

    names = set()
    for name in (socket.gethostname(), platform.node()):
        name = (name or "").strip().lower()
        if name:
            names |= {name, name.split(".", 1)[0]}
    return names


def _environment(environment: Mapping[str, Any] | None, hardware: str | None) -> dict[str, Any] | None:
    """``recipe.environment`` as scorekit fills it: ``hardware`` a class descriptor, never a hostname."""
    if environment is None and hardware is None:
        return None
    if environment is not None and not isinstance(environment, Mapping):
        raise TypeError(f"environment must be a mapping; got {type(environment).__name__}")
    filled = dict(environment or {})
    if hardware is not None:
        if not isinstance(hardware, str) or not hardware.strip():
            raise ValueError(f"hardware must be a class descriptor (CPU or GPU model) or 'auto'; got {hardware!r}")
        value = hardware_class() if hardware == "auto" else hardware.strip()
        if filled.get("hardware") not in (None, value):
            raise ValueError(f"hardware {value!r} and environment['hardware'] {filled['hardware']!r} disagree; "
                             "give one")
        filled["hardware"] = value
    named = filled.get("hardware")
    if isinstance(named, str) and named.strip().lower() in _hostnames():
        raise ValueError(
            f"environment hardware {named!r} is this machine's hostname: record a hardware class descriptor "
            "(the CPU or GPU model, e.g. 'AMD Ryzen AI MAX+ (Strix Halo)'; hardware='auto' reads the CPU model)"
        )
    return filled


def _wilson_bounds(d: Mapping[str, Any], schema_version: Any) -> dict[str, Any]:
    """A dimension's pooled Wilson bounds, named as the release card's secondaries name them.

    ``wilson_low``/``wilson_high`` hold them (SPEC §18: ``ci_low``/``ci_high`` are the
    headline, the case-clustered interval when trials repeat); a schema-version-1
    scorecard, written before those fields, had Wilson as ``ci_low``/``ci_high``.

    Examples
    --------
    >>> _wilson_bounds({"ci_low": 0.37, "ci_high": 0.96, "wilson_low": 0.49, "wilson_high": 0.94}, 2)
    {'ci_low': 0.49, 'ci_high': 0.94}
    >>> _wilson_bounds({"ci_low": 0.49, "ci_high": 0.94}, 1)
    {'ci_low': 0.49, 'ci_high': 0.94}
    >>> _wilson_bounds({"ci_low": 0.37, "ci_high": 0.96}, 2)
    {'ci_low': None, 'ci_high': None}
    """
    if schema_version == 1 and "wilson_low" not in d and "wilson_high" not in d:
        return {"ci_low": d.get("ci_low"), "ci_high": d.get("ci_high")}
    return {"ci_low": d.get("wilson_low"), "ci_high": d.get("wilson_high")}


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def to_release_payload(
    card: Scorecard,
    *,
    agent_name: str | None = None,
    agent_version: str | None = None,
    weights: Mapping[str, float] | None = None,
    dataset_reference: str | None = None,
    dataset_description: str | None = None,
    dataset_size: int | None = None,
    reproduction_command: str | None = None,
    secondaries: bool = True,
    config: Mapping[str, Any] | None = None,
    limit: int | None = None,
    n_runs: int = 1,
    environment: Mapping[str, Any] | None = None,
    hardware: str | None = None,
    aggregate_name: str = DEFAULT_AGGREGATE_NAME,
    generated_at: str | None = None,
    require_pass: bool = True,
) -> ResultPayload:
    """A :class:`ResultPayload` for ``SCORECARD.md`` from an evaluation.

    Parameters
    ----------
    card : Scorecard
        The result of :func:`scorekit.evaluate`.
    agent_name, agent_version : str, optional
        Default: the card's ``agent.name`` / ``agent.version``. The version
        must be semver (``MAJOR.MINOR.PATCH``).
    weights : mapping, optional
        ``{dimension: weight}``; dimensions not named weigh 1.0. Names must be
        in-scope dimensions of the card.
    dataset_reference : str, optional
        Default ``sha256:<suite hash>`` (the case set the results cover).
    dataset_description : str, optional
        Default: a one-line description of the cases and dimensions.
    dataset_size : int, optional
        Labeled examples available; default the number of distinct agent cases
        in the evaluation. Must be ≥ the cases actually run.
    reproduction_command : str, optional
        The ``scorekit run ...`` command that produced the card.
    secondaries : bool, default True
        Add ``<dim>_ci_low``, ``<dim>_ci_high`` (the pooled Wilson interval,
        the card's ``wilson_low``/``wilson_high``) and
        ``<dim>_pass_hat_<k>`` (pass^k) as weight-0 metrics.
    config : mapping, optional
        Extra harness config merged over the defaults (decision, purpose,
        confidence, hashes, scorekit version, ``limit``, ``n_runs``).
    limit : int, optional
        The ``--limit`` the results were captured with (the gate and
        ``refresh-check`` compare it). Default: the number of cases run, so a
        card from a whole evaluation records the limit that reproduces it and
        passes ``refresh-check --limit <that number>`` as a full run.
    n_runs : int, default 1
        Repeated runs of the suite the results average over
        (``recipe.config.n_runs``; ``refresh-check`` wants at least as many
        experiments for a full run). One evaluation is one run.
    environment : mapping, optional
        ``recipe.environment``: what produced the numbers (``model``,
        ``ctx_size``, ``hardware``, ...).
    hardware : str, optional
        ``recipe.environment.hardware``, a class descriptor (CPU or GPU
        model); ``"auto"`` records this machine's CPU model
        (:func:`scorekit.release.hardware_class`) — only right when this
        machine ran the agent. A hardware value that is this machine's
        hostname is refused, given here or in ``environment``.
    require_pass : bool, default True
        Fail closed: an evaluation whose decision is not PASS (FAIL,
        INCOMPLETE, TRIAGE, SELF_TEST) is refused, since a release gate reads
        only the aggregate and would pass a card built from it. ``False``
        records it anyway (the decision stays in ``recipe.config``).

    Raises
    ------
    ValueError
        A decision other than PASS (unless ``require_pass=False``), a partial
        scan without ``limit`` and ``dataset_size``, a non-semver version, a
        missing agent name, a dimension with an undefined rate (named), bad
        weights, a ``limit`` or ``n_runs`` that is not a positive integer, a
        hostname as hardware, or a payload that would not validate.

    Examples
    --------
    >>> import scorekit as sk
    >>> rows = [{"id": f"c{i}", "dimension": "task_completion", "status": s, "evaluator": "h"}
    ...         for i, s in enumerate(["PASS"] * 9 + ["FAIL"])]
    >>> card = sk.evaluate(rows, agent_name="Demo", agent_version="1.0.0")
    >>> payload = to_release_payload(card, secondaries=False)
    >>> [(m.name, m.value) for m in payload.metrics], payload.aggregate_value
    ([('task_completion_pass_rate', 0.9)], 90.0)
    """
    from .._version import __version__

    if limit is not None:
        limit = _positive_int("limit", limit)
    n_runs = _positive_int("n_runs", n_runs)
    filled_environment = _environment(environment, hardware)
    data = card.to_dict()
    if require_pass and data.get("decision") != "PASS":
        reasons = "; ".join(getattr(card, "decision_reasons", None) or []) or "see the scorecard"
        raise ValueError(
            f"the evaluation decided {data.get('decision')} ({reasons}), not PASS: a release scorecard built from it "
            "would pass a gate that reads only its aggregate; pass require_pass=False to record it anyway"
        )
    if data.get("partial") and (limit is None or dataset_size is None):
        raise ValueError(
            "the evaluation is a partial scan (evaluate(limit=...)): pass limit= and dataset_size= so the card "
            "states how much of the dataset was run"
        )
    agent = data.get("agent") or {}
    name = agent_name if agent_name is not None else agent.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"agent_name is required (the card has none); got {name!r}")
    version = agent_version if agent_version is not None else agent.get("version")
    if not isinstance(version, str) or SEMVER.match(version) is None:
        source = "agent_version" if agent_version is not None else "the card's agent.version (pass agent_version=)"
        raise ValueError(f"{source} must be a semver string MAJOR.MINOR.PATCH (e.g. 1.2.0); got {version!r}")

    dimensions = [d for d in data.get("dimensions", []) if d.get("in_scope", True)]
    if not dimensions:
        raise ValueError("the card has no in-scope dimension: nothing to put on a release scorecard")
    weights = dict(weights or {})
    known = {d["name"] for d in dimensions}
    unknown = sorted(set(weights) - known)
    if unknown:
        raise ValueError(f"weights names dimension(s) not in scope of the card: {unknown}; in scope: {sorted(known)}")
    undefined = [d["name"] for d in dimensions if d.get("rate") is None]
    if undefined:
        raise ValueError(
            f"dimension(s) with an undefined rate (no scored evidence): {undefined}; "
            "a release scorecard cannot show them — capture results for them or drop them from the policy scope"
        )

    metrics = [Metric(f"{d['name']}_pass_rate", float(d["rate"]), _weight(weights, d["name"])) for d in dimensions]
    if secondaries:
        for d in dimensions:
            for bound, value in _wilson_bounds(d, data.get("schema_version")).items():
                if value is not None:
                    metrics.append(Metric(f"{d['name']}_{bound}", float(value), 0.0))
            for k, value in sorted((d.get("pass_k") or {}).items(), key=lambda kv: int(kv[0])):
                if value is not None:
                    metrics.append(Metric(f"{d['name']}_pass_hat_{int(k)}", float(value), 0.0))
    if sum(m.weight for m in metrics) <= 0:
        raise ValueError(f"weights must not all be zero (the aggregate would be undefined); got {weights!r}")

    cases_run = _case_count(card, included_only=True)
    if cases_run < 1:
        raise ValueError("the card has no included agent case: nothing was measured")
    size = _case_count(card, included_only=False) if dataset_size is None else dataset_size
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < cases_run:
        raise ValueError(f"dataset_size must be an integer >= the {cases_run} cases run; got {dataset_size!r}")

    hashes = data.get("hashes") or {}
    confidence = data.get("confidence") or 0.95
    harness: dict[str, Any] = {
        "harness": "scorekit evaluate",
        "scorekit_version": __version__,
        "evidence_schema_version": data.get("schema_version"),
        "decision": data.get("decision"),
        "measured_decision": data.get("measured_decision"),
        "purpose": data.get("purpose"),
        "partial": bool(data.get("partial", False)),
        "confidence": confidence,
        "dimensions": [d["name"] for d in dimensions],
        "policy_hash": hashes.get("policy"),
        "suite_hash": hashes.get("suite"),
        "results_hash": hashes.get("results"),
    }
    # Recorded always: the gate compares limit between releases, and refresh-check
    # decides full or subset from it and n_runs against the committed card.
    harness["limit"] = cases_run if limit is None else limit
    harness["n_runs"] = n_runs
    harness.update(dict(config or {}))

    dim_names = ", ".join(d["name"] for d in dimensions)
    payload = ResultPayload(
        agent_name=name,
        agent_version=version,
        dataset_reference=dataset_reference
        or (f"sha256:{hashes['suite']}" if hashes.get("suite") else "scorekit results"),
        dataset_description=dataset_description
        or f"{size} agent cases scored on {len(dimensions)} dimension(s): {dim_names}",
        dataset_size=int(size),
        methodology=(
            f"scorekit {__version__} evaluate (evidence schema v{data.get('schema_version')}) — per-dimension pass "
            f"rates, Wilson {confidence:.0%} intervals and pass^k; fail-closed decision {data.get('decision')}"
        ),
        config=harness,
        test_cases_run=cases_run,
        metrics=metrics,
        aggregate_name=aggregate_name,
        generated_at=generated_at,
        reproduction_command=reproduction_command,
        environment=filled_environment,
    )
    problems = validate_scorecard(payload.to_front_matter())
    if problems:
        raise ValueError(f"the release payload would be invalid: {problems[0]}" +
                         (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""))
    return payload
