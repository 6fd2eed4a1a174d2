"""Test helpers for the importers: the shared files, an independent .eval reader and writer.

The expected numbers of the acceptance tests come from the logs' own JSON, read here with
zipfile and zstandard directly (not through scorekit), and .eval archives with zstd members
are written here by hand (Python 3.11's zipfile cannot write method 93).
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import zstandard

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"
INSPECT = DATA / "inspect"
PROMPTFOO = DATA / "promptfoo"
POPULARITY = INSPECT / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
QUIZ = INSPECT / "2026-12-01T13-47-40-00-00_quiz_A8kBJnGcEXwXLQZ4bVPsC6.eval"
STREAMING = INSPECT / "log_streaming.eval"
MMLU = INSPECT / "mmlu-summary-choices.eval"
NO_SAMPLES = INSPECT / "2025-05-12T20-28-13-04-00_no-samples.json"
SECURITY = INSPECT / "2025-05-12T20-28-26-04-00_security-guide.json"
TOOL_ERROR = INSPECT / "log_tool_call_error.json"
PROMPTFOO_EXPORT = PROMPTFOO / "sample-export.json"


def members(path: Path) -> dict[str, bytes]:
    """Every member of a zip archive, deflate or zstd, uncompressed."""
    out = {}
    with zipfile.ZipFile(path) as zf, open(path, "rb") as fp:
        for info in zf.infolist():
            if info.compress_type == 93:
                fp.seek(info.header_offset)
                local = fp.read(30)
                n, e = struct.unpack("<HH", local[26:30])
                fp.seek(info.header_offset + 30 + n + e)
                raw = fp.read(info.compress_size)
                out[info.filename] = zstandard.ZstdDecompressor().stream_reader(raw).read(info.file_size)
            else:
                out[info.filename] = zf.read(info)
    return out


def raw_log(path: Path) -> dict[str, Any]:
    """A log as Inspect wrote it: header plus samples (NaN kept as Python's json reads it)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())
    m = members(path)
    log = json.loads(m["header.json"])
    log["samples"] = [json.loads(v) for k, v in m.items() if k.startswith("samples/")]
    return log


def write_zip(path: Path, files: dict[str, bytes], method: int) -> Path:
    """A zip archive of ``files`` with every member compressed by ``method`` (8 deflate, 93 zstd)."""
    local_parts: list[bytes] = []
    central: list[bytes] = []
    offset = 0
    for name, data in files.items():
        if method == 93:
            comp = zstandard.ZstdCompressor().compress(data)
        else:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        crc = zlib.crc32(data)
        fname = name.encode()
        header = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, method, 0, 0x21, crc, len(comp), len(data),
                             len(fname), 0) + fname
        local_parts.append(header + comp)
        central.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, method, 0, 0x21, crc, len(comp),
                                   len(data), len(fname), 0, 0, 0, 0, 0, offset) + fname)
        offset += len(header) + len(comp)
    body = b"".join(local_parts)
    cd = b"".join(central)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(files), len(files), len(cd), len(body), 0)
    path.write_bytes(body + cd + end)
    return path


def recompress(src: Path, dst: Path, method: int) -> Path:
    """A copy of the .eval ``src`` with every member recompressed by ``method``."""
    return write_zip(dst, members(src), method)


def value_kind(value: Any) -> str:
    """How the test reads an Inspect value from the log itself: PASS, FAIL, PARTIAL or ERROR."""
    if value is True or value == "C" or (type(value) in (int, float) and value == 1):
        return "PASS"
    if value is False or value in ("I", "N") or (type(value) in (int, float) and value == 0):
        return "FAIL"
    if value == "P" or (type(value) in (int, float) and 0 < value < 1):
        return "PARTIAL"
    return "ERROR"


