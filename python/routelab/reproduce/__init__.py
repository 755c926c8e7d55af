"""Reproductions of published experiments: ``routelab reproduce NAME``.

Each reproduction is a study (`routelab.experiment.study`): the folder of
experiment specs ``specs/<name>/`` with its summary's templates, the paper's
published values ``papers/<name>.toml`` (`routelab.experiment.published`),
and a module with ``run(out: Path, quick: bool) -> Path`` that sweeps the
specs into subdirectories of ``out`` (a second run resumes), writes CSV
tables, PNG plots and a ``summary.md`` putting the measured numbers beside
the paper's into ``out`` and returns the summary's path; `run` then writes
``report.html``, which joins the published values onto those tables.
``REGISTRY`` maps a name to its module; modules are imported only when run.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from routelab._core import ConfigError
from routelab.experiment import published as _published

PAPERS = Path(__file__).parent / "papers"

REGISTRY: dict[str, str] = {
    "domke2011": "routelab.reproduce.domke2011",
    "flich2000": "routelab.reproduce.flich2000",
    "geoffray2008": "routelab.reproduce.geoffray2008",
    "parker": "routelab.reproduce.parker",
    "versaci2013": "routelab.reproduce.versaci2013",
}


def names() -> list[str]:
    """The reproductions available, by name."""
    return sorted(REGISTRY)


def module(name: str) -> ModuleType:
    """The module of reproduction ``name``."""
    if name not in REGISTRY:
        raise ConfigError(f"unknown reproduction '{name}': expected one of {', '.join(names())}")
    return importlib.import_module(REGISTRY[name])


def run(
    name: str,
    out: str | Path,
    quick: bool = False,
    workers: int | None = None,
    dask: str | None = None,
    slurm: Any = None,
    finished: bool = False,
) -> Path:
    """Runs reproduction ``name`` into directory ``out`` with ``workers``
    simulations at a time (default: all cores), or its sweeps on the Dask
    scheduler ``dask`` or on Slurm jobs (``slurm``:
    `routelab.experiment.cluster.SlurmOptions`), and writes its
    ``report.html`` there; returns its ``summary.md``. A subset of a
    reproduction (one network size, one table) is a variant of its specs,
    run with ``routelab sweep``. ``finished``: simulate nothing and render what
    has finished in ``out`` (`routelab.experiment.study.finished_only`); a
    reproduction whose tables need every run refuses while runs are missing."""
    import contextlib

    from routelab.experiment import study

    workers = workers or os.cpu_count() or 1
    only = study.finished_only() if finished else contextlib.nullcontext()
    with study.running_on(dask, slurm), only:
        summary = module(name).run(Path(out), quick=quick, workers=workers)
    write_report(name, out)
    return summary


def published(name: str) -> _published.Paper:
    """The published values of reproduction ``name`` (``papers/<name>.toml``)."""
    return _published.load(PAPERS / f"{name}.toml", name)


def write_report(name: str, out: str | Path) -> Path:
    """Writes ``out``/report.html: the paper's published values beside the
    measured ones (``papers/<name>.toml``), the result tables and the sweeps."""
    module(name)  # the name is checked
    from routelab.experiment import study_report

    return study_report.write(out, published(name), f"reproduction {name}")
