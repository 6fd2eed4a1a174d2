"""Inspect AI eval logs → SPEC §2 rows (SPEC §15, format ``inspect``).

Reads ``.eval`` logs (a zip archive: ``header.json``, or ``_journal/start.json`` while a run is
still going, and one ``samples/<id>_epoch_<n>.json`` per sample and epoch; current Inspect writes
the members zstd-compressed, older logs deflate), ``.json`` logs (one object with ``samples``)
and directories of either. Inspect itself is not needed.

Mapping (each rule is recorded in the run's ``source["notes"]``):

======================  ==========================================================================
case_id, trial          the sample id; epoch − 1
dimension               the scorer's name; a dict-valued score gives ``scorer.key``
evaluator               ``inspect:<scorer>``, ``@<grader model>`` where the log names one
agent, task             the eval's model and task
C, true, 1              PASS
I, false, 0             FAIL
N                       FAIL ``no_answer``
P; a number in (0, 1)   ``score`` 0.5 / the number: the policy's ``partial`` rule decides
NaN, null, missing,     ERROR ``unscored`` (Inspect's own JSON writes NaN for an unscored value;
anything else           it is read as no value, never as a number)
a sample with an error  ERROR ``sample_error`` on each of the task's scorers, ``detail`` the
or without scores; a    sample's own error message (``RuntimeError(...)``), else why it has no rows
planned sample epoch    (the eval's own error where it stopped on one); such rows carry the case's
absent                  definition where the log has it (another epoch of the sample), else none
======================  ==========================================================================

Provenance (:mod:`._inspect_provenance`): a sample Inspect invalidated after the run is ERROR
``invalidated`` on each of the task's scorers (``detail``: who, when, why), never counted; an edited
score keeps its final value and its edits (old → new, author, time, reason) go to the row's
``detail`` and the notes (a scorer only ``edit_score`` added is a dimension of its own, ERROR
``unscored`` on every other valid sample epoch); the sample epochs of ``results.early_stopping``
are planned ones, ERROR ``early_stopped``, and make the run partial; each stored epoch reduction goes to
``source["metrics"]["<scorer>/<reducer>"]``, compared in the notes with scorekit's own figure.

The task's scorers are the union of those named by the eval spec, its results and its samples.
A run is partial (TRIAGE) when its status is not ``success``, a sample limit was set, fewer
samples ran than its dataset holds, or fewer sample epochs than it planned (its samples × its
epochs: ``source["sample_epochs_run"]`` of ``source["sample_epochs_planned"]``). A mock model
(``mockllm/…``) is recognised by the evaluation itself (SPEC §8: a mock agent or evaluator decides
SELF_TEST).

Hostile files (SPEC §20): every sample, score, scorer list and the other parts the mapping relies
on must have the shape Inspect writes, else an input error names the file and the position
(``log.json: samples[3]``, ``log.eval!samples/3_epoch_1.json: scores``). A declared count never
makes rows by itself: an absent sample epoch becomes ERROR rows only while the file holds at least
one sample or listed id per absent sample epoch; a plan larger than that (``epochs: 10**8``) is
counted in ``sample_epochs_planned`` and the run is partial, no row is built for it; and a log that
would make more than 64 rows per item it holds (sample, score value, scorer dimension, listed id;
100,000 rows are always allowed) is refused, so every import stays linear in its file. An archive's
directory is checked before a member is read (each name once, each local header naming its member
as the directory does, no two members sharing bytes), zstd members are read no further than their
declared size + 1 byte, and the members read may declare at most ``SCOREKIT_MAX_DECOMPRESSED``
bytes in all (default 2 GiB).
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import FileProblem, InputError, NoSamplesError
from .._io import MAX_DECOMPRESSED_VAR, check_regular, max_decompressed
from ._base import (
    bounded_count,
    check_rows,
    declared_repeats,
    finite_json,
    head_bytes,
    head_text,
    json_file,
    optional_record,
    parse_json,
    record,
    record_list,
    source_dict,
)
from ._base import text as _text
from ._inspect_provenance import Provenance, early_stops, reduction_notes
from ._run import SOURCE_STATUSES, ImportedRun

__all__ = ["FORMAT", "detect", "read", "read_log", "value_outcome"]

FORMAT = "inspect"
HARNESS = "Inspect AI"

#: The largest zip member read (uncompressed): a declared size above it is refused, not inflated.
MEMBER_LIMIT = 1 << 30
_ZIP_MAGIC = b"PK\x03\x04"
_ZSTD = 93  # the zip compression method of Zstandard (APPNOTE 4.4.5)
_JSON_INT_MAX = (1 << 53) - 1  # the largest whole number a JSON reader keeps exact
_HEADER_MEMBERS = ("header.json", "_journal/start.json", "start.json")
_JSON_HEAD = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"[a-z]+"\s*,\s*"eval"\s*:\s*\{')
_SAMPLE_MEMBER = re.compile(r"^samples/[^/]+\.json$")

RULE_NOTES = (
    "case_id = the sample id; trial = epoch - 1; dimension = the scorer's name (scorer.key for a dict-valued score); "
    "evaluator = inspect:<scorer>, @<grader model> where the log names one; agent = the eval's model",
    "values: C, true, 1 -> PASS; I, false, 0 -> FAIL; N -> FAIL no_answer; P (as score 0.5, Inspect's own value) "
    "and numbers in (0,1) -> score, decided by the policy's partial rule; NaN, null, a missing value or any other "
    "value -> ERROR unscored",
    "a sample with an error or without scores, or a planned sample epoch absent from the log -> ERROR sample_error "
    "on each of the task's scorers (the union of the eval spec's, the results' and the samples' scorers), detail the "
    "sample's own error message (or the eval's, for a sample that never ran); such rows carry the case's definition "
    "where the log has it (another epoch of the sample), else none",
    "sample input and target (and choices) are the case's input and context (suite hash); model usage and total "
    "time are carried (usage, latency_s)",
)


# --------------------------------------------------------------------------- detection
def _is_eval_zip(path: Path) -> bool:
    head = head_bytes(path, 4)
    if head != _ZIP_MAGIC:
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return any(name in names for name in _HEADER_MEMBERS)


def _is_json_log(path: Path) -> bool:
    head = head_text(path)
    return bool(head and _JSON_HEAD.match(head) and '"task"' in head)


def _log_file(path: Path) -> bool:
    return _is_eval_zip(path) or _is_json_log(path)


def detect(path: Path) -> bool:
    """An Inspect log (by its content: the zip's members or the JSON's first keys), or a directory holding one."""
    path = Path(path)
    if path.is_dir():
        return any(_log_file(p) for p in sorted(path.rglob("*")) if p.is_file())
    return _log_file(path)


# --------------------------------------------------------------------------- reading a log
def _data_start(fp: Any, info: zipfile.ZipInfo, where: str) -> int:
    """Where a member's data begins, after its local header, whose name must be the directory's."""
    fp.seek(info.header_offset)
    local = fp.read(30)
    if len(local) != 30 or local[:4] != _ZIP_MAGIC:
        raise InputError(f"{where}: corrupt zip member (no local file header)")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    raw = fp.read(name_len)
    name = raw.decode("utf-8" if info.flag_bits & 0x800 else "cp437", errors="replace")  # as zipfile decodes it
    if len(raw) != name_len or name != info.orig_filename:
        raise InputError(f"{where}: the member's local header names {name[:80]!r}, not the name the archive's "
                         "directory gives it")
    return int(info.header_offset) + 30 + int(name_len) + int(extra_len)


def _directory(path: Path, zf: zipfile.ZipFile) -> dict[str, tuple[zipfile.ZipInfo, int]]:
    """The archive's members by name, with where each one's data begins, its directory checked.

    Every name is listed once, each local header names its member as the directory does, and no
    two members share bytes (an archive whose directory points many names at one member is refused,
    never decompressed once per name).
    """
    fp = zf.fp
    if fp is None:  # pragma: no cover - the archive is open
        raise InputError(f"{path}: the archive is closed")
    size = fp.seek(0, 2)
    members: dict[str, tuple[zipfile.ZipInfo, int]] = {}
    spans: list[tuple[int, int, str]] = []
    for info in zf.infolist():
        where = f"{path}!{info.filename}"
        if info.filename in members:
            raise InputError(f"{where}: the archive's directory lists this name twice")
        start = _data_start(fp, info, where)
        end = start + info.compress_size
        if end > size:
            raise InputError(f"{where}: corrupt zip member (its data runs past the end of the archive)")
        members[info.filename] = (info, start)
        spans.append((int(info.header_offset), end, info.filename))
    spans.sort()
    for (_, end, first), (begin, _, second) in zip(spans, spans[1:], strict=False):
        if begin < end:
            raise InputError(f"{path}!{second}: overlaps the member {first!r} (an archive's members never share "
                             "bytes)")
    return members


def _zstd_bytes(name: str, fp: Any, info: zipfile.ZipInfo, start: int) -> bytes:
    """A zstd member's bytes, never decompressing more than its declared size + 1 byte."""
    import zstandard  # lazy: only zstd members need it

    want = info.file_size + 1
    parts: list[bytes] = []
    got = 0
    try:
        fp.seek(start)
        raw = fp.read(info.compress_size)
        with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as reader:
            while got < want:
                chunk = reader.read(want - got)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
    except zstandard.ZstdError as exc:
        raise InputError(f"{name}: corrupt zstd member ({exc})") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc})") from None
    return b"".join(parts)


