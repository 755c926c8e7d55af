"""The run-kind registry: what one run of a sweep computes.

Each kind is one small function ``run(params) -> dict`` registered by name with
the schema of its parameters and the key that ``seeds`` sets. ``params`` is the
nested parameter document of one run (``{"network": {"topology": ...}, ...}``).
Scalar values of the result become metrics (columns of the run table); lists,
dicts and tables become per-run artefacts.

``ebb``, ``sim`` and ``saturate`` call ``routelab.ebb``, ``routelab.simulate``
and ``routelab.saturate``; a build of routelab without them raises a
`ConfigError` that names the missing capability.
"""

from __future__ import annotations

import json
import math
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import routelab
from routelab._core import ConfigError
from routelab.experiment.schema import Field, Schema

RunFunction = Callable[[dict[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Artefact:
    """Marks a result value as a per-run artefact whatever its type (a long
    text, say), rather than a metric column."""

    value: Any


@dataclass(frozen=True)
class Kind:
    name: str
    run: RunFunction
    schema: Schema
    seed_key: str
    requires: tuple[str, ...]
    description: str
    check: Callable[[dict[str, Any]], None] | None = None
    #: The run function takes ``journal=PATH``: the measurements of a run in
    #: progress, kept so that a run killed half-way resumes.
    journaled: bool = False
    #: The parameter that caps the cores one run takes (none: one core).
    cores_key: str | None = None

    def validate(self, params: dict[str, Any]) -> None:
        """The kind's own check of one run's parameters (the simulator's spec
        validation for sim and saturate), before anything runs."""
        if self.check is not None and not self.missing():
            self.check(params)

    def missing(self) -> list[str]:
        """The ``routelab`` attributes this kind needs and this build lacks."""
        return [name for name in self.requires if not hasattr(routelab, name)]

    def check_available(self) -> None:
        missing = self.missing()
        if missing:
            names = ", ".join(f"routelab.{m}" for m in missing)
            raise ConfigError(
                f"'{self.name}' runs need {names}, which this build of routelab does not "
                f"provide ({self.description} is not available from Python yet)"
            )


KINDS: dict[str, Kind] = {}


def register(
    name: str,
    *,
    schema: Schema,
    seed_key: str,
    description: str,
    requires: tuple[str, ...] = (),
    check: Callable[[dict[str, Any]], None] | None = None,
    journaled: bool = False,
    cores_key: str | None = None,
) -> Callable[[RunFunction], RunFunction]:
    """Registers ``run(params) -> metrics`` as the run kind ``name``."""

    def wrap(fn: RunFunction) -> RunFunction:
        KINDS[name] = Kind(
            name, fn, schema, seed_key, requires, description, check, journaled, cores_key
        )
        return fn

    return wrap


def get(name: str) -> Kind:
    if name not in KINDS:
        raise ConfigError(
            f"'experiment.kind' = '{name}' is not a run kind; valid kinds: {', '.join(KINDS)}"
        )
    return KINDS[name]


# ---------------------------------------------------------------- schemas

_TOPOLOGY = Field("str", "a topology spec such as torus:8x8x8 or a fabric file", required=True)
_NETWORK = {
    "network.topology": _TOPOLOGY,
}
_ROUTING = {
    "routing.algorithm": Field(
        "str", "the routing engine", required=True, choices=lambda: routelab.engines()
    ),
    "routing.max_lanes": Field("int", "lanes the engine may use", min=1, max=15),
    "routing.datelines": Field("bool", "dateline lanes of dor on tori"),
    "routing.root": Field("str", "root switch of up*/down*, by name"),
    "routing.heuristic": Field(
        "str", "dfsssp cycle breaking", choices=("weakest", "heaviest", "first", "online")
    ),
    "routing.seed": Field("int", "seed of engines that make random choices", min=0),
}

TOPO_SCHEMA = Schema(
    {
        **_NETWORK,
        "network.seed": Field("int", "the value of {seed} in string parameters", min=0),
    }
)
ROUTE_SCHEMA = Schema(
    {
        **_NETWORK,
        **_ROUTING,
        "route.repeats": Field(
            "int", "route this many times; route_seconds is the least (a timing)", min=1
        ),
        "route.stats": Field(
            "bool", "false: skip the routes' hops, minimality and deadlock check (timings)"
        ),
        "route.memory": Field(
            "bool", "route in a fresh process and record its peak memory (Linux; no checks)"
        ),
    }
)
EBB_SCHEMA = Schema(
    {
        **_NETWORK,
        **_ROUTING,
        "ebb.patterns": Field("int", "number of random patterns", min=1),
        "ebb.pattern": Field("str", "bisect or a traffic pattern name"),
        "ebb.metric": Field("str", "the bandwidth metric", choices=("orcs", "maxmin")),
        "ebb.capacity": Field("str", "channel capacities of maxmin", choices=("bandwidth", "unit")),
        "ebb.seed": Field("int", "seed of the random patterns", min=0),
        "ebb.seeding": Field(
            "str",
            "drawn: pattern seeds drawn from ebb.seed; consecutive: ebb.seed, ebb.seed + 1, ...",
            choices=("drawn", "consecutive"),
        ),
    }
)
# The simulator validates its own spec (unknown keys included); these are the
# keys a sweep relies on.
SIM_SCHEMA = Schema(
    {
        "network.topology": _TOPOLOGY,
        "routing.algorithm": Field("str", "a routing engine or adaptive router", required=True),
        "traffic.load": Field("float", "offered load", min=0),
        "run.seed": Field("int", "the master seed of the run", min=0),
        "run.cores": Field(
            "int",
            "the most cores a split run (run.threads) takes; 0: every core",
            min=0,
            neutral=True,
        ),
    },
    open=True,
)
#: The options of one saturation search (`routelab.saturate`), in the spec's
#: ``[saturate]`` table; the rest of the spec is the simulator's.
SEARCH_OPTIONS = {
    "saturate.low": Field("float", "the first bracket's low load (0: none)", min=0),
    "saturate.high": Field("float", "the first bracket's high load (default: the bound)", min=0),
    "saturate.tolerance": Field("float", "sustained: accepted within this of offered", min=0),
    "saturate.resolution": Field("float", "the search stops at a bracket this wide", min=0),
    "saturate.steps": Field("int", "the most narrowing steps", min=1),
    "saturate.bisect": Field("bool", "narrow by halves, one load a step (false: thirds, two)"),
    "saturate.require_converged": Field("bool", "sustained needs the convergence test"),
    "saturate.require_drained": Field("bool", "sustained needs the drain"),
    "saturate.scan": Field("floats", "loads run first, ascending (a list value: [[0.1, 0.2]])"),
    "saturate.scan_misses": Field("int", "loads in a row not sustained that end the scan", min=1),
    "saturate.drain_unsustained": Field(
        "bool",
        "drain a load that already accepted too little (false: skip it, same verdict)",
        neutral=True,
    ),
}
SATURATE_SCHEMA = Schema({**SIM_SCHEMA.fields, **SEARCH_OPTIONS}, open=True)


# ---------------------------------------------------------------- run kinds


@register(
    "topo",
    schema=TOPO_SCHEMA,
    seed_key="network.seed",
    description="building a network and summarising it",
)
def run_topo(params: dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    net = routelab.topology(params["network"]["topology"])
    summary = net.summary()
    summary.pop("name", None)
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if isinstance(value, Mapping):
            for sub, v in value.items():
                out[f"{key}_{sub}"] = v
        else:
            out[key] = value
    out["topo_seconds"] = time.perf_counter() - start
    return out


def _route(net: routelab.Network, params: dict[str, Any]) -> routelab.Routes:
    options = dict(params.get("routing", {}))
    engine = options.pop("algorithm")
    return routelab.route(net, engine, **options)


def _routes(params: dict[str, Any]) -> tuple[routelab.Network, routelab.Routes]:
    net = routelab.topology(params["network"]["topology"])
    return net, _route(net, params)


def _timed(params: dict[str, Any]) -> tuple[routelab.Network, routelab.Routes, dict[str, float]]:
    """The routes of ``params``, routed ``route.repeats`` times on one network
    (one at a time, each freed before the next): the least of the engine's
    and the call's seconds, network building left out."""
    net = routelab.topology(params["network"]["topology"])
    best = {"route_seconds": math.inf, "route_wall_seconds": math.inf}
    routes = None
    for _ in range(params.get("route", {}).get("repeats", 1)):
        routes = None  # the previous repeat's, freed before routing again
        start = time.perf_counter()
        routes = _route(net, params)
        wall = time.perf_counter() - start
        best["route_seconds"] = min(best["route_seconds"], routes.seconds)
        best["route_wall_seconds"] = min(best["route_wall_seconds"], wall)
    return net, routes, best


@register(
    "route",
    schema=ROUTE_SCHEMA,
    seed_key="routing.seed",
    description="computing routes and checking them for deadlock",
)
def run_route(params: dict[str, Any]) -> dict[str, Any]:
    if params.get("route", {}).get("memory", False):
        return _route_memory(params)
    net, routes, timing = _timed(params)
    if params.get("route", {}).get("stats", True):
        stats = routes.stats()
    else:
        stats = {"lanes_needed": routes.lanes_needed}
    for key in ("engine", "network", "seconds"):
        stats.pop(key, None)
    cycle = stats.pop("cycle", None)
    stats.update(timing)
    stats["switches"] = len(net.switches)
    stats["terminals"] = len(net.terminals)
    if cycle is not None:
        stats["cycle"] = Artefact(cycle)
    return stats


# VmHWM belongs to the new process image (ru_maxrss would carry the parent's
# peak across exec); writing 5 to clear_refs resets it to the current size, so
# the peak measured is the routing's, above the network's.
_MEMORY_SCRIPT = """
import contextlib, json, sys, routelab
def kib(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key + ":"))
params = json.loads(sys.argv[1])
options = dict(params["routing"])
net = routelab.topology(params["network"]["topology"])
with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
    f.write("5")
base = kib("VmRSS")
try:
    routes = routelab.route(net, options.pop("algorithm"), **options)
except Exception as e:
    sys.exit(f"{type(e).__name__}: {e}")
peak = kib("VmHWM")
print(json.dumps({"route_extra_mb": (peak - base) / 1024, "route_peak_mb": peak / 1024,
                  "route_seconds": routes.seconds, "lanes_needed": routes.lanes_needed,
                  "switches": len(net.switches), "terminals": len(net.terminals)}))
"""


def _route_memory(params: dict[str, Any]) -> dict[str, Any]:
    """``route.memory``: one routing in a fresh Python process, its peak
    resident memory above the network's (``route_extra_mb``) and in all
    (``route_peak_mb``), with the engine's time and the lanes it needs."""
    if not Path("/proc/self/status").exists():
        raise ConfigError("route.memory needs /proc/self/status (Linux)")
    command = [sys.executable, "-c", _MEMORY_SCRIPT, json.dumps(params)]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-600:] or f"exit status {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


@register(
    "ebb",
    schema=EBB_SCHEMA,
    seed_key="ebb.seed",
    requires=("ebb",),
    description="the flow-level effective bisection bandwidth",
)
def run_ebb(params: dict[str, Any]) -> dict[str, Any]:
    KINDS["ebb"].check_available()
    net, routes = _routes(params)
    options = params.get("ebb", {})
    result = as_dict(routelab.ebb(net, routes, **options))
    result.pop("pattern_seeds", None)  # follow from ebb.seed; not a result
    for echo in ("metric", "pattern"):  # already columns when given as parameters
        if echo in options:
            result.pop(echo, None)
    result["route_seconds"] = routes.seconds
    stats = routes.stats()
    for key in ("lanes_used", "lanes_needed", "deadlock_free", "minimal", "avg_hops", "max_hops"):
        if key in stats:
            result.setdefault(key, stats[key])
    result.setdefault("switches", len(net.switches))
    result.setdefault("terminals", len(net.terminals))
    return result


def _check_sim_spec(params: dict[str, Any]) -> None:
    routelab.sim.check(params)


def search_options(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A saturate run's simulator spec and its search options (``[saturate]``);
    an unknown option or a value out of its range is refused by name, before
    anything runs."""
    spec = dict(params)
    options = dict(spec.pop("saturate", None) or {})
    for key in options:
        if f"saturate.{key}" not in SEARCH_OPTIONS:
            raise ConfigError(
                f"unknown key 'saturate.{key}' for a 'saturate' experiment; valid keys: "
                + ", ".join(SEARCH_OPTIONS)
            )

    def bad(key: str, expected: str) -> ConfigError:
        return ConfigError(f"'saturate.{key}' = {options[key]!r} is not valid: expected {expected}")

    if not 0 <= options.get("tolerance", 0) < 1:
        raise bad("tolerance", "a fraction in [0, 1)")
    if not 1 <= options.get("steps", 1) <= 30:
        raise bad("steps", "an integer in 1..=30")
    if not 1 <= options.get("scan_misses", 1) <= 1000:
        raise bad("scan_misses", "an integer in 1..=1000")
    if "high" in options and options["high"] <= options.get("low", 0):
        raise bad("high", "a load above saturate.low")
    scan = options.get("scan", [])
    ascending = all(a < b for a, b in zip(scan, scan[1:], strict=False))
    if scan and not (all(x > 0 for x in scan) and ascending):
        raise bad("scan", "loads above 0 in ascending order")
    if scan and ("low" in options or "high" in options):
        raise bad("scan", "no saturate.low or saturate.high beside it (the scan makes the bracket)")
    return spec, options


def _check_saturate_spec(params: dict[str, Any]) -> None:
    routelab.sim.check(search_options(params)[0])


@register(
    "sim",
    schema=SIM_SCHEMA,
    seed_key="run.seed",
    requires=("simulate",),
    description="the packet simulator",
    check=_check_sim_spec,
    cores_key="run.cores",
)
def run_sim(params: dict[str, Any]) -> dict[str, Any]:
    KINDS["sim"].check_available()
    result = as_dict(routelab.simulate(params))
    # A closed-loop workload's summary (completion, the pairs' mean, least and
    # most bandwidth) and the router's counters as columns:
    # ``workload_bandwidth_mean_gbps``, ``counters_probes``; the pairs stay an
    # artefact. Underscores, as dotted names are parameters.
    for table in ("workload", "counters"):
        for key, value in (result.get(table) or {}).items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                result[f"{table}_{key}"] = value
    return result


@register(
    "saturate",
    schema=SATURATE_SCHEMA,
    seed_key="run.seed",
    requires=("saturate",),
    description="the saturation search of the packet simulator",
    check=_check_saturate_spec,
    journaled=True,
    cores_key="run.cores",
)
def run_saturate(
    params: dict[str, Any], journal: str | None = None, replay_only: bool = False
) -> dict[str, Any]:
    """One search. With ``journal`` (a sweep gives each run its own file) the
    loads are kept as they are measured, and a run started again after a kill
    takes them from there: same answer, less time. ``replay_only``: from there
    alone, simulating nothing (an unfinished search raises)."""
    KINDS["saturate"].check_available()
    spec, options = search_options(params)
    options |= {"progress": False, "journal": journal, "replay_only": replay_only}
    try:
        return as_dict(routelab.saturate(spec, **options))
    except routelab.ConfigError as e:
        if journal is None or replay_only or not str(e).startswith("journal "):
            raise
    # A journal the search refuses (another version's spec text, a damaged
    # line) is set aside, named, and the search runs afresh.
    refused = Path(journal).with_suffix(".refused")
    Path(journal).replace(refused)
    result = as_dict(routelab.saturate(spec, **options))
    result.setdefault("warnings", []).append(f"a refused journal was set aside as {refused}")
    return result


def as_dict(result: Any) -> dict[str, Any]:
    """A result dict from whatever a routelab call returns (a mapping, or an
    object with ``to_dict()``)."""
    if isinstance(result, Mapping):
        return dict(result)
    for name in ("to_dict", "as_dict"):
        fn = getattr(result, name, None)
        if callable(fn):
            return dict(fn())
    raise TypeError(f"a run returned {type(result).__name__}, not a dict of metrics")


# ---------------------------------------------------------------- execution


#: Statuses of a finished run. ``undrained``: the run measured, but packets
#: generated in its window were still undelivered after the drain (the load
#: is beyond saturation); its numbers are kept and it is not run again.
MEASURED = ("ok", "undrained")
#: ``deadlock``: the simulation deadlocked (``error`` has the waiting cycle),
#: or a saturation search met a deadlock at one of its loads (its other
#: points and its result are kept). A result, as deterministic as the others:
#: it is not run again unless asked (``--retry-failed``).
FINISHED = (*MEASURED, "deadlock")
STATUSES = (*FINISHED, "failed")


def is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def execute(
    kind: str, params: dict[str, Any], journal: str | None = None, replay_only: bool = False
) -> dict[str, Any]:
    """Runs one run where it is scheduled and never raises: the outcome is a
    dict with ``status`` (one of `STATUSES`), ``metrics``, ``artefacts``, ``error``,
    ``wall_seconds``, ``started``, ``finished``, ``host`` and the routelab version.
    ``journal``: the run's journal file, for a kind that keeps one;
    ``replay_only``: the run from its journal alone (``failed`` if unfinished)."""
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    metrics: dict[str, Any] = {}
    artefacts: dict[str, Any] = {}
    error = None
    try:
        k = get(kind)
        if replay_only and not (k.journaled and journal):
            raise ConfigError(f"a {kind} run keeps no journal to replay")
        journaled = {"journal": journal} | ({"replay_only": True} if replay_only else {})
        result = k.run(params, **journaled) if k.journaled and journal else k.run(params)
        for name, value in as_dict(result).items():
            if isinstance(value, Artefact):
                artefacts[name] = _plain(value.value)
            elif is_scalar(value):
                metrics[name] = value
            else:
                artefacts[name] = _plain(value)
        status = "undrained" if metrics.get("drained") is False else "ok"
        if (metrics.get("deadlocks") or 0) > 0:  # a saturation search met a deadlock
            status = "deadlock"
            first = next(
                (p.get("error") for p in artefacts.get("points") or () if p.get("error")), ""
            )
            error = f"{metrics['deadlocks']} load(s) of the search deadlocked; the first: {first}"
    except routelab.DeadlockError as e:  # a result: recorded as such, not rerun
        status = "deadlock"
        error = f"{type(e).__name__}: {e}"
    except Exception as e:  # a failed run is recorded, not raised
        status = "failed"
        error = f"{type(e).__name__}: {e}"
        if not isinstance(e, routelab.RoutelabError):
            error += "\n" + "".join(traceback.format_exception(e)[-3:]).rstrip()
    return {
        "status": status,
        "metrics": metrics,
        "artefacts": artefacts,
        "error": error,
        "wall_seconds": time.perf_counter() - t0,
        "started": started.isoformat(),
        "finished": datetime.now(UTC).isoformat(),
        "host": platform.node(),
        "routelab_version": routelab.__version__,
    }


def _plain(value: Any) -> Any:
    """Numpy arrays and tuples as lists, so artefacts serialise as JSON."""
    if hasattr(value, "to_parquet"):
        return value
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
