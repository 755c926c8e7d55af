"""Dragonfly routing under the benign and adversarial traffic of dragonfly
studies, on the balanced 1,056-terminal dragonfly (a = 8, p = h = 4) of the
literature: the bounds each router must obey, and UGAL-G as good as the
better of MIN and Valiant."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import routelab

pytestmark = pytest.mark.slow(60)  # seconds on one core; see conftest.py

A, P, H = 8, 4, 4
TOPOLOGY = f"dragonfly:a={A},p={P},h={H}"
ROUTERS = ("df-min", "df-val", "df-ugal-l", "df-ugal-g", "df-par")
#: Switch-to-switch hops of each router's longest route (a packet also
#: crosses its injection and ejection channels).
LONGEST = {"df-min": 3, "df-val": 5, "df-ugal-l": 5, "df-ugal-g": 5, "df-par": 6}
#: Hop classes (VCs per port) each router needs.
CLASSES = {"df-min": 2, "df-val": 3, "df-ugal-l": 3, "df-ugal-g": 3, "df-par": 4}
#: A finite window also delivers what was queued before it.
SLACK = 0.02


def spec(
    router: str,
    pattern: str,
    load: float = 1.0,
    topology: str = TOPOLOGY,
    lanes: int = 1,
    **run,
) -> dict:
    """Cut-through, 4-flit packets, ``lanes`` VCs per hop class."""
    return {
        "network": {"topology": topology},
        "routing": {"algorithm": router},
        "router": {"switching": "cut-through", "vcs": lanes * CLASSES.get(router, 0)},
        "traffic": {"pattern": pattern, "load": load, "packet_flits": 4},
        "run": {"warmup_cycles": 2000, "measure_cycles": 4000, "drain_cycles": 0, **run},
    }


@pytest.fixture(scope="module")
def saturated() -> dict[tuple[str, str], routelab.SimResult]:
    """Accepted throughput at full offered load: MIN, Valiant and UGAL-G
    under uniform traffic and the worst case (every group to the next),
    each with two VCs per hop class (with one, a head waiting for a
    congested global link blocks the packets behind it that go elsewhere,
    which costs the adaptive routers most)."""
    cases = [(r, p) for r in ("df-min", "df-val", "df-ugal-g") for p in ("uniform", "group-shift")]
    with ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda c: routelab.simulate(spec(*c, lanes=2), progress=False), cases)
        return dict(zip(cases, runs, strict=True))


def share_minimal(r: routelab.SimResult) -> float:
    c = r["counters"]
    return c["minimal"] / (c["minimal"] + c["nonminimal"])


def test_min_under_the_worst_case_is_held_to_the_one_global_link(saturated) -> None:
    # The a*p terminals of a group share the one global link to the next
    # group: at most 1/(a p) flits per terminal and cycle, and MIN fills it.
    bound = 1 / (A * P)
    accepted = saturated["df-min", "group-shift"].accepted
    assert 0.8 * bound <= accepted <= bound + SLACK / 10, accepted


def test_valiant_carries_at_most_half_under_any_pattern(saturated) -> None:
    # Every packet between groups crosses two global links, and a group has
    # a*h of them for a*p terminals: at most h / (2p) = 1/2 per terminal of
    # traffic between groups (uniform traffic keeps a share of it within
    # the source's group, where no global link is crossed).
    terminals = A * P * (A * H + 1)
    between = {"uniform": (terminals - A * P) / (terminals - 1), "group-shift": 1.0}
    for pattern in ("uniform", "group-shift"):
        r = saturated["df-val", pattern]
        assert r.accepted <= H / (2 * P) / between[pattern] + SLACK, (pattern, r.accepted)
        assert share_minimal(r) < 0.05  # only traffic within a group
    # Under the worst case Valiant carries over ten times what MIN does.
    assert saturated["df-val", "group-shift"].accepted > 10 * 1 / (A * P)


def test_ugal_g_is_within_ten_percent_of_the_better_of_min_and_valiant(saturated) -> None:
    for pattern in ("uniform", "group-shift"):
        best = max(saturated[r, pattern].accepted for r in ("df-min", "df-val"))
        ugal = saturated["df-ugal-g", pattern].accepted
        assert ugal >= 0.9 * best, (pattern, ugal, best)
    # It goes minimally under uniform traffic and through a third group
    # under the worst case, where only 1/(a p) per terminal fits minimally.
    assert share_minimal(saturated["df-ugal-g", "uniform"]) > 0.7
    assert share_minimal(saturated["df-ugal-g", "group-shift"]) < 0.15


@pytest.mark.parametrize("router", ROUTERS)
def test_no_router_deadlocks_past_saturation_with_long_wormhole_packets(router) -> None:
    # Wormhole, 16-flit packets in 8-flit buffers (a packet spans three
    # switches), the VCs each router needs and no more, at twice what
    # the worst case sustains: the hop classes keep every run moving.
    doc = spec(router, "group-shift", topology="dragonfly:a=4,p=2,h=2")
    doc["router"] = {"switching": "wormhole", "buffer_flits": 8, "vcs": CLASSES[router]}
    doc["traffic"]["packet_flits"] = 16
    doc["run"].update(drain_cycles=20000, measure_cycles=3000)
    r = routelab.simulate(doc, progress=False)
    assert r.packets_delivered > 0
    # Then at low load every packet arrives, by no more than its longest route.
    doc["traffic"].update(load=0.05, pattern="uniform")
    r = routelab.simulate(doc, progress=False)
    assert r.drained and r.accepted >= 0.9 * r.offered
    # Channels crossed: the switch hops plus injection and ejection.
    assert r.max_hops <= LONGEST[router] + 2


@settings(max_examples=8, deadline=None)
@given(
    router=st.sampled_from(ROUTERS),
    a=st.integers(2, 5),
    h=st.integers(1, 3),
    p=st.integers(1, 3),
    seed=st.integers(1, 1000),
)
def test_any_dragonfly_delivers_every_packet_by_a_route_within_its_class_bound(
    router, a, h, p, seed
) -> None:
    doc = spec(router, "uniform", load=0.1, topology=f"dragonfly:a={a},p={p},h={h}", seed=seed)
    doc["run"].update(warmup_cycles=300, measure_cycles=1000, drain_cycles=5000)
    r = routelab.simulate(doc, progress=False)
    assert r.drained and r.packets_generated == r.packets_delivered + r.packets_in_flight
    assert r.avg_hops >= 2 and r.max_hops <= LONGEST[router] + 2


def test_a_seeded_adaptive_run_repeats_bit_for_bit() -> None:
    doc = spec("df-par", "uniform", load=0.5, topology="dragonfly:a=4,p=2,h=2")
    a, b = (routelab.simulate(doc, progress=False) for _ in range(2))
    assert (a.flit_hops, a.latency_mean, a["counters"]) == (
        b.flit_hops,
        b.latency_mean,
        b["counters"],
    )


def test_a_dragonfly_router_on_another_network_says_what_it_needs() -> None:
    with pytest.raises(routelab.RoutelabError, match="df-ugal-l.*dragonfly"):
        routelab.simulate(spec("df-ugal-l", "uniform", topology="torus:4x4"), progress=False)
    with pytest.raises(routelab.RoutelabError, match="group-shift.*dragonfly"):
        routelab.simulate(spec("dor", "group-shift", topology="torus:4x4"), progress=False)
