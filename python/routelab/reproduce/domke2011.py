"""Domke, Hoefler and Nagel (2011), "Deadlock-Free Oblivious Routing for Arbitrary Topologies",
the simulated part of Sections IV and V (outputs and specs: docs/reproductions/domke2011.md).
Kautz(b, n) is read as the usual Kautz graph of degree b and diameter n, words of n symbols and
(b+1) b^(n-1) switches: ``kautz:b=b,n=n-1`` (routelab's ``n=N`` has words of N+1 symbols). Every
Table I Kautz network then fills its 36-port switches closely (up to 35 ports), stepping to the
next (b, n) where the ports run out; the other reading would put 4,096 endpoints on 1,512
switches of 15 used ports."""

from __future__ import annotations

import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import routelab
from routelab.reproduce import expected
from routelab.reproduce._common import (
    figure,
    fmt,
    summary,
    sweep_specs,
    write_csv,
    write_run_json,
)

NAME = "domke2011"
SPECS = Path(__file__).parent / "specs"
TITLE = "Domke, Hoefler, Nagel: Deadlock-Free Oblivious Routing for Arbitrary Topologies (2011)"
MAX_LANES = 15
SEED = 1


@dataclass(frozen=True)
class TableRow:
    """One row of Table I: the endpoints and the three networks built for them."""

    endpoints: int
    xgft_m: tuple[int, ...]
    xgft_w: tuple[int, ...]
    kautz_b: int
    kautz_n: int
    kary_k: int
    kary_n: int

    def spec(self, family: str) -> str:
        m, w = ("x".join(map(str, v)) for v in (self.xgft_m, self.xgft_w))
        keys = {
            "xgft": f"m={m},w={w}",
            "kautz": f"b={self.kautz_b},n={self.kautz_n - 1}",
            "kary-ntree": f"k={self.kary_k},n={self.kary_n}",
        }
        return f"{family}:{keys[family]},terminals={self.endpoints}"

    def paper_name(self, family: str) -> str:
        m, w = (",".join(map(str, v)) for v in (self.xgft_m, self.xgft_w))
        if family == "xgft":
            return f"XGFT({len(self.xgft_m)}; {m}; {w})"
        if family == "kautz":
            return f"Kautz({self.kautz_b}, {self.kautz_n})"
        return f"{self.kary_k}-ary {self.kary_n}-tree"


TABLE_I: tuple[TableRow, ...] = (
    TableRow(64, (6,), (3,), 2, 2, 6, 2),
    TableRow(128, (10,), (5,), 2, 2, 10, 2),
    TableRow(256, (16,), (8,), 2, 3, 16, 2),
    TableRow(512, (6, 6), (3, 3), 3, 3, 6, 3),
    TableRow(1024, (10, 10), (5, 5), 3, 3, 10, 3),
    TableRow(2048, (14, 14), (7, 7), 4, 3, 14, 3),
    TableRow(4096, (18, 18), (9, 9), 6, 3, 18, 3),
)

FAMILIES = ("xgft", "kautz", "kary-ntree")
FAMILY_TITLES = {
    "xgft": "XGFT (Figure 5)",
    "kautz": "Kautz (Figure 6)",
    "kary-ntree": "k-ary n-tree",
}
TREE_ENGINES = ("minhop", "updown", "sssp", "dfsssp", "lash", "dmodk", "dor", "multipath")
# Engines that promise deadlock freedom (with the lanes they report).
DEADLOCK_FREE_ENGINES = ("updown", "dfsssp", "lash", "dmodk")
HEURISTICS = ("weakest", "first", "heaviest", "online")
# Switch sizes of the heuristics' random networks: 32 ports as in Figure 9
# (links drawn freely), and 20, where 128 links use every port (4-regular).
HEURISTIC_PORTS = (32, 20)
TIME_ENGINES = ("minhop", "sssp", "dfsssp", "updown", "lash", "dmodk")
RANDOM_TIME_ENGINES = ("minhop", "sssp", "dfsssp", "dfsssp-online", "updown", "lash")
# (engine, heuristic) of Figure 9: the paper's two, and DFSSSP's online variant
# beside them; LANE_SERIES names them as the tables and plots do.
FIG9_SERIES = (("dfsssp", "weakest"), ("lash", ""), ("dfsssp", "online"))
LANE_SERIES = ("dfsssp", "lash", "dfsssp-online")

