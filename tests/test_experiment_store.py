"""The result store: atomic writes, records, the run table, resume planning."""

import json
import os
import textwrap

import pandas as pd
import pytest

import routelab
from routelab.experiment import spec as specs
from routelab.experiment import store as stores
from routelab.experiment.store import Store
from routelab.experiment.sweep import plan

SPEC = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "store-test"

    [network]
    topology = ["torus:4x4", "kary-ntree:k=2,n=2"]

    [routing]
    algorithm = ["minhop", "dfsssp"]
    """
)


def outcome(status="ok", **metrics):
    return {
        "status": status,
        "metrics": metrics,
        "artefacts": {},
        "error": None if status == "ok" else "RoutingError: no",
        "wall_seconds": 0.01,
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:00:01+00:00",
        "host": "h",
        "routelab_version": routelab.__version__,
    }


def test_atomic_write_replaces_whole_files_and_leaves_nothing_behind(tmp_path, monkeypatch):
    path = tmp_path / "f.json"
    stores.atomic_write(path, "old")
    stores.atomic_write(path, "new")
    assert path.read_text() == "new"

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        stores.atomic_write(path, "partial")
    assert path.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]


def test_records_artefacts_and_the_run_table(tmp_path):
    exp = specs.parse(SPEC)
    store = Store.create_or_resume(tmp_path / "x", exp)
    assert (store.root / "spec.toml").read_text() == SPEC
    r0, r1, r2 = exp.runs[:3]
    store.write_run(r0, outcome(lanes=1, avg_hops=2.5), attempts=1, session="s1")
    out = outcome(lanes=2, avg_hops=2.5)
    out["artefacts"] = {"hist": {"bins": [0, 1], "counts": [3]}, "cycle": ["a", "b"]}
    store.write_run(r1, out, attempts=1, session="s1")
    store.write_run(r2, outcome("failed"), attempts=2, session="s1")

    assert sorted(os.listdir(store.root / "artefacts" / r1.key)) == ["cycle.json", "hist.json"]
    assert store.artefact(r1.key, "hist") == {"bins": [0, 1], "counts": [3]}
    assert store.artefact(r0.key, "hist") is None

    df = routelab.results(store.root)
    assert list(df["key"]) == [r0.key, r1.key, r2.key]
    assert list(df["status"]) == ["ok", "ok", "failed"]
    assert list(df.columns[:5]) == [
        "key",
        "index",
        "status",
        "network.topology",
        "routing.algorithm",
    ]
    assert list(df["lanes"][:2]) == [1, 2]
    assert pd.isna(df["lanes"][2])
    assert df["error"][2] == "RoutingError: no"
    assert list(df["attempts"]) == [1, 1, 2]
    assert set(df["routelab_version"]) == {routelab.__version__}
    with_art = routelab.results(store.root, artefacts=["cycle"])
    assert list(with_art["cycle"]) == [None, ["a", "b"], None]

    # a rerun replaces the earlier attempt's artefacts
    again = outcome(lanes=2)
    again["artefacts"] = {"hist": [1, 2]}
    store.write_run(r1, again, attempts=1, session="s2")
    assert sorted(os.listdir(store.root / "artefacts" / r1.key)) == ["hist.json"]
    store.write_run(r1, outcome(lanes=2), attempts=1, session="s3")
    assert not (store.root / "artefacts" / r1.key).exists()


def test_the_run_table_has_one_column_per_quantity(tmp_path):
    # A result that repeats its parameter in every row is left out; one that
    # differs somewhere (the lanes used against routing.max_lanes) is kept
    # under result.<name>; the consolidated table keeps every result.
    spec = SPEC.replace('["minhop", "dfsssp"]', '"minhop"\nmax_lanes = 4')
    exp = specs.parse(spec)
    store = Store.create_or_resume(tmp_path / "x", exp)
    for run, used in zip(exp.runs, (4, 2), strict=True):
        topology = run.params["network"]["topology"]
        metrics = {"network": topology, "router": "minhop", "max_lanes": used, "lanes": 1}
        store.write_run(run, outcome(**metrics), attempts=1, session="s")
    df = routelab.results(store.root)
    assert not {"network", "router", "max_lanes"} & set(df.columns), list(df.columns)
    assert list(df["routing.max_lanes"]) == [4, 4]
    assert list(df["result.max_lanes"]) == [4, 2]
    assert list(df["lanes"]) == [1, 1]
    assert {"network", "router", "max_lanes"} <= set(store.consolidate().columns)


def test_the_parquet_table_matches_the_records_and_stays_fresh(tmp_path):
    exp = specs.parse(SPEC)
    store = Store.create_or_resume(tmp_path / "x", exp)
    for i, run in enumerate(exp.runs[:3]):
        store.write_run(run, outcome(lanes=i, minimal=i % 2 == 0), attempts=1, session="s")
    from_records = routelab.results(store.root)
    consolidated = store.consolidate()
    pd.testing.assert_frame_equal(consolidated, from_records)
    on_disk = pd.read_parquet(store.root / "runs.parquet")
    assert list(on_disk["key"]) == list(from_records["key"])
    pd.testing.assert_frame_equal(routelab.results(store.root), from_records)

    # A run finished after the consolidation, and a failed run retried: both show.
    store.write_run(exp.runs[3], outcome(lanes=9), attempts=1, session="t")
    store.write_run(exp.runs[0], outcome(lanes=7), attempts=2, session="t")
    df = routelab.results(store.root)
    assert list(df["lanes"]) == [7, 1, 2, 9]
    assert list(df["session"]) == ["t", "s", "s", "t"]


def test_a_directory_with_another_spec_is_refused(tmp_path):
    exp = specs.parse(SPEC)
    Store.create_or_resume(tmp_path / "x", exp)
    # comments and layout do not matter
    same = specs.parse("# a comment\n" + SPEC.replace("[routing]", "\n[routing]\n"))
    Store.create_or_resume(tmp_path / "x", same)
    other = specs.parse(SPEC.replace('"dfsssp"]', '"sssp"]'))
    with pytest.raises(routelab.ConfigError) as e:
        Store.create_or_resume(tmp_path / "x", other)
    assert "different spec" in str(e.value) and "routing.algorithm" in str(e.value)
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "notes.txt").write_text("mine")
    with pytest.raises(routelab.ConfigError, match="not an experiment directory"):
        Store.create_or_resume(tmp_path / "y", exp)
    with pytest.raises(routelab.ConfigError, match="not an experiment directory"):
        routelab.results(tmp_path / "y")


def test_one_sweep_at_a_time_writes_a_directory(tmp_path):
    store = Store.create_or_resume(tmp_path / "x", specs.parse(SPEC))
    (store.root / "runs" / ".abc.json.123.tmp").write_text("half a record")
    with store.lock():
        assert not list((store.root / "runs").glob(".*.tmp"))
        with pytest.raises(routelab.ConfigError, match=f"pid {os.getpid()}"), store.lock():
            pass
    with store.lock():  # released
        pass


def test_plan_skips_finished_runs_and_retries_failed_ones_on_request():
    exp = specs.parse(SPEC)
    a, b, c, d = (r.key for r in exp.runs)
    records = {
        a: {"status": "ok", "attempts": 1},
        b: {"status": "failed", "attempts": 1},
        c: {"status": "failed", "attempts": 3},
    }

    def keys(runs):
        return [r.key for r in runs]

    todo, done = plan(exp, records)
    assert keys(todo) == [d] and keys(done) == [a, b, c]
    todo, _ = plan(exp, records, retry_failed=True)
    assert keys(todo) == [b, c, d]
    todo, _ = plan(exp, records, retries=2)
    assert keys(todo) == [b, d]  # c has had its three attempts
    todo, _ = plan(exp, records, retries=3)
    assert keys(todo) == [b, c, d]


def test_records_are_json_with_the_run_parameters(tmp_path):
    exp = specs.parse(SPEC)
    store = Store.create_or_resume(tmp_path / "x", exp)
    run = exp.runs[1]
    store.write_run(run, outcome(lanes=3), attempts=1, session="s")
    rec = json.loads((store.root / "runs" / f"{run.key}.json").read_text())
    assert rec["params"] == {"network.topology": "torus:4x4", "routing.algorithm": "dfsssp"}
    assert rec["metrics"] == {"lanes": 3}
    assert rec["status"] == "ok" and rec["session"] == "s" and rec["index"] == 1
