"""Versaci and Bilardi (2013), "OutFlank Routing: Increasing Throughput in Toroidal
Interconnection Networks": the simulations of Section 4 (specs/versaci2013/*.toml) as the paper's
tables, figures and summary.md (its words: specs/versaci2013/summary.md.j2). Loads in the paper's
unit: gamma = 1 saturates the bisection under uniform traffic. Outputs:
docs/reproductions/versaci2013.md."""

from __future__ import annotations

import functools
import itertools
import json
import math
import time
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from types import SimpleNamespace
from typing import Any

import routelab
from routelab.experiment.study import (
    figure,
    fmt,
    md_table,
    save_figure,
    summary,
    sweep_specs,
    unfinished,
    write_csv,
    write_run_json,
)
from routelab.reproduce import published

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


def _by_load(rows: Any) -> Rows:
    return sorted(rows, key=lambda r: r["load"])


def config_of(mode: str, searches, workers: int) -> SimpleNamespace:
    """What a mode ran, read from its searches' table (the summary cites it)."""
    if searches.empty:
        raise routelab.ConfigError("no search has finished yet: nothing to render")
    first, sizes = searches.iloc[0], sorted({size_of(t) for t in searches["network.topology"]})
    cfg = SimpleNamespace(mode=mode, sizes=tuple(sizes), figure_size=max(sizes), workers=workers)
    cfg.routers = tuple(r for r in ROUTERS if r in set(searches["routing.algorithm"]))
    cfg.patterns = tuple(p for p in PATTERNS if p in set(searches["traffic.pattern"]))
    for column in ("saturate.resolution", "saturate.tolerance", "run.convergence"):
        setattr(cfg, column.split(".")[1], float(first[column]))
    for column in ("run.warmup_cycles", "run.warmup_periods", "run.measure_cycles"):
        setattr(cfg, column.split(".")[1], int(first[column]))
    return cfg


# The last two: the search's answer, on each of its rows: the final bracket (highest load
# sustained below the lowest not sustained above it).
LOAD_FIELDS = tuple(
    """k topology router pattern load status error sustained drained converged offered accepted
    accepted_normalised lifetime_us lifetime_p99_us network_latency_us avg_hops minimal oidn widn
    derouted zero_dilation ratio_oidn ratio_widn ratio_derouted wall_seconds search_gamma_star
    search_bracket_high""".split()  # noqa: SIM905
)
# loads.csv's times in us, from the result's in ns.
_TIMES = {"lifetime_us": "latency_mean", "lifetime_p99_us": "latency_p99"}
_TIMES["network_latency_us"] = "network_latency_mean"


def _load_row(p: Row, run: Row, tolerance: float) -> Row:
    """A search's point or a sim run (sustained by the search's test) as a row of loads.csv."""
    router, topo = run["routing.algorithm"], run["network.topology"]
    row: Row = dict.fromkeys(LOAD_FIELDS, "")
    row.update(k=size_of(topo), topology=topo, router=router, pattern=run["traffic.pattern"])
    row.update(load=round(p["load"], 4), wall_seconds=round(p.get("wall_seconds") or 0, 2))
    if p["status"] in ("deadlock", "failed", "backlog"):
        why = (p.get("error") or "").splitlines()
        return dict(row, status=p["status"], error=why[0] if why else "", sustained=False)
    ok = p["drained"] and p["converged"] and p["accepted"] >= (1.0 - tolerance) * p["offered"]
    row.update(status="ok", sustained=bool(ok if p.get("sustained") is None else p["sustained"]))
    row.update({f: bool(p[f]) for f in ("drained", "converged")})
    row.update({f: round(p[f], 6) for f in ("offered", "accepted")})
    row.update({f: round(p[src] * 1e-3, 3) for f, src in _TIMES.items()})
    row.update(accepted_normalised=round(p["accepted_normalised"], 4))
    row.update(avg_hops=round(p["avg_hops"], 3))
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


