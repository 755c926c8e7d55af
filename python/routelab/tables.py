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


def key_value_table(rows: list[tuple[str, Any]]) -> str:
    """Two aligned columns."""
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join(f"{k:<{width}}  {_fmt(v)}" for k, v in rows)


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
