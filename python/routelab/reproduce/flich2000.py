"""Flich, Malumbres, Lopez, Duato, "Performance Evaluation of a New Routing Strategy for
Irregular Networks with Source Routing" (ICS 2000): Myrinet's up*/down* source routes (UD)
against minimal ones with in-transit buffers (ITB). Model, specs, modes, outputs:
docs/reproductions/flich2000.md, specs/flich2000/*.toml; the summary's words: summary.md.j2."""

from __future__ import annotations

import itertools
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from types import SimpleNamespace

import pandas as pd

import routelab
from routelab.experiment.study import (
    Config,
    config,
    figure,
    fmt,
    save_figure,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)
from routelab.reproduce import published

NAME = "flich2000"
TITLE = (
    "Flich, Malumbres, Lopez, Duato: Performance Evaluation of a New Routing Strategy "
    "for Irregular Networks with Source Routing (ICS 2000)"
)
PAPER = published(NAME)

FLIT_NS = 6.25  # one byte at 160 MB/s
HOSTS_PER_SWITCH = 4
#: flits/cycle/host -> flits/ns/switch
TO_FNS = HOSTS_PER_SWITCH / FLIT_NS

#: The experiment specs, one per pair of the paper's tables (``routelab sweep
#: specs/flich2000/uniform.toml`` runs Tables 1-2 as any user spec would), and those each mode runs.
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = {
    "full": ("uniform", "bitrev", "local", "hotspot", "beyond"),
    "quick": ("uniform", "bitrev", "beyond"),
    "tiny": ("uniform", "beyond"),
}
#: engine -> the routing's name in the tables
ROUTING_NAMES = {
    "updown-source": "UD",
    "itb": "ITB",
    "itb-any": "ITB-any",
    "dfsssp": "DFSSSP",
    "lash": "LASH",
}
ROUTINGS = tuple(ROUTING_NAMES.values())
PAPER_ROUTINGS = ("UD", "ITB")
#: the routings' colours and markers in the figures, in ROUTINGS order
COLORS, MARKERS = ("tab:gray", "tab:green", "tab:olive", "tab:blue", "tab:purple"), "so^Dv"
SIZE_STYLE = {32: ("tab:blue", "o"), 512: ("tab:orange", "s"), 1024: ("tab:green", "^")}
HOTSPOT = {8: 0.30, 16: 0.20, 32: 0.15, 64: 0.05}
FIGURES = {
    "uniform": ("fig6_uniform.png", "Fig. 6"),
    "bit-reverse": ("fig7_bitrev.png", "Fig. 7"),
    "local:l=5": ("fig8_local5.png", "Fig. 8"),
    "hotspot": ("fig9_hotspot.png", "Fig. 9"),
}
#: the paper's patterns, in its tables' order
PATTERNS = ("uniform", "bit-reverse", "local:l=3", "local:l=5", "hotspot")
#: a network's runs; a table's cell; the statistics over networks
KEY = ("switches", "seed", "pattern", "bytes")
CELL = ("pattern", "switches", "bytes")
STATS = ("min", "max", "avg")
#: How far (relative) an average ITB/UD factor may sit from the paper's before the summary names it.
NOTABLE_GAP = 0.15
#: The two in-transit buffers per message the paper states (§4.6.3).
PAPER_TRANSITS = {
    (f"local:l={n}", 64): PAPER.statements[f"itb_per_message_local{n}_64"] for n in (3, 5)
}


def topology(switches: int, seed: int) -> str:
    return f"random:switches={switches},ports=8,hosts={HOSTS_PER_SWITCH},seed={seed}"


def switches_of(topology: str) -> int:
    return int(re.search(r"switches=(\d+)", topology)[1])


def bytes_of(size: str) -> int:
    return int(str(size).removesuffix("B"))


def pattern_of(spec: str) -> str:
    """The paper's name of a pattern spec: ``local:l=3`` for ``local:l=3,along=updown``,
    ``hotspot`` for any hot-spot."""
    return "hotspot" if spec.startswith("hotspot") else spec.split(",")[0]


def pattern_spec(pattern: str, switches: int, host: int = 28) -> str:
    """A paper pattern's traffic spec, as the specs write it: local distances along the up*/down*
    routes (what the paper's 0.008 and 0.381 ITBs per message fit); one hot host for all (§4.2)."""
    if pattern == "hotspot":
        return f"hotspot:f={HOTSPOT[switches]},host={host}"
    return f"{pattern},along=updown" if pattern.startswith("local:") else pattern


