"""The run kinds: topo, route, ebb, sim and saturate sweeps on the real
engines, the simulator's own spec validation, and missing capabilities."""

import textwrap

import pytest

import routelab
from routelab.experiment import kinds, plot
from routelab.experiment import spec as specs
from routelab.experiment import sweep as sweep_module


def write(tmp_path, text):
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return path


SIM = """
[experiment]
kind = "sim"
name = "sim"
seeds = [1, 2]

[network]
topology = "torus:4x4"

[routing]
algorithm = ["dor", "duato"]

[traffic]
load = [0.05, 0.1]

[run]
warmup_cycles = 500
measure_cycles = 1000
"""


def test_topo_runs_summarise_networks(tmp_path):
    spec = write(
        tmp_path,
        """
        [experiment]
        kind = "topo"
        name = "t"
        [network]
        topology = ["torus:4x4", "hypercube:4"]
        """,
    )
    outcome = routelab.sweep(spec, tmp_path / "out")
    assert outcome.ok == 2
    df = routelab.results(tmp_path / "out")
    assert list(df["diameter"]) == [4, 4]
    assert list(df["switches"]) == [16, 16]
    assert "switch_degree_max" in df.columns and (df["topo_seconds"] > 0).all()


def test_route_runs_time_the_least_of_their_repeats_and_may_skip_the_checks(tmp_path, monkeypatch):
    spec = write(
        tmp_path,
        """
        [experiment]
        kind = "route"
        name = "t"
        [network]
        topology = "kary-ntree:k=4,n=3"
        [routing]
        algorithm = "dfsssp"
        max_lanes = 4
        [route]
        repeats = 3
        stats = [true, false]
        """,
    )
    # Each routing reports its own seconds; the run keeps the least.
    times = iter([0.5, 0.2, 0.4, 0.3, 0.1, 0.6])
    real = routelab.route

    def timed(*args, **kwargs):
        routes = real(*args, **kwargs)
        seconds = next(times)
        return type(
            "Timed", (), {"seconds": seconds, "__getattr__": lambda _, k: getattr(routes, k)}
        )()

    monkeypatch.setattr(routelab, "route", timed)
    # The network is built once per run, outside the timed routings.
    built = []
    topology = routelab.topology
    monkeypatch.setattr(routelab, "topology", lambda s: built.append(s) or topology(s))
    assert routelab.sweep(spec, tmp_path / "out", workers=1).ok == 2
    assert len(built) == 2
    df = routelab.results(tmp_path / "out").set_index("route.stats")
    assert (df.loc[True, "route_seconds"], df.loc[False, "route_seconds"]) == (0.2, 0.1)
    assert (df["route_wall_seconds"] > 0).all() and list(df["lanes_needed"]) == [1, 1]
    # Without the checks only the lanes and the timings are measured.
    assert df.loc[True, "deadlock_free"] and df.loc[True, "minimal"]
    assert df["deadlock_free"].isna().tolist() == [False, True]
    with pytest.raises(routelab.ConfigError, match=r"route.repeats.*>= 1"):
        specs.parse(spec.read_text().replace("repeats = 3", "repeats = 0"))


def test_route_memory_is_measured_in_a_fresh_process_and_failures_keep_their_reason(tmp_path):
    spec = write(
        tmp_path,
        """
        [experiment]
        kind = "route"
        name = "m"
        [network]
        topology = "random:switches=32,ports=8,hosts=4,seed=3"
        [routing]
        algorithm = ["sssp", "dfsssp"]
        max_lanes = [1, 8]
        [route]
        memory = true
        """,
    )
    assert routelab.sweep(spec, tmp_path / "out", workers=2).total == 4
    df = routelab.results(tmp_path / "out")
    ok = df[df["status"] == "ok"]
    # SSSP takes one lane whatever it needs; DFSSSP on this irregular network
    # needs more than one lane, so with one it fails, naming what it needs
    assert set(zip(ok["routing.algorithm"], ok["routing.max_lanes"], strict=True)) == {
        ("sssp", 1),
        ("sssp", 8),
        ("dfsssp", 8),
    }
    failed = df[df["status"] == "failed"].iloc[0]
    assert failed["routing.algorithm"] == "dfsssp" and "lanes" in failed["error"]
    assert (ok["route_peak_mb"] > ok["route_extra_mb"]).all() and (ok["route_extra_mb"] >= 0).all()
    assert (ok["route_seconds"] > 0).all() and (ok["terminals"] == 128).all()
    dfsssp = ok[ok["routing.algorithm"] == "dfsssp"].iloc[0]
    assert 2 <= dfsssp["lanes_needed"] <= 8