def search_rows(df) -> Rows:
    """Every load of every search, with the search's final bracket."""
    rows = []
    for r in df.to_dict("records"):
        high, tol = r["bracket_high"], float(r["saturate.tolerance"])
        high = "" if high is None or high != high else round(high, 4)
        bracket = {"search_gamma_star": round(r["bracket_low"], 4), "search_bracket_high": high}
        rows += [dict(_load_row(p, r, tol), **bracket) for p in r["points"]]
    return rows


def sim_rows(df, tolerance: float) -> Rows:
    """A sim sweep's runs as rows of ``loads.csv``, with router ``options``."""
    rows = []
    for r in df.to_dict("records"):
        named = {k.removeprefix("counters_"): v for k, v in r.items() if k.startswith("counters_")}
        counters = {k: v for k, v in named.items() if v == v and v is not None}
        status = "deadlock" if r["status"] == "deadlock" else "ok"
        point = dict(r, load=r["traffic.load"], wall_seconds=r["result.wall_seconds"])
        row = _load_row(dict(point, status=status, counters=counters), r, tolerance)
        opts = r.get("routing.options") or {}
        row["options"] = json.loads(opts) if isinstance(opts, str) else opts
        rows.append(row)
    return rows


def gamma_star(rows: Rows) -> float:
    """The low end of the final bracket if ``rows`` are one search (loads out of order with it are
    `inverted`), else the highest load sustained below the lowest one that was not."""
    found = {r.get("search_gamma_star", "") for r in rows} - {""}
    if len(found) == 1:
        return float(found.pop())
    below = list(itertools.takewhile(lambda r: r["sustained"], _by_load(rows)))
    return below[-1]["load"] if below else 0.0


def inverted(rows: Rows) -> Rows:
    """Loads below gamma* not sustained, or above the bracket and sustained."""
    g, h = gamma_star(rows), bracket_high(rows)
    return [r for r in rows if (h != "" and r["load"] > h if r["sustained"] else r["load"] < g)]


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


#: eq. (15)'s u*, by the router option that sets it: the least used link minimal towards the
#: destination (the reproduction's), or the least used of all the source's outgoing links, as the
#: text has it ("a link going out from s"). readings.toml runs both.
READINGS = {"minimal": "minimal", "all": "as written"}


def readings(rows: Rows) -> Rows:
    """POR's and OFR's derouting per reading of eq. (15), beside Table 3."""
    out, ratios = [], ("ratio_oidn", "ratio_widn", "ratio_derouted")
    for row in rows:
        paper = PAPER_TABLE3[row["pattern"]]
        paper = paper[:3] if row["router"] == "ofr" else ("", "", paper[3])
        total = row["minimal"] + row["derouted"] if row["status"] == "ok" else 0
        out.append(
            {c: row[c] for c in ("k", "pattern", "router")}
            | {"reading": READINGS[row["options"].get("u_star", "minimal")]}
            | {c: row[c] for c in ("load", "sustained", *ratios)}
            | {"zero_dilation": row["zero_dilation"] / total if total else ""}
            | {"avg_hops": row["avg_hops"]}
            | {f"paper_{c}": v for c, v in zip(ratios, paper, strict=True)}
        )
    first = {"pattern": "uniform", "router": "por", "reading": "minimal"}  # within a size
    return sorted(out, key=lambda r: (r["k"], *(r[c] != v for c, v in first.items())))


#: The knee: the lifetime at most this many times that at the lowest load.
KNEE = 2.0


@functools.cache
def stage_capacity(k: int, ways: int) -> float:
    """The load up to which butterfly's k/2 stage fits its period, its k/2 messages per period
    on the ring's ``ways`` directions (0.25 one way, 0.5 both ways on k x k x k); gamma0 with
    Table 1's links between routers (the bisection scales with their bandwidth)."""
    net = routelab.topology(f"torus:{k}x{k}x{k}")
    built = {name: bw for name, bw, _ in net.classes}["switch"]
    gamma0 = (net.gamma0_bps() or 0.0) * ROUTER_LINK_BPS / built
    return ways * ROUTER_LINK_BPS / (k / 2 * gamma0)


def by_size(rows: Rows) -> dict[int, Rows]:
    """Rows grouped by network size, smallest first."""
    return {k: [r for r in rows if int(r["k"]) == k] for k in sorted({int(r["k"]) for r in rows})}


