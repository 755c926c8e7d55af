"""Parker, Kapoor and Raicu, "Exploring Dynamic Multipath Routing in 3D Torus Networks through
Simulations": the latency (Figs. 2-4) and bandwidth (Fig. 5) trials of Section 4.

A 10x10x10 torus of 2 GB/s links; ``n`` of its 1,000 nodes are active, paired one to one at random
(``bisect:dir=one,active=N``: one placement per ``run.seed``, the same pairs for every router).
Latency: a sender's mean round trip over ten 8 KB ping-pong rounds (``ping-pong``). Bandwidth: ten
8 KB messages and a one-flit ack, 80 KB over the time to the ack (``exchange``). Routers: ``dor``
(datelines) against ``rdr`` (a random viable dimension per hop over a dimension-order bubble
escape VC, so deadlock-free), plus ``abr`` and ``ofr``, which the paper did not have.

What the paper leaves open is set in the specs (specs/parker/*.toml): CODES's torus node injects
straight into its six links, so the node link runs at 12 GB/s with crossbar input speedup 6 (how
RDR's bandwidths exceed one link's 2 GB/s); links 50 ns, virtual cut-through, 512-byte packets of
64-byte flits, three VCs of four packets per port; "8 KB" is 8,192 bytes. Outputs and modes:
docs/reproductions/parker.md; the summary's words: specs/parker/summary.md.j2."""

from __future__ import annotations

import itertools
import re
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean, median
from types import SimpleNamespace
from typing import Any

from routelab.experiment.study import (
    config,
    figure,
    save_figure,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)
from routelab.reproduce import published

NAME = "parker"
TITLE = (
    "Parker, Kapoor, Raicu: Exploring Dynamic Multipath Routing in 3D Torus "
    "Networks through Simulations"
)
LINK_GBYTES = 2.0

#: The experiment specs, each with ``quick`` and ``tiny`` variants
#: (``routelab sweep specs/parker/latency.toml``).
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("latency", "bandwidth")

ROUTERS = ("dor", "rdr", "abr", "ofr")
ROUTER_TITLES = {"dor": "DOR", "rdr": "RDR", "abr": "ABR", "ofr": "OFR"}
COLORS = {"dor": "tab:gray", "rdr": "tab:purple", "abr": "tab:blue", "ofr": "tab:red"}
SHADES = ("tab:green", "tab:orange", "tab:red", "tab:brown", "tab:blue")
LATENCY_LABEL = "average ping-pong latency per sender (us)"

# From papers/parker.toml (the paper's figures give no printed values).
PAPER = published(NAME)
PAPER_DOR_MAX_GBYTES = PAPER.find("stats", "bandwidth_max_gbytes", router="dor").high
PAPER_RDR_MAX_GBYTES = PAPER.find("stats", "bandwidth_max_gbytes", router="rdr").value


def active_of(pattern: str) -> int:
    """The active nodes of ``bisect:dir=one,active=N``."""
    return int(re.search(r"active=(\d+)", pattern)[1])


def facts_of(cfg, df) -> SimpleNamespace:
    """What a mode ran, read off the latency trial's run table: the figures' and summary's words."""
    return SimpleNamespace(
        mode=cfg.mode,
        topology=str(df["network.topology"].iloc[0]),
        active=tuple(sorted({active_of(p) for p in df["traffic.pattern"]})),
        placements=tuple(sorted(int(x) for x in df["run.seed"].unique())),
        rounds=int(df["traffic.rounds"].iloc[0]),
        messages=int(df["traffic.messages"].iloc[0]),
        routers=tuple(r for r in ROUTERS if r in set(df["routing.algorithm"])),
    )


