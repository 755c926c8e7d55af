"""The HTML report, opened in headless Chromium (Debian's chromium package,
which `make test` installs)."""

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

import routelab
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


def chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed: run `make chromium` (Debian's chromium package)")
    return path


def run_chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            chromium(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_problems(stderr: str) -> list[str]:
    """Console messages and uncaught errors a page produced."""
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]


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
    # nothing to fetch: no scripts, stylesheets, images or frames from elsewhere
    assert not re.search(r"<(script|link|img|iframe)\b", text)
    assert not re.search(r"\b(src|href)=\"(https?:)?//", text)
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
    url = out.resolve().as_uri()

    dom = run_chromium("--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count("<svg") == 2
    assert len(re.findall(r"<tr[ >]", dom.stdout)) >= 7  # header + 6 runs
    assert 'class="failed"' in dom.stdout
    assert console_problems(dom.stderr) == []

    shot = tmp_path / "report.png"
    s = run_chromium("--hide-scrollbars", "--window-size=1280,2200", f"--screenshot={shot}", url)
    assert s.returncode == 0 and shot.is_file(), s.stderr[-2000:]
    img = matplotlib.image.imread(shot)
    assert img.shape[:2] == (2200, 1280)
    rgb = (img[..., :3] * 255).astype(np.uint8)
    top = rgb[:1100]
    # the bars of the figures: saturated colours, not just black text on white
    saturated = (top.max(axis=2).astype(int) - top.min(axis=2)) > 80
    assert saturated.mean() > 0.01
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 200


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
