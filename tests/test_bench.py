"""``routelab bench``: the dragonfly's cost against the standard torus."""

from __future__ import annotations

import pytest

from routelab import bench

SHORT = {"run.warmup_cycles": 200, "run.measure_cycles": 600}


def test_torus_and_dragonfly_run_the_configurations_they_name():
    torus, dragonfly = bench._torus_and_dragonfly(1, SHORT)
    assert "torus:8x8x8" in torus["name"] and "df-ugal-l" in dragonfly["name"]
    assert (torus["terminals"], dragonfly["terminals"]) == (512, 1056)
    # Below saturation each network delivers what it is offered.
    assert torus["accepted"] == pytest.approx(0.3, rel=0.05)
    assert dragonfly["accepted"] == pytest.approx(0.5, rel=0.05)
    # Like for like: the same router, links and windows (1 ns cycles).
    assert torus["simulated_us"] == dragonfly["simulated_us"] >= 0.8


def test_the_rounds_alternate_and_the_ratio_is_of_medians(monkeypatch):
    # Scripted rates whose medians differ from their means and first values.
    rates = {"torus": iter([1.0, 5.0, 2.0]), "dragonfly": iter([1.0, 1.0, 9.0])}
    order = []

    def fake_sim(name, text, overrides=None):
        kind = "dragonfly" if "df-ugal-l" in name else "torus"
        order.append(kind)
        assert (overrides or {}).get("routing.algorithm") == (
            "df-ugal-l" if kind == "dragonfly" else None
        )
        rate = next(rates[kind])
        return {"name": name, "flit_hops_per_second": rate, "wall_seconds": 1 / rate,
                "simulated_us_per_wall_second": rate}  # fmt: skip

    monkeypatch.setattr(bench, "_sim", fake_sim)
    torus, dragonfly = bench._torus_and_dragonfly(3, SHORT)
    assert order == ["torus", "dragonfly"] * 3
    assert torus["flit_hops_per_second"] == 2.0 and dragonfly["flit_hops_per_second"] == 1.0
    assert torus["flit_hops_per_second_range"] == [1.0, 5.0]
    assert dragonfly["flit_hops_per_second_range"] == [1.0, 9.0]
    assert torus["wall_seconds"] == 0.5 and torus["runs"] == dragonfly["runs"] == 3
    assert dragonfly["against_torus"] == 0.5 and "against_torus" not in torus
    assert dragonfly["target"] == bench.DRAGONFLY_TARGET == 0.5
