"""Geoffray and Hoefler, "Adaptive Routing Strategies for Modern High Performance Networks"
(2008), Section 5, as docs/reproductions/geoffray2008.md describes it. A leaf of the Clos has 16
hosts and 16 uplinks to 16 spines (smaller machines fill fewer leaves); its crossbars are
packet-fair, so head-of-line blocking is the main contention. A bisection pairs random halves by a
random perfect matching; a host's bandwidth is bytes over time, a pattern's the mean over its
hosts. What a run writes is listed in its summary (``bridge.csv``, ``baseline.csv`` and more)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from types import SimpleNamespace
from typing import Any

import pandas as pd

from routelab.experiment.study import (
    config,
    figure,
    fmt,
    save_figure,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)
from routelab.reproduce import published

Rows = list[dict[str, Any]]

NAME = "geoffray2008"
TITLE = "Geoffray, Hoefler: Adaptive Routing Strategies for Modern High Performance Networks (2008)"
PAPER = published(NAME)
BASELINE_MIBS = float(PAPER.statements["baseline_mibs"])
#: The paper's stated means of bisections, by (scheme, hosts); each is a value, not a range.
PAPER_MEANS = PAPER.mapping("stats", "norm_avg", ("scheme", "hosts"))
#: The paper's pair bandwidth as a rate: what its hosts move of a 10 Gb/s link (PCIe DMA, one
#: message at a time each way, §5.3), and the link rate it is a share of (Myri-10G, §2).
PAPER_PAIR_BANDWIDTH = f"{BASELINE_MIBS * 2**20 * 8 / 1e9:.4f}Gb/s"
LINK_GBPS, LINK_RATE = 10.0, "10Gb/s"
#: Models of the hosts: (``nic.send_bandwidth``, ``nic.receive_bandwidth``) as the specs give
#: them. ``send``: the NIC reads what it sends from host memory at the pair rate (PCIe reads, each
#: a request and a completion, are the slower direction); ``receive``: it writes what it receives
#: at that rate, so the switch's output to the host backs up behind it.
HOST_MODELS: dict[str, tuple[str, str]] = {
    "send": (PAPER_PAIR_BANDWIDTH, LINK_RATE),
    "ideal": (LINK_RATE, LINK_RATE),
    "receive": (LINK_RATE, PAPER_PAIR_BANDWIDTH),
    "both": (PAPER_PAIR_BANDWIDTH, PAPER_PAIR_BANDWIDTH),
}
HOST_TITLES = {m: f"{m} at pair rate" for m in HOST_MODELS} | {"ideal": "ideal hosts"}
#: The model of the main tables and figures. In the full mode's comparison
#: (docs/reproductions/geoffray2008.md) it is the one nearest the paper's 512-host averages that
#: keeps probing's bridge at the paper's 98%.
MAIN_HOSTS = "send"

#: The experiment specs, one per table or figure, each with ``quick`` and ``tiny`` variants:
#: ``routelab sweep specs/geoffray2008/bisect.toml`` runs Figs. 2-6 as any user spec would.
#: ``pair`` is the normalisation (one pair per host model), ``hosts`` the other host models on
#: the first patterns.
SPECS = Path(__file__).parent / "specs" / NAME
PARTS = ("pair", "bisect", "bridge", "params", "hosts", "flow")

#: Schemes in the order of the tables: the NIC's four modes (routing ``dispersive``) and D-mod-k,
#: a static routing the paper did not run.
SCHEMES = ("static", "random", "adaptive", "probing", "dmodk")
TITLES = {
    "static": "static (per-pair route)",
    "random": "randomized oblivious",
    "adaptive": "adaptive (4, 50%)",
    "probing": "probing adaptive (16, 100%)",
    "dmodk": "static D-mod-k",
}
COLORS = dict(
    zip(SCHEMES, ("tab:gray", "tab:orange", "tab:blue", "tab:green", "tab:purple"), strict=True)
)
HATCHES = ("", "//", "..", "xx", "\\\\")
COUNTERS = ("dispersions", "probes", "forced_dispersions")
#: The columns of ``bisect.csv`` and ``bridge.csv``, and of ``params.csv``: their rows carry more.
ROW_FIELDS = ("pattern", "scheme", "hosts", "seed", "bw_mean_gbps", "bw_min_gbps", "bw_max_gbps")
ROW_FIELDS += ("norm", *COUNTERS, "seconds")
PARAM_FIELDS = ("hosts", "seed", "threshold", "probability", "norm")
BISECTION_AXIS = "effective bisection bandwidth (% of one pair's)"


class Facts(SimpleNamespace):
    """What a mode ran, read off its run tables: the summary's words. ``patterns``: random
    bisections per size, in the order of ``hosts``; ``messages``: per pair, by scheme; ``runs``
    and ``seconds``: the simulations (the flow level aside) and their wall times summed."""

    @classmethod
    def of(cls, mode: str, tables: dict[str, pd.DataFrame]) -> Facts:
        bis, params = tables["bisect"], tables["params"]
        sizes = bis["network.topology"].map(hosts_of)
        options = [options_of(r) for r in params.to_dict("records")]
        sims = [t for part, t in tables.items() if part != "flow"]
        return cls(
            mode=mode,
            ports=int(re.search(r"ports=(\d+)", bis["network.topology"].iloc[0])[1]),
            hosts=tuple(sorted(set(sizes))),
            patterns=tuple(bis.groupby(sizes)["run.seed"].nunique()),
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
        """``8 messages``, or ``4 (static, random, D-mod-k) and 8 (adaptive, probing) messages``."""
        by: dict[int, list[str]] = {}
        for scheme in (s for s in SCHEMES if s in self.messages):
            by.setdefault(self.messages[scheme], []).append(scheme.replace("dmodk", "D-mod-k"))
        counts = " and ".join(f"{n} ({', '.join(names)})" for n, names in sorted(by.items()))
        return f"{next(iter(by))} messages" if len(by) == 1 else f"{counts} messages"


def model_of(send: str, receive: str) -> str:
    """The host model (a key of `HOST_MODELS`) of a run's NIC rates."""
    for model, rates in HOST_MODELS.items():
        if rates == (send, receive):
            return model
    raise ValueError(f"nic rates ({send}, {receive}) are none of the host models {HOST_MODELS}")


