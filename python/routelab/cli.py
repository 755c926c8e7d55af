"""The ``routelab`` command line.

Exit codes, the same on every command: 0 only when the run or the check
succeeded; 2 bad input (a one-line message says what is wrong and how to fix
it); 1 a run that failed (a simulation that deadlocked, with the cycle of
waiting buffers, or one that ran out of time; a saturation search or a sweep
with a deadlocked run) or a check that failed (``route``, ``deadlock`` and
``audit`` finding a dependency cycle, ``audit`` finding pairs without a route
or unreachable LIDs); 3 a simulation that finished but did not drain (the
offered load is beyond saturation). A reader that closes the output early
(``routelab results DIR --json | head``) ends the command quietly with 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import routelab
from routelab import demo, tables
from routelab.experiment import cli as experiment_cli

if TYPE_CHECKING:
    from routelab.progress import Progress


def _fabric(spec: str, args: argparse.Namespace) -> routelab.Network:
    """The network a command works on: the spec or file, in ``--format``, with
    the LIDs of ``--guid2lid``."""
    net = routelab.topology(spec, args.format)
    if getattr(args, "guid2lid", None):
        net = net.with_guid2lid(args.guid2lid)
    return net


def _add_route_sources(p: argparse.ArgumentParser) -> None:
    """Where the routes come from: an engine, or the subnet's own files."""
    _add_format(p)
    p.add_argument("--engine", help="compute routes with this engine")
    p.add_argument("--lfts", metavar="FILE", help="audit an opensm-lfts.dump instead")
    p.add_argument(
        "--sl2vl",
        metavar="FILE",
        help="with --lfts: the subnet's opensm-sl2vl.dump; the lane table's lanes are then "
        "SLs and each hop's VL is the one these tables give",
    )
    p.add_argument(
        "--source-routes",
        metavar="FILE",
        help="audit source routes (ports per switch, '|' at in-transit hosts) instead",
    )
    p.add_argument(
        "--lanes",
        metavar="N|FILE",
        help="lanes allowed (with --engine), or the pair lanes with --lfts: a lane table "
        "'slid dlid lane' or the subnet's opensm-path-records.dump (its SLs)",
    )
    _add_routing_options(p, lanes=False)


def _add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--guid2lid",
        metavar="FILE",
        help="OpenSM's guid2lid file: give the fabric the subnet's LIDs",
    )
    p.add_argument(
        "--format",
        metavar="FMT",
        help="the fabric file's format when its extension does not say: "
        + ", ".join(routelab.fabric_formats())
        + " (default: by extension, else by content; '-' as the file reads standard input)",
    )


def _topo(args: argparse.Namespace) -> int:
    if args.list:
        _print_list(routelab.families())
        return 0
    if not args.spec:
        raise routelab.ConfigError("routelab topo needs a SPEC, e.g. torus:8x8x8 (see --list)")
    net = _fabric(args.spec, args)
    for path in args.output or []:
        net.save(path)
    summary = _summary_with_progress(net)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(tables.summary_table(summary))
        for path in args.output or []:
            print(f"wrote {path}")
    return 0


