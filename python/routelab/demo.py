"""The main job on an embedded default: build a few fabrics, summarise them,
and write one to each format."""

from __future__ import annotations

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


def run(out: Path, fabrics: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for spec in fabrics or DEFAULT_FABRICS:
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
