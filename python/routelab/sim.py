"""Packet/flit simulation: one run, a saturation search, results as dicts or rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from routelab import _core, toml_text

SpecLike = str | Path | dict[str, Any]


class SimResult(dict):
    """A simulation result: a dict (``offered``, ``accepted``, ``latency_mean``,
    ``latency_p99``, ``avg_hops``, ``packets_delivered``, ``flit_hops``,
    ``simulated_ps``, ``wall_seconds``, ``events``, ...) with attribute access."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def row(self) -> Any:
        """A one-row pandas DataFrame of the scalar metrics (lists and nested
        tables are left out; nested scalars get dotted names)."""
        import pandas as pd

        return pd.DataFrame([flatten(self)])


def flatten(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalars of a nested dict under dotted names; lists are left out."""
    out: dict[str, Any] = {}
    for k, v in doc.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, name + "."))
        elif not isinstance(v, list):
            out[name] = v
    return out


def spec_text(spec: SpecLike) -> str:
    """TOML text of a spec given as a file path, TOML text or a dict."""
    if isinstance(spec, dict):
        return toml_text.dumps(spec)
    if isinstance(spec, Path) or (isinstance(spec, str) and "\n" not in spec and "=" not in spec):
        path = Path(spec)
        try:
            return path.read_text()
        except OSError as e:
            raise _core.ConfigError(f"cannot read spec '{path}': {e.strerror}") from None
    return str(spec)


def _sets(overrides: dict[str, Any] | None) -> list[tuple[str, str]]:
    """Strings pass as the command line gives them (read as TOML, else as a
    bare string); other values are written as TOML literals."""
    return [
        (key, value if isinstance(value, str) else toml_text.literal(value))
        for key, value in (overrides or {}).items()
    ]


def check(spec: SpecLike, overrides: dict[str, Any] | None = None) -> str:
    """Validates a spec (unknown keys and bad values raise :class:`ConfigError`)
    and returns it normalised as TOML, defaults filled in."""
    return _core.sim_spec(spec_text(spec), _sets(overrides))


def simulate(spec: SpecLike, overrides: dict[str, Any] | None = None) -> SimResult:
    """Runs one simulation of ``spec`` (a TOML file, TOML text or dict).

    ``overrides`` maps dotted keys to values, as ``--set`` does on the command
    line: ``{"traffic.load": 0.4, "router.vcs": 2}``. The GIL is released while
    the engine runs. A run that deadlocks raises :class:`DeadlockError` naming a
    cycle of waiting buffers.
    """
    return SimResult(json.loads(_core.simulate(spec_text(spec), _sets(overrides))))


def saturate(
    spec: SpecLike,
    overrides: dict[str, Any] | None = None,
    *,
    low: float | None = None,
    high: float | None = None,
    tolerance: float | None = None,
    steps: int | None = None,
) -> SimResult:
    """Finds the highest offered load the network sustains (accepted within
    ``tolerance`` of offered, latency converged) by bisection on the load.

    Returns ``saturation``, ``accepted`` and ``points`` (every load measured)."""
    options = {
        k: float(v)
        for k, v in {"low": low, "high": high, "tolerance": tolerance, "steps": steps}.items()
        if v is not None
    }
    return SimResult(json.loads(_core.saturate(spec_text(spec), _sets(overrides), options)))
