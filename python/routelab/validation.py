"""``routelab validate``: every router and engine that claims deadlock freedom,
run over a matrix of networks, packet sizes, VC counts, switching modes,
patterns and loads past saturation, with checks of physics rather than of
runs finishing:

- *deadlock*: no run of a router that claims deadlock freedom deadlocks;
- *conservation*: packets generated = delivered + in flight, flits delivered
  never exceed flits generated (the simulator itself fails a run that
  delivers a packet anywhere but its destination);
- *zero-load latency*: one packet alone takes exactly
  ``H (s + L) + (H - 1) r + (F - 1) s`` (``H (F s + L) + (H - 1) r`` under
  store-and-forward) for ``H`` channels of flit time ``s`` and latency ``L``,
  routing delay ``r`` and ``F`` flits, and a minimal router's route is a
  shortest one;
- *throughput bound*: no channel is busy more than all the time, and no
  rate every source gets at once exceeds what the channels allow: the
  channel loads of the routing's own tables, or, for adaptive routers, the
  maximum concurrent flow over minimal paths (over any path for routers
  that deroute); the least per-source accepted throughput is checked
  against it (a hot spot, which never settles within a window, only
  against the channels);
- *repeatable*: the same spec and seed run again gives the same run, bit
  for bit;
- *channel dependency graph*: a routing that claims deadlock freedom through
  its lanes has an acyclic channel dependency graph (for the torus routers,
  their dimension-order escape network).

A case that a router refuses (a torus router on a fat tree, wormhole for a
bubble router, a pattern that does not fit) is listed as not applicable.
Every failure names the spec that reproduces it."""

from __future__ import annotations

import html
import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import routelab
from routelab import toml_text

#: Hop routers and the families they claim deadlock freedom on (None: every
#: family they accept).
HOP_ROUTERS: dict[str, tuple[str, ...] | None] = {
    "dor": None,
    "duato": None,
    "abr": None,
    "dor-bubble": None,
    "por": None,
    "ofr": None,
    "rdr": None,
    "dispersive": ("kary-ntree", "xgft", "clos"),
    "ft-adaptive": ("kary-ntree", "xgft", "clos"),
    "df-min": ("dragonfly",),
    "df-val": ("dragonfly",),
    "df-ugal-l": ("dragonfly",),
    "df-ugal-g": ("dragonfly",),
    "df-par": ("dragonfly",),
    "hx-dor": ("hyperx",),
    "hx-val": ("hyperx",),
    "hx-ugal": ("hyperx",),
    "hx-dal": ("hyperx",),
    "mf-min": ("megafly",),
    "mf-val": ("megafly",),
    "mf-ugal-l": ("megafly",),
    "mf-ugal-g": ("megafly",),
    "mf-par": ("megafly",),
    # Any network; validated where their VC counts stay small (diameter 2
    # or 3 between the switches holding terminals).
    "dist-min": ("slimfly", "megafly", "dragonfly"),
    "dist-val": ("slimfly", "megafly", "dragonfly"),
    "dist-ugal": ("slimfly", "megafly", "dragonfly"),
}

#: Hop routers with options or a switch model other than the default, by the
#: name `--router` takes: (router, `[router]` settings, router options). A
#: variant claims what its router claims; its dependencies are checked by the
#: router's own tests, not by an engine's tables.
VARIANTS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    # BookSim2's input-queued router (iSLIP switch allocation) and
    # dim_order_torus.
    "dor:booksim": (
        "dor",
        {"route_at_front": True, "allocator": "islip"},
        {"ties": "random", "classes": "wrapping", "injection": "any"},
    ),
    # Adaptive routing under switch allocation in rounds, one per cycle.
    "duato:islip": ("duato", {"allocator": "islip"}, {}),
    "duato:separable": ("duato", {"allocator": "separable-input-first"}, {}),
    # Adaptive VCs allocated only when a head reaches the front of its VC.
    "duato:route-at-front": ("duato", {"route_at_front": True}, {}),
}

#: Table engines that claim deadlock freedom (the claim is checked on the
#: channel dependency graph of the tables they compute).
ENGINES = ("dfsssp", "lash", "nue", "updown", "dnup", "torus-2qos", "dmodk", "ftree")

