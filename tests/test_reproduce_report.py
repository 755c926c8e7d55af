"""The HTML report of a reproduction, from the committed versaci2013 quick
results plus one sweep, opened in headless Chromium."""

import re
import shutil
import textwrap
from pathlib import Path

import pytest

import routelab
from browser import boxes, dump_dom, ink, probe, screenshot
from routelab.reproduce import write_report

RESULTS = Path(__file__).parents[1] / "docs" / "reproductions" / "versaci2013-quick"
SWEEP = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "engines"

    [network]
    topology = ["kary-ntree:k=4,n=2"]

    [routing]
    algorithm = ["minhop", "dmodk"]
    """
)


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "versaci2013"
    # The committed outputs only: a checkout that ran the reproduction also
    # holds its sweeps' stores there.
    out.mkdir()
    for path in RESULTS.iterdir():
        if path.is_file() and path.name != "report.html":
            shutil.copy(path, out)
    spec = out.parent / "sweep.toml"
    spec.write_text(SWEEP)
    routelab.sweep(spec, out / "engines")
    return write_report("versaci2013", out)


def test_the_summary_is_rendered_not_quoted(reproduction):
    text = reproduction.read_text()
    assert "0 experiments" not in text
    tables = len(list(RESULTS.glob("*.csv")))
    figures = len(list(RESULTS.glob("*.png")))
    assert tables >= 3 and figures >= 2
    assert f"{tables} tables · {figures} figures · 1 sweep ·" in text
    body = text[text.index('<h2 id="summary">') : text.index('<h2 id="figures">')]
    assert "<pre>" not in body  # not raw text
    assert "| pattern |" not in body and "## Table 2" not in body
    assert "<h3>Table 2: maximum sustained throughput gamma*</h3>" in body
    assert "<th>pattern</th>" in body and "<td>Butterfly/FFT</td>" in body
    assert "<strong>gamma*</strong>" in body  # emphasis rendered, escapes honoured
    # the summary's own title is the page's: not repeated
    assert "OutFlank Routing" in text[: text.index("<nav>")]
    assert "OutFlank Routing" not in body


def test_every_figure_is_embedded(reproduction):
    text = reproduction.read_text()
    pngs = sorted(p.name for p in RESULTS.glob("*.png"))
    assert len(pngs) >= 2
    assert len(re.findall(r'<img alt="[^"]*" src="data:image/png;base64,', text)) == len(pngs)
    for name in pngs:  # captioned from the summary's list of figures
        assert re.search(rf"<figcaption>{re.escape(name)}: \w", text)
    assert "<svg" in text  # the sweep's own figures
    assert not re.search(r"\b(src|href)=\"(?!data:|#)", text)  # nothing to fetch


def test_the_report_renders_in_headless_chromium(reproduction, tmp_path):
    dom = dump_dom(reproduction)
    for heading in ("Summary", "Figures", "Measured and published", "Result tables"):
        assert re.search(rf"<h2 id=\"\w+\">{heading}</h2>", dom)
    assert '<h2 id="e0">engines</h2>' in dom
    assert dom.count('title="sort by this column"') > 40  # every table sorts

    figures, height = boxes(reproduction, "figure img, figure svg", tmp_path)
    assert len(figures) >= 3
    rgb = screenshot(reproduction, height, tmp_path / "report.png")
    for box in figures:
        assert box["w"] > 300 and box["h"] > 150, box  # drawn at a readable size
        dark, colours = ink(rgb, box)
        assert 0.02 < dark < 0.9 and colours > 40, (box, dark, colours)  # not blank, not a block

    # the wide table of loads scrolls inside its box instead of widening the page
    widths = probe(
        reproduction,
        "{page: document.documentElement.scrollWidth, view: innerWidth,"
        " wide: Array.from(document.querySelectorAll('div.scroll')).filter(function (d) {"
        " return d.scrollWidth > d.clientWidth + 50; }).length}",
        tmp_path,
    )
    assert widths["page"] <= widths["view"] and widths["wide"] >= 1, widths
