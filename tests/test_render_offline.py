"""The render's self-containment check looks for loaded resources, not URL-looking text (SPEC §12).

nbconvert turns the notebook's escaping of ``://`` back into ``//``, so a case
id or a reason holding ``https://…`` reached the exported page as text, and a
text search for URLs refused the render. What makes a page not self-contained
is what a browser *loads*: ``src``/``href``/``srcset``/``poster``..., CSS
``url()``/``@import``/``image-set()``, a meta refresh — parsed with
:mod:`html.parser`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorekit.render import check_offline_html

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "html",
    [
        "<p>case https://example.com/case?a=1</p>",
        "<td><code>see http://docs.example/why</code></td>",
        '<p title="https://example.com">x</p>',
        "<pre>url(x.png) and @import are words here</pre>",
        '<img src="data:image/png;base64,iVBORw0KGgo=">',
        '<img srcset="data:image/png;base64,AA,BB 1x, data:image/png;base64,CC 2x">',
        '<style>td { background: url(data:image/png;base64,AA) } a { color: #333 }</style>',
        '<a href="#dimensions">x</a><div style="fill: url(#gradient)"></div>',
    ],
)
def test_text_that_looks_like_a_url_is_self_contained(html):
    assert check_offline_html(html) == []


@pytest.mark.parametrize(
    ("html", "problem"),
    [
        ('<img src="https://example.com/x.png">', "resource reference (src="),
        ("<img src=https://example.com/x.png />", "resource reference (src="),
        ('<img srcset="data:image/png;base64,AA 1x, https://example.com/x.png 2x">', "resource reference (srcset="),
        ('<video poster="https://example.com/p.jpg"></video>', "resource reference (poster="),
        ('<a href="https://example.com">x</a>', "resource reference (href="),
        ('<svg><image href="https://example.com/x.png"/></svg>', "resource reference (href="),
        ('<form action="https://example.com/post"></form>', "resource reference (action="),
        ('<img src=" java\tscript:x">', "resource reference (src="),
        ('<style>body { background: url( "https://example.com/x.png") }</style>', "CSS url"),
        ("<style>body { background: \\75 rl(x.png) }</style>", "CSS url"),
        ('<style>body { background: image-set("x.png" 1x) }</style>', "CSS url"),
        ('<style>@import "x.css";</style>', "CSS url"),
        ('<p style="background:url(https://example.com/x.png)">x</p>', "CSS url"),
        ('<meta http-equiv="Refresh" content="0; url=https://example.com">', "meta http-equiv=refresh"),
        ('<link rel="stylesheet" href="x.css">', "<link>"),
    ],
)
def test_a_loaded_outside_resource_is_not_self_contained(html, problem):
    problems = check_offline_html(html)
    assert any(problem in p for p in problems), problems


def test_render_of_a_case_id_holding_a_url_writes_the_report(tmp_path):
    results = tmp_path / "results.jsonl"
    rows = [
        {"id": "r1", "dimension": "helpfulness", "case_id": "https://example.com/case?a=1", "status": "FAIL",
         "evaluator": "harness", "reason": "see_https://docs.example/why"},
        {"id": "r2", "dimension": "helpfulness", "case_id": "ok-case", "status": "PASS", "evaluator": "harness"},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "scorekit", "render", "--results", str(results),
                           "--out-dir", str(tmp_path / "out")], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "out" / "release_scorecard.html").read_text(encoding="utf-8")
    assert "https://example.com/case?a=1" in html  # shown as text ...
    assert check_offline_html(html) == []  # ... and nothing is loaded from it
