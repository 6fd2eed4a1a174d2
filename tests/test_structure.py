"""The module structure (issue 27): no import cycle, no private name across packages, a short ``_evaluate``.

The walker reads the code only (``ast``), and counts every ``import`` and ``from ... import``
wherever it stands: at module level, inside a function (a lazy import), or under
``if TYPE_CHECKING:``. Each is a dependency of the module's code, so each counts.

Rules (those of the structure tool the issue measured with):

- an edge goes from a module to the scorekit module it imports from (``from .x import y`` where
  ``x.y`` is a module: to ``x.y``); an import from the root package ``scorekit`` (its face,
  re-exports only) is not an edge;
- a *private name* is one starting with a single underscore; importing it from a module of another
  package is refused, except from the importer's own sub-packages. Importing a private *module*
  (``from . import _read``) is not a private name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import scorekit

PACKAGE = Path(scorekit.__file__).resolve().parent
EVALUATE_MAX_LINES = 300


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name → (file, is a package ``__init__``), for every ``.py`` file under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _package(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def walk(root: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import edges among the modules of the package at ``root`` (every import, lazy and
    ``TYPE_CHECKING`` ones too), and each private name imported across packages (one line each)."""
    modules = _modules(root)
    top = root.name
    edges: dict[str, set[str]] = {name: set() for name in modules}
    private = []
    for module, (path, is_package) in modules.items():
        here = _package(module, is_package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                edges[module] |= {a.name for a in node.names if a.name in modules and a.name not in (module, top)}
                continue
            if not isinstance(node, ast.ImportFrom):
                continue
            base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if target != top and not target.startswith(top + "."):
                continue
            for alias in node.names:
                source = f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
                if source in modules and source not in (module, top):
                    edges[module].add(source)
                if source == f"{target}.{alias.name}" or not alias.name.startswith("_") or alias.name.startswith("__"):
                    continue
                theirs = _package(source, modules[source][1]) if source in modules else target
                if theirs != here and not theirs.startswith(here + "."):
                    private.append(f"{module} takes {alias.name} from {source}")
    return edges, private


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each set of modules that import one another in a circle (strongly connected, 2+ modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _cycle_text(component: list[str], edges: dict[str, set[str]]) -> str:
    """The component's modules, and one shortest circle through its first module (``a -> b -> a``)."""
    start, paths = component[0], {component[0]: [component[0]]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & set(component)):
            if w == start:
                return f"{', '.join(component)} (e.g. {' -> '.join([*paths[v], start])})"
            if w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    return ", ".join(component)


# --------------------------------------------------------------------------- scorekit itself
def test_no_import_cycle_among_scorekit_modules():
    edges, _ = walk(PACKAGE)
    found = cycles(edges)
    assert not found, "import cycles among scorekit modules:\n" + "\n".join(_cycle_text(c, edges) for c in found)


def test_no_private_name_is_imported_across_packages():
    _, private = walk(PACKAGE)
    assert not private, "private names imported across packages:\n" + "\n".join(sorted(set(private)))


def test_evaluate_is_wiring_of_at_most_300_lines():
    path = PACKAGE / "_evaluate.py"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= EVALUATE_MAX_LINES, f"scorekit/_evaluate.py has {lines} lines (at most {EVALUATE_MAX_LINES})"


# --------------------------------------------------------------------------- the walker on a made-up package
def _package_at(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", "sub/__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_walker_finds_a_cycle_through_a_lazy_and_a_type_checking_import(tmp_path):
    root = _package_at(tmp_path, {
        "a.py": "from .b import f\n",
        "b.py": "def f():\n    from .sub.c import g\n    return g\n",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\n",
        "d.py": "import pkg.a\n",
    })
    edges, _ = walk(root)
    assert edges["pkg.a"] == {"pkg.b"} and edges["pkg.b"] == {"pkg.sub.c"} and edges["pkg.d"] == {"pkg.a"}
    found = cycles(edges)
    assert found == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    assert "pkg.a -> pkg.b -> pkg.sub.c -> pkg.a" in _cycle_text(found[0], edges)


def test_the_walker_finds_private_names_taken_across_packages(tmp_path):
    root = _package_at(tmp_path, {
        "a.py": "_hidden = 1\ndef _helper(): pass\n",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import _hidden\n"
                    "def f():\n    from pkg.a import _helper\n",
    })
    _, private = walk(root)
    assert sorted(private) == ["pkg.sub.c takes _helper from pkg.a", "pkg.sub.c takes _hidden from pkg.a"]


def test_a_clean_package_passes(tmp_path):
    root = _package_at(tmp_path, {
        "__init__.py": "from .a import f\nfrom .sub import _x\n",  # the package's face; its own sub-package
        "a.py": "from . import _low\nfrom ._low import _y, __version__\nfrom .sub.c import _z\ndef f(): pass\n",
        "_low.py": "_y = 1\n__version__ = '1'\n",
        "sub/__init__.py": "from .c import _z as _x\n",
        "sub/c.py": "import os\nfrom pkg import f\n_z = 2\n",  # the root package's face is not an edge
    })
    edges, private = walk(root)
    assert cycles(edges) == [] and private == []
    assert edges["pkg.a"] == {"pkg._low", "pkg.sub.c"} and edges["pkg.sub.c"] == set()
