"""Running a sweep: plan what is left to run, send it to Dask, persist each
run the moment it finishes, show progress.

Resume: a run whose record says ``ok`` or ``undrained`` is never run again,
nor one recorded as ``deadlock`` (a result: the same spec and seed deadlock
again) unless ``retry_failed`` asks. A run without a
record (it was in flight when the sweep stopped) runs, and so does a run whose
record file is damaged (not a valid record: the store checks every record it
reads); a saturation search killed half-way takes the loads it had measured
from its journal (``journals/<key>.jsonl``, kept by local workers), same
answer. A run recorded as
``failed`` runs again with ``retry_failed`` or when ``retries`` allows more
attempts than it has had. Records are written by this process only, one at a
time, as futures complete, so the store has one writer (a lock enforces it).
"""

from __future__ import annotations

import os
import platform
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import routelab
from routelab._core import ConfigError
from routelab.experiment import cluster, kinds
from routelab.experiment import spec as specs
from routelab.experiment.store import Store

CONSOLIDATE_EVERY = 30.0  # seconds between rewrites of runs.parquet during a sweep


@dataclass
class Outcome:
    """What one `routelab sweep` did."""

    out: Path
    name: str
    total: int
    skipped: int
    ok: int
    failed: int
    session: str
    seconds: float
    #: Of ``ok``, the runs that did not drain (beyond saturation).
    undrained: int = 0
    #: Runs that deadlocked (recorded with their cycle, not counted in ``ok``).
    deadlocked: int = 0

    @property
    def ran(self) -> int:
        return self.ok + self.deadlocked + self.failed

    def summary(self) -> str:
        done = f", {self.skipped} already done" if self.skipped else ""
        beyond = f" ({self.undrained} did not drain)" if self.undrained else ""
        dead = f", {self.deadlocked} deadlocked" if self.deadlocked else ""
        return (
            f"sweep '{self.name}': {self.total} runs{done}; ran {self.ran}: "
            f"{self.ok} ok{beyond}{dead}, {self.failed} failed in {self.seconds:.1f} s; "
            f"results in {self.out}"
        )


def default_out(exp: specs.Experiment) -> Path:
    return Path("results") / exp.name


def plan(
    exp: specs.Experiment,
    records: Mapping[str, Mapping[str, Any]],
    *,
    retries: int = 0,
    retry_failed: bool = False,
) -> tuple[list[specs.Run], list[specs.Run]]:
    """``(to_run, done)``: the runs of ``exp`` still to run and those kept."""
    todo, done = [], []
    for run in exp.runs:
        rec = records.get(run.key)
        if rec is None or rec.get("status") not in kinds.STATUSES:
            todo.append(run)
        elif rec.get("status") in kinds.MEASURED:
            done.append(run)
        elif rec.get("status") == "deadlock":
            (todo if retry_failed else done).append(run)
        elif retry_failed or int(rec.get("attempts") or 1) <= retries:
            todo.append(run)
        else:
            done.append(run)
    return todo, done


def validate_runs(exp: specs.Experiment) -> None:
    """The run kind's own check of every run (the simulator validates its spec),
    so a bad value fails before the first run starts."""
    kind = kinds.get(exp.kind)
    if kind.check is None or kind.missing():
        return
    checked: set[str] = set()
    for run in exp.runs:
        # the seed does not change what is valid: check each other combination once
        probe = specs.canonical_json({k: v for k, v in run.flat.items() if k != kind.seed_key})
        if probe in checked:
            continue
        checked.add(probe)
        try:
            kind.validate(run.params)
        except routelab.RoutelabError as e:
            raise type(e)(f"run {run.index + 1} ({run.key}): {e}") from None


def dry_run(exp: specs.Experiment, out: str | Path | None = None) -> list[dict[str, Any]]:
    """The runs of a spec: key, status in ``out`` (pending when not run yet), parameters."""
    records: Mapping[str, Mapping[str, Any]] = {}
    if out is not None and (Path(out) / "spec.toml").is_file():
        records = Store.open(out).records()
    rows = []
    for run in exp.runs:
        rec = records.get(run.key)
        rows.append(
            {
                "key": run.key,
                "status": rec["status"] if rec else "pending",
                "params": run.flat,
            }
        )
    return rows


def run_sweep(
    spec: str | Path | specs.Experiment,
    out: str | Path | None = None,
    *,
    dask: str | None = None,
    slurm: cluster.SlurmOptions | None = None,
    workers: int | None = None,
    retries: int = 0,
    retry_failed: bool = False,
    quiet: bool = True,
    variant: str | None = None,
) -> Outcome:
    """Runs (or resumes) the sweep of ``spec`` (or its ``variant``) into the
    directory ``out``."""
    if isinstance(spec, specs.Experiment):
        if variant is not None:
            raise ConfigError("variant applies to a spec file; load the variant's Experiment")
        exp = spec
    else:
        exp = specs.load(spec, variant=variant)
    options = dict(retries=retries, retry_failed=retry_failed, quiet=quiet)
    return run_sweeps([(exp, out)], dask=dask, slurm=slurm, workers=workers, **options)[0]


