"""Ed25519 signatures over RFC 8785 canonical JSON of a scorecard (SPEC §11).

What is signed
--------------
The *content* of a ``scorecard.json`` is its RFC 8785 (JCS) canonical JSON: the
parsed document re-serialised with sorted keys, no whitespace and ECMAScript
number formatting (plain JCS, no type tags — every number in a scorecard is one
scorekit wrote). Re-indenting the file, reordering its keys or re-spelling a
number (``59`` / ``59.0`` / ``5.9e1``) does not change the content; changing any
value does. Any RFC 8785 implementation reproduces the bytes, so a verifier in
another language agrees: the Ed25519 message is exactly the canonical bytes.

The scorecard is parsed strictly: ``NaN``, ``Infinity``, numbers that overflow to
infinity and duplicate object keys are rejected, so a non-finite number can never
reach signed content and one file cannot be read two ways.

The envelope
------------
``sign_scorecard`` writes a detached JSON envelope, by default
``<F without .json>.sig.json`` beside ``F`` (``scorecard.sig.json``)::

    {"algorithm": "Ed25519", "canonicalization": "RFC8785",
     "content_sha256": "<hex SHA-256 of the canonical bytes>",
     "public_key": "<base64 of the raw 32-byte public key>",
     "signature": "<base64 of the 64-byte signature>",
     "signed_at": "2026-01-31T12:00:00Z"}

The Ed25519 message is the RFC 8785 canonical JSON of the envelope *without*
``signature`` (:func:`signed_message`, SPEC §11). It holds ``content_sha256``,
so the scorecard's content is covered, together with the envelope's own fields:
changing ``signed_at``, the algorithm, the canonicalization, the public key or
the digest breaks the signature. An envelope with a field beyond
:data:`ENVELOPE_FIELDS` is malformed (``failed``): nothing unsigned can ride
along. Another verifier reproduces the check with any JCS implementation:
``verify(signature, JCS(envelope − signature))`` and
``content_sha256 == SHA-256(JCS(scorecard))``.

Outcomes of :func:`verify_scorecard`
------------------------------------
``verified``
    The signature is valid and was made by the *pinned* public key: authorship.
``integrity-only``
    The signature is valid against the key embedded in the envelope and no key
    was pinned. This shows the content is unchanged since *someone* signed it; it
    does not show who (an attacker can re-sign with their own key).
``failed``
    The scorecard was changed, the signature is bad, the envelope is malformed,
    or the envelope's key is not the pinned key.

A verification that cannot run (a missing or unreadable scorecard, envelope or
key file, an envelope that is not JSON, a pinned key file that holds no Ed25519
public key) raises :class:`~scorekit.SignatureError` instead (CLI exit 2).

``cryptography`` and ``rfc8785`` are imported only inside the functions.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _io
from ._errors import SignatureError, StrictJSONError
from ._io import (
    KEY_LIMIT,
    SCORECARD_JSON_LIMIT,
    SIGNATURE_LIMIT,
    atomic_write_bytes,
    decode_utf8,
    loads_strict,
    read_input_bytes,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = [
    "ALGORITHM",
    "CANONICALIZATION",
    "ENVELOPE_FIELDS",
    "OUTCOMES",
    "KeyPair",
    "VerifyResult",
    "canonical_json",
    "default_signature_path",
    "generate_keypair",
    "public_key_base64",
    "read_json_strict",
    "sign_scorecard",
    "signed_message",
    "verify_bytes",
    "verify_scorecard",
    "write_keypair",
]

ALGORITHM = "Ed25519"
CANONICALIZATION = "RFC8785"
ENVELOPE_FIELDS = ("algorithm", "canonicalization", "content_sha256", "public_key", "signature", "signed_at")
VERIFIED, INTEGRITY_ONLY, FAILED = "verified", "integrity-only", "failed"
OUTCOMES = (VERIFIED, INTEGRITY_ONLY, FAILED)

_HEX64 = re.compile(r"[0-9a-f]{64}")


# --------------------------------------------------------------------------- strict JSON
def read_json_strict(
    path: str | os.PathLike[str],
    what: str = "scorecard",
    error: type[Exception] = SignatureError,
    *,
    limit: int = SCORECARD_JSON_LIMIT,
) -> Any:
    """Parse a JSON file, rejecting NaN/Infinity, overflowing numbers and duplicate keys.

    :func:`scorekit._io.read_json_strict` with this module's defaults (a
    scorecard; a :class:`~scorekit.SignatureError`), kept here as public API.

    Parameters
    ----------
    path : path-like
    what : str
        How error messages name the file ("scorecard", "signature envelope").
    error : exception class
        Raised (with a one-line message naming the file) when the file is missing,
        not a regular file, larger than ``limit`` bytes, unreadable or not strict JSON.
    limit : int
        The most bytes read (default: :data:`~scorekit._io.SCORECARD_JSON_LIMIT`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('{"a": NaN}')
    >>> try:
    ...     read_json_strict(p)
    ... except SignatureError as exc:
    ...     print("rejected")
    rejected
    """
    return _io.read_json_strict(path, what, error, limit=limit)


def canonical_json(obj: Any) -> bytes:
    """RFC 8785 (JCS) canonical bytes of ``obj`` — the signed content of a scorecard.

    Raises
    ------
    SignatureError
        ``obj`` holds a value JCS cannot represent (NaN, infinity, an integer
        beyond ±(2**53 − 1), a lone surrogate, a non-JSON type).

    Examples
    --------
    >>> canonical_json({"b": 1.0, "a": [True, None, "é"]}).decode()
    '{"a":[true,null,"é"],"b":1}'
    """
    import rfc8785  # lazy: importing scorekit must not import it

    try:
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise SignatureError(f"cannot canonicalise the scorecard as RFC 8785 JSON: {exc}") from None
    except RecursionError:
        raise SignatureError("cannot canonicalise the scorecard: nested too deeply") from None


def default_signature_path(scorecard_path: str | os.PathLike[str]) -> Path:
    """``<F without .json>.sig.json`` beside ``F`` (``scorecard.json`` → ``scorecard.sig.json``).

    Examples
    --------
    >>> default_signature_path("out/scorecard.json").as_posix()
    'out/scorecard.sig.json'
    """
    path = Path(scorecard_path)
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    return path.with_name(f"{stem}.sig.json")


# --------------------------------------------------------------------------- keys
class KeyPair(NamedTuple):
    """A new Ed25519 key pair as PEM bytes (PKCS#8 private key, SubjectPublicKeyInfo public key)."""

    private_pem: bytes
    public_pem: bytes


def generate_keypair() -> KeyPair:
    """A new Ed25519 key pair: unencrypted PKCS#8 PEM private key, SubjectPublicKeyInfo PEM public key.

    Examples
    --------
    >>> pair = generate_keypair()
    >>> pair.private_pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    True
    >>> pair.public_pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    True
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return KeyPair(private_pem, public_pem)


def _write_new(path: Path, data: bytes, mode: int, overwrite: bool) -> None:
    """Write ``data`` with permissions ``mode``; atomically replace only when ``overwrite``."""
    if not overwrite:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            raise SignatureError(f"{path}: already exists; refusing to overwrite a key file") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(path, mode)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return
    atomic_write_bytes(path, data, mode=mode)  # written 0600, then given ``mode``


def write_keypair(
    private_path: str | os.PathLike[str],
    public_path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
) -> tuple[Path, Path]:
    """Generate an Ed25519 key pair and write it: private key PKCS#8 PEM (mode 0600), public key PEM.

    Parameters
    ----------
    private_path, public_path : path-like
        Must differ. Existing files are refused unless ``overwrite=True``.
        Missing parent folders are created.

    Returns
    -------
    (Path, Path)
        The private and public key paths.

    Raises
    ------
    SignatureError
        A file exists (without ``overwrite``), the paths are equal, or a file cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> priv, pub = write_keypair(d / "k.pem", d / "k.pub")
    >>> oct(priv.stat().st_mode & 0o777)
    '0o600'
    """
    private_path, public_path = Path(private_path), Path(public_path)
    if private_path.resolve() == public_path.resolve():
        raise SignatureError(f"{private_path}: the private and public key paths must differ")
    if not overwrite:
        for path in (private_path, public_path):
            if path.exists() or path.is_symlink():
                raise SignatureError(f"{path}: already exists; refusing to overwrite a key file")
    pair = generate_keypair()
    written: list[Path] = []
    try:
        for path, data, mode in ((private_path, pair.private_pem, 0o600), (public_path, pair.public_pem, 0o644)):
            # A missing folder is created (the private key's only for its owner: 0700).
            path.parent.mkdir(mode=0o700 if mode == 0o600 else 0o777, parents=True, exist_ok=True)
            _write_new(path, data, mode, overwrite)
            written.append(path)
    except OSError as exc:
        if not overwrite:  # never leave half a key pair behind
            for path in written:
                path.unlink(missing_ok=True)
        raise SignatureError(f"{exc.filename or private_path}: cannot write the key ({exc.strerror or exc})") from None
    return private_path, public_path


def _load_private_key(path: Path) -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = read_input_bytes(path, "private key", SignatureError, limit=KEY_LIMIT)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise SignatureError(f"{path}: the private key is encrypted; scorekit signs with an unencrypted PKCS#8 key "
                             "(keep it in a secret store with mode 0600)") from None
    except (ValueError, binascii.Error):
        raise SignatureError(f"{path}: not a PEM private key (expected PKCS#8 PEM from `scorekit keygen`)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key ({type(key).__name__})")
    return key


def _raw_public(key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _load_public_key_raw(path: Path) -> bytes:
    """The raw 32 bytes of a pinned public key: a PEM file, or base64 of the raw key (as in an envelope)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    data = read_input_bytes(path, "public key", SignatureError, limit=KEY_LIMIT)
    if b"-----BEGIN" in data:
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, binascii.Error):
            raise SignatureError(f"{path}: not a PEM public key") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SignatureError(f"{path}: not an Ed25519 public key ({type(key).__name__})")
        return _raw_public(key)
    raw = _b64decode(data.strip())
    if raw is None or len(raw) != 32:
        raise SignatureError(f"{path}: not an Ed25519 public key (expected PEM, or base64 of the raw 32-byte key)")
    return raw


def public_key_base64(public_key_path: str | os.PathLike[str]) -> str:
    """Base64 of the raw 32-byte key in a public key file (the form an envelope embeds)."""
    return base64.b64encode(_load_public_key_raw(Path(public_key_path))).decode("ascii")


def _b64decode(value: Any) -> bytes | None:
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError:
            return None
    if not isinstance(value, bytes):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


# --------------------------------------------------------------------------- signing
def _utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def sign_scorecard(
    scorecard_path: str | os.PathLike[str],
    key_path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
) -> Path:
    """Sign a ``scorecard.json`` with an Ed25519 private key; write the detached envelope.

    Parameters
    ----------
    scorecard_path : path-like
        The scorecard (strict JSON: no NaN/Infinity, no duplicate keys).
    key_path : path-like
        Unencrypted PKCS#8 PEM Ed25519 private key (``scorekit keygen``).
    out : path-like, optional
        Envelope path; default ``<F without .json>.sig.json`` beside the scorecard.
        An existing envelope is replaced (atomically).

    Returns
    -------
    Path
        The envelope written.

    Raises
    ------
    SignatureError
        A file is missing or unreadable, the scorecard is not strict JSON or holds a
        value RFC 8785 cannot represent, the key is not an Ed25519 private key, or
        the envelope cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "scorecard.json").write_text('{"decision": "PASS"}')
    >>> _ = write_keypair(d / "k.pem", d / "k.pub")
    >>> sign_scorecard(d / "scorecard.json", d / "k.pem").name
    'scorecard.sig.json'
    >>> verify_scorecard(d / "scorecard.json", public_key_path=d / "k.pub").outcome
    'verified'
    """
    scorecard_path = Path(scorecard_path)
    out_path = Path(out) if out is not None else default_signature_path(scorecard_path)
    if out_path.resolve() == scorecard_path.resolve():
        raise SignatureError(f"{out_path}: the signature envelope would overwrite the scorecard")
    key = _load_private_key(Path(key_path))
    content = canonical_json(read_json_strict(scorecard_path, "scorecard"))
    envelope = {
        "algorithm": ALGORITHM,
        "canonicalization": CANONICALIZATION,
        "content_sha256": hashlib.sha256(content).hexdigest(),
        "public_key": base64.b64encode(_raw_public(key.public_key())).decode("ascii"),
        "signed_at": _utc_now(),
    }
    envelope["signature"] = base64.b64encode(key.sign(signed_message(envelope))).decode("ascii")
    envelope = {name: envelope[name] for name in ENVELOPE_FIELDS}  # the documented order
    text = json.dumps(envelope, indent=2) + "\n"
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(out_path, text, mode=0o644)
    except OSError as exc:
        raise SignatureError(f"{out_path}: cannot write the signature envelope ({exc.strerror or exc})") from None
    return out_path


# --------------------------------------------------------------------------- verifying
@dataclass(frozen=True)
class VerifyResult:
    """The outcome of :func:`verify_scorecard`.

    Attributes
    ----------
    outcome : str
        ``verified``, ``integrity-only`` or ``failed``.
    reason : str
        One plain sentence saying what was (or was not) established.
    pinned : bool
        A public key was pinned.
    public_key : str or None
        The envelope's embedded key (base64 of the raw 32 bytes), when readable.
    content_sha256 : str or None
        SHA-256 of the scorecard's canonical content as recomputed now.
    signed_at : str or None
        The envelope's ``signed_at`` (covered by the signature).
    """

    outcome: str
    reason: str
    pinned: bool = False
    public_key: str | None = None
    content_sha256: str | None = None
    signed_at: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        """True for ``verified`` and ``integrity-only``."""
        return self.outcome in (VERIFIED, INTEGRITY_ONLY)

    @property
    def exit_code(self) -> int:
        """The CLI exit code: 0 for verified / integrity-only, 1 for failed."""
        return 0 if self.ok else 1

    def message(self) -> str:
        """The line ``scorekit verify`` prints."""
        return f"{self.outcome}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "reason": self.reason,
            "pinned": self.pinned,
            "public_key": self.public_key,
            "content_sha256": self.content_sha256,
            "signed_at": self.signed_at,
        }


