"""routelab against the real OpenSM: fabrics that routelab writes run in
ibsim, OpenSM routes them and deploys routelab's tables through its
``file`` engine, and the switches are read back with ``ibroute``.

The Debian packages (opensm, ibsim-utils, infiniband-diags) are installed
with apt when missing and the tests run as root; otherwise they skip and
say what to install."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

import routelab
from routelab import opensm as osm

pytestmark = pytest.mark.slow(80)  # seconds on one core; see conftest.py

FABRICS = {
    "tree2": "kary-ntree:k=4,n=2",
    "tree3": "kary-ntree:k=2,n=3",
    "torus": "torus:4x4",
    "random": "random:switches=8,ports=6,hosts=2,seed=1",
    # Two cables between each leaf and spine, as real fat trees cable them.
    "trunked": "xgft:m=4,w=2,terminals=12,trunks=2",
}
TREES = ("tree2", "tree3", "trunked")


@pytest.fixture(scope="module")
def tools():
    why = osm.ensure_tools()
    if why:
        pytest.skip(why)


class Fabric:
    """One fabric in ibsim, with OpenSM's sweeps per engine cached."""

    def __init__(self, key: str, spec: str, root: Path):
        self.key, self.spec, self.root = key, spec, root
        self.net_file = root / "fabric.net"
        routelab.topology(spec).save(self.net_file)
        self.sn = osm.Subnet(self.net_file, root).__enter__()
        self.runs: dict[str, Path] = {}

    def run(self, engine: str) -> Path:
        if engine not in self.runs:
            self.runs[engine] = self.sn.opensm(engine, engine)
        return self.runs[engine]

    def lst(self) -> routelab.Network:
        return routelab.load(self.run("minhop") / "opensm-subnet.lst")


@pytest.fixture(scope="module", params=sorted(FABRICS))
def fabric(request, tools, tmp_path_factory):
    key = request.param
    f = Fabric(key, FABRICS[key], tmp_path_factory.mktemp(key))
    yield f
    f.sn.close()


def test_ibsim_brings_routelab_fabrics_up_at_their_speed(fabric):
    fabric.run("minhop")
    assert fabric.sn.ibsim_warnings() == []
    lst = (fabric.run("minhop") / "opensm-subnet.lst").read_text()
    links = lst.strip().splitlines()
    # 20Gb/s classes are written as 4xDDR: every link up at 4x, 5 Gb/s a lane.
    assert links and all("PHY=4x" in ln and "SPD=5 " in ln + " " for ln in links)


def test_routelab_fabric_has_the_subnets_guids(fabric):
    """routelab's own .net and OpenSM's guid2lid name the same ports."""
    d = fabric.run("minhop")
    mine = routelab.load(fabric.net_file).with_guid2lid(d / "guid2lid")
    assert mine.skipped_guid2lid == 0
    lst = fabric.lst()
    by_name = {n[1]: n for n in lst.nodes}
    for _kind, name, guid, lid, _ in mine.nodes:
        assert (by_name[name][2], by_name[name][3]) == (guid, lid), name
    theirs = {
        tuple(int(w, 16) for w in ln.split())
        for ln in (d / "guid2lid").read_text().splitlines()
        if ln.strip()
    }
    ours = {tuple(int(w, 16) for w in ln.split()) for ln in mine.to_guid2lid().splitlines()}
    assert ours == theirs


def test_routelab_reads_opensm_dumps(fabric):
    lst = fabric.lst()
    t = len(lst.terminals)
    for engine in ("minhop", "updn", "dfsssp"):
        routes = routelab.read_lfts(lst, fabric.run(engine) / "opensm-lfts.dump")
        # Every pair is walked (a black hole or a loop raises).
        assert routes.deadlock()["paths"] >= t * (t - 1), engine


def test_minhop_and_ftree_equal_opensms(fabric, tmp_path):
    lst = fabric.lst()
    engines = ["minhop"] + (["ftree"] if fabric.key in TREES else [])
    for engine in engines:
        row = osm.compare(lst, fabric.run(engine), engine, tmp_path / engine)
        assert row["entries"] > 0
        assert row["differ"] == 0, (engine, row)


