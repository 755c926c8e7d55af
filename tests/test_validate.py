"""`routelab validate`: the quick matrix passes, and each check fails when what
it checks is wrong (a router that deadlocks while claiming it cannot, a latency
formula that does not hold)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import routelab
from routelab import cli, validation

# The quick matrix: 150-240 s (see conftest.py).
pytestmark = pytest.mark.slow(240)


def test_the_quick_matrix_passes_for_every_router_that_claims_deadlock_freedom(tmp_path):
    table = validation.run(out=tmp_path)
    failed = table[table["status"] == "fail"]
    assert failed.empty, failed[["router", "topology", "case", "failures"]].to_string()
    ran = table[table["status"] == "pass"]
    # Every router and engine is exercised somewhere, at realistic sizes.
    assert set(ran["router"]) == set(validation.HOP_ROUTERS) | set(validation.VARIANTS) | set(
        validation.ENGINES
    )
    loads = ran[ran["case"] == "load"]
    assert {4, 16, 1} <= set(loads["packet_flits"])
    assert set(validation.SWITCHING) <= set(loads["switching"])
    assert set(validation.PATTERNS) <= set(loads["pattern"])
    assert loads["load"].max() > 1.0
    assert {"mesh:8x8", "torus:8x8"} <= set(loads["topology"])
    # The physics was checked, not just runs finishing.
    assert (ran[ran["case"] == "zero-load"]["latency_ns"] > 0).all()
    assert loads["checks"].str.contains("throughput bound").sum() > 50
    assert (ran["case"] == "cdg").sum() >= len(validation.ENGINES)
    assert loads["checks"].str.contains("repeatable").sum() >= len(validation.ENGINES)
    page = (tmp_path / "validate.html").read_text()
    assert "<table>" in page and "duato" in page


def test_a_router_that_deadlocks_while_claiming_it_cannot_fails_with_its_spec(
    tmp_path, monkeypatch
):
    # dispersive makes its claim on fat trees only; claim it on a torus too.
    monkeypatch.setitem(validation.HOP_ROUTERS, "dispersive", None)
    code = cli.main(
        ["validate", "--router", "dispersive", "--topology", "torus:8x8", "--out", str(tmp_path)]
    )
    assert code == 1
    table = validation.run(["dispersive"], topologies=["torus:8x8"])
    dead = table[table["failures"].str.contains("deadlock")]
    assert len(dead) >= 1
    specs = sorted((tmp_path / "failed").glob("*.toml"))
    assert specs, "the failing specs are written"
    # The spec written reproduces the failure on its own.
    run = subprocess.run(
        [sys.executable, "-m", "routelab.cli", "sim", str(specs[0])],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1 and "deadlock" in run.stderr


def test_a_router_without_a_claim_is_reported_not_failed():
    table = validation.run(["dispersive"], topologies=["torus:8x8"])
    assert not (table["status"] == "fail").any()
    assert not table["claims_deadlock_free"].any()


def test_the_latency_check_fails_when_the_formula_does_not_hold(monkeypatch):
    monkeypatch.setattr(validation, "ROUTING_DELAY_PS", validation.ROUTING_DELAY_PS + 1000)
    table = validation.run(["dor"], topologies=["mesh:8x8"])
    zero = table[table["case"] == "zero-load"].iloc[0]
    assert zero["status"] == "fail"
    assert "zero-load latency" in zero["failures"]


def test_the_bound_check_fails_above_the_channel_loads(monkeypatch):
    monkeypatch.setattr(validation, "BOUND_SLACK", -0.99)
    monkeypatch.setattr(validation, "BOUND_SLACK_ABS", 0.0)
    table = validation.run(["dfsssp"], topologies=["kary-ntree:k=4,n=3"])
    assert table["failures"].str.contains("above the channel-load bound").any()


def test_unknown_router_names_the_way_to_list_them():
    with pytest.raises(routelab.ConfigError, match="sim --list"):
        validation.plan(["no-such-router"])


def test_the_repeatability_check_fails_when_a_seeded_run_changes(monkeypatch):
    real = routelab.simulate
    calls = []

    def drifting(spec, overrides=None, **kw):
        r = real(spec, overrides, **kw)
        calls.append(1)
        if len(calls) % 2 == 0:
            r["flit_hops"] += 1
        return r

    monkeypatch.setattr(validation.routelab, "simulate", drifting)
    case = validation.Case("dor", "torus:8x8", "load", pattern="uniform", load=0.3)
    validation._run(case, validation._Bounds())
    assert case.status == "fail"
    assert "the same seed gave another run" in case.failures[0]