def signed_message(envelope: dict[str, Any]) -> bytes:
    """The bytes an envelope's Ed25519 signature is over: RFC 8785 of the envelope without ``signature``.

    Examples
    --------
    >>> signed_message({"signed_at": "2026-01-31T12:00:00Z", "algorithm": "Ed25519", "signature": "..."})
    b'{"algorithm":"Ed25519","signed_at":"2026-01-31T12:00:00Z"}'
    """
    return canonical_json({name: value for name, value in envelope.items() if name != "signature"})


def _envelope_problem(envelope: Any) -> tuple[str | None, bytes | None, bytes | None]:
    """(problem, raw public key, raw signature) of a parsed envelope."""
    if not isinstance(envelope, dict):
        return f"malformed envelope: expected a JSON object, got {type(envelope).__name__}", None, None
    missing = [k for k in ENVELOPE_FIELDS if k not in envelope]
    if missing:
        return f"malformed envelope: missing {', '.join(missing)}", None, None
    unknown = sorted(str(k) for k in envelope if k not in ENVELOPE_FIELDS)
    if unknown:
        return (f"malformed envelope: unknown field{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))} (nothing unsigned may ride along)"), None, None
    if envelope["algorithm"] != ALGORITHM:
        return f"malformed envelope: algorithm {envelope['algorithm']!r} is not {ALGORITHM!r}", None, None
    if envelope["canonicalization"] != CANONICALIZATION:
        return (f"malformed envelope: canonicalization {envelope['canonicalization']!r} is not "
                f"{CANONICALIZATION!r}"), None, None
    if not isinstance(envelope["content_sha256"], str) or not _HEX64.fullmatch(envelope["content_sha256"]):
        return "malformed envelope: content_sha256 is not 64 lowercase hex digits", None, None
    if not isinstance(envelope["signed_at"], str):
        return "malformed envelope: signed_at is not a string", None, None
    public = _b64decode(envelope["public_key"])
    if public is None or len(public) != 32:
        return "malformed envelope: public_key is not base64 of a raw 32-byte Ed25519 key", None, None
    signature = _b64decode(envelope["signature"])
    if signature is None or len(signature) != 64:
        return "malformed envelope: signature is not base64 of a 64-byte Ed25519 signature", None, None
    return None, public, signature


