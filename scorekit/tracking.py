"""Experiment tracking: a scorecard logged to an MLflow run (SPEC §19; ``pip install scorekit[mlflow]``).

:meth:`Scorecard.log_mlflow <scorekit.Scorecard.log_mlflow>` and ``scorekit run --mlflow [RUN_ID]``
call :func:`log_mlflow`. Everything logged is read from ``card.to_dict()`` (the one truth); no
number is recomputed here.

What a run receives
-------------------
* **metrics**, per dimension: ``<dim>.rate``, ``<dim>.ci_low``, ``<dim>.ci_high``,
  ``<dim>.assurance`` and ``<dim>.pass_k.<k>`` (an undefined value, ``None`` in the
  dictionary, is not logged: MLflow has no "undefined" metric), step 0;
* **params**: ``decision``, ``overall_pass``, ``measured_decision``, ``purpose``,
  ``partial``, ``confidence``, ``agent.name``, ``agent.version``, ``hashes.suite``,
  ``hashes.policy`` (the policy hash), ``hashes.results``, ``hashes.evidence``,
  ``scorekit_version``, ``schema_version``;
* **tags**: ``scorekit.decision``, ``scorekit.version``, ``scorekit.verdict.<dim>`` per
  dimension, and, when needed, ``scorekit.dimension_keys`` and ``scorekit.truncated_params``
  (below);
* **artifacts** (``artifacts=True``): the report files of :meth:`Scorecard.write` under
  ``scorekit/`` in the run's artifact store.

Names MLflow refuses
--------------------
MLflow accepts in a metric, param or tag key only letters, digits, ``_ - . / :`` and spaces
(no colon on Windows), at most 250 characters, and no key that reads as another path
(``a//b``, ``../x``). A dimension name is evidence and may hold anything, so its key
(``<dim>``) is made deterministically: a name of ASCII letters, digits, ``_ - .`` and spaces,
not starting with ``.`` and at most :data:`KEY_LIMIT` characters, is kept as it is; any other
name has every other character replaced by ``_``, is cut to fit, and gets ``_`` plus the first
8 hex digits of the SHA-256 of the original name appended (``tool/call:x`` →
``tool_call_x_5b1c…``), so two names never share a key (two that still would are refused).
Every renamed dimension is listed in the tag ``scorekit.dimension_keys``: a JSON object
``{key: original name}`` (a name over :data:`NAME_LIMIT` characters cut, ending in ``…``); a
mapping longer than MLflow's tag limit (8,000 characters) continues in
``scorekit.dimension_keys.2``, ``.3``, ..., each a JSON object of its own. A param value
longer than MLflow's limit (6,000 characters in MLflow 3) is cut to the limit, ending in ``…``,
and its name listed in the tag ``scorekit.truncated_params``: a long agent name cannot make the
log fail, and the cut is said.
Params and tags are cleaned of control characters (:func:`scorekit._escape.clean`); MLflow's
own interface escapes what it displays.

Where it goes
-------------
MLflow's own settings decide: ``MLFLOW_TRACKING_URI`` (or ``mlflow.set_tracking_uri``) and
the active experiment (``MLFLOW_EXPERIMENT_NAME`` / ``mlflow.set_experiment``). With no
tracking URI set, MLflow 3 writes into ``mlflow.db`` (SQLite) in the current directory, with
artifacts under ``./mlruns``; a current directory that already holds a file store
(``./mlruns`` with experiments) keeps using it, and MLflow 2 always uses ``./mlruns``. A store
MLflow refuses as it opens it (MLflow 3.18 refuses a ``file:`` store, "in maintenance mode") is
one line naming the tracking URI.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._errors import ScorekitError
from ._escape import clean
from ._io import finite_float

__all__ = [
    "ARTIFACT_PATH", "KEY_LIMIT", "NAME_LIMIT", "dimension_key", "log_mlflow", "mlflow_payload", "require_mlflow",
]

#: Where the report files go in the run's artifacts.
ARTIFACT_PATH = "scorekit"
#: Longest dimension key kept in a metric name (MLflow allows 250 characters for the whole key).
KEY_LIMIT = 160
#: MLflow's param value limit when the installed version does not say (MLflow 2 before 2.11: 500).
_PARAM_LIMIT_FALLBACK = 500
#: MLflow's tag value limit when the installed version does not say.
_TAG_LIMIT_FALLBACK = 5000
#: Longest dimension name written into ``scorekit.dimension_keys`` (longer ones are cut, ending in ``…``).
NAME_LIMIT = 1000
_INSTALL = "MLflow is not installed: pip install scorekit[mlflow]"
_NOT_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.\- ]")
_METRICS = ("rate", "ci_low", "ci_high", "assurance")


def dimension_key(name: str, limit: int = KEY_LIMIT) -> str:
    """The key standing for the dimension ``name`` in MLflow metric and tag names (deterministic).

    >>> dimension_key("task_completion")
    'task_completion'
    >>> dimension_key("tool/call:x") == "tool_call_x_" + __import__("hashlib").sha256(b"tool/call:x").hexdigest()[:8]
    True
    """
    safe = _NOT_KEY_CHARS.sub("_", name)
    if safe.startswith("."):  # "..x.rate" would read as a path above the run
        safe = "_" + safe[1:]
    if safe == name and 0 < len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe[:limit - 9]}_{digest}"


def _limit(name: str, fallback: int) -> int:
    """MLflow's own limit ``mlflow.utils.validation.<name>``, or ``fallback`` where the version has none."""
    try:
        from mlflow.utils import validation
    except ImportError:  # pragma: no cover - an MLflow that moved it
        return fallback
    return int(getattr(validation, name, fallback))


