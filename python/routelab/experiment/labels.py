"""Axis and legend labels for result columns: the quantity and its unit
(``latency (ns)``, ``offered load (flits/node/cycle)``), never a raw column
name. Columns the table does not know get their last dotted part with spaces."""

from __future__ import annotations

import pandas as pd

FLITS = "flits/node/cycle"
# The unit of ``traffic.load`` (and of a saturation search's result) per
# ``traffic.load_unit``.
LOAD_UNITS = {"flits": FLITS, "gbps": "Gb/s per node", "bisection": "gamma0"}

_LATENCY = {
    "mean": "mean",
    "p50": "median",
    "p90": "90th percentile",
    "p99": "99th percentile",
    "max": "maximum",
}
_LATENCY_KINDS = {
    "latency_": "packet",
    "network_latency_": "network",
    "message_latency_": "message",
}

LABELS = {
    "offered": f"offered load ({FLITS})",
    "offered_target": f"offered load ({FLITS})",
    "accepted": f"accepted load ({FLITS})",
    "accepted_total": "accepted load, whole network (flits/cycle)",
    "offered_gbps": "offered load (Gb/s per node)",
    "accepted_gbps": "accepted load (Gb/s per node)",
    "accepted_normalised": "accepted load (gamma0)",
    "accepted_total_gbps": "accepted load, whole network (Gb/s)",
    "latency_histogram": "packet latency (ns)",
    "latency_samples": "packet latency (ns)",
    "avg_hops": "average hops",
    "max_hops": "maximum hops",
    "lanes_needed": "virtual lanes needed",
    "lanes": "virtual lanes used",
    "channel_util_mean": "mean channel utilisation",
    "channel_util_max": "maximum channel utilisation",
    "diameter": "diameter (hops)",
    "avg_distance": "average distance (hops)",
    "bisection_width": "bisection width (cables)",
    "route_seconds": "routing time (s)",
    "wall_seconds": "run time (s)",
    "avg": "effective bisection bandwidth\n(fraction of link bandwidth)",
    "ebb": "effective bisection bandwidth\n(fraction of link bandwidth)",
    "per_pattern": "effective bandwidth of a pattern (fraction of link bandwidth)",
    "deadlock_free": "deadlock-free",
    "routing.algorithm": "routing",
    "network.topology": "topology",
    "traffic.pattern": "traffic pattern",
}


def load_unit(df: pd.DataFrame | None) -> str:
    """The unit of ``traffic.load`` in ``df``: flits/node/cycle unless the runs
    name another (one for all of them)."""
    if df is not None:
        for column in ("traffic.load_unit", "load_unit"):
            if column in df.columns:
                units = set(df[column].dropna().astype(str))
                if len(units) == 1:
                    return LOAD_UNITS.get(units.pop(), FLITS)
    return FLITS


def label(column: str | None, df: pd.DataFrame | None = None) -> str:
    """The label of ``column``: quantity and unit."""
    if column is None or column == "_hue":
        return ""
    if column in LABELS:
        return LABELS[column]
    last = column.split(".")[-1]
    if last in ("load", "saturation"):
        what = "offered load" if last == "load" else "saturation throughput"
        return f"{what} ({load_unit(df)})"
    for prefix, kind in _LATENCY_KINDS.items():
        stat = column.removeprefix(prefix)
        if column.startswith(prefix) and stat in _LATENCY:
            return f"{_LATENCY[stat]} {kind} latency (ns)"
    if last in LABELS:
        return LABELS[last]
    return last.replace("_", " ")
