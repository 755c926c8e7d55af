"""In-transit hosts per message on flich2000's 64-switch networks for every
root of the up*/down* tree, and on networks that leave switch ports free.

Counts are exact means over all pairs (no simulation): a message goes from
a uniformly drawn host to a host drawn uniformly among those at most l
switch hops away along the up*/down* routes (the reproduction's reading
of §4.2's local pattern; l = 99 is uniform traffic), and takes the minimal
path with the fewest in-transit hosts, as `itb` does. For the default root
(the most central switch) every pair's count is checked against the `itb`
engine's routes, and every destination that routelab's `local` pattern
draws against the neighbourhoods counted here. Writes itb-roots.csv beside
this file; about a minute.

    .venv/bin/python docs/reproductions/flich2000/itb-roots.py
"""

from collections import deque
from pathlib import Path
from statistics import fmean

import networkx as nx

import routelab

HOSTS, LS = 4, (3, 5, 99)


def switch_graph(net: routelab.Network) -> tuple[nx.Graph, dict, int]:
    """The switches' graph, its hop distances, and its most central switch
    (least eccentricity, then lowest index: routelab's default root)."""
    g = net.to_networkx()
    s = g.subgraph([n for n, a in g.nodes(data=True) if a["kind"] == "switch"]).copy()
    dist = {d: nx.single_source_shortest_path_length(s, d) for d in s.nodes}
    return s, dist, min(s.nodes, key=lambda r: (max(dist[r].values()), r))


def goes_up(level: dict, u: int, v: int) -> bool:
    # Up ends: nearer the root, the lower index at the same level (§2).
    return (level[v], v) < (level[u], u)


def legal_hops(s: nx.Graph, level: dict, src: int) -> dict:
    """Hops of the shortest legal up*/down* route from ``src`` to each switch."""
    seen, best, queue = {(src, 0): 0}, {src: 0}, deque([(src, 0)])
    while queue:
        u, down = queue.popleft()
        for v in s.neighbors(u):
            up = goes_up(level, u, v)
            if up and down:
                continue
            state = (v, 0 if up else 1)
            if state not in seen:
                seen[state] = seen[(u, down)] + 1
                best.setdefault(v, seen[state])
                queue.append(state)
    return best


def fewest_transits(s: nx.Graph, level: dict, src: int, dist: dict) -> dict:
    """Per destination switch: the fewest in-transit hosts over minimal paths
    (a split where a down link would be followed by an up link)."""
    out = {}
    for dst in s.nodes:
        to = dist[dst]
        cost, layer = {(src, 0): 0}, {src}
        while layer:
            nxt = set()
            for u in layer:
                for down in (0, 1):
                    c = cost.get((u, down))
                    if c is None:
                        continue
                    for v in s.neighbors(u):
                        if to[v] != to[u] - 1:
                            continue
                        up = goes_up(level, u, v)
                        state, c2 = ((v, 0), c + 1) if up and down else ((v, 1 - up), c)
                        if cost.get(state, 1 << 30) > c2:
                            cost[state] = c2
                        nxt.add(v)
            layer = nxt
        out[dst] = min(cost.get((dst, 0), 1 << 30), cost.get((dst, 1), 1 << 30))
    return out


def per_message(s: nx.Graph, root: int, dist: dict) -> tuple[dict, dict, dict]:
    """Mean in-transit hosts per message for each reach in LS; the counts
    and the legal hops per pair of switches."""
    level = nx.single_source_shortest_path_length(s, root)
    itb = {x: fewest_transits(s, level, x, dist) for x in s.nodes}
    hops = {x: legal_hops(s, level, x) for x in s.nodes}
    means = {}
    for reach in LS:
        per_source = []
        for x in s.nodes:
            near = [y for y in s.nodes if hops[x][y] <= reach]
            per_source.append(sum(HOSTS * itb[x][y] for y in near) / (HOSTS * len(near) - 1))
        means[reach] = fmean(per_source)
    return means, itb, hops


def check_against_routelab(net: routelab.Network, seed: int, itb: dict, hops: dict) -> None:
    """The `itb` engine's in-transit hosts per pair, and the `local` pattern's
    destinations, against those counted here (default root)."""
    routes = routelab.route(net, "itb", seed=seed).to_source_routes().splitlines()
    label = {t: i for i, t in enumerate(net.labels[t] for t in net.terminals)}
    for line in routes:
        if line.startswith("#"):
            continue
        head, _, ports = line.partition(":")
        a, b = (label[h] // HOSTS for h in head.split())
        got, want = ports.split().count("|"), itb[a][b]
        assert got == want, f"seed {seed}, {head}: engine {got}, here {want}"
    for reach in LS[:2]:
        for k in range(5):
            for src, dst in routelab.pattern(f"local:l={reach},along=updown", net, seed=k):
                a, b = src // HOSTS, dst // HOSTS
                assert hops[a][b] <= reach, f"seed {seed}, l={reach}: {src}->{dst} too far"


def main() -> None:
    rows = []
    for seed in range(1, 11):
        net = routelab.topology(f"random:switches=64,ports=8,hosts={HOSTS},seed={seed}")
        s, dist, central = switch_graph(net)
        for root in sorted(s.nodes):
            means, itb, hops = per_message(s, root, dist)
            if root == central:
                check_against_routelab(net, seed, itb, hops)
            rows.append((seed, 128, root, root == central, *(round(means[r], 4) for r in LS)))
        for links in (124, 120, 112):
            sparse = routelab.topology(
                f"random:switches=64,ports=8,hosts={HOSTS},seed={seed},links={links}"
            )
            s, dist, central = switch_graph(sparse)
            means, _, _ = per_message(s, central, dist)
            rows.append((seed, links, central, True, *(round(means[r], 4) for r in LS)))
        print(f"network {seed} done", flush=True)
    out = Path(__file__).with_suffix(".csv")
    head = "seed,links,root,central,itb_local3,itb_local5,itb_uniform\n"
    out.write_text(head + "".join(",".join(map(str, r)) + "\n" for r in rows))


if __name__ == "__main__":
    main()
