"""Parker, Kapoor and Raicu, "Exploring Dynamic Multipath Routing in 3D Torus
Networks through Simulations": the latency and bandwidth trials of Section 4.

A 10x10x10 torus with 2 GB/s links. Of its 1,000 nodes, ``n`` (100, 250, 500,
1,000) are chosen at random as active, split evenly into senders and
receivers and paired one to one at random; the same pairs serve every router.

- Latency trial (Figs. 2-4): each sender sends an 8 KB ping, its receiver
  answers with a pong of the same size once the ping has arrived; ten rounds;
  a sender's latency is its mean round trip. The simulator's closed-loop
  ``ping-pong`` workload on the pattern ``bisect:dir=one,active=N`` (the
  active nodes and their pairs, drawn from ``run.seed``: one placement per
  seed).
- Bandwidth trial (Fig. 5): each sender sends ten 8 KB messages back to back,
  the receiver acknowledges the last with a one-flit packet; bandwidth is 80 KB
  over the time from the start to the acknowledgement. The ``exchange``
  workload.

Routers: ``dor`` (dimension order, datelines) against ``rdr`` (a random viable
dimension per hop, over a dimension-order bubble escape VC that makes it
deadlock-free), and ``abr`` and ``ofr``, which the paper did not have.

Outputs: ``latency.csv`` and ``bandwidth.csv`` (one row per sender and run),
``stats.csv`` (per router and node count), ``fig2_latency_dor.png``,
``fig3_latency_rdr.png``, ``fig4_latency_dor_rdr.png``,
``fig5_bandwidth.png``, ``latency_abr_ofr.png`` and ``summary.md``.

What the paper leaves open is set here (see `SPEC`): CODES's torus
node injects straight into its six links, so the node link runs at 12 GB/s
(six links' worth) and the router's crossbar input speedup is 6; a packet
can only leave its source over more than one link at a time that way, which
is how the paper's RDR bandwidths exceed one link's 2 GB/s. Link latency
50 ns, virtual cut-through, 512-byte packets of 64-byte flits, three VCs of
four packets per port. "8 KB" is 8,192 bytes.
"""

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
    save_figure,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)

if TYPE_CHECKING:
    import pandas as pd

NAME = "parker"
TITLE = (
    "Parker, Kapoor, Raicu: Exploring Dynamic Multipath Routing in 3D Torus "
    "Networks through Simulations"
)
MESSAGE_BYTES = 8192
LINK_GBYTES = 2.0

#: The experiment specs: the latency and the bandwidth trial, each with
#: ``quick`` and ``tiny`` variants (``routelab sweep specs/parker/latency.toml``).
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("latency", "bandwidth")

ROUTERS = ("dor", "rdr", "abr", "ofr")
ROUTER_TITLES = {"dor": "DOR", "rdr": "RDR", "abr": "ABR", "ofr": "OFR"}
COLORS = {"dor": "tab:gray", "rdr": "tab:purple", "abr": "tab:blue", "ofr": "tab:red"}

# What the paper states (its figures give no printed values).
PAPER_ACTIVE = (100, 250, 500, 1000)
# From papers/parker.toml.
PAPER = expected.load(NAME)
PAPER_DOR_MAX_GBYTES = PAPER.find("stats", "bandwidth_max_gbytes", router="dor").high
PAPER_RDR_MAX_GBYTES = PAPER.find("stats", "bandwidth_max_gbytes", router="rdr").value


@dataclass(frozen=True)
class Facts:
    """What a mode ran, read off its run tables: the figures' and summary's words."""

    mode: str
    topology: str
    nodes: int
    active: tuple[int, ...]
    placements: tuple[int, ...]
    rounds: int
    messages: int
    routers: tuple[str, ...] = ROUTERS
    workers: int = 2

    @classmethod
    def of(cls, cfg: Config, tables: dict[str, pd.DataFrame]) -> Facts:
        df = tables["latency"]
        topology = str(df["network.topology"].iloc[0])
        return cls(
            mode=cfg.mode,
            topology=topology,
            nodes=len(routelab.topology(topology).terminals),
            active=tuple(sorted({active_of(p) for p in df["traffic.pattern"]})),
            placements=tuple(sorted(int(x) for x in df["run.seed"].unique())),
            rounds=int(df["traffic.rounds"].iloc[0]),
            messages=int(df["traffic.messages"].iloc[0]),
            routers=tuple(r for r in ROUTERS if r in set(df["routing.algorithm"])),
            workers=cfg.workers,
        )


def active_of(pattern: str) -> int:
    """The active nodes of ``bisect:dir=one,active=N``."""
    return int(re.search(r"active=(\d+)", pattern)[1])


# --- Runs -----------------------------------------------------------------

PAIR_FIELDS = (
    *("trial", "router", "active", "placement", "src", "dst"),
    *("latency_us", "completion_us", "bandwidth_gbytes"),
)


