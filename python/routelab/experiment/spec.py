"""Experiment specs: TOML documents whose lists are sweep axes.

::

    [experiment]
    kind = "route"                 # topo | route | ebb | sim | saturate
    name = "route-engines"
    seeds = [1, 2, 3]              # optional: repeat every run once per seed
    max_runs = 1000000             # optional: the most runs a spec may expand to

    [network]
    topology = ["torus:4x4x4", "kary-ntree:k=4,n=3"]    # a list is an axis

    [routing]
    algorithm = ["minhop", "sssp", "dfsssp"]
    max_lanes = 8                  # a scalar is fixed for every run

    [[zip]]                        # keys that vary together: one axis
    "traffic.pattern" = ["uniform", "tornado"]
    "traffic.load" = [0.4, 0.2]
    "experiment.seeds" = [3, 1]    # optional: seeds per step, instead of [experiment]'s

    [variants.quick]               # optional: a smaller version of the study
    "network.topology" = "torus:4x4x4"
    "experiment.seeds" = 1

Every table other than ``[experiment]``, ``[[zip]]`` and ``[variants]`` holds the parameters of
the runs; nested keys are addressed by dotted paths (``traffic.load``). The runs
are the Cartesian product of the axes (in the order they appear) repeated per
seed (seeds outermost, so a whole pass over the grid finishes first). Seeds in
a ``[[zip]]`` group give each of its steps its own (the costly runs fewer
patterns): seed N runs only the steps whose seeds include N. A literal
list value is written as a one-element axis: ``key = [[1, 2, 3]]``. The text
``{seed}`` in a string parameter becomes the run's seed, e.g.
``topology = "random:switches=64,ports=8,hosts=4,seed={seed}"``.

A variant (``load(path, variant="quick")``, ``routelab sweep --variant quick``)
replaces the values of the dotted keys it lists, outside ``[[zip]]`` groups
(``[[variants.quick.zip]]`` tables replace the groups all together; a table
value is merged key by key), and is named ``NAME-quick``; without one,
``[variants]`` is ignored.

Each run has a key: the first 16 hex digits of the SHA-256 of the canonical JSON
of its kind and normalised parameters, stable across processes and machines.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from routelab import toml_text
from routelab._core import ConfigError
from routelab.experiment import kinds

EXPERIMENT_KEYS = ("kind", "name", "description", "seeds", "max_runs")

#: The most runs a spec expands to unless ``experiment.max_runs`` says more: a
#: run's record takes about a kilobyte in memory and on disk.
MAX_RUNS = 1_000_000
RESERVED_TABLES = ("experiment", "zip", "variants")
#: The one experiment key a [[zip]] group may hold: each step's seeds.
ZIP_SEEDS = "experiment.seeds"


@dataclass(frozen=True)
class Run:
    """One run: its key, its position in the sweep and its parameters."""

    key: str
    index: int
    kind: str
    flat: dict[str, Any]

    @property
    def params(self) -> dict[str, Any]:
        """The nested parameter document the run kind receives."""
        return unflatten(self.flat)


@dataclass(frozen=True)
class Axis:
    """Keys that vary together and their values, one tuple per step."""

    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]
    #: Each step's seeds, where the axis's [[zip]] group sets experiment.seeds.
    seeds: tuple[frozenset[int], ...] | None = None


@dataclass
class Experiment:
    name: str
    kind: str
    description: str
    seeds: list[int] | None
    fixed: dict[str, Any]
    axes: list[Axis]
    document: dict[str, Any]
    text: str
    runs: list[Run] = field(default_factory=list)

    @property
    def varying(self) -> list[str]:
        """The dotted keys that differ between runs, in spec order."""
        keys = [k for axis in self.axes for k in axis.keys]
        if self.seeds is not None:
            keys.append(kinds.get(self.kind).seed_key)
        return keys

    def canonical(self) -> str:
        """What makes two specs the same experiment, as canonical JSON: the name,
        the kind and the keys of the runs in order. Layout, comments, the
        description and ``1`` against ``1.0`` for a number do not count."""
        return canonical_json(
            {"name": self.name, "kind": self.kind, "runs": [r.key for r in self.runs]}
        )


# ---------------------------------------------------------------- loading


#: The reproductions' specs, one folder per paper: ``routelab sweep
#: versaci2013/searches`` runs one as any user spec.
BUNDLED = Path(__file__).resolve().parent.parent / "reproduce" / "specs"


def bundled() -> list[str]:
    """The names of the bundled specs, PAPER/PART."""
    return sorted(f"{p.parent.name}/{p.stem}" for p in BUNDLED.glob("*/*.toml"))


def locate(path: str | Path) -> Path:
    """``path``, or the bundled spec it names (``PAPER/PART``, with or
    without ``.toml``) where no such file exists."""
    path = Path(path)
    if path.exists() or path.is_absolute() or len(path.parts) != 2:
        return path
    candidate = BUNDLED / path.with_suffix(".toml")
    return candidate if candidate.is_file() else path


def load(path: str | Path, variant: str | None = None) -> Experiment:
    """Reads, validates and expands a spec file (or a bundled spec by its
    name, see `locate`), or its ``variant``."""
    path = locate(path)
    try:
        text = toml_text.read(path)
    except OSError as e:
        hint = ""
        if isinstance(e, FileNotFoundError) and not path.is_absolute():
            hint = f"; bundled specs (PAPER/PART): {', '.join(bundled())}"
        raise ConfigError(f"cannot read the experiment spec {path}: {e.strerror}{hint}") from e
    return parse(text, origin=str(path), variant=variant)


def parse(text: str, *, origin: str = "<spec>", variant: str | None = None) -> Experiment:
    """Parses, validates and expands a spec; errors name the key at fault."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{origin} is not valid TOML: {e}") from e
    return from_document(doc, text=text, variant=variant)


