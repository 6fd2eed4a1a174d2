"""CLI keygen / sign / verify / attest / run --sign (SPEC §11) and their exit codes (SPEC §14)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scorekit as sk
from scorekit import _cli_evidence


@pytest.fixture(scope="module")
def scorecard_text() -> str:
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="email-assistant", agent_version="1.2.3")
    return card.to_json()


@pytest.fixture
def signed(tmp_path, run_cli, scorecard_text):
    """keygen + a scorecard.json signed through the CLI."""
    scorecard = tmp_path / "out" / "scorecard.json"
    scorecard.parent.mkdir()
    scorecard.write_text(scorecard_text, encoding="utf-8")
    assert run_cli("keygen", "--out-private", tmp_path / "k.pem", "--out-public", tmp_path / "k.pub")[0] == 0
    code, out, _ = run_cli("sign", "--scorecard", scorecard, "--key", tmp_path / "k.pem")
    assert code == 0, out
    return {"scorecard": scorecard, "sig": scorecard.with_name("scorecard.sig.json"),
            "private": tmp_path / "k.pem", "public": tmp_path / "k.pub", "dir": tmp_path}


# --------------------------------------------------------------------------- keygen
def test_keygen_exit_0_writes_both_keys(tmp_path, run_cli):
    code, out, err = run_cli("keygen", "--out-private", tmp_path / "k.pem", "--out-public", tmp_path / "k.pub")
    assert code == 0, err
    assert (tmp_path / "k.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert (tmp_path / "k.pub").read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert "k.pem" in out and "k.pub" in out


def test_keygen_refusing_to_overwrite_exits_2_with_one_line(tmp_path, run_cli):
    (tmp_path / "k.pem").write_text("precious")
    code, _, err = run_cli("keygen", "--out-private", tmp_path / "k.pem", "--out-public", tmp_path / "k.pub")
    assert code == 2
    assert "refusing to overwrite" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "k.pem").read_text() == "precious"
    code, _, _ = run_cli("keygen", "--out-private", tmp_path / "k.pem", "--out-public", tmp_path / "k.pub", "--force")
    assert code == 0


def test_keygen_without_its_required_options_exits_2(run_cli):
    assert run_cli("keygen")[0] == 2


# --------------------------------------------------------------------------- sign
def test_sign_writes_the_default_envelope_beside_the_scorecard(signed):
    envelope = json.loads(signed["sig"].read_text())
    assert envelope["algorithm"] == "Ed25519" and envelope["canonicalization"] == "RFC8785"


def test_sign_with_out_writes_there(signed, run_cli):
    out = signed["dir"] / "elsewhere.sig.json"
    assert run_cli("sign", "--scorecard", signed["scorecard"], "--key", signed["private"], "--out", out)[0] == 0
    code, stdout, _ = run_cli("verify", "--scorecard", signed["scorecard"], "--signature", out,
                              "--public-key", signed["public"])
    assert (code, stdout.split(":")[0]) == (0, "verified")


def test_sign_a_scorecard_with_nan_exits_2(tmp_path, run_cli, signed):
    bad = tmp_path / "nan.json"
    bad.write_text('{"decision": "PASS", "rate": NaN}')
    code, _, err = run_cli("sign", "--scorecard", bad, "--key", signed["private"])
    assert code == 2 and "NaN" in err and "Traceback" not in err
    assert not (tmp_path / "nan.sig.json").exists()


# --------------------------------------------------------------------------- verify: 0 / 0 / 1 / 2
def test_verify_with_the_pinned_key_prints_verified_exit_0(signed, run_cli):
    code, out, _ = run_cli("verify", "--scorecard", signed["scorecard"], "--public-key", signed["public"])
    assert code == 0
    assert out.startswith("verified: ")


def test_verify_without_a_pinned_key_prints_integrity_only_plainly_exit_0(signed, run_cli):
    code, out, _ = run_cli("verify", "--scorecard", signed["scorecard"])
    assert code == 0
    assert out.startswith("integrity-only: ")
    assert "no public key was pinned, so authorship is not established" in out


def test_verify_a_tampered_scorecard_prints_failed_exit_1(signed, run_cli):
    text = signed["scorecard"].read_text(encoding="utf-8")
    signed["scorecard"].write_text(text.replace('"decision": "FAIL"', '"decision": "PASS"', 1), encoding="utf-8")
    for extra in ((), ("--public-key", signed["public"])):
        code, out, _ = run_cli("verify", "--scorecard", signed["scorecard"], *extra)
        assert code == 1
        assert out.startswith("failed: ")


def test_verify_against_another_pinned_key_exits_1(signed, run_cli):
    other = signed["dir"] / "other"
    run_cli("keygen", "--out-private", f"{other}.pem", "--out-public", f"{other}.pub")
    code, out, _ = run_cli("verify", "--scorecard", signed["scorecard"], "--public-key", f"{other}.pub")
    assert code == 1 and out.startswith("failed: ") and "pinned" in out


def test_verify_a_malformed_envelope_exits_1(signed, run_cli):
    envelope = json.loads(signed["sig"].read_text())
    envelope["algorithm"] = "none"
    signed["sig"].write_text(json.dumps(envelope))
    code, out, _ = run_cli("verify", "--scorecard", signed["scorecard"])
    assert code == 1 and out.startswith("failed: malformed envelope")


@pytest.mark.parametrize("missing", ["scorecard", "signature", "public-key", "envelope-not-json", "bad-public-key"])
def test_verify_that_cannot_run_exits_2(signed, run_cli, missing):
    args = {"scorecard": signed["scorecard"], "signature": signed["sig"], "public-key": signed["public"]}
    if missing in args:
        args[missing] = signed["dir"] / f"no-such-{missing}"
    elif missing == "envelope-not-json":
        signed["sig"].write_text("<html>not json</html>")
    else:
        args["public-key"] = signed["scorecard"]
    code, out, err = run_cli("verify", *[x for k, v in args.items() for x in (f"--{k}", v)])
    assert code == 2, (out, err)
    assert err.startswith("scorekit verify: ") and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert out == ""


# --------------------------------------------------------------------------- attest
def test_attest_unsigned_writes_both_files_exit_0(tmp_path, run_cli, scorecard_text):
    scorecard = tmp_path / "scorecard.json"
    scorecard.write_text(scorecard_text, encoding="utf-8")
    code, out, err = run_cli("attest", "--scorecard", scorecard, "--out-dir", tmp_path / "card")
    assert code == 0, err
    card = json.loads((tmp_path / "card" / "agent-card.json").read_text(encoding="utf-8"))
    assert card["signature"]["outcome"] == "unsigned"
    assert "not legal compliance" in (tmp_path / "card" / "agent-card.md").read_text(encoding="utf-8")
    assert "not legal compliance or certification" in out


def test_attest_with_signature_and_pinned_key_is_verified(signed, run_cli):
    code, _, err = run_cli("attest", "--scorecard", signed["scorecard"], "--signature", signed["sig"],
                           "--public-key", signed["public"], "--out-dir", signed["dir"] / "card")
    assert code == 0, err
    card = json.loads((signed["dir"] / "card" / "agent-card.json").read_text(encoding="utf-8"))
    assert card["signature"]["outcome"] == "verified"


def test_attest_finds_the_default_envelope_and_defaults_out_dir_beside_the_scorecard(signed, run_cli):
    code, _, err = run_cli("attest", "--scorecard", signed["scorecard"])
    assert code == 0, err
    card = json.loads(signed["scorecard"].with_name("agent-card.json").read_text(encoding="utf-8"))
    assert card["signature"]["outcome"] == "integrity-only"


def test_attest_a_tampered_scorecard_writes_the_card_and_exits_1(signed, run_cli):
    text = signed["scorecard"].read_text(encoding="utf-8")
    signed["scorecard"].write_text(text.replace('"decision": "FAIL"', '"decision": "PASS"', 1), encoding="utf-8")
    code, out, _ = run_cli("attest", "--scorecard", signed["scorecard"], "--public-key", signed["public"],
                           "--out-dir", signed["dir"] / "card")
    assert code == 1 and "signature failed" in out
    card = json.loads((signed["dir"] / "card" / "agent-card.json").read_text(encoding="utf-8"))
    assert card["signature"]["outcome"] == "failed"


@pytest.mark.parametrize("problem", ["missing-scorecard", "not-json", "pinned-key-without-envelope"])
def test_attest_that_cannot_run_exits_2(tmp_path, run_cli, scorecard_text, problem):
    scorecard = tmp_path / "scorecard.json"
    args = ["attest", "--scorecard", scorecard, "--out-dir", tmp_path / "card"]
    if problem == "not-json":
        scorecard.write_text("{not json")
    elif problem == "pinned-key-without-envelope":
        scorecard.write_text(scorecard_text, encoding="utf-8")
        args += ["--public-key", tmp_path / "k.pub"]
    code, _, err = run_cli(*args)
    assert code == 2 and err.startswith("scorekit attest: ") and "Traceback" not in err
    assert not (tmp_path / "card" / "agent-card.json").exists()


# --------------------------------------------------------------------------- run --sign
def test_run_sign_writes_an_envelope_that_verifies(tmp_path, run_cli):
    write_keys = run_cli("keygen", "--out-private", tmp_path / "k.pem", "--out-public", tmp_path / "k.pub")
    assert write_keys[0] == 0
    code, out, err = run_cli("run", "--results", sk.example_path(), "--policy", sk.example_path(file="policy.yml"),
                             "--out-dir", tmp_path / "reports", "--sign", tmp_path / "k.pem")
    assert code == 0, err
    assert "scorecard.sig.json" in out
    code, out, _ = run_cli("verify", "--scorecard", tmp_path / "reports" / "scorecard.json",
                           "--public-key", tmp_path / "k.pub")
    assert (code, out.split(":")[0]) == (0, "verified")


def test_run_sign_with_a_missing_key_exits_2_before_writing(tmp_path, run_cli):
    code, _, err = run_cli("run", "--results", sk.example_path(), "--out-dir", tmp_path / "reports",
                           "--sign", tmp_path / "missing.pem")
    assert code == 2 and "private key not found" in err
    assert not (tmp_path / "reports" / "scorecard.json").exists()


def test_add_parsers_registers_the_four_commands_on_a_plain_argparse_parser():
    import argparse

    parser = argparse.ArgumentParser(prog="x")
    sub = parser.add_subparsers(dest="command")
    _cli_evidence.add_parsers(sub)
    assert {"keygen", "sign", "verify", "attest"} <= set(sub.choices)
    args = parser.parse_args(["verify", "--scorecard", "F"])
    assert args.handler is not None and args.signature is None and args.public_key is None


def test_help_of_each_command_exits_0(run_cli):
    for command in ("keygen", "sign", "verify", "attest"):
        assert run_cli(command, "--help")[0] == 0


def test_verify_through_the_console_entry_point_when_registered(signed):
    """When cli.py registers the commands, ``python -m scorekit verify`` gives the same exit codes."""
    proc = subprocess.run([sys.executable, "-m", "scorekit", "--help"], capture_output=True, text=True, timeout=60)
    if "verify" not in proc.stdout:
        pytest.skip("scorekit.cli does not register the evidence commands yet")
    proc = subprocess.run([sys.executable, "-m", "scorekit", "verify", "--scorecard", str(signed["scorecard"]),
                           "--public-key", str(signed["public"])], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("verified")
