"""Versaci and Bilardi (2013), "OutFlank Routing: Increasing Throughput in
Toroidal Interconnection Networks": the simulations of Section 4.

The runs are the experiment specs in ``specs/versaci2013/`` (each with a
``quick`` 8x8x8 and a ``tiny`` 4x4x4 variant), swept into subdirectories of
the output directory, where a second run resumes:

- ``searches.toml``: one saturation search per network, router and pattern:
  Table 2's gamma*, and every load it measured (Table 3's derouting ratios).
- ``curves.toml``: six loads per pattern and router below every gamma*, for
  Fig. 4.
- ``stages.toml``: butterfly's lifetime against gamma per router, beside the
  loads up to which its k/2 stages fit in their period (`stage_capacity`).
- ``readings.toml``: POR's and OFR's derouting under both readings of
  eq. (15), beside Table 3.

This module turns their tables into ``loads.csv``, ``curves.csv``,
``table2.csv`` (with the bounds of minimal routing, `even_split` and
`routing_bound`), ``table3.csv``, ``table3_readings.csv``,
``butterfly_stages.csv``, the figures and ``summary.md``, beside the paper's
values (``papers/versaci2013.toml``). A load is sustained when its window
drains, accepted is within 5% of offered and the window's halves agree;
gamma* is the low end of the search's final bracket. The load unit is the
paper's: gamma = 1 saturates the bisection under uniform traffic.
"""

from __future__ import annotations

import functools
import json
import math
import re
import statistics
import time
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

import routelab
from routelab.reproduce import expected
from routelab.reproduce._common import (
    duration,
    figure,
    fmt,
    md_table,
    sweep_specs,
    write_csv,
    write_run_json,
)

Row = dict[str, Any]
Rows = list[Row]

NAME = "versaci2013"
TITLE = (
    "Versaci, Bilardi: OutFlank Routing: Increasing Throughput in Toroidal "
    "Interconnection Networks (2013)"
)
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("searches", "curves", "stages", "readings")
ROUTERS = ("dor", "abr", "por", "ofr")
ROUTER_TITLES = {r: r.upper() for r in ROUTERS}
# The routelab pattern and the paper's name for it.
PATTERNS: dict[str, str] = {
    "butterfly": "Butterfly/FFT",
    "transpose": "Transposition",
    "rotate3d": "3D Transposition",
    "uniform": "Uniform",
    "bit-reverse": "Bit-Reverse",
}

# The paper's values, from papers/versaci2013.toml.
PAPER = expected.load(NAME)
# Table 2: gamma* (gamma0 units), by (pattern, router, k). DOR is not in it.
PAPER_TABLE2: dict[tuple[str, str, int], float] = PAPER.mapping(  # type: ignore[assignment]
    "table2", "gamma_star", ("pattern", "router", "k")
)
# Table 3 (16x16x16): ratio of derouted packets per pattern, in the order of
# `TABLE3_COLUMNS`.
PAPER_TABLE3_K = 16
TABLE3_COLUMNS = {  # column: the router and the ratio it averages
    "ofr_oidn": ("ofr", "ratio_oidn"),
    "ofr_widn": ("ofr", "ratio_widn"),
    "ofr_total": ("ofr", "ratio_derouted"),
    "por": ("por", "ratio_derouted"),
}
PAPER_TABLE3: dict[str, tuple[float, float, float, float]] = {
    pattern: tuple(  # type: ignore[misc]
        PAPER.find("table3", c, pattern=pattern, k=PAPER_TABLE3_K).value for c in TABLE3_COLUMNS
    )
    for pattern in PATTERNS
}
# What the text adds: OFR over ABR on 16^3 from +14% (uniform) to +114%
# (butterfly); OFR over POR up to +36% (butterfly, 16^3).
PAPER_OFR_OVER_ABR_16 = tuple(PAPER.statements["ofr_over_abr_16"])
PAPER_OFR_OVER_POR_16 = PAPER.statements["ofr_over_por_16"]

with (SPECS / "searches.toml").open("rb") as _f:
    _CLASSES = tomllib.load(_f)["network"]["classes"]


def _bps(text: str) -> float:
    """Bit/s of a bandwidth as Table 1 writes it (``"20Gb/s"``)."""
    m = re.fullmatch(r"([\d.]+)\s*([GM])b/s", text)
    if m is None:
        raise ValueError(f"cannot read the bandwidth '{text}'")
    return float(m.group(1)) * (1e9 if m.group(2) == "G" else 1e6)


#: Links of Table 1, bit/s: between routers, and from a node to its router.
ROUTER_LINK_BPS = _bps(_CLASSES["switch"]["bandwidth"])
NODE_LINK_BPS = _bps(_CLASSES["terminal"]["bandwidth"])


@functools.cache
def gamma0_bps(topology: str) -> float:
    """gamma0 of ``topology`` per node, in bit/s, with Table 1's links
    between routers (the bisection scales with their bandwidth)."""
    net = routelab.topology(topology)
    built = {name: bw for name, bw, _ in net.classes}["switch"]
    return (net.gamma0_bps() or 0.0) * ROUTER_LINK_BPS / built


def topology(pattern: str, k: int) -> str:
    """The k x k x k torus, or for transposition the 2k x k x k one when k^3 is
    not a square (the paper's 16x8x8)."""
    n = k**3
    if pattern == "transpose" and math.isqrt(n) ** 2 != n:
        return f"torus:{2 * k}x{k}x{k}"
    return f"torus:{k}x{k}x{k}"


def size_of(topology: str) -> int:
    """k of a run's torus (16x8x8 is transposition's k = 8)."""
    return min(int(x) for x in topology.split(":")[1].split("x"))


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _by_load(rows: Any) -> Rows:
    return sorted(rows, key=lambda r: r["load"])


@dataclass(frozen=True)
class Config:
    """What a mode ran, read from its specs' tables (the text cites it)."""

    mode: str
    sizes: tuple[int, ...]
    figure_size: int
    routers: tuple[str, ...]
    patterns: tuple[str, ...]
    resolution: float
    tolerance: float
    convergence: float
    warmup_cycles: int
    warmup_periods: int
    measure_cycles: int
    workers: int = 2


def config_of(mode: str, searches: pd.DataFrame, workers: int) -> Config:
    first = searches.iloc[0]
    sizes = tuple(sorted({size_of(t) for t in searches["network.topology"]}))
    routers = tuple(r for r in ROUTERS if r in set(searches["routing.algorithm"]))
    patterns = tuple(p for p in PATTERNS if p in set(searches["traffic.pattern"]))
    ratios = ("saturate.resolution", "saturate.tolerance", "run.convergence")
    cycles = ("run.warmup_cycles", "run.warmup_periods", "run.measure_cycles")
    floats, ints = (float(first[c]) for c in ratios), (int(first[c]) for c in cycles)
    return Config(mode, sizes, max(sizes), routers, patterns, *floats, *ints, workers)