def _key_tags(renamed: Mapping[str, str], limit: int) -> dict[str, str]:
    """``{key: name}`` as JSON objects of at most ``limit`` characters: ``scorekit.dimension_keys``, then
    ``scorekit.dimension_keys.2``, ... (keys in order; a name over :data:`NAME_LIMIT` characters cut, ``…``)."""
    chunks: list[dict[str, str]] = [{}]
    for key in sorted(renamed):
        name = renamed[key] if len(renamed[key]) <= NAME_LIMIT else renamed[key][:NAME_LIMIT - 1] + "…"
        trial = {**chunks[-1], key: name}
        if chunks[-1] and len(json.dumps(trial, ensure_ascii=False, sort_keys=True)) > limit:
            chunks.append({key: name})
        else:
            chunks[-1] = trial
    return {f"scorekit.dimension_keys{'' if i == 0 else f'.{i + 1}'}": json.dumps(c, ensure_ascii=False,
                                                                                  sort_keys=True)
            for i, c in enumerate(chunks)}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return clean(str(value))


def mlflow_payload(data: Mapping[str, Any], *, param_limit: int | None = None) -> dict[str, dict[str, Any]]:
    """The metrics, params and tags :func:`log_mlflow` logs for the scorecard dictionary ``data``.

    Parameters
    ----------
    data : mapping
        ``Scorecard.to_dict()``.
    param_limit : int, optional
        Longest param value (default: the installed MLflow's limit).

    Returns
    -------
    dict
        ``{"metrics": {key: float}, "params": {key: str}, "tags": {key: str}}``.

    Raises
    ------
    ScorekitError
        Two dimensions would share one key (never for names MLflow accepts as they are).

    Examples
    --------
    >>> import scorekit as sk
    >>> from scorekit.tracking import mlflow_payload
    >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    >>> payload = mlflow_payload(card.to_dict())
    >>> payload["params"]["decision"], round(payload["metrics"]["pii.rate"], 3)
    ('FAIL', 1.0)
    """
    limit = _limit("MAX_PARAM_VAL_LENGTH", _PARAM_LIMIT_FALLBACK) if param_limit is None else param_limit
    metrics: dict[str, float] = {}
    tags = {"scorekit.decision": _text(data.get("decision")), "scorekit.version": _text(data.get("scorekit_version"))}
    renamed: dict[str, str] = {}
    seen: dict[str, str] = {}
    for dim in data.get("dimensions") or []:
        name = str(dim["name"])
        key = dimension_key(name)
        if key in seen:
            raise ScorekitError(f"dimensions {seen[key]!r} and {name!r} would share the MLflow key {key!r}")
        seen[key] = name
        if key != name:
            renamed[key] = clean(name)
        for field in _METRICS:
            value = finite_float(dim.get(field))
            if value is not None:
                metrics[f"{key}.{field}"] = value
        for k, value in (dim.get("pass_k") or {}).items():
            number = finite_float(value)
            if number is not None:
                metrics[f"{key}.pass_k.{dimension_key(str(k), 40)}"] = number
        tags[f"scorekit.verdict.{key}"] = _text(dim.get("verdict"))
    if renamed:
        tags.update(_key_tags(renamed, _limit("MAX_TAG_VAL_LENGTH", _TAG_LIMIT_FALLBACK)))
    agent = data.get("agent") or {}
    hashes = data.get("hashes") or {}
    raw = {
        "decision": data.get("decision"),
        "overall_pass": data.get("overall_pass"),
        "measured_decision": data.get("measured_decision"),
        "purpose": data.get("purpose"),
        "partial": data.get("partial"),
        "confidence": data.get("confidence"),
        "agent.name": agent.get("name"),
        "agent.version": agent.get("version"),
        **{f"hashes.{dimension_key(str(k), 40)}": v for k, v in hashes.items()},
        "scorekit_version": data.get("scorekit_version"),
        "schema_version": data.get("schema_version"),
    }
    params: dict[str, str] = {}
    truncated = []
    for key, value in raw.items():
        if value is None or value == "":
            continue
        text = _text(value)
        if len(text) > limit:
            text = text[:limit - 1] + "…"
            truncated.append(key)
        params[key] = text
    if truncated:
        tags["scorekit.truncated_params"] = ", ".join(truncated)
    return {"metrics": metrics, "params": params, "tags": tags}