def test_ebb_runs_keep_the_per_pattern_values_as_an_artefact(tmp_path):
    spec = write(
        tmp_path,
        """
        [experiment]
        kind = "ebb"
        name = "e"
        seeds = [1, 2]
        [network]
        topology = "kary-ntree:k=4,n=2"
        [routing]
        algorithm = ["minhop", "dmodk"]
        [ebb]
        patterns = 50
        """,
    )
    out = tmp_path / "out"
    assert routelab.sweep(spec, out).ok == 4
    df = routelab.results(out, artefacts=["per_pattern"])
    assert all(len(v) == 50 for v in df["per_pattern"])
    for row in df.itertuples():
        assert row.min <= row.avg <= row.max <= 1.0
        assert row.avg == pytest.approx(sum(row.per_pattern) / 50)
    # the same seed gives the same patterns, another seed other ones
    by = df.set_index(["routing.algorithm", "ebb.seed"])["avg"]
    net = routelab.topology("kary-ntree:k=4,n=2")
    direct = routelab.ebb(net, routelab.route(net, "dmodk"), patterns=50, seed=2)
    assert by[("dmodk", 2)] == direct["avg"]
    names = [p.name for p in plot.standard_figures(out, tmp_path / "figs")]
    assert names == ["avg-vs-routing.algorithm.png", "per_pattern-hist.png"]


def test_sim_runs_measure_latency_and_throughput(tmp_path):
    out = tmp_path / "out"
    outcome = routelab.sweep(write(tmp_path, SIM), out)
    assert (outcome.ok, outcome.failed) == (8, 0)
    df = routelab.results(out, artefacts=["latency_histogram"])
    for row in df.to_dict("records"):
        assert row["offered"] == pytest.approx(row["traffic.load"], rel=0.25)
        assert row["accepted"] == pytest.approx(row["offered"], rel=0.1)  # far below saturation
        assert row["latency_mean"] > 0
        assert sum(b["count"] for b in row["latency_histogram"]) > 0
    # the seed reaches the simulator: the same parameters with another seed differ
    a = df[(df["routing.algorithm"] == "dor") & (df["traffic.load"] == 0.1)]
    assert a["packets_generated"].nunique() == 2
    names = [p.name for p in plot.standard_figures(out, tmp_path / "figs")]
    assert names == [
        "latency_mean-vs-traffic.load.png",
        "accepted-vs-traffic.load.png",
        "latency-cdf.png",
    ]


EXCHANGE = """
[experiment]
kind = "sim"
name = "exchange"
seeds = [1, 2]

[network]
topology = "clos:ports=8,hosts=8"

[router]
switching = "wormhole"
flit_bytes = 256
buffer_packets = 1
flow_control = "stop-go"

[routing]
algorithm = "dispersive"
options.mode = ["static", "random"]

[traffic]
workload = "exchange"
pattern = "bisect"
both_ways = true
messages = 2
message_bytes = "16KiB"
packet_bytes = "4KiB"
"""


def test_closed_loop_runs_put_their_pair_bandwidths_in_columns(tmp_path):
    # An effective bisection bandwidth measured by simulation: a random
    # bisection (drawn from the run's seed), both partners sending; the
    # workload's summary is columns, its pairs an artefact.
    out = tmp_path / "out"
    outcome = routelab.sweep(write(tmp_path, EXCHANGE), out)
    assert (outcome.ok, outcome.failed) == (4, 0)
    df = routelab.results(out, artefacts=["workload"])
    for row in df.to_dict("records"):
        pairs = row["workload"]["pairs"]
        assert len(pairs) == 8 and {p["src"] for p in pairs} == set(range(8))
        bw = [p["bandwidth_gbps"] for p in pairs]
        assert row["workload_bandwidth_mean_gbps"] == pytest.approx(sum(bw) / len(bw))
        assert row["workload_bandwidth_min_gbps"] == pytest.approx(min(bw))
        assert row["workload_bandwidth_max_gbps"] == pytest.approx(max(bw))
        assert row["kind"] == "sim"
    # The seed draws the bisection: two seeds, two sets of pairs.
    drawn = {
        tuple(sorted((p["src"], p["dst"]) for p in w["pairs"]))
        for w in df[df["routing.options.mode"] == "static"]["workload"]
    }
    assert len(drawn) == 2
    # The summary columns are metrics, not parameters: the standard figures
    # still vary only the routing mode and average the seeds.
    df = routelab.results(out)
    assert "workload_bandwidth_mean_gbps" not in plot.parameter_columns(df)
    assert set(plot.varying_columns(df)) == {"routing.options.mode", "run.seed"}
    assert plot.standard_specs(df)