# What the paper states in its text (figures give no printed values), from
# papers/domke2011.toml.
PAPER = expected.load(NAME)
PAPER_HEURISTIC_RANGES = {
    e.keys["heuristic"]: (int(e.low), int(e.high))
    for e in PAPER.values
    if e.table == "heuristics" and e.low is not None and e.high is not None
}
# The derived numbers the paper states (claims.csv), by claim.
PAPER_CLAIMS = {e.keys["claim"]: e.value for e in PAPER.values if e.table == "claims"}
PAPER_DFSSSP_SECONDS_4096 = PAPER.find(
    "routing_time", "seconds", series="kary-ntree", endpoints=4096, engine="dfsssp"
).value


@dataclass(frozen=True)
class Config:
    mode: str
    max_endpoints: int
    patterns: int
    multipath_max_endpoints: int
    memory_spec: str
    workers: int = 2

    @property
    def table(self) -> tuple[TableRow, ...]:
        return tuple(r for r in TABLE_I if r.endpoints <= self.max_endpoints)


# mode: largest Table I network, patterns, largest multipath network, and the
# Table I row whose k-ary n-tree the memory is measured on.
MODES = {"tiny": (512, 20, 256, 0), "quick": (1024, 300, 1024, 4), "full": (4096, 1000, 1024, 6)}


def config(quick: bool = False, tiny: bool = False, workers: int = 2) -> Config:
    """The parameters of a full, ``quick`` or ``tiny`` (test-sized) run."""
    mode = "tiny" if tiny else "quick" if quick else "full"
    top, patterns, multipath, memory = MODES[mode]
    return Config(mode, top, patterns, multipath, TABLE_I[memory].spec("kary-ntree"), workers)


# --- Run tables as CSV rows ---------------------------------------------------
# How a measured column becomes a CSV value, by field; any other: seconds, to the microsecond.
_CONVERT: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("lanes_used", "lanes_needed", "switches"), int),
    **dict.fromkeys(("deadlock_free", "minimal"), bool),
    **dict.fromkeys(("ebb_avg", "ebb_min", "ebb_max"), float),
    "avg_hops": lambda v: round(float(v), 4),
}


def _record(fields: Sequence[str], r: dict[str, Any], measured: str, **keys: Any) -> dict[str, Any]:
    """Run ``r`` as a CSV row of ``fields``: its spec, engine and status, ``keys``, and if it
    succeeded the ``measured`` fields (``field`` or ``field=run column``, converted by
    ``_CONVERT``), else the first line of its error."""
    rec: dict[str, Any] = dict.fromkeys(fields, "")
    rec.update(spec=r["network.topology"], engine=r["routing.algorithm"], status=r["status"])
    rec.update(keys)
    if r["status"] == "ok":
        for field, _, column in (m.partition("=") for m in measured.split()):
            rec[field] = _CONVERT.get(field, lambda v: round(float(v), 6))(r[column or field])
    else:
        rec["error"] = next(iter(str(r.get("error") or "").splitlines()), "")
    return rec


def _shape(spec: str) -> dict[str, str]:
    """The keys of a topology spec: ``random:switches=64,...`` -> {"switches": "64", ...}."""
    return dict(kv.split("=") for kv in spec.split(":", 1)[1].split(","))


# --- Experiment 1: effective bisection bandwidth (Figures 5 and 6) ------------
EBB_FIELDS = (
    *("family", "endpoints", "paper_topology", "spec", "switches", "max_switch_ports", "engine"),
    *("status", "error", "lanes_used", "lanes_needed", "deadlock_free", "minimal", "avg_hops"),
    *("route_seconds", "ebb_avg", "ebb_min", "ebb_max", "patterns", "ebb_seconds"),
)
EBB_MEASURED = (
    "lanes_used lanes_needed deadlock_free minimal avg_hops route_seconds ebb_avg=avg ebb_min=min "
    "ebb_max=max ebb_seconds=seconds"
)
# The bandwidth grid is a sweep spec (specs/domke2011/ebb.toml, with multipath
# in a companion kept to smaller networks; each with quick and tiny variants),
# run with routelab.sweep into OUT/ebb/ and OUT/ebb-multipath/: a second run
# resumes and skips what is done.
EBB_SPECS = ("ebb", "ebb-multipath")


def ebb_experiments(cfg: Config) -> dict[str, Any]:
    """The bandwidth sweeps of ``cfg`` by output subdirectory: the spec files
    in full mode, their ``quick`` or ``tiny`` variants in the other modes."""
    from routelab.experiment import spec as specs

    variant = None if cfg.mode == "full" else cfg.mode
    return {sub: specs.load(SPECS / NAME / f"{sub}.toml", variant=variant) for sub in EBB_SPECS}


def sweep_ebb(cfg: Config, out: Path, quiet: bool = True) -> list[Any]:
    """Runs (or resumes) the bandwidth sweeps into ``out``/ebb*; their outcomes."""
    return [
        routelab.sweep(exp, out / sub, workers=cfg.workers, quiet=quiet)
        for sub, exp in ebb_experiments(cfg).items()
    ]