#: Hop routers that may take longer paths than the shortest (a dragonfly's
#: minimal route, local-global-local, can be longer than two global hops
#: through a third group).
DEROUTING = {
    "por",
    "ofr",
    "rdr",
    "dispersive",
    "df-min",
    "df-val",
    "df-ugal-l",
    "df-ugal-g",
    "df-par",
    "hx-val",
    "hx-ugal",
    "hx-dal",
    "mf-val",
    "mf-ugal-l",
    "mf-ugal-g",
    "mf-par",
    "dist-val",
    "dist-ugal",
}

#: Hop routers whose decisions read channels anywhere in the network (UGAL-G's
#: global queues): a run split over threads refuses them, so their cases run
#: whole.
READS_ANYWHERE = {"df-ugal-g", "mf-ugal-g"}

#: Routers whose candidates are exactly a table engine's routes.
SAME_AS_ENGINE = {"dor": "dor", "df-min": "df-min"}

#: The escape network of the torus routers over dimension-order channels.
ESCAPE_ENGINE = {"duato": "dor"}

PATTERNS = ("uniform", "transpose", "tornado", "bit-complement", "hotspot:f=0.1")
#: Patterns that do not fit a family (no coordinates, no power-of-two or
#: square terminal count), replaced by its own adversarial ones in the same
#: slot of the rotation.
_GROUPS = {"transpose": "group-shift", "tornado": "group-permutation", "bit-complement": "bridge"}
FAMILY_PATTERNS: dict[str, dict[str, str]] = {
    "dragonfly": _GROUPS,
    "megafly": _GROUPS,
    "slimfly": {"tornado": "bridge", "bit-complement": "permutation"},
}
SWITCHING = ("wormhole", "cut-through", "store-and-forward")
FLITS = (4, 16, 1)

QUICK_TOPOLOGIES = (
    "mesh:8x8",
    "torus:8x8",
    "kary-ntree:k=4,n=3",
    "random:switches=16,ports=8,hosts=4,seed=3",
    "dragonfly:a=4,p=2,h=2",
    "hyperx:S=4x4,t=2,p=2",
    "slimfly:q=5,p=2",
    "megafly:a=3,p=2,h=2",
)
FULL_TOPOLOGIES = QUICK_TOPOLOGIES + (
    "torus:8x8x8",
    "mesh:8x8x8",
    "kary-ntree:k=8,n=2",
    "random:switches=32,ports=8,hosts=4,seed=5",
)
#: Quick mode: the load of each of the five cases (one below saturation, the
#: rest at and past it).
QUICK_LOADS = (1.0, 0.3, 1.0, 1.5, 1.0)
FULL_LOADS = (0.1, 0.4, 0.7, 1.0, 1.5)

#: Links of every validation spec: one class, so the latency formula holds.
BANDWIDTH_BPS = 20e9
LINK_LATENCY_PS = 100_000
ROUTING_DELAY_PS = 30_000
FLIT_BYTES = 16

#: Slack on the throughput bound: a finite window delivers what was queued
#: before it (relative, then absolute in flits per terminal per cycle).
BOUND_SLACK = 0.03
BOUND_SLACK_ABS = 0.01


