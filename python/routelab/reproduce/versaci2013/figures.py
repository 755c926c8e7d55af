"""versaci2013's figures: Fig. 4 (lifetime against gamma per pattern), Fig. 5 (butterfly's
derouted ratios) and butterfly's stage sweep, one colour and marker per router."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from routelab.experiment.searches import by_load, gamma_star
from routelab.experiment.study import figure, fmt, save_figure
from routelab.reproduce.versaci2013.bounds import stage_capacity
from routelab.reproduce.versaci2013.loads import walks
from routelab.reproduce.versaci2013.paper import (
    PAPER_TABLE2,
    PAPER_TABLE3,
    PATTERNS,
    TABLE3_COLUMNS,
    Rows,
    topology,
)
from routelab.reproduce.versaci2013.stages import by_size

COLORS = {"dor": "tab:gray", "abr": "tab:blue", "por": "tab:green", "ofr": "tab:red"}
MARKERS = {"dor": "s", "abr": "o", "por": "^", "ofr": "D"}
GAMMA_AXIS = "offered load gamma (gamma0 units)"
LIFETIME_AXIS = "average packet lifetime (us)"


def _xy(pts: Rows, field: str) -> tuple[list[Any], list[Any]]:
    return [r["load"] for r in pts], [r[field] for r in pts]


def curve(rows: Rows, extra: Rows, key: tuple[str, str, int], field: str) -> Rows:
    """``key``'s curve: the sustained loads up to gamma* with ``field`` of its search (``rows``)
    and fixed-load runs (``extra``)."""
    search = walks(rows).get(key, [])
    g = gamma_star(search) if search else math.inf
    pts = search + walks(extra).get(key, [])
    return by_load(r for r in pts if r["sustained"] and r["load"] <= g and r[field] != "")


def plot_lifetime(rows: Rows, extra: Rows, cfg, path: Path) -> None:
    """Fig. 4: lifetime against gamma of the paper's routers, sustained loads."""
    k, by_key = cfg.figure_size, walks(rows)
    # One panel per pattern measured and one for the note: 2 x 3 for the
    # full mode's five patterns, 1 x 2 for the quick mode's one.
    panels = len(cfg.patterns) + 1
    lines, cols = (1, panels) if panels <= 3 else (2, 3)
    fig = figure(4 * cols, 3.5 * lines + 0.5)
    axes = fig.subplots(lines, cols, squeeze=False).flatten()
    for ax in axes[panels:]:
        ax.axis("off")
    for ax, pattern in zip(axes, cfg.patterns, strict=False):
        right = 0.0
        for router in (r for r in cfg.routers if r != "dor"):
            style = {"marker": MARKERS[router], "color": COLORS[router]}
            if pts := curve(rows, extra, (pattern, router, k), "lifetime_us"):
                g = gamma_star(by_key.get((pattern, router, k), []))
                label = f"{router.upper()} (gamma* {fmt(g)})"
                ax.plot(*_xy(pts, "lifetime_us"), ms=4, label=label, **style)
                right = max(right, pts[-1]["load"])
            if (paper := PAPER_TABLE2.get((pattern, router, k))) is not None:
                # The paper's gamma*, a hollow marker on the load axis.
                hollow = {"ms": 7, "mfc": "none", "ls": "none", "clip_on": False}
                ax.plot([paper], [0], **style, **hollow, transform=ax.get_xaxis_transform())
                right = max(right, paper)
        ax.set_title(f"{PATTERNS[pattern]} ({topology(pattern, k).split(':')[1]})", fontsize=9)
        ax.set_xlabel(GAMMA_AXIS, fontsize=8)
        ax.set_ylabel(LIFETIME_AXIS, fontsize=8)
        ax.set_xlim(0, 1.1 * right or 1.0)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    aside = axes[panels - 1]
    aside.axis("off")
    note = (
        "Each curve: six loads below every router's gamma* (butterfly:\n"
        "its stage sweep) and the loads its saturation search sustained,\n"
        "up to gamma*. Hollow markers on the load axis: the paper's\n"
        "gamma* (Table 2). DOR, not in the paper, is in Table 2."
    )
    if not any(r["k"] == k and r["pattern"] != "butterfly" for r in extra):
        note = note.replace("six loads", "(not run yet:) six loads")
    aside.text(0.0, 0.5, note, fontsize=8, transform=aside.transAxes)
    title = f"Fig. 4: average packet lifetime against gamma, k = {k} (sustained loads)"
    save_figure(fig, path, title)


def plot_derouted(rows: Rows, extra: Rows, cfg, path: Path) -> None:
    """Fig. 5: butterfly's derouted ratios against gamma, Table 3's dashed."""
    k, ax = cfg.figure_size, (fig := figure()).add_subplot()
    series = (  # label, line, marker, colour per Table 3 column
        ("OFR OIDN", "--", "v", "tab:orange"),
        ("OFR WIDN", ":", "^", "tab:purple"),
        ("OFR total", "-", "D", COLORS["ofr"]),
        ("POR", "-", "o", COLORS["por"]),
    )
    for (router, key), (label, line, marker, color), value in zip(
        TABLE3_COLUMNS.values(), series, PAPER_TABLE3["butterfly"], strict=True
    ):
        if pts := curve(rows, extra, ("butterfly", router, k), key):
            ax.plot(*_xy(pts, key), line, marker=marker, ms=5, color=color, label=label)
        label = f"paper {label}, k = 16"
        ax.axhline(value, color=color, ls=(0, (6, 3)), lw=1, alpha=0.8, label=label)
    title = f"Fig. 5: derouted packets, butterfly, k = {k} (paper: k = 16)"
    ax.set(xlabel=GAMMA_AXIS, ylabel="ratio of derouted packets", ylim=(0, 1), title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_stages(rows: Rows, path: Path) -> None:
    """Butterfly's lifetime against load, one panel per size."""
    sizes = by_size(rows) or {8: []}
    fig = figure(width=6.4 * len(sizes)) if len(sizes) > 1 else figure()
    for i, (k, mine) in enumerate(sizes.items()):
        ax = fig.add_subplot(1, len(sizes), i + 1)
        for router in dict.fromkeys(r["router"] for r in mine):
            pts = [r for r in mine if r["router"] == router and r["lifetime_us"] != ""]
            if not pts:  # every load still to run
                continue
            style = {"marker": MARKERS[router], "ms": 4, "color": (color := COLORS[router])}
            ax.plot(*_xy(pts, "lifetime_us"), **style, label=router.upper())
            unsustained = [r for r in pts if not r["sustained"]]
            ax.scatter(*_xy(unsustained, "lifetime_us"), marker="x", s=60, color=color)
            if (paper := PAPER_TABLE2.get(("butterfly", router, k))) is not None:
                ax.axvline(paper, color=color, alpha=0.3, lw=3)
        for ways, style in ((1, "--"), (2, ":")):
            label = f"k/2 stage fits its period, {'one way' if ways == 1 else 'both ways'}"
            ax.axvline(stage_capacity(k, ways), color="black", ls=style, lw=1, label=label)
        ax.set(yscale="log", xlabel=GAMMA_AXIS, ylabel=LIFETIME_AXIS)
        ax.set_title(
            f"Butterfly/FFT in step, k = {k}: lifetime (x: not sustained; "
            "wide lines: the paper's gamma*)",
            fontsize=9,
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save_figure(fig, path)
