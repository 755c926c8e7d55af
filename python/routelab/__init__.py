"""routelab: design, verify and simulate routing in HPC interconnection networks.

>>> import routelab
>>> net = routelab.topology("torus:4x4x4")
>>> net.summary()["diameter"]
6
"""

from routelab._core import (
    ConfigError,
    RoutelabError,
    TopologyError,
    TrafficError,
    __version__,
)
from routelab.network import Network, families, from_networkx, load, topology
from routelab.traffic import pattern

__all__ = [
    "ConfigError",
    "Network",
    "RoutelabError",
    "TopologyError",
    "TrafficError",
    "__version__",
    "families",
    "from_networkx",
    "load",
    "pattern",
    "topology",
]
