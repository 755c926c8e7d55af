"""A self-contained HTML report of an experiment: the standard figures as
inline SVG, the run table, failed runs with their errors, the spec, and the
software and machine it ran on. Images are inline (SVG or base64 PNG) and the
one script (sortable tables) is inline: the page opens in any browser without
network access, and reads the same with scripts off."""

from __future__ import annotations

import base64
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
th { background: #f4f4f6; position: sticky; top: 0; cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; font-size: .75em; }
th[aria-sort=descending]::after { content: " \\25BC"; font-size: .75em; }
figure img { max-width: 100%; height: auto; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .2em 1.4em; }
.md td:first-child, .md th:first-child { text-align: left; }
td.s, th.s { text-align: left; }
tr.failed td { background: #fff0f0; }
pre { background: #f6f6f8; padding: .8em; overflow-x: auto; font-size: .85em; }
.scroll { max-height: 32em; max-width: 100%; overflow: auto; }
.md table { margin: .8em 0; } .md code { background: #f4f4f6; padding: 0 .2em; }
.note { color: #a33; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { font-weight: 600; } dd { margin: 0; }
"""


# Click (or Enter on) a column header to sort by it; again to reverse. Cells that
# read as numbers ("0.70 (0.30)", "+50%") sort by that number, blanks and "-" last.
SORT_SCRIPT = """
(function () {
  var NUM = /^[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?(%|\\s*\\(.*\\))?$/i;
  function blank(k) { return k === "" || k === "-"; }
  function sortBy(table, th, col) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var keys = rows.map(function (r) {
      var c = r.cells[col];
      return c ? c.textContent.trim() : "";
    });
    var numeric = keys.every(function (k) { return blank(k) || NUM.test(k); });
    var order = rows.map(function (r, i) { return i; });
    order.sort(function (a, b) {
      var x = keys[a], y = keys[b];
      if (blank(x) || blank(y)) { return blank(x) === blank(y) ? a - b : (blank(x) ? 1 : -1); }
      var d = numeric ? parseFloat(x) - parseFloat(y)
                      : x.localeCompare(y, undefined, {numeric: true});
      return (asc ? d : -d) || a - b;
    });
    order.forEach(function (i) { body.appendChild(rows[i]); });
    Array.prototype.forEach.call(th.parentNode.cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = "sort by this column";
      th.addEventListener("click", function () { sortBy(table, th, col); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, col); }
      });
    });
  });
})();
"""


def svg_of(fig: Any, prefix: str) -> str:
    """A matplotlib figure as an inline ``<svg>`` element whose ids carry
    ``prefix``, so several figures can share one page."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return svg_of_text(text[text.index("<svg") :], prefix)


def image_html(path: Path, caption: str) -> str:
    """A figure file as a ``<figure>`` of the page: SVG inline, PNG (or any other
    image) as a base64 data URI, so the page needs no other file."""
    if path.suffix.lower() == ".svg":
        text = path.read_text()
        body = svg_of_text(text[text.index("<svg") :], f"img-{_slug(path.stem)}")
    else:
        mime = "image/png" if path.suffix.lower() == ".png" else f"image/{path.suffix[1:].lower()}"
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        body = f'<img alt="{html.escape(caption)}" src="data:{mime};base64,{data}">'
    return f"<figure>{body}<figcaption>{html.escape(caption)}</figcaption></figure>"


def svg_of_text(text: str, prefix: str) -> str:
    """SVG text with its ids (and the references to them) prefixed."""
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    return re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', text)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-") or "x"


def markdown_html(text: str, base: Path | None = None, shift: int = 1) -> str:
    """Markdown (CommonMark with GitHub tables) as HTML for the page: a leading
    ``# title`` is dropped (the page has its own), other headings move ``shift``
    levels down, raw HTML is escaped, and images relative to ``base`` are
    inlined as data URIs."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    tokens = md.parse(text)
    if len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        tokens = tokens[3:]
    for tok in tokens:
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{min(6, int(tok.tag[1]) + shift)}"
        for child in tok.children or []:
            src = child.attrGet("src") if child.type == "image" else None
            if base is not None and isinstance(src, str) and not re.match(r"^[a-z]+:", src):
                path = base / src
                if path.is_file():
                    kind = "svg+xml" if path.suffix.lower() == ".svg" else path.suffix[1:].lower()
                    data = base64.b64encode(path.read_bytes()).decode("ascii")
                    child.attrSet("src", f"data:image/{kind};base64,{data}")
    return f'<div class="md">{md.renderer.render(tokens, md.options, {})}</div>'


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
    subtitle: str | None = None,
) -> str:
    """The report of the experiment in ``directory`` as one HTML document; with
    several directories, one section per experiment under ``title``.
    ``sections`` are HTML fragments put before the experiments (a reproduction's
    measured and published values, say); with them the page is titled ``title``
    whatever the number of experiments, and ``subtitle`` (HTML) replaces the
    count of experiments under it."""
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
        if subtitle is None:
            count = f"{len(stores)} experiment{'' if len(stores) == 1 else 's'}"
            subtitle = f"{count} · report written {datetime.now(UTC):%Y-%m-%d %H:%M UTC}"
        parts.append(f'<p class="sub">{subtitle}</p>')
    parts.extend(sections)
    runs = []
    for i, store in enumerate(stores):
        section, df = _section(store, top=1 if single else 2, prefix=f"e{i}")
        parts.extend(section)
        runs.append(df)
    parts.append('<h2 id="software">Software and machine</h2>')
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
    parts.append(f"<script>{SORT_SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _section(store: Store, top: int, prefix: str) -> tuple[list[str], pd.DataFrame]:
    """One experiment: summary, figures, runs, failures, spec. ``top`` is the
    heading level of its title."""
    exp = store.experiment()
    df = store.table()
    ok = df[df["status"].isin(kinds.FINISHED)].reset_index(drop=True)
    failed = df[df["status"].isin(("failed", "deadlock"))].reset_index(drop=True)
    pending = len(exp.runs) - len(df)
    e = html.escape
    h, sub = f"h{top}", f"h{top + 1}"
    parts = [
        f'<{h} id="{prefix}">{e(exp.name)}</{h}>',
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
        ("of which deadlocked", str(int((df["status"] == "deadlock").sum()))),
        ("failed", str(int((df["status"] == "failed").sum()))),
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
        # What varies and what was measured first; the shared parameters
        # are in the spec below.
        shown, _ = plot.reading_order(shown)
        if len(shown) > MAX_TABLE_ROWS:
            parts.append(
                f"<p>The first {MAX_TABLE_ROWS} of {len(shown)} runs; all of them are in "
                "runs.parquet.</p>"
            )
            shown = shown.head(MAX_TABLE_ROWS)
        classes = ["failed" if s in ("failed", "deadlock") else "" for s in shown["status"]]
        parts.append(f'<div class="scroll">{html_table(shown, classes)}</div>')
    else:
        parts.append("<p>No run has finished yet.</p>")

    if len(failed):
        parts.append(f"<{sub}>Failed and deadlocked runs</{sub}>")
        for row in failed.to_dict("records"):
            params = ", ".join(f"{c}={row[c]}" for c in exp.varying if c in row)
            parts.append(
                f"<p><b>{e(str(row['key']))}</b> ({e(str(row['status']))}) {e(params)}</p>"
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
    subtitle: str | None = None,
) -> Path:
    """Writes the report of ``directory`` (or of several) to ``out`` (atomically)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, build(directory, title, sections, subtitle))
    return out
