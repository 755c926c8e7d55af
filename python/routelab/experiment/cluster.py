"""Where the runs of a sweep execute: a Dask client on a local cluster, an
existing scheduler, or Slurm jobs started through dask-jobqueue.

The local default is a ``LocalCluster`` with ``processes=False``: one worker
in this process with a thread per core. The engine releases the GIL around
every long Rust call, so threads run runs in parallel, and they share the
loaded library without process start-up, pickling of results or a server for
the user to start (the scheduler talks to the worker over ``inproc://``).
On Slurm each job runs one worker process with a thread per core, for the
same reason.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from routelab._core import ConfigError

if TYPE_CHECKING:
    from dask_jobqueue import SLURMCluster
    from distributed import Client


@dataclass
class SlurmOptions:
    """Slurm jobs that run Dask workers (each job: one worker, ``cores`` threads)."""

    queue: str | None = None
    walltime: str = "01:00:00"
    cores: int = 1
    memory: str = "4GB"
    jobs: int = 1
    account: str | None = None
    job_name: str = "routelab"
    directives: list[str] = field(default_factory=list)
    prologue: list[str] = field(default_factory=list)
    log_directory: str | None = None
    python: str = sys.executable


def slurm_cluster(opts: SlurmOptions) -> SLURMCluster:
    """A dask-jobqueue SLURMCluster for ``opts`` (no jobs submitted until scaled)."""
    try:
        from dask_jobqueue import SLURMCluster
    except ImportError as e:  # pragma: no cover - a dependency of routelab
        raise ConfigError("--slurm needs dask-jobqueue: pip install dask-jobqueue") from e
    if opts.cores < 1 or opts.jobs < 1:
        raise ConfigError("--cores and --jobs take integers >= 1")
    return SLURMCluster(
        queue=opts.queue,
        account=opts.account,
        walltime=opts.walltime,
        cores=opts.cores,
        processes=1,
        memory=opts.memory,
        job_name=opts.job_name,
        job_extra_directives=list(opts.directives),
        job_script_prologue=list(opts.prologue),
        log_directory=opts.log_directory,
        python=opts.python,
        silence_logs="error",
    )


@contextlib.contextmanager
def client(
    address: str | None = None,
    slurm: SlurmOptions | None = None,
    workers: int | None = None,
) -> Iterator[Client]:
    """A Dask client for the sweep; closes what it started on exit."""
    import dask
    from distributed import Client, LocalCluster

    if address and slurm:
        raise ConfigError("use --dask ADDRESS or --slurm, not both")
    if address:
        try:
            # waits distributed.comm.timeouts.connect (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
            c = Client(address)
        except (OSError, TimeoutError) as e:
            raise ConfigError(
                f"cannot reach the Dask scheduler at {address}: {e}; "
                "check the address (e.g. tcp://host:8786) and that the scheduler runs"
            ) from e
        try:
            yield c
        finally:
            c.close()
        return
    # Without the scheduler's queue every task goes to a worker when it is
    # submitted, and a worker starts its tasks by priority: the sweep's order.
    # (Queued, the first tasks of each kind would skip the queue and start
    # before earlier runs of another kind.) A sweep's few thousand tasks
    # cost the workers no memory to hold.
    with dask.config.set({"distributed.scheduler.worker-saturation": math.inf}):
        if slurm:
            cluster = slurm_cluster(slurm)
            cluster.scale(jobs=slurm.jobs)
        else:
            threads = workers or os.cpu_count() or 1
            if threads < 1:
                raise ConfigError("--workers takes an integer >= 1")
            cluster = LocalCluster(
                n_workers=1,
                threads_per_worker=threads,
                processes=False,
                # The scheduler's HTTP server on a free port: on 8787 two
                # sweeps at once would warn that it is taken.
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
    try:
        c = Client(cluster)
        try:
            yield c
        finally:
            c.close()
    finally:
        cluster.close()
