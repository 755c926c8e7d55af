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
    fmt,
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


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------

PAIR_FIELDS = (
    "trial",
    "router",
    "active",
    "placement",
    "src",
    "dst",
    "latency_us",
    "completion_us",
    "bandwidth_gbytes",
)


def rows_of(part: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """Every pair of every run of a trial: its latency (the latency trial's
    mean round trip) or bandwidth (80 KB over the time to the ack)."""
    rows = []
    for r in df.to_dict("records"):
        for p in r["workload"]["pairs"]:
            row = {
                "trial": part,
                "router": r["routing.algorithm"],
                "active": active_of(r["traffic.pattern"]),
                "placement": int(r["run.seed"]),
                "src": p["src"],
                "dst": p["dst"],
                "completion_us": round(p["completion_ns"] / 1e3, 4),
                "latency_us": "",
                "bandwidth_gbytes": "",
            }
            if part == "latency":
                row["latency_us"] = round(p["round_trip_ns"] / 1e3, 4)
            else:
                row["bandwidth_gbytes"] = round(p["bandwidth_gbps"] / 8, 4)
            rows.append(row)
    return rows


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------

STATS_FIELDS = (
    "router",
    "active",
    "senders",
    "latency_min_us",
    "latency_p10_us",
    "latency_median_us",
    "latency_mean_us",
    "latency_p90_us",
    "latency_max_us",
    "latency_spread_us",
    "bandwidth_min_gbytes",
    "bandwidth_median_gbytes",
    "bandwidth_mean_gbytes",
    "bandwidth_max_gbytes",
    "above_link_rate",
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
    out = []
    for router in cfg.routers:
        for active in cfg.active:
            lat = values(rows, "latency_us", router, active)
            bw = values(rows, "bandwidth_gbytes", router, active)
            if not lat or not bw:
                continue
            out.append(
                {
                    "router": router,
                    "active": active,
                    "senders": len(lat),
                    "latency_min_us": round(min(lat), 3),
                    "latency_p10_us": round(_q(lat, 0.1), 3),
                    "latency_median_us": round(statistics.median(lat), 3),
                    "latency_mean_us": round(statistics.fmean(lat), 3),
                    "latency_p90_us": round(_q(lat, 0.9), 3),
                    "latency_max_us": round(max(lat), 3),
                    "latency_spread_us": round(_q(lat, 0.9) - _q(lat, 0.1), 3),
                    "bandwidth_min_gbytes": round(min(bw), 3),
                    "bandwidth_median_gbytes": round(statistics.median(bw), 3),
                    "bandwidth_mean_gbytes": round(statistics.fmean(bw), 3),
                    "bandwidth_max_gbytes": round(max(bw), 3),
                    "above_link_rate": round(sum(b > LINK_GBYTES for b in bw) / len(bw), 4),
                }
            )
    return out


def cdf(xs: list[float]) -> tuple[list[float], list[float]]:
    """Empirical CDF: sorted values and the fraction at or below each."""
    xs = sorted(xs)
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


# --------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------


def _cdf_axes(ax, rows, key, series, label, xlabel) -> None:
    for router, active, color, style in series:
        xs = values(rows, key, router, active)
        if xs:
            x, y = cdf(xs)
            ax.step(x, y, style, where="post", color=color, label=label(router, active))
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("fraction of senders", fontsize=8)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)


def _shades(n: int) -> list[str]:
    return ["tab:green", "tab:orange", "tab:red", "tab:brown", "tab:blue"][:n]


def plot_latency_by_active(rows, cfg: Facts, router: str, path: Path, fig_name: str) -> None:
    fig = figure()
    ax = fig.add_subplot()
    series = [
        (router, a, c, "-") for a, c in zip(cfg.active, _shades(len(cfg.active)), strict=True)
    ]
    _cdf_axes(
        ax,
        rows,
        "latency_us",
        series,
        lambda r, a: f"{a} active",
        "average ping-pong latency per sender (us)",
    )
    ax.set_title(f"{fig_name}: latency CDF, {ROUTER_TITLES[router]}, {cfg.topology}")
    fig.tight_layout()
    fig.savefig(path)


def plot_compare(rows, cfg: Facts, routers: tuple[str, ...], path: Path, title: str) -> None:
    shown = [a for a in (500, 1000) if a in cfg.active] or list(cfg.active[-2:])
    fig = figure(11, 4.2)
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    for ax, active in zip(axes, shown, strict=True):
        series = [(r, active, COLORS[r], "-") for r in routers if r in cfg.routers]
        _cdf_axes(
            ax,
            rows,
            "latency_us",
            series,
            lambda r, a: ROUTER_TITLES[r],
            "average ping-pong latency per sender (us)",
        )
        ax.set_title(f"{active} active nodes", fontsize=9)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)


def plot_bandwidth(rows, cfg: Facts, path: Path) -> None:
    fig = figure(11, 7)
    axes = fig.subplots(2, 2).flatten()
    for ax, router in zip(axes, cfg.routers, strict=False):
        series = [
            (router, a, c, "-") for a, c in zip(cfg.active, _shades(len(cfg.active)), strict=True)
        ]
        _cdf_axes(
            ax,
            rows,
            "bandwidth_gbytes",
            series,
            lambda r, a: f"{a} active",
            "bandwidth per sender (GB/s)",
        )
        ax.axvline(LINK_GBYTES, color="k", lw=0.8, ls="--")
        ax.set_title(ROUTER_TITLES[router], fontsize=9)
    fig.suptitle(f"Fig. 5: bandwidth CDFs (ten 8 KB messages and an ack), {cfg.topology}")
    fig.tight_layout()
    fig.savefig(path)


