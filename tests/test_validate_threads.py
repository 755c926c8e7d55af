"""`routelab validate` with each load case split over threads (``run.threads``):
the quick matrix passes as it does run whole. A file of its own, so that the
test runner can give it a worker of its own.

Two parts: every router's packets, credits and deadlock watch cross a part
boundary. Runs of three and five parts, where a part has two neighbours,
are compared with sequential ones in the Rust suite
(`tests/suite/sim_parallel.rs`). Three parts here, beside CI's other test
worker, outnumber the cores twice over: on `torus:8x8` 240 s against 152 s
for two (BENCHMARKS.md, the test suite)."""

from __future__ import annotations

import pytest

from routelab import validation

# The longest file, so it starts first (conftest.py).
pytestmark = pytest.mark.slow(550)


def test_the_quick_matrix_passes_split_over_threads():
    table = validation.run(threads=2, progress=False)
    failed = table[table["status"] == "fail"]
    assert failed.empty, failed[["router", "topology", "case", "failures"]].to_string()
    loads = table[(table["case"] == "load") & (table["status"] == "pass")]
    split = loads[~loads["router"].isin(validation.READS_ANYWHERE)]
    assert (split["threads"] == 2).all() and len(split) > 150
    assert (loads[loads["router"].isin(validation.READS_ANYWHERE)]["threads"] == 1).all()
    assert loads["checks"].str.contains("repeatable").sum() >= len(validation.ENGINES)
    # No router of the matrix refuses a split (probing dispersive routing,
    # which reads channels anywhere, would).
    refused = table[table["failures"].str.contains("run.threads", na=False)]
    assert refused.empty, refused.to_string()
