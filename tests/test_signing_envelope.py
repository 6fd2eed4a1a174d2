"""The signature covers the envelope's own fields (SPEC §11).

The signed message is RFC 8785 of the envelope without ``signature``: changing
``signed_at`` (or any other field) after signing, or adding a field, gives
``failed``, where it used to give ``verified``.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import rfc8785

from scorekit.signing import ENVELOPE_FIELDS, sign_scorecard, signed_message, verify_scorecard, write_keypair

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def signed(tmp_path):
    card = tmp_path / "scorecard.json"
    card.write_text(json.dumps({"decision": "PASS", "overall_pass": True, "n": 3}), encoding="utf-8")
    write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    envelope = sign_scorecard(card, tmp_path / "k.pem")
    return card, envelope, tmp_path / "k.pub"


def _rewrite(envelope: Path, **changes) -> None:
    data = json.loads(envelope.read_text(encoding="utf-8"))
    data.update(changes)
    envelope.write_text(json.dumps(data, indent=2), encoding="utf-8")


def test_the_signature_is_over_the_canonical_envelope_without_signature(signed):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    _, envelope, _ = signed
    data = json.loads(envelope.read_text(encoding="utf-8"))
    assert list(data) == list(ENVELOPE_FIELDS)
    message = rfc8785.dumps({k: v for k, v in data.items() if k != "signature"})
    assert signed_message(data) == message
    Ed25519PublicKey.from_public_bytes(base64.b64decode(data["public_key"])).verify(
        base64.b64decode(data["signature"]), message)


@pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "embedded-key"])
def test_changing_signed_at_after_signing_fails_verification(signed, pinned):
    card, envelope, public = signed
    assert verify_scorecard(card, envelope, public if pinned else None).ok
    _rewrite(envelope, signed_at="1999-01-01T00:00:00Z")
    result = verify_scorecard(card, envelope, public if pinned else None)
    assert result.outcome == "failed" and "not valid for this envelope" in result.reason


@pytest.mark.parametrize("field", ["extra", "comment", "signed_by"])
def test_an_envelope_with_an_unknown_field_fails_verification(signed, field):
    card, envelope, public = signed
    _rewrite(envelope, **{field: "anything"})
    result = verify_scorecard(card, envelope, public)
    assert result.outcome == "failed" and "unknown field" in result.reason and field in result.reason


def test_a_content_digest_changed_with_the_scorecard_fails_verification(signed):
    # Re-pointing content_sha256 at a changed scorecard: the digest now matches, the signature does not.
    import hashlib

    card, envelope, public = signed
    card.write_text(json.dumps({"decision": "PASS", "overall_pass": True, "n": 4}), encoding="utf-8")
    _rewrite(envelope, content_sha256=hashlib.sha256(rfc8785.dumps(json.loads(card.read_text()))).hexdigest())
    assert verify_scorecard(card, envelope, public).outcome == "failed"


def test_verify_cli_exits_1_for_a_changed_signed_at_and_0_before(signed):
    card, envelope, public = signed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

    def verify() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "scorekit", "verify", "--scorecard", str(card),
                               "--public-key", str(public)], capture_output=True, text=True, timeout=120, env=env)

    before = verify()
    assert before.returncode == 0 and before.stdout.startswith("verified:")
    _rewrite(envelope, signed_at="2001-01-01T00:00:00Z")
    after = verify()
    assert after.returncode == 1 and after.stdout.startswith("failed:"), after.stdout
