"""Flich, Malumbres, Lopez, Duato, "Performance Evaluation of a New Routing Strategy for
Irregular Networks with Source Routing" (ICS 2000): Myrinet's up*/down* source routes (UD)
against minimal ones with in-transit buffers (ITB), messages generated at a constant rate.
Model, specs, modes, outputs: docs/reproductions/flich2000.md and specs/flich2000/*.toml; the
summary's words: specs/flich2000/summary.md.j2. Each search narrows the knee past its grid:
ITB's accepted traffic collapses just past it, which a grid step can miss."""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import routelab
from routelab.reproduce import expected
from routelab.reproduce._common import (
    Config,
    config,
    figure,
    fmt,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)

if TYPE_CHECKING:
    import pandas as pd

Rows = list[dict[str, Any]]

NAME = "flich2000"
TITLE = (
    "Flich, Malumbres, Lopez, Duato: Performance Evaluation of a New Routing Strategy "
    "for Irregular Networks with Source Routing (ICS 2000)"
)
PAPER = expected.load(NAME)

FLIT_NS = 6.25  # one byte at 160 MB/s
HOSTS_PER_SWITCH = 4
#: flits/cycle/host -> flits/ns/switch
TO_FNS = HOSTS_PER_SWITCH / FLIT_NS

#: The experiment specs, one per pair of the paper's tables, each a saturation search per
#: network, pattern, message size and routing (``routelab sweep specs/flich2000/uniform.toml``
#: runs Tables 1-2 as any user spec would); ``PARTS``: the specs each mode runs.
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = {
    "full": ("uniform", "bitrev", "local", "hotspot", "beyond"),
    "quick": ("uniform", "bitrev", "beyond"),
    "tiny": ("uniform", "beyond"),
}
#: engine -> the routing's name in the tables
ROUTING_NAMES: dict[str, str] = {
    "updown-source": "UD",
    "itb": "ITB",
    "itb-any": "ITB-any",
    "dfsssp": "DFSSSP",
    "lash": "LASH",
}
ROUTINGS = tuple(ROUTING_NAMES.values())
PAPER_ROUTINGS = ("UD", "ITB")
HOTSPOT = {8: 0.30, 16: 0.20, 32: 0.15, 64: 0.05}
FIGURES = {
    "uniform": ("fig6_uniform.png", "Fig. 6"),
    "bit-reverse": ("fig7_bitrev.png", "Fig. 7"),
    "local:l=5": ("fig8_local5.png", "Fig. 8"),
    "hotspot": ("fig9_hotspot.png", "Fig. 9"),
}
COLORS = {
    "UD": "tab:gray",
    "ITB": "tab:green",
    "ITB-any": "tab:olive",
    "DFSSSP": "tab:blue",
    "LASH": "tab:purple",
}
MARKERS = {"UD": "s", "ITB": "o", "ITB-any": "^", "DFSSSP": "D", "LASH": "v"}
PATTERNS = ("uniform", "bit-reverse", "local:l=3", "local:l=5", "hotspot")
#: a network's runs; a table's cell; the statistics over networks
KEY = ("switches", "seed", "pattern", "bytes")
CELL = ("pattern", "switches", "bytes")
STATS = ("min", "max", "avg")


@dataclass(frozen=True)
class Facts:
    """What a mode ran, read off its run tables: the summary's words."""

    mode: str
    switches: tuple[int, ...]
    topologies: int
    patterns: tuple[str, ...]
    sizes: tuple[int, ...]
    loads: tuple[float, ...]
    resolution: float
    workers: int = 2

    @classmethod
    def of(cls, cfg: Config, tables: dict[str, pd.DataFrame]) -> Facts:
        first = tables["uniform"].iloc[0]
        runs = [r for t in tables.values() for r in t.to_dict("records")]
        patterns = {pattern_of(r["traffic.pattern"]) for r in runs}
        return cls(
            mode=cfg.mode,
            switches=tuple(sorted({switches_of(r["network.topology"]) for r in runs})),
            topologies=max(int(r["run.seed"]) for r in runs),
            patterns=tuple(p for p in PATTERNS if p in patterns),
            sizes=tuple(sorted({bytes_of(r["traffic.packet_bytes"]) for r in runs})),
            loads=tuple(first["saturate.scan"]),
            resolution=float(first["saturate.resolution"]),
            workers=cfg.workers,
        )