@dataclass
class Case:
    """One simulation of the matrix and what was checked."""

    router: str
    topology: str
    kind: str  # "zero-load" or "load"
    pattern: str = "uniform"
    packet_flits: int = 4
    #: VCs above the fewest the router accepts (``vcs`` is then resolved).
    extra_vcs: int = 0
    vcs: int = 0
    switching: str = "wormhole"
    load: float = 0.0
    #: A name of `VARIANTS` (``router`` is then its router), or "".
    variant: str = ""
    #: Threads of a load case's run (``run.threads``); zero-load ping-pongs
    #: are closed loop and run on one.
    threads: int = 1
    #: The most cores a split run takes (``run.cores``; 0: every core).
    cores: int = 0
    claims: bool = True
    status: str = "pending"  # pass, fail, not applicable
    checks: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "network": {
                "topology": self.topology,
                "links": {"bandwidth": "20Gb/s", "latency": "100ns"},
            },
            "router": {
                "switching": self.switching,
                "vcs": self.vcs,
                "routing_delay": "30ns",
                "flit_bytes": FLIT_BYTES,
            },
            "routing": {"algorithm": self.router},
            "run": {"warmup_cycles": 1000, "measure_cycles": 4000, "drain_cycles": 0},
        }
        if self.variant:
            _, router, options = VARIANTS[self.variant]
            spec["router"].update(router)
            if options:
                spec["routing"]["options"] = dict(options)
        if self.kind == "zero-load":
            size = self.packet_flits * FLIT_BYTES
            spec["traffic"] = {
                "workload": "ping-pong",
                "pairs": [[0, self.measured["peer"]]],
                "rounds": 3,
                "packet_bytes": size,
                "message_bytes": size,
            }
            spec["run"] = {"warmup_cycles": 0, "measure_cycles": 1000}
        else:
            spec["traffic"] = {
                "pattern": self.pattern,
                "load": self.load,
                "packet_flits": self.packet_flits,
            }
            spec["run"]["threads"] = self.threads
            if self.cores:
                spec["run"]["cores"] = self.cores
        return spec

    def row(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "router": self.variant or self.router,
            "topology": self.topology,
            "case": self.kind,
            "pattern": {"load": self.pattern, "zero-load": "ping-pong"}.get(self.kind, ""),
            "packet_flits": self.packet_flits,
            "vcs": self.measured.get("vcs", self.vcs),
            "switching": self.switching,
            "threads": self.threads if self.kind == "load" else 1,
            "load": self.load if self.kind == "load" else None,
            "accepted": self.measured.get("accepted"),
            "accepted_min": self.measured.get("accepted_min"),
            "bound": self.measured.get("bound"),
            "latency_ns": self.measured.get("latency_ns"),
            "formula_ns": self.measured.get("formula_ns"),
            "claims_deadlock_free": self.claims,
            "checks": ", ".join(self.checks),
            "failures": "; ".join(self.failures),
            "seconds": round(self.seconds, 2),
        }


class _Bounds:
    """Throughput bounds, cached per network, pattern and routing."""

    def __init__(self) -> None:
        self.nets: dict[str, routelab.Network] = {}
        self.routes: dict[tuple[str, str], routelab.Routes | None] = {}
        self.cache: dict[tuple[str, str, str], float | None] = {}

    def net(self, topology: str) -> routelab.Network:
        if topology not in self.nets:
            self.nets[topology] = routelab.topology(topology)
        return self.nets[topology]

    def route(self, topology: str, engine: str) -> routelab.Routes | None:
        key = (topology, engine)
        if key not in self.routes:
            try:
                self.routes[key] = routelab.route(self.net(topology), engine)
            except routelab.RoutelabError:
                self.routes[key] = None
        return self.routes[key]

    def bound(self, topology: str, pattern: str, routing: str) -> float | None:
        """Flits per terminal per cycle the channels allow ``pattern`` under
        ``routing``: ``table:ENGINE``, ``minimal`` or ``any``."""
        key = (topology, pattern, routing)
        if key not in self.cache:
            self.cache[key] = self._bound(topology, pattern, routing)
        return self.cache[key]

    def _bound(self, topology: str, pattern: str, routing: str) -> float | None:
        net = self.net(topology)
        n = net.summary()["terminals"]
        if pattern.startswith("hotspot"):
            # A saturated hot spot has no steady state within a window: its
            # backlog grows all run long, so what a source delivers is not
            # the mix it generates and an equal-rate bound does not apply
            # (8x8x8 at load 0.1: every source delivered 0.032 against the
            # hot link's 0.019). Channel utilisation is checked instead.
            return None
        if pattern == "uniform":
            flows = [(s, d) for s in range(n) for d in range(n) if s != d]
            per_source = n - 1
        else:
            flows = [(s, d) for s, d in routelab.pattern(pattern, net) if s != d]
            per_source = 1
        if routing.startswith("table:"):
            routes = self.route(topology, routing.removeprefix("table:"))
            if routes is None:
                return None
            rate = routelab.throughput_bound(net, flows, routelab.channel_loads(routes, flows))
            bps = rate["bound_bps"]
        else:
            bps = routelab.max_concurrent_flow(net, flows, paths=routing, tolerance=0.02)[
                "bound_bps"
            ]
        return None if bps is None else bps * per_source / BANDWIDTH_BPS


