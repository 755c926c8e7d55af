"""A study of one's own (examples/study): a folder of specs, published values
and a summary template, run through `routelab.experiment.study` as the
reproductions are, resumed, and reported beside the published values."""

from __future__ import annotations

import csv
import importlib.util
import re
from pathlib import Path

import pytest

import routelab
from routelab.experiment import published

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "study"


def _module():
    spec = importlib.util.spec_from_file_location("example_study", EXAMPLE / "study.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("study")
    _module().run(out, "quick", workers=2, progress=False)
    return out


def test_the_study_measures_every_run_and_each_is_deadlock_free(out: Path) -> None:
    rows = list(csv.DictReader((out / "heuristics.csv").open()))
    assert len(rows) == 3 * 4  # the quick variant's 3 networks, 4 heuristics
    for r in rows:
        # DFSSSP declares its routes deadlock-free: the route kind checked the
        # dependency graph of every lane and found no cycle
        assert r["status"] == "ok" and r["deadlock_free"] == "True"
        assert 1 <= int(r["lanes_needed"]) <= 15
    text = (out / "summary.md").read_text()
    assert "3 random networks" in text and "| weakest |" in text and "`quick`" in text


def test_a_second_run_resumes_and_repeats_nothing(out: Path) -> None:
    records = sorted((out / "heuristics" / "runs").glob("*.json"))
    before = {p: p.stat().st_mtime_ns for p in records}
    _module().run(out, "quick", workers=2, progress=False)
    assert {p: p.stat().st_mtime_ns for p in records} == before
    assert len(list((out / "heuristics" / "runs").glob("*.json"))) == 12


def test_the_report_puts_the_published_ranges_beside_the_measured_means(out: Path) -> None:
    text = (out / "report.html").read_text()
    assert "Measured and published" in text and "lanes.png" in text
    paper = published.load(EXAMPLE / "published.toml")
    joined = published.join(paper, published.read_tables(out))
    assert len(joined) == 3 and (joined["rows"] == 3).all()
    for _, row in joined.iterrows():
        low, high = map(float, row["published"].split("-"))
        inside = low <= row["measured"] <= high
        assert (row["difference"] == 0) == inside
    assert re.search(r"<td[^>]*>3-5</td>", text)


def test_a_broken_published_file_names_itself(tmp_path: Path) -> None:
    bad = tmp_path / "published.toml"
    bad.write_text("[[expected]]\ntable = 'heuristics'\nmetric = 'lanes_needed'\n")
    with pytest.raises(routelab.ConfigError, match="published: expected value 1"):
        published.load(bad)
    bad.write_text("[[expected]\n")
    with pytest.raises(routelab.ConfigError, match=r"published\.toml"):
        published.load(bad)


def test_a_study_runs_its_sweeps_on_a_dask_scheduler_and_timings_stay_local(
    tmp_path: Path, dask_scheduler: str
) -> None:
    import json

    from routelab.experiment import study

    with study.running_on(dask=dask_scheduler):
        _module().run(tmp_path / "a", "quick", workers=2, progress=False)
        study.sweep_specs(EXAMPLE, ["heuristics"], "quick", tmp_path / "b", 1, False, local=True)
    sessions = {r: tmp_path / r / "heuristics" / "sessions.json" for r in ("a", "b")}
    executors = {r: json.loads(p.read_text())[0]["executor"] for r, p in sessions.items()}
    assert executors["a"] == f"dask:{dask_scheduler}"
    assert not executors["b"].startswith("dask:")
    with pytest.raises(routelab.ConfigError, match="not both"), study.running_on("tcp://x:1", 1):
        pass


def test_reproduce_takes_the_sweeps_cluster_options(run_cli) -> None:
    r = run_cli("reproduce", "--help")
    assert r.returncode == 0
    for option in ("--dask", "--slurm", "--queue", "--jobs", "--prologue"):
        assert option in r.stdout
