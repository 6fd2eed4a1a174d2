"""CLI sub-commands for signing and the Agent Card (SPEC §11): keygen, sign, verify, attest.

``add_parsers(sub)`` registers them on the ``scorekit`` sub-parsers object and,
when a ``run`` command is already registered without ``--sign``, adds
``run --sign KEY`` (sign ``scorecard.json`` after the reports are written).

Exit codes (SPEC §14): 0 ok — ``verified`` and ``integrity-only`` included;
1 the evidence says no — verification ``failed`` (tampered content, bad
signature, malformed envelope, pinned key mismatch); 2 the command could not
run — a missing or unreadable file, an envelope that is not JSON, a key that is
not an Ed25519 key, a scorecard with NaN. Handlers raise ``ScorekitError`` for
those; ``scorekit.cli.main`` prints one line and exits 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._errors import InputError, SignatureError
from ._terminal import terminal_text as _t

__all__ = ["add_parsers"]

EXIT_OK, EXIT_NO = 0, 1
Handler = Callable[[argparse.Namespace], int]


# --------------------------------------------------------------------------- commands
def _cmd_keygen(args: argparse.Namespace) -> int:
    from .signing import write_keypair

    private, public = write_keypair(args.out_private, args.out_public, overwrite=args.force)
    print(f"wrote {_t(private)} (Ed25519 private key, PKCS#8 PEM, mode 0600: keep it secret)")
    print(f"wrote {_t(public)} (public key, PEM: pin it with `scorekit verify --public-key {_t(public)}`)")
    return EXIT_OK


def _cmd_sign(args: argparse.Namespace) -> int:
    from ._io import SIGNATURE_LIMIT
    from .signing import read_json_strict, sign_scorecard

    out = sign_scorecard(args.scorecard, args.key, out=args.out)
    envelope = read_json_strict(out, "signature envelope", limit=SIGNATURE_LIMIT)
    print(f"signed {_t(args.scorecard)}: wrote {_t(out)}")
    print(f"content sha256 (RFC 8785): {_t(envelope['content_sha256'])}")
    print(f"public key: {_t(envelope['public_key'])}")
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    from .signing import verify_scorecard

    result = verify_scorecard(args.scorecard, args.signature, args.public_key)
    print(_t(result.message()))
    return result.exit_code


def _cmd_attest(args: argparse.Namespace) -> int:
    from .agent_card import build_agent_card, write_agent_card
    from .signing import default_signature_path, read_json_strict, verify_scorecard

    scorecard = read_json_strict(args.scorecard, "scorecard", InputError)
    signature = args.signature
    if signature is None:
        default = default_signature_path(args.scorecard)
        if default.exists() or args.public_key is not None:
            signature = default  # a pinned key needs an envelope: a missing default is an error below
    result = verify_scorecard(args.scorecard, signature, args.public_key) if signature is not None else None
    card = build_agent_card(scorecard, result)
    out_dir = Path(args.out_dir) if args.out_dir is not None else Path(args.scorecard).parent
    written = write_agent_card(card, out_dir)
    sig = card["signature"]
    # The decision and comparison are read from the user's scorecard file: escaped like every user text.
    print(f"decision: {_t(card['decision'])}   signature: {_t(sig['outcome'])}   "
          f"comparison: {_t(card['comparison']['status'])}")
    for fw in card["frameworks"]:
        s = fw["summary"]
        print(f"  {_t(fw['name'])}: {s['evidenced']} evidenced, {s['partial']} partial, "
              f"{s['not_evidenced']} not evidenced")
    print("The Agent Card maps evidence to governance control families; it is not legal compliance or certification.")
    for path in written.values():
        print(f"wrote {_t(path)}")
    if sig["outcome"] == "failed":
        print(f"signature failed: {_t(sig['reason'])}")
        return EXIT_NO
    return EXIT_OK


def _signing_run(run_handler: Handler) -> Handler:
    """Wrap ``run``: check the key first, run, then sign ``<out-dir>/scorecard.json``."""

    def handler(args: argparse.Namespace) -> int:
        key = getattr(args, "sign", None)
        if key is None:
            return run_handler(args)
        from .signing import _load_private_key, sign_scorecard

        _load_private_key(Path(key))  # a missing or wrong key fails before any work (exit 2)
        code = run_handler(args)
        scorecard = Path(args.out_dir) / "scorecard.json"
        if not scorecard.is_file():
            raise SignatureError(f"{scorecard}: run wrote no scorecard to sign")
        print(f"wrote {_t(sign_scorecard(scorecard, key))}")
        return code

    return handler


# --------------------------------------------------------------------------- parsers
def add_parsers(sub: Any) -> None:
    """Register ``keygen``, ``sign``, ``verify``, ``attest`` (and ``run --sign``) on ``sub``.

    ``sub`` is the object ``ArgumentParser.add_subparsers`` returned.
    """
    keygen = sub.add_parser("keygen", help="create an Ed25519 key pair for signing scorecards")
    keygen.add_argument("--out-private", required=True, metavar="K.pem",
                        help="private key to write (PKCS#8 PEM, mode 0600)")
    keygen.add_argument("--out-public", required=True, metavar="K.pub", help="public key to write (PEM)")
    keygen.add_argument("--force", action="store_true", help="overwrite existing key files")
    keygen.set_defaults(handler=_cmd_keygen)

    sign = sub.add_parser("sign", help="sign scorecard.json (Ed25519 over RFC 8785 canonical JSON)")
    sign.add_argument("--scorecard", required=True, metavar="F", help="the scorecard.json to sign")
    sign.add_argument("--key", required=True, metavar="K.pem", help="Ed25519 private key (scorekit keygen)")
    sign.add_argument("--out", metavar="S", help="envelope to write (default: <F without .json>.sig.json beside F)")
    sign.set_defaults(handler=_cmd_sign)

    verify = sub.add_parser(
        "verify",
        help="verify a signed scorecard: verified / integrity-only (exit 0) or failed (exit 1)",
        description="verified: valid and made by the pinned key (authorship). integrity-only: valid against the "
                    "key embedded in the envelope, nothing pinned (authorship not established). failed: tampered, "
                    "bad signature, malformed envelope, or pinned key mismatch (exit 1).",
    )
    verify.add_argument("--scorecard", required=True, metavar="F", help="the scorecard.json to verify")
    verify.add_argument("--signature", metavar="S", help="envelope (default: <F without .json>.sig.json beside F)")
    verify.add_argument("--public-key", metavar="K.pub", help="pin this public key to verify authorship")
    verify.set_defaults(handler=_cmd_verify)

    attest = sub.add_parser(
        "attest",
        help="write agent-card.json and agent-card.md (evidence mapped to control families; not certification)",
        description="Map a scorecard's evidence to governance control families (NIST AI RMF incl. NIST AI 600-1, "
                    "ISO/IEC 42001, EU AI Act, OWASP LLM Top 10 2025). Not legal compliance or certification. "
                    "The signature is checked when --signature is given or <F without .json>.sig.json exists.",
    )
    attest.add_argument("--scorecard", required=True, metavar="F", help="the scorecard.json to map to control families")
    attest.add_argument("--signature", metavar="S", help="envelope (default: <F without .json>.sig.json if present)")
    attest.add_argument("--public-key", metavar="K", help="pin this public key to verify authorship")
    attest.add_argument("--out-dir", metavar="D", help="where to write the Agent Card (default: beside F)")
    attest.set_defaults(handler=_cmd_attest)

    run = getattr(sub, "choices", {}).get("run")
    if run is not None and "--sign" not in run._option_string_actions:
        run.add_argument("--sign", metavar="KEY", help="sign scorecard.json with this Ed25519 private key")
        run.set_defaults(handler=_signing_run(run.get_default("handler")))