@functools.cache
def _switches(spec: str) -> dict[str, int]:
    net = routelab.topology(spec)
    ports = max(p for kind, _, _, _, p in net.nodes if kind == "switch")
    return {"switches": len(net.switches), "max_switch_ports": ports}


def _ebb_rows(out: Path, cfg: Config) -> list[dict[str, Any]]:
    """The sweeps' run tables as the rows of ``ebb.csv``."""
    from routelab.experiment.store import Store

    where = {row.spec(f): (f, row) for row in TABLE_I for f in FAMILIES}
    rows = []
    for sub in EBB_SPECS:
        if not (out / sub / "spec.toml").is_file():
            continue
        for r in Store.open(out / sub).table().to_dict("records"):
            spec = r["network.topology"]
            family, row = where[spec]
            keys = {"family": family, "endpoints": row.endpoints, "patterns": r["ebb.patterns"]}
            keys |= {"paper_topology": row.paper_name(family)} | _switches(spec)
            rows.append(_record(EBB_FIELDS, r, EBB_MEASURED, **keys))
    rank = {x: i for i, x in enumerate(FAMILIES + TREE_ENGINES)}
    rows.sort(key=lambda r: (rank[r["family"]], r["endpoints"], rank.get(r["engine"], 99)))
    return rows


def run_ebb(cfg: Config, out: Path, progress: bool) -> list[dict[str, Any]]:
    sweep_ebb(cfg, out, quiet=not progress)
    return _ebb_rows(out, cfg)


SPREAD_FIELDS = ("spec", "engine", "top_switches", "tops_used", "level1_used", "tops_per_level1")
SPREAD_ENGINES = ("minhop", "updown", "sssp", "dmodk")


