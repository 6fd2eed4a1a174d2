"""Reports: ``scorecard.json``, ``scorecard.md``, ``scorecard.html`` and ``evidence.parquet``.

All three text reports render one dictionary, ``Scorecard.to_dict()``, computed
once per :func:`write_reports` call (SPEC §1: one evidence model); the Markdown
and HTML reports render its sections (:mod:`scorekit.reports._sections`, built
once) through Jinja2 templates. Only the Parquet writer also reads the scored
rows, which the JSON never holds (it holds their hash, ``hashes.evidence``):
``evidence.parquet``, or above ``evidence_rows_in_memory`` rows the
``evidence/`` dataset (SPEC §16).

Examples
--------
>>> import scorekit as sk, tempfile
>>> from scorekit.reports import write_reports
>>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
>>> paths = write_reports(card, tempfile.mkdtemp())
>>> sorted(paths)
['html', 'json', 'markdown', 'parquet']
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io import atomic_write, atomic_write_bytes
from . import html as _html_report
from . import json as _json_report
from . import markdown as _markdown_report
from .html import render_html, write_html
from .json import (
    ScorecardSchemaError,
    load_schema,
    read_scorecard_json,
    render_json,
    validate_scorecard_json,
    write_json,
)
from .markdown import render_markdown, write_markdown
from .parquet import read_evidence_metadata, write_parquet

if TYPE_CHECKING:  # pragma: no cover
    from .._scorecard import Scorecard
    from ._sections import Sections

__all__ = [
    "REPORT_FILES",
    "RenderedReports",
    "ScorecardSchemaError",
    "load_schema",
    "read_evidence_metadata",
    "render_html",
    "render_reports",
    "render_stored",
    "render_json",
    "render_markdown",
    "validate_scorecard_json",
    "write_html",
    "write_json",
    "write_markdown",
    "write_parquet",
    "write_reports",
]

#: Report kind → file name inside the output directory.
REPORT_FILES = {
    "json": "scorecard.json",
    "markdown": "scorecard.md",
    "html": "scorecard.html",
    "parquet": "evidence.parquet",
}


@dataclass(frozen=True)
class RenderedReports:
    """The texts of a scorecard's reports, rendered and not yet written (:func:`render_reports`).

    Attributes
    ----------
    data : dict
        ``Scorecard.to_dict()``, validated against the shipped schema.
    sections : Sections
        Its sections (:mod:`scorekit.reports._sections`): what the reports show,
        and what ``scorekit run`` prints.
    texts : dict
        ``{"json": ..., "markdown": ..., "html": ...}``.
    evidence : EvidenceStore
        The scored rows, written as ``evidence.parquet`` or the ``evidence/`` dataset.
    """

    data: dict[str, Any]
    sections: Sections
    texts: dict[str, str]
    evidence: Any = field(repr=False)

    def write(self, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
        """Write the four reports into ``out_dir`` (created if needed), each atomically; return their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {}
        for kind, text in self.texts.items():
            payload = _json_report._encode(text) if kind == "json" else text.encode("utf-8")
            paths[kind] = atomic_write(out / REPORT_FILES[kind], partial(Path.write_bytes, data=payload))
        paths["parquet"] = self.evidence.write(out, self.data)
        return paths


def render_reports(card: Scorecard) -> RenderedReports:
    """Render the texts of ``card``'s reports: ``to_dict()`` once, validated, its sections once.

    Raises
    ------
    ScorecardSchemaError
        The scorecard does not match the shipped JSON Schema (nothing is rendered).
    """
    from ._sections import build_sections

    data = card.to_dict()
    validate_scorecard_json(data)
    sections = build_sections(data, evidence_rows=card.evidence_rows)
    texts = {
        "json": _json_report.render_json(data, validate=False),
        "markdown": _markdown_report.render_markdown(sections),
        "html": _html_report.render_html(sections),
    }
    return RenderedReports(data=data, sections=sections, texts=texts, evidence=card.evidence_store)


def write_reports(card: Scorecard, out_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """Write the four reports of ``card`` into ``out_dir`` (created if needed).

    Each file is written atomically (a temporary file in the same directory,
    then ``os.replace``), so a reader never sees half a report. The JSON is
    validated against the shipped schema first, and all three texts are rendered
    before any file is written: a scorecard that does not match raises
    :class:`ScorecardSchemaError` and nothing is written.

    Returns
    -------
    dict
        ``{"json": path, "markdown": path, "html": path, "parquet": path}``; the last is
        the ``evidence/`` directory above ``evidence_rows_in_memory`` rows (SPEC §16).
    """
    # Render every text first: an error leaves the previous reports as they were.
    return render_reports(card).write(out_dir)


def render_stored(path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None) -> dict[str, Path]:
    """Re-render ``scorecard.md`` and ``scorecard.html`` of a stored ``scorecard.json`` (SPEC §17).

    The file is read strictly and checked against the shipped schema
    (:func:`~scorekit.reports.json.read_scorecard_json`) before anything is rendered; the reports are
    written atomically into ``out_dir`` (default: beside the scorecard). The
    numbers are the stored dictionary's, through the same sections and templates
    as :func:`write_reports`, so a re-render says what the original reports said.
    ``evidence.parquet`` (the scored rows) is not part of ``scorecard.json`` and is
    left as it is.

    Raises
    ------
    InputError
        The file is missing, unreadable, not UTF-8 or not strict JSON.
    ScorecardSchemaError
        It is not a scorecard (one line naming the file and the first mismatch).
    """
    from ._sections import build_sections

    source = Path(path)
    data = read_scorecard_json(source)
    sections = build_sections(data)
    texts = {"markdown": render_markdown(sections), "html": render_html(sections)}
    out = source.parent if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return {kind: atomic_write_bytes(out / REPORT_FILES[kind], text) for kind, text in texts.items()}
