"""The result store: one directory per experiment.

::

    DIR/
      spec.toml            the spec as written
      experiment.json      name, kind, the canonical spec, number of runs
      sessions.json        one entry per `routelab sweep` on this directory
      runs/<key>.json      the record of each finished run (ok or failed)
      runs.parquet         every record in one table (one row per run)
      artefacts/<key>/     larger per-run data: <name>.json or <name>.parquet
      journals/<key>.jsonl the measurements of a run in progress (saturate
                           searches), so a run killed half-way resumes;
                           removed once the run's record is written

Every file is written to a temporary file in its directory and renamed over
its name (``os.replace``), so a reader sees the old or the new version, never
a part. A run's record is written after its artefacts and is the proof that the
run finished: a sweep killed at any moment loses only the runs in flight.
The records are the source of truth; ``runs.parquet`` is their consolidation.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from routelab import toml_text
from routelab._core import ConfigError
from routelab.experiment import kinds
from routelab.experiment import spec as specs

if TYPE_CHECKING:
    import pandas as pd

SPEC = "spec.toml"
META = "experiment.json"
SESSIONS = "sessions.json"
RUNS = "runs"
TABLE = "runs.parquet"
ARTEFACTS = "artefacts"
JOURNALS = "journals"
LOCK = ".lock"

# Columns of the run table besides parameters and metrics, in order.
HEAD_COLUMNS = ["key", "index", "status"]
TAIL_COLUMNS = [
    "error",
    "attempts",
    "wall_seconds",
    "routelab_version",
    "started",
    "timestamp",
    "host",
    "session",
]


class StoreBusy(ConfigError):
    """Another sweep holds the store's lock."""


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()


def atomic_write(path: Path, data: bytes | str) -> None:
    """Writes ``data`` to ``path`` through a temporary file in the same
    directory and ``os.replace``."""
    if isinstance(data, str):
        data = data.encode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_json(path: Path, value: Any) -> None:
    atomic_write(path, json.dumps(value, indent=1, allow_nan=True, default=str) + "\n")