def run_sweeps(
    sweeps: Sequence[tuple[specs.Experiment, str | Path | None]],
    *,
    dask: str | None = None,
    slurm: cluster.SlurmOptions | None = None,
    workers: int | None = None,
    retries: int = 0,
    retry_failed: bool = False,
    quiet: bool = True,
) -> list[Outcome]:
    """Runs (or resumes) several sweeps, each ``(experiment, out)``, as one queue
    on one Dask client: every run of an earlier sweep starts before any of a
    later one, and a later sweep's runs fill the workers that an earlier one's
    last runs leave idle (a sweep run alone waits for its longest run). One
    progress bar per sweep; an `Outcome` per sweep, in their order."""
    if retries < 0:
        raise ConfigError(f"--retries takes an integer >= 0, got {retries}")
    for exp, _ in sweeps:
        kinds.get(exp.kind).check_available()
        validate_runs(exp)
    outs = [Path(out) if out is not None else default_out(exp) for exp, out in sweeps]
    if len(set(map(Path.resolve, outs))) != len(outs):
        raise ConfigError("each sweep needs its own results directory")
    t0 = time.perf_counter()
    session = _session_id()
    executor = _executor_name(dask, slurm, workers)
    with ExitStack() as stack:
        jobs = []
        for (exp, _), out in zip(sweeps, outs, strict=True):
            store = stack.enter_context(Store.locked(out, exp))
            records, invalid = store.scan()
            _warn_invalid(store, exp, records, invalid)
            todo, done = plan(exp, records, retries=retries, retry_failed=retry_failed)
            store.add_session(_session(session, exp, todo, done, executor))
            # --retries bounds the attempts of a run over all sessions;
            # --retry-failed starts the count again.
            previous = {
                run.key: int(records[run.key].get("attempts") or 1)
                for run in todo
                if run.key in records and not retry_failed
            }
            jobs.append(_Job(store, exp, todo, len(done), previous))
        try:
            if any(job.todo for job in jobs):
                _execute(
                    jobs,
                    session=session,
                    retries=retries,
                    client_options={"address": dask, "slurm": slurm, "workers": workers},
                    quiet=quiet,
                )
        finally:
            for job in jobs:
                job.store.consolidate()
                job.store.finish_session(
                    session, ok=job.ok, failed=job.failed, deadlocked=job.deadlocked
                )
    seconds = time.perf_counter() - t0
    return [
        Outcome(
            out=out,
            name=job.exp.name,
            total=len(job.exp.runs),
            skipped=job.skipped,
            ok=job.ok,
            failed=job.failed,
            undrained=job.undrained,
            deadlocked=job.deadlocked,
            session=session,
            seconds=seconds,
        )
        for job, out in zip(jobs, outs, strict=True)
    ]


def replay_finished(exp: specs.Experiment, out: str | Path) -> int:
    """Records each run of ``exp`` in the store ``out`` that is not recorded yet
    but whose journal holds a finished search (the loads of a search killed, or
    still running elsewhere, or journals kept with the results), and simulates
    nothing; returns how many it recorded. The journals stay where they are."""
    kinds.get(exp.kind).check_available()
    session = _session_id()
    with Store.locked(out, exp) as store:
        records, _ = store.scan()
        todo, done = plan(exp, records)
        todo = [r for r in todo if kinds.get(r.kind).journaled]
        todo = [r for r in todo if store.journal_path(r.key).is_file()]
        store.add_session(_session(session, exp, todo, done, "journals, replayed"))
        recorded = 0
        for run in todo:
            journal = str(store.journal_path(run.key).resolve())
            outcome = kinds.execute(run.kind, run.params, journal, replay_only=True)
            if outcome["status"] in kinds.FINISHED:
                store.write_run(run, outcome, attempts=1, session=session, keep_journal=True)
                recorded += 1
        if recorded:
            store.consolidate()
        store.finish_session(session, ok=recorded, failed=0, deadlocked=0)
    return recorded


def _session_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"


def _session(
    session: str, exp: specs.Experiment, todo: list, done: list, executor: str
) -> dict[str, Any]:
    """The entry of ``sessions.json`` for one sweep (or replay) of ``exp``."""
    return {
        "session": session,
        "started": datetime.now(UTC).isoformat(),
        "runs": len(exp.runs),
        "to_run": len(todo),
        "skipped": len(done),
        "executor": executor,
        "host": platform.node(),
        "pid": os.getpid(),
        "routelab_version": routelab.__version__,
    }


def _warn_invalid(
    store: Store,
    exp: specs.Experiment,
    records: Mapping[str, Any],
    invalid: Mapping[str, str],
) -> None:
    """One line on stderr when damaged records make runs run again."""
    rerun = [k for k in (r.key for r in exp.runs) if k in invalid and k not in records]
    if rerun:
        first = rerun[0]
        print(
            f"routelab: {len(rerun)} run record(s) in {store.root / 'runs'} are invalid and "
            f"will be rerun (first: {first}.json: {invalid[first]})",
            file=sys.stderr,
        )


