"""Domke, Hoefler and Nagel (2011), "Deadlock-Free Oblivious Routing for Arbitrary Topologies",
the simulated part of Sections IV and V (outputs and specs: docs/reproductions/domke2011.md;
the summary's words: specs/domke2011/summary.md.j2).
Kautz(b, n) is read as the usual Kautz graph of degree b and diameter n, words of n symbols and
(b+1) b^(n-1) switches: ``kautz:b=b,n=n-1`` (routelab's ``n=N`` has words of N+1 symbols). Every
Table I Kautz network then fills its 36-port switches closely (up to 35 ports), stepping to the
next (b, n) where the ports run out; the other reading would put 4,096 endpoints on 1,512
switches of 15 used ports."""

from __future__ import annotations

import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial
from itertools import pairwise
from math import prod
from operator import itemgetter
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

import routelab
from routelab.experiment.study import (
    Config,
    config,
    figure,
    fmt,
    summary,
    sweep,
    sweep_specs,
    write_csv,
    write_run_json,
)
from routelab.reproduce import published

NAME = "domke2011"
SPECS = Path(__file__).parent / "specs" / NAME
TITLE = "Domke, Hoefler, Nagel: Deadlock-Free Oblivious Routing for Arbitrary Topologies (2011)"
MAX_LANES = 15
SEED = 1
PHASES = ("bandwidth", "spread", "lanes", "timing")  # the timed parts of a run
# family -> its title and bandwidth figure
FAMILY_FIGURES = {
    "xgft": ("XGFT (Figure 5)", "fig5_xgft_ebb.png"),
    "kautz": ("Kautz (Figure 6)", "fig6_kautz_ebb.png"),
    "kary-ntree": ("k-ary n-tree", "kary_ntree_ebb.png"),
}
FAMILIES = tuple(FAMILY_FIGURES)
TREE_ENGINES = ("minhop", "updown", "sssp", "dfsssp", "lash", "dmodk", "dor", "multipath")
# Engines that promise deadlock freedom (with the lanes they report).
DEADLOCK_FREE_ENGINES = ("updown", "dfsssp", "lash", "dmodk")
SPREAD_ENGINES = ("minhop", "updown", "sssp", "dmodk")
HEURISTICS = ("weakest", "first", "heaviest", "online")
# Switch sizes of the heuristics' random networks: 32 ports as in Figure 9
# (links drawn freely), and 20, where 128 links use every port (4-regular).
HEURISTIC_PORTS = (32, 20)
# The engines of each routing-time series, in the order of its table.
TIME_ENGINES = {
    "kary-ntree": ("minhop", "sssp", "dfsssp", "updown", "lash", "dmodk"),
    "random": ("minhop", "sssp", "dfsssp", "dfsssp-online", "updown", "lash"),
}
# (engine, heuristic) in the order of the lane tables: Figure 9's series (the paper's two, then
# DFSSSP's online variant), then the other heuristics; LANE_SERIES names Figure 9's series.
LANE_ORDER = (("dfsssp", "weakest"), ("lash", ""), *(("dfsssp", h) for h in HEURISTICS[1:]))
LANE_SERIES = ("dfsssp", "lash", "dfsssp-online")
# One colour per engine in every figure, in the order of TREE_ENGINES.
_PALETTE = "blue orange green red purple brown grey pink olive"
COLORS = {
    e: f"tab:{c}" for e, c in zip((*TREE_ENGINES, "dfsssp-online"), _PALETTE.split(), strict=True)
}

# What the paper states in its text (figures give no printed values), from
# papers/domke2011.toml.
PAPER = published(NAME)
PAPER_HEURISTIC_RANGES = {
    e.keys["heuristic"]: (int(e.low), int(e.high))
    for e in PAPER.values
    if e.table == "heuristics" and e.low is not None and e.high is not None
}
# The derived numbers the paper states (claims.csv), by claim.
PAPER_CLAIMS = {e.keys["claim"]: e.value for e in PAPER.values if e.table == "claims"}
PAPER_DFSSSP_SECONDS_4096 = PAPER.find(
    "routing_time", "seconds", series="kary-ntree", endpoints=4096, engine="dfsssp"
).value
# What each claim of ``claims.csv`` measures.
CLAIMS = {
    "dfsssp_extra_mb": "extra memory of DFSSSP over SSSP, `{spec}`",
    "dfsssp_over_minhop_time": "mean DFSSSP/MinHop routing time, k-ary n-trees of 512 endpoints on",
    "xgft_1024_dfsssp_over_minhop_ebb": (
        "DFSSSP/MinHop effective bisection bandwidth, XGFT of 1,024 endpoints"
    ),
    "lanes_crossing_links": "links where the average lanes of LASH and DFSSSP cross (Figure 9)",
}