# Runs ----------------------------------------------------------------------

# The last two: the search's answer, on each of its rows: the final bracket
# (highest load sustained below the lowest not sustained above it).
LOAD_FIELDS = _names(
    """k topology router pattern load status error sustained drained converged offered accepted
    accepted_normalised lifetime_us lifetime_p99_us network_latency_us avg_hops minimal oidn widn
    derouted zero_dilation ratio_oidn ratio_widn ratio_derouted wall_seconds search_gamma_star
    search_bracket_high"""
)
# Result fields kept in loads.csv, by (field, the result's, scale, digits).
_MEASURES = (
    ("offered", "offered", 1, 6),
    ("accepted", "accepted", 1, 6),
    ("accepted_normalised", "accepted_normalised", 1, 4),
    ("lifetime_us", "latency_mean", 1e-3, 3),
    ("lifetime_p99_us", "latency_p99", 1e-3, 3),
    ("network_latency_us", "network_latency_mean", 1e-3, 3),
    ("avg_hops", "avg_hops", 1, 3),
)


def _load_row(p: Row, run: Row, tolerance: float) -> Row:
    """A load ``p`` of ``run`` (a search's point, or a sim run, sustained by the
    search's test) as a row of ``loads.csv``, packets by routing decision."""
    router, topo = run["routing.algorithm"], run["network.topology"]
    row: Row = dict.fromkeys(LOAD_FIELDS, "")
    row.update(k=size_of(topo), topology=topo, router=router, pattern=run["traffic.pattern"])
    row.update(load=round(p["load"], 4), wall_seconds=round(p.get("wall_seconds") or 0, 2))
    if p["status"] in ("deadlock", "failed", "backlog"):
        why = (p.get("error") or "").splitlines()
        return dict(row, status=p["status"], error=why[0] if why else "", sustained=False)
    sustained = p.get("sustained")
    if sustained is None:
        sustained = (
            p["drained"] and p["converged"] and p["accepted"] >= (1.0 - tolerance) * p["offered"]
        )
    row.update(status="ok", sustained=bool(sustained))
    row.update({f: bool(p[f]) for f in ("drained", "converged")})
    row.update({f: round(p[src] * scale, d) for f, src, scale, d in _MEASURES})
    counters = p.get("counters") or {}
    n = {c: int(counters.get(c, 0)) for c in ("minimal", "oidn", "widn", "derouted")}
    n["derouted"] += n["oidn"] + n["widn"]
    row.update(n, zero_dilation=int(counters.get("zero_dilation", 0)))
    total = n["minimal"] + n["derouted"]
    if router in ("ofr", "por") and total > 0:
        row["ratio_derouted"] = n["derouted"] / total
        if router == "ofr":
            row.update(ratio_oidn=n["oidn"] / total, ratio_widn=n["widn"] / total)
    return row


def search_rows(df: pd.DataFrame) -> Rows:
    """Every load of every search, with the search's final bracket."""
    rows = []
    for r in df.to_dict("records"):
        high = r["bracket_high"]
        bracket = {
            "search_gamma_star": round(r["bracket_low"], 4),
            "search_bracket_high": "" if high is None or high != high else round(high, 4),
        }
        tol = float(r["saturate.tolerance"])
        rows += [dict(_load_row(p, r, tol), **bracket) for p in r["points"]]
    return rows


def sim_rows(df: pd.DataFrame, tolerance: float) -> Rows:
    """A sim sweep's runs as rows of ``loads.csv``, with router ``options``."""
    rows = []
    for r in df.to_dict("records"):
        counters = {
            k.removeprefix("counters_"): v
            for k, v in r.items()
            if k.startswith("counters_") and v == v and v is not None
        }
        status = "deadlock" if r["status"] == "deadlock" else "ok"
        point = dict(r, load=r["traffic.load"], wall_seconds=r["result.wall_seconds"])
        row = _load_row(dict(point, status=status, counters=counters), r, tolerance)
        options = r.get("routing.options") or {}
        row["options"] = json.loads(options) if isinstance(options, str) else options
        rows.append(row)
    return rows


def gamma_star(rows: Rows) -> float:
    """The low end of the search's final bracket when ``rows`` are one search
    (a load below it not sustained is `inverted`, not taken); else the
    highest load sustained below the lowest one that was not."""
    found = {r.get("search_gamma_star", "") for r in rows} - {""}
    if len(found) == 1:
        return float(found.pop())
    best = 0.0
    for r in _by_load(rows):
        if not r["sustained"]:
            break
        best = r["load"]
    return best


def inverted(rows: Rows) -> Rows:
    """Loads below gamma* not sustained, or above the bracket and sustained."""
    g, h = gamma_star(rows), bracket_high(rows)
    return [
        r
        for r in rows
        if (r["load"] < g and not r["sustained"]) or (h != "" and r["load"] > h and r["sustained"])
    ]


def bracket_high(rows: Rows) -> float | str:
    """The lowest load not sustained above gamma* ("" if none was)."""
    g = gamma_star(rows)
    return min((r["load"] for r in rows if r["load"] > g and not r["sustained"]), default="")


def _walks(rows: Rows) -> dict[tuple[str, str, int], Rows]:
    """Rows by (pattern, router, k), each by load."""
    out: dict[tuple[str, str, int], Rows] = {}
    for r in rows:
        out.setdefault((r["pattern"], r["router"], r["k"]), []).append(r)
    return {key: _by_load(v) for key, v in out.items()}


# Two readings of eq. (15) --------------------------------------------------

#: eq. (15)'s u*, by the router option that sets it: the least used link
#: minimal towards the destination (the reproduction's), or the least used of
#: all the source's outgoing links, as the text has it ("a link going out
#: from s"). readings.toml runs both.
READINGS = {"minimal": "minimal", "all": "as written"}
READING_FIELDS = _names(
    """k pattern router reading load sustained ratio_oidn ratio_widn ratio_derouted zero_dilation
    avg_hops paper_ratio_oidn paper_ratio_widn paper_ratio_derouted"""
)


