"""Networks: build from a spec, load and save fabric files, convert to networkx."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from routelab import _core

if TYPE_CHECKING:
    import networkx as nx


class Network:
    """An immutable network of switches and terminals joined by cables.

    Node ids are integers in ``range(len(net.nodes))``; ``net.terminals`` lists
    the terminal ids in the order traffic patterns number them.
    """

    __slots__ = ("_net", "__dict__")

    def __init__(self, core: _core.Network):
        self._net = core

    @property
    def name(self) -> str:
        return self._net.name

    @property
    def family(self) -> str:
        return self._net.family

    @cached_property
    def structure(self) -> dict[str, Any]:
        """Structural metadata of a generated network (family, dimensions, ...)."""
        return json.loads(self._net.structure_json())

    @cached_property
    def nodes(self) -> list[tuple[str, str, int, int, int]]:
        """``(kind, name, guid, lid, ports)`` per node."""
        return self._net.nodes()

    @cached_property
    def labels(self) -> list[str]:
        """Per node, its name as paths and reports show it: with the GUID beside
        it when other nodes have the same name (a real fabric may call every
        switch "SwitchIB Mellanox Technologies")."""
        return self._net.labels()

    @cached_property
    def lids(self) -> list[int]:
        """Per node, the LID that routes, LFT files and audits use for it: the
        subnet's where the fabric gives them, else assigned (switches, then
        adapter ports, from 1); an adapter's is its first port's. All 0 (no
        LID) when the network has more switches and ports than the 49,151
        unicast LIDs of one subnet."""
        return self._net.lids()

    @cached_property
    def cables(self) -> list[tuple[int, int, int, int, str]]:
        """``(node_a, port_a, node_b, port_b, class_name)`` per cable."""
        return self._net.cables()

    @cached_property
    def classes(self) -> list[tuple[str, int, int]]:
        """``(name, bandwidth_bps, latency_ps)`` per channel class."""
        return self._net.classes()

    @cached_property
    def switches(self) -> list[int]:
        return self._net.switches()

    @cached_property
    def terminals(self) -> list[int]:
        return self._net.terminals()

    def terminal_index(self, name: str) -> int | None:
        """The index of the terminal called ``name`` (its place in
        `terminals`, as traffic patterns number terminals), or None."""
        if "_terminal_index" not in self.__dict__:
            nodes = self.nodes
            self.__dict__["_terminal_index"] = {
                nodes[n][1]: i for i, n in enumerate(self.terminals)
            }
        return self.__dict__["_terminal_index"].get(name)

    def gamma0_bps(self) -> float | None:
        """The rate per terminal (bit/s) at which uniform traffic saturates the
        bisection: 1.0 of ``load_unit = "bisection"`` (versaci2013's gamma0);
        None without a bisection."""
        return self._net.gamma0_bps()

    #: The stages of `summary`, in order.
    SUMMARY_STAGES = ("components", "distances", "bisection")

    def summary(self, progress: Callable[[str], Any] | None = None) -> dict[str, Any]:
        """Counts, degrees, diameter, average distance, connectivity, bisection.

        ``progress``, if given, is called with the name of each stage of
        `SUMMARY_STAGES` as it starts: on networks of 10^5 switches the
        distances and the bisection take seconds to minutes each."""
        return json.loads(self._net.summary_json(progress))

    def save(self, path: str | Path, format: str | None = None) -> None:
        """Writes the network in ``format`` (see `fabric_formats`), else the one
        the extension names (.json, .ibnet, .ports, .lst, .dot)."""
        self._net.save(str(path), format)

    def with_guid2lid(self, path: str | Path) -> Network:
        """This network with the LIDs of OpenSM's ``guid2lid`` file (its LID cache:
        ``0x<port GUID> <base LID> <top LID>`` per line), so that forwarding tables
        written or read for it use the subnet's LIDs. Lines for GUIDs the network
        does not have are skipped (``skipped_guid2lid`` on the result counts them)."""
        core, skipped = self._net.with_guid2lid(str(path))
        net = Network(core)
        net.skipped_guid2lid = skipped
        return net

    def to_guid2lid(self) -> str:
        """The network's LIDs as a ``guid2lid`` file."""
        return self._net.to_guid2lid()

    def to_format(self, format: str) -> str:
        """The network as text in a named format: ``json``, ``ibnetdiscover``, ``ports``
        (``ibnetdiscover -p``), ``subnet-lst`` (``opensm-subnet.lst``) or ``dot``."""
        return self._net.to_format(format)

    def to_json(self) -> str:
        return self._net.to_json()

    def to_ibnetdiscover(self) -> str:
        return self._net.to_ibnetdiscover()

    def to_dot(self) -> str:
        return self._net.to_dot()

    def to_networkx(self) -> nx.MultiGraph:
        """A networkx MultiGraph: one node per switch/terminal, one edge per cable.

        Node attributes: ``kind``, ``name``, ``guid``, ``lid``, ``ports``.
        Edge attributes: ``cable`` (its index), ``ends`` (``(node, port)`` of each
        end, first end first) and ``cls`` (the class name). Graph attributes:
        ``name``, ``structure`` and ``classes``. `from_networkx` inverts it.
        """
        import networkx as nx

        g = nx.MultiGraph(name=self.name, structure=self.structure, classes=self.classes)
        for i, (kind, name, guid, lid, ports) in enumerate(self.nodes):
            g.add_node(i, kind=kind, name=name, guid=guid, lid=lid, ports=ports)
        for index, (a, pa, b, pb, cls) in enumerate(self.cables):
            g.add_edge(a, b, cable=index, ends=((a, pa), (b, pb)), cls=cls)
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Network) and self._net == other._net

    def __hash__(self) -> int:
        return hash((self.name, len(self.nodes), len(self.cables)))

    def __repr__(self) -> str:
        return repr(self._net)