def _top_spread(spec: str, engine: str) -> dict[str, Any]:
    """On a 2-level XGFT with leaf switches: how many top switches carry the
    traffic from the terminals of leaf 0 to every terminal outside its level-1
    subtree, in all and per level-1 switch it leaves through."""
    net = routelab.topology(spec)
    m, w, t = (net.structure[k] for k in ("m", "w", "leaf_terminals"))
    leaves = math.prod(m)
    first = [x * (t // leaves) + min(x, t % leaves) for x in range(leaves + 1)]
    routes = routelab.route(net, engine)
    per_level1: dict[int, set[int]] = defaultdict(set)
    for src in range(first[1]):
        for dst in range(first[m[0]], t):
            # terminal, leaf, level-1 switch, top switch, ...
            path = routes.path(src, dst, names=False)
            per_level1[path[2]].add(path[3])
    counts = [len(v) for v in per_level1.values()]
    return {
        "spec": spec,
        "engine": engine,
        "top_switches": math.prod(w),
        "tops_used": len(set().union(*per_level1.values())),
        "level1_used": len(per_level1),
        "tops_per_level1": round(statistics.fmean(counts), 2) if counts else 0,
    }


def run_top_spread(cfg: Config) -> list[dict[str, Any]]:
    """The route spread of each engine on the largest 2-level XGFT of ``cfg``,
    the engines on ``cfg.workers`` threads (routing releases the GIL)."""
    rows = [r for r in cfg.table if len(r.xgft_m) == 2]
    if not rows:
        return []
    spec = rows[-1].spec("xgft")
    with ThreadPoolExecutor(max_workers=max(1, cfg.workers)) as pool:
        return list(pool.map(lambda engine: _top_spread(spec, engine), SPREAD_ENGINES))


# --- Experiments 2 and 3: lanes on random networks (Figure 9, Section IV) -----
LANE_FIELDS = (
    *("experiment", "spec", "switches", "ports", "links", "seed", "engine", "heuristic"),
    *("status", "lanes_needed", "deadlock_free", "route_seconds", "error"),
)
_NEEDS = re.compile(r"needs (at least )?(\d+) lanes")
#: The lane experiments' specs (``specs/domke2011/``), by their output
#: subdirectory: Figure 9 and the cycle-breaking heuristics.
LANE_SPECS = ("lanes", "heuristics")


def _series(r: dict[str, Any]) -> str:
    return "dfsssp-online" if r["heuristic"] == "online" else r["engine"]


def _lane_rows(df: Any, experiment: str) -> list[dict[str, Any]]:
    """A lane sweep's runs as rows of ``lanes_random.csv`` or
    ``heuristics.csv``. A run that needed more than the lanes allowed
    failed; its error says how many the heuristic needed."""
    rows = []
    for r in df.to_dict("records"):
        shape = _shape(r["network.topology"])
        needs = _NEEDS.search(str(r.get("error") or ""))
        keys = {k: int(shape[k]) for k in ("switches", "ports", "links", "seed")}
        keys["experiment"] = "fig9" if experiment == "lanes" else experiment
        keys["heuristic"] = r["routing.heuristic"] if r["routing.algorithm"] == "dfsssp" else ""
        keys["lanes_needed"] = int(needs.group(2)) if needs else ""
        rows.append(_record(LANE_FIELDS, r, "lanes_needed deadlock_free route_seconds", **keys))
    # by Figure 9's series and the heuristics (each alone)
    rank = {s: i for i, s in enumerate(FIG9_SERIES)} | {h: i for i, h in enumerate(HEURISTICS)}

    def key(r: dict[str, Any]) -> tuple:
        series = rank.get((r["engine"], r["heuristic"]), 0)
        return -r["ports"], r["links"], r["seed"], series, rank.get(r["heuristic"], 0)

    return sorted(rows, key=key)


def run_lanes(cfg: Config, out: Path, progress: bool) -> dict[str, list[dict[str, Any]]]:
    """Runs (or resumes) the lane sweeps into ``out``/lanes and
    ``out``/heuristics; their rows."""
    accept = ("ok", "failed")
    tables = sweep_specs(SPECS / NAME, LANE_SPECS, cfg.mode, out, cfg.workers, progress, accept)
    return {part: _lane_rows(df, part) for part, df in tables.items()}


# --- Experiment 4: routing time (Figure 7) and memory -------------------------
TIME_FIELDS = (
    *("series", "endpoints", "spec", "switches", "engine", "status", "seconds", "wall_seconds"),
    *("repeats", "lanes_needed", "error"),
)
MEMORY_FIELDS = ("spec", "engine", "extra_mb", "peak_mb", "seconds", "error")
#: The routing-time specs (``specs/domke2011/``) by output subdirectory:
#: k-ary n-trees (Figure 7) and random networks, one routing at a time.
TIMING_SPECS = ("timing", "timing-random")


def _time_rows(df: Any) -> list[dict[str, Any]]:
    """A timing sweep's runs as rows of ``routing_time.csv``, in the order of
    the paper's series: by size, then engine."""
    rows = []
    measured = "switches seconds=route_seconds wall_seconds=route_wall_seconds lanes_needed"
    for r in df.to_dict("records"):
        shape = _shape(r["network.topology"])
        random_net = r["network.topology"].startswith("random:")
        n = int(shape["switches"]) * int(shape["hosts"]) if random_net else int(shape["terminals"])
        online = r["routing.algorithm"] == "dfsssp" and r.get("routing.heuristic") == "online"
        keys = {"series": "random" if random_net else "kary-ntree", "endpoints": n}
        keys |= {"engine": "dfsssp-online"} if online else {}
        rows.append(_record(TIME_FIELDS, r, measured, repeats=int(r["route.repeats"]), **keys))
    # "kary-ntree" sorts before "random"
    order = {"kary-ntree": TIME_ENGINES, "random": RANDOM_TIME_ENGINES}
    rows.sort(key=lambda r: (r["series"], r["endpoints"], order[r["series"]].index(r["engine"])))
    return rows


# VmHWM belongs to the new process image (ru_maxrss would carry the parent's
# peak across exec); writing 5 to clear_refs resets it to the current size, so
# the peak measured is the routing's.
_MEMORY_SCRIPT = """
import json, sys, routelab
def kib(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key + ":"))
net = routelab.topology(sys.argv[1])
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
base = kib("VmRSS")
routes = routelab.route(net, sys.argv[2], max_lanes=15)
print(json.dumps({"base_kib": base, "peak_kib": kib("VmHWM"), "seconds": routes.seconds}))
"""


def _memory(spec: str, engine: str) -> dict[str, Any]:
    """Peak memory of one routing in a fresh process, above the network's (Linux)."""
    run = {"spec": spec, "engine": engine}
    if not Path("/proc/self/status").exists():
        return {**run, "error": "needs /proc (Linux)"}
    command = [sys.executable, "-c", _MEMORY_SCRIPT, spec, engine]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        return {**run, "error": proc.stderr.strip()[-300:]}
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        **run,
        "extra_mb": round((m["peak_kib"] - m["base_kib"]) / 1024, 1),
        "peak_mb": round(m["peak_kib"] / 1024, 1),
        "seconds": round(m["seconds"], 3),
    }


def run_timing(cfg: Config, out: Path, progress: bool) -> tuple[list[dict[str, Any]], list[dict]]:
    """Runs (or resumes) the timing sweeps into ``out``/timing and
    ``out``/timing-random with one worker, so that timings do not compete
    with each other; then SSSP's and DFSSSP's memory, one fresh process after the other."""
    accept = ("ok", "failed")
    tables = sweep_specs(SPECS / NAME, TIMING_SPECS, cfg.mode, out, 1, progress, accept)
    rows = [r for df in tables.values() for r in _time_rows(df)]
    return rows, [_memory(cfg.memory_spec, e) for e in ("sssp", "dfsssp")]


# --- Plots --------------------------------------------------------------------
def _ok(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["status"] == "ok"]


# One colour per engine in every figure, in the order of TREE_ENGINES.
_PALETTE = "blue orange green red purple brown grey pink olive"
COLORS = {
    e: f"tab:{c}" for e, c in zip((*TREE_ENGINES, "dfsssp-online"), _PALETTE.split(), strict=True)
}


def plot_ebb(rows: list[dict[str, Any]], family: str, path: Path) -> None:
    fam = [r for r in rows if r["family"] == family]
    sizes = sorted({r["endpoints"] for r in fam})
    ok = {(r["endpoints"], r["engine"]): r for r in _ok(fam)}
    engines = [e for e in TREE_ENGINES if any(k[1] == e for k in ok)]
    fig = figure(layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(engines))
    for j, engine in enumerate(engines):
        at = [(i, ok[t, engine]) for i, t in enumerate(sizes) if (t, engine) in ok]
        low = [r["ebb_avg"] - r["ebb_min"] for _, r in at]
        high = [r["ebb_max"] - r["ebb_avg"] for _, r in at]
        ax.bar(
            [i - 0.4 + width * (j + 0.5) for i, _ in at],
            [r["ebb_avg"] for _, r in at],
            width,
            yerr=[low, high],
            capsize=1.5,
            error_kw={"elinewidth": 0.7, "ecolor": "0.35"},
            color=COLORS.get(engine),
            label=engine,
        )
    ax.set_xticks(range(len(sizes)), [str(t) for t in sizes])
    ax.set(
        xlabel="endpoints",
        ylabel="effective bisection bandwidth (fraction of link)",
        ylim=(0, 1.05),
        title=f"{FAMILY_TITLES[family]}: ORCS metric, random bisections (min-max whiskers)",
    )
    ax.legend(ncols=4, fontsize="small")
    fig.savefig(path, dpi=120)


def _lane_stats(rows: list[dict[str, Any]], key: Callable[[dict], Any]) -> dict[Any, dict]:
    """min/avg/max of lanes_needed per key; failures count with the lanes their
    message names (at least 16)."""
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    out = {}
    for k, rs in groups.items():
        vals = [int(r["lanes_needed"]) for r in rs if r["lanes_needed"] != ""]
        out[k] = {"n": len(rs), "failed": sum(r["status"] != "ok" for r in rs)}
        out[k] |= {"deadlock_free": all(r["deadlock_free"] is True for r in _ok(rs))}
        stats = (min(vals), statistics.fmean(vals), max(vals)) if vals else (None,) * 3
        out[k] |= dict(zip(("min", "avg", "max"), stats, strict=True))
    return out


def plot_lanes_random(stats: dict[Any, dict], path: Path) -> None:
    """Figure 9 from its lane statistics by (series, links): ``Results.fig9``."""
    fig = figure(layout="constrained")
    ax = fig.add_subplot()
    for engine in LANE_SERIES:
        links = sorted(k[1] for k in stats if k[0] == engine)
        s = [stats[(engine, x)] for x in links]
        color = COLORS[engine]
        ax.plot(links, [v["avg"] for v in s], "o-", color=color, label=f"{engine} average")
        lo, hi = [v["min"] for v in s], [v["max"] for v in s]
        ax.fill_between(links, lo, hi, color=color, alpha=0.2, label=f"{engine} min-max")
    ax.axhline(MAX_LANES, color="grey", lw=0.8, ls=":")
    ax.set(
        xlabel="switch-to-switch links (128 switches, 32 ports, 16 endpoints each)",
        ylabel="virtual lanes needed",
        title="Lanes for deadlock freedom on random networks (Figure 9)",
    )
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=120)