def _claims(router: str, topology: str, bounds: _Bounds) -> tuple[bool, str | None]:
    """Whether ``router`` claims deadlock freedom on ``topology``, and the
    engine whose tables' dependency graph backs the claim."""
    family = topology.split(":")[0]
    if router in HOP_ROUTERS:
        fams = HOP_ROUTERS[router]
        engine = SAME_AS_ENGINE.get(router) or ESCAPE_ENGINE.get(router)
        return (fams is None or family in fams), engine
    if router in ENGINES:
        return True, router
    return False, router


def _formula_ps(hops: float, flits: int, switching: str) -> float:
    s = FLIT_BYTES * 8 / BANDWIDTH_BPS * 1e12
    if switching == "store-and-forward":
        return hops * (flits * s + LINK_LATENCY_PS) + (hops - 1) * ROUTING_DELAY_PS
    return hops * (s + LINK_LATENCY_PS) + (hops - 1) * ROUTING_DELAY_PS + (flits - 1) * s


def _run(case: Case, bounds: _Bounds) -> Case:
    import time

    t0 = time.perf_counter()
    try:
        _check(case, bounds)
    finally:
        case.seconds = time.perf_counter() - t0
    return case


def _check(case: Case, bounds: _Bounds) -> None:
    try:
        r = routelab.simulate(case.spec(), progress=False)
    except routelab.DeadlockError as e:
        case.checks.append("deadlock")
        if case.claims:
            case.status = "fail"
            case.failures.append(str(e) if str(e).startswith("deadlock") else f"deadlock: {e}")
        else:
            case.status = "pass"
            case.measured["note"] = "deadlocks (makes no claim here)"
        return
    except (routelab.ConfigError, routelab.RoutingError, routelab.TrafficError) as e:
        if any(m in str(e) for m in _RUN_FAILURES):
            # A router that accepted the network and then lost a packet.
            case.status = "fail"
            case.failures.append(str(e))
        else:
            case.status = "not applicable"
            case.failures.append(f"refused: {e}")
        return
    except routelab.SimulationError as e:
        case.status = "fail"
        case.failures.append(f"simulation error: {e}")
        return
    case.measured["vcs"] = r["vcs"]
    case.checks.append("no deadlock")
    # Conservation.
    case.checks.append("conservation")
    if r["packets_generated"] != r["packets_delivered"] + r["packets_in_flight"]:
        case.failures.append(
            f"conservation: generated {r['packets_generated']} != delivered "
            f"{r['packets_delivered']} + in flight {r['packets_in_flight']}"
        )
    if r["flits_delivered"] > r["flits_generated"]:
        case.failures.append(
            f"conservation: {r['flits_delivered']} flits delivered of "
            f"{r['flits_generated']} generated"
        )
    if case.kind == "zero-load":
        _check_zero_load(case, r, bounds)
    else:
        _check_bound(case, r, bounds)
        if case.pattern == "uniform":
            _check_repeatable(case, r)
    case.status = "fail" if case.failures else "pass"


#: What a seeded run must reproduce exactly.
_FINGERPRINT = ("packets_generated", "packets_delivered", "flit_hops", "latency_mean", "events")


def _check_repeatable(case: Case, first: dict[str, Any]) -> None:
    """The same spec and seed again: the same run, bit for bit."""
    again = routelab.simulate(case.spec(), progress=False)
    case.checks.append("repeatable")
    differ = [k for k in _FINGERPRINT if first.get(k) != again.get(k)]
    if differ:
        case.failures.append(
            "the same seed gave another run: "
            + ", ".join(f"{k} {first.get(k)} then {again.get(k)}" for k in differ)
        )


def _check_zero_load(case: Case, r: dict[str, Any], bounds: _Bounds) -> None:
    hops = r["avg_hops"]
    want = _formula_ps(hops, case.packet_flits, case.switching) / 1000
    got = r["latency_mean"]
    case.measured.update(latency_ns=got, formula_ns=want)
    case.checks.append("zero-load latency")
    if abs(got - want) > 1e-3:
        case.failures.append(
            f"zero-load latency {got:.4f} ns, the formula gives {want:.4f} ns for {hops:g} channels"
        )
    if case.router not in DEROUTING:
        shortest = bounds.route(case.topology, "minhop")
        if shortest is not None:
            least = len(shortest.path(0, case.measured["peer"])) - 1
            case.checks.append("minimal")
            if hops != least:
                case.failures.append(f"route of {hops:g} channels, the shortest has {least}")


