"""``routelab bench``: the dragonfly's cost against the standard torus."""

from __future__ import annotations

import pytest

from routelab import bench

SHORT = {"run.warmup_cycles": 200, "run.measure_cycles": 600}


@pytest.fixture(scope="module")
def rows():
    return bench._torus_and_dragonfly(3, SHORT)


def test_torus_and_dragonfly_run_the_configurations_they_name(rows):
    torus, dragonfly = rows
    assert "torus:8x8x8" in torus["name"] and "df-ugal-l" in dragonfly["name"]
    # Below saturation each network delivers what it is offered.
    assert torus["accepted"] == pytest.approx(0.3, rel=0.05)
    assert dragonfly["accepted"] == pytest.approx(0.5, rel=0.05)
    # Like for like: the same router, links and windows (1 ns cycles).
    assert torus["simulated_us"] == dragonfly["simulated_us"] >= 0.8


def test_the_dragonflys_rate_is_given_against_the_torus_from_medians(rows):
    torus, dragonfly = rows
    for row in rows:
        low, high = row["flit_hops_per_second_range"]
        assert row["runs"] == 3
        assert 0 < low <= row["flit_hops_per_second"] <= high
    ratio = dragonfly["flit_hops_per_second"] / torus["flit_hops_per_second"]
    assert dragonfly["against_torus"] == pytest.approx(ratio)
    assert dragonfly["bound"] == bench.DRAGONFLY_BOUND == 0.5
    assert "against_torus" not in torus