def rows_of(part: str, df) -> list[dict[str, Any]]:
    """Every pair of every run of a trial: its latency (the mean round trip) or bandwidth."""
    latency = part == "latency"
    return [
        {
            "trial": part,
            "router": r["routing.algorithm"],
            "active": active_of(r["traffic.pattern"]),
            "placement": int(r["run.seed"]),
            "src": p["src"],
            "dst": p["dst"],
            "latency_us": round(p["round_trip_ns"] / 1e3, 4) if latency else "",
            "completion_us": round(p["completion_ns"] / 1e3, 4),
            "bandwidth_gbytes": "" if latency else round(p["bandwidth_gbps"] / 8, 4),
        }
        for r in df.to_dict("records")
        for p in r["workload"]["pairs"]
    ]


def values(rows: list[dict[str, Any]], key: str, router: str, active: int) -> list[float]:
    return [
        float(r[key])
        for r in rows
        if r["router"] == router and r["active"] == active and r[key] != ""
    ]


def _q(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def stats(rows: list[dict[str, Any]], facts) -> list[dict[str, Any]]:
    """One row of ``stats.csv`` per router and active count that has both trials."""
    out = []
    for router, active in itertools.product(facts.routers, facts.active):
        lat, bw = (values(rows, k, router, active) for k in ("latency_us", "bandwidth_gbytes"))
        if not lat or not bw:
            continue
        p10, p90 = _q(lat, 0.1), _q(lat, 0.9)
        latency = dict(min=min(lat), p10=p10, median=median(lat), mean=fmean(lat), p90=p90)
        latency |= dict(max=max(lat), spread=p90 - p10)
        bandwidth = dict(min=min(bw), median=median(bw), mean=fmean(bw), max=max(bw))
        row = {"router": router, "active": active, "senders": len(lat)}
        row |= {f"latency_{k}_us": round(v, 3) for k, v in latency.items()}
        row |= {f"bandwidth_{k}_gbytes": round(v, 3) for k, v in bandwidth.items()}
        row["above_link_rate"] = round(sum(b > LINK_GBYTES for b in bw) / len(bw), 4)
        out.append(row)
    return out


def cdf(xs: list[float]) -> tuple[list[float], list[float]]:
    """Empirical CDF: sorted values and the fraction at or below each."""
    xs = sorted(xs)
    return xs, [(i + 1) / len(xs) for i in range(len(xs))]


# --- Figures ----------------------------------------------------------------


def _cdf_axes(ax, curves: list[tuple[str, list[float], str]], xlabel: str) -> None:
    """Step CDFs of ``curves`` (label, values, colour) on ``ax``; empty ones are left out."""
    for label, xs, color in curves:
        if xs:
            ax.step(*cdf(xs), "-", where="post", color=color, label=label)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("fraction of senders", fontsize=8)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)


def plot(rows: list[dict[str, Any]], facts, out: Path) -> None:
    """Figs. 2-5 and the latency CDFs of ABR and OFR."""

    def by_active(key: str, router: str) -> list[tuple[str, list[float], str]]:
        return [
            (f"{a} active", values(rows, key, router, a), c)
            for a, c in zip(facts.active, SHADES[: len(facts.active)], strict=True)
        ]

    def by_router(active: int) -> list[tuple[str, list[float], str]]:
        return [
            (ROUTER_TITLES[r], values(rows, "latency_us", r, active), COLORS[r])
            for r in facts.routers
        ]

    def panels(name, subplots, titled, title=None, xlabel=LATENCY_LABEL, height=4.2, line=False):
        """One CDF panel per (title, curves) of ``titled``, ``subplots`` (rows, columns)."""
        fig = figure(11, height)
        axes = fig.subplots(*subplots, squeeze=False).flatten()
        for ax, (panel, curves) in zip(axes, titled, strict=False):
            _cdf_axes(ax, curves, xlabel)
            if line:
                ax.axvline(LINK_GBYTES, color="k", lw=0.8, ls="--")
            ax.set_title(panel, fontsize=9)
        save_figure(fig, out / name, title)

    for router, n in (("dor", 2), ("rdr", 3)):
        if router in facts.routers:
            fig = figure()
            ax = fig.add_subplot()
            _cdf_axes(ax, by_active("latency_us", router), LATENCY_LABEL)
            ax.set_title(f"Fig. {n}: latency CDF, {ROUTER_TITLES[router]}, {facts.topology}")
            save_figure(fig, out / f"fig{n}_latency_{router}.png")
    # At 500 and 1,000 active nodes, or the two largest counts run.
    shown = [a for a in (500, 1000) if a in facts.active] or list(facts.active[-2:])
    compared = [(f"{a} active nodes", by_router(a)) for a in shown]
    title = "Fig. 4: latency CDFs, DOR against RDR (and ABR, OFR)"
    panels("fig4_latency_dor_rdr.png", (1, len(shown)), compared, title)
    bandwidth = [(ROUTER_TITLES[r], by_active("bandwidth_gbytes", r)) for r in facts.routers]
    title = f"Fig. 5: bandwidth CDFs (ten 8 KB messages and an ack), {facts.topology}"
    xlabel = "bandwidth per sender (GB/s)"
    panels("fig5_bandwidth.png", (2, 2), bandwidth, title, xlabel, height=7, line=True)
    latency = [(ROUTER_TITLES[r], by_active("latency_us", r)) for r in ("abr", "ofr")]
    panels("latency_abr_ofr.png", (1, 2), latency)


