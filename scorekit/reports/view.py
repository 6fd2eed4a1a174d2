"""``view.html``: one self-contained, interactive page over a scorecard and its evidence rows (SPEC §19).

The page holds the decision banner, the dimension table (sortable), per
dimension a case × trial grid coloured by status with filters (status, reason,
free text), a case's rows on click and, given a second scorecard, the
comparison with its regressed / improved case lists. It is one file: inline
style and script, no external URL, a Content-Security-Policy ``<meta>`` that
lets no request leave the page (``default-src 'none'``; the inline script and
style allowed by their SHA-256 hashes), so it works from ``file://``.

Nothing here computes a statistic: the scorecard is read with
:func:`scorekit.reports.json.read_scorecard_json` (every derived number
recomputed, a disagreeing file refused), the dimension table is the section
model's (:mod:`._sections`), the comparison is :func:`scorekit.compare` with
the report's cells (:mod:`.compare`), and per-case counts are
:mod:`scorekit._counts`'. The data reaches the page as JSON inside
``<script type="application/json">`` (:func:`scorekit._escape.script_json`:
``<``, ``>``, ``&``, U+2028/2029 as ``\\uXXXX``) and the script writes every
value with ``textContent``: a case id holding ``<script>`` stays text.

At most :data:`ROW_LIMIT` evidence rows are embedded; above that the grid shows
per-case counts and the page says so.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import InputError

__all__ = ["OUTPUT_EXCERPT", "ROW_LIMIT", "VIEW_FILE", "render_view", "serve_view", "view_data", "write_view"]

#: Evidence rows the page embeds at most (SPEC §19); above it the grid shows per-case counts.
ROW_LIMIT = 200_000
#: Characters of a row's ``agent_output`` the page keeps (an excerpt, then "…").
OUTPUT_EXCERPT = 300
#: The page's default file name, beside the scorecard.
VIEW_FILE = "view.html"
_STATUSES = ("PASS", "FAIL", "ERROR", "ABSTAIN")
_ROW_COLUMNS = ("id", "dimension", "case_id", "trial", "status", "reason", "detail", "agent_output")
_NUMBER = re.compile(r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")  # 1,500 is one number


@dataclass(frozen=True)
class _Source:
    """One scorecard read for the page: its checked dictionary, where it came from, its evidence."""

    data: Mapping[str, Any]
    name: str
    path: Path | None
    evidence: Any  # a pyarrow Dataset, or None when no evidence is beside the scorecard
    card: Any = None  # the Scorecard, when given in memory
    evidence_name: str = "the evidence rows"  # the evidence file or folder, for messages


def _scorecard_path(value: str | os.PathLike[str]) -> Path:
    path = Path(value)
    if path.is_dir():
        path = path / "scorecard.json"
    if not path.is_file():
        raise InputError(f"{value}: no scorecard.json there (give a scorecard.json or the folder holding it)")
    return path


def _evidence_beside(path: Path, data: Mapping[str, Any]) -> tuple[Any, str]:
    import pyarrow.dataset as ds

    from .parquet import read_evidence_metadata

    recorded = data.get("evidence")
    names = [str(recorded.get("file") or "") if isinstance(recorded, Mapping) else "", "evidence.parquet", "evidence"]
    for name in names:
        candidate = path.parent / name if name and "/" not in name and name not in (".", "..") else None
        if candidate is not None and candidate.exists():
            try:
                dataset = ds.dataset(str(candidate), format="parquet")
                meta = read_evidence_metadata(dataset.files[0]) if dataset.files else {}
            except (OSError, ValueError) as exc:
                raise InputError(f"{candidate}: not readable evidence rows ({exc})") from None
            _same_evidence(path, data, candidate, meta)
            return dataset, str(candidate)
    return None, ""


def _same_evidence(path: Path, data: Mapping[str, Any], candidate: Path, meta: Mapping[str, Any]) -> None:
    """Refuse evidence written for another scorecard: the evidence hash and the row count its writer stamped
    (:mod:`scorekit.reports.parquet`) must be the scorecard's own."""
    stamped_hashes, recorded_hashes = meta.get("hashes"), data.get("hashes")
    stamped = stamped_hashes.get("evidence") if isinstance(stamped_hashes, Mapping) else None
    recorded = recorded_hashes.get("evidence") if isinstance(recorded_hashes, Mapping) else None
    if recorded and stamped != recorded:
        raise InputError(f"{path}: the evidence rows beside it ({candidate}) were written for another scorecard "
                         f"(hashes.evidence {stamped!r}, the scorecard says {recorded!r})")
    evidence = data.get("evidence")
    rows = evidence.get("rows") if isinstance(evidence, Mapping) else None
    if isinstance(rows, int) and meta.get("rows") != rows:
        raise InputError(f"{path}: the evidence rows beside it ({candidate}) hold {meta.get('rows')} rows, "
                         f"the scorecard's evidence.rows says {rows}")


