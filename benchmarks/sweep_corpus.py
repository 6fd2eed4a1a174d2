"""Every CLI command on every file of the corpus: exit 0/1/2 and a message, never a traceback (issue 25).

The acceptance rule swept here: each invocation of a ``scorekit`` command that reads a file ends
with exit code 0, 1 or 2; a non-zero exit says why in at least one non-empty line; neither
stream holds ``Traceback (most recent call last)``; it finishes within 60 s; it stays under 2 GiB.

The corpus (copied into a scratch workspace first: no command touches the checkout):

* the committed inputs: ``tests/data``, ``tests/release/data``, ``scorekit/examples``, ``reports``;
* other tools' real result files given with ``--extra-corpus DIR`` (or ``SCOREKIT_SWEEP_CORPUS``,
  folders separated by ``os.pathsep``), e.g. the shared ``imports`` and ``imports-2`` folders;
  each of their folders is also a target (``import DIR``, ``run --from auto --results DIR``);
* what ``scorekit run`` writes (scorecard.json signed, .md, .html, evidence.parquet, JUnit XML,
  a history database holding two records), made by the sweep's first invocations;
* a hostile set the sweep writes: empty and one-byte files, deeply nested JSON and YAML (999 and
  100,000 levels), NaN in rows, a scorecard and an Inspect log, ``.eval`` zips with a member that is
  not a JSON object, BOM-prefixed and non-UTF-8 files of each kind, names with glob characters
  (``res[1].jsonl`` beside ``res1.jsonl``), a folder of mixed files; and issue 25's small files:
  Inspect logs with ``samples``, ``eval.scorers`` or ``results.scores`` of the wrong shape or
  ``epochs: 10**8``, τ² ``num_trials: 10**8``, scorecards with ``passes > n`` or ``n = 10**30``,
  history databases with a record edited in place;
* derived copies of every input file above: its first half (truncated) and one with the middle
  byte's low bit flipped; and of each multi-file run folder, one with its largest file truncated.

Each file has a kind (rows, foreign results, scorecard JSON, history database, SCORECARD.md,
policy/thresholds YAML, folder, other). The full matrix runs every command on every corpus,
generated and hostile file (and the hostile folders), and each corpus folder and derived copy
through the commands of its kind; ``--matrix kind`` keeps every command for the first corpus file
of each (folder, suffix, kind) group and gives the others their kind's commands (about 30% fewer
invocations: a command refuses a file of another kind alike);
``--engine dask`` runs on a subset (a local cluster starts per invocation, ~10 s) and so does
``render`` (a notebook kernel per invocation).

How each invocation is bounded and measured:

* ``--mode fork`` (default): a server process per job imports ``scorekit.cli`` once (what every
  ``python -m scorekit`` does before its command runs) and forks one child per invocation, which
  runs ``scorekit`` as ``python -m scorekit`` does (``runpy``, an uncaught exception printed as
  the interpreter prints it, exit 1). It saves the ~1 s interpreter and pandas start-up per
  invocation. ``--mode spawn``: a fresh ``python -m scorekit`` per invocation. Failures found in
  fork mode are re-run in spawn mode (``--confirm``, on by default) and reported only if they
  recur there.
* memory: ``RLIMIT_AS`` at 2 GiB in the child for every command except the ``duckdb`` and
  ``dask`` engines and ``render``, which reserve more address space than they use (``run --engine
  duckdb`` on three rows peaks at 2.5 GB virtual, 0.2 GB resident, and hangs in pyarrow's reader
  under a 2 GiB address-space limit; a dask local cluster cannot start its threads under it);
  for those the resident memory of the child's whole session (its workers and kernels too) is
  polled from ``/proc`` and the session killed above 2 GiB. The peak reported is the larger of
  the child's ``ru_maxrss`` and the polled session total.
* time: the session is killed at 60 s.

Usage::

    PYTHONPATH=. python benchmarks/sweep_corpus.py [--jobs 2] [--matrix full|subset]
        [--extra-corpus /work/shared/data/imports --extra-corpus /work/shared/data/imports-2]
        [--json out.json] [--keep-workspace DIR]

Prints the failures (command, file, exit, seconds, peak MB, first stderr line, or the exception
line of a traceback), then the failures grouped by cause with one example command each, and the
counts; exits 1 if any invocation failed. ``tests/test_corpus_sweep.py`` runs the subset in the
default suite and the full matrix under the ``slow`` marker.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
TIME_LIMIT_S = 60.0
MEMORY_LIMIT = 2 << 30  # bytes: 2 GiB
TRACEBACK = "Traceback (most recent call last)"
#: The committed inputs, relative to the repository root.
REPO_CORPUS = ("tests/data", "tests/release/data", "scorekit/examples", "reports")
KINDS = ("rows", "foreign", "scorecard", "history", "markdown", "policy", "folder", "other")
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------- targets
@dataclass(frozen=True)
class Target:
    """One file or folder the commands are given: ``path`` in the workspace, ``label`` as reported."""

    path: Path
    label: str
    kind: str
    origin: str  # corpus | generated | hostile | truncated | flipped


@dataclass(frozen=True)
class Refs:
    """Known-good inputs the commands pair a target with (a policy needs rows, a baseline a candidate)."""

    rows: Path  # pre-scored and scored rows, valid
    card_md: Path  # a valid SCORECARD.md
    key: Path  # an Ed25519 private key
    history_labels: tuple[str, str]


def _sniff_json_kind(data: bytes) -> str:
    """``scorecard`` for a scorekit scorecard.json, ``foreign`` for another JSON document or lines."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{") and b'"schema_version"' in data[:4096] and b'"dimensions"' in data:
        return "scorecard"
    if head.startswith(b"{") and b'"payload"' in data[:4096] and b'"signature"' in data[:4096]:
        return "scorecard"  # a signature envelope: verify/attest read it beside its card
    return "foreign"