@pytest.mark.parametrize("engine", ["sssp", "dfsssp", "updown"])
def test_file_engine_deploys_routelab_tables(fabric, engine, tmp_path):
    """Tables routed on routelab's own .net (with the subnet's LIDs) load
    through OpenSM's file engine without error, the switches hold them
    entry for entry, and they audit as they did before deployment."""
    d = fabric.run("minhop")
    mine = routelab.load(fabric.net_file).with_guid2lid(d / "guid2lid")
    routes = routelab.route(mine, engine)
    out = tmp_path / "routes"
    routes.save(out)
    dump = (out / "opensm-lfts.dump").read_text()
    dep = fabric.sn.opensm(f"file-{engine}", "file", lfts_file=out / "opensm-lfts.dump")
    assert osm.osm_errors(dep) == []
    want = osm.lft_entries(dump)
    assert osm.lft_entries((dep / "opensm-lfts.dump").read_text()) == want
    lst = fabric.lst()
    for sw in lst.switches:
        lid = lst.nodes[sw][3]
        back = osm.lft_entries(fabric.sn.ibroute(lid))
        assert back == {k: v for k, v in want.items() if k[0] == lid}, lst.nodes[sw][1]
    # Read back into OpenSM's view of the fabric: every pair reaches the
    # right adapter, and with the lanes the verdict is routelab's.
    lanes = out / "lanes.txt"
    deployed = routelab.read_lfts(lst, dep / "opensm-lfts.dump", lanes=lanes)
    check, before = deployed.deadlock(), routes.deadlock()
    assert check["paths"] == before["paths"]
    assert check["deadlock_free"] == before["deadlock_free"]


def test_file_engine_loads_dumps_without_comments(fabric, tmp_path):
    """The LFT dump of a large fabric leaves out the comment on each entry
    (11 bytes an entry instead of about 70): OpenSM's file engine programs
    the switches with the same entries, and routelab reads it back."""
    d = fabric.run("minhop")
    mine = routelab.load(fabric.net_file).with_guid2lid(d / "guid2lid")
    routes = routelab.route(mine, "sssp")
    full, bare = tmp_path / "full", tmp_path / "bare"
    routes.save(full)
    routes.save(bare, lft_comments=False)
    text = (bare / "opensm-lfts.dump").read_text()
    assert " # " not in text and "portguid" not in text
    assert len(text) < len((full / "opensm-lfts.dump").read_text()) / 2
    want = osm.lft_entries((full / "opensm-lfts.dump").read_text())
    assert osm.lft_entries(text) == want
    dep = fabric.sn.opensm("file-bare", "file", lfts_file=bare / "opensm-lfts.dump")
    assert osm.osm_errors(dep) == []
    assert osm.lft_entries((dep / "opensm-lfts.dump").read_text()) == want
    back = routelab.read_lfts(mine, bare / "opensm-lfts.dump")
    assert back.deadlock()["deadlock_free"] == routes.deadlock()["deadlock_free"]


def test_deadlock_verdicts_agree(fabric):
    """OpenSM's dfsssp needs more than one VL exactly when routelab finds a
    cycle in its paths on one lane, and routelab's dfsssp agrees on the count."""
    lst = fabric.lst()
    d = fabric.run("dfsssp")
    needed, _ = osm.osm_vls(d)
    one_lane = routelab.read_lfts(lst, d / "opensm-lfts.dump").deadlock()
    assert one_lane["deadlock_free"] == (needed == 1)
    ours = routelab.route(lst, "dfsssp").deadlock()
    assert ours["deadlock_free"]
    assert (ours["lanes_needed"] == 1) == (needed == 1)
    # minhop: both tools' tables are the same, so is the verdict.
    mh = routelab.read_lfts(lst, fabric.run("minhop") / "opensm-lfts.dump").deadlock()
    assert mh["deadlock_free"] == routelab.route(lst, "minhop").deadlock()["deadlock_free"]
    if fabric.key in TREES:
        assert mh["deadlock_free"]
    if fabric.key == "torus":
        assert not mh["deadlock_free"] and needed > 1


