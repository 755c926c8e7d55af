"""Flow-level evaluation: effective bisection bandwidth and channel loads."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from routelab import _core
from routelab.network import Network
from routelab.routing import Routes

if TYPE_CHECKING:
    import pandas as pd


def ebb(
    net: Network,
    routes: Routes,
    patterns: int = 1000,
    pattern: str | None = None,
    metric: str = "orcs",
    seed: int = 0,
    capacity: str | None = None,
    seeding: str | None = None,
) -> dict[str, Any]:
    """Effective bandwidth of ``routes`` over ``patterns`` traffic patterns.

    ``pattern`` defaults to ``bisect`` (random bisections, a fresh one per
    pattern); ``metric`` is ``orcs`` (each flow gets 1 / the largest number of
    flows sharing a channel on its path) or ``maxmin`` (max-min fair rates).
    Returns ``avg``, ``min``, ``max`` over patterns, ``patterns``,
    ``per_pattern``, ``pattern_seeds`` (the seed each pattern was drawn with:
    ``routelab.pattern(pattern, net, seed=...)`` gives its pairs again) and
    ``seconds``. The result depends only on the seed, not
    on the number of threads. ``seeding="consecutive"`` binds pattern i with
    ``seed + i`` instead of drawing its seed, so patterns 1..N are those that
    simulations with ``run.seed`` 1..N draw.
    """
    if routes.network != net:
        raise ValueError("routes were computed for another network")
    opts = {"patterns": str(patterns), "metric": metric, "seed": str(seed)}
    if pattern is not None:
        opts["pattern"] = pattern
    if capacity is not None:
        opts["capacity"] = capacity
    if seeding is not None:
        opts["seeding"] = seeding
    return json.loads(routes._routes.ebb_json(opts))


LOAD_COLUMNS = (
    "cable",
    "direction",
    "src",
    "src_port",
    "src_name",
    "dst",
    "dst_port",
    "dst_name",
    "class",
    "load",
)


def load_table(net: Network, loads: Sequence[float]) -> pd.DataFrame:
    """Per-channel ``loads`` (a sequence by channel id) as a DataFrame indexed
    by channel id, one row per channel: its ``cable`` (an index into
    ``net.cables``), the ``direction`` along it (``forward`` from the cable's
    first end to its second, ``reverse`` back), both endpoints (``src``/``dst``
    node id, port and name, with the GUID beside a shared name), its ``class``
    and its ``load``. Channel ``2c`` runs forward on cable ``c``, channel
    ``2c + 1`` in reverse."""
    import pandas as pd

    if len(loads) != 2 * len(net.cables):
        raise ValueError(f"{len(loads)} loads for the {2 * len(net.cables)} channels of {net.name}")
    names = net.labels  # the GUID beside a name that nodes share
    rows = []
    for i, (a, pa, b, pb, cls) in enumerate(net.cables):
        rows.append((i, "forward", a, pa, names[a], b, pb, names[b], cls, loads[2 * i]))
        rows.append((i, "reverse", b, pb, names[b], a, pa, names[a], cls, loads[2 * i + 1]))
    df = pd.DataFrame(rows, columns=list(LOAD_COLUMNS))
    df.index.name = "channel"
    return df


def channel_loads(routes: Routes, flows: list[tuple[int, int]] | str) -> pd.DataFrame:
    """Flows crossing each channel for ``(source, destination)`` terminal
    pairs (a flow split over n paths counts 1/n on each), as the table of
    `load_table`: one row per channel, keyed by cable, direction and
    endpoints, the count in ``load``. ``flows="all-to-all"`` is every
    terminal to every other, counted without listing the pairs (their
    number is the square of the terminals)."""
    if isinstance(flows, str):
        if flows != "all-to-all":
            raise ValueError(
                f"flows: a list of (source, destination) pairs or 'all-to-all', got {flows!r}"
            )
        return load_table(routes.network, routes._routes.all_to_all_loads())
    return load_table(routes.network, routes._routes.channel_loads(flows))


def minimal_split_loads(net: Network, flows: list[tuple[int, int]]) -> pd.DataFrame:
    """Flows crossing each channel when every ``(source, destination)``
    terminal pair is split evenly over all its minimal paths (the fluid view
    of minimal adaptive routing, counted without listing the paths), as the
    table of `load_table`. ``capacity / (max load x rate per flow)`` is
    what this one even split sustains, not a bound: minimal routers that
    spread unevenly can do better, up to `max_concurrent_flow`."""
    return load_table(net, _core.minimal_split_loads(net._net, flows))


def max_concurrent_flow(
    net: Network,
    flows: list[tuple[int, int]],
    paths: str = "minimal",
    tolerance: float = 0.01,
    max_phases: int = 400,
    terminal_links: bool = True,
) -> dict[str, Any]:
    """The best throughput any routing over ``paths`` (``"minimal"``: shortest
    paths only, what any minimal router, adaptive or not, can at best sustain;
    ``"any"``: every path) gives ``flows`` when every flow must get the same
    rate: the maximum concurrent flow on the channel bandwidths.

    ``bound_bps`` is a certified upper bound (LP duality: no routing over those
    paths does better); ``reached_bps`` is a rate a routing found reaches, so
    the optimum lies between them (``gap = 1 - reached / bound``, at most
    ``tolerance`` unless ``max_phases`` ran out). ``bound_gamma0`` and
    ``reached_gamma0`` are the same in units of the bisection rate of uniform
    traffic when the network has one; ``loads`` (flows per channel, the table
    of `load_table`) are those of the routing found, ``phases`` and
    ``seconds`` what it took. Without ``terminal_links`` only the links
    between switches limit the flows."""
    r = json.loads(
        _core.max_concurrent_flow(net._net, flows, paths, tolerance, max_phases, terminal_links)
    )
    gamma0 = net.gamma0_bps()
    out: dict[str, Any] = {
        "paths": r["paths"],
        "bound_bps": r["upper"],
        "reached_bps": r["lower"],
    }
    for key in ("bound", "reached"):
        bps = out[f"{key}_bps"]
        out[f"{key}_gamma0"] = bps / gamma0 if gamma0 and bps is not None else None
    out.update(gap=r["gap"], phases=r["phases"], seconds=r["seconds"])
    out["loads"] = load_table(net, r["loads"])
    return out


def throughput_bound(
    net: Network, flows: list[tuple[int, int]], loads: pd.DataFrame | Sequence[float]
) -> dict[str, Any]:
    """What channel ``loads`` (flows per channel, from `channel_loads` or
    `minimal_split_loads`) allow: the throughput of that one routing (a
    bound for it, not for other routings: `max_concurrent_flow` gives the
    best over all of them), the rate per flow at which the first
    channel saturates (its bandwidth over its load), that channel, and the
    rate in units of the bisection rate of uniform traffic (gamma0,
    ``load_unit = "bisection"``) when the network has one."""
    if hasattr(loads, "columns"):
        loads = loads["load"].tolist()
    bandwidth = {name: bps for name, bps, _ in net.classes}
    names = net.labels
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
