"""What the command line lists, the names it takes from BookSim and OpenSM,
and `saturate`'s options, matching the Python function."""

import json

import pytest

import routelab

TORUS_DOR = (
    '[network]\ntopology = "torus:4x4"\n[routing]\nalgorithm = "dim_order"\n'
    '[traffic]\npattern = "bitrev"\n'
    "[run]\nwarmup_cycles = 200\nmeasure_cycles = 600\n"
)


def _rows(stdout: str) -> dict[str, str]:
    rows = {}
    for line in stdout.splitlines():
        name, _, about = line.partition("  ")
        assert about.strip(), f"a listed name without a line: {line!r}"
        rows[name.strip()] = about.strip()
    return rows


def test_every_list_has_one_line_per_name(run_cli):
    engines = _rows(run_cli("route", "--list").stdout)
    assert set(routelab.engines()) <= set(engines)
    assert "updn" not in engines and engines["dim_order"] == "= dor"
    routers = _rows(run_cli("sim", "--list").stdout)
    for name in ("abr", "ofr", "por", "rdr", "duato", "dor", "minhop", "dfsssp"):
        assert name in routers
    assert routers["minhop"].startswith("tables:") and not routers["dor"].startswith("tables:")
    patterns = _rows(run_cli("pattern", "--list").stdout)
    assert patterns["bitrev"] == "= bit-reverse" and patterns["randperm"] == "= permutation"
    assert "bisect[:dir=both|one,active=N]" in patterns and "hotspot:f=0.1[,host=0]" in patterns
    families = _rows(run_cli("topo", "--list").stdout)
    assert len(families) == len(routelab.families())


def test_aliases_mean_what_they_stand_for(run_cli, tmp_path):
    net = routelab.topology("torus:4x4")
    for alias, real in (("bitrev", "bit-reverse"), ("bitcomp", "bit-complement")):
        assert routelab.pattern(alias, net) == routelab.pattern(real, net)
    a = routelab.route(net, "dim_order")
    b = routelab.route(net, "dor")
    assert a.engine == b.engine == "dor"
    spec = tmp_path / "alias.toml"
    spec.write_text(TORUS_DOR)
    by_alias = routelab.simulate(spec)
    by_name = routelab.simulate(
        spec, {"routing.algorithm": '"dor"', "traffic.pattern": '"bit-reverse"'}
    )
    assert by_alias["accepted"] == by_name["accepted"]
    assert by_alias["latency_mean"] == by_name["latency_mean"]


def test_saturate_cli_takes_the_python_options(run_cli, tmp_path):
    spec = tmp_path / "sat.toml"
    spec.write_text(TORUS_DOR)
    r = run_cli("saturate", str(spec), "--low", "0.05", "--high", "0.6", "--steps", "2", "--json")
    assert r.returncode == 0, r.stderr
    cli = json.loads(r.stdout)
    py = routelab.saturate(spec, low=0.05, high=0.6, steps=2)
    assert cli["saturation"] == py["saturation"]
    assert [p["load"] for p in cli["points"]] == [p["load"] for p in py["points"]]
    # Below 0.6, unless 0.6 was sustained: then the search went on to the
    # injection bandwidth (1.0) rather than report 0.6. Both ends are
    # measured: here 0.05 is not sustained (600 cycles do not converge), so
    # the answer lies below it.
    at = {p["load"]: p for p in cli["points"]}
    top = 1.0 if at[0.6]["sustained"] else 0.6
    assert all(0 < p["load"] <= top for p in cli["points"])
    assert cli["saturation"] is None or cli["saturation"] < cli["bracket_high"] <= top
    below = 0.05 if not at[0.05]["sustained"] else top
    assert cli["bracket_high"] <= below
    r = run_cli("saturate", str(spec), "--steps", "0")
    assert r.returncode == 2 and "'steps'" in r.stderr and "1..=30" in r.stderr
    # A scan: the same loads and answer from the command line and Python.
    args = ("--scan", "0.1,0.3,0.5", "--scan-misses", "1", "--no-drain", "--steps", "1")
    r = run_cli("saturate", str(spec), *args, "--json")
    assert r.returncode == 0, r.stderr
    cli = json.loads(r.stdout)
    py = routelab.saturate(
        spec, scan=[0.1, 0.3, 0.5], scan_misses=1, require_drained=False, steps=1
    )
    assert [p["load"] for p in cli["points"]] == [p["load"] for p in py["points"]]
    assert 0.1 in [p["load"] for p in cli["points"]]
    # Skipping the drains of short loads: the same loads and verdicts.
    r = run_cli("saturate", str(spec), *args, "--skip-short-drains", "--json")
    assert r.returncode == 0, r.stderr
    skipped = json.loads(r.stdout)["points"]
    assert [(p["load"], p["sustained"]) for p in skipped] == [
        (p["load"], p["sustained"]) for p in cli["points"]
    ]
    r = run_cli("saturate", str(spec), "--scan", "0.1,x")
    assert r.returncode == 2 and "expected loads such as" in r.stderr
    # Narrowing by halves: one load a step, inside the bracket it narrows.
    r = run_cli(
        "saturate",
        str(spec),
        "--low",
        "0.05",
        "--high",
        "0.6",
        "--steps",
        "3",
        "--bisect",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    halves = json.loads(r.stdout)
    py = routelab.saturate(spec, low=0.05, high=0.6, steps=3, bisect=True)
    assert [p["load"] for p in halves["points"]] == [p["load"] for p in py["points"]]
    # After the first bracket (0.05 and 0.6: here 0.6 is not sustained)
    # each load halves it: n loads leave 1/2^n of it, at most one a step.
    at = {p["load"]: p["sustained"] for p in halves["points"]}
    assert not at[0.6]
    lo0, hi0 = (0.05, 0.6) if at[0.05] else (0.0, 0.05)
    n = len(at) - 2
    assert 1 <= n <= 3
    width = halves["bracket_high"] - halves["bracket_low"]
    assert width == pytest.approx((hi0 - lo0) / 2**n)


def test_commands_without_their_input_say_what_they_need(run_cli):
    for args, needs in (
        (["route", "torus:4x4"], "--engine"),
        (["sim"], "SPEC"),
        (["saturate"], "SPEC"),
    ):
        r = run_cli(*args)
        assert r.returncode == 2 and needs in r.stderr, (args, r.stderr)