def test_opensm_sweeps_without_errors(fabric):
    for engine in ("minhop", "dfsssp"):
        assert osm.osm_errors(fabric.run(engine)) == [], engine


@pytest.mark.parametrize("engine", ["sssp", "dfsssp", "nue", "dnup", "updown"])
def test_same_fabric_same_tables_whichever_file(fabric, engine):
    """The fabric as routelab generated it and as OpenSM wrote it
    (opensm-subnet.lst), with the subnet's LIDs: the same tables."""
    d = fabric.run("minhop")
    generated = routelab.topology(fabric.spec).with_guid2lid(d / "guid2lid")
    lst = fabric.lst()
    try:
        a = routelab.route(generated, engine)
    except routelab.RoutingError:
        with pytest.raises(routelab.RoutingError):
            routelab.route(lst, engine)
        return
    b = routelab.route(lst, engine)
    ea, eb = osm.lft_entries(a.to_lfts()), osm.lft_entries(b.to_lfts())
    assert ea == eb


def test_audit_takes_sls_from_opensm_path_records(tools, tmp_path):
    """On a ring of 5, OpenSM's dfsssp needs two VLs (and spreads paths over
    all it has): audited with the SLs its SA hands out (path records) the
    deployed tables are deadlock-free; the same tables on SL 0 deadlock, and
    so do routelab's dfsssp tables loaded through OpenSM's file engine, which
    deploys no SLs. dfsssp spreads the paths over the VLs at random, and in
    some of its runs (about 1 in 4 here) a cycle closes within one SL, which
    the audit names: the SM is started again, up to four times, until a run
    spreads them without one."""
    net_file = tmp_path / "ring.net"
    routelab.topology("torus:5").save(net_file)
    with osm.Subnet(net_file, tmp_path) as sn:
        cycles = []
        for attempt in range(4):
            with sn.sm(f"dfsssp{attempt}", "dfsssp") as d:
                lst = routelab.load(d / "opensm-subnet.lst")
                records = d / "opensm-path-records.dump"
                # The SA may answer before the SM's SLs are all in place (every
                # pair on SL 0, or some pairs still on their first SL) or time
                # out on a busy machine: ask until two answers in a row agree.
                text = ""
                for _ in range(8):
                    previous, text = text, sn.path_records(lst, switches=True)
                    sls = {int(sl) for sl in re.findall(r"^0x[0-9a-f]+ : (\d+)", text, re.M)}
                    if "UNREACHABLE" not in text and len(sls) > 1 and text == previous:
                        break
                    time.sleep(2)
                records.write_text(text)
            assert osm.osm_vls(d)[0] == 2
            lfts = d / "opensm-lfts.dump"
            with_sls = routelab.read_lfts(lst, lfts, lanes=records).deadlock()
            if with_sls["deadlock_free"]:
                break
            cycles.append(with_sls["cycle"])
        assert with_sls["deadlock_free"] and with_sls["lanes_used"] > 1, (cycles, text)
        assert not routelab.read_lfts(lst, lfts).deadlock()["deadlock_free"]
        # routelab's dfsssp through the file engine: the SA gives SL 0.
        ours = routelab.route(lst, "dfsssp")
        assert ours.deadlock()["deadlock_free"] and ours.deadlock()["lanes_used"] > 1
        ours.save(tmp_path / "r")
        conf = {"lfts_file": tmp_path / "r" / "opensm-lfts.dump"}
        with sn.sm("file", "file", **conf) as f:
            zero = tmp_path / "file-path-records.dump"
            zero.write_text(sn.path_records(lst, switches=True))
        assert osm.osm_errors(f) == []
        deployed = routelab.read_lfts(lst, f / "opensm-lfts.dump", lanes=zero).deadlock()
        assert not deployed["deadlock_free"]