def plot_heuristics(rows: list[dict[str, Any]], path: Path) -> None:
    from matplotlib.patches import Rectangle

    fig = figure(6.5, 4.0, layout="constrained")
    ax = fig.add_subplot()
    for i, h in enumerate(HEURISTICS):
        if h in PAPER_HEURISTIC_RANGES:
            lo, hi = PAPER_HEURISTIC_RANGES[h]
            box = Rectangle((i - 0.4, lo - 0.25), 0.8, hi - lo + 0.5, color="tab:green", alpha=0.15)
            ax.add_patch(box)
        for k, ports in enumerate(HEURISTIC_PORTS):
            counts: dict[int, int] = defaultdict(int)
            for r in rows:
                if r["heuristic"] == h and r["ports"] == ports and r["lanes_needed"] != "":
                    counts[int(r["lanes_needed"])] += 1
            if counts:
                ax.scatter(
                    [i + 0.2 * (k - 0.5)] * len(counts),
                    list(counts),
                    s=[20 + 8 * c for c in counts.values()],
                    color=("tab:blue", "tab:red")[k],
                    zorder=3,
                    label=f"{ports}-port switches" if i == 0 else None,
                )
    ax.set_xticks(range(len(HEURISTICS)), list(HEURISTICS))
    ax.set(
        ylabel="virtual lanes needed",
        title="DFSSSP cycle breaking, 64 switches / 1,024 endpoints / 128 links\n"
        "(dots: measured, size = networks; green: the paper's range)",
    )
    ax.legend(fontsize="small")
    fig.savefig(path, dpi=120)


