"""The pandas engine's local worker processes (SPEC §16, issue 15).

Worker processes (forkserver/spawn, concurrent.futures) give exactly what one
process gives, and a killed worker costs time, never rows.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from _corpus import comparable, raw_rows, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._rows import open_source
from scorekit.engines import local


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = write(tmp_path_factory.mktemp("local") / "rows.jsonl", raw_rows(2400))
    assert len(path.read_text().splitlines()) >= 5000  # ranges enough to hand out (line_ranges: 500 lines at least)
    return path


@pytest.fixture(scope="module")
def one_process(corpus: Path) -> tuple[str, object]:
    saved = os.environ.get("SCOREKIT_WORKERS")
    os.environ["SCOREKIT_WORKERS"] = "1"
    try:
        card = sk.evaluate(corpus)
    finally:
        if saved is None:
            os.environ.pop("SCOREKIT_WORKERS")
        else:
            os.environ["SCOREKIT_WORKERS"] = saved
    return comparable(card), card.evidence


def _ctx_args() -> dict[str, object]:
    return {"budgets": {}, "judge_panel": (), "pass_score": 4, "partial": "fail", "agent": None}


def _evaluate_with(monkeypatch: pytest.MonkeyPatch, path: Path, **kwargs: object) -> tuple[str, object]:
    """evaluate with the worker path forced on (the corpus is below MIN_ROWS)."""
    real = local.score_file
    monkeypatch.setattr(local, "wants_workers", lambda n: True)
    monkeypatch.setattr(local, "score_file", lambda *a, **k: real(*a, **{**k, **kwargs}))
    card = sk.evaluate(path)
    return comparable(card), card.evidence


@pytest.mark.parametrize("n_workers", [2, 3])
def test_worker_processes_give_what_one_process_gives(monkeypatch, corpus, one_process, n_workers):
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=n_workers)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def _killed_at_start(n: int) -> ProcessPoolExecutor:
    """A pool whose every worker is killed (SIGKILL) as it starts."""
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                               initializer=signal.raise_signal, initargs=(signal.SIGKILL,))


def test_a_killed_worker_loses_no_row(monkeypatch, corpus, one_process):
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=_killed_at_start)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_a_worker_killed_mid_run_loses_no_row(monkeypatch, corpus, one_process):
    """SIGKILL a worker once it has taken a range: its ranges are scored here."""
    pools: list[ProcessPoolExecutor] = []

    def watched(n: int) -> ProcessPoolExecutor:
        pool = local._pool(n)
        pools.append(pool)
        return pool

    def killer() -> None:
        for _ in range(2000):
            processes = dict(getattr(pools[0], "_processes", None) or {}) if pools else {}
            if processes:
                for pid in processes:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                return
            threading.Event().wait(0.005)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=watched)
    thread.join(30)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_a_worker_that_does_not_answer_is_stopped_and_its_ranges_scored_here(monkeypatch, corpus, one_process):
    def hanging(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=signal.pause)

    monkeypatch.setattr(local, "GRACE_SECONDS", 0.5)
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=hanging)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_no_worker_process_when_none_can_start(monkeypatch, corpus, one_process):
    def refused(n: int) -> ProcessPoolExecutor:
        raise OSError(11, "Resource temporarily unavailable")

    text, _ = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=refused)
    assert text == one_process[0]


def test_a_file_changed_under_the_workers_is_scored_from_what_was_read(corpus, tmp_path):
    """Workers refuse a range whose bytes differ from those read here; it is scored here."""
    path = tmp_path / "rows.jsonl"
    path.write_bytes(corpus.read_bytes())
    src = open_source(path)
    expected = local.score_file(str(path), src.lines, _ctx_args(), True, n_workers=1)
    path.write_bytes(corpus.read_bytes().replace(b'"done"', b'"nope"'))
    got = local.score_file(str(path), src.lines, _ctx_args(), True, n_workers=2)
    assert got.table().equals(expected.table())
    assert got.evidence_digests == expected.evidence_digests and got.result_digests == expected.result_digests


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_parts=st.integers(1, 60))
def test_any_number_of_ranges_gives_what_one_process_gives(corpus, one_process, n_parts):
    """The file cut into any number of byte ranges, scored here and by two workers."""
    n_lines = len(corpus.read_text().splitlines())
    size = -(-n_lines // n_parts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local, "line_ranges",
                   lambda n, workers: [(a, min(a + size, n)) for a in range(0, n, size)])
        text, evidence = _evaluate_with(mp, corpus, n_workers=2)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def _watch_workers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every start of the worker machinery: score_file, the forkserver."""
    from multiprocessing import forkserver

    started: list[str] = []
    real_file, real_running = local.score_file, forkserver.ensure_running

    def score_file(*args: object, **kwargs: object) -> object:
        started.append("score_file")
        return real_file(*args, **kwargs)  # type: ignore[arg-type]

    def ensure_running() -> None:
        started.append("forkserver")
        real_running()

    monkeypatch.setattr(local, "score_file", score_file)
    monkeypatch.setattr(forkserver, "ensure_running", ensure_running)
    monkeypatch.setattr(forkserver._forkserver, "ensure_running", ensure_running)
    return started


