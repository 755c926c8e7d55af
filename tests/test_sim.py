"""The simulator seen from Python and the command line."""

import json
from pathlib import Path

import pytest

import routelab

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SMALL = {
    "network": {"topology": "torus:4x4"},
    "routing": {"algorithm": "dor"},
    "traffic": {"pattern": "uniform", "load": 0.2},
    "run": {"warmup_cycles": 500, "measure_cycles": 2000, "seed": 3},
}


def test_simulate_dict_spec_and_conservation():
    r = routelab.simulate(SMALL)
    for key in (
        "offered",
        "accepted",
        "latency_mean",
        "latency_p99",
        "avg_hops",
        "packets_delivered",
        "flit_hops",
        "simulated_ps",
        "wall_seconds",
        "events",
    ):
        assert key in r
    # Below saturation the network carries what is offered.
    assert r.accepted == pytest.approx(r.offered, rel=0.1)
    assert r.latency_p99 >= r.latency_mean > 0
    row = r.row()
    assert len(row) == 1 and "accepted" in row.columns


def test_seeded_runs_repeat_and_overrides_apply():
    a = routelab.simulate(SMALL)
    b = routelab.simulate(SMALL)
    assert a.flit_hops == b.flit_hops and a.latency_mean == b.latency_mean
    c = routelab.simulate(SMALL, {"run.seed": 4})
    assert (c.flit_hops, c.latency_mean) != (a.flit_hops, a.latency_mean)
    heavier = routelab.simulate(SMALL, {"traffic.load": 0.4})
    assert heavier.offered > a.offered


def test_unknown_key_names_it():
    bad = {**SMALL, "traffic": {**SMALL["traffic"], "lode": 0.3}}
    with pytest.raises(routelab.ConfigError, match="lode"):
        routelab.simulate(bad)


def test_deadlock_is_reported_not_hung():
    spec = {
        "network": {"topology": "torus:8"},
        "router": {"vcs": 1, "buffer_flits": 2},
        "routing": {"algorithm": "minhop"},
        "traffic": {"pattern": "tornado", "load": 0.9, "packet_flits": 4},
        "run": {"warmup_cycles": 0, "measure_cycles": 20000, "watchdog_cycles": 2000},
    }
    with pytest.raises(routelab.DeadlockError, match="port"):
        routelab.simulate(spec)


def test_saturate_finds_a_load_below_the_bound():
    r = routelab.saturate(SMALL, steps=3)
    assert 0 < r.saturation <= 1.0
    assert len(r.points) >= 3


def test_sim_cli_on_the_example(run_cli):
    r = run_cli(
        "sim",
        str(EXAMPLES / "torus-dor.toml"),
        "--set",
        'network.topology="torus:4x4x4"',
        "--set",
        "run.measure_cycles=1000",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["accepted"] > 0 and out["events"] > 0


def test_sim_cli_bad_spec_exits_2(run_cli, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('[network]\ntopology = "torus:4x4"\n[routing]\nalgorithm = "teleport"\n')
    r = run_cli("sim", str(spec))
    assert r.returncode == 2, r.stderr
    assert "teleport" in r.stderr and len(r.stderr.strip().splitlines()) == 1
