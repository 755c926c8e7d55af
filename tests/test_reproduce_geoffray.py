"""The geoffray2008 reproduction on a tiny Clos of 8-port crossbars: every
output is written, the published values are joined, and the numbers obey the
physics (no scheme beats one pair alone; probing beats static routes)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

import routelab
from routelab.experiment import published as expected
from routelab.reproduce import geoffray2008, published


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("geoffray2008")
    assert geoffray2008.run(out, tiny=True, progress=False) == out / "summary.md"
    return out


def test_every_output_is_written(out: Path) -> None:
    for name in (
        "bisect.csv",
        "bridge.csv",
        "stats.csv",
        "bridge_stats.csv",
        "params.csv",
        "flow.csv",
        "baseline.csv",
        "hosts.csv",
        "fig2_static.png",
        "fig3_random.png",
        "fig4_adaptive.png",
        "fig5_probing.png",
        "fig6_all.png",
        "fig7_bridge.png",
        "params.png",
        "summary.md",
        "run.json",
    ):
        assert (out / name).stat().st_size > 0, name
    text = (out / "summary.md").read_text()
    assert "Fig. 7" in text and "Flow level against packet level" in text


def _sizes(out: Path, part: str) -> set[int]:
    df = routelab.results(out / part)
    return {geoffray2008.hosts_of(t) for t in df["network.topology"]}


def test_no_scheme_beats_one_pair_and_every_pattern_ran(out: Path) -> None:
    rows = _rows(out / "bisect.csv")
    assert {(r["scheme"], int(r["hosts"])) for r in rows} == {
        (s, h) for s in geoffray2008.SCHEMES for h in (8, 16)
    }
    for r in rows:
        # No host sends faster than it hands its NIC data (the pair rate);
        # a pair on one leaf may beat the baseline pair (on two leaves) by
        # its shorter latency only.
        rate = float(geoffray2008.PAPER_PAIR_BANDWIDTH.removesuffix("Gb/s"))
        assert float(r["bw_max_gbps"]) <= rate + 1e-9, r
        assert 0 < float(r["norm"]) <= 1.005, r
        assert float(r["bw_min_gbps"]) <= float(r["bw_mean_gbps"]) <= float(r["bw_max_gbps"])
    # Static routes never move; probing does, and only after probing.
    for r in rows:
        if r["scheme"] == "static":
            assert r["dispersions"] == r["probes"] == "0", r


def test_host_models_hold_every_pair_to_their_rates_on_the_same_patterns(out: Path) -> None:
    # The paper's pair moves 1090 MiB/s. Hosts that send or receive (or
    # both) at that rate hold one pair to it and no more; ideal hosts fill
    # the link. Every model ran every scheme on the same bisections and
    # bridge, each normalised by its own pair, never above it.
    run = json.loads((out / "run.json").read_text())
    rate = float(geoffray2008.PAPER_PAIR_BANDWIDTH.removesuffix("Gb/s"))
    assert rate == pytest.approx(1090 * 2**20 * 8 / 1e9, rel=1e-4)
    bases = run["baseline_gbps_per_host_model"]
    assert set(bases) == set(geoffray2008.HOST_MODELS)
    assert bases["ideal"] > 0.98 * 10
    for model in ("send", "receive", "both"):
        assert 0.95 * rate < bases[model] <= rate, (model, bases)
    assert run["baseline_gbps"] == bases[geoffray2008.MAIN_HOSTS]
    rows = _rows(out / "hosts.csv")
    assert {(r["pattern"], r["scheme"]) for r in rows} == {
        (p, s) for p in ("bridge", "bisect") for s in geoffray2008.SCHEMES
    }
    assert {int(r["hosts"]) for r in rows} == _sizes(out, "hosts") == {16}
    for r in rows:
        for model in geoffray2008.HOST_MODELS:
            assert 0 < float(r[model]) <= 1.005, (model, r)
    assert "What the hosts move: four models" in (out / "summary.md").read_text()


def test_probing_beats_static_and_schemes_share_the_patterns(out: Path) -> None:
    rows = _rows(out / "bisect.csv")
    by = {}
    for r in rows:
        by.setdefault((r["hosts"], r["seed"]), {})[r["scheme"]] = float(r["norm"])
    for key, schemes in by.items():
        assert set(schemes) == set(geoffray2008.SCHEMES), key
    stats = {(r["scheme"], int(r["hosts"])): r for r in _rows(out / "stats.csv")}
    biggest = max(_sizes(out, "bisect"))
    assert float(stats[("probing", biggest)]["norm_avg"]) > float(
        stats[("static", biggest)]["norm_avg"]
    )


def test_flow_level_is_an_upper_estimate_of_dmodk_pattern_by_pattern(out: Path) -> None:
    # Packet level adds head-of-line blocking to the link sharing the fluid
    # model counts. The flow level binds pattern i with seed 1 + i, the
    # bisection the simulation with run.seed 1 + i draws: on the same pairs,
    # D-mod-k's simulated bandwidth is never above its fluid share (plus the
    # host rate's rounding).
    flow = routelab.results(out / "flow", artefacts=["per_pattern"])
    sims = [r for r in _rows(out / "bisect.csv") if r["scheme"] == "dmodk"]
    assert sims
    for r in sims:
        f = flow[
            (flow["routing.algorithm"] == "dmodk")
            & (flow["network.topology"].map(geoffray2008.hosts_of) == int(r["hosts"]))
        ]
        share = f["per_pattern"].iloc[0][int(r["seed"]) - 1]
        assert float(r["norm"]) <= share + 0.02, (r, share)
    for _, f in flow[flow["routing.algorithm"] == "multipath"].iterrows():
        assert f["avg"] == pytest.approx(1.0)


def test_a_second_run_resumes_and_runs_nothing_again(out: Path) -> None:
    before = {p: routelab.results(out / p)["session"].unique().tolist() for p in geoffray2008.PARTS}
    summary = (out / "summary.md").read_text()
    geoffray2008.run(out, tiny=True, progress=False)
    after = {p: routelab.results(out / p)["session"].unique().tolist() for p in geoffray2008.PARTS}
    assert after == before
    first = summary.split("\n## ", 1)[1]
    assert (out / "summary.md").read_text().split("\n## ", 1)[1] == first


def test_the_specs_state_the_host_models_and_run_as_user_specs() -> None:
    # Every simulation spec's NIC rates are one of the host models, and the
    # full specs are plain user specs: routelab sweep runs them as they are.
    from routelab.experiment import spec as specs

    for part in geoffray2008.PARTS:
        exp = specs.load(geoffray2008.SPECS / f"{part}.toml")
        assert exp.name == f"geoffray2008-{part}"
        for run in exp.runs:
            if exp.kind == "sim":
                nic = run.params["nic"]
                assert geoffray2008.model_of(nic["send_bandwidth"], nic["receive_bandwidth"])
    bisect = specs.load(geoffray2008.SPECS / "bisect.toml")
    # 5 schemes; 50 patterns at 512 and 256 hosts, 100 at 128, 200 below.
    assert len(bisect.runs) == 5 * (50 + 50 + 100 + 200 + 200 + 200)
    per_size = Counter((r.flat["network.topology"], r.flat["run.seed"]) for r in bisect.runs)
    assert set(per_size.values()) == {5}
    assert max(s for t, s in per_size if t.endswith("hosts=512")) == 50


def test_published_values_join(out: Path) -> None:
    joined = expected.join(published("geoffray2008"), expected.read_tables(out))
    assert len(joined) == len(published("geoffray2008").values)
    # The tiny run has no 512-host rows, but it has bridge rows for probing.
    bridge = joined[(joined["table"] == "bridge_stats")]
    assert bridge["measured"].notna().all()


def _finding_rows(**over: float) -> list[dict]:
    def row(pattern, hosts, scheme, ideal, send, receive, both, paper):
        return dict(
            pattern=pattern,
            hosts=hosts,
            scheme=scheme,
            ideal=ideal,
            send=send,
            receive=receive,
            both=both,
            paper=paper,
        )

    rnd = dict(ideal=0.47, send=0.51, receive=0.48, both=0.48)
    ada = dict(ideal=0.95, send=0.95, receive=0.64, both=0.94)
    for key, value in over.items():
        table, model = key.split("_")
        {"rnd": rnd, "ada": ada}[table][model] = value
    return [
        row("bisect", 512, "random", **rnd, paper=0.52),
        row("bisect", 512, "probing", 0.79, 0.80, 0.74, 0.79, 0.77),
        row("bridge", 512, "adaptive", **ada, paper=0.56),
        row("bridge", 512, "probing", 0.98, 0.98, 0.90, 0.98, 0.98),
        row("bridge", 512, "random", 0.60, 0.66, 0.59, 0.59, 0.56),
    ]


BASES = {"send": 9.1405, "ideal": 9.9964, "receive": 9.1405, "both": 9.1405}


def test_the_findings_interpret_only_what_the_numbers_show() -> None:
    text = "\n".join(geoffray2008._hosts_findings(_finding_rows(), BASES))
    assert "4.70 Gb/s per host with ideal hosts and 4.66" in text
    assert "its normalisation by a pair that fills the link" in text
    assert "probing loses 5-8 points" in text
    assert "No model of the hosts gives both" in text
    # The same sentences with the orderings reversed: the numbers are still
    # stated, the readings they no longer bear are not.
    other = _finding_rows(rnd_send=0.40, ada_receive=0.95, ada_both=0.60)
    text = "\n".join(geoffray2008._hosts_findings(other, BASES))
    assert "Random at 512 hosts carries" in text
    assert "normalisation by a pair" not in text
    assert "probing loses" not in text
    assert "No model" not in text
    # Too little run: nothing to read.
    assert geoffray2008._hosts_findings([], BASES) == []
