"""What every importer shares: reading another tool's JSON, finite values, the run's source dict.

Another tool's file is a user's file: it is read through :mod:`scorekit._io` (a regular
file only, bounded where a cap makes sense) and parsed by :func:`scorekit._io.loads_strict`,
so a repeated key is refused. Some tools write ``NaN`` themselves (Inspect AI's JSON does for
an unscored value), so :func:`parse_json` reads ``NaN``/``Infinity`` as floats — and every
importer treats a non-finite number as *no value* (ERROR, never a pass) and never lets one
reach a row or a written file (:func:`finite_json`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._errors import FileProblem, InputError, StrictJSONError
from .._io import decode_utf8, finite_float, loads_strict, read_bounded

__all__ = [
    "HEAD_BYTES",
    "REPEATS_BOUND",
    "ROWS_FLOOR",
    "ROWS_PER_ITEM",
    "amount",
    "bounded_count",
    "check_rows",
    "declared_repeats",
    "finite_json",
    "head_bytes",
    "head_text",
    "json_file",
    "kind_of",
    "nonblank",
    "optional_record",
    "parse_json",
    "record",
    "record_key",
    "record_list",
    "source_dict",
    "source_line",
    "text",
]

#: How much of a file detection reads (its head: a format is told by its first keys).
HEAD_BYTES = 64 * 1024
#: The most repeats (Inspect's epochs, τ²'s trials, promptfoo's ``--repeat``) a file may declare, unless
#: it holds more results than that (:func:`declared_repeats`).
REPEATS_BOUND = 10_000
#: The most rows an import may make per item its file holds, and the rows always allowed
#: (:func:`check_rows`): rows built as a cross product (every sample epoch × every scorer the log
#: names, every item × every grader the file uses) would otherwise be millions from kilobytes.
ROWS_PER_ITEM = 64
ROWS_FLOOR = 100_000


def parse_json(data: bytes, name: str) -> Any:
    """``data`` (UTF-8 JSON) parsed strictly, NaN/Infinity kept as floats; InputError naming ``name``."""
    text = decode_utf8(data, name)
    try:
        return loads_strict(text, nonfinite="keep")
    except StrictJSONError as exc:
        raise InputError(f"{name}: cannot be imported: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg})") from None


def json_file(path: Path, what: str) -> Any:
    """The JSON file ``path`` (any size, a regular file only), parsed by :func:`parse_json`."""
    try:
        data = read_bounded(path, None)
    except FileProblem as problem:
        raise InputError(problem.message(str(path), what)) from None
    return parse_json(data, str(path))


def head_bytes(path: Path, size: int = HEAD_BYTES) -> bytes | None:
    """The first ``size`` bytes of a regular file, or None (missing, a directory, special, unreadable)."""
    try:
        return read_bounded(path, size, head=True)
    except FileProblem:
        return None


def head_text(path: Path, size: int = HEAD_BYTES) -> str | None:
    """The first ``size`` bytes of a regular file as text (a cut multi-byte character dropped), or None."""
    data = head_bytes(path, size)
    return None if data is None else data.decode("utf-8", errors="ignore").removeprefix("\ufeff")


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (what a JSON writer and a row accept)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


def text(value: Any, where: str, *, optional: bool = False) -> str | None:
    """``value`` when it is a string (None when it is null and ``optional``); else InputError at ``where``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise InputError(f"{where}: expected a string, found {kind_of(value)}")
    return value


def kind_of(value: Any) -> str:
    """What a JSON value is, in the words a message uses (``a list``, ``a string``, ``null``).

    Examples
    --------
    >>> kind_of([1]), kind_of("x"), kind_of(None), kind_of(True), kind_of(2.5)
    ('a list', 'a string', 'null', 'a boolean', 'a number')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def record(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an InputError naming ``where`` (file and position).

    SPEC §20: a record that is not the shape its format says is an input error, never
    skipped in silence.

    Examples
    --------
    >>> record({"id": 1}, "log.json: samples[0]")
    {'id': 1}
    >>> record([1, 2], "log.json: samples[3]")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: log.json: samples[3]: expected an object, found a list
    """
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: expected an object, found {kind_of(value)}")
    return value