def verify_bytes(
    scorecard_text: str | bytes,
    envelope: Any,
    pinned_public_key: bytes | None = None,
) -> VerifyResult:
    """Verify scorecard text against a parsed envelope, in memory (no file access).

    Parameters
    ----------
    scorecard_text : str or bytes
        The scorecard file's content.
    envelope : object
        The parsed envelope (normally a dict).
    pinned_public_key : bytes, optional
        The raw 32-byte public key to require (authorship); ``None`` checks
        integrity against the embedded key only.

    Returns
    -------
    VerifyResult
        Never raises for bad content: a scorecard that is not strict JSON, a
        malformed envelope or a bad signature is a ``failed`` outcome.
    """
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    pinned = pinned_public_key is not None
    problem, public, signature = _envelope_problem(envelope)
    embedded = base64.b64encode(public).decode("ascii") if public is not None else None
    signed_at = envelope.get("signed_at") if isinstance(envelope, dict) else None
    signed_at = signed_at if isinstance(signed_at, str) else None

    def result(outcome: str, reason: str, digest: str | None = None) -> VerifyResult:
        return VerifyResult(outcome, reason, pinned, embedded, digest, signed_at)

    if problem is not None:
        return result(FAILED, problem)
    assert public is not None and signature is not None  # _envelope_problem gives both when it finds no problem
    if isinstance(scorecard_text, bytes):
        try:
            scorecard_text = scorecard_text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return result(FAILED, "the scorecard is not UTF-8 text, so it is not the signed content")
    try:
        obj = loads_strict(scorecard_text)
    except (StrictJSONError, json.JSONDecodeError) as exc:
        return result(FAILED, f"the scorecard is not strict JSON ({exc}), so it is not the signed content")
    try:
        content = canonical_json(obj)
    except SignatureError as exc:
        return result(FAILED, f"{exc}; it is not the signed content")
    digest = hashlib.sha256(content).hexdigest()
    if digest != envelope["content_sha256"]:
        return result(FAILED, "the scorecard content does not match the signed content (content_sha256 differs): "
                              "it was changed after signing, or the envelope belongs to another scorecard", digest)
    if pinned and pinned_public_key != public:
        return result(FAILED, "the envelope was signed with a different key than the pinned public key "
                              "(key mismatch: authorship not established)", digest)
    try:
        message = signed_message(envelope)
    except SignatureError as exc:  # a field value JCS cannot write: not what was signed
        return result(FAILED, f"malformed envelope: {exc}", digest)
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except InvalidSignature:
        return result(FAILED, "the signature is not valid for this envelope and key (the envelope's fields, "
                              "signed_at included, or the content digest were changed, or another key signed)",
                      digest)
    except ValueError as exc:  # pragma: no cover - 32 bytes always load
        return result(FAILED, f"malformed envelope: unusable public key ({exc})", digest)
    if pinned:
        return result(VERIFIED, "the signature is valid and was made by the pinned public key "
                                "(integrity and authorship)", digest)
    return result(INTEGRITY_ONLY, "the signature matches the key embedded in the envelope; no public key was "
                                  "pinned, so authorship is not established", digest)