def plot_timing(rows: list[dict[str, Any]], path: Path) -> None:
    fig = figure(10, 4.2, layout="constrained")
    titles = {"kary-ntree": "k-ary n-trees (Figure 7)", "random": "random, 16 per switch"}
    for k, (series, title) in enumerate(titles.items()):
        ax = fig.add_subplot(1, 2, k + 1)
        rs = [r for r in _ok(rows) if r["series"] == series]
        for engine in dict.fromkeys(r["engine"] for r in rs):
            pts = sorted((r["endpoints"], r["seconds"]) for r in rs if r["engine"] == engine)
            xs, ys = [p[0] for p in pts], [max(p[1], 1e-5) for p in pts]
            ax.plot(xs, ys, "o-", color=COLORS.get(engine), label=engine)
        ax.set_xscale("log", base=2)
        ax.set(yscale="log", xlabel="endpoints", ylabel="routing time (s)", title=title)
        ax.legend(fontsize="small")
    fig.savefig(path, dpi=120)


def _ratio(a: Any, b: Any) -> float | None:
    if isinstance(a, float) and isinstance(b, float) and b > 0:
        return a / b
    return None


@dataclass
class Results:
    """Every table of a run, indexed for the summary."""

    cfg: Config
    ebb: list[dict[str, Any]]
    lanes: list[dict[str, Any]]
    heur: list[dict[str, Any]]
    timing: list[dict[str, Any]]
    memory: list[dict[str, Any]]
    seconds: dict[str, float]
    spread: list[dict[str, Any]]

    def __post_init__(self) -> None:
        self.by = {(r["family"], r["endpoints"], r["engine"]): r for r in self.ebb}
        self.fig9 = _lane_stats(self.lanes, lambda r: (_series(r), r["links"]))
        self.heuristics = _lane_stats(self.heur, lambda r: (r["ports"], r["heuristic"]))
        self.times = {(r["series"], r["endpoints"], r["engine"]): r for r in _ok(self.timing)}
        self.mem = {m["engine"]: m for m in self.memory}
        d, s = self.mem.get("dfsssp", {}), self.mem.get("sssp", {})
        # DFSSSP's extra memory over SSSP's
        self.extra_mb = (
            d["extra_mb"] - s["extra_mb"] if "extra_mb" in d and "extra_mb" in s else None
        )

    def ebb_avg(self, family: str, endpoints: int, engine: str) -> float | None:
        r = self.by.get((family, endpoints, engine))
        return r["ebb_avg"] if r and r["status"] == "ok" else None

    def gain(self, family: str, endpoints: int) -> float | None:
        """DFSSSP's bandwidth over MinHop's."""
        x = self.ebb_avg
        return _ratio(x(family, endpoints, "dfsssp"), x(family, endpoints, "minhop"))

    def sizes(self, family: str) -> list[int]:
        return sorted({r["endpoints"] for r in self.ebb if r["family"] == family})

    def time_ratios(self, minimum: int = 512) -> list[float]:
        """DFSSSP's time over MinHop's on the k-ary n-trees of ``minimum`` endpoints on."""
        out = []
        for (series, t, engine), r in self.times.items():
            base = self.times.get((series, t, "minhop"))
            ok = series == "kary-ntree" and engine == "dfsssp" and t >= minimum and base
            if ok and (q := _ratio(r["seconds"], base["seconds"])):
                out.append(q)
        return out


def _secs(x: float) -> str:
    """Seconds with three significant digits."""
    return f"{x:.3g}" if x >= 1e-4 else "<0.0001"