def optional_record(value: Any, where: str) -> Mapping[str, Any]:
    """An optional object field: absent or null → ``{}``, an object → itself, anything else an InputError.

    Examples
    --------
    >>> optional_record(None, "results.json: results[0].gradingResult")
    {}
    >>> optional_record("x", "results.json: results[0].gradingResult")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: results.json: results[0].gradingResult: expected an object, found a string
    """
    return {} if value is None else record(value, where)


def record_list(value: Any, where: str, *, missing_ok: bool = True) -> list[Any]:
    """``value`` when it is a JSON list (None → ``[]`` when ``missing_ok``), else an InputError naming ``where``.

    Examples
    --------
    >>> record_list(None, "log.json: samples")
    []
    >>> record_list(5, "log.json: samples")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: log.json: samples: expected a list, found a number
    """
    if value is None and missing_ok:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list, found {kind_of(value)}")
    return value


def record_key(value: Any, where: str) -> str:
    """A record's key (a task id, a data-source item's index): a string with text or an integer, as a string.

    Examples
    --------
    >>> record_key(7, "items.jsonl:3: data_source_idx"), record_key("t-1", "r.json: [0].task_id")
    ('7', 't-1')
    >>> record_key([1], "r.json: [4].task_id")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: r.json: [4].task_id: expected a string or an integer, found a list [1]
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)) or (isinstance(value, str) and not value.strip()):
        raise InputError(f"{where}: expected a string or an integer, found {kind_of(value)} {json.dumps(value)[:40]}")
    return str(value)


def bounded_count(value: Any, where: str, *, at_most: int, what: str) -> int | None:
    """A count a file declares (epochs, trials, dataset size): a whole number in [0, ``at_most``], or None.

    SPEC §20: a declared count is bounded by what the file holds, so a 1 KB file cannot
    make an importer build 10**8 rows. ``at_most`` is that bound (``what`` says what it
    is, for the message). None stays None (the file states no count).

    Examples
    --------
    >>> bounded_count(3, "log.json: eval.config.epochs", at_most=12, what="the samples' epochs")
    3
    >>> bounded_count(10**8, "log.json: epochs", at_most=12, what="samples")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: log.json: epochs: 100000000 is more than the file holds (12, samples)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: expected a whole number >= 0, found {kind_of(value)} {json.dumps(value)[:40]}")
    if value > at_most:
        raise InputError(f"{where}: {value} is more than the file holds ({at_most}, {what})")
    return value


def declared_repeats(value: Any, where: str, *, held: int, holds: str) -> int | None:
    """A declared repeat count (epochs, trials): at most the larger of :data:`REPEATS_BOUND` and ``held``.

    SPEC §20: a repeat count a file declares above what it could plausibly hold is a damaged
    file, not a plan; below the bound it is a plan, and what the file lacks of it is counted
    (``sample_epochs_planned``), never materialised beyond what the file holds. ``holds`` names
    the results ``held`` counts, for the message.

    Examples
    --------
    >>> declared_repeats(5, "log.json: eval.config.epochs", held=3, holds="sample epochs")
    5
    >>> declared_repeats(10**8, "results.json: info.num_trials", held=3, holds="simulations")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: results.json: info.num_trials: 100000000 is more than the file holds (10000, ...)
    """
    return bounded_count(value, where, at_most=max(REPEATS_BOUND, held),
                         what=f"the larger of {REPEATS_BOUND} and the {holds} the file holds")


def check_rows(name: str, rows: int, *, held: int, items: str) -> None:
    """Refuse an import that would make more than :data:`ROWS_PER_ITEM` rows per item its file holds.

    SPEC §20: every import stays linear in its file. ``rows`` is what the import would build
    (counted before any row is), ``held`` the items the file holds that rows are built from,
    ``items`` what those are, for the message; :data:`ROWS_FLOOR` rows are always allowed.

    Examples
    --------
    >>> check_rows("items.jsonl", 2_000 * 2_000, held=4_000, items="items and grader results")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: items.jsonl: the file would make 4000000 rows from the 4000 items and ...
    """
    if rows > max(ROWS_FLOOR, ROWS_PER_ITEM * held):
        raise InputError(f"{name}: the file would make {rows} rows from the {held} {items} it holds (more than "
                         f"{ROWS_PER_ITEM} per item): not a file its tool writes")


