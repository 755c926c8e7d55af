"""Networks: build from a spec, load and save fabric files, convert to networkx."""

from __future__ import annotations

import json
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

    def summary(self) -> dict[str, Any]:
        """Counts, degrees, diameter, average distance, connectivity, bisection."""
        return json.loads(self._net.summary_json())

    def save(self, path: str | Path) -> None:
        """Writes the network; the format follows the extension (.json, .ibnet, .dot)."""
        self._net.save(str(path))

    def to_json(self) -> str:
        return self._net.to_json()

    def to_ibnetdiscover(self) -> str:
        return self._net.to_ibnetdiscover()

    def to_dot(self) -> str:
        return self._net.to_dot()

    def to_networkx(self) -> nx.MultiGraph:
        """A networkx MultiGraph: one node per switch/terminal, one edge per cable.

        Node attributes: ``kind``, ``name``, ``guid``, ``lid``, ``ports``.
        Edge attributes: ``ports`` (a dict node -> port) and ``cls`` (the class name).
        Graph attributes: ``name``, ``structure`` and ``classes``.
        """
        import networkx as nx

        g = nx.MultiGraph(name=self.name, structure=self.structure, classes=self.classes)
        for i, (kind, name, guid, lid, ports) in enumerate(self.nodes):
            g.add_node(i, kind=kind, name=name, guid=guid, lid=lid, ports=ports)
        for a, pa, b, pb, cls in self.cables:
            g.add_edge(a, b, ports={a: pa, b: pb} if a != b else {a: (pa, pb)}, cls=cls)
        return g

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Network) and self._net == other._net

    def __hash__(self) -> int:
        return hash((self.name, len(self.nodes), len(self.cables)))

    def __repr__(self) -> str:
        return repr(self._net)


def topology(spec: str) -> Network:
    """Builds the network a spec names, e.g. ``"torus:8x8x8"``, ``"clos:ports=32,hosts=512"``
    or a fabric file (``.json``, ``.ibnet``). Raises :class:`TopologyError` on a bad spec."""
    return Network(_core.topology(str(spec)))


def load(path: str | Path) -> Network:
    """Reads a fabric file (routelab JSON or ibnetdiscover text)."""
    return Network(_core.load(str(path)))


def families() -> list[tuple[str, str]]:
    """``(name, usage)`` of every topology family a spec can name."""
    return _core.families()