def test_saturate_runs_keep_their_measured_points(tmp_path):
    spec = write(
        tmp_path,
        SIM.replace('kind = "sim"', 'kind = "saturate"')
        .replace("load = [0.05, 0.1]", "")
        .replace("seeds = [1, 2]", ""),
    )
    out = tmp_path / "out"
    assert routelab.sweep(spec, out).ok == 2
    df = routelab.results(out, artefacts=["points"])
    for row in df.to_dict("records"):
        assert 0 < row["saturation"] <= 1
        assert len(row["points"]) >= 2 and all("offered" in p for p in row["points"])
    curve = plot.explode(df, "points")
    assert len(curve) == sum(len(p) for p in df["points"])
    assert {"routing.algorithm", "offered", "accepted"} <= set(curve.columns)
    names = [p.name for p in plot.standard_figures(out, tmp_path / "figs")]
    assert names == [
        "saturation-vs-routing.algorithm.png",
        "points-accepted.png",
        "points-latency_mean.png",
    ]


SEARCH = (
    SIM.replace('kind = "sim"', 'kind = "saturate"')
    .replace("load = [0.05, 0.1]", "")
    .replace("seeds = [1, 2]", "")
    .replace('algorithm = ["dor", "duato"]', 'algorithm = "dor"')
)


def test_saturate_runs_take_their_search_options_from_the_spec(tmp_path):
    spec = write(
        tmp_path,
        SEARCH + "\n[saturate]\nlow = 0.1\nhigh = [0.5, 0.6]\nresolution = 0.05\n",
    )
    out = tmp_path / "out"
    assert routelab.sweep(spec, out).ok == 2
    df = routelab.results(out, artefacts=["points"])
    for row in df.to_dict("records"):
        loads = sorted(p["offered_target"] for p in row["points"])
        # The first bracket is the spec's: its two ends are the first loads run.
        firsts = {p["offered_target"] for p in row["points"][:2]}
        assert firsts == {0.1, row["saturate.high"]}, loads
        assert row["bracket_width"] <= 0.05 + 1e-12
        assert row["bracket_low"] <= row["saturation"] < row["bracket_high"]
    # Options follow the spec's run: the same spec with another resolution is
    # another run.
    keys = set(df["key"])
    other = specs.load(write(tmp_path, SEARCH + "\n[saturate]\nresolution = 0.1\n"))
    assert keys.isdisjoint(r.key for r in other.runs)


def test_a_saturate_run_may_start_from_a_load_latency_curve(tmp_path):
    scan = [0.1, 0.2, 0.4, 0.6, 0.8]
    spec = write(
        tmp_path,
        SEARCH + "\n[saturate]\nscan = [[0.1, 0.2, 0.4, 0.6, 0.8]]\nresolution = 0.05\n",
    )
    out = tmp_path / "out"
    assert routelab.sweep(spec, out).ok == 1
    df = routelab.results(out, artefacts=["points"])
    for row in df.to_dict("records"):
        assert list(row["saturate.scan"]) == scan
        loads = [p["load"] for p in row["points"]]
        ran = [x for x in loads if x in scan]
        assert ran == scan[: len(ran)] and len(ran) >= 2  # in order, from the first
        assert row["bracket_width"] <= 0.05 + 1e-12
        assert all(p["packets_delivered"] > 0 for p in row["points"] if p["offered"])
    spec = write(tmp_path, SEARCH + "\n[saturate]\nscan = [[0.4, 0.2]]\n")
    with pytest.raises(routelab.ConfigError, match="saturate.scan"):
        kinds.get("saturate").run(specs.load(spec).runs[0].params)


