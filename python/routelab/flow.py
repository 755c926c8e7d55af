"""Flow-level evaluation: effective bisection bandwidth and channel loads."""

from __future__ import annotations

import json
from typing import Any

from routelab import _core
from routelab.network import Network
from routelab.routing import Routes


def ebb(
    net: Network,
    routes: Routes,
    patterns: int = 1000,
    pattern: str | None = None,
    metric: str = "orcs",
    seed: int = 0,
    capacity: str | None = None,
) -> dict[str, Any]:
    """Effective bandwidth of ``routes`` over ``patterns`` traffic patterns.

    ``pattern`` defaults to ``bisect`` (random bisections, a fresh one per
    pattern); ``metric`` is ``orcs`` (each flow gets 1 / the largest number of
    flows sharing a channel on its path) or ``maxmin`` (max-min fair rates).
    Returns ``avg``, ``min``, ``max`` over patterns, ``patterns``,
    ``per_pattern`` and ``seconds``. The result depends only on the seed, not
    on the number of threads.
    """
    if routes.network != net:
        raise ValueError("routes were computed for another network")
    opts = {"patterns": str(patterns), "metric": metric, "seed": str(seed)}
    if pattern is not None:
        opts["pattern"] = pattern
    if capacity is not None:
        opts["capacity"] = capacity
    return json.loads(routes._routes.ebb_json(opts))


def channel_loads(routes: Routes, flows: list[tuple[int, int]]) -> list[float]:
    """Flows crossing each channel (by channel id) for ``(source, destination)``
    terminal pairs; a flow split over n paths counts 1/n on each."""
    return routes._routes.channel_loads(flows)


def minimal_split_loads(net: Network, flows: list[tuple[int, int]]) -> list[float]:
    """Flows crossing each channel (by channel id) when every ``(source,
    destination)`` terminal pair is split evenly over all its minimal paths:
    the fluid view of minimal adaptive routing, counted without listing the
    paths. ``capacity / (max load x rate per flow)`` bounds what routers that
    keep to minimal paths and spread evenly can sustain."""
    return _core.minimal_split_loads(net._net, flows)


def throughput_bound(
    net: Network, flows: list[tuple[int, int]], loads: list[float]
) -> dict[str, Any]:
    """What channel ``loads`` (flows per channel, from :func:`channel_loads` or
    :func:`minimal_split_loads`) allow: the rate per flow at which the first
    channel saturates (its bandwidth over its load), that channel, and the
    rate in units of the bisection rate of uniform traffic (gamma0,
    ``load_unit = "bisection"``) when the network has one."""
    bandwidth = {name: bps for name, bps, _ in net.classes}
    names = [node[1] for node in net.nodes]
    best: tuple[float, int, int, int] | None = None
    for i, (a, _, b, _, cls) in enumerate(net.cables):
        for c, (u, v) in ((2 * i, (a, b)), (2 * i + 1, (b, a))):
            if loads[c] > 0:
                rate = bandwidth[cls] / loads[c]
                if best is None or rate < best[0]:
                    best = (rate, c, u, v)
    out: dict[str, Any] = {
        "flows": len(flows),
        "max_load": max(loads, default=0.0),
        "total_load": sum(loads),
    }
    if best is None:
        return {**out, "bound_bps": None, "bound_gamma0": None, "bottleneck": None}
    rate, c, u, v = best
    gamma0 = net.gamma0_bps()
    return {
        **out,
        "bound_bps": rate,
        "bound_gamma0": rate / gamma0 if gamma0 else None,
        "bottleneck": f"{names[u]} -> {names[v]}",
        "bottleneck_load": loads[c],
    }
