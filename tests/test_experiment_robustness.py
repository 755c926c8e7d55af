"""The store trusts nothing it reads: damaged run records are left out and
run again, specs that are not UTF-8 are exit 2 with the place named, the
directory lock comes before the spec check, and a closed stdout ends a
command quietly."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import routelab
from routelab.experiment import spec as specs
from routelab.experiment import store as stores
from routelab.experiment.store import Store, record_problem
from routelab.experiment.sweep import plan

SPEC = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "robust"

    [network]
    topology = ["torus:3x3", "kary-ntree:k=2,n=2"]

    [routing]
    algorithm = ["minhop", "dfsssp"]
    """
)


def outcome(**metrics):
    return {
        "status": "ok",
        "metrics": metrics,
        "artefacts": {},
        "error": None,
        "wall_seconds": 0.01,
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:00:01+00:00",
        "host": "h",
        "routelab_version": routelab.__version__,
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def damage(draw, record: dict) -> bytes:
    """A record file as a disk, an editor or another tool may leave it."""
    hows = ["drop", "retype", "status", "key", "cut", "bytes", "flip", "other"]
    how = draw(st.sampled_from(hows))
    rec = dict(record)
    if how == "drop":
        rec.pop(draw(st.sampled_from(sorted(rec))))
    elif how == "retype":
        rec[draw(st.sampled_from(sorted(rec)))] = draw(JSON)
    elif how == "status":
        rec["status"] = draw(st.text(max_size=10))
    elif how == "key":
        rec["key"] = draw(st.text(max_size=20))
    elif how == "other":
        return json.dumps(draw(JSON)).encode()
    text = json.dumps(rec).encode()
    if how == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if how == "bytes":
        return draw(st.binary(max_size=64))
    if how == "flip":
        i = draw(st.integers(0, len(text) - 1))
        return text[:i] + bytes([draw(st.integers(0, 255))]) + text[i + 1 :]
    return text


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_damaged_records_are_left_out_and_planned_again(tmp_path_factory, data):
    exp = specs.parse(SPEC)
    store = Store.create_or_resume(tmp_path_factory.mktemp("s") / "x", exp)
    for i, run in enumerate(exp.runs):
        store.write_run(run, outcome(lanes=i), attempts=1, session="s")
    store.consolidate()  # the parquet cache must not bring a damaged record back
    victims = data.draw(st.sets(st.integers(0, len(exp.runs) - 1), min_size=1))
    for i in victims:
        path = store.record_path(exp.runs[i].key)
        path.write_bytes(data.draw(damage(json.loads(path.read_text()))))
        os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)

    records, invalid = store.scan()
    for key, rec in records.items():
        assert record_problem(rec, key) is None
    assert set(records) | set(invalid) == {r.key for r in exp.runs}
    # Untouched records stay as written; a damaged file that is still a
    # valid record (a field retyped to a value of its own type) reads as is.
    for i, run in enumerate(exp.runs):
        if i not in victims:
            assert records[run.key]["metrics"] == {"lanes": i}
        elif run.key in records:
            assert records[run.key] == json.loads(store.record_path(run.key).read_bytes())
    # The table, hence results, plot and report, reads only valid records.
    df = routelab.results(store.root)
    assert sorted(df["key"]) == sorted(records)
    assert all(df["status"] == "ok")
    todo, done = plan(exp, records)
    assert {r.key for r in todo} == set(invalid)
    assert {r.key for r in done} == set(records)


def test_a_record_with_missing_fields_or_an_unknown_status_is_invalid():
    assert record_problem({"key": "k", "status": "ok"}, "k") == "no 'index'"
    exp = specs.parse(SPEC)
    todo, done = plan(exp, {exp.runs[0].key: {"status": "maybe", "attempts": 1}})
    assert exp.runs[0] in todo and not done


def sweep(run_cli, tmp_path, *extra):
    return run_cli("sweep", str(tmp_path / "spec.toml"), "--out", str(tmp_path / "out"), *extra)


def test_a_sweep_reruns_damaged_records_and_says_so_once(tmp_path, run_cli):
    (tmp_path / "spec.toml").write_text(SPEC)
    first = sweep(run_cli, tmp_path, "--quiet")
    assert first.returncode == 0, first.stderr
    store = Store.open(tmp_path / "out")
    keys = [r.key for r in store.experiment().runs]
    before = {k: store.record_path(k).read_text() for k in keys}
    store.record_path(keys[0]).write_text(json.dumps({"key": keys[0], "status": "ok"}))
    bad = json.loads(before[keys[1]]) | {"status": "interrupted"}
    store.record_path(keys[1]).write_text(json.dumps(bad))

    # Before the rerun, results/plot/report work on the valid records.
    res = run_cli("results", str(tmp_path / "out"), "--json")
    assert res.returncode == 0, res.stderr
    assert len(res.stdout.splitlines()) == 2 and "2 invalid run record(s)" in res.stderr
    assert run_cli("report", str(tmp_path / "out")).returncode == 0

    again = sweep(run_cli, tmp_path, "--quiet")
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("2 run record(s)") == 1 and "will be rerun" in again.stderr
    after = {k: store.record_path(k).read_text() for k in keys}
    assert after[keys[2]] == before[keys[2]] and after[keys[3]] == before[keys[3]]  # not repeated
    assert all(record_problem(json.loads(after[k]), k) is None for k in keys)
    assert store.invalid_records() == {}
    third = sweep(run_cli, tmp_path, "--quiet")
    assert third.returncode == 0 and "invalid" not in third.stderr
    assert {k: store.record_path(k).read_text() for k in keys} == after


