"""The main job on an embedded default, in a few minutes on a laptop:

1. build a few fabrics of every kind, print their summaries, write one to
   each file format;
2. sweep a small torus under dimension-order and minimal adaptive routing
   over a load grid (packet simulation);
3. compare oblivious routing engines on a fat tree by effective bisection
   bandwidth (flow level);
4. find the saturation throughput of the dragonfly routers (MIN, Valiant,
   UGAL-L, UGAL-G, PAR) under uniform and adversarial traffic, one
   bisection search each (the quick form of
   ``examples/sweeps/dragonfly-saturation.toml``);
5. write ``report.html`` with the figures and tables of the three sweeps.
"""

from __future__ import annotations

import time
from pathlib import Path

import routelab
from routelab import tables

DEFAULT_FABRICS = [
    "torus:8x8x8",
    "kary-ntree:k=4,n=3",
    "clos:ports=32,hosts=512",
    "kautz:b=2,n=3,hosts=4",
    "random:switches=64,ports=8,hosts=4,seed=1",
    "dragonfly:a=4,p=2,h=2",
]

TORUS_LOAD = """
[experiment]
kind = "sim"
name = "torus-load"
description = '''
Latency and accepted throughput of a 6x6 torus against offered load
(1.0 = the load that saturates the bisection under uniform traffic):
dimension order against minimal adaptive routing with a dimension-order
escape (Duato).'''

[network]
topology = "torus:6x6"
# One 16-byte flit per ns and 1 ns per link and per router: a buffer of 8
# flits covers the credit round trip, so buffers do not throttle the links.
links = { bandwidth = "128Gb/s", latency = "1ns" }

[router]
switching = "wormhole"
vcs = 4
buffer_flits = 8
flit_bytes = 16
routing_delay = "1ns"

[routing]
algorithm = ["dor", "duato"]

[traffic]
pattern = ["uniform", "transpose"]
load = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
load_unit = "bisection"
packet_flits = 4

[run]
warmup_cycles = 2000
measure_cycles = 5000
seed = 1
"""

FAT_TREE_EBB = """
[experiment]
kind = "ebb"
name = "fat-tree-ebb"
description = '''
Effective bisection bandwidth (ORCS metric, 300 random bisections) of
oblivious routing engines on a 512-endpoint 8-ary 3-tree; multipath splits
every flow evenly over all minimal paths.'''

[network]
topology = "kary-ntree:k=8,n=3"

[routing]
algorithm = ["minhop", "sssp", "dfsssp", "updown", "lash", "dmodk", "multipath"]

[ebb]
patterns = 300
seed = 1
"""

DRAGONFLY_SATURATION = """
[experiment]
kind = "saturate"
name = "dragonfly-saturation"
description = '''
Saturation throughput (one bisection search each) of the dragonfly routers
on a 72-terminal balanced dragonfly: under uniform traffic MIN is best;
under group-shift (every group to the next) MIN is held to 1/(a p) by the
one global link between two groups, and UGAL-G and PAR carry more than
Valiant.'''

[network]
topology = "dragonfly:a=4,p=2,h=2"

[router]
switching = "cut-through"
vcs = 12

[routing]
algorithm = ["df-min", "df-val", "df-ugal-l", "df-ugal-g", "df-par"]

[traffic]
pattern = ["uniform", "group-shift"]
packet_flits = 4

[run]
warmup_cycles = 1000
measure_cycles = 3000
seed = 1
"""


def _fabrics(out: Path, fabrics: list[str]) -> None:
    for spec in fabrics:
        net = routelab.topology(spec)
        print(f"== {spec}")
        print(tables.summary_table(net.summary()))
        print()
    net = routelab.topology("torus:4x4x2")
    for ext in ("json", "ibnet", "dot"):
        path = out / f"torus-4x4x2.{ext}"
        net.save(path)
        print(f"wrote {path}")
    if routelab.load(out / "torus-4x4x2.json") != net:
        raise routelab.RoutelabError("the JSON round trip changed the network")


def run(out: Path, fabrics: list[str] | None = None, quiet: bool = False) -> Path:
    """Runs the whole demo into ``out``; returns the report's path."""
    from routelab.experiment import report

    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    _fabrics(out, fabrics or DEFAULT_FABRICS)

    specs = out / "specs"
    specs.mkdir(exist_ok=True)
    experiments = []
    for name, text in (
        ("torus-load", TORUS_LOAD),
        ("fat-tree-ebb", FAT_TREE_EBB),
        ("dragonfly-saturation", DRAGONFLY_SATURATION),
    ):
        spec = specs / f"{name}.toml"
        spec.write_text(text.lstrip())
        print(f"\n== sweep {name}")
        o = routelab.sweep(spec, out / name, quiet=quiet)
        dead = f", {o.deadlocked} deadlocked" if o.deadlocked else ""
        print(
            f"{o.ok} runs ok{dead}, {o.failed} failed, {o.skipped} already done, {o.seconds:.1f} s"
        )
        experiments.append(out / name)

    ebb = routelab.results(out / "fat-tree-ebb")
    print("\n== effective bisection bandwidth on kary-ntree:k=8,n=3 (300 random bisections)")
    cols = [c for c in ("routing.algorithm", "avg", "min", "max") if c in ebb.columns]
    print(ebb[cols].sort_values(cols[1], ascending=False).to_string(index=False))

    sat = routelab.results(out / "dragonfly-saturation")
    print("\n== dragonfly saturation throughput (flits per terminal and cycle)")
    table = sat.pivot_table(
        index="routing.algorithm", columns="traffic.pattern", values="saturation", sort=False
    )
    print(table.round(3).to_string())

    path = report.write_report(experiments, out / "report.html", title="routelab demo")
    print(f"\nwrote {path} in {time.perf_counter() - started:.0f} s: open it in a browser")
    return path
