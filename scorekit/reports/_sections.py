"""The section model: ``Scorecard.to_dict()`` as sections of already-formatted values.

Every renderer reads these sections and nothing else: the HTML and Markdown
reports (Jinja2 templates), the notebook fragments (:mod:`scorekit.notebook`),
the terminal tables (:mod:`scorekit.reports.text`) and the charts
(:mod:`scorekit.reports._charts`). Each number is formatted here, once, by the
formatters of :mod:`scorekit.reports._format`; a renderer only lays the strings
out and escapes them for its format. So ``84.7%`` cannot read differently in two
places.

Values are *unescaped* text (control and bidirectional characters already
replaced, :func:`~scorekit.reports._format.clean_text`); escaping is the
renderer's job (HTML autoescape, ``md_escape``, ``terminal_text``). The
dictionary is the only input: never a Scorecard's DataFrames (SPEC §1).

Examples
--------
>>> import scorekit as sk
>>> from scorekit.reports._sections import build_sections
>>> s = build_sections(sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml")).to_dict())
>>> s.decision.value, s.measures.cell("action_correctness", "rate").text
('FAIL', '89.8%')
>>> s.measures.columns[:3], s.thresholds.columns[:4]
(('dimension', 'n', 'passes'), ('dimension', 'verdict', 'assurance', 'rate'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._charts import PassKChart, RateChart, pass_k_chart, rate_chart
from ._format import (
    DECISION_MEANING,
    DETAIL_LIMIT,
    INTERVAL_NAMES,
    LIST_LIMIT,
    POINT_BASIS_NOTE,
    TWO_INTERVALS_NOTE,
    UNDEFINED,
    VARIANCE_HEADER,
    agreement_text,
    assurance_text,
    case_change_text,
    clean_text,
    comparison_facts,
    confidence_label,
    error_rates_text,
    evidence_row_count,
    fmt_bool,
    fmt_ci,
    fmt_confidence,
    fmt_count,
    fmt_deff,
    fmt_pass_k,
    fmt_pct,
    interval_label,
    mde_text,
    more_text,
    pass_1_text,
    pass_k_columns,
    problem_text,
    rate_bounds_text,
    regression_columns,
    regression_rows,
    settle_text,
    truncate,
    variance_cells,
)

__all__ = [
    "CaseChanges",
    "Cell",
    "Decision",
    "DimensionNote",
    "Finding",
    "Flaky",
    "History",
    "Sections",
    "Table",
    "RUN_COLUMNS",
    "build_sections",
    "history_sections",
    "runs_table",
]

DECISIONS = ("PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST")
VERDICTS = ("PASS", "FAIL", "INCOMPLETE", "NOT_IN_SCOPE")
SEVERITY_TONES = ("blocker", "high", "medium", "low", "info")

RATE_NOTE = ("Pass rate = PASS / (PASS + FAIL); ERROR and ABSTAIN rows are missing evaluator evidence, outside the "
             "denominator. Interval: {conf} Wilson score interval. Undefined values (no evidence) are shown as "
             f"{UNDEFINED}.")
#: The interval note of a scorecard whose dimensions name their headline interval (SPEC §18).
HEADLINE_RATE_NOTE = ("Pass rate = PASS / (PASS + FAIL); ERROR and ABSTAIN rows are missing evaluator evidence, "
                      "outside the denominator. Interval: {conf}, case-clustered where some case of the dimension has "
                      "more than one measured trial, else Wilson (each column says which); the pooled Wilson interval "
                      "is listed beside it. Undefined values (no evidence) are shown as " f"{UNDEFINED}.")
#: How the missing rows bound a rate (SPEC §18), said once above the per-dimension notes.
BOUNDS_NOTE = ("Where rows are missing (ERROR, ABSTAIN), the rate had they been measured lies between counting every "
               "missing row as FAIL and as PASS.")
PASS_K_NOTE = ("pass^k is the chance that all k trials of a case pass (τ-bench). It can only fall as k grows over one "
               "set of cases; a value marked “over N of M cases” covers only the cases with at least k trials and is "
               "not comparable with the smaller ks.")
THRESHOLD_NOTE = ("Each dimension's measure ({basis}) is compared with its threshold; rates and thresholds are "
                  "percentages. The verdict reasons say why a dimension is not PASS.")
VARIANCE_NOTE = ("A run is one pass over the suite; only complete runs (every case measured) are averaged. "
                 "Interval: {conf} t-interval of the mean (Student t over the runs), clipped to [0%, 100%].")
NO_VARIANCE_NOTE = ("No run-to-run variance: the rows have no run column, and the cases do not share one set of "
                    "trial numbers.")
FINDINGS_NOTE = ("Failing evidence first: each finding groups the non-PASS rows of one (dimension, reason), with "
                 "what to review, a suggested fix and the cases with what their rows show.")
EVIDENCE_NOTE = ("{file} holds every scored row: {rows} rows (content hash hashes.evidence below). This "
                 "report shows failing evidence first (findings with their case ids) and omits passing rows; filter "
                 'status != "PASS" in {file} for every failing row.')
#: Where the scored rows are written beside scorecard.json (SPEC §16).
EVIDENCE_FILES = ("evidence.parquet", "evidence/")
INFERRED_NOTE = (" (scope inferred from the rows: an entirely absent dimension cannot be detected; declare "
                 "gate.required_dimensions)")


# --------------------------------------------------------------------------- building blocks
@dataclass(frozen=True)
class Cell:
    """One formatted value.

    ``text`` is the whole value as one line of text (what a terminal or a test
    reads). ``kind`` says how a renderer shows it: ``text``, ``num`` (right
    aligned), ``code`` (an identifier from the data), ``ids`` (``items`` as
    identifiers, then ``more``), ``lines`` (``items`` one per line), ``verdict``,
    ``severity`` or ``status`` (``tone`` is then a CSS class suffix from a
    closed set, never data).
    """

    text: str
    kind: str = "text"
    items: tuple[str, ...] = ()
    more: str = ""
    tone: str = ""

    def __str__(self) -> str:
        return self.text


def _text(value: Any) -> str:
    """Untrusted text (control characters replaced), or "—" for None / empty."""
    return UNDEFINED if value is None or value == "" else clean_text(value)


def _num(text: str) -> Cell:
    return Cell(text, "num")


def _code(value: Any) -> Cell:
    return Cell(_text(value), "code")


def _tone(value: Any, known: tuple[str, ...]) -> str:
    """A CSS class suffix from a closed set (never from untrusted text)."""
    return str(value).lower().replace("_", "-") if value in known else "unknown"


def _ids(items: Sequence[Any], where: str, limit: int = LIST_LIMIT) -> Cell:
    """A list of identifiers, cut at ``limit`` with "… and N more (see ``where``)"."""
    if not items:
        return Cell(UNDEFINED)
    shown, omitted = truncate(items, limit)
    ids = tuple(clean_text(item) for item in shown)
    more = more_text(omitted, where)
    return Cell(", ".join(ids) + (f" {more}" if more else ""), "ids", ids, more)


def _lines(items: Sequence[Any]) -> Cell:
    if not items:
        return Cell(UNDEFINED)
    lines = tuple(clean_text(item) for item in items)
    return Cell("; ".join(lines), "lines", lines)


@dataclass(frozen=True)
class Table:
    """A table of cells: ``columns`` (labels), ``rows`` (the first cell of a row is its header).

    ``key`` names the table (the HTML ``id`` and class suffix); ``numeric`` lists
    the right-aligned column positions.
    """

    key: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    numeric: frozenset[int] = frozenset()

    def column(self, label: str) -> int:
        return self.columns.index(label)

    def cell(self, row: str, column: str) -> Cell:
        """The cell of the row whose header text is ``row`` in the column labelled ``column``."""
        j = self.column(column)
        for cells in self.rows:
            if cells[0].text == row:
                return cells[j]
        raise KeyError(row)

    def select(self, labels: Sequence[str], key: str | None = None) -> Table:
        """The same cells, only the columns ``labels`` (in that order)."""
        index = [self.column(label) for label in labels]
        return Table(key or self.key, tuple(labels), tuple(tuple(r[i] for i in index) for r in self.rows),
                     frozenset(p for p, i in enumerate(index) if i in self.numeric))


def _table(key: str, columns: Sequence[str], rows: Sequence[Sequence[Cell]]) -> Table:
    """A table whose numeric columns are those whose cells are all ``num`` (the header is never numeric)."""
    numeric = frozenset(j for j in range(1, len(columns)) if rows and all(r[j].kind == "num" for r in rows))
    return Table(key, tuple(columns), tuple(tuple(r) for r in rows), numeric)


@dataclass(frozen=True)
class Decision:
    value: str
    tone: str
    meaning: str
    overall_pass: str
    purpose: str
    partial: bool
    generated_at: str
    measured: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Flaky:
    dimension: str
    count: str
    repeated: str
    cases: Cell


@dataclass(frozen=True)
class Finding:
    number: int
    dimension: str
    reason: str
    severity: str
    tone: str
    review: str
    fix: str
    details: tuple[tuple[str, str], ...]
    more: str


@dataclass(frozen=True)
class DimensionNote:
    """What a dimension's row cannot say in a cell (SPEC §18): the assurance with the cases that would
    settle it, the rate's bounds had the missing rows been measured, pass^1 beside the rate when trials
    per case differ, the judges' agreement. One sentence per line."""

    dimension: str
    #: Sentences no table cell holds: the rate bounds, the judges' agreement.
    lines: tuple[str, ...]
    #: Sentences of values the HTML and Markdown tables show beside the verdict and the rate (assurance,
    #: pass^1): the terminal, the job summary and JUnit write them out.
    tabled: tuple[str, ...] = ()

    @property
    def every_line(self) -> tuple[str, ...]:
        return self.tabled + self.lines


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    change: str