def topology(switches: int, seed: int) -> str:
    return f"random:switches={switches},ports=8,hosts={HOSTS_PER_SWITCH},seed={seed}"


def switches_of(topology: str) -> int:
    return int(re.search(r"switches=(\d+)", topology)[1])


def bytes_of(size: str) -> int:
    return int(str(size).removesuffix("B"))


def pattern_of(spec: str) -> str:
    """The paper's name of a pattern spec: ``local:l=3`` for
    ``local:l=3,along=updown``, ``hotspot`` for any hot-spot."""
    return "hotspot" if spec.startswith("hotspot") else spec.split(",")[0]


def pattern_spec(pattern: str, switches: int, host: int = 28) -> str:
    """The traffic spec of a paper pattern, as the specs write it. Local
    distances are counted along the up*/down* routes (see the summary's
    notes: the paper's 0.008 and 0.381 in-transit buffers per message fit
    that reading, not shortest paths); the hot host is drawn once, the same
    host number on every network (§4.2)."""
    if pattern == "hotspot":
        return f"hotspot:f={HOTSPOT[switches]},host={host}"
    if pattern.startswith("local:"):
        return f"{pattern},along=updown"
    return pattern


def applies(pattern: str, switches: int) -> bool:
    """Local l = 5 on 8 switches is uniform (no destination is farther than 4
    switches, §4.6.3): the paper leaves it out."""
    return not (pattern == "local:l=5" and switches == 8)


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------


def sweep(cfg: Config, out: Path, progress: bool) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Runs (or resumes) the mode's specs into ``out``/PART; returns their run
    tables and the sweeps a routing could not run, with why. A routing that
    needs more lanes than allowed is a failed run that is listed, not an
    error; any other failure stops here."""
    tables = sweep_specs(
        SPECS,
        PARTS[cfg.mode],
        cfg.mode,
        out,
        cfg.workers,
        progress,
        accept=("ok", "failed", "deadlock"),
        artefacts=("points",),
    )
    skipped = []
    for part, df in tables.items():
        for r in df[df["status"] != "ok"].to_dict("records"):
            why = (r["error"] or "").splitlines()[0]
            if r["status"] == "failed" and not why.startswith("RoutingError"):
                raise RuntimeError(
                    f"flich2000-{part} run {r['key']} failed: {why}; see {out / part}"
                )
            where = f"{ROUTING_NAMES[r['routing.algorithm']]} on {r['network.topology']}"
            failed = r["status"] == "failed"
            skipped.append(f"{where}: {why}" if failed else f"{where} deadlocked at a load: {why}")
    return tables, skipped


def rows_of(df: pd.DataFrame) -> Rows:
    """Every load every search measured, as rows of ``runs.csv``: offered
    and accepted traffic in flits/ns/switch, latency from injection to
    delivery, in-transit buffers per message; ``search`` marks the knee's
    loads, the others are the grid's curve."""
    rows = []
    for r in df.to_dict("records"):
        if r["status"] == "failed":
            continue
        grid = set(r["saturate.scan"])
        # VCs per link: the table keeps the result apart only where it
        # differs from router.vcs (0: as many as the routes need).
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
                "search": "" if p["load"] in grid else True,
            }
            for p in r["points"]
            if p["offered"] is not None and p["accepted"] is not None
        ]
    return sorted(rows, key=lambda x: (_order(tuple(x[k] for k in KEY)), x["routing"], x["load"]))


