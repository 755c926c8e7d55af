"""``routelab bench``: the standard speed configurations, measured here and now.

Each figure is one run on this machine, except the standard torus and
UGAL-L on the dragonfly, which run in turn (three rounds, one with
``--quick``) and give medians, ranges and the dragonfly's rate against the
torus's. BENCHMARKS.md records the figures with the machine they came from."""

from __future__ import annotations

import os
import resource
import statistics
import time
from typing import Any

import routelab

TORUS_DOR = """
[network]
topology = "torus:8x8x8"
links = { bandwidth = "128Gb/s", latency = "1ns" }
[router]
switching = "wormhole"
vcs = 4
buffer_flits = 8
flit_bytes = 16
routing_delay = "1ns"
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
load = 0.3
packet_flits = 1
[run]
warmup_cycles = 2000
measure_cycles = 10000
seed = 1
"""

# versaci2013 Table 1 on 16x16x16 at half the bisection load, as
# examples/versaci-table1.toml (three VCs, messages offered at 2.4 gamma0). A
# cycle is one 512-byte packet on the 64 Gb/s terminal link (64 ns): 500 +
# 1,063 cycles are 100 us, without a drain.
VERSACI_TABLE1 = """
[network]
topology = "torus:16x16x16"
classes.terminal = { bandwidth = "64Gb/s", latency = "80ns" }
classes.switch = { bandwidth = "20Gb/s", latency = "200ns" }
[router]
switching = "store-and-forward"
vcs = 3
buffer_packets = 8
flit_bytes = 512
[routing]
algorithm = "dor"
[traffic]
pattern = "uniform"
load = 0.5
load_unit = "bisection"
packet_bytes = "512B"
message_packets = 96
injection_limit = 2.4
[run]
warmup_cycles = 500
measure_cycles = 1063
drain_cycles = 0
seed = 1
"""


