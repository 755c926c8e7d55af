"""Plots: standard figures from real route sweeps, lines, bars, CDFs and
histograms from stored results, link-load heatmaps of tori."""

import textwrap
import xml.etree.ElementTree as ET

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer

import routelab
from routelab.experiment import plot
from routelab.experiment import spec as specs
from routelab.experiment.linkload import _image, channel_grids, link_load_heatmap
from routelab.experiment.store import Store

ROUTE = textwrap.dedent(
    """
    [experiment]
    kind = "route"
    name = "plots"
    seeds = [1, 2]

    [network]
    topology = ["torus:4x4", "random:switches=16,ports=6,hosts=2,seed={seed}"]

    [routing]
    algorithm = ["minhop", "dfsssp", "updown"]
    """
)

SIM = textwrap.dedent(
    """
    [experiment]
    kind = "sim"
    name = "loads"
    seeds = [1, 2]

    [network]
    topology = "torus:4x4"

    [routing]
    algorithm = ["dor", "duato"]

    [traffic]
    pattern = ["uniform", "tornado"]
    load = [0.1, 0.2, 0.3]
    """
)


@pytest.fixture(scope="module")
def route_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "route"
    spec = out.parent / "route.toml"
    spec.write_text(ROUTE)
    outcome = routelab.sweep(spec, out)
    assert outcome.ok == 12
    return out


def latency(algorithm, pattern, load, seed):
    return (
        100
        + 1000 * load * (2 if algorithm == "dor" else 1)
        + (50 if pattern == "tornado" else 0)
        + seed
    )


def stored_sim_results(root, cap=lambda algorithm: 0.25):
    """A store filled with known metrics for the plotting code to draw; each
    routing accepts at most ``cap(algorithm)`` flits/node/cycle."""
    exp = specs.parse(SIM)
    store = Store.create_or_resume(root, exp)
    for run in exp.runs:
        p = run.flat
        lat = latency(
            p["routing.algorithm"], p["traffic.pattern"], p["traffic.load"], p["run.seed"]
        )
        samples = [lat - 10, lat, lat + 10, lat + 40]
        store.write_run(
            run,
            {
                "status": "ok",
                "metrics": {
                    "offered": p["traffic.load"],
                    "accepted": min(p["traffic.load"], cap(p["routing.algorithm"])),
                    "latency_mean": lat,
                    "latency_p99": lat + 40,
                },
                "artefacts": {
                    "latency_samples": samples,
                    "latency_histogram": [
                        {"lo_ns": lat - 20, "hi_ns": lat, "count": 3},
                        {"lo_ns": lat, "hi_ns": lat + 20, "count": 1},
                    ],
                },
                "wall_seconds": 0.1,
            },
            attempts=1,
            session="s",
        )
    return store


def test_columns_resolve_from_short_names(tmp_path):
    store = stored_sim_results(tmp_path / "sim")
    df = store.table()
    assert plot.resolve_column(df, "load") == "traffic.load"
    assert plot.resolve_column(df, "routing") == "routing.algorithm"
    assert plot.resolve_column(df, "pattern") == "traffic.pattern"
    assert plot.resolve_column(df, "latency_mean") == "latency_mean"
    with pytest.raises(routelab.ConfigError, match="no column 'latency'.*latency_mean"):
        plot.resolve_column(df, "latency")


def test_line_plot_draws_the_mean_over_seeds_per_hue_and_facet(tmp_path):
    store = stored_sim_results(tmp_path / "sim")
    df = store.table()
    spec = plot.FigureSpec("auto", "latency_mean", "load", "routing", "pattern")
    fig = plot.figure(df, spec)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == [
        "traffic pattern = uniform",
        "traffic pattern = tornado",
    ]
    for ax, pattern in zip(axes, ["uniform", "tornado"], strict=True):
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert set(lines) == {"dor", "duato"}
        for algorithm, line in lines.items():
            xs = list(line.get_xdata())
            assert xs == [0.1, 0.2, 0.3]
            want = [np.mean([latency(algorithm, pattern, x, s) for s in (1, 2)]) for x in xs]
            np.testing.assert_allclose(line.get_ydata(), want)
        assert len(ax.collections) == 2  # a min-max band per line (two seeds)
    legend = fig.legends[0]
    assert legend.get_title().get_text() == "routing"
    assert axes[0].get_xlabel() == "offered load (flits/node/cycle)"
    assert axes[0].get_ylabel() == "mean packet latency (ns)"