def test_qos_policy_deploys_routelab_sls(tools, tmp_path):
    """routelab's dfsssp on a ring of 5, deployed with the file engine and
    the QoS policy routelab writes: the SA hands out routelab's SLs, and the
    deployed state audits deadlock-free as routelab checked it."""
    net_file = tmp_path / "ring.net"
    routelab.topology("torus:5").save(net_file)
    with osm.Subnet(net_file, tmp_path) as sn:
        lst = routelab.load(sn.opensm("sweep", "minhop") / "opensm-subnet.lst")
        ours = routelab.route(lst, "dfsssp", max_lanes=2)
        check = ours.deadlock()
        assert check["deadlock_free"] and check["lanes_used"] == 2
        out = tmp_path / "r"
        ours.save(out)
        policy = out / "qos-policy.conf"
        policy.write_text(osm.qos_policy(lst, (out / "lanes.txt").read_text()))
        conf = osm.deploy_conf(out / "opensm-lfts.dump", policy, check["lanes_used"])
        with sn.sm("deploy", "file", **conf) as d:
            records = tmp_path / "opensm-path-records.dump"
            records.write_text(sn.path_records(lst, switches=True))
        assert osm.osm_errors(d) == []
    want = osm.pair_lanes((out / "lanes.txt").read_text())
    got = records_sls(records.read_text())
    assert any(got.values()) and all(v == want.get(k, 0) for k, v in got.items())
    deployed = routelab.read_lfts(lst, d / "opensm-lfts.dump", lanes=records).deadlock()
    assert deployed["deadlock_free"]


def records_sls(text: str) -> dict[tuple[int, int], int]:
    """``(source LID, destination LID) -> SL`` of a path-record dump."""
    out, src = {}, None
    for ln in text.splitlines():
        if ln.startswith(("Channel Adapter", "Switch")):
            src = int(ln.split("base LID ")[1].split(",")[0])
        elif ln.startswith("0x") and "UNREACHABLE" not in ln:
            dlid, sl = (w.strip() for w in ln.split(":")[:2])
            out[(src, int(dlid, 16))] = int(sl)
    return out


def test_torus_2qos_equals_opensms(tools, tmp_path):
    """OpenSM's torus-2QoS on a 4x4 torus, seeded at routelab's s0.0, and
    routelab's torus-2qos: the same entries and the same SL for every pair
    as OpenSM's SA hands out (ties at distance 2 stay off the dateline;
    with '+' on a tie, as dor breaks them, 15.6% of entries differ)."""
    spec, dims = "torus:4x4", (4, 4)
    net_file = tmp_path / "torus.net"
    net = routelab.topology(spec)
    net.save(net_file)
    conf = tmp_path / "torus-2QoS.conf"
    conf.write_text(osm.torus_config(net, dims))
    with osm.Subnet(net_file, tmp_path) as sn:
        opts = {"torus_config": conf, "qos": "TRUE"}
        with sn.sm("t2q", "torus-2QoS", **opts) as d:
            gen = routelab.topology(spec).with_guid2lid(d / "guid2lid")
            sls = records_sls(sn.path_records(gen))
        assert osm.osm_errors(d) == []
    row = osm.compare(gen, d, "torus-2qos", tmp_path / "r")
    assert row["entries"] > 0 and row["differ"] == 0, row
    assert osm.compare(gen, d, "dor", tmp_path / "dor")["differ"] > 0
    ours = osm.pair_lanes((tmp_path / "r" / "lanes.txt").read_text())
    cas = osm.ca_lids(gen)
    assert len(sls) == len(cas) * (len(cas) - 1)
    assert {k: v for k, v in sls.items()} == {k: ours.get(k, 0) for k in sls}


# Without OpenSM: the files and messages an administrator meets.


def test_guid2lid_as_opensm_writes_it_and_a_missing_node(tmp_path, run_cli):
    net = routelab.topology("kary-ntree:k=2,n=2")
    # OpenSM's layout: hex LIDs, a blank line after each; adapters by port GUID.
    text = ""
    for i, (kind, _name, guid, _lid, _ports) in enumerate(net.nodes):
        g = guid if kind == "switch" else guid + 1
        text += f"0x{g:016x} 0x{i + 0x15:04x} 0x{i + 0x15:04x}\n\n"
    full = tmp_path / "guid2lid"
    full.write_text(text)
    got = net.with_guid2lid(full)
    assert [n[3] for n in got.nodes] == [i + 0x15 for i in range(len(net.nodes))]
    short = tmp_path / "short"
    short.write_text("\n".join(text.splitlines()[2:]) + "\n")
    out = run_cli("route", "kary-ntree:k=2,n=2", "--engine", "minhop", "--guid2lid", str(short))
    assert out.returncode == 2
    assert "no LID for switch 's1-0.0'" in out.stderr, out.stderr


