"""Sweeps end to end: the command line, failures and retries, resume after
SIGKILL, Dask schedulers and Slurm job scripts."""

import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import routelab
from routelab.experiment import spec as specs

pytestmark = pytest.mark.slow(55)  # seconds on one core; see conftest.py

ENGINES = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "engines"

    [network]
    topology = ["torus:4x4", "kary-ntree:k=4,n=2"]

    [routing]
    algorithm = ["minhop", "dfsssp", "dmodk"]
    """
)


def write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_route_sweep_end_to_end_through_the_command_line(tmp_path, run_cli):
    spec = write(tmp_path, ENGINES)
    out = tmp_path / "out"

    dry = run_cli("sweep", str(spec), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    keys = [r.key for r in specs.load(spec).runs]
    lines = [ln for ln in dry.stdout.splitlines() if ln[:16] in keys]
    assert len(lines) == 6 and all("pending" in ln for ln in lines)
    assert "routing.algorithm=dmodk" in dry.stdout
    assert not out.exists()

    r = run_cli("sweep", str(spec), "--out", str(out))
    # dmodk cannot route a torus: that run fails, the others finish, exit code 1
    assert r.returncode == 1, r.stderr
    assert "6/6" in r.stderr and "5 ok, 1 failed" in r.stderr
    assert "1 run(s) failed" in r.stderr

    df = routelab.results(out)
    assert len(df) == 6 and set(df["key"]) == set(keys)
    failed = df[df["status"] == "failed"]
    assert list(failed["network.topology"]) == ["torus:4x4"]
    assert list(failed["routing.algorithm"]) == ["dmodk"]
    assert "RoutingError" in failed["error"].iloc[0]
    ok = df[df["status"] == "ok"]
    assert len(ok) == 5 and ok["lanes_used"].notna().all() and ok["error"].isna().all()
    dfsssp = ok[ok["routing.algorithm"] == "dfsssp"]
    assert dfsssp["deadlock_free"].all()
    assert (ok["wall_seconds"] > 0).all()
    assert set(ok["routelab_version"]) == {routelab.__version__}
    assert sorted(p.name for p in out.iterdir()) == [
        ".lock",
        "artefacts",
        "experiment.json",
        "runs",
        "runs.parquet",
        "sessions.json",
        "spec.toml",
    ]
    # minhop on a torus has a dependency cycle: it is kept as an artefact
    minhop = ok[(ok["routing.algorithm"] == "minhop") & (ok["network.topology"] == "torus:4x4")]
    cycle = json.loads((out / "artefacts" / minhop["key"].iloc[0] / "cycle.json").read_text())
    assert "back to the first" in cycle

    table = run_cli("results", str(out), "--status", "ok", "--json")
    rows = [json.loads(line) for line in table.stdout.splitlines()]
    assert len(rows) == 5 and all(row["status"] == "ok" for row in rows)

    # The text table leads with what varies and what was measured; the
    # parameters every run shares are said once above it.
    text = run_cli("results", str(out), "--status", "ok").stdout.splitlines()
    header = text[1].split() if text[0].startswith("every run: ") else text[0].split()
    assert header[0] == "status" and header[1] in ("network.topology", "routing.algorithm")
    assert header.index("deadlock_free") < header.index("key")

    # Nothing left to run; the failed run stays failed unless asked.
    again = run_cli("sweep", str(spec), "--out", str(out), "--quiet")
    assert again.returncode == 0 and again.stderr == ""
    dry = run_cli("sweep", str(spec), "--out", str(out), "--dry-run", "--json")
    statuses = sorted(json.loads(line)["status"] for line in dry.stdout.splitlines())
    assert statuses == ["failed", "ok", "ok", "ok", "ok", "ok"]


def test_validation_fails_before_anything_runs(tmp_path, run_cli):
    spec = write(tmp_path, ENGINES.replace('"dmodk"]', '"dmodk", "nope"]'))
    r = run_cli("sweep", str(spec), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert "'routing.algorithm' = 'nope'" in r.stderr and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_spec_that_changed_is_refused(tmp_path, run_cli):
    out = tmp_path / "out"
    first = write(tmp_path, ENGINES.replace('"dmodk"]', "]").replace(', "dfsssp"', ""))
    assert run_cli("sweep", str(first), "--out", str(out), "--quiet").returncode == 0
    changed = write(tmp_path, ENGINES, "changed.toml")
    r = run_cli("sweep", str(changed), "--out", str(out))
    assert r.returncode == 2 and "different spec" in r.stderr and "routing.algorithm" in r.stderr


def test_a_variant_sweeps_into_a_store_of_its_own_and_resumes(tmp_path, run_cli):
    text = ENGINES.replace('"dmodk"]', "]") + (
        '\n[variants.quick]\n"network.topology" = "kary-ntree:k=4,n=2"\n'
    )
    spec, out = write(tmp_path, text), tmp_path / "out"
    r = run_cli("sweep", str(spec), "--variant", "quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    df = routelab.results(out)
    assert set(df["network.topology"]) == {"kary-ntree:k=4,n=2"} and len(df) == 2
    assert "engines-quick" in (out / "spec.toml").read_text()
    again = run_cli("sweep", str(spec), "--variant", "quick", "--out", str(out))
    assert again.returncode == 0 and "2 already done" in again.stderr, again.stderr
    # The full spec is another experiment: refused in the variant's directory.
    full = run_cli("sweep", str(spec), "--out", str(out))
    assert full.returncode == 2 and "different spec" in full.stderr
    bad = run_cli("sweep", str(spec), "--variant", "tiny", "--out", str(tmp_path / "o2"))
    assert bad.returncode == 2 and "no variant 'tiny'; its variants: quick" in bad.stderr


def test_retries_and_retry_failed(tmp_path):
    spec = write(
        tmp_path,
        textwrap.dedent(
            """
            [experiment]
            kind = "route"
            name = "retry"
            [network]
            topology = ["torus:4x4", "kary-ntree:k=2,n=2"]
            [routing]
            algorithm = "dmodk"
            """
        ),
    )
    out = tmp_path / "out"
    first = routelab.sweep(spec, out, retries=2)
    assert (first.ok, first.failed, first.skipped) == (1, 1, 0)
    df = routelab.results(out)
    assert list(df["attempts"]) == [3, 1]  # the failing run was attempted 1 + 2 times
    # retries are counted over sessions: the run has had its three attempts
    second = routelab.sweep(spec, out, retries=2)
    assert (second.ran, second.skipped) == (0, 2)
    third = routelab.sweep(spec, out, retry_failed=True)
    assert (third.ok, third.failed, third.skipped) == (0, 1, 1)
    df = routelab.results(out)
    assert list(df["attempts"]) == [1, 1]
    assert list(df["session"]) == [third.session, first.session]
    sessions = json.loads((out / "sessions.json").read_text())
    assert [s["to_run"] for s in sessions] == [2, 0, 1]


def test_the_example_route_sweep_runs(tmp_path):
    spec = Path(__file__).parent.parent / "examples" / "sweeps" / "route-engines.toml"
    outcome = routelab.sweep(spec, tmp_path / "out")
    assert (outcome.total, outcome.ok, outcome.failed) == (45, 45, 0)


KILL = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "kill"
    seeds = 30

    [network]
    topology = "random:switches=128,ports=32,hosts=16,links=200,seed={seed}"

    [routing]
    algorithm = "dfsssp"
    """
)