def expected_counts(log: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per scorer: PASS/FAIL/PARTIAL/ERROR counts over the log's samples (a crashed sample: ERROR on each)."""
    scorers = [s["name"] for s in (log["eval"].get("scorers") or [])]
    for s in (log.get("results") or {}).get("scores") or []:
        if s["scorer"] not in scorers:
            scorers.append(s["scorer"])
    out = {name: {"PASS": 0, "FAIL": 0, "PARTIAL": 0, "ERROR": 0} for name in scorers}
    for sample in log["samples"]:
        scores = sample.get("scores") or {}
        for name in scorers:
            if sample.get("error") or not scores or name not in scores:
                out[name]["ERROR"] += 1
            else:
                out[name][value_kind(scores[name]["value"])] += 1
    return out


def per_sample(log: dict[str, Any], scorer: str) -> dict[Any, list[float]]:
    """The 0/1 values of ``scorer`` per sample, over its scored epochs (errored, NaN left out, as Inspect does)."""
    out: dict[Any, list[float]] = {}
    for sample in log["samples"]:
        if sample.get("error"):
            continue
        value = (sample.get("scores") or {}).get(scorer, {}).get("value")
        kind = value_kind(value)
        if kind in ("PASS", "FAIL"):
            out.setdefault(sample["id"], []).append(1.0 if kind == "PASS" else 0.0)
        elif isinstance(value, float) and math.isnan(value):
            out.setdefault(sample["id"], [])
    return {k: v for k, v in out.items() if v}


def inspect_accuracy(log: dict[str, Any], scorer: str) -> float:
    """Inspect's accuracy with the mean epoch reducer: the mean over samples of each sample's mean."""
    values = per_sample(log, scorer)
    return sum(sum(v) / len(v) for v in values.values()) / len(values)


def pass_hat(log: dict[str, Any], scorer: str, k: int) -> float:
    """τ-bench's pass^k from the log's own values: mean over samples with k epochs of C(c,k)/C(n,k)."""
    values = [v for v in per_sample(log, scorer).values() if len(v) >= k]
    return sum(math.comb(int(sum(v)), k) / math.comb(len(v), k) for v in values) / len(values)


def inspect_pass_at(log: dict[str, Any], scorer: str, k: int) -> float:
    """Inspect's ``pass_at(k)`` reducer (its own formula) averaged over samples."""
    out = []
    for v in per_sample(log, scorer).values():
        total, correct = len(v), int(sum(v))
        if total < k:
            continue
        if total - correct < k:
            out.append(1.0)
        else:
            prod = 1.0
            for i in range(total - correct + 1, total + 1):
                prod *= 1.0 - k / i
            out.append(1.0 - prod)
    return sum(out) / len(out)


def json_log(samples: list[dict[str, Any]], *, status: str = "success", scorers: list[str] | None = None,
             model: str = "openai/gpt-4o", dataset_size: int | None = None, sample_ids: list[Any] | None = None,
             epochs: int | None = None, limit: Any = None, results: list[dict[str, Any]] | None = None,
             **eval_extra: Any) -> dict[str, Any]:
    """A JSON Inspect log shaped as Inspect writes it (version, status, eval, ... samples)."""
    ids = sorted({s["id"] for s in samples}, key=str) if sample_ids is None else sample_ids
    config: dict[str, Any] = {}
    if epochs is not None:
        config["epochs"] = epochs
    if limit is not None:
        config["limit"] = limit
    return {
        "version": 2,
        "status": status,
        "eval": {
            "task": "t", "created": "2026-01-01T00:00:00+00:00", "model": model, "config": config,
            "dataset": {"samples": len(ids) if dataset_size is None else dataset_size, "sample_ids": ids},
            "packages": {"inspect_ai": "0.3.200"},
            "scorers": [{"name": n, "options": {}, "metrics": []} for n in (scorers or [])],
            **eval_extra,
        },
        "plan": {},
        "results": {"scores": results or []},
        "stats": {},
        "samples": samples,
    }


def write_json_log(path: Path, log: dict[str, Any]) -> Path:
    """Write ``log`` as Inspect does (Python's json: NaN written as NaN)."""
    path.write_text(json.dumps(log, indent=2))
    return path
