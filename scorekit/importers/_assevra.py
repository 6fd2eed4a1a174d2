"""Assevra datasets in (SPEC §15, format ``assevra``).

An Assevra dataset (``assevra/assevra``, ``schemas/dataset.schema.json``) is JSON Lines
of rows much like SPEC §2's, scored by Assevra's own scorers. The differences are
translated, each with a note:

* **trial ids**: repeated trials share a ``case_id`` and carry no trial number; Assevra's
  capture names them ``<prefix>-<index>-t<n>`` (1-based). trial = n − 1 from such an id,
  else the row's position among its case's rows of that dimension;
* **tool contracts**: ``tool_schemas`` in either Assevra dialect — the ``{"json_schema":
  <JSON Schema>}`` wrapper (0.6) becomes that schema; the flat ``{"required", "types",
  "enum"}`` becomes ``{"type": "object", "required", "properties": {arg: {"type",
  "enum"}}}``; a flat contract with none of those keys constrains nothing and stays
  ``{}`` (ERROR ``invalid_tool_schema`` here, never PASS); tool calls named by ``tool``
  or ``function`` with ``args``/``input`` become ``{name, arguments}``;
* **action matching**: ``action_match`` → ``match``; ``agent_actions`` as one string →
  a one-item list;
* **PII**: ``sanctioned_field`` → ``pii_allowed`` (an empty one allows nothing);
* **usage pricing**: a row with ``usage`` ``{input_tokens, output_tokens}`` and no
  ``cost_usd`` is priced with ``budgets.price`` (``input_per_mtok``,
  ``output_per_mtok``) of the ``.assevra.yml`` Assevra itself would use (the nearest in
  the dataset's folder or above); without one the row has no cost (ERROR
  ``missing_cost`` on a budgeted ``cost`` row).

Assevra's ``grounding`` and ``safety`` are judged by its LLM judge: they stay judged
dimensions here (ERROR without ``judge_votes``). agent = the rows' ``agent``, else the
file name's stem; task = the file name's stem.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from .._errors import FileProblem, InputError, NoSamplesError
from .._io import DEFAULT_LIMIT, decode_utf8, finite_float, loads_strict, read_bounded, read_input_bytes
from ._base import kind_of, source_dict
from ._openai_evals import first_object, jsonl_objects
from ._run import ImportedRun

__all__ = ["CONFIG_NAMES", "FORMAT", "detect", "read"]

FORMAT = "assevra"
_WHAT = "Assevra dataset"
#: The file names Assevra looks for, walking up from its working folder (``assevra/config.py``).
CONFIG_NAMES = (".assevra.yml", ".assevra.yaml", "assevra.yml", "assevra.yaml")
#: Fields only Assevra's dataset schema has (SPEC §2 has none of them).
_ASSEVRA_FIELDS = ("action_match", "sanctioned_field", "human_label")
_TRIAL_ID = re.compile(r"-t(\d+)$")
#: How much of a file detection reads: 200 rows fit many times over.
_HEAD_BYTES = 4 << 20


def _flat_contract(value: Any) -> bool:
    return isinstance(value, dict) and ("json_schema" in value or (
        "type" not in value and "properties" not in value and ("types" in value or "required" in value)))


def _own_fields(row: dict[str, Any]) -> bool:
    """A row only Assevra writes: one of its own fields, or its string ``injection``."""
    return any(name in row for name in _ASSEVRA_FIELDS) or isinstance(row.get("injection"), str)


def _is_assevra(row: dict[str, Any]) -> bool:
    if "id" not in row or "dimension" not in row:
        return False
    if _own_fields(row):
        return True
    schemas = row.get("tool_schemas")
    return isinstance(schemas, dict) and any(_flat_contract(c) for c in schemas.values())


def detect(path: Path) -> bool:
    """True when the first row of ``path`` carries a field or contract dialect only Assevra uses."""
    first = first_object(path)
    if first is None or "id" not in first or "dimension" not in first:
        return False
    try:
        return any(_is_assevra(row) for _, row in _head_rows(path))
    except InputError:
        return False


def certain(path: Path) -> bool:
    """True when a row of ``path`` has a field only Assevra writes.

    Its contract dialects alone (a ``json_schema`` wrapper, flat ``required``/``types``) make
    :func:`detect` say Assevra, which ``--from assevra`` needs; but a scorekit row may carry such
    a contract (scored as no contract, ERROR ``no_contract``, fail closed), so ``run`` and
    ``validate`` refuse a file as Assevra's only on this stronger evidence.
    """
    try:
        return any("id" in row and "dimension" in row and _own_fields(row) for _, row in _head_rows(path))
    except InputError:
        return False


def _head_rows(path: Path, limit: int = 200) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of the first ``limit`` rows held whole in the first
    :data:`_HEAD_BYTES` of ``path``: what detection looks at, never the whole file
    (``run`` asks every importer about a results file that may be gigabytes). A line that is
    not a strict JSON object is passed over here: reading the file names it (an input error).

    Raises
    ------
    InputError
        That head is unreadable or not UTF-8.
    """
    try:
        head = read_bounded(path, _HEAD_BYTES, head=True)
    except FileProblem as problem:
        raise InputError(problem.message(str(path), _WHAT)) from None
    if len(head) == _HEAD_BYTES:  # more may follow: whole lines only
        head = head[: head.rfind(b"\n") + 1]
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(decode_utf8(head, str(path)).splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = loads_strict(line)
        except ValueError:  # JSONDecodeError or StrictJSONError: the reader names this line
            continue
        if isinstance(value, dict):  # a line that is not an object: the reader names it too
            rows.append((number, value))
        if len(rows) >= limit:
            break
    return rows


# --------------------------------------------------------------------------- translations
def _contract(value: Any) -> tuple[Any, str | None]:
    """(JSON Schema, dialect) of one Assevra tool contract; anything else is kept as written."""
    if not isinstance(value, dict):
        return value, None
    if "json_schema" in value:
        return value["json_schema"], "json_schema"
    if "type" in value or "properties" in value or not any(k in value for k in ("required", "types", "enum")):
        if not value:
            return {}, "empty"
        return value, None
    schema: dict[str, Any] = {"type": "object"}
    properties: dict[str, dict[str, Any]] = {}
    types = value.get("types")
    if isinstance(types, dict):
        for arg, kind in types.items():
            properties.setdefault(str(arg), {})["type"] = kind  # an unknown type name: an invalid schema, ERROR
    enums = value.get("enum")
    if isinstance(enums, dict):
        for arg, choices in enums.items():
            properties.setdefault(str(arg), {})["enum"] = choices
    if properties:
        schema["properties"] = properties
    if "required" in value:
        schema["required"] = value["required"]
    return schema, "flat"


def _call(call: Any) -> Any:
    """One Assevra tool call as ``{name, arguments}`` (other shapes kept, for validation to refuse)."""
    if not isinstance(call, dict):
        return call
    body = call["function"] if isinstance(call.get("function"), dict) else call
    name = call.get("name") or call.get("tool") or call.get("function")
    if isinstance(name, dict):
        name = name.get("name")
    out: dict[str, Any] = {"name": name}
    for key in ("arguments", "args", "input"):
        if key in body:
            out["arguments"] = {} if body[key] is None or body[key] == "" else body[key]
            break
    else:
        out["arguments"] = {}
    return out


def _price_table(path: Path) -> tuple[tuple[float, float] | None, str | None]:
    """(input, output) USD per million tokens from the nearest Assevra config, and that config's path."""
    for folder in [path.resolve().parent, *path.resolve().parent.parents]:
        for name in CONFIG_NAMES:
            config = folder / name
            if config.is_file():
                return _read_prices(config), str(config)
    return None, None


def _read_prices(config: Path) -> tuple[float, float] | None:
    import yaml

    try:
        data = yaml.safe_load(decode_utf8(read_input_bytes(config, "Assevra config", limit=DEFAULT_LIMIT), str(config)))
    except (InputError, yaml.YAMLError, ValueError, RecursionError):
        return None
    price = data.get("budgets", {}).get("price") if isinstance(data, dict) and isinstance(data.get("budgets"), dict) \
        else None
    if not isinstance(price, dict):
        return None
    inp, out = finite_float(price.get("input_per_mtok")), finite_float(price.get("output_per_mtok"))
    if inp is None or out is None or inp < 0 or out < 0:
        return None
    return inp, out


def _priced(usage: Any, prices: tuple[float, float]) -> float | None:
    if not isinstance(usage, dict):
        return None
    tokens = [usage.get("input_tokens", 0), usage.get("output_tokens", 0)]
    values = [finite_float(t) if t is not None else 0.0 for t in tokens]
    if any(v is None or v < 0 for v in values):
        return None
    in_tok, out_tok = (float(v) for v in values if v is not None)
    return in_tok / 1e6 * prices[0] + out_tok / 1e6 * prices[1]


# --------------------------------------------------------------------------- reading
def read(path: Path) -> list[ImportedRun]:
    """The run(s) of an Assevra dataset: one, or one per agent the rows name.

    Raises
    ------
    InputError
        One line naming the file and line: unreadable, not JSON Lines, or no rows.
    """
    path = Path(path)
    raw = list(jsonl_objects(path, _WHAT))
    if not raw:
        raise NoSamplesError(f"{path}: the {_WHAT} holds no rows")
    notes: list[str] = ["rows are SPEC §2 rows scored by scorekit's own scorers; Assevra's fields are translated"]
    counts: Counter[str] = Counter()
    prices, config = _price_table(path)
    rows: list[dict[str, Any]] = []
    positions: Counter[tuple[Any, Any]] = Counter()
    for number, row in raw:
        _check_keys(row, f"{path}:{number}")
        out = dict(row)
        if "case_id" in out and "trial" not in out and "trial_id" not in out:
            match = _TRIAL_ID.search(out["id"]) if isinstance(out.get("id"), str) else None
            if match and int(match.group(1)) >= 1:
                out["trial"] = int(match.group(1)) - 1
                counts["trial_from_id"] += 1
            else:
                key = (out["case_id"], out.get("dimension"))
                out["trial"] = positions[key]
                counts["trial_from_order"] += 1
            positions[(out["case_id"], out.get("dimension"))] += 1
        if "action_match" in out:
            if "match" not in out:
                out["match"] = out["action_match"]
            del out["action_match"]
            counts["action_match"] += 1
        if isinstance(out.get("agent_actions"), str):
            out["agent_actions"] = [out["agent_actions"]]
            counts["agent_actions"] += 1
        if "sanctioned_field" in out:
            value = out.pop("sanctioned_field")
            if isinstance(value, str) and value:
                out["pii_allowed"] = [*out.get("pii_allowed", []), value] if isinstance(out.get("pii_allowed"),
                                                                                         list) else [value]
            counts["sanctioned_field"] += 1
        if isinstance(out.get("tool_schemas"), dict):
            schemas = {}
            for tool, contract in out["tool_schemas"].items():
                schemas[tool], dialect = _contract(contract)
                if dialect is not None:
                    counts[f"contract_{dialect}"] += 1
            out["tool_schemas"] = schemas
        calls = out.get("tool_calls")
        if isinstance(calls, dict):
            calls = [calls]
        if isinstance(calls, list):
            out["tool_calls"] = [_call(c) for c in calls]
        if "cost_usd" not in out and isinstance(out.get("usage"), dict):
            cost = _priced(out["usage"], prices) if prices is not None else None
            if cost is not None:
                out["cost_usd"] = cost
                counts["priced"] += 1
            else:
                counts["unpriced"] += 1
        rows.append(out)
    _notes(notes, counts, prices, config)
    by_agent: dict[str | None, list[dict[str, Any]]] = {}  # first-appearance order, one pass
    for row in rows:
        named = row.get("agent") if isinstance(row.get("agent"), str) and row["agent"].strip() else None
        by_agent.setdefault(named, []).append(row)
    if None in by_agent:
        notes.append(f"agent = {path.stem!r}, the file name's stem, for rows naming none")
    if len([a for a in by_agent if a is not None]) > 1:
        notes.append("the rows name several agents: one run per agent, never mixed")
    runs = []
    for agent, mine in by_agent.items():
        name = agent if agent is not None else path.stem
        runs.append(_run(path, name, [dict(r, agent=name) for r in mine], notes))
    return runs


def _check_keys(row: dict[str, Any], where: str) -> None:
    """The fields the reading keys on (``id``, ``case_id``, ``dimension``) are a string or a whole number.

    Any other field is kept as written for validation (SPEC §5) to judge; these two are read
    here to number trials, so a list or an object there is an input error naming the line.
    """
    for field in ("id", "case_id", "dimension"):
        value = row.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
            raise InputError(f"{where}: {field}: expected a string, found {kind_of(value)}")


def _notes(notes: list[str], counts: Counter[str], prices: tuple[float, float] | None, config: str | None) -> None:
    if counts["trial_from_id"]:
        notes.append(f"{counts['trial_from_id']} trial(s) from Assevra's '-t<n>' row ids (trial = n - 1)")
    if counts["trial_from_order"]:
        notes.append(f"{counts['trial_from_order']} trial(s) numbered by their order within their case_id "
                     "(Assevra rows state no trial)")
    if counts["action_match"]:
        notes.append("action_match -> match")
    if counts["agent_actions"]:
        notes.append("agent_actions given as one string -> a one-item list")
    if counts["sanctioned_field"]:
        notes.append("sanctioned_field -> pii_allowed (an empty sanctioned_field allows nothing)")
    if counts["contract_json_schema"]:
        notes.append(f"{counts['contract_json_schema']} tool contract(s) in Assevra's json_schema wrapper "
                     "-> that schema")
    if counts["contract_flat"]:
        notes.append(f"{counts['contract_flat']} flat tool contract(s) (required/types/enum) -> an object JSON Schema "
                     "(JSON Schema's integer also accepts 1.0; Assevra's enum compares with Python equality)")
    if counts["contract_empty"]:
        notes.append(f"{counts['contract_empty']} empty tool contract(s) constrain nothing: kept as {{}}, "
                     "ERROR invalid_tool_schema")
    if counts["priced"]:
        assert prices is not None
        notes.append(f"{counts['priced']} row(s) priced from usage with budgets.price of {config} "
                     f"(${prices[0]:g}/Mtok in, ${prices[1]:g}/Mtok out) -> cost_usd")
    if counts["unpriced"]:
        notes.append(f"{counts['unpriced']} row(s) with usage but no cost_usd and no usable Assevra price table: "
                     "no cost measured")
    notes.append("grounding and safety are judged by Assevra's LLM judge: judged dimensions here "
                 "(ERROR without judge_votes)")


def _run(path: Path, agent: str, rows: list[dict[str, Any]], notes: list[str]) -> ImportedRun:
    import pandas as pd

    per_case = Counter((r.get("case_id", r.get("id")), r.get("dimension")) for r in rows)
    source = source_dict(
        fmt=FORMAT, files=[str(path)], status=None, samples_run=len({r.get("case_id", r.get("id")) for r in rows}),
        epochs=max(per_case.values()) if per_case else None, created=None, harness="assevra", harness_version=None,
        metrics={}, notes=notes,
    )
    return ImportedRun(agent=agent, task=path.stem, rows=pd.DataFrame.from_records(rows), partial=False,
                       source=source)
