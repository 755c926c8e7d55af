"""The versaci2013 and parker reproductions on tiny configurations (4x4x4
tori): every output is written and the numbers obey the physics."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

import routelab
from routelab import reproduce
from routelab.experiment import kinds, searches, spec, study
from routelab.experiment.store import Store
from routelab.reproduce import parker, versaci2013

pytestmark = pytest.mark.slow(100)  # seconds on one core; see conftest.py

#: The committed reproduction outputs.
DOCS = Path(__file__).resolve().parent.parent / "docs" / "reproductions"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def versaci(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("versaci2013")
    summary = versaci2013.run(out, tiny=True, progress=False)
    assert summary == out / "summary.md"
    return out


@pytest.fixture(scope="module")
def parker_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("parker")
    summary = parker.run(out, tiny=True, progress=False)
    assert summary == out / "summary.md"
    return out


def test_versaci_writes_every_output(versaci: Path) -> None:
    for name in (
        "loads.csv",
        "curves.csv",
        "table2.csv",
        "table3.csv",
        "table3_readings.csv",
        "fig4_lifetime.png",
        "fig5_derouted_butterfly.png",
        "butterfly_stages.csv",
        "fig_butterfly_stages.png",
        "summary.md",
        "run.json",
    ):
        assert (versaci / name).stat().st_size > 0, name
    text = (versaci / "summary.md").read_text()
    assert "Table 2" in text and "Table 3" in text
    # The paper's numbers stand beside the measured ones (Table 3, OFR total
    # for butterfly).
    assert "(0.41)" in text


def test_versaci_table2_has_every_router_and_pattern(versaci: Path) -> None:
    t2 = _rows(versaci / "table2.csv")
    assert {(r["router"], r["pattern"]) for r in t2} == {
        (r, p) for r in versaci2013.ROUTERS for p in versaci2013.PATTERNS
    }


def test_gamma_star_is_positive_and_within_the_bisection_bound(versaci: Path) -> None:
    for r in _rows(versaci / "table2.csv"):
        g = float(r["gamma_star"])
        assert 0 < g <= 1.0, r
        # What was accepted at gamma* never exceeds what the bisection carries.
        assert float(r["accepted_at_gamma_star"]) <= 1.0 + 0.02, r
    for r in _rows(versaci / "loads.csv"):
        if r["status"] == "ok":
            assert float(r["accepted"]) <= float(r["offered"]) * 1.05, r


def test_even_split_is_that_of_every_path_listed() -> None:
    net = routelab.topology("torus:4x4x4")
    routes = routelab.route(net, "multipath")
    flows = [(s, d) for s, d in routelab.pattern("rotate3d", net) if s != d]
    listed = routelab.throughput_bound(net, flows, routelab.channel_loads(routes, flows))
    assert versaci2013.bounds.even_split("rotate3d", 4) == pytest.approx(listed["bound_gamma0"])
    assert versaci2013.bounds.even_split("uniform", 4) == 1.0


def test_bounds_order_even_split_minimal_and_any() -> None:
    # The even split is one minimal routing, DOR another: neither passes the
    # minimal bound, which no routing over all paths falls short of.
    net = routelab.topology("torus:4x4x4")
    for pattern in ("bit-reverse", "rotate3d", "butterfly"):
        split = versaci2013.bounds.even_split(pattern, 4)
        minimal, reached = versaci2013.bounds.routing_bound(pattern, 4)
        anyb, _ = versaci2013.bounds.routing_bound(pattern, 4, "any")
        assert max(reached, split) <= minimal * (1 + 1e-9), pattern
        assert reached <= anyb * (1 + 1e-9), pattern
        if pattern != "butterfly":
            flows = [(s, d) for s, d in routelab.pattern(pattern, net) if s != d]
            loads = routelab.channel_loads(routelab.route(net, "dor"), flows)["load"].tolist()
            switches = set(net.switches)
            for i, (a, _, b, _, _) in enumerate(net.cables):
                if a not in switches or b not in switches:
                    loads[2 * i] = loads[2 * i + 1] = 0.0
            dor = routelab.throughput_bound(net, flows, loads)["bound_gamma0"]
            assert dor <= minimal * (1 + 1e-9), pattern
    assert versaci2013.bounds.routing_bound("uniform", 4, "any") == (1.0, 1.0)


def test_table2_gives_the_bounds_per_pattern_and_size(versaci: Path) -> None:
    bounds: dict[tuple[str, str], set[tuple[str, str, str]]] = {}
    for r in _rows(versaci / "table2.csv"):
        key = (r["even_split"], r["minimal_reached"], r["minimal_bound"])
        bounds.setdefault((r["pattern"], r["k"]), set()).add(key)
    for b in bounds.values():
        assert len(b) == 1, bounds
        split, reached, minimal = (float(x) for x in next(iter(b)))
        assert 0 < split <= minimal and 0 < reached <= minimal, bounds


def test_adaptive_routers_sustain_at_least_dor_on_transpose(versaci: Path) -> None:
    g = {
        r["router"]: float(r["gamma_star"])
        for r in _rows(versaci / "table2.csv")
        if r["pattern"] == "transpose"
    }
    for router in ("abr", "por", "ofr"):
        assert g[router] >= g["dor"], g


def test_derouted_ratios_are_fractions(versaci: Path) -> None:
    rows = _rows(versaci / "loads.csv")
    seen = 0
    for r in rows:
        for key in ("ratio_oidn", "ratio_widn", "ratio_derouted"):
            if r[key] != "":
                assert 0.0 <= float(r[key]) <= 1.0, r
                seen += 1
        if r["router"] in ("dor", "abr"):
            assert int(r["derouted"]) == 0, r
        if r["router"] == "ofr" and r["ratio_derouted"] != "":
            total = float(r["ratio_oidn"]) + float(r["ratio_widn"])
            assert total == pytest.approx(float(r["ratio_derouted"])), r
        # Packets sent the other way round a half-ring tie are derouted ones.
        if r["zero_dilation"] != "":
            assert int(r["zero_dilation"]) <= int(r["derouted"]), r
    assert seen > 0
    for r in _rows(versaci / "table3.csv"):
        for key in ("ofr_oidn", "ofr_widn", "ofr_total", "por"):
            assert 0.0 <= float(r[key]) <= 1.0, r


def test_both_readings_of_eq_15_are_run_beside_table_3(versaci: Path) -> None:
    rows = _rows(versaci / "table3_readings.csv")
    patterns = ("uniform", "butterfly")
    assert {(r["router"], r["pattern"], r["reading"]) for r in rows} == {
        (router, pattern, reading)
        for router in ("por", "ofr")
        for pattern in patterns
        for reading in versaci2013.loads.READINGS.values()
    }
    for r in rows:
        derouted = float(r["ratio_derouted"])
        assert 0.0 <= float(r["zero_dilation"]) <= derouted <= 1.0, r
        assert float(r["paper_ratio_derouted"]) > 0, r
        if r["router"] == "ofr":
            split = float(r["ratio_oidn"]) + float(r["ratio_widn"])
            assert split == pytest.approx(derouted), r
    # u* over all the outgoing links is at most u* over the minimal ones, so
    # the reading as written never deroutes more.
    by = {(r["router"], r["pattern"], r["reading"]): float(r["ratio_derouted"]) for r in rows}
    for router in ("por", "ofr"):
        for pattern in patterns:
            assert by[(router, pattern, "as written")] <= by[(router, pattern, "minimal")] + 0.02


def _runs(part: str, variant: str | None = None) -> list[dict]:
    return [r.flat for r in spec.load(versaci2013.SPECS / f"{part}.toml", variant=variant).runs]


def test_searches_bisect_gamma_star_from_their_first_bracket(versaci: Path) -> None:
    walks: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in _rows(versaci / "loads.csv"):
        walks.setdefault((r["router"], r["pattern"]), []).append(r)
    runs = {(r["routing.algorithm"], r["traffic.pattern"]): r for r in _runs("searches", "tiny")}
    assert set(walks) == set(runs)
    assert len(walks) == len(versaci2013.ROUTERS) * len(versaci2013.PATTERNS)
    for key, rows in walks.items():
        loads = [float(r["load"]) for r in rows]
        # The search ran both ends of the spec's first bracket.
        assert runs[key]["saturate.low"] in loads and runs[key]["saturate.high"] in loads, rows
        resolution = runs[key]["saturate.resolution"]
        ordered = [
            {
                "load": float(r["load"]),
                "sustained": r["sustained"] == "True",
                "search_gamma_star": float(r["search_gamma_star"]),
            }
            for r in sorted(rows, key=lambda r: float(r["load"]))
        ]
        # gamma* is the search's own answer, the same on each of its rows.
        assert len({r["search_gamma_star"] for r in ordered}) == 1, rows
        g = searches.gamma_star(ordered)
        assert g == ordered[0]["search_gamma_star"]
        # Bisected to the resolution: gamma* was sustained, and the lowest
        # load above it that was not lies within the resolution.
        assert g == 0 or next(r for r in ordered if r["load"] == g)["sustained"], rows
        above = [r["load"] for r in ordered if r["load"] > g and not r["sustained"]]
        assert above and min(above) - g <= resolution + 1e-9, rows
        assert searches.bracket_high(ordered) == min(above)
        # Verdicts out of order with the bracket are counted, never taken.
        out = [
            r
            for r in ordered
            if (r["load"] < g and not r["sustained"]) or (r["load"] > min(above) and r["sustained"])
        ]
        assert searches.inverted(ordered) == out


def test_every_search_starts_from_the_bracket_it_last_ended_with() -> None:
    # One search per size, pattern and router; its first bracket is the final
    # bracket of the run before (the committed table2.csv: gamma* and the
    # lowest load above it not sustained), at most one resolution wide, so
    # that the search confirms a gamma* it finds inside in two loads. Where
    # the committed gamma* lies outside, the committed search ran the end it
    # passed and found it on the other side (the search then moves by
    # doubling steps).
    sizes = (16, 8)
    runs = spec.load(versaci2013.SPECS / "searches.toml").runs
    full = {
        (r["topology"], r["pattern"], r["router"]): r
        for r in _rows(DOCS / "versaci2013" / "table2.csv")
    }
    assert len(runs) == len(sizes) * len(versaci2013.PATTERNS) * len(versaci2013.ROUTERS)
    outside = 0
    for run in runs:
        r = run.flat
        k = versaci2013.size_of(r["network.topology"])
        router, pattern = r["routing.algorithm"], r["traffic.pattern"]
        assert r["network.topology"] == versaci2013.topology(pattern, k)
        low, high = r["saturate.low"], r["saturate.high"]
        assert 0 < low < high <= low + r["saturate.resolution"] + 1e-9, r
        row = full[(r["network.topology"], pattern, router)]
        g = float(row["gamma_star"])
        if low <= g < high:
            assert int(row["loads_run"]) == 2, row
            continue
        outside += 1
        journal = DOCS / "versaci2013" / "searches" / "journals" / f"{run.key}.jsonl"
        loads = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
        verdict = {round(p["load"], 6): p["sustained"] for p in loads}
        if g < low:
            assert verdict[round(low, 6)] is False, r
        else:
            assert verdict[round(high, 6)] is True, r
    assert len(full) == len(runs) and outside <= 3


def test_the_quick_searches_bracket_the_full_modes_uniform_gamma_star() -> None:
    # The quick mode's searches: uniform traffic on 8x8x8, every router, each
    # first bracket around the gamma* the full mode measured (the committed
    # table2.csv) and at most three resolutions wide, so that one step of
    # thirds reaches the resolution when the bracket holds gamma*.
    full = {
        r["router"]: float(r["gamma_star"])
        for r in _rows(DOCS / "versaci2013" / "table2.csv")
        if r["pattern"] == "uniform" and r["k"] == "8"
    }
    runs = _runs("searches", "quick")
    assert {r["routing.algorithm"] for r in runs} == set(versaci2013.ROUTERS) == set(full)
    for r in runs:
        assert (r["network.topology"], r["traffic.pattern"]) == ("torus:8x8x8", "uniform")
        low, high = r["saturate.low"], r["saturate.high"]
        assert low < full[r["routing.algorithm"]] < high, r
        assert high - low <= 3 * r["saturate.resolution"] + 1e-9, r


def test_the_specs_are_table_1_with_the_routers_and_patterns_of_the_paper() -> None:
    for part in versaci2013.PARTS:
        for variant in (None, "quick", "tiny"):
            for r in _runs(part, variant):
                assert r["router.switching"] == "store-and-forward" and r["router.vcs"] == 3
                assert (r["router.buffer_packets"], r["router.flit_bytes"]) == (8, 512)
                assert r["traffic.message_packets"] == 96 and r["traffic.injection_limit"] == 2.4
                assert r["network.classes.switch.bandwidth"] == "20Gb/s"
                assert r["network.classes.terminal.bandwidth"] == "64Gb/s"
                # Butterfly's stages in step, measured over whole rounds.
                butterfly = r["traffic.pattern"] == "butterfly"
                assert (r.get("traffic.arrivals") == "periodic") == butterfly, r
                assert bool(r.get("run.whole_rounds")) == butterfly, r
                options = r.get("routing.options") or {}
                if r["routing.algorithm"] != "dor":
                    assert options["one_way_ties"] is True and options["adaptive_vcs"] == 1
                if part == "searches":
                    assert r["run.drain_unconverged"] is False and r["run.stop_backlog"] == 0.1


@pytest.mark.parametrize(("variant", "k"), [(None, 16), ("quick", 8)])
def test_fig4_curves_run_six_loads_below_every_papers_gamma_star(variant, k) -> None:
    # Fig. 4's curves need points below the knee: six loads per pattern and
    # router (butterfly's come from the stage sweep), each below the gamma*
    # the paper gives every router there, so each router sustains them.
    loads: dict[tuple[str, str], list[float]] = {}
    for r in _runs("curves", variant):
        assert versaci2013.size_of(r["network.topology"]) == k
        assert r["network.topology"] == versaci2013.topology(r["traffic.pattern"], k)
        loads.setdefault((r["traffic.pattern"], r["routing.algorithm"]), []).append(
            r["traffic.load"]
        )
    # The quick mode's one pattern is uniform traffic, as its searches'.
    patterns = (
        [p for p in versaci2013.PATTERNS if p != "butterfly"] if variant is None else ["uniform"]
    )
    assert set(loads) == {(p, r) for p in patterns for r in ("abr", "por", "ofr")}
    for (pattern, _), ls in loads.items():
        assert len(set(ls)) == 6
        assert max(ls) < min(
            versaci2013.paper.PAPER_TABLE2[(pattern, x, k)] for x in ("abr", "por", "ofr")
        )


def test_fig4_curves_join_the_searches_below_gamma_star(versaci: Path) -> None:
    rows = _rows(versaci / "curves.csv")
    assert len(rows) == 4 * 3 * 2  # tiny: two loads per pattern and router
    assert all(float(r["lifetime_us"]) > 0 for r in rows if r["status"] == "ok")
    walked = versaci2013.loads.search_rows(
        routelab.results(versaci / "searches", artefacts=("points",))
    )
    curves = versaci2013.loads.sim_rows(routelab.results(versaci / "curves"), 0.05)
    for pattern in versaci2013.PATTERNS:
        for router in ("abr", "por", "ofr"):
            key = (pattern, router, 4)
            pts = versaci2013.figures.curve(walked, curves, key, "lifetime_us")
            g = searches.gamma_star(versaci2013.loads.walks(walked)[key])
            loads = [p["load"] for p in pts]
            assert loads == sorted(loads) and all(x <= g for x in loads)
            assert all(p["sustained"] for p in pts)
            if pattern != "butterfly":
                assert len(pts) > len(versaci2013.figures.curve(walked, [], key, "lifetime_us"))


def test_a_second_run_into_the_same_directory_simulates_nothing_again(
    versaci: Path, monkeypatch
) -> None:
    before = _rows(versaci / "loads.csv")
    stages = _rows(versaci / "butterfly_stages.csv")

    def refuse(*_args, **_kwargs):
        raise AssertionError("a finished simulation ran again")

    monkeypatch.setattr(routelab, "simulate", refuse)
    monkeypatch.setattr(routelab, "saturate", refuse)
    versaci2013.run(versaci, tiny=True, progress=False)
    assert _rows(versaci / "loads.csv") == before
    assert _rows(versaci / "butterfly_stages.csv") == stages


def test_finished_only_renders_what_has_finished_and_simulates_nothing(
    versaci: Path, tmp_path: Path, monkeypatch
) -> None:
    # A long reproduction read while it runs: three searches not recorded (one
    # of them finished in its journal), no stage, curve or reading run yet.
    out = tmp_path / "v"
    shutil.copytree(versaci / "searches", out / "searches")
    store = Store.open(out / "searches")
    runs = store.experiment().runs
    gone = [runs[1], runs[6], runs[10]]
    for run in gone:
        store.record_path(run.key).unlink()
    journaled = gone[0]
    kinds.execute("saturate", journaled.params, journal=str(store.journal_path(journaled.key)))
    original = routelab.saturate

    def replay_only(*args, **kwargs):
        assert kwargs.get("replay_only"), "a search was simulated"
        return original(*args, **kwargs)

    def refuse(*_args, **_kwargs):
        raise AssertionError("a simulation ran")

    monkeypatch.setattr(routelab, "saturate", replay_only)
    monkeypatch.setattr(routelab, "simulate", refuse)
    with study.finished_only():
        versaci2013.run(out, tiny=True, progress=False)
    full = {(r["pattern"], r["router"]): r["gamma_star"] for r in _rows(versaci / "table2.csv")}
    now = {(r["pattern"], r["router"]): r["gamma_star"] for r in _rows(out / "table2.csv")}
    blank = {(r.flat["traffic.pattern"], r.flat["routing.algorithm"]) for r in gone[1:]}
    assert now == {key: ("" if key in blank else g) for key, g in full.items()}
    assert store.journal_path(journaled.key).is_file()  # read, not consumed
    text = (out / "summary.md").read_text()
    assert f"searches {len(runs) - 2} of {len(runs)} runs" in text
    assert "stages 0 of" in text and "Rendered from the runs finished so far" in text
    # The stage loads still to run are listed, none with a verdict.
    stages = _rows(out / "butterfly_stages.csv")
    assert stages and all(r["sustained"] == "" and r["lifetime_us"] == "" for r in stages)
    assert "| >= 0.00 | >= 0.00 |" in text  # nothing known yet above the lowest load
    # A reproduction whose tables need every run says so instead.
    with study.finished_only(), pytest.raises(routelab.ConfigError, match="without --finished"):
        parker.run(tmp_path / "p", tiny=True, progress=False)
    with study.finished_only(), pytest.raises(routelab.ConfigError, match="no search has finished"):
        versaci2013.run(tmp_path / "empty", tiny=True, progress=False)


def test_the_committed_journals_replay_to_the_committed_table_2() -> None:
    # Every full-mode search's loads are committed (searches/journals/): each
    # replays, simulating nothing, to its gamma* in the committed table2.csv.
    journals = DOCS / "versaci2013" / "searches" / "journals"
    table = {
        (r["topology"], r["pattern"], r["router"]): float(r["gamma_star"])
        for r in _rows(DOCS / "versaci2013" / "table2.csv")
    }
    runs = spec.load(versaci2013.SPECS / "searches.toml").runs
    assert len(table) == len(runs)
    for run in runs:
        path = journals / f"{run.key}.jsonl"
        done = kinds.execute(run.kind, run.params, str(path), replay_only=True)
        assert done["status"] == "ok", (run.flat, done["error"])
        flat = run.flat
        key = (flat["network.topology"], flat["traffic.pattern"], flat["routing.algorithm"])
        assert round(done["metrics"]["bracket_low"], 4) == table[key], key


def test_the_command_line_renders_nothing_from_nothing_and_says_so(tmp_path, run_cli) -> None:
    r = run_cli("reproduce", "versaci2013", "--finished", "--out", str(tmp_path / "v"))
    assert r.returncode == 2 and "no search has finished yet" in r.stderr, r.stderr
    assert not list((tmp_path / "v" / "searches" / "runs").iterdir())


def test_transposition_runs_on_a_square_number_of_nodes() -> None:
    assert versaci2013.topology("transpose", 8) == "torus:16x8x8"
    assert versaci2013.topology("transpose", 16) == "torus:16x16x16"
    assert versaci2013.topology("uniform", 8) == "torus:8x8x8"
    rows = [
        {"load": 0.1, "sustained": True},
        {"load": 0.2, "sustained": True},
        {"load": 0.3, "sustained": False},
    ]
    assert searches.gamma_star(rows) == 0.2
    assert searches.gamma_star([{"load": 0.1, "sustained": False}]) == 0.0
    # A search's rows carry its final bracket: a load below it that was not
    # sustained is counted as out of order, not taken as the answer.
    walk = [
        {"load": 0.1, "sustained": True},
        {"load": 0.2, "sustained": False},
        {"load": 0.3, "sustained": True},
        {"load": 0.32, "sustained": False},
        {"load": 0.4, "sustained": True},
    ]
    walk = [dict(r, search_gamma_star=0.3, search_bracket_high=0.32) for r in walk]
    assert searches.gamma_star(walk) == 0.3
    assert searches.bracket_high(walk) == 0.32
    assert searches.inverted(walk) == [walk[1], walk[4]]


def test_parker_writes_every_output(parker_out: Path) -> None:
    for name in (
        "latency.csv",
        "bandwidth.csv",
        "stats.csv",
        "fig2_latency_dor.png",
        "fig3_latency_rdr.png",
        "fig4_latency_dor_rdr.png",
        "fig5_bandwidth.png",
        "latency_abr_ofr.png",
        "summary.md",
        "run.json",
    ):
        assert (parker_out / name).stat().st_size > 0, name
    assert "2 GB/s" in (parker_out / "summary.md").read_text()


def test_parker_pairs_are_disjoint_and_seeded(parker_out: Path) -> None:
    # bisect:dir=one,active=N: N/2 senders each to its own receiver, all N
    # distinct; a placement (run.seed) draws the same pairs for every router
    # and trial, another placement other pairs.
    net = routelab.topology("torus:10x10x10")
    p = routelab.pattern("bisect:dir=one,active=250", net, seed=1)
    nodes = [n for pair in p for n in pair]
    assert len(p) == 125 and len(set(nodes)) == 250 and all(0 <= n < 1000 for n in nodes)
    assert routelab.pattern("bisect:dir=one,active=250", net, seed=1) == p
    assert routelab.pattern("bisect:dir=one,active=250", net, seed=2) != p
    pairs = {}
    for name in ("latency.csv", "bandwidth.csv"):
        for r in _rows(parker_out / name):
            key = (r["active"], r["placement"])
            pairs.setdefault(key, {}).setdefault(r["router"] + name, set()).add(
                (r["src"], r["dst"])
            )
    for key, by_run in pairs.items():
        first = next(iter(by_run.values()))
        assert all(v == first for v in by_run.values()), key


def test_parker_latencies_are_positive_and_cdfs_monotone(parker_out: Path) -> None:
    lat = _rows(parker_out / "latency.csv")
    for router in parker.ROUTERS:
        for active in (16, 64):
            xs = [
                float(r["latency_us"])
                for r in lat
                if r["router"] == router and int(r["active"]) == active
            ]
            assert len(xs) == active // 2
            assert all(x > 0 for x in xs)
            x, y = parker.cdf(xs)
            assert all(a <= b for a, b in zip(x, x[1:], strict=False))
            assert all(a < b for a, b in zip(y, y[1:], strict=False)) and y[-1] == 1.0


def test_parker_bandwidths_respect_the_links(parker_out: Path) -> None:
    bw = _rows(parker_out / "bandwidth.csv")
    assert bw
    for r in bw:
        b = float(r["bandwidth_gbytes"])
        assert b > 0, r
        # One path of 2 GB/s links under DOR; at most the links of the three
        # minimal directions under RDR and ABR; at most all six under OFR.
        links = {"dor": 1, "rdr": 3, "abr": 3, "ofr": 6}[r["router"]]
        limit = links * parker.LINK_GBYTES
        assert b <= limit * 1.001, r


def test_registry_lists_both() -> None:
    assert {"versaci2013", "parker"} <= set(reproduce.names())
    assert reproduce.module("parker") is parker
    assert reproduce.module("versaci2013") is versaci2013


def test_versaci_butterfly_stages_bound_abr_one_way_and_ofr_both_ways() -> None:
    """The paper's headline on 8x8x8: with the stages in step and one minimal
    way per dimension, each k/2 stage puts k/2 messages per period on every
    `+` link, so it fits in its period up to 0.25 gamma0 and, using the `-`
    links too (derouting), up to 0.5. ABR's lifetime leaves its low-load level
    past 0.3 (the paper's gamma*), OFR's not before 0.4; beyond its knee ABR's
    lifetime stays bounded over whole rounds (the backlog drains in the light
    stages), so 0.4 is still sustained."""
    assert versaci2013.bounds.stage_capacity(8, 1) == pytest.approx(0.25, rel=0.03)
    assert versaci2013.bounds.stage_capacity(8, 2) == pytest.approx(0.5, rel=0.03)
    runs = {r["routing.algorithm"]: r for r in _runs("stages", "quick")}

    def run(router: str, load: float):
        r = routelab.simulate(spec.unflatten(runs[router] | {"traffic.load": load}))
        ok = r.drained and r.converged and r.accepted >= 0.95 * r.offered
        return r.latency_mean, ok

    abr_low, _ = run("abr", 0.1)
    abr_03, ok_03 = run("abr", 0.3)
    abr_04, ok_04 = run("abr", 0.4)
    assert ok_03 and abr_03 <= 2 * abr_low
    assert abr_04 > 2 * abr_low and ok_04
    ofr_low, _ = run("ofr", 0.1)
    ofr_04, ok = run("ofr", 0.4)
    assert ok and ofr_04 <= 2 * ofr_low < abr_04


@pytest.mark.parametrize("k", [4, 8])
def test_versaci_both_ways_stage_capacity_bounds_any_routing(k: int) -> None:
    """Both ways' capacity of butterfly's k/2 stage is the most any routing,
    minimal or not, can carry of it: the maximum concurrent flow of the stage's
    flows over any paths has it as its certified bound (LP duality), and reaches
    it. So no router can fit that stage in its period past 0.5."""
    net = routelab.topology(f"torus:{k}x{k}x{k}")
    top = k.bit_length() - 2  # the top bit of the first coordinate: k/2 hops
    flows = [(s, s ^ (1 << top)) for s in range(len(net.terminals))]
    routes = routelab.route(net, "minhop")
    # Links between switches: the path's nodes less its two terminals, less one.
    assert {len(routes.path(s, d)) - 3 for s, d in flows} == {k // 2}
    r = routelab.max_concurrent_flow(net, flows, paths="any", terminal_links=False)
    both = versaci2013.bounds.stage_capacity(k, 2)
    assert r["bound_gamma0"] == pytest.approx(both, rel=1e-6)
    assert r["reached_gamma0"] == pytest.approx(both, rel=1e-6)


def test_versaci_butterfly_stages_are_told_per_size() -> None:
    """Stage rows of two sizes: one table row per size and router, the highest
    load sustained a lower bound where it is the sweep's top, and the paper's
    16x16x16 OFR value (0.75) named as past both ways' capacity."""

    def rows(k: int, router: str, knee: float, top: float) -> list[dict]:
        out = []
        for load in (0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7):
            ratio = 1.0 if load <= knee else 3.0
            out.append(
                dict(
                    k=k,
                    router=router,
                    load=load,
                    lifetime_us=10 * ratio,
                    lifetime_ratio=ratio,
                    sustained=load <= top,
                )
            )
        return out

    stage_rows = [
        *rows(8, "abr", 0.3, 0.6),
        *rows(8, "ofr", 0.5, 0.7),
        *rows(16, "abr", 0.35, 0.6),
        *rows(16, "ofr", 0.5, 0.7),
    ]
    assert list(versaci2013.stages.by_size(stage_rows)) == [8, 16]
    table = "\n".join(versaci2013.stages._stages_md(stage_rows))
    assert "| 8 | ABR | 0.30 | 0.30 | 0.60 |" in table
    assert "| 16 | OFR | 0.75 | 0.50 | >= 0.70 |" in table
    text = versaci2013.stages._butterfly_difference(stage_rows)[0]
    assert "k = 16, sustained up to ABR 0.60, OFR >= 0.70, knee ABR 0.35, OFR 0.50" in text
    assert (
        "At k = 8 the paper's gamma* (ABR 0.30, OFR 0.60) is within 0.1 of the knee "
        "for ABR, OFR of 2" in text
    )
    assert "OFR's 0.75 passes both ways' 0.50, the most any routing fits" in text
    assert (
        "Ours has its knee at 0.50, and at 0.50 its lifetime is 1.00 times the low-load one: "
        "it uses both ways nearly as far as they go." in text
    )
    # Without a load run up to the capacity, the sentence still reads whole.
    no_fit = [
        r for r in stage_rows if not (r["k"] == 16 and r["router"] == "ofr" and r["load"] <= 0.5)
    ]
    alone = versaci2013.stages._butterfly_difference(no_fit)[0]
    assert "Ours has its knee at 0.00. Past 0.50" in alone
    assert "ABR's 0.35 passes" not in text
    # Rendered while OFR's loads above 0.3 at k = 16 have not run: its knee and
    # sustained load are lower bounds, and its paper value is not judged.
    ran = [r for r in stage_rows if not (r["k"] == 16 and r["router"] == "ofr" and r["load"] > 0.3)]
    sims = [dict(r, status="ok") for r in ran]
    left = [
        {"network.topology": "torus:16x16x16", "routing.algorithm": "ofr", "traffic.load": x}
        for x in (0.35, 0.4, 0.5, 0.6, 0.7)
    ]
    partial = versaci2013.stages.butterfly_stages(sims, left)
    assert [r["sustained"] for r in partial if r["k"] == 16 and r["router"] == "ofr"][-5:] == [
        ""
    ] * 5
    table = "\n".join(versaci2013.stages._stages_md(partial))
    assert "| 16 | OFR | 0.75 | >= 0.30 | >= 0.30 |" in table
    assert "| 16 | ABR | 0.35 | 0.35 | 0.60 |" in table
    text = versaci2013.stages._butterfly_difference(partial)[0]
    assert "sustained up to ABR 0.60, OFR >= 0.30, knee ABR 0.35, OFR >= 0.30" in text
    assert "OFR's 0.75 passes" not in text and "(OFR: loads above the knee not run yet)" in text


def test_versaci_stage_sweep_runs_every_router_on_the_smallest_network() -> None:
    """Every router on 8x8x8; the paper's three on 16x16x16; quick: 8x8x8 only."""

    def routers(variant: str | None) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {}
        for r in _runs("stages", variant):
            out.setdefault(versaci2013.size_of(r["network.topology"]), set()).add(
                r["routing.algorithm"]
            )
        return out

    assert routers(None) == {8: set(versaci2013.ROUTERS), 16: {"abr", "por", "ofr"}}
    assert routers("quick") == {8: set(versaci2013.ROUTERS)}


def _keys_differing(run: dict, table2: dict) -> set[str]:
    """The parameters in which a run of a spec beyond the paper differs from
    Table 2's run it varies (run.whole_rounds: unset there, false in Table 2's
    non-butterfly runs: the same run)."""
    assert not run.get("run.whole_rounds") and not table2["run.whole_rounds"]
    keys = set(run) | set(table2)
    return {k for k in keys if run.get(k) != table2.get(k)} - {"run.whole_rounds"}


def test_versaci_messages_spec_varies_only_messages_and_queues() -> None:
    """messages.toml is Table 2's uniform search with other message lengths or
    queue capacities: each run equals searches.toml's run of its router on
    16x16x16 but for those (and its first bracket), and none repeats Table 2's
    96-packet messages into 8-packet queues."""
    searches_toml = {
        r["routing.algorithm"]: r
        for r in _runs("searches")
        if r["traffic.pattern"] == "uniform" and r["network.topology"] == "torus:16x16x16"
    }
    runs = _runs("messages")
    assert len(runs) == 9
    varied = {"router.buffer_packets", "traffic.message_packets", "saturate.low", "saturate.high"}
    for r in runs:
        table2 = searches_toml[r["routing.algorithm"]]
        differ = _keys_differing(r, table2)
        assert differ <= varied, differ
        assert (r["traffic.message_packets"], r["router.buffer_packets"]) != (96, 8)
    assert {r["network.topology"] for r in _runs("messages", "quick")} == {"torus:8x8x8"}


def test_versaci_eta_spec_varies_only_pors_eta() -> None:
    """eta.toml is Table 2's POR search with other values of eq. (15)'s eta:
    each run equals searches.toml's POR run of its network and pattern but for
    eta (and its first bracket), at both sizes, and eta = 1 is Table 2's own."""
    table2 = {
        (r["network.topology"], r["traffic.pattern"]): r
        for r in _runs("searches")
        if r["routing.algorithm"] == "por"
    }
    sizes = {None: {"torus:16x16x16"}, "quick": {"torus:8x8x8", "torus:16x8x8"}}
    for variant, topologies in sizes.items():
        runs = _runs("eta", variant)
        assert {r["network.topology"] for r in runs} == topologies
        etas: dict[str, set[float]] = {}
        for r in runs:
            same = table2[r["network.topology"], r["traffic.pattern"]]
            differ = _keys_differing(r, same)
            assert differ <= {"routing.options", "saturate.low", "saturate.high"}, differ
            options, eta = dict(r["routing.options"]), r["routing.options"]["eta"]
            assert options | {"eta": 1.0} == same["routing.options"]
            etas.setdefault(r["traffic.pattern"], set()).add(eta)
        patterns = {"uniform", "transpose", "rotate3d", "bit-reverse"}
        assert etas == dict.fromkeys(patterns, {1.0, 2.0, 4.0, 8.0})
