"""Butterfly's stage sweep: the FFT's stages in step, one router's lifetime against load per
network size, its knee (where the k/2 stages stop fitting in their period) and the highest load
sustained over whole rounds, set against the stage capacities and the paper's gamma*."""

from __future__ import annotations

import itertools
from typing import Any

from routelab.experiment.searches import by_load
from routelab.experiment.study import fmt, md_table, summary
from routelab.reproduce.versaci2013.bounds import stage_capacity
from routelab.reproduce.versaci2013.paper import PAPER_TABLE2, ROUTERS, SPECS, Rows, size_of

#: The knee: the lifetime at most this many times that at the lowest load.
KNEE = 2.0


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
            walk = by_load(r for r in mine if r["router"] == router)
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
    each is only a lower bound: the next load has not run yet (``sustained`` blank) or, for the
    highest sustained load, none above it is in the sweep."""
    out = {}
    for router in dict.fromkeys(r["router"] for r in rows):
        mine = by_load(r for r in rows if r["router"] == router)
        bounded = list(itertools.takewhile(lambda r: r["sustained"] is True, mine))
        flat = list(
            itertools.takewhile(
                lambda r: r["lifetime_ratio"] != "" and r["lifetime_ratio"] <= KNEE, bounded
            )
        )
        knee, top = (w[-1]["load"] if w else 0.0 for w in (flat, bounded))
        # Open: the walk stops at a load not run yet, or sustains the sweep's highest load.
        nxt = [mine[len(w)] if len(w) < len(mine) else None for w in (flat, bounded)]
        knee_open = nxt[0] is not None and nxt[0]["sustained"] == ""
        top_open = bool(bounded) if nxt[1] is None else nxt[1]["sustained"] == ""
        out[router] = (knee, top, knee_open, top_open)
    return out


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
        paper = {r: PAPER_TABLE2[b] for r in f if (b := ("butterfly", r, k)) in PAPER_TABLE2}
        if paper:
            mine, both = by_load(sizes[k]), stage_capacity(k, 2)
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
