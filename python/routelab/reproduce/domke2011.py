"""Domke, Hoefler and Nagel (2011), "Deadlock-Free Oblivious Routing for
Arbitrary Topologies": the simulated part of Sections IV and V.

Experiments, each written as a CSV table and a PNG plot:

1. ``ebb.csv``: effective bisection bandwidth (the ORCS metric over random
   bisections) of every engine on the XGFT, Kautz and k-ary n-tree networks of
   Table I (Figures 5 and 6, and the same for the k-ary n-trees);
   ``xgft_spread.csv``: how many top switches carry one leaf's traffic on the
   largest two-level XGFT, per engine.
2. ``lanes_random.csv``: lanes DFSSSP and LASH need on random networks of 128
   32-port switches with 16 endpoints each, against the number of switch links
   (Figure 9).
3. ``heuristics.csv``: lanes needed by each cycle-breaking heuristic of DFSSSP on
   random networks of 64 switches, 1,024 endpoints and 128 links (Section IV:
   3-5, 4-8 and 4-16 lanes).
4. ``routing_time.csv``: engine run time against network size on k-ary n-trees
   (Figure 7) and on random networks, plus DFSSSP's extra memory.

``summary.md`` puts the measured numbers beside what the paper states.

Table I's networks use 36-port switches with the endpoints on the lowest switch
level, so they are built with ``terminals=T`` (``xgft:m=6,w=3,terminals=64``: 6
leaf switches under 3 top switches). The paper's Kautz(b, n) is read as the
usual Kautz graph of degree b and diameter n, words of ``n`` symbols and
``(b+1) b^(n-1)`` switches; routelab's ``kautz:b=B,n=N`` has words of ``N+1``
symbols, so Kautz(b, n) is ``kautz:b=b,n=n-1``. With that reading every Table I
Kautz network fills its 36-port switches closely (up to 35 ports) and the step
to the next (b, n) comes where the ports run out; the other reading would put
4,096 endpoints on 1,512 switches of 15 used ports.
"""