# flich2000's Myrinet with in-transit buffers: 1-byte flits, every flit an
# event on every channel (examples/myrinet-itb.toml on 64 switches, 256 hosts,
# 512-byte packets near ITB's saturation).
MYRINET_ITB = """
[network]
topology = "random:switches=64,ports=8,hosts=4,seed=1"
links = { bandwidth = "160MB/s", latency = "49.2ns" }
[router]
switching = "wormhole"
vcs = 1
buffer_flits = 80
flit_bytes = 1
routing_delay = "150ns"
flow_control = "stop-go"
stop_threshold = 56
go_threshold = 40
[routing]
algorithm = "itb"
[nic]
transit_delay = "475ns"
transit_buffer = "512KiB"
[traffic]
pattern = "uniform"
load = 0.06
packet_bytes = "512B"
[run]
warmup_cycles = 20000
measure_cycles = 200000
"""


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _sim(name: str, text: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    r = routelab.simulate(text, overrides)
    wall = r["wall_seconds"]
    return {
        "name": name,
        "terminals": r["terminals"],
        "flit_hops_per_second": r["flit_hops"] / wall if wall else None,
        "simulated_us_per_wall_second": r["simulated_ps"] / 1e6 / wall if wall else None,
        "simulated_us": r["simulated_ps"] / 1e6,
        "wall_seconds": wall,
        "events": r["events"],
        "accepted": r["accepted"],
    }


#: UGAL-L at half load on the balanced dragonfly, with the standard configuration's router and
#: links (overrides of ``TORUS_DOR``).
DRAGONFLY_UGAL = {
    "network.topology": "dragonfly:a=8,p=4,h=4",
    "routing.algorithm": "df-ugal-l",
    "router.vcs": 6,
    "traffic.load": 0.5,
}
#: The target for adaptive routing's cost: that run should move at least half the flit-hops per
#: second of the standard torus configuration.
DRAGONFLY_TARGET = 0.5


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _torus_and_dragonfly(
    rounds: int, overrides: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The standard torus configuration and UGAL-L on the balanced 1,056-terminal dragonfly
    (a = 8, p = h = 4) with the same router and links, run in turn ``rounds`` times so that
    both see the same machine. Each row gives the medians and the range of the rates; the
    dragonfly's also gives its rate against the torus's (``against_torus``) and the
    ``target`` for it (``DRAGONFLY_TARGET``)."""
    overrides = overrides or {}
    names = (
        "sim torus:8x8x8 dor uniform 0.3 (1-flit, 4 VCs x 8 flits)",
        "sim dragonfly:a=8,p=4,h=4 df-ugal-l uniform 0.5 (1-flit, 6 VCs x 8 flits)",
    )
    runs: tuple[list, list] = ([], [])
    for _ in range(rounds):
        runs[0].append(_sim(names[0], TORUS_DOR, overrides))
        runs[1].append(_sim(names[1], TORUS_DOR, {**overrides, **DRAGONFLY_UGAL}))
    rows = []
    for name, these in zip(names, runs, strict=True):
        rates = sorted(r["flit_hops_per_second"] for r in these)
        row = {**these[0], "name": name, "runs": rounds}
        for key in ("flit_hops_per_second", "simulated_us_per_wall_second", "wall_seconds"):
            row[key] = _median(these, key)
        row["flit_hops_per_second_range"] = [rates[0], rates[-1]]
        rows.append(row)
    rows[1]["against_torus"] = rows[1]["flit_hops_per_second"] / rows[0]["flit_hops_per_second"]
    rows[1]["target"] = DRAGONFLY_TARGET
    return rows


def _route(name: str, spec: str, engine: str) -> dict[str, Any]:
    net = routelab.topology(spec)
    start = time.perf_counter()
    routes = routelab.route(net, engine, max_lanes=15)
    return {
        "name": name,
        "wall_seconds": time.perf_counter() - start,
        "lanes": routes.lanes_needed,
    }


def _ebb(name: str, spec: str, patterns: int) -> dict[str, Any]:
    net = routelab.topology(spec)
    r = routelab.ebb(net, routelab.route(net, "sssp"), patterns=patterns)
    return {"name": name, "wall_seconds": r["seconds"], "avg": r["avg"]}


def _parallel(cores: int) -> list[dict[str, Any]]:
    """A 32x32x32 torus (32,768 terminals) at 0.1, on one thread and split
    over every core (``run.threads``), and the speed-up."""
    big = {
        "network.topology": "torus:32x32x32",
        "traffic.load": 0.1,
        "run.warmup_cycles": 100,
        "run.measure_cycles": 400,
        "run.drain_cycles": 0,
    }
    name = "sim torus:32x32x32 dor uniform 0.1 (1-flit), {} thread{}"
    one = _sim(name.format(1, ""), TORUS_DOR, big)
    if cores < 2:
        return [one]
    many = _sim(name.format(cores, "s"), TORUS_DOR, {**big, "run.threads": cores})
    many["speedup"] = many["flit_hops_per_second"] / one["flit_hops_per_second"]
    return [one, many]


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Runs the standard configurations; ``quick`` shortens the simulations."""
    shorter = {"run.measure_cycles": 2000, "run.warmup_cycles": 500} if quick else None
    rows = [
        *_torus_and_dragonfly(1 if quick else 3, shorter),
        _route(
            "sssp random 4096 endpoints", "random:switches=256,ports=32,hosts=16,seed=1", "sssp"
        ),
        _route(
            "dfsssp random 4096 endpoints", "random:switches=256,ports=32,hosts=16,seed=1", "dfsssp"
        ),
        _ebb("ebb 1000 bisections, 1024 endpoints", "kary-ntree:k=32,n=2", 1000),
        _sim("sim myrinet itb 64 switches uniform (1-byte flits, stop & go)", MYRINET_ITB, shorter),
    ]
    if not quick:
        rows.append(
            _sim("sim torus:16x16x16 versaci2013 Table 1, half load, 100 us", VERSACI_TABLE1)
        )
        rows += _parallel(os.cpu_count() or 1)
    for row in rows:
        row["peak_rss_mb"] = _peak_rss_mb()
    return rows
