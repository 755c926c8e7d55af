"""Oblivious routing: compute routes, check them for deadlock, inspect paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from routelab import _core
from routelab.network import Network


class Routes:
    """Forwarding tables, lanes and (for multipath engines) path sets of one
    network, computed by an engine or imported from OpenSM dumps."""

    __slots__ = ("_routes", "network", "__dict__")

    def __init__(self, core: _core.Routes, network: Network):
        self._routes = core
        self.network = network

    @property
    def engine(self) -> str:
        return self._routes.engine

    @property
    def lanes_used(self) -> int:
        """Lanes (virtual lanes / layers) the routes use: the highest lane plus
        one, after DFSSSP spreads its paths onto spare lanes; what deadlock
        freedom requires is `lanes_needed`."""
        return self._routes.lanes_used

    @property
    def lanes_needed(self) -> int:
        """Lanes needed for deadlock freedom, before spreading onto spare lanes."""
        return self._routes.lanes_needed

    @property
    def seconds(self) -> float:
        """Wall time the engine took."""
        return self._routes.seconds

    @property
    def deadlock_free(self) -> bool:
        return self.deadlock()["deadlock_free"]

    def deadlock(self) -> dict[str, Any]:
        """The channel dependency graph check: ``deadlock_free``, ``lanes_used``
        (lanes in the checked graph), ``lanes_needed``, ``cycle`` (a concrete
        cycle of channels, or None), ``paths``, ``dependencies``, and with SL-to-VL
        tables ``dropped_pairs`` (pairs whose SL maps to VL 15 on their path) and
        ``dropped_example``."""
        if "_deadlock" not in self.__dict__:
            self.__dict__["_deadlock"] = json.loads(self._routes.deadlock_json())
        return dict(self.__dict__["_deadlock"])

    def stats(self) -> dict[str, Any]:
        """``engine``, ``lanes_used``, ``lanes_needed``, ``deadlock_free``,
        ``minimal``, ``max_hops``, ``avg_hops``, ``seconds`` and ``cycle``."""
        return json.loads(self._routes.stats_json())

    def path(self, src: int | str, dst: int | str, *, names: bool = True) -> list[Any]:
        """The nodes a packet from terminal ``src`` to terminal ``dst`` passes,
        both ends included (the first path of a multipath pair).

        ``src`` and ``dst`` are terminals as traffic patterns number them (an
        index into ``network.terminals``, as in `routelab.pattern`) or
        terminal names. The nodes come back by name (``names=True``) or as node
        ids, indices into ``network.nodes`` (``names=False``): a switch has a
        node id but no terminal index. Raises `RoutingError` for a
        terminal that does not exist.
        """
        ids = self._routes.path(self._terminal(src), self._terminal(dst))
        if not names:
            return ids
        labels = self.network.labels  # the GUID beside a name that nodes share
        return [labels[n] for n in ids]

    def _terminal(self, t: int | str) -> int:
        if isinstance(t, str):
            index = self.network.terminal_index(t)
            if index is None:
                raise _core.RoutingError(f"no terminal named '{t}' in {self.network.name}")
            return index
        return int(t)

    def save(
        self, directory: str | Path, paths: bool = False, lft_comments: bool | None = None
    ) -> list[str]:
        """Writes ``opensm-lfts.dump`` (every LID at every switch) and ``lanes.txt``
        (slid dlid SL of every sending port to every LID); when some SL is not 0 or
        the routes have SL-to-VL tables (``dor``'s datelines are written as
        torus-2QoS's), ``opensm-sl2vl.dump`` and ``opensm-path-records.dump``; for
        source routes, ``source-routes.txt``; with ``paths``, ``paths.jsonl`` (it
        grows as the square of the terminals). Returns the paths written. These
        files are what ``deadlock_free`` was checked on. ``lft_comments``: each
        LFT entry with a comment naming the LID's port; by default only in dumps
        of up to 2^24 entries (above, 11 bytes an entry instead of about 70:
        1.9 GB instead of 11 GB for 42,875 endpoints), which OpenSM's file engine
        loads the same."""
        return self._routes.save(str(directory), paths, lft_comments)

    def to_lfts(self) -> str:
        """The forwarding tables as an OpenSM ``opensm-lfts.dump`` text."""
        return self._routes.to_lfts()

    def to_source_routes(self) -> str:
        """The routes as Myrinet-style source routes: per pair the output port at
        each switch, ``|`` where an in-transit host re-injects (``docs/formats.md``)."""
        return self._routes.to_source_routes()

    def to_orcs_dot(self) -> str:
        """The topology as DOT with the destinations routed over each edge."""
        return self._routes.to_orcs_dot()

    def __repr__(self) -> str:
        return (
            f"Routes(engine='{self.engine}', network='{self.network.name}', "
            f"lanes_used={self.lanes_used})"
        )


def memory_bytes(net: Network, engine: str, **options: Any) -> int:
    """The bytes ``engine``'s routes of ``net`` will take (forwarding tables,
    and lanes or paths for the engines that keep them), known before routing;
    `route` refuses above its ``memory_limit`` option (8 GiB by default)."""
    opts = {k: _option_text(v) for k, v in options.items() if v is not None}
    return _core.route_memory(net._net, engine, opts)


def lft_memory_bytes(net: Network, lfts: str | Path) -> int:
    """The bytes reading the OpenSM forwarding tables ``lfts`` for ``net`` takes
    at least (the dump's text and the tables), known before reading it."""
    return Path(lfts).stat().st_size + _core.table_memory(net._net)


def route(net: Network, engine: str, **options: Any) -> Routes:
    """Computes routes for ``net`` with a named engine.

    Options: ``max_lanes`` (1..15, default 8), ``seed``, ``root`` (``up*/down*``),
    ``heuristic`` (dfsssp: weakest, heaviest, first, online), ``datelines``
    (dor on tori). Raises `RoutingError` when the engine cannot serve
    the network and `DeadlockError` when the lanes allowed are too few.
    """
    opts = {k: _option_text(v) for k, v in options.items() if v is not None}
    return Routes(_core.route(net._net, engine, opts), net)


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def deadlock(routes: Routes) -> dict[str, Any]:
    """The deadlock report of ``routes`` (see `Routes.deadlock`)."""
    return routes.deadlock()


def engines() -> list[str]:
    """The names of every routing engine."""
    return _core.engines()


def usage(routers: bool = False) -> list[tuple[str, str]]:
    """``(name, one line)`` of every routing engine; with ``routers``, of every
    name a simulation's ``routing.algorithm`` takes (the hop routers, then the
    engines, whose tables are followed hop by hop). Aliases (BookSim's names
    such as ``dim_order``) come last."""
    rows = list(_core.router_about() if routers else _core.engine_about())
    return rows + [(alias, f"= {real}") for alias, real in _core.routing_aliases()]


def read_lfts(
    net: Network,
    lfts: str | Path,
    lanes: str | Path | None = None,
    sl2vl: str | Path | None = None,
) -> Routes:
    """Imports OpenSM forwarding tables (``opensm-lfts.dump``) for ``net``, optionally
    the pair lanes (a lane table ``slid dlid lane``, or OpenSM's
    ``opensm-path-records.dump`` whose SLs are the lanes, told apart by content)
    and the subnet's SL-to-VL tables
    (``opensm-sl2vl.dump``): the lanes are then service levels and every hop's VL
    is the one the tables give, as on the real subnet. The routes can then be
    audited (`Routes.deadlock`, `Routes.dropped_pairs`) and evaluated."""
    return Routes(
        _core.read_lfts(
            net._net,
            str(lfts),
            None if lanes is None else str(lanes),
            None if sl2vl is None else str(sl2vl),
        ),
        net,
    )


def read_source_routes(net: Network, path: str | Path) -> Routes:
    """Reads source routes (``source-routes.txt``: per pair the output port at each
    switch, ``|`` at in-transit hosts) for ``net``; a line that cannot be read is
    named in the error."""
    return Routes(_core.read_source_routes(net._net, str(path)), net)