def hosts_of(topology: str) -> int:
    return int(re.search(r"hosts=(\d+)", topology)[1])


def scheme_of(run: dict[str, Any]) -> str:
    alg = run["routing.algorithm"]
    return options_of(run).get("mode", alg) if alg == "dispersive" else alg


def options_of(run: dict[str, Any]) -> dict[str, Any]:
    """A run's router options: a column where a [[zip]] varies them whole, or one per option."""
    whole = run.get("routing.options")
    if isinstance(whole, dict):
        return whole
    prefix = "routing.options."
    return {k.removeprefix(prefix): v for k, v in run.items() if k.startswith(prefix)}


def rows_of(df: pd.DataFrame, bases: dict[str, float]) -> Rows:
    """A sweep's runs as rows: the pairs' mean, least and most bandwidth, the mean over the host
    model's pair (``norm``), the router's options and counters (0 where a run has none)."""
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
                **{c: int(v) if pd.notna(v := r.get(f"counters_{c}")) else 0 for c in COUNTERS},
                "seconds": round(r["wall_seconds"], 3),
            }
        )
    return rows


def stats(rows: Rows, pattern: str, base: float) -> Rows:
    """Min, mean and max over a pattern's runs per scheme and size. Python's `fmean`, `min` and
    `round` over the groups' Python floats: pandas' mean may differ in the last bit."""
    groups = pd.DataFrame(rows).query("pattern == @pattern").groupby(["scheme", "hosts"])
    return [
        {
            "scheme": scheme,
            "hosts": hosts,
            "patterns": len(g),
            "norm_avg": round(fmean(g["norm"]), 4),
            "norm_min": round(min(g["norm"]), 4),
            "norm_max": round(max(g["norm"]), 4),
            "mibs_avg": round(fmean(g["norm"]) * BASELINE_MIBS, 1),
            "worst_pair_norm": round(min(g["bw_min_gbps"]) / base, 4),
        }
        for (scheme, hosts), g in groups
    ]


def host_rows(rows: Rows, other: Rows) -> Rows:
    """Mean normalised bandwidth per pattern, size and scheme under each host model ("" where it
    did not run) and the paper's, on the patterns of the comparison: ``other`` (the hosts spec)
    and the main model's runs of the same sizes and seeds in ``rows``."""
    other = pd.DataFrame(other)
    shared = other[["pattern", "hosts", "seed"]].drop_duplicates()
    main = pd.DataFrame(rows).merge(shared).assign(host_model=MAIN_HOSTS)
    df = pd.concat([main, other]).query("pattern in ('bisect', 'bridge')")
    g = df.groupby(["pattern", "hosts", "scheme", "host_model"])["norm"]
    means = g.agg(lambda v: round(fmean(v), 4)).unstack().reindex(columns=list(HOST_MODELS))
    out = means.astype(object).fillna("").reset_index().to_dict("records")
    for r in out:
        # Fig. 7's text for the bridge (probing 98%, the others about 56%;
        # D-mod-k was not run), the stated averages for bisections.
        bridge = {"probing": 0.98, "dmodk": ""}.get(r["scheme"], 0.56)
        stated = PAPER_MEANS.get((r["scheme"], r["hosts"]), "")
        r["paper"] = bridge if r["pattern"] == "bridge" else stated
    return sorted(out, key=lambda r: (r["pattern"], r["hosts"], SCHEMES.index(r["scheme"])))


