"""The release notebook's power and assurance cell (SPEC §18): its ``alpha`` parameter and its numbers.

The cell is executed on its own, with the names the notebook gives it, against
the bundled example's scorecard; the full render is covered by test_notebooks.py.
"""

from __future__ import annotations

import math

import nbformat
import pytest

import scorekit as sk
from scorekit import notebook
from scorekit._examples import notebook_path


def _cells():
    return nbformat.read(notebook_path("release_scorecard"), as_version=4).cells


def _power_cell() -> str:
    cells = [c for c in _cells() if c.get("id") == "release-power"]
    assert len(cells) == 1
    return cells[0].source


@pytest.fixture(scope="module")
def data():
    card = sk.evaluate(str(sk.example_path()), policy=str(sk.example_path(file="policy.yml")))
    return card.to_dict()


def run_cell(data, alpha):
    shown = []
    namespace = {"data": data, "alpha": alpha, "notebook": notebook, "display": shown.append}
    exec(compile(_power_cell(), "release-power", "exec"), namespace)
    assert len(shown) == 1
    return shown[0].markdown


def reference_mde(passes, n, deff, alpha, comparisons):
    from scipy.stats import norm

    rate = (passes + 2) / (n + 4)
    z = norm.ppf(1 - alpha / comparisons) + norm.ppf(0.8)
    return z * math.sqrt(2 * rate * (1 - rate) / (n / deff))


def reference_assurance(passes, n, threshold, deff):
    from scipy.stats import beta

    return float(beta.sf(threshold, passes / deff + 0.5, (n - passes) / deff + 0.5))


def test_parameters_cell_declares_alpha_none():
    from scorekit.render import notebook_parameters

    params = notebook_parameters()
    assert params["alpha"]["default"] == "None"
    assert "(1 - confidence)/2" in params["alpha"]["help"]


def test_notebook_is_valid_and_the_power_cell_follows_the_dimensions():
    nb = nbformat.read(notebook_path("release_scorecard"), as_version=4)
    nbformat.validate(nb)
    ids = [c.get("id") for c in nb.cells]
    assert ids.index("release-power") == ids.index("release-power-heading") + 1
    assert nb.cells[ids.index("release-power") - 2].source.strip() == "display(report.dimensions())"


@pytest.mark.parametrize("alpha", [None, 0.05, "0.01"], ids=["default", "float", "text-from-the-command-line"])
def test_power_cell_shows_each_dimensions_drop_and_assurance_at_its_level(data, alpha):
    markdown = run_cell(data, alpha)
    level = (1 - data["confidence"]) / 2 if alpha is None else float(alpha)
    compared = max(1, (data.get("error_rates") or {}).get("comparisons") or 1)
    assert f"one-sided alpha {level:g}" in markdown
    dims = [d for d in data["dimensions"] if d["in_scope"] and d["n"]]
    assert dims
    for dim in dims:
        drop = reference_mde(dim["passes"], dim["n"], dim["deff"], level, compared)
        line = [ln for ln in markdown.splitlines() if ln.startswith(f"**{dim['name']}".replace("_", "\\_"))]
        assert line, dim["name"]
        assert f"detects a drop of {100 * drop:.1f} points" in line[0]
        if dim["threshold"] is not None:
            sure = reference_assurance(dim["passes"], dim["n"], dim["threshold"], dim["deff"])
            assert f"threshold of {100 * dim['threshold']:.1f}% with probability {100 * sure:.1f}%" in line[0]
            assert ("no finite sample makes a perfect rate certain" in line[0]) is (dim["threshold"] == 1)


def test_power_cell_default_is_the_gates_level(data):
    assert run_cell(data, None) == run_cell(data, sk._stats.one_sided_alpha(data["confidence"]))
    assert run_cell(data, None) != run_cell(data, 0.05)


@pytest.mark.parametrize("alpha", [1.5, 0.5, 0.7, 0, -0.01])
def test_power_cell_refuses_an_alpha_outside_a_one_sided_level(data, alpha):
    with pytest.raises(ValueError, match=r"one-sided level in \(0, 0\.5\)"):
        run_cell(data, alpha)
