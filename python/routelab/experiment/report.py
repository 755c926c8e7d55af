"""A self-contained HTML report of an experiment: the standard figures as
inline SVG, the run table, failed runs with their errors, the spec, and the
software and machine it ran on. No scripts, no external files: it opens in any
browser without network access."""

from __future__ import annotations

import contextlib
import html
import io
import os
import platform
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

import routelab
from routelab.experiment import kinds, plot
from routelab.experiment.store import Store, atomic_write

MAX_TABLE_ROWS = 2000

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.7em; margin-bottom: .2em; }
h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
.sub { color: #666; margin-top: 0; }
figure { margin: 1.2em 0; } figcaption { color: #555; font-size: .9em; }
figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: right; vertical-align: top; }
td.s { white-space: nowrap; }
td.long { white-space: normal; overflow-wrap: anywhere; min-width: 18em; }
pre.error { white-space: pre-wrap; }
th { background: #f4f4f6; position: sticky; top: 0; }
td.s, th.s { text-align: left; }
tr.failed td { background: #fff0f0; }
pre { background: #f6f6f8; padding: .8em; overflow-x: auto; font-size: .85em; }
.scroll { max-height: 32em; overflow: auto; }
.note { color: #a33; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
"""


def svg_of(fig: Any, prefix: str) -> str:
    """A matplotlib figure as an inline ``<svg>`` element whose ids carry
    ``prefix``, so several figures can share one page."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', text)
    return text


def environment() -> list[tuple[str, str]]:
    """Software versions and the machine."""
    rows = [
        ("routelab", routelab.__version__),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("platform", platform.platform()),
        ("machine", platform.machine()),
        ("CPU", _cpu_model()),
        ("cores", str(os.cpu_count())),
        ("memory", _memory()),
        ("host", platform.node()),
    ]
    for pkg in ("numpy", "pandas", "pyarrow", "dask", "distributed", "matplotlib"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            rows.append((pkg, metadata.version(pkg)))
    return rows


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024**2:.1f} GiB"
    except (OSError, ValueError):
        pass
    return "unknown"


def _cell(value: Any) -> tuple[str, bool]:
    """Cell text and whether it is text (left-aligned)."""
    if value is None or (isinstance(value, float) and value != value):
        return "", False
    if isinstance(value, bool):
        return ("yes" if value else "no"), True
    if isinstance(value, float):
        return f"{value:.4g}", False
    if isinstance(value, int):
        return str(value), False
    return str(value), True


def html_table(df: pd.DataFrame, row_class: list[str] | None = None) -> str:
    head = "".join(
        f'<th class="{"s" if not plot._numeric(df[c]) else ""}">{html.escape(str(c))}</th>'
        for c in df.columns
    )
    body = []
    for i, row in enumerate(df.itertuples(index=False)):
        cls = f' class="{row_class[i]}"' if row_class and row_class[i] else ""
        cells = []
        for value in row:
            text, left = _cell(value)
            td = (" class=long" if len(text) > 40 else " class=s") if left else ""
            cells.append(f"<td{td}>{html.escape(text)}</td>")
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def build(
    directory: str | Path | Sequence[str | Path],
    title: str | None = None,
    sections: Sequence[str] = (),
) -> str:
    """The report of the experiment in ``directory`` as one HTML document; with
    several directories, one section per experiment under ``title``.
    ``sections`` are HTML fragments put before the experiments (a reproduction's
    measured and published values, say); with them the page is titled ``title``
    whatever the number of experiments."""
    dirs = [directory] if isinstance(directory, str | Path) else list(directory)
    stores = [Store.open(d) for d in dirs]
    single = len(stores) == 1 and not sections
    name = stores[0].experiment().name if single else (title or "routelab report")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(name)} · routelab report</title>",
        f"<style>{_CSS}</style></head><body>",
    ]
    if not single:
        parts.append(f"<h1>{html.escape(name)}</h1>")
        parts.append(
            f'<p class="sub">{len(stores)} experiments · report written '
            f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}</p>"
        )
    parts.extend(sections)
    runs = []
    for i, store in enumerate(stores):
        section, df = _section(store, top=1 if single else 2, prefix=f"e{i}")
        parts.extend(section)
        runs.append(df)
    parts.append("<h2>Software and machine</h2>")
    df = pd.concat(runs) if runs else pd.DataFrame()
    versions = sorted({str(v) for v in df.get("routelab_version", pd.Series()).dropna()})
    env = environment()
    if versions:
        env.insert(1, ("routelab of the runs", ", ".join(versions)))
    hosts = sorted({str(v) for v in df.get("host", pd.Series()).dropna()})
    if hosts:
        env.append(("hosts of the runs", ", ".join(hosts[:20])))
    env.append(("Python executable", sys.executable))
    parts.append(_dl(env))
    parts.append("</body></html>")
    return "\n".join(parts)


def _section(store: Store, top: int, prefix: str) -> tuple[list[str], pd.DataFrame]:
    """One experiment: summary, figures, runs, failures, spec. ``top`` is the
    heading level of its title."""
    exp = store.experiment()
    df = store.table()
    ok = df[df["status"].isin(kinds.MEASURED)].reset_index(drop=True)
    failed = df[df["status"] == "failed"].reset_index(drop=True)
    pending = len(exp.runs) - len(df)
    e = html.escape
    h, sub = f"h{top}", f"h{top + 1}"
    parts = [
        f"<{h}>{e(exp.name)}</{h}>",
        f'<p class="sub">routelab {e(exp.kind)} experiment · report written '
        f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}</p>",
    ]
    if exp.description:
        parts.append(f"<p>{e(exp.description)}</p>")
    wall = float(df["wall_seconds"].fillna(0).sum()) if len(df) else 0.0
    summary = [
        ("runs in the spec", str(len(exp.runs))),
        ("finished", str(len(ok))),
        ("of which did not drain", str(int((df["status"] == "undrained").sum()))),
        ("failed", str(len(failed))),
        ("not run yet", str(pending)),
        ("run time (sum)", f"{wall:.3g} s"),
        ("parameters that vary", ", ".join(exp.varying) or "none"),
    ]
    parts.append(_dl(summary))

    parts.append(f"<{sub}>Figures</{sub}>")
    figures = _figures(store, ok, prefix)
    parts.extend(figures or ['<p class="note">No finished runs to plot.</p>'])

    parts.append(f"<{sub}>Runs</{sub}>")
    if len(df):
        shown = df.drop(
            columns=[c for c in plot.BOOKKEEPING if c in df.columns and c not in ("key", "status")]
        )
        shown = shown.assign(wall_seconds=df["wall_seconds"])
        if len(shown) > MAX_TABLE_ROWS:
            parts.append(
                f"<p>The first {MAX_TABLE_ROWS} of {len(shown)} runs; all of them are in "
                "runs.parquet.</p>"
            )
            shown = shown.head(MAX_TABLE_ROWS)
        classes = ["failed" if s == "failed" else "" for s in shown["status"]]
        parts.append(f'<div class="scroll">{html_table(shown, classes)}</div>')
    else:
        parts.append("<p>No run has finished yet.</p>")

    if len(failed):
        parts.append(f"<{sub}>Failed runs</{sub}>")
        for row in failed.to_dict("records"):
            params = ", ".join(f"{c}={row[c]}" for c in exp.varying if c in row)
            parts.append(
                f"<p><b>{e(str(row['key']))}</b> {e(params)}</p>"
                f'<pre class="error">{e(str(row["error"]))}</pre>'
            )

    parts.append(f"<{sub}>Spec</{sub}>")
    parts.append(f"<pre>{e(store.spec_text)}</pre>")
    return parts, df


def _dl(rows: list[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in rows)
    return f"<dl>{items}</dl>"


def _figures(store: Store, ok: pd.DataFrame, prefix: str = "f") -> list[str]:
    if not len(ok):
        return []
    out = []
    for i, spec in enumerate(plot.standard_specs(ok, store)):
        try:
            fig = plot.figure(plot.table_for(store, ok, spec), spec, store)
            svg = svg_of(fig, f"{prefix}f{i}")
        except routelab.RoutelabError as err:
            out.append(f'<p class="note">Figure {html.escape(spec.file_name())}: {err}</p>')
            continue
        caption = html.escape(spec.title or spec.file_name())
        out.append(f"<figure>{svg}<figcaption>{caption}</figcaption></figure>")
    return out


def write_report(
    directory: str | Path | Sequence[str | Path],
    out: str | Path,
    title: str | None = None,
    sections: Sequence[str] = (),
) -> Path:
    """Writes the report of ``directory`` (or of several) to ``out`` (atomically)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, build(directory, title, sections))
    return out