def test_a_search_that_skips_draining_unsustained_loads_keeps_its_verdicts(tmp_path):
    # 8x8 torus, 4-flit packets: loads past the knee accept too little.
    spec = (
        SEARCH.replace("torus:4x4", "torus:8x8")
        + "\n[saturate]\nscan = [[0.2, 0.4, 0.5, 0.6, 0.7]]\nresolution = 0.05\n"
        + "require_converged = false\ndrain_unsustained = {}\n"
    ).replace("[traffic]\n", '[traffic]\npattern = "uniform"\npacket_flits = 4\n')
    rows = []
    for value in ("true", "false"):
        out = tmp_path / value
        assert routelab.sweep(write(tmp_path, spec.format(value)), out).ok == 1
        rows.append(routelab.results(out, artefacts=["points"]).iloc[0])
    drained, skipped = rows
    assert skipped["saturation"] == drained["saturation"]
    pairs = list(zip(drained["points"], skipped["points"], strict=True))
    verdict = ("load", "sustained", "accepted")
    for d, k in pairs:
        assert [d[x] for x in verdict] == [k[x] for x in verdict]
    cut = [(d, k) for d, k in pairs if k["drain_skipped"]]
    assert cut and all(k["status"] == "unsustained" for _, k in cut)
    assert all(k["flit_hops"] < d["flit_hops"] for d, k in cut)


def test_a_neutral_search_option_keeps_the_run_keys_and_resumes_the_store(tmp_path):
    # Skipping the drain of short loads changes no verdict: the runs keep their
    # keys, a store swept without it resumes with it (nothing runs again), and
    # the store's spec becomes the one it runs.
    base = SEARCH + "\n[saturate]\nhigh = 0.5\nresolution = 0.1\n"
    out = tmp_path / "out"
    assert routelab.sweep(write(tmp_path, base), out).ok == 1
    changed = write(tmp_path, base + "drain_unsustained = false\n")
    assert [r.key for r in specs.load(changed).runs] == list(routelab.results(out)["key"])
    again = routelab.sweep(changed, out)
    assert (again.ran, again.skipped) == (0, 1)
    assert "drain_unsustained = false" in (out / "spec.toml").read_text()
    # A key that changes what is measured still makes another run.
    other = write(tmp_path, base.replace("resolution = 0.1", "resolution = 0.05"))
    assert specs.load(other).runs[0].key not in set(routelab.results(out)["key"])


def test_the_cores_of_a_split_run_keep_its_key(tmp_path):
    # run.cores changes how a split run is carried out, not its result: the
    # same keys, the same numbers, nothing run again.
    base = SIM.replace("measure_cycles = 1000", "measure_cycles = 1000\nthreads = 2")
    out = tmp_path / "out"
    assert routelab.sweep(write(tmp_path, base), out).ok == 8
    first = routelab.results(out).sort_values("key")
    one_core = write(tmp_path, base + "cores = 1\n")
    assert sorted(r.key for r in specs.load(one_core).runs) == list(first["key"])
    again = routelab.sweep(one_core, out)
    assert (again.ran, again.skipped) == (0, 8)
    fresh = tmp_path / "fresh"
    assert routelab.sweep(one_core, fresh).ok == 8
    redone = routelab.results(fresh).sort_values("key")
    for column in ("accepted", "latency_mean", "flit_hops"):
        assert list(redone[column]) == list(first[column])


