"""The HTML report of a reproduction (``OUT/report.html``): the paper's published
values beside the measured ones, the reproduction's tables and summary, and the
report of every sweep it ran (the subdirectories of ``OUT`` holding a spec)."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from routelab.experiment import report
from routelab.reproduce import expected

MAX_ROWS = 200


def tables_section(tables: dict[str, pd.DataFrame]) -> str:
    """Every CSV table of the reproduction, the first :data:`MAX_ROWS` rows each."""
    parts = ["<h2>Result tables</h2>"]
    for name, df in tables.items():
        parts.append(f"<h3>{html.escape(name)}.csv</h3>")
        if len(df) > MAX_ROWS:
            parts.append(f"<p>The first {MAX_ROWS} of {len(df)} rows.</p>")
        parts.append(f'<div class="scroll">{report.html_table(df.head(MAX_ROWS))}</div>')
    return "\n".join(parts)


def build(name: str, out: str | Path) -> str:
    """The report of reproduction ``name`` whose results are in ``out``."""
    out = Path(out)
    paper = expected.load(name)
    tables = expected.read_tables(out)
    sections = [expected.html_section(expected.join(paper, tables), paper)]
    summary = out / "summary.md"
    if summary.is_file():
        sections.append(f"<h2>Summary</h2><pre>{html.escape(summary.read_text())}</pre>")
    sections.append(tables_section(tables))
    dirs = sorted(p.parent for p in out.glob("*/spec.toml"))
    return report.build(dirs, title=paper.title, sections=sections)


def write(name: str, out: str | Path) -> Path:
    """Writes ``out``/report.html for reproduction ``name``."""
    path = Path(out) / "report.html"
    from routelab.experiment.store import atomic_write

    atomic_write(path, build(name, out))
    return path
