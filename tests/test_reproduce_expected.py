"""Published values of the reproductions (papers/*.toml), their join onto
measured tables, the spec-driven bandwidth sweep of domke2011 and the
reproduction report."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

import routelab
from routelab import reproduce
from routelab.experiment import published as expected
from routelab.experiment import study_report
from routelab.reproduce import domke2011

DOC = {
    "paper": {"title": "A paper"},
    "expected": [
        {"table": "t", "metric": "gamma", "router": "abr", "k": 8, "value": 0.3},
        {"table": "t", "metric": "gamma", "router": "ofr", "k": 8, "value": 0.6},
        {"table": "t", "metric": "lanes", "router": "ofr", "k": 16, "range": [3, 5]},
        {"table": "t", "metric": "gamma", "router": "por", "k": 8, "value": 0.5},
        {
            "table": "t",
            "metric": "gamma",
            "router": "abr",
            "value": 1.0,
            "aggregate": "max",
        },
    ],
}


def test_join_lines_each_measured_value_up_with_its_published_value() -> None:
    paper = expected.parse(DOC, "test")
    measured = pd.DataFrame(
        {
            "router": ["abr", "ofr", "abr", "ofr", "ofr"],
            "k": [8, 8, 16, 16, 16],
            "gamma": [0.35, 0.55, 0.9, 0.7, 0.8],
            "lanes": [1, 2, 3, 7, 9],
        }
    )
    joined = expected.join(paper, {"t": measured})
    assert list(joined.columns) == list(expected.COLUMNS)
    rows = joined.to_dict("records")
    assert rows[0]["measurement"] == "router=abr, k=8"
    assert rows[0]["measured"] == pytest.approx(0.35)
    assert rows[0]["difference"] == pytest.approx(0.05)
    assert rows[1]["measured"] == pytest.approx(0.55)
    assert rows[1]["difference"] == pytest.approx(-0.05)
    # mean of the two ofr k=16 rows, 8 lanes: 3 above the published 3-5
    assert (rows[2]["published"], rows[2]["rows"]) == ("3-5", 2)
    assert rows[2]["measured"] == pytest.approx(8.0)
    assert rows[2]["difference"] == pytest.approx(3.0)
    # nothing measured for por
    assert rows[3]["rows"] == 0 and math.isnan(rows[3]["measured"])
    assert math.isnan(rows[3]["difference"])
    # max over every abr row
    assert rows[4]["measured"] == pytest.approx(0.9)
    assert rows[4]["metric"] == "gamma (max)"


def test_a_measurement_inside_a_published_range_differs_by_nothing() -> None:
    e = expected.parse(DOC, "test").values[2]
    assert [e.difference(x) for x in (2.0, 3.0, 4.5, 5.0, 6.5)] == [-1.0, 0.0, 0.0, 0.0, 1.5]


def test_bad_entries_are_refused() -> None:
    for entry, message in (
        ({"metric": "m", "value": 1}, "'table'"),
        ({"table": "t", "metric": "m"}, "one of 'value' or 'range'"),
        ({"table": "t", "metric": "m", "value": 1, "range": [1, 2]}, "one of"),
        ({"table": "t", "metric": "m", "range": [3, 1]}, r"\[low, high\]"),
        ({"table": "t", "metric": "m", "value": 1, "aggregate": "sum"}, "aggregate"),
    ):
        with pytest.raises(routelab.ConfigError, match=message):
            expected.parse({"expected": [entry]}, "test")
    with pytest.raises(routelab.ConfigError, match="no published values"):
        reproduce.published("nope")


def test_every_reproduction_has_its_published_values() -> None:
    for name in reproduce.names():
        paper = reproduce.published(name)
        assert paper.values, name
    from routelab.reproduce import parker, versaci2013

    assert versaci2013.paper.PAPER_TABLE2[("butterfly", "ofr", 16)] == 0.75
    assert len(versaci2013.paper.PAPER_TABLE2) == 30
    assert versaci2013.paper.PAPER_TABLE3["rotate3d"] == (0.32, 0.20, 0.52, 0.53)
    assert domke2011.PAPER_HEURISTIC_RANGES["weakest"] == (3, 5)
    assert domke2011.PAPER_DFSSSP_SECONDS_4096 == 170.0
    assert (parker.PAPER_DOR_MAX_GBYTES, parker.PAPER_RDR_MAX_GBYTES) == (2.0, 4.0)


def test_the_bandwidth_grid_is_a_resumable_sweep(tmp_path: Path, monkeypatch) -> None:
    # The spec files cut to the 64-endpoint networks and 5 patterns.
    import tomllib

    from routelab.experiment import spec as specs

    def small(cfg):
        out = {}
        for sub in domke2011.EBB_SPECS:
            doc = tomllib.loads((domke2011.SPECS / f"{sub}.toml").read_text())
            doc.pop("variants")
            doc["network"]["topology"] = [t for t in doc["network"]["topology"] if "=64" in t]
            doc["ebb"]["patterns"] = 5
            doc["experiment"]["name"] += "-small"
            out[sub] = specs.from_document(doc)
        return out

    monkeypatch.setattr(domke2011, "ebb_experiments", small)
    cfg = domke2011.config(tiny=True)
    first = domke2011.sweep_ebb(cfg, tmp_path)
    # 3 networks of 64 endpoints: 7 engines each, and multipath beside
    assert [(o.total, o.ran, o.skipped) for o in first] == [(21, 21, 0), (3, 3, 0)]
    assert (tmp_path / "ebb" / "spec.toml").is_file()
    assert (tmp_path / "ebb-multipath" / "spec.toml").is_file()
    second = domke2011.sweep_ebb(cfg, tmp_path)
    assert [(o.total, o.ran, o.skipped) for o in second] == [(21, 0, 21), (3, 0, 3)]
    rows = domke2011._ebb_rows(tmp_path, cfg)
    assert len(rows) == 24
    ok = [r for r in rows if r["status"] == "ok"]
    assert {r["engine"] for r in ok} >= {"minhop", "sssp", "dfsssp", "dmodk", "multipath"}
    assert all(0 < r["ebb_min"] <= r["ebb_avg"] <= r["ebb_max"] <= 1 for r in ok)
    # DOR routes tori only: recorded as failed, with the engine's reason
    assert all(r["status"] == "failed" and r["error"] for r in rows if r["engine"] == "dor")


def test_the_full_mode_runs_the_spec_files_unchanged() -> None:
    exps = domke2011.ebb_experiments(domke2011.config())
    assert exps["ebb"].name == "domke2011-ebb" and len(exps["ebb"].runs) == 7 * 21
    assert "Figures 5 and 6" in exps["ebb"].text
    assert len(exps["ebb-multipath"].runs) == 15  # up to 1,024 endpoints
    quick = domke2011.ebb_experiments(domke2011.config(quick=True))
    assert quick["ebb"].name == "domke2011-ebb-quick" and len(quick["ebb"].runs) == 7 * 15
    assert {r.flat["ebb.patterns"] for r in quick["ebb"].runs} == {300}
    tiny = domke2011.ebb_experiments(domke2011.config(tiny=True))
    ends = {
        sub: {int(t.split("=")[-1]) for t in e.axes[0].values for t in t} for sub, e in tiny.items()
    }
    assert max(ends["ebb"]) == 512 and max(ends["ebb-multipath"]) == 256


def test_the_report_of_a_reproduction_without_sweeps(tmp_path: Path) -> None:
    pd.DataFrame(
        {
            "router": ["dor", "dor", "rdr"],
            "active": [8, 16, 8],
            "bandwidth_max_gbytes": [1.5, 2.5, 3.0],
        }
    ).to_csv(tmp_path / "stats.csv", index=False)
    (tmp_path / "summary.md").write_text("# parker\n\nMeasured <b>here</b>.\n")
    text = study_report.build(tmp_path, reproduce.published("parker"), "reproduction parker")
    assert '<h2 id="published">Measured and published</h2>' in text
    assert "Parker, Kapoor, Raicu" in text
    # DOR's largest bandwidth, 2.5 GB/s, is 0.5 above the published 0-2
    assert re.search(r"<td[^>]*>0-2</td><td>2\.5</td><td>0\.5</td>", text)
    assert re.search(r"<td[^>]*>4</td><td>3</td><td>-1</td>", text)
    assert "<h3>stats.csv</h3>" in text
    # the summary is rendered, raw HTML in it escaped, its title left to the page's
    assert "<p>Measured &lt;b&gt;here&lt;/b&gt;.</p>" in text and "# parker" not in text
    assert "0 sweeps" in text and "0 experiments" not in text
