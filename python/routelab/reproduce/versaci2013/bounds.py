"""Table 2's bounds beside gamma*: what one even split over minimal paths sustains, what no
minimal routing can exceed (a maximum concurrent flow, certified by LP duality), and the loads up
to which butterfly's k/2 stage fits its period. The topologies here have one link class, so the
bounds count the links between routers only and check that the node links (64 Gb/s against 20,
Table 1) stay below theirs."""

from __future__ import annotations

import functools

import routelab
from routelab.reproduce.versaci2013.paper import NODE_LINK_BPS, ROUTER_LINK_BPS, topology


@functools.cache
def stage_capacity(k: int, ways: int) -> float:
    """The load up to which butterfly's k/2 stage fits its period, its k/2 messages per period
    on the ring's ``ways`` directions (0.25 one way, 0.5 both ways on k x k x k); gamma0 with
    Table 1's links between routers (the bisection scales with their bandwidth). Both ways' capacity
    bounds, for every routing, the load at which the stage fits its period: a route of the
    stage crosses k/2 links of its dimension however it goes."""
    net = routelab.topology(f"torus:{k}x{k}x{k}")
    built = {name: bw for name, bw, _ in net.classes}["switch"]
    gamma0 = (net.gamma0_bps() or 0.0) * ROUTER_LINK_BPS / built
    return ways * ROUTER_LINK_BPS / (k / 2 * gamma0)


def _bound_flows(pattern: str, k: int) -> tuple[routelab.Network, list[tuple[int, int]], int]:
    """The network, the flows of ``pattern`` and the flows per source (equal shares of its rate)."""
    net = routelab.topology(topology(pattern, k))
    t = len(net.terminals)
    if pattern == "butterfly":
        # Each source's messages flip each of its n index bits in turn.
        n = t.bit_length() - 1
        return net, [(s, s ^ (1 << b)) for s in range(t) for b in range(n)], n
    return net, [(s, d) for s, d in routelab.pattern(pattern, net) if s != d], 1


def even_split(pattern: str, k: int) -> float:
    """The gamma* of one minimal routing, every flow split evenly over its minimal paths (when
    its busiest link between routers saturates). Not a bound: uneven minimal routers can reach
    `routing_bound`. Uniform: 1."""
    if pattern == "uniform":
        return 1.0
    net, flows, n = _bound_flows(pattern, k)
    loads = routelab.minimal_split_loads(net, flows)["load"].tolist()
    switches = set(net.switches)
    for i, (a, _, b, _, _) in enumerate(net.cables):
        if a not in switches or b not in switches:
            loads[2 * i] = loads[2 * i + 1] = 0.0
    return n * routelab.throughput_bound(net, flows, loads)["bound_gamma0"]


# Most phases of the bound's multiplicative weights (it stops at a 1% gap): 3D transposition on
# 16x16x16 (a minute) is still a few percent away here; the bound is certified either way.
BOUND_PHASES = 400


def routing_bound(pattern: str, k: int, paths: str = "minimal") -> tuple[float, float]:
    """``(bound, reached)``: the gamma* no routing over ``paths`` (``"minimal"`` or ``"any"``)
    can exceed, and one a routing over them reaches (`routelab.max_concurrent_flow`'s certified
    bound and rate). Uniform gives 1: the even split reaches the bisection bound."""
    if pattern == "uniform":
        return 1.0, 1.0
    net, flows, n = _bound_flows(pattern, k)
    r = routelab.max_concurrent_flow(
        net, flows, paths=paths, max_phases=BOUND_PHASES, terminal_links=False
    )
    per_node = n * r["bound_bps"]
    if per_node > NODE_LINK_BPS:
        raise ValueError(f"{pattern} k={k}: the node links would bind at {per_node:.3g} b/s")
    return n * r["bound_gamma0"], n * r["reached_gamma0"]