def applies(pattern: str, switches: int) -> bool:
    """Local l = 5 on 8 switches is uniform (no destination is farther than 4 switches,
    §4.6.3): the paper leaves it out."""
    return not (pattern == "local:l=5" and switches == 8)


def sweep(cfg: Config, out: Path, progress: bool) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Runs (or resumes) the mode's specs into ``out``/PART; returns their run tables and, with
    why, the sweeps a routing could not run (too many lanes); any other failure stops here."""
    parts, accept = PARTS[cfg.mode], ("ok", "failed", "deadlock")
    tables = sweep_specs(SPECS, parts, cfg.mode, out, cfg.workers, progress, accept, ("points",))
    skipped = []
    for part, df in tables.items():
        for r in df[df["status"] != "ok"].to_dict("records"):
            why = (r["error"] or "").splitlines()[0]
            failed = r["status"] == "failed"
            if failed and not why.startswith("RoutingError"):
                raise RuntimeError(f"{NAME}-{part} run {r['key']} failed: {why}; see {out / part}")
            where = f"{ROUTING_NAMES[r['routing.algorithm']]} on {r['network.topology']}"
            skipped.append(f"{where}: {why}" if failed else f"{where} deadlocked at a load: {why}")
    return tables, skipped


def facts_of(cfg: Config, tables: dict[str, pd.DataFrame]) -> SimpleNamespace:
    """What a mode ran, read off its run tables: the summary's words."""

    def values(column: str, of) -> list:
        return sorted({of(v) for df in tables.values() for v in df[column]})

    patterns = values("traffic.pattern", pattern_of)
    return SimpleNamespace(
        mode=cfg.mode,
        switches=values("network.topology", switches_of),
        topologies=max(values("run.seed", int)),
        patterns=[p for p in PATTERNS if p in patterns],
        sizes=values("traffic.packet_bytes", bytes_of),
        loads=list(tables["uniform"]["saturate.scan"].iloc[0]),
        resolution=float(tables["uniform"]["saturate.resolution"].iloc[0]),
        workers=cfg.workers,
    )


def rows_of(df: pd.DataFrame) -> list[dict]:
    """Every load every search measured, as rows of ``runs.csv``; ``search`` marks the knee's
    loads, narrowed past the grid (where ITB's accepted traffic collapses, a grid step can miss)."""
    rows = []
    for r in df[df["status"] != "failed"].to_dict("records"):
        # VCs per link: result.vcs only where they differ from router.vcs (0: as many as needed)
        vcs = r.get("result.vcs")
        vcs = int(r["router.vcs"] if vcs is None or vcs != vcs else vcs)
        cell = {
            "switches": switches_of(r["network.topology"]),
            "seed": int(r["run.seed"]),
            "pattern": pattern_of(r["traffic.pattern"]),
            "bytes": bytes_of(r["traffic.packet_bytes"]),
            "routing": ROUTING_NAMES[r["routing.algorithm"]],
        }
        rows += [
            {
                **cell,
                "load": round(p["load"], 6),
                "offered_fns": round(p["offered"] * TO_FNS, 5),
                "accepted_fns": round(p["accepted"] * TO_FNS, 5),
                "latency_ns": round(p["network_latency_mean"] or 0.0, 1),
                "itb_per_message": round(p["transits"] / max(1, p["packets_delivered"]), 5),
                "transit_peak_bytes": p["transit_peak_bytes"],
                "transit_spills": p["transit_spills"],
                "vcs": vcs,
                "flit_hops": p["flit_hops"],
                "seconds": round(p["wall_seconds"], 3),
                "search": "" if p["load"] in r["saturate.scan"] else True,
            }
            for p in r["points"]
            if p["offered"] is not None and p["accepted"] is not None
        ]
    order = (*KEY, "routing", "load")
    return sorted(
        rows, key=lambda x: tuple(PATTERNS.index(x[k]) if k == "pattern" else x[k] for k in order)
    )


