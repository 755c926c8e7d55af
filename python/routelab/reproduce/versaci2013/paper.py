"""versaci2013's names and the paper's facts: its routers and patterns, Table 1's links, the
networks each pattern runs on, and its published values (papers/versaci2013.toml)."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

from routelab.reproduce import published

Row = dict[str, Any]
Rows = list[Row]

NAME = "versaci2013"
TITLE = (
    "Versaci, Bilardi: OutFlank Routing: Increasing Throughput in Toroidal "
    "Interconnection Networks (2013)"
)
SPECS = Path(__file__).parent.parent / "specs" / NAME
# The specs, swept as one queue in this order: the longest runs first, so that
# the workers finish together.
PARTS = ("searches", "stages", "readings", "curves")
ROUTERS = ("dor", "abr", "por", "ofr")
# The routelab pattern and the paper's name for it.
PATTERNS: dict[str, str] = {
    "butterfly": "Butterfly/FFT",
    "transpose": "Transposition",
    "rotate3d": "3D Transposition",
    "uniform": "Uniform",
    "bit-reverse": "Bit-Reverse",
}

# The paper's values, from papers/versaci2013.toml.
PAPER = published(NAME)
# Table 2: gamma* (gamma0 units), by (pattern, router, k). DOR is not in it.
PAPER_TABLE2: dict[tuple[str, str, int], float] = PAPER.mapping(  # type: ignore[assignment]
    "table2", "gamma_star", ("pattern", "router", "k")
)
# Table 3 (16x16x16): per pattern, the ratio of derouted packets of each column (its router and
# the ratio it averages).
PAPER_TABLE3_K = 16
TABLE3_COLUMNS = {
    "ofr_oidn": ("ofr", "ratio_oidn"),
    "ofr_widn": ("ofr", "ratio_widn"),
    "ofr_total": ("ofr", "ratio_derouted"),
    "por": ("por", "ratio_derouted"),
}
PAPER_TABLE3: dict[str, tuple[float, ...]] = {
    p: tuple(PAPER.find("table3", c, pattern=p, k=PAPER_TABLE3_K).value for c in TABLE3_COLUMNS)
    for p in PATTERNS
}
# What the text adds: OFR over ABR on 16^3 from +14% (uniform) to +114% (butterfly).
PAPER_OFR_OVER_ABR_16 = tuple(PAPER.statements["ofr_over_abr_16"])

_CLASSES = tomllib.loads((SPECS / "searches.toml").read_text())["network"]["classes"]
#: Table 1's links ("20Gb/s"), bit/s: between routers, and from a node to its router.
ROUTER_LINK_BPS, NODE_LINK_BPS = (
    float(_CLASSES[c]["bandwidth"].removesuffix("Gb/s")) * 1e9 for c in ("switch", "terminal")
)


def topology(pattern: str, k: int) -> str:
    """k x k x k, or for transposition 2k x k x k if k^3 is not a square (the paper's 16x8x8)."""
    odd = pattern == "transpose" and math.isqrt(k**3) ** 2 != k**3
    return f"torus:{2 * k if odd else k}x{k}x{k}"


def size_of(topology: str) -> int:
    """k of a run's torus (16x8x8 is transposition's k = 8)."""
    return min(int(x) for x in topology.split(":")[1].split("x"))