def test_records_keyed_before_a_key_became_neutral_are_moved_not_run_again(tmp_path):
    # A store written when saturate.drain_unsustained was still part of the run
    # key: its records, artefacts and journals carry the old keys. Resuming moves
    # them to the current keys; a run already repeated under its current key
    # keeps one record.
    import hashlib
    import json

    base = SEARCH + "\n[saturate]\nhigh = 0.5\nresolution = 0.1\ndrain_unsustained = false\n"
    spec = write(tmp_path, base.replace('name = "sim"', 'name = "sim"\nseeds = [1, 2]'))
    out = tmp_path / "out"
    assert routelab.sweep(spec, out).ok == 2
    before = routelab.results(out, artefacts=["points"]).set_index("key")
    keys = list(before.index)
    for i, key in enumerate(keys):
        rec = json.loads((out / "runs" / f"{key}.json").read_text())
        whole = specs.canonical_json(
            {"kind": rec["kind"], "params": specs.unflatten(rec["params"])}
        )
        old = hashlib.sha256(whole.encode()).hexdigest()[:16]
        assert old != key
        (out / "runs" / f"{old}.json").write_text(json.dumps({**rec, "key": old}))
        if i == 0:  # moved: the current record goes, the old one stays
            (out / "runs" / f"{key}.json").unlink()
            (out / "artefacts" / key).rename(out / "artefacts" / old)
    again = routelab.sweep(spec, out)
    assert (again.ran, again.skipped) == (0, 2)
    assert sorted(p.stem for p in (out / "runs").glob("*.json")) == sorted(keys)
    after = routelab.results(out, artefacts=["points"]).set_index("key")
    assert after.loc[keys, "saturation"].tolist() == before.loc[keys, "saturation"].tolist()
    assert [p["load"] for p in after.loc[keys[0], "points"]] == [
        p["load"] for p in before.loc[keys[0], "points"]
    ]


