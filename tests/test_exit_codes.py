"""One meaning per exit code on every command: 0 only when the run or the
check succeeded, 1 a failed run or a failed check, 2 bad input, 3 a run that
did not drain."""

import routelab

RING = (
    '[network]\ntopology = "torus:8"\n[router]\nvcs = 1\nbuffer_flits = 2\n'
    '[routing]\nalgorithm = "minhop"\n[traffic]\npacket_flits = 4\nload = 0.9\n'
    "[run]\nwarmup_cycles = 200\nmeasure_cycles = 1000\ndrain_cycles = 2000\n"
)


def test_routes_read_from_a_file_with_a_cycle_fail_the_deadlock_check(run_cli, tmp_path):
    # Minhop's tables on a 5-ring, read back from the LFT dump on one lane.
    net = routelab.topology("torus:5")
    routelab.route(net, "minhop").save(tmp_path)
    lfts = str(tmp_path / "opensm-lfts.dump")
    r = run_cli("deadlock", "torus:5", "--lfts", lfts)
    assert r.returncode == 1, r.stderr
    assert "check failed: the routes can deadlock" in r.stderr and "port" in r.stderr
    assert "deadlock_free" in r.stdout  # the report is still printed
    ok = run_cli("deadlock", "torus:5", "--engine", "dfsssp")
    assert ok.returncode == 0, ok.stderr


def test_audit_fails_on_a_black_holed_lid_and_on_a_cycle(run_cli, tmp_path):
    net = routelab.topology("torus:3x3")
    fabric = tmp_path / "fabric.ibnet"
    net.save(fabric)
    lines = routelab.route(net, "dfsssp").to_lfts().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("0x000c"))
    hole = tmp_path / "hole.dump"
    hole.write_text("\n".join(lines[:first] + lines[first + 1 :]) + "\n")
    r = run_cli("audit", str(fabric), "--lfts", str(hole), "--patterns", "0")
    assert r.returncode == 1, r.stderr
    assert "unreachable LIDs: 12" in r.stderr and "LID 12" in r.stdout
    # DFSSSP's tables on a 5-ring without their lane table: every LID
    # reached, but on one lane the routes close a cycle.
    ring = routelab.topology("torus:5")
    ring.save(tmp_path / "ring.ibnet")
    routelab.route(ring, "dfsssp").save(tmp_path / "ring")
    full = str(tmp_path / "ring" / "opensm-lfts.dump")
    r = run_cli("audit", str(tmp_path / "ring.ibnet"), "--lfts", full, "--patterns", "0", "--json")
    assert r.returncode == 1 and "can deadlock" in r.stderr, r.stderr
    assert "unreachable" not in r.stderr
    good = run_cli("audit", "torus:3x3", "--engine", "dfsssp", "--patterns", "0")
    assert good.returncode == 0, good.stderr


def test_route_fails_when_its_routes_can_deadlock(run_cli):
    r = run_cli("route", "torus:4x4", "--engine", "minhop", "--json")
    assert r.returncode == 1 and "can deadlock" in r.stderr
    assert '"deadlock_free": false' in r.stdout
    assert run_cli("route", "torus:4x4", "--engine", "dor").returncode == 0
    bad = run_cli("route", "torus:4x4x4", "--engine", "dfsssp", "--max-lanes", "1")
    assert bad.returncode == 2


def test_sim_saturate_and_sweep_codes(run_cli, tmp_path):
    ring = tmp_path / "ring.toml"
    ring.write_text(RING)
    assert run_cli("sim", str(ring)).returncode == 1  # deadlock
    over = run_cli(
        "sim", str(ring), "--set", 'routing.algorithm="dor"', "--set", "router.vcs=2",
        "--set", "traffic.load=1.0", "--set", "run.drain_cycles=0",
    )  # fmt: skip
    assert over.returncode == 3, over.stderr  # did not drain
    assert run_cli("sim", str(ring), "--set", "traffic.lod=1").returncode == 2
    assert run_cli("saturate", str(ring), "--steps", "1").returncode == 1
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[experiment]\nkind = "sim"\nname = "ring"\n' + RING)
    r = run_cli("sweep", str(sweep), "--out", str(tmp_path / "out"), "--quiet", "--workers", "1")
    assert r.returncode == 1 and "1 run(s) deadlocked" in r.stderr, r.stderr
