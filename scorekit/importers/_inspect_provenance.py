"""What Inspect AI records about its results after the run (SPEC §15, "Inspect provenance").

Inspect can invalidate a sample after its run (``sample.invalidation``, a ``ProvenanceData`` record,
and ``log.invalidated``), edit a score (``score.history``: the original score, then one ``ScoreEdit``
per edit carrying its ``provenance``: author, timestamp, reason), skip sample epochs with an
early-stopping manager (``results.early_stopping``: ``manager``, ``early_stops`` [{id, epoch,
reason}], ``metadata``) and store its epoch reductions (``results.scores[]`` with a ``reducer``:
``mean``, ``pass_k_2``, ``pass_at_2``…). This module reads each record, shape-checked (SPEC §20),
into what a row's ``detail`` and the run's notes say, and compares Inspect's reductions with
scorekit's own figure over the same rows; the Inspect importer (``_inspect``) calls it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import InputError
from .._stats import pass_at_k, pass_hat_k
from ._base import finite_json, kind_of, optional_record, record, record_list, text

__all__ = ["EarlyStops", "Provenance", "early_stops", "reduction_notes"]

#: The value a ``ScoreEdit`` gives a field it leaves as it was.
UNCHANGED = "UNCHANGED"
#: The most invalidations or edits a note names one by one (the rest are counted).
LISTED = 20
_NOT_RECORDED = object()  # an edit's old value where the history holds no original score
_REDUCER = re.compile(r"^(pass_k|pass_at)_(\d+)$")
_INT_MAX = (1 << 53) - 1


def _provenance(value: Any, where: str) -> str:
    """``by AUTHOR at TIME: REASON`` of a ``ProvenanceData`` record (its author is required, as in Inspect)."""
    data = record(value, where)
    author = text(data.get("author"), f"{where}.author")
    timestamp = text(data.get("timestamp"), f"{where}.timestamp", optional=True)
    reason = text(data.get("reason"), f"{where}.reason", optional=True)
    return f"by {author}" + (f" at {timestamp}" if timestamp else "") + (f": {reason}" if reason else "")


def _shown(value: Any, key: str | None = None) -> str:
    """A score value as a note shows it (a dict-valued score's ``key``), at most 60 characters."""
    if value is _NOT_RECORDED:
        return "(no score before: added by this edit)"
    if key is not None and isinstance(value, Mapping):
        value = value.get(key)
    return json.dumps(finite_json(value), ensure_ascii=False)[:60]


@dataclass(frozen=True)
class _Edit:
    old: Any
    new: Any
    by: str


def _edits(score: Mapping[str, Any], where: str) -> list[_Edit]:
    """The edits of a score's ``history`` (the original score first, without provenance), old → new value.

    A history whose first entry is itself an edit is a score the edit added (Inspect's ``edit_score`` on a
    score name the sample did not have writes ``history=[edit]``): its old value is :data:`_NOT_RECORDED`.
    """
    history = record_list(score.get("history"), f"{where}.history")
    current: Any = _NOT_RECORDED
    out: list[_Edit] = []
    for i, entry in enumerate(history):
        at = f"{where}.history[{i}]"
        if "value" not in record(entry, at):
            raise InputError(f"{at}: no value (Inspect writes each score edit's value, {UNCHANGED} where kept)")
        new = current if entry["value"] == UNCHANGED else entry["value"]
        if entry.get("provenance") is not None:
            out.append(_Edit(old=current, new=new, by=_provenance(entry["provenance"], f"{at}.provenance")))
        current = new
    return out


@dataclass
class Provenance:
    """The invalidations and score edits of one log, gathered as its rows are built, and their notes."""

    invalidated: int = 0  # sample epochs
    edited: int = 0  # score edits
    named: dict[str, list[str]] = field(default_factory=lambda: {"invalidated": [], "edited": []})  # the first few
    differing: int = 0  # edited scores whose value is not their history's last value
    added: dict[str, list[str]] = field(default_factory=dict)  # scorer → sample epochs where an edit added its score
    original: set[str] = field(default_factory=set)  # scorers with at least one score from the run itself

    def invalidation(self, sample: Mapping[str, Any], where: str, label: str) -> str | None:
        """The ``detail`` of an invalidated sample's rows (who and why), or None when it is valid."""
        if sample.get("invalidation") is None:
            return None
        text = _provenance(sample["invalidation"], where)
        self.invalidated += 1
        if self._named("invalidated"):
            self.named["invalidated"].append(f"{label} {text}")
        return f"invalidated in Inspect after the run {text}"

    def edits(self, score: Any, where: str, label: str, scorer: str) -> list[_Edit]:
        """A score's edits (none for a score without history), each stated in the run's notes.

        ``label`` names the sample epoch; ``scorer`` is the score's name: a score an edit added is
        remembered per scorer (see :meth:`added_only`).
        """
        if not isinstance(score, Mapping):
            return []
        if score.get("history") is None:
            self.original.add(scorer)
            return []
        found = _edits(score, where)
        if found and found[0].old is _NOT_RECORDED:
            self.added.setdefault(scorer, []).append(label)
        else:
            self.original.add(scorer)
        label = f"{label} {scorer}"
        for edit in found:
            self.edited += 1
            if self._named("edited"):
                self.named["edited"].append(f"{label}: {_shown(edit.old)} -> {_shown(edit.new)} {edit.by}")
        if found and "value" in score and found[-1].new != score["value"]:
            self.differing += 1
        return found

    def added_only(self) -> dict[str, list[str]]:
        """The scorers whose every score was added after the run by an edit, each with those sample epochs."""
        return {name: labels for name, labels in self.added.items() if name not in self.original}

    def missing_detail(self, scorer: str) -> str:
        """The ``detail`` of a valid sample epoch without a score from a scorer only edits added."""
        labels = self.added[scorer]
        return (f"no {scorer} score: {scorer} was added after the run by a score edit on {len(labels)} sample "
                f"epoch(s) only ({_listed(labels[:3], len(labels))})")

    def _named(self, kind: str) -> bool:
        """Whether one more of a kind is named in its note (the first :data:`LISTED`; the rest are counted)."""
        return len(self.named[kind]) < LISTED

    @staticmethod
    def detail(edits: list[_Edit], key: str | None = None) -> str | None:
        """A row's ``detail`` for its score's edits (a dict-valued score's ``key``): each old → new, by whom, why."""
        if not edits:
            return None
        return "score edited after the run: " + "; ".join(
            f"{_shown(e.old, key)} -> {_shown(e.new, key)} {e.by}" for e in edits)

    def notes(self, log_invalidated: Any, where: str) -> list[str]:
        """The run's notes on its invalidations and edits; ``log_invalidated`` is the log's flag (at ``where``)."""
        if log_invalidated is not None and not isinstance(log_invalidated, bool):
            raise InputError(f"{where}: expected true or false, found {kind_of(log_invalidated)}")
        out = []
        if self.invalidated:
            out.append(f"{self.invalidated} sample epoch(s) invalidated in Inspect (log invalidated: "
                       f"{json.dumps(log_invalidated)}): ERROR invalidated on each of the task's scorers, reported "
                       f"and never counted as PASS or FAIL: {_listed(self.named['invalidated'], self.invalidated)}")
        elif log_invalidated is True:
            out.append("the log says invalidated: true but no sample carries an invalidation: every sample is read")
        if self.edited:
            out.append(f"{self.edited} score edit(s) after the run: the final value is used, each edit is in "
                       f"its row's detail: {_listed(self.named['edited'], self.edited)}")
        for name, labels in self.added.items():
            if name in self.original:
                out.append(f"{len(labels)} {name} score(s) added after the run by a score edit, where the sample "
                           f"had none: {_listed(labels[:LISTED], len(labels))}")
            else:
                out.append(f"scorer {name} exists only through scores added after the run by a score edit "
                           f"({len(labels)} sample epoch(s): {_listed(labels[:LISTED], len(labels))}): it is a "
                           f"dimension of its own, and every other valid sample epoch is ERROR unscored on it (never "
                           f"PASS or FAIL), so it cannot pass a gate while it covers only some sample epochs; "
                           f"Inspect's metrics for it cover only the added scores")
        if self.differing:
            out.append(f"{self.differing} edited score(s) whose value is not their history's last value: the score's "
                       "value (what Inspect's metrics use) is used")
        return out


def _listed(items: list[str], total: int) -> str:
    return "; ".join(items) + (f"; and {total - len(items)} more" if total > len(items) else "")


# --------------------------------------------------------------------------- early stopping
@dataclass(frozen=True)
class EarlyStops:
    """An early-stopping summary: its manager and each stopped (sample id, epoch) with why."""

    manager: str
    stops: dict[tuple[Any, int], str]  # (sample id, epoch) → detail
    keys: list[str]  # the summary's metadata keys, for the note

    def note(self, materialised: bool) -> str:
        how = ("ERROR early_stopped rows (reported, never counted as PASS or FAIL)" if materialised else
               "counted in sample_epochs_planned")
        return (f"early stopping by {self.manager}: {len(self.stops)} sample epoch(s) stopped early, never run: "
                f"{how}; the run is partial (TRIAGE)")


def early_stops(results: Mapping[str, Any], name: str) -> EarlyStops | None:
    """``results.early_stopping`` (None where the log has none), each stop's id and epoch shape-checked.

    Current Inspect lists ``early_stops`` [{id, epoch, reason, metadata}]; earlier releases
    ``stopped_samples`` [{id, epoch, early_stop: {reason, metadata}}]: both are read.
    """
    where = f"{name}: results.early_stopping"
    if results.get("early_stopping") is None:
        return None
    summary = record(results["early_stopping"], where)
    manager = str(text(summary.get("manager"), f"{where}.manager"))
    key = "stopped_samples" if "stopped_samples" in summary and "early_stops" not in summary else "early_stops"
    stops: dict[tuple[Any, int], str] = {}
    for i, entry in enumerate(record_list(summary.get(key), f"{where}.{key}", missing_ok=False)):
        at = f"{where}.{key}[{i}]"
        sid, epoch = record(entry, at).get("id"), entry.get("epoch")
        if isinstance(sid, bool) or not isinstance(sid, (int, str)):
            raise InputError(f"{at}.id: expected a string or a whole number (a sample id), found {kind_of(sid)}")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= _INT_MAX:
            raise InputError(f"{at}.epoch: expected a whole number >= 1 (Inspect counts epochs from 1), found "
                             f"{json.dumps(epoch)[:40]}")
        stop = entry if key == "early_stops" else optional_record(entry.get("early_stop"), f"{at}.early_stop")
        reason = text(stop.get("reason"), f"{at}.reason", optional=True)
        stops[(sid, epoch)] = f"stopped early by {manager}" + (f": {reason}" if reason else "")
    metadata = optional_record(summary.get("metadata"), f"{where}.metadata")
    return EarlyStops(manager=manager, stops=stops, keys=sorted(map(str, metadata)))


# --------------------------------------------------------------------------- stored reductions
def _own(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[dict[str, list[int]], int]]:
    """Per dimension: each case's [passes, PASS+FAIL trials], and the rows with partial credit."""
    out: dict[str, tuple[dict[str, list[int]], int]] = {}
    for row in rows:
        cases, partial = out.setdefault(row["dimension"], ({}, 0))
        if "score" in row:
            out[row["dimension"]] = (cases, partial + 1)
            continue
        counts = cases.setdefault(row["case_id"], [0, 0])
        if row.get("status") in ("PASS", "FAIL"):
            counts[0] += row["status"] == "PASS"
            counts[1] += 1
    return out


def _figure(cases: dict[str, list[int]], estimator: str, k: int) -> float | None:
    """The mean over the cases with at least ``k`` PASS/FAIL trials of pass^k (or pass@k); None without one."""
    function = pass_hat_k if estimator == "pass_k" else pass_at_k
    reached = [(c, n) for c, n in cases.values() if n >= k]
    if not reached:
        return None
    values = function([c for c, _ in reached], [n for _, n in reached], k)  # one call over every case
    return float(sum(values.tolist()) / len(reached))


def reduction_notes(scores: list[Any], rows: list[dict[str, Any]], *, invalidated: int) -> list[str]:
    """One note per stored reduction: Inspect's figure beside scorekit's own over the valid rows.

    ``mean`` compares with pass^1, ``pass_k_<k>`` with pass^k, ``pass_at_<k>`` with pass@k (the
    mean over cases with k PASS/FAIL trials, as Inspect's reducers leave out samples with fewer
    epochs); other reducers have no scorekit counterpart and are only carried. ``scores`` are
    ``results.scores`` (their shape checked by the importer).
    """
    own = _own(rows)
    notes: list[str] = []
    for score in scores:
        reducer = score.get("reducer")
        if not isinstance(reducer, str):
            continue
        name, scorer = score["name"], score.get("scorer")
        dimension = name if scorer in (None, name) else f"{scorer}.{name}"  # a dict-valued scorer's key
        metrics = score.get("metrics") if isinstance(score.get("metrics"), Mapping) else {}
        metric = next((m for m in ("accuracy", "mean") if isinstance(metrics.get(m), Mapping)), None)
        value = metrics[metric].get("value") if metric else None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        theirs = f"Inspect {dimension} {reducer} {metric} {value:.4g}"
        match = _REDUCER.match(reducer)
        if reducer == "mean":
            estimator, k, label = "pass_k", 1, "pass^1"
        elif match:
            estimator, k = match.group(1), int(match.group(2))
            label = f"pass^{k}" if estimator == "pass_k" else f"pass@{k}"
        else:
            notes.append(f"{theirs}: a reducer without a scorekit counterpart, carried in source metrics")
            continue
        cases, partial = own.get(dimension, ({}, 0))
        figure = _figure(cases, estimator, k) if k >= 1 else None
        mine = f"scorekit {label} over valid sample epochs " + ("(none)" if figure is None else f"{figure:.4g}")
        why = []
        if invalidated:
            why.append(f"Inspect counts the {invalidated} invalidated sample epoch(s)")
        if partial:
            why.append("Inspect averages partial credit, scorekit applies the policy's partial rule")
        if figure is not None and abs(figure - value) <= 1e-9:
            notes.append(f"{theirs}; {mine}: equal")
        elif figure is None and math.isnan(value):
            notes.append(f"{theirs}; {mine}: neither has a value")
        else:
            notes.append(f"{theirs}; {mine}" + (f" ({'; '.join(why)})" if why else ""))
    return notes
