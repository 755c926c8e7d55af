"""`routelab validate` with each load case split over threads (``run.threads``):
the quick matrix passes as it does run whole. A file of its own, so that the
test runner can give it a worker of its own.

Two parts: every router's packets, credits and deadlock watch cross a part
boundary. Each case runs its two parts on one core (``run.cores``), two cases
at a time: the result is that of two threads, and CI's two cores, shared with
its other test worker, are not outnumbered by spinning threads. Runs of three
and five parts on separate threads, and on fewer cores than parts, are
compared with sequential ones and with each other in the Rust suite
(`tests/suite/sim_parallel.rs`)."""

from __future__ import annotations

import pytest

from routelab import validation

# One of the two longest files: they start first, one on each worker (conftest.py).
pytestmark = pytest.mark.slow(240)


def test_the_quick_matrix_passes_split_over_threads():
    table = validation.run(threads=2, cores=1, progress=False)
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