def transits_per_message(topologies: int, samples: int = 20) -> pd.DataFrame:
    """In-transit hosts per message of ITB's routes: per size and pattern, the mean over networks
    of ``samples`` draws per source. Read from the routes (no simulation), for any mode."""
    means: dict[tuple[int, str], list[float]] = {}
    for switches, seed in itertools.product((8, 16, 32, 64), range(1, topologies + 1)):
        net = routelab.topology(topology(switches, seed))
        routes = routelab.route(net, "itb", seed=seed).to_source_routes().splitlines()
        split = (line.partition(":") for line in routes if not line.startswith("#"))
        marks = {tuple(head.split()): ports.split().count("|") for head, _, ports in split}
        labels = net.labels
        name = [labels[t] for t in net.terminals]
        for pattern in (p for p in PATTERNS if applies(p, switches)):
            spec = pattern_spec(pattern, switches)
            draws = [routelab.pattern(spec, net, seed=1000 * seed + k) for k in range(samples)]
            counts = [marks[(name[s], name[d])] for pairs in draws for s, d in pairs if s != d]
            means.setdefault((switches, pattern), []).append(fmean(counts) if counts else 0.0)
    return pd.DataFrame(
        [(n, p, len(v), round(fmean(v), 4), round(max(v), 4)) for (n, p), v in means.items()],
        columns=["switches", "pattern", "networks", "itb_per_message", "itb_per_message_max"],
    )


def _spread(column: str, name: str, digits: int) -> dict[str, tuple]:
    """Aggregations ``NAME_min``, ``_max``, ``_avg`` of ``column`` (Python's round, not numpy's)."""
    fs = (min, max, fmean)
    return {
        f"{name}_{s}": (column, lambda v, f=f: round(float(f(v)), digits))
        for s, f in zip(STATS, fs, strict=True)
    }


