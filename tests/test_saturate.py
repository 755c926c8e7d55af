"""Saturation is measured, never assumed: a sustained ceiling is not reported
as saturation, and a run that deadlocks is a point with its status in a search,
a load curve and a sweep, beside every other finished point."""

import json

import routelab
from routelab.experiment import plot

# One lane round a ring of 8 under minhop: deadlocks at high load, not at
# very low load; short runs.
RING = {
    "network": {"topology": "torus:8"},
    "router": {"vcs": 1, "buffer_flits": 2},
    "routing": {"algorithm": "minhop"},
    "traffic": {"packet_flits": 4, "load": 0.9},
    "run": {"warmup_cycles": 200, "measure_cycles": 1000, "drain_cycles": 2000},
}
# A crossbar carrying a permutation sustains its injection bandwidth.
CROSSBAR = """
[network]
topology = "crossbar:4"
[routing]
algorithm = "minhop"
[traffic]
pattern = "bit-complement"
[run]
warmup_cycles = 300
measure_cycles = 1000
"""


def test_a_sustained_ceiling_extends_to_the_bound_and_says_not_saturated(run_cli, tmp_path):
    spec = tmp_path / "crossbar.toml"
    spec.write_text(CROSSBAR)
    r = routelab.saturate(spec, high=0.5)
    assert r.saturated is False and r.saturation is None
    assert (r.bracket_low, r.bracket_high, r.bound) == (1.0, None, 1.0)
    assert [(p["load"], p["status"]) for p in r.points] == [(0.5, "sustained"), (1.0, "sustained")]
    out = run_cli("saturate", str(spec), "--high", "0.5")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("not saturated up to 1 flits/terminal/cycle (the injection")
    assert "saturation  " not in out.stdout


