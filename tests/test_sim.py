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


def _sim_example(run_cli, *extra):
    """`routelab sim` on the torus example, shrunk to a 4x4x4 torus."""
    return run_cli(
        "sim",
        str(EXAMPLES / "torus-dor.toml"),
        "--set",
        'network.topology="torus:4x4x4"',
        "--set",
        "run.measure_cycles=1000",
        *extra,
    )


def test_sim_cli_on_the_example(run_cli):
    r = _sim_example(run_cli, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["accepted"] > 0 and out["events"] > 0


def test_sim_cli_table_gives_each_number_its_unit(run_cli):
    r = _sim_example(run_cli)
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split(None, 2)[2] for line in r.stdout.splitlines() if line}
    assert rows["latency_mean"].startswith("ns")
    assert rows["accepted"].startswith("flits/node/cycle")
    assert rows["simulated_ps"].startswith("ps") and rows["wall_seconds"].startswith("s ")


def test_sim_cli_bad_spec_exits_2(run_cli, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('[network]\ntopology = "torus:4x4"\n[routing]\nalgorithm = "teleport"\n')
    r = run_cli("sim", str(spec))
    assert r.returncode == 2, r.stderr
    assert "teleport" in r.stderr and len(r.stderr.strip().splitlines()) == 1


DEADLOCKING = """
[network]
topology = "torus:8"
[router]
vcs = 1
buffer_flits = 2
[routing]
algorithm = "minhop"
[traffic]
packet_flits = 4
load = 0.9
"""


def test_deadlock_with_default_watchdog_and_run_length_fails_the_cli(run_cli, tmp_path):
    # The default watchdog (20,000 cycles) is longer than the default run:
    # the deadlock is still found once the run ends, and the run fails.
    spec = tmp_path / "ring.toml"
    spec.write_text(DEADLOCKING)
    r = run_cli("sim", str(spec))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "deadlock" in r.stderr and "waiting cycle" in r.stderr
    r = run_cli("saturate", str(spec))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "deadlock" in r.stderr


def test_an_undrained_run_says_so(run_cli, tmp_path):
    spec = tmp_path / "over.toml"
    spec.write_text(
        '[network]\ntopology = "torus:4x4"\n[routing]\nalgorithm = "dor"\n'
        '[traffic]\npattern = "tornado"\nload = 1.0\n'
        "[run]\nwarmup_cycles = 200\nmeasure_cycles = 1000\ndrain_cycles = 0\n"
    )
    r = run_cli("sim", str(spec))
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "did not drain" in r.stderr
    assert "drained" in r.stdout and "False" in r.stdout
    # Without a drain nothing says the load is past saturation: with one, this load drains.
    assert "run.drain_cycles is 0" in r.stderr and "beyond" not in r.stderr
    assert run_cli("sim", str(spec), "--set", "run.drain_cycles=500").returncode == 0
    # Tornado at full load on 8 x 8 is past dimension order's saturation: a drain shows it, and
    # a run that does not drain unconverged measurements says why it stopped.
    over = ("--set", "network.topology=torus:8x8", "--set", "run.drain_cycles=300")
    r = run_cli("sim", str(spec), *over)
    assert r.returncode == 3 and "beyond what the network sustains" in r.stderr, r.stderr
    skip = ("--set", "run.drain_unconverged=false", "--set", "run.warmup_periods=3")
    r = run_cli("sim", str(spec), *over, *skip)
    assert r.returncode == 3 and "did not converge" in r.stderr, r.stderr
    # A run stopped for its backlog measured nothing, whatever its drain.
    backlog = ("--set", "run.stop_backlog=0.05", "--set", "run.warmup_periods=5")
    r = run_cli("sim", str(spec), *over, *backlog)
    assert r.returncode == 3 and "run.stop_backlog" in r.stderr, r.stderr
    assert "beyond saturation" not in r.stderr and "drain_cycles" not in r.stderr
    # The JSON result carries the field, the exit code the verdict.
    r = run_cli("sim", str(spec), "--json")
    assert r.returncode == 3
    assert json.loads(r.stdout)["drained"] is False


def test_sweeps_record_deadlocks_and_overload_as_finished_runs(tmp_path):
    spec = tmp_path / "sweep.toml"
    spec.write_text(
        '[experiment]\nkind = "sim"\nname = "edge"\n'
        '[network]\ntopology = "torus:8"\n'
        "[router]\nvcs = [1, 2]\nbuffer_flits = 2\n"
        '[routing]\nalgorithm = ["minhop", "dor"]\n'
        '[traffic]\npattern = "tornado"\npacket_flits = 4\nload = 1.0\n'
        "[run]\nwarmup_cycles = 200\nmeasure_cycles = 2000\ndrain_cycles = 0\n"
    )
    out = tmp_path / "out"
    outcome = routelab.sweep(spec, out, workers=1)
    df = routelab.results(out).set_index(["routing.algorithm", "router.vcs"])
    # One lane round a ring under minhop: a deadlock is a result, with its cycle.
    assert df.loc[("minhop", 1), "status"] == "deadlock"
    assert "waiting cycle" in df.loc[("minhop", 1), "error"]
    assert df.loc[("minhop", 2), "status"] == "deadlock"  # minhop uses one lane of two
    assert outcome.deadlocked == 2 and "2 deadlocked" in outcome.summary()
    # Dimension order with dateline lanes beyond saturation: measured, undrained.
    assert df.loc[("dor", 2), "status"] == "undrained"
    assert df.loc[("dor", 2), "drained"] == False  # noqa: E712
    assert outcome.undrained >= 1 and "did not drain" in outcome.summary()
    # Resuming reruns nothing: undrained and deadlocked runs are finished runs.
    again = routelab.sweep(spec, out, workers=1)
    assert again.ran == 0
    # Asked to, it runs the deadlocked and failed ones again (dor refuses one lane).
    retried = routelab.sweep(spec, out, workers=1, retry_failed=True)
    assert (retried.ran, retried.deadlocked, retried.failed) == (3, 2, 1)


def test_short_buffers_warn_once_and_unsteady_runs_say_so(run_cli, tmp_path):
    """The default buffer covers the credit round trip (33 flits on 100 ns,
    20 Gb/s links); 8 flits do not: the run is throttled, warned about once
    per link class on stderr and in the result, and its text output says it
    neither drained nor converged."""
    spec = tmp_path / "minimal.toml"
    spec.write_text(
        '[network]\ntopology = "torus:8x8"\n[routing]\nalgorithm = "dor"\n'
        "[traffic]\nload = 0.3\n[run]\nwarmup_cycles = 500\nmeasure_cycles = 2000\n"
    )
    ok = run_cli("sim", str(spec))
    assert ok.returncode == 0, ok.stderr
    assert "warning" not in ok.stderr
    assert "drained" not in ok.stdout and "converged" not in ok.stdout
    assert float(ok.stdout.split("accepted")[1].split()[0]) == pytest.approx(0.3, abs=0.02)
    starved = run_cli("sim", str(spec), "--set", "router.buffer_flits=8")
    assert starved.returncode == 3, starved.stderr  # it does not drain
    warnings = [line for line in starved.stderr.splitlines() if "buffer_flits =" in line]
    assert len(warnings) == 2  # switch and terminal links, each once
    assert all("router.buffer_flits >= 33" in w for w in warnings)
    assert "drained            False" in starved.stdout
    assert "converged          False" in starved.stdout
    r = routelab.simulate(spec, {"router.buffer_flits": 32})
    assert len(r.warnings) == 2  # one flit short: warned, though 97% of a link is plenty here
    assert routelab.simulate(spec, {"router.buffer_flits": 33}).warnings == []
    sat = routelab.saturate(spec, {"router.buffer_flits": 8}, steps=1)
    assert len(sat.warnings) == 2


def test_a_run_split_over_threads_repeats_and_agrees_with_one_thread():
    spec = {
        "network": {"topology": "torus:8x8x8"},
        "router": {"vcs": 2},
        "routing": {"algorithm": "dor"},
        "traffic": {"pattern": "uniform", "load": 0.3, "packet_flits": 4},
        "run": {"warmup_cycles": 300, "measure_cycles": 1200, "drain_cycles": 0},
    }
    one = routelab.simulate(spec, progress=False)
    split = {**spec, "run": {**spec["run"], "threads": 3}}
    a = routelab.simulate(split, progress=False)
    b = routelab.simulate(split, progress=False)
    for key in ("flit_hops", "events", "latency_mean", "packets_delivered"):
        assert a[key] == b[key], key
    assert a["accepted"] == pytest.approx(one["accepted"], rel=0.02)
    assert a["latency_mean"] == pytest.approx(one["latency_mean"], rel=0.05)
    with pytest.raises(routelab.ConfigError, match="run.threads"):
        routelab.simulate({**spec, "run": {"threads": 0}}, progress=False)
