"""One evaluation, one agent (SPEC §2): the agent the evaluated rows measure."""

from __future__ import annotations

from typing import Any

from ._errors import InputError

__all__ = ["one_agent"]


def _agent_list(agents: Any) -> str:
    return ", ".join(
        "(rows without agent)" if a is None else repr(a) for a in sorted(agents, key=lambda a: (a is None, a or ""))
    )


def one_agent(agents: dict[str | None, int], selected: str | None, source: str) -> str | None:
    """The agent the evaluated rows measure: ``selected`` when some row names it, else the one
    agent the rows name (:class:`~scorekit.InputError` for none of ``selected``, or two agents)."""
    named = [a for a in agents if a is not None]
    if selected is not None:
        if selected not in agents:
            found = f"; the rows name {_agent_list(agents)}" if named else "; no row names an agent"
            raise InputError(f"{source}: no row of agent {selected!r}{found}")
        return selected
    if len(agents) > 1:
        raise InputError(
            f"{source}: rows of {len(agents)} agents ({_agent_list(agents)}); one evaluation measures one agent: "
            "choose one with --agent NAME (evaluate(..., agent=NAME))"
        )
    return named[0] if named else None