def nonblank(value: Any) -> str | None:
    """``value`` when it is a string with a non-space character, else None (an optional name: a model, a task).

    Examples
    --------
    >>> nonblank("gpt-4o"), nonblank("  "), nonblank(3)
    ('gpt-4o', None, None)
    """
    return value if isinstance(value, str) and value.strip() else None


def amount(value: Any, where: str) -> float | int | None:
    """A measured amount (cost, latency, duration): a number or null; NaN, infinite and negative carry no value.

    A whole number stays one, as the source wrote it (one too large for a float carries no value).

    Examples
    --------
    >>> amount(12, "r.json: results[0].latencyMs"), amount(0.5, "x"), amount(-1.0, "x"), amount(None, "x")
    (12, 0.5, None, None)
    >>> amount("12", "r.json: results[0].latencyMs")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: r.json: results[0].latencyMs: expected a number, found a string
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: expected a number, found {kind_of(value)}")
    number = finite_float(value)
    return value if number is not None and number >= 0 else None


def source_dict(
    *,
    fmt: str,
    files: Iterable[str],
    status: str | None,
    samples_run: int,
    harness: str,
    harness_version: str | None,
    created: str | None,
    metrics: Mapping[str, Any],
    notes: Iterable[str],
    epochs: int | None = None,
    dataset_size: int | None = None,
    limit: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """An :class:`~scorekit.importers.ImportedRun`'s ``source`` (SPEC §15), JSON-safe."""
    out: dict[str, Any] = {
        "format": fmt,
        "files": list(files),
        "status": status,
        "samples_run": samples_run,
        "epochs": epochs,
        "dataset_size": dataset_size,
        "limit": limit,
        "created": created,
        "harness": harness,
        "harness_version": harness_version,
        "metrics": dict(metrics),
        **extra,
        "notes": list(notes),
    }
    return dict(finite_json(out))


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def source_line(source: Mapping[str, Any]) -> str:
    """One line saying where a run came from: ``imported from Inspect AI 0.3.95, 3 of 100 samples, cancelled``.

    The sample epochs are stated too when the run's ``sample_epochs_run`` and
    ``sample_epochs_planned`` differ (and differ from the samples): every sample of a log
    can have run while some of its epochs did not (a log stopped on its error budget).

    Examples
    --------
    >>> source_line({"harness": "Inspect AI", "harness_version": "0.3.95", "samples_run": 3,
    ...              "dataset_size": 100, "status": "cancelled"})
    'imported from Inspect AI 0.3.95, 3 of 100 samples, cancelled'
    >>> source_line({"harness": "Inspect AI", "harness_version": "0.3.x", "samples_run": 12, "dataset_size": 12,
    ...              "sample_epochs_run": 17, "sample_epochs_planned": 36, "status": "error"})
    'imported from Inspect AI 0.3.x, 12 of 12 samples, 17 of 36 sample epochs, error'
    >>> source_line({"harness": "promptfoo", "samples_run": 2, "status": None,
    ...              "sample_epochs_run": 4, "sample_epochs_planned": 4})
    'imported from promptfoo, 2 samples'
    """
    harness = str(source.get("harness") or source.get("format") or "another tool")
    version = source.get("harness_version")
    parts = [f"imported from {harness}" + (f" {version}" if version else "")]
    run, size = source.get("samples_run"), source.get("dataset_size")
    if isinstance(run, int):
        if isinstance(size, int) and not isinstance(size, bool):
            parts.append(f"{run} of {size} samples")
        else:
            parts.append(f"{run} sample" + ("" if run == 1 else "s"))
    epochs_run, epochs_planned = source.get("sample_epochs_run"), source.get("sample_epochs_planned")
    if (_count(epochs_run) and _count(epochs_planned) and epochs_run != epochs_planned
            and (epochs_run, epochs_planned) != (run, size)):  # one epoch: the samples already say it
        parts.append(f"{epochs_run} of {epochs_planned} sample epochs")
    limit = source.get("limit")
    if limit is not None:
        parts.append(f"limit {json.dumps(limit)}")
    status = source.get("status")
    if status and status != "success":
        parts.append(str(status))
    return ", ".join(parts)
