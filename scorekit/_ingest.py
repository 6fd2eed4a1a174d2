"""Validate and score rows in one streaming pass, keeping only compact columns.

Each row is parsed, checked (SPEC §5), scored (SPEC §3–§4) and reduced to the
few values the evidence table keeps; the parsed dict is dropped straight away,
so memory stays near the size of the file. Large JSON Lines files are split
between two processes (fork) on machines with more than one core.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from sys import intern
from typing import Any

from ._errors import Problem
from ._hashing import MEASURED_FIELDS, evidence_digest, results_digest, row_digest
from ._rows._formats import Source, jsonl_records
from ._rows._normalise import check_row
from ._validate import DEFINITION_FIELDS, definition_key, text_definition_key
from .scorers import Context, Outcome, scorer_for
from .scorers.external import from_score, prescored
from .scorers.judges import is_mock

__all__ = ["Ingested", "ingest"]

# Below this many rows a second process costs more than it saves.
PARALLEL_MIN_ROWS = 20_000
# How long this process waits for the second one's last chunks, beyond twice
# its own scoring time, before it stops it and scores them itself.
CHILD_GRACE_SECONDS = 30.0
COLUMNS = (
    "line", "id", "dimension", "case_id", "trial", "status", "reason", "detail", "label", "control", "evaluator",
    "agent_output", "cost_usd", "latency_ms", "run", "definition", "row_json",
)
_CONTROL_TAGS = frozenset({"known-bad", "negative-example"})
_MEASURED = frozenset(MEASURED_FIELDS)
_LAYOUTS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _layout(row: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(measured fields, definition fields) a row has, cached per key layout:
    rows of one dimension share a few layouts, so the per-row field filtering is
    done once per layout."""
    keys = tuple(row)
    layout = _LAYOUTS.get(keys)
    if layout is None:
        layout = (
            tuple(name for name in keys if name in _MEASURED),
            tuple(name for name in DEFINITION_FIELDS if name in row),
        )
        if len(_LAYOUTS) < 4096:
            _LAYOUTS[keys] = layout
    return layout


@dataclass
class Ingested:
    """Compact per-row columns (plain lists, in source order) plus what scoring saw."""

    source: str = "<rows>"
    columns: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in COLUMNS})
    problems: list[Problem] = field(default_factory=list)
    mock_judges: set[str] = field(default_factory=set)
    judges_seen: set[str] = field(default_factory=set)
    suite_digests: set[str] = field(default_factory=set)  # one per distinct case definition
    # Every agent the valid rows name (None: a row naming none), with its row
    # count, including rows left out because another agent was selected.
    agents: dict[str | None, int] = field(default_factory=dict)
    # Row digests packed as 32 raw bytes each (no string per row; one buffer to
    # send between processes): one per valid row; one per row, in row order.
    result_digests: bytearray = field(default_factory=bytearray)
    evidence_digests: bytearray = field(default_factory=bytearray)

    def extend(self, other: Ingested) -> None:
        for name in COLUMNS:
            self.columns[name].extend(other.columns[name])
        self.problems.extend(other.problems)
        self.mock_judges |= other.mock_judges
        self.judges_seen |= other.judges_seen
        self.suite_digests |= other.suite_digests
        for agent, count in other.agents.items():
            self.agents[agent] = self.agents.get(agent, 0) + count
        self.result_digests += other.result_digests
        self.evidence_digests += other.evidence_digests

    def __len__(self) -> int:
        return len(self.columns["line"])


