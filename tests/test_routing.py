"""Routing engines and the deadlock check, seen from Python."""

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import routelab


def test_minimal_ring_routing_needs_two_lanes():
    ring = routelab.topology("torus:5")
    one_lane = routelab.route(ring, "minhop")
    report = routelab.deadlock(one_lane)
    assert report["deadlock_free"] is False
    assert report["cycle"]  # a concrete cycle of channels, by node and port
    layered = routelab.route(ring, "dfsssp")
    assert layered.deadlock_free
    assert layered.lanes_needed == 2


def test_updown_is_deadlock_free_on_one_lane():
    for seed in range(1, 6):
        net = routelab.topology(f"random:switches=24,ports=8,hosts=2,seed={seed}")
        r = routelab.route(net, "updown")
        assert r.deadlock_free
        assert r.lanes_used == 1


def test_nue_fits_the_lanes_given_where_dfsssp_cannot(run_cli):
    """A 3D torus: DFSSSP on one lane is refused with the lanes it needs; Nue routes
    it deadlock-free on one lane, every path checked by the CDG verifier."""
    torus = routelab.topology("torus:4x4x4")
    with pytest.raises(routelab.DeadlockError):
        routelab.route(torus, "dfsssp", max_lanes=1)
    for lanes in (1, 2, 8):
        r = routelab.route(torus, "nue", max_lanes=lanes)
        stats = r.stats()
        assert stats["deadlock_free"] and stats["lanes_used"] <= lanes
        assert stats["escape_routed"] is not None
    out = run_cli("route", "torus:5", "--engine", "nue", "--max-lanes", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["deadlock_free"] and data["lanes_used"] == 1
    assert "nue" in run_cli("route", "--list").stdout


def test_tree_routes_need_one_lane():
    net = routelab.topology("kary-ntree:k=4,n=2")
    r = routelab.route(net, "minhop")
    assert r.deadlock()["deadlock_free"]
    assert r.deadlock()["lanes_needed"] == 1


def test_engine_that_does_not_fit_raises():
    with pytest.raises(routelab.RoutingError, match="torus"):
        routelab.route(routelab.topology("kary-ntree:k=2,n=3"), "dor")
    with pytest.raises(routelab.RoutingError, match="valid engines"):
        routelab.route(routelab.topology("torus:4x4"), "teleport")


def test_too_few_lanes_says_how_many_are_needed():
    with pytest.raises(routelab.DeadlockError, match="needs"):
        routelab.route(routelab.topology("torus:4x4x4"), "dfsssp", max_lanes=1)


def test_bad_option_names_the_range():
    with pytest.raises(routelab.RoutingError, match="max_lanes"):
        routelab.route(routelab.topology("torus:4x4"), "dfsssp", max_lanes=99)


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from(["minhop", "sssp", "dfsssp"]),
    st.integers(min_value=1, max_value=50),
    st.data(),
)
def test_minimal_engines_take_shortest_paths(engine, seed, data):
    net = routelab.topology(f"random:switches=12,ports=6,hosts=2,seed={seed}")
    r = routelab.route(net, engine)
    g = net.to_networkx()
    # Hosts never forward, so distances are measured on the switch graph.
    switches = g.subgraph(net.switches)
    n = len(net.terminals)
    src = data.draw(st.integers(0, n - 1))
    dst = data.draw(st.integers(0, n - 1).filter(lambda d: d != src))
    path = r.path(src, dst, names=False)
    assert path[0] == net.terminals[src] and path[-1] == net.terminals[dst]
    a, b = path[1], path[-2]
    assert len(path) - 3 == nx.shortest_path_length(switches, a, b)
    assert r.stats()["minimal"] is True


def test_route_cli_json(run_cli):
    r = run_cli("route", "torus:4x4", "--engine", "dor", "--json")
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    for key in (
        "engine",
        "lanes_used",
        "lanes_needed",
        "deadlock_free",
        "minimal",
        "max_hops",
        "avg_hops",
        "seconds",
    ):
        assert key in stats
    assert stats["deadlock_free"] and stats["minimal"] and stats["lanes_used"] == 2
    assert stats["max_hops"] == 4