def _source(value: Any, which: str) -> _Source:
    from .._scorecard import Scorecard
    from .json import read_scorecard_json

    if isinstance(value, Scorecard):
        return _Source(value.to_dict(), which, None, value.evidence_dataset(), card=value)
    if isinstance(value, (str, os.PathLike)):
        path = _scorecard_path(value)
        data = read_scorecard_json(path, error=InputError)  # recomputed; a disagreeing field is refused
        evidence, evidence_name = _evidence_beside(path, data)
        return _Source(data, str(path), path, evidence, evidence_name=evidence_name)
    raise TypeError(f"{which} must be a Scorecard, a scorecard.json path or its folder; got {type(value).__name__}")


def _agent_frame(source: _Source, columns: list[str]) -> Any:
    """The evidence columns asked for (those present), as a DataFrame."""
    import pyarrow as pa

    present = set(source.evidence.schema.names)
    missing = [c for c in ("dimension", "case_id", "status") if c not in present]
    if missing:
        raise InputError(f"{source.evidence_name}: not scorekit evidence rows (no {', '.join(missing)} column)")
    wanted = [c for c in dict.fromkeys([*columns, "control", "included"]) if c in present]
    try:
        return source.evidence.to_table(columns=wanted).to_pandas()
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError(f"{source.evidence_name}: not readable evidence rows ({exc})") from None


def _case_counts(source: _Source, frame: Any) -> Any:
    """Per (dimension, case) status counts of the agent rows (:func:`scorekit._counts.case_table`),
    refused when they do not add up to the scorecard's own per-dimension counts."""
    from .._counts import case_table

    try:
        table = case_table(frame, by="dimension", case="case_id").reset_index()
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{source.evidence_name}: {exc}") from None
    sums = table.groupby("dimension")[["passes", "n"]].sum()
    for d in source.data.get("dimensions") or []:
        name = str(d.get("name"))
        got = (int(sums.loc[name, "passes"]), int(sums.loc[name, "n"])) if name in sums.index else (0, 0)
        if got != (int(d.get("passes") or 0), int(d.get("n") or 0)):
            raise InputError(f"{source.name}: the evidence rows beside it ({source.evidence_name}) do not add up to "
                             f"dimensions[{name!r}].passes/n ({got[0]}/{got[1]}, the scorecard says "
                             f"{d.get('passes')}/{d.get('n')})")
    return table


def _sort_key(cell: Any) -> Any:
    """What a column sorts by: the cell's first number for a numeric cell, else its text."""
    if cell.kind == "num":
        found = _NUMBER.search(cell.text)
        return float(found.group().replace("−", "-").replace(",", "")) if found else None
    return cell.text


def _table(table: Any) -> dict[str, Any]:
    """A section :class:`~._sections.Table` as plain data: header, which columns are numeric, cells."""
    return {"key": table.key, "columns": list(table.columns), "numeric": sorted(table.numeric),
            "rows": [[{"t": c.text, "k": c.kind, "tone": c.tone, "s": _sort_key(c)} for c in row]
                     for row in table.rows]}


def _text(value: Any) -> str | None:
    """A cell as text; None for a missing value (None, NaN, pd.NA)."""
    import pandas as pd

    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    return str(value)


