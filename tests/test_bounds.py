"""The throughput bound of a pattern (maximum concurrent flow) against an
independent linear program solved by scipy's HiGHS."""

import json
from collections import deque

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

import routelab


def _hops(net, start, switches):
    """Hop distances from ``start``; only switches (and ``start``) forward."""
    adj: dict[int, list[int]] = {}
    for a, _, b, _, _ in net.cables:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        if u != start and u not in switches:
            continue
        for v in adj.get(u, []):
            if v not in dist:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def _lp_bound(net, flows, minimal):
    """max lambda: every flow carries lambda over its allowed channels (all,
    or those on minimal paths), every channel at most its bandwidth; one
    commodity per flow, flow variables per allowed channel."""
    bandwidth = {name: bps for name, bps, _ in net.classes}
    switches = set(net.switches)
    channels = []
    for a, _, b, _, cls in net.cables:
        channels += [(a, b, bandwidth[cls]), (b, a, bandwidth[cls])]
    terminals = net.terminals
    dist = {n: _hops(net, n, switches) for n in {terminals[s] for s, _ in flows}}
    dist |= {n: _hops(net, n, switches) for n in {terminals[d] for _, d in flows}}
    cols, var_flow, var_chan = 0, [], []
    for j, (s, d) in enumerate(flows):
        src, dst = terminals[s], terminals[d]
        for c, (u, v, _) in enumerate(channels):
            if u != src and u not in switches:
                continue
            if minimal and dist[src].get(u, 1e9) + 1 + dist[dst].get(v, 1e9) != dist[src][dst]:
                continue
            var_flow.append(j)
            var_chan.append(c)
            cols += 1
    lam = cols
    node_ids = {n: i for i, n in enumerate(sorted({x for u, v, _ in channels for x in (u, v)}))}
    rows, cols_i, vals = [], [], []
    # Conservation: out - in - lambda * (1 at the source, -1 at the destination) = 0.
    for k, (j, c) in enumerate(zip(var_flow, var_chan, strict=True)):
        u, v, _ = channels[c]
        rows += [j * len(node_ids) + node_ids[u], j * len(node_ids) + node_ids[v]]
        cols_i += [k, k]
        vals += [1.0, -1.0]
    for j, (s, d) in enumerate(flows):
        rows += [
            j * len(node_ids) + node_ids[terminals[s]],
            j * len(node_ids) + node_ids[terminals[d]],
        ]
        cols_i += [lam, lam]
        vals += [-1.0, 1.0]
    a_eq = coo_matrix((vals, (rows, cols_i)), shape=(len(flows) * len(node_ids), lam + 1))
    a_ub = coo_matrix(
        ([1.0] * len(var_chan), (var_chan, list(range(len(var_chan))))),
        shape=(len(channels), lam + 1),
    )
    # Bandwidths in Gb/s keep the program well scaled.
    b_ub = np.array([bw / 1e9 for _, _, bw in channels])
    cost = np.zeros(lam + 1)
    cost[lam] = -1.0
    r = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.zeros(a_eq.shape[0]), method="highs")
    assert r.status == 0, r.message
    return -r.fun * 1e9


@pytest.mark.parametrize(
    ("topo", "pattern"),
    [
        ("torus:4x4", "transpose"),
        ("torus:6", "tornado"),
        ("torus:4x2,c=2", "bit-reverse"),
        ("mesh:3x3", "permutation"),
        ("kary-ntree:k=2,n=3", "shuffle"),
    ],
)
@pytest.mark.parametrize("paths", ["minimal", "any"])
def test_bound_brackets_the_exact_lp(topo, pattern, paths):
    net = routelab.topology(topo)
    flows = [(s, d) for s, d in routelab.pattern(pattern, net, seed=2) if s != d]
    exact = _lp_bound(net, flows, paths == "minimal")
    r = routelab.max_concurrent_flow(net, flows, paths=paths, tolerance=0.01, max_phases=5000)
    assert r["reached_bps"] <= exact * (1 + 1e-6) <= r["bound_bps"] * (1 + 2e-6), (exact, r)
    assert r["bound_bps"] <= exact * 1.0101, (exact, r)
    # The routing found fits: its loads at its rate within every bandwidth.
    bandwidth = {name: bps for name, bps, _ in net.classes}
    for load, cable in zip(r["loads"]["load"], r["loads"]["cable"], strict=True):
        assert load * r["reached_bps"] <= bandwidth[net.cables[cable][4]] * (1 + 1e-9)


def test_loads_cli_reports_the_bounds_beside_the_even_split(run_cli):
    r = run_cli("loads", "torus:4x4x4", "--pattern", "bit-reverse", "--bound", "both", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["routing"] == "even split"
    # The even split is one minimal routing: the minimal bound is at least its
    # throughput, the bound over all paths at least the minimal one reached.
    assert out["minimal_bound_gamma0"] >= out["bound_gamma0"] * (1 - 1e-9)
    assert out["any_bound_gamma0"] >= out["minimal_reached_gamma0"] * (1 - 1e-9)
    assert out["minimal_reached_gamma0"] <= out["minimal_bound_gamma0"] * (1 + 1e-9)
    assert out["any_reached_gamma0"] <= out["any_bound_gamma0"] * (1 + 1e-9)
