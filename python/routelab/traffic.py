"""Traffic patterns on terminal indices."""

from __future__ import annotations

from routelab import _core
from routelab.network import Network


def usage() -> list[tuple[str, str]]:
    """``(syntax, what it is)`` of every traffic pattern, as ``routelab pattern
    --list`` shows them (``("local:l=2", "uniform within l switch hops")``),
    then the aliases (BookSim's names such as ``bitrev``), each as
    ``(alias, "= pattern")``."""
    patterns, aliases = _core.pattern_usage()
    rows = []
    for _, text in patterns:
        syntax, _, about = text.partition("  ")
        rows.append((syntax.strip(), about.strip().removeprefix("(").removesuffix(")")))
    return rows + [(alias, f"= {real}") for alias, real in aliases]


def pattern(name: str, net: Network, seed: int = 1) -> list[tuple[int, int]]:
    """The ``(source, destination)`` terminal-index pairs of a pattern on ``net``.

    ``name`` is a pattern spec such as ``"bit-reverse"``, ``"tornado"``,
    ``"hotspot:f=0.1"`` or ``"bisect"``. Raises `TrafficError` when the
    pattern is unknown or does not fit the network.
    """
    return _core.pattern_pairs(net._net, name, seed)


def patterns() -> list[tuple[str, str]]:
    """``(name, usage)`` of every traffic pattern, as ``routelab pattern --list``
    prints them."""
    return _core.patterns()