def kind_of(path: Path) -> str:
    """The kind of input ``path`` holds, by suffix and, for JSON, by its first bytes."""
    if path.is_dir():
        return "folder"
    name = path.name.lower()
    suffix = path.suffix.lower()
    try:
        data = path.read_bytes()[:65536]
    except OSError:
        return "other"
    if suffix in (".sqlite", ".db") or data.startswith(b"SQLite format 3\x00"):
        return "history"
    if suffix == ".md":
        return "markdown"
    if suffix in (".yml", ".yaml"):
        return "policy"
    if suffix in (".jsonl", ".csv", ".parquet"):
        return "foreign" if "_samples" in name or name.startswith(("samples_", "dataset", "predictions")) else "rows"
    if suffix == ".eval":
        return "foreign"
    if suffix == ".json":
        return _sniff_json_kind(data)
    return "other"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy_corpus(sources: Sequence[tuple[Path, str]], into: Path) -> tuple[list[Target], list[Target]]:
    """Copy each source folder into ``into``; the files (first copy of each content) and the folders."""
    files: list[Target] = []
    folders: list[Target] = []
    seen: set[tuple[str, str]] = set()
    for source, label in sources:
        dest = into / label
        shutil.copytree(source, dest, symlinks=False, dirs_exist_ok=True)
        folders.append(Target(dest, label + "/", "folder", "corpus"))
        for path in sorted(dest.rglob("*")):
            rel = f"{label}/{path.relative_to(dest)}"
            if path.is_dir():
                folders.append(Target(path, rel + "/", "folder", "corpus"))
                continue
            key = (_digest(path), path.suffix)
            if key in seen:  # a copy of a file already in the corpus (tests/data/imports holds several)
                continue
            seen.add(key)
            files.append(Target(path, rel, kind_of(path), "corpus"))
    return files, folders