@dataclass(frozen=True)
class CaseChanges:
    """The shared cases of one compared dimension whose rate fell (``regressed``) or rose (``improved``).

    ``inline``: the first :data:`CASES_INLINE` cases; ``inline_more``: "and N more" after them;
    ``listed``: every case the comparison lists (the HTML shows them in a collapsible element);
    ``listed_more``: the cases beyond the listed ones ("" when every case is listed).
    """

    dimension: str
    kind: str
    total: str
    inline: tuple[CaseChange, ...]
    inline_more: str
    listed: tuple[CaseChange, ...]
    listed_more: str

    @property
    def text(self) -> str:
        """One line: ``dimension: 12 regressed cases: a 100.0% → 0.0% (-100.0 pp), … and 9 more``."""
        cases = ", ".join(f"{c.case_id} {c.change}" for c in self.inline)
        more = " ".join(part for part in (cases, self.inline_more) if part)
        return f"{self.dimension}: {self.total} {self.kind} cases: {more}"


@dataclass(frozen=True)
class Sections:
    """The scorecard as sections; see the module docstring."""

    agent: str
    version: str
    decision: Decision
    identity: tuple[tuple[str, str], ...]
    scope: tuple[tuple[str, Cell], ...]
    confidence: str
    rate_note: str
    measures: Table
    reliability: Table
    pass_k: tuple[Table, ...]
    pass_k_note: str
    intervals_note: str
    thresholds: Table
    threshold_note: str
    variance: Table | None
    variance_note: str
    coverage: str
    flaky: tuple[Flaky, ...]
    caveats: tuple[str, ...]
    guidance: str
    findings_note: str
    findings: Table | None
    finding_items: tuple[Finding, ...]
    validation: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    problems_more: str
    controls_note: str
    controls: Table | None
    controls_more: str
    comparison: tuple[tuple[str, str], ...]
    regressions: Table | None
    evidence_note: str
    evidence_rows: str
    hashes: Table
    judges: Cell
    evaluators: Cell
    rate_chart: RateChart
    pass_k_chart: PassKChart
    summary: Table = field(repr=False)
    clustered_wider: bool = False
    problem_list: tuple[Any, ...] = field(default=(), repr=False)
    #: Where imported rows came from (SPEC §15), one line; "" for rows read from a results file.
    source: str = ""
    #: What a regression verdict (or PASS and FAIL) means at the scorecard's level, one sentence (SPEC §18);
    #: "" for a scorecard written before ``error_rates``.
    error_rates: str = ""
    #: The label of the headline interval (``95% CI (case-clustered)``; ``95% Wilson CI`` before SPEC §18).
    interval: str = ""
    #: The note on the point threshold basis ("" under another basis or without an assurance).
    assurance_note: str = ""
    #: The note on rate bounds ("" when no dimension has missing rows bounded).
    bounds_note: str = ""
    dimension_notes: tuple[DimensionNote, ...] = ()
    case_changes: tuple[CaseChanges, ...] = ()

    def present(self, labels: Sequence[str]) -> list[str]:
        """The ``labels`` (``{conf}`` and ``{interval}`` filled in) that :attr:`summary` has, once each, in order:
        a compact table picks its columns so, and a column of a field the scorecard lacks is left out."""
        chosen: list[str] = []
        for label in labels:
            name = label.format(conf=self.confidence, interval=self.interval or f"{self.confidence} Wilson CI")
            if name in self.summary.columns and name not in chosen:
                chosen.append(name)
        return chosen

    def every_problem(self) -> tuple[str, ...]:
        """Every validation problem as ``file:line: field: message`` (the report lists the first
        :data:`~scorekit.reports._format.LIST_LIMIT`; ``scorekit validate`` prints them all)."""
        return tuple(clean_text(problem_text(p)) for p in self.problem_list)