# --------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------


def summarise(cfg: Facts, st: list[dict[str, Any]], seconds: float, sims: int) -> str:
    by = {(s["router"], s["active"]): s for s in st}
    lo, hi = min(cfg.active), max(cfg.active)
    rows = [
        [
            ROUTER_TITLES[s["router"]],
            s["active"],
            s["senders"],
            fmt(s["latency_median_us"], 1),
            f"{fmt(s['latency_p10_us'], 1)}-{fmt(s['latency_p90_us'], 1)}",
            fmt(s["latency_max_us"], 1),
            fmt(s["bandwidth_median_gbytes"]),
            fmt(s["bandwidth_max_gbytes"]),
            f"{100 * s['above_link_rate']:.0f}%",
        ]
        for s in st
    ]
    claims = []
    d_lo, d_hi = (
        by[("dor", a)]["latency_median_us"] if ("dor", a) in by else None for a in (lo, hi)
    )
    if d_lo and d_hi:
        claims.append(
            (
                "DOR latencies grow significantly as more nodes communicate (Fig. 2)",
                "grows from 100 to 1,000 active nodes",
                f"median {d_lo:.1f} us at {lo} -> {d_hi:.1f} us at {hi} (x{d_hi / d_lo:.2f})",
            )
        )
    for a in [x for x in (500, 1000) if x in cfg.active] or [hi]:
        if ("dor", a) in by and ("rdr", a) in by:
            d, r = by[("dor", a)], by[("rdr", a)]
            claims.append(
                (
                    f"RDR: smaller range, steeper CDF than DOR ({a} active, Fig. 4)",
                    "yes, more so under more traffic",
                    f"p10-p90 spread RDR {r['latency_spread_us']:.1f} us vs DOR "
                    f"{d['latency_spread_us']:.1f}; max {r['latency_max_us']:.1f} vs "
                    f"{d['latency_max_us']:.1f} us",
                )
            )
    dmax = max((s["bandwidth_max_gbytes"] for s in st if s["router"] == "dor"), default=None)
    rmax = max((s["bandwidth_max_gbytes"] for s in st if s["router"] == "rdr"), default=None)
    if dmax is not None:
        claims.append(
            (
                "DOR bandwidth never exceeds the 2 GB/s link rate (Fig. 5)",
                f"<= {PAPER_DOR_MAX_GBYTES:.0f} GB/s",
                f"max {dmax:.2f} GB/s",
            )
        )
    if rmax is not None:
        claims.append(
            (
                "RDR bandwidth exceeds the link rate (Fig. 5)",
                f"up to {PAPER_RDR_MAX_GBYTES:.0f} GB/s",
                f"max {rmax:.2f} GB/s",
            )
        )
    return summary(NAME, title=TITLE, cfg=cfg, rows=rows, claims=claims, seconds=seconds, sims=sims)


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
    lat = [r for r in rows if r["trial"] == "latency"]
    bw = [r for r in rows if r["trial"] == "bandwidth"]
    st = stats(rows, facts)
    write_csv(out / "latency.csv", PAIR_FIELDS, lat)
    write_csv(out / "bandwidth.csv", PAIR_FIELDS, bw)
    write_csv(out / "stats.csv", STATS_FIELDS, st)
    if "dor" in facts.routers:
        plot_latency_by_active(rows, facts, "dor", out / "fig2_latency_dor.png", "Fig. 2")
    if "rdr" in facts.routers:
        plot_latency_by_active(rows, facts, "rdr", out / "fig3_latency_rdr.png", "Fig. 3")
    plot_compare(
        rows,
        facts,
        facts.routers,
        out / "fig4_latency_dor_rdr.png",
        "Fig. 4: latency CDFs, DOR against RDR (and ABR, OFR)",
    )
    plot_bandwidth(rows, facts, out / "fig5_bandwidth.png")
    fig = figure(11, 4.2)
    for ax, router in zip(fig.subplots(1, 2), ("abr", "ofr"), strict=True):
        series = [
            (router, a, c, "-")
            for a, c in zip(facts.active, _shades(len(facts.active)), strict=True)
        ]
        _cdf_axes(
            ax,
            rows,
            "latency_us",
            series,
            lambda r, a: f"{a} active",
            "average ping-pong latency per sender (us)",
        )
        ax.set_title(ROUTER_TITLES[router], fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "latency_abr_ofr.png")
    summary = out / "summary.md"
    summary.write_text(summarise(facts, st, seconds, sims))
    write_run_json(
        out / "run.json",
        {
            "reproduction": NAME,
            "mode": cfg.mode,
            "started": started,
            "seconds": round(time.perf_counter() - t0, 2),
            "simulation_seconds": round(seconds, 2),
            "simulations": sims,
            "active": list(facts.active),
            "placements": list(facts.placements),
            "rounds": facts.rounds,
            "messages": facts.messages,
        },
        cfg.workers,
    )
    return summary
