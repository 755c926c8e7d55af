"""The command line, run as a user runs it."""

import json

import pytest


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


def test_a_dumped_torus_and_tree_route_with_their_engines(run_cli, tmp_path):
    # Read back from an ibnetdiscover dump, a torus and a fat tree declare no
    # structure; they are recognised from the cabling, route with torus-2QoS
    # and dmodk, and the files written are the fabric's own: the subnet's
    # LFTs with its SLs and SL-to-VL tables audit deadlock-free.
    for spec, engine, family in (
        ("torus:4x4x3,c=2", "torus-2QoS", "torus:4x4x3,c=2"),
        ("kary-ntree:k=4,n=3", "dmodk", "kary-ntree:k=4,n=3,terminals=64"),
    ):
        dump = tmp_path / f"{engine}.ibnet"
        assert run_cli("topo", spec, "-o", str(dump)).returncode == 0
        r = run_cli("topo", str(dump), "--json")
        s = json.loads(r.stdout)
        assert (s["family"], s["recognised"]) == ("irregular", family)
        out = tmp_path / engine
        r = run_cli("route", str(dump), "--engine", engine, "--json", "-o", str(out))
        assert r.returncode == 0, r.stderr
        s = json.loads(r.stdout)
        assert s["deadlock_free"] and s["minimal"], s
        audit = ["deadlock", str(dump), "--lfts", str(out / "opensm-lfts.dump"), "--json"]
        if (out / "opensm-sl2vl.dump").exists():
            audit += ["--lanes", str(out / "opensm-path-records.dump")]
            audit += ["--sl2vl", str(out / "opensm-sl2vl.dump")]
        r = run_cli(*audit)
        assert r.returncode == 0 and json.loads(r.stdout)["deadlock_free"], r.stderr
    r = run_cli("route", "random:switches=8,ports=6,hosts=2,seed=1", "--engine", "dor")
    assert r.returncode == 2 and "no family routelab knows" in r.stderr


def test_path_records_give_the_audit_its_sls(run_cli, tmp_path):
    # route -o writes OpenSM's path records for layered routes; --lanes reads
    # them in place of a lane table, and with every SL on VL 0 the audit
    # finds the cycle the SLs were there to break.
    out = tmp_path / "routes"
    r = run_cli("route", "torus:5,c=2", "--engine", "dfsssp", "--max-lanes", "2", "-o", str(out))
    assert r.returncode == 0, r.stderr
    records = out / "opensm-path-records.dump"
    # A block per sending port: every adapter port and every switch.
    text = records.read_text()
    assert text.count("Channel Adapter 0x") == 10 and text.count("Switch 0x") == 5
    audit = ["deadlock", "torus:5,c=2", "--lfts", str(out / "opensm-lfts.dump"), "--json"]
    r = run_cli(*audit, "--lanes", str(records), "--sl2vl", str(out / "opensm-sl2vl.dump"))
    assert r.returncode == 0 and json.loads(r.stdout)["deadlock_free"], r.stderr
    zero = tmp_path / "zero.dump"
    zero.write_text(
        "".join(
            line.split(":")[0] + ":" + " 0" * 16 + "\n"
            if ":" in line and not line.startswith("#")
            else line + "\n"
            for line in (out / "opensm-sl2vl.dump").read_text().splitlines()
        )
    )
    r = run_cli(*audit, "--lanes", str(records), "--sl2vl", str(zero))
    s = json.loads(r.stdout)
    assert r.returncode == 1 and not s["deadlock_free"] and s["cycle"], s
    assert "check failed: the routes can deadlock" in r.stderr


@pytest.mark.parametrize(
    ("argv", "last"),
    [
        (["route", "torus:8x8", "--engine", "dfsssp"], "checking lanes"),
        (["deadlock", "torus:8x8", "--engine", "dor"], "channel dependency graph"),
        (["audit", "kary-ntree:k=4,n=2", "--engine", "ftree"], "auditing"),
        (["ebb", "kary-ntree:k=4,n=2", "--engine", "dmodk", "--patterns", "5"], "effective"),
    ],
)
def test_slow_commands_name_each_step_on_stderr(argv, last, monkeypatch, capsys):
    # Shown at once here (no delay), as a watched terminal sees it after 2 s.
    import routelab.cli
    from routelab import progress

    seen: list[str] = []
    real = progress.Progress.stage

    def stage(self, description):
        seen.append(description)
        real(self, description)

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setenv("ROUTELAB_PROGRESS", "1")
    monkeypatch.setattr(progress.Progress, "stage", stage)
    assert routelab.cli.main([*argv, "--json"]) == 0
    assert seen and seen[-1].startswith(last), seen
    json.loads(capsys.readouterr().out)  # stdout holds the JSON alone
