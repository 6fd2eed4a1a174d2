"""Experiment tracking (SPEC §19): a scorecard logged to a real local MLflow store and read back.

One SQLite store under a temporary directory for the module (MLflow's import and its database
migrations are slow); ``MLFLOW_TRACKING_URI`` and ``MLFLOW_EXPERIMENT_ID`` (and MLflow's own
process-wide settings) point at it, its experiment's artifacts are under it, and the current
directory is the temporary one, so nothing is written into the repository or $HOME.
Every value read back is compared with ``card.to_dict()``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import scorekit as sk
from scorekit.cli import main

mlflow = pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("mlflow")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{root}/mlflow.db")
        mp.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
        # MLflow's process-wide settings win over the environment: another module (a docs page run by
        # tests/test_readme.py) may have set them, so they are set here too, before the first client.
        mlflow.set_tracking_uri(f"sqlite:///{root}/mlflow.db")
        experiment = MlflowClient().create_experiment("scorekit-tests", artifact_location=(root / "artifacts").as_uri())
        mp.setenv("MLFLOW_EXPERIMENT_ID", experiment)
        mlflow.set_experiment(experiment_id=experiment)
        yield root


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="mail-agent", agent_version="2.1.0")


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def test_a_new_run_holds_every_metric_param_tag_and_report_file(store, card):
    run_id = card.log_mlflow()
    client = MlflowClient()
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.info.experiment_id == str(client.get_experiment_by_name("scorekit-tests").experiment_id)
    data = card.to_dict()
    metrics = run.data.metrics
    expected = 0
    for dim in data["dimensions"]:
        name = dim["name"]  # the example's names are valid MLflow keys: kept as they are
        for field in ("rate", "ci_low", "ci_high", "assurance"):
            if dim[field] is None:
                assert f"{name}.{field}" not in metrics
            else:
                assert _close(metrics[f"{name}.{field}"], dim[field]), (name, field)
                expected += 1
        for k, value in dim["pass_k"].items():
            assert _close(metrics[f"{name}.pass_k.{k}"], value)
            expected += 1
        assert run.data.tags[f"scorekit.verdict.{name}"] == dim["verdict"]
    assert len(metrics) == expected
    params = run.data.params
    assert params["decision"] == data["decision"] == "FAIL"
    assert params["overall_pass"] == "false" and params["purpose"] == data["purpose"]
    assert params["agent.name"] == "mail-agent" and params["agent.version"] == "2.1.0"
    assert params["hashes.policy"] == data["hashes"]["policy"]
    for key, digest in data["hashes"].items():
        assert params[f"hashes.{key}"] == digest
    assert params["confidence"] == str(data["confidence"])
    assert run.data.tags["scorekit.decision"] == "FAIL" and "scorekit.dimension_keys" not in run.data.tags
    files = {a.path for a in client.list_artifacts(run_id, "scorekit")}
    assert {"scorekit/scorecard.json", "scorekit/scorecard.html", "scorekit/scorecard.md"} <= files
    logged = json.loads(Path(client.download_artifacts(run_id, "scorekit/scorecard.json", str(store / "dl")))
                        .read_text(encoding="utf-8"))
    assert logged["dimensions"] == data["dimensions"] and logged["hashes"] == data["hashes"]
    repo = Path(__file__).parents[1]
    assert not (repo / "mlflow.db").exists() and not (repo / "mlruns").exists()


def test_logging_into_an_existing_run_keeps_it_open_and_artifacts_false_logs_no_file(store, card):
    client = MlflowClient()
    run_id = client.create_run(client.get_experiment_by_name("scorekit-tests").experiment_id).info.run_id
    assert card.log_mlflow(run_id, artifacts=False) == run_id
    run = client.get_run(run_id)
    assert run.info.status == "RUNNING"  # the caller's run: not ended by scorekit
    assert run.data.params["decision"] == "FAIL" and client.list_artifacts(run_id) == []
    assert card.log_mlflow(run_id, artifacts=False) == run_id  # the same card again: the same params, accepted


def test_a_run_of_another_scorecard_refuses_and_gains_no_metric(store, card):
    client = MlflowClient()
    run_id = card.log_mlflow(artifacts=False)
    other = sk.evaluate([{"id": f"r{i}", "dimension": "pii", "status": "PASS", "evaluator": "e"} for i in range(5)])
    before = dict(client.get_run(run_id).data.metrics)
    with pytest.raises(sk.ScorekitError, match="log each scorecard into its own run") as caught:
        other.log_mlflow(run_id)
    assert "\n" not in str(caught.value)
    assert client.get_run(run_id).data.metrics == before
    assert [m.value for m in client.get_metric_history(run_id, "pii.rate")] == [before["pii.rate"]]


def test_an_unknown_run_id_is_one_line(store, card):
    with pytest.raises(sk.ScorekitError, match="MLflow run 'no-such-run' not found") as caught:
        card.log_mlflow("no-such-run")
    assert "\n" not in str(caught.value)


def test_a_store_mlflow_refuses_as_it_opens_it_is_one_line(store, card, monkeypatch, tmp_path):
    """MLflow 3 refuses a file store when the client is made: one line naming the URI, not a traceback."""
    from mlflow.exceptions import MlflowException

    uri = (tmp_path / "mlruns").as_uri()
    try:
        mlflow.set_tracking_uri(uri)
        try:
            MlflowClient()
        except MlflowException:
            pass
        else:
            pytest.skip(f"this MLflow ({mlflow.__version__}) opens a file store")
        with pytest.raises(sk.ScorekitError, match=f"MLflow \\({uri}\\): ") as caught:
            card.log_mlflow()
        assert "\n" not in str(caught.value)
    finally:
        mlflow.set_tracking_uri(f"sqlite:///{store}/mlflow.db")


def _hostile_card(agent_name: str = "agent") -> sk.Scorecard:
    names = ["tool/call:<x>", "..up", "a b-c.d_e", "ünïcode", "x" * 300]
    rows = [{"id": f"r{i}-{j}", "dimension": name, "status": "PASS" if j % 3 else "FAIL", "evaluator": "e"}
            for i, name in enumerate(names) for j in range(6)]
    return sk.evaluate(rows, agent_name=agent_name)


def _reference_key(name: str) -> str:
    """The documented rule, written out independently: ASCII letters, digits, ``_ - .`` and space
    kept, not starting with ``.``, at most 160 characters; otherwise every other character → ``_``,
    cut to 151, then ``_`` and 8 hex digits of the name's SHA-256."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. ")
    if all(c in allowed for c in name) and not name.startswith(".") and len(name) <= 160:
        return name
    safe = "".join(c if c in allowed else "_" for c in name)
    safe = "_" + safe[1:] if safe.startswith(".") else safe
    return safe[:151] + "_" + hashlib.sha256(name.encode()).hexdigest()[:8]