def readings(rows: Rows) -> Rows:
    """POR's and OFR's derouting per reading of eq. (15), beside Table 3."""

    def reading(r: Row) -> str:
        return READINGS[r["options"].get("u_star", "minimal")]

    def order(r: Row) -> tuple[Any, ...]:
        return (r["k"], r["pattern"] != "uniform", r["router"] != "por", reading(r) != "minimal")

    out = []
    for row in sorted(rows, key=order):
        paper = PAPER_TABLE3[row["pattern"]]
        total = row["minimal"] + row["derouted"] if row["status"] == "ok" else 0
        ofr = row["router"] == "ofr"
        out.append(
            {k: row[k] for k in READING_FIELDS if k in row}
            | {
                "reading": reading(row),
                "zero_dilation": row["zero_dilation"] / total if total else "",
                "paper_ratio_oidn": paper[0] if ofr else "",
                "paper_ratio_widn": paper[1] if ofr else "",
                "paper_ratio_derouted": paper[2] if ofr else paper[3],
            }
        )
    return out


def _vs(r: Row, key: str) -> str:
    """A measured value beside the paper's."""
    return f"{fmt(r[key])} ({fmt(r['paper_' + key])})"


def _readings_md(rows: Rows) -> list[str]:
    header = ["k", "pattern", "router", "u* of eq. (15)", "load", "derouted (paper, k = 16)"]
    header += ["OIDN / WIDN (paper)", "of them at no extra hop", "hops"]
    out = []
    for r in rows:
        kind = "-"
        if r["router"] == "ofr":
            kind = f"{fmt(r['ratio_oidn'])} / {fmt(r['ratio_widn'])} "
            kind += f"({fmt(r['paper_ratio_oidn'])} / {fmt(r['paper_ratio_widn'])})"
        out.append(
            [r["k"], PATTERNS[r["pattern"]], ROUTER_TITLES[r["router"]], r["reading"]]
            + [fmt(r["load"]), _vs(r, "ratio_derouted"), kind]
            + [fmt(r["zero_dilation"]), fmt(r["avg_hops"])]
        )
    return md_table(header, out)


# Butterfly's stages --------------------------------------------------------

#: The knee: the lifetime at most this many times that at the lowest load.
KNEE = 2.0
STAGE_FIELDS = ("k", "router", "load", "lifetime_us", "lifetime_ratio", "sustained")


def stage_capacity(k: int, ways: int) -> float:
    """The load (gamma0 units) up to which a k/2 stage of butterfly fits in
    its period: each link of the ring's ``ways`` directions carries k/2 / ways
    messages per period (0.25 one way, 0.5 both ways on k x k x k tori)."""
    return ways * ROUTER_LINK_BPS / (k / 2 * gamma0_bps(f"torus:{k}x{k}x{k}"))


def butterfly_stages(rows: Rows) -> Rows:
    """Butterfly's lifetime against load per network and router, and over
    that at the lowest load (the knee: the k/2 stages no longer fit)."""
    out = []
    for k in sorted({r["k"] for r in rows}):
        for router in (r for r in ROUTERS if any(x["router"] == r for x in rows)):
            mine = _by_load(r for r in rows if r["router"] == router and r["k"] == k)
            # The lifetime at the lowest load, the level the knee is measured from.
            base = mine[0]["lifetime_us"] if mine and mine[0]["status"] == "ok" else None
            for r in mine:
                life = r["lifetime_us"] if r["status"] == "ok" else None
                out.append(
                    {"k": k, "router": router, "load": r["load"], "sustained": r["sustained"]}
                    | {"lifetime_us": life if life is not None else ""}
                    | {"lifetime_ratio": round(life / base, 3) if life and base else ""}
                )
    return out


def by_size(rows: Rows) -> dict[int, Rows]:
    """Stage rows grouped by network size, smallest first."""
    out: dict[int, Rows] = {}
    for r in sorted(rows, key=lambda r: int(r["k"])):
        out.setdefault(int(r["k"]), []).append(r)
    return out


def stage_summary(rows: Rows) -> dict[str, tuple[float, float]]:
    """Per router: the knee (highest load up to which all are sustained within
    `KNEE` times the lowest load's lifetime) and the highest sustained."""
    out = {}
    for router in dict.fromkeys(r["router"] for r in rows):
        knee = bounded = 0.0
        flat = True
        for r in _by_load(r for r in rows if r["router"] == router):
            if not r["sustained"]:
                break
            bounded = r["load"]
            flat = flat and r["lifetime_ratio"] != "" and r["lifetime_ratio"] <= KNEE
            if flat:
                knee = r["load"]
        out[router] = (knee, bounded)
    return out


# Bounds --------------------------------------------------------------------


def _bound_flows(pattern: str, k: int) -> tuple[routelab.Network, list[tuple[int, int]], int]:
    """The network, the flows of ``pattern`` and the flows per source (each at
    an equal share of the node's rate)."""
    net = routelab.topology(topology(pattern, k))
    t = len(net.terminals)
    if pattern == "butterfly":
        # Each source's messages flip each of its n index bits in turn: n
        # flows per source, each with 1/n of its rate.
        n = t.bit_length() - 1
        return net, [(s, s ^ (1 << b)) for s in range(t) for b in range(n)], n
    return net, [(s, d) for s, d in routelab.pattern(pattern, net) if s != d], 1


# Node links run at 64 Gb/s against 20 between routers (Table 1) and carry
# one node's traffic; the topologies here are built with one link class, so
# the bounds count the links between routers only and check that the node
# links stay below their 64 Gb/s (NODE_LINK_BPS) at the bound.


def even_split(pattern: str, k: int) -> float:
    """The gamma* of one minimal routing, every flow split evenly over its
    minimal paths (when its busiest link between routers saturates). Not a
    bound: uneven minimal routers can reach `routing_bound`. Uniform: 1."""
    if pattern == "uniform":
        return 1.0
    net, flows, n = _bound_flows(pattern, k)
    loads = routelab.minimal_split_loads(net, flows)["load"].tolist()
    switches = set(net.switches)
    for i, (a, _, b, _, _) in enumerate(net.cables):
        if a not in switches or b not in switches:
            loads[2 * i] = loads[2 * i + 1] = 0.0
    return n * routelab.throughput_bound(net, flows, loads)["bound_gamma0"]


# Phases of the bound's multiplicative-weights method at most: it stops at a
# 1% gap, or here, where 3D transposition on 16x16x16 (about a minute) is
# still a few percent away; the bound is certified either way.
BOUND_PHASES = 400


def routing_bound(pattern: str, k: int, paths: str = "minimal") -> tuple[float, float]:
    """``(bound, reached)``: the gamma* no routing over ``paths``
    (``"minimal"`` or ``"any"``) can exceed, and one a routing over them
    reaches (`routelab.max_concurrent_flow`'s certified bound and rate).
    Uniform gives 1: the even split reaches the bisection bound."""
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


# Tables --------------------------------------------------------------------

TABLE2_FIELDS = _names(
    """pattern paper_pattern k topology router gamma_star paper_gamma_star accepted_at_gamma_star
    first_unsustained loads_run out_of_order even_split minimal_reached minimal_bound"""
)
TABLE3_FIELDS = ("pattern", "paper_pattern", "k", "loads", *TABLE3_COLUMNS, "paper_k")
TABLE3_FIELDS += tuple(f"paper_{c}" for c in TABLE3_COLUMNS)