def summarise(facts, st: list[dict[str, Any]], seconds: float, sims: int) -> str:
    """``summary.md``: the statistics and the paper's statements beside them."""
    by = {(s["router"], s["active"]): s for s in st}
    lo, hi = min(facts.active), max(facts.active)
    # DOR's median latency at the fewest and the most active nodes (Fig. 2)
    dor = [by[("dor", a)]["latency_median_us"] if ("dor", a) in by else None for a in (lo, hi)]
    # DOR against RDR at 500 and 1,000 active nodes, else at the most run (Fig. 4)
    compared = [a for a in (500, 1000) if a in facts.active] or [hi]
    spreads = [
        (a, by["dor", a], by["rdr", a]) for a in compared if ("dor", a) in by and ("rdr", a) in by
    ]
    tops = {r: [s["bandwidth_max_gbytes"] for s in st if s["router"] == r] for r in ("dor", "rdr")}
    top = {r: max(v, default=None) for r, v in tops.items()}
    growth = (lo, dor[0], hi, dor[1]) if all(dor) else None
    stated = {"dor_max": PAPER_DOR_MAX_GBYTES, "rdr_max": PAPER_RDR_MAX_GBYTES}
    context = {"title": TITLE, "cfg": facts, "titles": ROUTER_TITLES, "stated": stated}
    measured = {"stats": st, "growth": growth, "spreads": spreads, "top": top}
    return summary(SPECS, **context, **measured, seconds=seconds, sims=sims)


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the trials into ``out``; returns the path of ``summary.md``. ``quick``
    runs 100, 500 and 1,000 active nodes with one placement; ``tiny`` is a seconds-long
    configuration on 4x4x4 for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables = sweep_specs(SPECS, PARTS, cfg.mode, out, workers, progress, artefacts=("workload",))
    facts = facts_of(cfg, tables["latency"])
    seconds = float(sum(t["wall_seconds"].sum() for t in tables.values()))
    sims = sum(len(t) for t in tables.values())
    outputs = {part: rows_of(part, t) for part, t in tables.items()}
    rows = [r for part in PARTS for r in outputs[part]]
    outputs["stats"] = st = stats(rows, facts)
    for name, table in outputs.items():
        write_csv(out / f"{name}.csv", None, table)
    plot(rows, facts, out)
    (out / "summary.md").write_text(summarise(facts, st, seconds, sims))
    meta = dict(reproduction=NAME, mode=cfg.mode, started=started)
    meta |= dict(seconds=round(time.perf_counter() - t0, 2), simulation_seconds=round(seconds, 2))
    meta |= dict(simulations=sims, active=list(facts.active), placements=list(facts.placements))
    meta |= dict(rounds=facts.rounds, messages=facts.messages)
    write_run_json(out / "run.json", meta, cfg.workers)
    return out / "summary.md"
