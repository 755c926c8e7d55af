"""The example notebooks run top to bottom, as a reader would run them: each
executed in a fresh kernel with examples/ as its working directory, no cell
raising, the plotting notebooks drawing their figures. The committed files
carry no outputs, so their diffs stay readable."""

import subprocess
import sys
import time
from pathlib import Path

# requirements-dev.txt installs these: a missing one fails the run.
import ipykernel  # noqa: F401
import nbclient
import nbformat
import pytest

pytestmark = pytest.mark.slow(25)  # seconds on one core; see conftest.py

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL = "python3"
CELL_TIMEOUT = 300  # seconds per cell

# notebook: (images it must draw at least, text its outputs must contain)
NOTEBOOKS = {
    "load-latency.ipynb": (1, ["duato saturates at"]),
    "fat-tree-ebb.ipynb": (2, ["dfsssp"]),
    "audit-a-fabric.ipynb": (0, ["PASS: no failures", "src_lid", "4xFDR", "audit.html"]),
}


@pytest.fixture(scope="module")
def kernel():
    """The ``python3`` kernel, installed into this environment when it is
    missing (a fresh venv gets it with ipykernel's wheel)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(KERNEL)
    except NoSuchKernel:
        subprocess.run(
            [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", KERNEL],
            check=True,
            capture_output=True,
        )
    return KERNEL


def _text(output) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    data = output.get("data", {})
    return data.get("text/plain", "") + data.get("text/html", "")


def test_every_notebook_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_committed_notebook_has_no_outputs(name):
    book = nbformat.read(EXAMPLES / name, as_version=4)
    nbformat.validate(book)
    assert book.cells[0].cell_type == "markdown", "a notebook opens with what it shows"
    assert f"examples/{name}" in book.cells[0].source, "the first cell says how to run it"
    for cell in book.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, (
                f"{name}: clear the outputs before committing"
            )


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs(name, kernel, monkeypatch):
    # Inline figures as a reader sees them, whatever backend this shell forces.
    monkeypatch.delenv("MPLBACKEND", raising=False)
    book = nbformat.read(EXAMPLES / name, as_version=4)
    client = nbclient.NotebookClient(
        book,
        timeout=CELL_TIMEOUT,
        kernel_name=kernel,
        resources={"metadata": {"path": str(EXAMPLES)}},
    )
    t0 = time.perf_counter()
    client.execute()  # raises CellExecutionError naming the cell that failed
    print(f"{name}: {time.perf_counter() - t0:.1f} s")
    outputs = [o for c in book.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors
    images, texts = NOTEBOOKS[name]
    drawn = sum("image/png" in o.get("data", {}) for o in outputs)
    assert drawn >= images, f"{name} drew {drawn} figures, expected {images}"
    text = "".join(_text(o) for o in outputs)
    for expected in texts:
        assert expected in text, f"{name}: no output mentions {expected!r}"