def transits_per_message(cfg: Facts, samples: int = 20) -> Rows:
    """In-transit hosts per message of ITB's routes, per size and pattern: the
    mean over the networks of the mean over messages drawn from the pattern
    (``samples`` draws per source). Read from the routes, no simulation, so
    every size and pattern of the paper is covered in any mode (§4.6.3 gives
    0.008 for local l = 3 and 0.381 for l = 5 on a 64-switch network)."""
    out = []
    for switches in (8, 16, 32, 64):
        per_pattern: dict[str, list[float]] = {p: [] for p in PATTERNS if applies(p, switches)}
        for seed in range(1, cfg.topologies + 1):
            net = routelab.topology(topology(switches, seed))
            marks: dict[tuple[str, ...], int] = {}
            for line in routelab.route(net, "itb", seed=seed).to_source_routes().splitlines():
                if not line.startswith("#"):
                    head, _, ports = line.partition(":")
                    marks[tuple(head.split())] = ports.split().count("|")
            labels = net.labels
            name = [labels[t] for t in net.terminals]
            for pattern, values in per_pattern.items():
                counts = [
                    marks[(name[s], name[d])]
                    for k in range(samples)
                    for s, d in routelab.pattern(
                        pattern_spec(pattern, switches), net, seed=1000 * seed + k
                    )
                    if s != d
                ]
                values.append(statistics.fmean(counts) if counts else 0.0)
        out += [
            {
                "switches": switches,
                "pattern": pattern,
                "networks": len(values),
                "itb_per_message": round(statistics.fmean(values), 4),
                "itb_per_message_max": round(max(values), 4),
            }
            for pattern, values in per_pattern.items()
            if values
        ]
    return out


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------


def _order(key: tuple) -> tuple:
    """Sorts keys of mixed fields: numbers by value, then text, with the
    paper's pattern order first."""
    return tuple(
        (0, PATTERNS.index(k), "")
        if k in PATTERNS
        else (1, k, "")
        if isinstance(k, int | float)
        else (2, 0, str(k))
        for k in key
    )


def _groups(rows: Rows, keys: tuple[str, ...]) -> list[tuple[tuple, list]]:
    """``rows`` grouped by the values of ``keys``, the groups in table order."""
    groups: dict[tuple, Rows] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    return sorted(groups.items(), key=lambda kv: _order(kv[0]))


def throughput(rows: Rows) -> Rows:
    """Per network, pattern, size and routing: the most traffic accepted, the
    latency at the lowest load and the in-transit buffers per message there."""
    out = []
    for key, sel in _groups(rows, (*KEY, "routing")):
        low = min(sel, key=lambda r: r["load"])
        out.append(
            {
                **dict(zip((*KEY, "routing"), key, strict=True)),
                "throughput_fns": max(r["accepted_fns"] for r in sel),
                "low_latency_ns": low["latency_ns"],
                "itb_per_message": low["itb_per_message"],
                "transit_peak_bytes": max(r["transit_peak_bytes"] or 0 for r in sel),
                "transit_spills": sum(r["transit_spills"] or 0 for r in sel),
                "vcs": low["vcs"],
            }
        )
    return out


def ratios(tp: Rows, routing: str, base: str = "UD") -> Rows:
    """Per network: ``routing``'s throughput over ``base``'s and its low-load
    latency increase in percent."""
    by = {(*(t[k] for k in KEY), t["routing"]): t for t in tp}
    out = []
    for t in tp:
        b = by.get((*(t[k] for k in KEY), base))
        if t["routing"] == routing and b is not None and b["throughput_fns"] > 0:
            out.append(
                {
                    **{k: t[k] for k in KEY},
                    "routing": routing,
                    "factor": t["throughput_fns"] / b["throughput_fns"],
                    "latency_pct": 100.0 * (t["low_latency_ns"] / b["low_latency_ns"] - 1.0),
                    "itb_per_message": t["itb_per_message"],
                    "vcs": t["vcs"],
                }
            )
    return out


def _spread(name: str, values: list[float], digits: int) -> dict[str, float]:
    """``NAME_min``, ``NAME_max`` and ``NAME_avg`` of ``values``."""
    return {
        f"{name}_{s}": round(f(values), digits)
        for s, f in zip(STATS, (min, max, statistics.fmean), strict=True)
    }


def summarise_ratios(per_net: Rows) -> tuple[Rows, Rows]:
    """Min, max and avg over networks: the factor tables and the latency tables."""
    factors, latency = [], []
    for key, sel in _groups(per_net, ("routing", *CELL)):
        base = {**dict(zip(("routing", *CELL), key, strict=True)), "networks": len(sel)}
        factors.append(
            {
                **base,
                **_spread("factor", [r["factor"] for r in sel], 3),
                "itb_per_message": round(statistics.fmean(r["itb_per_message"] for r in sel), 4),
                "vcs_max": max(r["vcs"] for r in sel),
            }
        )
        latency.append({**base, **_spread("increase_pct", [r["latency_pct"] for r in sel], 2)})
    return factors, latency


