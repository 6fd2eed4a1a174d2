"""Locate the example evaluations bundled inside the package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["example_path"]

EXAMPLES = ("email_assistant",)


def example_path(name: str = "email_assistant", file: str = "results.jsonl") -> Path:
    """Path of a file of a bundled example evaluation.

    Parameters
    ----------
    name : str, default "email_assistant"
        The example: an e-mail assistant agent with eight dimensions, repeated
        trials and a few ERROR/ABSTAIN rows.
    file : str, default "results.jsonl"
        ``results.jsonl``, ``policy.yml`` or ``README.md``.

    Examples
    --------
    >>> import scorekit as sk
    >>> rows = sk.read_rows(sk.example_path())
    >>> sorted(rows["dimension"].unique())[:2]
    ['action_correctness', 'cost']
    """
    if name not in EXAMPLES:
        raise ValueError(f"name must be one of {', '.join(EXAMPLES)}; got {name!r}")
    path = Path(str(resources.files("scorekit").joinpath("examples", name, file)))
    if not path.is_file():
        raise FileNotFoundError(f"example {name!r} has no file {file!r} (looked at {path})")
    return path