def _trial(value: Any) -> int | str | None:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return int(value)
    return _text(value)


def _excerpt(value: Any) -> str | None:
    text = _text(value)
    return text if text is None or len(text) <= OUTPUT_EXCERPT else text[:OUTPUT_EXCERPT] + "…"


def _rows(frame: Any) -> dict[str, Any]:
    """The agent rows as columns (dimension and status as indexes into short lists)."""
    from .._counts import agent_rows

    rows = agent_rows(frame).reset_index(drop=True)
    dims = sorted({str(d) for d in rows["dimension"].astype(str)}) if len(rows) else []
    out: dict[str, Any] = {"dimensions": dims}
    out["dimension"] = rows["dimension"].astype(str).map({d: i for i, d in enumerate(dims)}).tolist()
    out["status"] = rows["status"].astype(str).map({s: i for i, s in enumerate(_STATUSES)}).tolist()
    for key, column, convert in (("id", "id", _text), ("case_id", "case_id", _text), ("reason", "reason", _text),
                                 ("detail", "detail", _text), ("trial", "trial", _trial),
                                 ("output", "agent_output", _excerpt)):
        values = rows[column].astype(object).tolist() if column in rows.columns else [None] * len(rows)
        out[key] = [convert(v) for v in values]
    return out


def _counts(table: Any) -> dict[str, Any]:
    dims = sorted({str(d) for d in table["dimension"]})
    index = {d: i for i, d in enumerate(dims)}
    return {"dimensions": dims, "dimension": [index[str(d)] for d in table["dimension"]],
            "case_id": [str(c) for c in table["case_id"]],
            **{key: table[key].astype(int).tolist() for key in ("passes", "fails", "errors", "abstains")}}


def _comparison(a: _Source, b: _Source, counts: tuple[Any, Any]) -> dict[str, Any]:
    """``scorekit.compare(a, b)`` as the compare report's cells, with the regressed / improved case lists."""
    from .._compare import compare
    from .compare import compare_sections

    side = [src.card if src.card is not None else src.path for src in (a, b)]
    flat = [None if c is None else c[["dimension", "case_id", "passes", "n"]] for c in counts]
    sections = compare_sections(compare(side[0], side[1], case_counts=(flat[0], flat[1])))
    lists: dict[str, list[list[str]]] = {"fell": [], "rose": []}
    if sections.cases is not None:
        for row in sections.cases.rows:
            lists[row[1].text].append([c.text for j, c in enumerate(row) if j != 1])
    return {"title": sections.title, "facts": [list(f) for f in sections.facts], "note": sections.note,
            "table": _table(sections.table), "cases_note": sections.cases_note,
            "case_columns": ["dimension", "case", "A", "B", "change"],
            "regressed": lists["fell"], "improved": lists["rose"]}