def _summary_with_progress(net: routelab.Network) -> dict:
    """The summary, with its stages shown on a terminal (large networks take
    minutes); plain when stderr is not a terminal."""
    if not sys.stderr.isatty():
        return net.summary()
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    stages = net.SUMMARY_STAGES
    columns = [
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("stage {task.completed:.0f}/{task.total:.0f}"),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(f"{net.name}: starting", total=len(stages))

        def stage(name: str) -> None:
            bar.update(
                task,
                completed=stages.index(name),
                description=f"{net.name} ({len(net.switches):,} switches): {name}",
            )

        return net.summary(progress=stage)


def _print_list(rows: list[tuple[str, str]]) -> None:
    """One line per name: the name (or syntax), then what it is."""
    width = max(len(name) for name, _ in rows)
    for name, about in rows:
        print(f"{name:<{width}}  {about}")


def _pattern(args: argparse.Namespace) -> int:
    if args.list:
        _print_list(routelab.traffic.usage())
        return 0
    if not args.name or not args.topo:
        raise routelab.ConfigError(
            "routelab pattern needs a NAME and --topo SPEC, "
            "e.g. tornado --topo torus:8x8 (see --list)"
        )
    net = _fabric(args.topo, args)
    pairs = routelab.pattern(args.name, net, seed=args.seed)
    if args.json:
        print(json.dumps({"pattern": args.name, "topology": net.name, "pairs": pairs}))
    else:
        print("source destination")
        for s, d in pairs:
            print(f"{s} {d}")
    return 0


def _routing_options(args: argparse.Namespace) -> dict[str, str]:
    opts: dict[str, str] = {}
    for item in args.option or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise routelab.ConfigError(f"--option takes KEY=VALUE, got '{item}'")
        opts[key.strip()] = value.strip()
    for key in ("max_lanes", "seed", "root", "heuristic"):
        value = getattr(args, key, None)
        if value is not None:
            opts[key] = str(value)
    roots = getattr(args, "roots", None)
    if roots is not None:
        opts["roots"] = _roots(roots)
    return opts


def _roots(value: str) -> str:
    """``--roots``: a file of switch GUIDs, one per line (OpenSM's
    root_guid_file; ``#`` starts a comment), or names/GUIDs separated by commas."""
    path = Path(value)
    if not path.is_file():
        return value
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise routelab.ConfigError(f"--roots {value}: cannot read: {e}") from None
    roots = [line.split("#")[0].strip() for line in lines]
    roots = [r for r in roots if r]
    if not roots:
        raise routelab.ConfigError(f"--roots {value}: the file names no switch")
    return ",".join(roots)


def _route(args: argparse.Namespace) -> int:
    if args.list:
        _print_list(routelab.routing.usage())
        return 0
    if not args.spec or not args.engine:
        raise routelab.ConfigError(
            "routelab route needs a SPEC and --engine NAME, "
            "e.g. torus:8x8 --engine dor (see --list)"
        )
    from routelab.progress import Progress

    with Progress(f"reading {args.spec}", total=3 + bool(args.output)) as bar:
        net = _fabric(args.spec, args)
        opts = _routing_options(args)
        need = routelab.routing.memory_bytes(net, args.engine, **opts)
        bar.stage(f"routing {net.name} with {args.engine} ({_bytes_text(need)} of tables)")
        routes = routelab.route(net, args.engine, **opts)
        bar.stage("checking lanes, deadlock freedom and minimality")
        stats = routes.stats()
        stats["memory_bytes"] = need
        if args.output:
            bar.stage(f"writing {args.output}")
            stats["files"] = [str(p) for p in routes.save(args.output, paths=args.paths)]
            lanes = stats.get("lanes_used") or 1
            if lanes > 1:
                deploy = _deploy_lanes(net, routes, lanes, args.output)
                stats["files"] += deploy
                print(_lanes_warning(routes.engine, lanes, args.output, deploy), file=sys.stderr)
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(tables.key_value_table(list(stats.items())))
    if stats.get("deadlock_free") is False:
        return _check_failed(
            f"the routes of {routes.engine} on {net.name} can deadlock "
            f"(on {stats.get('lanes_used')} lane(s)): {stats.get('cycle')}"
        )
    return 0


def _bytes_text(n: int) -> str:
    """A byte count as people read it."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _deploy_lanes(
    net: routelab.Network, routes: routelab.Routes, lanes: int, out: str
) -> list[str]:
    """For routes on several lanes, where an SL per pair of adapters gives
    every hop its VL: the QoS policy under which OpenSM's SA hands out the
    routes' SLs, and the opensm.conf lines that deploy tables and policy.
    Needs the subnet's LIDs (a fabric read from OpenSM's files, or
    --guid2lid). Returns the files written."""
    from routelab import opensm

    lanes_txt = Path(out) / "lanes.txt"
    per_hop = routes.engine in ("torus-2qos", "dor")  # VLs change along paths
    if per_hop or not lanes_txt.exists() or any(n[3] == 0 for n in net.nodes):
        return []
    policy = Path(out) / "qos-policy.conf"
    policy.write_text(opensm.qos_policy(net, lanes_txt.read_text()))
    lines = opensm.deploy_conf(Path(out).resolve() / "opensm-lfts.dump", policy.resolve(), lanes)
    conf = Path(out) / "opensm-deploy.conf"
    conf.write_text(
        "# routelab: opensm.conf lines that load these tables and hand out their SLs\n"
        + "".join(f"{k} {v}\n" for k, v in lines.items())
    )
    return [str(policy), str(conf)]


def _lanes_warning(engine: str, lanes: int, out: str, deploy: list[str]) -> str:
    """What an administrator must know before deploying multi-lane tables."""
    head = (
        f"routelab: warning: the {engine} routes in {out} are deadlock-free only on "
        f"their {lanes} lanes (service levels). OpenSM's 'file' engine loads "
        "opensm-lfts.dump but no SLs: the SA then hands out SL 0 to every pair, and "
        "these tables deployed that way can deadlock. "
    )
    audit = (
        "Audit the running subnet with 'routelab deadlock FABRIC --lfts "
        "opensm-lfts.dump --lanes opensm-path-records.dump --sl2vl "
        "opensm-sl2vl.dump' taken from OpenSM."
    )
    if deploy:
        return (
            head
            + (
                f"Deploy them with the lines of {deploy[1]} in opensm.conf: the file "
                f"engine with QoS on and the policy {deploy[0]}, under which the SA "
                "hands out each pair's SL (SL i on VL i). "
            )
            + audit
        )
    if engine in ("torus-2qos", "dor"):
        return (
            head
            + (
                "Their VLs change along the path, which SLs per pair cannot express: "
                "run OpenSM's own torus-2QoS instead. "
            )
            + audit
        )
    return (
        head
        + (
            "Route the fabric as OpenSM sees it (opensm-subnet.lst, or --guid2lid) "
            "to get a QoS policy that hands out their SLs. "
        )
        + audit
    )


#: Exit code of a check that failed (a deadlock found, an unreachable LID)
#: and of a run that failed.
FAILED = 1


def _check_failed(why: str) -> int:
    """One line on stderr saying which check failed; the exit code."""
    print(f"routelab: check failed: {why}", file=sys.stderr)
    return FAILED


def _routes_of(
    args: argparse.Namespace, net: routelab.Network, what: str, bar: Progress | None = None
) -> routelab.Routes:
    """The routes a command audits: an engine's, or the subnet's own files.
    ``bar`` (a progress bar) names the step, with an engine the tables' memory
    before they are allocated."""
    by_engine = args.engine and not (args.lfts or args.source_routes)
    if bar is not None and args.lfts and Path(args.lfts).is_file():
        need = routelab.routing.lft_memory_bytes(net, args.lfts)
        bar.stage(f"reading {args.lfts} ({_bytes_text(need)} with its tables)")
    elif bar is not None and not by_engine:
        bar.stage(f"routes of {net.name}")
    if args.sl2vl and not args.lfts:
        raise routelab.ConfigError("--sl2vl goes with --lfts (the subnet's own tables)")
    if args.lfts:
        return routelab.read_lfts(net, args.lfts, lanes=args.lanes, sl2vl=args.sl2vl)
    if args.source_routes:
        return routelab.read_source_routes(net, args.source_routes)
    if not args.engine:
        raise routelab.ConfigError(
            f"routelab {what} needs --engine NAME, --lfts FILE or --source-routes FILE"
        )
    opts = _routing_options(args)
    if args.lanes is not None:
        if not args.lanes.isdigit():
            raise routelab.ConfigError(
                f"--lanes takes a number of lanes (1..15) with --engine, got '{args.lanes}'"
            )
        opts["max_lanes"] = args.lanes
    if bar is not None:
        need = routelab.routing.memory_bytes(net, args.engine, **opts)
        bar.stage(f"routing {net.name} with {args.engine} ({_bytes_text(need)} of tables)")
    return routelab.route(net, args.engine, **opts)


def _deadlock(args: argparse.Namespace) -> int:
    from routelab.progress import Progress

    with Progress(f"reading {args.spec}", total=3) as bar:
        net = _fabric(args.spec, args)
        routes = _routes_of(args, net, "deadlock", bar)
        bar.stage("channel dependency graph: looking for cycles")
        report = routes.deadlock()
    report = {"engine": routes.engine, "network": net.name, **report}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(tables.key_value_table(list(report.items())))
    if not report["deadlock_free"]:
        return _check_failed(f"the routes can deadlock: {report['cycle']}")
    if report.get("dropped_pairs"):
        return _check_failed(
            f"{report['dropped_pairs']} pair(s) are mapped to VL 15 and dropped "
            f"(e.g. {report['dropped_example']})"
        )
    return 0


def _audit(args: argparse.Namespace) -> int:
    from routelab import audit
    from routelab.progress import Progress

    with Progress(f"reading {args.spec}", total=3 + bool(args.html)) as bar:
        net = _fabric(args.spec, args)
        routes = _routes_of(args, net, "audit", bar)
        bar.stage("auditing: lanes, deadlock, minimality, link loads")
        result = audit.audit(net, routes, patterns=args.patterns, seed=args.seed or 0, top=args.top)
        if args.html:
            bar.stage(f"writing {args.html}")
            audit.write_html(result, args.html)
    findings = audit.failures(result)
    if args.json:
        print(audit.to_json(result))
        return _check_failed("; ".join(findings)) if findings else 0
    print(tables.key_value_table(result["summary"]))
    for key, title in (
        ("busiest_all_to_all", "busiest switch links, all-to-all (routes)"),
        ("busiest_bisection", "busiest switch links, random bisections (mean flows)"),
    ):
        df = result[key]
        if len(df):
            print(f"\n{title}")
            cols = [
                "src_name",
                "src_lid",
                "src_port",
                "dst_name",
                "dst_lid",
                "dst_port",
                "class",
                "load",
            ]
            print(df[cols].to_string(index=False))
    if args.html:
        print(f"\nwrote {args.html}")
    return _check_failed("; ".join(findings)) if findings else 0


def _ebb(args: argparse.Namespace) -> int:
    from routelab.progress import Progress

    with Progress(f"reading {args.spec}", total=3) as bar:
        net = _fabric(args.spec, args)
        bar.stage(f"routing {net.name} with {args.engine}")
        routes = routelab.route(net, args.engine, **_routing_options(args))
        bar.stage(f"effective bisection bandwidth over {args.patterns} patterns")
        result = routelab.ebb(
            net,
            routes,
            patterns=args.patterns,
            pattern=args.pattern,
            metric=args.metric,
            seed=args.seed or 0,
            seeding=args.seeding,
        )
    result = {"engine": routes.engine, "network": net.name, **result}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        shown = {k: v for k, v in result.items() if k not in ("per_pattern", "pattern_seeds")}
        print(tables.key_value_table(list(shown.items())))
    return 0


def _loads(args: argparse.Namespace) -> int:
    from routelab.progress import Progress

    net = _fabric(args.spec, args)
    seed = 1 if args.seed is None else args.seed
    flows = [(s, d) for s, d in routelab.pattern(args.pattern, net, seed=seed) if s != d]
    # What was asked: an engine's loads alone, unless a bound is named too.
    bound = args.bound or ("none" if args.engine else "minimal")
    rules = {"both": ["minimal", "any"], "none": []}.get(bound, [bound])
    with Progress("channel loads", total=1 + len(rules)) as bar:
        if args.engine:
            routes = routelab.route(net, args.engine, **_routing_options(args))
            loads, routing = routelab.channel_loads(routes, flows), routes.engine
        else:
            loads, routing = routelab.minimal_split_loads(net, flows), "even split"
        result = {
            "network": net.name,
            "pattern": args.pattern,
            "routing": routing,
            **routelab.throughput_bound(net, flows, loads),
        }
        bar.advance()
        for paths in rules:
            best = routelab.max_concurrent_flow(net, flows, paths=paths)
            for key in ("bound_bps", "bound_gamma0", "reached_bps", "reached_gamma0", "gap"):
                result[f"{paths}_{key}"] = best[key]
            bar.advance()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(tables.key_value_table(list(result.items())))
    return 0


def _sets(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise routelab.ConfigError(
                f"--set takes KEY=VALUE (e.g. traffic.load=0.3), got '{item}'"
            )
        out[key.strip()] = value.strip()
    return out


#: Exit code of a simulation that finished without draining.
UNDRAINED = 3


def _warn(result: dict) -> None:
    """Each of a result's warnings once on stderr."""
    for w in dict.fromkeys(result.get("warnings") or ()):
        print(f"routelab: warning: {w}", file=sys.stderr)


