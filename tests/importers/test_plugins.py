"""Importer plug-ins (SPEC §15 "Plug-ins"): entry points in the group ``scorekit.importers``.

In process, the entry points are stood in for (``_plugins._entry_points``); one test installs a tiny
plug-in distribution into a fresh virtual environment and runs the CLI there, as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import scorekit as sk
from scorekit._errors import NoSamplesError
from scorekit.importers import _plugins, _read

ROOT = Path(__file__).resolve().parents[2]

#: The tiny plug-in's module: a file whose first line is ``TINY v1``, then ``case trial PASS|FAIL`` lines.
TINY_MODULE = textwrap.dedent('''
    """A tiny importer plug-in for scorekit's tests: ``TINY v1`` then one ``case trial PASS|FAIL`` per line."""
    from pathlib import Path

    name = "tiny"


    def detect(path):
        try:
            with open(path, "rb") as f:
                return f.read(8) == b"TINY v1\\n"
        except OSError:
            return False


    def read(path):
        import pandas as pd
        from scorekit import InputError
        from scorekit.importers import ImportedRun

        lines = Path(path).read_text(encoding="utf-8").splitlines()[1:]
        rows = []
        for number, line in enumerate(lines, start=2):
            parts = line.split()
            if len(parts) != 3 or parts[2] not in ("PASS", "FAIL", "BOOM"):
                raise InputError(f"{path}:{number}: expected 'case trial PASS|FAIL'")
            if parts[2] == "BOOM":
                raise ZeroDivisionError("the tiny reader\\nbroke")
            rows.append({"id": f"{parts[0]}/{parts[1]}", "dimension": "tiny", "case_id": parts[0],
                         "trial": int(parts[1]), "status": parts[2], "evaluator": "tiny", "agent": "tiny-agent"})
        cases = len({r["case_id"] for r in rows})
        source = {"format": "tiny", "files": [str(path)], "status": None, "samples_run": cases, "harness": "tiny",
                  "harness_version": "1", "metrics": {}, "notes": ["tiny: one row per line"]}
        return [ImportedRun(agent="tiny-agent", task="tiny-task", rows=pd.DataFrame(rows), partial=False,
                            source=source)]
