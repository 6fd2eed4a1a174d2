"""``scorekit render``: parameters checked against the notebook, papermill in this interpreter's
kernel, one-line errors (exit 2) naming the cell, offline HTML, packaging of the notebooks."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _rendered import write_notebook

import scorekit as sk
from scorekit import InputError, ScorekitError, cli
from scorekit.render import (
    check_offline_html,
    default_out_dir,
    notebook_parameters,
    render_notebook,
    reproduction_commands,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(sk.example_path())
POLICY = str(sk.example_path(file="policy.yml"))

PROBE_PARAMETERS = """results = None
policy = None
agent_name = None
agent_version = None
out_dir = None
retries = 3
strict = False"""


def _scorekit(*args: str, cwd: Path | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


# --------------------------------------------------------------------------- parameters
def test_default_out_dir_is_reports_agent_version_with_safe_names():
    assert default_out_dir("mail-agent", "1.4.0") == Path("reports/mail-agent/1.4.0")
    assert default_out_dir("../../etc", "a/b") == Path("reports/etc/a-b")
    assert default_out_dir(None, "") == Path("reports/agent/unversioned")


def test_unknown_parameter_exits_2_naming_it_and_listing_the_known_ones(tmp_path):
    line = _one_line_error(_scorekit("render", "--results", EXAMPLE, "-p", "colour", "red",
                                     "--out-dir", str(tmp_path / "out")))
    assert "unknown parameter 'colour'" in line
    assert ", ".join(notebook_parameters()) in line
    assert not (tmp_path / "out").exists()  # nothing ran


def test_a_parameter_given_as_option_and_with_p_exits_2(tmp_path):
    line = _one_line_error(_scorekit("render", "--results", EXAMPLE, "-p", "results", EXAMPLE,
                                     "--out-dir", str(tmp_path)))
    assert "'results' is given twice" in line


def test_missing_results_file_exits_2_naming_it(tmp_path):
    line = _one_line_error(_scorekit("render", "--results", str(tmp_path / "nope.jsonl")))
    assert "nope.jsonl" in line


def test_timeout_must_be_a_positive_number_of_seconds():
    for bad in ("0", "-1", "soon"):
        proc = _scorekit("render", "--results", EXAMPLE, "--timeout", bad)
        assert proc.returncode == 2 and "--timeout" in proc.stderr and "Traceback" not in proc.stderr
    with pytest.raises(ValueError, match="timeout"):
        render_notebook(EXAMPLE, timeout=0)


def test_a_parameter_value_that_does_not_fit_the_default_type_is_named(tmp_path):
    notebook = write_notebook(tmp_path / "probe.ipynb", "pass", parameters=PROBE_PARAMETERS)
    with pytest.raises(InputError, match="parameter 'retries': expected int, got 'many'"):
        render_notebook(EXAMPLE, parameters={"retries": "many"}, notebook=notebook, out_dir=tmp_path / "o")
    with pytest.raises(InputError, match="parameter 'strict': expected true or false"):
        render_notebook(EXAMPLE, parameters={"strict": "maybe"}, notebook=notebook, out_dir=tmp_path / "o")


# --------------------------------------------------------------------------- execution
@pytest.mark.timeout(240)
def test_kernel_is_this_interpreter_and_typed_parameters_reach_the_default_out_dir(tmp_path, monkeypatch, capsys):
    # A python3 kernel spec first on the Jupyter path that names another Python:
    # papermill's default lookup would launch it; render must use this interpreter.
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": ["/nonexistent/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "elsewhere", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    from jupyter_client.kernelspec import KernelSpecManager

    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == "/nonexistent/python3"

    notebook = write_notebook(
        tmp_path / "probe.ipynb",
        "import json, sys\nfrom pathlib import Path\nPath(out_dir).mkdir(parents=True, exist_ok=True)\n"
        "Path(out_dir, 'probe.json').write_text(json.dumps({'executable': sys.executable, "
        "'retries': [type(retries).__name__, retries], 'strict': [type(strict).__name__, strict]}))",
        "import scorekit as sk\nsk.evaluate(results, policy=policy, agent_name=agent_name).write(out_dir)",
        parameters=PROBE_PARAMETERS,
    )
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code = cli.main(["render", "--results", EXAMPLE, "--policy", POLICY, "--agent-name", "probe agent",
                     "--agent-version", "2.0", "-p", "retries", "7", "-p", "strict", "true",
                     "--notebook", str(notebook), "--timeout", "120"])
    out = capsys.readouterr().out
    assert code == 0
    target = Path("reports/probe-agent/2.0")
    probe = json.loads((work / target / "probe.json").read_text())
    assert Path(probe["executable"]).resolve() == Path(sys.executable).resolve()
    assert probe["retries"] == ["int", 7] and probe["strict"] == ["bool", True]
    assert "decision: FAIL" in out.splitlines()
    assert f"report: {target / 'probe.html'}" in out.splitlines()
    assert (work / target / "probe.md").is_file() and (work / target / "probe.ipynb").is_file()


@pytest.mark.timeout(240)
def test_a_failing_cell_exits_2_naming_the_cell_and_the_error_and_keeps_the_notebook(tmp_path):
    notebook = write_notebook(tmp_path / "boom.ipynb", "x = 1", "raise ValueError('the mailbox fixture is gone')",
                              parameters=PROBE_PARAMETERS)
    line = _one_line_error(_scorekit("render", "--results", EXAMPLE, "--notebook", str(notebook),
                                     "--out-dir", str(tmp_path / "out")))
    kept = tmp_path / "out" / "boom.ipynb"
    assert "cell 4 raised ValueError: the mailbox fixture is gone" in line  # In [4]: after the injected cell
    assert str(kept) in line
    nb = json.loads(kept.read_text())
    assert any(o.get("output_type") == "error" for c in nb["cells"] for o in c.get("outputs", []))
    assert not (tmp_path / "out" / "boom.html").exists()


@pytest.mark.timeout(240)
def test_a_cell_that_runs_longer_than_the_timeout_exits_2_naming_the_cell(tmp_path):
    notebook = write_notebook(tmp_path / "slow.ipynb", "import time\ntime.sleep(120)", parameters=PROBE_PARAMETERS)
    line = _one_line_error(_scorekit("render", "--results", EXAMPLE, "--notebook", str(notebook), "--timeout", "2",
                                     "--out-dir", str(tmp_path / "out")))
    assert "did not finish within 2 s" in line and "cell 3" in line


def test_a_library_error_is_a_scorekit_error():
    with pytest.raises(ScorekitError):
        render_notebook(EXAMPLE, parameters={"colour": "red"})


# --------------------------------------------------------------------------- export and helpers
@pytest.mark.parametrize(
    ("html", "problem"),
    [
        ('<p>x</p><script>alert(1)</script>', "<script>"),
        ('<SCRIPT type="module">', "<script>"),
        ('<img src="http://cdn.example/x.png">', "resource reference"),
        ('<img src="chart.png">', "resource reference"),
        ('<link href="//cdn.example/a.css">', "resource reference"),
        ('<style>body { background: url(x.png) }</style>', "CSS url"),
        ("<style>@import 'x.css';</style>", "CSS url"),
        ('<div style="background:url(x.png)">', "CSS url"),
        ('<img src="data:image/png;base64,AA" onerror="go()">', "event handler"),
        ('<iframe srcdoc="x"></iframe>', "<iframe>"),
    ],
)
def test_offline_check_flags_scripts_urls_and_outside_resources(html, problem):
    assert any(problem in p for p in check_offline_html(html)), check_offline_html(html)


def test_offline_check_accepts_inline_images_in_page_links_and_attribute_like_text():
    assert check_offline_html('<a href="#dimensions">x</a><img src="data:image/png;base64,iVBORw0KGgo=">') == []
    assert check_offline_html("<pre>case src=a.png, data=b</pre><style>td { color: #333 }</style>") == []


def test_reproduction_commands_survive_the_shell_with_spaces_and_quotes():
    params = {"results": "my runs/it's.jsonl", "policy": "p.yml", "agent_name": "mail agent", "agent_version": "1.4.0",
              "history": "h.sqlite", "signing_key": "k.pem", "out_dir": "out dir"}
    render, run, verify = reproduction_commands(params)
    argv = shlex.split(render)
    assert argv[:4] == ["scorekit", "render", "--results", "my runs/it's.jsonl"]
    assert argv[argv.index("--agent-name") + 1] == "mail agent"
    assert ["-p", "history", "h.sqlite"] == argv[argv.index("history") - 1: argv.index("history") + 2]
    assert shlex.split(run)[-2:] == ["--out-dir", "out dir"] and "--sign" in shlex.split(run)
    assert shlex.split(verify) == ["scorekit", "verify", "--scorecard", "out dir/scorecard.json"]
    assert cli.build_parser().parse_args(argv[1:]).agent_name == "mail agent"


def test_notebook_path_prefers_the_packaged_copy(tmp_path, monkeypatch):
    from scorekit import _examples

    packaged = tmp_path / "notebooks" / "release_scorecard.ipynb"
    packaged.parent.mkdir()
    packaged.write_text("{}")
    monkeypatch.setattr(_examples.resources, "files", lambda package: tmp_path)
    assert _examples.notebook_path() == packaged
    with pytest.raises(ValueError, match="name must be one of"):
        _examples.notebook_path("nope")


@pytest.mark.timeout(300)
def test_the_wheel_ships_the_notebooks_the_templates_and_the_example(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True, timeout=280)
    if proc.returncode != 0 and "hatchling" in proc.stderr and "No matching distribution" in proc.stderr:
        pytest.skip("hatchling is not available to build the wheel")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = tmp_path.glob("scorekit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "scorekit/notebooks/release_scorecard.ipynb",
        "scorekit/notebooks/explore.ipynb",
        "scorekit/templates/scorekit_report/index.html.j2",
        "scorekit/templates/scorekit_report/conf.json",
        "scorekit/examples/email_assistant/results.jsonl",
        "scorekit/examples/email_assistant/policy.yml",
        *(f"scorekit/templates/report/{p.name}" for p in (ROOT / "scorekit" / "templates" / "report").iterdir()),
    ):
        assert name in names, name
    assert "scorekit/templates/report/scorecard.html.j2" in names  # the reports' own templates
    assert "scorekit/py.typed" in names  # PEP 561: type checkers read scorekit's annotations
    # The pytest plug-in: the top-level entry-point module (imports only pytest) and the plug-in itself;
    # the GitHub Action's step, which action.yml runs from the installed package.
    assert {"_scorekit_pytest.py", "scorekit/pytest_plugin.py", "scorekit/_action.py"} <= names
    _check_wheel_metadata(zipfile.ZipFile(wheel), names)
    assert (ROOT / "notebooks" / "release_scorecard.ipynb").read_bytes() == zipfile.ZipFile(wheel).read(
        "scorekit/notebooks/release_scorecard.ipynb")


def _check_wheel_metadata(wheel: zipfile.ZipFile, names: set[str]) -> None:
    """The wheel's entry points are pyproject's (the console script; ``pytest11`` only when declared, so
    this holds before and after the plug-in is added), and its license is Apache-2.0 with the file."""
    import configparser
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    parser = configparser.ConfigParser(delimiters=("=",))
    parser.optionxform = str  # entry-point names are case-sensitive
    parser.read_string(wheel.read(entry_points).decode("utf-8"))
    assert dict(parser["console_scripts"]) == {"scorekit": "scorekit.cli:console"}
    declared = {group: dict(points) for group, points in project.get("entry-points", {}).items()}
    for group, points in declared.items():
        assert dict(parser[group]) == points, group
    assert ("pytest11" in parser) is ("pytest11" in declared)
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    headers = wheel.read(metadata).decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert "License-Expression: Apache-2.0" in headers
    assert "License-File: LICENSE" in headers
    (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(license_file) == (ROOT / "LICENSE").read_bytes()
