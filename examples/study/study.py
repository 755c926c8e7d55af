"""A study in the shape of routelab's reproductions: a folder of experiment
specs (``heuristics.toml``), the published values they are compared with
(``published.toml``), the summary's words (``summary.md.j2``) and this module,
which turns the run tables into a table, a figure and the summary. Sweeps
resume, run on all cores and show progress: ``routelab.sweep`` does that.

    python examples/study/study.py OUT [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path
from statistics import fmean

from routelab.experiment import published, study, study_report

HERE = Path(__file__).parent
HEURISTICS = ("weakest", "first", "heaviest", "online")


def run(out: Path, mode: str = "full", workers: int = 2, progress: bool = True) -> Path:
    """Runs (or resumes) the study into ``out``; returns its ``summary.md``."""
    paper = published.load(HERE / "published.toml")
    runs = study.sweep_specs(HERE, ["heuristics"], mode, out, workers, progress, ("ok", "failed"))
    rows = [
        {"heuristic": r["routing.heuristic"], "seed": r["routing.seed"], "status": r["status"]}
        | {k: r[k] if r["status"] == "ok" else "" for k in ("lanes_needed", "deadlock_free")}
        for r in runs["heuristics"].to_dict("records")
    ]
    study.write_csv(out / "heuristics.csv", None, rows)

    fig = study.figure(6.0, 3.6)
    ax, table = fig.add_subplot(), []
    for i, h in enumerate(HEURISTICS):
        lanes = [r["lanes_needed"] for r in rows if r["heuristic"] == h and r["lanes_needed"] != ""]
        ax.scatter([i] * len(lanes), lanes, alpha=0.4, label=None)
        ranges = [e for e in paper.values if e.keys == {"heuristic": h}]
        paper_range = f"{ranges[0].low:g}-{ranges[0].high:g}" if ranges else "-"
        if ranges:
            ax.vlines(i + 0.15, ranges[0].low, ranges[0].high, color="tab:green", lw=4)
        stats = " / ".join(study.fmt(f(lanes), 1) for f in (min, fmean, max)) if lanes else "-"
        failed = sum(r["status"] != "ok" for r in rows if r["heuristic"] == h)
        table.append([h, stats, paper_range, failed])
    ax.set_xticks(range(len(HEURISTICS)), HEURISTICS)
    ax.set(ylabel="virtual lanes needed", title="dots: measured; green bars: the paper's range")
    study.save_figure(fig, out / "lanes.png")

    text = study.summary(HERE, rows=table, networks=len({r["seed"] for r in rows}), mode=mode)
    (out / "summary.md").write_text(text)
    study_report.write(out, paper)
    return out / "summary.md"


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    target = Path(next((a for a in sys.argv[1:] if not a.startswith("--")), "results/study"))
    print(run(target, "quick" if quick else "full").read_text())