def _gaps(st: dict[Any, dict], equal: float = 0.0, engine: str = "dfsssp") -> list[tuple]:
    """(links, ``engine``'s average lanes minus LASH's) where both ran; differences
    below ``equal`` count as none."""
    out = []
    for x in sorted(k[1] for k in st if k[0] == engine):
        d, la = st[(engine, x)]["avg"], st.get(("lash", x), {}).get("avg")
        if d is not None and la is not None:
            out.append((x, 0.0 if abs(d - la) < equal else d - la))
    return out


def _cross(gaps: list[tuple[Any, float]]) -> tuple[float, float] | None:
    """Where the gap first changes sign (linear interpolation), and the gap before."""
    for (x0, d0), (x1, d1) in zip(gaps, gaps[1:], strict=False):
        if d0 < 0 <= d1 or d0 > 0 >= d1:
            return x0 + (x1 - x0) * d0 / (d0 - d1), d0
    return None


def _more_lanes(st: dict[Any, dict], engine: str) -> tuple[float, float] | None:
    """The least and the most lanes ``engine`` needs more than LASH on average, over the
    link counts."""
    d = [gap for _, gap in _gaps(st, engine=engine)]
    # round first: no "-0.0"
    return (round(min(d), 1) + 0.0, round(max(d), 1) + 0.0) if d else None


def summarise(res: Results) -> str:
    """``summary.md``: the tables of ``res`` in specs/domke2011/summary.md.j2."""
    x, st, hs, p = res.ebb_avg, res.fig9, res.heuristics, HEURISTIC_PORTS[0]
    families = []
    for family in FAMILIES:
        if not (fam := [r for r in res.ebb if r["family"] == family]):
            continue
        engines = list(dict.fromkeys(r["engine"] for r in fam))
        rows = []
        for t in res.sizes(family):
            first = res.by[(family, t, engines[0])]
            cells = [t, first["paper_topology"], f"`{first['spec']}`", first["max_switch_ports"]]
            rows.append([fmt(c, 3) for c in cells + [x(family, t, e) for e in engines]])
        bad = [r for r in fam if r["status"] != "ok"]
        failed = {
            e: [r for r in bad if r["engine"] == e] for e in dict.fromkeys(r["engine"] for r in bad)
        }
        families.append(
            dict(title=FAMILY_TITLES[family], engines=engines, rows=rows, runs=fam, failed=failed)
        )
    timing = {}
    for series, engines in (("kary-ntree", TIME_ENGINES), ("random", RANDOM_TIME_ENGINES)):
        if rows := [r for r in res.timing if r["series"] == series]:
            specs = dict(sorted({r["endpoints"]: r["spec"] for r in reversed(rows)}.items()))
            got = {(n, e): _secs(r["seconds"]) for (s, n, e), r in res.times.items() if s == series}
            table = [
                [t, f"`{spec}`", *(got.get((t, e), "-") for e in engines)]
                for t, spec in specs.items()
            ]
            timing[series] = dict(engines=engines, most=max(r["repeats"] for r in rows), rows=table)
    gains = [(q, f, t) for f in FAMILIES for t in res.sizes(f) if (q := res.gain(f, t))]
    shortest = ("minhop", "updown", "sssp", "dfsssp")
    kautz = {
        t: [v for e in (*shortest, "lash") if (v := x("kautz", t, e))] for t in res.sizes("kautz")
    }
    lash_kautz = {t: _ratio(x("kautz", t, "lash"), x("kautz", t, "dfsssp")) for t in kautz}
    means = {h: hs[(p, h)]["avg"] for h in ("weakest", "first", "heaviest") if (p, h) in hs}
    gaps = _gaps(st, 0.05)
    measured = {
        "gain": {t: q for q, f, t in gains if f == "xgft"},
        "best": max(gains, default=None),
        "h2_gap": any(q > 1.2 for q, f, t in gains if f == "xgft" and t >= 512 and t != 1024),
        "lash": [v for t in res.sizes("xgft") if (v := x("xgft", t, "lash")) is not None],
        "h1": [v for t in (64, 128, 256) for e in shortest if (v := x("xgft", t, e)) is not None],
        "kautz": [(t, min(v), max(v)) for t, v in kautz.items() if v],
        "lash_kautz": [(t, q) for t, q in lash_kautz.items() if q],
        "deadlock_free": all(v["deadlock_free"] for v in st.values()),
        "gaps": gaps,
        "cross": _cross(gaps),
        "more_lanes": {e: _more_lanes(st, e) for e in ("dfsssp", "dfsssp-online")},
        "means": means if len(means) == 3 and None not in means.values() else None,
        "spread": {r["engine"]: r for r in res.spread},
        "lane_networks": len({r["seed"] for r in res.lanes}),
        "heur_networks": len({r["seed"] for r in res.heur}),
    }
    facts = {"title": TITLE, "seed": SEED, "max_lanes": MAX_LANES, "ports": HEURISTIC_PORTS}
    facts |= {"stated": PAPER_CLAIMS | {"dfsssp_seconds_4096": PAPER_DFSSSP_SECONDS_4096}}
    facts |= {"paper_ranges": PAPER_HEURISTIC_RANGES, "heuristics": HEURISTICS}
    about = {"res": res, "cfg": res.cfg, "version": routelab.__version__, "cpus": os.cpu_count()}
    return summary(NAME, **facts, **about, **measured, secs=_secs, families=families, timing=timing)


