"""Figures from a run table: lines (latency against offered load, accepted
against offered), bars (throughput, lanes or bandwidth per routing), CDFs and
histograms (of a metric across runs, of list columns or of per-run artefacts)
and link-load heatmaps of tori.

Figures are built on ``matplotlib.figure.Figure`` with the Agg canvas, without
pyplot's global state, so they can be drawn in any thread and on machines
without a display.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from routelab._core import ConfigError
from routelab.experiment import kinds
from routelab.experiment.labels import label
from routelab.experiment.store import Store
from routelab.sim import SUSTAINED

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FORMATS = (".png", ".svg", ".pdf")
CLIP = 20.0  # latency axes of the standard figures end at this multiple of zero-load latency
BOOKKEEPING = {
    "key",
    "index",
    "status",
    "error",
    "attempts",
    "wall_seconds",
    "routelab_version",
    "started",
    "timestamp",
    "host",
    "session",
    "kind",
    "artefacts",
}


@dataclass(frozen=True)
class FigureSpec:
    """What to draw: ``y`` against ``x`` per ``hue``, one panel per ``facet``."""

    kind: str
    y: str
    x: str | None = None
    hue: str | None = None
    facet: str | None = None
    title: str | None = None
    name: str | None = None
    logy: bool = False
    diagonal: bool = False  # a y = x reference line (accepted against offered)
    explode: str | None = None  # an artefact holding a list of rows per run (curves)
    select: tuple[str, Any] | None = None  # only the runs where this column has this value
    # Latency against load: mark where each line saturates (accepted below
    # SUSTAINED x offered, else latency above 3x its zero-load value) and clip
    # the axis at ``clip`` times the zero-load latency.
    saturation: bool = False
    clip: float | None = None
    # A CDF per line at the highest load of this column that line sustains.
    below_saturation: str | None = None
    # A boolean column: bars of runs where it is false are marked, not drawn
    # (lanes of routes that are not deadlock-free).
    invalid: str | None = None

    def file_name(self) -> str:
        if self.name:
            return self.name
        return f"{self.y}-vs-{self.x}" if self.x else f"{self.y}-{self.kind}"


# ---------------------------------------------------------------- columns


def parameter_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if "." in c and not c.startswith("result.")]


def varying_columns(df: pd.DataFrame) -> list[str]:
    """Parameter columns that take more than one value."""
    return [c for c in parameter_columns(df) if df[c].astype(str).nunique() > 1]


#: Measured columns a reader looks for first, in this order.
_LEADING_METRICS = (
    "accepted",
    "latency_mean",
    "saturation",
    "deadlock_free",
    "lanes_needed",
    "avg",
    "min",
    "max",
)


def reading_order(df: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The run table as a person reads it: the parameters that vary, then
    what was measured (the headline metrics first), then the rest; the
    parameters that are the same for every run are returned apart, and a
    metric that repeats a parameter (``load`` beside ``traffic.load``,
    ``vcs`` beside ``router.vcs``) is left out."""
    params = parameter_columns(df)
    moving = varying_columns(df)
    same = {c: df[c].iloc[0] for c in params if c not in moving and len(df)}
    by_last = {c.split(".")[-1]: c for c in params}
    repeats = [
        c
        for c in df.columns
        if c not in params
        and c in by_last
        and df[c].astype(str).tolist() == df[by_last[c]].astype(str).tolist()
    ]
    metrics = [c for c in df.columns if c not in params and c not in repeats]
    lead = [c for c in ("status", *_LEADING_METRICS) if c in metrics]
    keys = [c for c in ("key", "error", "attempts", "wall_seconds") if c in metrics]
    rest = [c for c in metrics if c not in lead and c not in keys]
    # Measurements that differ between runs before those that do not.
    fixed = [c for c in rest if df[c].astype(str).nunique() <= 1]
    rest = [c for c in rest if c not in fixed] + fixed
    order = ["status", *moving, *[c for c in lead if c != "status"], *rest, *keys]
    return df[[c for c in order if c in df.columns]], same


