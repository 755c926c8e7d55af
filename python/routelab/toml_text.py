"""Writing plain TOML (tables, scalars, lists, inline tables) for specs built
as dicts; reading is tomllib's job."""

from __future__ import annotations

import json
from typing import Any


def literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {literal(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def dumps(doc: dict[str, Any]) -> str:
    """TOML text for a dict of top-level scalars and tables (one level of nesting
    as ``[table]`` headers; deeper dicts become inline tables)."""
    lines = [f"{_key(k)} = {literal(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for name, table in doc.items():
        if isinstance(table, dict):
            lines.append(f"\n[{_key(name)}]")
            lines.extend(f"{_key(k)} = {literal(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"