def test_names_mlflow_refuses_become_documented_keys_with_a_mapping_tag(store):
    card = _hostile_card(agent_name="n" * 7000)
    run = MlflowClient().get_run(card.log_mlflow(artifacts=False))
    data = card.to_dict()
    keys = {dim["name"]: _reference_key(dim["name"]) for dim in data["dimensions"]}
    assert keys["a b-c.d_e"] == "a b-c.d_e"
    assert keys["tool/call:<x>"].startswith("tool_call__x__") and keys["..up"].startswith("_.up_")
    for dim in data["dimensions"]:
        assert _close(run.data.metrics[f"{keys[dim['name']]}.rate"], dim["rate"])
        assert run.data.tags[f"scorekit.verdict.{keys[dim['name']]}"] == dim["verdict"]
    mapping = json.loads(run.data.tags["scorekit.dimension_keys"])
    assert mapping == {key: name for name, key in keys.items() if key != name}
    from mlflow.utils.validation import MAX_PARAM_VAL_LENGTH as limit
    assert run.data.params["agent.name"] == "n" * (limit - 1) + "…"
    assert run.data.tags["scorekit.truncated_params"] == "agent.name"


def _run_cli(store: Path, *extra: str, capsys: Any) -> tuple[int, str, str]:
    code = main(["run", "--results", str(sk.example_path()), "--policy", str(sk.example_path(file="policy.yml")),
                 "--out-dir", str(store / "cli-reports"), "--agent-name", "cli-agent", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_run_mlflow_logs_a_new_run_then_into_a_given_one(store, capsys):
    code, out, _ = _run_cli(store, "--mlflow", capsys=capsys)
    assert code == 0
    line = [x for x in out.splitlines() if x.startswith("logged to MLflow run ")]
    assert len(line) == 1
    run_id = line[0].rsplit(" ", 1)[1]
    client = MlflowClient()
    run = client.get_run(run_id)
    written = json.loads((store / "cli-reports" / "scorecard.json").read_text(encoding="utf-8"))
    assert run.data.params["decision"] == written["decision"] and run.data.params["agent.name"] == "cli-agent"
    assert _close(run.data.metrics["pii.rate"], next(d["rate"] for d in written["dimensions"] if d["name"] == "pii"))
    assert "scorekit/scorecard.html" in {a.path for a in client.list_artifacts(run_id, "scorekit")}

    target = client.create_run(run.info.experiment_id).info.run_id
    code, out, _ = _run_cli(store, "--mlflow", target, "--gate", capsys=capsys)
    assert code == 1  # the gate still decides the exit code: the example FAILs
    assert f"logged to MLflow run {target}" in out
    assert client.get_run(target).data.params["hashes.suite"] == written["hashes"]["suite"]


def test_cli_without_mlflow_installed_is_exit_2_in_one_line(store, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)  # what an environment without the extra sees
    code, out, err = _run_cli(store, "--mlflow", capsys=capsys)
    assert code == 2 and out == ""
    assert err == "scorekit run: MLflow is not installed: pip install scorekit[mlflow]\n"
    with pytest.raises(sk.ScorekitError, match=r"pip install scorekit\[mlflow\]"):
        _hostile_card().log_mlflow()


def test_an_artifact_store_that_cannot_be_written_is_one_line_and_the_new_run_failed(store, card):
    blocker = store / "not-a-directory"
    blocker.write_text("a file where the artifact folder should be", encoding="utf-8")
    client = MlflowClient()
    experiment = client.create_experiment("unwritable", artifact_location=(blocker / "artifacts").as_uri())
    mlflow.set_experiment(experiment_id=experiment)
    try:
        with pytest.raises(sk.ScorekitError, match="cannot log the report files") as caught:
            card.log_mlflow()
        assert "\n" not in str(caught.value)
        (run,) = client.search_runs([experiment])
        assert run.info.status == "FAILED" and run.data.params["decision"] == "FAIL"
    finally:
        mlflow.set_experiment(experiment_id=os.environ["MLFLOW_EXPERIMENT_ID"])


def test_without_a_tracking_uri_mlflow_3_writes_mlflow_db_and_mlruns_in_the_current_folder(tmp_path):
    """What docs/tracking.md says of MLflow's default store, checked in a fresh process (MLflow's settings
    are process-wide) whose current folder and $HOME are temporary."""
    import subprocess

    if int(mlflow.__version__.split(".")[0]) < 3:
        pytest.skip("MLflow 2 defaults to ./mlruns, a file store")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(Path(__file__).parents[1]))
    script = ("import mlflow, scorekit as sk\n"
              "card = sk.evaluate([{'id': 'r', 'dimension': 'pii', 'evaluator': 'e', 'status': 'PASS'}])\n"
              "run_id = card.log_mlflow()\n"
              "print(mlflow.get_tracking_uri(), mlflow.MlflowClient().get_run(run_id).data.params['decision'])\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stderr
    decision = sk.evaluate([{"id": "r", "dimension": "pii", "evaluator": "e", "status": "PASS"}]).decision
    assert proc.stdout.split() == [f"sqlite:///{tmp_path}/mlflow.db", decision]
    assert (tmp_path / "mlflow.db").is_file()
    assert [p.name for p in (tmp_path / "mlruns").glob("*/*/artifacts/scorekit/scorecard.json")] == ["scorecard.json"]


def test_a_long_mapping_of_renamed_dimensions_continues_over_several_tags(store):
    names = [f"d{i}:" + "x" * 600 for i in range(30)] + ["long:" + "y" * 3000]
    rows = [{"id": f"r{i}", "dimension": name, "evaluator": "e", "status": "PASS"} for i, name in enumerate(names)]
    card = sk.evaluate(rows)
    tags = MlflowClient().get_run(card.log_mlflow(artifacts=False)).data.tags
    parts = sorted((k for k in tags if k.startswith("scorekit.dimension_keys")), key=lambda k: (len(k), k))
    assert parts[0] == "scorekit.dimension_keys" and parts[1:] == [f"scorekit.dimension_keys.{i}"
                                                                    for i in range(2, len(parts) + 1)]
    assert len(parts) >= 3 and all(len(tags[k]) <= 8000 for k in parts)
    mapping: dict[str, str] = {}
    for k in parts:
        mapping.update(json.loads(tags[k]))
    assert {_reference_key(n) for n in names} == set(mapping)
    for name in names:
        assert mapping[_reference_key(name)] == (name if len(name) <= 1000 else name[:999] + "…")
