"""``action_correctness``: expected and forbidden action sequences, final state (SPEC §3).

Observed actions are the row's ``agent_actions`` (a name, or an object whose
``name`` is used), defaulting to its ``tool_calls``. Checks, first match wins:

1. a ``forbidden_actions`` entry occurs → FAIL ``forbidden_action``. An entry is
   one action name (forbidden anywhere) or a list of names forbidden as an
   ordered, not necessarily contiguous, subsequence (``["read_secret",
   "send_email"]``);
2. ``expected_actions`` not matched per ``match`` (default ``ordered`` = ordered
   subsequence, ``exact`` = equal sequence, ``set`` = membership) → FAIL
   ``missing_expected_action`` (``action_sequence_mismatch`` for ``exact``);
3. ``expected_state`` does not match ``observed_state`` (:func:`state_matches`)
   → FAIL ``state_mismatch``;
4. missing evidence → ERROR: ``missing_actions`` (an action check is declared
   but the row has neither ``agent_actions`` nor ``tool_calls``),
   ``missing_observed_state`` (``expected_state`` without ``observed_state``).

A certain failure (1–3, established from the evidence that *is* present) wins
over missing evidence, so missing evidence can never hide a FAIL; missing
evidence is never PASS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._base import Context, Outcome, error, failed, passed, unlabeled
from ._calls import row_calls

__all__ = ["REASONS", "observed_actions", "score", "state_matches"]

REASONS = {
    "missing_action_contract": (
        "no expected_actions, forbidden_actions or expected_state: nothing can establish success"
    ),
    "missing_actions": "actions are checked but the row has neither agent_actions nor tool_calls (missing evidence)",
    "missing_observed_state": "expected_state is given but observed_state is absent (missing evidence)",
    "forbidden_action": "a forbidden action (or forbidden ordered sequence of actions) occurred",
    "missing_expected_action": "an expected action is missing or out of order",
    "action_sequence_mismatch": "the actions differ from the exactly expected sequence (match: exact)",
    "state_mismatch": "the observed final state does not match expected_state",
}

_SCALARS = (str, int, float, bool)
# Absent in the sense of _rows: no key, or an explicit null / NaN left by a frame.
_MISSING = object()


def _get(row: Mapping[str, Any], key: str) -> Any:
    value = row.get(key, _MISSING)
    if value is None or (isinstance(value, float) and value != value):
        return _MISSING
    return value


# --------------------------------------------------------------------------- state
def state_matches(expected: Any, observed: Any) -> bool:
    """Whether ``observed`` satisfies ``expected`` (SPEC §3).

    - objects match recursively as subsets: every key of ``expected`` is present
      in ``observed`` and its value matches;
    - arrays match exactly in order: same length, element-wise by these rules;
    - scalars match only with the same type and value: ``True`` ≠ ``1``,
      ``1`` ≠ ``1.0``, ``"1"`` ≠ ``1``, ``None`` only matches ``None``.

    Iterative (no recursion limit on deeply nested states); never raises.
    """
    stack = [(expected, observed)]
    pop, push = stack.pop, stack.append
    while stack:
        exp, obs = pop()
        if isinstance(exp, dict):
            if not isinstance(obs, dict):
                return False
            for key, value in exp.items():
                if key not in obs:
                    return False
                push((value, obs[key]))
        elif isinstance(exp, (list, tuple)):
            if not isinstance(obs, (list, tuple)) or len(exp) != len(obs):
                return False
            for pair in zip(exp, obs, strict=True):
                push(pair)
        elif exp is None:
            if obs is not None:
                return False
        elif type(exp) is not type(obs) or not isinstance(exp, _SCALARS) or exp != obs:
            # type() identity keeps bool/int/float apart (True == 1 == 1.0 in Python).
            return False
    return True


def state_mismatch(expected: Any, observed: Any) -> str:
    """Where ``observed`` first fails ``expected`` (for a FAIL's detail): the path and
    what differs, naming types, never copying text values.

    Examples
    --------
    >>> state_mismatch({"labels": ["finance"], "archived": True}, {"labels": [], "archived": True})
    'observed_state.labels: expected a list of 1 items, got 0'
    """
    stack = [(expected, observed, "observed_state")]
    while stack:
        exp, obs, path = stack.pop()
        if isinstance(exp, dict):
            if not isinstance(obs, dict):
                return f"{path}: expected an object, got {_type_name(obs)}"
            for key in reversed(list(exp)):
                if key not in obs:
                    return f"{path}.{key}: missing"
                stack.append((exp[key], obs[key], f"{path}.{key}"))
        elif isinstance(exp, (list, tuple)):
            if not isinstance(obs, (list, tuple)):
                return f"{path}: expected a list, got {_type_name(obs)}"
            if len(exp) != len(obs):
                return f"{path}: expected a list of {len(exp)} items, got {len(obs)}"
            stack.extend((e, o, f"{path}[{i}]") for i, (e, o) in reversed(list(enumerate(zip(exp, obs, strict=True)))))
        elif exp is None:
            if obs is not None:
                return f"{path}: expected null, got {_type_name(obs)}"
        elif type(exp) is not type(obs):
            return f"{path}: expected {_type_name(exp)}, got {_type_name(obs)}"
        elif exp != obs:
            shown = "" if isinstance(exp, str) else f" {exp!r}, got {obs!r}"
            return f"{path}: different value{shown}"
    return "observed_state: does not match"  # pragma: no cover - called only on a mismatch


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            tuple: "a list", dict: "an object"}.get(type(value), type(value).__name__)


# --------------------------------------------------------------------------- actions
def _item(item: Any) -> tuple[Any, Any]:
    """(name, arguments or None) of an action/call item; a name is a bare string."""
    if isinstance(item, str):
        return item, None
    if isinstance(item, dict):
        args = item.get("arguments")
        return item.get("name"), (args if isinstance(args, dict) else None)
    return _MISSING, None  # matches nothing


def observed_actions(row: Mapping[str, Any]) -> list[tuple[Any, Any]] | None:
    """The row's observed actions as (name, arguments or None), or None when absent.

    ``agent_actions`` when present, else the row's ``tool_calls`` (their names,
    with their arguments kept so expected arguments can be checked; calls in the
    OpenAI or Anthropic shape and JSON-text arguments are read by
    :func:`scorekit.scorers._calls.read_call`).
    """
    actions = _get(row, "agent_actions")
    if actions is not _MISSING:
        return [_item(item) for item in actions] if isinstance(actions, (list, tuple)) else None
    calls = row_calls(row) if _get(row, "tool_calls") is not _MISSING else None
    return None if calls is None else [(c.name if isinstance(c.name, str) else _MISSING, c.arguments) for c in calls]


def _item_matches(expected: tuple[Any, Any], observed: tuple[Any, Any]) -> bool:
    name, args = expected
    if name is _MISSING or name != observed[0]:
        return False
    if args is None:
        return True
    if observed[1] is None:  # arguments expected but none captured: not a match
        return False
    return state_matches(args, observed[1])


def _is_subsequence(expected: Sequence[tuple[Any, Any]], observed: Sequence[tuple[Any, Any]]) -> bool:
    # Greedy earliest match is optimal for a subsequence with per-element predicates.
    i = 0
    for obs in observed:
        if i == len(expected):
            break
        if _item_matches(expected[i], obs):
            i += 1
    return i == len(expected)


def _names_subsequence(names: Sequence[str], observed: Iterable[Any]) -> bool:
    i = 0
    for name in observed:
        if name == names[i]:
            i += 1
            if i == len(names):
                return True
    return False


def _forbidden_hit(forbidden: Sequence[Any], names: Sequence[Any]) -> Any:
    """The first forbidden entry that occurs (a name or a list of names), or None."""
    present = set(n for n in names if isinstance(n, str))
    for entry in forbidden:
        if isinstance(entry, str):
            if entry in present:
                return entry
        elif isinstance(entry, (list, tuple)) and entry:
            if all(isinstance(n, str) for n in entry) and _names_subsequence(entry, names):
                return entry
    return None


def _show_items(items: Sequence[tuple[Any, Any]]) -> str:
    return "[" + ", ".join(str(name) for name, _ in items) + "]"


def _expected_outcome(expected: Sequence[Any], observed: Sequence[tuple[Any, Any]], mode: Any) -> Outcome | None:
    want = [_item(item) for item in expected]
    seen = f"observed {_show_items(observed)}"
    if mode == "set":
        absent = [w for w in want if not any(_item_matches(w, obs) for obs in observed)]
        if not absent:
            return None
        return failed("missing_expected_action", f"expected {_show_items(absent)} not among the actions; {seen}")
    if mode in (None, "ordered"):
        if _is_subsequence(want, observed):
            return None
        return failed("missing_expected_action", f"expected {_show_items(want)} in this order; {seen}")
    # "exact" (and, defensively, any unknown mode: the strictest reading).
    ok = len(want) == len(observed) and all(_item_matches(w, o) for w, o in zip(want, observed, strict=True))
    return None if ok else failed("action_sequence_mismatch", f"expected exactly {_show_items(want)}; {seen}")


def score(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score one ``action_correctness`` row (see the module docstring)."""
    expected = _get(row, "expected_actions")
    forbidden = _get(row, "forbidden_actions")
    expected_state = _get(row, "expected_state")
    mode = row.get("match") or "ordered"

    # An action key is part of the contract only when it can fail: a non-empty
    # forbidden list; expected actions that are non-empty, or empty under exact
    # matching (the agent must do nothing).
    check_forbidden = isinstance(forbidden, (list, tuple)) and len(forbidden) > 0
    check_expected = isinstance(expected, (list, tuple)) and (len(expected) > 0 or mode == "exact")
    check_state = expected_state is not _MISSING
    if not (check_forbidden or check_expected or check_state):
        return unlabeled("missing_action_contract", "no expected_actions, forbidden_actions or expected_state")

    observed = observed_actions(row) if (check_forbidden or check_expected) else []
    if observed is not None:
        hit = _forbidden_hit(forbidden, [name for name, _ in observed]) if check_forbidden else None
        if hit is not None:
            what = f"forbidden action {hit}" if isinstance(hit, str) else f"forbidden sequence {list(hit)}"
            return failed("forbidden_action", f"{what} occurred; observed {_show_items(observed)}")
        if check_expected:
            outcome = _expected_outcome(expected, observed, mode)
            if outcome is not None:
                return outcome

    observed_state = _get(row, "observed_state") if check_state else _MISSING
    if check_state and observed_state is not _MISSING and not state_matches(expected_state, observed_state):
        return failed("state_mismatch", state_mismatch(expected_state, observed_state))
    if observed is None:
        return error("missing_actions", "actions are checked but the row has neither agent_actions nor tool_calls")
    if check_state and observed_state is _MISSING:
        return error("missing_observed_state", "expected_state is given but observed_state is absent")
    return passed()
