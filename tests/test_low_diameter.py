"""Slim Fly and Megafly: the generators' graph facts, dumps recognised as
the family, and the routers (distance-based MIN/VAL/UGAL on any network,
the Megafly's MIN/VAL/UGAL-L/UGAL-G/PAR) against the bounds their
adversarial patterns set."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import routelab

pytestmark = pytest.mark.slow(35)  # seconds on one core; see conftest.py

SLIMFLY = "slimfly:q=5"  # 50 routers of 7 links, 4 terminals each
MEGAFLY = "megafly:a=4,p=4,h=4"  # 17 groups of 4 leaves and 4 spines, 272 terminals
#: VC classes each router needs on these networks.
CLASSES = {
    "dist-min": 2,
    "dist-val": 4,
    "dist-ugal": 4,
    "mf-min": 2,
    "mf-val": 3,
    "mf-ugal-l": 3,
    "mf-ugal-g": 3,
    "mf-par": 3,
}


def spec(topology: str, router: str, pattern: str, load: float = 1.0) -> dict:
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
    """Accepted throughput at full offered load: the Slim Fly under uniform
    traffic and `bridge` (neighbouring routers exchange), the Megafly under
    uniform traffic and `group-shift` (every group to the next)."""
    cases = [
        (SLIMFLY, r, p)
        for r in ("dist-min", "dist-val", "dist-ugal")
        for p in ("uniform", "bridge")
    ]
    cases += [
        (MEGAFLY, r, p)
        for r in ("mf-min", "mf-val", "mf-ugal-l", "mf-ugal-g", "mf-par")
        for p in ("uniform", "group-shift")
    ]
    with ThreadPoolExecutor(2) as pool:
        runs = pool.map(lambda c: routelab.simulate(spec(*c), progress=False), cases)
        return {(r, p): run for (_, r, p), run in zip(cases, runs, strict=True)}


def test_slim_fly_has_the_mms_shape() -> None:
    s = routelab.topology(SLIMFLY).summary()
    assert (s["family"], s["switches"], s["terminals"]) == ("slimfly", 50, 200)
    assert s["diameter"] == 2 and s["switch_links"] == {"min": 7, "max": 7, "mean": 7.0}
    # q = 4 (a power of two) and q = 7 (q = 3 mod 4) too.
    for q, links in ((4, 6), (7, 11)):
        s = routelab.topology(f"slimfly:q={q},p=1").summary()
        assert s["diameter"] == 2 and s["switch_links"]["min"] == links == s["switch_links"]["max"]
    with pytest.raises(routelab.TopologyError, match="prime power"):
        routelab.topology("slimfly:q=6")


@pytest.mark.parametrize(
    "topology",
    [
        "slimfly:q=5,p=2",
        "megafly:a=3,p=2,h=3",
        "dragonfly:a=4,p=2,h=2,arrangement=circulant",
        "megafly:a=2,p=2,h=2,arrangement=relative",
    ],
)
def test_a_dump_is_recognised_as_its_family(tmp_path, topology) -> None:
    # Every fabric format that reads back: routelab's JSON keeps the
    # structure; the InfiniBand dumps lose it and it is recognised.
    net = routelab.topology(topology)
    json_file = tmp_path / "fabric.json"
    net.save(json_file)
    assert routelab.load(json_file).family == topology.split(":")[0]
    for ext in ("ibnet", "ports", "lst", "net"):
        dump = tmp_path / f"fabric.{ext}"
        net.save(dump)
        back = routelab.load(dump)
        assert back.family == "irregular"
        # In another switch order the search may give up on a group's
        # interchangeable switches: the groups are then laid out as cabled.
        found = back.summary()["recognised"]
        family = topology.split(":")[0]
        assert found == topology or (found.startswith(family) and "as cabled" in found), ext


def test_a_megafly_dump_routes_with_the_megafly_routers(tmp_path) -> None:
    # The routers need the structure: the dump is recognised and simulated
    # renumbered, and runs as the generated network does, bit for bit.
    dump = tmp_path / "megafly.ibnet"
    routelab.topology("megafly:a=3,p=2,h=2").save(dump)
    doc = spec(str(dump), "mf-par", "group-shift", load=0.3)
    doc["run"].update(warmup_cycles=500, measure_cycles=1000)
    from_dump = routelab.simulate(doc, progress=False)
    doc["network"]["topology"] = "megafly:a=3,p=2,h=2"
    generated = routelab.simulate(doc, progress=False)
    assert from_dump.packets_delivered > 0
    assert from_dump.accepted == generated.accepted
    assert from_dump.counters == generated.counters


def test_minimal_routing_is_held_to_its_adversarial_bound(saturated) -> None:
    # Megafly group-shift: a group's a*p terminals share the one global link
    # to the next group, 1/(a p) = 1/16 each.
    assert saturated["mf-min", "group-shift"].accepted <= 1 / 16 + 0.003
    # Slim Fly bridge: routers 2i and 2i+1 are neighbours (differ by 1 in y,
    # and 1 is in X) or two hops apart; a neighbour pair's p = 4 terminals
    # share one link, at most 1/4 each.
    assert saturated["dist-min", "bridge"].accepted <= 0.25 + 0.003


def test_valiant_never_exceeds_half_and_is_pattern_blind(saturated) -> None:
    for router, patterns in (
        ("dist-val", ("uniform", "bridge")),
        ("mf-val", ("uniform", "group-shift")),
    ):
        got = [saturated[router, p].accepted for p in patterns]
        assert all(g <= 0.5 for g in got), got
        assert min(got) >= 0.85 * max(got), got


def test_adaptive_routers_follow_the_better_path(saturated) -> None:
    # Under uniform traffic UGAL and PAR stay minimal: within 5% of MIN.
    for ugal, base in (
        ("dist-ugal", "dist-min"),
        *((r, "mf-min") for r in ("mf-ugal-l", "mf-ugal-g", "mf-par")),
    ):
        assert saturated[ugal, "uniform"].accepted >= 0.95 * saturated[base, "uniform"].accepted, (
            ugal
        )
    # Under the adversarial pattern they deroute: well above MIN. PAR,
    # judging again at the gateway, is within 10% of Valiant; UGAL decides
    # at the source leaf once and stays within 15%.
    bridge = saturated["dist-min", "bridge"].accepted
    assert saturated["dist-ugal", "bridge"].accepted >= 1.5 * bridge
    val = saturated["mf-val", "group-shift"].accepted
    assert saturated["mf-par", "group-shift"].accepted >= 0.9 * val
    for r in ("mf-ugal-l", "mf-ugal-g"):
        assert saturated[r, "group-shift"].accepted >= 0.8 * val, r
    assert saturated["mf-par", "group-shift"].counters["par_reroutes"] > 0


@pytest.mark.parametrize("router", ["dist-ugal", "mf-par", "mf-val"])
def test_wormhole_past_saturation_never_deadlocks_and_routes_stay_short(router) -> None:
    # Wormhole, 16-flit packets in 8-flit buffers, the VCs each router
    # needs and no more; then every packet of a light load arrives within
    # the router's longest route.
    topology = "slimfly:q=4,p=2" if router.startswith("dist") else "megafly:a=3,p=2,h=2"
    doc = spec(topology, router, "uniform")
    doc["router"] = {"switching": "wormhole", "buffer_flits": 8, "vcs": CLASSES[router]}
    doc["traffic"]["packet_flits"] = 16
    doc["run"].update(drain_cycles=20000, measure_cycles=3000)
    assert routelab.simulate(doc, progress=False).packets_delivered > 0
    doc["traffic"]["load"] = 0.05
    r = routelab.simulate(doc, progress=False)
    assert r.drained and r.accepted >= 0.9 * r.offered
    longest = 4 if router == "dist-ugal" else 6  # switch hops
    assert r.max_hops <= longest + 2  # plus injection and ejection


@pytest.mark.parametrize(
    ("engine", "topology"),
    [
        ("df-min", "dragonfly:a=4,p=2,h=2"),
        ("dist-min", "slimfly:q=5,p=2"),
        ("hx-dor", "hyperx:S=4x4,t=1,p=2"),
    ],
)
def test_minimal_routers_as_tables_feed_ebb_the_deadlock_check_and_opensm(
    tmp_path, engine, topology
) -> None:
    # The router walked into forwarding tables, its hop classes into
    # SL-to-VL tables: deadlock-free as a subnet holds them, written as
    # OpenSM's files, and read by the flow layer.
    net = routelab.topology(topology)
    r = routelab.route(net, engine)
    assert r.deadlock_free and r.lanes_used <= 2
    assert r.stats()["minimal"] == (engine != "df-min")
    written = [p.rsplit("/", 1)[-1] for p in r.save(tmp_path)]
    assert "opensm-lfts.dump" in written
    if r.lanes_used > 1:
        assert "opensm-sl2vl.dump" in written
    e = routelab.ebb(net, r, patterns=50)
    assert 0 < e["min"] <= e["avg"] <= e["max"] <= 1


def test_a_dragonfly_dump_in_any_order_routes_with_the_dragonfly_routers(tmp_path) -> None:
    # The 1,056-terminal dragonfly as `ibnetdiscover -p` lists it: its groups
    # are found from the cabling, and MIN under group-shift is still held to
    # the one global link between two groups, 1/(a p) = 1/32 per terminal.
    dump = tmp_path / "dragonfly.ports"
    routelab.topology("dragonfly:a=8,p=4,h=4").save(dump)
    assert "dragonfly" in routelab.load(dump).summary()["recognised"]
    doc = {
        "network": {"topology": str(dump)},
        "routing": {"algorithm": "df-min"},
        "router": {"switching": "cut-through", "vcs": 4},
        "traffic": {"pattern": "group-shift", "load": 0.2, "packet_flits": 4},
        "run": {"warmup_cycles": 1000, "measure_cycles": 2000, "drain_cycles": 0},
    }
    r = routelab.simulate(doc, progress=False)
    assert 0.9 / 32 <= r.accepted <= 1 / 32 + 0.003
