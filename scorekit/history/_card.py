"""What the history reads from a scorecard: its comparability key, confidence and counts (SPEC §10).

A card's key (suite hash, policy hash, judge identity, scoring version)
decides which records it is comparable with; its per-dimension and
per-(dimension, case) counts are what :func:`scorekit.history.record` stores
and :func:`scorekit.history.compare` compares.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from .. import _hashing


# --------------------------------------------------------------------------- card fields
def _judges_json(judges: Any) -> str:
    names = sorted({str(j) for j in (judges or [])})
    return json.dumps(names, ensure_ascii=False, separators=(",", ":"))


def _scoring_version() -> str:
    # Read at call time (tests simulate another scorekit by patching it).
    return _hashing.SCORING_VERSION


def _key(card: Any) -> tuple[str | None, str | None, str, str]:
    hashes = card.hashes or {}
    return hashes.get("suite"), hashes.get("policy"), _judges_json(card.judges), _scoring_version()

def _confidence(card: Any) -> float:
    return float((getattr(card, "policy", None) or {}).get("confidence", 0.95))


def _dimension_counts(card: Any) -> pd.DataFrame:
    """The card's per-dimension counts: n, passes, fails, errors, abstains, in_scope, verdict."""
    dims = card.dimensions
    out = pd.DataFrame(index=pd.Index([str(i) for i in dims.index], name="dimension"))
    for column in ("n", "passes", "fails", "errors", "abstains"):
        values = dims[column] if column in dims.columns else 0
        out[column] = np.asarray(pd.Series(values, index=dims.index).fillna(0), dtype=np.int64)
    if "n" not in dims.columns:
        out["n"] = out["passes"] + out["fails"]
    in_scope = dims["in_scope"] if "in_scope" in dims.columns else True
    out["in_scope"] = np.asarray(pd.Series(in_scope, index=dims.index), dtype=bool)
    out["verdict"] = [str(v) for v in dims["verdict"]] if "verdict" in dims.columns else None
    return out


def _case_counts(card: Any) -> pd.DataFrame | None:
    """The card's per-(dimension, case) ``passes`` and ``n`` (PASS + FAIL) of its agent rows.

    ``card.case_counts``, counted once by :func:`scorekit.evaluate` (controls and rows
    not included leave), sorted by (dimension, case); ``None`` for a card without them.
    """
    counts: pd.DataFrame | None = getattr(card, "case_counts", None)
    return counts