def _needs_spec(args: argparse.Namespace) -> Path:
    if not args.spec:
        raise routelab.ConfigError(
            f"routelab {args.command} needs a SPEC, e.g. examples/torus-dor.toml "
            "(--list shows the routing algorithms a spec can name)"
        )
    return Path(args.spec)


def _sim(args: argparse.Namespace) -> int:
    if args.list:
        _print_list(routelab.routing.usage(routers=True))
        return 0
    spec, sets = _needs_spec(args), _sets(args.set)
    if sys.stderr.isatty():
        need = routelab.sim.memory_bytes(spec, sets)
        print(f"routelab: simulator state about {_bytes_text(need)}", file=sys.stderr)
    result = routelab.simulate(spec, sets)
    _warn(result)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        flags = [(k, False) for k in ("drained", "converged") if result.get(k) is False]
        keys = (
            "offered",
            "accepted",
            "accepted_min",
            "accepted_max",
            "latency_mean",
            "latency_p99",
            "avg_hops",
            "packets_delivered",
            "flit_hops",
            "simulated_ps",
            "wall_seconds",
            "events",
        )
        transit = [
            (k, result.get(k))
            for k in ("transits", "transit_peak_bytes", "transit_spills")
            if result.get("transits")
        ]
        rows = [(k, result.get(k)) for k in keys] + transit + flags
        print(tables.key_value_table(rows, tables.SIM_UNITS))
    if result.get("drained") is False:
        print(_undrained_warning(result, spec, sets), file=sys.stderr)
        return UNDRAINED
    return 0