# --- Run tables as CSV rows ---------------------------------------------------
# How a measured column becomes a CSV value, by field: seconds to the microsecond.
_MICROSECONDS = partial(round, ndigits=6)
_CONVERT = {
    **dict.fromkeys(("lanes_used", "lanes_needed", "switches"), int),
    **dict.fromkeys(("deadlock_free", "minimal"), bool),
    **dict.fromkeys(("ebb_avg", "ebb_min", "ebb_max"), float),
    **dict.fromkeys(("extra_mb", "peak_mb"), partial(round, ndigits=1)),
    "avg_hops": partial(round, ndigits=4),
    **dict.fromkeys(("route_seconds", "ebb_seconds", "seconds", "wall_seconds"), _MICROSECONDS),
}


def _record(r: dict[str, Any], columns: str, **keys: Any) -> dict[str, Any]:
    """Run ``r`` as a CSV row of ``columns``: ``field=`` (or ``field=run column``) is measured,
    converted by ``_CONVERT`` and empty where the run failed; any other field is one of ``keys``,
    else the run's spec, engine, status or the first line of its error, else empty."""
    ok = r["status"] == "ok"
    error = "" if ok else next(iter(str(r.get("error") or "").splitlines()), "")
    known = {"spec": r["network.topology"], "engine": r["routing.algorithm"], "error": error}
    known |= {"status": r["status"], **keys}
    return {
        field: _CONVERT[field](r[column or field]) if ok and m else known.get(field, "")
        for field, m, column in (c.partition("=") for c in columns.split())
    }


def _shape(spec: str) -> dict[str, str]:
    """The keys of a topology spec: ``random:switches=64,...`` -> {"switches": "64", ...}."""
    return dict(kv.split("=") for kv in spec.split(":", 1)[1].split(","))


def _ok(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["status"] == "ok"]


# --- Experiment 1: effective bisection bandwidth (Figures 5 and 6) ------------
# The bandwidth grid is a sweep spec (specs/domke2011/ebb.toml, with multipath
# in a companion kept to smaller networks; each with quick and tiny variants),
# run with routelab.sweep into OUT/ebb/ and OUT/ebb-multipath/: a second run
# resumes and skips what is done.
EBB_SPECS = ("ebb", "ebb-multipath")


def ebb_experiments(cfg: Config) -> dict[str, Any]:
    """The bandwidth sweeps by output subdirectory: the spec files or their ``cfg.mode`` variant."""
    from routelab.experiment import spec as specs

    variant = None if cfg.mode == "full" else cfg.mode
    return {sub: specs.load(SPECS / f"{sub}.toml", variant=variant) for sub in EBB_SPECS}


def sweep_ebb(cfg: Config, out: Path, quiet: bool = True) -> list[Any]:
    """Runs (or resumes) the bandwidth sweeps into ``out``/ebb*; their outcomes."""
    return [
        sweep(exp, out / sub, cfg.workers, quiet=quiet) for sub, exp in ebb_experiments(cfg).items()
    ]


def paper_name(spec: str) -> str:
    """Table I's name of a network: ``XGFT(2; 6,6; 3,3)``, ``Kautz(2, 2)``, ``6-ary 2-tree``."""
    k = _shape(spec)
    if spec.startswith("xgft:"):
        m, w = (k[x].replace("x", ",") for x in "mw")
        return f"XGFT({m.count(',') + 1}; {m}; {w})"
    if spec.startswith("kautz:"):
        return f"Kautz({k['b']}, {int(k['n']) + 1})"
    return f"{k['k']}-ary {k['n']}-tree"