# --------------------------------------------------------------------------- dimensions
def _headline(dim: Mapping[str, Any], mixed: bool) -> str:
    """The headline interval (``ci_low``/``ci_high``), naming its method when the column label cannot."""
    text = fmt_ci(dim.get("ci_low"), dim.get("ci_high"))
    method = dim.get("interval_method")
    if mixed and text != UNDEFINED and method is not None:
        text += f" ({INTERVAL_NAMES.get(str(method), clean_text(method))})"
    return text


def _assurance(dim: Mapping[str, Any]) -> Cell:
    """``meets 90.0% with probability 47.4%`` and, when given, ``about 97 cases would settle it``."""
    said = assurance_text(dim.get("threshold"), dim.get("assurance"))
    if said == UNDEFINED:
        return Cell(UNDEFINED)
    settle = settle_text(dim.get("cases_to_settle"))
    return Cell(f"{said}; {settle}" if settle else said, "lines", (said, settle) if settle else (said,))


def _dimension_cells(dim: Mapping[str, Any], ks: Sequence[str], mixed: bool = False) -> dict[str, Cell]:
    """Every formatted value of one dimension, by column key."""
    verdict = dim.get("verdict")
    # Before SPEC §18 ci_low/ci_high were the Wilson interval and wilson_low/wilson_high did not exist.
    wilson = (dim.get("wilson_low"), dim.get("wilson_high")) if "wilson_low" in dim else \
        (dim.get("ci_low"), dim.get("ci_high"))
    cells = {
        "dimension": _code(dim.get("name")),
        "verdict": Cell(_text(verdict), "verdict", tone=_tone(verdict, VERDICTS)),
        "assurance": _assurance(dim),
        "assured": _num(fmt_pct(dim.get("assurance"))),
        "n": _num(fmt_count(dim.get("n"))),
        "passes": _num(fmt_count(dim.get("passes"))),
        "fails": _num(fmt_count(dim.get("fails"))),
        "errors": _num(fmt_count(dim.get("errors"))),
        "abstains": _num(fmt_count(dim.get("abstains"))),
        "rate": _num(fmt_pct(dim.get("rate"))),
        "pass^1 (per case)": _num(fmt_pct(dim.get("pass_1")) if dim.get("trials_vary") else UNDEFINED),
        "ci": _num(_headline(dim, mixed)),
        "wilson": _num(fmt_ci(*wilson)),
        "bounds": _num(fmt_ci(*dim["rate_bounds"]) if isinstance(dim.get("rate_bounds"), (list, tuple))
                       and len(dim["rate_bounds"]) == 2 else UNDEFINED),
        "coverage": _num(fmt_pct(dim.get("coverage"))),
        "cases": _num(fmt_count(dim.get("cases"))),
        "deff": _num(fmt_deff(dim.get("deff"))),
        "clustered": _num(fmt_ci(dim.get("ci_cluster_low"), dim.get("ci_cluster_high"))),
        "mde": Cell(mde_text(dim.get("mde"))),
        "consistency": _num(fmt_pct(dim.get("consistency"))),
        "flaky": _num(fmt_count(len(dim.get("flaky_cases") or []))),
        "threshold": _num(fmt_pct(dim.get("threshold"))),
        "measure": _num(fmt_pct(dim.get("measure"))),
        "reasons": _lines(dim.get("verdict_reasons") or []),
    }
    for k in ks:
        cells[f"pass^{k}"] = _num(clean_text(fmt_pass_k(dict(dim), k, interval=True)))
    return cells