def test_an_unknown_search_option_is_refused_by_name(tmp_path, run_cli):
    spec = write(tmp_path, SEARCH + "\n[saturate]\nresolutoin = 0.05\n")
    r = run_cli("sweep", str(spec), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert "unknown key 'saturate.resolutoin'" in r.stderr and "saturate.resolution" in r.stderr
    spec = write(tmp_path, SEARCH + "\n[saturate]\nsteps = 0\n")
    r = run_cli("sweep", str(spec), "--out", str(tmp_path / "out2"))
    assert r.returncode == 2 and "'saturate.steps' = 0" in r.stderr
    # Ranges the search checks are checked before anything runs.
    for table, key in (
        ("scan = [[0.4, 0.2]]", "'saturate.scan'"),
        ("scan = [[0.2]]\nlow = 0.1", "'saturate.scan'"),
        ("tolerance = 1.0", "'saturate.tolerance'"),
        ("low = 0.5\nhigh = 0.4", "'saturate.high'"),
    ):
        spec = write(tmp_path, SEARCH + f"\n[saturate]\n{table}\n")
        r = run_cli("sweep", str(spec), "--out", str(tmp_path / "out3"))
        assert r.returncode == 2 and key in r.stderr, (table, r.stderr)
        assert not (tmp_path / "out3" / "runs").exists() or not any(
            (tmp_path / "out3" / "runs").iterdir()
        )


def test_a_search_resumes_from_its_journal_with_the_same_answer(tmp_path):
    # What a sweep killed in the middle of a search leaves: the journal of the
    # loads measured so far. The run started again takes them from there.
    exp = specs.load(write(tmp_path, SEARCH + "\n[saturate]\nresolution = 0.05\n"))
    params = exp.runs[0].params
    fresh = kinds.execute("saturate", params)
    assert fresh["status"] == "ok"
    journal = tmp_path / "j.jsonl"
    first = kinds.execute("saturate", params, journal=str(journal))
    lines = journal.read_text().splitlines()
    assert len(lines) > 2  # a header and the loads
    journal.write_text("\n".join(lines[:3]) + "\n")  # killed after two loads
    resumed = kinds.execute("saturate", params, journal=str(journal))

    def measured(outcome):  # all but the wall times
        def keep(d):
            return {k: v for k, v in d.items() if "seconds" not in k}

        return keep(outcome["metrics"]), [keep(p) for p in outcome["artefacts"]["points"]]

    assert measured(first) == measured(resumed) == measured(fresh)
    # The two loads kept were taken, not measured again: the journal holds
    # each load once.
    assert journal.read_text().splitlines()[:3] == lines[:3]
    assert len(journal.read_text().splitlines()) == len(lines)
    # A journal the search refuses (another spec's) is set aside, named, and
    # the search runs afresh to the same answer.
    other = specs.load(write(tmp_path, SEARCH.replace("4x4", "6x6"))).runs[0].params
    kinds.execute("saturate", other, journal=str(tmp_path / "o.jsonl"))
    (tmp_path / "o.jsonl").replace(journal)
    again = kinds.execute("saturate", params, journal=str(journal))
    assert measured(again) == measured(fresh)
    assert (tmp_path / "j.refused").is_file()
    assert "set aside" in again["artefacts"]["warnings"][-1]
    # A sweep gives each search a journal in its store and removes it once
    # the run's record is written.
    out = tmp_path / "out"
    assert routelab.sweep(exp, out).ok == 1
    assert (out / "journals").is_dir() and not any((out / "journals").iterdir())


def test_a_finished_journal_is_recorded_without_simulating_and_an_unfinished_one_is_not(
    tmp_path,
):
    # Searches that finished elsewhere (a killed sweep, another machine, the
    # journals kept beside a study's results) are read into the store and
    # nothing is simulated: an unfinished journal stays as it is, unrecorded.
    options = "\n[saturate]\nlow = 0.1\nhigh = [0.5, 0.6]\nresolution = 0.05\n"
    exp = specs.load(write(tmp_path, SEARCH + options))
    assert len(exp.runs) == 2
    done, cut = exp.runs[:2]
    out = tmp_path / "out"
    journals = out / "journals"
    journals.mkdir(parents=True)
    whole = kinds.execute("saturate", done.params, journal=str(journals / f"{done.key}.jsonl"))
    kinds.execute("saturate", cut.params, journal=str(tmp_path / "cut.jsonl"))
    lines = (tmp_path / "cut.jsonl").read_text().splitlines()
    (journals / f"{cut.key}.jsonl").write_text("\n".join(lines[:2]) + "\n")
    kept = {p.name: p.read_text() for p in journals.iterdir()}

    assert sweep_module.replay_finished(exp, out) == 1
    table = routelab.results(out, artefacts=["points"])
    assert list(table["key"]) == [done.key]
    row = table.iloc[0]
    assert row["status"] == "ok" and row["saturation"] == whole["metrics"]["saturation"]
    assert [p["load"] for p in row["points"]] == [p["load"] for p in whole["artefacts"]["points"]]
    # Each point's wall time is the journal's: taken, not measured again.
    assert [p["wall_seconds"] for p in row["points"]] == [
        p["wall_seconds"] for p in whole["artefacts"]["points"]
    ]
    assert {p.name: p.read_text() for p in journals.iterdir()} == kept
    assert sweep_module.replay_finished(exp, out) == 0  # nothing new
    # The search itself says what it lacks, and needs a journal to replay.
    with pytest.raises(routelab.SimulationError, match="does not hold load"):
        kinds.run_saturate(cut.params, journal=str(journals / f"{cut.key}.jsonl"), replay_only=True)
    with pytest.raises(routelab.ConfigError, match="needs the journal"):
        routelab.saturate(SEARCH, replay_only=True)
    # A sweep then runs only what is missing: the unfinished search resumes.
    outcome = routelab.sweep(exp, out)
    assert outcome.skipped == 1 and outcome.ok == len(exp.runs) - 1


def test_the_simulator_validates_its_spec_before_anything_runs(tmp_path, run_cli):
    spec = write(tmp_path, SIM + "\n[router]\nvcz = [2, 4]\n")
    assert len(specs.load(spec).runs) == 16  # the sweep layer passes the key through
    out = tmp_path / "out"
    for args in (["--dry-run"], ["--out", str(out)]):
        r = run_cli("sweep", str(spec), *args)
        assert r.returncode == 2
        assert "unknown field `vcz`" in r.stderr and "run 1 (" in r.stderr
    assert not out.exists()


def test_missing_capabilities_are_named_and_nothing_is_faked(tmp_path, monkeypatch, capsys):
    monkeypatch.delattr(routelab, "simulate")
    spec = write(tmp_path, SIM)
    with pytest.raises(routelab.ConfigError) as e:
        routelab.sweep(spec, tmp_path / "out")
    assert "'sim' runs need routelab.simulate" in str(e.value)
    assert not (tmp_path / "out").exists()
    # a worker without the capability records a failed run, not a result
    outcome = kinds.execute("sim", specs.load(spec).runs[0].params)
    assert outcome["status"] == "failed" and outcome["metrics"] == {}
    assert "routelab.simulate" in outcome["error"]
    # the dry run still lists the runs, and says they cannot run yet
    from routelab.cli import main

    assert main(["sweep", str(spec), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "8 runs" in printed and "lacks routelab.simulate" in printed