def _ebb_rows(out: Path, cfg: Config | None = None) -> list[dict[str, Any]]:
    """The sweeps' run tables as the rows of ``ebb.csv``."""
    from routelab.experiment.store import Store

    columns = "family endpoints paper_topology spec switches max_switch_ports engine status error "
    columns += "lanes_used= lanes_needed= deadlock_free= minimal= avg_hops= route_seconds= "
    columns += "ebb_avg=avg ebb_min=min ebb_max=max patterns ebb_seconds=seconds"
    rows, nets = [], {}
    for sub in (s for s in EBB_SPECS if (out / s / "spec.toml").is_file()):
        for r in Store.open(out / sub).table().to_dict("records"):
            spec, family = r["network.topology"], r["network.topology"].split(":")[0]
            if spec not in nets:
                net = routelab.topology(spec)
                ports = max(p for kind, _, _, _, p in net.nodes if kind == "switch")
                nets[spec] = {"switches": len(net.switches), "max_switch_ports": ports}
            keys = {"family": family, "endpoints": int(_shape(spec)["terminals"])}
            keys["paper_topology"] = paper_name(spec)
            rows.append(_record(r, columns, **keys, **nets[spec], patterns=r["ebb.patterns"]))
    rank = {x: i for i, x in enumerate(FAMILIES + TREE_ENGINES)}
    rows.sort(key=lambda r: (rank[r["family"]], r["endpoints"], rank.get(r["engine"], 99)))
    return rows


