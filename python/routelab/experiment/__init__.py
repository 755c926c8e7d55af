"""Experiments: specs with sweep axes, sweeps on Dask, a resumable result
store, plots and HTML reports.

>>> import routelab
>>> outcome = routelab.sweep("examples/sweeps/route-engines.toml", "results/route-engines")
>>> df = routelab.results("results/route-engines")   # one row per run

The heavy dependencies (Dask, pandas, matplotlib) load when first used.
"""

from routelab.experiment.api import results

__all__ = ["results"]
