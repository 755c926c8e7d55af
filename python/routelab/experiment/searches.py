"""A saturation study's loads as rows, and what the walk of a search says.

Each row is one load a search (``kind = "saturate"``) or a fixed-load run
measured, with at least ``load`` and ``sustained``; the rows of one search
also carry its final bracket (`bracket`), so that its answer is read from
the search itself, never re-derived from a grid. A study that tabulates
saturation points, as versaci2013's Table 2 does, builds on these
(docs/guides/experiments.md, "Studies")."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

Row = dict[str, Any]
Rows = list[Row]


def by_load(rows: Iterable[Row]) -> Rows:
    """``rows`` sorted by load."""
    return sorted(rows, key=lambda r: r["load"])


def bracket(run: Row) -> Row:
    """A search's final bracket from its run-table row, for each of its loads' rows:
    ``search_gamma_star`` (the highest load sustained) and ``search_bracket_high`` (the
    lowest not sustained above it; blank when the search met its ceiling sustained)."""
    high = run["bracket_high"]
    high = "" if high is None or high != high else round(high, 4)
    return {"search_gamma_star": round(run["bracket_low"], 4), "search_bracket_high": high}


def gamma_star(rows: Rows) -> float:
    """The low end of the final bracket if ``rows`` are one search (loads out of order with it
    are `inverted`), else the highest load sustained below the lowest one that was not."""
    found = {r.get("search_gamma_star", "") for r in rows} - {""}
    if len(found) == 1:
        return float(found.pop())
    below = list(itertools.takewhile(lambda r: r["sustained"], by_load(rows)))
    return below[-1]["load"] if below else 0.0


def bracket_high(rows: Rows) -> float | str:
    """The lowest load not sustained above gamma* ("" if none was)."""
    g = gamma_star(rows)
    return min((r["load"] for r in rows if r["load"] > g and not r["sustained"]), default="")


def inverted(rows: Rows) -> Rows:
    """Loads below gamma* not sustained, or above the bracket and sustained: verdicts out of
    order with the search's answer (a window's halves that disagreed, say)."""
    g, h = gamma_star(rows), bracket_high(rows)
    return [r for r in rows if (h != "" and r["load"] > h if r["sustained"] else r["load"] < g)]


def walks(rows: Iterable[Row], key: Sequence[str]) -> dict[tuple[Any, ...], Rows]:
    """Rows grouped by the values of the ``key`` columns, each group by load."""
    out: dict[tuple[Any, ...], Rows] = {}
    for r in rows:
        out.setdefault(tuple(r[c] for c in key), []).append(r)
    return {k: by_load(v) for k, v in out.items()}