def _undrained_warning(result: dict, spec: Any, sets: dict[str, str]) -> str:
    """Why a run did not drain, and what its numbers stand for: a load beyond saturation only
    where the run waited for its measured packets."""
    if result.get("stopped_backlog"):
        return (
            "routelab: warning: the run did not drain: it stopped in its warm-up, its backlog "
            "growing past run.stop_backlog; the offered load is not sustained and nothing was "
            "measured (its rates read 0)."
        )
    left = result["packets_measured"] - result["packets_measured_delivered"]
    head = (
        f"routelab: warning: the run did not drain: {left} of the "
        f"{result['packets_measured']} packets generated while measuring were not delivered"
    )
    if result.get("drain_skipped"):
        return (
            f"{head}: the measurement did not converge and run.drain_unconverged is false, so "
            "the run ended with it; the offered load is not sustained."
        )
    emptied = "the network is not deadlocked (it emptied once injection stopped)"
    run = tomllib.loads(routelab.sim.check(spec, sets)).get("run", {})
    drain = run.get("drain_cycles")
    if drain == 0:
        return (
            f"{head}: run.drain_cycles is 0, so the run ended with its measurement without "
            f"waiting for them, and {emptied}. Whether the load is sustained needs a drain: "
            "leave run.drain_cycles out (twice run.measure_cycles) or give it a length."
        )
    within = "twice run.measure_cycles" if drain is None else f"{drain} cycles"
    return (
        f"{head} within the drain ({within}). The offered load is beyond what the network "
        f"sustains (a drain much shorter than the measurement may cut a sustained one short); "
        f"{emptied}, so the numbers stand as a point beyond saturation."
    )