def butterfly_stages(rows: Rows, pending: Rows = ()) -> Rows:
    """Butterfly's lifetime per size, router and load, and over that at the lowest load;
    the ``pending`` runs' loads (not finished yet: rendered with ``--finished``) with
    ``sustained`` blank."""
    out = []
    waiting = [
        {"k": size_of(p["network.topology"]), "router": p["routing.algorithm"]}
        | {"load": p["traffic.load"], "status": "pending", "sustained": ""}
        for p in pending
    ]
    rows = [*rows, *waiting]
    for k, mine in by_size(rows).items():
        for router in (r for r in ROUTERS if any(x["router"] == r for x in rows)):
            walk = _by_load(r for r in mine if r["router"] == router)
            base = walk[0]["lifetime_us"] if walk and walk[0]["status"] == "ok" else None
            for r in walk:
                life = r.get("lifetime_us") if r["status"] == "ok" else None
                out.append(
                    {"k": k, "router": router, "load": r["load"]}
                    | {"lifetime_us": life if life is not None else ""}
                    | {"lifetime_ratio": round(life / base, 3) if life and base else ""}
                    | {"sustained": r["sustained"]}
                )
    return out


def stage_summary(rows: Rows) -> dict[str, tuple[float, float, bool, bool]]:
    """Per router: the knee (the highest load up to which all are sustained within `KNEE` times
    the lowest load's lifetime), the highest load up to which all are sustained, and whether
    each is only a lower bound (the next load has not run yet: ``sustained`` blank)."""
    out = {}
    for router in dict.fromkeys(r["router"] for r in rows):
        mine = _by_load(r for r in rows if r["router"] == router)
        bounded = list(itertools.takewhile(lambda r: r["sustained"] is True, mine))
        flat = list(
            itertools.takewhile(
                lambda r: r["lifetime_ratio"] != "" and r["lifetime_ratio"] <= KNEE, bounded
            )
        )
        knee, top = (w[-1]["load"] if w else 0.0 for w in (flat, bounded))
        # Open: the walk stops at a load not run yet.
        nxt = (mine[len(w)] if len(w) < len(mine) else None for w in (flat, bounded))
        knee_open, top_open = (r is not None and r["sustained"] == "" for r in nxt)
        out[router] = (knee, top, knee_open, top_open)
    return out


# Bounds: the topologies here have one link class, so they count the links between routers
# only and check that the node links (64 Gb/s against 20, Table 1) stay below theirs.


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


def tables(rows: Rows, cfg) -> tuple[Rows, Rows]:
    """Tables 2 and 3: gamma* beside the bounds; derouted ratios, mean of the sustained loads."""
    walks, t2, t3 = _walks(rows), [], []
    for k, pattern in itertools.product(cfg.sizes, cfg.patterns):
        named = {"pattern": pattern, "paper_pattern": PATTERNS[pattern], "k": k}
        upper, reached = routing_bound(pattern, k)
        bounds = {
            "even_split": round(even_split(pattern, k), 3),
            # Rounded up and down: a bound stays a bound, a rate reached stays reached.
            "minimal_reached": math.floor(reached * 1000) / 1000,
            "minimal_bound": math.ceil(upper * 1000) / 1000,
        }
        for router in cfg.routers:
            w = walks.get((pattern, router, k), [])
            g = gamma_star(w) if w else ""  # blank: the search has not finished
            at = next((r for r in w if r["load"] == g), None)
            t2.append(
                named
                | {"topology": topology(pattern, k), "router": router, "gamma_star": g}
                | {"paper_gamma_star": PAPER_TABLE2.get((pattern, router, k), "")}
                | {"accepted_at_gamma_star": at["accepted_normalised"] if at else ""}
                | {"first_unsustained": bracket_high(w), "loads_run": len(w)}
                | {"out_of_order": len(inverted(w)), **bounds}
            )
        row = named | {"loads": sum(r["sustained"] for r in walks.get((pattern, "ofr", k), []))}
        for c, (router, key) in TABLE3_COLUMNS.items():
            w = walks.get((pattern, router, k), [])
            vals = [r[key] for r in w if r["sustained"] and r[key] != ""]
            row[c] = round(fmean(vals), 4) if vals else None
        paper = zip(TABLE3_COLUMNS, PAPER_TABLE3[pattern], strict=True)
        t3.append(row | {"paper_k": PAPER_TABLE3_K} | {f"paper_{c}": v for c, v in paper})
    return t2, t3


