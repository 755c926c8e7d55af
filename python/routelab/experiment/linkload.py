"""Link-load heatmaps of 2D and 3D tori and meshes.

Per-channel loads (indexed by channel id: channel ``2i`` runs from the first
end of cable ``i`` to the second, ``2i + 1`` back) become one image per
dimension and direction: the load of the channel leaving each switch towards
its ``+`` or ``-`` neighbour. A 3D network shows its z planes side by side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from routelab._core import ConfigError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from routelab.network import Network

_NAME = re.compile(r"^s(\d+(?:\.\d+)*)$")


def switch_coordinates(net: Network) -> dict[int, tuple[int, ...]]:
    """Torus coordinates of each switch id, from its name (``s1.2.0``) or, for
    networks named otherwise, from the generator's order (dimension 0 fastest)."""
    dims = _dims(net)
    coords: dict[int, tuple[int, ...]] = {}
    for i, node in enumerate(net.switches):
        m = _NAME.match(net.nodes[node][1])
        c = tuple(int(x) for x in m.group(1).split(".")) if m else None
        if c is None or len(c) != len(dims):
            c = tuple(int(x) for x in np.unravel_index(i, dims, order="F"))
        coords[node] = c
    return coords


def _dims(net: Network) -> list[int]:
    s = net.structure
    dims = s.get("dims")
    if s.get("family") not in ("torus", "mesh") or not dims or len(dims) not in (2, 3):
        raise ConfigError(
            f"link-load heatmaps need a 2D or 3D torus or mesh; '{net.name}' is "
            f"{s.get('family', 'irregular')}"
        )
    return [int(d) for d in dims]


def channel_grids(net: Network, loads: Sequence[float]) -> dict[tuple[int, int], np.ndarray]:
    """``{(dim, +1 or -1): array}``: per switch (indexed by its coordinates), the
    load of the channel leaving it in that dimension and direction; NaN where
    there is no such channel (mesh edges)."""
    dims = _dims(net)
    cables = net.cables
    if len(loads) != 2 * len(cables):
        raise ConfigError(
            f"'{net.name}' has {2 * len(cables)} channels but {len(loads)} loads were given"
        )
    coords = switch_coordinates(net)
    wrap = bool(net.structure.get("wrap", True))
    grids = {(d, sign): np.full(dims, np.nan) for d in range(len(dims)) for sign in (1, -1)}
    for i, (a, pa, b, pb, _cls) in enumerate(cables):
        if a not in coords or b not in coords:
            continue  # a terminal link
        for channel, src, dst, port in ((2 * i, a, b, pa), (2 * i + 1, b, a, pb)):
            cs, cd = coords[src], coords[dst]
            diff = [d for d in range(len(dims)) if cs[d] != cd[d]]
            if len(diff) != 1:
                continue
            d = diff[0]
            sign = 1 if _forward(cs[d], cd[d], dims[d], wrap, port) else -1
            grids[(d, sign)][cs] = float(loads[channel])
    return grids


def _forward(src: int, dst: int, k: int, wrap: bool, port: int) -> bool:
    """Whether a channel from coordinate ``src`` to ``dst`` goes the ``+`` way."""
    if not wrap:
        return dst > src
    if k == 2:  # both neighbours are the same switch: the generator's port order tells
        return (port - 1) % 2 == 0
    return (dst - src) % k == 1


def _image(grid: np.ndarray) -> np.ndarray:
    """A 2D image: rows y, columns x; 3D grids as z planes side by side with a
    blank column between them."""
    if grid.ndim == 2:
        return grid.T
    kx, ky, kz = grid.shape
    out = np.full((ky, kz * (kx + 1) - 1), np.nan)
    for z in range(kz):
        out[:, z * (kx + 1) : z * (kx + 1) + kx] = grid[:, :, z].T
    return out


def link_load_heatmap(
    net: Network, loads: Sequence[float], *, title: str | None = None, label: str = "load"
) -> Figure:
    """A figure with one heatmap per dimension and direction, on one colour scale."""
    from matplotlib.figure import Figure

    grids = channel_grids(net, loads)
    ndim = len(_dims(net))
    values = np.array([v for g in grids.values() for v in g.ravel() if not np.isnan(v)])
    vmax = float(values.max()) if values.size and values.max() > 0 else 1.0
    first = _image(grids[(0, 1)])
    panel = 4.2  # inches per panel across
    height = ndim * (panel * first.shape[0] / first.shape[1] + 0.9) + 0.6
    fig = Figure(figsize=(2 * panel + 1.2, height), layout="constrained")
    axes = fig.subplots(ndim, 2, squeeze=False)
    names = "xyz"
    image = None
    for d in range(ndim):
        for col, sign in enumerate((1, -1)):
            ax = axes[d][col]
            image = ax.imshow(
                _image(grids[(d, sign)]),
                origin="lower",
                cmap="viridis",
                vmin=0,
                vmax=vmax,
                interpolation="nearest",
                aspect="equal",
            )
            ax.set_title(f"{'+' if sign > 0 else '-'}{names[d]} channels", fontsize=10)
            ax.set_xlabel("x" if ndim == 2 else "x, one block per z plane")
            ax.set_ylabel("y")
    fig.colorbar(image, ax=axes, label=label, shrink=0.9)
    fig.suptitle(title or f"link loads, {net.name}")
    return fig