def _load_list(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected loads such as 0.1,0.2,0.3, got '{text}'"
        ) from None


def _saturate(args: argparse.Namespace) -> int:
    result = routelab.saturate(
        _needs_spec(args),
        _sets(args.set),
        low=args.low,
        high=args.high,
        tolerance=args.tolerance,
        resolution=args.resolution,
        steps=args.steps,
        bisect=True if args.bisect else None,
        require_converged=False if args.no_convergence else None,
        journal=args.journal,
        scan=args.scan,
        scan_misses=args.scan_misses,
        require_drained=False if args.no_drain else None,
        drain_unsustained=False if args.skip_short_drains else None,
    )
    _warn(result)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for line in saturation_lines(result):
            print(line)
    dead = [p for p in result["points"] if p["status"] == "deadlock"]
    if dead:
        # A deadlock is a failed run, even inside a search that found its answer.
        print(
            f"routelab: error: {len(dead)} of the {len(result['points'])} loads tried "
            f"deadlocked; the lowest, {dead[0]['load']:.4g}: {dead[0]['error']}",
            file=sys.stderr,
        )
        return 1
    return 0


#: How ``routelab saturate`` names each load unit.
UNITS = {
    "flits": "flits/terminal/cycle",
    "gbps": "Gb/s per terminal",
    "bisection": "gamma0 (bisection units)",
}


def saturation_lines(result: dict) -> list[str]:
    """The answer of a saturation search, then one line per load measured."""
    unit = UNITS.get(result.get("load_unit", ""), result.get("load_unit", ""))
    high, low = result["bracket_high"], result["bracket_low"]
    if not result["saturated"]:
        what = "the injection bandwidth" if low <= result["bound"] * (1 + 1e-9) else "above it"
        head = [
            f"not saturated up to {low:.4g} {unit} ({what}; the bound is "
            f"{result['bound']:.4g}): every load up to it was sustained"
        ]
    elif result["saturation"] is None:
        head = [f"saturation below {high:.4g} {unit}: no load tried was sustained"]
    else:
        head = [
            f"saturation  {result['saturation']:.4g} {unit}: sustained; {high:.4g} is not "
            f"(bracket width {result['bracket_width']:.2g}, resolution "
            f"{result['resolution']:.2g})",
            f"offered     {result['offered']:.4g} flits/terminal/cycle there, measured",
        ]
    sources = {p["sources"] for p in result["points"] if p.get("sources") is not None}
    terminals = result.get("terminals")
    if sources and max(sources) < terminals:
        n = max(sources)
        head.append(
            f"            offered is per terminal: {n} of {terminals} terminals send; the "
            f"pattern maps the other {terminals - n} to themselves"
        )
    rows = [f"{'load':<11} {'offered':<11} {'accepted':<11} {'latency_mean':<13} status"]
    for p in result["points"]:

        def num(v: float | None, width: int) -> str:
            return f"{'-' if v is None else format(v, '.4g'):<{width}}"

        rows.append(
            f"{p['load']:<11.4g} {num(p['offered'], 11)} {num(p['accepted'], 11)} "
            f"{num(p['latency_mean'], 13)} {p['status']}"
        )
    return head + rows