def test_deadlock_cli_reports_cycle(run_cli):
    r = run_cli("deadlock", "torus:6", "--engine", "dor", "--option", "datelines=false", "--json")
    assert r.returncode == 1, r.stderr  # the check failed: it found a cycle
    report = json.loads(r.stdout)
    assert report["deadlock_free"] is False and "port" in report["cycle"]


def test_route_cli_bad_input_exits_2(run_cli):
    r = run_cli("route", "torus:4x4x4", "--engine", "dfsssp", "--max-lanes", "1")
    assert r.returncode == 2
    assert "needs" in r.stderr


def test_route_files_round_trip_and_audit(tmp_path, run_cli):
    net = routelab.topology("torus:5")
    routes = routelab.route(net, "dfsssp")
    files = routes.save(tmp_path, paths=True)
    assert {p.split("/")[-1] for p in files} == {
        "opensm-lfts.dump",
        "lanes.txt",
        "paths.jsonl",
        "opensm-sl2vl.dump",
        "opensm-path-records.dump",
    }
    lines = (tmp_path / "paths.jsonl").read_text().splitlines()
    assert len(lines) == 5 * 4
    # The tables alone, on one lane, deadlock; with the lane table they do not.
    bare = routelab.read_lfts(net, tmp_path / "opensm-lfts.dump")
    assert not bare.deadlock_free
    laned = routelab.read_lfts(net, tmp_path / "opensm-lfts.dump", tmp_path / "lanes.txt")
    assert laned.deadlock_free
    for s in range(5):
        for d in range(5):
            if s != d:
                assert laned.path(s, d) == routes.path(s, d)
    r = run_cli(
        "deadlock",
        "torus:5",
        "--lfts",
        str(tmp_path / "opensm-lfts.dump"),
        "--lanes",
        str(tmp_path / "lanes.txt"),
        "--json",
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["deadlock_free"] is True
    # The subnet's SL-to-VL tables decide: SL i on VL i keeps it deadlock-free;
    # every SL on VL 0 (tables without QoS) shows the cycle.
    sl2vl = tmp_path / "opensm-sl2vl.dump"
    zero = tmp_path / "zero-sl2vl.dump"
    zero.write_text(
        "".join(
            line.split(":")[0] + ":" + " 0" * 16 + "\n"
            if ":" in line and not line.startswith("#")
            else line + "\n"
            for line in sl2vl.read_text().splitlines()
        )
    )
    for table, free in ((sl2vl, True), (zero, False)):
        r = run_cli(
            "deadlock",
            "torus:5",
            "--lfts",
            str(tmp_path / "opensm-lfts.dump"),
            "--lanes",
            str(tmp_path / "lanes.txt"),
            "--sl2vl",
            str(table),
            "--json",
        )
        assert r.returncode == (0 if free else 1), r.stderr
        report = json.loads(r.stdout)
        assert report["deadlock_free"] is free and report["dropped_pairs"] == 0
        assert (report["cycle"] is None) is free


def test_malformed_lft_dump_names_the_line(tmp_path):
    net = routelab.topology("torus:4")
    path = tmp_path / "bad.dump"
    path.write_text("Unicast lids [0x0-0x8] of switch Lid 1 guid 0x1 (s0):\n0x0005 nonsense\n")
    with pytest.raises(routelab.RoutingError, match=r"bad\.dump:\d"):
        routelab.read_lfts(net, path)


def test_ebb_on_a_crossbar_is_exactly_one():
    net = routelab.topology("crossbar:16")
    r = routelab.ebb(net, routelab.route(net, "minhop"), patterns=50, seed=3)
    assert r["min"] == r["max"] == r["avg"] == 1.0
    assert r["patterns"] == 50


def test_ebb_never_beats_full_bisection_and_multipath_reaches_it():
    net = routelab.topology("clos:ports=16,hosts=128")
    single = routelab.ebb(net, routelab.route(net, "dmodk"), patterns=200, seed=1)
    split = routelab.ebb(net, routelab.route(net, "multipath"), patterns=200, seed=1)
    assert 0 < single["min"] <= single["avg"] <= single["max"] <= 1.0
    assert split["min"] == 1.0  # even split over all spines: full bisection for every pattern
    assert single["avg"] < split["avg"]


def test_ebb_is_repeatable_for_a_seed():
    net = routelab.topology("random:switches=16,ports=8,hosts=4,seed=2")
    routes = routelab.route(net, "sssp")
    a = routelab.ebb(net, routes, patterns=100, seed=9)
    b = routelab.ebb(net, routes, patterns=100, seed=9)
    assert a["per_pattern"] == b["per_pattern"]


def test_channel_loads_conserve_path_length():
    net = routelab.topology("torus:4x4")
    routes = routelab.route(net, "dor")
    flows = routelab.pattern("tornado", net)
    loads = routelab.channel_loads(routes, flows)["load"]
    assert sum(loads) == pytest.approx(sum(len(routes.path(s, d)) - 1 for s, d in flows))


def test_minimal_split_loads_match_every_path_listed():
    # Counting minimal paths gives the loads of listing them all.
    net = routelab.topology("torus:4x4")
    routes = routelab.route(net, "multipath")
    flows = [(s, (3 * s + 5) % 16) for s in range(16)]
    listed = routelab.channel_loads(routes, flows)
    counted = routelab.minimal_split_loads(net, flows)
    assert list(counted["load"]) == pytest.approx(list(listed["load"]))
    with pytest.raises(routelab.RoutingError, match="0..=15"):
        routelab.minimal_split_loads(net, [(0, 99)])


def test_ebb_cli(run_cli):
    r = run_cli("ebb", "kary-ntree:k=4,n=2", "--engine", "dmodk", "--patterns", "20", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in ("avg", "min", "max", "patterns", "seconds"):
        assert key in out
    r = run_cli("ebb", "torus:4x4", "--engine", "dor", "--metric", "bogus")
    assert r.returncode == 2


def test_loads_cli_bounds_minimal_routings(run_cli):
    # Every minimal routing loads the channels with the same total (the sum
    # of the flows' distances); splitting evenly over all minimal paths
    # allows more than dimension order on a transposition.
    out = {}
    for engine in (None, "dor"):
        args = ["loads", "torus:8x8", "--pattern", "transpose", "--json"]
        r = run_cli(*args, *(["--engine", engine] if engine else []))
        assert r.returncode == 0, r.stderr
        out[engine] = json.loads(r.stdout)
    split, dor = out[None], out["dor"]
    assert split["routing"] == "even split" and dor["routing"] == "dor"
    assert split["total_load"] == pytest.approx(dor["total_load"])
    assert split["max_load"] < dor["max_load"]
    assert split["bound_gamma0"] > dor["bound_gamma0"] > 0
    net = routelab.topology("torus:8x8")
    assert dor["bound_bps"] == pytest.approx(dor["bound_gamma0"] * net.gamma0_bps())
    # Only what was asked: with an engine no max-concurrent-flow bound is
    # computed unless --bound names one.
    assert "minimal_bound_bps" in split and "minimal_bound_bps" not in dor
    args = ["loads", "torus:8x8", "--pattern", "transpose", "--engine", "dor", "--json"]
    both = json.loads(run_cli(*args, "--bound", "minimal").stdout)
    assert both["minimal_bound_gamma0"] >= dor["bound_gamma0"]
    r = run_cli("loads", "torus:4x4", "--pattern", "nonsense")
    assert r.returncode == 2 and "unknown traffic pattern" in r.stderr


def _orcs_by_hand(routes, flows):
    """The ORCS metric computed from the routes' paths alone: per directed link
    the number of flows crossing it; each flow gets 1 / the most on its path;
    the mean over flows."""
    links = []
    for s, d in flows:
        p = routes.path(s, d)
        links.append(list(zip(p[:-1], p[1:], strict=True)))
    crossing = Counter(link for path in links for link in path)
    return sum(1 / max(crossing[link] for link in path) for path in links) / len(links)


def test_ebb_of_orcs_bisections_matches_an_independent_scorer():
    # XGFT(2;32,32;1,32), D-mod-k: ORCS's one-way bisections give about 0.81,
    # the two-way exchange about 0.66; each pattern's value equals the metric
    # computed by hand from the same pairs (rebuilt from the pattern's seed).
    net = routelab.topology("xgft:m=32x32,w=1x32")
    routes = routelab.route(net, "dmodk")
    for spec, flows_per_pattern, lo, hi in (
        ("bisect:dir=one", 512, 0.78, 0.84),
        ("bisect", 1024, 0.63, 0.69),
    ):
        r = routelab.ebb(net, routes, patterns=3, pattern=spec, seed=1)
        assert lo < r["avg"] < hi, (spec, r["avg"])
        for seed, value in zip(r["pattern_seeds"], r["per_pattern"], strict=True):
            flows = [(s, d) for s, d in routelab.pattern(spec, net, seed=seed) if s != d]
            assert len(flows) == flows_per_pattern
            assert value == pytest.approx(_orcs_by_hand(routes, flows), rel=1e-12)


def test_source_routes_round_trip_and_drive_a_simulation(tmp_path) -> None:
    net = routelab.topology("random:switches=16,ports=8,hosts=4,seed=1")
    itb = routelab.route(net, "itb", seed=3)
    stats = itb.stats()
    assert stats["minimal"] and stats["deadlock_free"]
    assert 0 < stats["transit_hosts_mean"] < 1
    files = itb.save(tmp_path)
    assert str(tmp_path / "source-routes.txt") in files
    back = routelab.read_source_routes(net, tmp_path / "source-routes.txt")
    assert back.to_source_routes().splitlines()[2:] == itb.to_source_routes().splitlines()[2:]
    assert back.deadlock()["deadlock_free"]
    spec = {
        "network": {"topology": "random:switches=16,ports=8,hosts=4,seed=1"},
        "routing": {"algorithm": "itb", "seed": 3},
        "traffic": {"load": 0.05},
        "run": {"warmup_cycles": 300, "measure_cycles": 1500},
    }
    direct = routelab.simulate(spec, progress=False)
    spec["routing"]["routes_file"] = str(tmp_path / "source-routes.txt")
    from_file = routelab.simulate(spec, progress=False)
    assert from_file["transits"] == direct["transits"] > 0
    assert from_file["accepted"] == direct["accepted"]
    bad = tmp_path / "bad.txt"
    bad.write_text("# header\nh0 h1: 99\n")
    with pytest.raises(routelab.RoutingError, match=r"bad.txt:2: .*not cabled"):
        routelab.read_source_routes(net, bad)


def test_opensm_engines_on_a_tree_read_back_from_a_dump(tmp_path, run_cli):
    """ftree routes a fat tree that lost its structure in an ibnetdiscover round
    trip, from the leaves or from a root GUID file (dmodk too, the tree recognised
    from its cabling); dnup and torus-2QoS by their OpenSM names."""
    tree = routelab.topology("kary-ntree:k=4,n=3")
    dump = tmp_path / "tree.ibnet"
    tree.save(dump)
    net = routelab.load(dump)
    assert routelab.route(net, "dmodk").stats()["minimal"]
    with pytest.raises(routelab.RoutingError):
        routelab.route(net, "dor")
    r = routelab.route(net, "ftree")
    assert r.stats()["minimal"] and r.deadlock_free and r.lanes_used == 1
    tops = [n for n in net.nodes if n[0] == "switch" and n[1].startswith("s3-")]
    assert len(tops) == 16
    roots = tmp_path / "root_guids.txt"
    roots.write_text("# the top level\n" + "".join(f"0x{n[2]:016x}\n" for n in tops))
    out = run_cli("route", str(dump), "--engine", "ftree", "--roots", str(roots), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["minimal"]
    bad = run_cli("route", "torus:4x4", "--engine", "ftree")
    assert bad.returncode == 2 and "fat tree" in bad.stderr
    assert routelab.route(net, "dnup").deadlock_free
    t2q = routelab.route(routelab.topology("torus:4x4x4"), "torus-2QoS")
    assert t2q.engine == "torus-2qos" and t2q.deadlock_free and t2q.lanes_used == 2


def test_guid2lid_gives_tables_the_subnets_lids(tmp_path, run_cli):
    """OpenSM's LID cache renumbers the fabric: the LFT dump written for it uses
    the subnet's LIDs, and the same file reads the dump back for an audit."""
    small = Path(__file__).parent.parent / "examples" / "fabrics" / "small.ibnet"
    net = routelab.load(small)
    lines = []
    for line in net.to_guid2lid().splitlines():
        guid, lid, _ = line.split()
        lines.append(f"{guid} {int(lid, 0) + 100} {int(lid, 0) + 100}")
    cache = tmp_path / "guid2lid"
    cache.write_text("\n".join(lines + ["0x00000000deadbeef 9 9"]) + "\n")
    renumbered = net.with_guid2lid(cache)
    assert renumbered.skipped_guid2lid == 1
    assert sorted(n[3] for n in renumbered.nodes) == sorted(n[3] + 100 for n in net.nodes)
    out = run_cli(
        "route",
        str(small),
        "--engine",
        "minhop",
        "--guid2lid",
        str(cache),
        "-o",
        str(tmp_path / "r"),
    )
    assert out.returncode == 0, out.stderr
    dump = (tmp_path / "r" / "opensm-lfts.dump").read_text()
    assert "Lid 101 " in dump and "0x0065 " in dump
    audit = run_cli(
        "audit",
        str(small),
        "--guid2lid",
        str(cache),
        "--lfts",
        str(tmp_path / "r" / "opensm-lfts.dump"),
        "--patterns",
        "0",
        "--json",
    )
    assert audit.returncode == 0, audit.stderr
    assert json.loads(audit.stdout)["walk"]["broken_pairs"] == 0
    bad = tmp_path / "bad"
    bad.write_text("0x1 2\n")
    err = run_cli("topo", str(small), "--guid2lid", str(bad))
    assert err.returncode == 2 and "bad:1:" in err.stderr


def test_reading_a_dump_states_its_memory_before_reading(tmp_path):
    """A dump read in takes its text and the forwarding tables (2 bytes per
    switch and terminal), known from the file and the fabric beforehand."""
    net = routelab.topology("kary-ntree:k=4,n=3")
    s, t = len(net.switches), len(net.terminals)
    files = routelab.route(net, "ftree").save(tmp_path)
    dump = next(p for p in map(Path, files) if p.name == "opensm-lfts.dump")
    need = routelab.routing.lft_memory_bytes(net, dump)
    assert need == dump.stat().st_size + 2 * s * t
    assert routelab.read_lfts(net, dump).deadlock()["deadlock_free"]


def test_route_states_its_memory_before_routing_and_suggests_what_fits(run_cli):
    """The tables an engine will need are known before routing (2 bytes per
    switch and terminal, plus a lane per injecting switch and destination for
    dfsssp); a network whose tables pass memory_limit is refused with the
    size of the largest network of its proportions that fits."""
    net = routelab.topology("kary-ntree:k=4,n=3")
    s, t = len(net.switches), len(net.terminals)
    assert routelab.routing.memory_bytes(net, "ftree") == 2 * s * t
    assert routelab.routing.memory_bytes(net, "dfsssp") == 3 * s * t
    r = run_cli("route", "kary-ntree:k=4,n=3", "--engine", "ftree", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["memory_bytes"] == 2 * s * t
    # Tables 4x the limit: half the terminals fit.
    limit = 2 * s * t
    r = run_cli(
        "route",
        "kary-ntree:k=4,n=3",
        "--engine",
        "ftree",
        "--option",
        f"memory_limit={limit // 4}B",
    )
    assert r.returncode == 2
    assert f"about {t // 2} terminals fit" in r.stderr, r.stderr
