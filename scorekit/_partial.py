"""Score a partition of rows into a :class:`Partial`; combine partials (SPEC §16).

:func:`score_items` checks (SPEC §5) and scores (SPEC §3–§4) rows, keeping per row only
what the evidence table needs, compacted every :data:`BATCH_ROWS` rows into an Arrow batch
(:func:`schema`). :func:`combine` merges partials in any order and grouping into the same
result: rows go back in source order by each partial's key, and every hash input is a set or
multiset of row digests (SPEC §10), so no hash depends on the partitioning.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from sys import intern
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._counts import STATUSES
from ._errors import Problem
from ._hashing import MEASURED_FIELDS, evidence_digest, results_digest, row_digest
from ._rows._formats import FileLines, jsonl_records
from ._rows._normalise import check_row
from ._validate import DEFINITION_FIELDS, definition_key, takes_case_definition, text_definition_key
from .scorers import Context, Outcome, scorer_for
from .scorers.external import from_score, prescored, prescored_by
from .scorers.judges import cast_votes, is_mock, with_mock
from .scorers.pii import scrub

__all__ = ["BATCH_ROWS", "COLUMNS", "COMPACT", "ENCODED", "LABELS", "SPOOLED", "Partial", "add_counts", "combine",
           "merge_agreement", "orphan_digests", "read_range", "release_memory", "schema", "score_items",
           "score_lines", "shrink", "undefined_pairs"]

COLUMNS = (
    "line", "id", "dimension", "case_id", "trial", "status", "reason", "detail", "label", "control", "evaluator",
    "agent_output", "cost_usd", "latency_ms", "run", "definition", "row_json",
)
# What a partial keeps once it has arrived (:func:`shrink`): the columns counting, the cross-row
# checks and the findings read; the rest (SPOOLED, with each row's line) waits in a Spool.
SPOOLED = ("evaluator", "agent_output", "cost_usd", "latency_ms", "row_json")
COMPACT = tuple(name for name in COLUMNS if name not in SPOOLED)
# Compact columns of few distinct values, kept dictionary-encoded.
ENCODED = frozenset({"dimension", "case_id", "reason", "run", "definition"})
LABELS = ("labeled", "unlabeled", "invalid")
# Rows a partial holds as Python lists before they are compacted into a batch.
BATCH_ROWS = 1 << 16
_STATUS_CODES = {status: code for code, status in enumerate(STATUSES)}
_LABEL_CODES = {label: code for code, label in enumerate(LABELS)}
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


def schema(*, shrunk: bool = False) -> Any:
    """The Arrow schema of a partial's compacted rows (:data:`COLUMNS`, in order), or
    of a shrunk partial's (:data:`COMPACT`, the few-valued ones dictionary-encoded)."""
    text = pa.large_string()
    types: dict[str, Any] = {
        "line": pa.int64(), "trial": pa.int64(), "status": pa.int8(), "label": pa.int8(), "control": pa.bool_(),
        "cost_usd": pa.float64(), "latency_ms": pa.float64(), "definition": pa.binary(),
    }
    if not shrunk:
        return pa.schema([(name, types.get(name, text)) for name in COLUMNS])
    return pa.schema([
        (name, pa.dictionary(pa.int32(), types.get(name, text)) if name in ENCODED else types.get(name, text))
        for name in COMPACT
    ])


def release_memory() -> None:
    """Give the memory a large transient step freed back to the system, so the next
    step's peak does not stack on it: what Arrow's allocator keeps (builders, hash
    tables), and, with glibc, the free pages of the C heap that a partition's
    Python objects leave behind (``malloc_trim``; ~200 MB at 2M raw rows)."""
    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or None (another C library or platform)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None


def _batch(columns: dict[str, list[Any]]) -> Any:
    """One record batch of ``columns`` (lists of one length, in :data:`COLUMNS`)."""
    fields = schema()
    coded = {"status": _STATUS_CODES, "label": _LABEL_CODES}
    arrays = [pa.array(np.fromiter(map(coded[name].__getitem__, values), dtype=np.int8, count=len(values)))
              if name in coded else pa.array(values, type=fields.field(name).type)
              for name, values in ((name, columns[name]) for name in COLUMNS)]
    return pa.RecordBatch.from_arrays(arrays, schema=fields)