def _validate(args: argparse.Namespace) -> int:
    from routelab import validation

    table = validation.run(
        args.router,
        full=args.full,
        topologies=args.topology,
        out=args.out,
        workers=args.workers,
        threads=args.threads,
        cores=args.cores,
    )
    failed = table[table["status"] == "fail"]
    if args.json:
        print(table.to_json(orient="records", indent=2))
    else:
        counts = table["status"].value_counts().to_dict()
        shown = table[table["status"] != "not applicable"]
        cols = ["status", "router", "topology", "case", "pattern", "packet_flits", "vcs"]
        cols += ["switching", "load", "accepted_min", "bound", "latency_ns", "formula_ns"]
        print(shown[cols].to_string(index=False, na_rep="-"))
        for row in failed.itertuples():
            print(f"FAIL {row.router} on {row.topology} ({row.case}): {row.failures}")
        print(
            f"{counts.get('pass', 0)} passed, {counts.get('fail', 0)} failed, "
            f"{counts.get('not applicable', 0)} not applicable"
        )
    if args.out:
        print(
            f"wrote {args.out}/validate.html, validate.csv" + (", failed/" if len(failed) else "")
        )
    return 1 if len(failed) else 0


def _bench(args: argparse.Namespace) -> int:
    from routelab import bench

    rows = bench.run(quick=args.quick)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(row.pop("name"))
            print("  " + tables.key_value_table(list(row.items())).replace("\n", "\n  "))
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from routelab import reproduce

    out = Path(args.out or f"reproduce-{args.name}")
    if args.workers is not None and args.workers < 1:
        raise routelab.ConfigError(f"--workers {args.workers} is not valid: expected N >= 1")
    slurm = experiment_cli.slurm_options(args, f"reproduce-{args.name}", out)
    summary = reproduce.run(
        args.name,
        out,
        quick=args.quick,
        workers=args.workers,
        dask=args.dask,
        slurm=slurm,
        finished=args.finished,
    )
    print(f"wrote {out}/ (summary: {summary}, report: {out / 'report.html'})")
    return 0