class Store:
    """An experiment directory."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, root: str | Path) -> Store:
        """An existing experiment directory (for results, plots, reports)."""
        store = cls(root)
        if not (store.root / SPEC).is_file():
            raise ConfigError(
                f"{store.root} is not an experiment directory (no {SPEC}); "
                "create one with: routelab sweep SPEC.toml --out DIR"
            )
        return store

    @classmethod
    @contextlib.contextmanager
    def locked(cls, root: str | Path, exp: specs.Experiment) -> Iterator[Store]:
        """The directory for ``exp`` (see `create_or_resume`), held
        under the lock: the spec is checked and written only by the holder,
        so two sweeps cannot both pass the check."""
        store = cls(root)
        store._refuse_foreign()  # before the lock file is made in it
        store.root.mkdir(parents=True, exist_ok=True)
        with store.lock():
            cls.create_or_resume(root, exp)
            yield store

    def _refuse_foreign(self) -> None:
        if (self.root / SPEC).exists() or not self.root.exists():
            return
        # Journals kept on their own (committed beside a study's results) are
        # a store's: each names the search it belongs to and is refused by any other.
        if any(p.name not in (LOCK, JOURNALS) for p in self.root.iterdir()):
            raise ConfigError(
                f"{self.root} exists and is not an experiment directory; "
                "choose an empty or new --out directory"
            )

    @classmethod
    def create_or_resume(cls, root: str | Path, exp: specs.Experiment) -> Store:
        """A new directory for ``exp``, or the existing one if it holds the same
        spec; a directory holding a different spec is refused. A sweep calls
        it through `locked`."""
        store = cls(root)
        spec_path = store.root / SPEC
        if spec_path.exists():
            old = specs.parse(toml_text.read(spec_path), origin=str(spec_path))
            if old.canonical() != exp.canonical():
                raise ConfigError(
                    f"{store.root} holds experiment '{old.name}' from a different spec "
                    f"({_spec_difference(old.document, exp.document)}); "
                    "use a new --out directory to run the changed spec"
                )
            if old.document != exp.document:
                # The same runs (a neutral key or the layout changed): the
                # store keeps the spec it now runs.
                atomic_write(spec_path, exp.text or _toml_from_document(exp.document))
            store._rekey()
        else:
            store._refuse_foreign()
            store.root.mkdir(parents=True, exist_ok=True)
            atomic_write(spec_path, exp.text or _toml_from_document(exp.document))
        (store.root / RUNS).mkdir(exist_ok=True)
        (store.root / ARTEFACTS).mkdir(exist_ok=True)
        if kinds.get(exp.kind).journaled:
            (store.root / JOURNALS).mkdir(exist_ok=True)
        _write_json(
            store.root / META,
            {
                "name": exp.name,
                "kind": exp.kind,
                "description": exp.description,
                "runs": len(exp.runs),
                "varying": exp.varying,
                "spec": exp.document,
            },
        )
        return store

    def _rekey(self) -> None:
        """Moves each record that its parameters no longer key (a key became
        neutral since it was written) to its current key, with its artefacts
        and journal, so a resumed sweep does not repeat it. A record whose run
        was repeated under the current key already is the duplicate it is and
        goes."""
        for key, rec in self.records().items():
            new = specs.run_key(rec["kind"], rec["params"])
            if new == key:
                continue
            if not self.record_path(new).exists():
                for old, moved in (
                    (self.root / ARTEFACTS / key, self.root / ARTEFACTS / new),
                    (self.journal_path(key), self.journal_path(new)),
                ):
                    if old.exists() and not moved.exists():
                        old.rename(moved)
                _write_json(self.record_path(new), {**rec, "key": new})
            self.record_path(key).unlink()
            shutil.rmtree(self.root / ARTEFACTS / key, ignore_errors=True)

    def experiment(self) -> specs.Experiment:
        return specs.parse(self.spec_text, origin=str(self.root / SPEC))

    @property
    def spec_text(self) -> str:
        return toml_text.read(self.root / SPEC)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Held while a sweep writes; the kernel releases it if the process dies."""
        path = self.root / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                other = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise StoreBusy(
                    f"another sweep (pid {other}) is writing to {self.root}; "
                    "wait for it or stop it first"
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            self._clean_temporaries()
            yield
        finally:
            os.close(fd)

    def _clean_temporaries(self) -> None:
        for d in (self.root, self.root / RUNS, *(self.root / ARTEFACTS).glob("*")):
            if d.is_dir():
                for tmp in d.glob(".*.tmp"):
                    with contextlib.suppress(OSError):
                        tmp.unlink()

    # ------------------------------------------------------------ sessions

    def sessions(self) -> list[dict[str, Any]]:
        path = self.root / SESSIONS
        return json.loads(path.read_text()) if path.exists() else []

    def add_session(self, session: Mapping[str, Any]) -> None:
        _write_json(self.root / SESSIONS, [*self.sessions(), dict(session)])

    def finish_session(self, session: str, **counts: Any) -> None:
        entries = self.sessions()
        for entry in entries:
            if entry.get("session") == session:
                entry.update(counts, finished=datetime.now(UTC).isoformat())
        _write_json(self.root / SESSIONS, entries)

    # ------------------------------------------------------------ records

    def record_path(self, key: str) -> Path:
        return self.root / RUNS / f"{key}.json"

    def records(self) -> dict[str, dict[str, Any]]:
        """Every finished run's valid record, by key. Files that are not a
        valid record (see `record_problem`) are left out and listed in
        `invalid_records`; a sweep runs those runs again."""
        return self.scan()[0]

    def invalid_records(self) -> dict[str, str]:
        """The record files that are not valid records: key (the file's
        name) -> what is wrong."""
        return self.scan()[1]

    def scan(self) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """``(records, invalid)``: one pass over the record files."""
        valid: dict[str, dict[str, Any]] = {}
        invalid: dict[str, str] = {}
        runs = self.root / RUNS
        if runs.is_dir():
            for entry in os.scandir(runs):
                if entry.name.endswith(".json") and not entry.name.startswith("."):
                    key = entry.name[: -len(".json")]
                    rec, problem = _load_record(Path(entry.path))
                    if rec is None:
                        invalid[key] = problem
                    else:
                        valid[key] = rec
        return valid, invalid

    def write_run(
        self,
        run: specs.Run,
        outcome: Mapping[str, Any],
        *,
        attempts: int,
        session: str,
        keep_journal: bool = False,
    ) -> dict[str, Any]:
        """Persists one finished run: its artefacts, then its record; the run's
        journal goes once it is finished, unless ``keep_journal`` (it was read,
        not written: a replay)."""
        names = []
        artefacts = outcome.get("artefacts") or {}
        if artefacts:
            folder = self.root / ARTEFACTS / run.key
            folder.mkdir(parents=True, exist_ok=True)
            for name, value in artefacts.items():
                names.append(self._write_artefact(folder, name, value))
        record = {
            "key": run.key,
            "index": run.index,
            "kind": run.kind,
            "status": outcome["status"],
            "params": run.flat,
            "metrics": outcome.get("metrics") or {},
            "artefacts": names,
            "error": outcome.get("error"),
            "attempts": attempts,
            "wall_seconds": outcome.get("wall_seconds"),
            "routelab_version": outcome.get("routelab_version"),
            "started": outcome.get("started"),
            "timestamp": outcome.get("finished") or datetime.now(UTC).isoformat(),
            "host": outcome.get("host"),
            "session": session,
        }
        _write_json(self.record_path(run.key), record)
        if outcome["status"] in kinds.FINISHED and not keep_journal:  # a failed run keeps it
            self.journal_path(run.key).unlink(missing_ok=True)
        folder = self.root / ARTEFACTS / run.key
        if folder.is_dir():  # a rerun replaces the artefacts of the earlier attempt
            for old in folder.iterdir():
                if old.name not in names and not old.name.startswith("."):
                    old.unlink()
            if not any(folder.iterdir()):
                folder.rmdir()
        return record

    def journal_path(self, key: str) -> Path:
        """Where run ``key`` keeps its measurements while it runs."""
        return self.root / JOURNALS / f"{key}.jsonl"

    @staticmethod
    def _write_artefact(folder: Path, name: str, value: Any) -> str:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
        if hasattr(value, "to_parquet"):
            import io

            buf = io.BytesIO()
            value.to_parquet(buf)
            atomic_write(folder / f"{safe}.parquet", buf.getvalue())
            return f"{safe}.parquet"
        _write_json(folder / f"{safe}.json", value)
        return f"{safe}.json"

    # ------------------------------------------------------------ artefacts

    def artefact_path(self, key: str, name: str) -> Path | None:
        folder = self.root / ARTEFACTS / key
        for candidate in (folder / name, folder / f"{name}.json", folder / f"{name}.parquet"):
            if candidate.is_file():
                return candidate
        return None

    def artefact(self, key: str, name: str) -> Any:
        """One run's artefact (JSON value or DataFrame), or None."""
        path = self.artefact_path(key, name)
        if path is None:
            return None
        if path.suffix == ".parquet":
            import pandas as pd

            return pd.read_parquet(path)
        return json.loads(path.read_text())

    # ------------------------------------------------------------ tables

    def table(self, artefacts: Iterable[str] = ()) -> pd.DataFrame:
        """The run table: one row per finished run, in spec order. Each name of
        ``artefacts`` adds a column holding that artefact of each run."""
        import pandas as pd

        records = list(self._current_records())
        df = _without_echoes(_frame(records, first=self._varying()))
        for name in artefacts:
            df[name] = [self.artefact(k, name) for k in df["key"]] if len(df) else []
        return df if len(df) else pd.DataFrame(columns=HEAD_COLUMNS + TAIL_COLUMNS)

    def _varying(self) -> list[str]:
        try:
            return list(json.loads((self.root / META).read_text()).get("varying", []))
        except (OSError, ValueError):
            return []

    def _current_records(self) -> list[dict[str, Any]]:
        """The records, reading ``runs.parquet`` for those it already holds."""
        table = self.root / TABLE
        runs = self.root / RUNS
        if not table.exists():
            return list(self.records().values())
        import pandas as pd

        since = table.stat().st_mtime_ns
        cached = pd.read_parquet(table)
        cached_keys = set(cached["key"]) if len(cached) else set()
        fresh: dict[str, dict[str, Any]] = {}
        on_disk: set[str] = set()
        if runs.is_dir():
            for entry in os.scandir(runs):
                if not entry.name.endswith(".json") or entry.name.startswith("."):
                    continue
                key = entry.name[: -len(".json")]
                on_disk.add(key)
                if key not in cached_keys or entry.stat().st_mtime_ns >= since:
                    rec, _ = _load_record(Path(entry.path))
                    if rec is not None:
                        fresh[key] = rec
                    else:  # changed since the consolidation and now invalid
                        on_disk.discard(key)
        records = [r for r in _records_of_frame(cached) if r["key"] not in fresh]
        if runs.is_dir():
            records = [r for r in records if r["key"] in on_disk]
        return records + list(fresh.values())

    def consolidate(self) -> pd.DataFrame:
        """Rewrites ``runs.parquet`` from the records; returns the table."""
        df = _frame(list(self.records().values()), first=self._varying())
        _write_parquet(self.root / TABLE, df)
        return df


# What `results`, `plot` and `report` read of a record: name -> (accepted
# types, may be None). Records are written by `Store.write_run` only, so
# anything else is damage (a disk, an editor, another tool) and is rerun.
_RECORD_SCHEMA: dict[str, tuple[tuple[type, ...], bool]] = {
    "key": ((str,), False),
    "index": ((int,), False),
    "kind": ((str,), False),
    "status": ((str,), False),
    "params": ((dict,), False),
    "metrics": ((dict,), False),
    "artefacts": ((list,), False),
    "error": ((str,), True),
    "attempts": ((int,), False),
    "wall_seconds": ((int, float), True),
    "routelab_version": ((str,), True),
    "started": ((str,), True),
    "timestamp": ((str,), False),
    "host": ((str,), True),
    "session": ((str,), False),
}


def record_problem(rec: Any, key: str | None = None) -> str | None:
    """What is wrong with a run record (None when it is valid): a missing
    field or one of the wrong type, an unknown status, a key other than its
    file's name."""
    if not isinstance(rec, dict):
        return f"a record is a JSON object, not {type(rec).__name__}"
    for name, (types, nullable) in _RECORD_SCHEMA.items():
        if name not in rec:
            return f"no '{name}'"
        value = rec[name]
        if value is None and nullable:
            continue
        if isinstance(value, bool) or not isinstance(value, types):
            return f"'{name}' is {json.dumps(value, default=str)[:40]}"
    if rec["status"] not in kinds.STATUSES:
        valid = ", ".join(kinds.STATUSES)
        return f"unknown status '{rec['status'][:40]}' (valid: {valid})"
    if key is not None and rec["key"] != key:
        return f"its key '{rec['key'][:40]}' is not its file's name"
    if rec["index"] < 0 or rec["attempts"] < 1:
        return "a negative index or no attempt"
    if not all(isinstance(k, str) for k in (*rec["params"], *rec["metrics"])):
        return "a parameter or metric name that is not text"
    if not all(isinstance(a, str) for a in rec["artefacts"]):
        return "an artefact name that is not text"
    return None


def _load_record(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The record in ``path``, or None and what is wrong with the file."""
    try:
        rec = json.loads(path.read_bytes())
    except OSError as e:
        return None, f"cannot read: {e.strerror}"
    except (ValueError, RecursionError) as e:  # not JSON, not UTF-8, nested too deep
        return None, f"not JSON: {e}"
    problem = record_problem(rec, path.name[: -len(".json")])
    return (None, problem) if problem else (rec, "")


_RECORD_SCALARS = ["key", "index", "kind", "status", *TAIL_COLUMNS]


def _frame(records: list[dict[str, Any]], first: list[str] = ()) -> pd.DataFrame:
    """One row per record: key, index, status, parameters (dotted names; those
    in ``first``, the ones that vary, come first), metrics, then error,
    attempts, wall time, version, timestamps, host."""
    import pandas as pd

    records = sorted(records, key=lambda r: (r.get("index", 0), r["key"]))
    params: list[str] = []
    metrics: list[str] = []
    rows = []
    reserved = set(HEAD_COLUMNS) | set(TAIL_COLUMNS) | {"kind", "artefacts"}
    for rec in records:
        row = {k: rec.get(k) for k in _RECORD_SCALARS}
        row["artefacts"] = ",".join(rec.get("artefacts") or [])
        for k, v in rec.get("params", {}).items():
            if k not in params:
                params.append(k)
            row[k] = v
        for k, v in rec.get("metrics", {}).items():
            name = k if k not in reserved and k not in rec.get("params", {}) else f"result.{k}"
            if name not in metrics:
                metrics.append(name)
            row[name] = v
        rows.append(row)
    params = [p for p in first if p in params] + [p for p in params if p not in first]
    columns = HEAD_COLUMNS + params + metrics + TAIL_COLUMNS + ["kind", "artefacts"]
    df = pd.DataFrame(rows, columns=columns)
    return df.reset_index(drop=True)


#: Results that repeat a parameter under another name.
_ECHOED_AS = {"network": "network.topology", "router": "routing.algorithm"}


def _without_echoes(df: pd.DataFrame) -> pd.DataFrame:
    """The run table with one column per quantity: a result that repeats its
    parameter (``load`` of ``traffic.load``, ``network`` of
    ``network.topology``) in every row is left out; one that differs somewhere
    (``vcs`` resolved from ``router.vcs = 0``) is kept as ``result.<name>``."""
    params = [c for c in df.columns if "." in c and not c.startswith("result.")]
    renames: dict[str, str] = {}
    drops: list[str] = []
    for col in df.columns:
        if "." in col or col in HEAD_COLUMNS or col in TAIL_COLUMNS:
            continue
        echoed = [p for p in params if p.rsplit(".", 1)[1] == col or _ECHOED_AS.get(col) == p]
        if len(echoed) != 1:
            continue
        mine, theirs = df[col], df[echoed[0]]
        same = (mine.isna() & theirs.isna()) | (mine.astype(object) == theirs.astype(object))
        if bool(same.all()):
            drops.append(col)
        elif f"result.{col}" not in df.columns:
            renames[col] = f"result.{col}"
    return df.drop(columns=drops).rename(columns=renames)


def _records_of_frame(df: pd.DataFrame) -> Iterator[dict[str, Any]]:
    """The records a consolidated table was made of (the inverse of _frame)."""
    meta = df.attrs.get("routelab") or {}
    params = meta.get("params")
    metrics = meta.get("metrics")
    if params is None or metrics is None:
        # A table written by another tool: derive the groups from the names.
        fixed = set(_RECORD_SCALARS) | {"artefacts"}
        params = [c for c in df.columns if "." in c and not c.startswith("result.")]
        metrics = [c for c in df.columns if c not in fixed and c not in params]
    json_columns = set(meta.get("json_columns", []))
    for row in df.to_dict("records"):
        rec = {k: _cell(row.get(k)) for k in _RECORD_SCALARS if k in row}
        rec["params"] = {}
        for k in params:
            v = _cell(row.get(k), k in json_columns)
            if v is not None:
                rec["params"][k] = v
        rec["metrics"] = {}
        for k in metrics:
            v = _cell(row.get(k), k in json_columns)
            name = k[len("result.") :] if k.startswith("result.") else k
            if v is not None:
                rec["metrics"][name] = v
        arts = row.get("artefacts")
        rec["artefacts"] = arts.split(",") if isinstance(arts, str) and arts else []
        yield rec


def _cell(value: Any, is_json: bool = False) -> Any:
    import pandas as pd

    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if isinstance(value, float) and pd.isna(value):
        return None
    if is_json and isinstance(value, str):
        return json.loads(value)
    return value


def _write_parquet(path: Path, df: pd.DataFrame) -> None:
    """Parquet cannot hold columns of mixed types: such columns (and lists) are
    written as JSON text and named in the table's metadata."""
    import io

    out = df.copy()
    json_columns = []
    for col in out.columns:
        if out[col].dtype != object:
            continue
        values = [v for v in out[col] if v is not None]
        types = {type(v) for v in values}
        if len(types) > 1 or (types and not types <= {str, bool, int, float}):
            if types <= {int, float}:
                out[col] = out[col].astype("float64")
                continue
            out[col] = [None if v is None else json.dumps(v) for v in out[col]]
            json_columns.append(col)
    meta_cols = set(HEAD_COLUMNS) | set(TAIL_COLUMNS) | {"kind", "artefacts"}
    params, metrics = [], []
    for col in out.columns:
        if col in meta_cols:
            continue
        (params if "." in col and not col.startswith("result.") else metrics).append(col)
    out.attrs = {"routelab": {"params": params, "metrics": metrics, "json_columns": json_columns}}
    buf = io.BytesIO()
    out.to_parquet(buf, index=False)
    atomic_write(path, buf.getvalue())


def _spec_difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    a = specs.flatten(old, dotted_keys=True) if old else {}
    b = specs.flatten(new, dotted_keys=True) if new else {}
    changed = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if not changed:
        return "the same keys in a different form"
    shown = ", ".join(changed[:5]) + (", ..." if len(changed) > 5 else "")
    return f"differs in {shown}"


def _toml_from_document(doc: Mapping[str, Any]) -> str:
    """A TOML rendering of a spec given as a document (Python callers)."""
    lines: list[str] = []
    for table, value in doc.items():
        if table == "zip":
            groups = value if isinstance(value, list) else [value]
            for group in groups:
                lines.append("[[zip]]")
                for k, v in specs.flatten(group, dotted_keys=True).items():
                    lines.append(f"{toml_text.string(k)} = {_toml_value(v)}")
                lines.append("")
            continue
        lines.append(f"[{table}]")
        for k, v in specs.flatten(value).items():
            lines.append(f"{k} = {_toml_value(v)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return toml_text.string(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        items = ", ".join(f"{toml_text.string(k)} = {_toml_value(x)}" for k, x in v.items())
        return "{ " + items + " }"
    raise ConfigError(f"cannot write {v!r} as TOML")