@pytest.mark.parametrize("held", [True, False])
def test_below_the_threshold_no_worker_nor_forkserver_starts(monkeypatch, corpus, one_process, held):
    """A file under MIN_ROWS rows (here a lowered one) is scored in this process, with two cores:
    no worker, and no forkserver started ahead (as a warm-up), however large the file is in bytes,
    held in memory or read back range by range (not held)."""
    from scorekit._rows import _formats

    monkeypatch.setattr(_formats, "STREAM_BYTES", 1 << 62 if held else 0)
    started = _watch_workers(monkeypatch)
    n_lines = len(corpus.read_text().splitlines())
    monkeypatch.setenv("SCOREKIT_WORKERS", "2")
    monkeypatch.setattr(local, "MIN_ROWS", n_lines + 10)
    assert corpus.stat().st_size >= 64 * local.MIN_ROWS  # large in bytes for its rows
    card = sk.evaluate(corpus)
    assert "forkserver" not in started and ("score_file" in started) != held
    assert comparable(card) == one_process[0] and card.evidence.equals(one_process[1])


def test_from_the_threshold_workers_score_too(monkeypatch, corpus, one_process):
    started = _watch_workers(monkeypatch)
    n_lines = len(corpus.read_text().splitlines())
    monkeypatch.setenv("SCOREKIT_WORKERS", "2")
    monkeypatch.setenv("SCOREKIT_MIN_WORKER_ROWS", str(n_lines))
    card = sk.evaluate(corpus)
    assert started[:2] == ["score_file", "forkserver"]  # the pool starts its workers from the forkserver
    assert comparable(card) == one_process[0] and card.evidence.equals(one_process[1])


def test_the_threshold_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("SCOREKIT_MIN_WORKER_ROWS", raising=False)
    assert local.min_rows() == local.MIN_ROWS
    monkeypatch.setenv("SCOREKIT_MIN_WORKER_ROWS", "1234")
    assert local.min_rows() == 1234
    monkeypatch.setenv("SCOREKIT_MIN_WORKER_ROWS", "many")
    with pytest.raises(sk.InputError, match="SCOREKIT_MIN_WORKER_ROWS must be a whole number; got 'many'"):
        local.min_rows()
    monkeypatch.setenv("SCOREKIT_WORKERS", "two")
    with pytest.raises(sk.InputError, match="SCOREKIT_WORKERS must be a whole number; got 'two'"):
        local.workers()
    monkeypatch.setenv("SCOREKIT_WORKERS", "1")
    monkeypatch.setenv("SCOREKIT_MIN_WORKER_ROWS", "0")
    assert not local.wants_workers(10**9)  # one core: never


def test_a_threshold_that_is_no_number_stops_the_run_in_one_line(monkeypatch, capsys, tmp_path):
    """SCOREKIT_MIN_WORKER_ROWS=many is refused, never read as the default: exit 2, one line naming it."""
    from scorekit import cli

    path = write(tmp_path / "rows.jsonl", raw_rows(20))
    monkeypatch.setenv("SCOREKIT_MIN_WORKER_ROWS", "many")
    assert cli.main(["run", "--results", str(path), "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err == "scorekit run: SCOREKIT_MIN_WORKER_ROWS must be a whole number; got 'many'\n"


def test_scoring_in_process_does_not_reach_up_to_the_engines():
    """The in-process scorer (scorekit._ingest) imports nothing from scorekit.engines: choosing
    between this process and workers is the engines layer's (no _ingest <-> engines cycle)."""
    import ast

    import scorekit._ingest

    tree = ast.parse(Path(scorekit._ingest.__file__).read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name.startswith(("engines", "scorekit.engines"))}