def _demo(args: argparse.Namespace) -> int:
    demo.run(Path(args.out), quiet=args.quiet)
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="routelab",
        description="Design, verify and simulate routing in HPC interconnection networks.",
    )
    p.add_argument("--version", action="version", version=f"routelab {routelab.__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    t = sub.add_parser("topo", help="build or import a fabric and summarise it")
    t.add_argument("spec", nargs="?", help="e.g. torus:8x8x8, kary-ntree:k=4,n=3, fabric.ibnet")
    _add_format(t)
    t.add_argument("--json", action="store_true", help="print the summary as JSON")
    t.add_argument(
        "-o",
        "--output",
        action="append",
        metavar="FILE",
        help="write the fabric (.json, .ibnet, .ports, .lst or .dot); may be repeated",
    )
    t.add_argument("--list", action="store_true", help="list the topology families")
    t.set_defaults(run=_topo)

    pt = sub.add_parser("pattern", help="print the (source, destination) pairs of a pattern")
    pt.add_argument(
        "name", nargs="?", help="e.g. uniform, bit-reverse, tornado, hotspot:f=0.1, bisect:dir=one"
    )
    _add_format(pt)
    pt.add_argument("--topo", metavar="SPEC", help="the network")
    pt.add_argument("--list", action="store_true", help="list the patterns and their parameters")
    pt.add_argument("--seed", type=int, default=1)
    pt.add_argument("--json", action="store_true")
    pt.set_defaults(run=_pattern)

    r = sub.add_parser("route", help="compute routes and check them (lanes, deadlock, minimality)")
    r.add_argument("spec", nargs="?", help="the network: a topology spec or fabric file")
    _add_format(r)
    r.add_argument("--engine", help="e.g. minhop, dfsssp, updown, dor, dmodk")
    r.add_argument("--list", action="store_true", help="list the routing engines")
    _add_routing_options(r)
    r.add_argument("--json", action="store_true")
    r.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="write the LFT dump, lane table and, when SLs are used, SL-to-VL tables and "
        "path records: every file the deadlock verdict depends on",
    )
    r.add_argument(
        "--paths",
        action="store_true",
        help="with -o: also write paths.jsonl (one line per pair: large on big fabrics)",
    )
    r.set_defaults(run=_route)

    dl = sub.add_parser("deadlock", help="check routes for deadlock (channel dependency cycles)")
    dl.add_argument("spec", help="the network: a topology spec or fabric file")
    _add_route_sources(dl)
    dl.add_argument("--json", action="store_true")
    dl.set_defaults(run=_deadlock)

    au = sub.add_parser(
        "audit",
        help="audit routes on a fabric: deadlock or the cycle, unreachable LIDs, detours, "
        "busiest links, eBB (table, JSON, HTML)",
    )
    au.add_argument("spec", help="the network: a topology spec or fabric file")
    _add_route_sources(au)
    au.add_argument(
        "--patterns",
        type=int,
        default=100,
        help="random bisections for the busiest links and the eBB (default 100; 0: none)",
    )
    au.add_argument("--top", type=int, default=10, help="busiest links listed (default 10)")
    au.add_argument("--html", metavar="FILE", help="also write the audit as an HTML page")
    au.add_argument("--json", action="store_true")
    au.set_defaults(run=_audit)

    e = sub.add_parser("ebb", help="effective bisection bandwidth of a routing (flow level)")
    e.add_argument("spec", help="the network: a topology spec or fabric file")
    _add_format(e)
    e.add_argument("--engine", required=True, help="the routing engine")
    e.add_argument("--patterns", type=int, default=1000, help="number of patterns (default 1000)")
    e.add_argument("--pattern", help="bisect (default: random bisections) or any pattern spec")
    e.add_argument("--metric", default="orcs", choices=["orcs", "maxmin"])
    e.add_argument(
        "--seeding",
        choices=["drawn", "consecutive"],
        help="pattern seeds drawn from --seed (default), or --seed, --seed + 1, ...: "
        "the patterns of simulations with those run seeds",
    )
    _add_routing_options(e)
    e.add_argument("--json", action="store_true")
    e.set_defaults(run=_ebb)

    ld = sub.add_parser(
        "loads", help="channel loads of a pattern and the throughput they allow (flow level)"
    )
    ld.add_argument("spec", help="the network: a topology spec or fabric file")
    _add_format(ld)
    ld.add_argument("--pattern", required=True, help="e.g. transpose, bit-reverse, uniform")
    ld.add_argument(
        "--engine",
        help="route with this engine (default: every flow split evenly over its minimal paths)",
    )
    _add_routing_options(ld)
    ld.add_argument("--json", action="store_true")
    ld.add_argument(
        "--bound",
        choices=["minimal", "any", "both", "none"],
        default=None,
        help="also the best any routing over minimal paths / all paths gives (maximum "
        "concurrent flow: a certified bound and a rate a routing reaches; default minimal "
        "without --engine, none with it)",
    )
    ld.set_defaults(run=_loads)

    sm = sub.add_parser("sim", help="run one packet/flit simulation from a TOML spec")
    sm.add_argument(
        "spec", nargs="?", help="the experiment spec (TOML), e.g. examples/torus-dor.toml"
    )
    sm.add_argument(
        "--list",
        action="store_true",
        help="list what routing.algorithm takes (hop routers, then engines)",
    )
    sm.add_argument(
        "--set", action="append", metavar="KEY=VALUE", help="override a key, e.g. traffic.load=0.4"
    )
    sm.add_argument("--json", action="store_true")
    sm.set_defaults(run=_sim)

    sa = sub.add_parser("saturate", help="find the highest load a network sustains")
    sa.add_argument("spec", nargs="?", help="the experiment spec (TOML)")
    sa.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a key")
    sa.add_argument(
        "--low", type=float, help="lower end of the first bracket (the spec's load_unit)"
    )
    sa.add_argument(
        "--high",
        type=float,
        help="upper end of the first bracket (default: the injection bandwidth); an end on "
        "the wrong side of the knee moves the bracket by doubling steps",
    )
    sa.add_argument(
        "--tolerance", type=float, help="accepted within this share of offered counts as sustained"
    )
    sa.add_argument(
        "--resolution",
        type=float,
        help="stop when the bracket is this narrow (the spec's load_unit; default 1%% of the "
        "injection bandwidth)",
    )
    sa.add_argument(
        "--steps", type=int, help="at most this many narrowing steps (two loads each; default 10)"
    )
    sa.add_argument(
        "--bisect",
        action="store_true",
        help="narrow by halves, one load a step, instead of by thirds with two loads side by "
        "side (fewer loads in all, for searches run side by side on every core)",
    )
    sa.add_argument(
        "--no-convergence",
        action="store_true",
        help="count a load sustained when it drains and accepts what it offers, without the "
        "convergence test (for runs with few packets)",
    )
    sa.add_argument(
        "--scan",
        type=_load_list,
        metavar="L1,L2,...",
        help="run these loads first, ascending, until --scan-misses in a row are not "
        "sustained (a load-latency curve); the bracket follows from them (no --low/--high)",
    )
    sa.add_argument(
        "--scan-misses", type=int, help="loads in a row not sustained that end the scan (2)"
    )
    sa.add_argument(
        "--no-drain",
        action="store_true",
        help="judge a load without the drain (with --no-convergence: by accepted against "
        "offered alone)",
    )
    sa.add_argument(
        "--skip-short-drains",
        action="store_true",
        help="do not drain a load whose measurement already accepted too little (the same "
        "verdicts, cheaper past saturation)",
    )
    sa.add_argument(
        "--journal",
        metavar="FILE",
        help="keep each load in FILE as it is measured; run again with the same FILE, a "
        "search that was stopped resumes without running those loads again",
    )
    sa.set_defaults(list=False)
    sa.add_argument("--json", action="store_true")
    sa.set_defaults(run=_saturate)

    va = sub.add_parser(
        "validate",
        help="check routers that claim deadlock freedom: no deadlock, conservation, "
        "zero-load latency, throughput bounds, acyclic dependencies",
    )
    va.add_argument(
        "--router",
        action="append",
        metavar="NAME",
        help="validate this router or engine (repeatable; default: every one that claims "
        "deadlock freedom)",
    )
    mode = va.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the CI matrix (default)")
    mode.add_argument("--full", action="store_true", help="the whole matrix (long)")
    va.add_argument("--topology", action="append", metavar="SPEC", help="only these networks")
    va.add_argument(
        "--out", metavar="DIR", help="write validate.html, validate.csv and failed specs"
    )
    va.add_argument("--workers", type=int, help="runs at once (default: one per core)")
    va.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="run each load case split over N threads (run.threads; default 1)",
    )
    va.add_argument(
        "--cores",
        type=int,
        default=0,
        metavar="N",
        help="run a split load case on at most N cores (run.cores; default: every core)",
    )
    va.add_argument("--json", action="store_true")
    va.set_defaults(run=_validate)

    b = sub.add_parser("bench", help="measure the standard speed configurations here")
    b.add_argument("--quick", action="store_true", help="shorter runs")
    b.add_argument("--json", action="store_true")
    b.set_defaults(run=_bench)

    _add_experiment_commands(sub)

    from routelab.reproduce import names as reproductions

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a paper's experiments: CSV tables, plots, summary.md, report.html",
    )
    rp.add_argument("name", choices=reproductions(), help="the reproduction")
    rp.add_argument("--quick", action="store_true", help="smaller networks and fewer samples")
    rp.add_argument("--out", metavar="DIR", help="output directory (default: reproduce-NAME)")
    rp.add_argument(
        "--finished",
        action="store_true",
        help="simulate nothing: render the tables from the runs finished in DIR so far "
        "(searches whose journals are finished included); versaci2013 leaves the rest blank",
    )
    rp.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="simulations at a time (default: all cores; timings still run one at a time)",
    )
    experiment_cli.add_cluster_arguments(rp)
    rp.set_defaults(run=_reproduce)

    d = sub.add_parser("demo", help="run the main job on an embedded default")
    d.add_argument("--out", default="demo", help="output directory (default: demo)")
    d.add_argument("--quiet", action="store_true", help="no progress bars")
    d.set_defaults(run=_demo)
    return p


