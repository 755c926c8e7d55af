"""The command line, run as a user runs it."""

import json


def test_topo_json(run_cli):
    r = run_cli("topo", "torus:8x8x8", "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["switches"] == 512
    assert s["diameter"] == 12
    assert s["bisection_width"] == 128


def test_topo_writes_every_format(run_cli, tmp_path):
    outs = [tmp_path / f"f.{ext}" for ext in ("json", "ibnet", "dot")]
    args = ["topo", "kary-ntree:k=2,n=3"]
    for o in outs:
        args += ["-o", str(o)]
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    assert all(o.stat().st_size > 0 for o in outs)
    r = run_cli("topo", str(outs[1]), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["terminals"] == 8


def test_bad_input_exits_2_with_one_line(run_cli):
    for args in (
        ["topo", "torus:1x4"],
        ["topo", "donut:4"],
        ["topo", "missing-file.ibnet"],
        ["pattern", "bit-reverse", "--topo", "torus:3x3"],
        ["pattern", "nonsense", "--topo", "torus:4x4"],
    ):
        r = run_cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("routelab: error:"), r.stderr
        assert "Traceback" not in r.stderr


def test_pattern_prints_pairs(run_cli):
    r = run_cli("pattern", "bit-complement", "--topo", "hypercube:3", "--json")
    assert r.returncode == 0, r.stderr
    pairs = json.loads(r.stdout)["pairs"]
    assert pairs == [[i, 7 - i] for i in range(8)]


def test_route_shows_lanes_used_and_needed(run_cli):
    # DFSSSP needs 2 lanes on a 5-ring; spreading onto spare lanes may use
    # more, never more than allowed, and both are shown under their names.
    for max_lanes in (2, 8, 15):
        r = run_cli(
            "route", "torus:5", "--engine", "dfsssp", "--max-lanes", str(max_lanes), "--json"
        )
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert "lanes" not in s
        assert s["lanes_needed"] == 2
        assert s["lanes_needed"] <= s["lanes_used"] <= max_lanes
        assert s["deadlock_free"]
    r = run_cli("route", "torus:5", "--engine", "dfsssp")
    assert r.returncode == 0 and "lanes_used" in r.stdout and "lanes_needed" in r.stdout


def test_pattern_list_names_both_bisections(run_cli):
    r = run_cli("pattern", "--list")
    assert r.returncode == 0, r.stderr
    assert "dir=both|one" in r.stdout and "ORCS" in r.stdout
    r = run_cli("pattern", "bisect:dir=one", "--topo", "crossbar:8", "--json")
    assert r.returncode == 0, r.stderr
    pairs = [tuple(p) for p in json.loads(r.stdout)["pairs"] if p[0] != p[1]]
    assert len(pairs) == 4 and len({d for _, d in pairs} | {s for s, _ in pairs}) == 8
    r = run_cli("pattern", "bisect:dir=two", "--topo", "crossbar:8")
    assert r.returncode == 2 and "'dir'" in r.stderr