def _check_bound(case: Case, r: dict[str, Any], bounds: _Bounds) -> None:
    if case.variant:
        # Minimal, but not the engine's routes: the bound over minimal paths.
        routing = "any" if case.router in DEROUTING else "minimal"
    elif case.router in ENGINES or case.router in SAME_AS_ENGINE:
        routing = f"table:{SAME_AS_ENGINE.get(case.router, case.router)}"
    elif case.router in DEROUTING:
        routing = "any"
    else:
        routing = "minimal"
    bound = bounds.bound(case.topology, case.pattern, routing)
    # The bound is a rate every source gets at once (equal rates): sources
    # whose flows miss the bottleneck may send more, so it bounds the least
    # accepted per source, not the mean.
    least = r["accepted_min"]
    case.measured.update(accepted=r["accepted"], accepted_min=least, bound=bound)
    busiest = r["channel_util_max"]
    case.checks.append("channels at most full")
    if busiest > 1 + 1e-9:
        case.failures.append(f"a channel was busy {busiest:.4f} of the time, more than all of it")
    if bound is None:
        return
    case.checks.append(f"throughput bound ({routing})")
    if least > bound * (1 + BOUND_SLACK) + BOUND_SLACK_ABS:
        case.failures.append(
            f"every source accepted at least {least:.4f} flits/cycle, above the channel-load "
            f"bound {bound:.4f} of its routing ({routing})"
        )


def _check_cdg(router: str, topology: str, engine: str | None, bounds: _Bounds) -> Case | None:
    """The channel dependency graph behind a claim: one case per router and
    network."""
    if engine is None:
        return None
    case = Case(router, topology, "cdg")
    routes = bounds.route(topology, engine)
    if routes is None:
        return None
    case.checks.append(f"acyclic channel dependency graph ({engine} tables)")
    try:
        dl = routes.deadlock()
    except routelab.RoutelabError as e:
        case.status = "fail"
        case.failures.append(f"the {engine} tables cannot be checked: {e}")
        return case
    case.measured["vcs"] = dl["lanes_used"]
    if not dl["deadlock_free"]:
        case.failures.append(f"channel dependency cycle: {dl['cycle']}")
    case.status = "fail" if case.failures else "pass"
    return case


def plan(
    routers: list[str] | None = None,
    *,
    full: bool = False,
    topologies: list[str] | None = None,
    threads: int = 1,
    cores: int = 0,
) -> list[Case]:
    """The cases of the matrix (not yet run). On each network each router runs
    a ping-pong at zero load, then quick: five cases, one per pattern, at loads
    0.3 to 1.5; full: every pattern at every load from 0.1 to 1.5 (25 cases).
    Packet sizes (4, 16, 1 flits), the fewest VCs or one more, and the
    switching modes the router accepts rotate over the cases, so that the
    full matrix holds every combination of them on each network. Load cases
    run split over ``threads`` (``run.threads``) on at most ``cores`` cores each
    (``run.cores``; 0: every core)."""
    names = routers or [*HOP_ROUTERS, *VARIANTS, *ENGINES]
    unknown = [
        n
        for n in names
        if n not in routelab.routing.engines() and n not in _hop_names() and n not in VARIANTS
    ]
    if unknown:
        raise routelab.ConfigError(
            f"validate: unknown router {', '.join(unknown)}; `routelab sim --list` names them"
        )
    topos = topologies or list(FULL_TOPOLOGIES if full else QUICK_TOPOLOGIES)
    cases: list[Case] = []
    for name, topology in itertools.product(names, topos):
        variant = name if name in VARIANTS else ""
        router = VARIANTS[name][0] if variant else name
        claims = router in HOP_ROUTERS or router in ENGINES
        zero = Case(router, topology, "zero-load", variant=variant, claims=claims)
        zero.switching = "cut-through" if router in _WHOLE_PACKETS else "wormhole"
        cases.append(zero)
        modes = [m for m in SWITCHING if not (router in _WHOLE_PACKETS and m == "wormhole")]
        # Each pattern at each load; packet size, VC count and switching mode
        # rotate so that every combination of them appears on the network.
        grid = (
            [(p, load) for load in FULL_LOADS for p in PATTERNS]
            if full
            else [(p, QUICK_LOADS[k]) for k, p in enumerate(PATTERNS)]
        )
        combos = []
        swap = FAMILY_PATTERNS.get(topology.split(":")[0], {})
        for k, (pattern, load) in enumerate(grid):
            pattern = swap.get(pattern, pattern)
            flits, extra, mode = _rotation(k, len(modes), full)
            combos.append((pattern, FLITS[flits], extra, modes[mode], load))
        for pattern, flits, extra_vcs, switching, load in combos:
            cases.append(
                Case(
                    router,
                    topology,
                    "load",
                    pattern=pattern,
                    packet_flits=flits,
                    extra_vcs=extra_vcs,
                    switching=switching,
                    load=load,
                    variant=variant,
                    claims=claims,
                    threads=1 if router in READS_ANYWHERE else threads,
                    cores=cores,
                )
            )
    return cases