def _add_experiment_commands(sub: argparse._SubParsersAction) -> None:
    """Sweeps, plots and reports live in routelab.experiment; they add their own commands."""
    experiment_cli.register(sub)


def _add_routing_options(p: argparse.ArgumentParser, lanes: bool = True) -> None:
    if lanes:
        p.add_argument("--max-lanes", dest="max_lanes", type=int, help="1..15 (default 8)")
    p.add_argument("--seed", type=int)
    p.add_argument("--root", help="root switch of up*/down*: its name, GUID (0x...) or index")
    p.add_argument(
        "--roots",
        metavar="FILE|LIST",
        help="root switches of ftree: a file of GUIDs, one per line (OpenSM's "
        "root_guid_file), or names/GUIDs separated by commas",
    )
    p.add_argument("--heuristic", help="dfsssp cycle breaking: weakest, heaviest, first, online")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="any other engine option")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:
        # The reader stopped (`| head`): what it wanted was written. Send the
        # rest to /dev/null so that the flush at exit stays quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (routelab.DeadlockError, routelab.SimulationError) as e:
        print(f"routelab: error: {e}", file=sys.stderr)
        # A simulation that deadlocked or ran out of time failed; the same
        # errors from routing name a bad input (too few lanes allowed).
        return 1 if args.command in ("sim", "saturate") else 2
    except routelab.RoutelabError as e:
        print(f"routelab: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"routelab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("routelab: interrupted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