def _labels(conf: str, basis: str, ks: Sequence[str], interval: str) -> dict[str, str]:
    labels = {
        "dimension": "dimension", "verdict": "verdict", "assurance": "assurance",
        "assured": ASSURED_LABEL, "n": "n", "passes": "passes",
        "fails": "fails", "errors": "errors", "abstains": "abstains", "rate": "rate",
        "pass^1 (per case)": "pass^1 (every case weighs the same)", "ci": interval, "wilson": f"{conf} Wilson CI",
        "bounds": "rate had the missing rows been measured",
        "coverage": "coverage", "cases": "cases", "deff": "deff", "clustered": f"{conf} clustered CI",
        "mde": "this evaluation can detect", "consistency": "consistency", "flaky": "flaky cases",
        "threshold": "threshold", "measure": f"measure ({basis})", "reasons": "verdict reasons",
    }
    labels.update({f"pass^{k}": f"pass^{clean_text(k)}" for k in ks})
    return labels


MEASURE_KEYS = ("dimension", "n", "passes", "fails", "errors", "abstains", "rate", "wilson", "coverage")
RELIABILITY_KEYS = ("dimension", "cases", "deff", "clustered", "mde", "consistency", "flaky")
#: pass^k columns per table: more ks make several tables, so each fits a 1200 px page.
PASS_K_COLUMNS = 8
THRESHOLD_KEYS = ("dimension", "verdict", "rate", "threshold", "measure", "reasons")
#: The label of the assurance in the compact tables (the sentence is in the notes and the thresholds table).
ASSURED_LABEL = "P(meets threshold)"
SUMMARY_KEYS = ("dimension", "verdict", "n", "passes", "cases", "rate", "threshold", "wilson", "clustered", "*pass_k")


def _with(keys: Sequence[str], extra: Mapping[str, bool]) -> tuple[str, ...]:
    """``keys`` with each key of ``extra`` that is switched on inserted after the key it names
    (``{"after:new": on}``)."""
    out = list(keys)
    for spec, on in extra.items():
        after, new = spec.split(":")
        if on and after in out:
            out.insert(out.index(after) + 1, new)
    return tuple(out)


