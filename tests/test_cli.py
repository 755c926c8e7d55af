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