def _member_bytes(path: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, start: int) -> bytes:
    """One member's bytes, deflate (or stored) through zipfile, zstd from its raw bytes, size and CRC checked."""
    name = f"{path}!{info.filename}"
    if info.file_size > MEMBER_LIMIT:
        raise InputError(f"{name}: member too large to import ({info.file_size} bytes)")
    if info.compress_type != _ZSTD:
        try:
            return zf.read(info)
        except NotImplementedError as exc:
            raise InputError(f"{name}: cannot read this zip member ({exc})") from None
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
            raise InputError(f"{name}: corrupt zip member ({exc})") from None
    data = _zstd_bytes(name, zf.fp, info, start)
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise InputError(f"{name}: corrupt zstd member (size or CRC differs from the archive's directory)")
    return data


def _log_members(path: Path, names: Iterable[str]) -> list[str]:
    """The members a log is read from: its header (as the Inspect version that wrote it names it)."""
    present = set(names)
    if "header.json" in present:
        return ["header.json"]
    if "start.json" in present and "results.json" in present:  # logs of Inspect before the journal
        return ["start.json", "results.json"]
    if "_journal/start.json" in present:  # a run still going (or killed): no results yet
        return ["_journal/start.json"]
    raise InputError(f"{path}: not an Inspect log (no header.json or _journal/start.json)")