@dataclass
class _Job:
    """One sweep of `run_sweeps`: its store, its runs left to run and what they did."""

    store: Store
    exp: specs.Experiment
    todo: list[specs.Run]
    skipped: int
    #: Attempts so far by run key (this session's included).
    attempts: dict[str, int]
    ok: int = 0
    failed: int = 0
    #: Of ``ok``, the runs that did not drain.
    undrained: int = 0
    deadlocked: int = 0


def _execute(
    jobs: list[_Job],
    *,
    session: str,
    retries: int,
    client_options: dict[str, Any],
    quiet: bool,
) -> None:
    """Runs every job's ``todo`` on one client, the earlier jobs' first, and
    counts in each job what its runs did."""
    from distributed import as_completed

    warned: set[str] = set()
    last_consolidation = time.monotonic()
    bars = [(job.exp.name, len(job.todo) + job.skipped, job.skipped) for job in jobs]
    with cluster.client(**client_options) as client, _progress(bars, quiet) as progress:
        pending: dict[Any, tuple[int, specs.Run]] = {}
        # Journals on local workers only: they die with the sweep, so a
        # journal has one writer, and they share the store's file system.
        local = client_options.get("address") is None and client_options.get("slurm") is None

        # Each run its own priority, the first the highest: the workers start
        # them in the sweeps' order, and a retry keeps its run's place.
        place = {}
        for i, job in enumerate(jobs):
            for run in job.todo:
                place[i, run.key] = len(place)

        # Local runs share the cores: unless its spec says otherwise, each
        # takes its share (a search's two loads then run one after the
        # other, a split run's parts on that many threads).
        threads = client_options.get("workers") or os.cpu_count() or 1
        share = max(1, (os.cpu_count() or 1) // threads)

        def params(run: specs.Run) -> dict[str, Any]:
            key = kinds.get(run.kind).cores_key
            if not local or key is None or key in run.flat:
                return run.params
            return specs.unflatten(run.flat | {key: share})

        def submit(i: int, run: specs.Run) -> Any:
            job = jobs[i]
            job.attempts[run.key] = job.attempts.get(run.key, 0) + 1
            journaled = local and kinds.get(run.kind).journaled
            journal = str(job.store.journal_path(run.key).resolve()) if journaled else None
            fut = client.submit(
                kinds.execute,
                run.kind,
                params(run),
                journal,
                # Two sweeps may hold the same run (one key): each its own task.
                key=f"{run.kind}-{i}-{run.key}-{session}-{job.attempts[run.key]}",
                priority=len(place) - place[i, run.key],
                pure=False,
            )
            pending[fut] = (i, run)
            return fut

        stream = as_completed([submit(i, run) for i, job in enumerate(jobs) for run in job.todo])
        for fut in stream:
            i, run = pending.pop(fut)
            job = jobs[i]
            try:
                outcome = fut.result()
            except Exception as e:  # the worker died or the task was lost
                outcome = {"status": "failed", "error": f"{type(e).__name__}: {e}"}
            finally:
                fut.release()
            if outcome["status"] == "failed" and job.attempts[run.key] <= retries:
                stream.add(submit(i, run))
                continue
            job.store.write_run(run, outcome, attempts=job.attempts[run.key], session=session)
            for w in (outcome.get("artefacts") or {}).get("warnings") or ():
                if w not in warned:  # each once per sweep, however many runs share it
                    warned.add(w)
                    print(f"routelab: warning: {w}", file=sys.stderr)
            if outcome["status"] in kinds.MEASURED:
                job.ok += 1
                job.undrained += outcome["status"] == "undrained"
            elif outcome["status"] == "deadlock":
                job.deadlocked += 1
            else:
                job.failed += 1
            progress(i, job.ok, job.failed + job.deadlocked)
            if time.monotonic() - last_consolidation > CONSOLIDATE_EVERY:
                for each in jobs:
                    each.store.consolidate()
                last_consolidation = time.monotonic()


@contextmanager
def _progress(bars: list[tuple[str, int, int]], quiet: bool) -> Iterator[Any]:
    """Rich progress bars (counts, elapsed time, ETA) on stderr, one per
    ``(name, total, done before)``; silent if quiet. Yields ``update(bar, ok,
    failed)``."""
    if quiet:
        yield lambda bar, ok, failed: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(file=sys.stderr)
    columns = [
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/]"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console, transient=False) as progress:
        tasks = [
            progress.add_task(name, total=total, completed=skipped, ok=0, failed=0)
            for name, total, skipped in bars
        ]

        def update(bar: int, ok: int, failed: int) -> None:
            skipped = bars[bar][2]
            progress.update(tasks[bar], completed=skipped + ok + failed, ok=ok, failed=failed)

        yield update


def _executor_name(
    address: str | None, slurm: cluster.SlurmOptions | None, workers: int | None
) -> str:
    if address:
        return f"dask:{address}"
    if slurm:
        return f"slurm:{slurm.jobs}x{slurm.cores}"
    return f"local:{workers or os.cpu_count()} threads"
