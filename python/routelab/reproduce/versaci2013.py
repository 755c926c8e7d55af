"""Versaci and Bilardi (2013), "OutFlank Routing: Increasing Throughput in
Toroidal Interconnection Networks": the simulations of Section 4.

The runs are three experiment specs in ``specs/versaci2013/``, run with
``routelab.sweep`` into subdirectories of the output directory (a second
run resumes there):

- ``searches.toml``: one saturation search (Rust's ``saturate``) per
  network, router and pattern: Table 2's gamma*, and every load it measured
  (Table 3's derouting ratios, Figs. 4-5).
- ``stages.toml``: butterfly's lifetime against gamma per router, beside the
  loads up to which its k/2 stages fit in their period one way and both ways
  (`stage_capacity`): where the paper's butterfly gamma* comes from.
- ``readings.toml``: POR's and OFR's derouting under both readings of
  eq. (15), beside Table 3.

Each has a ``quick`` (8x8x8, short windows) and a ``tiny`` (4x4x4, for
tests) variant. This module turns their tables into the outputs, beside the
paper's values (``papers/versaci2013.toml``):

1. ``loads.csv``: every load every search measured: offered and accepted
   load, average packet lifetime (generation to delivery), whether it was
   sustained, derouted packets by kind.
2. ``table2.csv``: gamma* per router, pattern and size, with the bounds of
   minimal routing (`even_split`, `routing_bound`).
3. ``table3.csv``, ``table3_readings.csv``: the ratios of derouted packets.
4. ``curves.csv``: six loads per pattern and router below every gamma*
   (``curves.toml``), which with butterfly's stage sweep and the searches'
   sustained loads draw ``fig4_lifetime.png`` and
   ``fig5_derouted_butterfly.png``.
5. ``butterfly_stages.csv``, ``fig_butterfly_stages.png``.

A load is sustained when every packet generated in its window is delivered
within the drain limit, accepted throughput is within 5% of offered and the
window's halves agree within 10% (messages of 96 packets make short windows
noisy). gamma* is the low end of the search's final bracket: the highest
load sustained below the lowest one that was not (the paper: "the largest
shown offered load ... is its maximum sustained throughput"). The load unit
is the paper's: gamma = 1 is the per-node rate at which uniform traffic
saturates the bisection (``load_unit = "bisection"``).
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

NAME = "versaci2013"
TITLE = (
    "Versaci, Bilardi: OutFlank Routing: Increasing Throughput in Toroidal "
    "Interconnection Networks (2013)"
)
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("searches", "curves", "stages", "readings")
ROUTERS = ("dor", "abr", "por", "ofr")
ROUTER_TITLES = {"dor": "DOR", "abr": "ABR", "por": "POR", "ofr": "OFR"}

# Pattern: (routelab pattern spec, the paper's name).
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
# Table 3 (16x16x16): ratio of derouted packets, (OFR OIDN, OFR WIDN, OFR
# total, POR) per pattern.
PAPER_TABLE3_K = 16
PAPER_TABLE3: dict[str, tuple[float, float, float, float]] = {
    pattern: tuple(  # type: ignore[misc]
        PAPER.find("table3", metric, pattern=pattern, k=PAPER_TABLE3_K).value
        for metric in ("ofr_oidn", "ofr_widn", "ofr_total", "por")
    )
    for pattern in PATTERNS
}
# What the text adds: OFR over ABR on 16^3 from +14% (uniform) to +114%
# (butterfly); OFR over POR up to +36% (butterfly, 16^3).
PAPER_OFR_OVER_ABR_16 = tuple(PAPER.statements["ofr_over_abr_16"])
PAPER_OFR_OVER_POR_16 = PAPER.statements["ofr_over_por_16"]

# Full mode on 2 cores, measured: k = 8 whole, and single 16x16x16 loads.
FULL_MODE_TIME = (
    "34 minutes on 2 cores for k = 8 alone (146 simulations, 39 of them "
    "stopped for their backlog); the 16x16x16 searches cost most: a load "
    "there takes 70 to 340 s of one core of a fast machine, more on 2 shared "
    "cores, and a search runs 4 to 19 loads, so the whole mode takes more "
    "than a day on 2 cores; every load is kept in its search's journal as it "
    "finishes, and a stopped run resumes there"
)

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
    ran = set(searches["routing.algorithm"])
    shown = set(searches["traffic.pattern"])
    return Config(
        mode,
        sizes,
        max(sizes),
        tuple(r for r in ROUTERS if r in ran),
        tuple(p for p in PATTERNS if p in shown),
        float(first["saturate.resolution"]),
        float(first["saturate.tolerance"]),
        float(first["run.convergence"]),
        int(first["run.warmup_cycles"]),
        int(first["run.warmup_periods"]),
        int(first["run.measure_cycles"]),
        workers,
    )


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------

LOAD_FIELDS = (
    "k",
    "topology",
    "router",
    "pattern",
    "load",
    "status",
    "error",
    "sustained",
    "drained",
    "converged",
    "offered",
    "accepted",
    "accepted_normalised",
    "lifetime_us",
    "lifetime_p99_us",
    "network_latency_us",
    "avg_hops",
    "minimal",
    "oidn",
    "widn",
    "derouted",
    "zero_dilation",
    "ratio_oidn",
    "ratio_widn",
    "ratio_derouted",
    "wall_seconds",
    # The search's answer, on each of its rows: the final bracket (highest
    # load sustained below the lowest not sustained above it).
    "search_gamma_star",
    "search_bracket_high",
)


def _derouted(router: str, counters: dict[str, int]) -> dict[str, Any]:
    """Packets by routing decision and the ratios of derouted ones."""
    minimal = int(counters.get("minimal", 0))
    oidn = int(counters.get("oidn", 0))
    widn = int(counters.get("widn", 0))
    derouted = int(counters.get("derouted", 0)) + oidn + widn
    total = minimal + derouted
    out: dict[str, Any] = {
        "minimal": minimal,
        "oidn": oidn,
        "widn": widn,
        "derouted": derouted,
        "zero_dilation": int(counters.get("zero_dilation", 0)),
    }
    if router in ("ofr", "por") and total > 0:
        out["ratio_derouted"] = derouted / total
        if router == "ofr":
            out["ratio_oidn"] = oidn / total
            out["ratio_widn"] = widn / total
    return out


def _load_row(
    p: dict[str, Any], router: str, pattern: str, topo: str, tolerance: float
) -> dict[str, Any]:
    """One simulated load (a search's point, or a run of a sim sweep) as a row
    of ``loads.csv``. A sim run is sustained by the search's test: drained,
    converged, accepted within ``tolerance`` of offered."""
    row: dict[str, Any] = dict.fromkeys(LOAD_FIELDS, "")
    row.update(k=size_of(topo), topology=topo, router=router, pattern=pattern)
    row.update(load=round(p["load"], 4), wall_seconds=round(p.get("wall_seconds") or 0, 2))
    if p["status"] in ("deadlock", "failed", "backlog"):
        why = (p.get("error") or "").splitlines()
        row.update(status=p["status"], error=why[0] if why else "", sustained=False)
        return row
    sustained = p.get("sustained")
    if sustained is None:
        sustained = (
            bool(p["drained"])
            and bool(p["converged"])
            and p["accepted"] >= (1.0 - tolerance) * p["offered"]
        )
    us = 1e-3
    row.update(
        status="ok",
        sustained=bool(sustained),
        drained=bool(p["drained"]),
        converged=bool(p["converged"]),
        offered=round(p["offered"], 6),
        accepted=round(p["accepted"], 6),
        accepted_normalised=round(p["accepted_normalised"], 4),
        lifetime_us=round(p["latency_mean"] * us, 3),
        lifetime_p99_us=round(p["latency_p99"] * us, 3),
        network_latency_us=round(p["network_latency_mean"] * us, 3),
        avg_hops=round(p["avg_hops"], 3),
    )
    row.update(_derouted(router, p.get("counters") or {}))
    return row


def search_rows(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Every load of every search, with the search's final bracket."""
    rows = []
    for r in df.to_dict("records"):
        high = r["bracket_high"]
        bracket = {
            "search_gamma_star": round(r["bracket_low"], 4),
            "search_bracket_high": "" if high is None or high != high else round(high, 4),
        }
        tol = float(r["saturate.tolerance"])
        for p in r["points"]:
            row = _load_row(
                p, r["routing.algorithm"], r["traffic.pattern"], r["network.topology"], tol
            )
            rows.append(dict(row, **bracket))
    return rows


def sim_rows(df: pd.DataFrame, tolerance: float) -> list[dict[str, Any]]:
    """The runs of a sim sweep as rows of ``loads.csv`` (with ``options``,
    the run's router options)."""
    rows = []
    for r in df.to_dict("records"):
        point = dict(r, load=r["traffic.load"], wall_seconds=r["result.wall_seconds"])
        point["status"] = "deadlock" if r["status"] == "deadlock" else "ok"
        point["counters"] = {
            k.removeprefix("counters_"): v
            for k, v in r.items()
            if k.startswith("counters_") and v == v and v is not None
        }
        row = _load_row(
            point, r["routing.algorithm"], r["traffic.pattern"], r["network.topology"], tolerance
        )
        options = r.get("routing.options") or {}
        row["options"] = json.loads(options) if isinstance(options, str) else options
        rows.append(row)
    return rows


def gamma_star(rows: list[dict[str, Any]]) -> float:
    """The search's answer when ``rows`` are one saturation search: the low
    end of its final bracket, the highest load sustained below the lowest
    load not sustained above it (a load further below that was not
    sustained, by a window's halves that disagree, is counted by
    `inverted`, not taken). Else the highest load sustained below the
    lowest one that was not (0 if the lowest load run was not)."""
    found = {r.get("search_gamma_star", "") for r in rows} - {""}
    if len(found) == 1:
        return float(found.pop())
    best = 0.0
    for r in sorted(rows, key=lambda r: r["load"]):
        if not r["sustained"]:
            break
        best = r["load"]
    return best


def inverted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The loads whose verdict is out of order with the search's final
    bracket: below gamma* and not sustained, or above the bracket's upper
    end and sustained."""
    g, h = gamma_star(rows), bracket_high(rows)
    return [
        r
        for r in rows
        if (r["load"] < g and not r["sustained"]) or (h != "" and r["load"] > h and r["sustained"])
    ]


def bracket_high(rows: list[dict[str, Any]]) -> float | str:
    """The lowest load not sustained above gamma* ("" if none was)."""
    g = gamma_star(rows)
    return min((r["load"] for r in rows if r["load"] > g and not r["sustained"]), default="")


# --------------------------------------------------------------------------
# Two readings of eq. (15)
# --------------------------------------------------------------------------

#: eq. (15)'s u*, by the router option that sets it: the least used link
#: minimal towards the destination (the reproduction's), or the least used of
#: all the source's outgoing links, as the text has it ("a link going out
#: from s"). readings.toml runs both.
READINGS = {"minimal": "minimal", "all": "as written"}
READING_FIELDS = (
    "k",
    "pattern",
    "router",
    "reading",
    "load",
    "sustained",
    "ratio_oidn",
    "ratio_widn",
    "ratio_derouted",
    "zero_dilation",
    "avg_hops",
    "paper_ratio_oidn",
    "paper_ratio_widn",
    "paper_ratio_derouted",
)


def readings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """POR's and OFR's derouting ratios per reading of eq. (15), beside
    Table 3 (the rows of readings.toml's runs)."""
    out = []

    def order(r: dict[str, Any]) -> tuple[Any, ...]:
        reading = r["options"].get("u_star", "minimal") != "minimal"
        return (r["k"], r["pattern"] != "uniform", r["router"] != "por", reading)

    for row in sorted(rows, key=order):
        paper = PAPER_TABLE3[row["pattern"]]
        total = row["minimal"] + row["derouted"] if row["status"] == "ok" else 0
        ofr = row["router"] == "ofr"
        out.append(
            {
                **{k: row[k] for k in ("k", "pattern", "router", "load", "sustained")},
                "reading": READINGS[row["options"].get("u_star", "minimal")],
                **{k: row[k] for k in ("ratio_oidn", "ratio_widn", "ratio_derouted", "avg_hops")},
                "zero_dilation": row["zero_dilation"] / total if total else "",
                "paper_ratio_oidn": paper[0] if ofr else "",
                "paper_ratio_widn": paper[1] if ofr else "",
                "paper_ratio_derouted": paper[2] if ofr else paper[3],
            }
        )
    return out


def _readings_md(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        kind = (
            f"{fmt(r['ratio_oidn'])} / {fmt(r['ratio_widn'])} "
            f"({fmt(r['paper_ratio_oidn'])} / {fmt(r['paper_ratio_widn'])})"
            if r["router"] == "ofr"
            else "-"
        )
        out.append(
            [
                r["k"],
                PATTERNS[r["pattern"]],
                ROUTER_TITLES[r["router"]],
                r["reading"],
                fmt(r["load"]),
                f"{fmt(r['ratio_derouted'])} ({fmt(r['paper_ratio_derouted'])})",
                kind,
                fmt(r["zero_dilation"]),
                fmt(r["avg_hops"]),
            ]
        )
    return md_table(
        [
            "k",
            "pattern",
            "router",
            "u* of eq. (15)",
            "load",
            "derouted (paper, k = 16)",
            "OIDN / WIDN (paper)",
            "of them at no extra hop",
            "hops",
        ],
        out,
    )


# --------------------------------------------------------------------------
# Butterfly's stages
# --------------------------------------------------------------------------

#: The knee: the lifetime at most this many times that at the lowest load.
KNEE = 2.0
STAGE_FIELDS = ("k", "router", "load", "lifetime_us", "lifetime_ratio", "sustained")


def stage_capacity(k: int, ways: int) -> float:
    """The load (gamma0 units) up to which a k/2 stage of butterfly fits in
    its own period: every node of a ring sends its message k/2 hops, so
    each link of the ring's ``ways`` directions in use carries k/2 / ways
    messages per message period. One way (minimal routing with one minimal
    direction) 0.25 on k x k x k tori, both ways (derouting) 0.5."""
    return ways * ROUTER_LINK_BPS / (k / 2 * gamma0_bps(f"torus:{k}x{k}x{k}"))


def butterfly_stages(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lifetime against load for butterfly per network and router (the rows
    of stages.toml's runs), with the lifetime over that at the lowest load:
    where each one's lifetime leaves its low-load level (the k/2 stages no
    longer fit in their period) and how far it stays bounded."""
    out = []
    for k in sorted({r["k"] for r in rows}):
        for router in (r for r in ROUTERS if any(x["router"] == r for x in rows)):
            mine = sorted(
                (r for r in rows if r["router"] == router and r["k"] == k),
                key=lambda r: r["load"],
            )
            # The lifetime at the lowest load, the level the knee is measured from.
            base = mine[0]["lifetime_us"] if mine and mine[0]["status"] == "ok" else None
            for r in mine:
                life = r["lifetime_us"] if r["status"] == "ok" else None
                out.append(
                    {
                        "k": k,
                        "router": router,
                        "load": r["load"],
                        "lifetime_us": life if life is not None else "",
                        "lifetime_ratio": round(life / base, 3) if life and base else "",
                        "sustained": r["sustained"],
                    }
                )
    return out


def by_size(rows: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """Stage rows grouped by network size, smallest first."""
    out: dict[int, list[dict[str, Any]]] = {}
    for r in sorted(rows, key=lambda r: int(r["k"])):
        out.setdefault(int(r["k"]), []).append(r)
    return out


def stage_summary(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Per router: the knee (the highest load up to which every load is
    sustained with a lifetime at most `KNEE` times the lowest load's)
    and the highest load up to which every load is sustained."""
    out = {}
    for router in dict.fromkeys(r["router"] for r in rows):
        knee = bounded = 0.0
        flat = True
        for r in sorted((r for r in rows if r["router"] == router), key=lambda r: r["load"]):
            if not r["sustained"]:
                break
            bounded = r["load"]
            flat = flat and r["lifetime_ratio"] != "" and r["lifetime_ratio"] <= KNEE
            if flat:
                knee = r["load"]
        out[router] = (knee, bounded)
    return out


def plot_stages(rows: list[dict[str, Any]], path: Path) -> None:
    """Lifetime against load for butterfly, each router, one panel per
    network size, the stage capacities one and both ways marked."""
    sizes = by_size(rows) or {8: []}
    fig = figure(width=6.4 * len(sizes)) if len(sizes) > 1 else figure()
    for i, (k, mine) in enumerate(sizes.items()):
        ax = fig.add_subplot(1, len(sizes), i + 1)
        _plot_stage_panel(ax, k, mine)
    fig.tight_layout()
    fig.savefig(path)


def _plot_stage_panel(ax: Any, k: int, rows: list[dict[str, Any]]) -> None:
    for router in dict.fromkeys(r["router"] for r in rows):
        pts = [r for r in rows if r["router"] == router and r["lifetime_us"] != ""]
        ax.plot(
            [r["load"] for r in pts],
            [r["lifetime_us"] for r in pts],
            marker=MARKERS[router],
            ms=4,
            color=COLORS[router],
            label=ROUTER_TITLES[router],
        )
        unsustained = [r for r in pts if not r["sustained"]]
        ax.scatter(
            [r["load"] for r in unsustained],
            [r["lifetime_us"] for r in unsustained],
            marker="x",
            s=60,
            color=COLORS[router],
        )
        paper = PAPER_TABLE2.get(("butterfly", router, k))
        if paper is not None:
            ax.axvline(paper, color=COLORS[router], alpha=0.3, lw=3)
    for ways, style in ((1, "--"), (2, ":")):
        ax.axvline(
            stage_capacity(k, ways),
            color="black",
            ls=style,
            lw=1,
            label=f"k/2 stage fits its period, {'one way' if ways == 1 else 'both ways'}",
        )
    ax.set_yscale("log")
    ax.set_xlabel("offered load gamma (gamma0 units)")
    ax.set_ylabel("average packet lifetime (us)")
    ax.set_title(
        f"Butterfly/FFT in step, k = {k}: lifetime (x: not sustained; "
        "wide lines: the paper's gamma*)",
        fontsize=9,
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


# --------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------


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
    """The gamma* of one particular minimal routing, every flow split evenly
    over all its minimal paths: the load (gamma0 units) at which its busiest
    link between routers saturates, from `routelab.minimal_split_loads`.
    Not a bound: minimal routers that spread unevenly can do better, up to
    `routing_bound`. Uniform traffic gives 1 on these k x k x k tori: an
    even split loads the bisection evenly, which is how gamma0 is defined."""
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
    (``"minimal"``: what ABR and every router that keeps to minimal paths can
    at best sustain; ``"any"``: derouting too) can exceed, and a gamma* that
    a routing over them reaches: the maximum concurrent flow's certified upper
    bound and the rate of the routing the method found, from
    `routelab.max_concurrent_flow` (links between routers; the node
    links are checked to stay below their 64 Gb/s). Uniform traffic gives 1:
    the even split reaches the bisection bound, which no routing beats."""
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


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

TABLE2_FIELDS = (
    "pattern",
    "paper_pattern",
    "k",
    "topology",
    "router",
    "gamma_star",
    "paper_gamma_star",
    "accepted_at_gamma_star",
    "first_unsustained",
    "loads_run",
    "out_of_order",
    "even_split",
    "minimal_reached",
    "minimal_bound",
)
TABLE3_FIELDS = (
    "pattern",
    "paper_pattern",
    "k",
    "loads",
    "ofr_oidn",
    "ofr_widn",
    "ofr_total",
    "por",
    "paper_k",
    "paper_ofr_oidn",
    "paper_ofr_widn",
    "paper_ofr_total",
    "paper_por",
)


def _walks(rows: list[dict[str, Any]]) -> dict[tuple[str, str, int], list[dict[str, Any]]]:
    out: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault((r["pattern"], r["router"], r["k"]), []).append(r)
    for v in out.values():
        v.sort(key=lambda r: r["load"])
    return out


def table2(rows: list[dict[str, Any]], cfg: Config) -> list[dict[str, Any]]:
    walks = _walks(rows)
    out = []
    for k in cfg.sizes:
        for pattern in cfg.patterns:
            split = round(even_split(pattern, k), 3)
            upper, reached = routing_bound(pattern, k)
            # Rounded up and down: a bound stays a bound, a rate reached stays reached.
            bound = math.ceil(upper * 1000) / 1000
            reached = math.floor(reached * 1000) / 1000
            for router in cfg.routers:
                w = walks.get((pattern, router, k), [])
                g = gamma_star(w)
                at = next((r for r in w if r["load"] == g), None)
                fail = bracket_high(w)
                out.append(
                    {
                        "pattern": pattern,
                        "paper_pattern": PATTERNS[pattern],
                        "k": k,
                        "topology": topology(pattern, k),
                        "router": router,
                        "gamma_star": g,
                        "paper_gamma_star": PAPER_TABLE2.get((pattern, router, k), ""),
                        "accepted_at_gamma_star": at["accepted_normalised"] if at else "",
                        "first_unsustained": fail,
                        "loads_run": len(w),
                        "out_of_order": len(inverted(w)),
                        "even_split": split,
                        "minimal_reached": reached,
                        "minimal_bound": bound,
                    }
                )
    return out


def _mean_ratio(w: list[dict[str, Any]], key: str) -> float | None:
    """Mean of a derouted ratio over the sustained loads (the paper: stable
    for gamma <= gamma*)."""
    vals = [r[key] for r in w if r["sustained"] and r[key] != ""]
    return round(statistics.fmean(vals), 4) if vals else None


def table3(rows: list[dict[str, Any]], cfg: Config) -> list[dict[str, Any]]:
    walks = _walks(rows)
    out = []
    for k in cfg.sizes:
        for pattern in cfg.patterns:
            ofr = walks.get((pattern, "ofr", k), [])
            por = walks.get((pattern, "por", k), [])
            paper = PAPER_TABLE3[pattern]
            out.append(
                {
                    "pattern": pattern,
                    "paper_pattern": PATTERNS[pattern],
                    "k": k,
                    "loads": sum(1 for r in ofr if r["sustained"]),
                    "ofr_oidn": _mean_ratio(ofr, "ratio_oidn"),
                    "ofr_widn": _mean_ratio(ofr, "ratio_widn"),
                    "ofr_total": _mean_ratio(ofr, "ratio_derouted"),
                    "por": _mean_ratio(por, "ratio_derouted"),
                    "paper_k": PAPER_TABLE3_K,
                    "paper_ofr_oidn": paper[0],
                    "paper_ofr_widn": paper[1],
                    "paper_ofr_total": paper[2],
                    "paper_por": paper[3],
                }
            )
    return out


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------

COLORS = {"dor": "tab:gray", "abr": "tab:blue", "por": "tab:green", "ofr": "tab:red"}
MARKERS = {"dor": "s", "abr": "o", "por": "^", "ofr": "D"}


def curve(
    rows: list[dict[str, Any]], extra: list[dict[str, Any]], key: tuple[str, str, int], field: str
) -> list[dict[str, Any]]:
    """One router's curve on one pattern and size: the sustained loads up to
    gamma* of its search (``rows``) and of the fixed-load runs (``extra``)
    that have ``field``, by load."""
    search = _walks(rows).get(key, [])
    g = gamma_star(search) if search else math.inf
    pts = search + _walks(extra).get(key, [])
    return sorted(
        (r for r in pts if r["sustained"] and r["load"] <= g and r[field] != ""),
        key=lambda r: r["load"],
    )


def plot_lifetime(
    rows: list[dict[str, Any]], extra: list[dict[str, Any]], cfg: Config, path: Path
) -> None:
    """Fig. 4: average packet lifetime against gamma of the paper's routers,
    sustained loads only: the searches' and the fixed-load runs' (``extra``)."""
    k = cfg.figure_size
    walks = _walks(rows)
    fig = figure(12, 7)
    axes = fig.subplots(2, 3).flatten()
    for ax, pattern in zip(axes, cfg.patterns, strict=False):
        right = 0.0
        for router in (r for r in cfg.routers if r != "dor"):
            w = walks.get((pattern, router, k), [])
            pts = curve(rows, extra, (pattern, router, k), "lifetime_us")
            if pts:
                ax.plot(
                    [r["load"] for r in pts],
                    [r["lifetime_us"] for r in pts],
                    marker=MARKERS[router],
                    ms=4,
                    color=COLORS[router],
                    label=f"{ROUTER_TITLES[router]} (gamma* {fmt(gamma_star(w))})",
                )
                right = max(right, pts[-1]["load"])
            paper = PAPER_TABLE2.get((pattern, router, k))
            if paper is not None:
                # The paper's gamma*, a hollow marker on the load axis.
                ax.plot(
                    [paper],
                    [0],
                    marker=MARKERS[router],
                    ms=7,
                    mfc="none",
                    color=COLORS[router],
                    ls="none",
                    clip_on=False,
                    transform=ax.get_xaxis_transform(),
                )
                right = max(right, paper)
        ax.set_title(f"{PATTERNS[pattern]} ({topology(pattern, k).split(':')[1]})", fontsize=9)
        ax.set_xlabel("offered load gamma (gamma0 units)", fontsize=8)
        ax.set_ylabel("average packet lifetime (us)", fontsize=8)
        ax.set_xlim(0, 1.1 * right or 1.0)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    axes[-1].axis("off")
    axes[-1].text(
        0.0,
        0.5,
        "Each curve: six loads below every router's gamma* (butterfly:\n"
        "its stage sweep) and the loads its saturation search sustained,\n"
        "up to gamma*. Hollow markers on the load axis: the paper's\n"
        "gamma* (Table 2). DOR, not in the paper, is in Table 2.",
        fontsize=8,
        transform=axes[-1].transAxes,
    )
    fig.suptitle(f"Fig. 4: average packet lifetime against gamma, k = {k} (sustained loads)")
    fig.tight_layout()
    fig.savefig(path)


def plot_derouted(
    rows: list[dict[str, Any]], extra: list[dict[str, Any]], cfg: Config, path: Path
) -> None:
    """Fig. 5: ratio of derouted packets against gamma for butterfly, at the
    sustained loads of the searches and of the stage sweep (``extra``)."""
    k = cfg.figure_size
    fig = figure()
    ax = fig.add_subplot()
    # Each series its own colour, marker and line; the paper's Table 3
    # values as thin dashed lines of the same colour.
    series = (
        ("ofr", "ratio_oidn", "OFR OIDN", "--", "v", "tab:orange", 0),
        ("ofr", "ratio_widn", "OFR WIDN", ":", "^", "tab:purple", 1),
        ("ofr", "ratio_derouted", "OFR total", "-", "D", COLORS["ofr"], 2),
        ("por", "ratio_derouted", "POR", "-", "o", COLORS["por"], 3),
    )
    paper = PAPER_TABLE3["butterfly"]
    for router, key, label, style, marker, color, i in series:
        pts = curve(rows, extra, ("butterfly", router, k), key)
        if pts:
            ax.plot(
                [r["load"] for r in pts],
                [r[key] for r in pts],
                style,
                marker=marker,
                ms=5,
                color=color,
                label=label,
            )
        ax.axhline(
            paper[i], color=color, ls=(0, (6, 3)), lw=1, alpha=0.8, label=f"paper {label}, k = 16"
        )
    ax.set_xlabel("offered load gamma (gamma0 units)")
    ax.set_ylabel("ratio of derouted packets")
    ax.set_ylim(0, 1)
    ax.set_title(f"Fig. 5: derouted packets, butterfly, k = {k} (paper: k = 16)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


# --------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------


def _table2_md(t2: list[dict[str, Any]], cfg: Config) -> list[str]:
    # gamma* 0: no load run was sustained; say below which one.
    g = {
        (r["pattern"], r["router"], r["k"]): r["gamma_star"]
        if r["gamma_star"] or r["first_unsustained"] == ""
        else f"< {fmt(r['first_unsustained'])}"
        for r in t2
    }
    bound = {(r["pattern"], r["k"]): r["minimal_bound"] for r in t2}
    split = {(r["pattern"], r["k"]): r["even_split"] for r in t2}
    reached = {(r["pattern"], r["k"]): r["minimal_reached"] for r in t2}
    header = ["pattern"]
    for k in cfg.sizes:
        for router in cfg.routers:
            header.append(f"{ROUTER_TITLES[router]} k={k}")
        header += [f"split k={k}", f"reached k={k}", f"bound k={k}"]
    rows = []
    for pattern in cfg.patterns:
        row = [PATTERNS[pattern]]
        for k in cfg.sizes:
            for router in cfg.routers:
                paper = PAPER_TABLE2.get((pattern, router, k))
                ours = fmt(g.get((pattern, router, k)))
                row.append(f"{ours} ({fmt(paper)})" if paper is not None else ours)
            row += [fmt(m.get((pattern, k))) for m in (split, reached, bound)]
        rows.append(row)
    return md_table(header, rows)


def _table3_md(t3: list[dict[str, Any]]) -> list[str]:
    rows = []
    for r in t3:
        rows.append(
            [
                r["paper_pattern"],
                r["k"],
                f"{fmt(r['ofr_oidn'])} ({fmt(r['paper_ofr_oidn'])})",
                f"{fmt(r['ofr_widn'])} ({fmt(r['paper_ofr_widn'])})",
                f"{fmt(r['ofr_total'])} ({fmt(r['paper_ofr_total'])})",
                f"{fmt(r['por'])} ({fmt(r['paper_por'])})",
            ]
        )
    return md_table(["pattern", "k", "OFR/OIDN", "OFR/WIDN", "OFR (TOT)", "POR"], rows)


def _stages_md(stage_rows: list[dict[str, Any]]) -> list[str]:
    """Butterfly's stages: where each router's lifetime leaves its low-load
    level against how far it stays bounded, beside the paper's gamma*, for
    every network size run."""
    sizes = by_size(stage_rows)
    k0 = min(sizes)
    one, both = stage_capacity(k0, 1), stage_capacity(k0, 2)
    rows = []
    for k, mine in sizes.items():
        for router, (knee, bounded) in stage_summary(mine).items():
            paper = PAPER_TABLE2.get(("butterfly", router, k))
            life = {r["load"]: r["lifetime_us"] for r in mine if r["router"] == router}
            rows.append(
                [
                    k,
                    ROUTER_TITLES[router],
                    fmt(paper),
                    fmt(knee),
                    fmt(bounded),
                    " / ".join(fmt(life.get(g)) for g in (0.1, 0.3, 0.5)),
                ]
            )
    measured = ", ".join(f"{k}x{k}x{k}" for k in sizes)
    return [
        "## Butterfly/FFT: stages in step",
        "",
        "Every node sends one message per stage, flipping one bit of its index; "
        "the stage that flips the top bit of a coordinate sends every message k/2 "
        "hops round its ring, the same way for every node. With one minimal way "
        f"per dimension that stage fits in its own message period up to gamma = "
        f"{one:.2f} (each `+` link carries k/2 messages per period); using both "
        f"directions, which only derouting does, up to {both:.2f} (the same on every "
        "k x k x k torus, gamma0 falling as 1/k). Beyond, the "
        "stage's backlog spills into the next, lighter stages, and the lifetime "
        "leaves its low-load level while staying bounded, until the rounds "
        f"themselves no longer fit. Measured on {measured} ("
        f"`butterfly_stages.csv`): the knee is the highest load with every load "
        f"below it sustained at a lifetime at most {KNEE:g}x that at 0.1; "
        "sustained, the highest load up to which every load is (lifetime bounded, "
        "measured over whole rounds).",
        "",
        *md_table(
            [
                "k",
                "router",
                "paper gamma*",
                "knee",
                "sustained to",
                "lifetime at 0.1 / 0.3 / 0.5 (us)",
            ],
            rows,
        ),
    ]


def _inversions_md(rows: list[dict[str, Any]]) -> list[str]:
    """The loads whose verdicts are out of order with their search's final
    bracket, if any."""
    found = [
        f"{ROUTER_TITLES[router]} {pattern} at k = {k}: "
        + ", ".join(f"{fmt(r['load'])} ({_failure(r)})" for r in bad)
        for (pattern, router, k), w in _walks(rows).items()
        if (bad := inverted(w))
    ]
    if not found:
        return []
    return [
        "Loads whose verdict is out of order with the search's final bracket (not "
        "sustained below gamma*, mostly because the halves of its window disagreed where "
        "a higher load's agreed, or sustained above the bracket): " + "; ".join(found) + ".",
        "",
    ]


def _failure(r: dict[str, Any]) -> str:
    """Which test a load that was not sustained failed ("sustained" if it was)."""
    if r["sustained"]:
        return "sustained"
    if r.get("status") not in ("ok", "", None):
        return str(r["status"])
    if not r["converged"]:
        return "halves disagree"
    if not r["drained"]:
        return "not drained"
    return "accepted short of offered"


def _claims(t2: list[dict[str, Any]], cfg: Config) -> list[str]:
    g = {(r["pattern"], r["router"], r["k"]): r["gamma_star"] for r in t2}
    lines = []
    for k in cfg.sizes:
        gains = []
        for pattern in cfg.patterns:
            a, o = g.get((pattern, "abr", k)), g.get((pattern, "ofr", k))
            if a and o:
                gains.append(f"{PATTERNS[pattern]} {100 * (o / a - 1):+.0f}%")
        if gains:
            paper = (
                f" (paper, k = 16: {100 * PAPER_OFR_OVER_ABR_16[0]:+.0f}% uniform to "
                f"{100 * PAPER_OFR_OVER_ABR_16[1]:+.0f}% butterfly)"
                if k == 16
                else ""
            )
            lines.append(f"- OFR over ABR, k = {k}: " + ", ".join(gains) + paper + ".")
        wins = {"ofr": 0, "por": 0, "draw": 0}
        for pattern in cfg.patterns:
            p, o = g.get((pattern, "por", k)), g.get((pattern, "ofr", k))
            if p is None or o is None:
                continue
            wins["draw" if abs(o - p) < 1e-9 else ("ofr" if o > p else "por")] += 1
        paper = {8: "POR 2, OFR 1, draw 2", 16: "OFR 3, POR 1, draw 1"}.get(k, "-")
        lines.append(
            f"- OFR against POR, k = {k}: OFR wins {wins['ofr']}, POR {wins['por']}, "
            f"draw {wins['draw']} (paper: {paper})."
        )
        if "dor" not in cfg.routers:
            continue
        dor_worst = [
            PATTERNS[p]
            for p in cfg.patterns
            if all(g.get((p, "dor", k), 0) <= g.get((p, r, k), 0) for r in cfg.routers)
        ]
        lines.append(
            f"- DOR (not in the paper) has the lowest gamma* at k = {k} on "
            f"{len(dor_worst)} of {len(cfg.patterns)} patterns."
        )
    return lines


def summarise(
    cfg: Config,
    rows: list[dict[str, Any]],
    t2: list[dict[str, Any]],
    t3: list[dict[str, Any]],
    seconds: float,
    sims: int,
    sim_seconds: float,
    stage_rows: list[dict[str, Any]] | None = None,
    reading_rows: list[dict[str, Any]] | None = None,
) -> str:
    deadlocks = [r for r in rows if r["status"] == "deadlock"]
    lines = [
        f"# {TITLE}",
        "",
        f"Mode `{cfg.mode}` (`specs/versaci2013/*.toml`"
        + ("" if cfg.mode == "full" else f", their `{cfg.mode}` variants")
        + f"): networks k = {', '.join(map(str, cfg.sizes))}; gamma* by one saturation "
        "search per router, pattern and size (`routelab.saturate`), its first bracket "
        "around the paper's gamma* (for DOR, not in the paper, around 0.3, or its 8x8x8 "
        "gamma* at k = 16), moved by doubling steps while an end is on the wrong side of "
        f"gamma*, then narrowed by thirds to {cfg.resolution:g} gamma0; warm-up periods "
        f"of {cfg.warmup_cycles} cycles until the lifetime and throughput of two in a row "
        f"agree within {100 * cfg.convergence:.0f}% (at most {cfg.warmup_periods}), then a "
        f"measurement of {cfg.measure_cycles} cycles of one 512-byte flit time on the "
        "64 Gb/s node link (64 ns), seed 1; a run whose window does not converge is not "
        f"drained, as it cannot be sustained. {sims} simulations, "
        f"{duration(sim_seconds)} of simulation in all (this run: {duration(seconds)} on "
        f"{cfg.workers} workers, finished runs kept in the stores). The full mode (both "
        f"sizes, longer windows) takes {FULL_MODE_TIME}.",
        "",
        "Table 1 parameters: 512-byte packets, store-and-forward, three VCs per link "
        "with queues of 8 packets, messages of 96 packets offered to the router at "
        "2.4 gamma0, node links 64 Gb/s / 80 ns, router links 20 Gb/s / 200 ns. "
        "Routers: "
        + (
            "`dor` (dimension order, datelines; the baseline, not in the paper), "
            if "dor" in cfg.routers
            else ""
        )
        + "`abr` (one adaptive VC, its escape network under bubble flow control on "
        "the two escape VCs), `por` (eta = 1.0, ABR-style, the same VCs), `ofr` (eta = "
        "2.0, Delta = 2, one adaptive VC, escape split into VS1 and VS2); all take one "
        "minimal way at distance k/2, and POR and OFR may take the other half-ring at "
        "no extra hop; POR and OFR read eq. (15) with u* over the links minimal towards "
        "the destination.",
        "",
        "## Table 2: maximum sustained throughput gamma*",
        "",
        "Measured (paper) in gamma0 units; a load is sustained when the packets of "
        "the measurement window all drain, accepted is within 5% of offered and the "
        f"two halves of the window agree within {100 * cfg.convergence:.0f}% in latency "
        "and throughput. Transposition runs on "
        + ", ".join(topology("transpose", k).split(":")[1] for k in cfg.sizes)
        + f". gamma* is the highest load measured sustained below the lowest one "
        f"measured not sustained, known to {cfg.resolution:g} (the paper's to 0.05: its "
        "value g means a threshold in [g, g + 0.05)). `split`: the gamma* of one minimal "
        "routing, every flow split evenly over all its minimal paths (when its "
        "busiest link between routers saturates), not a bound: a minimal router that "
        "spreads unevenly can beat it. `bound`: the gamma* no minimal routing, "
        "adaptive or not, can exceed (the maximum concurrent flow over minimal paths, "
        "a certified upper bound by LP duality, rounded up); `reached`: what a "
        "minimal routing found by the same method sustains (rounded down), so the "
        f"best minimal routing lies between the two ({BOUND_PHASES} phases of "
        "multiplicative weights). Links between routers only; 1 for uniform traffic, "
        "where the even split reaches the bisection bound.",
        "",
    ]
    lines += _table2_md(t2, cfg)
    lines += ["", *_claims(t2, cfg), "", *_inversions_md(rows)]
    lines += [
        "## Table 3: ratio of derouted packets",
        "",
        "Measured (paper, always 16x16x16): mean over the sustained loads of the "
        "packets OFR sends through an OutFlank IDN (OIDN) or a Wraparound IDN (WIDN), "
        "and of those POR sends out of the minimal orthant.",
        "",
    ]
    lines += _table3_md(t3)
    if reading_rows:
        lines += [
            "",
            "### Two readings of eq. (15)",
            "",
            "POR's and OFR's derouting ratios with u* the least used link minimal "
            "towards the destination (this reproduction's reading) and with u* the "
            "least used of all the source's outgoing links (the text's 'a link going "
            "out from s'), one run each, beside Table 3 (always 16x16x16). 'At no "
            "extra hop': the share of all packets sent the other way round a "
            "half-ring tie.",
            "",
            *_readings_md(reading_rows),
        ]
    if stage_rows:
        lines += ["", *_stages_md(stage_rows)]
    lines += [
        "",
        "## Figures",
        "",
        f"- `fig4_lifetime.png`: average packet lifetime against gamma, k = "
        f"{cfg.figure_size} (the paper's Fig. 4 is k = 16).",
        f"- `fig5_derouted_butterfly.png`: derouted ratio against gamma for butterfly, "
        f"k = {cfg.figure_size}.",
        "- `fig_butterfly_stages.png`: butterfly's lifetime against gamma on each "
        "network size, the stage capacities one and both ways marked "
        "(`butterfly_stages.csv`).",
        "",
        "## Where and why the numbers differ",
        "",
        *_differences(t2, t3, cfg, stage_rows, reading_rows),
        "",
    ]
    if deadlocks:
        lines += ["## Deadlocks", ""]
        lines += [
            f"- {r['router']} {r['pattern']} {r['topology']} at {r['load']}: {r['error']}"
            for r in deadlocks
        ]
        lines.append("")
    return "\n".join(lines)


def _butterfly_difference(stage_rows: list[dict[str, Any]] | None) -> list[str]:
    """Why Table 2's butterfly differs from the paper's, from the stages."""
    if not stage_rows:
        return []
    sizes = by_size(stage_rows)
    k0 = min(sizes)
    one, both = stage_capacity(k0, 1), stage_capacity(k0, 2)

    def listed(found: dict[str, tuple[float, float]], i: int) -> str:
        return ", ".join(f"{ROUTER_TITLES[r]} {fmt(v[i])}" for r, v in found.items())

    per_size = "; ".join(
        f"k = {k}, sustained up to {listed(f, 1)}, knee {listed(f, 0)}"
        for k, f in ((k, stage_summary(m)) for k, m in sizes.items())
    )
    text = (
        "- **Butterfly's gamma\\*.** Over whole rounds the lifetime stays bounded "
        f"past the knee ({per_size}): the backlog of each k/2 stage drains in the "
        "lighter stages after it. The knee is where the k/2 stages stop fitting in their "
        f"period, {one:.2f} one way and {both:.2f} both ways."
    )
    for k, mine in sizes.items():
        found = stage_summary(mine)
        paper = {
            r: PAPER_TABLE2[("butterfly", r, k)]
            for r in found
            if ("butterfly", r, k) in PAPER_TABLE2
        }
        if not paper:
            continue
        at_knee = [r for r, g in paper.items() if abs(g - found[r][0]) <= 0.1 + 1e-9]
        past = [r for r, g in paper.items() if r not in at_knee and g > 1.1 * stage_capacity(k, 2)]
        text += (
            f" At k = {k} the paper's gamma* ("
            + ", ".join(f"{ROUTER_TITLES[r]} {fmt(g)}" for r, g in paper.items())
            + ") is within 0.1 of the knee for "
            + (", ".join(ROUTER_TITLES[r] for r in at_knee) or "none")
            + f" of {len(paper)}"
        )
        if past:
            text += "; " + "; ".join(
                f"{ROUTER_TITLES[r]}'s {fmt(paper[r])} passes even both ways' "
                f"{stage_capacity(k, 2):.2f}, where ours leaves its low-load level at "
                f"{fmt(found[r][0])}: the paper's router moved more of the k/2 stage off "
                "its ring than ours does"
                for r in past
            )
        text += "."
    text += (
        " Where they agree, the paper's saturation test ('the average lifetime "
        "grows to infinity') reads as growth within a stage, or its sources stall "
        "(ACK/NAK) where these queue; read that way, its butterfly gamma* measures "
        "how much of the k/2 stage a router moves off the loaded direction, and a "
        "router that uses both ways doubles the stage's capacity, the paper's "
        "headline."
    )
    found0 = stage_summary(sizes[k0])
    por_lags = (
        {"abr", "por"} <= set(found0)
        and found0["por"][0] <= found0["abr"][0]
        and PAPER_TABLE2.get(("butterfly", "por", k0), 0)
        > PAPER_TABLE2.get(("butterfly", "abr", k0), 0)
    )
    if por_lags:
        text += (
            f" POR's knee at k = {k0} is no higher than ABR's: its derouting does not "
            "relieve the k/2 stages as the paper's POR, tuned for itself, does."
        )
    return [text]


def _reading_difference(rows: list[dict[str, Any]] | None) -> list[str]:
    """Which reading of eq. (15) Table 3 supports, from `readings`."""
    if not rows:
        return []
    k = max(int(r["k"]) for r in rows)

    def ratio(router: str, pattern: str, reading: str, key: str = "ratio_derouted") -> str:
        r = next(
            (
                r
                for r in rows
                if (int(r["k"]), r["router"], r["pattern"], r["reading"])
                == (k, router, pattern, reading)
            ),
            None,
        )
        return fmt(r[key]) if r is not None and r[key] != "" else "-"

    parts, closer = [], {"minimal": 0, "as written": 0}
    for router in ("por", "ofr"):
        for pattern in ("uniform", "butterfly"):
            paper = PAPER_TABLE3[pattern][2 if router == "ofr" else 3]
            mine, text = ratio(router, pattern, "minimal"), ratio(router, pattern, "as written")
            parts.append(
                f"{ROUTER_TITLES[router]} {PATTERNS[pattern]} {mine} against {text} "
                f"(paper {fmt(paper)})"
            )
            if "-" not in (mine, text):
                nearer = abs(float(mine) - paper) <= abs(float(text) - paper)
                closer["minimal" if nearer else "as written"] += 1
    oidn = (ratio("ofr", "butterfly", r, "ratio_oidn") for r in ("minimal", "as written"))
    return [
        "- **eq. (15).** u* is read as the least used link minimal towards the "
        "destination; read as written (the least used of all outgoing links) the "
        "first fraction never exceeds 1 and routes that add hops rarely win. "
        f"Derouted ratios at k = {k}, this reading against the text's: "
        + "; ".join(parts)
        + f"; this reading is the nearer to Table 3 in {closer['minimal']} of "
        f"{sum(closer.values())}. OFR's OutFlank IDNs on butterfly, the paper's "
        f"outflanking: {next(oidn)} against {next(oidn)} of the packets (paper "
        f"{fmt(PAPER_TABLE3['butterfly'][0])} at k = 16)."
    ]


def _differences(
    t2: list[dict[str, Any]],
    t3: list[dict[str, Any]],
    cfg: Config,
    stage_rows: list[dict[str, Any]] | None = None,
    reading_rows: list[dict[str, Any]] | None = None,
) -> list[str]:
    out = []
    diffs = [
        (r["gamma_star"] - r["paper_gamma_star"], r) for r in t2 if r["paper_gamma_star"] != ""
    ]
    if diffs:
        within = sum(1 for d, _ in diffs if abs(d) <= 0.1 + 1e-9)
        mean = statistics.fmean(d for d, _ in diffs)
        out.append(
            f"- **gamma\\***: {within} of {len(diffs)} entries within 0.1 of the paper's; "
            f"on average {mean:+.2f} gamma0 against it."
        )
    big = max(cfg.sizes)
    best: dict[str, tuple[float, str, float]] = {}
    best_split: dict[str, float] = {}
    for r in t2:
        if r["k"] == big and r["gamma_star"] != "" and r["router"] != "dor":
            g = float(r["gamma_star"])
            if r["pattern"] not in best or g > best[r["pattern"]][0]:
                best[r["pattern"]] = (g, r["router"], float(r["minimal_bound"]))
                best_split[r["pattern"]] = float(r["even_split"])
    if best:
        parts = [
            f"{PATTERNS[p]} {g:.2f} ({ROUTER_TITLES[router]}) of {b:.2f} "
            f"(even split {best_split[p]:.2f})"
            for p, (g, router, b) in best.items()
        ]
        out.append(
            f"- **Against the bounds**, k = {big}: the best adaptive router's gamma* "
            "and the most any minimal routing can sustain (the even split in brackets): "
            + "; ".join(parts)
            + ". Only derouting can pass the minimal bound; well below it, throughput "
            "is lost to something else than the pattern's link loads (escape "
            "channels, message bursts)."
        )
    out += _reading_difference(reading_rows)
    if 16 not in cfg.sizes:
        windows = (
            f"with the paper-sized windows of this mode (known to {cfg.resolution:g})"
            if cfg.mode == "full"
            else f"with short windows, so gamma* is coarse (known to {cfg.resolution:g})"
        )
        out.append(
            "- **Sizes and windows.** This run covers 8x8x8 (and 16x8x8 for "
            f"transposition) only, {windows}; Table 3 and the figures are at that "
            "size, the paper's at 16x16x16."
        )
    out += [
        "- **VCs.** Every router has the paper's three VCs per link, 'one adaptive "
        "and two escape ones': OFR escapes on VS1 and VS2; ABR and POR, which need "
        "one escape network, buffer it on both escape VCs (`escape_vcs = 2`: each "
        "escape ring has a second VC under the same bubble rule). Read instead as a "
        "second adaptive VC (`adaptive_vcs = 2`, against the text), the third VC "
        "lifts uniform traffic on 8x8x8 further: measured apart from this run with "
        "the same search, ABR 0.50 -> 0.54 and POR 0.54 -> 0.66 (the paper: 0.55 "
        "and 0.70); OFR has no VC to spare. The paper's ACK/NAK handling between "
        "routers is not modelled: credits stand for it.",
        "- **Traffic.** Messages of 96 packets leave their NIC at 2.4 gamma0 at most. "
        "Butterfly flips bit `seq mod n` of the node index, `seq` counting each "
        "source's messages, and its messages arrive periodically "
        '(`traffic.arrivals = "periodic"`): every node\'s i-th message comes within '
        "one period of the others', so the FFT's stages run in step, all traffic on "
        "one bit at a time, as the paper's pattern means. It is measured over an "
        "even number of whole rounds of its stages (at least the mode's window, "
        "after at least one round of warm-up), so that the two halves of the window "
        "hold the same stages. Other patterns arrive by Bernoulli trials. The paper "
        "does not give its arrival process, warm-up, window or saturation test; the "
        "ones used here are stated above.",
        "- **Minimal directions.** Routers take one minimal way per dimension "
        "(`one_way_ties`: `+` at distance k/2), as §3.1 has it: every dimension "
        "with s_i != t_i has one mu-link and one nu-link. ABR therefore loads the "
        "`+` link of each ring with 10/8 of the `-` link's uniform traffic at k = 8 "
        "(36/32 at k = 16), and sends butterfly's k/2 stage one way. POR and OFR "
        "may take the other half-ring as an orthant or IDN that adds no hop "
        "(`zero_dilation`), chosen by eq. (15) like any other: that is the capacity "
        "the paper's POR/OFR-over-ABR ratios on uniform traffic (1.27 at k = 8, "
        "1.14 at k = 16) match. Measured apart from this run with the same "
        "search on 8x8x8 uniform (one escape VC for POR, as before), dropping "
        "those routes costs POR 0.52 -> 0.51 and OFR 0.57 -> 0.51.",
        *_butterfly_difference(stage_rows),
    ]
    return out


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------


def run(
    out: Path,
    quick: bool = False,
    tiny: bool = False,
    workers: int = 2,
    progress: bool = True,
) -> Path:
    """Runs (or resumes) the specs into ``out``/PART and writes the tables,
    figures and ``summary.md`` into ``out``; returns the summary's path.
    ``quick`` runs the specs' quick variants (8x8x8 and 16x8x8, short
    windows, searches to 0.05 gamma0), ``tiny`` their seconds-long 4x4x4
    ones for tests."""
    mode = "tiny" if tiny else "quick" if quick else "full"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables = sweep_specs(
        SPECS,
        PARTS,
        mode,
        out,
        workers,
        progress,
        accept=("ok", "undrained", "deadlock"),
        artefacts=("points",),
    )
    seconds = time.perf_counter() - t0
    cfg = config_of(mode, tables["searches"], workers)
    rows = search_rows(tables["searches"])
    curve_rows = sim_rows(tables["curves"], cfg.tolerance)
    stage_sims = sim_rows(tables["stages"], cfg.tolerance)
    stage_rows = butterfly_stages(stage_sims)
    reading_rows = readings(sim_rows(tables["readings"], cfg.tolerance))
    t2 = table2(rows, cfg)
    t3 = table3(rows, cfg)
    write_csv(out / "loads.csv", LOAD_FIELDS, rows)
    write_csv(out / "curves.csv", LOAD_FIELDS[:-2], curve_rows)
    write_csv(out / "table2.csv", TABLE2_FIELDS, t2)
    write_csv(out / "table3.csv", TABLE3_FIELDS, t3)
    write_csv(out / "table3_readings.csv", READING_FIELDS, reading_rows)
    write_csv(out / "butterfly_stages.csv", STAGE_FIELDS, stage_rows)
    plot_lifetime(rows, curve_rows + stage_sims, cfg, out / "fig4_lifetime.png")
    plot_derouted(rows, stage_sims, cfg, out / "fig5_derouted_butterfly.png")
    plot_stages(stage_rows, out / "fig_butterfly_stages.png")
    sims = sum(len(tables[p]) for p in ("curves", "stages", "readings")) + len(rows)
    sim_seconds = sum(float(r["wall_seconds"] or 0) for r in rows) + sum(
        float(tables[p]["result.wall_seconds"].sum()) for p in ("curves", "stages", "readings")
    )
    summary = out / "summary.md"
    summary.write_text(
        summarise(cfg, rows, t2, t3, seconds, sims, sim_seconds, stage_rows, reading_rows)
    )
    write_run_json(
        out / "run.json",
        {
            "reproduction": NAME,
            "mode": mode,
            "started": started,
            "seconds": round(seconds, 2),
            "simulations": sims,
            "simulation_seconds": round(sim_seconds, 1),
            "sizes": list(cfg.sizes),
        },
        workers,
    )
    return summary