# --------------------------------------------------------------------------- hostile inputs
def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _row(**extra: object) -> dict[str, object]:
    return {"id": "h1", "dimension": "helpfulness", "status": "PASS", "evaluator": "harness", **extra}


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _eval_with_member(source: Path, dest: Path, replace: Callable[[str], bytes | None]) -> Path:
    """A copy of the ``.eval`` zip ``source`` whose members ``replace`` rewrites (None: kept)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            new = replace(info.filename)
            zout.writestr(info.filename, new if new is not None else zin.read(info.filename))
    return dest


def _first_sample(names: Iterable[str]) -> str:
    return next(n for n in sorted(names) if n.startswith("samples/") and n.endswith(".json"))


def _inspect_shapes(log: Path, into: Path) -> list[tuple[Path, str]]:
    """An Inspect JSON log with a field of the wrong shape, or a declared count the file does not hold."""
    made = []
    edits: dict[str, Callable[[dict[str, object]], None]] = {
        "samples_5": lambda d: d.update(samples=5),
        "samples_strings": lambda d: d.update(samples=["sample", *d["samples"]]),  # type: ignore[list-item]
        "scorers_5": lambda d: d["eval"].update(scorers=5),  # type: ignore[attr-defined]
        "results_scores_5": lambda d: d["results"].update(scores=5),  # type: ignore[attr-defined]
        "epochs_1e8": lambda d: (d["eval"]["config"].update(epochs=10**8),  # type: ignore[index]
                                 d.update(samples=d["samples"][:-1])),  # type: ignore[index]
    }
    for name, edit in edits.items():
        data = json.loads(log.read_text(encoding="utf-8"))
        edit(data)
        path = _write(into / f"inspect_{name}.json", json.dumps(data))
        made.append((path, path.name))
    return made


def _edited_histories(history: Path, into: Path) -> list[tuple[Path, str]]:
    """Copies of a history database with one record edited in place (counts that disagree, a bad verdict)."""
    import sqlite3

    made = []
    edits = {
        "passes_over_n": "UPDATE dimensions SET passes = n + 5 WHERE rowid = (SELECT MIN(rowid) FROM dimensions)",
        "n_huge": "UPDATE dimensions SET n = 9223372036854775807 WHERE rowid = (SELECT MIN(rowid) FROM dimensions)",
        "text_count": "UPDATE dimensions SET fails = 'many' WHERE rowid = (SELECT MIN(rowid) FROM dimensions)",
        "decision": "UPDATE records SET decision = 'SHIP IT', confidence = 'high'",
    }
    for name, sql in edits.items():
        path = into / f"history_{name}.sqlite"
        shutil.copyfile(history, path)
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute(sql)
        made.append((path, path.name))
    return made


def write_hostile(into: Path, corpus: Sequence[Target], generated: dict[str, Path]) -> list[Target]:
    """The hostile set: files no tool writes but a user or an attacker can hand to scorekit."""
    made: list[tuple[Path, str]] = []

    def add(name: str, data: bytes | str) -> None:
        made.append((_write(into / name, data), name))

    for suffix in (".jsonl", ".json", ".csv", ".parquet", ".eval", ".md", ".sqlite", ".yml"):
        add(f"empty{suffix}", b"")
    add("one_byte.jsonl", b"{")
    add("one_byte.json", b"[")
    add("one_byte.md", b"-")
    add("one_byte.sqlite", b"S")
    for depth in (999, 100_000):
        add(f"deep{depth}.jsonl", json.dumps(_row()).replace('"harness"', f'"harness", "input": {_nested(depth)}')
            + "\n")
        add(f"deep{depth}.json", _nested(depth))
        add(f"deep{depth}_policy.yml", f"purpose: release\ngate:\n  thresholds: {_nested(depth)}\n")
        add(f"deep{depth}_SCORECARD.md", f"---\nschema_version: 1\nagent: {_nested(depth)}\n---\n")
        card = json.loads(generated["scorecard"].read_text(encoding="utf-8"))
        add(f"deep{depth}_scorecard.json", json.dumps(card)[:-1] + f', "deep": {_nested(depth)}}}')
    add("nan.jsonl", json.dumps(_row(score=0.5)).replace("0.5", "NaN") + "\n")
    card_text = generated["scorecard"].read_text(encoding="utf-8")
    add("nan_scorecard.json", re.sub(r'"n": \d+', '"n": NaN', card_text, count=1))
    add("inf_scorecard.json", re.sub(r'"passes": \d+', '"passes": Infinity', card_text, count=1))
    by_name = {t.path.name: t.path for t in corpus}
    security = by_name.get("2025-05-12T20-28-26-04-00_security-guide.json")
    if security is not None:
        add("nan_inspect_log.json", re.sub(r'"value": (\d+(\.\d+)?|"[CIP]")', '"value": NaN',
                                           security.read_text(encoding="utf-8"), count=3))
        made.extend(_inspect_shapes(security, into))
    tau2 = by_name.get("tau2-airline-mini.json")
    if tau2 is not None:
        data = json.loads(tau2.read_text(encoding="utf-8"))
        data["info"]["num_trials"] = 10**8
        add("tau2_num_trials_1e8.json", json.dumps(data))
    # Schema-valid scorecards whose counts disagree with themselves (issue 25, 8).
    for name, field_, value in (("passes_over_n", "passes", None), ("n_1e30", "n", 10**30)):
        edited = json.loads(card_text)
        first = edited["dimensions"][0]
        first[field_] = first["n"] + 5 if value is None else value
        add(f"{name}_scorecard.json", json.dumps(edited, indent=2))
    made.extend(_edited_histories(generated["history"], into))
    streaming = by_name.get("log_streaming.eval")
    if streaming is not None:
        with zipfile.ZipFile(streaming) as z:
            sample = _first_sample(z.namelist())
        for name, member in (("array", b"[1, 2]"), ("string", b'"sample"'), ("number", b"5"), ("null", b"null")):
            path = into / f"sample_{name}.eval"
            _eval_with_member(streaming, path, lambda n, m=member: m if n == sample else None)
            made.append((path, path.name))
        path = into / "header_array.eval"
        _eval_with_member(streaming, path, lambda n: b"[1, 2]" if n == "header.json" else None)
        made.append((path, path.name))
        path = into / "deep_sample.eval"
        _eval_with_member(streaming, path, lambda n: _nested(100_000).encode() if n == sample else None)
        made.append((path, path.name))
    bom = b"\xef\xbb\xbf"
    rows_line = json.dumps(_row()) + "\n"
    add("bom.jsonl", bom + rows_line.encode())
    add("bom_scorecard.json", bom + card_text.encode())
    add("bom_SCORECARD.md", bom + generated["card_md"].read_bytes())
    add("bom_policy.yml", bom + b"purpose: exploratory\n")
    for name in ("sample-export.json", "2025-05-12T20-28-26-04-00_security-guide.json", "gpt-4o-airline-10tasks.json"):
        if name in by_name:
            add(f"bom_{name}", bom + by_name[name].read_bytes())
    add("latin1.jsonl", json.dumps(_row(agent_output="café"), ensure_ascii=False).encode("latin-1") + b"\n")
    add("latin1_scorecard.json", card_text.replace('"agent": {', '"agent": {"note": "café", ', 1).encode("latin-1",
                                                                                                       "replace"))
    add("latin1_SCORECARD.md", generated["card_md"].read_text(encoding="utf-8").replace("name:", "name: café",
                                                                                        1).encode("latin-1", "replace"))
    add("latin1_policy.yml", "purpose: exploratory\n# café\n".encode("latin-1"))
    add("utf16.jsonl", rows_line.encode("utf-16"))
    if "sample-export.json" in by_name:
        add("latin1_sample-export.json", by_name["sample-export.json"].read_text(encoding="utf-8").encode("latin-1",
                                                                                                        "replace"))
    fail = json.dumps(_row(status="FAIL")) + "\n"
    for name in ("res[1].jsonl", "res*.jsonl", "res?.jsonl", "res{1,2}.jsonl"):
        add(f"glob/{name}", fail)
    add("glob/res1.jsonl", rows_line)
    # A folder of mixed files: rows, another tool's log, a scorecard, a history, a card, text, a subfolder.
    mixed = into / "mixed"
    mixed.mkdir(parents=True, exist_ok=True)
    _write(mixed / "rows.jsonl", rows_line)
    _write(mixed / "notes.txt", "not results\n")
    _write(mixed / "broken.json", "{")
    shutil.copy(generated["scorecard"], mixed / "scorecard.json")
    shutil.copy(generated["history"], mixed / "history.sqlite")
    shutil.copy(generated["card_md"], mixed / "SCORECARD.md")
    if streaming is not None:
        shutil.copy(streaming, mixed / streaming.name)
    if "sample-export.json" in by_name:
        _write(mixed / "sub" / "sample-export.json", by_name["sample-export.json"].read_bytes())
    targets = [Target(p, f"hostile/{name}", kind_of(p), "hostile") for p, name in made]
    targets.append(Target(mixed, "hostile/mixed/", "folder", "hostile"))
    targets.append(Target(into / "glob", "hostile/glob/", "folder", "hostile"))
    return targets


# --------------------------------------------------------------------------- derived copies
def derive(targets: Sequence[Target], into: Path) -> list[Target]:
    """Each input file's first half, and a copy with its middle byte's low bit flipped (same names).

    Files named alike up to the first dot in one folder (``clean.default.json``, ``clean.release.json``:
    one input's scorecards under three policies) are one family: only the first is derived.
    """
    out: list[Target] = []
    families: set[tuple[Path, str, str]] = set()
    for target in targets:
        if target.kind in ("other", "folder") or target.origin not in ("corpus", "generated"):
            continue
        family = (target.path.parent, target.path.name.split(".")[0], target.kind)
        if family in families:
            continue
        families.add(family)
        data = target.path.read_bytes()
        if not data:
            continue
        middle = len(data) // 2
        flipped = data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1:]
        for origin, content in (("truncated", data[:middle]), ("flipped", flipped)):
            path = _write(into / origin / target.label, content)
            out.append(Target(path, f"{origin}:{target.label}", target.kind, origin))
    return out


def derive_folders(folders: Sequence[Target], into: Path) -> list[Target]:
    """Each multi-file run folder (a HELM run, τ²'s results + simulations, ...) with its largest file cut."""
    out: list[Target] = []
    for folder in folders:
        files = [p for p in folder.path.iterdir() if p.is_file()]
        if len(files) < 2:
            continue
        largest = max(files, key=lambda p: p.stat().st_size)
        dest = into / "truncated-folder" / folder.label
        shutil.copytree(folder.path, dest, dirs_exist_ok=True)
        data = largest.read_bytes()
        (dest / largest.name).write_bytes(data[: len(data) // 2])
        out.append(Target(dest, f"truncated:{folder.label}", "folder", "truncated"))
    return out


# --------------------------------------------------------------------------- commands
@dataclass(frozen=True)
class Command:
    """A command line with ``{t}`` for the target, ``{out}`` for a fresh folder; ``engine``: no RLIMIT_AS."""

    name: str
    kinds: tuple[str, ...]
    argv: tuple[str, ...]
    engine: bool = False


ROWS_LIKE = ("rows", "foreign", "folder")
COMMANDS = (
    Command("run", ROWS_LIKE, ("run", "--results", "{t}", "--out-dir", "{out}")),
    Command("run --from auto", ROWS_LIKE, ("run", "--from", "auto", "--results", "{t}", "--out-dir", "{out}")),
    Command("run --engine duckdb", ROWS_LIKE, ("run", "--results", "{t}", "--engine", "duckdb", "--out-dir", "{out}"),
            engine=True),
    Command("validate", ROWS_LIKE, ("validate", "{t}")),
    Command("validate --strict", ROWS_LIKE, ("validate", "{t}", "--strict")),
    Command("import --from auto", ROWS_LIKE, ("import", "--from", "auto", "{t}", "--out-dir", "{out}")),
    Command("report", ("scorecard",), ("report", "{t}", "--out-dir", "{out}")),
    Command("compare F F", ("scorecard",), ("compare", "{t}", "{t}", "--out-dir", "{out}")),
    Command("verify", ("scorecard",), ("verify", "--scorecard", "{t}")),
    Command("attest", ("scorecard",), ("attest", "--scorecard", "{t}", "--out-dir", "{out}")),
    Command("sign", ("scorecard",), ("sign", "--scorecard", "{t}", "--key", "{key}", "--out", "{out}/s.sig.json")),
    Command("history", ("history",), ("history", "{t}")),
    Command("history --plot", ("history",), ("history", "{t}", "--plot", "{out}/trend.png")),
    Command("compare --history", ("history",), ("compare", "{label_a}", "{label_b}", "--history", "{t}",
                                                "--out-dir", "{out}")),
    Command("gate", ("markdown",), ("gate", "--scorecard", "{t}")),
    Command("gate --baseline-file", ("markdown",), ("gate", "--scorecard", "{card_md}", "--baseline-file", "{t}")),
    Command("carry-forward", ("markdown",), ("carry-forward", "--scorecard", "{t}", "--version", "{patch}",
                                             "--out", "{out}/SCORECARD.md")),
    Command("refresh-check", ("markdown",), ("refresh-check", "--scorecard", "{t}", "--limit", "1",
                                             "--experiments", "1")),
    Command("release-lint", ("markdown", "folder"), ("release-lint", "--doc-root", "{doc_root}")),
    Command("validate --policy", ("policy",), ("validate", "{rows}", "--policy", "{t}")),
    Command("run --policy", ("policy",), ("run", "--results", "{rows}", "--policy", "{t}", "--out-dir", "{out}")),
    Command("gate --thresholds", ("policy",), ("gate", "--scorecard", "{card_md}", "--thresholds", "{t}")),
)
DASK = Command("run --engine dask", ROWS_LIKE, ("run", "--results", "{t}", "--engine", "dask", "--out-dir", "{out}"),
               engine=True)
RENDER = Command("render", ROWS_LIKE, ("render", "--results", "{t}", "--out-dir", "{out}", "--timeout", "50"),
                 engine=True)


@dataclass(frozen=True)
class Invocation:
    command: str
    argv: tuple[str, ...]
    target: Target
    engine: bool
    shown: str  # the command line as reported (workspace paths replaced by labels)
    cwd: Path  # the invocation's own folder (its --out-dir when it has one)
    module: str = "scorekit"  # what runs, as `python -m MODULE` (the sweep's own tests run others)


def _patch_of(path: Path) -> str:
    """The next patch version after the card's ``version: X.Y.Z`` (any version when there is none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    found = re.search(r"^\s*version:\s*['\"]?(\d+)\.(\d+)\.(\d+)", text, re.MULTILINE)
    return f"{found[1]}.{found[2]}.{int(found[3]) + 1}" if found else "1.0.1"


class Matrix:
    """Builds the invocations, each with a fresh output folder under ``work``."""

    def __init__(self, work: Path, refs: Refs, labels: dict[Path, str]) -> None:
        self.work = work
        self.refs = refs
        self.labels = labels  # workspace path -> as shown
        self.count = 0

    def _doc_root(self, target: Target) -> Path:
        if target.kind == "folder":
            return target.path
        root = self.work / "doc-roots" / str(self.count)
        root.mkdir(parents=True)
        shutil.copyfile(target.path, root / "SCORECARD.md")
        (root / "README.md").write_text("# agent\n\n[scorecard](./SCORECARD.md)\n", encoding="utf-8")
        return root

    def invocation(self, command: Command, target: Target) -> Invocation:
        self.count += 1
        out = self.work / "out" / str(self.count)
        out.mkdir(parents=True)
        values = {
            "t": str(target.path), "out": str(out), "key": str(self.refs.key), "rows": str(self.refs.rows),
            "card_md": str(self.refs.card_md), "label_a": self.refs.history_labels[0],
            "label_b": self.refs.history_labels[1],
        }
        if "{patch}" in command.argv:
            values["patch"] = _patch_of(target.path)
        if "{doc_root}" in command.argv:
            values["doc_root"] = str(self._doc_root(target))
        argv = tuple(a.format(**values) if "{" in a and a != "{t}" else (str(target.path) if a == "{t}" else a)
                     for a in command.argv)
        shown = " ".join(self._show(a, target, out) for a in argv)
        return Invocation(command.name, argv, target, command.engine, f"scorekit {shown}", out)

    def _show(self, arg: str, target: Target, out: Path) -> str:
        if arg == str(target.path):
            return target.label
        if arg.startswith(str(out)):
            return "<out>" + arg[len(str(out)):]
        for path, label in self.labels.items():
            if arg == str(path):
                return label
        return arg if arg and " " not in arg else repr(arg)


def full_matrix(matrix: Matrix, targets: Sequence[Target], dask_subset: Sequence[Target],
                render_subset: Sequence[Target], every: str = "file") -> list[Invocation]:
    """Every command on every corpus, generated and hostile file and on the hostile folders; the corpus folders
    and the derived copies through their kind's commands.

    ``every="group"``: the corpus files other than the first of each (folder, suffix, kind) group get
    only their kind's commands too (a command that refuses a file of another kind refuses it alike).
    """
    out: list[Invocation] = []
    groups: set[tuple[Path, str, str]] = set()
    for target in targets:
        everything = target.origin == "hostile" or target.origin in ("corpus", "generated") and target.kind != "folder"
        if everything and every == "group" and target.origin == "corpus":
            group = (target.path.parent, target.path.suffix, target.kind)
            everything = group not in groups
            groups.add(group)
        for command in COMMANDS:
            if everything or target.kind in command.kinds:
                out.append(matrix.invocation(command, target))
    out += [matrix.invocation(DASK, t) for t in dask_subset]
    out += [matrix.invocation(RENDER, t) for t in render_subset]
    return out


# --------------------------------------------------------------------------- running
@dataclass
class Outcome:
    command: str
    shown: str
    target: str
    kind: str
    origin: str
    code: int
    seconds: float
    peak_mb: float
    killed: str | None
    stdout: str
    stderr: str
    problems: list[str] = field(default_factory=list)
    confirmed: bool | None = None  # re-run in spawn mode: failed again (None: not re-run)

    @property
    def cause(self) -> str:
        return cause_of(self)


def _session_rss(sid: int) -> int:
    """Resident bytes of every process in session ``sid`` (the child, its workers and kernels)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 21 and int(fields[3]) == sid:
            total += int(fields[21]) * PAGE
    return total


def watch(pid: int, poll_session: bool, timeout: float = TIME_LIMIT_S) -> tuple[int, float, float, str | None]:
    """Wait for ``pid`` (a session leader): exit code, seconds, peak MB, why it was killed (or None).

    Kills the session at ``timeout`` seconds and, when ``poll_session``, when its resident memory
    passes the limit; kills what is left of the session (a cluster's workers) once ``pid`` ends.
    """
    start = time.monotonic()
    peak = 0
    killed: str | None = None
    fd = os.pidfd_open(pid)
    try:
        while True:
            elapsed = time.monotonic() - start
            wait = 0.1 if poll_session else max(0.0, timeout - elapsed)
            ready, _, _ = select.select([fd], [], [], wait)
            if ready:
                break
            if poll_session:
                rss = _session_rss(pid)
                peak = max(peak, rss)
                if rss > MEMORY_LIMIT:
                    killed = "memory"
            if time.monotonic() - start >= timeout:
                killed = killed or "timeout"
            if killed:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                break
        _, status, usage = os.wait4(pid, 0)
    finally:
        os.close(fd)
    seconds = time.monotonic() - start
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    peak_mb = max(peak / 2**20, usage.ru_maxrss / 1024)
    return os.waitstatus_to_exitcode(status), seconds, peak_mb, killed


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("GITHUB_STEP_SUMMARY", None)
    env.pop("GITHUB_ACTIONS", None)
    env["MPLBACKEND"] = "Agg"
    return env


_LAUNCHER = ("import resource, runpy, sys; limit, module = int(sys.argv[1]), sys.argv[2]; "
             "limit and resource.setrlimit(resource.RLIMIT_AS, (limit, limit)); "
             "sys.argv = [module, *sys.argv[3:]]; "
             "runpy.run_module(module, run_name='__main__', alter_sys=True)")


def _limit(engine: bool) -> int:
    return 0 if engine else MEMORY_LIMIT


def run_spawned(inv: Invocation, cwd: Path) -> tuple[int, float, float, str | None, str, str]:
    """One invocation as a fresh ``python -m scorekit`` (through a launcher that sets RLIMIT_AS)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        command = [sys.executable, "-c", _LAUNCHER, str(_limit(inv.engine)), inv.module, *inv.argv]
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=_env(),
                                start_new_session=True)
        code, seconds, peak, killed = watch(proc.pid, poll_session=inv.engine)
        proc.returncode = code  # reaped by watch
        return code, seconds, peak, killed, _read(out), _read(err)


def _read(fh: object, limit: int = 20_000) -> str:
    fh.seek(0)  # type: ignore[attr-defined]
    data: bytes = fh.read()  # type: ignore[attr-defined]
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= 2 * limit else text[:limit] + "\n[...]\n" + text[-limit:]


class ForkServer:
    """A process that imported ``scorekit.cli`` and forks a child per invocation (see the module doc)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env(), text=True, bufsize=1)
        ready = self.proc.stdout.readline()  # type: ignore[union-attr]
        if ready.strip() != "ready":
            raise RuntimeError(f"the fork server did not start: {ready!r}")

    def run(self, inv: Invocation, cwd: Path) -> tuple[int, float, float, str | None, str, str]:
        with tempfile.NamedTemporaryFile(delete=False) as out, tempfile.NamedTemporaryFile(delete=False) as err:
            pass
        try:
            request = {"argv": list(inv.argv), "cwd": str(cwd), "out": out.name, "err": err.name,
                       "limit": _limit(inv.engine), "poll": inv.engine, "module": inv.module}
            self.proc.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
            line = self.proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise RuntimeError(f"the fork server ended (exit {self.proc.wait()}) on {inv.shown}")
            reply = json.loads(line)
            with open(out.name, "rb") as o, open(err.name, "rb") as e:
                return (reply["code"], reply["seconds"], reply["peak_mb"], reply["killed"], _read(o), _read(e))
        finally:
            os.unlink(out.name)
            os.unlink(err.name)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(timeout=30)


def _child(request: dict[str, object], reply_fd: int) -> None:
    """In the forked child: become ``python -m scorekit ARGV`` and never return."""
    import atexit
    import resource
    import runpy
    import traceback

    code = 1
    try:
        os.close(reply_fd)
        os.setsid()
        os.chdir(str(request["cwd"]))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, name in ((1, "out"), (2, "err")):
            stream = os.open(str(request[name]), os.O_WRONLY | os.O_TRUNC)
            os.dup2(stream, fd)
            os.close(stream)
        limit = int(request["limit"])  # type: ignore[call-overload]
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        module = str(request.get("module", "scorekit"))
        sys.argv = [module, *request["argv"]]  # type: ignore[misc]
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:  # as the interpreter does
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 - printed as the interpreter prints an uncaught exception
            traceback.print_exc()
            code = 1
        with contextlib.suppress(BaseException):
            threading._shutdown()  # type: ignore[attr-defined]
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
    finally:
        os._exit(code)


def serve() -> None:
    """The fork server's loop: one JSON request per line on stdin, one JSON reply per line."""
    import scorekit.cli  # noqa: F401 - what `python -m scorekit` imports before its command runs

    reply_fd = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    reply = os.fdopen(reply_fd, "w", buffering=1)
    reply.write("ready\n")
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request, reply_fd)
        code, seconds, peak, killed = watch(pid, poll_session=bool(request["poll"]))
        reply.write(json.dumps({"code": code, "seconds": seconds, "peak_mb": peak, "killed": killed}) + "\n")


def problems_of(code: int, seconds: float, peak_mb: float, killed: str | None, stdout: str, stderr: str) -> list[str]:
    """What breaks the acceptance rule (empty: the invocation is fine)."""
    found = []
    if killed == "timeout" or seconds > TIME_LIMIT_S:
        found.append("timeout")
    if killed == "memory" or peak_mb > MEMORY_LIMIT / 2**20:
        found.append("memory")
    if code not in (0, 1, 2) and killed is None:
        found.append(f"exit {code}")
    if TRACEBACK in stdout or TRACEBACK in stderr:
        found.append("traceback")
    if code != 0 and killed is None and not any(line.strip() for line in (stderr + stdout).splitlines()):
        found.append("no message")
    return found


def _exception_line(text: str) -> str | None:
    """The ``Type: message`` line that ends the last traceback in ``text``."""
    if TRACEBACK not in text:
        return None
    tail = text[text.rfind(TRACEBACK):].splitlines()
    for line in tail[1:]:
        if line and not line.startswith((" ", "\t")) and not line.startswith("During handling"):
            return line
    return tail[-1] if tail else None


def first_line(outcome: Outcome) -> str:
    """The first stderr line, or for a traceback the exception line that ends it."""
    found = _exception_line(outcome.stderr) or _exception_line(outcome.stdout)
    if found:
        return found
    for line in (outcome.stderr + "\n" + outcome.stdout).splitlines():
        if line.strip():
            return line.strip()
    return ""


def cause_of(outcome: Outcome) -> str:
    """A failure's cause with its particulars (paths, numbers) blurred, to group alike failures."""
    if "timeout" in outcome.problems:
        return f"timeout ({outcome.command})"
    if "memory" in outcome.problems:
        return f"over 2 GiB ({outcome.command})"
    line = first_line(outcome)
    line = re.sub(r"(/[\w.\-\[\]*?{},:=@+]+)+", "<path>", line)
    line = re.sub(r"0x[0-9a-f]+", "<hex>", line)
    line = re.sub(r"\d+", "N", line)
    line = line[:160]
    if "traceback" in outcome.problems:
        return line
    return f"{' + '.join(outcome.problems)}: {line}"


# --------------------------------------------------------------------------- the sweep
@dataclass
class Workspace:
    root: Path
    targets: list[Target]
    refs: Refs
    labels: dict[Path, str]
    dask_subset: list[Target]
    render_subset: list[Target]


def corpus_sources(extra: Sequence[Path]) -> list[tuple[Path, str]]:
    """The corpus folders with their labels: the checkout's, then the extra ones (by their names)."""
    sources = [(ROOT / rel, rel) for rel in REPO_CORPUS if (ROOT / rel).is_dir()]
    for folder in extra:
        if folder.is_dir():
            sources.append((folder, folder.name))
    return sources


def _setup_command(run: Callable[[Invocation, Path], tuple[int, float, float, str | None, str, str]],
                   argv: Sequence[str], cwd: Path) -> None:
    target = Target(cwd, "setup", "other", "generated")
    code, *_, stdout, stderr = run(Invocation("setup", tuple(argv), target, False, " ".join(argv), cwd), cwd)
    if code != 0:
        raise RuntimeError(f"setup `scorekit {' '.join(argv)}` exited {code}: {stderr or stdout}")


def build_workspace(root: Path, extra: Sequence[Path],
                    run: Callable[[Invocation, Path], tuple[int, float, float, str | None, str, str]]) -> Workspace:
    """Copy the corpus into ``root``, generate scorekit's own outputs and the hostile set, derive the copies."""
    corpus, folders = _copy_corpus(corpus_sources(extra), root / "corpus")
    gen = root / "generated"
    gen.mkdir(parents=True)
    example = ROOT / "scorekit" / "examples" / "email_assistant"
    history = gen / "history.sqlite"
    for label, limit in (("v1", "60"), ("v2", None)):
        argv = ["run", "--results", str(example / "results.jsonl"), "--policy", str(example / "policy.yml"),
                "--out-dir", str(gen / label), "--history", str(history), "--label", label,
                "--agent-name", "email-assistant", "--agent-version", "1.0.0",
                "--junit", str(gen / label / "junit.xml")]
        _setup_command(run, argv + (["--limit", limit] if limit else []), gen)
    _setup_command(run, ["keygen", "--out-private", str(gen / "k.pem"), "--out-public", str(gen / "k.pub")], gen)
    _setup_command(run, ["sign", "--scorecard", str(gen / "v2" / "scorecard.json"), "--key", str(gen / "k.pem")], gen)
    card_md = root / "refs" / "SCORECARD.md"
    card_md.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / "tests" / "release" / "data" / "seed_example_SCORECARD.md", card_md)
    rows = root / "refs" / "rows.jsonl"
    shutil.copyfile(ROOT / "tests" / "data" / "malformed" / "clean.jsonl", rows)
    generated_files = [history, *sorted((gen / "v2").iterdir()), gen / "v1" / "scorecard.json",
                       gen / "v1" / "junit.xml"]
    generated = [Target(p, f"generated/{p.relative_to(gen)}", kind_of(p), "generated") for p in generated_files
                 if p.is_file()]
    hostile = write_hostile(root / "hostile", corpus,
                            {"scorecard": gen / "v2" / "scorecard.json", "history": history, "card_md": card_md})
    derived = derive([*corpus, *generated], root / "derived")
    derived += derive_folders([f for f in folders if not f.label.startswith(REPO_CORPUS)], root / "derived")
    refs = Refs(rows=rows, card_md=card_md, key=gen / "k.pem", history_labels=("v1", "v2"))
    labels = {rows: "<good-rows>", card_md: "<good-SCORECARD.md>", gen / "k.pem": "<key>"}
    targets = [*corpus, *folders, *generated, *hostile, *derived]
    by_label = {t.label: t for t in targets}
    dask_names = ["scorekit/examples/email_assistant/results.jsonl", "tests/data/malformed/clean.jsonl",
                  "tests/data/malformed/bad_json_line.jsonl", "tests/data/malformed/deeper_nesting.jsonl",
                  "tests/data/malformed/nan_infinity.jsonl", "tests/data/malformed/huge_numbers.jsonl",
                  "tests/data/malformed/latin1.jsonl", "tests/data/malformed/array_rows.json",
                  "generated/v2/evidence.parquet", "hostile/deep100000.jsonl", "hostile/nan.jsonl",
                  "hostile/glob/res[1].jsonl", "hostile/empty.jsonl", "hostile/mixed/",
                  "truncated:generated/v2/evidence.parquet", "flipped:scorekit/examples/email_assistant/results.jsonl"]
    render_names = ["scorekit/examples/email_assistant/results.jsonl", "hostile/deep100000.jsonl",
                    "hostile/glob/res[1].jsonl", "truncated:scorekit/examples/email_assistant/results.jsonl",
                    "hostile/sample_array.eval"]
    return Workspace(root, targets, refs, labels, [by_label[n] for n in dask_names if n in by_label],
                     [by_label[n] for n in render_names if n in by_label])


#: The default suite's subset: per kind, one target that gets every command, and hostile targets
#: that get their kind's commands.
SUBSET_EVERY_COMMAND = {
    "rows": "scorekit/examples/email_assistant/results.jsonl",
    "foreign": "tests/data/imports/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
    "scorecard": "generated/v2/scorecard.json",
    "history": "generated/history.sqlite",
    "markdown": "tests/release/data/seed_example_SCORECARD.md",
    "policy": "scorekit/examples/email_assistant/policy.yml",
    "folder": "hostile/mixed/",
    "other": "reports/.gitkeep",  # an empty file
}
SUBSET_KIND_COMMANDS = (
    "hostile/deep999.jsonl", "hostile/deep100000.jsonl", "hostile/nan.jsonl", "hostile/latin1.jsonl",
    "hostile/glob/res[1].jsonl", "hostile/sample_array.eval",
    "hostile/deep999.json", "hostile/deep100000.json", "hostile/nan_scorecard.json",
    "hostile/deep100000_scorecard.json",
    "truncated:generated/v2/scorecard.json", "flipped:generated/v2/scorecard.json",
    "truncated:generated/history.sqlite", "flipped:generated/history.sqlite", "tests/data/history/v1.sqlite",
    "hostile/deep100000_SCORECARD.md", "hostile/latin1_SCORECARD.md",
    "truncated:tests/release/data/seed_example_SCORECARD.md",
    "hostile/deep100000_policy.yml",
    "truncated:tests/data/imports/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
    "truncated:generated/v2/evidence.parquet",
    # issue 25's small files (its 4 and 8); its 5 (epochs, trials of 10**8) takes ~25 s a command: full sweep only
    "hostile/inspect_samples_5.json", "hostile/n_1e30_scorecard.json", "hostile/passes_over_n_scorecard.json",
    "hostile/history_passes_over_n.sqlite",
)
SUBSET_DASK = ("tests/data/malformed/clean.jsonl",)


def subset_matrix(matrix: Matrix, ws: Workspace) -> list[Invocation]:
    """The default suite's subset: every command at least once on each kind of file."""
    by_label = {t.label: t for t in ws.targets}
    out: list[Invocation] = []
    for label in SUBSET_EVERY_COMMAND.values():
        out += [matrix.invocation(c, by_label[label]) for c in COMMANDS]
    for label in SUBSET_KIND_COMMANDS:
        target = by_label[label]
        out += [matrix.invocation(c, target) for c in COMMANDS if target.kind in c.kinds]
    out += [matrix.invocation(DASK, by_label[label]) for label in SUBSET_DASK]
    return out


class Runner:
    """Runs invocations on ``jobs`` threads, each with its own fork server (fork mode) or none (spawn)."""

    def __init__(self, mode: str, jobs: int) -> None:
        self.mode = mode
        self.jobs = jobs
        self._local = threading.local()
        self._servers: list[ForkServer] = []
        self._lock = threading.Lock()

    def run_one(self, inv: Invocation, cwd: Path) -> tuple[int, float, float, str | None, str, str]:
        if self.mode == "spawn":
            return run_spawned(inv, cwd)
        server = getattr(self._local, "server", None)
        if server is None:
            server = self._local.server = ForkServer()
            with self._lock:
                self._servers.append(server)
        return server.run(inv, cwd)

    def outcome(self, inv: Invocation) -> Outcome:
        code, seconds, peak, killed, stdout, stderr = self.run_one(inv, inv.cwd)
        outcome = Outcome(inv.command, inv.shown, inv.target.label, inv.target.kind, inv.target.origin, code,
                          round(seconds, 2), round(peak, 1), killed, stdout, stderr)
        outcome.problems = problems_of(code, seconds, peak, killed, stdout, stderr)
        return outcome

    def map(self, invocations: Sequence[Invocation], progress: bool = False) -> Iterator[tuple[Invocation, Outcome]]:
        done = 0
        with ThreadPoolExecutor(self.jobs) as pool:
            for inv, outcome in zip(invocations, pool.map(self.outcome, invocations), strict=True):
                done += 1
                if progress and (done % 100 == 0 or done == len(invocations)):
                    print(f"  {done}/{len(invocations)}", file=sys.stderr, flush=True)
                yield inv, outcome

    def close(self) -> None:
        for server in self._servers:
            server.close()


def record(outcome: Outcome) -> str:
    """One outcome as a JSON line (with its cause and first line)."""
    return json.dumps({**asdict(outcome), "cause": outcome.cause if outcome.problems else None,
                       "first_line": first_line(outcome)}, ensure_ascii=False)


def sweep(invocations: Sequence[Invocation], runner: Runner, confirm: bool = True, progress: bool = False,
          sink: TextIO | None = None) -> list[Outcome]:
    """Run every invocation; re-run each failure as a fresh ``python -m scorekit`` when in fork mode.

    ``sink``: each outcome is written there as a JSON line as soon as it is known (a failure once
    re-run).
    """
    pairs = []
    for inv, outcome in runner.map(invocations, progress):
        pairs.append((inv, outcome))
        if sink is not None and not (outcome.problems and confirm and runner.mode == "fork"):
            sink.write(record(outcome) + "\n")
            sink.flush()
    failed = [(inv, o) for inv, o in pairs if o.problems]
    if confirm and runner.mode == "fork" and failed:
        spawn = Runner("spawn", runner.jobs)
        for (_, first), (_, again) in zip(failed, spawn.map([inv for inv, _ in failed]), strict=True):
            first.confirmed = bool(again.problems)
            if not again.problems:
                first.problems = []  # fork mode only: not a failure of `python -m scorekit`
            if sink is not None:
                sink.write(record(first) + "\n")
                sink.flush()
    return [o for _, o in pairs]


# --------------------------------------------------------------------------- reporting
def failure_table(failures: Sequence[Outcome]) -> str:
    """One line per failure: command, file, exit, seconds, peak MB, first stderr (or exception) line."""
    lines = [f"{'command':<22} {'file':<70} {'exit':>5} {'s':>6} {'MB':>7}  first stderr line / exception"]
    for o in sorted(failures, key=lambda o: (o.cause, o.command, o.target)):
        lines.append(f"{o.command:<22} {o.target[-70:]:<70} {o.code:>5} {o.seconds:>6.1f} {o.peak_mb:>7.0f}  "
                     f"{first_line(o)[:200]}")
    return "\n".join(lines)


def cause_summary(failures: Sequence[Outcome]) -> str:
    """Failures grouped by cause, most frequent first, with one example command each."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in failures:
        groups[o.cause].append(o)
    lines = []
    for cause, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        commands = Counter(o.command for o in items)
        lines.append(f"[{len(items)}] {cause}")
        lines.append(f"      commands: {', '.join(f'{c} ×{n}' for c, n in commands.most_common())}")
        lines.append(f"      example:  {items[0].shown}")
    return "\n".join(lines)


def summary(outcomes: Sequence[Outcome], seconds: float) -> str:
    failures = [o for o in outcomes if o.problems]
    by_origin = Counter(o.origin for o in outcomes)
    slowest = max(outcomes, key=lambda o: o.seconds)
    heaviest = max(outcomes, key=lambda o: o.peak_mb)
    codes = Counter(o.code for o in outcomes)
    return "\n".join([
        f"{len(outcomes)} invocations ({', '.join(f'{k} {v}' for k, v in sorted(by_origin.items()))}) "
        f"in {seconds:.0f} s; exit codes {dict(sorted(codes.items()))}",
        f"{len(failures)} failed; slowest {slowest.seconds:.1f} s ({slowest.shown}); "
        f"largest {heaviest.peak_mb:.0f} MB ({heaviest.shown})",
    ])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="invocations at a time (default 2)")
    parser.add_argument("--matrix", choices=("full", "kind", "subset"), default="full",
                        help="full: every command on every corpus file; kind: every command on the first file of "
                             "each (folder, suffix, kind) group, the commands of its kind on the others; subset: "
                             "the default test suite's")
    parser.add_argument("--mode", choices=("fork", "spawn"), default="fork",
                        help="fork: children of a server that imported scorekit.cli; spawn: python -m scorekit each")
    parser.add_argument("--no-confirm", dest="confirm", action="store_false",
                        help="do not re-run fork-mode failures as fresh processes")
    parser.add_argument("--extra-corpus", type=Path, action="append", default=[], metavar="DIR",
                        help="another folder of results files (repeatable; also SCOREKIT_SWEEP_CORPUS)")
    parser.add_argument("--only", metavar="REGEX", help="only the invocations whose command line matches")
    parser.add_argument("--origins", metavar="LIST",
                        help="only targets of these origins (comma-separated: corpus, generated, hostile, truncated, "
                             "flipped)")
    parser.add_argument("--jsonl", type=Path, metavar="FILE",
                        help="write every outcome here, one JSON object a line, as it comes")
    parser.add_argument("--keep-workspace", type=Path, metavar="DIR", help="build the workspace here and keep it")
    parser.add_argument("--list", action="store_true", help="print the invocations and run none")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve()
        return 0
    extra = [*args.extra_corpus, *(Path(p) for p in os.environ.get("SCOREKIT_SWEEP_CORPUS", "").split(os.pathsep)
                                   if p)]
    runner = Runner(args.mode, args.jobs)
    start = time.monotonic()
    try:
        with contextlib.ExitStack() as stack:
            if args.keep_workspace:
                root = args.keep_workspace
                root.mkdir(parents=True, exist_ok=False)
            else:
                root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sweep-")))
            ws = build_workspace(root, extra, runner.run_one)
            matrix = Matrix(root / "work", ws.refs, ws.labels)
            if args.matrix in ("full", "kind"):
                invocations = full_matrix(matrix, ws.targets, ws.dask_subset, ws.render_subset,
                                          every="file" if args.matrix == "full" else "group")
            else:
                invocations = subset_matrix(matrix, ws)
            if args.only:
                invocations = [i for i in invocations if re.search(args.only, i.shown)]
            if args.origins:
                origins = set(args.origins.split(","))
                invocations = [i for i in invocations if i.target.origin in origins]
            kinds = Counter(t.kind for t in ws.targets)
            print(f"{len(ws.targets)} targets ({', '.join(f'{k} {kinds[k]}' for k in KINDS if kinds[k])}); "
                  f"{len(invocations)} invocations, {args.jobs} at a time, {args.mode} mode", file=sys.stderr)
            if args.list:
                for inv in invocations:
                    print(inv.shown)
                return 0
            sink = stack.enter_context(args.jsonl.open("w", encoding="utf-8")) if args.jsonl else None
            outcomes = sweep(invocations, runner, confirm=args.confirm, progress=True, sink=sink)
    finally:
        runner.close()
    seconds = time.monotonic() - start
    failures = [o for o in outcomes if o.problems]
    if failures:
        print(failure_table(failures))
        print()
        print(cause_summary(failures))
        print()
    print(summary(outcomes, seconds))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
