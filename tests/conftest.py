import subprocess
import sys

import pytest


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
