"""Published values, and joining them onto measured results.

A study keeps what its paper (or any earlier measurement) reports in a TOML
file; each reproduction's is ``routelab/reproduce/papers/<name>.toml``::

    [paper]
    title = "Domke, Hoefler, Nagel (2011)"

    [statements]                  # numbers the text uses, not joined to a table
    ofr_over_por_16 = 0.36

    [[expected]]
    table = "heuristics"          # the results table (``heuristics.csv``)
    metric = "lanes_needed"       # the column measured
    heuristic = "weakest"         # every other key selects the rows
    ports = 32
    range = [3, 5]                # or: value = 170.0
    aggregate = "mean"            # mean (default), min, max or median of the rows
    source = "Section IV"

`join` lines each expected value up with the rows of its table whose key
columns equal its keys, and gives measured, published and difference columns.
"""

from __future__ import annotations

import html
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from routelab._core import ConfigError

RESERVED = ("table", "metric", "value", "range", "aggregate", "source", "note")
AGGREGATES = ("mean", "min", "max", "median")
COLUMNS = (
    "table",
    "measurement",
    "metric",
    "published",
    "measured",
    "difference",
    "rows",
    "source",
)


@dataclass(frozen=True)
class Expected:
    """One published value and what identifies the measurement it is compared with."""

    table: str
    metric: str
    keys: dict[str, Any]
    value: float | None = None
    low: float | None = None
    high: float | None = None
    aggregate: str = "mean"
    source: str = ""
    note: str = ""

    @property
    def published(self) -> str:
        if self.value is not None:
            return f"{self.value:g}"
        return f"{self.low:g}-{self.high:g}"

    def difference(self, measured: float | None) -> float | None:
        """Measured minus published; for a range, the distance outside it (0 inside)."""
        if measured is None or math.isnan(measured):
            return None
        if self.value is not None:
            return measured - self.value
        assert self.low is not None and self.high is not None
        if measured < self.low:
            return measured - self.low
        if measured > self.high:
            return measured - self.high
        return 0.0

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.keys.items())


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    values: tuple[Expected, ...]
    statements: dict[str, Any] = field(default_factory=dict)

    def find(self, table: str, metric: str, **keys: Any) -> Expected:
        """The expected value of ``table``/``metric`` whose keys are exactly ``keys``."""
        for e in self.values:
            if e.table == table and e.metric == metric and e.keys == keys:
                return e
        raise KeyError(f"{self.name}: no published {table}.{metric} for {keys}")

    def mapping(self, table: str, metric: str, keys: tuple[str, ...]) -> dict[Any, float | None]:
        """``{key values: value}`` of ``table``/``metric``; one key gives plain keys."""
        out: dict[Any, float | None] = {}
        for e in self.values:
            if e.table == table and e.metric == metric:
                k = tuple(e.keys[n] for n in keys)
                out[k[0] if len(keys) == 1 else k] = e.value
        return out


def parse(doc: Mapping[str, Any], name: str = "<paper>") -> Paper:
    """A `Paper` from a parsed document; errors name the entry at fault."""
    meta = doc.get("paper", {})
    values = []
    for i, entry in enumerate(doc.get("expected", []), start=1):
        where = f"{name}: expected value {i}"
        for required in ("table", "metric"):
            if not isinstance(entry.get(required), str):
                raise ConfigError(f"{where} needs '{required}' (a string)")
        has_value, has_range = "value" in entry, "range" in entry
        if has_value == has_range:
            raise ConfigError(f"{where} needs one of 'value' or 'range'")
        low = high = None
        if has_range:
            rng = entry["range"]
            if not (isinstance(rng, list) and len(rng) == 2 and rng[0] <= rng[1]):
                raise ConfigError(f"{where}: 'range' is [low, high]")
            low, high = float(rng[0]), float(rng[1])
        aggregate = entry.get("aggregate", "mean")
        if aggregate not in AGGREGATES:
            raise ConfigError(f"{where}: 'aggregate' is one of {', '.join(AGGREGATES)}")
        values.append(
            Expected(
                table=entry["table"],
                metric=entry["metric"],
                keys={k: v for k, v in entry.items() if k not in RESERVED},
                value=float(entry["value"]) if has_value else None,
                low=low,
                high=high,
                aggregate=aggregate,
                source=str(entry.get("source", "")),
                note=str(entry.get("note", "")),
            )
        )
    return Paper(
        name=name,
        title=str(meta.get("title", name)),
        values=tuple(values),
        statements=dict(doc.get("statements", {})),
    )


def load(path: str | Path, name: str | None = None) -> Paper:
    """The published values in the file ``path``; ``name`` (default: the file's
    stem) names it in errors."""
    path, name = Path(path), name or Path(path).stem
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as e:
        raise ConfigError(f"no published values for '{name}': {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from e
    return parse(doc, name)


def _matches(column: pd.Series, value: Any) -> pd.Series:
    if isinstance(value, bool):
        return column.astype(str).str.lower() == str(value).lower()
    if isinstance(value, int | float):
        return pd.to_numeric(column, errors="coerce") == value
    return column.astype(str) == str(value)


def measure(e: Expected, tables: Mapping[str, pd.DataFrame]) -> tuple[float | None, int]:
    """The measured value of ``e`` (its aggregate over the matching rows) and the
    number of rows it comes from."""
    df = tables.get(e.table)
    if df is None or e.metric not in df.columns:
        return None, 0
    mask = pd.Series(True, index=df.index)
    for key, value in e.keys.items():
        if key not in df.columns:
            return None, 0
        mask &= _matches(df[key], value)
    values = pd.to_numeric(df.loc[mask, e.metric], errors="coerce").dropna()
    if values.empty:
        return None, 0
    return float(getattr(values, e.aggregate)()), len(values)


def join(paper: Paper | tuple[Expected, ...], tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per expected value: measured, published and their difference."""
    values = paper.values if isinstance(paper, Paper) else paper
    rows = []
    for e in values:
        measured, n = measure(e, tables)
        rows.append(
            {
                "table": e.table,
                "measurement": e.describe(),
                "metric": e.metric if e.aggregate == "mean" else f"{e.metric} ({e.aggregate})",
                "published": e.published,
                "measured": measured,
                "difference": e.difference(measured),
                "rows": n,
                "source": e.source + (f"; {e.note}" if e.note else ""),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_tables(out: str | Path) -> dict[str, pd.DataFrame]:
    """Every CSV table in ``out``, by file stem."""
    tables = {}
    for path in sorted(Path(out).glob("*.csv")):
        try:
            tables[path.stem] = pd.read_csv(path)
        except pd.errors.EmptyDataError:
            tables[path.stem] = pd.DataFrame()
    return tables


def html_section(joined: pd.DataFrame, paper: Paper) -> str:
    """The "Measured and published" section of a report."""
    from routelab.experiment.report import html_table

    measured = int(joined["measured"].notna().sum())
    return (
        "<h2>Measured and published</h2>"
        f"<p>{html.escape(paper.title)}: {len(joined)} published values, {measured} "
        "measured in this run (the others need a larger mode). Difference: measured "
        "minus published; for a published range, the distance outside it.</p>"
        f'<div class="scroll">{html_table(joined)}</div>'
    )
