"""The administrator's audit: findings that follow from the routes, on routes
computed here and on LFT dumps with a hole punched in them."""

import json
from pathlib import Path

import pytest

import routelab
from routelab import audit


def test_audit_of_working_routes_adds_up(tmp_path):
    net = routelab.topology("torus:4x4")
    routes = routelab.route(net, "dfsssp")
    result = audit.audit(net, routes, patterns=10, top=5)
    walk = result["walk"]
    assert walk["pairs"] == 16 * 15 and walk["broken_pairs"] == 0
    assert walk["non_minimal_pairs"] == 0 and not walk["unreachable"]
    assert result["deadlock"]["deadlock_free"]
    # Every route crosses its channels once: the loads sum to the path lengths.
    total_hops = sum(len(routes.path(s, d)) - 1 for s in range(16) for d in range(16) if s != d)
    assert result["loads"].sum() == pytest.approx(total_hops)
    # The listed links are the busiest switch links, in order.
    busiest = result["busiest_all_to_all"]
    loads = list(busiest["load"])
    assert loads == sorted(loads, reverse=True) and len(loads) == 5
    # Switches by LID as the written LFTs give them (switches first, from 1).
    lfts = routes.to_lfts()
    for name, lid in zip(busiest["src_name"], busiest["src_lid"], strict=True):
        assert f"of switch Lid {lid} guid" in lfts and f"('{name}'):" in lfts
        header = next(line for line in lfts.splitlines() if f"('{name}'):" in line)
        assert f"switch Lid {lid} " in header
    assert 0 < result["ebb"]["min"] <= result["ebb"]["avg"] <= result["ebb"]["max"] <= 1
    page = audit.write_html(result, tmp_path / "audit.html").read_text()
    assert "<svg" in page and "Busiest switch links" in page and "deadlock" in page
    assert json.loads(audit.to_json(result))["summary"]["deadlock"] == "free"


def test_audit_names_the_lids_a_punched_lft_cannot_reach(tmp_path, run_cli):
    net = routelab.topology("torus:3x3")
    routes = routelab.route(net, "minhop")
    fabric = tmp_path / "fabric.ibnet"
    net.save(fabric)
    lines = routes.to_lfts().splitlines()
    # Switch s0.0 forgets LID 0x000c (a terminal; switches hold LIDs 1-9).
    first = next(i for i, line in enumerate(lines) if line.startswith("0x000c"))
    dump = tmp_path / "opensm-lfts.dump"
    dump.write_text("\n".join(lines[:first] + lines[first + 1 :]) + "\n")
    out = run_cli("audit", str(fabric), "--lfts", str(dump), "--json", "--patterns", "5")
    assert out.returncode == 1, out.stderr  # the audit failed: a LID is unreachable
    assert "unreachable LIDs: 12" in out.stderr
    report = json.loads(out.stdout)
    walk = report["walk"]
    assert walk["broken_pairs"] >= 1
    assert walk["unreachable_lids"] == [12]
    assert report["deadlock"] is None
    assert "not checked" in report["summary"]["deadlock"]
    text = run_cli("audit", str(fabric), "--lfts", str(dump), "--patterns", "0")
    assert "unreachable destinations" in text.stdout and "LID 12" in text.stdout


def test_audit_cli_engine_and_html(tmp_path, run_cli):
    html = tmp_path / "a.html"
    out = run_cli(
        "audit",
        "torus:6x6",
        "--engine",
        "nue",
        "--lanes",
        "1",
        "--patterns",
        "5",
        "--html",
        str(html),
    )
    assert out.returncode == 0, out.stderr
    assert "non-minimal pairs" in out.stdout and html.exists()
    bad = run_cli("audit", "torus:4x4")
    assert bad.returncode == 2 and "--engine" in bad.stderr


def test_audit_walks_second_port_and_switch_lids(tmp_path, run_cli):
    """Every LID is walked from every switch: a black hole for the storage
    node's second port (LID 8) or for a switch (LID 2) fails the audit."""
    fabric = "examples/fabrics/small.ibnet"
    net = routelab.topology(fabric)
    routes = routelab.route(net, "minhop")
    out, count = [], 0
    section = 0
    for line in routes.to_lfts().splitlines():
        if line.startswith("Unicast lids"):
            section += 1
            count = 0
        if section == 1 and (line.startswith("0x0008 ") or line.startswith("0x0002 ")):
            continue
        if line.startswith("0x"):
            count += 1
        if line.endswith("lids dumped"):
            line = f"{count} lids dumped"
        out.append(line)
    dump = tmp_path / "opensm-lfts.dump"
    dump.write_text("\n".join(out) + "\n")
    res = run_cli("audit", fabric, "--lfts", str(dump), "--json", "--patterns", "0")
    assert res.returncode == 1, res.stderr
    assert "unreachable LIDs: 2, 8" in res.stderr
    walk = json.loads(res.stdout)["walk"]
    assert walk["broken_pairs"] == 0  # first ports alone see nothing wrong
    assert walk["lid_walk"]["black_holes"] >= 2
    # The tables as written pass, every LID from every switch.
    whole = tmp_path / "whole.dump"
    whole.write_text(routes.to_lfts())
    res = run_cli("audit", fabric, "--lfts", str(whole), "--json", "--patterns", "0")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["walk"]["lid_walk"]["unreachable_lids"] == []


def test_a_link_slower_than_its_peers_is_flagged_with_its_routes(run_cli, tmp_path):
    # small.ibnet: one adapter cabled at 4xFDR among 4xEDR cables.
    fabric = Path(__file__).parent.parent / "examples" / "fabrics" / "small.ibnet"
    r = run_cli("audit", str(fabric), "--engine", "minhop", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["odd_links"]) == 1
    odd = out["odd_links"][0]
    assert "4xFDR" in odd["speed"] and "4xEDR" in odd["peers"] and odd["routes"] >= 1
    assert out["summary"]["links slower than their peers"].startswith("1, e.g.")
    page = tmp_path / "a.html"
    assert run_cli("audit", str(fabric), "--engine", "minhop", "--html", str(page)).returncode == 0
    assert "Links slower than their peers" in page.read_text()