def topology(spec: str, format: str | None = None) -> Network:
    """Builds the network a spec names, e.g. ``"torus:8x8x8"``, ``"clos:ports=32,hosts=512"``
    or a fabric file (``.json``, ``.ibnet``, ``ibnetdiscover.out``, ...); ``"-"`` reads the
    fabric from standard input. ``format`` names the file's format when neither its
    extension nor its content should decide. Raises `TopologyError` on a bad spec."""
    spec = str(spec)
    if spec == "-":
        return Network(_core.parse_fabric(sys.stdin.read(), format, "stdin"))
    if format is not None:
        return load(spec, format)
    return Network(_core.topology(spec))


def load(path: str | Path, format: str | None = None) -> Network:
    """Reads a fabric file: routelab JSON, ibnetdiscover (or ibsim) text, an
    ``ibnetdiscover -p`` report or ``opensm-subnet.lst``; by ``format`` when named, else
    by extension, else by content."""
    return Network(_core.load(str(path), format))


def parse_fabric(text: str, format: str | None = None) -> Network:
    """Reads fabric text in ``format``, or in the format its first line shows."""
    return Network(_core.parse_fabric(text, format))


def fabric_formats() -> list[str]:
    """The fabric format names ``format=`` and ``--format`` take."""
    return _core.fabric_formats().split(", ")


def families() -> list[tuple[str, str]]:
    """``(name, usage)`` of every topology family a spec can name."""
    return _core.families()


def _integer(node: Any, attrs: dict[str, Any], key: str, default: int) -> int:
    value = attrs.get(key, default)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _core.TopologyError(
            f"node {node}: attribute '{key}' is {value!r}, not an integer"
        ) from None


def _ends(u: Any, v: Any, ends: Any, index: dict[Any, int]) -> tuple[tuple[Any, int], ...]:
    """An edge's ``ends`` attribute, checked: ``((node, port), (node, port))``
    naming the edge's own two nodes."""
    try:
        (a, pa), (b, pb) = ends
        pa, pb = int(pa), int(pb)
    except (TypeError, ValueError):
        raise _core.TopologyError(
            f"edge {u}-{v}: attribute 'ends' is {ends!r}; expected ((node, port), (node, port))"
        ) from None
    if a not in index or b not in index or {a, b} != {u, v}:
        raise _core.TopologyError(
            f"edge {u}-{v}: attribute 'ends' names nodes {a!r} and {b!r}, not the edge's own"
        )
    return (a, pa), (b, pb)