COLORS = {"dor": "tab:gray", "abr": "tab:blue", "por": "tab:green", "ofr": "tab:red"}
MARKERS = {"dor": "s", "abr": "o", "por": "^", "ofr": "D"}
GAMMA_AXIS = "offered load gamma (gamma0 units)"
LIFETIME_AXIS = "average packet lifetime (us)"


def _xy(pts: Rows, field: str) -> tuple[list[Any], list[Any]]:
    return [r["load"] for r in pts], [r[field] for r in pts]


def curve(rows: Rows, extra: Rows, key: tuple[str, str, int], field: str) -> Rows:
    """``key``'s curve: the sustained loads up to gamma* with ``field`` of its search (``rows``)
    and fixed-load runs (``extra``)."""
    search = _walks(rows).get(key, [])
    g = gamma_star(search) if search else math.inf
    pts = search + _walks(extra).get(key, [])
    return _by_load(r for r in pts if r["sustained"] and r["load"] <= g and r[field] != "")


def plot_lifetime(rows: Rows, extra: Rows, cfg, path: Path) -> None:
    """Fig. 4: lifetime against gamma of the paper's routers, sustained loads."""
    k, walks = cfg.figure_size, _walks(rows)
    # One panel per pattern measured and one for the note: 2 x 3 for the
    # full mode's five patterns, 1 x 2 for the quick mode's one.
    panels = len(cfg.patterns) + 1
    lines, cols = (1, panels) if panels <= 3 else (2, 3)
    fig = figure(4 * cols, 3.5 * lines + 0.5)
    axes = fig.subplots(lines, cols, squeeze=False).flatten()
    for ax in axes[panels:]:
        ax.axis("off")
    for ax, pattern in zip(axes, cfg.patterns, strict=False):
        right = 0.0
        for router in (r for r in cfg.routers if r != "dor"):
            style = {"marker": MARKERS[router], "color": COLORS[router]}
            if pts := curve(rows, extra, (pattern, router, k), "lifetime_us"):
                g = gamma_star(walks.get((pattern, router, k), []))
                label = f"{router.upper()} (gamma* {fmt(g)})"
                ax.plot(*_xy(pts, "lifetime_us"), ms=4, label=label, **style)
                right = max(right, pts[-1]["load"])
            if (paper := PAPER_TABLE2.get((pattern, router, k))) is not None:
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
    aside = axes[panels - 1]
    aside.axis("off")
    note = (
        "Each curve: six loads below every router's gamma* (butterfly:\n"
        "its stage sweep) and the loads its saturation search sustained,\n"
        "up to gamma*. Hollow markers on the load axis: the paper's\n"
        "gamma* (Table 2). DOR, not in the paper, is in Table 2."
    )
    if not any(r["k"] == k and r["pattern"] != "butterfly" for r in extra):
        note = note.replace("six loads", "(not run yet:) six loads")
    aside.text(0.0, 0.5, note, fontsize=8, transform=aside.transAxes)
    title = f"Fig. 4: average packet lifetime against gamma, k = {k} (sustained loads)"
    save_figure(fig, path, title)