def _finish(ax, path: Path, title: str, xlabel: str, ylabel=BISECTION_AXIS, grid=True, **legend):
    """What every figure shares: labels, 0 to 110%, a small title, the legend; then saved."""
    ax.set(xlabel=xlabel, ylabel=ylabel, ylim=(0, 110))
    ax.set_title(title, fontsize=9)
    if grid:
        ax.grid(alpha=0.3)
    ax.legend(**legend)
    save_figure(ax.figure, path)


def plot_bisection(st: Rows, schemes: tuple[str, ...], path: Path, title: str) -> None:
    """Figs. 2-6: the mean over patterns by size, bars from least to most, hosts on a log axis,
    Karol's bound dotted. One scheme has the paper's means as stars; several sit side by side."""
    alone = len(schemes) == 1
    ax = (figure(6.0, 4.0) if alone else figure(7.5, 4.4)).subplots()
    for i, scheme in enumerate(schemes):
        offset = 0.0 if alone else 0.03 * (i - 2)
        if sel := sorted((r for r in st if r["scheme"] == scheme), key=lambda r: r["hosts"]):
            xs = [r["hosts"] * (1 + offset) for r in sel]
            lo = [100 * (r["norm_avg"] - r["norm_min"]) for r in sel]
            hi = [100 * (r["norm_max"] - r["norm_avg"]) for r in sel]
            style = {"marker": "o", "capsize": 3, "color": COLORS[scheme], "label": TITLES[scheme]}
            ax.errorbar(xs, [100 * r["norm_avg"] for r in sel], yerr=[lo, hi], **style)
        for hosts, value in [(h, v) for (s, h), v in PAPER_MEANS.items() if s == scheme and alone]:
            ax.plot(hosts, 100 * value, "*", ms=12, color=COLORS[scheme], markeredgecolor="black")
    ax.set_xscale("log", base=2)
    ax.axhline(100 * float(PAPER.statements["karol_bound"]), color="gray", ls=":", lw=1)
    _finish(ax, path, title, "hosts", fontsize=8, loc="lower left")


def plot_bridge(bst: Rows, path: Path) -> None:
    ax = figure(7.5, 4.0).subplots()
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
    # The legend below the axes: inside, it would cover bars.
    legend = {"fontsize": 7, "loc": "upper center", "bbox_to_anchor": (0.5, -0.16), "ncol": 3}
    _finish(ax, path, title, "hosts", "bandwidth (% of one pair's)", grid=False, **legend)


def plot_params(prows: Rows, means: dict[tuple[Any, Any], float], path: Path) -> None:
    ax = figure(6.0, 4.0).subplots()
    thresholds = sorted({r["threshold"] for r in prows})
    probabilities = sorted({r["probability"] for r in prows})
    for prob, style in zip(probabilities, ("--", "-", ":"), strict=False):
        ys = [100 * means.get((thr, prob), float("nan")) for thr in thresholds]
        ax.plot(thresholds, ys, style, marker="o", label=f"probability {prob:.0%}")
    title = f"Probing adaptive: parameter study at {prows[0]['hosts'] if prows else 0} hosts"
    _finish(ax, path, title, "dispersion threshold (blocked packets)", fontsize=8)


def _pct(x: Any) -> str:
    return "-" if x is None or x == "" else f"{100 * x:.0f}%"


def _hosts_findings(rows: Rows, bases: dict[str, float]) -> list[str]:
    """The host models' comparison read, a line each (specs/geoffray2008/findings.md.j2): each
    interpretation only where the numbers bear it out, none where the mode ran too little."""

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
        SPECS,
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


