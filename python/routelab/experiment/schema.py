"""Typed parameter keys of a run kind, and the checks that name the key at fault.

A schema maps dotted keys (``routing.max_lanes``) to `Field`\\ s. A closed
schema rejects keys it does not list; an open one (the packet simulator's, whose
own validation is the authority) checks the keys it lists and passes the others on.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from routelab._core import ConfigError

_TYPE_WORDS = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "floats": "a list of numbers",
}


@dataclass(frozen=True)
class Field:
    """One parameter: its type, whether it is required, its range or choices."""

    type: str
    help: str
    required: bool = False
    min: float | None = None
    max: float | None = None
    choices: Sequence[str] | Callable[[], Sequence[str]] | None = None
    #: How a run is carried out, not what it measures: its verdicts are the
    #: same either way, so the key leaves it out and a store or journal
    #: written with another value resumes.
    neutral: bool = False

    def expected(self) -> str:
        words = _TYPE_WORDS[self.type]
        choices = self.choice_list()
        if choices:
            return "one of " + ", ".join(choices)
        if self.min is not None and self.max is not None:
            return f"{words} in {_num(self.min)}..{_num(self.max)}"
        if self.min is not None:
            return f"{words} >= {_num(self.min)}"
        if self.max is not None:
            return f"{words} <= {_num(self.max)}"
        return words

    def choice_list(self) -> list[str]:
        if self.choices is None:
            return []
        return list(self.choices() if callable(self.choices) else self.choices)

    def check(self, key: str, value: Any) -> Any:
        """The value in its normal form (ints become floats for a float key);
        raises `ConfigError` naming ``key`` when it does not fit."""
        ok, normal = _coerce(self.type, value)
        if ok and self.type in ("int", "float"):
            ok = (self.min is None or normal >= self.min) and (
                self.max is None or normal <= self.max
            )
        if ok and self.type == "str":
            choices = self.choice_list()
            ok = not choices or normal in choices
        if not ok:
            raise ConfigError(
                f"'{key}' = {_show(value)} is not valid: expected {self.expected()} ({self.help})"
            )
        return normal


@dataclass(frozen=True)
class Schema:
    """The parameter keys of one run kind."""

    fields: Mapping[str, Field] = field(default_factory=dict)
    open: bool = False

    def check_key(self, kind: str, key: str) -> Field | None:
        """The field of ``key``; unknown keys of a closed schema are errors."""
        if key in self.fields:
            return self.fields[key]
        if self.open:
            return None
        valid = sorted(self.fields)
        close = difflib.get_close_matches(key, valid, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ConfigError(
            f"unknown key '{key}' for a '{kind}' experiment{hint}; valid keys: {', '.join(valid)}"
        )

    def check_value(self, kind: str, key: str, value: Any) -> Any:
        f = self.check_key(kind, key)
        return value if f is None else f.check(key, value)

    def check_required(self, kind: str, keys: set[str]) -> None:
        for key, f in self.fields.items():
            if f.required and key not in keys:
                raise ConfigError(f"'{key}' is required for a '{kind}' experiment: {f.help}")


def _coerce(kind: str, value: Any) -> tuple[bool, Any]:
    if kind == "bool":
        return isinstance(value, bool), value
    if kind == "str":
        return isinstance(value, str), value
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool), value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False, value
        return math.isfinite(value), float(value)
    if kind == "floats":
        if not isinstance(value, list):
            return False, value
        numbers = [_coerce("float", v) for v in value]
        return all(ok for ok, _ in numbers), [v for _, v in numbers]
    raise ValueError(f"unknown field type {kind}")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _show(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)