def table2(rows: Rows, cfg: Config) -> Rows:
    walks = _walks(rows)
    out = []
    for k in cfg.sizes:
        for pattern in cfg.patterns:
            upper, reached = routing_bound(pattern, k)
            bounds = {
                "even_split": round(even_split(pattern, k), 3),
                # Rounded up and down: a bound stays a bound, a rate reached stays reached.
                "minimal_reached": math.floor(reached * 1000) / 1000,
                "minimal_bound": math.ceil(upper * 1000) / 1000,
            }
            for router in cfg.routers:
                w = walks.get((pattern, router, k), [])
                g = gamma_star(w)
                at = next((r for r in w if r["load"] == g), None)
                out.append(
                    {"pattern": pattern, "paper_pattern": PATTERNS[pattern], "k": k}
                    | {"topology": topology(pattern, k), "router": router, "gamma_star": g}
                    | {"paper_gamma_star": PAPER_TABLE2.get((pattern, router, k), "")}
                    | {"accepted_at_gamma_star": at["accepted_normalised"] if at else ""}
                    | {"first_unsustained": bracket_high(w), "loads_run": len(w)}
                    | {"out_of_order": len(inverted(w)), **bounds}
                )
    return out


def _mean_ratio(w: Rows, key: str) -> float | None:
    """Mean of a derouted ratio over the sustained loads (the paper: stable
    for gamma <= gamma*)."""
    vals = [r[key] for r in w if r["sustained"] and r[key] != ""]
    return round(statistics.fmean(vals), 4) if vals else None


def table3(rows: Rows, cfg: Config) -> Rows:
    walks = _walks(rows)
    out = []
    for k in cfg.sizes:
        for pattern in cfg.patterns:
            w = {r: walks.get((pattern, r, k), []) for r in ("ofr", "por")}
            out.append(
                {"pattern": pattern, "paper_pattern": PATTERNS[pattern], "k": k}
                | {"loads": sum(1 for r in w["ofr"] if r["sustained"]), "paper_k": PAPER_TABLE3_K}
                | {c: _mean_ratio(w[router], key) for c, (router, key) in TABLE3_COLUMNS.items()}
                | {
                    f"paper_{c}": v
                    for c, v in zip(TABLE3_COLUMNS, PAPER_TABLE3[pattern], strict=True)
                }
            )
    return out


# Figures -------------------------------------------------------------------

COLORS = {"dor": "tab:gray", "abr": "tab:blue", "por": "tab:green", "ofr": "tab:red"}
MARKERS = {"dor": "s", "abr": "o", "por": "^", "ofr": "D"}
GAMMA_AXIS = "offered load gamma (gamma0 units)"
LIFETIME_AXIS = "average packet lifetime (us)"


def _xy(pts: Rows, field: str) -> tuple[list[Any], list[Any]]:
    return [r["load"] for r in pts], [r[field] for r in pts]


def curve(rows: Rows, extra: Rows, key: tuple[str, str, int], field: str) -> Rows:
    """One router's curve at ``key``: its search's (``rows``) and fixed-load
    runs' (``extra``) sustained loads up to gamma* that have ``field``."""
    search = _walks(rows).get(key, [])
    g = gamma_star(search) if search else math.inf
    pts = search + _walks(extra).get(key, [])
    return _by_load(r for r in pts if r["sustained"] and r["load"] <= g and r[field] != "")


def plot_lifetime(rows: Rows, extra: Rows, cfg: Config, path: Path) -> None:
    """Fig. 4: lifetime against gamma of the paper's routers, sustained loads."""
    k = cfg.figure_size
    walks = _walks(rows)
    fig = figure(12, 7)
    axes = fig.subplots(2, 3).flatten()
    for ax, pattern in zip(axes, cfg.patterns, strict=False):
        right = 0.0
        for router in (r for r in cfg.routers if r != "dor"):
            style = {"marker": MARKERS[router], "color": COLORS[router]}
            pts = curve(rows, extra, (pattern, router, k), "lifetime_us")
            if pts:
                g = gamma_star(walks.get((pattern, router, k), []))
                label = f"{ROUTER_TITLES[router]} (gamma* {fmt(g)})"
                ax.plot(*_xy(pts, "lifetime_us"), ms=4, label=label, **style)
                right = max(right, pts[-1]["load"])
            paper = PAPER_TABLE2.get((pattern, router, k))
            if paper is not None:
                # The paper's gamma*, a hollow marker on the load axis.
                hollow = {"ms": 7, "mfc": "none", "ls": "none", "clip_on": False}
                ax.plot([paper], [0], **style, **hollow, transform=ax.get_xaxis_transform())
                right = max(right, paper)
        ax.set_title(f"{PATTERNS[pattern]} ({topology(pattern, k).split(':')[1]})", fontsize=9)
        ax.set_xlabel(GAMMA_AXIS, fontsize=8)
        ax.set_ylabel(LIFETIME_AXIS, fontsize=8)
        ax.set_xlim(0, 1.1 * right or 1.0)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    axes[-1].axis("off")
    note = (
        "Each curve: six loads below every router's gamma* (butterfly:\n"
        "its stage sweep) and the loads its saturation search sustained,\n"
        "up to gamma*. Hollow markers on the load axis: the paper's\n"
        "gamma* (Table 2). DOR, not in the paper, is in Table 2."
    )
    axes[-1].text(0.0, 0.5, note, fontsize=8, transform=axes[-1].transAxes)
    fig.suptitle(f"Fig. 4: average packet lifetime against gamma, k = {k} (sustained loads)")
    fig.tight_layout()
    fig.savefig(path)