def resolve_column(df: pd.DataFrame, name: str) -> str:
    """The column ``name`` means: itself; else the one column whose last dotted
    part is ``name`` (``load`` -> ``traffic.load``); else the one varying
    column (or the one column) under the table ``name`` (``routing`` ->
    ``routing.algorithm``), the seed aside."""
    if name in df.columns:
        return name
    ends = [c for c in df.columns if c.split(".")[-1] == name]
    if len(ends) == 1:
        return ends[0]
    under = [c for c in df.columns if c.startswith(name + ".")]
    seed = _seed_column(df)
    moving = [c for c in under if c in varying_columns(df) and c != seed]
    if len(moving) == 1:
        return moving[0]
    if len(under) == 1:
        return under[0]
    if len(ends) > 1 or len(moving) > 1:
        options = ends or moving
        raise ConfigError(f"'{name}' is ambiguous: it could be {', '.join(options)}")
    shown = [c for c in df.columns if c not in BOOKKEEPING]
    raise ConfigError(f"no column '{name}' in the results; columns: {', '.join(shown)}")


def _seed_column(df: pd.DataFrame) -> str | None:
    if "kind" in df.columns and len(df):
        try:
            key = kinds.get(str(df["kind"].iloc[0])).seed_key
        except ConfigError:
            return None
        return key if key in df.columns else None
    return None


# ---------------------------------------------------------------- data


def load_table(directory: str | Path, y: str | None = None) -> tuple[Store, pd.DataFrame]:
    """The finished runs of an experiment; ``y`` names a column or an artefact
    that is added as a column."""
    store = Store.open(directory)
    df = store.table()
    # Deadlocked runs stay: the figures mark them where they happened.
    df = df[df["status"].isin(kinds.FINISHED)].reset_index(drop=True)
    if not len(df):
        raise ConfigError(f"{directory} has no finished runs to plot")
    if y is not None:
        df = with_column(store, df, y)
    return store, df


def with_column(store: Store, df: pd.DataFrame, name: str) -> pd.DataFrame:
    """``df``, with the per-run artefact ``name`` as a column when ``name`` is
    not a column already."""
    if name in df.columns:
        return df
    try:
        resolve_column(df, name)
        return df
    except ConfigError:
        values = [store.artefact(k, name) for k in df["key"]]
        if all(v is None for v in values):
            raise
        return df.assign(**{name: values})


def _artefact_names(df: pd.DataFrame) -> list[str]:
    names: list[str] = []
    for value in df.get("artefacts", pd.Series(dtype=object)).dropna():
        for name in str(value).split(","):
            stem = name.rsplit(".", 1)[0]
            if stem and stem not in names:
                names.append(stem)
    return names


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _bin_centre(b: dict[str, Any]) -> float:
    lo = next(v for k, v in b.items() if k.startswith("lo"))
    hi = next(v for k, v in b.items() if k.startswith("hi"))
    return (float(lo) + float(hi)) / 2


def _is_bins(v: Any) -> bool:
    return (
        isinstance(v, list)
        and bool(v)
        and all(
            isinstance(b, dict)
            and "count" in b
            and any(k.startswith("lo") for k in b)
            and any(k.startswith("hi") for k in b)
            for b in v
        )
    )


