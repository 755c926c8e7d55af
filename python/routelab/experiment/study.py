"""A study: a folder of experiment specs, one per table or figure (``PART.toml``),
run in a mode (``full``: the specs as written; another: each spec's
``[variants.MODE]``), turned into CSV tables, figures and a ``summary.md``
written from the folder's Jinja2 template, and compared with published values
(`routelab.experiment.published`) in an HTML report
(`routelab.experiment.study_report`). Resume, progress and workers come from
``routelab.sweep``. Every reproduction of ``routelab reproduce`` is a study;
a study of one's own is a folder of the same shape and a module that turns its
run tables into tables, figures and a summary with the helpers here
(docs/guides/experiments.md, "Studies")."""

from __future__ import annotations

import contextlib
import contextvars
import csv
import json
import os
import platform
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import routelab


@dataclass(frozen=True)
class Config:
    """A study's mode (``full``, or its specs' ``quick`` or ``tiny`` variant)
    and the local workers; what a mode runs is in the specs."""

    mode: str
    workers: int = 2


def config(quick: bool = False, tiny: bool = False, workers: int = 2) -> Config:
    return Config("tiny" if tiny else "quick" if quick else "full", workers)


def write_csv(path: Path, fields: Sequence[str] | None, rows: Iterable[dict[str, Any]]) -> None:
    """``rows`` under the header ``fields``; ``None``: the first row's keys, in order."""
    rows = list(rows)
    if fields is None:
        fields = list(rows[0]) if rows else []
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return lines


def fmt(x: Any, digits: int = 2) -> str:
    """A number for a table; ``-`` for a missing one."""
    if x is None or x == "":
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def figure(width: float = 7.5, height: float = 4.2, layout: str | None = None):
    """A matplotlib figure on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=110, layout=layout)


def save_figure(fig, path: Path, title: str | None = None) -> None:
    """Lays ``fig`` out (under ``title``, if any) and writes it to ``path``."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)


def write_run_json(path: Path, meta: dict[str, Any], workers: int) -> None:
    doc = dict(meta)
    doc.update(
        routelab=routelab.__version__,
        python=platform.python_version(),
        machine=platform.machine(),
        cpus=os.cpu_count(),
        workers=workers,
    )
    path.write_text(json.dumps(doc, indent=2) + "\n")


def summary(folder: Path, template: str = "summary.md.j2", **context: Any) -> str:
    """The study's ``summary.md``: the template ``folder``/summary.md.j2
    (Jinja2) filled from ``context``; ``template`` names another one there,
    such as a part of the summary a test reads alone. The module computes
    numbers and tables; the words live in the template. Filters: ``fmt``,
    ``pct`` (a fraction as a whole percent), ``duration`` and ``table``
    (header, rows: Markdown)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(
        fmt=fmt,
        pct=lambda x: f"{100 * x:.0f}%",
        duration=duration,
        table=lambda rows, header: "\n".join(md_table(header, rows)),
    )
    return env.get_template(template).render(**context)


def duration(seconds: float) -> str:
    """``42 s``, ``3.5 min`` or ``1.2 h``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


# Where a study's sweeps run: the Dask scheduler's address, None for local threads.
_WHERE: contextvars.ContextVar[str | None] = contextvars.ContextVar("where", default=None)


@contextlib.contextmanager
def running_on(dask: str | None = None, slurm: Any = None) -> Iterator[None]:
    """Within it, the study's sweeps (`sweep`, `sweep_specs`) run on the Dask
    scheduler at ``dask``, or on Slurm jobs started once for all of them
    (``slurm``: `routelab.experiment.cluster.SlurmOptions`), instead of
    local threads; sweeps asked to stay local (timings) still do."""
    from routelab.experiment import cluster

    if dask and slurm:
        raise routelab.ConfigError("use --dask ADDRESS or --slurm, not both")
    with contextlib.ExitStack() as stack:
        if slurm is not None:
            jobs = stack.enter_context(contextlib.closing(cluster.slurm_cluster(slurm)))
            jobs.scale(jobs=slurm.jobs)
            dask = jobs.scheduler_address
        token = _WHERE.set(dask or None)
        stack.callback(_WHERE.reset, token)
        yield


# Whether a study only renders what has finished (`finished_only`).
_FINISHED_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("finished", default=False)