def test_standard_figures_of_a_simulation(tmp_path):
    store = stored_sim_results(tmp_path / "sim")
    paths = plot.standard_figures(store.root, tmp_path / "figs")
    names = [p.name for p in paths]
    assert names == [
        "latency_mean-vs-traffic.load.png",
        "accepted-vs-traffic.load.png",
        "latency-cdf.png",
    ]
    for p in paths:
        img = matplotlib.image.imread(p)
        assert img.shape[0] > 300 and img.shape[1] > 600
    # the latency CDF is drawn from the histograms of the runs at the highest
    # load each routing sustains (0.3 offered, 0.25 accepted is not sustained)
    cdf = plot.standard_specs(store.table(), store)[2]
    assert cdf.below_saturation == "traffic.load" and cdf.facet == "traffic.pattern"
    fig = plot.figure(plot.table_for(store, store.table(), cdf), cdf, store)
    uniform = fig.axes[0]
    assert uniform.get_title() == "traffic pattern = uniform"
    dor = next(line for line in uniform.get_lines() if line.get_label() == "dor at 0.2")
    centres = sorted(latency("dor", "uniform", 0.2, s) + d for s in (1, 2) for d in (-10, 10))
    np.testing.assert_allclose(dor.get_xdata(), centres)
    np.testing.assert_allclose(dor.get_ydata(), [3 / 8, 6 / 8, 7 / 8, 1.0])


def test_latency_cdf_of_each_router_below_its_own_saturation(tmp_path):
    store = stored_sim_results(tmp_path / "sim", cap=lambda a: 0.15 if a == "dor" else 1.0)
    cdf = plot.standard_specs(store.table(), store)[2]
    fig = plot.figure(plot.table_for(store, store.table(), cdf), cdf, store)
    for ax in fig.axes:
        assert {line.get_label() for line in ax.get_lines()} == {"dor at 0.1", "duato at 0.3"}
        assert ax.get_xlabel() == "packet latency (ns)"
    with pytest.raises(routelab.ConfigError, match="no run sustains"):
        store = stored_sim_results(tmp_path / "none", cap=lambda a: 0.01)
        plot.figure(plot.table_for(store, store.table(), cdf), cdf, store)


def test_latency_plot_marks_saturation_and_clips_at_a_multiple_of_zero_load(tmp_path):
    store = stored_sim_results(tmp_path / "sim", cap=lambda a: 0.15 if a == "dor" else 1.0)
    df = store.table()
    spec = plot.standard_specs(df, store)[0]
    assert spec.logy and spec.saturation and spec.clip == plot.CLIP
    fig = plot.figure(df, spec, store)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    marks = {
        tuple(line.get_xdata()) for line in ax.get_lines() if line.get_label() == "_saturation"
    }
    assert marks == {(0.2, 0.2)}  # dor saturates at 0.2; duato sustains every load
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert legend == ["dor", "duato", plot.SATURATION]
    # without accepted and offered, a latency three times the zero-load one saturates
    part = pd.DataFrame({"load": [0.1, 0.2, 0.3, 0.4], "lat": [10.0, 20.0, 31.0, 5000.0]})
    assert plot.saturation_load(part, "load", "lat") == 0.3
    fig = plot.figure(part.assign(kind="sim"), plot.FigureSpec("line", "lat", "load", clip=20))
    ax = fig.axes[0]
    assert ax.get_ylim()[1] == pytest.approx(200.0)  # 20 x 10 ns
    above = [line for line in ax.get_lines() if line.get_marker() == "^"]
    assert [list(line.get_xdata()) for line in above] == [[0.4]]
    assert list(above[0].get_ydata()) == [200.0]


def test_cdf_and_histogram_of_list_artefacts(tmp_path):
    store = stored_sim_results(tmp_path / "sim")
    df = plot.with_column(store, store.table(), "latency_samples")
    assert all(len(v) == 4 for v in df["latency_samples"])
    fig = plot.figure(df, plot.FigureSpec("cdf", "latency_samples", hue="routing"))
    ax = fig.axes[0]
    for line in ax.get_lines():
        ys = line.get_ydata()
        assert ys[-1] == pytest.approx(1.0)
        assert np.all(np.diff(line.get_xdata()) >= 0) and np.all(np.diff(ys) >= 0)
        assert len(ys) == 12 * 4  # 12 runs per routing, 4 samples each
    fig = plot.figure(df, plot.FigureSpec("hist", "latency_samples", hue="routing"))
    ax = fig.axes[0]
    bars = {c.get_label(): list(c) for c in ax.containers}
    assert set(bars) == {"dor", "duato"}
    for group in bars.values():  # every sample counted once
        assert sum(b.get_height() for b in group) == 12 * 4
    # side by side in each bin: no bar covers another
    spans = sorted((b.get_x(), b.get_x() + b.get_width()) for g in bars.values() for b in g)
    assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:], strict=False))
    xs, ws = plot._samples([[1, 2], {"bins": [0, 2, 4], "counts": [3, 1]}, 5.0])
    assert list(xs) == [1, 2, 1, 3, 5] and list(ws) == [1, 1, 3, 1, 1]