from __future__ import annotations

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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import routelab
from routelab.reproduce import expected
from routelab.reproduce._common import (
    Progress,
    figure,
    fmt,
    md_table,
    parallel,
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


def _stated(table: str, metric: str, **keys: Any) -> float:
    return PAPER.find(table, metric, **keys).value


PAPER_DFSSSP_SECONDS_4096 = _stated(
    "routing_time", "seconds", series="kary-ntree", endpoints=4096, engine="dfsssp"
)
PAPER_ONLINE_SECONDS_4096 = _stated(
    "routing_time", "seconds", series="random", endpoints=4096, engine="dfsssp-online"
)
PAPER_DFSSSP_EXTRA_MB_4096 = _stated("claims", "value", claim="dfsssp_extra_mb")
PAPER_RUNTIME_RATIO = _stated("claims", "value", claim="dfsssp_over_minhop_time")
PAPER_XGFT_1024_RATIO = _stated("claims", "value", claim="xgft_1024_dfsssp_over_minhop_ebb")
PAPER_LANES_CROSSING = round(_stated("claims", "value", claim="lanes_crossing_links"))


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
def _rounded(digits: int) -> Callable[[Any], float]:
    return lambda v: round(float(v), digits)


def _record(
    fields: Sequence[str], r: dict[str, Any], measured: dict[str, tuple], **keys: Any
) -> dict[str, Any]:
    """Run ``r`` as a CSV row of ``fields``: its spec, engine and status, ``keys``,
    and ``measured`` (field: (run column, conversion)) if it succeeded, else the
    first line of its error."""
    rec: dict[str, Any] = dict.fromkeys(fields, "")
    rec.update(spec=r["network.topology"], engine=r["routing.algorithm"], status=r["status"])
    rec.update(keys)
    if r["status"] == "ok":
        rec.update({k: conv(r[col]) for k, (col, conv) in measured.items()})
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
EBB_MEASURED = {
    "lanes_used": ("lanes_used", int),
    "lanes_needed": ("lanes_needed", int),
    "deadlock_free": ("deadlock_free", bool),
    "minimal": ("minimal", bool),
    "avg_hops": ("avg_hops", _rounded(4)),
    "route_seconds": ("route_seconds", _rounded(6)),
    "ebb_avg": ("avg", float),
    "ebb_min": ("min", float),
    "ebb_max": ("max", float),
    "ebb_seconds": ("seconds", _rounded(6)),
}
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


def _ebb_rows(out: Path, cfg: Config) -> list[dict[str, Any]]:
    """The sweeps' run tables as the rows of ``ebb.csv``."""
    from routelab.experiment.store import Store

    where = {row.spec(f): (f, row) for row in TABLE_I for f in FAMILIES}
    shapes: dict[str, dict[str, int]] = {}
    rows = []
    for sub in EBB_SPECS:
        if not (out / sub / "spec.toml").is_file():
            continue
        for r in Store.open(out / sub).table().to_dict("records"):
            spec = r["network.topology"]
            family, row = where[spec]
            if spec not in shapes:
                net = routelab.topology(spec)
                ports = max(p for kind, _, _, _, p in net.nodes if kind == "switch")
                shapes[spec] = {"switches": len(net.switches), "max_switch_ports": ports}
            rows.append(
                _record(
                    EBB_FIELDS,
                    r,
                    EBB_MEASURED,
                    family=family,
                    endpoints=row.endpoints,
                    paper_topology=row.paper_name(family),
                    patterns=r["ebb.patterns"],
                    **shapes[spec],
                )
            )
    order = {f: i for i, f in enumerate(FAMILIES)}
    engines = {e: i for i, e in enumerate(TREE_ENGINES)}
    rows.sort(key=lambda r: (order[r["family"]], r["endpoints"], engines.get(r["engine"], 99)))
    return rows


def run_ebb(cfg: Config, progress: Progress, out: Path) -> list[dict[str, Any]]:
    sweep_ebb(cfg, out, quiet=not progress.enabled)
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


def run_top_spread(cfg: Config, progress: Progress) -> list[dict[str, Any]]:
    rows = [r for r in cfg.table if len(r.xgft_m) == 2]
    if not rows:
        return []
    spec = rows[-1].spec("xgft")
    jobs = [lambda e=e: _top_spread(spec, e) for e in SPREAD_ENGINES]
    return parallel(jobs, cfg.workers, progress.task("XGFT route spread", len(jobs)))


# --- Experiments 2 and 3: lanes on random networks (Figure 9, Section IV) -----
LANE_FIELDS = (
    *("experiment", "spec", "switches", "ports", "links", "seed", "engine", "heuristic"),
    *("status", "lanes_needed", "deadlock_free", "route_seconds", "error"),
)
LANE_MEASURED = {
    "lanes_needed": ("lanes_needed", int),
    "deadlock_free": ("deadlock_free", bool),
    "route_seconds": ("route_seconds", _rounded(6)),
}
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
        rows.append(
            _record(
                LANE_FIELDS,
                r,
                LANE_MEASURED,
                experiment="fig9" if experiment == "lanes" else experiment,
                heuristic=r["routing.heuristic"] if r["routing.algorithm"] == "dfsssp" else "",
                lanes_needed=int(needs.group(2)) if needs else "",
                **{k: int(shape[k]) for k in ("switches", "ports", "links", "seed")},
            )
        )
    series = {s: i for i, s in enumerate(FIG9_SERIES)}
    heuristics = {h: i for i, h in enumerate(HEURISTICS)}
    rows.sort(
        key=lambda r: (
            -r["ports"],
            r["links"],
            r["seed"],
            series.get((r["engine"], r["heuristic"]), 0),
            heuristics.get(r["heuristic"], 0),
        )
    )
    return rows


def run_lanes(cfg: Config, out: Path, progress: Progress) -> dict[str, list[dict[str, Any]]]:
    """Runs (or resumes) the lane sweeps into ``out``/lanes and
    ``out``/heuristics; their rows."""
    tables = sweep_specs(
        SPECS / NAME, LANE_SPECS, cfg.mode, out, cfg.workers, progress.enabled, ("ok", "failed")
    )
    return {part: _lane_rows(df, part) for part, df in tables.items()}


# --- Experiment 4: routing time (Figure 7) and memory -------------------------
TIME_FIELDS = (
    *("series", "endpoints", "spec", "switches", "engine", "status", "seconds", "wall_seconds"),
    *("repeats", "lanes_needed", "error"),
)
TIME_MEASURED = {
    "switches": ("switches", int),
    "seconds": ("route_seconds", _rounded(6)),
    "wall_seconds": ("route_wall_seconds", _rounded(6)),
    "lanes_needed": ("lanes_needed", int),
}
MEMORY_FIELDS = ("spec", "engine", "extra_mb", "peak_mb", "seconds", "error")
#: The routing-time specs (``specs/domke2011/``) by output subdirectory:
#: k-ary n-trees (Figure 7) and random networks, one routing at a time.
TIMING_SPECS = ("timing", "timing-random")


def _time_rows(df: Any) -> list[dict[str, Any]]:
    """A timing sweep's runs as rows of ``routing_time.csv``, in the order of
    the paper's series: by size, then engine."""
    rows = []
    for r in df.to_dict("records"):
        shape = _shape(r["network.topology"])
        random_net = r["network.topology"].startswith("random:")
        n = int(shape["switches"]) * int(shape["hosts"]) if random_net else int(shape["terminals"])
        online = r["routing.algorithm"] == "dfsssp" and r.get("routing.heuristic") == "online"
        keys = {"series": "random" if random_net else "kary-ntree", "endpoints": n}
        keys |= {"engine": "dfsssp-online"} if online else {}
        rows.append(_record(TIME_FIELDS, r, TIME_MEASURED, repeats=int(r["route.repeats"]), **keys))
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
    proc = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, spec, engine],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if proc.returncode != 0:
        return {**run, "error": proc.stderr.strip()[-300:]}
    m = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        **run,
        "extra_mb": round((m["peak_kib"] - m["base_kib"]) / 1024, 1),
        "peak_mb": round(m["peak_kib"] / 1024, 1),
        "seconds": round(m["seconds"], 3),
    }