def variants(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The spec's variants: each one's dotted keys and their values."""
    table = doc.get("variants", {})
    if not isinstance(table, Mapping) or not all(isinstance(v, Mapping) for v in table.values()):
        raise ConfigError("'variants' must hold tables: [variants.NAME] with dotted keys")
    return {name: flatten(v, f"variants.{name}", dotted_keys=True) for name, v in table.items()}


def with_variant(doc: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """``doc`` with ``variant``'s values in place, named NAME-VARIANT, without
    ``[variants]``: a spec of its own, as a store keeps it."""
    table = variants(doc)
    if variant not in table:
        known = ", ".join(sorted(table)) or "none"
        raise ConfigError(f"the spec has no variant '{variant}'; its variants: {known}")
    zipped = {k for group in _zip_groups(doc.get("zip")) for k in group}
    out = json.loads(json.dumps({k: v for k, v in doc.items() if k != "variants"}, default=str))
    meta = out.get("experiment")
    if isinstance(meta, dict) and isinstance(meta.get("name"), str):
        meta["name"] = f"{meta['name']}-{variant}"
    prefix = f"variants.{variant}."
    groups = table[variant].get(prefix + "zip")
    if groups is not None:  # [[variants.NAME.zip]]: the variant's own groups
        out["zip"] = groups
        zipped = {k for group in _zip_groups(groups) for k in group}
    for path, value in table[variant].items():
        key = path.removeprefix(prefix)
        if key == "zip":
            continue
        inside = any(key == z or key.startswith(z + ".") or z.startswith(key + ".") for z in zipped)
        if inside or key.split(".")[0] in RESERVED_TABLES[1:]:
            raise ConfigError(
                f"'{path}': '{key}' varies in a [[zip]] group or is not a parameter; "
                "a variant replaces plain keys and experiment.*, or every [[zip]] group "
                f"with [[variants.{variant}.zip]]"
            )
        node = out
        *heads, last = key.split(".")
        for head in heads:
            node = node.setdefault(head, {})
            if not isinstance(node, dict):
                raise ConfigError(f"'{path}': '{head}' is a value in the spec, not a table")
        node[last] = value
    return out


def from_document(
    doc: Mapping[str, Any], *, text: str = "", variant: str | None = None
) -> Experiment:
    if variant is not None:
        doc, text = with_variant(doc, variant), ""
    else:
        variants(doc)  # malformed variants are refused even when none is asked for
    doc = dict(doc)
    meta = doc.get("experiment")
    if not isinstance(meta, Mapping):
        raise ConfigError(
            "the spec needs an [experiment] table with 'kind' "
            f"({', '.join(kinds.KINDS)}) and 'name'"
        )
    for key in meta:
        if key not in EXPERIMENT_KEYS:
            raise ConfigError(
                f"unknown key 'experiment.{key}'; valid keys: "
                + ", ".join(f"experiment.{k}" for k in EXPERIMENT_KEYS)
            )
    kind_name = meta.get("kind")
    if not isinstance(kind_name, str):
        raise ConfigError(f"'experiment.kind' is required: one of {', '.join(kinds.KINDS)}")
    kind = kinds.get(kind_name)
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("'experiment.name' is required: a short name for the experiment")
    if any(c in name for c in "/\\\0"):
        raise ConfigError(f"'experiment.name' = '{name}' is not valid: no slashes")
    description = meta.get("description", "")
    if not isinstance(description, str):
        raise ConfigError("'experiment.description' is not valid: expected a string")
    max_runs = meta.get("max_runs", MAX_RUNS)
    if not isinstance(max_runs, int) or isinstance(max_runs, bool) or max_runs < 1:
        raise ConfigError(
            f"'experiment.max_runs' = {max_runs!r} is not valid: expected an integer >= 1"
        )
    seeds = _seeds(meta.get("seeds"), max_runs)

    params: dict[str, Any] = {}
    for table, value in doc.items():
        if table in RESERVED_TABLES:
            continue
        if not isinstance(value, Mapping):
            raise ConfigError(
                f"'{table}' = {value!r} is outside a table: parameters belong in tables "
                f"such as [network] or [routing]"
            )
        params.update(flatten(value, prefix=table))

    zips = _zip_groups(doc.get("zip"))
    axes: list[Axis] = []
    fixed: dict[str, Any] = {}
    zipped = {k for group in zips for k in group}
    for key, value in params.items():
        if key in zipped:
            raise ConfigError(f"'{key}' is both a parameter and in a [[zip]] group; keep one")
        if isinstance(value, list):
            if not value:
                raise ConfigError(f"'{key}' is an empty list: a sweep axis needs values")
            axes.append(Axis((key,), tuple((v,) for v in value)))
        else:
            fixed[key] = value
    for group in zips:
        lengths = {len(v) for v in group.values()}
        if len(lengths) != 1:
            sizes = ", ".join(f"{k}: {len(v)}" for k, v in group.items())
            raise ConfigError(f"the lists of a [[zip]] group must have one length ({sizes})")
        group = dict(group)
        step_seeds = group.pop(ZIP_SEEDS, None)
        keys = tuple(group)
        values = tuple(zip(*group.values(), strict=True))
        if step_seeds is None:
            axes.append(Axis(keys, values))
            continue
        if seeds is not None:
            raise ConfigError(
                "'experiment.seeds' is both in [experiment] and in a [[zip]] group; keep one"
            )
        per_step = [_seeds(v, max_runs, where="in a [[zip]] group") for v in step_seeds]
        axes.append(Axis(keys, values, tuple(frozenset(s or ()) for s in per_step)))
        seeds = sorted(set().union(*(s or () for s in per_step)))

    runs = _count_runs(axes, seeds)
    if runs > max_runs:
        raise ConfigError(_too_many(runs, max_runs))

    seed_key = kind.seed_key
    if seeds is not None and (seed_key in fixed or any(seed_key in a.keys for a in axes)):
        raise ConfigError(
            f"'experiment.seeds' sets '{seed_key}'; remove '{seed_key}' from the tables"
        )

    # Validate keys and every value before expanding.
    present = set(fixed) | {k for a in axes for k in a.keys}
    if seeds is not None:
        present.add(seed_key)
    for key in sorted(present):
        kind.schema.check_key(kind.name, key)
    kind.schema.check_required(kind.name, present)
    for key, value in fixed.items():
        fixed[key] = _check(kind, key, value)
    axes = [
        Axis(
            a.keys,
            tuple(
                tuple(_check(kind, k, v) for k, v in zip(a.keys, step, strict=True))
                for step in a.values
            ),
            a.seeds,
        )
        for a in axes
    ]

    exp = Experiment(
        name=name,
        kind=kind.name,
        description=description,
        seeds=seeds,
        fixed=fixed,
        axes=axes,
        document=_plain_document(doc),
        text=text,
    )
    exp.runs = list(_expand(exp, seed_key))
    return exp


def _check(kind: kinds.Kind, key: str, value: Any) -> Any:
    _check_json(key, value)
    return kind.schema.check_value(kind.name, key, value)


def _check_json(key: str, value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"'{key}' = {value} is not valid: expected a finite number")
    if isinstance(value, list):
        for v in value:
            _check_json(key, v)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _check_json(f"{key}.{k}", v)
    elif not (value is None or isinstance(value, bool | int | float | str)):
        raise ConfigError(f"'{key}' = {value!r} is not valid: dates and times are not parameters")


def _too_many(runs: int, limit: int) -> str:
    return (
        f"the spec expands to {runs:,} runs, more than experiment.max_runs = {limit:,} "
        "(each run keeps a record of about a kilobyte): sweep fewer values or seeds, "
        "or raise experiment.max_runs"
    )


def _count_runs(axes: list[Axis], seeds: list[int] | None) -> int:
    seeded = [a for a in axes if a.seeds is not None]
    plain = math.prod(len(a.values) for a in axes if a.seeds is None)
    if seeded:
        return plain * sum(len(s) for s in seeded[0].seeds or ())
    return (len(seeds) if seeds is not None else 1) * plain


def _seeds(value: Any, max_runs: int, where: str = "") -> list[int] | None:
    name = f"'experiment.seeds'{' ' + where if where else ''}"
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ConfigError(f"{name} = {value} is not valid: expected N >= 1")
        if value > max_runs:
            raise ConfigError(_too_many(value, max_runs))
        return list(range(1, value + 1))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
    ):
        if len(set(value)) != len(value):
            raise ConfigError(f"{name} lists a seed twice")
        return list(value)
    raise ConfigError(
        f"{name} = {value!r} is not valid: expected a list of integers >= 0, or N for seeds 1..N"
    )


def _zip_groups(value: Any) -> list[dict[str, list[Any]]]:
    if value is None:
        return []
    groups = [value] if isinstance(value, Mapping) else value
    if not isinstance(groups, list) or not all(isinstance(g, Mapping) for g in groups):
        raise ConfigError("'zip' must be a table or [[zip]] tables of equal-length lists")
    out = []
    seen: set[str] = set()
    for group in groups:
        flat = flatten(group, dotted_keys=True)
        if len(flat) < 2:
            raise ConfigError("a [[zip]] group varies two or more keys together")
        for key, values in flat.items():
            if not isinstance(values, list) or not values:
                raise ConfigError(f"'{key}' in a [[zip]] group must be a non-empty list")
            if key in seen:
                raise ConfigError(f"'{key}' is in two [[zip]] groups")
            seen.add(key)
            if "." not in key:
                raise ConfigError(
                    f"'{key}' in a [[zip]] group needs its table, e.g. 'traffic.{key}'"
                )
        out.append(flat)
    return out


def _expand(exp: Experiment, seed_key: str) -> Iterator[Run]:
    seeds: list[int | None] = list(exp.seeds) if exp.seeds is not None else [None]
    seen: dict[str, int] = {}
    index = 0
    for seed in seeds:
        for steps in itertools.product(*(range(len(a.values)) for a in exp.axes)):
            if any(
                a.seeds is not None and seed not in a.seeds[i]
                for a, i in zip(exp.axes, steps, strict=True)
            ):
                continue
            flat = dict(exp.fixed)
            for axis, i in zip(exp.axes, steps, strict=True):
                flat.update(zip(axis.keys, axis.values[i], strict=True))
            if seed is not None:
                flat[seed_key] = seed
            flat = _substitute_seed(flat, flat.get(seed_key))
            flat = dict(sorted(flat.items()))
            key = run_key(exp.kind, flat)
            if key in seen:
                raise ConfigError(
                    f"runs {seen[key] + 1} and {index + 1} have the same parameters "
                    f"({_describe(flat, exp)}); remove the duplicate values"
                )
            seen[key] = index
            yield Run(key=key, index=index, kind=exp.kind, flat=flat)
            index += 1


def _substitute_seed(flat: dict[str, Any], seed: Any) -> dict[str, Any]:
    out = {}
    for key, value in flat.items():
        if isinstance(value, str) and "{seed}" in value:
            if seed is None:
                raise ConfigError(
                    f"'{key}' uses {{seed}} but the runs have no seed: add 'seeds' to [experiment]"
                )
            value = value.replace("{seed}", str(seed))
        out[key] = value
    return out


def _describe(flat: dict[str, Any], exp: Experiment) -> str:
    return ", ".join(f"{k}={flat[k]}" for k in exp.varying if k in flat)


# ---------------------------------------------------------------- keys


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_key(kind: str, flat: Mapping[str, Any]) -> str:
    """The stable key of a run: 16 hex digits of SHA-256 over its canonical JSON,
    without the kind's neutral keys (how a run is carried out, not what it
    measures)."""
    fields = kinds.get(kind).schema.fields if kind in kinds.KINDS else {}
    kept = {k: v for k, v in flat.items() if not (k in fields and fields[k].neutral)}
    text = canonical_json({"kind": kind, "params": unflatten(kept)})
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- dotted paths


def flatten(
    doc: Mapping[str, Any], prefix: str = "", *, dotted_keys: bool = False
) -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``; lists are values, not tables.
    With ``dotted_keys``, a quoted key such as ``"traffic.load"`` is a path too."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if "." in key and not dotted_keys:
            raise ConfigError(
                f"'{prefix + '.' if prefix else ''}{key}': write nested keys as tables or "
                "unquoted dotted keys, not as a quoted key containing dots"
            )
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, Mapping):
            if not value:
                raise ConfigError(f"'{path}' is an empty table")
            out.update(flatten(value, path, dotted_keys=dotted_keys))
        else:
            out[path] = value
    return out


def unflatten(flat: Mapping[str, Any]) -> dict[str, Any]:
    """``{"a.b": 1}`` -> ``{"a": {"b": 1}}``."""
    out: dict[str, Any] = {}
    for path, value in flat.items():
        node = out
        *heads, last = path.split(".")
        for head in heads:
            node = node.setdefault(head, {})
        node[last] = value
    return out


def _plain_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(doc, default=str))