def closest_to_average(per_net: Rows, factors: Rows) -> dict[tuple, int]:
    """(pattern, switches, bytes) -> the network whose ITB factor is closest to
    the average (the paper's Figs. 6-9)."""
    avg = {tuple(f[k] for k in CELL): f["factor_avg"] for f in factors if f["routing"] == "ITB"}
    return {
        k: min(sel, key=lambda r: abs(r["factor"] - avg[tuple(r[c] for c in CELL)]))["seed"]
        for k, sel in _groups([r for r in per_net if r["routing"] == "ITB"], CELL)
    }


# --------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------


def plot_curves(rows, chosen, pattern: str, size: int, path: Path, fig_name: str) -> None:
    sizes = sorted({k[1] for k in chosen if k[0] == pattern and k[2] == size})
    if not sizes:
        return
    fig = figure(4.2 * len(sizes), 3.8)
    axes = fig.subplots(1, len(sizes), squeeze=False)[0]
    for ax, switches in zip(axes, sizes, strict=True):
        seed = chosen[(pattern, switches, size)]
        for routing in ROUTINGS:
            want = (pattern, switches, size, seed, routing)
            # Sustained points only: beyond saturation latency grows with the run.
            pts = sorted(
                (
                    r
                    for r in rows
                    if (r["pattern"], r["switches"], r["bytes"], r["seed"], r["routing"]) == want
                    and r["accepted_fns"] >= 0.9 * r["offered_fns"]
                ),
                key=lambda r: r["load"],
            )
            if pts:
                x, y = [r["accepted_fns"] for r in pts], [r["latency_ns"] for r in pts]
                ax.plot(x, y, marker=MARKERS[routing], ms=3.5, color=COLORS[routing], label=routing)
        ax.set_title(f"{switches} switches (network {seed})")
        ax.set_xlabel("accepted traffic (flits/ns/switch)")
        ax.set_ylabel("latency (ns)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{fig_name}: {pattern}, {size}-byte messages")
    fig.tight_layout()
    fig.savefig(path)


SIZE_STYLE = {32: ("tab:blue", "o"), 512: ("tab:orange", "s"), 1024: ("tab:green", "^")}