def test_the_readme_example_brackets_a_measured_saturation(run_cli):
    # 0.9 is sustained on this torus: the search goes past it and states the
    # bracket; offered is measured per terminal (8 of 64 send to themselves).
    args = ["examples/torus-duato.toml", "--low", "0.1", "--high", "0.9", "--steps", "2"]
    args += ["--set", "run.measure_cycles=2000", "--set", "run.warmup_cycles=500"]
    r = run_cli("saturate", *args, "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    at = {p["load"]: p for p in res["points"]}
    assert at[0.9]["sustained"] and 1.0 in at
    assert res["saturation"] != 0.9 or not at[1.0]["sustained"]
    if res["saturated"]:
        assert res["saturation"] < res["bracket_high"] <= 1.0
        assert res["bracket_width"] == res["bracket_high"] - res["bracket_low"]
        assert res["offered"] == at[res["saturation"]]["offered"]
    assert at[0.9]["sources"] == 56 and at[0.9]["offered"] < 0.9 * 57 / 64
    text = run_cli("saturate", *args)
    assert "56 of 64 terminals send" in text.stdout
    assert any(line.split()[-1:] == ["status"] for line in text.stdout.splitlines())


def test_a_deadlock_inside_a_search_keeps_every_point_and_fails_the_cli(run_cli, tmp_path):
    r = routelab.saturate(RING, steps=2, tolerance=0.5)
    dead = [p for p in r.points if p["status"] == "deadlock"]
    assert dead and r.deadlocks == len(dead) and len(r.points) == 1 + 2 * 2
    assert all(p["offered"] is None and "waiting cycle" in p["error"] for p in dead)
    assert r.saturated and r.bracket_high <= min(p["load"] for p in dead)
    spec = tmp_path / "ring.toml"
    spec.write_text(routelab.sim.spec_text(RING))
    out = run_cli("saturate", str(spec), "--steps", "2", "--tolerance", "0.5")
    assert out.returncode == 1, out.stderr
    assert out.stdout.count("deadlock") == len(dead)  # every point printed
    assert "deadlocked" in out.stderr and "waiting cycle" in out.stderr


def test_load_latency_keeps_17_points_when_one_deadlocks():
    loads = [0.001 * k for k in range(1, 18)] + [0.9]
    df = routelab.load_latency(RING, loads, progress=False)
    assert len(df) == 18
    assert (df["status"] == "ok").sum() == 17 and df["accepted"].notna().sum() == 17
    last = df[df["load"] == 0.9].iloc[0]
    assert last["status"] == "deadlock" and "waiting cycle" in last["error"]
    assert not last["sustained"]


def test_a_deadlocked_run_is_marked_on_the_load_curve(tmp_path):
    spec = tmp_path / "ring.toml"
    spec.write_text(
        '[experiment]\nkind = "sim"\nname = "ring"\n'
        + routelab.sim.spec_text(RING).replace("load = 0.9", "load = [0.002, 0.004, 0.9]")
    )
    out = tmp_path / "out"
    outcome = routelab.sweep(spec, out, workers=1)
    assert (outcome.ok, outcome.deadlocked) == (2, 1)
    _, df = plot.load_table(out)
    assert list(df.sort_values("traffic.load")["status"]) == ["ok", "ok", "deadlock"]
    fig = plot.figure(df, plot.standard_specs(df)[0])
    ax = fig.axes[0]
    crosses = [ln for ln in ax.get_lines() if ln.get_marker() == "X" and len(ln.get_xdata())]
    assert [list(ln.get_xdata()) for ln in crosses] == [[0.9]]
    labels = ax.get_legend_handles_labels()[1] + fig.legends[0].texts if fig.legends else []
    texts = [t if isinstance(t, str) else t.get_text() for t in labels]
    assert "deadlock: stopped, no value" in texts, texts
    # The dotted saturation line sits at the deadlock, the first load not sustained.
    assert plot.saturation_load(df, "traffic.load", "latency_mean") == 0.9


def test_loads_stopped_for_their_backlog_are_marked_and_leave_the_answer(run_cli, tmp_path):
    # An 8x8 torus past its knee: with run.stop_backlog the far loads stop in
    # their warm-up (status backlog, nothing measured), the answer is the one
    # found without the stop, and the command line lists them as such.
    spec = {
        "network": {"topology": "torus:8x8"},
        "routing": {"algorithm": "dor"},
        "traffic": {"pattern": "uniform", "packet_flits": 4},
        "run": {
            "warmup_cycles": 500,
            "warmup_periods": 4,
            "measure_cycles": 2000,
            "convergence": 0.1,
            "drain_unconverged": False,
        },
    }
    options = {"low": 0.05, "high": 0.1, "resolution": 0.02}
    whole = routelab.saturate(spec, **options)
    spec["run"]["stop_backlog"] = 0.1
    stopped = routelab.saturate(spec, **options)
    assert (stopped.saturation, stopped.bracket_high) == (whole.saturation, whole.bracket_high)
    backlog = [p for p in stopped.points if p["status"] == "backlog"]
    assert backlog and all(p["offered"] is None and not p["sustained"] for p in backlog)
    assert all(p["load"] > stopped.bracket_high for p in backlog)
    path = tmp_path / "torus.toml"
    path.write_text(
        '[network]\ntopology = "torus:8x8"\n[routing]\nalgorithm = "dor"\n'
        '[traffic]\npattern = "uniform"\npacket_flits = 4\n'
        "[run]\nwarmup_cycles = 500\nwarmup_periods = 4\nmeasure_cycles = 2000\n"
        "convergence = 0.1\ndrain_unconverged = false\nstop_backlog = 0.1\n"
    )
    out = run_cli("saturate", str(path), "--low", "0.05", "--high", "0.1", "--resolution", "0.02")
    assert out.returncode == 0, out.stderr
    assert sum(line.split()[-1] == "backlog" for line in out.stdout.splitlines()) == len(backlog)


def test_a_search_resumes_from_its_journal_and_refuses_another_ones(run_cli, tmp_path):
    # The 8x8 torus of the backlog test, its far loads stopped: each load is
    # written to the journal as it is measured; a search killed after two
    # loads and started again keeps them (their wall time is the one
    # written) and ends where the whole search did.
    spec = tmp_path / "torus.toml"
    spec.write_text(
        '[network]\ntopology = "torus:8x8"\n[routing]\nalgorithm = "dor"\n'
        '[traffic]\npattern = "uniform"\npacket_flits = 4\n'
        "[run]\nwarmup_cycles = 500\nwarmup_periods = 4\nmeasure_cycles = 2000\n"
        "convergence = 0.1\ndrain_unconverged = false\nstop_backlog = 0.1\n"
    )
    options = {"low": 0.05, "high": 0.1, "resolution": 0.02}
    journal = tmp_path / "search.jsonl"
    whole = routelab.saturate(spec, journal=journal, **options)
    lines = journal.read_text().splitlines()
    assert len(lines) >= 1 + len(whole.points)
    killed = tmp_path / "killed.jsonl"
    killed.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])
    resumed = routelab.saturate(spec, journal=killed, **options)
    assert (resumed.bracket_low, resumed.bracket_high) == (whole.bracket_low, whole.bracket_high)
    assert [p["load"] for p in resumed.points] == [p["load"] for p in whole.points]
    for line in lines[1:3]:
        kept = json.loads(line)
        (now,) = [p for p in resumed.points if p["load"] == kept["load"]]
        assert now["wall_seconds"] == kept["wall_seconds"]
    assert killed.read_text().splitlines()[:3] == lines[:3]
    # The command line takes the same journal; one of other options is
    # refused, naming the file and its line, and left as it was.
    out = run_cli(
        "saturate",
        str(spec),
        "--low",
        "0.05",
        "--high",
        "0.1",
        "--resolution",
        "0.02",
        "--journal",
        str(journal),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["points"] == whole.points
    out = run_cli(
        "saturate", str(spec), "--low", "0.05", "--high", "0.2", "--journal", str(journal)
    )
    assert out.returncode == 2
    assert f"journal {journal}, line 1" in out.stderr and "other options" in out.stderr
    assert journal.read_text().splitlines() == lines


# 64-flit packets at 1% load over 4,000 cycles: a few dozen packets, too few
# for the two halves of the window to agree within 5%.
FEW_PACKETS = """
[network]
topology = "torus:4x4"
[router]
switching = "wormhole"
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
packet_flits = 64
load = 0.01
[run]
warmup_cycles = 2000
measure_cycles = 4000
seed = 3
"""


def test_a_search_without_the_convergence_test_takes_drained_loads(run_cli, tmp_path):
    strict = routelab.saturate(FEW_PACKETS, low=0.01, high=0.02, steps=1, progress=False)
    assert [p["status"] for p in strict.points] == ["unconverged", "unconverged"]
    r = routelab.saturate(
        FEW_PACKETS, low=0.01, high=0.02, steps=1, require_converged=False, progress=False
    )
    # The same runs, now read by drain and acceptance alone.
    assert [p["status"] for p in r.points[:2]] == ["sustained", "sustained"]
    assert not r.points[0]["converged"]
    for p in r.points:
        assert p["sustained"] == (p["drained"] and p["accepted"] >= 0.95 * p["offered"]), p
    assert r.saturated and r.saturation >= 0.02
    spec = tmp_path / "few.toml"
    spec.write_text(FEW_PACKETS)
    out = run_cli(
        "saturate",
        str(spec),
        "--low",
        "0.01",
        "--high",
        "0.02",
        "--steps",
        "1",
        "--no-convergence",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["saturation"] == r.saturation