''')

TINY_TEXT = "TINY v1\na 0 PASS\na 1 PASS\nb 0 PASS\nb 1 FAIL\n"


class _Dist:
    def __init__(self, name: str, version: str = "0.1") -> None:
        self.name, self.version = name, version


class _Entry:
    """An entry point stand-in: ``name``, ``dist`` and ``load()``."""

    def __init__(self, name: str, target: Any, dist: str = "tiny-importer") -> None:
        self.name, self._target, self.dist = name, target, _Dist(dist)

    def load(self) -> Any:
        if isinstance(self._target, BaseException):
            raise self._target
        return self._target


@pytest.fixture
def tiny() -> types.ModuleType:
    module = types.ModuleType("tiny_importer")
    exec(compile(TINY_MODULE, "tiny_importer.py", "exec"), module.__dict__)  # noqa: S102 - the test's own code
    return module


@pytest.fixture
def entries(monkeypatch: pytest.MonkeyPatch):
    """Install stand-in entry points: ``entries([...])``; the lookup cache is cleared around the test."""
    _plugins._plugins.cache_clear()

    def install(found: list[_Entry]) -> None:
        _plugins._plugins.cache_clear()
        monkeypatch.setattr(_plugins, "_entry_points", lambda: list(found))

    yield install
    _plugins._plugins.cache_clear()


def _tiny_file(tmp_path: Path, text: str = TINY_TEXT, name: str = "results.tiny") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- in process
def test_a_plugin_is_a_from_name_and_auto_detects_it(entries, tiny, tmp_path: Path) -> None:
    entries([_Entry("tiny", tiny)])
    assert _read.format_names()[-1] == "tiny" and _read.format_names()[:-1] == list(_read.FORMATS)
    path = _tiny_file(tmp_path)
    for fmt in ("tiny", "auto"):
        run, = sk.import_results(path, format=fmt)
        assert (run.agent, run.task, len(run.rows)) == ("tiny-agent", "tiny-task", 4)
    assert _read.detect_format(path) == "tiny"
    # the file's own counts: 3 PASS, 1 FAIL; pass^1 over cases a (2/2) and b (1/2) = 0.75
    card = sk.evaluate(run)
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "tiny")
    assert (dim["passes"], dim["fails"]) == (3, 1) and dim["pass_k"]["1"] == pytest.approx(0.75)


def test_a_plugin_in_a_directory_walk(entries, tiny, tmp_path: Path) -> None:
    entries([_Entry("tiny", tiny)])
    _tiny_file(tmp_path, name="one.tiny")
    _tiny_file(tmp_path, name="two.tiny")
    assert len(sk.import_results(tmp_path, format="auto")) == 2
    assert len(sk.import_results(tmp_path, format="tiny")) == 2


def test_cli_import_and_run_from_a_plugin(entries, tiny, run_cli, tmp_path: Path) -> None:
    entries([_Entry("tiny", tiny)])
    path = _tiny_file(tmp_path)
    code, out, err = run_cli("import", "--help")
    assert code == 0 and "tiny" in out
    code, out, err = run_cli("import", "--from", "tiny", path, "--out-dir", tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "policy.stub.yml").is_file()
    code, out, err = run_cli("run", "--from", "tiny", "--results", path, "--out-dir", tmp_path / "r")
    assert code == 0, err
    assert json.loads((tmp_path / "r" / "scorecard.json").read_text())["agent"]["name"] == "tiny-agent"


def test_built_in_formats_are_asked_first_and_plugins_not_looked_up_for_them(
        entries, monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[int] = []

    def lookup() -> list[Any]:
        looked.append(1)
        return []

    entries([])
    monkeypatch.setattr(_plugins, "_entry_points", lookup)
    assert _read.is_format("tau") and _read.is_format("auto")
    from tests.importers.test_tau import DATA as TAU

    assert _read.detect_format(TAU / "gpt-4o-airline-10tasks.json") == "tau"
    assert _read.detect_format(TAU / "gpt-4o-airline-10tasks.json", certain=True) == "tau"
    assert looked == []


@pytest.mark.parametrize("builtin", ["tau", "auto"])
def test_a_plugin_may_not_take_a_built_in_name(entries, tiny, builtin: str, tmp_path: Path) -> None:
    tiny.name = builtin
    entries([_Entry(builtin, tiny)])
    with pytest.warns(UserWarning, match=rf"importer plug-in '{builtin}' \(tiny-importer 0.1\) is left out"):
        names = _read.format_names()
    assert names == list(_read.FORMATS)  # the built-in format keeps its name
    from tests.importers.test_tau import DATA as TAU

    run, = sk.import_results(TAU / "gpt-4o-airline-10tasks.json", format="tau")
    assert run.source["format"] == "tau"


def _one_line_error(excinfo: pytest.ExceptionInfo[BaseException], *parts: str) -> None:
    message = str(excinfo.value)
    assert "\n" not in message, message
    for part in parts:
        assert part in message, message


def test_a_plugin_that_fails_to_load_is_an_input_error_naming_it(entries, tmp_path: Path) -> None:
    entries([_Entry("tiny", ModuleNotFoundError("No module named 'tiny_importer'"))])
    with pytest.raises(sk.InputError) as info:
        sk.import_results(_tiny_file(tmp_path), format="tiny")
    _one_line_error(info, "importer plug-in 'tiny' (tiny-importer 0.1)", "failed to load",
                    "ModuleNotFoundError: No module named 'tiny_importer'")
    with pytest.raises(sk.InputError, match="failed to load"):  # auto asks it about a file no built-in reads
        sk.import_results(_tiny_file(tmp_path), format="auto")


def test_a_plugin_that_raises_in_detect_or_read(entries, tiny, tmp_path: Path) -> None:
    def broken_detect(path: Any) -> bool:
        raise RuntimeError("detect\nbroke")

    entries([_Entry("tiny", types.SimpleNamespace(name="tiny", detect=broken_detect, read=tiny.read))])
    with pytest.raises(sk.InputError) as info:
        sk.import_results(_tiny_file(tmp_path), format="auto")
    _one_line_error(info, "importer plug-in 'tiny' (tiny-importer 0.1) failed in detect", "RuntimeError: detect broke")
    entries([_Entry("tiny", tiny)])
    with pytest.raises(sk.InputError) as info:
        sk.import_results(_tiny_file(tmp_path, "TINY v1\na 0 BOOM\n"), format="tiny")
    _one_line_error(info, "results.tiny", "importer plug-in 'tiny' (tiny-importer 0.1) failed in read",
                    "ZeroDivisionError: the tiny reader broke")


def test_a_plugins_own_input_error_passes_as_it_is(entries, tiny, tmp_path: Path) -> None:
    entries([_Entry("tiny", tiny)])
    with pytest.raises(sk.InputError, match=r"results.tiny:2: expected 'case trial PASS\|FAIL'$"):
        sk.import_results(_tiny_file(tmp_path, "TINY v1\na zero\n"), format="tiny")


@pytest.mark.parametrize(("returned", "says"), [
    (None, "read returned NoneType, not a list of ImportedRun"),
    ({"agent": "x"}, "read returned dict, not a list of ImportedRun"),
    ([{"agent": "x"}], "read returned [0] = dict, not an ImportedRun"),
    ("runs", "read returned str"),
])
def test_what_a_plugin_returns_is_checked(entries, tmp_path: Path, returned: Any, says: str) -> None:
    plugin = types.SimpleNamespace(name="tiny", detect=lambda p: True, read=lambda p: returned)
    entries([_Entry("tiny", plugin)])
    with pytest.raises(sk.InputError) as info:
        sk.import_results(_tiny_file(tmp_path), format="tiny")
    _one_line_error(info, "importer plug-in 'tiny'", says)


def test_a_plugin_run_of_the_wrong_shape_and_an_empty_list(entries, tmp_path: Path) -> None:
    import pandas as pd

    bad = sk.importers.ImportedRun(agent="", task="t", rows=pd.DataFrame(), partial=False, source={})
    entries([_Entry("tiny", types.SimpleNamespace(name="tiny", detect=lambda p: True, read=lambda p: [bad]))])
    with pytest.raises(sk.InputError, match=r"read returned \[0\] with agent ''"):
        sk.import_results(_tiny_file(tmp_path), format="tiny")
    entries([_Entry("tiny", types.SimpleNamespace(name="tiny", detect=lambda p: True, read=lambda p: []))])
    with pytest.raises(NoSamplesError, match="found no run"):
        sk.import_results(_tiny_file(tmp_path), format="tiny")


@pytest.mark.parametrize(("target", "says"), [
    (types.SimpleNamespace(name="tiny", detect=lambda p: True), "not an importer (it has no read)"),
    (types.SimpleNamespace(name="other", detect=lambda p: True, read=lambda p: []), "its name 'other' differs"),
    (types.SimpleNamespace(name="tiny", detect=lambda p: "yes", read=lambda p: []), "detect returned str"),
])
def test_a_plugin_object_of_the_wrong_shape(entries, tmp_path: Path, target: Any, says: str) -> None:
    entries([_Entry("tiny", target)])
    with pytest.raises(sk.InputError) as info:
        sk.import_results(_tiny_file(tmp_path), format="tiny")
    _one_line_error(info, "importer plug-in 'tiny'", says)


def test_two_distributions_of_one_plugin_name_are_refused_when_used(entries, tiny, tmp_path: Path) -> None:
    entries([_Entry("tiny", tiny, "tiny-a"), _Entry("tiny", tiny, "tiny-b")])
    with pytest.raises(sk.InputError, match=r"'tiny' \(tiny-a 0.1, tiny-b 0.1\): 2 distributions"):
        sk.import_results(_tiny_file(tmp_path), format="tiny")


def test_cli_plugin_error_is_exit_2_in_one_line(entries, run_cli, tmp_path: Path) -> None:
    entries([_Entry("tiny", ImportError("cannot import name 'x'"))])
    code, _out, err = run_cli("import", "--from", "tiny", _tiny_file(tmp_path), "--out-dir", tmp_path / "o")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "importer plug-in 'tiny' (tiny-importer 0.1): failed to load: ImportError: cannot import name 'x'" in err


def test_import_scorekit_does_not_look_up_plugins() -> None:
    code = ("import sys, scorekit, scorekit.importers; "
            "print('importlib.metadata' in sys.modules, 'scorekit.importers._plugins' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split()[0] == "False"  # the entry points are looked up only when a plug-in name is needed


# --------------------------------------------------------------------------- installed, in a fresh venv
#: A PEP 517 build backend inside the plug-in's own source tree (``backend-path``): it writes the wheel
#: with zipfile, so the install needs neither the network nor the ``wheel`` package.
TINY_BACKEND = textwrap.dedent('''
    import base64, hashlib, zipfile

    NAME, VERSION = "tiny_importer", "0.1"
    DIST_INFO = f"{NAME}-{VERSION}.dist-info"
    FILES = {
        f"{NAME}.py": open(f"{NAME}.py", "rb").read(),
        f"{DIST_INFO}/METADATA": f"Metadata-Version: 2.1\\nName: tiny-importer\\nVersion: {VERSION}\\n".encode(),
        f"{DIST_INFO}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: tiny\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        f"{DIST_INFO}/entry_points.txt": f"[scorekit.importers]\\ntiny = {NAME}\\n".encode(),
    }


    def get_requires_for_build_wheel(config_settings=None):
        return []


    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        name = f"{NAME}-{VERSION}-py3-none-any.whl"
        record = []
        with zipfile.ZipFile(f"{wheel_directory}/{name}", "w") as wheel:
            for path, data in FILES.items():
                wheel.writestr(path, data)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                record.append(f"{path},sha256={digest},{len(data)}")
            record.append(f"{DIST_INFO}/RECORD,,")
            wheel.writestr(f"{DIST_INFO}/RECORD", "\\n".join(record) + "\\n")
        return name
