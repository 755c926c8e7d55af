"""Geoffray and Hoefler, "Adaptive Routing Strategies for Modern High Performance Networks"
(2008), Section 5, as docs/reproductions/geoffray2008.md describes it. A leaf of the Clos has 16
hosts and 16 uplinks to 16 spines (smaller machines fill fewer leaves); its crossbars are
packet-fair, so head-of-line blocking is the main contention. A bisection pairs random halves by a
random perfect matching; a host's bandwidth is bytes over time, a pattern's the mean over its
hosts. What a run writes is listed in its summary (``bridge.csv``, ``baseline.csv`` and more)."""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from routelab.reproduce import expected
from routelab.reproduce._common import (
    config,
    figure,
    fmt,
    save_figure,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pandas as pd

Rows = list[dict[str, Any]]

NAME = "geoffray2008"
TITLE = "Geoffray, Hoefler: Adaptive Routing Strategies for Modern High Performance Networks (2008)"
PAPER = expected.load(NAME)
BASELINE_MIBS = float(PAPER.statements["baseline_mibs"])
#: The paper's pair bandwidth as a rate: what its hosts move of a 10 Gb/s
#: link (PCIe DMA, one message at a time each way, §5.3).
PAPER_PAIR_BANDWIDTH = f"{BASELINE_MIBS * 2**20 * 8 / 1e9:.4f}Gb/s"
#: The link rate the paper's pair rate is a share of (Myri-10G, §2).
LINK_GBPS = 10.0
LINK_RATE = "10Gb/s"
#: Models of the hosts: (``nic.send_bandwidth``, ``nic.receive_bandwidth``)
#: as the specs give them. ``send``: the NIC reads what it sends from host
#: memory at the pair rate (PCIe reads, each a request and a completion,
#: are the slower direction); ``receive``: it writes what it receives at
#: that rate, so the switch's output to the host backs up behind it.
HOST_MODELS: dict[str, tuple[str, str]] = {
    "send": (PAPER_PAIR_BANDWIDTH, LINK_RATE),
    "ideal": (LINK_RATE, LINK_RATE),
    "receive": (LINK_RATE, PAPER_PAIR_BANDWIDTH),
    "both": (PAPER_PAIR_BANDWIDTH, PAPER_PAIR_BANDWIDTH),
}
HOST_TITLES = {
    "send": "send at pair rate",
    "ideal": "ideal hosts",
    "receive": "receive at pair rate",
    "both": "both at pair rate",
}
#: The model of the main tables and figures. In the full mode's comparison
#: (docs/reproductions/geoffray2008.md) it is the one nearest the paper's
#: 512-host averages that keeps probing's bridge at the paper's 98%.
MAIN_HOSTS = "send"

#: The experiment specs, one per table or figure, each with ``quick`` and
#: ``tiny`` variants: ``routelab sweep specs/geoffray2008/bisect.toml`` runs
#: Figs. 2-6 as any user spec would. ``pair`` is the normalisation (one pair
#: per host model), ``hosts`` the other host models on the first patterns.
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("pair", "bisect", "bridge", "params", "hosts", "flow")

#: Schemes in the order of the tables: the NIC's four modes (routing
#: ``dispersive``) and D-mod-k, a static routing the paper did not run.
SCHEMES = ("static", "random", "adaptive", "probing", "dmodk")
TITLES = {
    "static": "static (per-pair route)",
    "random": "randomized oblivious",
    "adaptive": "adaptive (4, 50%)",
    "probing": "probing adaptive (16, 100%)",
    "dmodk": "static D-mod-k",
}
SHORT = {"dmodk": "D-mod-k"}
COLORS = {
    "static": "tab:gray",
    "random": "tab:orange",
    "adaptive": "tab:blue",
    "probing": "tab:green",
    "dmodk": "tab:purple",
}
COUNTERS = ("dispersions", "probes", "forced_dispersions")
BANDWIDTHS = ("bw_mean_gbps", "bw_min_gbps", "bw_max_gbps")
ROW_FIELDS = ("pattern", "scheme", "hosts", "seed", *BANDWIDTHS, "norm", *COUNTERS, "seconds")
NORMS = ("norm_avg", "norm_min", "norm_max")
STATS_FIELDS = ("scheme", "hosts", "patterns", *NORMS, "mibs_avg", "worst_pair_norm")
HOST_FIELDS = ("pattern", "hosts", "scheme", *HOST_MODELS, "paper")


@dataclass(frozen=True)
class Facts:
    """What a mode ran, read off its run tables: the summary's words."""

    mode: str
    ports: int
    hosts: tuple[int, ...]
    #: Random bisections per size, in the order of ``hosts``.
    patterns: tuple[int, ...]
    #: Messages per pair, by scheme.
    messages: dict[str, int]
    message_bytes: str
    params_hosts: int
    params_patterns: int
    compare_patterns: int
    thresholds: tuple[int, ...]
    probabilities: tuple[float, ...]
    #: Simulations (the flow level aside) and their wall times summed.
    runs: int
    seconds: float

    @classmethod
    def of(cls, mode: str, tables: dict[str, pd.DataFrame]) -> Facts:
        bis, params = tables["bisect"], tables["params"]
        options = [options_of(r) for r in params.to_dict("records")]
        sims = [t for part, t in tables.items() if part != "flow"]
        return cls(
            mode=mode,
            ports=int(re.search(r"ports=(\d+)", bis["network.topology"].iloc[0])[1]),
            hosts=tuple(sorted({hosts_of(t) for t in bis["network.topology"]})),
            patterns=tuple(
                bis.groupby(bis["network.topology"].map(hosts_of))["run.seed"]
                .nunique()
                .sort_index()
            ),
            messages={scheme_of(r): int(r["traffic.messages"]) for r in bis.to_dict("records")},
            message_bytes=str(bis["traffic.message_bytes"].iloc[0]),
            params_hosts=hosts_of(params["network.topology"].iloc[0]),
            params_patterns=params["run.seed"].nunique(),
            compare_patterns=tables["hosts"]["run.seed"].nunique(),
            thresholds=tuple(sorted({o["threshold"] for o in options})),
            probabilities=tuple(sorted({o["probability"] for o in options})),
            runs=sum(len(t) for t in sims),
            seconds=float(sum(t["wall_seconds"].sum() for t in sims)),
        )

    @property
    def messages_text(self) -> str:
        """``8 messages``, or ``4 (static, random, D-mod-k) and 8 (adaptive,
        probing) messages``."""
        by: dict[int, list[str]] = {}
        for scheme in SCHEMES:
            if scheme in self.messages:
                by.setdefault(self.messages[scheme], []).append(SHORT.get(scheme, scheme))
        if len(by) == 1:
            return f"{next(iter(by))} messages"
        return " and ".join(f"{n} ({', '.join(names)})" for n, names in sorted(by.items())) + (
            " messages"
        )


def model_of(send: str, receive: str) -> str:
    """The host model (a key of `HOST_MODELS`) of a run's NIC rates."""
    for model, rates in HOST_MODELS.items():
        if rates == (send, receive):
            return model
    raise ValueError(f"nic rates ({send}, {receive}) are none of the host models {HOST_MODELS}")


def hosts_of(topology: str) -> int:
    return int(re.search(r"hosts=(\d+)", topology)[1])


def bases_of(pair: pd.DataFrame) -> dict[str, float]:
    """One pair's bandwidth (Gb/s) per host model: each model's 100%."""
    return {
        model_of(r["nic.send_bandwidth"], r["nic.receive_bandwidth"]): float(
            r["workload_bandwidth_mean_gbps"]
        )
        for r in pair.to_dict("records")
    }


def scheme_of(run: dict[str, Any]) -> str:
    alg = run["routing.algorithm"]
    return options_of(run).get("mode", alg) if alg == "dispersive" else alg


def options_of(run: dict[str, Any]) -> dict[str, Any]:
    """A run's router options: one column of tables where a [[zip]] varies
    them whole, ``routing.options.KEY`` columns where each is a parameter."""
    whole = run.get("routing.options")
    if isinstance(whole, dict):
        return whole
    prefix = "routing.options."
    return {k.removeprefix(prefix): v for k, v in run.items() if k.startswith(prefix)}


def _count(value: Any) -> int:
    return 0 if value is None or value != value else int(value)  # NaN: no such counter


def rows_of(df: pd.DataFrame, bases: dict[str, float]) -> Rows:
    """A sweep's runs as rows: pattern, scheme, size, seed, host model, the
    pairs' mean, least and most bandwidth, the mean over the model's pair."""
    rows = []
    for r in df.to_dict("records"):
        model = model_of(r["nic.send_bandwidth"], r["nic.receive_bandwidth"])
        options = options_of(r)
        bw = {k: r[f"workload_bandwidth_{k}_gbps"] for k in ("mean", "min", "max")}
        rows.append(
            {
                "pattern": r["traffic.pattern"],
                "scheme": scheme_of(r),
                "hosts": hosts_of(r["network.topology"]),
                "seed": int(r["run.seed"]),
                "host_model": model,
                **{f"bw_{k}_gbps": round(v, 5) for k, v in bw.items()},
                "norm": round(bw["mean"] / bases[model], 5),
                "threshold": options.get("threshold", ""),
                "probability": options.get("probability", ""),
                **{c: _count(r.get(f"counters_{c}")) for c in COUNTERS},
                "seconds": round(r["wall_seconds"], 3),
            }
        )
    return rows


def stats(rows: Rows, pattern: str, base: float) -> Rows:
    """Min, mean and max over a pattern's runs per scheme and size."""
    groups: dict[tuple[str, int], Rows] = {}
    for r in rows:
        if r["pattern"] == pattern:
            groups.setdefault((r["scheme"], r["hosts"]), []).append(r)
    out = []
    for (scheme, hosts), sel in sorted(groups.items()):
        norms = [r["norm"] for r in sel]
        avg = statistics.fmean(norms)
        out.append(
            {
                "scheme": scheme,
                "hosts": hosts,
                "patterns": len(sel),
                "norm_avg": round(avg, 4),
                "norm_min": round(min(norms), 4),
                "norm_max": round(max(norms), 4),
                "mibs_avg": round(avg * BASELINE_MIBS, 1),
                "worst_pair_norm": round(min(r["bw_min_gbps"] for r in sel) / base, 4),
            }
        )
    return out


def _paper_means(scheme: str) -> dict[int, float]:
    """The paper's stated means of a scheme's bisections, by size."""
    return {
        e.keys["hosts"]: e.value
        for e in PAPER.values
        if (e.table, e.metric, e.keys.get("scheme")) == ("stats", "norm_avg", scheme)
        and e.value is not None
    }


def _param_means(prows: Rows) -> dict[tuple[Any, Any], float]:
    """Probing's mean per (threshold, probability) of the parameter study."""
    sel: dict[tuple[Any, Any], list[float]] = {}
    for r in prows:
        sel.setdefault((r["threshold"], r["probability"]), []).append(r["norm"])
    return {k: statistics.fmean(v) for k, v in sel.items()}


def host_rows(rows: Rows, other: Rows, bases: dict[str, float]) -> Rows:
    """Mean normalised bandwidth per pattern, size and scheme under each host
    model, beside the paper's value where it gives one, on the patterns of the
    comparison: ``other`` (the hosts spec) and the main model's runs of the
    same sizes and seeds from ``rows``."""
    shared = {(r["pattern"], r["hosts"], r["seed"]) for r in other}
    by = {MAIN_HOSTS: [r for r in rows if (r["pattern"], r["hosts"], r["seed"]) in shared]}
    for r in other:
        by.setdefault(r["host_model"], []).append(r)
    means = {
        m: {
            (pattern, r["hosts"], r["scheme"]): r["norm_avg"]
            for pattern in ("bisect", "bridge")
            for r in stats(by[m], pattern, bases[m])
        }
        for m in HOST_MODELS
        if m in by
    }
    keys = sorted(
        {k for m in means.values() for k in m}, key=lambda k: (*k[:2], SCHEMES.index(k[2]))
    )
    return [
        {
            "pattern": pattern,
            "hosts": hosts,
            "scheme": scheme,
            **{m: means[m].get((pattern, hosts, scheme), "") for m in means},
            # Fig. 7's text for the bridge (probing 98%, the others about 56%;
            # D-mod-k was not run), the stated averages for bisections.
            "paper": {"probing": 0.98, "dmodk": ""}.get(scheme, 0.56)
            if pattern == "bridge"
            else _paper_means(scheme).get(hosts, ""),
        }
        for pattern, hosts, scheme in keys
    ]


# Plots ---------------------------------------------------------------------

BISECTION_AXIS = "effective bisection bandwidth (% of one pair's)"
HATCHES = ("", "//", "..", "xx", "\\\\")


def _percent_axes(ax, title: str, xlabel: str, ylabel: str = BISECTION_AXIS) -> None:
    """What every figure's axes share: labels, 0 to 110% and a small title."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 110)
    ax.set_title(title, fontsize=9)


def _errorbars(ax, st: Rows, scheme: str, offset: float = 0.0) -> None:
    sel = sorted((r for r in st if r["scheme"] == scheme), key=lambda r: r["hosts"])
    if not sel:
        return
    xs = [r["hosts"] * (1 + offset) for r in sel]
    ys = [100 * r["norm_avg"] for r in sel]
    lo = [100 * (r["norm_avg"] - r["norm_min"]) for r in sel]
    hi = [100 * (r["norm_max"] - r["norm_avg"]) for r in sel]
    ax.errorbar(
        xs, ys, yerr=[lo, hi], marker="o", capsize=3, color=COLORS[scheme], label=TITLES[scheme]
    )


def _finish_bisection(fig, ax, title: str, path: Path) -> None:
    """Figs. 2-6: hosts on a log axis, Karol's bound dotted, the legend, saved."""
    ax.set_xscale("log", base=2)
    ax.axhline(100 * float(PAPER.statements["karol_bound"]), color="gray", ls=":", lw=1)
    _percent_axes(ax, title, "hosts")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    save_figure(fig, path)


def plot_scheme(st: Rows, scheme: str, path: Path, fig_name: str) -> None:
    fig = figure(6.0, 4.0)
    ax = fig.subplots()
    _errorbars(ax, st, scheme)
    for hosts, value in _paper_means(scheme).items():
        ax.plot(hosts, 100 * value, "*", ms=12, color=COLORS[scheme], markeredgecolor="black")
    title = f"{fig_name}: {TITLES[scheme]} (bars: min/max over patterns; stars: paper)"
    _finish_bisection(fig, ax, title, path)


def plot_all(st: Rows, path: Path) -> None:
    fig = figure(7.5, 4.4)
    ax = fig.subplots()
    for i, scheme in enumerate(SCHEMES):
        _errorbars(ax, st, scheme, offset=0.03 * (i - 2))
    title = "Fig. 6: every scheme (dotted: Karol's 58.6% HOL bound of a crossbar)"
    _finish_bisection(fig, ax, title, path)


def plot_bridge(bst: Rows, path: Path) -> None:
    fig = figure(7.5, 4.0)
    ax = fig.subplots()
    sizes = sorted({r["hosts"] for r in bst})
    width = 0.8 / len(SCHEMES)
    for i, scheme in enumerate(SCHEMES):
        sel = {r["hosts"]: r for r in bst if r["scheme"] == scheme}
        xs = [k + (i - 2) * width for k in range(len(sizes))]
        ys = [100 * sel[h]["norm_avg"] if h in sel else 0 for h in sizes]
        style = {"color": COLORS[scheme], "hatch": HATCHES[i], "edgecolor": "white"}
        ax.bar(xs, ys, width, **style, label=TITLES[scheme])
    ax.set_xticks(range(len(sizes)), [str(h) for h in sizes])
    ax.axhline(98, color="tab:green", ls="--", lw=1)
    title = "Fig. 7: bridge pattern (dashed: the paper's 98% for probing)"
    _percent_axes(ax, title, "hosts", "bandwidth (% of one pair's)")
    # Below the axes: inside, the legend would cover bars.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3)
    save_figure(fig, path)


def plot_params(prows: Rows, path: Path) -> None:
    fig = figure(6.0, 4.0)
    ax = fig.subplots()
    means = _param_means(prows)
    thresholds = sorted({r["threshold"] for r in prows})
    probabilities = sorted({r["probability"] for r in prows})
    for prob, style in zip(probabilities, ("--", "-", ":"), strict=False):
        ys = [100 * means.get((thr, prob), float("nan")) for thr in thresholds]
        ax.plot(thresholds, ys, style, marker="o", label=f"probability {prob:.0%}")
    hosts = prows[0]["hosts"] if prows else 0
    title = f"Probing adaptive: parameter study at {hosts} hosts"
    _percent_axes(ax, title, "dispersion threshold (blocked packets)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save_figure(fig, path)


# Summary (the words: specs/geoffray2008/summary.md.j2) --------------------


def _pct(x: Any) -> str:
    return "-" if x is None or x == "" else f"{100 * x:.0f}%"


def _stat(st: Rows, scheme: str, hosts: int, key: str = "norm_avg") -> str:
    return _pct(next((r[key] for r in st if (r["scheme"], r["hosts"]) == (scheme, hosts)), None))


def _hosts_findings(rows: Rows, bases: dict[str, float]) -> list[str]:
    """The host models' comparison read, with its numbers, one line each:
    each interpretation only where the numbers bear it out, none where the
    mode ran too little (specs/geoffray2008/findings.md.j2)."""

    def has(r: dict[str, Any] | None, *models: str) -> bool:
        return r is not None and all(r.get(m, "") != "" for m in models)

    def at(pattern: str, scheme: str, *models: str) -> dict[str, Any] | None:
        """The largest size's row, where it has every one of ``models``."""
        sel = [r for r in rows if (r["pattern"], r["scheme"]) == (pattern, scheme)]
        r = max(sel, key=lambda r: r["hosts"], default=None)
        return r if has(r, *models) else None

    rnd = at("bisect", "random", "ideal", "send") if {"ideal", "send"} <= set(bases) else None
    adaptive = at("bridge", "adaptive", "ideal", "receive")
    probing = [r for r in rows if r["scheme"] == "probing" and has(r, "ideal", "receive")]
    return summary(
        NAME,
        "findings.md.j2",
        rnd=rnd,
        gbps={m: rnd[m] * bases[m] for m in HOST_MODELS if has(rnd, m) and m in bases},
        below=1 - float(PAPER_PAIR_BANDWIDTH.removesuffix("Gb/s")) / LINK_GBPS,
        a=adaptive,
        p=at("bridge", "probing", "ideal", "receive"),
        loss=[r["ideal"] - r["receive"] for r in probing],
        settled=[m for m in ("ideal", "send", "both") if has(adaptive, m) and adaptive[m] >= 0.9],
        rb=at("bridge", "random", "ideal", "send"),
        host_titles=HOST_TITLES,
    ).splitlines()


def summarise(
    cfg: Facts, bases: dict[str, float], st: Rows, bst: Rows, prows: Rows, hrows: Rows, flow: Rows
) -> str:
    bsizes = sorted({r["hosts"] for r in bst})
    models = [m for m in HOST_MODELS if m in bases]
    cols = [*models, "paper"]
    ebb = {(f["hosts"], f["routing"]): f["ebb"] for f in flow}
    published = []
    for e in PAPER.values:
        if e.table != "stats":
            continue
        s, h = e.keys["scheme"], e.keys.get("hosts")
        vals = [r[e.metric] for r in st if r["scheme"] == s and h in (None, r["hosts"])]
        agg = {"min": min, "max": max}.get(e.aggregate, statistics.fmean)
        where = f"{h} hosts" if h is not None else "every size"
        label = f"{s} {e.metric} at {where}: {e.published} ({e.source})"
        published.append([label, _pct(agg(vals) if vals else None)])
    means = _param_means(prows)

    def by_scheme(sizes: Sequence[int], cell: Callable[[str, int], str]) -> list[list[str]]:
        return [[TITLES[s], *(cell(s, h) for h in sizes)] for s in SCHEMES]

    return summary(
        NAME,
        title=TITLE,
        cfg=cfg,
        main=HOST_TITLES[MAIN_HOSTS],
        nic=HOST_MODELS[MAIN_HOSTS],
        base=bases[MAIN_HOSTS],
        models={HOST_TITLES[m]: bases[m] for m in models},
        baseline_mibs=BASELINE_MIBS,
        pair_rate=PAPER_PAIR_BANDWIDTH,
        sizes=[f"{h} hosts" for h in cfg.hosts],
        bsizes=[f"{h} hosts" for h in bsizes],
        means=by_scheme(cfg.hosts, lambda s, h: _stat(st, s, h)),
        spans=by_scheme(
            cfg.hosts, lambda s, h: f"{_stat(st, s, h, 'norm_min')} / {_stat(st, s, h, 'norm_max')}"
        ),
        published=published,
        bridge=by_scheme(bsizes, lambda s, h: _stat(bst, s, h)),
        host_table=[
            [r["pattern"], r["hosts"], TITLES[r["scheme"]], *(_pct(r.get(m)) for m in cols)]
            for r in hrows
        ],
        findings=_hosts_findings(hrows, bases),
        probabilities=[f"p = {p:.0%}" for p in cfg.probabilities],
        params=[[t, *(_pct(means.get((t, p))) for p in cfg.probabilities)] for t in cfg.thresholds],
        flow=[
            [h, fmt(ebb.get((h, "dmodk"))), _stat(st, "dmodk", h)]
            + [fmt(ebb.get((h, "multipath"))), _stat(st, "random", h)]
            for h in cfg.hosts
        ],
    )


# Entry point ---------------------------------------------------------------


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the benchmark into ``out``; returns the path of
    ``summary.md``.

    ``quick``: 16 to 128 hosts, 5 patterns and the full mode's messages per pair; ``tiny``:
    a seconds-long run on a Clos of 8-port crossbars, for tests.
    """
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables = sweep_specs(SPECS, PARTS, cfg.mode, out, cfg.workers, progress)
    facts = Facts.of(cfg.mode, tables)
    bases = bases_of(tables["pair"])
    base = bases[MAIN_HOSTS]
    bis, bri, prows = (rows_of(tables[p], bases) for p in ("bisect", "bridge", "params"))
    hrows = host_rows(bis + bri, rows_of(tables["hosts"], bases), bases)
    ebb = {
        (hosts_of(t["network.topology"]), t["routing.algorithm"]): round(t["avg"], 5)
        for t in tables["flow"].to_dict("records")
    }
    flow = [{"routing": r, "hosts": h, "ebb": v} for (h, r), v in sorted(ebb.items())]
    st, bst = stats(bis, "bisect", base), stats(bri, "bridge", base)
    baseline = [{"pair_gbps": round(base, 5), "paper_mibs": BASELINE_MIBS}]
    for name, fields, rows in (
        ("hosts.csv", HOST_FIELDS, hrows),
        ("bisect.csv", ROW_FIELDS, bis),
        ("bridge.csv", ROW_FIELDS, bri),
        ("stats.csv", STATS_FIELDS, st),
        ("bridge_stats.csv", STATS_FIELDS, bst),
        ("params.csv", ("hosts", "seed", "threshold", "probability", "norm"), prows),
        ("flow.csv", ("routing", "hosts", "ebb"), flow),
        ("baseline.csv", ("pair_gbps", "paper_mibs"), baseline),
    ):
        write_csv(out / name, fields, rows)
    for i, scheme in enumerate(SCHEMES[:4]):  # Figs. 2-5
        plot_scheme(st, scheme, out / f"fig{i + 2}_{scheme}.png", f"Fig. {i + 2}")
    plot_all(st, out / "fig6_all.png")
    plot_bridge(bst, out / "fig7_bridge.png")
    plot_params(prows, out / "params.png")
    path = out / "summary.md"
    path.write_text(summarise(facts, bases, st, bst, prows, hrows, flow))
    write_run_json(
        out / "run.json",
        {
            "reproduction": NAME,
            "mode": cfg.mode,
            "started": started,
            "seconds": round(time.perf_counter() - t0, 2),
            "simulation_seconds": round(facts.seconds, 2),
            "simulations": facts.runs,
            "hosts": list(facts.hosts),
            "patterns": dict(zip(map(str, facts.hosts), facts.patterns, strict=True)),
            "messages": facts.messages,
            "baseline_gbps": round(base, 5),
            "host_model": MAIN_HOSTS,
            "host_models": {m: list(rates) for m, rates in HOST_MODELS.items()},
            "baseline_gbps_per_host_model": {m: round(b, 5) for m, b in bases.items()},
        },
        cfg.workers,
    )
    return path