def plot_derouted(rows: Rows, extra: Rows, cfg, path: Path) -> None:
    """Fig. 5: butterfly's derouted ratios against gamma, Table 3's dashed."""
    k, ax = cfg.figure_size, (fig := figure()).add_subplot()
    series = (  # label, line, marker, colour per Table 3 column
        ("OFR OIDN", "--", "v", "tab:orange"),
        ("OFR WIDN", ":", "^", "tab:purple"),
        ("OFR total", "-", "D", COLORS["ofr"]),
        ("POR", "-", "o", COLORS["por"]),
    )
    for (router, key), (label, line, marker, color), value in zip(
        TABLE3_COLUMNS.values(), series, PAPER_TABLE3["butterfly"], strict=True
    ):
        if pts := curve(rows, extra, ("butterfly", router, k), key):
            ax.plot(*_xy(pts, key), line, marker=marker, ms=5, color=color, label=label)
        label = f"paper {label}, k = 16"
        ax.axhline(value, color=color, ls=(0, (6, 3)), lw=1, alpha=0.8, label=label)
    title = f"Fig. 5: derouted packets, butterfly, k = {k} (paper: k = 16)"
    ax.set(xlabel=GAMMA_AXIS, ylabel="ratio of derouted packets", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_stages(rows: Rows, path: Path) -> None:
    """Butterfly's lifetime against load, one panel per size."""
    sizes = by_size(rows) or {8: []}
    fig = figure(width=6.4 * len(sizes)) if len(sizes) > 1 else figure()
    for i, (k, mine) in enumerate(sizes.items()):
        ax = fig.add_subplot(1, len(sizes), i + 1)
        for router in dict.fromkeys(r["router"] for r in mine):
            pts = [r for r in mine if r["router"] == router and r["lifetime_us"] != ""]
            if not pts:  # every load still to run
                continue
            style = {"marker": MARKERS[router], "ms": 4, "color": (color := COLORS[router])}
            ax.plot(*_xy(pts, "lifetime_us"), **style, label=router.upper())
            unsustained = [r for r in pts if not r["sustained"]]
            ax.scatter(*_xy(unsustained, "lifetime_us"), marker="x", s=60, color=color)
            if (paper := PAPER_TABLE2.get(("butterfly", router, k))) is not None:
                ax.axvline(paper, color=color, alpha=0.3, lw=3)
        for ways, style in ((1, "--"), (2, ":")):
            label = f"k/2 stage fits its period, {'one way' if ways == 1 else 'both ways'}"
            ax.axvline(stage_capacity(k, ways), color="black", ls=style, lw=1, label=label)
        ax.set(yscale="log", xlabel=GAMMA_AXIS, ylabel=LIFETIME_AXIS)
        ax.set_title(
            f"Butterfly/FFT in step, k = {k}: lifetime (x: not sustained; "
            "wide lines: the paper's gamma*)",
            fontsize=9,
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save_figure(fig, path)


def _stages_md(stage_rows: Rows) -> list[str]:
    """Butterfly's stage sweep per size and router: knee, highest sustained load, lifetimes."""
    rows = []
    for k, mine in by_size(stage_rows).items():
        for router, (knee, bounded, knee_open, top_open) in stage_summary(mine).items():
            paper = PAPER_TABLE2.get(("butterfly", router, k))
            life = {r["load"]: r["lifetime_us"] for r in mine if r["router"] == router}
            lives = " / ".join(fmt(life.get(g)) for g in (0.1, 0.3, 0.5))
            knee, bounded = (
                ">= " * o + fmt(v) for v, o in ((knee, knee_open), (bounded, top_open))
            )
            rows.append([k, router.upper(), fmt(paper), knee, bounded, lives])
    header = ["k", "router", "paper gamma*", "knee", "sustained to"]
    return md_table([*header, "lifetime at 0.1 / 0.3 / 0.5 (us)"], rows)


def _ratio_up_to(rows: Rows, router: str, load: float) -> tuple[float, float] | None:
    """``(load, lifetime_ratio)`` of ``router``'s highest load run up to ``load``."""
    run = [r for r in rows if r["router"] == router and r["load"] <= load + 1e-9]
    run = [r for r in run if r["lifetime_ratio"] != ""]
    return (run[-1]["load"], run[-1]["lifetime_ratio"]) if run else None


def _stages(stage_rows: Rows) -> dict[str, Any]:
    """The summary's stage sweep: knees and highest loads sustained per size and router, the
    stage capacities, and per size where the paper's gamma* lies against them."""
    sizes = by_size(stage_rows)
    found = {k: stage_summary(mine) for k, mine in sizes.items()}
    papers = []
    for k, f in found.items():
        mine = _by_load(sizes[k])
        paper = {r: PAPER_TABLE2[b] for r in f if (b := ("butterfly", r, k)) in PAPER_TABLE2}
        if paper:
            both = stage_capacity(k, 2)
            # A knee known only from below (loads above it not run yet) is not compared.
            known = {r: g for r, g in paper.items() if not f[r][2]}
            near = [r for r, g in known.items() if abs(g - f[r][0]) <= 0.1 + 1e-9]
            past = [r for r, g in known.items() if r not in near and g > 1.1 * both]
            open_ = [r for r in paper if f[r][2]]
            # Per router past it: its lifetime over the low-load one at the highest load run up
            # to both ways' capacity (the most any routing fits in the period).
            fits = {r: _ratio_up_to(mine, r, both) for r in past}
            papers.append(
                {"k": k, "paper": paper, "near": near, "past": past, "both": both, "open": open_}
                | {"fits": fits}
            )
    k0 = min(found)
    f0, g0 = found[k0], {r: PAPER_TABLE2.get(("butterfly", r, k0), 0) for r in ("abr", "por")}
    lags = {"abr", "por"} <= set(f0) and f0["por"][0] <= f0["abr"][0] and g0["por"] > g0["abr"]
    one, both = (stage_capacity(k0, ways) for ways in (1, 2))
    table = "\n".join(_stages_md(stage_rows))
    return dict(
        found=found, k0=k0, one=one, both=both, knee=KNEE, table=table, papers=papers, por_lags=lags
    )


def _butterfly_difference(stage_rows: Rows) -> list[str]:
    """The summary's item on butterfly's gamma*, alone."""
    return [summary(SPECS, "butterfly.md.j2", st=_stages(stage_rows))]


def _eq15(rows: Rows) -> dict[str, Any]:
    """Which reading of eq. (15) Table 3 supports: the derouted ratios under each at the largest
    k beside the paper's."""
    k = max(int(r["k"]) for r in rows)
    at = {(int(r["k"]), r["router"], r["pattern"], r["reading"]): r for r in rows}

    def ratio(router: str, pattern: str, key: str = "ratio_derouted") -> list[str]:
        got = (at.get((k, router, pattern, reading)) for reading in READINGS.values())
        return [fmt(r[key]) if r is not None and r[key] != "" else "-" for r in got]

    found = [
        (r, p, *ratio(r, p), PAPER_TABLE3[p][2 if r == "ofr" else 3])
        for r in ("por", "ofr")
        for p in ("uniform", "butterfly")
    ]
    nearer = [abs(float(m) - p) <= abs(float(t) - p) for *_, m, t, p in found if "-" not in (m, t)]
    oidn = ratio("ofr", "butterfly", "ratio_oidn")
    return dict(k=k, found=found, nearer=sum(nearer), compared=len(nearer), oidn=oidn)


def summarise(cfg, rows: Rows, t: dict[str, Rows], **numbers: Any) -> str:
    """summary.md from the loads and the output tables ``t``; ``numbers``: this run's."""
    t2, stages, reads = t["table2"], t["butterfly_stages"], t["table3_readings"]
    t2 = [r for r in t2 if r["gamma_star"] != ""]  # finished searches
    g, claims = {(r["pattern"], r["router"], r["k"]): r["gamma_star"] for r in t2}, {}
    for k in cfg.sizes:  # OFR over ABR, OFR against POR, where DOR's gamma* is the lowest
        a, p, o = ({x: g.get((x, r, k)) for x in cfg.patterns} for r in ("abr", "por", "ofr"))
        both = [x for x in cfg.patterns if p[x] is not None and o[x] is not None]
        wins = [
            "draw" if abs(o[x] - p[x]) < 1e-9 else "ofr" if o[x] > p[x] else "por" for x in both
        ]
        dor = [all(g.get((x, "dor", k), 0) <= g.get((x, r, k), 0) for r in cfg.routers) for x in a]
        gains = [(x, o[x] / a[x] - 1) for x in cfg.patterns if a[x] and o[x]]
        claims[k] = {"gains": gains, "wins": wins, "dor_lowest": sum(dor)}
    best: dict[str, Row] = {}  # the highest gamma* of an adaptive router per pattern
    for r in t2:
        if r["k"] == max(cfg.sizes) and r["router"] != "dor":
            best[r["pattern"]] = max(best.get(r["pattern"], r), r, key=lambda x: x["gamma_star"])
    gaps = [r["gamma_star"] - r["paper_gamma_star"] for r in t2 if r["paper_gamma_star"] != ""]
    within = sum(abs(d) <= 0.1 + 1e-9 for d in gaps)
    context = dict(title=TITLE, cfg=cfg, patterns=PATTERNS, phases=BOUND_PHASES, claims=claims)
    context |= dict(paper_ofr_over_abr=PAPER_OFR_OVER_ABR_16, t3=t["table3"], readings=reads)
    context |= dict(gaps=gaps, within=within, mean_gap=fmean(gaps) if gaps else None, best=best)
    context |= dict(st=_stages(stages) if stages else None, eq15=_eq15(reads) if reads else None)
    context |= dict(paper_oidn=PAPER_TABLE3["butterfly"][0], **numbers)
    return summary(
        SPECS,
        **context,
        transposition=", ".join(topology("transpose", k).split(":")[1] for k in cfg.sizes),
        table2={(r["pattern"], r["router"], r["k"]): r for r in t["table2"]},
        inversions=[(*key, bad) for key, w in _walks(rows).items() if (bad := inverted(w))],
        deadlocks=[r for r in rows if r["status"] == "deadlock"],
    )


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the specs' full, ``quick`` or ``tiny`` variants into ``out``/PART and
    writes the outputs into ``out``; returns ``summary.md``."""
    mode = "tiny" if tiny else "quick" if quick else "full"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    accept = ("ok", "undrained", "deadlock")
    sweeps = sweep_specs(
        SPECS, PARTS, mode, out, workers, progress, accept, ("points",), partial=True
    )
    seconds = time.perf_counter() - t0
    cfg = config_of(mode, sweeps["searches"], workers)
    rows, sims = search_rows(sweeps["searches"]), [sweeps[p] for p in PARTS[1:]]
    curve_rows, stage_sims, reading_sims = (sim_rows(df, cfg.tolerance) for df in sims)
    pending = sweeps["stages"].attrs.get("pending", [])
    (t2, t3), stage_rows = tables(rows, cfg), butterfly_stages(stage_sims, pending)
    t = {"loads": rows, "curves": curve_rows, "table2": t2, "table3": t3}
    t |= {"table3_readings": readings(reading_sims), "butterfly_stages": stage_rows}
    fields = {"loads": LOAD_FIELDS, "curves": LOAD_FIELDS[:-2]}  # else the rows' own columns
    for name, table in t.items():
        write_csv(out / f"{name}.csv", fields.get(name), table)
    plot_lifetime(rows, curve_rows + stage_sims, cfg, out / "fig4_lifetime.png")
    plot_derouted(rows, stage_sims, cfg, out / "fig5_derouted_butterfly.png")
    plot_stages(stage_rows, out / "fig_butterfly_stages.png")
    count = sum(map(len, sims)) + len(rows)
    sim_seconds = sum(float(r["wall_seconds"] or 0) for r in rows) + sum(
        float(df["result.wall_seconds"].sum()) for df in sims if len(df)
    )
    path = out / "summary.md"
    partial = unfinished(sweeps)
    numbers = dict(sims=count, seconds=seconds, sim_seconds=sim_seconds, partial=partial)
    path.write_text(summarise(cfg, rows, t, **numbers))
    meta = {"reproduction": NAME, "mode": mode, "started": started, "seconds": round(seconds, 2)}
    meta |= {"simulations": count, "simulation_seconds": round(sim_seconds, 1)}
    meta |= {"unfinished": {part: list(n) for part, n in partial.items()}} if partial else {}
    write_run_json(out / "run.json", meta | {"sizes": list(cfg.sizes)}, workers)
    return path
