"""The network layer seen from Python: generators, metrics, formats, networkx."""

import json
from math import prod
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import routelab


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=2, max_value=7), min_size=1, max_size=3))
def test_torus_diameter_and_counts(dims):
    spec = "torus:" + "x".join(map(str, dims))
    s = routelab.topology(spec).summary()
    assert s["diameter"] == sum(k // 2 for k in dims)
    assert s["switches"] == prod(dims)
    assert s["terminals"] == prod(dims)
    assert s["connected"] is True


@pytest.mark.parametrize("k,n", [(2, 3), (4, 2), (4, 3)])
def test_kary_ntree_has_full_bisection(k, n):
    s = routelab.topology(f"kary-ntree:k={k},n={n}").summary()
    assert s["terminals"] == k**n
    assert s["switches"] == n * k ** (n - 1)
    assert s["bisection_width"] == k**n // 2
    assert s["bisection_exact"] is True


def test_summary_has_the_documented_keys():
    s = routelab.topology("mesh:4x4").summary()
    for key in (
        "switches",
        "terminals",
        "cables",
        "channels",
        "diameter",
        "avg_distance",
        "bisection_width",
        "bisection_exact",
        "connected",
    ):
        assert key in s
    assert s["channels"] == 2 * s["cables"]
    assert s["diameter"] == 6
    assert s["bisection_width"] == 4


def _undirected(cables):
    return sorted((min((a, pa), (b, pb)), max((a, pa), (b, pb)), c) for a, pa, b, pb, c in cables)


@pytest.mark.parametrize(
    "spec",
    [
        "torus:4x4x2",
        "hypercube:4",
        "crossbar:8",
        "kary-ntree:k=2,n=3",
        "clos:ports=8,hosts=20",
        "kautz:b=2,n=2,hosts=2",
        "random:switches=16,ports=6,hosts=2,seed=3",
        "dragonfly:a=2,p=1,h=1",
    ],
)
@pytest.mark.parametrize("ext", ["json", "ibnet"])
def test_files_round_trip(tmp_path, spec, ext):
    net = routelab.topology(spec)
    path = tmp_path / f"fabric.{ext}"
    net.save(path)
    again = routelab.load(path)
    assert again.nodes == net.nodes
    # ibnetdiscover lists each link from both ends, so cable order and direction are not kept.
    assert _undirected(again.cables) == _undirected(net.cables)
    if ext == "json":
        assert again == net


def test_dot_export_has_every_cable(tmp_path):
    net = routelab.topology("torus:3x3")
    path = tmp_path / "t.dot"
    net.save(path)
    text = path.read_text()
    assert text.lstrip().startswith(("graph", "strict graph"))
    assert text.count(" -- ") == len(net.cables)


def test_networkx_round_trip():
    net = routelab.topology("clos:ports=8,hosts=32")
    g = net.to_networkx()
    assert g.number_of_nodes() == len(net.nodes)
    assert g.number_of_edges() == len(net.cables)
    assert nx.is_connected(g)
    again = routelab.from_networkx(g)
    assert again == net


def test_from_plain_networkx_graph():
    g = nx.cycle_graph(5)
    for i in range(5):
        g.add_edge(i, f"h{i}")
        g.nodes[f"h{i}"]["kind"] = "terminal"
    net = routelab.from_networkx(g)
    s = net.summary()
    assert (s["switches"], s["terminals"], s["cables"]) == (5, 5, 10)
    assert s["diameter"] == 2


def test_bad_specs_raise_topology_error():
    with pytest.raises(routelab.TopologyError, match="valid families"):
        routelab.topology("donut:3")
    with pytest.raises(routelab.TopologyError, match="k"):
        routelab.topology("kary-ntree:k=1,n=3")
    with pytest.raises(routelab.TopologyError, match="hosts"):
        routelab.topology("clos:ports=32,hosts=100000")
    with pytest.raises(routelab.TopologyError):
        routelab.topology("random:switches=64,ports=5,hosts=4,seed=1")


def test_malformed_fabric_file_raises_with_line_number(tmp_path):
    path = tmp_path / "bad.ibnet"
    path.write_text(
        'Switch\t4 "S-0000000000000001"\t\t# "sw1" base port 0 lid 1 lmc 0\n'
        '[1]\t"H-0000000000000002"[1]\t\t# "h" lid 2 4xQDR\n'
        "[oops]\n"
    )
    with pytest.raises(routelab.TopologyError, match=r"bad\.ibnet:3"):
        routelab.load(path)


def test_garbage_never_aborts(tmp_path):
    path = tmp_path / "garbage.ibnet"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(routelab.TopologyError):
        routelab.load(path)


def test_summary_reports_its_stages_in_order():
    net = routelab.topology("torus:4x4")
    seen: list[str] = []
    s = net.summary(progress=seen.append)
    assert seen == list(net.SUMMARY_STAGES)
    assert s == net.summary()

    # A callback that fails stops the summary with its own error.
    def boom(stage: str) -> None:
        if stage == "distances":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        net.summary(progress=boom)


def _named_cables(net):
    names = [n[1] for n in net.nodes]
    return sorted(
        tuple(sorted([(names[a], pa), (names[b], pb)])) + (c,) for a, pa, b, pb, c in net.cables
    )


SMALL = Path(__file__).parent.parent / "examples" / "fabrics" / "small.ibnet"


@pytest.mark.parametrize("fmt,ext", [("ports", "ports"), ("subnet-lst", "lst")])
def test_cable_lists_read_as_the_topology(tmp_path, fmt, ext):
    """ibnetdiscover -p reports and opensm-subnet.lst files read to the same fabric,
    by extension, by content (no extension) and by a named format."""
    net = routelab.load(SMALL)
    by_ext = tmp_path / f"fabric.{ext}"
    net.save(by_ext)
    bare = tmp_path / "ibnetdiscover.out"
    bare.write_text(net.to_format(fmt))
    named = tmp_path / "fabric.txt"
    net.save(named, format=fmt)
    for again in (
        routelab.load(by_ext),
        routelab.load(bare),
        routelab.load(named, format=fmt),
        routelab.topology(str(bare)),
        routelab.parse_fabric(net.to_format(fmt)),
    ):
        assert sorted(n[:4] for n in again.nodes) == sorted(n[:4] for n in net.nodes)
        assert _named_cables(again) == _named_cables(net)


def test_cli_reads_a_fabric_from_stdin_and_names_formats(run_cli):
    import subprocess
    import sys

    text = routelab.load(SMALL).to_format("subnet-lst")
    out = subprocess.run(
        [sys.executable, "-m", "routelab.cli", "topo", "-", "--json"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert (summary["switches"], summary["terminals"], summary["cables"]) == (2, 5, 8)
    bad = run_cli("topo", str(SMALL), "--format", "xml")
    assert bad.returncode == 2
    assert "format" in bad.stderr and "subnet-lst" in bad.stderr
    # A malformed line of a named format is named by its line.
    broken = "\n".join(text.splitlines()[:2] + ["{ SW Ports:zz }"])
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "routelab.cli",
            "route",
            "-",
            "--format",
            "lst",
            "--engine",
            "minhop",
        ],
        input=broken,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "stdin:3:" in out.stderr, out.stderr
