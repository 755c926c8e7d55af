"""HyperX routing (dimension order, Valiant, UGAL) on a 4 x 4 x 4 HyperX
with four terminals per switch, under uniform traffic and its adversarial
neighbour shift: the bounds each router must obey, and UGAL as good as the
better of the other two."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import routelab

pytestmark = pytest.mark.slow(30)  # seconds on one core; see conftest.py

SIDES, T, P = (4, 4, 4), 1, 4
TOPOLOGY = f"hyperx:S={'x'.join(map(str, SIDES))},t={T},p={P}"
#: Hop classes (VCs per port) each router needs.
CLASSES = {"hx-dor": 1, "hx-val": 2, "hx-ugal": 2, "hx-dal": 2}


def spec(router: str, pattern: str, load: float = 1.0, topology: str = TOPOLOGY) -> dict:
    """Cut-through, 4-flit packets, two VCs per class."""
    return {
        "network": {"topology": topology},
        "routing": {"algorithm": router},
        "router": {"switching": "cut-through", "vcs": 2 * CLASSES[router]},
        "traffic": {"pattern": pattern, "load": load, "packet_flits": 4},
        "run": {"warmup_cycles": 2000, "measure_cycles": 4000, "drain_cycles": 0},
    }


@pytest.fixture(scope="module")
def saturated() -> dict[tuple[str, str], routelab.SimResult]:
    """Accepted throughput at full offered load under uniform traffic and
    the neighbour shift (every switch to the one +1 in each coordinate)."""
    cases = [(r, p) for r in CLASSES for p in ("uniform", "neighbor")]
    with ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda c: routelab.simulate(spec(*c), progress=False), cases)
        return dict(zip(cases, runs, strict=True))


@pytest.fixture(scope="module")
def seed_means(saturated) -> dict[tuple[str, str], float]:
    """Accepted throughput of DOR, Valiant and UGAL at full load, the mean
    over three seeds (the fixture's and two more): at saturation under the
    shift one seed's Valiant moves by up to 15% (0.32-0.37), UGAL's by under
    1%, so one seed cannot tell 10% apart."""
    routers, patterns, seeds = ("hx-dor", "hx-val", "hx-ugal"), ("uniform", "neighbor"), (2, 3)

    def accepted(case: tuple[str, str, int]) -> float:
        doc = spec(case[0], case[1])
        doc["run"]["seed"] = case[2]
        return routelab.simulate(doc, progress=False).accepted

    cases = [(r, p, s) for r in routers for p in patterns for s in seeds]
    with ThreadPoolExecutor(2) as pool:
        more = dict(zip(cases, pool.map(accepted, cases), strict=True))
    return {
        (r, p): (saturated[r, p].accepted + sum(more[r, p, s] for s in seeds)) / (1 + len(seeds))
        for r in routers
        for p in patterns
    }


def test_dimension_order_under_the_shift_is_held_to_one_cable_bundle(saturated) -> None:
    # A switch's p terminals all leave on its t cables towards the next
    # switch of dimension 0: at most t / p per terminal, and DOR fills it.
    accepted = saturated["hx-dor", "neighbor"].accepted
    assert 0.9 * T / P <= accepted <= T / P + 0.005, accepted


def test_ugal_is_within_ten_percent_of_the_better_of_dor_and_valiant(saturated, seed_means) -> None:
    for pattern in ("uniform", "neighbor"):
        best = max(seed_means[r, pattern] for r in ("hx-dor", "hx-val"))
        assert seed_means["hx-ugal", pattern] >= 0.9 * best, (pattern, seed_means)
    # DAL, minimal adaptive over every dimension, beats dimension order under
    # uniform traffic; under the shift it deroutes, and carries more than
    # dimension order's bound.
    dal = {p: saturated["hx-dal", p].accepted for p in ("uniform", "neighbor")}
    assert dal["uniform"] >= 1.1 * saturated["hx-dor", "uniform"].accepted, dal
    assert dal["neighbor"] > T / P + 0.005, dal
    assert saturated["hx-dal", "neighbor"].counters["deroutes"] > 0
    # Valiant beats dimension order under the shift, not under uniform traffic.
    assert saturated["hx-val", "neighbor"].accepted > saturated["hx-dor", "neighbor"].accepted
    assert saturated["hx-val", "uniform"].accepted < saturated["hx-dor", "uniform"].accepted


@pytest.mark.parametrize("router", CLASSES)
def test_wormhole_past_saturation_never_deadlocks_and_routes_stay_short(router) -> None:
    # Trunked, wormhole, 16-flit packets in 8-flit buffers, the VCs each
    # router needs and no more; then every packet of a light load arrives
    # by at most one hop per dimension per phase.
    doc = spec(router, "uniform", topology="hyperx:S=4x3x3,t=2,p=2")
    doc["router"] = {"switching": "wormhole", "buffer_flits": 8, "vcs": CLASSES[router]}
    doc["traffic"]["packet_flits"] = 16
    doc["run"].update(drain_cycles=20000, measure_cycles=3000)
    assert routelab.simulate(doc, progress=False).packets_delivered > 0
    doc["traffic"]["load"] = 0.05
    r = routelab.simulate(doc, progress=False)
    assert r.drained and r.accepted >= 0.9 * r.offered
    # At most one hop per dimension and phase (DAL: one deroute and one
    # hop to the coordinate per dimension).
    phases = 1 if router == "hx-dor" else 2
    assert r.max_hops <= 3 * phases + 2  # plus injection and ejection