def records(out: Path) -> dict[str, dict]:
    runs = out / "runs"
    if not runs.is_dir():
        return {}
    found = {}
    for p in runs.glob("*.json"):
        if not p.name.startswith("."):
            found[p.stem] = json.loads(p.read_text())
    return found


def test_a_sweep_killed_with_sigkill_resumes_without_loss_or_repeat(tmp_path):
    spec = write(tmp_path, KILL)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "routelab.cli", "sweep", str(spec), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "1", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    try:
        while len(records(out)) < 15:  # half-way
            assert proc.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "no run finished in time"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    before = records(out)
    assert 15 <= len(before) < 30, len(before)
    assert all(r["status"] == "ok" for r in before.values())
    first_session = {r["session"] for r in before.values()}
    assert len(first_session) == 1

    resumed = subprocess.run([*cmd, "--quiet"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr

    after = records(out)
    exp = specs.load(spec)
    assert set(after) == {r.key for r in exp.runs}
    assert len(list((out / "runs").iterdir())) == 30  # no temporary files left over
    assert all(r["status"] == "ok" for r in after.values())
    # every run finished before the kill was kept as it was, not run again
    for key, rec in before.items():
        assert after[key] == rec
    new = {k: r for k, r in after.items() if k not in before}
    assert len(new) == 30 - len(before)
    assert len({r["session"] for r in new.values()}) == 1
    assert {r["session"] for r in new.values()}.isdisjoint(first_session)

    sessions = json.loads((out / "sessions.json").read_text())
    assert len(sessions) == 2
    assert "finished" not in sessions[0]  # killed
    assert sessions[1]["skipped"] == len(before)
    assert sessions[1]["to_run"] == sessions[1]["ok"] == 30 - len(before)

    df = routelab.results(out)
    assert len(df) == 30 and df["key"].is_unique and (df["status"] == "ok").all()
    assert list(df["routing.seed"]) == list(range(1, 31))
    import pandas as pd

    table = pd.read_parquet(out / "runs.parquet")
    assert len(table) == 30 and table["key"].is_unique


def test_an_existing_dask_scheduler(tmp_path, dask_scheduler):
    spec = write(tmp_path, ENGINES.replace(', "dmodk"', ""))
    address = dask_scheduler
    assert address.startswith("tcp://")
    outcome = routelab.sweep(spec, tmp_path / "out", dask=address)
    assert (outcome.ok, outcome.failed) == (4, 0)
    sessions = json.loads((tmp_path / "out" / "sessions.json").read_text())
    assert sessions[0]["executor"] == f"dask:{address}"


def test_two_local_clusters_at_once_take_free_ports_without_warnings():
    # Two sweeps on one machine (two reproductions side by side): neither
    # finds its scheduler's HTTP port taken.
    import warnings

    from routelab.experiment import cluster

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with cluster.client(workers=1) as a, cluster.client(workers=1) as b:
            assert a.submit(sum, [1, 2]).result() == b.submit(sum, [3]).result()
    taken = [str(w.message) for w in caught if "already in use" in str(w.message)]
    assert not taken, taken


def test_an_unreachable_dask_scheduler_is_a_clear_error(tmp_path):
    import dask

    spec = write(tmp_path, ENGINES)
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(routelab.ConfigError, match="cannot reach the Dask scheduler"),
    ):
        routelab.sweep(spec, tmp_path / "out", dask="tcp://127.0.0.1:9")


def test_the_slurm_job_script(tmp_path, run_cli):
    spec = write(tmp_path, ENGINES)
    r = run_cli(
        "sweep",
        str(spec),
        "--out",
        str(tmp_path / "out"),
        "--slurm",
        "--job-script",
        "--queue",
        "compute",
        "--account",
        "proj42",
        "--walltime",
        "02:30:00",
        "--cores",
        "16",
        "--memory",
        "32GB",
        "--jobs",
        "4",
        "--sbatch=--constraint=skylake",
        "--prologue",
        "module load python/3.11",
    )
    assert r.returncode == 0, r.stderr
    script = r.stdout
    lines = script.splitlines()
    assert lines[0].startswith("#!")
    for line in (
        "#SBATCH -J routelab-engines",
        "#SBATCH -p compute",
        "#SBATCH -A proj42",
        "#SBATCH -n 1",
        "#SBATCH --cpus-per-task=16",
        "#SBATCH --mem=30G",
        "#SBATCH -t 02:30:00",
        "#SBATCH --constraint=skylake",
        "module load python/3.11",
    ):
        assert line in lines, (line, script)
    assert f"#SBATCH -o {tmp_path / 'out' / 'slurm-logs'}/routelab-engines-%J.out" in lines
    worker = next(line for line in lines if "distributed.cli.dask_worker" in line)
    assert worker.startswith(sys.executable)
    assert "--nthreads 16" in worker and "--memory-limit 29.80GiB" in worker
    assert "--nworkers" not in worker  # one worker process per job
    assert not (tmp_path / "out").exists()


def test_a_sim_sweep_warns_once_of_buffers_short_of_the_round_trip(tmp_path, capsys):
    """Three runs on 100 ns links with 8-flit buffers share two warnings
    (switch and terminal links): each is printed once, and every run keeps
    them in its artefacts."""
    spec = write(
        tmp_path,
        textwrap.dedent(
            """
            [experiment]
            kind = "sim"
            name = "short-buffers"
            [network]
            topology = "torus:4x4"
            [router]
            buffer_flits = 8
            [routing]
            algorithm = "dor"
            [traffic]
            load = [0.05, 0.1, 0.15]
            [run]
            warmup_cycles = 200
            measure_cycles = 500
            """
        ),
    )
    outcome = routelab.sweep(spec, tmp_path / "out", workers=1)
    assert outcome.ok == 3
    warnings = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warnings) == 2
    assert all("router.buffer_flits >= 33" in w for w in warnings)


