"""A fabric administrator's audit of routes: deadlock freedom (or the cycle),
pairs without a working route and the LIDs they cannot reach, routes longer
than the fabric allows, the busiest links for all-to-all traffic and for random
bisections, and the effective bisection bandwidth; as one table, as JSON and as
a self-contained HTML page."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from routelab import flow, traffic
from routelab.network import Network
from routelab.routing import Routes


def audit(
    net: Network,
    routes: Routes,
    patterns: int = 100,
    seed: int = 0,
    top: int = 10,
    examples: int = 5,
) -> dict[str, Any]:
    """Audits ``routes`` on ``net``. ``patterns`` random bisections give the
    busiest links under bisection traffic and the eBB (``0`` leaves both out);
    ``top`` links are listed per traffic; ``examples`` of each finding.

    Returns a dict: ``summary`` (one row per finding, as ``(item, value)``),
    ``deadlock`` (the deadlock report, or ``None`` when routes are broken: the
    check needs every route), ``walk`` (broken and non-minimal pairs with
    examples, unreachable destinations with their LIDs), ``busiest_all_to_all``
    and ``busiest_bisection`` (DataFrames of switch-to-switch channels: endpoints,
    class and load;
    all-to-all load is routes per channel, bisection load the mean over the
    patterns of flows per channel), ``ebb`` (avg, min, max) and ``loads`` (the
    all-to-all load of every channel, for the histogram)."""
    if routes.network != net:
        raise ValueError("routes were computed for another network")
    walk = json.loads(routes._routes.audit_json(examples))
    lid_walk = walk.get("lid_walk")
    lids_ok = lid_walk is None or not lid_walk["unreachable_lids"]
    deadlock = routes.deadlock() if walk["broken_pairs"] == 0 and lids_ok else None
    t = len(net.terminals)
    all_loads = np.asarray(routes._routes.all_to_all_loads()) if walk["broken_pairs"] == 0 else None
    busiest_all = _busiest(net, all_loads, top)
    odd = odd_links(net, all_loads)
    bisection = None
    ebb = None
    if patterns > 0 and t >= 2 and walk["broken_pairs"] == 0:
        total = np.zeros(2 * len(net.cables))
        for k in range(patterns):
            pairs = traffic.pattern("bisect", net, seed=seed + k)
            total += np.asarray(routes._routes.channel_loads(pairs))
        bisection = total / patterns
        ebb = flow.ebb(net, routes, patterns=patterns, seed=seed)
    busiest_bis = _busiest(net, bisection, top)
    summary = [
        ("fabric", net.name),
        ("switches / terminals / cables", f"{len(net.switches)} / {t} / {len(net.cables)}"),
        ("routes", routes.engine),
    ]
    if deadlock is None:
        summary.append(("deadlock", "not checked: some LIDs have no working route"))
    else:
        summary.append(
            (
                "deadlock",
                "free" if deadlock["deadlock_free"] else f"CYCLE: {deadlock['cycle']}",
            )
        )
        summary.append(("lanes used", deadlock["lanes_used"]))
        if deadlock.get("lids_checked") is not None:
            summary.append(
                (
                    "ports checked",
                    f"{deadlock['ports_sending']} sending ports (switches and every adapter "
                    f"port) to {deadlock['lids_checked']} LIDs, on their SLs",
                )
            )
        if deadlock.get("dropped_pairs"):
            summary.append(
                (
                    "pairs dropped (VL 15)",
                    f"{deadlock['dropped_pairs']}: {deadlock['dropped_example']}",
                )
            )
    summary.append(("pairs without a route", f"{walk['broken_pairs']} of {walk['pairs']}"))
    if lid_walk is not None:
        summary.append(
            (
                "LIDs walked from every switch",
                f"{lid_walk['lids']} LIDs from {lid_walk['switches']} switches: "
                f"{lid_walk['loops']} loops, {lid_walk['black_holes']} black holes, "
                f"{lid_walk['wrong_destinations']} wrong destinations",
            )
        )
    if walk["unreachable_lids"]:
        shown = ", ".join(
            f"{n} (LID {lid_})"
            for n, lid_ in zip(walk["unreachable_names"], walk["unreachable_lids"], strict=True)
        )
        summary.append(("unreachable destinations", shown))
    summary.append(
        (
            "non-minimal pairs",
            f"{walk['non_minimal_pairs']} ({walk['extra_hops']} extra hops in all)",
        )
    )
    if len(busiest_all):
        summary.append(
            ("busiest switch link, all-to-all", f"{busiest_all['load'].iloc[0]:g} routes")
        )
    if len(busiest_bis):
        summary.append(
            (
                "busiest switch link, random bisections",
                f"{busiest_bis['load'].iloc[0]:.3g} flows (mean)",
            )
        )
    if ebb is not None:
        summary.append(
            (
                "effective bisection bandwidth",
                f"{ebb['avg']:.3f} of each link's bandwidth (min {ebb['min']:.3f}, max "
                f"{ebb['max']:.3f}, {ebb['patterns']} bisections)",
            )
        )
    if len(odd):
        first = odd.iloc[0]
        carried = "" if np.isnan(first["routes"]) else f", carrying {first['routes']:g} routes"
        summary.append(
            (
                "links slower than their peers",
                f"{len(odd)}, e.g. {first['link']} at {first['speed']} where its peers run "
                f"{first['peers']}{carried}",
            )
        )
    return {
        "odd_links": odd,
        "summary": summary,
        "deadlock": deadlock,
        "walk": walk,
        "busiest_all_to_all": busiest_all,
        "busiest_bisection": busiest_bis,
        "ebb": None if ebb is None else {k: ebb[k] for k in ("avg", "min", "max", "patterns")},
        "loads": all_loads,
    }


def failures(result: dict[str, Any]) -> list[str]:
    """What makes an audit fail, one phrase each: pairs without a working
    route (and the LIDs nobody reaches), a dependency cycle, pairs dropped on
    VL 15. Empty when the routes pass (detours and busy links are findings,
    not failures)."""
    walk, deadlock = result["walk"], result["deadlock"]
    out = []
    if walk["broken_pairs"]:
        out.append(f"{walk['broken_pairs']} of {walk['pairs']} pairs have no working route")
    if walk["unreachable_lids"]:
        lids = ", ".join(str(lid) for lid in walk["unreachable_lids"])
        out.append(f"unreachable LIDs: {lids}")
    if deadlock is not None and not deadlock["deadlock_free"]:
        out.append(f"the routes can deadlock: {deadlock['cycle']}")
    if deadlock is not None and deadlock.get("dropped_pairs"):
        out.append(f"{deadlock['dropped_pairs']} pair(s) dropped on VL 15")
    return out


def odd_links(net: Network, loads: np.ndarray | None = None) -> pd.DataFrame:
    """Cables whose speed differs from that of most cables of their kind
    (switch to switch, or switch to adapter), as ibdiagnet flags them: a
    4xDDR cable in an EDR fabric. With all-to-all ``loads`` (routes per
    channel), the routes each carries (the busier direction), which the
    routing engines do not lower for a slow link."""
    speed = {name: bps for name, bps, _ in net.classes}
    kinds = [n[0] for n in net.nodes]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (a, _, b, _, _) in enumerate(net.cables):
        groups.setdefault(tuple(sorted((kinds[a], kinds[b]))), []).append(i)
    rows = []
    for members in groups.values():
        rates = [speed[net.cables[i][4]] for i in members]
        usual = max(set(rates), key=rates.count)
        peers = next(net.cables[i][4] for i in members if speed[net.cables[i][4]] == usual)
        for i in members:
            a, pa, b, pb, cls = net.cables[i]
            if speed[cls] == usual:
                continue
            routes = (
                float(max(loads[2 * i], loads[2 * i + 1])) if loads is not None else float("nan")
            )
            rows.append(
                {
                    "link": f"{net.labels[a]} port {pa} - {net.labels[b]} port {pb}",
                    "speed": f"{cls} ({speed[cls] / 1e9:g} Gb/s)",
                    "peers": f"{peers} ({usual / 1e9:g} Gb/s)",
                    "routes": routes,
                }
            )
    return pd.DataFrame(rows, columns=["link", "speed", "peers", "routes"])


def _busiest(net: Network, loads: np.ndarray | None, top: int) -> pd.DataFrame:
    """The ``top`` busiest switch-to-switch channels (a terminal's own link
    carries all of its traffic whatever the routing)."""
    if loads is None or not len(loads):
        cols = list(flow.LOAD_COLUMNS)
        cols.insert(cols.index("src_name") + 1, "src_lid")
        cols.insert(cols.index("dst_name") + 1, "dst_lid")
        return pd.DataFrame(columns=cols)
    df = flow.load_table(net, list(loads))
    switch = [n[0] == "switch" for n in net.nodes]
    df = df[[switch[a] and switch[b] for a, b in zip(df["src"], df["dst"], strict=True)]]
    df = df.sort_values("load", ascending=False, kind="stable").head(top).copy()
    # Switches by LID too, as an administrator finds them with ibswitches.
    lids = net.lids
    df.insert(df.columns.get_loc("src_name") + 1, "src_lid", [lids[a] for a in df["src"]])
    df.insert(df.columns.get_loc("dst_name") + 1, "dst_lid", [lids[b] for b in df["dst"]])
    return df


def to_json(result: dict[str, Any]) -> str:
    """The audit as JSON (tables as lists of records)."""
    out = {
        k: v
        for k, v in result.items()
        if k not in ("busiest_all_to_all", "busiest_bisection", "odd_links", "loads")
    }
    out["summary"] = dict(result["summary"])
    for key in ("busiest_all_to_all", "busiest_bisection"):
        out[key] = json.loads(result[key].reset_index().to_json(orient="records"))
    out["odd_links"] = json.loads(result["odd_links"].to_json(orient="records"))
    return json.dumps(out, indent=2)


def _failed_finding(key: str, text: str, walk: dict[str, Any]) -> bool:
    """Whether a summary row reports a failed check (not the deadlock row)."""
    if key in ("unreachable destinations", "pairs dropped (VL 15)"):
        return True
    if key == "pairs without a route":
        return bool(walk["broken_pairs"])
    if key == "LIDs walked from every switch":
        return not text.endswith("0 loops, 0 black holes, 0 wrong destinations")
    return False


#: Findings wrap instead of running off the page; a failed check is red, a
#: deadlock-free verdict green.
_AUDIT_CSS = """
table.findings { max-width: 100%; }
td.wrap { text-align: left; white-space: pre-wrap; overflow-wrap: anywhere; max-width: 60em; }
tr.bad td, tr.bad th { background: #fde8e8; color: #8b0000; font-weight: 600; }
tr.ok td { background: #e8f6e8; color: #145214; }
"""


def write_html(result: dict[str, Any], out: str | Path) -> Path:
    """Writes the audit as a page a browser opens without network access."""
    from matplotlib.figure import Figure

    from routelab.experiment.report import _CSS, html_table, svg_of

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    parts = []
    walk = result["walk"]
    rows = []
    for k, v in result["summary"]:
        text = str(v)
        verdict = ""
        if k == "deadlock":
            verdict = "ok" if text == "free" else "bad"
        elif _failed_finding(str(k), text, walk):
            verdict = "bad"
        rows.append(
            f'<tr class="{verdict}"><th class=s>{html.escape(str(k))}</th>'
            f"<td class=wrap>{html.escape(text)}</td></tr>"
        )
    parts.append("<h2>Findings</h2><table class=findings>" + "".join(rows) + "</table>")
    odd = result.get("odd_links")
    if odd is not None and len(odd):
        parts.append(
            "<h2>Links slower than their peers</h2><p>Cables whose speed differs from most "
            "cables of their kind, with the routes each carries all-to-all: the engines "
            "route over them as over their peers.</p>"
        )
        parts.append(html_table(odd))
    walk = result["walk"]
    if walk["broken_examples"]:
        parts.append("<h2>Pairs without a route</h2>")
        parts.append(
            html_table(
                pd.DataFrame(walk["broken_examples"], columns=["source", "destination", "why"])
            )
        )
    if walk["non_minimal_examples"]:
        parts.append("<h2>Routes longer than the shortest path</h2>")
        parts.append(
            html_table(
                pd.DataFrame(
                    walk["non_minimal_examples"],
                    columns=["source", "destination", "hops", "shortest"],
                )
            )
        )
    for key, title in (
        ("busiest_all_to_all", "Busiest switch links, all-to-all (routes per channel)"),
        ("busiest_bisection", "Busiest switch links, random bisections (mean flows per channel)"),
    ):
        df = result[key]
        if len(df):
            parts.append(f"<h2>{html.escape(title)}</h2>")
            parts.append(html_table(df.reset_index()))
    loads = result["loads"]
    if loads is not None and len(loads):
        # A Figure of its own: the page is drawn without touching pyplot's
        # backend (a notebook keeps showing its figures).
        fig = Figure(figsize=(7, 3.2))
        ax = fig.subplots()
        ax.hist(loads, bins=min(50, max(5, len(set(loads.tolist())))), color="#4c72b0")
        ax.set_xlabel("routes per channel, all-to-all")
        ax.set_ylabel("channels")
        fig.tight_layout()
        parts.append(
            f"<figure>{svg_of(fig, 'loads')}<figcaption>How evenly the routes use the "
            "channels: a long right tail is a hot spot.</figcaption></figure>"
        )
    title = f"Route audit: {dict(result['summary']).get('fabric', '')}"
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    page = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title><style>{_CSS}{_AUDIT_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p class=sub>routes "
        f"{html.escape(str(dict(result['summary']).get('routes', '')))}, written {stamp}</p>"
        + "".join(parts)
        + "</body></html>"
    )
    out.write_text(page)
    return out