def _classes(classes: Any) -> list[tuple[str, int, int]]:
    """The graph attribute ``classes``, checked: (name, bandwidth b/s, latency ps) each."""
    out = []
    for c in classes:
        try:
            name, bandwidth, latency = c
            out.append((str(name), int(bandwidth), int(latency)))
        except (TypeError, ValueError):
            raise _core.TopologyError(
                f"graph attribute 'classes' has {c!r}; expected (name, bandwidth_bps, latency_ps)"
            ) from None
    return out


_DEFAULT_CLASSES = [("switch", 20_000_000_000, 100_000), ("terminal", 20_000_000_000, 100_000)]


def from_networkx(g: nx.Graph) -> Network:
    """Builds a network from a networkx graph.

    Graphs made by `Network.to_networkx` come back exactly. Any other
    graph works too: a node is a switch unless its ``kind`` attribute says
    ``"terminal"``; ports are numbered in edge order unless an edge carries
    ``ends``; links get the ``switch`` or ``terminal`` class unless an edge
    carries ``cls``. Raises `TopologyError` when the result is not a
    valid network (a port cabled twice, an unknown class).
    """
    order = list(g.nodes)
    if all(isinstance(n, int) for n in order):
        order.sort()
    index = {n: i for i, n in enumerate(order)}
    classes = _classes(g.graph.get("classes") or _DEFAULT_CLASSES)
    class_index = {name: i for i, (name, _, _) in enumerate(classes)}
    kinds = []
    for n in order:
        kind = g.nodes[n].get("kind", "switch")
        if kind not in ("switch", "terminal"):
            raise _core.TopologyError(
                f"node {n}: attribute 'kind' is {kind!r}; expected 'switch' or 'terminal'"
            )
        kinds.append(kind)

    edges = list(g.edges(data=True))
    edges.sort(key=lambda e: e[2].get("cable", len(edges)))
    with_ends = sum(1 for _, _, data in edges if "ends" in data)
    next_port = [1] * len(order)
    cables = []
    for u, v, data in edges:
        if 0 < with_ends < len(edges) and "ends" not in data:
            raise _core.TopologyError(
                f"edge {u}-{v} has no attribute 'ends' while {with_ends} other edges give "
                "their ports: give ((node, port), (node, port)) on every edge or on none"
            )
        if "ends" in data:
            (a, pa), (b, pb) = _ends(u, v, data["ends"], index)
            a, b = index[a], index[b]
        else:
            a, b = index[u], index[v]
            pa = next_port[a]
            next_port[a] += 1
            pb = next_port[b]
            next_port[b] += 1
        cls = data.get("cls") or ("terminal" if "terminal" in (kinds[a], kinds[b]) else "switch")
        if cls not in class_index:
            raise _core.TopologyError(
                f"edge {u}-{v}: attribute 'cls' is {cls!r}, which the graph attribute "
                f"'classes' does not define (defined: {', '.join(class_index)})"
            )
        cables.append([a, pa, b, pb, class_index[cls]])

    used = [0] * len(order)
    for a, pa, b, pb, _ in cables:
        used[a] = max(used[a], pa)
        used[b] = max(used[b], pb)
    nodes = []
    for i, n in enumerate(order):
        attrs = g.nodes[n]
        nodes.append(
            {
                "kind": kinds[i],
                "name": str(attrs.get("name", n)),
                "guid": hex(_integer(n, attrs, "guid", 0)),
                "lid": _integer(n, attrs, "lid", 0),
                "ports": _integer(n, attrs, "ports", used[i]),
            }
        )
    doc = {
        "format": "routelab-network",
        "version": 1,
        "name": str(g.graph.get("name") or "networkx"),
        "structure": g.graph.get("structure") or {"family": "irregular"},
        "classes": [
            {"name": name, "bandwidth": f"{bw}b/s", "latency": f"{lat}ps"}
            for name, bw, lat in classes
        ],
        "nodes": nodes,
        "cables": cables,
    }
    return Network(_core.from_json(json.dumps(doc)))