def test_the_example_dragonfly_sweep_runs_and_obeys_its_bounds(tmp_path):
    # The example at two loads: at full load MIN carries at most 1/(a p) =
    # 1/8 per terminal under group-shift, and Valiant at most h / 2p = 1/2
    # of traffic between groups (uniform traffic keeps 7 of 71 destinations
    # in the source's group: 1/2 / (64/71)).
    text = (
        Path(__file__).parent.parent / "examples" / "sweeps" / "dragonfly-routing.toml"
    ).read_text()
    spec = tmp_path / "dragonfly.toml"
    spec.write_text(
        text.replace(
            "load = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0]", "load = [0.1, 1.0]"
        )
    )
    outcome = routelab.sweep(spec, tmp_path / "out")
    assert (outcome.total, outcome.ok, outcome.failed) == (30, 30, 0)
    df = routelab.results(tmp_path / "out")
    full = df[df["traffic.load"] == 1.0].set_index(["routing.algorithm", "traffic.pattern"])
    full = full["accepted"]
    assert full["df-min", "group-shift"] <= 1 / 8 + 0.01
    valiant = full.xs("df-val", level="routing.algorithm")
    bound = {"uniform": 0.5 * 71 / 64, "group-shift": 0.5, "group-permutation": 0.5}
    for pattern, accepted in valiant.items():
        assert accepted <= bound[pattern] + 0.02, (pattern, accepted)
    assert full["df-ugal-g", "group-shift"] > 2 * full["df-min", "group-shift"]
    low = df[df["traffic.load"] == 0.1]
    assert (low["accepted"] >= 0.9 * low["offered"]).all()


