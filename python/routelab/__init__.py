"""routelab: design, verify and simulate routing in HPC interconnection networks.

```python
>>> import routelab
>>> net = routelab.topology("torus:4x4x4")
>>> net.summary()["diameter"]
6
```
"""

from routelab._core import (
    ConfigError,
    DeadlockError,
    RoutelabError,
    RoutingError,
    SimulationError,
    TopologyError,
    TrafficError,
    __version__,
)
from routelab.experiment.api import results, sweep
from routelab.flow import (
    channel_loads,
    ebb,
    max_concurrent_flow,
    minimal_split_loads,
    throughput_bound,
)
from routelab.network import (
    Network,
    fabric_formats,
    families,
    from_networkx,
    load,
    parse_fabric,
    topology,
)
from routelab.routing import Routes, deadlock, engines, read_lfts, read_source_routes, route
from routelab.sim import SimResult, load_latency, saturate, simulate
from routelab.traffic import pattern, patterns
from routelab.validation import run as validate

__all__ = [
    "ConfigError",
    "DeadlockError",
    "Routes",
    "RoutingError",
    "SimResult",
    "SimulationError",
    "channel_loads",
    "load_latency",
    "max_concurrent_flow",
    "minimal_split_loads",
    "throughput_bound",
    "deadlock",
    "ebb",
    "engines",
    "read_lfts",
    "read_source_routes",
    "route",
    "saturate",
    "simulate",
    "Network",
    "RoutelabError",
    "TopologyError",
    "TrafficError",
    "__version__",
    "fabric_formats",
    "families",
    "from_networkx",
    "load",
    "parse_fabric",
    "pattern",
    "patterns",
    "results",
    "sweep",
    "topology",
    "validate",
]
