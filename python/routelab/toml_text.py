"""Writing plain TOML (tables, scalars, lists, inline tables) for specs built
as dicts, and reading a TOML file's text; parsing is tomllib's job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from routelab._core import ConfigError


def read(path: str | Path) -> str:
    """The text of a TOML file. TOML is UTF-8: other bytes are a ConfigError
    naming the line, the column and the byte offset (OSError passes)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ConfigError(
            f"{path} is not UTF-8 text: byte 0x{data[e.start]:02x} at line {line}, "
            f"column {column} (byte offset {e.start}); save the file as UTF-8"
        ) from None


def string(s: str) -> str:
    """A TOML basic string. JSON's escapes are TOML's, except that JSON writes
    characters beyond U+FFFF as surrogate pairs, which TOML refuses, and leaves
    DEL raw, which TOML wants escaped."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {literal(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else string(k)


def dumps(doc: dict[str, Any]) -> str:
    """TOML text for a dict of top-level scalars and tables (one level of nesting
    as ``[table]`` headers; deeper dicts become inline tables)."""
    lines = [f"{_key(k)} = {literal(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for name, table in doc.items():
        if isinstance(table, dict):
            lines.append(f"\n[{_key(name)}]")
            lines.extend(f"{_key(k)} = {literal(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"
