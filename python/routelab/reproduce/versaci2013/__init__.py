"""Versaci and Bilardi (2013), "OutFlank Routing: Increasing Throughput in Toroidal
Interconnection Networks": the simulations of Section 4 (specs/versaci2013/: searches, curves,
stages and readings) as the paper's tables, figures and summary.md (its words:
specs/versaci2013/summary.md.j2). Loads in the paper's unit: gamma = 1 saturates the bisection
under uniform traffic. Outputs: docs/reproductions/versaci2013.md."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from types import SimpleNamespace
from typing import Any

import routelab
from routelab.experiment import searches
from routelab.experiment.study import (
    fmt,
    summary,
    sweep_specs,
    unfinished,
    write_csv,
    write_run_json,
)
from routelab.reproduce.versaci2013 import bounds, figures, loads, stages
from routelab.reproduce.versaci2013.paper import (
    NAME,
    PAPER_OFR_OVER_ABR_16,
    PAPER_TABLE3,
    PARTS,
    PATTERNS,
    ROUTERS,
    SPECS,
    TITLE,
    Row,
    Rows,
    size_of,
    topology,
)


def config_of(mode: str, table, workers: int) -> SimpleNamespace:
    """What a mode ran, read from its searches' table (the summary cites it)."""
    if table.empty:
        raise routelab.ConfigError("no search has finished yet: nothing to render")
    first, sizes = table.iloc[0], sorted({size_of(t) for t in table["network.topology"]})
    cfg = SimpleNamespace(mode=mode, sizes=tuple(sizes), figure_size=max(sizes), workers=workers)
    cfg.routers = tuple(r for r in ROUTERS if r in set(table["routing.algorithm"]))
    cfg.patterns = tuple(p for p in PATTERNS if p in set(table["traffic.pattern"]))
    for column in ("saturate.resolution", "saturate.tolerance", "run.convergence"):
        setattr(cfg, column.split(".")[1], float(first[column]))
    for column in ("run.warmup_cycles", "run.warmup_periods", "run.measure_cycles"):
        setattr(cfg, column.split(".")[1], int(first[column]))
    cfg.bisect = bool(first.get("saturate.bisect", False))  # absent: thirds
    return cfg


def _eq15(rows: Rows) -> dict[str, Any]:
    """Which reading of eq. (15) Table 3 supports: the derouted ratios under each at the largest
    k beside the paper's."""
    k = max(int(r["k"]) for r in rows)
    at = {(int(r["k"]), r["router"], r["pattern"], r["reading"]): r for r in rows}

    def ratio(router: str, pattern: str, key: str = "ratio_derouted") -> list[str]:
        got = (at.get((k, router, pattern, reading)) for reading in loads.READINGS.values())
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
    t2, stage_rows, reads = t["table2"], t["butterfly_stages"], t["table3_readings"]
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
    context = dict(
        title=TITLE, cfg=cfg, patterns=PATTERNS, phases=bounds.BOUND_PHASES, claims=claims
    )
    context |= dict(paper_ofr_over_abr=PAPER_OFR_OVER_ABR_16, t3=t["table3"], readings=reads)
    context |= dict(gaps=gaps, within=within, mean_gap=fmean(gaps) if gaps else None, best=best)
    context |= dict(
        st=stages._stages(stage_rows) if stage_rows else None, eq15=_eq15(reads) if reads else None
    )
    context |= dict(paper_oidn=PAPER_TABLE3["butterfly"][0], **numbers)
    return summary(
        SPECS,
        **context,
        transposition=", ".join(topology("transpose", k).split(":")[1] for k in cfg.sizes),
        table2={(r["pattern"], r["router"], r["k"]): r for r in t["table2"]},
        inversions=[
            (*key, bad) for key, w in loads.walks(rows).items() if (bad := searches.inverted(w))
        ],
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
    rows, sims = loads.search_rows(sweeps["searches"]), [sweeps[p] for p in PARTS[1:]]
    curve_rows, stage_sims, reading_sims = (
        loads.sim_rows(sweeps[p], cfg.tolerance) for p in ("curves", "stages", "readings")
    )
    pending = sweeps["stages"].attrs.get("pending", [])
    (t2, t3), stage_rows = loads.tables(rows, cfg), stages.butterfly_stages(stage_sims, pending)
    t = {"loads": rows, "curves": curve_rows, "table2": t2, "table3": t3}
    t |= {"table3_readings": loads.readings(reading_sims), "butterfly_stages": stage_rows}
    # The loads' columns; every other table's are its rows' own.
    fields = {"loads": loads.LOAD_FIELDS, "curves": loads.LOAD_FIELDS[:-2]}
    for name, table in t.items():
        write_csv(out / f"{name}.csv", fields.get(name), table)
    figures.plot_lifetime(rows, curve_rows + stage_sims, cfg, out / "fig4_lifetime.png")
    figures.plot_derouted(rows, stage_sims, cfg, out / "fig5_derouted_butterfly.png")
    figures.plot_stages(stage_rows, out / "fig_butterfly_stages.png")
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
