"""The Python entry points of the experiment layer: ``routelab.results`` and
``routelab.sweep``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from routelab.experiment.sweep import Outcome


def results(directory: str | Path, *, artefacts: Iterable[str] = ()) -> pd.DataFrame:
    """The run table of an experiment directory as a pandas DataFrame: one row
    per finished run with its key, status, parameters (dotted names such as
    ``routing.algorithm``), metrics, error, attempts, wall time, routelab
    version and timestamps. Each name in ``artefacts`` adds a column holding
    that per-run artefact (a list, dict or DataFrame; None where missing)."""
    from routelab.experiment.store import Store

    return Store.open(directory).table(artefacts=artefacts)


def sweep(spec: str | Path, out: str | Path | None = None, **options: Any) -> Outcome:
    """Runs or resumes the sweep of the spec file ``spec`` into ``out`` (default
    ``results/<name>``). Options: ``dask`` (scheduler address), ``slurm``
    (`routelab.experiment.cluster.SlurmOptions`), ``workers`` (local
    threads), ``retries``, ``retry_failed``, ``quiet`` (default True),
    ``variant`` (the spec's ``[variants.NAME]`` instead of the spec).
    Returns an `routelab.experiment.sweep.Outcome` with the counts."""
    from routelab.experiment.sweep import run_sweep

    return run_sweep(spec, out, **options)