def plot_derouted(rows: Rows, extra: Rows, cfg: Config, path: Path) -> None:
    """Fig. 5: butterfly's derouted ratios against gamma, Table 3's dashed."""
    k = cfg.figure_size
    fig = figure()
    ax = fig.add_subplot()
    series = (  # label, line, marker, colour per Table 3 column
        ("OFR OIDN", "--", "v", "tab:orange"),
        ("OFR WIDN", ":", "^", "tab:purple"),
        ("OFR total", "-", "D", COLORS["ofr"]),
        ("POR", "-", "o", COLORS["por"]),
    )
    paper = PAPER_TABLE3["butterfly"]
    for (router, key), (label, line, marker, color), value in zip(
        TABLE3_COLUMNS.values(), series, paper, strict=True
    ):
        pts = curve(rows, extra, ("butterfly", router, k), key)
        if pts:
            ax.plot(*_xy(pts, key), line, marker=marker, ms=5, color=color, label=label)
        label = f"paper {label}, k = 16"
        ax.axhline(value, color=color, ls=(0, (6, 3)), lw=1, alpha=0.8, label=label)
    ax.set_xlabel(GAMMA_AXIS)
    ax.set_ylabel("ratio of derouted packets")
    ax.set_ylim(0, 1)
    ax.set_title(f"Fig. 5: derouted packets, butterfly, k = {k} (paper: k = 16)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def plot_stages(rows: Rows, path: Path) -> None:
    """Butterfly's lifetime against load, one panel per size."""
    sizes = by_size(rows) or {8: []}
    fig = figure(width=6.4 * len(sizes)) if len(sizes) > 1 else figure()
    for i, (k, mine) in enumerate(sizes.items()):
        ax = fig.add_subplot(1, len(sizes), i + 1)
        for router in dict.fromkeys(r["router"] for r in mine):
            pts = [r for r in mine if r["router"] == router and r["lifetime_us"] != ""]
            color = COLORS[router]
            label = ROUTER_TITLES[router]
            ax.plot(
                *_xy(pts, "lifetime_us"), marker=MARKERS[router], ms=4, color=color, label=label
            )
            unsustained = [r for r in pts if not r["sustained"]]
            ax.scatter(*_xy(unsustained, "lifetime_us"), marker="x", s=60, color=color)
            paper = PAPER_TABLE2.get(("butterfly", router, k))
            if paper is not None:
                ax.axvline(paper, color=color, alpha=0.3, lw=3)
        for ways, style in ((1, "--"), (2, ":")):
            label = f"k/2 stage fits its period, {'one way' if ways == 1 else 'both ways'}"
            ax.axvline(stage_capacity(k, ways), color="black", ls=style, lw=1, label=label)
        ax.set_yscale("log")
        ax.set_xlabel(GAMMA_AXIS)
        ax.set_ylabel(LIFETIME_AXIS)
        ax.set_title(
            f"Butterfly/FFT in step, k = {k}: lifetime (x: not sustained; "
            "wide lines: the paper's gamma*)",
            fontsize=9,
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


# Summary -------------------------------------------------------------------


def _md(template: str, **values: Any) -> str:
    """``template`` filled in, its paragraphs and list items one line each."""
    return re.sub(r"(?<!\n)\n(?=[^\n])(?!- )", " ", template).format(**values)


# summary.md; the full mode's cost in it was measured on 2 cores (k = 8 whole,
# and single 16x16x16 loads).
_SUMMARY = """\
# {title}

Mode `{cfg.mode}` (`specs/versaci2013/*.toml`{variants}): networks k = {sizes}; gamma* by one
saturation search per router, pattern and size (`routelab.saturate`), its first bracket around the
paper's gamma* (for DOR, not in the paper, around 0.3, or its 8x8x8 gamma* at k = 16), moved by
doubling steps while an end is on the wrong side of gamma*, then narrowed by thirds to
{cfg.resolution:g} gamma0; warm-up periods of {cfg.warmup_cycles} cycles until the lifetime and
throughput of two in a row agree within {convergence} (at most {cfg.warmup_periods}), then a
measurement of {cfg.measure_cycles} cycles of one 512-byte flit time on the 64 Gb/s node link
(64 ns), seed 1; a run whose window does not converge is not drained, as it cannot be sustained.
{sims} simulations, {sim_time} of simulation in all (this run: {this_run} on {cfg.workers} workers,
finished runs kept in the stores). The full mode (both sizes, longer windows) takes 34 minutes on
2 cores for k = 8 alone (146 simulations, 39 of them stopped for their backlog); the 16x16x16
searches cost most: a load there takes 70 to 340 s of one core of a fast machine, more on 2 shared
cores, and a search runs 4 to 19 loads, so the whole mode takes more than a day on 2 cores; every
load is kept in its search's journal as it finishes, and a stopped run resumes there.

Table 1 parameters: 512-byte packets, store-and-forward, three VCs per link with queues of 8
packets, messages of 96 packets offered to the router at 2.4 gamma0, node links 64 Gb/s / 80 ns,
router links 20 Gb/s / 200 ns. Routers: {dor}`abr` (one adaptive VC, its escape network under
bubble flow control on the two escape VCs), `por` (eta = 1.0, ABR-style, the same VCs), `ofr` (eta
= 2.0, Delta = 2, one adaptive VC, escape split into VS1 and VS2); all take one minimal way at
distance k/2, and POR and OFR may take the other half-ring at no extra hop; POR and OFR read eq.
(15) with u* over the links minimal towards the destination.

## Table 2: maximum sustained throughput gamma*

Measured (paper) in gamma0 units; a load is sustained when the packets of the measurement window
all drain, accepted is within 5% of offered and the two halves of the window agree within
{convergence} in latency and throughput. Transposition runs on {transposition}. gamma* is the
highest load measured sustained below the lowest one measured not sustained, known to
{cfg.resolution:g} (the paper's to 0.05: its value g means a threshold in [g, g + 0.05)). `split`:
the gamma* of one minimal routing, every flow split evenly over all its minimal paths (when its
busiest link between routers saturates), not a bound: a minimal router that spreads unevenly can
beat it. `bound`: the gamma* no minimal routing, adaptive or not, can exceed (the maximum
concurrent flow over minimal paths, a certified upper bound by LP duality, rounded up); `reached`:
what a minimal routing found by the same method sustains (rounded down), so the best minimal
routing lies between the two ({phases} phases of multiplicative weights). Links between routers
only; 1 for uniform traffic, where the even split reaches the bisection bound.

{table2}

{claims}

{inversions}## Table 3: ratio of derouted packets

Measured (paper, always 16x16x16): mean over the sustained loads of the packets OFR sends through
an OutFlank IDN (OIDN) or a Wraparound IDN (WIDN), and of those POR sends out of the minimal
orthant.

{table3}{readings}{stages}

## Figures

- `fig4_lifetime.png`: average packet lifetime against gamma, k = {cfg.figure_size} (the paper's
Fig. 4 is k = 16).
- `fig5_derouted_butterfly.png`: derouted ratio against gamma for butterfly, k = {cfg.figure_size}.
- `fig_butterfly_stages.png`: butterfly's lifetime against gamma on each network size, the stage
capacities one and both ways marked (`butterfly_stages.csv`).

## Where and why the numbers differ

{differences}- **VCs.** Every router has the paper's three VCs per link, 'one adaptive and two
escape ones': OFR escapes on VS1 and VS2; ABR and POR, which need one escape network, buffer it on
both escape VCs (`escape_vcs = 2`: each escape ring has a second VC under the same bubble rule).
Read instead as a second adaptive VC (`adaptive_vcs = 2`, against the text), the third VC lifts
uniform traffic on 8x8x8 further: measured apart from this run with the same search, ABR 0.50 ->
0.54 and POR 0.54 -> 0.66 (the paper: 0.55 and 0.70); OFR has no VC to spare. The paper's ACK/NAK
handling between routers is not modelled: credits stand for it.
- **Traffic.** Messages of 96 packets leave their NIC at 2.4 gamma0 at most. Butterfly flips bit
`seq mod n` of the node index, `seq` counting each source's messages, and its messages arrive
periodically (`traffic.arrivals = "periodic"`): every node's i-th message comes within one period
of the others', so the FFT's stages run in step, all traffic on one bit at a time, as the paper's
pattern means. It is measured over an even number of whole rounds of its stages (at least the
mode's window, after at least one round of warm-up), so that the two halves of the window hold the
same stages. Other patterns arrive by Bernoulli trials. The paper does not give its arrival
process, warm-up, window or saturation test; the ones used here are stated above.
- **Minimal directions.** Routers take one minimal way per dimension (`one_way_ties`: `+` at
distance k/2), as §3.1 has it: every dimension with s_i != t_i has one mu-link and one nu-link. ABR
therefore loads the `+` link of each ring with 10/8 of the `-` link's uniform traffic at k = 8
(36/32 at k = 16), and sends butterfly's k/2 stage one way. POR and OFR may take the other
half-ring as an orthant or IDN that adds no hop (`zero_dilation`), chosen by eq. (15) like any
other: that is the capacity the paper's POR/OFR-over-ABR ratios on uniform traffic (1.27 at k = 8,
1.14 at k = 16) match. Measured apart from this run with the same search on 8x8x8 uniform (one
escape VC for POR, as before), dropping those routes costs POR 0.52 -> 0.51 and OFR 0.57 ->
0.51.{butterfly}
"""
_DOR = "`dor` (dimension order, datelines; the baseline, not in the paper), "
_READINGS = """

### Two readings of eq. (15)

POR's and OFR's derouting ratios with u* the least used link minimal towards the destination (this
reproduction's reading) and with u* the least used of all the source's outgoing links (the text's
'a link going out from s'), one run each, beside Table 3 (always 16x16x16). 'At no extra hop': the
share of all packets sent the other way round a half-ring tie.

{table}"""
_STAGES = """\
## Butterfly/FFT: stages in step

Every node sends one message per stage, flipping one bit of its index; the stage that flips the top
bit of a coordinate sends every message k/2 hops round its ring, the same way for every node. With
one minimal way per dimension that stage fits in its own message period up to gamma = {one:.2f}
(each `+` link carries k/2 messages per period); using both directions, which only derouting does,
up to {both:.2f} (the same on every k x k x k torus, gamma0 falling as 1/k). Beyond, the stage's
backlog spills into the next, lighter stages, and the lifetime leaves its low-load level while
staying bounded, until the rounds themselves no longer fit. Measured on {measured}
(`butterfly_stages.csv`): the knee is the highest load with every load below it sustained at a
lifetime at most {knee:g}x that at 0.1; sustained, the highest load up to which every load is
(lifetime bounded, measured over whole rounds).

{table}"""
_INVERSIONS = """\
Loads whose verdict is out of order with the search's final bracket (not sustained below gamma*,
mostly because the halves of its window disagreed where a higher load's agreed, or sustained above
the bracket): {found}.

"""
_BOUNDS = """\
- **Against the bounds**, k = {k}: the best adaptive router's gamma* and the most any minimal
routing can sustain (the even split in brackets): {found}. Only derouting can pass the minimal
bound; well below it, throughput is lost to something else than the pattern's link loads (escape
channels, message bursts)."""
_SIZES = """\
- **Sizes and windows.** This run covers 8x8x8 (and 16x8x8 for transposition) only, {windows};
Table 3 and the figures are at that size, the paper's at 16x16x16."""
_EQ15 = """\
- **eq. (15).** u* is read as the least used link minimal towards the destination; read as written
(the least used of all outgoing links) the first fraction never exceeds 1 and routes that add hops
rarely win. Derouted ratios at k = {k}, this reading against the text's: {found}; this reading is
the nearer to Table 3 in {nearer} of {compared}. OFR's OutFlank IDNs on butterfly, the paper's
outflanking: {oidn} against {oidn_text} of the packets (paper {paper} at k = 16)."""
_BUTTERFLY = """\
- **Butterfly's gamma\\*.** Over whole rounds the lifetime stays bounded past the knee ({found}):
the backlog of each k/2 stage drains in the lighter stages after it. The knee is where the k/2
stages stop fitting in their period, {one:.2f} one way and {both:.2f} both ways."""
_PAST = """\
{r}'s {g} passes even both ways' {both:.2f}, where ours leaves its low-load level at
{knee}: the paper's router moved more of the k/2 stage off its ring than ours does"""
_AGREE = """\
 Where they agree, the paper's saturation test ('the average lifetime grows to infinity') reads as
growth within a stage, or its sources stall (ACK/NAK) where these queue; read that way, its
butterfly gamma* measures how much of the k/2 stage a router moves off the loaded direction, and a
router that uses both ways doubles the stage's capacity, the paper's headline."""
_POR_LAGS = """\
 POR's knee at k = {k} is no higher than ABR's: its derouting does not relieve the k/2 stages as
the paper's POR, tuned for itself, does."""


def _table2_md(t2: Rows, cfg: Config) -> list[str]:
    # gamma* 0: no load run was sustained; say below which one.
    g = {
        (r["pattern"], r["router"], r["k"]): r["gamma_star"]
        if r["gamma_star"] or r["first_unsustained"] == ""
        else f"< {fmt(r['first_unsustained'])}"
        for r in t2
    }
    bounds = {(r["pattern"], r["k"]): r for r in t2}
    header = ["pattern"]
    for k in cfg.sizes:
        header += [f"{ROUTER_TITLES[router]} k={k}" for router in cfg.routers]
        header += [f"split k={k}", f"reached k={k}", f"bound k={k}"]
    rows = []
    for pattern in cfg.patterns:
        row = [PATTERNS[pattern]]
        for k in cfg.sizes:
            for router in cfg.routers:
                paper = PAPER_TABLE2.get((pattern, router, k))
                ours = fmt(g.get((pattern, router, k)))
                row.append(f"{ours} ({fmt(paper)})" if paper is not None else ours)
            b = bounds.get((pattern, k), {})
            row += [fmt(b.get(c)) for c in ("even_split", "minimal_reached", "minimal_bound")]
        rows.append(row)
    return md_table(header, rows)


def _stages_md(stage_rows: Rows) -> list[str]:
    sizes = by_size(stage_rows)
    rows = []
    for k, mine in sizes.items():
        for router, (knee, bounded) in stage_summary(mine).items():
            paper = PAPER_TABLE2.get(("butterfly", router, k))
            life = {r["load"]: r["lifetime_us"] for r in mine if r["router"] == router}
            lives = " / ".join(fmt(life.get(g)) for g in (0.1, 0.3, 0.5))
            rows.append([k, ROUTER_TITLES[router], fmt(paper), fmt(knee), fmt(bounded), lives])
    header = ["k", "router", "paper gamma*", "knee", "sustained to"]
    table = "\n".join(md_table([*header, "lifetime at 0.1 / 0.3 / 0.5 (us)"], rows))
    one, both = (stage_capacity(min(sizes), ways) for ways in (1, 2))
    measured = ", ".join(f"{k}x{k}x{k}" for k in sizes)
    return _md(_STAGES, one=one, both=both, measured=measured, knee=KNEE, table=table).split("\n")


def _failure(r: Row) -> str:
    """Which test a load that was not sustained failed ("sustained" if it was)."""
    if r["sustained"]:
        return "sustained"
    if r.get("status") not in ("ok", "", None):
        return str(r["status"])
    if not r["converged"]:
        return "halves disagree"
    return "not drained" if not r["drained"] else "accepted short of offered"


def _inversions_md(rows: Rows) -> str:
    found = [
        f"{ROUTER_TITLES[router]} {pattern} at k = {k}: "
        + ", ".join(f"{fmt(r['load'])} ({_failure(r)})" for r in bad)
        for (pattern, router, k), w in _walks(rows).items()
        if (bad := inverted(w))
    ]
    return _md(_INVERSIONS, found="; ".join(found)) if found else ""


def _claims(t2: Rows, cfg: Config) -> list[str]:
    g = {(r["pattern"], r["router"], r["k"]): r["gamma_star"] for r in t2}
    lines = []
    for k in cfg.sizes:
        gains = []
        for pattern in cfg.patterns:
            a, o = g.get((pattern, "abr", k)), g.get((pattern, "ofr", k))
            if a and o:
                gains.append(f"{PATTERNS[pattern]} {100 * (o / a - 1):+.0f}%")
        if gains:
            low, high = (100 * x for x in PAPER_OFR_OVER_ABR_16)
            paper = f" (paper, k = 16: {low:+.0f}% uniform to {high:+.0f}% butterfly)"
            lines.append(f"- OFR over ABR, k = {k}: {', '.join(gains)}{paper if k == 16 else ''}.")
        wins = {"ofr": 0, "por": 0, "draw": 0}
        for pattern in cfg.patterns:
            p, o = g.get((pattern, "por", k)), g.get((pattern, "ofr", k))
            if p is not None and o is not None:
                wins["draw" if abs(o - p) < 1e-9 else ("ofr" if o > p else "por")] += 1
        paper = {8: "POR 2, OFR 1, draw 2", 16: "OFR 3, POR 1, draw 1"}.get(k, "-")
        lines.append(
            f"- OFR against POR, k = {k}: OFR wins {wins['ofr']}, POR {wins['por']}, "
            f"draw {wins['draw']} (paper: {paper})."
        )
        if "dor" in cfg.routers:
            worst = [
                p
                for p in cfg.patterns
                if all(g.get((p, "dor", k), 0) <= g.get((p, r, k), 0) for r in cfg.routers)
            ]
            lines.append(
                f"- DOR (not in the paper) has the lowest gamma* at k = {k} on "
                f"{len(worst)} of {len(cfg.patterns)} patterns."
            )
    return lines


def summarise(
    cfg: Config,
    rows: Rows,
    t2: Rows,
    t3: Rows,
    seconds: float,
    sims: int,
    sim_seconds: float,
    stage_rows: Rows | None = None,
    reading_rows: Rows | None = None,
) -> str:
    t3_md = [[r["paper_pattern"], r["k"], *(_vs(r, c) for c in TABLE3_COLUMNS)] for r in t3]
    t3_header = ["pattern", "k", "OFR/OIDN", "OFR/WIDN", "OFR (TOT)", "POR"]
    text = _md(
        _SUMMARY,
        title=TITLE,
        cfg=cfg,
        variants="" if cfg.mode == "full" else f", their `{cfg.mode}` variants",
        sizes=", ".join(map(str, cfg.sizes)),
        convergence=f"{100 * cfg.convergence:.0f}%",
        sims=sims,
        sim_time=duration(sim_seconds),
        this_run=duration(seconds),
        dor=_DOR if "dor" in cfg.routers else "",
        transposition=", ".join(topology("transpose", k).split(":")[1] for k in cfg.sizes),
        phases=BOUND_PHASES,
        table2="\n".join(_table2_md(t2, cfg)),
        claims="\n".join(_claims(t2, cfg)),
        inversions=_inversions_md(rows),
        table3="\n".join(md_table(t3_header, t3_md)),
        readings=_md(_READINGS, table="\n".join(_readings_md(reading_rows)))
        if reading_rows
        else "",
        stages="\n\n" + "\n".join(_stages_md(stage_rows)) if stage_rows else "",
        differences="".join(d + "\n" for d in _differences(t2, cfg, reading_rows)),
        butterfly="".join("\n" + d for d in _butterfly_difference(stage_rows)),
    )
    deadlocks = [
        f"- {r['router']} {r['pattern']} {r['topology']} at {r['load']}: {r['error']}"
        for r in rows
        if r["status"] == "deadlock"
    ]
    return text + "".join(d + "\n" for d in ["\n## Deadlocks\n", *deadlocks] if deadlocks)


def _butterfly_difference(stage_rows: Rows | None) -> list[str]:
    """Why Table 2's butterfly differs from the paper's, from the stages."""
    if not stage_rows:
        return []
    sizes = by_size(stage_rows)
    found = {k: stage_summary(mine) for k, mine in sizes.items()}
    k0 = min(sizes)

    def listed(values: dict[str, Any], i: int | None = None) -> str:
        return ", ".join(
            f"{ROUTER_TITLES[r]} {fmt(v if i is None else v[i])}" for r, v in values.items()
        )

    summary = (
        f"k = {k}, sustained up to {listed(f, 1)}, knee {listed(f, 0)}" for k, f in found.items()
    )
    one, both = (stage_capacity(k0, ways) for ways in (1, 2))
    text = _md(_BUTTERFLY, found="; ".join(summary), one=one, both=both)
    for k, f in found.items():
        paper = {r: PAPER_TABLE2[b] for r in f if (b := ("butterfly", r, k)) in PAPER_TABLE2}
        if not paper:
            continue
        both = stage_capacity(k, 2)
        at_knee = [r for r, g in paper.items() if abs(g - f[r][0]) <= 0.1 + 1e-9]
        past = [r for r, g in paper.items() if r not in at_knee and g > 1.1 * both]
        near = ", ".join(ROUTER_TITLES[r] for r in at_knee) or "none"
        text += f" At k = {k} the paper's gamma* ({listed(paper)}) is within 0.1 of the knee for "
        text += f"{near} of {len(paper)}"
        for r in past:
            text += "; " + _md(
                _PAST, r=ROUTER_TITLES[r], g=fmt(paper[r]), both=both, knee=fmt(f[r][0])
            )
        text += "."
    text += _md(_AGREE)
    f0, g0 = found[k0], {r: PAPER_TABLE2.get(("butterfly", r, k0), 0) for r in ("abr", "por")}
    if {"abr", "por"} <= set(f0) and f0["por"][0] <= f0["abr"][0] and g0["por"] > g0["abr"]:
        text += _md(_POR_LAGS, k=k0)
    return [text]


def _differences(t2: Rows, cfg: Config, reading_rows: Rows | None) -> list[str]:
    """The measured-dependent items of "Where and why the numbers differ"."""
    out = []
    diffs = [r["gamma_star"] - r["paper_gamma_star"] for r in t2 if r["paper_gamma_star"] != ""]
    if diffs:
        within = sum(1 for d in diffs if abs(d) <= 0.1 + 1e-9)
        out.append(
            f"- **gamma\\***: {within} of {len(diffs)} entries within 0.1 of the paper's; "
            f"on average {statistics.fmean(diffs):+.2f} gamma0 against it."
        )
    big = max(cfg.sizes)
    tops: dict[str, Rows] = {}
    for r in t2:
        if r["k"] == big and r["gamma_star"] != "" and r["router"] != "dor":
            tops.setdefault(r["pattern"], []).append(r)
    best = {p: max(rs, key=lambda r: float(r["gamma_star"])) for p, rs in tops.items()}
    if best:
        found = "; ".join(
            f"{PATTERNS[p]} {float(r['gamma_star']):.2f} ({ROUTER_TITLES[r['router']]}) of "
            f"{float(r['minimal_bound']):.2f} (even split {float(r['even_split']):.2f})"
            for p, r in best.items()
        )
        out.append(_md(_BOUNDS, k=big, found=found))
    if reading_rows:
        out.append(_reading_difference(reading_rows))
    if 16 not in cfg.sizes:
        windows = (
            f"with the paper-sized windows of this mode (known to {cfg.resolution:g})"
            if cfg.mode == "full"
            else f"with short windows, so gamma* is coarse (known to {cfg.resolution:g})"
        )
        out.append(_md(_SIZES, windows=windows))
    return out


def _reading_difference(rows: Rows) -> str:
    """Which reading of eq. (15) Table 3 supports, from `readings`."""
    k = max(int(r["k"]) for r in rows)
    at = {(int(r["k"]), r["router"], r["pattern"], r["reading"]): r for r in rows}

    def ratio(router: str, pattern: str, reading: str, key: str = "ratio_derouted") -> str:
        r = at.get((k, router, pattern, reading))
        return fmt(r[key]) if r is not None and r[key] != "" else "-"

    found, closer = [], {"minimal": 0, "as written": 0}
    for router in ("por", "ofr"):
        for pattern in ("uniform", "butterfly"):
            paper = PAPER_TABLE3[pattern][2 if router == "ofr" else 3]
            mine, text = ratio(router, pattern, "minimal"), ratio(router, pattern, "as written")
            found.append(
                f"{ROUTER_TITLES[router]} {PATTERNS[pattern]} {mine} against {text} "
                f"(paper {fmt(paper)})"
            )
            if "-" not in (mine, text):
                nearer = abs(float(mine) - paper) <= abs(float(text) - paper)
                closer["minimal" if nearer else "as written"] += 1
    return _md(
        _EQ15,
        k=k,
        found="; ".join(found),
        nearer=closer["minimal"],
        compared=sum(closer.values()),
        oidn=ratio("ofr", "butterfly", "minimal", "ratio_oidn"),
        oidn_text=ratio("ofr", "butterfly", "as written", "ratio_oidn"),
        paper=fmt(PAPER_TABLE3["butterfly"][0]),
    )


# Entry point ---------------------------------------------------------------


def run(
    out: Path,
    quick: bool = False,
    tiny: bool = False,
    workers: int = 2,
    progress: bool = True,
) -> Path:
    """Runs (or resumes) the specs' full, ``quick`` or ``tiny`` variants into
    ``out``/PART and writes the outputs into ``out``; returns ``summary.md``."""
    mode = "tiny" if tiny else "quick" if quick else "full"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    accept = ("ok", "undrained", "deadlock")
    tables = sweep_specs(SPECS, PARTS, mode, out, workers, progress, accept, ("points",))
    seconds = time.perf_counter() - t0
    cfg = config_of(mode, tables["searches"], workers)
    rows = search_rows(tables["searches"])
    sims = [tables[p] for p in PARTS[1:]]
    curve_rows, stage_sims, reading_sims = (sim_rows(t, cfg.tolerance) for t in sims)
    stage_rows, reading_rows = butterfly_stages(stage_sims), readings(reading_sims)
    t2, t3 = table2(rows, cfg), table3(rows, cfg)
    for name, fields, table in (
        ("loads", LOAD_FIELDS, rows),
        ("curves", LOAD_FIELDS[:-2], curve_rows),
        ("table2", TABLE2_FIELDS, t2),
        ("table3", TABLE3_FIELDS, t3),
        ("table3_readings", READING_FIELDS, reading_rows),
        ("butterfly_stages", STAGE_FIELDS, stage_rows),
    ):
        write_csv(out / f"{name}.csv", fields, table)
    plot_lifetime(rows, curve_rows + stage_sims, cfg, out / "fig4_lifetime.png")
    plot_derouted(rows, stage_sims, cfg, out / "fig5_derouted_butterfly.png")
    plot_stages(stage_rows, out / "fig_butterfly_stages.png")
    count = sum(map(len, sims)) + len(rows)
    sim_seconds = sum(float(r["wall_seconds"] or 0) for r in rows) + sum(
        float(t["result.wall_seconds"].sum()) for t in sims
    )
    summary = out / "summary.md"
    summary.write_text(
        summarise(cfg, rows, t2, t3, seconds, count, sim_seconds, stage_rows, reading_rows)
    )
    meta = {"reproduction": NAME, "mode": mode, "started": started, "seconds": round(seconds, 2)}
    meta |= {"simulations": count, "simulation_seconds": round(sim_seconds, 1)}
    write_run_json(out / "run.json", meta | {"sizes": list(cfg.sizes)}, workers)
    return summary