def run_timing(
    cfg: Config, out: Path, progress: Progress
) -> tuple[list[dict[str, Any]], list[dict]]:
    """Runs (or resumes) the timing sweeps into ``out``/timing and
    ``out``/timing-random with one worker, so that timings do not compete
    with each other; then DFSSSP's and SSSP's memory, each in a fresh process."""
    tables = sweep_specs(
        SPECS / NAME, TIMING_SPECS, cfg.mode, out, 1, progress.enabled, accept=("ok", "failed")
    )
    rows = [r for df in tables.values() for r in _time_rows(df)]
    step = progress.task("routing memory", 2)
    memory = []
    for engine in ("sssp", "dfsssp"):
        memory.append(_memory(cfg.memory_spec, engine))
        step()
    return rows, memory


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
        avg = [r["ebb_avg"] for _, r in at]
        lo, hi = [r["ebb_min"] for _, r in at], [r["ebb_max"] for _, r in at]
        ax.bar(
            [i - 0.4 + width * (j + 0.5) for i, _ in at],
            avg,
            width,
            yerr=[
                [a - b for a, b in zip(avg, lo, strict=True)],
                [b - a for a, b in zip(avg, hi, strict=True)],
            ],
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
        out[k] = {
            "n": len(rs),
            "failed": sum(r["status"] != "ok" for r in rs),
            "min": min(vals) if vals else None,
            "avg": statistics.fmean(vals) if vals else None,
            "max": max(vals) if vals else None,
            "deadlock_free": all(r["deadlock_free"] is True for r in _ok(rs)),
        }
    return out


def plot_lanes_random(rows: list[dict[str, Any]], path: Path) -> None:
    stats = _lane_stats(rows, lambda r: (_series(r), r["links"]))
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


# --- Summary and claims -------------------------------------------------------
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


def _networks(rows: list[dict[str, Any]]) -> int:
    """Random networks per point: the seeds of a lane sweep."""
    return len({r["seed"] for r in rows})


def _unwrap(text: str) -> str:
    """Markdown from text wrapped to the source's width: the lines of a paragraph
    joined; table rows and headings keep lines of their own."""
    out: list[str] = []
    for line in (line.strip() for line in text.strip().splitlines()):
        if out and out[-1] and line and not line.startswith(("|", "#")):
            out[-1] += " " + line
        else:
            out.append(line)
    return "\n".join(out)


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A Markdown table, numbers to three decimals."""
    return md_table(header, ([fmt(c, 3) for c in row] for row in rows))


def _lines(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _secs(x: float) -> str:
    """Seconds with three significant digits."""
    return f"{x:.3g}" if x >= 1e-4 else "<0.0001"


# The summary, wrapped here; ``_unwrap`` joins the lines of each paragraph.
SUMMARY = """
# Reproduction: {TITLE}

Mode `{cfg.mode}`: {cfg.patterns} random bisections per bandwidth value, Table I networks up to
{cfg.max_endpoints} endpoints, {lane_networks} random networks per point of Figure 9,
{heur_networks} per heuristic. Run took {took:.0f} s on {cpus} cores ({took_by_part}); routelab
{version}, seed {SEED}.

Tables: `ebb.csv`, `xgft_spread.csv`, `lanes_random.csv`, `heuristics.csv`, `routing_time.csv`,
`memory.csv`. Plots: `fig5_xgft_ebb.png`, `fig6_kautz_ebb.png`, `kary_ntree_ebb.png`,
`fig7_routing_time.png`, `fig9_lanes_random.png`, `heuristics.png`.

The paper prints no values for its figures; the comparisons below use what its text states. Not
reproduced: the six real systems (Figures 4, 8, 10; their topologies are not public) and the Deimos
measurements (Section VI, hardware).

## 1. Effective bisection bandwidth (Figures 5, 6; Table I)

ORCS metric: per random bisection, each flow gets 1 / the most flows sharing a channel on its path;
averaged over flows, then over patterns (fraction of a link). The bisections are ORCS's
(`bisect:dir=one`): each pair sends one way, from the first half to the second, as the paper's ORCS
runs did; the two-way exchange (`bisect`) loads the links twice as much and reads lower (D-mod-k on
XGFT(2;32,32;1,32): 0.81 one way, 0.66 both ways). Engines that fail or do not fit the network show
`-` (the paper's missing bars); `multipath` (every minimal path, traffic split evenly) is not in the
paper and is kept to {cfg.multipath_max_endpoints} endpoints.

{families}### What the paper states, and what was measured

| statement | paper | measured |
|---|---|---|
| XGFT, 1,024 endpoints: DF-/SSSP about twice MinHop | x{PAPER_XGFT_1024_RATIO:.0f} | {gain_1024} |
| XGFT, h = 2 (512 endpoints on): a small increase of DF-/SSSP over MinHop, 1,024
aside | small | {gain_h2} |
| XGFT: LASH (and DOR) decrease steadily with size | decreasing | {lash_xgft} |
| XGFT, h = 1: MinHop, Up*/Down*, DF-/SSSP relatively constant | constant | {h1} |
| Kautz: all engines similar | similar | {kautz_spread} |
| Kautz: LASH nearly the same as DFSSSP (LASH / DFSSSP) | nearly equal | {lash_kautz} |
| Abstract: up to twice the bandwidth (DFSSSP over MinHop, best case) | x2 | {best_gain} |

## 2. Lanes on random networks (Figure 9)

{fig9}

Lanes needed, min/avg/max over the networks: 128 switches of 32 ports, 16 endpoints each, the given
number of random switch links, at most {MAX_LANES} lanes (a run needing more counts with the number
its heuristic reached). Every routing that succeeded was checked deadlock-free: {deadlock_free}.

| statement | paper | measured |
|---|---|---|
| LASH needs fewer lanes on dense networks, DFSSSP on sparse ones; the averages cross | at about
{PAPER_LANES_CROSSING} links | {crossing} |

## 3. Cycle-breaking heuristics (Section IV)

{heuristics}

{heur_networks} random networks per switch size: 64 switches, 16 endpoints each, 128 switch links
(with 20 ports every switch has exactly 4 links; with 32 the degrees vary, as in Figure 9).
`weakest` breaks the edge of the cycle induced by the fewest paths (the paper's choice), `first`
the first edge found (the paper's pseudo-random heuristic), `heaviest` the edge induced by the most
paths; `online` places each path on the first layer it keeps acyclic (the paper gives its run time
only).

## 4. Routing time (Figure 7) and memory

{timing}| statement | paper | measured |
|---|---|---|
| DFSSSP (offline) takes about 10x MinHop's time | x{PAPER_RUNTIME_RATIO:.0f} | {time_ratio} |
| DFSSSP on 4,096 nodes | about {PAPER_DFSSSP_SECONDS_4096:.0f} s | {dfsssp_4096} |
| online DFSSSP on 4,096 nodes | nearly two hours | {online_4096} |
| DFSSSP's extra memory over SSSP (`{memory_spec}`) | {PAPER_DFSSSP_EXTRA_MB_4096:.0f} MB
(4,096 nodes) | {extra_mb} |

Times are the engine's own (`Routes.seconds`), one routing at a time, on this machine; the paper's
were OpenSM on a 2011 workstation. Memory: the peak resident size of a fresh process while routing,
above its size before.

## Where and why the results differ

{differences}
"""


def summarise(res: Results) -> str:
    text = _unwrap(SUMMARY).format(
        **_ebb_values(res),
        **_fig9_values(res),
        **_timing_values(res),
        TITLE=TITLE,
        SEED=SEED,
        MAX_LANES=MAX_LANES,
        PAPER_XGFT_1024_RATIO=PAPER_XGFT_1024_RATIO,
        PAPER_LANES_CROSSING=PAPER_LANES_CROSSING,
        PAPER_RUNTIME_RATIO=PAPER_RUNTIME_RATIO,
        PAPER_DFSSSP_SECONDS_4096=PAPER_DFSSSP_SECONDS_4096,
        PAPER_DFSSSP_EXTRA_MB_4096=PAPER_DFSSSP_EXTRA_MB_4096,
        cfg=res.cfg,
        version=routelab.__version__,
        cpus=os.cpu_count(),
        took=sum(res.seconds.values()),
        took_by_part=", ".join(f"{k} {v:.0f} s" for k, v in res.seconds.items()),
        lane_networks=_networks(res.lanes),
        heur_networks=_networks(res.heur),
        heuristics="\n".join(_heuristics_table(res)),
        differences="\n".join(_differences(res)),
    )
    return text + "\n"


def _ebb_values(res: Results) -> dict[str, str]:
    """Section 1: a table per family, and what the paper states, measured."""
    x, lines = res.ebb_avg, []
    for family in FAMILIES:
        fam = [r for r in res.ebb if r["family"] == family]
        if not fam:
            continue
        engines = list(dict.fromkeys(r["engine"] for r in fam))
        table = []
        for t in res.sizes(family):
            first = res.by[(family, t, engines[0])]
            cells = [t, first["paper_topology"], f"`{first['spec']}`", first["max_switch_ports"]]
            table.append(cells + [x(family, t, e) for e in engines])
        needed: dict[str, list[str]] = defaultdict(list)
        failed: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in fam:
            if r["status"] == "ok":
                needed[r["engine"]].append(f"{r['endpoints']}: {r['lanes_needed']}")
            else:
                failed[r["engine"]].append(r)
        by_dfsssp, by_lash = (", ".join(needed[e]) for e in ("dfsssp", "lash"))
        lines += [f"### {FAMILY_TITLES[family]}", ""]
        lines += _table(["endpoints", "paper", "spec", "ports", *engines], table)
        lines += [
            "",
            f"Lanes needed, DFSSSP: {by_dfsssp}; LASH: {by_lash}. `ports`: the most ports any "
            "switch uses (Table I assumes 36-port switches).",
            "",
        ]
        for engine, rs in failed.items():
            sizes = ", ".join(str(r["endpoints"]) for r in rs)
            lines.append(f"- `{engine}` ({sizes} endpoints): {rs[0]['error']}")
        lines += [""] if failed else []
    gain = {t: res.gain("xgft", t) for t in res.sizes("xgft")}
    lash = [v for t in res.sizes("xgft") if (v := x("xgft", t, "lash")) is not None]
    shortest = ("minhop", "updown", "sssp", "dfsssp")
    h1 = [v for t in (64, 128, 256) for e in shortest if (v := x("xgft", t, e)) is not None]
    spread, lash_kautz = [], []
    for t in res.sizes("kautz"):
        vals = [v for e in (*shortest, "lash") if (v := x("kautz", t, e))]
        if vals:
            spread.append(f"{t}: {min(vals):.3f}-{max(vals):.3f}")
        if q := _ratio(x("kautz", t, "lash"), x("kautz", t, "dfsssp")):
            lash_kautz.append(f"{t}: {q:.2f}")
    best = max(
        ((q, f, t) for f in FAMILIES for t in res.sizes(f) if (q := res.gain(f, t))), default=None
    )
    measured = {
        "gain_1024": f"x{gain[1024]:.2f}" if gain.get(1024) else "",
        "gain_h2": ", ".join(f"{t}: x{gain[t]:.2f}" for t in (512, 2048, 4096) if gain.get(t)),
        "lash_xgft": " -> ".join(f"{v:.3f}" for v in lash),
        "h1": f"{min(h1):.3f} to {max(h1):.3f}" if h1 else "",
        "kautz_spread": "; ".join(spread),
        "lash_kautz": ", ".join(lash_kautz),
        "best_gain": f"x{best[0]:.2f} ({best[1]}, {best[2]} endpoints)" if best else "",
    }
    return {"families": _lines(lines)} | {k: v or "not run" for k, v in measured.items()}


def _lanes_cell(s: dict | None) -> str:
    if not s or s["min"] is None:
        return "-"
    failed = f" ({s['failed']} > {MAX_LANES})" if s["failed"] else ""
    return f"{s['min']}/{fmt(s['avg'], 2)}/{s['max']}{failed}"


def _fig9_values(res: Results) -> dict[str, Any]:
    st = res.fig9
    table = [
        [links, st.get(("dfsssp", links), {}).get("n", "-")]
        + [_lanes_cell(st.get((e, links))) for e in LANE_SERIES]
        for links in sorted({k[1] for k in st})
    ]
    header = ["links", "networks", "DFSSSP (weakest)", "LASH", "DFSSSP online (not in the figure)"]
    return {
        "fig9": "\n".join(_table(header, table)),
        "deadlock_free": all(v["deadlock_free"] for v in st.values()),
        "crossing": _crossing(st),
    }


def _range(s: dict | None) -> str:
    if not s or s["min"] is None:
        return "-"
    failed = f", {s['failed']} > {MAX_LANES}" if s["failed"] else ""
    return f"{s['min']}-{s['max']} (mean {s['avg']:.2f}{failed})"


def _heuristics_table(res: Results) -> list[str]:
    table = []
    for h in HEURISTICS:
        paper = PAPER_HEURISTIC_RANGES.get(h)
        table.append(
            [h, f"{paper[0]}-{paper[1]}" if paper else "(not stated)"]
            + [_range(res.heuristics.get((p, h))) for p in HEURISTIC_PORTS]
        )
    ports = [f"measured, {p}-port switches" for p in HEURISTIC_PORTS]
    return _table(["heuristic", "paper lanes", *ports], table)


def _timing_values(res: Results) -> dict[str, Any]:
    """Section 4: a table per series, and what the paper states, measured."""
    tm, lines = res.times, []
    for series, engines, title in (
        ("kary-ntree", TIME_ENGINES, "k-ary n-trees of Table I (and larger)"),
        ("random", RANDOM_TIME_ENGINES, "random networks, 16 endpoints per switch"),
    ):
        rows = [r for r in res.timing if r["series"] == series]
        if not rows:
            continue
        most = max(r["repeats"] for r in rows)
        each = f"the least of up to {most} routings" if most > 1 else "one routing each"
        table = []
        for t in sorted({r["endpoints"] for r in rows}):
            spec = next(r["spec"] for r in rows if r["endpoints"] == t)
            got = {e: r["seconds"] for (s, n, e), r in tm.items() if (s, n) == (series, t)}
            table.append([t, f"`{spec}`"] + [_secs(got[e]) if e in got else "-" for e in engines])
        lines += [f"{title}, seconds ({each}):", ""]
        lines += [*_table(["endpoints", "spec", *engines], table), ""]
    ratios, extra = res.time_ratios(), res.extra_mb
    d4096 = tm.get(("kary-ntree", 4096, "dfsssp"))
    off4096 = tm.get(("random", 4096, "dfsssp"))
    on4096 = tm.get(("random", 4096, "dfsssp-online"))
    full_only = "not run (full mode only)"
    dfsssp_4096, online_4096, ratio, memory = full_only, full_only, "not run", "-"
    if d4096:
        dfsssp_4096 = f"{_secs(d4096['seconds'])} s (18-ary 3-tree)"
        dfsssp_4096 += f"; {_secs(off4096['seconds'])} s (random)" if off4096 else ""
    if on4096:
        online_4096 = f"{_secs(on4096['seconds'])} s (random)"
    if ratios:
        ratio = f"x{min(ratios):.1f} to x{max(ratios):.1f} (k-ary n-trees, 512 endpoints on)"
    if extra is not None:
        memory = f"{extra:.0f} MB (DFSSSP's peak {res.mem['dfsssp']['peak_mb']:.0f} MB)"
    return {
        "timing": _lines(lines),
        "time_ratio": ratio,
        "dfsssp_4096": dfsssp_4096,
        "online_4096": online_4096,
        "memory_spec": res.mem.get("dfsssp", {}).get("spec", "-"),
        "extra_mb": memory,
    }


def _gaps(st: dict[Any, dict], equal: float = 0.0) -> list[tuple[Any, float]]:
    """(links, DFSSSP's average lanes minus LASH's) where both ran; differences
    below ``equal`` count as none."""
    out = []
    for x in sorted(k[1] for k in st if k[0] == "dfsssp"):
        d, la = st[("dfsssp", x)]["avg"], st.get(("lash", x), {}).get("avg")
        if d is not None and la is not None:
            out.append((x, 0.0 if abs(d - la) < equal else d - la))
    return out


def _cross(gaps: list[tuple[Any, float]]) -> tuple[float, float] | None:
    """Where the gap first changes sign (linear interpolation), and the gap before."""
    for (x0, d0), (x1, d1) in zip(gaps, gaps[1:], strict=False):
        if d0 < 0 <= d1 or d0 > 0 >= d1:
            return x0 + (x1 - x0) * d0 / (d0 - d1), d0
    return None


def _crossing(st: dict[Any, dict]) -> str:
    """Where the lanes LASH and DFSSSP need on average cross; averages within
    0.05 count as equal."""
    gaps = _gaps(st, 0.05)
    if not gaps:
        return "not run"
    span = f"{gaps[0][0]}-{gaps[-1][0]} links"
    if all(d >= 0 for _, d in gaps):
        equal = ", ".join(str(x) for x, d in gaps if d == 0)
        return f"no crossing: LASH needs fewer lanes ({span})" + (
            f", equal at {equal}" if equal else ""
        )
    if all(d <= 0 for _, d in gaps):
        return f"no crossing: DFSSSP needs no more lanes than LASH ({span})"
    if crossing := _cross(gaps):
        fewer = "DFSSSP" if crossing[1] < 0 else "LASH"
        return f"{fewer} needs fewer below, the other above about {crossing[0]:.0f} links"
    return "no single crossing"


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


def _differences(res: Results) -> list[str]:
    """The bullets of "Where and why the results differ"."""
    d4096, ratios = res.times.get(("kary-ntree", 4096, "dfsssp")), res.time_ratios()
    speed = (
        f"DFSSSP routes the 4,096-endpoint 18-ary 3-tree in {_secs(d4096['seconds'])} s, "
        f"the paper about {PAPER_DFSSSP_SECONDS_4096:.0f} s for 4,096 nodes"
        if d4096
        else "Absolute times are not comparable with the paper's"
    )
    ratio = f"x{min(ratios):.1f} to x{max(ratios):.1f}" if ratios else "not measured"
    out = [
        f"""- **Speed.** {speed}: Rust on this machine, Dijkstra over switches only and the
        channel dependency graph kept per injecting switch rather than per endpoint pair, against
        OpenSM on a 2011 workstation, so only ratios between engines compare (DFSSSP over MinHop:
        {ratio}, the paper about x10).""",
        """- **DOR** in routelab is dimension-order routing on tori, meshes and hypercubes and
        refuses trees and Kautz graphs, so it has no bars here; the paper's DOR bars on the XGFTs
        come from OpenSM's DOR engine, which routes any fabric.""",
        """- **Kautz(b, n)** is read as degree b, diameter n, words of n symbols (see the notes of
        `routelab.reproduce.domke2011`): the other reading would put 2-3 endpoints on each of 1,512
        switches for 4,096 endpoints, with no use for 36 ports.""",
        """- **Endpoint placement.** Endpoints are spread over the leaf switches in blocks (the
        first `T mod L` leaves one more). Where `T` is not a multiple of the leaves (most of Table
        I), leaves carry unequal loads; the paper does not say how it placed them.""",
    ]
    gains = {t: q for t in res.sizes("xgft") if t >= 512 and (q := res.gain("xgft", t))}
    spread = {r["engine"]: r for r in res.spread}
    if any(q > 1.2 for t, q in gains.items() if t != 1024):
        text = f"""- **XGFT, h = 2.** DFSSSP over MinHop is
        {", ".join(f"x{q:.2f} at {t}" for t, q in gains.items())} here, where the paper reports a
        small increase (x2 at 1,024 only)."""
        if "minhop" in spread and "sssp" in spread:
            mh, ss = spread["minhop"], spread["sssp"]
            text += f""" On `{mh["spec"]}`, the traffic from one leaf's terminals to the rest of
            the tree crosses {mh["tops_used"]} of the {mh["top_switches"]} top switches with MinHop
            ({mh["tops_per_level1"]} per level-1 switch it leaves through) and {ss["tops_used"]}
            with SSSP ({ss["tops_per_level1"]} per level-1 switch; `xgft_spread.csv`). MinHop gives
            each switch's destinations to its least used minimal port in terminal order, at every
            level alike, so a level-1 switch sends all the destinations that one leaf hands it up
            the same port. OpenSM's MinHop orders destinations by LID, which need not follow the
            tree, and the paper's numbers suggest its routes did not correlate this way."""
        out.append(text)
    st = res.fig9
    if _crossing(st).startswith("no crossing: LASH"):

        def gap(a: str, b: str) -> str:
            d = [
                st[(a, x)]["avg"] - st[(b, x)]["avg"]
                for (e, x) in st
                if e == a and (b, x) in st and None not in (st[(a, x)]["avg"], st[(b, x)]["avg"])
            ]
            # round first: no "-0.0"
            lo, hi = (round(min(d), 1) + 0.0, round(max(d), 1) + 0.0) if d else (0, 0)
            return f"{lo:+.1f} to {hi:+.1f}" if d else "-"

        out.append(
            f"""- **Figure 9.** Here LASH needs no more lanes than DFSSSP at any link count, so the
            averages do not cross near 200 links as in the paper: DFSSSP with the weakest-edge
            heuristic needs {gap("dfsssp", "lash")} lanes more than LASH on average, the online
            variant {gap("dfsssp-online", "lash")}. The paper does not describe its random
            generator, its cycle-search order or its SSSP tie-breaking, and each changes which
            dependencies close cycles."""
        )
    hs, p = res.heuristics, HEURISTIC_PORTS[0]
    means = {h: hs[(p, h)]["avg"] for h in ("weakest", "first", "heaviest") if (p, h) in hs}
    if len(means) == 3 and None not in means.values():
        ranking = " < ".join(f"{n} {v:.2f}" for n, v in sorted(means.items(), key=lambda kv: kv[1]))
        weak, other = hs[(p, "weakest")], hs.get((HEURISTIC_PORTS[1], "weakest"))
        regular = (
            f", and {other['min']}-{other['max']} on the 4-regular networks"
            if other and other["min"] is not None
            else ""
        )
        out.append(
            f"""- **Heuristics.** The ranking agrees ({ranking} lanes on average on {p}-port
            switches; the paper: weakest best, heaviest worst), but weakest needs
            {weak["min"]}-{weak["max"]} lanes against the paper's 3-5{regular}: the counts depend
            on how the random links are drawn, which the paper does not describe."""
        )
    out.append(
        f"""- **Random bisections** (one way per pair, ORCS's `bisect`) are drawn per pattern from
        one seeded stream, the same patterns for every engine on a network ({res.cfg.patterns} per
        value)."""
    )
    return [_unwrap(b) for b in out]


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

    with Progress(progress) as bar:
        ebb = timed("bandwidth", lambda: run_ebb(cfg, bar, out))
        spread = timed("spread", lambda: run_top_spread(cfg, bar))
        lane_rows = timed("lanes", lambda: run_lanes(cfg, out, bar))
        lanes, heur = lane_rows["lanes"], lane_rows["heuristics"]
        timing, memory = timed("timing", lambda: run_timing(cfg, out, bar))

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
    plot_lanes_random(lanes, out / "fig9_lanes_random.png")
    plot_heuristics(heur, out / "heuristics.png")
    summary = out / "summary.md"
    summary.write_text(summarise(res))
    meta = {"reproduction": NAME, "mode": cfg.mode, "started": started}
    meta["seconds"] = {k: round(v, 2) for k, v in seconds.items()}
    write_run_json(out / "run.json", meta | {"patterns": cfg.patterns, "seed": SEED}, cfg.workers)
    return summary