def verify_scorecard(
    scorecard_path: str | os.PathLike[str],
    signature_path: str | os.PathLike[str] | None = None,
    public_key_path: str | os.PathLike[str] | None = None,
) -> VerifyResult:
    """Verify a scorecard against its detached envelope.

    Parameters
    ----------
    scorecard_path : path-like
    signature_path : path-like, optional
        Default ``<F without .json>.sig.json`` beside the scorecard.
    public_key_path : path-like, optional
        Pinned public key (PEM from ``scorekit keygen``, or base64 of the raw key).
        With it a valid signature is ``verified``; without it, ``integrity-only``.

    Returns
    -------
    VerifyResult
        ``outcome`` ``verified`` / ``integrity-only`` / ``failed`` with a ``reason``.

    Raises
    ------
    SignatureError
        Verification could not run: the scorecard, envelope or key file is missing
        or unreadable, the envelope is not JSON, or the pinned key file holds no
        Ed25519 public key.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "scorecard.json").write_text('{"decision": "PASS", "n": 3}')
    >>> _ = write_keypair(d / "k.pem", d / "k.pub")
    >>> _ = sign_scorecard(d / "scorecard.json", d / "k.pem")
    >>> verify_scorecard(d / "scorecard.json").outcome
    'integrity-only'
    >>> _ = (d / "scorecard.json").write_text('{"decision": "PASS", "n": 4}')
    >>> verify_scorecard(d / "scorecard.json", public_key_path=d / "k.pub").outcome
    'failed'
    """
    scorecard_path = Path(scorecard_path)
    signature_path = Path(signature_path) if signature_path is not None else default_signature_path(scorecard_path)
    scorecard_bytes = read_input_bytes(scorecard_path, "scorecard", SignatureError, limit=SCORECARD_JSON_LIMIT)
    what = "signature envelope"
    envelope_bytes = read_input_bytes(signature_path, what, SignatureError, limit=SIGNATURE_LIMIT)
    envelope_text = decode_utf8(envelope_bytes, str(signature_path), SignatureError)
    pinned = _load_public_key_raw(Path(public_key_path)) if public_key_path is not None else None
    try:
        envelope = loads_strict(envelope_text)
    except StrictJSONError as exc:  # JSON, but ambiguous, non-finite, unreadably long or deep: malformed
        return VerifyResult(FAILED, f"malformed envelope: {exc}", pinned is not None)
    except json.JSONDecodeError as exc:
        raise SignatureError(f"{signature_path}:{exc.lineno}: the {what} is not valid JSON ({exc.msg})") from None
    return verify_bytes(scorecard_bytes, envelope, pinned)
