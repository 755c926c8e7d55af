"""The HTML report, opened in headless Chromium (Debian's chromium package,
which `make test` installs)."""

import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import routelab
from browser import boxes, console_problems, dump_dom, ink, probe, run_chromium, screenshot
from routelab.experiment import report

SPEC = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "report-test"
    description = "Engines <compared> & checked."

    [network]
    topology = ["torus:4x4", "kary-ntree:k=4,n=2"]

    [routing]
    algorithm = ["minhop", "dfsssp", "dmodk"]
    """
)


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    spec = root / "spec.toml"
    spec.write_text(SPEC)
    outcome = routelab.sweep(spec, root / "out")
    assert (outcome.ok, outcome.failed) == (5, 1)  # dmodk cannot route the torus
    return root / "out"


def test_the_report_is_one_self_contained_file(experiment, run_cli, tmp_path):
    out = tmp_path / "report.html"
    r = run_cli("report", str(experiment), "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>")
    # nothing to fetch: no stylesheets, images, frames or scripts from elsewhere
    assert not re.search(r"<(link|img|iframe)\b", text)
    assert not re.search(r"<script[^>]*\bsrc=", text)
    assert not re.search(r"\b(src|href)=\"(https?:)?//", text)
    assert text.count("<script>") == 1  # the inline table sorter
    assert text.count("<svg") == 2 and text.count("<figure>") == 2
    assert "Engines &lt;compared&gt; &amp; checked." in text
    assert "[routing]" in text and "kary-ntree:k=4,n=2" in text  # the spec
    assert "RoutingError" in text  # the failed run and its error
    assert f"<dd>{routelab.__version__}</dd>" in text
    assert "<dt>CPU</dt>" in text and "<dt>Python</dt>" in text
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # two inline SVGs, no clashing ids


def test_the_report_renders_in_headless_chromium(experiment, tmp_path):
    out = report.write_report(experiment, tmp_path / "report.html")

    dom = dump_dom(out)
    assert dom.count("<svg") == 2
    assert len(re.findall(r"<tr[ >]", dom)) >= 7  # header + 6 runs
    assert 'class="failed"' in dom
    assert dom.count('title="sort by this column"') > 10  # the sorter ran on the tables

    figures, height = boxes(out, "figure svg", tmp_path)
    assert len(figures) == 2 and all(b["w"] > 300 and b["h"] > 200 for b in figures)
    rgb = screenshot(out, height, tmp_path / "report.png")
    for box in figures:
        dark, colours = ink(rgb, box)
        assert 0.02 < dark < 0.6 and colours > 40, (box, dark, colours)  # bars, axes, text
        x0, y0 = int(box["x"]), int(box["y"])
        region = rgb[y0 : y0 + int(box["h"]), x0 : x0 + int(box["w"])].astype(int)
        assert ((region.max(axis=2) - region.min(axis=2)) > 80).mean() > 0.01  # coloured bars
    # beside the figures the page is white: they are where the layout put them
    right = rgb[:, int(max(b["x"] + b["w"] for b in figures)) + 40 :]
    assert right.size == 0 or (right.astype(int).sum(axis=2) < 3 * 235).mean() < 0.01


def test_tables_sort_by_number_with_blanks_last(tmp_path):
    df = pd.DataFrame(
        {
            "load": [10.0, 9.0, 100.0, float("nan"), 2.5],
            "name": ["b10", "b9", "a", "c", "b2"],
            "gamma": ["0.70 (0.30)", "0.05", "-", "+50%", "1e-3"],
        }
    )
    page = tmp_path / "t.html"
    page.write_text(
        f"<!DOCTYPE html><html><body>{report.html_table(df)}"
        f"<script>{report.SORT_SCRIPT}</script></body></html>"
    )

    def after(clicks: list[int]) -> list[list[str]]:
        script = "".join(f"document.querySelectorAll('th')[{c}].click();" for c in clicks)
        return probe(
            page,
            f"(function () {{ {script} return Array.from(document.querySelectorAll('tbody tr'))"
            ".map(function (r) { return Array.from(r.cells).map(function (c) {"
            " return c.textContent; }); }); })()",
            tmp_path,
        )

    assert [r[0] for r in after([0])] == ["2.5", "9", "10", "100", ""]
    assert [r[0] for r in after([0, 0])] == ["100", "10", "9", "2.5", ""]
    assert [r[1] for r in after([1])] == ["a", "b2", "b9", "b10", "c"]  # natural order
    assert [r[2] for r in after([2])] == ["1e-3", "0.05", "0.70 (0.30)", "+50%", "-"]
    # rows move whole: the sort keeps each run's cells together
    rows = {tuple(r) for r in after([2, 1, 0])}
    assert rows == {tuple(r) for r in after([])}


def test_the_console_check_catches_errors(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>missing();</script></body></html>")
    r = run_chromium("--dump-dom", bad.resolve().as_uri())
    assert any("Uncaught ReferenceError" in ln for ln in console_problems(r.stderr))


def test_report_of_a_directory_without_runs(tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC)
    from routelab.experiment import spec as specs
    from routelab.experiment.store import Store

    Store.create_or_resume(tmp_path / "empty", specs.load(tmp_path / "spec.toml"))
    text = report.build(tmp_path / "empty")
    assert "No finished runs to plot" in text and "<dd>6</dd>" in text
    assert Path(report.write_report(tmp_path / "empty", tmp_path / "r.html")).is_file()