def test_plot_command_writes_png_and_svg(route_dir, run_cli, tmp_path):
    png = tmp_path / "lanes.png"
    r = run_cli(
        "plot",
        str(route_dir),
        "--x",
        "routing",
        "--y",
        "lanes_needed",
        "--hue",
        "topology",
        "-o",
        str(png),
    )
    assert r.returncode == 0, r.stderr
    img = matplotlib.image.imread(png)
    assert img.shape[0] >= 400 and img.shape[1] >= 600
    colours = np.unique((img[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 50  # bars, text and a legend, not a blank canvas

    svg = tmp_path / "hops.svg"
    r = run_cli(
        "plot",
        str(route_dir),
        "--x",
        "algorithm",
        "--y",
        "avg_hops",
        "--facet",
        "topology",
        "-o",
        str(svg),
    )
    assert r.returncode == 0, r.stderr
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    bars = root.findall(".//{http://www.w3.org/2000/svg}g[@id]")
    assert sum(1 for g in bars if g.get("id", "").startswith("patch")) >= 9
    assert sum(1 for g in bars if g.get("id", "").startswith("axes_")) == 3  # three topologies

    r = run_cli("plot", str(route_dir))
    assert r.returncode == 0, r.stderr
    assert (route_dir / "figures" / "lanes_needed-vs-routing.algorithm.png").is_file()

    r = run_cli("plot", str(route_dir), "--x", "routing", "--y", "latency")
    assert r.returncode == 2 and "no column 'latency'" in r.stderr
    r = run_cli("plot", str(route_dir), "--y", "lanes_used", "--x", "routing", "-o", "x.gif")
    assert r.returncode == 2 and ".png, .svg, .pdf" in r.stderr


def test_bar_heights_are_the_metric_means(route_dir):
    df = routelab.results(route_dir)
    spec = plot.FigureSpec("bar", "lanes_needed", "routing", "topology", invalid="deadlock_free")
    assert plot.standard_specs(df)[0] == plot.FigureSpec(
        "bar",
        "lanes_needed",
        "routing.algorithm",
        "network.topology",
        None,
        "lanes needed",
        invalid="deadlock_free",
    )
    fig = plot.figure(df, spec)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "virtual lanes needed" and ax.get_xlabel() == "routing"
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["minhop", "dfsssp", "updown"]
    torus = df[df["network.topology"] == "torus:4x4"]
    want = [torus[torus["routing.algorithm"] == a]["lanes_needed"].mean() for a in labels]
    first_hue = ax.containers[0]
    heights = [b.get_height() for b in first_hue]
    # minhop on the torus is not deadlock-free: no lane count, a hatched mark
    assert np.isnan(heights[0]) and heights[1:] == want[1:]
    assert not torus[torus["routing.algorithm"] == "minhop"]["deadlock_free"].all()
    marks = [p for p in ax.patches if p.get_hatch() == "///"]
    bar = first_hue[0]
    cyclic = df.groupby(["network.topology", "routing.algorithm"])["deadlock_free"].all()
    assert len(marks) == (~cyclic).sum() >= 1  # one mark per bar that has no lane count
    assert marks[0].get_x() == pytest.approx(bar.get_x())
    assert marks[0].get_width() == pytest.approx(bar.get_width())


def test_bars_have_min_max_whiskers_over_seeds():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        [
            {"kind": "ebb", "routing.algorithm": a, "ebb.seed": s, "avg": rng.uniform(0.2, 0.9)}
            for a in ("minhop", "dfsssp", "updown")
            for s in range(5)
        ]
    )
    fig = plot.figure(df, plot.FigureSpec("bar", "avg", "routing.algorithm"))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "effective bisection bandwidth\n(fraction of link bandwidth)"
    (container,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    segments = container.errorbar.lines[2][0].get_segments()
    for algorithm, bar, seg in zip(
        ["minhop", "dfsssp", "updown"], container, segments, strict=True
    ):
        runs = df[df["routing.algorithm"] == algorithm]["avg"]
        assert bar.get_height() == pytest.approx(runs.mean())
        assert sorted(seg[:, 1]) == pytest.approx([runs.min(), runs.max()])


# ---------------------------------------------------------------- heatmaps


def channel_towards(net, src, dst):
    """The channel id from switch ``src`` to switch ``dst`` (by cable order)."""
    for i, (a, _pa, b, _pb, _cls) in enumerate(net.cables):
        if (a, b) == (src, dst):
            return 2 * i
        if (b, a) == (src, dst):
            return 2 * i + 1
    raise AssertionError("no cable")


def test_torus_channel_grids_place_each_channel_load():
    net = routelab.topology("torus:4x3")
    loads = np.arange(2 * len(net.cables), dtype=float)
    grids = channel_grids(net, loads)
    by_name = {net.nodes[s][1]: s for s in net.switches}
    for x in range(4):
        for y in range(3):
            here = by_name[f"s{x}.{y}"]
            assert grids[(0, 1)][x, y] == channel_towards(net, here, by_name[f"s{(x + 1) % 4}.{y}"])
            assert grids[(0, -1)][x, y] == channel_towards(
                net, here, by_name[f"s{(x - 1) % 4}.{y}"]
            )
            assert grids[(1, 1)][x, y] == channel_towards(net, here, by_name[f"s{x}.{(y + 1) % 3}"])
            assert grids[(1, -1)][x, y] == channel_towards(
                net, here, by_name[f"s{x}.{(y - 1) % 3}"]
            )


def test_mesh_edges_have_no_channel_and_two_ring_tori_keep_both_directions():
    net = routelab.topology("mesh:3x3")
    mesh = channel_grids(net, np.ones(2 * len(net.cables)))
    assert np.isnan(mesh[(0, 1)][2, :]).all() and not np.isnan(mesh[(0, 1)][:2, :]).any()
    assert np.isnan(mesh[(1, -1)][:, 0]).all()
    net = routelab.topology("torus:2x4")
    loads = np.arange(2 * len(net.cables), dtype=float)
    grids = channel_grids(net, loads)
    switch_channels = [
        c
        for i, (a, _pa, b, _pb, _cls) in enumerate(net.cables)
        if a in net.switches and b in net.switches
        for c in (2 * i, 2 * i + 1)
    ]
    placed = sorted(v for g in grids.values() for v in g.ravel())
    assert placed == sorted(float(c) for c in switch_channels)


def test_three_dimensional_heatmaps_show_z_planes_side_by_side(tmp_path):
    net = routelab.topology("torus:3x3x2")
    grids = channel_grids(net, np.arange(2 * len(net.cables), dtype=float))
    image = _image(grids[(2, 1)])
    assert image.shape == (3, 2 * 3 + 1) and np.isnan(image[:, 3]).all()
    np.testing.assert_array_equal(image[:, :3], grids[(2, 1)][:, :, 0].T)
    np.testing.assert_array_equal(image[:, 4:], grids[(2, 1)][:, :, 1].T)
    fig = link_load_heatmap(net, np.linspace(0, 1, 2 * len(net.cables)))
    assert len([ax for ax in fig.axes if ax.images]) == 6
    fig.savefig(tmp_path / "h.png")
    assert matplotlib.image.imread(tmp_path / "h.png").shape[0] > 500
    with pytest.raises(routelab.ConfigError, match="2D or 3D torus"):
        channel_grids(routelab.topology("kary-ntree:k=2,n=2"), [])
    with pytest.raises(routelab.ConfigError, match="loads were given"):
        channel_grids(net, [1.0, 2.0])


def test_heatmap_of_a_stored_run(tmp_path, run_cli):
    exp = specs.parse(
        textwrap.dedent(
            """
            [experiment]
            kind = "sim"
            name = "heat"
            [network]
            topology = "torus:4x4"
            [routing]
            algorithm = "dor"
            """
        )
    )
    store = Store.create_or_resume(tmp_path / "heat", exp)
    net = routelab.topology("torus:4x4")
    loads = list(np.linspace(0, 1, 2 * len(net.cables)))
    store.write_run(
        exp.runs[0],
        {"status": "ok", "metrics": {}, "artefacts": {"channel_load": loads}},
        attempts=1,
        session="s",
    )
    out = tmp_path / "heat.png"
    r = run_cli("plot", str(store.root), "--kind", "heatmap", "--y", "channel_load", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert matplotlib.image.imread(out).shape[1] > 600


def _search_table() -> pd.DataFrame:
    """Saturation results of two routings on two sizes and two patterns, each
    search with its own first bracket (a function of the other parameters)
    and options per routing, one with a reading option that differs."""
    rows = []
    for topo, k in (("torus:8x8x8", 8), ("torus:16x16x16", 16)):
        for pattern in ("uniform", "butterfly"):
            for algorithm, options in (("por", {"eta": 1.0}), ("ofr", {"eta": 2.0})):
                if topo == "torus:8x8x8" and pattern == "butterfly":
                    continue  # a panel that lacks the first line
                rows.append(
                    {
                        "kind": "saturate",
                        "network.topology": topo,
                        "traffic.pattern": pattern,
                        "routing.algorithm": algorithm,
                        "routing.options": options,
                        "saturate.low": 0.01 * k + (0.1 if algorithm == "ofr" else 0.0),
                        "saturation": 0.5 + 0.01 * k,
                    }
                )
    return pd.DataFrame(rows)


def test_lines_are_named_by_the_parameters_that_tell_runs_apart():
    df = _search_table()
    named = plot._auto_hue(df, ["routing.algorithm", "traffic.pattern"])
    # the bracket and the options follow from size and routing: only the size names a bar
    assert set(named["_hue"]) == {"topology=torus:8x8x8", "topology=torus:16x16x16"}
    assert plot._auto_hue(df, ["routing.algorithm", "traffic.pattern", "network.topology"]) is None
    # an option that differs within a routing is named by its key alone
    reading = pd.concat(
        df.assign(**{"routing.options": [dict(o, u_star=u) for o in df["routing.options"]]})
        for u in "ab"
    )
    labels = set(plot._auto_hue(reading, ["traffic.pattern", "network.topology"])["_hue"])
    assert labels == {f"algorithm={a}, u_star={u}" for a in ("por", "ofr") for u in "ab"}
    # the standard bars: one panel per pattern, one bar per size within a routing
    spec = plot.standard_specs(df)[0]
    assert (spec.kind, spec.x, spec.hue, spec.facet) == (
        "bar",
        "routing.algorithm",
        None,
        "traffic.pattern",
    )
    fig = plot.figure(df, spec)
    colours = {}
    for ax in fig.axes:
        for bars in ax.containers:
            colour = tuple(bars.patches[0].get_facecolor())
            assert colours.setdefault(bars.get_label(), colour) == colour  # same in every panel
    assert len(set(colours.values())) == 2


def test_a_routing_hue_gives_way_when_more_parameters_tell_runs_apart():
    df = _search_table().drop(columns=["saturation", "saturate.low"])
    df = df.assign(kind="sim", **{"traffic.load": 0.3, "latency_mean": 100.0})
    df = df.assign(offered=0.3, accepted=0.3)
    spec = plot.standard_specs(df)[0]
    assert spec.hue is None  # routing alone would average the two sizes together
    fig = plot.figure(df, spec)
    lines = [ln for ax in fig.axes for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert {ln.get_label() for ln in lines} == {
        f"topology=torus:{t}, algorithm={a}" for t in ("8x8x8", "16x16x16") for a in ("por", "ofr")
    }
    styles = {(ln.get_label(), ln.get_color(), ln.get_marker()) for ln in lines}
    assert len({(c, m) for _, c, m in styles}) == 4 == len({name for name, _, _ in styles})


def test_stopped_runs_get_one_legend_entry_across_panels():
    rows = [
        {"traffic.pattern": p, "traffic.load": load, "status": status, "latency_mean": lat}
        for p, stops in (("uniform", 1), ("transpose", 2))
        for load, status, lat in [(0.1, "ok", 10.0), (0.2, "ok", 12.0)]
        + [(0.3 + 0.1 * i, "backlog", np.nan) for i in range(stops)]
    ]
    df = pd.DataFrame(rows).assign(kind="sim", **{"routing.algorithm": "dor"})
    fig = plot.figure(
        df, plot.FigureSpec("line", "latency_mean", "traffic.load", facet="traffic.pattern")
    )
    texts = [t.get_text() for t in fig.legends[0].texts]
    assert texts.count("backlog: stopped, no value") == 1
    crosses = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == "_stopped"]
    assert sorted(len(ln.get_xdata()) for ln in crosses) == [1, 2]  # each run still marked