def rows_of(part: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """Every pair of every run of a trial: its latency (the latency trial's
    mean round trip) or bandwidth (80 KB over the time to the ack)."""
    latency = part == "latency"
    return [
        {
            "trial": part,
            "router": r["routing.algorithm"],
            "active": active_of(r["traffic.pattern"]),
            "placement": int(r["run.seed"]),
            "src": p["src"],
            "dst": p["dst"],
            "completion_us": round(p["completion_ns"] / 1e3, 4),
            "latency_us": round(p["round_trip_ns"] / 1e3, 4) if latency else "",
            "bandwidth_gbytes": "" if latency else round(p["bandwidth_gbps"] / 8, 4),
        }
        for r in df.to_dict("records")
        for p in r["workload"]["pairs"]
    ]


# --- Statistics -------------------------------------------------------------

STATS_FIELDS = (
    *("router", "active", "senders", "latency_min_us", "latency_p10_us", "latency_median_us"),
    *("latency_mean_us", "latency_p90_us", "latency_max_us", "latency_spread_us"),
    *("bandwidth_min_gbytes", "bandwidth_median_gbytes", "bandwidth_mean_gbytes"),
    *("bandwidth_max_gbytes", "above_link_rate"),
)


def _q(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def values(rows: list[dict[str, Any]], key: str, router: str, active: int) -> list[float]:
    return [
        float(r[key])
        for r in rows
        if r["router"] == router and r["active"] == active and r[key] != ""
    ]


def stats(rows: list[dict[str, Any]], cfg: Facts) -> list[dict[str, Any]]:
    """One row of ``stats.csv`` per router and active count that has both trials."""
    out = []
    for router in cfg.routers:
        for active in cfg.active:
            lat = values(rows, "latency_us", router, active)
            bw = values(rows, "bandwidth_gbytes", router, active)
            if not lat or not bw:
                continue
            p10, p90 = _q(lat, 0.1), _q(lat, 0.9)
            latency = {
                "min": min(lat),
                "p10": p10,
                "median": statistics.median(lat),
                "mean": statistics.fmean(lat),
                "p90": p90,
                "max": max(lat),
                "spread": p90 - p10,
            }
            bandwidth = {
                "min": min(bw),
                "median": statistics.median(bw),
                "mean": statistics.fmean(bw),
                "max": max(bw),
            }
            row = {"router": router, "active": active, "senders": len(lat)}
            row |= {f"latency_{k}_us": round(v, 3) for k, v in latency.items()}
            row |= {f"bandwidth_{k}_gbytes": round(v, 3) for k, v in bandwidth.items()}
            row["above_link_rate"] = round(sum(b > LINK_GBYTES for b in bw) / len(bw), 4)
            out.append(row)
    return out


def cdf(xs: list[float]) -> tuple[list[float], list[float]]:
    """Empirical CDF: sorted values and the fraction at or below each."""
    xs = sorted(xs)
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


# --- Figures ----------------------------------------------------------------

LATENCY_LABEL = "average ping-pong latency per sender (us)"
SHADES = ("tab:green", "tab:orange", "tab:red", "tab:brown", "tab:blue")


def _cdf_axes(ax, curves: list[tuple[str, list[float], str]], xlabel: str) -> None:
    """Step CDFs of ``curves`` (label, values, colour) on ``ax``; empty ones are left out."""
    for label, xs, color in curves:
        if xs:
            x, y = cdf(xs)
            ax.step(x, y, "-", where="post", color=color, label=label)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("fraction of senders", fontsize=8)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)


def _by_active(rows, cfg: Facts, key: str, router: str) -> list[tuple[str, list[float], str]]:
    """One curve of ``router``'s ``key`` per active count, a shade each."""
    shades = SHADES[: len(cfg.active)]
    return [
        (f"{a} active", values(rows, key, router, a), c)
        for a, c in zip(cfg.active, shades, strict=True)
    ]


def plot_latency_by_active(rows, cfg: Facts, router: str, path: Path, fig_name: str) -> None:
    fig = figure()
    ax = fig.add_subplot()
    _cdf_axes(ax, _by_active(rows, cfg, "latency_us", router), LATENCY_LABEL)
    ax.set_title(f"{fig_name}: latency CDF, {ROUTER_TITLES[router]}, {cfg.topology}")
    save_figure(fig, path)


def plot_compare(rows, cfg: Facts, routers: tuple[str, ...], path: Path, title: str) -> None:
    """Latency CDFs of ``routers`` side by side, at 500 and 1,000 active nodes
    (or the two largest counts run)."""
    shown = [a for a in (500, 1000) if a in cfg.active] or list(cfg.active[-2:])
    fig = figure(11, 4.2)
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    for ax, active in zip(axes, shown, strict=True):
        curves = [
            (ROUTER_TITLES[r], values(rows, "latency_us", r, active), COLORS[r])
            for r in routers
            if r in cfg.routers
        ]
        _cdf_axes(ax, curves, LATENCY_LABEL)
        ax.set_title(f"{active} active nodes", fontsize=9)
    save_figure(fig, path, title)


def plot_bandwidth(rows, cfg: Facts, path: Path) -> None:
    fig = figure(11, 7)
    for ax, router in zip(fig.subplots(2, 2).flatten(), cfg.routers, strict=False):
        _cdf_axes(
            ax, _by_active(rows, cfg, "bandwidth_gbytes", router), "bandwidth per sender (GB/s)"
        )
        ax.axvline(LINK_GBYTES, color="k", lw=0.8, ls="--")
        ax.set_title(ROUTER_TITLES[router], fontsize=9)
    save_figure(fig, path, f"Fig. 5: bandwidth CDFs (ten 8 KB messages and an ack), {cfg.topology}")


def plot_latency_abr_ofr(rows, cfg: Facts, path: Path) -> None:
    fig = figure(11, 4.2)
    for ax, router in zip(fig.subplots(1, 2), ("abr", "ofr"), strict=True):
        _cdf_axes(ax, _by_active(rows, cfg, "latency_us", router), LATENCY_LABEL)
        ax.set_title(ROUTER_TITLES[router], fontsize=9)
    save_figure(fig, path)


# --- Summary ----------------------------------------------------------------


def summarise(cfg: Facts, st: list[dict[str, Any]], seconds: float, sims: int) -> str:
    """``summary.md``: the statistics and the paper's statements beside them, in
    specs/parker/summary.md.j2."""
    by = {(s["router"], s["active"]): s for s in st}
    lo, hi = min(cfg.active), max(cfg.active)
    # DOR's median latency at the fewest and the most active nodes (Fig. 2)
    dor = [by[("dor", a)]["latency_median_us"] if ("dor", a) in by else None for a in (lo, hi)]
    # DOR against RDR at 500 and 1,000 active nodes, else at the most run (Fig. 4)
    compared = [a for a in (500, 1000) if a in cfg.active] or [hi]
    spreads = [
        (a, by[("dor", a)], by[("rdr", a)])
        for a in compared
        if ("dor", a) in by and ("rdr", a) in by
    ]
    top = {
        r: max((s["bandwidth_max_gbytes"] for s in st if s["router"] == r), default=None)
        for r in ("dor", "rdr")
    }
    growth = (lo, dor[0], hi, dor[1]) if all(dor) else None
    stated = {"dor_max": PAPER_DOR_MAX_GBYTES, "rdr_max": PAPER_RDR_MAX_GBYTES}
    facts = {"title": TITLE, "cfg": cfg, "titles": ROUTER_TITLES, "stated": stated}
    measured = {"stats": st, "growth": growth, "spreads": spreads, "top": top}
    return summary(NAME, **facts, **measured, seconds=seconds, sims=sims)


# --- Entry point ------------------------------------------------------------


def run(
    out: Path,
    quick: bool = False,
    tiny: bool = False,
    workers: int = 2,
    progress: bool = True,
) -> Path:
    """Runs (or resumes) the trials into ``out``; returns the path of
    ``summary.md``. ``quick`` runs 100, 500 and 1,000 active nodes with one
    placement; ``tiny`` is a seconds-long configuration on 4x4x4 for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables = sweep_specs(
        SPECS, PARTS, cfg.mode, out, cfg.workers, progress, artefacts=("workload",)
    )
    facts = Facts.of(cfg, tables)
    seconds = float(sum(t["wall_seconds"].sum() for t in tables.values()))
    sims = sum(len(t) for t in tables.values())
    rows = [r for part, t in tables.items() for r in rows_of(part, t)]
    st = stats(rows, facts)
    for part in PARTS:
        write_csv(out / f"{part}.csv", PAIR_FIELDS, [r for r in rows if r["trial"] == part])
    write_csv(out / "stats.csv", STATS_FIELDS, st)
    for router, fig_name, name in (("dor", "Fig. 2", "fig2"), ("rdr", "Fig. 3", "fig3")):
        if router in facts.routers:
            path = out / f"{name}_latency_{router}.png"
            plot_latency_by_active(rows, facts, router, path, fig_name)
    title = "Fig. 4: latency CDFs, DOR against RDR (and ABR, OFR)"
    plot_compare(rows, facts, facts.routers, out / "fig4_latency_dor_rdr.png", title)
    plot_bandwidth(rows, facts, out / "fig5_bandwidth.png")
    plot_latency_abr_ofr(rows, facts, out / "latency_abr_ofr.png")
    summary = out / "summary.md"
    summary.write_text(summarise(facts, st, seconds, sims))
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started}
    meta["seconds"] = round(time.perf_counter() - t0, 2)
    meta |= {"simulation_seconds": round(seconds, 2), "simulations": sims}
    meta |= {"active": list(facts.active), "placements": list(facts.placements)}
    meta |= {"rounds": facts.rounds, "messages": facts.messages}
    write_run_json(out / "run.json", meta, cfg.workers)
    return summary
