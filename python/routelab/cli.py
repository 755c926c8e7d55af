"""The ``routelab`` command line.

Exit codes: 0 success, 2 bad input (a one-line message says what is wrong and
how to fix it), 1 a run that failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import routelab
from routelab import demo, tables


def _topo(args: argparse.Namespace) -> int:
    if args.list:
        for name, usage in routelab.families():
            print(f"{name:<12} {usage}")
        return 0
    if not args.spec:
        raise routelab.ConfigError("routelab topo needs a SPEC, e.g. torus:8x8x8 (see --list)")
    net = routelab.topology(args.spec)
    for path in args.output or []:
        net.save(path)
    summary = net.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(tables.summary_table(summary))
        for path in args.output or []:
            print(f"wrote {path}")
    return 0


def _pattern(args: argparse.Namespace) -> int:
    net = routelab.topology(args.topo)
    pairs = routelab.pattern(args.name, net, seed=args.seed)
    if args.json:
        print(json.dumps({"pattern": args.name, "topology": net.name, "pairs": pairs}))
    else:
        print("source destination")
        for s, d in pairs:
            print(f"{s} {d}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    demo.run(Path(args.out))
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
    t.add_argument("--json", action="store_true", help="print the summary as JSON")
    t.add_argument(
        "-o",
        "--output",
        action="append",
        metavar="FILE",
        help="write the fabric (.json, .ibnet or .dot); may be repeated",
    )
    t.add_argument("--list", action="store_true", help="list the topology families")
    t.set_defaults(run=_topo)

    pt = sub.add_parser("pattern", help="print the (source, destination) pairs of a pattern")
    pt.add_argument("name", help="e.g. uniform, bit-reverse, tornado, hotspot:f=0.1, bisect")
    pt.add_argument("--topo", required=True, metavar="SPEC", help="the network")
    pt.add_argument("--seed", type=int, default=1)
    pt.add_argument("--json", action="store_true")
    pt.set_defaults(run=_pattern)

    d = sub.add_parser("demo", help="run the main job on an embedded default")
    d.add_argument("--out", default="demo", help="output directory (default: demo)")
    d.set_defaults(run=_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
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
