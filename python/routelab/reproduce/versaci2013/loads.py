"""versaci2013's loads: every load a search or a fixed-load run measured as a row of loads.csv
(offered, accepted, lifetime, derouting counters), and from them Table 2 (gamma* beside the
bounds), Table 3 (derouted ratios) and the two readings of eq. (15)."""

from __future__ import annotations

import itertools
import json
import math
from statistics import fmean

from routelab.experiment import searches
from routelab.experiment.searches import bracket_high, gamma_star, inverted
from routelab.reproduce.versaci2013.bounds import even_split, routing_bound
from routelab.reproduce.versaci2013.paper import (
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE3_K,
    PATTERNS,
    TABLE3_COLUMNS,
    Row,
    Rows,
    size_of,
    topology,
)

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
        tol, final = float(r["saturate.tolerance"]), searches.bracket(r)
        rows += [dict(_load_row(p, r, tol), **final) for p in r["points"]]
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


def walks(rows: Rows) -> dict[tuple[str, str, int], Rows]:
    """Rows by (pattern, router, k), each by load."""
    return searches.walks(rows, ("pattern", "router", "k"))  # type: ignore[return-value]


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


def tables(rows: Rows, cfg) -> tuple[Rows, Rows]:
    """Tables 2 and 3: gamma* beside the bounds; derouted ratios, mean of the sustained loads."""
    by_key, t2, t3 = walks(rows), [], []
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
            w = by_key.get((pattern, router, k), [])
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
        row = named | {"loads": sum(r["sustained"] for r in by_key.get((pattern, "ofr", k), []))}
        for c, (router, key) in TABLE3_COLUMNS.items():
            w = by_key.get((pattern, router, k), [])
            vals = [r[key] for r in w if r["sustained"] and r[key] != ""]
            row[c] = round(fmean(vals), 4) if vals else None
        paper = zip(TABLE3_COLUMNS, PAPER_TABLE3[pattern], strict=True)
        t3.append(row | {"paper_k": PAPER_TABLE3_K} | {f"paper_{c}": v for c, v in paper})
    return t2, t3