def _samples(values: Iterable[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Sample values and weights from scalars, lists of numbers, histograms
    (``{"counts": [...], "bins"|"edges"|"values": [...]}``) or lists of bins
    (``[{"lo_ns": .., "hi_ns": .., "count": ..}, ...]``, weighted at their centres)."""
    xs: list[float] = []
    ws: list[float] = []
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        if _is_bins(v):
            xs.extend(_bin_centre(b) for b in v)
            ws.extend(float(b["count"]) for b in v)
            continue
        if isinstance(v, dict):
            counts = v.get("counts")
            centres = v.get("values") or v.get("bins") or v.get("edges")
            if counts is None or centres is None:
                raise ConfigError("a histogram artefact needs 'counts' and 'bins' or 'values'")
            centres = list(centres)
            if len(centres) == len(counts) + 1:  # edges: use the bin centres
                centres = [(a + b) / 2 for a, b in zip(centres, centres[1:], strict=False)]
            xs.extend(float(c) for c in centres)
            ws.extend(float(c) for c in counts)
        elif isinstance(v, list | tuple | np.ndarray):
            xs.extend(float(x) for x in v)
            ws.extend(1.0 for _ in v)
        else:
            xs.append(float(v))
            ws.append(1.0)
    return np.asarray(xs), np.asarray(ws)


def _groups(df: pd.DataFrame, column: str | None) -> list[tuple[Any, pd.DataFrame]]:
    if column is None:
        return [(None, df)]
    order = list(dict.fromkeys(df[column].astype(str)))
    keyed = df.assign(_g=df[column].astype(str))
    return [(value, keyed[keyed["_g"] == value].drop(columns="_g")) for value in order]


#: Parameters a line is named by first, when several tell the runs apart.
_HUE_FIRST = ("network.topology", "routing.algorithm", "traffic.pattern")


def _expanded(df: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``columns`` as strings, a column of dicts (``routing.options``) as one
    column per key, so that a label names only the keys that differ."""
    out = {}
    for c in columns:
        values = df[c]
        if values.map(lambda v: isinstance(v, dict)).all():
            for key in sorted({k for d in values for k in d}):
                out[f"{c}.{key}"] = values.map(lambda d, key=key: str(d.get(key, "")))
        else:
            out[c] = values.astype(str)
    return pd.DataFrame(out, index=df.index)


def _auto_hue(
    df: pd.DataFrame, used: Sequence[str | None], hue: str | None = None
) -> pd.DataFrame | None:
    """One line per combination of ``hue`` and the other varying parameters
    (the seed is averaged over instead), or None when ``hue`` alone tells
    the runs apart. A parameter that follows from the others (a search's
    first bracket per network and pattern, a pattern's arrival process) is
    left out of the names: it would only lengthen them."""
    seed = _seed_column(df)
    keys = [c for c in (*used, hue) if c is not None and c in df.columns]
    rest = [c for c in varying_columns(df) if c not in keys and c != seed]
    if not rest:
        return None
    rest.sort(key=lambda c: _HUE_FIRST.index(c) if c in _HUE_FIRST else len(_HUE_FIRST))
    given, candidates = _expanded(df, keys), _expanded(df, rest)
    kept: list[str] = []
    for c in candidates.columns:
        by = [given[k] for k in given.columns] + [candidates[k] for k in kept]
        values = candidates[c]
        if values.nunique() > 1 and (not by or (values.groupby(by).nunique() > 1).any()):
            kept.append(c)
    if not kept:
        return None
    names = candidates[kept]
    if hue is not None:
        names = pd.concat([df[[hue]].astype(str), names], axis=1)
    label = names.agg(
        lambda row: ", ".join(f"{c.split('.')[-1]}={v}" for c, v in row.items()), axis=1
    )
    return df.assign(_hue=label)


# ---------------------------------------------------------------- drawing


def explode(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """One row per element of the list-of-dicts ``column`` (a saturation search's
    measured points, say), beside the parameters of its run."""
    rows = []
    for row in df.to_dict("records"):
        items = row.pop(column, None)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict):
                rows.append({**row, **item})
    if not rows:
        raise ConfigError(f"no run has rows in '{column}'")
    return pd.DataFrame(rows)


def figure(df: pd.DataFrame, spec: FigureSpec, store: Store | None = None) -> Figure:
    """Draws ``spec`` from the run table ``df`` (finished runs)."""
    if spec.explode:
        if store is not None:
            df = with_column(store, df, spec.explode)
        df = explode(df, spec.explode)
    if spec.select is not None:
        column, value = spec.select
        df = df[df[resolve_column(df, column)] == value]
    y = resolve_column(df, spec.y)
    x = resolve_column(df, spec.x) if spec.x else None
    hue = resolve_column(df, spec.hue) if spec.hue else None
    facet = resolve_column(df, spec.facet) if spec.facet else None
    kind = spec.kind
    if kind == "auto":
        kind = "line" if x is not None and _numeric(df[x]) else "bar"
    if kind in ("line", "bar") and x is None:
        raise ConfigError(f"a {kind} plot needs --x")
    if hue is None and kind in ("line", "bar", "cdf", "hist"):
        # The load below saturation is picked per line: not a line's name.
        below = resolve_column(df, spec.below_saturation) if spec.below_saturation else None
        # A measured x (a search's points) names nothing: lines follow the runs.
        swept = x if x in parameter_columns(df) else None
        auto = _auto_hue(df, [swept, facet, below])
        if auto is not None:
            df, hue = auto, "_hue"
    per_axis_legend = False
    if spec.below_saturation:
        df, hue = below_saturation(df, resolve_column(df, spec.below_saturation), hue, facet)
        per_axis_legend = True  # each panel may pick other loads
    panels = _groups(df, facet)
    ncols = min(len(panels), 3)
    nrows = math.ceil(len(panels) / ncols)
    fig = Figure(figsize=(5.2 * ncols + 1.6, 3.8 * nrows + 0.4), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=kind in ("line", "bar"))
    styles = _styles(df, hue)
    for i, (value, part) in enumerate(panels):
        ax = axes[i // ncols][i % ncols]
        draw = {"line": _line, "bar": _bar, "cdf": _cdf, "hist": _hist}[kind]
        draw(ax, part, x, y, hue, spec, styles)
        if facet is not None:
            ax.set_title(f"{label(facet)} = {value}", fontsize=10)
        if spec.diagonal and x is not None:
            lo, hi = ax.get_xlim()
            ax.plot([lo, hi], [lo, hi], color="0.6", lw=0.8, ls=":", zorder=0)
        if spec.logy:
            ax.set_yscale("log")
            # plain numbers at 1, 2, 5 x 10^k rather than powers of ten
            ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ScalarFormatter())
            ax.yaxis.set_minor_formatter(NullFormatter())
        ax.grid(True, alpha=0.3)
        if per_axis_legend and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, title=label(spec.below_saturation, df), title_fontsize=8)
    for j in range(len(panels), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    if spec.clip:
        _clip([ax for row in axes for ax in row if ax.get_visible()], spec.clip)
    handles, labels = _legend_entries([ax for row in axes for ax in row if ax.get_visible()])
    if handles and not per_axis_legend:
        title = label(hue, df)
        longest = max(len(label) for label in labels)
        if longest > 24 or len(labels) > 8:
            chars = fig.get_figwidth() * 12  # about 12 characters of 9 pt text per inch
            where, ncols = "outside lower center", max(1, min(len(labels), chars // (longest + 6)))
        else:
            where, ncols = "outside right upper", 1
        fig.legend(handles, labels, title=title, loc=where, ncols=ncols, fontsize=9)
    if spec.title:
        if len(panels) == 1 and facet is None:
            axes[0][0].set_title(spec.title)
        else:
            fig.suptitle(spec.title)
    return fig


def _legend_entries(axes: list[Axes]) -> tuple[list[Any], list[str]]:
    """Legend handles of all panels, each label once (a marker drawn only in a
    later panel still gets its entry)."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(text, handle)
    return list(seen.values()), list(seen)


def _sustained(part: pd.DataFrame) -> bool | None:
    """Whether runs (of one load) delivered what was offered; None without the columns."""
    if not {"offered", "accepted"} <= set(part.columns):
        return None
    offered, accepted = part["offered"].mean(), part["accepted"].mean()
    return bool(accepted >= SUSTAINED * offered)


#: Statuses of runs (or of a search's points) that stopped without a
#: measurement: drawn as marks, never as values of a line.
STOPPED = ("deadlock", "failed", "backlog")


def _stopped(part: pd.DataFrame) -> pd.Series:
    """Which rows stopped without a measurement (a deadlock, a run stopped for
    its backlog)."""
    if "status" not in part.columns:
        return pd.Series(False, index=part.index)
    return part["status"].isin(STOPPED)


def saturation_load(part: pd.DataFrame, x: str, y: str) -> float | None:
    """The lowest load of one line's runs that is not sustained: a run that
    deadlocked, accepted below `SUSTAINED` times offered, or (without
    those columns) a mean ``y`` above three times its value at the lowest
    load. None when every load is."""
    loads = sorted(part[x].dropna().unique())
    if not loads:
        return None
    measured = part[~_stopped(part)]
    first = [v for v in loads if (measured[x] == v).any()]
    zero = measured[measured[x] == first[0]][y].mean() if first else float("nan")
    for load in loads:
        runs = part[part[x] == load]
        if _stopped(runs).any():
            return float(load)
        ok = _sustained(runs)
        if ok is None:
            ok = bool(runs[y].mean() <= 3 * zero)
        if not ok:
            return float(load)
    return None


def below_saturation(
    df: pd.DataFrame, load: str, hue: str | None, facet: str | None
) -> tuple[pd.DataFrame, str]:
    """Per line (hue) and panel, the runs at the highest load it sustains, the
    line named with that load; lines that sustain no load are left out."""
    keep = []
    for _, panel in _groups(df, facet):
        for value, part in _groups(panel, hue):
            part = part[~_stopped(part)]
            sustained = [
                v for v in sorted(part[load].dropna().unique()) if _sustained(part[part[load] == v])
            ]
            if not sustained:
                continue
            rows = part[part[load] == sustained[-1]]
            name = f"{value} at {sustained[-1]:g}" if value is not None else f"{sustained[-1]:g}"
            keep.append(rows.assign(_hue=name))
    if not keep:
        raise ConfigError(f"no run sustains its load ('{load}'): no latency below saturation")
    return pd.concat(keep), "_hue"


def _clip(axes: list[Axes], multiple: float) -> None:
    """Clips the (shared) y axis of ``axes`` at ``multiple`` times the lowest
    first point of their data lines (drawn with "o" markers: the zero-load
    value); points above are drawn as triangles on the edge."""
    lines = [
        (ax, ln)
        for ax in axes
        for ln in ax.get_lines()
        if len(ln.get_ydata()) and ln.get_marker() == "o"
    ]
    if not lines:
        return
    zero = min(float(np.asarray(ln.get_ydata(), dtype=float)[0]) for _, ln in lines)
    top = multiple * zero
    ys = np.concatenate([np.asarray(ln.get_ydata(), dtype=float) for _, ln in lines])
    if zero <= 0 or np.nanmax(ys) <= top:
        return
    for ax, ln in lines:
        xs, y = np.asarray(ln.get_xdata(), dtype=float), np.asarray(ln.get_ydata(), dtype=float)
        above = y > top
        if above.any():
            ax.plot(
                xs[above],
                np.full(above.sum(), top),
                ls="none",
                marker="^",
                color=ln.get_color(),
                clip_on=False,
                label="_above",
            )
    for ax in axes:
        ax.set_ylim(ax.get_ylim()[0], top)
        ax.annotate(
            f"clipped at {multiple:g}x zero-load latency",
            (0.99, 0.02),
            xycoords="axes fraction",
            ha="right",
            va="bottom",
            fontsize=8,
            color="0.35",
        )


SATURATION = "saturation (first load not sustained)"

#: Line markers, cycled beside matplotlib's ten colours (7 against 10: the
#: first 70 lines differ in colour or marker).
_MARKERS = ("o", "s", "^", "D", "v", "P", "h")

Styles = dict[str, dict[str, str]]


def _styles(df: pd.DataFrame, hue: str | None) -> Styles:
    """A colour and a marker per hue value, the same in every panel (a panel
    that lacks a value must not shift the others' colours)."""
    values = dict.fromkeys(df[hue].astype(str)) if hue is not None else {}
    return {
        v: {"color": f"C{i % 10}", "marker": _MARKERS[i % len(_MARKERS)]}
        for i, v in enumerate(values)
    }


def _line(
    ax: Axes, df: pd.DataFrame, x: str, y: str, hue: str | None, spec: FigureSpec, styles: Styles
) -> None:
    marked = False
    stopped: dict[str, None] = {}  # statuses of runs that stopped, all lines
    unplaced = 0  # of those, runs with no x to put them at
    for value, part in _groups(df, hue):
        halted = _stopped(part)
        measured = part[~halted]
        stats = measured.groupby(x, sort=True)[y].agg(["mean", "min", "max", "count"])
        name = None if value is None else str(value)
        style = styles.get(str(value), {"marker": "o"})
        (line,) = ax.plot(stats.index, stats["mean"], ms=4, label=name, **style)
        if (stats["count"] > 1).any():
            ax.fill_between(stats.index, stats["min"], stats["max"], alpha=0.2)
        # A run that deadlocked has no value: a cross at the top of the axis
        # at its load, in the colour of its line.
        for status, rows in part[halted].groupby("status") if halted.any() else ():
            xs = pd.to_numeric(rows[x], errors="coerce").dropna()
            unplaced += len(rows) - len(xs)
            stopped[status] = None
            if len(xs):
                ax.plot(
                    xs,
                    [0.97] * len(xs),
                    ls="none",
                    marker="X",
                    ms=8,
                    color=line.get_color(),
                    markeredgecolor="#c0392b",
                    transform=ax.get_xaxis_transform(),
                    clip_on=False,
                    label="_stopped",
                )
        at = saturation_load(part, x, y) if spec.saturation else None
        if at is not None:
            ax.axvline(at, color=line.get_color(), ls=":", lw=1.4, label="_saturation")
            marked = True
    if marked:  # one legend entry for the dotted lines of every colour
        ax.plot([], [], color="0.3", ls=":", lw=1.4, label=SATURATION)
    for status in stopped:  # one entry per status in the whole figure: no count
        ax.plot(
            [],
            [],
            ls="none",
            marker="X",
            ms=8,
            color="0.5",
            markeredgecolor="#c0392b",
            label=f"{status}: stopped, no value",
        )
    if unplaced:
        ax.annotate(
            f"{unplaced} run(s) stopped with no measured {label(x, df)}: not drawn",
            (0.01, 0.02),
            xycoords="axes fraction",
            fontsize=8,
            color="#c0392b",
        )
    ax.set_xlabel(label(x, df))
    ax.set_ylabel(label(y, df))


def _bar(
    ax: Axes, df: pd.DataFrame, x: str, y: str, hue: str | None, spec: FigureSpec, styles: Styles
) -> None:
    """Bars of the mean per category and hue, whiskers from the minimum to the
    maximum of the runs (seeds) behind each."""
    cats = list(dict.fromkeys(df[x].astype(str)))
    groups = _groups(df, hue)
    width = 0.8 / len(groups)
    marked = False
    for i, (value, part) in enumerate(groups):
        part = part.assign(_x=part[x].astype(str))
        stats = part.groupby("_x")[y].agg(["mean", "min", "max"]).reindex(cats)
        pos = np.arange(len(cats)) - 0.4 + width * (i + 0.5)
        means = stats["mean"].astype(float).to_numpy()
        bad = np.zeros(len(cats), dtype=bool)
        if spec.invalid and spec.invalid in part.columns:
            flags = part.groupby("_x")[spec.invalid].agg(lambda v: not v.astype(bool).all())
            bad = flags.reindex(cats).fillna(False).astype(bool).to_numpy()
            means = np.where(bad, np.nan, means)
        spread = (stats["max"] - stats["min"]).fillna(0).to_numpy() > 0
        err = None
        if (spread & ~bad).any():
            lo = np.where(bad, 0, means - stats["min"].to_numpy())
            hi = np.where(bad, 0, stats["max"].to_numpy() - means)
            err = np.nan_to_num(np.vstack([lo, hi]))
        color = styles.get(str(value), {}).get("color")
        name = None if value is None else str(value)
        ax.bar(pos, means, width, yerr=err, capsize=3, label=name, color=color)
        for p in pos[bad]:
            what = label(spec.invalid)
            ax.axvspan(
                p - width / 2,
                p + width / 2,
                ymax=0.92,
                fill=False,
                hatch="///",
                edgecolor="#c0392b",
                lw=0,
                label="_nolegend_" if marked else f"not {what} (no value)",
            )
            marked = True
    ax.set_xticks(np.arange(len(cats)), cats, rotation=30 if len(cats) > 4 else 0, ha="right")
    ax.set_xlabel(label(x, df))
    ax.set_ylabel(label(y, df))


def _cdf(
    ax: Axes,
    df: pd.DataFrame,
    x: str | None,
    y: str,
    hue: str | None,
    spec: FigureSpec,
    styles: Styles,
) -> None:
    for value, part in _groups(df, hue):
        xs, ws = _samples(part[y])
        if not xs.size:
            continue
        order = np.argsort(xs, kind="stable")
        xs, ws = xs[order], ws[order]
        cum = np.cumsum(ws) / ws.sum()
        color = styles.get(str(value), {}).get("color")
        ax.step(xs, cum, where="post", label=None if value is None else str(value), color=color)
    ax.set_xlabel(label(y, df))
    ax.set_ylabel("fraction of packets ≤ latency" if "latency" in y else "fraction ≤ value")
    ax.set_ylim(0, 1.02)


def _hist(
    ax: Axes,
    df: pd.DataFrame,
    x: str | None,
    y: str,
    hue: str | None,
    spec: FigureSpec,
    styles: Styles,
) -> None:
    """Histograms on shared bins, the bars of each group side by side within a
    bin, so that none hides another."""
    all_xs, _ = _samples(df[y])
    if not all_xs.size:
        return
    bins = np.histogram_bin_edges(all_xs, bins=min(30, max(5, int(np.sqrt(all_xs.size)))))
    groups = _groups(df, hue)
    widths = np.diff(bins) / len(groups)
    for i, (value, part) in enumerate(groups):
        xs, ws = _samples(part[y])
        counts, _ = np.histogram(xs, bins=bins, weights=ws)
        ax.bar(
            bins[:-1] + widths * i,
            counts,
            widths,
            align="edge",
            label=None if value is None else str(value),
            color=styles.get(str(value), {}).get("color"),
        )
    ax.set_xlabel(label(y, df))
    ax.set_ylabel("runs" if df[y].map(_is_number).all() else "count")


def heatmap(store: Store, df: pd.DataFrame, y: str, run: str | None = None) -> Figure:
    """The link-load heatmap of one run: per-channel loads from column or
    artefact ``y``, the network rebuilt from the run's topology parameter."""
    import routelab
    from routelab.experiment.linkload import link_load_heatmap

    if run is not None:
        rows = df[df["key"].astype(str).str.startswith(run)]
        if len(rows) != 1:
            raise ConfigError(f"--run '{run}' matches {len(rows)} finished runs; give its key")
    else:
        rows = df[df[y].notna()] if y in df.columns else df
        if not len(rows):
            raise ConfigError(f"no run has '{y}' to draw")
    row = rows.iloc[0]
    loads = row[y] if y in row.index else store.artefact(row["key"], y)
    if loads is None:
        raise ConfigError(f"run {row['key']} has no '{y}'")
    topo = row.get("network.topology")
    if not isinstance(topo, str):
        raise ConfigError("a heatmap needs the run's 'network.topology' parameter")
    net = routelab.topology(topo)
    return link_load_heatmap(net, loads, title=f"{y}, run {row['key']} ({topo})", label=y)


# ---------------------------------------------------------------- entry points


def save(fig: Figure, path: Path) -> Path:
    if path.suffix.lower() not in FORMATS:
        raise ConfigError(f"plot files end in {', '.join(FORMATS)}; got '{path.name}'")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def plot(
    directory: str | Path,
    *,
    y: str,
    x: str | None = None,
    hue: str | None = None,
    facet: str | None = None,
    kind: str = "auto",
    run: str | None = None,
    title: str | None = None,
    logy: bool = False,
    output: Path | None = None,
) -> Path:
    """Draws one figure of an experiment and writes it (png, svg or pdf)."""
    store, df = load_table(directory, y)
    spec = FigureSpec(kind=kind, y=y, x=x, hue=hue, facet=facet, title=title, logy=logy)
    if kind == "heatmap":
        fig = heatmap(store, df, y if y in df.columns else resolve_column(df, y), run)
    else:
        fig = figure(df, spec, store)
    out = output or Path(directory) / "figures" / f"{spec.file_name()}.png"
    return save(fig, out)


def _accepted_in_load_unit(df: pd.DataFrame, cols: set[str]) -> tuple[str, bool]:
    """The accepted-load column in the unit of ``traffic.load``, and whether
    there is one (else flits/node/cycle)."""
    units = set()
    for column in ("traffic.load_unit", "load_unit"):
        if column in cols:
            units = set(df[column].dropna().astype(str))
            break
    unit = units.pop() if len(units) == 1 else "flits"
    column = {
        "flits": "accepted",
        "gbps": "accepted_gbps",
        "bisection": "accepted_normalised",
    }.get(unit)
    if column in cols and df[column].notna().any():
        return column, True
    return "accepted", unit == "flits"


def standard_specs(df: pd.DataFrame, store: Store | None = None) -> list[FigureSpec]:
    """The usual figures of the experiment's kind, from the columns it has."""
    if not len(df):
        return []
    kind = str(df["kind"].iloc[0])
    cols = set(df.columns)
    varying = varying_columns(df)
    seed = _seed_column(df)
    moving = [c for c in varying if c != seed]

    def pick(*names: str) -> str | None:
        for n in names:
            if n in cols:
                return n
        return None

    def category() -> str | None:
        for c in ("routing.algorithm", "network.topology"):
            if c in moving:
                return c
        return moving[0] if moving else pick("routing.algorithm", "network.topology")

    def other(*used: str | None) -> str | None:
        rest = [c for c in moving if c not in used]
        return rest[0] if len(rest) == 1 else None

    specs: list[FigureSpec] = []
    if kind in ("sim", "saturate"):
        load = "traffic.load" if "traffic.load" in cols else pick("load", "offered")
        hue = "routing.algorithm" if "routing.algorithm" in moving else None
        facet = "traffic.pattern" if "traffic.pattern" in moving else None
        swept = load if kind == "sim" else None  # a search's loads are its points
        if hue is not None and _auto_hue(df, [swept, facet], hue) is not None:
            hue = None  # other parameters tell runs apart too: lines named by all of them
        if kind == "sim" and load and "latency_mean" in cols:
            specs.append(
                FigureSpec(
                    "line",
                    "latency_mean",
                    load,
                    hue,
                    facet,
                    "latency against load",
                    logy=True,
                    saturation=True,
                    clip=CLIP,
                )
            )
        if kind == "sim" and {"offered", "accepted"} <= cols:
            # One x quantity per sweep: the load swept, as in the latency
            # figure; accepted in the same unit where the runs give it, so
            # that y = x is the offered load.
            accepted, same = _accepted_in_load_unit(df, cols)
            specs.append(
                FigureSpec(
                    "line",
                    accepted,
                    load or "offered",
                    hue,
                    facet,
                    "accepted against offered load",
                    diagonal=same or not load,
                )
            )
        if kind == "sim" and "latency_histogram" in _artefact_names(df) and load:
            below = load if {"offered", "accepted"} <= cols else None
            specs.append(
                FigureSpec(
                    "cdf",
                    "latency_histogram",
                    None,
                    hue,
                    facet,
                    "latency distribution at the highest load sustained",
                    name="latency-cdf",
                    below_saturation=below,
                )
            )
        if kind == "saturate" and "saturation" in cols:
            x = category()
            if x:
                # A search whose bound was sustained has no saturation: hatched.
                invalid = "saturated" if "saturated" in cols else None
                panel = facet if facet != x else None
                specs.append(
                    FigureSpec(
                        "bar",
                        "saturation",
                        x,
                        other(x, panel),
                        panel,
                        "saturation throughput",
                        invalid=invalid,
                    )
                )
        if kind == "saturate" and "points" in _artefact_names(df):
            for y, title in (
                ("accepted", "accepted against offered load, measured points"),
                ("latency_mean", "latency against offered load, measured points"),
            ):
                specs.append(
                    FigureSpec(
                        "line",
                        y,
                        "offered",
                        hue,
                        facet,
                        title,
                        name=f"points-{y}",
                        explode="points",
                        diagonal=y == "accepted",
                        logy=y != "accepted",
                        saturation=y != "accepted",
                        clip=None if y == "accepted" else CLIP,
                    )
                )
    elif kind == "route":
        x = category()
        for y, title in (("lanes_needed", "lanes needed"), ("avg_hops", "average hops")):
            if x and y in cols:
                lanes = y == "lanes_needed" and "deadlock_free" in cols
                invalid = "deadlock_free" if lanes else None
                specs.append(FigureSpec("bar", y, x, other(x), None, title, invalid=invalid))
    elif kind == "ebb":
        x = category()
        y = pick("avg", "ebb", "mean")
        if x and y:
            specs.append(FigureSpec("bar", y, x, other(x), None, "effective bisection bandwidth"))
        lists = []
        if store is not None:
            for name in _artefact_names(df):
                value = store.artefact(str(df["key"].iloc[0]), name)
                if isinstance(value, list) and value and all(_is_number(v) for v in value):
                    lists.append(name)
        hist_of = lists[0] if lists else y
        if hist_of:
            specs.append(
                FigureSpec(
                    "hist",
                    hist_of,
                    None,
                    x,
                    other(x),
                    "effective bandwidth, histogram",
                    name=f"{hist_of}-hist",
                )
            )
    elif kind == "topo":
        x = category()
        for y in ("diameter", "avg_distance", "bisection_width"):
            if x and y in cols:
                specs.append(FigureSpec("bar", y, x, other(x), None, y.replace("_", " ")))
    return specs


def table_for(store: Store, df: pd.DataFrame, spec: FigureSpec) -> pd.DataFrame:
    """``df`` with the artefact columns ``spec`` needs."""
    return df if spec.explode else with_column(store, df, spec.y)


def standard_figures(directory: str | Path, out_dir: Path, fmt: str = ".png") -> list[Path]:
    """Writes the standard figures of an experiment into ``out_dir``."""
    store, df = load_table(directory)
    paths = []
    for spec in standard_specs(df, store):
        fig = figure(table_for(store, df, spec), spec, store)
        paths.append(save(fig, out_dir / f"{spec.file_name()}{fmt}"))
    if not paths:
        raise ConfigError(
            f"no standard figure fits the results in {directory}; choose one with --x and --y"
        )
    return paths
