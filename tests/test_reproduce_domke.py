"""The domke2011 reproduction on a tiny configuration: every output is written and
the numbers obey the physics (bandwidths in (0, 1], spreading routes do not lose
to SSSP on a full fat tree, deadlock-free engines are deadlock-free, lanes stay
within the limit)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import routelab
from routelab import reproduce
from routelab.reproduce import domke2011

OUTPUTS = (
    "summary.md",
    "run.json",
    "ebb.csv",
    "xgft_spread.csv",
    "lanes_random.csv",
    "heuristics.csv",
    "routing_time.csv",
    "memory.csv",
    "fig5_xgft_ebb.png",
    "fig6_kautz_ebb.png",
    "kary_ntree_ebb.png",
    "fig7_routing_time.png",
    "fig9_lanes_random.png",
    "heuristics.png",
    "claims.csv",
    "ebb/spec.toml",
    "ebb-multipath/spec.toml",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("domke2011")
    summary = domke2011.run(out, quick=True, tiny=True, progress=False)
    assert summary == out / "summary.md"
    return out


def rows(out: Path, name: str) -> list[dict[str, str]]:
    with (out / name).open() as f:
        return list(csv.DictReader(f))


def test_every_output_is_written(tiny: Path) -> None:
    for name in OUTPUTS:
        path = tiny / name
        assert path.is_file() and path.stat().st_size > 0, name
    for name in OUTPUTS:
        if name.endswith(".png"):
            assert (tiny / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def test_table_one_networks_are_built_as_the_paper_says(tiny: Path) -> None:
    ebb = rows(tiny, "ebb.csv")
    specs = {(r["family"], int(r["endpoints"])): r for r in ebb}
    assert specs[("xgft", 64)]["spec"] == "xgft:m=6,w=3,terminals=64"
    assert specs[("xgft", 64)]["paper_topology"] == "XGFT(1; 6; 3)"
    assert specs[("kautz", 256)]["spec"] == "kautz:b=2,n=2,terminals=256"
    assert specs[("kary-ntree", 256)]["spec"] == "kary-ntree:k=16,n=2,terminals=256"
    for r in ebb:
        net = routelab.topology(r["spec"])
        assert len(net.terminals) == int(r["endpoints"])
        # Table I assumes 36-port switches.
        assert int(r["max_switch_ports"]) <= 36, r["spec"]


def test_bandwidths_are_fractions_of_a_link(tiny: Path) -> None:
    ok = [r for r in rows(tiny, "ebb.csv") if r["status"] == "ok"]
    assert {r["engine"] for r in ok} >= {"minhop", "updown", "sssp", "dfsssp", "lash", "dmodk"}
    for r in ok:
        lo, avg, hi = float(r["ebb_min"]), float(r["ebb_avg"]), float(r["ebb_max"])
        assert 0 < lo <= avg <= hi <= 1, r
        assert r["minimal"] == "True" or r["engine"] == "updown", r


def test_spreading_routes_do_not_lose_on_a_full_fat_tree(tiny: Path) -> None:
    # 16-ary 2-tree, 256 endpoints: 16 on each leaf, 16 up links: full bisection.
    ebb = {
        r["engine"]: float(r["ebb_avg"])
        for r in rows(tiny, "ebb.csv")
        if r["spec"] == "kary-ntree:k=16,n=2,terminals=256" and r["status"] == "ok"
    }
    assert ebb["multipath"] >= ebb["sssp"]
    assert ebb["dmodk"] >= ebb["sssp"] - 1e-12
    # Every minimal path, split evenly, gives every flow a full link.
    assert ebb["multipath"] == pytest.approx(1.0)
    # LASH keeps one path per switch pair: far below on a tree (Figure 5).
    assert ebb["lash"] < ebb["sssp"]


def test_balanced_routes_reach_every_top_switch(tiny: Path) -> None:
    spread = {r["engine"]: r for r in rows(tiny, "xgft_spread.csv")}
    assert spread["sssp"]["spec"] == "xgft:m=6x6,w=3x3,terminals=512"
    for engine in ("sssp", "dmodk"):
        r = spread[engine]
        assert int(r["tops_used"]) == int(r["top_switches"]) == 9, r
        assert int(r["level1_used"]) == 3, r
    for r in spread.values():
        assert 1 <= int(r["tops_used"]) <= int(r["top_switches"]), r


def test_engines_that_promise_deadlock_freedom_keep_it(tiny: Path) -> None:
    ok = [r for r in rows(tiny, "ebb.csv") if r["status"] == "ok"]
    for r in ok:
        if r["engine"] in domke2011.DEADLOCK_FREE_ENGINES:
            assert r["deadlock_free"] == "True", r
        if r["family"] != "kautz":
            # Shortest paths on a tree never close a cycle.
            assert r["deadlock_free"] == "True", r
            assert int(r["lanes_needed"]) == 1, r
    # SSSP and MinHop on Kautz graphs are not deadlock-free (the paper's premise);
    # DFSSSP needs more than one lane there.
    kautz = [r for r in ok if r["family"] == "kautz"]
    assert any(r["engine"] == "sssp" and r["deadlock_free"] == "False" for r in kautz)
    assert all(int(r["lanes_needed"]) >= 2 for r in kautz if r["engine"] == "dfsssp")


def test_lanes_stay_within_the_limit(tiny: Path) -> None:
    for name in ("lanes_random.csv", "heuristics.csv"):
        table = rows(tiny, name)
        assert table, name
        for r in table:
            needed = int(r["lanes_needed"])
            if r["status"] == "ok":
                assert 1 <= needed <= domke2011.MAX_LANES, r
                assert r["deadlock_free"] == "True", r
            else:
                assert r["status"] in ("failed", "deadlock"), r
                assert needed > domke2011.MAX_LANES, r
    heur = rows(tiny, "heuristics.csv")
    assert {r["heuristic"] for r in heur} == set(domke2011.HEURISTICS)


def test_routing_times_are_measured(tiny: Path) -> None:
    timing = rows(tiny, "routing_time.csv")
    engines = {r["engine"] for r in timing if r["status"] == "ok"}
    assert engines >= {"minhop", "sssp", "dfsssp", "updown", "lash", "dmodk", "dfsssp-online"}
    assert all(float(r["seconds"]) >= 0 for r in timing if r["status"] == "ok")


def test_summary_puts_the_papers_numbers_beside_the_measured_ones(tiny: Path) -> None:
    text = (tiny / "summary.md").read_text()
    for stated in ("3-5", "4-8", "4-16", "about 170 s", "340 MB", "about 200 links"):
        assert stated in text, stated
    assert "## Where and why the results differ" in text


def test_registry_and_command_line(run_cli, tmp_path: Path) -> None:
    assert "domke2011" in reproduce.names()
    with pytest.raises(routelab.ConfigError, match="domke2011"):
        reproduce.module("nope")
    r = run_cli("reproduce", "nope")
    assert r.returncode == 2 and "domke2011" in r.stderr
    r = run_cli("reproduce", "domke2011", "--help")
    assert r.returncode == 0 and "--quick" in r.stdout and "--workers" in r.stdout
    r = run_cli("reproduce", "domke2011", "--workers", "0", "--out", str(tmp_path / "x"))
    assert r.returncode != 0 and "--workers 0 is not valid" in r.stderr
    assert not (tmp_path / "x").exists()


def test_the_report_puts_measured_beside_published(tiny: Path) -> None:
    path = reproduce.write_report("domke2011", tiny)
    assert path == tiny / "report.html"
    text = path.read_text()
    assert text.startswith("<!DOCTYPE html>")
    start = text.index('<h2 id="published">Measured and published</h2>')
    section = text[start : text.index('<h2 id="tables">')]
    head = re.findall(r"<th[^>]*>([^<]*)</th>", section)
    assert head[:6] == ["table", "measurement", "metric", "published", "measured", "difference"]
    # the weakest heuristic: published 3-5, the measured mean lanes beside it
    heur = rows(tiny, "heuristics.csv")
    lanes = [
        int(r["lanes_needed"]) for r in heur if r["heuristic"] == "weakest" and r["ports"] == "32"
    ]
    mean = sum(lanes) / len(lanes)
    row = re.search(
        r"heuristic=weakest, ports=32</td><td[^>]*>lanes_needed</td>"
        r"<td[^>]*>3-5</td><td>([^<]*)</td>",
        section,
    )
    assert row is not None and float(row.group(1)) == pytest.approx(mean, rel=1e-3)
    # the bandwidth sweeps are sections of the same page
    assert "domke2011-ebb-tiny" in text and "domke2011-ebb-multipath-tiny" in text
