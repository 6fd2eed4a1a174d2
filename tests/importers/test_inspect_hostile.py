"""Hostile Inspect logs (issue 25 items 1, 4, 5, 6; SPEC §20): each is an input error naming file and position.

A record that is not the shape Inspect writes is never dropped in silence; a declared count never makes
rows by itself; an archive's directory is checked before any member is read and its decompressed size is
capped (``SCOREKIT_MAX_DECOMPRESSED``). Each case is also run through the CLI (``scorekit import`` and
``scorekit run --from inspect``): exit 2, one line on stderr, no traceback. The archives are built here,
small, from the real quiz log (import_logs.py reads and writes zip members without scorekit).
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from import_logs import QUIZ, json_log, members, write_json_log, write_zip

import scorekit as sk
from scorekit.importers import import_results

CAP = "SCOREKIT_MAX_DECOMPRESSED"


def sample(sid: object, epoch: int = 1, **scores: object) -> dict[str, Any]:
    return {"id": sid, "epoch": epoch, "input": f"q{sid}", "target": "a",
            "scores": {k: {"value": v} for k, v in scores.items()}}


# --------------------------------------------------------------------------- zip archives, byte by byte
def local_record(name: str, data: bytes, comp: bytes, method: int = 93) -> bytes:
    fname = name.encode()
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, method, 0, 0x21, zlib.crc32(data), len(comp),
                       len(data), len(fname), 0) + fname + comp


def central_entry(name: str, data: bytes, comp_len: int, offset: int, method: int = 93) -> bytes:
    fname = name.encode()
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, method, 0, 0x21, zlib.crc32(data), comp_len,
                       len(data), len(fname), 0, 0, 0, 0, 0, offset) + fname


def archive(body: bytes, central: list[bytes]) -> bytes:
    cd = b"".join(central)
    return body + cd + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(central), len(central), len(cd), len(body), 0)


def zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def eval_archive(files: dict[str, bytes], *, local_names: dict[str, str] | None = None,
                 cut: dict[str, int] | None = None) -> bytes:
    """A zstd ``.eval`` of ``files``; ``local_names`` gives a member another name in its local header, ``cut``
    keeps only the first n compressed bytes of a member (the directory agreeing: a truncated stream)."""
    body, central = b"", []
    for name, data in files.items():
        comp = zstd(data)[: (cut or {}).get(name)]
        central.append(central_entry(name, data, len(comp), len(body)))
        body += local_record((local_names or {}).get(name, name), data, comp)
    return archive(body, central)


def quiz_files(replace: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """The real quiz log's members, uncompressed, some replaced."""
    return {**members(QUIZ), **(replace or {})}


def one_member_many_names(path: Path, names: int = 400) -> Path:
    """A small archive whose directory lists ``names`` sample names, all pointing at one (padded) zstd member."""
    header = json_log([], scorers=["s"], sample_ids=[1])
    header.pop("samples")
    head = json.dumps(header).encode()
    data = json.dumps(sample(1, s="C")).encode().ljust(64 * 1024)
    body = local_record("header.json", head, zstd(head))
    offset, comp = len(body), zstd(data)
    body += local_record("samples/1_epoch_1.json", data, comp)
    central = [central_entry("header.json", head, len(zstd(head)), 0)]
    central += [central_entry(f"samples/{i}_epoch_1.json", data, len(comp), offset) for i in range(1, names + 1)]
    path.write_bytes(archive(body, central))
    return path


def overlapping(path: Path) -> Path:
    """A stored member (never read as a sample) whose bytes hold a sample member the directory also lists."""
    header = json_log([], scorers=["s"], sample_ids=[1])
    header.pop("samples")
    head = json.dumps(header).encode()
    data = json.dumps(sample(1, s="C")).encode()
    inner = local_record("samples/1_epoch_1.json", data, zstd(data))
    body = local_record("header.json", head, zstd(head))
    blob_at = len(body)
    body += local_record("attachments/blob.bin", inner, inner, method=0)
    inner_at = blob_at + 30 + len("attachments/blob.bin")
    central = [central_entry("header.json", head, len(zstd(head)), 0),
               central_entry("attachments/blob.bin", inner, len(inner), blob_at, method=0),
               central_entry("samples/1_epoch_1.json", data, len(zstd(data)), inner_at)]
    path.write_bytes(archive(body, central))
    return path


