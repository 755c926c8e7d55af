"""The Python API as a notebook uses it: load-latency sweeps as tidy tables,
channel loads keyed by cable and direction, paths in the index space they
take, networkx errors that name the attribute, progress only when watched."""

import time

import networkx as nx
import pandas as pd
import pytest

import routelab
from routelab import progress

SPEC = {
    # one 16-byte flit per ns, 1 ns links: buffers cover the credit round trip
    "network": {"topology": "torus:4x4", "links": {"bandwidth": "128Gb/s", "latency": "1ns"}},
    "routing": {"algorithm": "dor"},
    "traffic": {"pattern": "uniform", "packet_flits": 1},
    "run": {"warmup_cycles": 300, "measure_cycles": 1500},
}


def test_load_latency_is_one_tidy_row_per_run():
    df = routelab.load_latency(
        SPEC,
        [0.1, 0.3, 1.2],
        vary={"routing.algorithm": ["dor", "duato"]},
        seeds=[1, 2],
        progress=False,
    )
    assert isinstance(df, pd.DataFrame) and len(df) == 2 * 2 * 3
    assert list(df.columns[:3]) == ["routing.algorithm", "load", "seed"]
    assert {"offered", "accepted", "latency_mean", "latency_p99", "sustained"} <= set(df.columns)
    assert not df.duplicated(["routing.algorithm", "load", "seed"]).any()
    # flits/node/cycle: what is accepted never exceeds what is offered (plus what drains)
    low = df[df["load"] <= 0.3]
    assert (low["accepted"] <= low["offered"] * 1.05).all()
    assert low["sustained"].all()
    # 1.2 flits/node/cycle is more than an injection channel carries
    assert not df[df["load"] == 1.2]["sustained"].any()
    # latency grows with load for every router and seed
    for _, run in df.groupby(["routing.algorithm", "seed"]):
        assert run.sort_values("load")["latency_mean"].is_monotonic_increasing
    # the same seed gives the same numbers (seeded, deterministic)
    again = routelab.load_latency(SPEC, [0.3], seeds=[1], progress=False)
    first = df[(df["routing.algorithm"] == "dor") & (df["load"] == 0.3) & (df["seed"] == 1)]
    assert again["latency_mean"].iloc[0] == first["latency_mean"].iloc[0]


def test_load_latency_checks_the_spec_before_running():
    with pytest.raises(routelab.ConfigError, match="bogus"):
        routelab.load_latency({**SPEC, "traffic": {"bogus": 1}}, [0.1], progress=False)
    with pytest.raises(routelab.ConfigError, match="at least one load"):
        routelab.load_latency(SPEC, [], progress=False)


def test_channel_loads_are_keyed_by_cable_direction_and_endpoints():
    net = routelab.topology("torus:4x4")
    routes = routelab.route(net, "dor")
    flows = [(s, d) for s, d in routelab.pattern("transpose", net) if s != d]
    loads = routelab.channel_loads(routes, flows)
    assert list(loads.index) == list(range(2 * len(net.cables)))
    assert loads.index.name == "channel"
    for channel, row in loads.sample(10, random_state=1).iterrows():
        a, pa, b, pb, cls = net.cables[row["cable"]]
        ends = ((a, pa), (b, pb)) if row["direction"] == "forward" else ((b, pb), (a, pa))
        assert ((row["src"], row["src_port"]), (row["dst"], row["dst_port"])) == ends
        assert channel == 2 * row["cable"] + (row["direction"] == "reverse")
        assert row["src_name"] == net.nodes[row["src"]][1] and row["class"] == cls
    # each flow puts one unit on every channel of its path
    hops = sum(len(routes.path(s, d)) - 1 for s, d in flows)
    assert loads["load"].sum() == pytest.approx(hops)
    # the bound takes the table as it takes a list
    assert routelab.throughput_bound(net, flows, loads) == routelab.throughput_bound(
        net, flows, list(loads["load"])
    )
    split = routelab.minimal_split_loads(net, flows)
    assert split["load"].sum() == pytest.approx(hops)  # dor is minimal: same total


def test_paths_take_terminals_and_give_names_or_ids():
    net = routelab.topology("torus:4x4")
    routes = routelab.route(net, "dor")
    names = [net.nodes[t][1] for t in net.terminals]
    path = routes.path(0, 5)
    assert path[0] == names[0] and path[-1] == names[5]
    assert routes.path(names[0], names[5]) == path  # terminals by name, too
    ids = routes.path(0, 5, names=False)
    assert ids[0] == net.terminals[0] and ids[-1] == net.terminals[5]
    assert [net.nodes[i][1] for i in ids] == path
    with pytest.raises(routelab.RoutingError, match="terminal"):
        routes.path(0, 99)
    with pytest.raises(routelab.RoutingError, match="no terminal named 'nope'"):
        routes.path("nope", 1)


def first_edge(g):
    return next(iter(g.edges(keys=True)))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda g: g.nodes[0].update(kind="router"), r"node 0: attribute 'kind' is 'router'"),
        (lambda g: g.nodes[1].update(lid="x"), r"node 1: attribute 'lid' is 'x', not an integer"),
        (lambda g: g.edges[first_edge(g)].update(ends=(0, 1)), r"edge \S+: attribute 'ends' is"),
        (lambda g: g.edges[first_edge(g)].pop("ends"), r"edge \S+ has no attribute 'ends'"),
        (
            lambda g: g.edges[first_edge(g)].update(cls="fast"),
            r"edge \S+: attribute 'cls' is 'fast'.*defined: switch, terminal",
        ),
        (lambda g: g.graph.update(classes=[("a", 1)]), r"graph attribute 'classes' has"),
    ],
)
def test_from_networkx_names_the_attribute_that_is_wrong(change, message):
    g = routelab.topology("torus:3x3").to_networkx()
    assert routelab.from_networkx(g) == routelab.topology("torus:3x3")  # unchanged: round trip
    change(g)
    with pytest.raises(routelab.TopologyError, match=message):
        routelab.from_networkx(g)


def test_from_networkx_of_a_plain_graph():
    g = nx.cycle_graph(5)
    for i in range(5):
        g.add_node(f"h{i}", kind="terminal")
        g.add_edge(i, f"h{i}")
    net = routelab.from_networkx(g)
    assert len(net.switches) == 5 and len(net.terminals) == 5


def test_progress_shows_only_when_watched_and_long(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.2)
    monkeypatch.delenv("ROUTELAB_PROGRESS", raising=False)
    assert not progress.watched()  # pytest captures stderr: not a terminal
    with progress.Progress("quiet", total=2) as bar:
        time.sleep(0.5)
        bar.advance(2)
    assert not bar.shown
    monkeypatch.setenv("ROUTELAB_PROGRESS", "1")
    assert progress.watched()
    with progress.Progress("quick", total=1) as bar:
        bar.advance()
    assert not bar.shown  # done before the delay
    with progress.Progress("long", total=3) as bar:
        deadline = time.monotonic() + 10
        while not bar.shown and time.monotonic() < deadline:  # the machine may be busy
            time.sleep(0.05)
        bar.advance(3)
    assert bar.shown and bar.done == 3
    monkeypatch.setenv("ROUTELAB_PROGRESS", "0")
    with progress.Progress("off", total=1, show=None) as bar:
        time.sleep(0.5)
    assert not bar.shown
