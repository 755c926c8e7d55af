"""The HTML report of a study (``OUT/report.html``): its summary (the Markdown
rendered), every figure it drew, the published values beside the measured
ones, its CSV tables and the report of every sweep it ran (the subdirectories
of ``OUT`` holding a spec). One self-contained file: figures are inline,
tables sort on a click."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from routelab.experiment import published, report
from routelab.experiment.store import Store

MAX_ROWS = 200
FIGURE_SUFFIXES = (".png", ".svg")
# A summary line naming a figure: "- `fig4_lifetime.png`: average packet lifetime ..."
_CAPTION = re.compile(r"^\s*[-*]\s+`([^`]+)`\s*:\s*(.+?)\s*$")


def tables_section(tables: dict[str, pd.DataFrame]) -> str:
    """Every CSV table of the study, the first `MAX_ROWS` rows each."""
    parts = ['<h2 id="tables">Result tables</h2>']
    for name, df in tables.items():
        parts.append(f"<h3>{html.escape(name)}.csv</h3>")
        if len(df) > MAX_ROWS:
            parts.append(f"<p>The first {MAX_ROWS} of {len(df)} rows.</p>")
        parts.append(f'<div class="scroll">{report.html_table(df.head(MAX_ROWS))}</div>')
    return "\n".join(parts)


def figure_files(out: Path) -> list[Path]:
    """The figures the study wrote into ``out`` (not those of its sweeps)."""
    return sorted(p for p in out.iterdir() if p.suffix.lower() in FIGURE_SUFFIXES)


def captions(summary: str) -> dict[str, str]:
    """Figure captions from the summary's list of figures, by file name."""
    return {m[1]: m[2] for m in map(_CAPTION.match, summary.splitlines()) if m}


def figures_section(files: list[Path], summary: str) -> str:
    """Every figure, embedded, captioned from the summary where it says what it shows."""
    named = captions(summary)
    parts = ['<h2 id="figures">Figures</h2>']
    for path in files:
        text = named.get(path.name)
        caption = f"{path.name}: {_plain(text)}" if text else path.name
        parts.append(report.image_html(path, caption))
    if not files:
        parts.append('<p class="note">This study wrote no figure.</p>')
    return "\n".join(parts)


def _plain(markdown: str) -> str:
    """Caption text without Markdown's emphasis and code marks."""
    return re.sub(r"[`*_]", "", markdown)


def build(out: str | Path, paper: published.Paper, what: str = "study") -> str:
    """The report of the study whose outputs are in ``out``, beside ``paper``'s
    published values; ``what`` names it in the subtitle (``reproduction
    versaci2013``)."""
    out = Path(out)
    tables = published.read_tables(out)
    summary_path = out / "summary.md"
    summary = summary_path.read_text() if summary_path.is_file() else ""
    files = figure_files(out)
    dirs = sorted(p.parent for p in out.glob("*/spec.toml"))
    sweeps = [Store.open(d).experiment().name for d in dirs]

    contents = [("summary", "Summary")] if summary else []
    contents += [("figures", "Figures"), ("published", "Measured and published")]
    contents += [("tables", "Result tables")]
    contents += [(f"e{i}", f"sweep {n}") for i, n in enumerate(sweeps)]
    contents += [("software", "Software and machine")]
    nav = "".join(f'<li><a href="#{a}">{html.escape(t)}</a></li>' for a, t in contents)
    sections = [f"<nav><ul>{nav}</ul></nav>"]
    if summary:
        sections.append('<h2 id="summary">Summary</h2>')
        sections.append(report.markdown_html(summary, base=out))
    sections.append(figures_section(files, summary))
    joined = published.html_section(published.join(paper, tables), paper)
    sections.append(joined.replace("<h2>", '<h2 id="published">', 1))
    sections.append(tables_section(tables))

    def count(n: int, what: str) -> str:
        return f"{n} {what}{'' if n == 1 else 's'}"

    subtitle = " · ".join(
        [
            html.escape(what),
            count(len(tables), "table"),
            count(len(files), "figure"),
            count(len(sweeps), "sweep"),
            f"report written {datetime.now(UTC):%Y-%m-%d %H:%M UTC}",
        ]
    )
    return report.build(dirs, title=paper.title, sections=sections, subtitle=subtitle)


def write(out: str | Path, paper: published.Paper, what: str = "study") -> Path:
    """Writes ``out``/report.html (see `build`)."""
    path = Path(out) / "report.html"
    from routelab.experiment.store import atomic_write

    atomic_write(path, build(out, paper, what))
    return path
