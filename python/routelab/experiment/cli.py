"""The experiment commands of the ``routelab`` command line: sweep, results,
plot and report. Heavy modules load inside the handlers, so ``routelab --help``
stays fast."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from routelab._core import ConfigError
from routelab.experiment import kinds

BOOKKEEPING = ["started", "host", "session", "kind", "artefacts", "routelab_version", "index"]


def register(sub: argparse._SubParsersAction) -> None:
    """Adds ``sweep``, ``results``, ``plot`` and ``report`` to the main parser."""
    s = sub.add_parser(
        "sweep",
        help="run (or resume) the runs of an experiment spec",
        description="Runs every run of SPEC locally on all cores (default), on an existing "
        "Dask scheduler (--dask) or on Slurm jobs (--slurm). Running it again on the same "
        "--out directory resumes: finished runs are kept, the others run.",
    )
    s.add_argument("spec", metavar="SPEC.toml", help="the experiment spec")
    s.add_argument("--out", metavar="DIR", help="experiment directory (default results/NAME)")
    s.add_argument(
        "--variant", metavar="NAME", help="run the spec's [variants.NAME] (e.g. quick) instead"
    )
    s.add_argument("--dry-run", action="store_true", help="list the runs (key, parameters)")
    s.add_argument("--json", action="store_true", help="with --dry-run: one JSON object per run")
    s.add_argument("--workers", type=int, metavar="N", help="local threads (default: all cores)")
    s.add_argument("--retries", type=int, default=0, metavar="N", help="retry a failed run N times")
    s.add_argument(
        "--retry-failed",
        action="store_true",
        help="rerun runs recorded as failed or deadlock in DIR",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    g = add_cluster_arguments(s)
    g.add_argument("--job-script", action="store_true", help="print the Slurm job script and exit")
    s.set_defaults(run=_sweep)

    r = sub.add_parser("results", help="print the run table of an experiment directory")
    r.add_argument("dir", metavar="DIR")
    fmt = r.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="JSON lines, one run per line")
    fmt.add_argument("--csv", action="store_true", help="CSV")
    r.add_argument(
        "--status",
        choices=kinds.STATUSES,
        help="only runs with this status (undrained: beyond saturation; deadlock: the "
        "simulation, or a load of the saturation search, deadlocked)",
    )
    r.add_argument("--all", action="store_true", help="include bookkeeping columns")
    r.add_argument("--columns", metavar="A,B,...", help="only these columns")
    r.set_defaults(run=_results)

    p = sub.add_parser(
        "plot",
        help="plot the results of an experiment",
        description="Without --y, writes the standard figures of the experiment's kind. "
        "Column names may be shortened: 'load' finds 'traffic.load', 'routing' finds "
        "the routing column that varies.",
    )
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--x", help="x axis column (e.g. load)")
    p.add_argument("--y", help="y axis column or artefact (e.g. latency_mean)")
    p.add_argument("--hue", help="one line or bar colour per value of this column")
    p.add_argument("--facet", help="one panel per value of this column")
    p.add_argument(
        "--kind",
        default="auto",
        choices=("auto", "line", "bar", "cdf", "hist", "heatmap"),
        help="auto: line for a numeric x, bar otherwise",
    )
    p.add_argument(
        "--run", dest="run_key", metavar="KEY", help="with --kind heatmap: the run to draw"
    )
    p.add_argument("--title")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="FILE.png|svg|pdf (with --y), or a directory for the standard figures "
        "(default DIR/figures)",
    )
    p.set_defaults(run=_plot)

    rp = sub.add_parser("report", help="write a self-contained HTML report of experiments")
    rp.add_argument("dir", metavar="DIR", nargs="+", help="one or more experiment directories")
    rp.add_argument("-o", "--output", metavar="FILE", help="default DIR/report.html (first DIR)")
    rp.add_argument("--title", help="title of a report on several experiments")
    rp.set_defaults(run=_report)


def add_cluster_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """--dask and the Slurm options, for every command that sweeps; returns the
    Slurm group."""
    parser.add_argument(
        "--dask", metavar="ADDRESS", help="use this Dask scheduler, tcp://host:8786"
    )
    g = parser.add_argument_group("Slurm (dask-jobqueue)")
    g.add_argument("--slurm", action="store_true", help="run the workers as Slurm jobs")
    g.add_argument("--queue", help="partition (#SBATCH -p)")
    g.add_argument("--account", help="account to charge (#SBATCH -A)")
    g.add_argument("--walltime", default="01:00:00", help="per job (#SBATCH -t), default 01:00:00")
    g.add_argument("--cores", type=int, default=1, help="cores per job (worker threads)")
    g.add_argument("--memory", default="4GB", help="memory per job (#SBATCH --mem), default 4GB")
    g.add_argument("--jobs", type=int, default=1, help="number of jobs (workers), default 1")
    g.add_argument(
        "--sbatch",
        action="append",
        metavar="OPTION",
        help="any other sbatch option, e.g. --sbatch=--constraint=skylake; may be repeated",
    )
    g.add_argument(
        "--prologue",
        action="append",
        metavar="COMMAND",
        help="a command the job runs before the worker (module load ...); may be repeated",
    )
    return g


def slurm_options(args: argparse.Namespace, name: str, out: Path) -> Any:
    """The Slurm jobs that ``args`` ask for (None without --slurm), named after
    ``name``, their logs in ``out``/slurm-logs."""
    from routelab.experiment import cluster

    if not (args.slurm or getattr(args, "job_script", False)):
        return None
    return cluster.SlurmOptions(
        queue=args.queue,
        account=args.account,
        walltime=args.walltime,
        cores=args.cores,
        memory=args.memory,
        jobs=args.jobs,
        job_name=f"routelab-{name}"[:64],
        directives=list(args.sbatch or []),
        prologue=list(args.prologue or []),
        log_directory=str(out / "slurm-logs"),
    )


def _sweep(args: argparse.Namespace) -> int:
    from routelab.experiment import cluster, sweep
    from routelab.experiment import spec as specs

    exp = specs.load(args.spec, variant=args.variant)
    slurm = slurm_options(args, exp.name, Path(args.out or sweep.default_out(exp)))
    if args.job_script:
        logs = Path(slurm.log_directory)
        created = [p for p in (logs, *logs.parents) if not p.exists()]
        c = cluster.slurm_cluster(slurm)
        try:
            print(c.job_script())
        finally:
            c.close()
            for p in created:  # only printing: leave no directories behind
                if p.is_dir() and not any(p.iterdir()):
                    p.rmdir()
        return 0
    if args.dry_run:
        sweep.validate_runs(exp)
        _print_dry_run(exp, sweep.dry_run(exp, args.out), as_json=args.json)
        return 0
    outcome = sweep.run_sweep(
        exp,
        args.out,
        dask=args.dask,
        slurm=slurm,
        workers=args.workers,
        retries=args.retries,
        retry_failed=args.retry_failed,
        quiet=args.quiet,
    )
    if not args.quiet:
        print(outcome.summary(), file=sys.stderr)
    for count, status in ((outcome.failed, "failed"), (outcome.deadlocked, "deadlock")):
        if count:
            what = "failed" if status == "failed" else "deadlocked"
            print(
                f"routelab: {count} run(s) {what}; see: routelab results {outcome.out} "
                f"--status {status}",
                file=sys.stderr,
            )
    return 1 if outcome.failed or outcome.deadlocked else 0


def _print_dry_run(exp, rows: list[dict], *, as_json: bool) -> None:
    from routelab.experiment import kinds

    if as_json:
        for row in rows:
            print(json.dumps(row))
        return
    varying = exp.varying
    print(f"experiment '{exp.name}' ({exp.kind}): {len(rows)} runs")
    for key, value in exp.fixed.items():
        print(f"  {key} = {json.dumps(value)}")
    missing = kinds.get(exp.kind).missing()
    if missing:
        print(
            f"  note: this build lacks {', '.join('routelab.' + m for m in missing)}; "
            "these runs cannot run yet"
        )
    for row in rows:
        params = "  ".join(f"{k}={_short(row['params'].get(k))}" for k in varying)
        print(f"{row['key']}  {row['status']:<7}  {params}")


def _short(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _results(args: argparse.Namespace) -> int:
    import pandas as pd

    import routelab
    from routelab.experiment.store import Store

    df = routelab.results(args.dir)
    invalid = Store.open(args.dir).invalid_records()
    if invalid:
        print(
            f"routelab: {len(invalid)} invalid run record(s) left out; "
            "`routelab sweep` on this directory runs them again",
            file=sys.stderr,
        )
    if args.status:
        df = df[df["status"] == args.status]
    if args.columns:
        wanted = [c.strip() for c in args.columns.split(",") if c.strip()]
        from routelab.experiment.plot import resolve_column

        df = df[[resolve_column(df, c) for c in wanted]]
    elif not args.all:
        df = df.drop(columns=[c for c in BOOKKEEPING if c in df.columns])
        if "error" in df.columns and df["error"].isna().all():
            df = df.drop(columns=["error"])
    if args.json:
        for row in df.to_dict("records"):
            print(json.dumps({k: (None if _isna(v) else v) for k, v in row.items()}, default=str))
    elif args.csv:
        df.to_csv(sys.stdout, index=False)
    else:
        if not args.columns and not args.all:
            from routelab.experiment.plot import reading_order

            df, same = reading_order(df)
            if same:
                print("every run: " + ", ".join(f"{k}={v}" for k, v in same.items()))
        with pd.option_context("display.max_rows", None, "display.max_columns", None):
            print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0


def _isna(v) -> bool:
    return isinstance(v, float) and v != v


def _plot(args: argparse.Namespace) -> int:
    from routelab.experiment import plot

    if args.y is None:
        if args.x or args.hue or args.facet:
            raise ConfigError("--x, --hue and --facet need --y (the column to plot)")
        out = Path(args.output) if args.output else Path(args.dir) / "figures"
        for path in plot.standard_figures(args.dir, out):
            print(f"wrote {path}")
        return 0
    out = Path(args.output) if args.output else None
    path = plot.plot(
        args.dir,
        x=args.x,
        y=args.y,
        hue=args.hue,
        facet=args.facet,
        kind=args.kind,
        run=args.run_key,
        title=args.title,
        logy=args.logy,
        output=out,
    )
    print(f"wrote {path}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from routelab.experiment import report

    out = Path(args.output) if args.output else Path(args.dir[0]) / "report.html"
    report.write_report(args.dir, out, title=args.title)
    print(f"wrote {out}")
    return 0