def test_several_sweeps_run_as_one_queue_in_their_order(tmp_path):
    # A route sweep, then a sim sweep and another route sweep that shares a
    # run with the first (torus:4x4 minhop): each store records its own copy,
    # and every run of a sweep starts before any of a later one, on two
    # workers too (a run of another kind does not overtake the queue). A
    # store that two sweeps would share is refused.
    from routelab.experiment.sweep import run_sweeps

    routes = ENGINES.replace('"dmodk"', '"updown"').replace(
        '["torus:4x4", "kary-ntree:k=4,n=2"]',
        '["torus:4x4", "torus:6x6", "torus:8x8", "kary-ntree:k=4,n=2"]',
    )
    first = specs.load(write(tmp_path, routes, "a.toml"))
    sims = textwrap.dedent(
        """
        [experiment]
        kind = "sim"
        name = "sims"
        [network]
        topology = "torus:4x4"
        [routing]
        algorithm = "dor"
        [traffic]
        load = [0.05, 0.1, 0.15, 0.2, 0.25]
        [run]
        warmup_cycles = 200
        measure_cycles = 500
        """
    )
    second = specs.load(write(tmp_path, sims, "b.toml"))
    third = specs.load(
        write(tmp_path, ENGINES.replace('name = "engines"', 'name = "more"'), "c.toml")
    )
    assert {r.key for r in first.runs} & {r.key for r in third.runs}
    outs = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    outcomes = run_sweeps(list(zip([first, second, third], outs, strict=True)), workers=2)
    assert [(o.name, o.total, o.ok, o.failed) for o in outcomes] == [
        ("engines", 12, 12, 0),
        ("sims", 5, 5, 0),
        ("more", 6, 5, 1),  # dmodk routes no torus
    ]
    tables = [routelab.results(out) for out in outs]
    for table, exp in zip(tables, (first, second, third), strict=True):
        assert set(table["key"]) == {r.key for r in exp.runs}
    for before, after in itertools.pairwise(tables):
        assert before["started"].max() <= after["started"].min()
    with pytest.raises(routelab.ConfigError, match="its own results directory"):
        run_sweeps([(first, outs[0]), (third, tmp_path / "x" / ".." / "a")])


def test_local_runs_take_their_share_of_the_cores(tmp_path, monkeypatch):
    # On local threads a sim run gets run.cores = cores / workers unless its
    # spec sets it (a search then runs its first bracket's pair in turn).
    import dataclasses

    from routelab.experiment import kinds
    from routelab.experiment.sweep import run_sweeps

    seen: list[tuple[float, int | None]] = []

    def probe(params):
        seen.append((params["traffic"]["load"], params["run"].get("cores")))
        return {"accepted": 0.0}

    sim = dataclasses.replace(kinds.KINDS["sim"], run=probe, check=None)
    monkeypatch.setitem(kinds.KINDS, "sim", sim)
    text = textwrap.dedent(
        """
        [experiment]
        kind = "sim"
        name = "cores"
        [network]
        topology = "torus:4x4"
        [routing]
        algorithm = "dor"
        [traffic]
        load = [0.1, 0.2]
        """
    )
    free = specs.load(write(tmp_path, text, "free.toml"))
    fixed = specs.load(write(tmp_path, text + "[run]\ncores = 3\n", "fixed.toml"))
    run_sweeps([(free, tmp_path / "a"), (fixed, tmp_path / "b")], workers=2)
    share = max(1, (os.cpu_count() or 1) // 2)
    assert sorted(seen) == [(0.1, share), (0.1, 3), (0.2, share), (0.2, 3)]