def summarise(facts: Facts, bases, st: Rows, bst: Rows, pmeans, hrows: Rows, ebb) -> str:
    """``summary.md``; ``pmeans``: probing's mean per (threshold, probability); ``ebb``: the flow
    level's bisection bandwidth per (hosts, routing)."""
    published = []
    for e in (e for e in PAPER.values if e.table == "stats"):
        s, h = e.keys["scheme"], e.keys.get("hosts")
        vals = [r[e.metric] for r in st if r["scheme"] == s and h in (None, r["hosts"])]
        agg = {"min": min, "max": max}.get(e.aggregate, fmean)
        where = f"{h} hosts" if h is not None else "every size"
        label = f"{s} {e.metric} at {where}: {e.published} ({e.source})"
        published.append([label, _pct(agg(vals) if vals else None)])
    cols = [*(m for m in HOST_MODELS if m in bases), "paper"]
    bsizes = sorted({r["hosts"] for r in bst})

    def stat(s: str, h: int, key: str = "norm_avg", rows: Rows = st) -> str:
        return _pct(next((r[key] for r in rows if r["scheme"] == s and r["hosts"] == h), None))

    def by_scheme(sizes, cell) -> list[list[str]]:
        return [[TITLES[s], *(cell(s, h) for h in sizes)] for s in SCHEMES]

    return summary(
        SPECS,
        title=TITLE,
        cfg=facts,
        main=HOST_TITLES[MAIN_HOSTS],
        nic=HOST_MODELS[MAIN_HOSTS],
        base=bases[MAIN_HOSTS],
        models={HOST_TITLES[m]: bases[m] for m in cols[:-1]},
        baseline_mibs=BASELINE_MIBS,
        pair_rate=PAPER_PAIR_BANDWIDTH,
        sizes=[f"{h} hosts" for h in facts.hosts],
        bsizes=[f"{h} hosts" for h in bsizes],
        means=by_scheme(facts.hosts, stat),
        spans=by_scheme(
            facts.hosts, lambda s, h: f"{stat(s, h, 'norm_min')} / {stat(s, h, 'norm_max')}"
        ),
        published=published,
        bridge=by_scheme(bsizes, lambda s, h: stat(s, h, rows=bst)),
        host_table=[
            [r["pattern"], r["hosts"], TITLES[r["scheme"]], *(_pct(r[m]) for m in cols)]
            for r in hrows
        ],
        findings=_hosts_findings(hrows, bases),
        probabilities=[f"p = {p:.0%}" for p in facts.probabilities],
        params=[
            [t, *(_pct(pmeans.get((t, p))) for p in facts.probabilities)] for t in facts.thresholds
        ],
        flow=[
            [h, fmt(ebb.get((h, "dmodk"))), stat("dmodk", h)]
            + [fmt(ebb.get((h, "multipath"))), stat("random", h)]
            for h in facts.hosts
        ],
    )


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs (or resumes) the benchmark into ``out``; returns the path of ``summary.md``. ``quick``:
    16 to 128 hosts, 5 patterns and the full mode's messages per pair; ``tiny``: a seconds-long
    run on a Clos of 8-port crossbars, for tests."""
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    tables = sweep_specs(SPECS, PARTS, cfg.mode, out, cfg.workers, progress)
    facts = Facts.of(cfg.mode, tables)
    pair = tables["pair"]
    models = map(model_of, pair["nic.send_bandwidth"], pair["nic.receive_bandwidth"])
    bases = dict(zip(models, pair["workload_bandwidth_mean_gbps"].tolist(), strict=True))
    base = bases[MAIN_HOSTS]
    bis, bri, prows, other = (rows_of(tables[p], bases) for p in PARTS[1:5])
    pmeans = pd.DataFrame(prows).groupby(["threshold", "probability"])["norm"].agg(fmean).to_dict()
    ebb = {
        (hosts_of(t["network.topology"]), t["routing.algorithm"]): round(t["avg"], 5)
        for t in tables["flow"].to_dict("records")
    }
    csvs = {
        "hosts": (hrows := host_rows(bis + bri, other)),
        "bisect": bis,
        "bridge": bri,
        "stats": (st := stats(bis, "bisect", base)),
        "bridge_stats": (bst := stats(bri, "bridge", base)),
        "params": prows,
        "flow": [{"routing": r, "hosts": h, "ebb": v} for (h, r), v in sorted(ebb.items())],
        "baseline": [{"pair_gbps": round(base, 5), "paper_mibs": BASELINE_MIBS}],
    }
    fields = {"bisect": ROW_FIELDS, "bridge": ROW_FIELDS, "params": PARAM_FIELDS}
    for name, rows in csvs.items():
        write_csv(out / f"{name}.csv", fields.get(name), rows)
    for i, scheme in enumerate(SCHEMES[:4], start=2):  # Figs. 2-5
        title = f"Fig. {i}: {TITLES[scheme]} (bars: min/max over patterns; stars: paper)"
        plot_bisection(st, (scheme,), out / f"fig{i}_{scheme}.png", title)
    title = "Fig. 6: every scheme (dotted: Karol's 58.6% HOL bound of a crossbar)"
    plot_bisection(st, SCHEMES, out / "fig6_all.png", title)
    plot_bridge(bst, out / "fig7_bridge.png")
    plot_params(prows, pmeans, out / "params.png")
    path = out / "summary.md"
    path.write_text(summarise(facts, bases, st, bst, pmeans, hrows, ebb))
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