def _check_total(path: Path, infos: Iterable[zipfile.ZipInfo]) -> None:
    """Refuse an archive whose members to read declare more than ``SCOREKIT_MAX_DECOMPRESSED`` bytes in all."""
    cap = max_decompressed()
    total = sum(info.file_size for info in infos)
    if total > cap:
        raise InputError(f"{path}: its members would decompress to {total} bytes, more than {MAX_DECOMPRESSED_VAR} "
                         f"({cap} bytes) allows")


def _read_eval(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """A ``.eval`` archive: its header as the dictionary of a JSON log, and each sample with its member's name."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"{path}: not a readable .eval archive ({exc})") from None
    with zf:
        members = _directory(path, zf)
        headers = _log_members(path, members)
        samples = [name for name in members if _SAMPLE_MEMBER.match(name)]
        _check_total(path, (members[name][0] for name in [*headers, *samples]))

        def member(name: str) -> Any:
            return parse_json(_member_bytes(path, zf, *members[name]), f"{path}!{name}")

        log: dict[str, Any] = {}
        for name in headers:
            log.update(record(member(name), f"{path}!{name}"))
        if headers == ["_journal/start.json"]:
            log["status"] = "started"
        return log, [(f"{path}!{name}", member(name)) for name in samples]


def _load(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """The log at ``path`` (``.eval`` or ``.json``, told by content), and its samples, each with its position."""
    try:
        check_regular(path)
    except FileProblem as problem:
        raise InputError(problem.message(str(path), "Inspect log")) from None
    if head_bytes(path, 4) == _ZIP_MAGIC:
        log, samples = _read_eval(path)
    else:
        log = dict(record(json_file(path, "Inspect log"), str(path)))
        listed = record_list(log.get("samples"), f"{path}: samples")
        samples = [(f"{path}: samples[{i}]", sample) for i, sample in enumerate(listed)]
    if "eval" not in log:
        raise InputError(f"{path}: not an Inspect log (no eval object)")
    record(log["eval"], f"{path}: eval")
    return log, samples


def read_log(path: Path) -> dict[str, Any]:
    """The log at ``path`` (``.eval`` or ``.json``, told by content) as one dictionary, ``samples`` included."""
    log, samples = _load(Path(path))
    return {**log, "samples": [sample for _, sample in samples]}


# --------------------------------------------------------------------------- values
def value_outcome(value: Any) -> dict[str, Any]:
    """The row fields (``status``/``score``, ``reason``, ``detail``) of one Inspect score value.

    Examples
    --------
    >>> [value_outcome(v).get("status") for v in ("C", "I", "N", True, 0, 1.0)]
    ['PASS', 'FAIL', 'FAIL', 'PASS', 'FAIL', 'PASS']
    >>> value_outcome("P"), value_outcome(float("nan"))["reason"], value_outcome("yes")["status"]
    ({'score': 0.5}, 'unscored', 'ERROR')
    """
    if isinstance(value, bool):
        return {"status": "PASS" if value else "FAIL"}
    if isinstance(value, str):
        if value == "C":
            return {"status": "PASS"}
        if value == "I":
            return {"status": "FAIL"}
        if value == "N":
            return {"status": "FAIL", "reason": "no_answer", "detail": "N: no answer"}
        if value == "P":
            return {"score": 0.5}
        return {"status": "ERROR", "reason": "unscored",
                "detail": f"value {value[:40]!r} is not one of Inspect's C/I/N/P or a number in [0, 1]"}
    if isinstance(value, (int, float)):
        try:
            x = float(value)
        except OverflowError:
            x = math.inf
        if not math.isfinite(x):
            return {"status": "ERROR", "reason": "unscored", "detail": f"value {value!r}: not scored"}
        if x == 1:
            return {"status": "PASS"}
        if x == 0:
            return {"status": "FAIL"}
        if 0 < x < 1:
            return {"score": x}
        return {"status": "ERROR", "reason": "unscored", "detail": f"value {value!r} is outside [0, 1]"}
    if value is None:
        return {"status": "ERROR", "reason": "unscored", "detail": "no value: not scored"}
    return {"status": "ERROR", "reason": "unscored",
            "detail": f"a {type(value).__name__} value is not one of Inspect's C/I/N/P or a number in [0, 1]"}


# --------------------------------------------------------------------------- mapping
def _sample_key(sid: Any) -> tuple[int, Any]:
    return (0, sid) if isinstance(sid, int) and not isinstance(sid, bool) else (1, str(sid))


def _model_name(value: Any) -> str | None:
    """A model named in a scorer's options: a string, ``{"model": ...}``, or a list of those."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, Mapping):
        return _model_name(value.get("model"))
    if isinstance(value, list):
        names = [n for n in map(_model_name, value) if n is not None]
        return ",".join(names) if names else None
    return None


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [str(c["text"]) for c in content if isinstance(c, Mapping) and isinstance(c.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def _output_text(sample: Mapping[str, Any]) -> str | None:
    output = sample.get("output")
    if not isinstance(output, Mapping):
        return None
    if isinstance(output.get("completion"), str):
        return str(output["completion"])
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message")
        if isinstance(message, Mapping):
            return _text_of(message.get("content"))
    return None


def _one_line(text: str, limit: int = 500) -> str:
    """``text`` on one line (its whitespace runs collapsed), at most ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _found(value: Any) -> str:
    return f"found {json.dumps(value)[:40]}"


def _at(where: str, field_name: str) -> str:
    """A field of the record at ``where``: ``l.json: samples[3].scores``, ``l.eval!samples/1_epoch_1.json: scores``."""
    return f"{where}.{field_name}" if where.endswith("]") else f"{where}: {field_name}"


def _keyed(where: str, sample: Mapping[str, Any]) -> tuple[tuple[int, Any], int, str, Mapping[str, Any]]:
    """A sample with its key and epoch, both checked (the position is built only for a message)."""
    sid, epoch = sample.get("id"), sample.get("epoch")
    if isinstance(sid, bool) or not isinstance(sid, (int, str)):
        sid = _sample_id(sid, _at(where, "id"))
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= _JSON_INT_MAX:
        epoch = _epoch(epoch, _at(where, "epoch"))
    return _sample_key(sid), epoch, where, sample


def _sample_id(value: Any, where: str) -> int | str:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(f"{where}: expected a string or a whole number (a sample id), {_found(value)}")
    return value


def _epoch(value: Any, where: str) -> int:
    """A sample's epoch: Inspect counts epochs from 1."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _JSON_INT_MAX:
        raise InputError(f"{where}: expected a whole number >= 1 (Inspect counts epochs from 1), {_found(value)}")
    return value


def _error_message(error: Any, where: str) -> str:
    """The source's own message of an error Inspect recorded (an ``EvalError`` object, or its text)."""
    if isinstance(error, str):
        return error
    message = record(error, where).get("message")
    return str(_text(message, _at(where, "message")))


@dataclass
class _Scorers:
    """The task's scorers: the union of the eval spec's, the results' and the samples' (in that order)."""

    names: list[str] = field(default_factory=list)
    keys: dict[str, list[str]] = field(default_factory=dict)  # dict-valued scorer → its keys
    graders: dict[str, str] = field(default_factory=dict)

    def add(self, name: str) -> None:
        if name not in self.names:
            self.names.append(name)

    def add_key(self, name: str, key: str) -> None:
        self.add(name)
        keys = self.keys.setdefault(name, [])
        if key not in keys:
            keys.append(key)

    @property
    def width(self) -> int:
        """The rows each sample epoch makes: one per dimension of each scorer."""
        return sum(len(self.keys.get(name) or [name]) for name in self.names)

    def dimensions(self, name: str) -> list[str]:
        keys = self.keys.get(name)
        return [f"{name}.{k}" for k in keys] if keys else [name]

    def evaluator(self, name: str) -> str:
        grader = self.graders.get(name)
        return f"inspect:{name}" + (f"@{grader}" if grader else "")


def _spec_scorers(name: str, eval_spec: Mapping[str, Any], found: _Scorers) -> None:
    for i, spec in enumerate(record_list(eval_spec.get("scorers"), f"{name}: eval.scorers")):
        where = f"{name}: eval.scorers[{i}]"
        scorer = str(_text(record(spec, where).get("name"), f"{where}.name"))
        found.add(scorer)
        grader = _model_name(optional_record(spec.get("options"), f"{where}.options").get("model"))
        if grader:
            found.graders[scorer] = grader


def _result_scorers(name: str, results: Mapping[str, Any], found: _Scorers) -> None:
    for i, score in enumerate(record_list(results.get("scores"), f"{name}: results.scores")):
        where = f"{name}: results.scores[{i}]"
        key = str(_text(record(score, where).get("name"), f"{where}.name"))
        scorer = _text(score.get("scorer"), f"{where}.scorer", optional=True) or key
        if scorer != key:
            found.add_key(scorer, key)  # one entry per key of a dict-valued scorer
        else:
            found.add(scorer)
        grader = _model_name(optional_record(score.get("params"), f"{where}.params").get("model"))
        if grader:
            found.graders.setdefault(scorer, grader)


def _scorers(name: str, log: Mapping[str, Any], samples: Sequence[tuple[str, Mapping[str, Any]]]) -> _Scorers:
    eval_spec = log["eval"]
    found = _Scorers()
    roles = optional_record(eval_spec.get("model_roles"), f"{name}: eval.model_roles")
    role_grader = _model_name(roles.get("grader"))
    _spec_scorers(name, eval_spec, found)
    _result_scorers(name, optional_record(log.get("results"), f"{name}: results"), found)
    for where, sample in samples:
        scores = sample.get("scores")
        if not isinstance(scores, Mapping):  # the position is built only for the message
            scores = optional_record(scores, _at(where, "scores"))
        for scorer, score in scores.items():
            found.add(scorer)
            if not isinstance(score, Mapping):
                record(score, _at(where, f"scores[{json.dumps(scorer)}]"))
            value = score.get("value")
            if isinstance(value, Mapping):
                for key in value:
                    found.add_key(scorer, str(key))
    if role_grader:
        for scorer in found.names:
            found.graders.setdefault(scorer, role_grader)
    return found


def _definition(sample: Mapping[str, Any]) -> dict[str, Any]:
    """The case's definition a sample carries: its input, and its target and choices as context."""
    out: dict[str, Any] = {}
    if sample.get("input") is not None:
        out["input"] = finite_json(sample["input"])
    context = {k: finite_json(sample[k]) for k in ("target", "choices") if sample.get(k) is not None}
    if context:
        out["context"] = context
    return out


def _error_rows(base: dict[str, Any], scorers: _Scorers, detail: str,
                reason: str = "sample_error") -> Iterator[dict[str, Any]]:
    """ERROR ``reason`` on each of the task's scorers (every key of a dict-valued one), ``detail`` saying why."""
    for name in scorers.names:
        for dimension in scorers.dimensions(name):
            yield {**base, "id": f"{base['case_id']}/{base['trial'] + 1}/{dimension}", "dimension": dimension,
                   "evaluator": scorers.evaluator(name), "status": "ERROR", "reason": reason, "detail": detail}


def _score_outcomes(name: str, keys: list[str] | None, dimensions: list[str], score: Any) -> dict[str, Any]:
    """Per dimension of scorer ``name``: the outcome of its score (and the raw value, under ``"raw"``)."""
    if not isinstance(score, Mapping) or "value" not in score:
        return {d: {"status": "ERROR", "reason": "unscored", "detail": f"no score from {name}"} for d in dimensions}
    value = score["value"]
    if not keys:
        return {name: {**value_outcome(value), "raw": value}}
    if not isinstance(value, Mapping):
        return {d: {"status": "ERROR", "reason": "unscored", "detail": f"expected a dict of {', '.join(keys)}"}
                for d in dimensions}
    return {f"{name}.{k}": ({**value_outcome(value[k]), "raw": value[k]} if k in value else
                            {"status": "ERROR", "reason": "unscored", "detail": f"no {k!r} key"}) for k in keys}


def _rows_of_sample(
    sample: Mapping[str, Any], where: str, scorers: _Scorers, base: dict[str, Any], counts: dict[str, int],
    provenance: Provenance,
) -> Iterator[dict[str, Any]]:
    error = sample.get("error")
    scores = sample.get("scores") or {}  # its shape checked by _scorers
    label = f"sample {sample['id']} epoch {base['trial'] + 1}"
    invalidated = provenance.invalidation(sample, _at(where, "invalidation"), label)
    if invalidated is not None:  # Inspect's own verdict after the run: reported, never counted
        yield from _error_rows(base, scorers, invalidated, "invalidated")
        return
    if error is not None:
        counts["errored"] += 1
        yield from _error_rows(base, scorers, _one_line(_error_message(error, _at(where, "error"))))
        return
    if not scores:
        counts["unscored_samples"] += 1
        yield from _error_rows(base, scorers, "the sample has no scores")
        return
    for name in scorers.names:
        outcomes = _score_outcomes(name, scorers.keys.get(name), scorers.dimensions(name), scores.get(name))
        edits = provenance.edits(scores.get(name), _at(where, f"scores[{json.dumps(name)}]"), label, name)
        for dimension, outcome in outcomes.items():
            item = outcome.get("raw")
            if isinstance(item, float) and math.isnan(item):
                counts["nan"] += 1
            if "score" in outcome:
                counts["partial_rows"] += 1
            if outcome.get("reason") == "unscored":
                counts["unscored_rows"] += 1
            row = {**base, "id": f"{base['case_id']}/{base['trial'] + 1}/{dimension}", "dimension": dimension,
                   "evaluator": scorers.evaluator(name)}
            row.update((k, v) for k, v in outcome.items() if k not in ("detail", "raw"))
            edited = provenance.detail(edits, dimension[len(name) + 1:] if dimension != name else None)
            if edited is not None:
                row["detail"] = edited
            yield row


def _measured(sample: Mapping[str, Any]) -> dict[str, Any]:
    """What a sample measured beside its scores: the output, model usage and total time."""
    out: dict[str, Any] = {}
    text = _output_text(sample)
    if text is not None:
        out["agent_output"] = text
    usage = sample.get("model_usage")
    if isinstance(usage, Mapping) and usage:
        out["usage"] = finite_json(usage)
    total = sample.get("total_time")
    if isinstance(total, (int, float)) and not isinstance(total, bool) and math.isfinite(total) and total >= 0:
        out["latency_s"] = total
    return out


@dataclass
class _Plan:
    """The sample-epochs a log planned (its samples × its epochs) against those it holds (SPEC §15)."""

    ids: dict[tuple[int, Any], int | str]  # the run's samples: listed, then present and not listed
    epochs: range | list[int]  # the declared epochs 1..n, else the epochs present
    seen: set[tuple[tuple[int, Any], int]]

    @property
    def planned(self) -> int:
        """The run's samples × its epochs, and any sample epoch present outside them (counted, never iterated)."""
        epochs = self.epochs if isinstance(self.epochs, range) else set(self.epochs)  # O(1) membership
        outside = sum(1 for _, epoch in self.seen if epoch not in epochs)
        return len(self.ids) * len(self.epochs) + outside

    def absent(self) -> Iterator[tuple[int | str, int]]:
        for key, sid in self.ids.items():
            for epoch in self.epochs:
                if (key, epoch) not in self.seen:
                    yield sid, epoch


def _plan(listed: Sequence[int | str], keyed: Sequence[tuple[Any, int, str, Mapping[str, Any]]],
          epochs: int | None) -> _Plan:
    """The run's plan: its samples (listed, then present) × its epochs (declared, else those present)."""
    plan = _Plan(ids={}, epochs=[], seen={(key, epoch) for key, epoch, _, _ in keyed})
    for sid in listed:
        plan.ids.setdefault(_sample_key(sid), sid)
    for key, _, _, sample in keyed:
        plan.ids.setdefault(key, sample["id"])
    plan.epochs = range(1, epochs + 1) if epochs else sorted({e for _, e in plan.seen})
    return plan


def _score_entries(samples: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
    """The score values the samples hold (a dict-valued score counts each of its keys)."""
    total = 0
    for _, sample in samples:
        for score in (sample.get("scores") or {}).values():
            value = score.get("value")
            total += len(value) if isinstance(value, Mapping) else 1
    return total


def _listed_ids(name: str, dataset: Mapping[str, Any]) -> list[int | str]:
    where = f"{name}: eval.dataset.sample_ids"
    return [_sample_id(sid, f"{where}[{i}]") for i, sid in enumerate(record_list(dataset.get("sample_ids"), where))]


def _absent_detail(name: str, log: Mapping[str, Any], raw_status: Any) -> str:
    """Why a planned sample epoch is absent, in the source's own words where it has them (the eval's error)."""
    error = log.get("error")
    if error is not None:
        message = _one_line(_error_message(error, f"{name}: error"))
        return f"the sample did not run: the eval stopped with an error: {message}"
    if raw_status != "success":
        return f"the sample did not run (the eval's status is {json.dumps(raw_status)[:40]})"
    return "the sample epoch is absent from the log"


def _check_stops(name: str, stops: Mapping[tuple[tuple[int, Any], int], str], plan: _Plan) -> None:
    """An early stop names a sample epoch of the plan that is absent from the log (Inspect never runs it)."""
    last = plan.epochs[-1] if isinstance(plan.epochs, range) and plan.epochs else None
    for key, epoch in stops:
        if (key, epoch) in plan.seen:
            raise InputError(f"{name}: results.early_stopping: sample {key[1]!r} epoch {epoch} is both stopped early "
                             "and in the log")
        if last is not None and epoch > last:
            raise InputError(f"{name}: results.early_stopping: sample {key[1]!r} epoch {epoch} is beyond the eval's "
                             f"{last} epochs")


def _runs_of_log(path: Path, log: dict[str, Any], raw_samples: Sequence[tuple[str, Any]]) -> ImportedRun:
    name = str(path)
    eval_spec = record(log["eval"], f"{name}: eval")
    samples = [(where, record(sample, where)) for where, sample in raw_samples]
    raw_status = log.get("status")
    status = raw_status if raw_status in SOURCE_STATUSES else None
    if not samples:
        raise NoSamplesError(f"{name}: an Inspect log without samples (status {raw_status}): nothing to import")
    notes = list(RULE_NOTES)
    task = _text(eval_spec.get("task"), f"{name}: eval.task", optional=True) or path.stem
    model = _text(eval_spec.get("model"), f"{name}: eval.model", optional=True)
    agent = model or "(unknown model)"
    if agent != model:
        notes.append("the eval names no model: agent '(unknown model)'")
    config = optional_record(eval_spec.get("config"), f"{name}: eval.config")
    dataset = optional_record(eval_spec.get("dataset"), f"{name}: eval.dataset")
    epochs = declared_repeats(config.get("epochs"), f"{name}: eval.config.epochs", held=len(samples),
                              holds="sample epochs")
    limit = config.get("limit")
    dataset_size = bounded_count(dataset.get("samples"), f"{name}: eval.dataset.samples", at_most=_JSON_INT_MAX,
                                 what="the largest whole number JSON keeps exact")
    listed = _listed_ids(name, dataset)
    keyed = sorted((_keyed(where, sample) for where, sample in samples), key=lambda x: (x[0], x[1]))
    results = optional_record(log.get("results"), f"{name}: results")
    stopped = early_stops(results, name)
    stops = {(_sample_key(sid), epoch): why for (sid, epoch), why in (stopped.stops if stopped else {}).items()}

    scorers = _scorers(name, log, samples)
    if not scorers.names:
        raise NoSamplesError(f"{name}: an Inspect log that names no scorer: nothing to import")
    # The sample-epochs the eval planned (its samples × epochs) that the log does not hold: ERROR, each carrying
    # the case's definition where another epoch has it, as far as the file holds one record or listed id per
    # absent sample-epoch; a plan beyond that (a declared count, not evidence) is counted, never materialised.
    # Early-stopped sample epochs are planned ones the manager skipped: their samples are part of the plan.
    plan = _plan([*listed, *(sid for sid, _ in stopped.stops)] if stopped else listed, keyed, epochs)
    _check_stops(name, stops, plan)
    planned, run_epochs = plan.planned, len(plan.seen)
    absent, budget = planned - run_epochs, len(samples) + len(listed) + len(stops)
    materialise = 0 < absent <= budget
    check_rows(name, (len(samples) + (absent if materialise else 0)) * scorers.width,
               held=len(samples) + len(listed) + len(stops) + scorers.width + _score_entries(samples),
               items="samples, scores, scorer dimensions, listed ids and early stops")

    counts = {"errored": 0, "unscored_samples": 0, "nan": 0, "partial_rows": 0, "unscored_rows": 0}
    provenance = Provenance()
    own = [_definition(sample) for _, _, _, sample in keyed]
    definitions: dict[tuple[int, Any], dict[str, Any]] = {}
    for (key, _, _, _), found in zip(keyed, own, strict=True):
        if found:
            definitions.setdefault(key, found)
    rows: list[dict[str, Any]] = []
    for (key, epoch, where, sample), found in zip(keyed, own, strict=True):
        base: dict[str, Any] = {"case_id": str(sample["id"]), "trial": epoch - 1, "agent": agent}
        crashed = sample.get("error") is not None or not sample.get("scores")
        base.update(found or (definitions.get(key, {}) if crashed else {}))
        base.update(_measured(sample))
        rows.extend(_rows_of_sample(sample, where, scorers, base, counts, provenance))
    for scorer in provenance.added_only():  # a scorer only edits added: its other sample epochs say why they lack it
        dimensions, missing = set(scorers.dimensions(scorer)), provenance.missing_detail(scorer)
        for row in rows:
            if row["dimension"] in dimensions and row.get("reason") == "unscored" and "detail" not in row:
                row["detail"] = missing

    if materialise:
        detail = _absent_detail(name, log, raw_status)
        for sid, epoch in plan.absent():
            base = {"case_id": str(sid), "trial": epoch - 1, "agent": agent, **definitions.get(_sample_key(sid), {})}
            why = stops.get((_sample_key(sid), epoch))
            rows.extend(_error_rows(base, scorers, detail) if why is None else
                        _error_rows(base, scorers, why, "early_stopped"))
        if absent > len(stops):
            notes.append(f"{absent - len(stops)} planned sample epoch(s) absent from the log: ERROR sample_error "
                         "(with the case's definition where another epoch of the sample carries it)")
    elif absent:
        notes.append(f"{absent} planned sample epoch(s) absent from the log ({run_epochs} of {planned} ran): more than "
                     f"the {budget} samples and listed ids the file holds, so they are counted in "
                     "sample_epochs_planned, not written as rows")

    samples_run = len({key for key, _ in plan.seen})
    partial_why = []
    if raw_status != "success":
        partial_why.append(f"status {raw_status}")
    if limit is not None:
        partial_why.append(f"a sample limit was set ({limit})")
    if dataset_size is not None and samples_run < dataset_size:
        partial_why.append(f"{samples_run} of the dataset's {dataset_size} samples ran")
    if run_epochs < planned:
        partial_why.append(f"{run_epochs} of {planned} planned sample epochs ran")
    if stopped and stops:
        partial_why.append(f"{len(stops)} sample epoch(s) stopped early by {stopped.manager}")
        notes.append(stopped.note(materialise))
    if dataset_size is None:
        notes.append("the eval states no dataset size: whether every sample ran cannot be checked")
    partial = bool(partial_why)
    if partial:
        notes.append("partial run (TRIAGE): " + "; ".join(partial_why))
    if status is None and raw_status is not None:
        notes.append(f"unknown status {raw_status!r}: treated as not success")
    if counts["errored"] or counts["unscored_samples"]:
        notes.append(f"{counts['errored']} sample(s) with an error and {counts['unscored_samples']} without scores: "
                     "ERROR sample_error on each of the task's scorers, the sample's own error message as detail")
    if counts["nan"]:
        notes.append(f"{counts['nan']} NaN value(s), which Inspect writes for an unscored value: read as no value, "
                     "ERROR unscored (never a number)")
    if counts["unscored_rows"]:
        notes.append(f"{counts['unscored_rows']} row(s) ERROR unscored (NaN, missing or unrecognised values); Inspect "
                     "leaves unscored values out of its metrics, and scorekit's pass rates leave ERROR rows out too")
    if counts["partial_rows"]:
        notes.append(f"{counts['partial_rows']} row(s) with partial credit (P = 0.5 or a number in (0,1)): Inspect "
                     "averages partial credit into its metrics, scorekit applies the policy's partial rule (never "
                     "rounded), so the two differ on those scorers")
    for scorer, grader in scorers.graders.items():
        notes.append(f"scorer {scorer} graded by {grader}")
    if not epochs:
        notes.append("the eval states no epoch count: trials are the epochs present")

    notes.extend(provenance.notes(log.get("invalidated"), f"{name}: invalidated"))
    notes.extend(reduction_notes(results.get("scores") or [], rows, invalidated=provenance.invalidated))

    import pandas as pd

    metrics: dict[str, Any] = {}
    for i, score in enumerate(results.get("scores") or []):  # each checked by _result_scorers
        entry = optional_record(score.get("metrics"), f"{name}: results.scores[{i}].metrics")
        values = {str(k): (v.get("value") if isinstance(v, Mapping) else v) for k, v in entry.items()}
        metrics.setdefault(score["name"], values)  # the first reduction Inspect lists: its headline
        reducer = _text(score.get("reducer"), f"{name}: results.scores[{i}].reducer", optional=True)
        if reducer is not None:  # each epoch reduction under its own key: match/mean, match/pass_k_2, ...
            metrics[f"{score['name']}/{reducer}"] = values
    for total in ("total_samples", "completed_samples"):
        if total in results:
            metrics[total] = results[total]
    packages = optional_record(eval_spec.get("packages"), f"{name}: eval.packages")
    version = packages.get("inspect_ai")
    frame = pd.DataFrame(rows)
    source = source_dict(
        fmt=FORMAT, files=[name], status=status, samples_run=samples_run, epochs=epochs or None,
        dataset_size=dataset_size, limit=finite_json(limit), created=eval_spec.get("created"), harness=HARNESS,
        harness_version=str(version) if version is not None else None, metrics=metrics, notes=notes,
        sample_epochs_run=run_epochs, sample_epochs_planned=planned,
        task=task, run_id=eval_spec.get("run_id"), eval_id=eval_spec.get("eval_id"),
    )
    return ImportedRun(agent=agent, task=task, rows=frame, partial=partial, source=source)


def read(path: Path) -> list[ImportedRun]:
    """The runs of an Inspect log file (one), or of every log in a directory (see :mod:`scorekit.importers`)."""
    path = Path(path)
    if path.is_dir():
        from ._read import read_directory

        return read_directory(path, [FORMAT])
    return [_runs_of_log(path, *_load(path))]
