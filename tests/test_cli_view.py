"""``scorekit view`` (SPEC §19): exit codes, refusing a tampered scorecard (SPEC §20), ``--serve``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

import scorekit as sk

ROOT = Path(__file__).resolve().parents[1]


def _rows(fails: int) -> list[dict]:
    return [{"id": f"r{c}-{t}", "dimension": "task_completion", "case_id": f"c{c}", "trial": t,
             "status": "FAIL" if c < fails else "PASS", "evaluator": "harness"} for c in range(10) for t in range(2)]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli-view")
    sk.evaluate(_rows(1), agent_name="agent", agent_version="1").write(root / "a")
    sk.evaluate(_rows(3), agent_name="agent", agent_version="2").write(root / "b")
    return root / "a", root / "b"


def test_view_writes_the_page_beside_the_scorecard(run_cli, stored, tmp_path):
    import shutil

    folder = tmp_path / "b"
    shutil.copytree(stored[1], folder)
    code, out, err = run_cli("view", folder)
    assert (code, err) == (0, "")
    assert out == f"wrote {folder / 'view.html'}\n"
    assert '<script type="application/json" id="sk-data">' in (folder / "view.html").read_text(encoding="utf-8")


def test_view_with_other_and_out_writes_the_comparison_where_asked(run_cli, stored, tmp_path):
    out_file = tmp_path / "deep" / "page.html"
    out_file.parent.mkdir()
    code, out, _ = run_cli("view", stored[1] / "scorecard.json", stored[0], "--out", out_file)
    assert code == 0 and out == f"wrote {out_file}\n"
    html = out_file.read_text(encoding="utf-8")
    data = json.loads(html.split('id="sk-data">', 1)[1].split("</script>", 1)[0])
    assert [r[1] for r in data["compare"]["regressed"]] == ["c1", "c2"]  # failing in B, passing in A


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["dimensions"][0].update(rate=0.99), "rate"),
    (lambda d: d.update(decision="PASS", overall_pass=True) if d["decision"] != "PASS"
     else d.update(decision="FAIL", overall_pass=False), "decision"),
])
def test_view_refuses_a_tampered_scorecard_in_one_line_naming_the_field(run_cli, stored, tmp_path, edit, field):
    import shutil

    folder = tmp_path / "t"
    shutil.copytree(stored[1], folder)
    path = folder / "scorecard.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run_cli("view", folder)
    assert code == 2 and out == ""
    assert err.startswith("scorekit view: ") and err.count("\n") == 1 and field in err
    assert not (folder / "view.html").exists()


def test_view_refuses_a_tampered_other_scorecard(run_cli, stored, tmp_path):
    import shutil

    folder = tmp_path / "other"
    shutil.copytree(stored[0], folder)
    path = folder / "scorecard.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["dimensions"][0]["passes"] += 1
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run_cli("view", stored[1], folder, "--out", tmp_path / "v.html")
    assert code == 2 and "passes" in err and err.count("\n") == 1
    assert not (tmp_path / "v.html").exists()


def test_view_of_a_missing_or_invalid_scorecard_is_exit_2_in_one_line(run_cli, tmp_path):
    code, _, err = run_cli("view", tmp_path / "nowhere")
    assert code == 2 and "no scorecard.json there" in err and err.count("\n") == 1
    (tmp_path / "scorecard.json").write_text("{not json", encoding="utf-8")
    code, _, err = run_cli("view", tmp_path)
    assert code == 2 and err.startswith("scorekit view: ") and err.count("\n") == 1 and "Traceback" not in err
    (tmp_path / "scorecard.json").write_text('{"decision": "PASS"}', encoding="utf-8")
    code, _, err = run_cli("view", tmp_path)
    assert code == 2 and "not a scorecard.json" in err and err.count("\n") == 1


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_view_serve_serves_the_page_on_localhost_until_interrupted(stored, tmp_path, sigint):
    """Ctrl-C stops it, also when it started with SIGINT ignored (a job a non-interactive shell put in the
    background with ``&``, or a child of a process that ignores it, as the test suite once was)."""
    out_file = tmp_path / "served page.html"  # a space: quoted in the URL
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "scorekit", "view", str(stored[1]), "--out", str(out_file), "--serve"]
    if sigint == "ignored":
        command = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *command]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == f"wrote {out_file}\n"
        line = proc.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:") and line.endswith(" (Ctrl-C to stop)\n"), line
        url = line.split()[1]
        assert url.endswith("/served%20page.html")
        with urllib.request.urlopen(url, timeout=30) as response:
            assert response.status == 200
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert response.read() == out_file.read_bytes()
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url.rsplit("/", 1)[0] + "/scorecard.json", timeout=30)
        assert missing.value.code == 404  # only the page is served, not the folder
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:  # still serving: leave no server behind the failure
                proc.kill()
                proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_view_refuses_unreadable_or_foreign_evidence_in_one_line(run_cli, stored, tmp_path):
    import shutil


    garbage, odd, other = tmp_path / "garbage", tmp_path / "odd", tmp_path / "other"
    for folder in (garbage, odd, other):
        shutil.copytree(stored[1], folder)
    (garbage / "evidence.parquet").write_bytes(b"not parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(odd / "evidence.parquet")
    frame = table.to_pandas()
    frame["status"] = frame["status"].astype(str)
    frame.loc[0, "status"] = "MAYBE"
    # Edited with scorekit's metadata kept (the hash then still matches): the status check refuses it.
    edited = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(edited.replace_schema_metadata(table.schema.metadata), odd / "evidence.parquet")
    plain = tmp_path / "plain"
    shutil.copytree(stored[1], plain)
    frame.to_parquet(plain / "evidence.parquet")  # rewritten by pandas: no scorekit metadata
    shutil.copy(stored[0] / "evidence.parquet", other / "evidence.parquet")  # A's rows beside B's scorecard
    for folder, says in ((garbage, "not readable evidence rows"), (odd, "'MAYBE', not one of PASS"),
                         (plain, "not an evidence.parquet written by scorekit"),
                         (other, "written for another scorecard (hashes.evidence")):
        code, out, err = run_cli("view", folder)
        assert (code, out) == (2, ""), err
        assert err.startswith("scorekit view: ") and err.count("\n") == 1 and says in err, err
        assert not (folder / "view.html").exists()
