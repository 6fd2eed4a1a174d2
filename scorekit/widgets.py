"""Explore a policy interactively: pick dimensions, move thresholds, choose k and purpose.

The callbacks are plain functions. :func:`explore_state` turns the choices into a
policy mapping and calls :func:`scorekit.evaluate` — the decision, the table and
the figures all come from the :class:`~scorekit.Scorecard` it returns; nothing
is recomputed here. :func:`build_explorer` is a thin ipywidgets layer over it
(ipywidgets is imported only there), and :func:`show_explorer` displays the
controls and the current state in a notebook; the state is one display that the
callbacks update in place, so a notebook executed headless (papermill) shows
the initial state as an ordinary output.

Examples
--------
>>> import scorekit as sk
>>> from scorekit.widgets import explore_state
>>> view = explore_state(sk.example_path(), policy=sk.example_path(file="policy.yml"),
...                      thresholds={"action_correctness": 0.85})
>>> view.card.dimensions.loc["action_correctness", "verdict"], view.decision
('PASS', 'INCOMPLETE')

No dimension FAILs any more; cost and latency are INCOMPLETE because one missing row
counted as FAIL could flip them (SPEC §18, ``missing_could_flip``). Leaving them out too:

>>> explore_state(sk.example_path(), policy=sk.example_path(file="policy.yml"),
...               dimensions=["helpfulness", "injection", "pii", "task_completion", "tool_call"]).decision
'PASS'
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from ._constraints import MAX_SAFE_INT, Integral, validate
from ._evaluate import evaluate
from ._policy import PURPOSES, Policy, load_policy
from ._scorecard import Scorecard

__all__ = ["ExploreView", "Explorer", "build_explorer", "explore_policy", "explore_state", "show_explorer"]


def _dimension_names(rows: Any, base: Policy) -> list[str]:
    """Dimensions a user can pick: those of the rows (invalid rows too) and those the policy names."""
    from ._rows import read_row_table

    if isinstance(rows, pd.DataFrame):
        values = rows["dimension"].dropna().unique().tolist() if "dimension" in rows.columns else []
    else:  # an invalid row is evaluated (and listed) under its dimension: it must not stop the explorer
        table = read_row_table(rows)
        values = table.frame["dimension"].dropna().unique().tolist() if "dimension" in table.frame.columns else []
        values += [record.get("dimension") for record in table.invalid]
    names = {d for d in values if isinstance(d, str) and d}
    names.update(base.gate.required_dimensions)
    names.update(base.gate.thresholds)
    return sorted(names)


def explore_policy(
    policy: Any = None,
    *,
    dimensions: Iterable[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    k: int | None = None,
    purpose: str | None = None,
) -> dict[str, Any]:
    """The policy mapping the explorer evaluates with: ``policy`` changed by the choices.

    Parameters
    ----------
    policy : path, mapping, Policy or None
        The starting policy (SPEC §7).
    dimensions : iterable of str, optional
        The dimensions the decision covers: they become ``gate.required_dimensions``
        and only their thresholds are kept, so the others are NOT_IN_SCOPE.
        Default: the policy's own scope.
    thresholds : mapping of str to float, optional
        New pass-rate thresholds per dimension (in [0, 1]).
    k : int, optional
        A k to report pass^k for (added to the policy's ``pass_k``).
    purpose : {"release", "exploratory", "self_test"}, optional

    Returns
    -------
    dict
        The changed policy's :meth:`~scorekit.Policy.to_dict` (checked by
        :meth:`~scorekit.Policy.replace`).

    Examples
    --------
    >>> p = explore_policy({"gate": {"thresholds": {"pii": 1.0, "cost": 0.9}}}, dimensions=["pii"], k=3)
    >>> p["gate"]["required_dimensions"], p["gate"]["thresholds"], p["pass_k"]
    (['pii'], {'pii': 1.0}, [1, 2, 3, 4, 8])
    """
    base = load_policy(policy)
    gate = base.gate
    changed: dict[str, Any] = {}
    if thresholds:
        changed["thresholds"] = {**gate.thresholds, **{str(name): value for name, value in thresholds.items()}}
    if dimensions is not None:
        chosen = sorted({str(d) for d in dimensions})
        if not chosen:
            raise ValueError("dimensions must name at least one dimension; got none")
        kept = changed.get("thresholds", gate.thresholds)
        changed["required_dimensions"] = tuple(chosen)
        changed["thresholds"] = {n: t for n, t in kept.items() if n in chosen}
        changed["pass_k_thresholds"] = {n: t for n, t in gate.pass_k_thresholds.items() if n in chosen}
    changes: dict[str, Any] = {"gate": dataclasses.replace(gate, **changed)} if changed else {}
    if k is not None:
        changes["pass_k"] = sorted({*base.pass_k, validate(k, "k", Integral(1, MAX_SAFE_INT))})
    if purpose is not None:
        changes["purpose"] = purpose
    # Policy.replace checks now: a bad threshold or purpose is named here, not deep inside evaluate.
    return base.replace(**changes).to_dict()


@dataclass(frozen=True)
class ExploreView:
    """One state of the explorer: the Scorecard evaluated under the chosen policy.

    Attributes
    ----------
    card : Scorecard
    policy : dict
        The policy mapping evaluated (:func:`explore_policy`).
    k : int
        The k whose pass^k the table shows.
    """

    card: Scorecard
    policy: dict[str, Any]
    k: int

    def __repr__(self) -> str:
        return f"<ExploreView decision={self.decision} k={self.k} dimensions={len(self.card.dimensions)}>"

    @cached_property
    def data(self) -> dict[str, Any]:
        """``card.to_dict()``, computed once."""
        return self.card.to_dict()

    @property
    def decision(self) -> str:
        return self.card.decision

    @property
    def decision_reasons(self) -> list[str]:
        return list(self.card.decision_reasons)

    @property
    def table(self) -> pd.DataFrame:
        """Verdict, n, passes, rate, the headline interval (``interval_method``), threshold and pass^k per dimension
        (from the card)."""
        dims = self.card.dimensions
        table = dims[["verdict", "n", "passes", "rate", "ci_low", "ci_high", "interval_method", "threshold"]].copy()
        table[f"pass^{self.k}"] = [entry.get(str(self.k)) for entry in dims["pass_k"]]
        return table

    def rates_axes(self) -> Any:
        """Pass rates with their headline intervals and the chosen thresholds (matplotlib Axes, for your own figures;
        the display draws the reports' SVG of the same chart model)."""
        from . import plots

        dims = self.card.dimensions
        thresholds = {n: t for n, t in dims["threshold"].items() if t is not None and t == t}
        return plots.plot_rates(dims, thresholds=thresholds, confidence=self.data["confidence"])

    def pass_k_axes(self) -> Any:
        """pass^k against k per dimension (matplotlib Axes)."""
        from . import plots

        return plots.plot_pass_k(plots.pass_k_frame(self.card.dimensions))

    def fragment(self) -> Any:
        """The state as a notebook fragment: decision, the table at the chosen k and the reports' two charts."""
        from .notebook import Report

        report = Report(self.data)
        return (report.decision(heading=None) + report.summary(ks=[str(self.k)]) + report.rate_chart()
                + report.pass_k_chart())

    def _repr_html_(self) -> str:
        return str(self.fragment()._repr_html_())


def explore_state(
    rows: Any,
    *,
    policy: Any = None,
    dimensions: Iterable[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    k: int | None = None,
    purpose: str | None = None,
) -> ExploreView:
    """Re-decide ``rows`` under the chosen dimensions, thresholds, k and purpose.

    Parameters
    ----------
    rows : path, DataFrame or list of dict
        The results, as :func:`scorekit.evaluate` takes them.
    policy : path, mapping, Policy or None
        The starting policy.
    dimensions, thresholds, k, purpose
        As :func:`explore_policy`. ``k`` defaults to the largest k of the policy.

    Returns
    -------
    ExploreView
        The Scorecard of :func:`scorekit.evaluate` under the changed policy.

    Examples
    --------
    See the module docstring: moving ``action_correctness`` to 0.85 turns the
    bundled example's FAIL into PASS.
    """
    changed = explore_policy(policy, dimensions=dimensions, thresholds=thresholds, k=k, purpose=purpose)
    card = evaluate(rows, changed)
    return ExploreView(card=card, policy=changed, k=k if k is not None else max(changed["pass_k"]))


# --------------------------------------------------------------------------- widgets
@dataclass
class Explorer:
    """The ipywidgets controls of :func:`build_explorer` and the state they show.

    Attributes
    ----------
    controls : ipywidgets.Widget
        The whole control panel (display it).
    checks, sliders : dict of str to widget
        Per dimension: included in scope (Checkbox), threshold (FloatSlider).
    k, purpose : widget
        IntSlider and ToggleButtons.
    view : ExploreView or None
        The current state; None while the choices cannot be evaluated.
    message : str
        Why the choices cannot be evaluated (empty otherwise).
    """

    rows: Any
    policy: Any
    controls: Any
    checks: dict[str, Any]
    sliders: dict[str, Any]
    k: Any
    purpose: Any
    declared: dict[str, float | None] = field(default_factory=dict)
    on_update: Callable[[Explorer], None] | None = None
    view: ExploreView | None = None
    message: str = ""

    def __repr__(self) -> str:
        state = self.view.decision if self.view is not None else f"cannot decide: {self.message}"
        return f"<Explorer {len(self.checks)} dimensions, {state}>"

    def choices(self) -> dict[str, Any]:
        """The current choices as :func:`explore_state` keyword arguments.

        A dimension the policy gives no threshold keeps none (it stays
        INCOMPLETE, fail closed) until its slider is moved off its start.
        """
        chosen = [name for name, box in self.checks.items() if box.value]
        thresholds = {}
        for name in chosen:
            value = float(self.sliders[name].value)
            if self.declared.get(name) is not None or value != 0.0:
                thresholds[name] = value
        return {"dimensions": chosen, "thresholds": thresholds, "k": int(self.k.value),
                "purpose": str(self.purpose.value)}

    def update(self, _change: Any = None) -> ExploreView | None:
        """Re-decide with the current choices (the widgets' callback); then call ``on_update``."""
        from ._errors import ScorekitError

        try:
            self.view = explore_state(self.rows, policy=self.policy, **self.choices())
            self.message = ""
        except (ScorekitError, ValueError) as exc:
            self.view, self.message = None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if self.on_update is not None:
            self.on_update(self)
        return self.view

    def _repr_html_(self) -> str:
        from .notebook import message

        if self.view is None:
            return str(message("Cannot decide", self.message)._repr_html_())
        return self.view._repr_html_()


def build_explorer(
    rows: Any,
    *,
    policy: Any = None,
    on_update: Callable[[Explorer], None] | None = None,
) -> Explorer:
    """Build the explorer's widgets for ``rows`` and evaluate the initial state.

    Every control change calls :meth:`Explorer.update`, which calls
    :func:`explore_state`. Sliders report on release (``continuous_update=False``):
    one evaluation per move.

    Parameters
    ----------
    rows : path, DataFrame or list of dict
    policy : path, mapping, Policy or None
        The starting policy: its scope, thresholds, pass_k and purpose.
    on_update : callable, optional
        Called with the Explorer after each update (:func:`show_explorer` uses it
        to refresh the display).
    """
    import ipywidgets as w

    base = load_policy(policy)
    names = _dimension_names(rows, base)
    in_scope, _ = base.scope(names)
    style = {"description_width": "initial"}
    checks, sliders, lines, declared = {}, {}, [], {}
    for name in names:
        threshold = declared[name] = base.threshold_for(name)
        checks[name] = w.Checkbox(value=name in in_scope, description=name, indent=False,
                                  layout=w.Layout(width="220px"))
        sliders[name] = w.FloatSlider(value=0.0 if threshold is None else threshold, min=0.0, max=1.0, step=0.01,
                                      description="threshold", readout_format=".2f", continuous_update=False,
                                      style=style, layout=w.Layout(width="360px"))
        lines.append(w.HBox([checks[name], sliders[name]]))
    k = w.IntSlider(value=max(base.pass_k), min=1, max=max(8, *base.pass_k), step=1, description="pass^k: k",
                    continuous_update=False, style=style)
    purpose = w.ToggleButtons(options=list(PURPOSES), value=base.purpose, description="purpose", style=style)
    controls = w.VBox([w.HTML("<strong>Dimensions in scope and their thresholds</strong>"), *lines,
                       w.HBox([k, purpose])])
    explorer = Explorer(rows=rows, policy=policy, controls=controls, checks=checks, sliders=sliders, k=k,
                        purpose=purpose, declared=declared)
    explorer.update()
    explorer.on_update = on_update
    for widget in (*checks.values(), *sliders.values(), k, purpose):
        widget.observe(explorer.update, names="value")
    return explorer


def show_explorer(rows: Any = None, *, policy: Any = None) -> Explorer:
    """Display the explorer in a notebook: the controls, then the state they update.

    ``rows`` None: the bundled example (with its policy when ``policy`` is None).
    """
    from IPython import display as ipython_display

    display: Callable[..., Any] = ipython_display.display  # IPython ships no type hints

    from ._examples import example_path

    if rows is None:
        rows = example_path()
        policy = example_path(file="policy.yml") if policy is None else policy
    if isinstance(rows, (str, os.PathLike)):
        rows = os.fspath(rows)
    explorer = build_explorer(rows, policy=policy)
    display(explorer.controls)
    handle = display(explorer, display_id=True)

    def refresh(current: Explorer) -> None:
        # Outside IPython display() prints and returns no handle: print the new state.
        if handle is not None:
            handle.update(current)
        else:
            display(current)

    explorer.on_update = refresh
    return explorer