# --------------------------------------------------------------------------- the hostile files
def _json(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        log = json_log([sample(1, s="C"), sample(2, s="I")], scorers=["s"], epochs=1)
        change(log)
        return write_json_log(tmp / "log.json", log)
    return build


def _eval(build_files: Callable[[], bytes]) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        path = tmp / "log.eval"
        path.write_bytes(build_files())
        return path
    return build


def _set(*keys: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(log: dict[str, Any]) -> None:
        target = log
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return change


def _first_sample(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda log: log["samples"][0].update(fields)


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    # item 1: a sample that is not a JSON object
    "eval-member-list": (lambda tmp: write_zip(tmp / "log.eval", quiz_files({"samples/3_epoch_1.json": b"[1, 2]"}), 93),
                         r"log\.eval!samples/3_epoch_1\.json: expected an object, found a list"),
    "json-sample-string": (_json(lambda log: log["samples"].append("oops")),
                           r"log\.json: samples\[2\]: expected an object, found a string"),
    "sample-scores-number": (_json(_first_sample(scores=5)), r"log\.json: samples\[0\]\.scores: expected an object"),
    "sample-score-number": (_json(_first_sample(scores={"s": 5})),
                            r'log\.json: samples\[0\]\.scores\["s"\]: expected an object'),
    "sample-error-number": (_json(_first_sample(error=5)), r"log\.json: samples\[0\]\.error: expected an object"),
    "sample-epoch-zero": (_json(_first_sample(epoch=0)), r"log\.json: samples\[0\]\.epoch: expected a whole number"),
    "sample-id-list": (_json(_first_sample(id=[1])), r"log\.json: samples\[0\]\.id: expected a string or"),
    "listed-id-object": (_json(_set("eval", "dataset", "sample_ids", value=[1, {"id": 2}])),
                         r"log\.json: eval\.dataset\.sample_ids\[1\]"),
    # item 4: a field the importer relies on that is a number
    "eval-scorers-5": (_json(_set("eval", "scorers", value=5)), r"log\.json: eval\.scorers: expected a list"),
    "eval-scorer-5": (_json(_set("eval", "scorers", value=[5])), r"log\.json: eval\.scorers\[0\]: expected an object"),
    "results-scores-5": (_json(_set("results", "scores", value=5)), r"log\.json: results\.scores: expected a list"),
    "results-5": (_json(_set("results", value=5)), r"log\.json: results: expected an object"),
    "samples-5": (_json(_set("samples", value=5)), r"log\.json: samples: expected a list"),
    "model-5": (_json(_set("eval", "model", value=5)), r"log\.json: eval\.model: expected a string"),
    "model-roles-5": (_json(_set("eval", "model_roles", value=5)), r"log\.json: eval\.model_roles: expected an"),
    "epochs-text": (_json(_set("eval", "config", "epochs", value="3")), r"log\.json: eval\.config\.epochs: expected"),
    # item 5: a declared count beyond any plausible bound
    "epochs-1e8": (_json(lambda log: (log["eval"]["config"].update(epochs=10**8),
                                      log["eval"]["dataset"].update(sample_ids=[1, 2, 3]))),
                   r"log\.json: eval\.config\.epochs: 100000000 is more than"),
    # the same class: 3,000 scorers x 3,000 unscored samples would make 9,000,000 ERROR rows from ~300 KB
    "scorers-x-unscored-samples": (lambda tmp: write_json_log(tmp / "log.json", json_log(
        [{"id": i, "epoch": 1} for i in range(3000)], scorers=[f"s{i}" for i in range(3000)])),
        r"log\.json: the file would make 9000000 rows from the 9000 samples, scores"),
    # item 6: archives
    "400-names-one-member": (lambda tmp: one_member_many_names(tmp / "log.eval"),
                             r"log\.eval!samples/2_epoch_1\.json: the member's local header"),
    "local-name-mismatch": (_eval(lambda: eval_archive(quiz_files(), local_names={
        "samples/3_epoch_1.json": "samples/9_epoch_9.json"})),
        r"log\.eval!samples/3_epoch_1\.json: the member's local header names 'samples/9_epoch_9\.json'"),
    "overlapping-members": (lambda tmp: overlapping(tmp / "log.eval"),
                            r"log\.eval!samples/1_epoch_1\.json: overlaps the member"),
    "truncated-zstd": (_eval(lambda: eval_archive(quiz_files(), cut={"samples/3_epoch_1.json": 200})),
                       r"log\.eval!samples/3_epoch_1\.json: corrupt zstd member"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_log_is_an_input_error_naming_file_and_position(tmp_path, case):
    build, message = CASES[case]
    path = build(tmp_path)
    with pytest.raises(sk.InputError, match=message):
        import_results(path, format="inspect")


@pytest.mark.parametrize("command", ["import", "run"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_log_exits_2_in_one_line_from_the_cli(run_cli, tmp_path, case, command):
    build, message = CASES[case]
    path = build(tmp_path)
    argv = (["import", "--from", "inspect", path, "--out-dir", tmp_path / "out"] if command == "import" else
            ["run", "--from", "inspect", "--results", path, "--out-dir", tmp_path / "out"])
    code, _, err = run_cli(*argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert str(path) in lines[0] and re.search(message, lines[0])


# --------------------------------------------------------------------------- the decompression cap
def test_the_total_decompressed_size_is_capped_by_the_environment_variable(tmp_path, monkeypatch, run_cli):
    path = write_zip(tmp_path / "quiz.eval", members(QUIZ), 93)
    total = sum(len(v) for k, v in members(QUIZ).items() if k.startswith("samples/") or k == "header.json")
    monkeypatch.setenv(CAP, str(total - 1))
    with pytest.raises(sk.InputError, match=rf"quiz\.eval: .*{CAP}"):
        import_results(path)
    code, _, err = run_cli("import", "--from", "inspect", path, "--out-dir", tmp_path / "out")
    assert code == 2 and len(err.strip().splitlines()) == 1 and CAP in err and str(path) in err
    monkeypatch.setenv(CAP, str(total))
    assert len(import_results(path)[0].rows) == 120


def test_the_cap_bounds_the_many_names_archive_before_any_member_is_inflated(tmp_path, monkeypatch):
    path = one_member_many_names(tmp_path / "log.eval", names=1)  # a sound archive: one name, one member
    monkeypatch.setenv(CAP, str(64 * 1024))
    with pytest.raises(sk.InputError, match=rf"log\.eval: its members would decompress to \d+ bytes, more than {CAP}"):
        import_results(path)


@pytest.mark.parametrize("value", ["lots", "-1", "0", "1.5", "2GiB"])
def test_an_invalid_cap_is_an_input_error_naming_the_variable(tmp_path, monkeypatch, run_cli, value):
    monkeypatch.setenv(CAP, value)
    with pytest.raises(sk.InputError, match=CAP):
        import_results(QUIZ)
    code, _, err = run_cli("run", "--from", "inspect", "--results", QUIZ, "--out-dir", tmp_path)
    assert code == 2 and len(err.strip().splitlines()) == 1 and CAP in err


# --------------------------------------------------------------------------- declared counts
def test_a_plan_larger_than_the_file_is_counted_not_materialised(tmp_path):
    """2,000 listed samples × 5,000 epochs: 10**7 planned sample epochs from a small file, one of them ran."""
    log = json_log([sample(1, s="C")], scorers=["s"], sample_ids=list(range(1, 2001)), epochs=5000)
    run = import_results(write_json_log(tmp_path / "log.json", log))[0]
    assert len(run.rows) == 1
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (1, 2000 * 5000)
    assert run.partial and sk.evaluate(run).decision == "TRIAGE"
    assert any("counted in sample_epochs_planned" in note for note in run.notes)


def test_a_plan_the_file_can_hold_gives_error_rows_for_the_absent_sample_epochs(tmp_path):
    log = json_log([sample(1, s="C"), sample(2, s="C")], scorers=["s"], sample_ids=[1, 2, 3], epochs=2)
    run = import_results(write_json_log(tmp_path / "log.json", log))[0]
    errors = run.rows[run.rows["reason"] == "sample_error"]
    assert sorted(zip(errors["case_id"], errors["trial"], strict=True)) == [("1", 1), ("2", 1), ("3", 0), ("3", 1)]
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (2, 6)
    assert run.partial