@dataclass
class Partial:
    """What scoring one partition of rows yields: per-row columns (Arrow batches in source order,
    then rows still being added as lists in ``columns``), the digests the hashes need, problems,
    judges and agents. Partials combine (:func:`combine`) in any order; ``key`` (source name,
    first line) puts the rows back in source order."""

    source: str = "<rows>"
    columns: dict[str, list[Any]] = field(default_factory=lambda: {c: [] for c in COLUMNS})
    batches: list[Any] = field(default_factory=list)  # pyarrow.RecordBatch of schema(), in source order
    problems: list[Problem] = field(default_factory=list)
    mock_judges: set[str] = field(default_factory=set)
    judges_seen: set[str] = field(default_factory=set)
    # Judge agreement (SPEC §18), per dimension: units (labeled agent rows, not controls, with two or more
    # valid votes) counted by (m valid votes, p PASS). Counted as rows are scored: a row the cross-row
    # checks mark invalid later still counts (it makes a release evaluation INCOMPLETE anyway).
    agreement: dict[str, dict[tuple[int, int], int]] = field(default_factory=dict)
    suite_digests: set[str] = field(default_factory=set)  # one per distinct case definition
    # (case_id, dimension) of rows that take their case's definition (_validate.takes_case_definition):
    # they add to the suite hash only a case no other row defines (orphan_digests).
    orphans: set[tuple[str, str]] = field(default_factory=set)
    # Every agent the valid rows name (None: none) with its rows, those of an agent not selected too.
    agents: dict[str | None, int] = field(default_factory=dict)
    # Valid rows of the evaluated agent with ``partial_run: true`` (SPEC §2: they make it TRIAGE).
    partial_rows: int = 0
    # Row digests as 32 raw bytes each (one buffer, no string per row): one per valid row; one per row.
    result_digests: bytearray = field(default_factory=bytearray)
    evidence_digests: bytearray = field(default_factory=bytearray)
    # Set by shrink(): the Spool holding this partial's SPOOLED columns (its batches then hold
    # COMPACT ones), and the evaluators its rows name (the spooled column's distinct values).
    spool: Any = None
    evaluators: set[str] = field(default_factory=set)
    # Also set by shrink(): suite_digests packed as 32 raw bytes each (a partition's distinct
    # ones; partitions may repeat one), instead of a set of hex strings (~150 bytes each).
    suite_packed: bytearray = field(default_factory=bytearray)

    @property
    def key(self) -> tuple[str, int]:
        """Where this partition starts: (source name, first line)."""
        for batch in self.batches:
            if batch.num_rows:
                return (self.source, batch.column(0)[0].as_py())
        lines = self.columns.get("line")
        return (self.source, lines[0] if lines else 0)

    def compact(self) -> None:
        """Move the rows held as lists into a record batch (after the batches), emptying the lists."""
        if self.columns["line"]:
            self.batches.append(_batch(self.columns))
            for values in self.columns.values():
                values.clear()

    def table(self) -> Any:
        """Every row, compacted, as one ``pyarrow.Table`` of :func:`schema` (no copy of the batches)."""
        self.compact()
        return pa.Table.from_batches(self.batches, schema=schema(shrunk=self.spool is not None))

    def extend(self, other: Partial) -> None:
        """Append ``other``, the partition that follows this one in source order."""
        if self.spool is not other.spool:  # one shrunk, one not: both into the one spool (two spools: an error)
            spool = self.spool or other.spool
            shrink(self, spool)
            shrink(other, spool)
        self.compact()
        other.compact()
        self.evaluators |= other.evaluators
        self.batches.extend(other.batches)
        self.problems.extend(other.problems)
        self.mock_judges |= other.mock_judges
        self.judges_seen |= other.judges_seen
        merge_agreement(self.agreement, other.agreement)
        self.suite_digests |= other.suite_digests
        self.suite_packed += other.suite_packed
        self.orphans |= other.orphans
        add_counts(self.agents, other.agents)
        self.partial_rows += other.partial_rows
        self.result_digests += other.result_digests
        self.evidence_digests += other.evidence_digests

    def __len__(self) -> int:
        return sum(int(batch.num_rows) for batch in self.batches) + len(self.columns["line"])