def aggregate(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    """Per network the most traffic accepted, and the rest at the lowest load; over networks each
    routing's throughput and low-load latency against UD's; per cell the network closest to ITB's
    average (Figs. 6-9). ``pattern`` is categorical: groups sort as the paper's tables."""
    g = runs.sort_values("load", kind="stable").groupby([*KEY, "routing"], observed=True)
    tp = g.agg(
        throughput_fns=("accepted_fns", "max"),
        low_latency_ns=("latency_ns", "first"),
        itb_per_message=("itb_per_message", "first"),
        transit_peak_bytes=("transit_peak_bytes", "max"),
        transit_spills=("transit_spills", "sum"),
        vcs=("vcs", "first"),
    ).reset_index()
    ud = tp[tp.routing == "UD"].set_index(list(KEY))[["throughput_fns", "low_latency_ns"]]
    net = tp[tp.routing != "UD"].join(ud.add_suffix("_ud"), on=list(KEY), how="inner")
    net = net.assign(
        factor=net.throughput_fns / net.throughput_fns_ud,
        latency_pct=100.0 * (net.low_latency_ns / net.low_latency_ns_ud - 1.0),
    )[net.throughput_fns_ud > 0]
    g = net.groupby(["routing", *CELL], observed=True)
    factors = g.agg(
        networks=("factor", "size"),
        **_spread("factor", "factor", 3),
        itb_per_message=("itb_per_message", lambda v: round(fmean(v), 4)),
        vcs_max=("vcs", "max"),
    ).reset_index()
    latency = g.agg(networks=("factor", "size"), **_spread("latency_pct", "increase_pct", 2))
    avg = factors.set_index(["routing", *CELL])["factor_avg"]
    itb = net[net.routing == "ITB"].join(avg, on=["routing", *CELL])
    gap = (itb.factor - itb.factor_avg).abs().groupby([itb[c] for c in CELL], observed=True)
    closest = itb.loc[gap.idxmin(), [*CELL, "seed"]].itertuples(index=False)
    return tp, factors, latency.reset_index(), {(p, n, b): seed for p, n, b, seed in closest}


def plot_curves(runs: pd.DataFrame, chosen, pattern: str, path: Path, fig_name: str) -> None:
    """Latency against accepted traffic of 512-byte messages on the chosen networks."""
    sizes = sorted(n for p, n, b in chosen if p == pattern and b == 512)
    if not sizes:
        return
    fig = figure(4.2 * len(sizes), 3.8)
    axes = fig.subplots(1, len(sizes), squeeze=False)[0]
    for ax, switches in zip(axes, sizes, strict=True):
        seed = chosen[(pattern, switches, 512)]
        sel = runs[(runs.pattern == pattern) & (runs.switches == switches)]
        sel = sel[(sel.bytes == 512) & (sel.seed == seed)].sort_values("load", kind="stable")
        # Sustained points only: beyond saturation latency grows with the run.
        sel = sel[sel.accepted_fns >= 0.9 * sel.offered_fns]
        for routing, c, m in zip(ROUTINGS, COLORS, MARKERS, strict=True):
            if len(pts := sel[sel.routing == routing]):
                ax.plot(pts.accepted_fns, pts.latency_ns, marker=m, ms=3.5, color=c, label=routing)
        ax.set_title(f"{switches} switches (network {seed})")
        ax.set(xlabel="accepted traffic (flits/ns/switch)", ylabel="latency (ns)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    save_figure(fig, path, f"{fig_name}: {pattern}, 512-byte messages")


def plot_factors(itb: pd.DataFrame, path: Path) -> None:
    """ITB over UD against network size: a panel per pattern, a colour and marker per message
    size, the paper's average dashed in the same colour with hollow markers."""
    patterns = sorted(set(itb.pattern))
    cols = min(3, max(1, len(patterns)))
    rows = -(-len(patterns) // cols) or 1
    fig = figure(4.2 * cols, 3.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False).flatten()
    published = PAPER.mapping("factors", "factor_avg", CELL)
    for ax, pattern in zip(axes, patterns, strict=False):
        of = itb[itb.pattern == pattern]
        for size in sorted(set(of.bytes)):
            sel = of[of.bytes == size].sort_values("switches", kind="stable")
            color, marker = SIZE_STYLE.get(size, ("tab:gray", "D"))
            style = {"color": color, "marker": marker}
            x, avg = sel.switches.tolist(), sel.factor_avg
            err = [(avg - sel.factor_min).tolist(), (sel.factor_max - avg).tolist()]
            ax.errorbar(x, avg.tolist(), yerr=err, **style, capsize=3, label=f"{size} B")
            if px := [s for s in x if (pattern, s, size) in published]:
                paper = [published[(pattern, s, size)] for s in px]
                ax.plot(px, paper, ls="--", lw=1, **style, mfc="none", label=f"{size} B, paper")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(pattern, fontsize=9)
        ax.set_xlabel("switches", fontsize=8)
        ax.set_ylabel("ITB / UD throughput", fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in axes[len(patterns) :]:
        ax.axis("off")
    title = "ITB over UD: average over networks, bars from min to max; dashed, hollow: "
    save_figure(fig, path, title + "the paper's average")


def _published(table: str, metric: str, pattern: str, switches: int, size: int) -> float | None:
    return PAPER.mapping(table, metric, CELL).get((pattern, switches, size))


def _span(low: float, high: float) -> str:
    """Signed gaps (a fraction below the paper's when positive) in words."""
    lo, hi = round(100 * low), round(100 * high)
    if lo < 0 < hi:
        return f"between {-lo}% above and {hi}% below"
    a, b = sorted((abs(lo), abs(hi)))
    return f"{a}{'' if a == b else f'-{b}'}% {'below' if lo >= 0 else 'above'}"


def _gap_to_paper(factors: list[dict]) -> list[str]:
    """How far the ITB/UD factors of the largest networks lie from the paper's, and what ITB
    over any minimal path reads beside them, from the run's own numbers."""
    itb = [f for f in factors if f["routing"] == "ITB"]
    if not itb:
        return []
    big = max(f["switches"] for f in itb)
    paper = PAPER.mapping("factors", "factor_avg", CELL)
    gaps = [(f, 1 - f["factor_avg"] / p) for f in itb if (p := paper.get(tuple(map(f.get, CELL))))]
    lines = []
    if largest := [
        g for f, g in gaps if f["switches"] == big and f["pattern"] in ("uniform", "bit-reverse")
    ]:
        lines.append(
            f"- At {big} switches the average gain under uniform and bit-reversal traffic is "
            f"{_span(min(largest), max(largest))} the paper's (Tables 1, 3)."
        )
    anyp = {
        (f["pattern"], f["switches"]): f["factor_avg"]
        for f in factors
        if f["routing"] == "ITB-any" and f["bytes"] == 512
    }
    if pairs := [
        f"ITB-any {fmt(anyp[('uniform', n)])} at {n} switches (paper's ITB "
        f"{fmt(paper.get(('uniform', n, 512)))})"
        for n in sorted({n for _, n in anyp}, reverse=True)[:2]
        if ("uniform", n) in anyp
    ]:
        lines.append(
            "- `ITB-any` splits a pair's route along any of its minimal paths, also for pairs "
            "that have a legal minimal up*/down* path, which §3's ITB routes whole: beyond the "
            f"paper, not its routing. Uniform 512 B: {', '.join(pairs)}."
        )
    if far := [(f, g) for f, g in gaps if abs(g) > NOTABLE_GAP]:
        cells = ", ".join(
            f"{f['pattern']} {f['switches']} sw {f['bytes']} B {fmt(f['factor_avg'])} "
            f"({'below' if g > 0 else 'above'} the paper by {100 * abs(g):.0f}%)"
            for f, g in far
        )
        lines.append(f"- Averages more than {100 * NOTABLE_GAP:.0f}% from the paper's: {cells}.")
    return lines


def summarise(facts, tables: dict[str, list[dict]], skipped, **numbers) -> str:
    """``summary.md`` from the CSV tables' records; ``numbers``: this run's and its searches'."""

    def cell(r: dict, name: str, table: str | None = None, missing: str | None = None) -> list:
        # The cell's key and the measured min / max / avg, the paper's beside them.
        key = [r[k] for k in CELL]
        row = [*key, " / ".join(fmt(r[f"{name}_{s}"]) for s in STATS)]
        if table:
            paper = [_published(table, f"{name}_{s}", *key) for s in STATS]
            none = missing and all(v is None for v in paper)
            row.append(missing if none else " / ".join(map(fmt, paper)))
        return row

    return summary(
        SPECS,
        title=TITLE,
        cfg=facts,
        factors=[
            [*cell(f, "factor", "factors"), fmt(f["itb_per_message"], 3)] for f in tables["factors"]
        ],
        latency=[cell(x, "increase_pct", "latency", "-") for x in tables["latency"]],
        transits=[
            [n, p, f"{mean:.3f} ({most:.3f})", fmt(PAPER_TRANSITS.get((p, n)), 3)]
            for n, p, _, mean, most in (t.values() for t in tables["transits"])
        ],
        beyond=[[f["routing"], *cell(f, "factor"), f["vcs_max"]] for f in tables["beyond"]],
        skipped=skipped,
        not_run=sorted(set(skipped))[:20],
        gap=_gap_to_paper(tables["factors"] + tables["beyond"]),
        **numbers,
    )


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the reproduction into ``out``; returns ``summary.md``'s path. ``quick``:
    16 and 32 switches, 3 networks, 512 B, uniform and bit-reversal; ``tiny``: for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables, skipped = sweep(cfg, out, progress)
    facts = facts_of(cfg, tables)
    rows = [row for df in tables.values() for row in rows_of(df)]
    seconds = time.perf_counter() - t0
    runs = pd.DataFrame(rows).astype({"pattern": pd.CategoricalDtype(PATTERNS)})
    tp, factors, latency, chosen = aggregate(runs)
    csvs = {
        "runs": runs,
        "transits": transits_per_message(facts.topologies),
        "throughput": tp,
        "factors": factors[factors.routing == "ITB"],
        "latency": latency[latency.routing == "ITB"],
        "beyond": factors[~factors.routing.isin(PAPER_ROUTINGS)],
    }
    records = {name: df.to_dict("records") for name, df in csvs.items()}
    for name, df in csvs.items():
        write_csv(out / f"{name}.csv", df.columns, records[name])
    for pattern, (name, fig_name) in FIGURES.items():
        plot_curves(runs, chosen, pattern, out / name, fig_name)
    plot_factors(csvs["factors"], out / "factors.png")
    numbers = {
        "seconds": seconds,
        "simulation_seconds": float(sum(t["wall_seconds"].sum() for t in tables.values())),
        "searches": sum(len(t) for t in tables.values()),
        "simulations": len(rows),
        "flit_hops": sum(r["flit_hops"] for r in rows),
    }
    path = out / "summary.md"
    path.write_text(summarise(facts, records, skipped, **numbers))
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started, **numbers}
    meta.update(seconds=round(seconds, 2), simulation_seconds=round(meta["simulation_seconds"], 2))
    meta.update(switches=facts.switches, topologies=facts.topologies)
    write_run_json(out / "run.json", meta, cfg.workers)
    return path