def _top_spread(spec: str, engine: str) -> dict[str, Any]:
    """On a 2-level XGFT: how many top switches carry the traffic from leaf 0's terminals to every
    terminal outside its level-1 subtree, in all and per level-1 switch it leaves through."""
    net = routelab.topology(spec)
    m, w, t = (net.structure[k] for k in ("m", "w", "leaf_terminals"))
    # the first terminals of leaf 1 and of the second level-1 subtree (blocks over the leaves)
    ends = [x * (t // prod(m)) + min(x, t % prod(m)) for x in (1, m[0])]
    routes, tops = routelab.route(net, engine), defaultdict(set)
    for src in range(ends[0]):
        for dst in range(ends[1], t):
            # terminal, leaf, level-1 switch, top switch, ...
            path = routes.path(src, dst, names=False)
            tops[path[2]].add(path[3])
    counts = [len(v) for v in tops.values()]
    row = {"spec": spec, "engine": engine, "top_switches": prod(w)}
    row |= {"tops_used": len(set().union(*tops.values())), "level1_used": len(tops)}
    return row | {"tops_per_level1": round(fmean(counts), 2) if counts else 0}


# --- Experiments 2-4: lanes on random networks (Figure 9, Section IV), routing time (Figure 7)
# A run that needed more than the lanes allowed failed; its error says how many it needed.
_NEEDS = re.compile(r"needs (at least )?(\d+) lanes")


def _lane_rows(df: Any, experiment: str) -> list[dict[str, Any]]:
    """A lane sweep's runs as rows of ``lanes_random.csv`` or ``heuristics.csv``."""
    rows, columns = [], "experiment spec switches ports links seed engine heuristic status "
    columns += "lanes_needed= deadlock_free= route_seconds= error"
    for r in df.to_dict("records"):
        shape, needs = _shape(r["network.topology"]), _NEEDS.search(str(r.get("error") or ""))
        keys = {k: int(shape[k]) for k in ("switches", "ports", "links", "seed")}
        keys["heuristic"] = r["routing.heuristic"] if r["routing.algorithm"] == "dfsssp" else ""
        keys["lanes_needed"] = int(needs.group(2)) if needs else ""
        keys["experiment"] = experiment
        rows.append(_record(r, columns, **keys))
    pair = itemgetter("engine", "heuristic")
    return sorted(
        rows, key=lambda r: (-r["ports"], r["links"], r["seed"], LANE_ORDER.index(pair(r)))
    )


def _series(r: dict[str, Any]) -> str:
    return "dfsssp-online" if r["heuristic"] == "online" else r["engine"]


def _time_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The timing sweeps' runs as rows of ``routing_time.csv``: by series, size, then engine."""
    rows = []
    columns = "series endpoints spec switches= engine status seconds=route_seconds "
    columns += "wall_seconds=route_wall_seconds repeats lanes_needed= error"
    for r in records:
        shape, rand = _shape(r["network.topology"]), r["network.topology"].startswith("random:")
        n = int(shape["switches"]) * int(shape["hosts"]) if rand else int(shape["terminals"])
        keys = {"series": "random" if rand else "kary-ntree", "endpoints": n}
        if r["routing.algorithm"] == "dfsssp" and r.get("routing.heuristic") == "online":
            keys["engine"] = "dfsssp-online"
        rows.append(_record(r, columns, repeats=int(r["route.repeats"]), **keys))
    # "kary-ntree" sorts before "random"; one order of the engines fits both series
    rank = (*TIME_ENGINES["random"], "dmodk")
    return sorted(rows, key=lambda r: (r["series"], r["endpoints"], rank.index(r["engine"])))


# --- Plots --------------------------------------------------------------------
def plot(t: dict[str, list[dict]], out: Path) -> None:
    """Figures 5-7 and 9 and the heuristics' lanes, from the run's tables ``t``."""
    from matplotlib.patches import Rectangle

    for family, (title, name) in FAMILY_FIGURES.items():
        fam = [r for r in t["ebb"] if r["family"] == family]
        sizes = sorted({r["endpoints"] for r in fam})
        ok = {(r["endpoints"], r["engine"]): r for r in _ok(fam)}
        engines = [e for e in TREE_ENGINES if any(k[1] == e for k in ok)]
        fig = figure(layout="constrained")
        ax, width = fig.add_subplot(), 0.8 / max(1, len(engines))
        for j, engine in enumerate(engines):
            at = [(i, ok[n, engine]) for i, n in enumerate(sizes) if (n, engine) in ok]
            lo, avg, hi = (np.array([r[f"ebb_{s}"] for _, r in at]) for s in ("min", "avg", "max"))
            x = [i - 0.4 + width * (j + 0.5) for i, _ in at]
            style = {"capsize": 1.5, "color": COLORS[engine], "label": engine}
            whiskers = {"elinewidth": 0.7, "ecolor": "0.35"}
            ax.bar(x, avg, width, yerr=[avg - lo, hi - avg], error_kw=whiskers, **style)
        ax.set_xticks(range(len(sizes)), [str(n) for n in sizes])
        title = f"{title}: ORCS metric, random bisections (min-max whiskers)"
        ylabel = "effective bisection bandwidth (fraction of link)"
        ax.set(xlabel="endpoints", ylabel=ylabel, ylim=(0, 1.05), title=title)
        ax.legend(ncols=4, fontsize="small")
        fig.savefig(out / name, dpi=120)

    fig = figure(10, 4.2, layout="constrained")
    titles = {"kary-ntree": "k-ary n-trees (Figure 7)", "random": "random, 16 per switch"}
    for k, (series, title) in enumerate(titles.items()):
        ax = fig.add_subplot(1, 2, k + 1)
        rs = [r for r in _ok(t["routing_time"]) if r["series"] == series]
        for engine in dict.fromkeys(r["engine"] for r in rs):
            pts = sorted((r["endpoints"], r["seconds"]) for r in rs if r["engine"] == engine)
            xs, ys = [p[0] for p in pts], [max(p[1], 1e-5) for p in pts]
            ax.plot(xs, ys, "o-", color=COLORS[engine], label=engine)
        ax.set_xscale("log", base=2)
        ax.set(yscale="log", xlabel="endpoints", ylabel="routing time (s)", title=title)
        ax.legend(fontsize="small")
    fig.savefig(out / "fig7_routing_time.png", dpi=120)

    stats = _lane_stats(t["lanes_random"], lambda r: (_series(r), r["links"]))
    fig = figure(layout="constrained")
    ax = fig.add_subplot()
    for engine in LANE_SERIES:
        links = sorted(k[1] for k in stats if k[0] == engine)
        s, color = [stats[(engine, x)] for x in links], COLORS[engine]
        ax.plot(links, [v["avg"] for v in s], "o-", color=color, label=f"{engine} average")
        lo, hi = [v["min"] for v in s], [v["max"] for v in s]
        ax.fill_between(links, lo, hi, color=color, alpha=0.2, label=f"{engine} min-max")
    ax.axhline(MAX_LANES, color="grey", lw=0.8, ls=":")
    xlabel = "switch-to-switch links (128 switches, 32 ports, 16 endpoints each)"
    title = "Lanes for deadlock freedom on random networks (Figure 9)"
    ax.set(xlabel=xlabel, ylabel="virtual lanes needed", title=title)
    ax.legend(fontsize="small")
    fig.savefig(out / "fig9_lanes_random.png", dpi=120)

    # the lanes of each heuristic (dots sized by networks) beside the paper's range
    fig = figure(6.5, 4.0, layout="constrained")
    ax = fig.add_subplot()
    for i, h in enumerate(HEURISTICS):
        if h in PAPER_HEURISTIC_RANGES:
            lo, hi = PAPER_HEURISTIC_RANGES[h]
            box = Rectangle((i - 0.4, lo - 0.25), 0.8, hi - lo + 0.5, color="tab:green", alpha=0.15)
            ax.add_patch(box)
        for k, ports in enumerate(HEURISTIC_PORTS):
            rs = [r for r in t["heuristics"] if r["heuristic"] == h and r["ports"] == ports]
            if counts := Counter(r["lanes_needed"] for r in rs if r["lanes_needed"] != ""):
                x, s = [i + 0.2 * (k - 0.5)] * len(counts), [20 + 8 * c for c in counts.values()]
                style = {"color": ("tab:blue", "tab:red")[k], "zorder": 3}
                label = f"{ports}-port switches" if i == 0 else None
                ax.scatter(x, list(counts), s=s, label=label, **style)
    ax.set_xticks(range(len(HEURISTICS)), list(HEURISTICS))
    title = "DFSSSP cycle breaking, 64 switches / 1,024 endpoints / 128 links\n"
    title += "(dots: measured, size = networks; green: the paper's range)"
    ax.set(ylabel="virtual lanes needed", title=title)
    ax.legend(fontsize="small")
    fig.savefig(out / "heuristics.png", dpi=120)


# --- Summary and claims -------------------------------------------------------
def _lane_stats(rows: list[dict[str, Any]], key) -> dict[Any, dict]:
    """min/avg/max of lanes_needed per key; failures count with the lanes their message names
    (at least 16)."""
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    out = {}
    for k, rs in groups.items():
        v = [r["lanes_needed"] for r in rs if r["lanes_needed"] != ""]
        out[k] = {"min": min(v, default=None), "avg": fmean(v) if v else None, "n": len(rs)}
        out[k] |= {"max": max(v, default=None), "failed": sum(r["status"] != "ok" for r in rs)}
        out[k] |= {"deadlock_free": all(r["deadlock_free"] is True for r in _ok(rs))}
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def _secs(x: float) -> str:
    """Seconds with three significant digits."""
    return f"{x:.3g}" if x >= 1e-4 else "<0.0001"


def _gaps(st: dict[Any, dict], equal: float = 0.0, engine: str = "dfsssp") -> list[tuple]:
    """(links, ``engine``'s average lanes minus LASH's) where both ran; differences below
    ``equal`` count as none."""
    avg = {k: v["avg"] for k, v in st.items() if v["avg"] is not None}
    both = [(x, avg[e, x] - avg["lash", x]) for e, x in avg if e == engine and ("lash", x) in avg]
    return [(x, 0.0 if abs(g) < equal else g) for x, g in sorted(both)]


def _cross(gaps: list[tuple[Any, float]]) -> tuple[float, float] | None:
    """Where the gap first changes sign (linear interpolation), and the gap before."""
    for (x0, d0), (x1, d1) in pairwise(gaps):
        if d0 < 0 <= d1 or d0 > 0 >= d1:
            return x0 + (x1 - x0) * d0 / (d0 - d1), d0
    return None


def _grid(rows: list[dict], lead: Sequence[str], cell, engines: Sequence[str]) -> list[list]:
    """A Markdown table's rows: per size, the ``lead`` fields of its first run (a spec as code),
    then ``cell`` of each engine's run that succeeded, ``-`` where none did."""
    ok, first = {(r["endpoints"], r["engine"]): r for r in _ok(rows)}, {}
    for r in rows:
        first.setdefault(r["endpoints"], r)
    return [
        [f"`{r[k]}`" if k == "spec" else r[k] for k in lead]
        + [cell(ok[n, e]) if (n, e) in ok else "-" for e in engines]
        for n, r in first.items()
    ]


def summarise(t: dict[str, list[dict]], **context: Any) -> tuple[str, list[dict[str, Any]]]:
    """``summary.md`` (specs/domke2011/summary.md.j2) and the rows of ``claims.csv`` from the
    run's tables ``t``; a claim's value is empty where this mode does not measure it."""
    x = {(r["family"], r["endpoints"], r["engine"]): r["ebb_avg"] for r in _ok(t["ebb"])}.get
    sizes = {f: sorted({r["endpoints"] for r in t["ebb"] if r["family"] == f}) for f in FAMILIES}
    families, timing = [], {}
    for family, (title, _) in FAMILY_FIGURES.items():
        if fam := [r for r in t["ebb"] if r["family"] == family]:
            engines, failed = list(dict.fromkeys(r["engine"] for r in fam)), defaultdict(list)
            for r in (r for r in fam if r["status"] != "ok"):
                failed[r["engine"]].append(r)
            lead = ("endpoints", "paper_topology", "spec", "max_switch_ports")
            rows = _grid(fam, lead, lambda r: fmt(r["ebb_avg"], 3), engines)
            families.append(dict(title=title, engines=engines, rows=rows, runs=fam, failed=failed))
    for series, engines in TIME_ENGINES.items():
        if rows := [r for r in t["routing_time"] if r["series"] == series]:
            table = _grid(rows, ("endpoints", "spec"), lambda r: _secs(r["seconds"]), engines)
            timing[series] = dict(engines=engines, most=max(r["repeats"] for r in rows), rows=table)
    times = {itemgetter("series", "endpoints", "engine")(r): r for r in _ok(t["routing_time"])}
    # DFSSSP's time over MinHop's on the k-ary n-trees of 512 endpoints on
    ratios = [
        q
        for (s, n, e), r in times.items()
        if s == "kary-ntree" and e == "dfsssp" and n >= 512 and (m := times.get((s, n, "minhop")))
        if (q := _ratio(r["seconds"], m["seconds"]))
    ]
    mem = {m["engine"]: m for m in t["memory"]}
    d, s = mem["dfsssp"], mem["sssp"]
    # DFSSSP's extra memory over SSSP's
    extra = d["extra_mb"] - s["extra_mb"] if "" not in (d["extra_mb"], s["extra_mb"]) else None
    fig9 = _lane_stats(t["lanes_random"], lambda r: (_series(r), r["links"]))
    heur = _lane_stats(t["heuristics"], lambda r: (r["ports"], r["heuristic"]))
    gains = [
        (_ratio(x((f, n, "dfsssp")), x((f, n, "minhop"))), f, n) for f in FAMILIES for n in sizes[f]
    ]
    gains = [g for g in gains if g[0]]
    gain = {n: q for q, f, n in gains if f == "xgft"}
    shortest, p = ("minhop", "updown", "sssp", "dfsssp"), HEURISTIC_PORTS[0]
    kautz = {
        n: [v for e in (*shortest, "lash") if (v := x(("kautz", n, e)))] for n in sizes["kautz"]
    }
    lash_kautz = [(n, _ratio(x(("kautz", n, "lash")), x(("kautz", n, "dfsssp")))) for n in kautz]
    means = {h: heur[(p, h)]["avg"] for h in ("weakest", "first", "heaviest") if (p, h) in heur}
    gaps, crossing = _gaps(fig9, 0.05), _cross(_gaps(fig9))
    # the least and the most lanes an engine needs more than LASH on average (round first: no -0.0)
    more = {e: [g for _, g in _gaps(fig9, engine=e)] for e in ("dfsssp", "dfsssp-online")}
    more = {
        e: (round(min(g), 1) + 0.0, round(max(g), 1) + 0.0) if g else None for e, g in more.items()
    }
    h1 = [x(("xgft", n, e)) for n in (64, 128, 256) for e in shortest]
    measured = {
        "gain": gain,
        "best": max(gains, default=None),
        "h2_gap": any(q > 1.2 for q, f, n in gains if f == "xgft" and n >= 512 and n != 1024),
        "lash": [v for n in sizes["xgft"] if (v := x(("xgft", n, "lash"))) is not None],
        "h1": [v for v in h1 if v is not None],
        "kautz": [(n, min(v), max(v)) for n, v in kautz.items() if v],
        "lash_kautz": [(n, q) for n, q in lash_kautz if q],
        "deadlock_free": all(v["deadlock_free"] for v in fig9.values()),
        "gaps": gaps,
        "cross": _cross(gaps),
        "more_lanes": more,
        "means": means if len(means) == 3 and None not in means.values() else None,
        "spread": {r["engine"]: r for r in t["xgft_spread"]},
        "lane_networks": len({r["seed"] for r in t["lanes_random"]}),
        "heur_networks": len({r["seed"] for r in t["heuristics"]}),
    }
    found = dict(fig9=fig9, heur=heur, times=times, ratios=ratios, mem=d, extra_mb=extra)
    facts = dict(title=TITLE, seed=SEED, max_lanes=MAX_LANES, ports=HEURISTIC_PORTS, secs=_secs)
    facts |= dict(stated=PAPER_CLAIMS | {"dfsssp_seconds_4096": PAPER_DFSSSP_SECONDS_4096})
    facts |= dict(paper_ranges=PAPER_HEURISTIC_RANGES, heuristics=HEURISTICS)
    facts |= dict(version=routelab.__version__, cpus=os.cpu_count())
    context |= dict(families=families, timing=timing)
    text = summary(SPECS, **facts, **measured, **found, **context)
    values = (
        round(extra, 1) if extra is not None else "",
        round(fmean(ratios), 3) if ratios else "",
        round(gain[1024], 4) if 1024 in gain else "",
        round(crossing[0], 1) if crossing else "",
    )
    about = [a.format(spec=t["memory"][0]["spec"]) for a in CLAIMS.values()]
    rows = zip(CLAIMS, values, about, strict=True)
    return text, [dict(claim=c, value=v, about=a) for c, v, a in rows]


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) every experiment into ``out``; returns the path of ``summary.md``.
    ``quick`` keeps networks to 1,024 endpoints and uses fewer patterns and random networks
    (minutes on two cores); ``tiny`` is a seconds-long configuration for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    # A routing that needs more lanes than allowed is a result (a deadlock
    # run naming the lanes it needs), as is a failure.
    out, accept, folder = Path(out), ("ok", "failed", "deadlock"), SPECS
    out.mkdir(parents=True, exist_ok=True)
    started, laps = datetime.now(UTC).isoformat(timespec="seconds"), [time.perf_counter()]
    sweep_ebb(cfg, out, quiet=not progress)
    t = {"ebb": (ebb := _ebb_rows(out))}
    laps.append(time.perf_counter())
    # the engines' spread on the largest 2-level XGFT, on threads (routing releases the GIL)
    xgft2 = [r["spec"] for r in ebb if r["paper_topology"].startswith("XGFT(2;")]
    with ThreadPoolExecutor(max_workers=max(1, cfg.workers)) as pool:
        spread = pool.map(partial(_top_spread, xgft2[-1]), SPREAD_ENGINES) if xgft2 else ()
        t["xgft_spread"] = list(spread)
    laps.append(time.perf_counter())
    lanes = sweep_specs(
        folder, ("lanes", "heuristics"), cfg.mode, out, cfg.workers, progress, accept
    )
    t["lanes_random"] = _lane_rows(lanes["lanes"], "fig9")
    t["heuristics"] = _lane_rows(lanes["heuristics"], "heuristics")
    laps.append(time.perf_counter())
    # one routing at a time, so that timings do not compete; then SSSP's and DFSSSP's memory,
    # each in a fresh process
    timed = ("timing", "timing-random", "memory")
    timing = sweep_specs(folder, timed, cfg.mode, out, 1, progress, accept, local=True)
    memory = timing.pop("memory").sort_values("routing.algorithm", ascending=False)
    t["routing_time"] = _time_rows([r for df in timing.values() for r in df.to_dict("records")])
    columns = "spec engine extra_mb=route_extra_mb peak_mb=route_peak_mb "
    columns += "seconds=route_seconds error"
    t["memory"] = [_record(r, columns) for r in memory.to_dict("records")]
    laps.append(time.perf_counter())
    seconds = dict(zip(PHASES, (b - a for a, b in pairwise(laps)), strict=True))
    # what the mode ran, read off the bandwidth table
    patterns, most = max(r["patterns"] for r in ebb), max(r["endpoints"] for r in ebb)
    multipath = max(r["endpoints"] for r in ebb if r["engine"] == "multipath")
    ran = dict(mode=cfg.mode, patterns=patterns, max_endpoints=most)
    ran |= dict(multipath_max_endpoints=multipath)
    text, t["claims"] = summarise(t, cfg=ran, seconds=seconds)
    for name, rows in t.items():
        write_csv(out / f"{name}.csv", None, rows)
    plot(t, out)
    (out / "summary.md").write_text(text)
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started}
    meta["seconds"] = {k: round(v, 2) for k, v in seconds.items()}
    write_run_json(out / "run.json", meta | {"patterns": patterns, "seed": SEED}, cfg.workers)
    return out / "summary.md"