def plot_factors(factors: Rows, path: Path) -> None:
    """ITB over UD against network size: a panel per pattern, a colour and
    marker per message size, the paper's average dashed in the same colour
    with hollow markers."""
    itb = [f for f in factors if f["routing"] == "ITB"]
    patterns = sorted({f["pattern"] for f in itb})
    cols = min(3, max(1, len(patterns)))
    rows = -(-len(patterns) // cols) or 1
    fig = figure(4.2 * cols, 3.4 * rows)
    axes = fig.subplots(rows, cols, squeeze=False).flatten()
    published = PAPER.mapping("factors", "factor_avg", CELL)
    for ax, pattern in zip(axes, patterns, strict=False):
        for size in sorted({f["bytes"] for f in itb if f["pattern"] == pattern}):
            sel = sorted(
                (f for f in itb if (f["pattern"], f["bytes"]) == (pattern, size)),
                key=lambda f: f["switches"],
            )
            color, marker = SIZE_STYLE.get(size, ("tab:gray", "D"))
            style = {"color": color, "marker": marker}
            x = [f["switches"] for f in sel]
            avg = [f["factor_avg"] for f in sel]
            low = [f["factor_avg"] - f["factor_min"] for f in sel]
            high = [f["factor_max"] - f["factor_avg"] for f in sel]
            ax.errorbar(x, avg, yerr=[low, high], **style, capsize=3, label=f"{size} B")
            px = [s for s in x if (pattern, s, size) in published]
            if px:
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
    fig.suptitle(
        "ITB over UD: average over networks, bars from min to max; "
        "dashed, hollow: the paper's average"
    )
    fig.tight_layout()
    fig.savefig(path)


# --------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------

#: How far (relative) an average ITB/UD factor may sit from the paper's before
#: the summary names it.
NOTABLE_GAP = 0.15
#: The two in-transit buffers per message the paper states (§4.6.3).
PAPER_TRANSITS = {
    ("local:l=3", 64): PAPER.statements["itb_per_message_local3_64"],
    ("local:l=5", 64): PAPER.statements["itb_per_message_local5_64"],
}


def _published(table: str, metric: str, pattern: str, switches: int, size: int) -> float | None:
    try:
        return PAPER.find(table, metric, pattern=pattern, switches=switches, bytes=size).value
    except KeyError:
        return None


def _paper(table: str, metric: str, row: dict[str, Any]) -> list[float | None]:
    """The paper's min, max and avg of ``metric`` for ``row``'s pattern, switches and bytes."""
    return [_published(table, f"{metric}_{s}", *(row[k] for k in CELL)) for s in STATS]


def _stats(values: list, missing: str | None = None) -> str:
    """``min / max / avg``; ``missing`` where none is known."""
    if missing and all(v is None for v in values):
        return missing
    return " / ".join(map(fmt, values))


def _span(low: float, high: float) -> str:
    """Signed gaps (a fraction below the paper's when positive) in words."""
    lo, hi = round(100 * low), round(100 * high)
    if lo == hi:
        return f"{abs(lo)}% {'below' if lo >= 0 else 'above'}"
    if lo >= 0 or hi <= 0:
        return f"{min(abs(lo), abs(hi))}-{max(abs(lo), abs(hi))}% {'below' if lo >= 0 else 'above'}"
    return f"between {-lo}% above and {hi}% below"


def _gap_to_paper(factors) -> list[str]:
    """The summary's account of how far the ITB/UD factors of the largest
    networks lie from the paper's, and what ITB over any minimal path reads
    beside them, from the run's own numbers."""
    itb = [f for f in factors if f["routing"] == "ITB"]
    if not itb:
        return []
    big = max(f["switches"] for f in itb)
    gaps = []
    for f in itb:
        paper = _published("factors", "factor_avg", *(f[k] for k in CELL))
        if paper and f["factor_avg"] != "":
            gaps.append((f, 1 - float(f["factor_avg"]) / paper))
    largest = [
        g for f, g in gaps if f["switches"] == big and f["pattern"] in ("uniform", "bit-reverse")
    ]
    lines = []
    if largest:
        lines.append(
            f"- At {big} switches the average gain under uniform and bit-reversal traffic is "
            f"{_span(min(largest), max(largest))} the paper's (Tables 1, 3)."
        )
    anyp = {
        (f["pattern"], f["switches"]): f["factor_avg"]
        for f in factors
        if f["routing"] == "ITB-any" and f["bytes"] == 512
    }
    pairs = [
        f"ITB-any {fmt(anyp[('uniform', n)])} at {n} switches (paper's ITB "
        f"{fmt(_published('factors', 'factor_avg', 'uniform', n, 512))})"
        for n in sorted({n for _, n in anyp}, reverse=True)[:2]
        if ("uniform", n) in anyp
    ]
    if pairs:
        lines.append(
            "- `ITB-any` splits a pair's route along any of its minimal paths, also for pairs "
            "that have a legal minimal up*/down* path, which §3's ITB routes whole: beyond the "
            f"paper, not its routing. Uniform 512 B: {', '.join(pairs)}."
        )
    far = [(f, g) for f, g in gaps if abs(g) > NOTABLE_GAP]
    if far:
        cells = ", ".join(
            f"{f['pattern']} {f['switches']} sw {f['bytes']} B {fmt(f['factor_avg'])} "
            f"({'below' if g > 0 else 'above'} the paper by {100 * abs(g):.0f}%)"
            for f, g in far
        )
        lines.append(f"- Averages more than {100 * NOTABLE_GAP:.0f}% from the paper's: {cells}.")
    return lines


def summarise(cfg: Facts, factors, latency, transits=(), skipped=(), **numbers) -> str:
    """``summary.md``: the tables of the run; ``numbers``: ``seconds`` (this run),
    ``simulation_seconds``, ``searches``, ``simulations`` and ``flit_hops`` (of its searches)."""
    return summary(
        NAME,
        title=TITLE,
        cfg=cfg,
        factors=[
            [
                *(f[k] for k in CELL),
                _stats([f[f"factor_{s}"] for s in STATS]),
                _stats(_paper("factors", "factor", f)),
                fmt(f["itb_per_message"], 3),
            ]
            for f in factors
            if f["routing"] == "ITB"
        ],
        latency=[
            [
                *(x[k] for k in CELL),
                _stats([x[f"increase_pct_{s}"] for s in STATS]),
                _stats(_paper("latency", "increase_pct", x), "-"),
            ]
            for x in latency
            if x["routing"] == "ITB"
        ],
        transits=[
            [
                t["switches"],
                t["pattern"],
                f"{t['itb_per_message']:.3f} ({t['itb_per_message_max']:.3f})",
                fmt(PAPER_TRANSITS.get((t["pattern"], t["switches"])), 3),
            ]
            for t in transits
        ],
        beyond=[
            [
                f["routing"],
                *(f[k] for k in CELL),
                _stats([f[f"factor_{s}"] for s in STATS]),
                f["vcs_max"],
            ]
            for f in factors
            if f["routing"] not in PAPER_ROUTINGS
        ],
        skipped=skipped,
        not_run=sorted(set(skipped))[:20],
        gap=_gap_to_paper(factors),
        **numbers,
    )


# --------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------

#: The columns of the CSV files.
IN_TRANSIT = ("itb_per_message", "transit_peak_bytes", "transit_spills", "vcs")
RUN_FIELDS = (*KEY, "routing", "load", "offered_fns", "accepted_fns", "latency_ns", *IN_TRANSIT)
RUN_FIELDS += ("flit_hops", "seconds", "search")
THROUGHPUT_FIELDS = (*KEY, "routing", "throughput_fns", "low_latency_ns", *IN_TRANSIT)
FACTOR_FIELDS = ("routing", *CELL, "networks", *(f"factor_{s}" for s in STATS))
FACTOR_FIELDS += ("itb_per_message", "vcs_max")
LATENCY_FIELDS = ("routing", *CELL, "networks", *(f"increase_pct_{s}" for s in STATS))
TRANSIT_FIELDS = ("switches", "pattern", "networks", "itb_per_message", "itb_per_message_max")


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the reproduction into ``out``; returns the path of
    ``summary.md``.

    ``quick``: 16 and 32 switches, three networks, 512-byte messages, uniform
    and bit-reversal; ``tiny``: seconds, for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables, skipped = sweep(cfg, out, progress)
    facts = Facts.of(cfg, tables)
    rows = [row for df in tables.values() for row in rows_of(df)]
    seconds = time.perf_counter() - t0
    transits = transits_per_message(facts)
    tp = throughput(rows)
    per_net = [r for routing in ROUTINGS if routing != "UD" for r in ratios(tp, routing)]
    factors, latency = summarise_ratios(per_net)
    write_csv(out / "runs.csv", RUN_FIELDS, rows)
    write_csv(out / "transits.csv", TRANSIT_FIELDS, transits)
    write_csv(out / "throughput.csv", THROUGHPUT_FIELDS, tp)
    write_csv(out / "factors.csv", FACTOR_FIELDS, [f for f in factors if f["routing"] == "ITB"])
    write_csv(out / "latency.csv", LATENCY_FIELDS, [x for x in latency if x["routing"] == "ITB"])
    beyond = [f for f in factors if f["routing"] not in PAPER_ROUTINGS]
    write_csv(out / "beyond.csv", FACTOR_FIELDS, beyond)
    chosen = closest_to_average(per_net, factors)
    for pattern, (name, fig_name) in FIGURES.items():
        plot_curves(rows, chosen, pattern, 512, out / name, fig_name)
    plot_factors(factors, out / "factors.png")
    numbers = {
        "seconds": seconds,
        "simulation_seconds": float(sum(t["wall_seconds"].sum() for t in tables.values())),
        "searches": sum(len(t) for t in tables.values()),
        "simulations": len(rows),
        "flit_hops": sum(r["flit_hops"] for r in rows),
    }
    path = out / "summary.md"
    path.write_text(summarise(facts, factors, latency, transits, skipped, **numbers))
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started, **numbers}
    meta.update(seconds=round(seconds, 2), simulation_seconds=round(meta["simulation_seconds"], 2))
    meta.update(switches=list(facts.switches), topologies=facts.topologies)
    write_run_json(out / "run.json", meta, cfg.workers)
    return path