def require_mlflow() -> Any:
    """The ``mlflow`` module, or :class:`~scorekit.ScorekitError` ``pip install scorekit[mlflow]``."""
    try:
        import mlflow
    except ImportError:
        raise ScorekitError(_INSTALL) from None
    return mlflow


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(getattr(exc, "message", None) or exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _where(uri: str) -> str:
    """The tracking URI for a message, without a user name or password it may carry."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(uri)
        if parts.username is None and parts.password is None:
            return uri
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
    except ValueError:
        return "the tracking store"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _log_into(client: Any, run_id: str, card: Any, payload: Mapping[str, Mapping[str, Any]],
              artifacts: bool) -> None:
    from mlflow.entities import Metric, Param, RunTag

    now = int(time.time() * 1000)
    metrics = [Metric(key, value, now, 0) for key, value in payload["metrics"].items()]
    params = [Param(key, value) for key, value in payload["params"].items()]
    tags = [RunTag(key, value) for key, value in payload["tags"].items()]
    # Params first: a run that already holds another scorecard's params refuses them before a metric of
    # this one is added to its history. log_batch takes at most 100 params or tags, 1,000 metrics per call.
    for chunk in _chunks(params, 100):
        client.log_batch(run_id, params=list(chunk))
    for chunk in _chunks(tags, 100):
        client.log_batch(run_id, tags=list(chunk))
    for chunk in _chunks(metrics, 1000):
        client.log_batch(run_id, metrics=list(chunk))
    if artifacts:
        with tempfile.TemporaryDirectory(prefix="scorekit-mlflow-") as tmp:
            card.write(tmp)
            client.log_artifacts(run_id, tmp, artifact_path=ARTIFACT_PATH)


def log_mlflow(card: Any, run_id: str | None = None, *, artifacts: bool = True) -> str:
    """Log ``card`` to an MLflow run; return the run's id (``Scorecard.log_mlflow``, SPEC §19).

    Parameters
    ----------
    card : Scorecard
        The evaluation.
    run_id : str, optional
        Log into this existing run (left as it is: not ended). Default: a new run in the
        active experiment, named after the agent, ended (FINISHED) once logged; inside an
        active run (``with mlflow.start_run():``) the new run is nested in it.
    artifacts : bool, default True
        Also log the report files (:meth:`Scorecard.write` into a temporary directory) under
        ``scorekit/``.

    Returns
    -------
    str
        The run id.

    Raises
    ------
    ScorekitError
        MLflow is not installed (``pip install scorekit[mlflow]``), ``run_id`` names no run of
        the tracking store, or the run refuses what is logged (a param it already holds with
        another value: log each scorecard into its own run).
    """
    mlflow = require_mlflow()
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    payload = mlflow_payload(card.to_dict())
    try:  # MLflow 3 refuses some stores as it opens them (a file store: "in maintenance mode")
        client = MlflowClient()
    except MlflowException as exc:
        raise ScorekitError(f"MLflow ({_where(mlflow.get_tracking_uri())}): {_first_line(exc)}") from None
    if run_id is not None:
        try:
            client.get_run(run_id)
        except MlflowException as exc:
            raise ScorekitError(f"MLflow run {run_id!r} not found at {_where(mlflow.get_tracking_uri())} "
                                f"({_first_line(exc)})") from None
        try:
            _log_into(client, run_id, card, payload, artifacts)
        except MlflowException as exc:
            raise ScorekitError(f"MLflow run {run_id} refused the scorecard (log each scorecard into its own "
                                f"run): {_first_line(exc)}") from None
        except OSError as exc:
            raise ScorekitError(f"MLflow run {run_id}: cannot log the report files "
                                f"({exc.strerror or _first_line(exc)})") from None
        return run_id
    agent = card.agent or {}
    name = clean(" ".join(str(agent[k]) for k in ("name", "version") if agent.get(k)) or "scorekit")[:250]
    try:
        with mlflow.start_run(run_name=name, nested=mlflow.active_run() is not None) as run:
            new_id: str = run.info.run_id
            _log_into(client, new_id, card, payload, artifacts)
    except MlflowException as exc:
        raise ScorekitError(f"MLflow ({_where(mlflow.get_tracking_uri())}): {_first_line(exc)}") from None
    except OSError as exc:  # the run is ended FAILED by start_run
        raise ScorekitError(f"MLflow: cannot log the report files ({exc.strerror or _first_line(exc)})") from None
    return new_id
