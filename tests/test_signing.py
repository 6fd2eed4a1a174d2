"""Signing (SPEC §11): Ed25519 over RFC 8785 canonical JSON, detached envelope, three outcomes."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import math
import re
import stat
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

import scorekit as sk
from scorekit import SignatureError
from scorekit.signing import (
    ENVELOPE_FIELDS,
    canonical_json,
    default_signature_path,
    generate_keypair,
    public_key_base64,
    sign_scorecard,
    verify_bytes,
    verify_scorecard,
    write_keypair,
)


# --------------------------------------------------------------------------- fixtures
@lru_cache(maxsize=1)
def _example_scorecard() -> dict[str, Any]:
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="email-assistant", agent_version="1.2.3")
    return card.to_dict()


def _leaf_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every leaf of a JSON document; an empty object or array counts as a leaf."""
    if isinstance(value, dict) and value:
        return [p for k, v in value.items() for p in _leaf_paths(v, path + (k,))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in _leaf_paths(v, path + (i,))]
    return [path]


def _get(doc: Any, path: tuple) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        doc = doc[part]
    doc[path[-1]] = value


def _changed(value: Any) -> Any:
    """A different JSON value of (where possible) the same type: the smallest tamper."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return math.nextafter(value, math.inf)  # one ulp: survives shortest round-trip formatting
    if isinstance(value, str):
        return value + "x" if value else "x"
    if value is None:
        return 0
    if isinstance(value, list):
        return [None]
    if isinstance(value, dict):
        return {"x": None}
    raise TypeError(type(value))


LEAVES = _leaf_paths(_example_scorecard())


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("keys")
    write_keypair(d / "k.pem", d / "k.pub")
    write_keypair(d / "attacker.pem", d / "attacker.pub")
    return {"private": d / "k.pem", "public": d / "k.pub",
            "attacker_private": d / "attacker.pem", "attacker_public": d / "attacker.pub"}


@pytest.fixture(scope="module")
def signed(tmp_path_factory, keys) -> dict[str, Any]:
    """The example scorecard written by ``Scorecard.write`` and signed."""
    d = tmp_path_factory.mktemp("signed")
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="email-assistant", agent_version="1.2.3")
    path = card.write(d)["json"]
    envelope_path = sign_scorecard(path, keys["private"])
    return {
        "path": path,
        "text": path.read_text(encoding="utf-8"),
        "doc": json.loads(path.read_text(encoding="utf-8")),
        "envelope_path": envelope_path,
        "envelope": json.loads(envelope_path.read_text(encoding="utf-8")),
        "pinned": base64.b64decode(public_key_base64(keys["public"])),
    }


def _copy_signed(signed: dict[str, Any], tmp_path: Path, text: str | None = None) -> tuple[Path, Path]:
    path = tmp_path / "scorecard.json"
    path.write_text(signed["text"] if text is None else text, encoding="utf-8")
    env = tmp_path / "scorecard.sig.json"
    env.write_text(json.dumps(signed["envelope"]), encoding="utf-8")
    return path, env


# --------------------------------------------------------------------------- keygen
def test_keygen_writes_pkcs8_pem_private_key_and_pem_public_key(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

    private, public = write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    pem = private.read_bytes()
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----\n")  # PKCS#8, unencrypted
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----\n")  # SubjectPublicKeyInfo
    key = serialization.load_pem_private_key(pem, password=None)
    pub = serialization.load_pem_public_key(public.read_bytes())
    assert isinstance(key, Ed25519PrivateKey) and isinstance(pub, Ed25519PublicKey)
    raw = serialization.Encoding.Raw, serialization.PublicFormat.Raw
    assert key.public_key().public_bytes(*raw) == pub.public_bytes(*raw)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_keygen_private_key_file_mode_is_0600(tmp_path):
    private, _ = write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


@pytest.mark.parametrize("existing", ["private", "public"])
def test_keygen_refuses_to_overwrite_an_existing_file(tmp_path, existing):
    paths = {"private": tmp_path / "k.pem", "public": tmp_path / "k.pub"}
    paths[existing].write_text("precious")
    with pytest.raises(SignatureError, match="refusing to overwrite"):
        write_keypair(paths["private"], paths["public"])
    assert paths[existing].read_text() == "precious"
    other = paths["public" if existing == "private" else "private"]
    assert not other.exists()  # no half key pair left behind


def test_keygen_overwrite_true_replaces_the_pair_and_keeps_0600(tmp_path):
    first = write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    before = first[0].read_bytes()
    write_keypair(tmp_path / "k.pem", tmp_path / "k.pub", overwrite=True)
    assert first[0].read_bytes() != before
    if sys.platform != "win32":
        assert stat.S_IMODE(first[0].stat().st_mode) == 0o600


def test_keygen_same_path_for_both_keys_is_an_error(tmp_path):
    with pytest.raises(SignatureError, match="must differ"):
        write_keypair(tmp_path / "k", tmp_path / "k")


def test_generate_keypair_returns_fresh_pem_pairs():
    a, b = generate_keypair(), generate_keypair()
    assert a.private_pem != b.private_pem and a.public_pem != b.public_pem


# --------------------------------------------------------------------------- envelope
def test_sign_writes_scorecard_sig_json_beside_the_scorecard_by_default(signed):
    assert signed["envelope_path"] == signed["path"].with_name("scorecard.sig.json")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("scorecard.json", "scorecard.sig.json"), ("release-1.json", "release-1.sig.json"), ("card", "card.sig.json")],
)
def test_default_signature_path_strips_json_and_adds_sig_json(tmp_path, name, expected):
    assert default_signature_path(tmp_path / name) == tmp_path / expected


def test_envelope_has_exactly_the_spec_fields(signed, keys):
    env = signed["envelope"]
    assert tuple(sorted(env)) == tuple(sorted(ENVELOPE_FIELDS))
    assert env["algorithm"] == "Ed25519"
    assert env["canonicalization"] == "RFC8785"
    assert re.fullmatch(r"[0-9a-f]{64}", env["content_sha256"])
    assert env["public_key"] == public_key_base64(keys["public"])
    assert len(base64.b64decode(env["public_key"], validate=True)) == 32
    assert len(base64.b64decode(env["signature"], validate=True)) == 64
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", env["signed_at"])  # UTC ISO 8601


def test_signed_content_is_plain_rfc8785_so_other_verifiers_agree(signed):
    """An independent verifier: JCS of the parsed file, SHA-256 into the envelope, raw Ed25519 over
    JCS of the envelope without its signature (SPEC §11)."""
    import rfc8785
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    content = rfc8785.dumps(json.loads(signed["text"]))
    env = signed["envelope"]
    assert hashlib.sha256(content).hexdigest() == env["content_sha256"]
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(env["public_key"]))
    message = rfc8785.dumps({k: v for k, v in env.items() if k != "signature"})
    key.verify(base64.b64decode(env["signature"]), message)  # raises if not


def test_canonical_json_matches_the_rfc8785_reference_example():
    text = ('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
            '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}')
    expected = ('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
                '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}')
    assert canonical_json(json.loads(text)) == expected.encode("utf-8")


def test_resigning_replaces_the_envelope(signed, keys, tmp_path):
    path, env = _copy_signed(signed, tmp_path)
    sign_scorecard(path, keys["attacker_private"])
    assert verify_scorecard(path, public_key_path=keys["attacker_public"]).outcome == "verified"


def test_sign_to_a_custom_out_path(signed, keys, tmp_path):
    path, _ = _copy_signed(signed, tmp_path)
    out = sign_scorecard(path, keys["private"], out=tmp_path / "sub" / "s.json")
    assert out == tmp_path / "sub" / "s.json"
    assert verify_scorecard(path, out, keys["public"]).outcome == "verified"


def test_sign_refuses_to_overwrite_the_scorecard_with_the_envelope(signed, keys, tmp_path):
    path, _ = _copy_signed(signed, tmp_path)
    with pytest.raises(SignatureError, match="overwrite the scorecard"):
        sign_scorecard(path, keys["private"], out=path)
    assert path.read_text(encoding="utf-8") == signed["text"]


# --------------------------------------------------------------------------- outcomes
def test_round_trip_with_the_pinned_key_is_verified(signed, keys):
    result = verify_scorecard(signed["path"], public_key_path=keys["public"])
    assert (result.outcome, result.ok, result.exit_code, result.pinned) == ("verified", True, 0, True)
    assert "authorship" in result.reason


def test_round_trip_without_a_pinned_key_is_integrity_only(signed):
    result = verify_scorecard(signed["path"])
    assert (result.outcome, result.ok, result.exit_code, result.pinned) == ("integrity-only", True, 0, False)
    assert "authorship is not established" in result.reason
    assert result.content_sha256 == signed["envelope"]["content_sha256"]


def test_pinned_key_as_base64_of_the_raw_key_also_verifies(signed, keys, tmp_path):
    raw = tmp_path / "k.b64"
    raw.write_text(public_key_base64(keys["public"]) + "\n")
    assert verify_scorecard(signed["path"], public_key_path=raw).outcome == "verified"


# --------------------------------------------------------------------------- tamper tests
def test_the_example_scorecard_has_many_leaves_of_every_json_type():
    doc = _example_scorecard()
    kinds = {type(_get(doc, p)).__name__ for p in LEAVES}
    assert {"bool", "int", "float", "str", "NoneType", "list"} <= kinds
    assert len(LEAVES) > 200


@pytest.mark.parametrize("path", LEAVES, ids=["/".join(map(str, p)) or "<root>" for p in LEAVES])
def test_changing_any_single_value_fails_verification(signed, path):
    doc = copy.deepcopy(signed["doc"])
    old = _get(doc, path)
    _set(doc, path, _changed(old))
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    for pinned in (signed["pinned"], None):
        result = verify_bytes(text, signed["envelope"], pinned)
        assert result.outcome == "failed", (path, old)
        assert result.exit_code == 1


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda d: d.__setitem__("extra", True), id="add-a-key"),
        pytest.param(lambda d: d.pop("findings"), id="remove-a-key"),
        pytest.param(lambda d: d.__setitem__("verdicts", d.pop("dimensions")), id="rename-a-key"),
        pytest.param(lambda d: d["dimensions"].reverse(), id="reorder-an-array"),
        pytest.param(lambda d: d["dimensions"].pop(), id="drop-an-array-element"),
        pytest.param(lambda d: d["dimensions"][0].__setitem__("rate", str(d["dimensions"][0]["rate"])),
                     id="number-to-string"),
        pytest.param(lambda d: d.__setitem__("overall_pass", "false"), id="bool-to-string"),
        pytest.param(lambda d: d["agent"].__setitem__("name", "email-assistant\u0301"), id="combining-character"),
    ],
)
def test_structural_changes_fail_verification(signed, edit):
    doc = copy.deepcopy(signed["doc"])
    edit(doc)
    assert verify_bytes(json.dumps(doc), signed["envelope"], signed["pinned"]).outcome == "failed"


def test_tampered_file_on_disk_fails_verification(signed, keys, tmp_path):
    path, env = _copy_signed(signed, tmp_path, signed["text"].replace('"decision": "FAIL"', '"decision": "PASS"', 1))
    assert verify_scorecard(path, env, keys["public"]).outcome == "failed"
    assert verify_scorecard(path, env).outcome == "failed"


def test_a_duplicate_key_smuggled_into_the_scorecard_fails_verification(signed):
    text = signed["text"].replace('"decision": "FAIL"', '"decision": "PASS", "decision": "FAIL"', 1)
    result = verify_bytes(text, signed["envelope"], signed["pinned"])
    assert result.outcome == "failed" and "duplicate" in result.reason


def test_nan_smuggled_into_the_scorecard_fails_verification(signed):
    text = signed["text"].replace('"coverage": ', '"coverage": NaN, "was": ', 1)
    assert verify_bytes(text, signed["envelope"], signed["pinned"]).outcome == "failed"


def test_truncated_scorecard_fails_verification(signed, keys, tmp_path):
    path, env = _copy_signed(signed, tmp_path, signed["text"][: len(signed["text"]) // 2])
    result = verify_scorecard(path, env, keys["public"])
    assert result.outcome == "failed" and "not strict JSON" in result.reason


# --------------------------------------------------------------------------- attacker's key
def test_attacker_resigning_with_their_key_fails_against_the_pinned_key(signed, keys, tmp_path):
    text = signed["text"].replace('"decision": "FAIL"', '"decision": "PASS"', 1)
    path, _ = _copy_signed(signed, tmp_path, text)
    env = sign_scorecard(path, keys["attacker_private"])  # new envelope embeds the attacker's key
    result = verify_scorecard(path, env, keys["public"])
    assert result.outcome == "failed" and "pinned" in result.reason
    # Without a pinned key the attacker's envelope is self-consistent: integrity only, never authorship.
    assert verify_scorecard(path, env).outcome == "integrity-only"


def test_attacker_replacing_the_embedded_key_fails_with_and_without_a_pinned_key(signed, keys):
    envelope = dict(signed["envelope"], public_key=public_key_base64(keys["attacker_public"]))
    assert verify_bytes(signed["text"], envelope, signed["pinned"]).outcome == "failed"
    assert verify_bytes(signed["text"], envelope, None).outcome == "failed"


def test_attacker_signature_under_the_legitimate_embedded_key_fails(signed, keys, tmp_path):
    path, _ = _copy_signed(signed, tmp_path)
    attacker_env = json.loads(sign_scorecard(path, keys["attacker_private"], out=tmp_path / "a.json").read_text())
    envelope = dict(signed["envelope"], signature=attacker_env["signature"])
    for pinned in (signed["pinned"], None):
        result = verify_bytes(signed["text"], envelope, pinned)
        assert result.outcome == "failed" and "signature is not valid" in result.reason


def test_a_valid_envelope_for_other_content_fails(signed, keys, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"decision": "PASS"}')
    env = json.loads(sign_scorecard(other, keys["private"]).read_text())
    assert verify_bytes(signed["text"], env, signed["pinned"]).outcome == "failed"


def test_changed_content_sha256_in_the_envelope_fails(signed):
    envelope = dict(signed["envelope"], content_sha256="0" * 64)
    assert verify_bytes(signed["text"], envelope, signed["pinned"]).outcome == "failed"


# --------------------------------------------------------------------------- representation is not content
def test_reindented_and_key_reordered_json_still_verifies(signed, keys, tmp_path):
    def reorder(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: reorder(value[k]) for k in sorted(value, reverse=True)}
        if isinstance(value, list):
            return [reorder(v) for v in value]
        return value

    for text in (
        json.dumps(signed["doc"]),  # compact
        json.dumps(signed["doc"], indent=7, ensure_ascii=True),  # \uXXXX escapes
        json.dumps(reorder(signed["doc"]), indent="\t"),
        "\ufeff" + json.dumps(signed["doc"], separators=(" , ", " : ")) + "\n\n",  # BOM and odd spacing
    ):
        path, env = _copy_signed(signed, tmp_path, text)
        assert verify_scorecard(path, env, keys["public"]).outcome == "verified"


def test_number_spelling_is_not_content_under_plain_jcs(signed):
    """59, 59.0 and 5.9e1 are one JSON number: RFC 8785 writes each as 59."""
    n = signed["doc"]["dimensions"][0]["n"]
    needle = f'"n": {n},'
    assert needle in signed["text"]
    for spelling in (f"{n}.0", f"{n / 10}e1", f"{n}E0"):
        text = signed["text"].replace(needle, f'"n": {spelling},', 1)
        assert verify_bytes(text, signed["envelope"], signed["pinned"]).outcome == "verified", spelling


# --------------------------------------------------------------------------- NaN never reaches signed content
@pytest.mark.parametrize(
    "content",
    ['{"rate": NaN}', '{"rate": Infinity}', '{"rate": -Infinity}', '{"rate": 1e400}', '{"a": 1, "a": 2}',
     '{"n": 9007199254740993}', '{"s": "\\ud800"}', '{"rate": ', "[1, 2,]"],
    ids=["nan", "infinity", "minus-infinity", "overflow", "duplicate-key", "unsafe-integer", "lone-surrogate",
         "truncated", "trailing-comma"],
)
def test_a_scorecard_with_nan_or_other_unsignable_content_cannot_be_signed(tmp_path, keys, content):
    path = tmp_path / "scorecard.json"
    path.write_text(content)
    with pytest.raises(SignatureError):
        sign_scorecard(path, keys["private"])
    assert not default_signature_path(path).exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_canonical_json_refuses_non_finite_numbers(value):
    with pytest.raises(SignatureError):
        canonical_json({"rate": value})


# --------------------------------------------------------------------------- malformed envelopes: failed
def _malformed(envelope: dict[str, Any]) -> list[tuple[str, Any]]:
    cases: list[tuple[str, Any]] = [(f"missing-{k}", {f: v for f, v in envelope.items() if f != k})
                                    for k in ENVELOPE_FIELDS]
    cases += [
        ("algorithm-rsa", dict(envelope, algorithm="RSA")),
        ("canonicalization-other", dict(envelope, canonicalization="JCS-tagged")),
        ("content-sha256-upper", dict(envelope, content_sha256=envelope["content_sha256"].upper())),
        ("public-key-not-base64", dict(envelope, public_key="not base64!")),
        ("public-key-short", dict(envelope, public_key=base64.b64encode(b"x" * 31).decode())),
        ("signature-short", dict(envelope, signature=base64.b64encode(b"x" * 63).decode())),
        ("signature-number", dict(envelope, signature=7)),
        ("signed-at-number", dict(envelope, signed_at=0)),
        ("array", [envelope]),
        ("string", "Ed25519"),
    ]
    return cases


@pytest.mark.parametrize("case", range(len(ENVELOPE_FIELDS) + 10))
def test_a_malformed_envelope_fails_verification(signed, case):
    name, envelope = _malformed(signed["envelope"])[case]
    result = verify_bytes(signed["text"], envelope, signed["pinned"])
    assert result.outcome == "failed", name
    assert result.exit_code == 1


def test_an_envelope_with_a_duplicate_key_fails_verification(signed, tmp_path):
    path, env = _copy_signed(signed, tmp_path)
    text = json.dumps(signed["envelope"])
    env.write_text(text[:-1] + ', "algorithm": "Ed25519"}')
    result = verify_scorecard(path, env)
    assert result.outcome == "failed" and "duplicate" in result.reason


# --------------------------------------------------------------------------- could not run: SignatureError
def test_verification_that_cannot_run_raises_signature_error(signed, keys, tmp_path):
    path, env = _copy_signed(signed, tmp_path)
    with pytest.raises(SignatureError, match="scorecard not found"):
        verify_scorecard(tmp_path / "missing.json", env, keys["public"])
    with pytest.raises(SignatureError, match="signature envelope not found"):
        verify_scorecard(path, tmp_path / "missing.sig.json", keys["public"])
    with pytest.raises(SignatureError, match="public key not found"):
        verify_scorecard(path, env, tmp_path / "missing.pub")
    with pytest.raises(SignatureError, match="is a directory"):
        verify_scorecard(tmp_path, env)
    garbage = tmp_path / "garbage.pub"
    garbage.write_text("hello")
    with pytest.raises(SignatureError, match="not an Ed25519 public key"):
        verify_scorecard(path, env, garbage)
    env.write_text("this is not json")
    with pytest.raises(SignatureError, match="not valid JSON"):
        verify_scorecard(path, env)


def test_signing_that_cannot_run_raises_signature_error(signed, keys, tmp_path):
    path, _ = _copy_signed(signed, tmp_path)
    with pytest.raises(SignatureError, match="private key not found"):
        sign_scorecard(path, tmp_path / "missing.pem")
    with pytest.raises(SignatureError, match="scorecard not found"):
        sign_scorecard(tmp_path / "missing.json", keys["private"])
    with pytest.raises(SignatureError, match="not a PEM private key"):
        sign_scorecard(path, keys["public"])


def test_a_non_ed25519_or_encrypted_private_key_is_refused(signed, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path, _ = _copy_signed(signed, tmp_path)
    ec_key = tmp_path / "ec.pem"
    ec_key.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    with pytest.raises(SignatureError, match="not an Ed25519 private key"):
        sign_scorecard(path, ec_key)
    encrypted = tmp_path / "enc.pem"
    encrypted.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret")))
    with pytest.raises(SignatureError, match="encrypted"):
        sign_scorecard(path, encrypted)


def test_signature_errors_are_scorekit_errors():
    assert issubclass(SignatureError, sk.ScorekitError)


# --------------------------------------------------------------------------- lazy imports
def test_importing_scorekit_and_its_signing_modules_does_not_import_cryptography_or_rfc8785():
    code = (
        "import sys\n"
        "import scorekit, scorekit.signing, scorekit.agent_card, scorekit._cli_evidence\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cryptography', 'rfc8785')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