CLAIM_FIELDS = ("claim", "value", "about")
# What each claim of ``claims.csv`` measures.
CLAIMS = {
    "dfsssp_extra_mb": "extra memory of DFSSSP over SSSP",
    "dfsssp_over_minhop_time": "mean DFSSSP/MinHop routing time, k-ary n-trees of 512 endpoints on",
    "xgft_1024_dfsssp_over_minhop_ebb": (
        "DFSSSP/MinHop effective bisection bandwidth, XGFT of 1,024 endpoints"
    ),
    "lanes_crossing_links": "links where the average lanes of LASH and DFSSSP cross (Figure 9)",
}


def claims(res: Results) -> list[dict[str, Any]]:
    """The numbers derived from the tables that the paper states (``claims.csv``);
    an empty value where this mode does not measure it."""
    extra, ratios = res.extra_mb, res.time_ratios()
    gain, crossing = res.gain("xgft", 1024), _cross(_gaps(res.fig9))
    values = {
        "dfsssp_extra_mb": round(extra, 1) if extra is not None else None,
        "dfsssp_over_minhop_time": round(statistics.fmean(ratios), 3) if ratios else None,
        "xgft_1024_dfsssp_over_minhop_ebb": round(gain, 4) if gain else None,
        "lanes_crossing_links": round(crossing[0], 1) if crossing else None,
    }
    about = CLAIMS | {"dfsssp_extra_mb": f"{CLAIMS['dfsssp_extra_mb']}, `{res.cfg.memory_spec}`"}
    return [
        {"claim": c, "value": "" if v is None else v, "about": about[c]} for c, v in values.items()
    ]


def run(
    out: Path, quick: bool = False, tiny: bool = False, workers: int = 2, progress: bool = True
) -> Path:
    """Runs every experiment into ``out``; returns the path of ``summary.md``.

    ``quick`` keeps networks to 1,024 endpoints and uses fewer patterns and random
    networks (minutes on two cores); ``tiny`` is a seconds-long configuration for
    tests.
    """
    cfg = config(quick=quick, tiny=tiny, workers=workers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    started = datetime.now(UTC).isoformat(timespec="seconds")

    def timed(name: str, f: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        result = f()
        seconds[name] = time.perf_counter() - t0
        return result

    ebb = timed("bandwidth", lambda: run_ebb(cfg, out, progress))
    spread = timed("spread", lambda: run_top_spread(cfg))
    lane_rows = timed("lanes", lambda: run_lanes(cfg, out, progress))
    lanes, heur = lane_rows["lanes"], lane_rows["heuristics"]
    timing, memory = timed("timing", lambda: run_timing(cfg, out, progress))
    res = Results(cfg, ebb, lanes, heur, timing, memory, seconds, spread)
    for name, fields, rows in (
        ("ebb", EBB_FIELDS, ebb),
        ("xgft_spread", SPREAD_FIELDS, spread),
        ("lanes_random", LANE_FIELDS, lanes),
        ("heuristics", LANE_FIELDS, heur),
        ("routing_time", TIME_FIELDS, timing),
        ("memory", MEMORY_FIELDS, memory),
        ("claims", CLAIM_FIELDS, claims(res)),
    ):
        write_csv(out / f"{name}.csv", fields, rows)
    for family, name in zip(FAMILIES, ("fig5_xgft", "fig6_kautz", "kary_ntree"), strict=True):
        plot_ebb(ebb, family, out / f"{name}_ebb.png")
    plot_timing(timing, out / "fig7_routing_time.png")
    plot_lanes_random(res.fig9, out / "fig9_lanes_random.png")
    plot_heuristics(heur, out / "heuristics.png")
    (out / "summary.md").write_text(summarise(res))
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started}
    meta["seconds"] = {k: round(v, 2) for k, v in seconds.items()}
    write_run_json(out / "run.json", meta | {"patterns": cfg.patterns, "seed": SEED}, cfg.workers)
    return out / "summary.md"
