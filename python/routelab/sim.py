"""Packet/flit simulation: one run, a saturation search, results as dicts or rows."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from routelab import _core, toml_text

SpecLike = str | Path | dict[str, Any]


class SimResult(dict):
    """A simulation result: a dict (``offered``, ``accepted``, ``accepted_min`` and
    ``accepted_max`` (per source: fairness), ``warnings``, ``latency_mean``,
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
            return toml_text.read(path)
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
    """Validates a spec (unknown keys and bad values raise `ConfigError`)
    and returns it normalised as TOML, defaults filled in."""
    return _core.sim_spec(spec_text(spec), _sets(overrides))


def simulate(
    spec: SpecLike, overrides: dict[str, Any] | None = None, *, progress: bool | None = None
) -> SimResult:
    """Runs one simulation of ``spec`` (a TOML file, TOML text or dict).

    ``overrides`` maps dotted keys to values, as ``--set`` does on the command
    line: ``{"traffic.load": 0.4, "router.vcs": 2}``. The GIL is released while
    the engine runs. A run that deadlocks raises `DeadlockError` naming a
    cycle of waiting buffers. ``progress``: a spinner with the elapsed time
    when a terminal or notebook watches and the run takes more than two
    seconds (None), always (True) or never (False).
    """
    from routelab.progress import Progress

    text, sets = spec_text(spec), _sets(overrides)
    with Progress("simulating", show=progress):
        return SimResult(json.loads(_core.simulate(text, sets)))


def memory_bytes(spec: SpecLike, overrides: dict[str, Any] | None = None) -> int:
    """The bytes the simulator's state will take for ``spec`` (every thread's
    copy with ``run.threads``), known before a run allocates it; a run above
    ``run.memory_limit`` is refused with what would fit."""
    return int(_core.sim_memory(spec_text(spec), _sets(overrides)))


def saturate(
    spec: SpecLike,
    overrides: dict[str, Any] | None = None,
    *,
    low: float | None = None,
    high: float | None = None,
    tolerance: float | None = None,
    resolution: float | None = None,
    steps: int | None = None,
    bisect: bool | None = None,
    require_converged: bool | None = None,
    progress: bool | None = None,
    journal: str | os.PathLike[str] | None = None,
    scan: Iterable[float] | None = None,
    scan_misses: int | None = None,
    require_drained: bool | None = None,
    drain_unsustained: bool | None = None,
    replay_only: bool = False,
) -> SimResult:
    """Finds the highest offered load the network sustains (the run drains,
    accepted is within ``tolerance`` of offered, latency converged) by one
    bracketing search (loads in the spec's ``traffic.load_unit``).

    The search runs ``high`` (default: ``bound``, the load that fills each
    terminal's injection channel) and ``low`` when above 0. An end on the
    wrong side of the knee moves the bracket by steps that double, starting
    from the first bracket's width: above a sustained ``high`` (up to the
    bound), whatever ``low`` did, or below ``low`` (down to 0) when neither
    was sustained. It then narrows the
    bracket by thirds (two loads in parallel per step) until it is at most
    ``resolution`` wide (default 1% of the bound) or ``steps`` steps (default
    10) are done; ``bisect=True`` narrows it by halves, one load a step: about
    a quarter fewer loads in all, for searches run side by side on every core
    (a sweep of many), where thirds only make two loads share a core.

    Returns ``saturated`` (False when the highest load tried, the bound or
    above, is sustained: then ``saturation`` is None), ``saturation`` (the
    highest load measured sustained, below ``bracket_high``), ``offered`` and
    ``accepted`` there (flits/terminal/cycle, measured), ``bracket_low``,
    ``bracket_high``, ``bracket_width``, ``resolution``, ``bound``,
    ``deadlocks`` and ``points``: every load measured with its ``status``
    (sustained, unsustained, undrained, unconverged, deadlock or failed; a run
    that deadlocks is a point that is not sustained, its ``error`` the waiting
    cycle). ``progress`` as for `simulate`.

    ``require_converged=False`` counts a load sustained without the
    convergence test (drained and accepted within ``tolerance`` suffice):
    for runs that deliver too few packets for their two halves to agree
    within ``run.convergence``.

    ``scan``: loads run first, ascending, until ``scan_misses`` (default 2)
    in a row are not sustained: a load-latency curve. The bracket is then
    the highest scan load sustained and the lowest not sustained above it
    (grown above the last by doubling steps if every one was), narrowed as
    above; ``low`` and ``high`` are refused beside it.
    ``require_drained=False`` judges a load by accepted against offered
    alone, without the drain (a grid's rule for curves read to their
    plateau). ``drain_unsustained=False`` skips the drain of a load whose
    measurement already accepted less than ``1 - tolerance`` of what it
    offered: no drain could make it sustained, so the verdicts and the answer
    are those of a search that drains, at a fraction of the cost past
    saturation; such a point's latency counts only the packets delivered by
    the end of its measurement (``drain_skipped``).

    ``journal``: a file that keeps each load as it is measured. A search
    started again with the same file (after a kill, say) takes the loads it
    finds there instead of running them, and reaches the same answer; a
    journal of another spec or other options is refused (`ConfigError`).
    ``replay_only=True`` takes every load from ``journal`` and simulates none:
    the answer of a finished search, or `SimulationError` naming the first load
    the journal lacks (it keeps what it held; a missing one is not created).
    ``routelab saturate`` takes the same options (``--low``, ``--high``,
    ``--tolerance``, ``--resolution``, ``--steps``, ``--bisect``, ``--no-convergence``,
    ``--journal``, ``--skip-short-drains``)."""
    from routelab.progress import Progress

    given = {
        "low": low,
        "high": high,
        "tolerance": tolerance,
        "resolution": resolution,
        "steps": steps,
        "bisect": bisect,
        "require_converged": require_converged,
        "require_drained": require_drained,
        "scan_misses": scan_misses,
        "drain_unsustained": drain_unsustained,
    }
    options = {k: float(v) for k, v in given.items() if v is not None}
    if replay_only and journal is None:
        raise _core.ConfigError("saturate: replay_only=True needs the journal to replay")
    text, sets = spec_text(spec), _sets(overrides)
    with Progress("searching the saturation load", show=progress):
        path = None if journal is None else os.fspath(journal)
        loads = [float(x) for x in scan or ()]
        found = _core.saturate(text, sets, options, path, loads, replay_only)
        return SimResult(json.loads(found))


SUSTAINED = 0.95  # accepted / offered at or above which a load counts as sustained


def load_latency(
    spec: SpecLike,
    loads: Iterable[float],
    overrides: dict[str, Any] | None = None,
    *,
    vary: dict[str, Iterable[Any]] | None = None,
    seeds: Iterable[int] | None = None,
    workers: int = 1,
    progress: bool | None = None,
) -> Any:
    """Latency and throughput against offered load, as a tidy pandas DataFrame.

    Runs `simulate` on ``spec`` once per load of ``loads`` (``traffic.load``,
    in the spec's ``traffic.load_unit``), per combination of the values in
    ``vary`` (dotted keys to lists, ``{"routing.algorithm": ["dor", "duato"]}``)
    and per seed of ``seeds`` (``run.seed``). One row per run: the varied keys,
    ``load``, ``seed`` (with ``seeds``), every scalar metric of the run
    (``offered``, ``accepted``, ``latency_mean``, ``latency_p99``, ...; latency
    in ns, offered and accepted in flits/node/cycle), ``status`` (``ok``,
    ``undrained``: beyond saturation, ``deadlock`` or ``failed``: the run
    stopped, its metrics are missing and ``error`` says why), ``error`` and
    ``sustained`` (accepted at least `SUSTAINED` of offered and the run
    drained). A run that deadlocks is a row, not an exception: every other
    run is kept. ``workers``
    threads run simulations side by side (the GIL is released while they run).
    ``progress`` shows a bar: None when a terminal or notebook watches and the
    sweep runs for more than a moment, True always, False never.
    """
    import itertools
    from concurrent.futures import ThreadPoolExecutor

    import pandas as pd

    from routelab.progress import Progress

    text = spec_text(spec)
    keys = list(vary or {})
    combos = list(itertools.product(*[list(v) for v in (vary or {}).values()])) or [()]
    seed_list: list[int | None] = list(seeds) if seeds is not None else [None]
    load_list = [float(x) for x in loads]
    if not load_list:
        raise _core.ConfigError("load_latency needs at least one load in 'loads'")
    jobs = []
    for combo in combos:
        for seed in seed_list:
            for load in load_list:
                params = dict(zip(keys, combo, strict=True))
                sets = {**(overrides or {}), **params, "traffic.load": load}
                if seed is not None:
                    sets["run.seed"] = seed
                head = {**params, "load": load}
                if seeds is not None:
                    head["seed"] = seed
                jobs.append((head, sets))
    _core.sim_spec(text, _sets(jobs[0][1]))  # a bad spec fails before anything runs

    with Progress("simulating loads", total=len(jobs), show=progress) as bar:

        def run(job: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
            head, sets = job
            try:
                result = json.loads(_core.simulate(text, _sets(sets)))
            except _core.DeadlockError as e:
                return {**head, "status": "deadlock", "error": str(e)}
            except _core.SimulationError as e:  # source queues beyond run.max_packets
                return {**head, "status": "failed", "error": str(e)}
            finally:
                bar.advance()
            metrics = {k: v for k, v in flatten(result).items() if k not in head}
            status = "undrained" if metrics.get("drained") is False else "ok"
            return {**head, "status": status, **metrics, "error": None}

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            rows = list(pool.map(run, jobs))
    df = pd.DataFrame(rows)
    measured = df["status"].isin(("ok", "undrained"))
    if "accepted" in df.columns:
        ok = measured & (df["accepted"] >= SUSTAINED * df["offered"])
    else:
        ok = measured & False
    if "drained" in df.columns:
        ok &= df["drained"].fillna(False).astype(bool)
    return df.assign(sustained=ok.astype(bool))
