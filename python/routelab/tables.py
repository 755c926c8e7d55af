"""Plain-text tables for the terminal."""

from __future__ import annotations

from typing import Any


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_fmt(v)}" for k, v in value.items())
    return str(value)


def key_value_table(rows: list[tuple[str, Any]], units: dict[str, str] | None = None) -> str:
    """Two aligned columns; with ``units``, a third saying what each value is
    in (for the keys it names)."""
    width = max((len(k) for k, _ in rows), default=0)
    if not units:
        return "\n".join(f"{k:<{width}}  {_fmt(v)}" for k, v in rows)
    values = [_fmt(v) for _, v in rows]
    vwidth = max((len(v) for v in values), default=0)
    return "\n".join(
        f"{k:<{width}}  {v:<{vwidth}}  {units.get(k, '')}".rstrip()
        for (k, _), v in zip(rows, values, strict=True)
    )


#: What each number ``routelab sim`` prints is in, and what it means.
SIM_UNITS = {
    "offered": "flits/node/cycle generated during the measurement",
    "accepted": "flits/node/cycle delivered during the measurement",
    "accepted_min": "flits/cycle delivered to the least served source",
    "accepted_max": "flits/cycle delivered to the most served source",
    "latency_mean": "ns from generation to the last flit's delivery, mean",
    "latency_p99": "ns, 99th percentile",
    "avg_hops": "channels per packet, injection and ejection included",
    "packets_delivered": "packets, whole run",
    "flit_hops": "flit transmissions over channels, whole run",
    "simulated_ps": "ps of simulated time",
    "wall_seconds": "s of wall-clock time",
    "events": "events processed",
    "transits": "packets re-injected by terminals in transit",
    "transit_peak_bytes": "bytes, most any NIC's in-transit buffer held",
    "transit_spills": "in-transit packets kept in host memory",
    "drained": "every packet delivered after the measurement",
    "converged": "the warm-up reached a steady state",
}


def summary_table(summary: dict[str, Any]) -> str:
    """A network summary, the bisection labelled exact or as a bound."""
    rows = []
    for key, value in summary.items():
        if key in ("bisection_exact", "bisection_method", "bisection_lower_bound"):
            continue
        if value is None or value == []:
            continue
        if key == "bisection_width":
            how = "exact" if summary.get("bisection_exact") else "upper bound"
            method = summary.get("bisection_method", "")
            value = f"{value} cables ({how}, {method})" if method else f"{value} ({how})"
            lower = summary.get("bisection_lower_bound")
            if lower is not None and not summary.get("bisection_exact"):
                value += f", at least {lower}"
        rows.append((key, value))
    return key_value_table(rows)