def _printable(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")


def _mock_check(row: dict[str, Any], outcome: Outcome, ctx: Context) -> Outcome:
    """A mock judge anywhere (any dimension, pre-scored or not) makes a SELF_TEST,
    and a row it touched is never PASS; judges of any row are recorded."""
    mocks = set()
    votes = row.get("judge_votes")
    if isinstance(votes, list):
        for vote in votes:
            if isinstance(vote, dict):
                judge = vote.get("judge")
                if isinstance(judge, str) and judge:
                    ctx.judges_seen.add(judge)
                if is_mock(judge, vote):
                    mocks.add(str(judge))
    evaluator = row.get("evaluator")
    if isinstance(evaluator, str) and is_mock(evaluator):
        mocks.add(evaluator)
    if mocks:
        ctx.mock_judges.update(mocks)
        if outcome.status == "PASS":
            return Outcome(
                "ERROR", "mock_judge", outcome.labeled, "mock judge or evaluator " + ", ".join(sorted(mocks))
            )
    return outcome


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _ingest_items(
    items: Iterable[tuple[int, Any, Any, bool, bytes | None]], source: str, ctx: Context, strict: bool = True
) -> Ingested:
    """Check and score ``items``. With ``ctx.agent`` set, rows naming another
    agent (or none) are counted in ``agents`` and left out, as are invalid rows
    that visibly name another agent."""
    out = Ingested(source=source)
    evidence_digests = out.evidence_digests
    suite_seen: set[tuple[Any, Any, bytes]] = set()
    suite_digests, result_digests = out.suite_digests, out.result_digests
    cols = out.columns
    c_line, c_id, c_dim, c_case, c_trial = cols["line"], cols["id"], cols["dimension"], cols["case_id"], cols["trial"]
    c_status, c_reason, c_label, c_control = cols["status"], cols["reason"], cols["label"], cols["control"]
    c_detail = cols["detail"]
    c_eval, c_output, c_cost, c_latency = cols["evaluator"], cols["agent_output"], cols["cost_usd"], cols["latency_ms"]
    c_def, c_json = cols["definition"], cols["row_json"]
    scorers: dict[str, Any] = {}
    problems = out.problems
    agents = out.agents
    agent = ctx.agent
    c_run = cols["run"]
    for line, value, error, deep, raw in items:
        row = None
        if error is None:
            row, row_problems = check_row(value, deep)
        else:
            row_problems = error if isinstance(error, list) else [("row", error)]
        ident = value if isinstance(value, dict) else {}
        if row is not None:
            if ctx.tool_contracts and "tool_schemas" not in row and row.get("dimension") == "tool_call":
                # The policy's tool_contracts: an answer key of the row (its definition, the suite hash).
                row = {**row, "tool_schemas": ctx.tool_contracts}
                raw = None  # the line's text no longer is the row's definition
            named = row.get("agent")
            agents[named] = agents.get(named, 0) + 1
            if agent is not None and named != agent:
                continue
        elif agent is not None and isinstance(ident.get("agent"), str) and ident["agent"] != agent:
            continue  # an unreadable row of another agent is that evaluation's problem
        if row is None:
            # An invalid row may carry text that is not valid Unicode (a lone
            # surrogate): keep its identity printable and storable.
            row_id = _printable(rid) if isinstance(rid := ident.get("id"), str) else None
            problems.extend(Problem(source, line, name, message, row_id) for name, message in row_problems)
            dimension = intern(_printable(ident["dimension"])) if isinstance(ident.get("dimension"), str) else None
            case = _printable(ident["case_id"]) if isinstance(ident.get("case_id"), str) else row_id
            if case is None:
                case = f"<line {line}>"  # an unreadable row is still its own case in the evidence
            c_line.append(line)
            c_id.append(row_id)
            c_dim.append(dimension)
            c_case.append(case)
            c_trial.append(None)
            c_status.append("ERROR")
            c_reason.append("invalid_row")
            c_label.append("invalid")
            c_detail.append("; ".join(f"{name}: {message}" for name, message in row_problems[:3]))
            c_control.append(False)
            c_eval.append(None)
            c_output.append(None)
            c_cost.append(None)
            c_latency.append(None)
            c_def.append(None)
            c_run.append(None)
            c_json.append(None if raw is not None or value is None else _dumps(value))
            evidence_digests += evidence_digest(row_id, dimension, case, None, "ERROR", "invalid_row", "invalid", False,
                                                strict and dimension is not None)
            continue
        dimension = row["dimension"]
        measured, defined = _layout(row)
        key = (text_definition_key(raw) if raw is not None else None) or definition_key(row, defined)
        if "status" in row:
            outcome = prescored(row)
        elif "score" in row:
            outcome = from_score(row, ctx)
        else:
            ctx.definition = key
            scorer = scorers.get(dimension)
            if scorer is None:
                scorer = scorers[dimension] = scorer_for(dimension)
            outcome = scorer(row, ctx)
            if not outcome.labeled and outcome.status == "PASS":  # fail closed
                outcome = Outcome("ERROR", outcome.reason or "unlabeled", False, outcome.detail)
        if "judge_votes" in row or "evaluator" in row:
            outcome = _mock_check(row, outcome, ctx)
        tags = row.get("tags")
        row_id = row["id"]
        case = intern(row.get("case_id", row_id))  # one string per distinct value, not per row
        dimension = intern(dimension)
        trial = row.get("trial")
        label = "labeled" if outcome.labeled else "unlabeled"
        control = tags is not None and not _CONTROL_TAGS.isdisjoint(tags)  # tags: a list of str (validated)
        c_line.append(line)
        c_id.append(row_id)
        c_dim.append(dimension)
        c_case.append(case)
        c_trial.append(trial)
        c_status.append(outcome.status)
        c_reason.append(outcome.reason)
        c_detail.append(outcome.detail)
        c_label.append(label)
        c_control.append(control)
        evidence_digests += evidence_digest(row_id, dimension, case, trial, outcome.status, outcome.reason, label,
                                            control, strict or label == "labeled")
        c_eval.append(row.get("evaluator"))
        # A scorer that found personal data gives the output to keep instead (redacted).
        c_output.append(row.get("agent_output") if outcome.output is None else outcome.output)
        cost = row.get("cost_usd")
        c_cost.append(float(cost) if cost is not None else None)
        latency = row.get("latency_ms")
        if latency is None and row.get("latency_s") is not None:
            latency = row["latency_s"] * 1000.0
        c_latency.append(float(latency) if latency is not None else None)
        run = row.get("run")
        c_run.append(run if run is None or type(run) is str else str(run))
        c_def.append(key)
        if (case, dimension, key) not in suite_seen:
            suite_seen.add((case, dimension, key))
            suite_digests.add(row_digest({
                "case_id": case, "dimension": dimension,
                "definition": {name: row[name] for name in defined},
            }))
        result_digests += results_digest(
            row_id, case, dimension, trial, {name: row[name] for name in measured}
        )
        # JSON Lines rows can be read again from the file's lines; keep others.
        c_json.append(None if raw is not None else _dumps(row))
    out.mock_judges |= ctx.mock_judges
    out.judges_seen |= ctx.judges_seen
    return out


def _workers() -> int:
    override = os.environ.get("SCOREKIT_WORKERS")
    if override:
        try:
            return max(1, int(override))
        except ValueError:
            return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return min(2, cores)


def ingest(src: Source, ctx_args: dict[str, Any], *, limit: int | None = None, strict: bool = True) -> Ingested:
    """Validate and score every row of ``src`` (the first ``limit`` rows when given)."""
    if src.kind == "jsonl" and src.lines is not None:
        lines: Sequence[bytes] = src.lines
        if limit is not None:
            lines = _first_rows(lines, limit)
        if len(lines) >= PARALLEL_MIN_ROWS and _workers() > 1 and sys.platform.startswith("linux"):
            return _ingest_parallel(lines, src, ctx_args, strict)
        return _ingest_items(jsonl_records(lines, 1), src.name, Context(**ctx_args), strict)
    items: Iterable[Any] = src.items()
    if limit is not None:
        items = _take(items, limit)
    return _ingest_items(items, src.name, Context(**ctx_args), strict)


def _first_rows(lines: Sequence[bytes], limit: int) -> Sequence[bytes]:
    """The prefix of ``lines`` holding the first ``limit`` non-blank lines."""
    seen = 0
    for i, line in enumerate(lines):
        if line and not line.isspace():
            seen += 1
            if seen == limit:
                return lines[: i + 1]
    return lines


def _take(items: Iterable[Any], limit: int) -> Iterable[Any]:
    for i, item in enumerate(items):
        if i >= limit:
            return
        yield item


def _chunks(n_rows: int) -> list[tuple[int, int]]:
    """[start, stop) row ranges small enough that two processes taking them in
    turn finish within a fraction of a second of each other."""
    size = max(500, -(-n_rows // 64))
    return [(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]


def _take_chunks(tasks: int) -> Iterator[int]:
    """Chunk numbers from the shared task pipe until it is empty (both
    processes read it; a 4-byte read from a pipe is never split)."""
    while True:
        token = os.read(tasks, 4)
        if len(token) < 4:
            return
        yield int.from_bytes(token, "little")


def _ingest_chunks(lines: Sequence[bytes], chunks: list[tuple[int, int]], numbers: Iterable[int], source: str,
                   ctx: Context, strict: bool) -> dict[int, Ingested]:
    return {
        number: _ingest_items(jsonl_records(lines[chunks[number][0]:chunks[number][1]], chunks[number][0] + 1),
                              source, ctx, strict)
        for number in numbers
    }


def _receive(fd: int, timeout: float) -> dict[int, Ingested] | None:
    """The child's pickled chunks from pipe ``fd``; None when they have not all
    arrived within ``timeout`` seconds, {} when what arrived is unusable."""
    import pickle
    import select
    import time

    received = bytearray()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        data = os.read(fd, 1 << 20)
        if not data:
            break
        received += data
    try:
        parts = pickle.loads(received)
    except Exception:  # noqa: BLE001 - a child killed while writing leaves a truncated pickle
        return {}
    return parts if isinstance(parts, dict) else {}


def _child_main(lines: Sequence[bytes], chunks: list[tuple[int, int]], tasks: int, results: int, source: str,
                ctx_args: dict[str, Any], strict: bool, mask: Any) -> None:
    """The forked process: score chunks from the queue, send them, and leave
    without running the caller's code or exit handlers (never returns)."""
    import pickle
    import signal

    code = 1
    try:
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends this process at once
        except ValueError:  # pragma: no cover - not the main thread
            pass
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        done = _ingest_chunks(lines, chunks, _take_chunks(tasks), source, Context(**ctx_args), strict)
        with os.fdopen(results, "wb") as out:
            pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)


def _ingest_parallel(lines: Sequence[bytes], src: Source, ctx_args: dict[str, Any], strict: bool) -> Ingested:
    """Score ``lines`` in two processes (fork) taking chunks from a shared queue.

    The child inherits the lines (never pickled) and sends back its chunks'
    compact columns once the queue is empty. Whatever the child does not
    deliver in time (it failed, crashed, hung, was killed, or could not be
    started) is scored here, so the result never depends on the second process.
    If this process fails or is interrupted, the child is stopped before the
    error goes on.
    """
    import signal
    import time

    chunks = _chunks(len(lines))
    ctx = Context(**ctx_args)
    tasks_read, tasks_write = os.pipe()
    results_read, results_write = os.pipe()
    os.write(tasks_write, b"".join(number.to_bytes(4, "little") for number in range(len(chunks))))
    os.close(tasks_write)  # readers see the end of the queue once it is empty
    # SIGINT is held back across the fork: the child must never run the caller's code.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:  # no second process (EAGAIN, ENOMEM): this one scores everything
        pid = None
    if pid == 0:
        _child_main(lines, chunks, tasks_read, results_write, src.name, ctx_args, strict, mask)
    os.close(results_write)
    done: dict[int, Ingested] = {}
    child_finished = pid is None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        started = time.monotonic()
        done = _ingest_chunks(lines, chunks, _take_chunks(tasks_read), src.name, ctx, strict)
        if pid is not None:
            # The child has one chunk at most left to score: far less than this
            # process needed for all of its own.
            parts = _receive(results_read, timeout=CHILD_GRACE_SECONDS + 2 * (time.monotonic() - started))
            child_finished = parts is not None
            done.update(parts or {})
    finally:
        os.close(results_read)  # a child still writing gets a broken pipe, never a deadlock
        os.close(tasks_read)
        if pid is not None:
            if not child_finished:
                os.kill(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # SIGCHLD ignored: the system reaped it already
                pass
    missing = [number for number in range(len(chunks)) if number not in done]
    done.update(_ingest_chunks(lines, chunks, missing, src.name, ctx, strict))
    out = done.pop(0)
    for number in range(1, len(chunks)):
        out.extend(done.pop(number))  # each part freed once merged: the peak holds one copy
    return out
