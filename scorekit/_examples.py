"""Locate the example evaluations and the notebooks bundled with the package.

The example data lives inside the package (``scorekit/examples/``). The
notebooks have one copy, ``notebooks/`` at the top of the repository; the wheel
carries it as ``scorekit/notebooks/`` (hatchling ``force-include``). An editable
install imports ``scorekit`` from the checkout, where ``scorekit/notebooks/``
does not exist, so :func:`notebook_path` looks for the packaged copy first and
then for the checkout's ``notebooks/``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["EXAMPLES", "NOTEBOOKS", "example_path", "notebook_path"]

EXAMPLES = ("email_assistant", "imports")
NOTEBOOKS = ("release_scorecard", "explore")


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


def notebook_path(name: str = "release_scorecard") -> Path:
    """Path of a bundled notebook: the packaged copy, else the checkout's ``notebooks/``.

    Parameters
    ----------
    name : {"release_scorecard", "explore"}
        ``release_scorecard`` is executed by ``scorekit render``; ``explore``
        holds the interactive widgets.

    Examples
    --------
    >>> from scorekit._examples import notebook_path
    >>> notebook_path().name
    'release_scorecard.ipynb'
    """
    if name not in NOTEBOOKS:
        raise ValueError(f"name must be one of {', '.join(NOTEBOOKS)}; got {name!r}")
    file = f"{name}.ipynb"
    packaged = Path(str(resources.files("scorekit").joinpath("notebooks", file)))
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "notebooks" / file
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"notebook {file!r} is not installed (looked at {packaged} and {checkout})")