@contextlib.contextmanager
def finished_only() -> Iterator[None]:
    """Within it, `sweep_specs` simulates nothing: it reads the runs finished so
    far (a search whose journal is finished counts) for tables of what is done
    while the rest runs, or before it ever does."""
    token = _FINISHED_ONLY.set(True)
    try:
        yield
    finally:
        _FINISHED_ONLY.reset(token)


def sweep(exp: Any, out: Path, workers: int, quiet: bool = True, local: bool = False) -> Any:
    """``routelab.sweep`` of ``exp`` into ``out``: on ``workers`` local threads,
    or where `running_on` says unless ``local``; its outcome."""
    dask = None if local else _WHERE.get()
    return routelab.sweep(exp, out, workers=workers, quiet=quiet, dask=dask)


def sweep_specs(
    folder: Path,
    parts: Sequence[str],
    mode: str,
    out: Path,
    workers: int,
    progress: bool,
    accept: Sequence[str] = ("ok",),
    artefacts: Sequence[str] = (),
    local: bool = False,
    partial: bool = False,
) -> dict[str, Any]:
    """Runs (or resumes) each experiment spec ``folder``/PART.toml, or its
    ``[variants.MODE]`` unless MODE is ``full``, into ``out``/PART, all parts as
    one queue in their order (`run_sweeps`); returns the run tables by part. A
    run whose status is not in ``accept`` (``undrained``, ``deadlock`` and
    ``failed`` may be results too) stops here, named with its error, so no
    table is built from a partial sweep. ``artefacts``: per-run artefacts to
    read into the tables (a search's ``points``); ``local``: on local threads
    wherever the study runs (timings that must not compete). Within
    `finished_only` nothing runs: the tables hold the runs finished so far,
    which a study that renders ``partial`` tables takes (its missing entries
    blank) and any other refuses unless every run has finished."""
    from routelab.experiment import spec as specs
    from routelab.experiment.store import StoreBusy
    from routelab.experiment.sweep import replay_finished, run_sweeps

    exps = {}
    for part in parts:
        path = folder / f"{part}.toml"
        with path.open("rb") as f:
            has = mode in specs.variants(tomllib.load(f))
        if mode != "full" and not has:
            raise ValueError(f"{path} has no [variants.{mode}]: a {mode} run would run it whole")
        exps[part] = specs.load(path, variant=mode if has else None)
    finished_only = _FINISHED_ONLY.get()
    if not finished_only:
        # One queue: a part's runs start once the earlier parts' have, and
        # fill the workers their last runs leave idle.
        jobs = [(exp, out / part) for part, exp in exps.items()]
        run_sweeps(jobs, workers=workers, quiet=not progress, dask=None if local else _WHERE.get())
    tables = {}
    for part, exp in exps.items():
        if finished_only:
            # A sweep writing there records its own searches as they finish.
            with contextlib.suppress(StoreBusy):
                replay_finished(exp, out / part)
        df = routelab.results(out / part, artefacts=artefacts)
        bad = df[~df["status"].isin(accept)]
        missing = len(df) != len(exp.runs)
        if finished_only and missing and not partial and not len(bad):
            raise routelab.ConfigError(
                f"{exp.name}: {len(df)} of {len(exp.runs)} runs finished in {out / part}; "
                "its tables need every run: run it without --finished"
            )
        if len(bad) or (missing and not finished_only):
            first = bad.iloc[0] if len(bad) else None
            why = f"{first['status']}: {first['error']}" if first is not None else "runs missing"
            raise RuntimeError(
                f"{exp.name}: {len(df)} of {len(exp.runs)} runs recorded, {len(bad)} not ok "
                f"({why}); see {out / part}"
            )
        # The parameters of the runs not recorded yet (within `finished_only`).
        done = set(df["key"])
        df.attrs["pending"] = [run.flat for run in exp.runs if run.key not in done]
        tables[part] = df
    return tables


def unfinished(tables: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """``{part: (recorded, runs)}`` of `sweep_specs`' tables that lack runs
    (within `finished_only`)."""
    pending = {part: len(df.attrs.get("pending", ())) for part, df in tables.items()}
    return {part: (len(tables[part]), len(tables[part]) + n) for part, n in pending.items() if n}