def merge_agreement(into: dict[str, dict[tuple[int, int], int]],
                    other: dict[str, dict[tuple[int, int], int]]) -> dict[str, dict[tuple[int, int], int]]:
    """Add the per-dimension unit counts ``other`` (:attr:`Partial.agreement`) to ``into``, in place
    (returned): integer sums, so partitions merge exactly in any order and grouping."""
    for dimension, units in other.items():
        add_counts(into.setdefault(dimension, {}), units)
    return into


def add_counts(into: dict[Any, int], other: dict[Any, int]) -> None:
    """Add the counts ``other`` to ``into``, key by key, in place."""
    for key, number in other.items():
        into[key] = into.get(key, 0) + number


def _printable(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")


def _mock_check(row: dict[str, Any], outcome: Outcome, ctx: Context) -> Outcome:
    """A mock judge or evaluator anywhere makes a SELF_TEST; a row it touched keeps its status as
    cast, with reason ``mock_judge`` (:func:`~scorekit.scorers.judges.with_mock`, SPEC §18), but a
    pre-scored ERROR (nothing was measured) keeps the harness's reason and detail (SPEC §15).
    Judges of any row are recorded."""
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
    ctx.mock_judges.update(mocks)
    if "status" in row and outcome.status == "ERROR":
        return outcome
    return with_mock(outcome, mocks)


class _Scrub:
    """:func:`~scorekit.scorers.pii.scrub` remembering the texts (reasons, details and outputs
    repeat) up to :attr:`LONGEST` characters, emptied at :attr:`ENTRIES` texts: a few MB at most."""

    __slots__ = ("memo",)
    LONGEST = 4096
    ENTRIES = 2048

    def __init__(self) -> None:
        self.memo: dict[str, str] = {}

    def __call__(self, text: str | None) -> str | None:
        if type(text) is not str:
            return scrub(text)
        done = self.memo.get(text)
        if done is None:
            done = scrub(text)
            if len(text) <= self.LONGEST:
                if len(self.memo) >= self.ENTRIES:
                    self.memo.clear()
                self.memo[text] = done
        return done


def _detail(row: dict[str, Any], outcome: Outcome, redact: _Scrub) -> str | None:
    """The detail the evidence keeps for a scored row: redacted (SPEC §3), except the one a
    pre-scored row gets that names only its status and evaluator (an identity, kept as given
    like ``id`` and ``case_id``; the duckdb engine writes that detail in SQL)."""
    detail = outcome.detail
    if detail is None or ("status" in row and detail == prescored_by(outcome.status, row.get("evaluator"))):
        return detail
    return redact(detail)


def _dumps(value: Any) -> str:
    """A row's JSON text, kept to read the row again: ASCII, so a string that is not valid Unicode
    (a lone surrogate, which JSON can spell) is escaped and the Arrow column can hold it."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


def score_items(
    items: Iterable[tuple[int, Any, Any, bool, bytes | None]], source: str, ctx: Context, strict: bool = True
) -> Partial:
    """Check and score ``items`` (one partition) into a :class:`Partial`. With ``ctx.agent`` set, rows naming another
    agent (or none) are counted in ``agents`` and left out, as are invalid rows
    that visibly name another agent."""
    out = Partial(source=source)
    evidence_digests = out.evidence_digests
    suite_seen: set[tuple[Any, Any, bytes | None]] = set()
    suite_digests, result_digests = out.suite_digests, out.result_digests
    (c_line, c_id, c_dim, c_case, c_trial, c_status, c_reason, c_detail, c_label, c_control, c_eval, c_output,
     c_cost, c_latency, c_run, c_def, c_json) = out.columns.values()  # in COLUMNS order
    scorers: dict[str, Any] = {}
    problems = out.problems
    agents = out.agents
    agent = ctx.agent
    redact = _Scrub()
    for line, value, error, deep, raw in items:
        if len(c_line) >= BATCH_ROWS:
            out.compact()
        row = None
        if error is None:
            row, row_problems = check_row(value, deep)
        else:
            row_problems = error if isinstance(error, list) else [("row", error)]
        ident = value if isinstance(value, dict) else {}
        orphan = False
        if row is not None:
            orphan = takes_case_definition(row)  # as given: the policy's contracts are not its own definition
            if (ctx.tool_contracts and not orphan and "tool_schemas" not in row
                    and row.get("dimension") == "tool_call"):
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
            detail = redact("; ".join(f"{name}: {message}" for name, message in row_problems[:3]))
            for values, cell in zip(out.columns.values(), (  # in COLUMNS order
                    line, row_id, dimension, case, None, "ERROR", "invalid_row", detail, "invalid", False, None, None,
                    None, None, None, None, None if raw is not None or value is None else _dumps(value)), strict=True):
                values.append(cell)
            evidence_digests += evidence_digest(row_id, dimension, case, None, "ERROR", "invalid_row", "invalid", False,
                                                strict and dimension is not None)
            continue
        if row.get("partial_run") is True:
            out.partial_rows += 1
        dimension = row["dimension"]
        measured, defined = _layout(row)
        key: bytes | None = None  # a row taking its case's definition has none of its own
        if not orphan:
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
        # SPEC §3: no detected value reaches the evidence, whatever the row's dimension. The
        # texts it carries are redacted here, once, so every writer downstream gets them so;
        # the evidence digest is over the reason as written (§12), the results hash over the
        # captured row (below), as before.
        reason = redact(outcome.reason)
        c_line.append(line)
        c_id.append(row_id)
        c_dim.append(dimension)
        c_case.append(case)
        c_trial.append(trial)
        c_status.append(outcome.status)
        c_reason.append(reason)
        c_detail.append(_detail(row, outcome, redact))
        c_label.append(label)
        c_control.append(control)
        if "judge_votes" in row and outcome.labeled and not control:
            m, p = cast_votes(row["judge_votes"], ctx.judge_panel, ctx.pass_score)
            if m >= 2:  # a unit of judge agreement (SPEC §18)
                units = out.agreement.setdefault(dimension, {})
                units[(m, p)] = units.get((m, p), 0) + 1
        evidence_digests += evidence_digest(row_id, dimension, case, trial, outcome.status, reason, label,
                                            control, strict or label == "labeled")
        c_eval.append(row.get("evaluator"))
        # The pii scorer gives the output to keep (its detections redacted); others keep it redacted.
        c_output.append(redact(row.get("agent_output")) if outcome.output is None else outcome.output)
        cost = row.get("cost_usd")
        c_cost.append(float(cost) if cost is not None else None)
        latency = row.get("latency_ms")
        if latency is None and row.get("latency_s") is not None:
            latency = row["latency_s"] * 1000.0
        c_latency.append(float(latency) if latency is not None else None)
        run = row.get("run")
        c_run.append(run if run is None or type(run) is str else str(run))
        c_def.append(key)
        if orphan:
            out.orphans.add((case, dimension))
        elif (case, dimension, key) not in suite_seen:
            suite_seen.add((case, dimension, key))
            suite_digests.add(_suite_digest(case, dimension, {name: row[name] for name in defined}))
        result_digests += results_digest(
            row_id, case, dimension, trial, {name: row[name] for name in measured}
        )
        # JSON Lines rows can be read again from the file's lines; keep others.
        c_json.append(None if raw is not None else _dumps(row))
    out.mock_judges |= ctx.mock_judges
    out.judges_seen |= ctx.judges_seen
    out.compact()
    return out


def score_lines(lines: FileLines, first: int, source: str, ctx_args: dict[str, Any], strict: bool) -> Partial:
    """Score JSON Lines ``lines`` whose first is line number ``first`` (read back
    from the file first when they are not held)."""
    return score_items(jsonl_records(lines.load(), first), source, Context(**ctx_args), strict)


def read_range(path: str, start: int, stop: int, source: str) -> bytes:
    """Bytes [start, stop) of ``path``; fewer (the file shrank) is an ``OSError`` naming ``source``."""
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read(stop - start)
    if len(data) != stop - start:
        raise OSError(f"{source}: the file changed while it was being scored")
    return data


def combine(parts: Iterable[Partial]) -> Partial:
    """One partial from ``parts`` in any order and grouping: rows in line order, sets united, counts
    and digests added up. Each part is emptied as it is merged: the peak holds one copy of the rows."""
    ordered = sorted((p for p in parts if len(p) or p.problems or p.agents or p.judges_seen or p.mock_judges),
                     key=lambda p: p.key)
    if not ordered:
        return Partial()
    out = ordered[0]
    out.compact()
    for part in ordered[1:]:
        out.extend(part)
        part.batches = []
        part.suite_packed = bytearray()
        part.result_digests = bytearray()
        part.evidence_digests = bytearray()
    _in_line_order(out)
    release_memory()
    return out


def _suite_digest(case: str, dimension: str, definition: dict[str, Any]) -> str:
    return row_digest({"case_id": case, "dimension": dimension, "definition": definition})


def undefined_pairs(orphans: set[tuple[str, str]], cases: Any, dimensions: Any, keyed: Any) -> set[tuple[str, str]]:
    """The (case_id, dimension) pairs of ``orphans`` that no keyed row defines: ``cases`` and
    ``dimensions`` are the rows' columns (pandas or Arrow), ``keyed`` a boolean array, true for the
    rows with a definition key (valid rows that do not take their case's definition)."""
    if not orphans:
        return set()
    frame = pd.DataFrame({"case_id": pd.Series(cases, dtype="str"), "dimension": pd.Series(dimensions, dtype="str")})
    near = frame[np.asarray(keyed, dtype=bool) & frame["case_id"].isin({c for c, _ in orphans}).to_numpy()]
    return orphans - set(zip(near["case_id"].tolist(), near["dimension"].tolist(), strict=True))


def orphan_digests(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """The suite digests (hex) of cases that only rows taking their case's definition measure: each
    the case with the empty definition, as a pre-scored row without definition fields gives it."""
    return sorted(_suite_digest(case, dimension, {}) for case, dimension in pairs)


def shrink(part: Partial, spool: Any) -> Partial:
    """Reduce ``part`` as it arrives (SPEC §16): its :data:`SPOOLED` columns (and lines) go into
    ``spool`` as one segment under its key, the evaluators they name kept as a set; the suite
    digests are packed; the rows keep :data:`COMPACT` columns (the :data:`ENCODED` ones encoded).
    Shrinking twice does nothing; a partial of another spool is an error."""
    if part.spool is spool:
        return part
    if part.spool is not None:  # pragma: no cover - a bug, never the user's data
        raise AssertionError("a partial shrunk into another spool")
    key, table = part.key, part.table()
    part.batches = []
    if table.num_rows:
        spool.add(key, pa.RecordBatch.from_arrays(
            [table.column(name).combine_chunks() for name in ("line", *SPOOLED)], names=["line", *SPOOLED]))
        part.evaluators |= {str(e) for e in pc.unique(table.column("evaluator")).to_pylist() if e is not None}
    columns = [pc.dictionary_encode(table.column(name)) if name in ENCODED else table.column(name)
               for name in COMPACT]
    part.spool = spool
    part.batches = pa.Table.from_arrays(columns, schema=schema(shrunk=True)).to_batches()
    part.suite_packed += bytes.fromhex("".join(part.suite_digests))
    part.suite_digests = set()
    release_memory()
    return part


def _in_line_order(part: Partial) -> None:
    """Put rows back in line order where merged partials interleave; evidence digests follow their
    rows (result digests are a multiset), problems are sorted by line (stably)."""
    part.problems.sort(key=lambda problem: problem.line)

    table = part.table()
    lines = table.column("line").to_numpy()
    if len(lines) < 2 or bool((lines[1:] >= lines[:-1]).all()):
        return
    if part.spool is not None:  # a bug: every engine shrinks contiguous ranges
        raise AssertionError("shrunk partials interleave: their spooled rows could not follow (shrink after combine)")
    order = np.argsort(lines, kind="stable")
    part.batches = table.take(order).combine_chunks().to_batches(max_chunksize=BATCH_ROWS)
    digests = np.frombuffer(bytes(part.evidence_digests), dtype=np.uint8).reshape(-1, 32)
    part.evidence_digests = bytearray(digests[order].tobytes())