def test_route_output_warns_that_lanes_do_not_deploy(tmp_path, run_cli):
    out = run_cli("route", "torus:4x4", "--engine", "dfsssp", "-o", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    assert "OpenSM's 'file' engine loads" in out.stderr and "SL 0" in out.stderr
    assert "opensm-subnet.lst, or --guid2lid" in out.stderr
    one = run_cli("route", "kary-ntree:k=4,n=2", "--engine", "minhop", "-o", str(tmp_path / "m"))
    assert one.returncode == 0 and "warning" not in one.stderr
    # With the subnet's LIDs: a QoS policy and the opensm.conf lines.
    net = routelab.topology("torus:5")
    g2l = tmp_path / "guid2lid"
    g2l.write_text(
        "".join(
            f"0x{g if k == 'switch' else g + 1:016x} {i + 1} {i + 1}\n"
            for i, (k, _n, g, _l, _p) in enumerate(net.nodes)
        )
    )
    r = tmp_path / "q"
    args = ("route", "torus:5", "--engine", "dfsssp", "--max-lanes", "2")
    dep = run_cli(*args, "--guid2lid", str(g2l), "-o", str(r))
    assert dep.returncode == 0, dep.stderr
    assert "opensm-deploy.conf" in dep.stderr
    conf = (r / "opensm-deploy.conf").read_text()
    assert "routing_engine file" in conf and "qos TRUE" in conf and "qos_policy_file" in conf
    policy = (r / "qos-policy.conf").read_text()
    assert "qos-match-rules" in policy and "name: default" in policy


def test_updn_is_not_passed_off_as_updown(run_cli):
    out = run_cli("route", "kary-ntree:k=4,n=2", "--engine", "updn")
    assert out.returncode == 2
    assert "OpenSM's engine" in out.stderr and "updown" in out.stderr


def test_net_files_carry_ibsim_port_guids_and_speeds():
    net = routelab.topology("kary-ntree:k=2,n=2")
    text = net.to_ibnetdiscover()
    h0 = next(n for n in net.nodes if n[1] == "h0")
    assert f"[1]({h0[2] + 1:x})" in text
    assert "lid 0 4xDDR terminal" in text and "lid 0 4xDDR switch" in text
    back = routelab.parse_fabric(text, format="ibnetdiscover")
    assert back.classes == net.classes


def test_file_engine_deploys_dragonfly_minimal_tables(tools, tmp_path):
    """df-min's tables, computed on a dragonfly read back from its .net file
    (recognised from the cabling), load through OpenSM's file engine and the
    switches hold them entry for entry; their SL-to-VL tables make them
    deadlock-free as deployed."""
    f = Fabric("dragonfly", "dragonfly:a=2,p=1,h=2", tmp_path)
    try:
        d = f.run("minhop")
        mine = routelab.load(f.net_file).with_guid2lid(d / "guid2lid")
        routes = routelab.route(mine, "df-min")
        assert routes.deadlock_free and routes.lanes_used == 2
        out = tmp_path / "routes"
        written = {Path(p).name for p in routes.save(out)}
        assert {"opensm-lfts.dump", "opensm-sl2vl.dump"} <= written
        dep = f.sn.opensm("file-df-min", "file", lfts_file=out / "opensm-lfts.dump")
        assert osm.osm_errors(dep) == []
        want = osm.lft_entries((out / "opensm-lfts.dump").read_text())
        assert osm.lft_entries((dep / "opensm-lfts.dump").read_text()) == want
        lst = f.lst()
        for sw in lst.switches:
            lid = lst.nodes[sw][3]
            back = osm.lft_entries(f.sn.ibroute(lid))
            assert back == {k: v for k, v in want.items() if k[0] == lid}, lst.nodes[sw][1]
    finally:
        f.sn.close()