def _rotation(k: int, modes: int, full: bool) -> tuple[int, int, int]:
    """The packet size, extra VCs and switching mode (indices) of the k-th case
    of a router on one network: in full mode each combination once over 3 x 2 x
    modes consecutive cases; in quick mode each value of each within the five
    cases."""
    if full:
        return k % 3, (k // 3) % 2, (k // 6) % modes
    return k % 3, k % 2, k % modes


#: What a router error says when it fails during a run rather than refusing
#: the network or settings before it.
_RUN_FAILURES = ("no route at switch", "which has no such channel", "internal:")

#: Bubble routers: whole-packet allocation only.
_WHOLE_PACKETS = {"abr", "dor-bubble", "por", "ofr", "rdr"}


def _hop_names() -> set[str]:
    return {name for name, _ in routelab.routing.usage(routers=True)}


def _fewest_vcs(router: str, variant: str, topology: str, switching: str) -> int | None:
    """The VCs the router needs on the network (``router.vcs = 0``)."""
    probe = Case(router, topology, "load", switching=switching, load=0.01, variant=variant)
    spec = probe.spec()
    spec["run"] = {"warmup_cycles": 0, "measure_cycles": 10, "drain_cycles": 0}
    try:
        return int(routelab.simulate(spec, progress=False)["vcs"])
    except routelab.RoutelabError:
        return None


def run(
    routers: list[str] | None = None,
    *,
    full: bool = False,
    topologies: list[str] | None = None,
    out: str | Path | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    threads: int = 1,
    cores: int = 0,
) -> Any:
    """Runs the validation matrix and returns one row per case (a pandas
    DataFrame with ``status`` pass, fail or not applicable, the checks made and the
    failures). With ``out``, writes ``validate.csv``, ``validate.html`` and a
    spec (TOML) for each failed case under that directory. ``threads`` runs
    each load case split over that many threads (``run.threads``) on at most
    ``cores`` cores (``run.cores``; 0: every core), with fewer runs at once by
    default."""
    import pandas as pd

    from routelab.progress import Progress

    cases = plan(routers, full=full, topologies=topologies, threads=threads, cores=cores)
    bounds = _Bounds()
    extra: list[Case] = []
    fewest: dict[tuple[str, str, str], int | None] = {}
    for case in cases:
        case.claims, engine = _claims(case.router, case.topology, bounds)
        if case.variant:
            # Its routes are not the engine's tables (ties, lanes).
            engine = None
        if case.kind == "zero-load":
            n = bounds.net(case.topology).summary()["terminals"]
            case.measured["peer"] = n - 1
            cdg = _check_cdg(case.router, case.topology, engine, bounds)
            if cdg is not None:
                extra.append(cdg)
        else:
            key = (case.router, case.variant, case.topology, case.switching)
            if key not in fewest:
                fewest[key] = _fewest_vcs(*key)
            base = fewest[key]
            # A router that refuses the network or mode says so when run.
            case.vcs = 0 if base is None else base + case.extra_vcs
    per_run = max(1, min(threads, cores) if cores else threads)
    workers = workers or max(1, (os.cpu_count() or 1) // per_run)
    with (
        Progress("validating", total=len(cases), show=progress) as bar,
        ThreadPoolExecutor(workers) as pool,
    ):
        for _ in pool.map(lambda c: (_run(c, bounds), bar.advance()), cases):
            pass
    done = extra + cases
    table = pd.DataFrame([c.row() for c in done])
    if out is not None:
        write(table, done, Path(out))
    return table


def write(table: Any, cases: list[Case], out: Path) -> Path:
    """``validate.csv``, ``validate.html`` and ``failed/*.toml`` under ``out``."""
    import pandas as pd

    from routelab.experiment.report import _CSS, html_table

    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "validate.csv", index=False)
    failed = [c for c in cases if c.status == "fail" and c.kind != "cdg"]
    if failed:
        (out / "failed").mkdir(exist_ok=True)
        for i, case in enumerate(failed):
            who = (case.variant or case.router).replace(":", "-")
            name = f"{i:03d}-{who}-{case.topology.split(':')[0]}.toml"
            text = (
                f"# Failed validation: {'; '.join(case.failures)[:500]}\n"
                f"# Reproduce: routelab sim {name}\n" + toml_text.dumps(case.spec())
            )
            (out / "failed" / name).write_text(text)
    counts = table["status"].value_counts().to_dict()
    summary = ", ".join(f"{counts.get(k, 0)} {k}" for k in ("pass", "fail", "not applicable"))
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    css = _CSS + "td.long { text-align: left; }\n"
    per_router = (
        table.assign(n=1)
        .pivot_table(index="router", columns="status", values="n", aggfunc="sum", fill_value=0)
        .reindex(columns=["pass", "fail", "not applicable"], fill_value=0)
        .reset_index()
    )
    ran = table[table["status"] != "not applicable"]
    hidden = ("failures", "claims_deadlock_free")
    columns = [c for c in ran.columns if c not in hidden and ran[c].notna().any()]
    parts = [
        "<h2>Per router</h2>",
        html_table(per_router, ["failed" if f else "" for f in per_router["fail"]]),
    ]
    bad = table[table["status"] == "fail"]
    if len(bad):
        names = iter(sorted(p.name for p in (out / "failed").glob("*.toml")))
        rows = []
        for row in bad.itertuples():
            spec = next(names, "") if row.case != "cdg" else ""
            rows.append((row.router, row.topology, row.case, row.failures, spec))
        parts += [
            "<h2>Failures</h2><p>Each failed run has its spec under <code>failed/</code>: "
            "<code>routelab sim failed/NAME.toml</code> reproduces it.</p>",
            html_table(
                pd.DataFrame(rows, columns=["router", "topology", "case", "failure", "spec"]),
                ["failed"] * len(rows),
            ),
        ]
    parts += [
        "<h2>Cases run</h2><p>One row per simulation, or per check of a routing's channel "
        "dependency graph (<code>cdg</code>). Loads are offered flits per terminal per cycle; "
        "<code>accepted_min</code> is the least any source got, and <code>bound</code> the "
        "rate the channels allow every source at once under that routing; latencies are one "
        "way, in ns, measured and by the formula.</p>",
        html_table(ran[columns], ["failed" if s == "fail" else "" for s in ran["status"]]),
    ]
    refused = table[table["status"] == "not applicable"]
    if len(refused):
        why = (
            refused.assign(reason=refused["failures"].str.removeprefix("refused: "))
            .groupby(["router", "reason"], sort=True)["topology"]
            .agg(lambda t: ", ".join(sorted(set(t))))
            .reset_index()[["router", "topology", "reason"]]
        )
        parts += [
            "<h2>Not applicable</h2><p>Cases a router or pattern refuses before running, "
            "with its reason.</p>",
            html_table(why),
        ]
    page = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>routelab validate</title><style>{css}</style></head><body>"
        f"<h1>Validation</h1><p class=sub>{html.escape(summary)}; written {stamp}</p>"
        + "".join(parts)
        + "</body></html>"
    )
    path = out / "validate.html"
    path.write_text(page)
    return path