''')


def _venv_with_tiny(tmp_path: Path) -> Path:
    """A venv that sees this interpreter's packages and this checkout's scorekit, with the tiny plug-in
    installed by pip from its own pyproject.toml (offline: its build backend is in its source tree)."""
    dist = tmp_path / "tiny-importer"
    dist.mkdir()
    (dist / "tiny_importer.py").write_text(TINY_MODULE, encoding="utf-8")
    (dist / "tiny_backend.py").write_text(TINY_BACKEND, encoding="utf-8")
    (dist / "pyproject.toml").write_text(textwrap.dedent('''
        [build-system]
        requires = []
        build-backend = "tiny_backend"
        backend-path = ["."]
    '''), encoding="utf-8")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    import sysconfig

    # this checkout's scorekit first, then this interpreter's packages (pandas, …)
    here = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    Path(site, "scorekit_checkout.pth").write_text(
        f"import site, sys; list(map(site.addsitedir, {here!r})); sys.path.insert(0, {str(ROOT)!r})\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-index", str(dist)], check=True, capture_output=True, text=True)
    return python


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX venv layout (bin/python)")
def test_an_installed_plugin_works_from_the_cli(tmp_path: Path) -> None:
    python = _venv_with_tiny(tmp_path)
    path = _tiny_file(tmp_path)

    def scorekit(*args: object) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        return subprocess.run([str(python), "-m", "scorekit", *map(str, args)], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=300)

    done = scorekit("import", "--help")
    assert done.returncode == 0 and "tiny" in done.stdout, done.stderr
    done = scorekit("import", "--from", "tiny", path, "--out-dir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    folder = next(p for p in (tmp_path / "out").iterdir() if p.is_dir())
    lines = (folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads((folder / "source.json").read_text())["format"] == "tiny"
    done = scorekit("run", "--from", "auto", "--results", path, "--out-dir", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    card = json.loads((tmp_path / "r" / "scorecard.json").read_text())
    dim = next(d for d in card["dimensions"] if d["name"] == "tiny")
    assert (dim["passes"], dim["fails"]) == (3, 1)
    bad = _tiny_file(tmp_path, "TINY v1\na 0 BOOM\n", name="bad.tiny")
    done = scorekit("run", "--from", "tiny", "--results", bad, "--out-dir", tmp_path / "r2")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "importer plug-in 'tiny' (tiny-importer 0.1) failed in read: ZeroDivisionError" in done.stderr
