import subprocess
import sys

import pytest


def pytest_collection_modifyitems(items):
    """The longest files first. `make test` hands each worker one file at a
    time (pytest-xdist, ``--dist loadfile --no-loadscope-reorder``): a long
    file handed out last would run alone at the end while the other workers
    idle. A file's ``pytestmark = pytest.mark.slow(SECONDS)`` gives its rough
    length on one core; unmarked files keep their order after the marked."""

    def length(item) -> float:
        mark = item.get_closest_marker("slow")
        return mark.args[0] if mark else 0.0

    items.sort(key=length, reverse=True)


@pytest.fixture
def run_cli():
    """Runs the routelab command line in a subprocess, as a user would."""

    def run(*args: str, cwd=None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "routelab.cli", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=300,
        )

    return run


@pytest.fixture
def dask_scheduler():
    """The address of a Dask scheduler on this machine (one in-process worker
    of two threads, its HTTP server on a free port), for sweeps given ``dask=ADDRESS``."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp://",
        host="127.0.0.1",
        dashboard_address=":0",
    ) as cluster:
        yield cluster.scheduler_address