def _column_keys(dims: Sequence[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """The column keys of each dimension table; a column of a SPEC §18 field appears only when some
    dimension has it, so a scorecard written before them shows today's tables."""
    headline = any("interval_method" in d for d in dims)
    clustered = any(d.get("interval_method") == "wilson_clustered" for d in dims)
    assured = any(d.get("assurance") is not None for d in dims)
    vary = any(d.get("trials_vary") for d in dims)
    bounded = any(d.get("rate_bounds") is not None for d in dims)
    measures = _with(MEASURE_KEYS, {"rate:ci": headline, "coverage:bounds": bounded})
    if headline and not clustered:  # the headline is the Wilson interval: one column says it
        measures = tuple(k for k in measures if k != "wilson")
    summary = _with(SUMMARY_KEYS, {"verdict:assured": assured, "threshold:ci": headline})
    if headline:
        summary = tuple(k for k in summary if k != "clustered" and (clustered or k != "wilson"))
    return {
        "measures": measures,
        "thresholds": _with(THRESHOLD_KEYS, {"verdict:assurance": assured, "rate:pass^1 (per case)": vary}),
        "summary": summary,
    }


def _dimension_table(key: str, keys: Sequence[str], cells: Sequence[dict[str, Cell]], labels: dict[str, str],
                     ks: Sequence[str]) -> Table:
    columns = [c for k in keys for c in ([f"pass^{x}" for x in ks] if k == "*pass_k" else [k])]
    return _table(key, [labels[c] for c in columns], [[row[c] for c in columns] for row in cells])


def _pass_k_tables(cells: Sequence[dict[str, Cell]], labels: dict[str, str], ks: Sequence[str]) -> tuple[Table, ...]:
    """pass^k per dimension, :data:`PASS_K_COLUMNS` ks per table (keys ``pass-k``, ``pass-k-2``, ...)."""
    if not cells or not ks:
        return ()
    chunks = [ks[i:i + PASS_K_COLUMNS] for i in range(0, len(ks), PASS_K_COLUMNS)]
    return tuple(_dimension_table("pass-k" if i == 0 else f"pass-k-{i + 1}", ("dimension", "*pass_k"), cells, labels,
                                  chunk) for i, chunk in enumerate(chunks))


# --------------------------------------------------------------------------- findings
def _guidance() -> str:
    from .._findings import verification_guidance

    return verification_guidance()


def _evidence_file(data: Mapping[str, Any]) -> str:
    """``evidence.parquet``, or the ``evidence/`` dataset the scorecard names (SPEC §16)."""
    evidence = data.get("evidence")
    named = evidence.get("file") if isinstance(evidence, Mapping) else None
    return named if named in EVIDENCE_FILES else EVIDENCE_FILES[0]


def _finding(number: int, f: Mapping[str, Any], guidance: str, where: str) -> Finding:
    fix = _text(f.get("suggested_fix"))
    # The guidance every finding carries is said once, above the findings.
    if guidance and fix.endswith(" " + guidance):
        fix = fix[: -len(guidance) - 1]
    details = [d for d in f.get("details") or [] if isinstance(d, Mapping)]
    shown, omitted = truncate(details, DETAIL_LIMIT)
    not_listed = len(f.get("case_ids") or []) - len({d.get("case_id") for d in details})
    severity = f.get("severity")
    return Finding(
        number=number,
        dimension=_text(f.get("dimension")),
        reason=_text(f.get("reason")),
        severity=_text(severity),
        tone=_tone(severity, SEVERITY_TONES),
        review=clean_text(f["review"]) if f.get("review") else "",
        fix=fix,
        details=tuple((_text(d.get("case_id")), _text(d.get("detail"))) for d in shown),
        more=more_text(omitted + max(not_listed, 0), f"{where} (column detail)") if details else "",
    )


def _findings_table(findings: Sequence[Mapping[str, Any]], where: str) -> Table | None:
    if not findings:
        return None
    rows = []
    for i, f in enumerate(findings, 1):
        severity = f.get("severity")
        rows.append([
            _num(str(i)),
            Cell(_text(severity), "severity", tone=_tone(severity, SEVERITY_TONES)),
            _code(f.get("dimension")),
            _code(f.get("reason")),
            Cell(_text(f.get("status"))),
            _num(fmt_count(f.get("rows")) if "rows" in f else UNDEFINED),
            _ids(f.get("case_ids") or [], where),
        ])
    return _table("findings", ["#", "severity", "dimension", "reason", "status", "rows", "case ids"], rows)


# --------------------------------------------------------------------------- the rest
def _controls(controls: Sequence[Mapping[str, Any]]) -> tuple[str, Table | None, str]:
    ordered = sorted(controls, key=lambda c: bool(c.get("passed")))  # failed first
    if not ordered:
        return "No evaluator controls (known-bad rows) were supplied.", None, ""
    failed = sum(1 for c in ordered if not c.get("passed"))
    note = (f"Evaluator controls (known-bad rows, outside agent scores): {fmt_count(len(ordered))}, "
            f"failed {fmt_count(failed)}.")
    shown, omitted = truncate(ordered)
    rows = [[_code(c.get("id")), _code(c.get("dimension")), _code(c.get("case_id")), Cell(_text(c.get("status"))),
             _code(c.get("reason")),
             Cell("caught", "status", tone="pass") if c.get("passed") else Cell("NOT caught", "status", tone="fail")]
            for c in shown]
    return note, _table("controls", ["id", "dimension", "case id", "status", "reason", "passed"], rows), \
        more_text(omitted)


def _regressions(comparison: Mapping[str, Any]) -> Table | None:
    rows = regression_rows(dict(comparison))
    if not rows:
        return None
    columns = list(regression_columns(comparison))
    if "p adjusted" in columns and comparison.get("multiplicity") == "holm":
        columns[columns.index("p adjusted")] = "p adjusted (Holm)"
    tones = {"regressed": "fail", "ok": "pass"}
    text_columns = {"method", "cases compared", "rule"}
    cells = [[_code(r[0]), Cell(clean_text(r[1]), "status", tone=tones.get(r[1], "unknown")),
              *(Cell(clean_text(c)) if label in text_columns else _num(clean_text(c))
                for label, c in zip(columns[2:], r[2:], strict=True))] for r in rows]
    return _table("regressions", columns, cells)


def _dimension_note(dim: Mapping[str, Any]) -> DimensionNote | None:
    """The sentences of one dimension (SPEC §18), or None when it has nothing to add."""
    lines, tabled = [], []
    said = assurance_text(dim.get("threshold"), dim.get("assurance"))
    if said != UNDEFINED:
        settle = settle_text(dim.get("cases_to_settle"))
        tabled.append(f"{clean_text(dim.get('verdict'))}: {said}" + (f"; {settle}" if settle else ""))
    missing = sum(int(dim.get(k) or 0) for k in ("errors", "abstains"))
    bounds = rate_bounds_text(dim.get("rate_bounds"), missing)
    if bounds:
        bounds = f"rate {fmt_pct(dim.get('rate'))}, {bounds}"
        if dim.get("missing_could_flip"):
            bounds += (f": counted as FAIL they could take it below its threshold {fmt_pct(dim.get('threshold'))}, "
                       "so the verdict waits for them")
        lines.append(bounds)
    if dim.get("trials_vary"):
        pass_1 = pass_1_text(dim.get("pass_1"))
        if pass_1:
            tabled.append(f"{pass_1} beside the rate {fmt_pct(dim.get('rate'))} (cases carry unequal numbers of "
                         "measured trials)")
    agreement = agreement_text(dim.get("judge_agreement"))
    if agreement:
        lines.append(agreement)
    return DimensionNote(_text(dim.get("name")), tuple(lines), tuple(tabled)) if lines or tabled else None


#: Cases of a regressed / improved list written inline (the HTML lists every listed case besides).
CASES_INLINE = 5


def _case_changes(comparison: Mapping[str, Any]) -> tuple[CaseChanges, ...]:
    """The ``regressed_cases`` / ``improved_cases`` of each compared dimension (SPEC §18), regressed first."""
    out = []
    for kind in ("regressed", "improved"):
        for entry in comparison.get("regressions") or []:
            block = entry.get(f"{kind}_cases") if isinstance(entry, Mapping) else None
            if not isinstance(block, Mapping):
                continue
            listed = tuple(CaseChange(_text(c.get("case_id")), case_change_text(c))
                           for c in block.get("listed") or [] if isinstance(c, Mapping))
            total = block.get("total")
            total = total if isinstance(total, int) and total >= len(listed) else len(listed)
            if total == 0:
                continue
            inline, _ = truncate(listed, CASES_INLINE)
            not_listed = total - len(listed)
            out.append(CaseChanges(
                dimension=_text(entry.get("dimension")), kind=kind, total=fmt_count(total),
                inline=tuple(inline),
                inline_more=("none listed" if not inline else f"and {fmt_count(total - len(inline))} more")
                if total > len(inline) else "",
                listed=listed,
                listed_more=f"… and {fmt_count(not_listed)} more not listed (the comparison lists the first "
                            f"{fmt_count(len(listed))}, largest change first)" if not_listed > 0 else "",
            ))
    return tuple(out)


def _variance(dims: Sequence[Mapping[str, Any]]) -> Table | None:
    rows = []
    for dim in dims:
        cells = variance_cells(dict(dim))
        if cells is not None:
            rows.append(
                [_code(dim.get("name")), *(_num(clean_text(c)) for c in cells[:-1]), Cell(clean_text(cells[-1]))]
            )
    return _table("variance", VARIANCE_HEADER, rows) if rows else None


def _source_line(source: Any) -> str:
    """"imported from Inspect AI 0.3.95, 3 of 100 samples, cancelled" for an imported run's source (SPEC §15)."""
    if not isinstance(source, Mapping):
        return ""
    from ..importers._base import source_line

    return clean_text(source_line(source))


def build_sections(data: Mapping[str, Any], *, evidence_rows: int | None = None) -> Sections:
    """The sections of a scorecard dictionary (``Scorecard.to_dict()``).

    Parameters
    ----------
    data : mapping
        ``Scorecard.to_dict()`` (or a ``scorecard.json`` read back).
    evidence_rows : int, optional
        Rows written to ``evidence.parquet`` or the ``evidence/`` dataset (default: from ``data``).
    """
    decision = data.get("decision")
    evidence_file = _evidence_file(data)
    agent = data.get("agent") or {}
    conf = confidence_label(dict(data))
    dims = [d for d in data.get("dimensions") or [] if isinstance(d, Mapping)]
    ks = pass_k_columns(dims)
    basis = _text(((data.get("policy") or {}).get("gate") or {}).get("threshold_basis") or "point")
    methods = {d.get("interval_method") for d in dims if d.get("interval_method") is not None}
    interval = interval_label(conf, methods)
    labels = _labels(conf, basis, ks, interval)
    cells = [_dimension_cells(d, ks, mixed=len(methods) > 1) for d in dims]
    keys = _column_keys(dims)
    notes = tuple(note for note in (_dimension_note(d) for d in dims) if note is not None)

    scope = data.get("scope") or {}
    scope_facts: list[tuple[str, Cell]] = [
        ("required dimensions", _ids(scope.get("required_dimensions") or [], "scorecard.json"))]
    if "dimensions" in scope:
        scope_facts.append(("dimensions in scope", _ids(scope.get("dimensions") or [], "scorecard.json")))
    inferred = scope.get("inferred")
    scope_facts.append(("inferred", Cell(fmt_bool(inferred) + (INFERRED_NOTE if inferred else ""))))
    scope_facts.append(("missing dimensions", _ids(scope.get("missing_dimensions") or [], "scorecard.json")))

    measured = data.get("measured_decision")
    reasons = data.get("decision_reasons") or []
    decision_section = Decision(
        value=_text(decision),
        tone=_tone(decision, DECISIONS),
        meaning=DECISION_MEANING.get(decision, "") if isinstance(decision, str) else "",
        overall_pass=fmt_bool(data.get("overall_pass")),
        purpose=_text(data.get("purpose")),
        partial=bool(data.get("partial")),
        generated_at=_text(data.get("generated_at")),
        measured=_text(measured) if measured not in (None, decision) else None,
        reasons=tuple(clean_text(r) for r in reasons),
    )
    who = " ".join(clean_text(v) for v in (agent.get("name"), agent.get("version")) if v not in (None, ""))
    identity: tuple[tuple[str, str], ...] = (
        ("agent", _text(agent.get("name"))),
        ("agent version", _text(agent.get("version"))),
        ("generated_at", _text(data.get("generated_at"))),
        ("scorekit", f"{_text(data.get('scorekit_version'))} (schema_version {_text(data.get('schema_version'))})"),
    )
    source = _source_line(data.get("source"))
    if source:
        identity += (("source", source),)

    flaky = tuple(
        Flaky(_text(d.get("name")), fmt_count(len(d["flaky_cases"])), fmt_count(d.get("repeated_cases")),
              _ids(d["flaky_cases"], evidence_file))
        for d in dims if d.get("flaky_cases")
    )

    guidance = _guidance()
    findings = [f for f in data.get("findings") or [] if isinstance(f, Mapping)]

    validation = data.get("validation") or {}
    problems = validation.get("problems") or []
    facts = [("strict", fmt_bool(validation.get("strict")))]
    if "complete" in validation:
        facts.append(("complete", fmt_bool(validation.get("complete"))))
    facts += [(k, fmt_count(validation.get(k))) for k in ("labeled", "unlabeled", "invalid")]
    facts.append(("problems", fmt_count(len(problems))))
    shown_problems, omitted_problems = truncate(problems)

    controls_note, controls, controls_more = _controls([c for c in data.get("controls") or []
                                                        if isinstance(c, Mapping)])
    comparison = data.get("comparison") or {}
    hashes = data.get("hashes") or {}
    rows = evidence_row_count(dict(data), evidence_rows)
    variance = _variance(dims)

    return Sections(
        agent=who,
        version=_text(data.get("scorekit_version")),
        decision=decision_section,
        identity=identity,
        scope=tuple(scope_facts),
        confidence=conf,
        rate_note=(HEADLINE_RATE_NOTE if methods else RATE_NOTE).format(conf=conf),
        measures=_dimension_table("measures", keys["measures"], cells, labels, ks),
        reliability=_dimension_table("reliability", RELIABILITY_KEYS, cells, labels, ks),
        pass_k=_pass_k_tables(cells, labels, ks),
        pass_k_note=PASS_K_NOTE if ks else "",
        intervals_note=TWO_INTERVALS_NOTE,
        thresholds=_dimension_table("thresholds", keys["thresholds"], cells, labels, ks),
        threshold_note=THRESHOLD_NOTE.format(basis=basis),
        variance=variance,
        variance_note=VARIANCE_NOTE.format(conf=conf) if variance is not None else NO_VARIANCE_NOTE,
        coverage=fmt_pct(data.get("coverage")),
        flaky=flaky,
        caveats=tuple(clean_text(c) for c in data.get("caveats") or []),
        guidance=guidance,
        findings_note=FINDINGS_NOTE,
        findings=_findings_table(findings, evidence_file),
        finding_items=tuple(_finding(i, f, guidance, evidence_file) for i, f in enumerate(findings, 1)),
        validation=tuple(facts),
        problems=tuple(clean_text(problem_text(p)) for p in shown_problems),  # the first LIST_LIMIT
        problems_more=more_text(omitted_problems, "scorecard.json"),
        controls_note=controls_note,
        controls=controls,
        controls_more=controls_more,
        comparison=tuple((label, clean_text(text)) for label, text in comparison_facts(dict(comparison))),
        regressions=_regressions(comparison),
        evidence_note=EVIDENCE_NOTE.format(rows=fmt_count(rows), file=evidence_file),
        evidence_rows=fmt_count(rows),
        hashes=_table("hashes", ["hash", "sha256"],
                      [[Cell(key), _code(hashes.get(key))] for key in ("suite", "policy", "results", "evidence")]),
        judges=_ids(data.get("judges") or [], "scorecard.json") if data.get("judges") else Cell("no judges"),
        evaluators=_ids(data.get("evaluators") or [], "scorecard.json"),
        rate_chart=rate_chart(dims, conf, interval if methods else ""),
        pass_k_chart=pass_k_chart(dims),
        summary=_dimension_table("summary", keys["summary"], cells, labels, ks),
        clustered_wider=any(isinstance(d.get("deff"), (int, float)) and d["deff"] > 1 for d in dims),
        problem_list=tuple(problems),
        source=source,
        error_rates=clean_text(error_rates_text(data.get("error_rates"), comparison, basis)),
        interval=interval,
        assurance_note=POINT_BASIS_NOTE if basis == "point" and "assurance" in keys["thresholds"] else "",
        bounds_note=BOUNDS_NOTE if "bounds" in keys["measures"] else "",
        dimension_notes=notes,
        case_changes=_case_changes(comparison),
    )


# --------------------------------------------------------------------------- history
@dataclass(frozen=True)
class History:
    """``scorekit.history.read_history`` as tables: one row per record, and the latest records' rates."""

    records: Table | None
    rates: Table | None
    rates_note: str


def _is_missing(value: Any) -> bool:
    """None, NaN, NaT or pandas' NA (the history's nullable columns)."""
    import pandas as pd

    return value is None or bool(pd.isna(value)) if not isinstance(value, (list, tuple, dict)) else False


def history_sections(records: Any, dimensions: Any = None, *, latest: int = 5) -> History:
    """The history listing.

    Parameters
    ----------
    records : DataFrame
        ``read_history(db)`` (one row per record, indexed by ``id``); ``pinned``
        says which records are pinned (``latest pin``: the default baseline of the
        runs comparable with it, SPEC §10).
    dimensions : DataFrame, optional
        ``read_history(db, dimensions=True)``: the rates of the ``latest``
        records are listed per dimension, with their Wilson interval.
    """
    if records is None or len(records) == 0:
        return History(None, None, "")
    rows = []
    pins = records["pin_order"] if "pin_order" in records else None
    latest_pin = None if pins is None or pins.isna().all() else pins.max()
    for rid, r in records.iterrows():
        created = r["created_at"]
        pin = None if pins is None or _is_missing(r["pin_order"]) else r["pin_order"]
        created = created.strftime("%Y-%m-%d %H:%M:%S") if hasattr(created, "strftime") else _text(created)
        agent = " ".join(clean_text(x) for x in (r["agent_name"], r["agent_version"]) if not _is_missing(x))
        baseline = r["baseline_id"]
        rows.append([
            _num(str(rid)), Cell(created), _code(None if _is_missing(r["label"]) else r["label"]),
            Cell(agent or UNDEFINED), Cell(_text(r["decision"]), "verdict", tone=_tone(r["decision"], DECISIONS)),
            Cell(_text(r["measured_decision"])), Cell(_text(r["comparison_status"])),
            _num(UNDEFINED if _is_missing(baseline) else str(int(baseline))),
            Cell("yes" if r["eligible"] else "no"),
            Cell("no" if pin is None else "latest pin" if pin == latest_pin else "yes"),
            _code(str(r["suite_hash"] or UNDEFINED)[:12]), _code(str(r["policy_hash"] or UNDEFINED)[:12]),
        ])
    table = _table("history", ["id", "created_at", "label", "agent", "decision", "measured", "comparison",
                               "baseline", "eligible", "pinned", "suite", "policy"], rows)
    if dimensions is None or len(dimensions) == 0:
        return History(table, None, "")
    ids = list(records.index)[-latest:]
    chosen = dimensions[dimensions["record_id"].isin(ids)]
    confidences = {fmt_confidence(c) for c in records.loc[ids, "confidence"]} if "confidence" in records else set()
    wilson = f"{confidences.pop()} Wilson CI" if len(confidences) == 1 else "Wilson CI (at the record's confidence)"
    rate_rows = [
        [_code(d["dimension"]), _num(str(int(d["record_id"]))), _code(None if _is_missing(d["label"]) else d["label"]),
         Cell(_text(d["verdict"]), "verdict", tone=_tone(d["verdict"], VERDICTS)), _num(fmt_count(d["n"])),
         _num(fmt_pct(None if _is_missing(d["rate"]) else d["rate"])),
         _num(fmt_ci(None if _is_missing(d["ci_low"]) else d["ci_low"],
                     None if _is_missing(d["ci_high"]) else d["ci_high"]))]
        for _, d in chosen.sort_values(["dimension", "record_id"], kind="stable").iterrows()
    ]
    note = (f"Each dimension's rate in the latest {fmt_count(len(ids))} records (oldest first); "
            "read_history(db, dimensions=True) holds every record.")
    rates = _table("history-rates", ["dimension", "record", "label", "verdict", "n", "rate", wilson], rate_rows)
    return History(table, rates, note)


# --------------------------------------------------------------------------- imported runs
#: The columns of the imported-runs table (``scorekit import`` and an ``ImportedRun`` in Jupyter).
RUN_COLUMNS = ("agent", "task", "rows", "dimensions", "coverage", "status")


def runs_table(runs: Sequence[Any]) -> Table:
    """One row per imported run (:class:`~scorekit.ImportedRun`): agent, task, rows, dimensions,
    coverage ((PASS+FAIL+scored)/rows), status.

    ``scorekit import`` prints it (:func:`scorekit.reports.text.table_text`) and Jupyter shows it
    (:func:`scorekit.notebook.imported_runs`): one model, so both say the same.
    """
    from ..importers._run import dimension_coverage, run_status

    body = []
    for run in runs:
        cover = dimension_coverage(run)
        measured = sum(m for m, _ in cover.values())
        total = sum(n for _, n in cover.values())
        body.append([
            _code(run.agent), _code(run.task), _num(fmt_count(len(run.rows))), _num(fmt_count(len(cover))),
            _num(fmt_pct(measured / total if total else None)), Cell(run_status(run)),
        ])
    return _table("imported-runs", list(RUN_COLUMNS), body)