def view_data(source: Any, other: Any = None, *, row_limit: int = ROW_LIMIT) -> dict[str, Any]:
    """The page's data: banner, dimension table, evidence rows (or per-case counts), comparison.

    Parameters
    ----------
    source : Scorecard, str or os.PathLike
        A Scorecard, a ``scorecard.json`` or the folder holding it (and its evidence).
    other : Scorecard, str or os.PathLike, optional
        A second scorecard to compare with: the baseline (A); ``source`` is B.
    row_limit : int
        Evidence rows embedded at most (default :data:`ROW_LIMIT`); above it, per-case counts.
    """
    from ._sections import build_sections

    main = _source(source, "source")
    sections = build_sections(main.data)
    decision = sections.decision
    data: dict[str, Any] = {
        "title": f"{sections.agent} {sections.version}".strip(),
        "decision": {"value": decision.value, "tone": decision.tone, "meaning": decision.meaning,
                     "purpose": decision.purpose, "partial": decision.partial,
                     "reasons": list(decision.reasons)},
        "identity": [list(pair) for pair in sections.identity],
        "error_rates": sections.error_rates,
        "table": _table(sections.summary),
        "row_limit": row_limit, "rows_total": None, "rows": None, "counts": None, "compare": None,
    }
    counts = None
    if main.evidence is not None:
        total = int(main.evidence.count_rows())
        data["rows_total"] = total
        embed = total <= row_limit
        frame = _agent_frame(main, list(_ROW_COLUMNS) if embed else ["dimension", "case_id", "status"])
        counts = _case_counts(main, frame)
        if embed:
            data["rows"] = _rows(frame)
        else:
            data["counts"] = _counts(counts)
    if other is not None:
        base = _source(other, "other")
        base_counts = None
        if base.evidence is not None and base.card is None:
            base_counts = _case_counts(base, _agent_frame(base, ["dimension", "case_id", "status"]))
        data["compare"] = _comparison(base, main, (base_counts, counts if main.card is None else None))
    return data


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def render_view(source: Any, other: Any = None, *, row_limit: int = ROW_LIMIT) -> str:
    """``view.html`` as text (see :func:`view_data` for the parameters)."""
    from markupsafe import Markup

    from .._escape import script_json
    from ._templates import TEMPLATES, render

    data = view_data(source, other, row_limit=row_limit)
    script = (TEMPLATES / "view.js").read_text(encoding="utf-8")
    style = (TEMPLATES / "view.css").read_text(encoding="utf-8")
    csp = (f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style)}; img-src 'none'; "
           "base-uri 'none'; form-action 'none'")
    return render("view.html.j2", title=data["title"] or "scorecard", csp=csp, view_script=Markup(script),
                  view_style=Markup(style), data=Markup(script_json(data)))


def write_view(source: Any, other: Any = None, *, out: str | os.PathLike[str] | None = None,
               row_limit: int = ROW_LIMIT) -> Path:
    """Write ``view.html`` atomically; return its path (SPEC §19).

    Parameters
    ----------
    source : Scorecard, str or os.PathLike
        A Scorecard, a ``scorecard.json`` or the folder holding it; a stored one is
        read with :func:`~scorekit.reports.json.read_scorecard_json` (a scorecard whose
        derived numbers disagree with its counts is refused: :class:`~scorekit.InputError`).
    other : Scorecard, str or os.PathLike, optional
        A second scorecard: the page adds the comparison (this one is the baseline A).
    out : path, optional
        Where to write; default ``view.html`` beside the scorecard (required for a Scorecard in memory).
    row_limit : int
        Evidence rows embedded at most (default :data:`ROW_LIMIT`).

    Examples
    --------
    >>> import tempfile, scorekit as sk
    >>> from scorekit.reports.view import write_view
    >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    >>> out = Path(tempfile.mkdtemp()) / "view.html"
    >>> write_view(card, out=out).read_text(encoding="utf-8").count("<script")
    2
    """
    from .._io import atomic_write_bytes
    from .._scorecard import Scorecard

    if out is None:
        if isinstance(source, Scorecard):
            raise TypeError("write_view: give out= for a Scorecard in memory")
        out = _scorecard_path(source).parent / VIEW_FILE
    text = render_view(source, other, row_limit=row_limit)
    return atomic_write_bytes(Path(out), text)


def serve_view(path: str | os.PathLike[str], *, announce: Any = print) -> None:
    """Serve the page at ``path`` on 127.0.0.1, on a free port, until interrupted (Ctrl-C returns).

    ``announce`` receives the URL once the server listens.
    """
    import http.server
    import signal
    import threading
    import urllib.parse

    page = Path(path).read_bytes()
    name = "/" + urllib.parse.quote(Path(path).name)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server protocol
            if urllib.parse.quote(urllib.parse.unquote(self.path.split("?", 1)[0])) not in ("/", name):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the http.server signature
            pass

    # Ctrl-C must stop the server even when SIGINT was ignored at start (a job started with `&` by a
    # non-interactive shell, or a child of a process that ignores it): Python then installs no handler.
    restore = None
    if threading.current_thread() is threading.main_thread():
        restore = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
            announce(f"http://127.0.0.1:{server.server_address[1]}{name}")
            try:
                server.serve_forever()
            except KeyboardInterrupt:
                pass
    finally:
        if restore is not None:
            signal.signal(signal.SIGINT, restore)