def test_a_spec_that_is_not_utf8_is_exit_2_with_the_place(tmp_path, run_cli):
    data = SPEC.encode().replace(b'"robust"', b'"rob\xffust"')
    (tmp_path / "spec.toml").write_bytes(data)
    r = sweep(run_cli, tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    offset = data.index(b"\xff")
    assert f"line 4, column 12 (byte offset {offset})" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    # the same in a stored spec.toml
    (tmp_path / "spec.toml").write_text(SPEC)
    assert sweep(run_cli, tmp_path, "--quiet").returncode == 0
    (tmp_path / "out" / "spec.toml").write_bytes(data)
    r = sweep(run_cli, tmp_path)
    assert r.returncode == 2 and "byte offset" in r.stderr and "Traceback" not in r.stderr
    # a simulation spec read by `routelab sim`
    (tmp_path / "sim.toml").write_bytes(b'[network]\ntopology = "torus:3\xfe"\n')
    r = run_cli("sim", str(tmp_path / "sim.toml"))
    assert r.returncode == 2 and "line 2, column 20" in r.stderr, r.stderr


def test_the_lock_is_taken_before_the_spec_is_checked(tmp_path):
    exp = specs.parse(SPEC)
    other = specs.parse(SPEC.replace('"dfsssp"]', '"sssp"]'))
    store = Store.create_or_resume(tmp_path / "x", exp)
    with store.lock():
        # Another sweep meets the lock first, whatever spec it brings.
        for e in (exp, other):
            with pytest.raises(routelab.ConfigError, match="another sweep"):
                Store.locked(store.root, e).__enter__()
    with pytest.raises(routelab.ConfigError, match="different spec"):
        Store.locked(store.root, other).__enter__()
    # A new directory: the spec is written under the lock; a stray lock file is no foreign content.
    with Store.locked(tmp_path / "new", exp) as new:
        assert (new.root / "spec.toml").is_file()
        assert (new.root / ".lock").read_text() == str(os.getpid())
    (tmp_path / "only-lock").mkdir()
    (tmp_path / "only-lock" / ".lock").write_text("1")
    with Store.locked(tmp_path / "only-lock", exp):
        pass
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    with pytest.raises(routelab.ConfigError, match="not an experiment directory"):
        Store.locked(tmp_path / "foreign", exp).__enter__()
    assert not (tmp_path / "foreign" / ".lock").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["topo", "torus:4x4", "--json"],
        ["pattern", "uniform", "--topo", "torus:4x4", "--json"],
        ["route", "torus:4x4", "--engine", "minhop", "--json"],
        ["results", "{out}", "--json"],
        ["results", "{out}", "--csv"],
        ["sweep", "{spec}", "--dry-run", "--json"],
    ],
)
def test_a_closed_stdout_ends_a_command_quietly(tmp_path, args):
    (tmp_path / "spec.toml").write_text(SPEC)
    out = tmp_path / "out"
    exp = specs.parse(SPEC)
    store = Store.create_or_resume(out, exp)
    for run in exp.runs:
        store.write_run(run, outcome(lanes=1), attempts=1, session="s")
    args = [a.format(out=out, spec=tmp_path / "spec.toml") for a in args]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write: `| head -0`
    try:
        r = subprocess.run(
            [sys.executable, "-m", "routelab.cli", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_switches_that_share_a_name_show_their_guid(tmp_path):
    doc = json.loads(routelab.topology("torus:5").to_json())
    edr = "SwitchIB Mellanox Technologies"
    for node in doc["nodes"]:
        if node["kind"] == "switch":
            node["name"] = edr
    (tmp_path / "edr.json").write_text(json.dumps(doc))
    net = routelab.load(tmp_path / "edr.json")
    switches = [i for i, n in enumerate(net.nodes) if n[0] == "switch"]
    labels = {net.labels[i] for i in switches}
    assert labels == {f"{edr} (GUID {net.nodes[i][2]:#018x})" for i in switches}
    hosts = [i for i, n in enumerate(net.nodes) if n[0] == "terminal"]
    assert all(net.labels[i] == net.nodes[i][1] for i in hosts)
    routes = routelab.route(net, "minhop")
    path = routes.path(0, 2)
    assert len(set(path[1:-1])) == len(path) - 2 and all("GUID" in p for p in path[1:-1])
    # Two hops clockwise for every flow: the busiest channels join two switches.
    flows = [(i, (i + 2) % 5) for i in range(5)]
    bound = routelab.throughput_bound(net, flows, routelab.channel_loads(routes, flows))
    assert bound["bottleneck"].count("(GUID 0x") == 2, bound


@settings(max_examples=int(os.environ.get("ROUTELAB_FUZZ_EXAMPLES", "150")), deadline=None)
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 8), st.text(max_size=4)),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_experiment_specs_fail_cleanly_or_round_trip(edits):
    """Fuzz target of the experiment spec: a mutant is a ConfigError or a spec
    whose document, written as TOML, reads back to the same runs."""
    text = SPEC
    for at, cut, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + cut :]
    try:
        exp = specs.parse(text)
    except routelab.ConfigError:
        return
    again = specs.parse(stores._toml_from_document(exp.document))
    assert again.canonical() == exp.canonical()
