"""Experiment specs: expansion, run keys, validation."""

import json
import math
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import routelab
from routelab.experiment import spec as specs


def parse(text: str) -> specs.Experiment:
    return specs.parse(textwrap.dedent(text))


ROUTE = """
[experiment]
kind = "route"
name = "r"

[network]
topology = ["torus:4x4", "kary-ntree:k=2,n=2"]

[routing]
algorithm = ["minhop", "sssp", "dfsssp"]
max_lanes = 4
"""


def test_lists_expand_to_the_cartesian_product_in_spec_order():
    exp = parse(ROUTE)
    assert len(exp.runs) == 6
    pairs = [(r.flat["network.topology"], r.flat["routing.algorithm"]) for r in exp.runs]
    assert pairs == [
        ("torus:4x4", "minhop"),
        ("torus:4x4", "sssp"),
        ("torus:4x4", "dfsssp"),
        ("kary-ntree:k=2,n=2", "minhop"),
        ("kary-ntree:k=2,n=2", "sssp"),
        ("kary-ntree:k=2,n=2", "dfsssp"),
    ]
    assert all(r.flat["routing.max_lanes"] == 4 for r in exp.runs)
    assert [r.index for r in exp.runs] == list(range(6))
    assert exp.varying == ["network.topology", "routing.algorithm"]
    assert exp.runs[0].params == {
        "network": {"topology": "torus:4x4"},
        "routing": {"algorithm": "minhop", "max_lanes": 4},
    }


def test_seeds_repeat_every_run_outermost_and_fill_the_seed_template():
    exp = parse(
        """
        [experiment]
        kind = "route"
        name = "r"
        seeds = [7, 8]
        [network]
        topology = "random:switches=8,ports=6,hosts=2,seed={seed}"
        [routing]
        algorithm = ["minhop", "updown"]
        """
    )
    got = [
        (r.flat["routing.seed"], r.flat["network.topology"], r.flat["routing.algorithm"])
        for r in exp.runs
    ]
    assert got == [
        (7, "random:switches=8,ports=6,hosts=2,seed=7", "minhop"),
        (7, "random:switches=8,ports=6,hosts=2,seed=7", "updown"),
        (8, "random:switches=8,ports=6,hosts=2,seed=8", "minhop"),
        (8, "random:switches=8,ports=6,hosts=2,seed=8", "updown"),
    ]
    assert parse(ROUTE.replace('name = "r"', 'name = "r"\nseeds = 3')).seeds == [1, 2, 3]


def test_seeds_in_a_zip_group_give_each_step_its_own_and_keep_run_keys():
    per_step = parse(
        """
        [experiment]
        kind = "route"
        name = "r"
        [routing]
        algorithm = ["minhop", "updown"]
        [[zip]]
        "network.topology" = ["torus:4x4", "torus:8x8"]
        "experiment.seeds" = [3, [2]]
        """
    )
    got = [
        (r.flat["routing.seed"], r.flat["routing.algorithm"], r.flat["network.topology"])
        for r in per_step.runs
    ]
    # Seeds outermost; seed N runs only the steps whose seeds hold it.
    assert got == [
        (1, "minhop", "torus:4x4"),
        (1, "updown", "torus:4x4"),
        (2, "minhop", "torus:4x4"),
        (2, "minhop", "torus:8x8"),
        (2, "updown", "torus:4x4"),
        (2, "updown", "torus:8x8"),
        (3, "minhop", "torus:4x4"),
        (3, "updown", "torus:4x4"),
    ]
    assert per_step.seeds == [1, 2, 3]
    assert "routing.seed" in per_step.varying
    # A run has the key it has in a spec that seeds every step alike, so
    # cutting a step's seeds keeps the runs a store already holds.
    every = parse(
        """
        [experiment]
        kind = "route"
        name = "r"
        seeds = 3
        [routing]
        algorithm = ["minhop", "updown"]
        [network]
        topology = ["torus:4x4", "torus:8x8"]
        """
    )
    assert {r.key for r in per_step.runs} < {r.key for r in every.runs}


@pytest.mark.parametrize(
    ("extra", "zip_seeds", "message"),
    [
        ("seeds = 2", "[1, 2]", "both in [experiment] and in a [[zip]] group"),
        ("", "[1, 0]", "'experiment.seeds' in a [[zip]] group = 0 is not valid"),
        ("", "[1]", "must have one length"),
        ("", "[[1, 1], 2]", "lists a seed twice"),
    ],
)
def test_seeds_in_a_zip_group_refuse_what_they_cannot_mean(extra, zip_seeds, message):
    text = f"""
        [experiment]
        kind = "route"
        name = "r"
        {extra}
        [routing]
        algorithm = "minhop"
        [[zip]]
        "network.topology" = ["torus:4x4", "torus:8x8"]
        "experiment.seeds" = {zip_seeds}
        """
    with pytest.raises(routelab.ConfigError, match=re.escape(message)):
        parse(text)


def test_a_bundled_spec_runs_by_its_name(tmp_path, monkeypatch, capsys):
    # From any directory, PAPER/PART names a reproduction's spec.
    monkeypatch.chdir(tmp_path)
    assert specs.load("geoffray2008/pair", variant="tiny").name == "geoffray2008-pair-tiny"
    assert specs.load("versaci2013/searches.toml").name == "versaci2013-searches"
    assert "domke2011/lanes" in specs.bundled()
    with pytest.raises(routelab.ConfigError, match="bundled specs .*versaci2013/searches"):
        specs.load("versaci2013/table9")
    # A file of that name comes first.
    (tmp_path / "versaci2013").mkdir()
    (tmp_path / "versaci2013" / "searches").write_text(ROUTE)
    assert specs.load("versaci2013/searches").name == "r"
    from routelab.cli import main

    assert main(["sweep", "parker/latency", "--dry-run", "--json"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(specs.load(specs.BUNDLED / "parker" / "latency.toml").runs)


def test_zip_groups_vary_nested_keys_together():
    exp = parse(
        """
        [experiment]
        kind = "sim"
        name = "z"

        [network]
        topology = "torus:4x4"
        links = { bandwidth = ["10Gb/s", "20Gb/s"], latency = "100ns" }

        [routing]
        algorithm = "dor"

        [[zip]]
        "traffic.load" = [0.1, 0.2, 0.3]
        traffic.pattern = ["uniform", "tornado", "transpose"]
        """
    )
    assert len(exp.runs) == 2 * 3
    first = exp.runs[0]
    assert first.flat["network.links.bandwidth"] == "10Gb/s"
    assert first.params["network"]["links"] == {"bandwidth": "10Gb/s", "latency": "100ns"}
    assert first.params["traffic"] == {"load": 0.1, "pattern": "uniform"}
    zipped = {(r.flat["traffic.load"], r.flat["traffic.pattern"]) for r in exp.runs}
    assert zipped == {(0.1, "uniform"), (0.2, "tornado"), (0.3, "transpose")}
    assert exp.varying == ["network.links.bandwidth", "traffic.load", "traffic.pattern"]


def test_a_list_of_lists_is_an_axis_of_list_values():
    exp = parse(
        """
        [experiment]
        kind = "sim"
        name = "l"
        [network]
        topology = "torus:4x4"
        [routing]
        algorithm = "dor"
        [traffic]
        pairs = [[[0, 1], [2, 3]], [[1, 0]]]
        """
    )
    assert [r.flat["traffic.pairs"] for r in exp.runs] == [[[0, 1], [2, 3]], [[1, 0]]]


def test_run_keys_are_sha256_of_the_canonical_parameters():
    exp = parse(ROUTE)
    run = exp.runs[0]
    assert len(run.key) == 16 and int(run.key, 16) >= 0
    text = json.dumps(
        {"kind": "route", "params": run.params}, sort_keys=True, separators=(",", ":")
    )
    import hashlib

    assert run.key == hashlib.sha256(text.encode()).hexdigest()[:16]
    # A resumed sweep finds its runs again only if keys never change: pin one.
    assert run.key == "82224287ab36d0b5"


def test_keys_do_not_depend_on_layout_order_or_int_versus_float():
    a = parse(
        """
        [experiment]
        kind = "sim"
        name = "k"
        [routing]
        algorithm = "dor"
        [network]
        topology = "torus:4x4"
        [traffic]
        load = 1
        """
    )
    b = parse(
        """
        [experiment]
        name = "k"
        kind = "sim"
        [network]
        topology = "torus:4x4"   # same run, other layout
        [traffic]
        load = 1.0
        [routing]
        algorithm = "dor"
        """
    )
    assert [r.key for r in a.runs] == [r.key for r in b.runs]
    assert a.canonical() == b.canonical()
    assert parse(ROUTE).canonical() != parse(ROUTE.replace("max_lanes = 4", "")).canonical()


def test_keys_are_stable_across_processes():
    exp = parse(ROUTE)
    code = textwrap.dedent(
        f"""
        import textwrap
        from routelab.experiment import spec
        exp = spec.parse({ROUTE!r})
        print(" ".join(r.key for r in exp.runs))
        """
    )
    env_out = []
    for hashseed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin:/bin"},
        )
        env_out.append(out.stdout.split())
    assert env_out[0] == env_out[1] == [r.key for r in exp.runs]


# ---------------------------------------------------------------- properties

_values = st.lists(st.integers(-1000, 1000), min_size=1, max_size=4, unique=True)


@st.composite
def sweeps(draw):
    n_axes = draw(st.integers(0, 4))
    tables: dict[str, dict] = {}
    lengths = []
    for i in range(n_axes):
        values = draw(_values)
        tables.setdefault(f"t{i % 2}", {})[f"k{i}"] = values
        lengths.append(len(values))
    zips = []
    for j in range(draw(st.integers(0, 2))):
        n = draw(st.integers(1, 3))
        group = {
            f"z{j}.a": draw(st.lists(st.integers(), min_size=n, max_size=n)),
            f"z{j}.b": draw(st.lists(st.text(max_size=3), min_size=n, max_size=n)),
        }
        # equal (a, b) steps would be the same run twice: make the steps distinct
        group[f"z{j}.i"] = list(range(n))
        zips.append(group)
        lengths.append(n)
    seeds = draw(st.none() | st.lists(st.integers(0, 99), min_size=1, max_size=3, unique=True))
    meta = {"kind": "sim", "name": "prop"}
    if seeds is not None:
        meta["seeds"] = seeds
    doc = {
        "experiment": meta,
        "network": {"topology": "torus:4x4"},
        "routing": {"algorithm": "dor"},
        **tables,
    }
    if zips:
        doc["zip"] = zips
    return doc, lengths, seeds


@settings(max_examples=150, deadline=None)
@given(sweeps())
def test_number_of_runs_is_the_product_of_axis_lengths_times_seeds(case):
    doc, lengths, seeds = case
    exp = specs.from_document(doc)
    expected = math.prod(lengths) * (len(seeds) if seeds else 1)
    assert len(exp.runs) == expected
    keys = [r.key for r in exp.runs]
    assert len(set(keys)) == len(keys)
    # expanding again gives the same keys in the same order
    assert [r.key for r in specs.from_document(doc).runs] == keys
    # every run holds exactly one value of each axis, and every value appears
    for table, entries in doc.items():
        if table in ("experiment", "zip"):
            continue
        for key, value in entries.items():
            dotted = f"{table}.{key}"
            seen = {json.dumps(r.flat[dotted]) for r in exp.runs}
            want = {json.dumps(v) for v in (value if isinstance(value, list) else [value])}
            assert seen == want
    if seeds:
        assert {r.flat["run.seed"] for r in exp.runs} == set(seeds)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z]{1,4}", fullmatch=True),
        st.dictionaries(
            st.from_regex(r"[a-z]{1,4}", fullmatch=True),
            st.integers() | st.text(max_size=4) | st.booleans(),
            min_size=1,
            max_size=3,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_flatten_and_unflatten_are_inverse(doc):
    assert specs.unflatten(specs.flatten(doc)) == doc


# ---------------------------------------------------------------- validation


def error_of(text: str) -> str:
    with pytest.raises(routelab.ConfigError) as e:
        parse(text)
    return str(e.value)


def test_unknown_keys_name_the_key_and_the_valid_ones():
    msg = error_of(ROUTE.replace("max_lanes = 4", "max_lane = 4"))
    assert "'routing.max_lane'" in msg
    assert "did you mean 'routing.max_lanes'" in msg
    assert "routing.algorithm" in msg and "network.topology" in msg
    msg = error_of(ROUTE.replace('name = "r"', 'name = "r"\nrepeat = 3'))
    assert "'experiment.repeat'" in msg and "experiment.seeds" in msg
    msg = error_of(ROUTE + "\n[traffic]\nload = 0.3\n")
    assert "'traffic.load'" in msg and "'route' experiment" in msg


def test_bad_values_name_the_key_and_what_is_expected():
    msg = error_of(ROUTE.replace("max_lanes = 4", "max_lanes = 20"))
    assert "'routing.max_lanes' = 20" in msg and "1..15" in msg
    msg = error_of(ROUTE.replace("max_lanes = 4", 'max_lanes = "four"'))
    assert "'routing.max_lanes'" in msg and "an integer" in msg
    msg = error_of(ROUTE.replace('"dfsssp"]', '"dfssp"]'))
    assert "'routing.algorithm' = 'dfssp'" in msg and "dfsssp" in msg
    msg = error_of(ROUTE.replace('kind = "route"', 'kind = "routes"'))
    assert "'experiment.kind' = 'routes'" in msg and "saturate" in msg
    msg = error_of(ROUTE.replace('name = "r"', 'name = "r"\nseeds = [1, "2"]'))
    assert "'experiment.seeds'" in msg
    msg = error_of(
        """
        [experiment]
        kind = "sim"
        name = "s"
        [network]
        topology = "torus:4x4"
        [routing]
        algorithm = "dor"
        [traffic]
        load = [0.1, -0.2]
        """
    )
    assert "'traffic.load' = -0.2" in msg and ">= 0" in msg


def test_structural_errors_say_how_to_fix_the_spec():
    assert "[experiment]" in error_of('[network]\ntopology = "torus:4x4"\n')
    assert "'routing.algorithm' is required" in error_of(
        '[experiment]\nkind = "route"\nname = "r"\n[network]\ntopology = "torus:4x4"\n'
    )
    assert "one length" in error_of(
        ROUTE + '\n[[zip]]\n"routing.seed" = [1, 2]\n"routing.root" = ["a"]\n'
    )
    assert "both a parameter and in a [[zip]]" in error_of(
        ROUTE + '\n[[zip]]\n"routing.max_lanes" = [1, 2]\n"routing.seed" = [1, 2]\n'
    )
    assert "'experiment.seeds' sets 'routing.seed'" in error_of(
        ROUTE.replace('name = "r"', 'name = "r"\nseeds = 2') + "seed = 3\n"
    )
    assert "{seed}" in error_of(ROUTE.replace('"torus:4x4"', '"random:seed={seed}"'))
    assert "same parameters" in error_of(ROUTE.replace('"sssp"', '"minhop"'))
    assert "empty list" in error_of(ROUTE.replace("max_lanes = 4", "max_lanes = []"))
    assert "not valid TOML" in error_of("[experiment\n")


def test_the_simulator_kinds_pass_unknown_keys_through():
    exp = parse(
        """
        [experiment]
        kind = "saturate"
        name = "s"
        [network]
        topology = "torus:4x4"
        [routing]
        algorithm = "duato"
        [router]
        whatever_the_simulator_takes = [1, 2]
        """
    )
    assert [r.params["router"] for r in exp.runs] == [
        {"whatever_the_simulator_takes": 1},
        {"whatever_the_simulator_takes": 2},
    ]


def test_a_spec_too_large_to_expand_is_refused_before_expanding():
    # 100 million seeds would exhaust memory in the expansion: the count is
    # checked first, names itself and the limit, and the limit can be raised.
    with pytest.raises(routelab.ConfigError, match=r"100,000,000 runs.*max_runs"):
        parse(ROUTE.replace('name = "r"', 'name = "r"\nseeds = 100000000'))
    # The grid's product counts too (6 runs per seed).
    with pytest.raises(routelab.ConfigError, match="600 runs"):
        parse(ROUTE.replace('name = "r"', 'name = "r"\nseeds = 100\nmax_runs = 599'))
    exp = parse(ROUTE.replace('name = "r"', 'name = "r"\nseeds = 100\nmax_runs = 600'))
    assert len(exp.runs) == 600
    with pytest.raises(routelab.ConfigError, match="max_runs"):
        parse(ROUTE.replace('name = "r"', 'name = "r"\nmax_runs = 0'))


VARIED = ROUTE.replace(
    "max_lanes = 4",
    """max_lanes = 4

[[zip]]
"routing.root" = ["s0", "s1"]
"routing.datelines" = [true, false]

[variants.quick]
"network.topology" = "torus:4x4"
"routing.max_lanes" = 2
"experiment.seeds" = 2

[variants.wrong]
"routing.root" = "s3"
""",
)


def test_a_variant_replaces_its_keys_and_is_named_apart():
    full = specs.parse(VARIED)
    assert len(full.runs) == 2 * 3 * 2 and full.name == "r"
    quick = specs.parse(VARIED, variant="quick")
    assert quick.name == "r-quick"
    assert len(quick.runs) == 2 * 3 * 2  # seeds 1, 2 x algorithms x the zip
    assert {r.flat["network.topology"] for r in quick.runs} == {"torus:4x4"}
    assert {r.flat["routing.max_lanes"] for r in quick.runs} == {2}
    assert {r.flat["routing.seed"] for r in quick.runs} == {1, 2}
    # The variant is a spec of its own: what a store keeps reads back the same.
    again = specs.from_document(quick.document)
    assert again.canonical() == quick.canonical()
    assert "variants" not in quick.document


def test_a_variant_may_replace_the_zip_groups_all_together():
    text = VARIED + textwrap.dedent(
        """
        [[variants.small.zip]]
        "routing.root" = ["s2"]
        "routing.datelines" = [true]
        """
    )
    small = specs.parse(text, variant="small")
    assert len(small.runs) == 2 * 3
    assert {(r.flat["routing.root"], r.flat["routing.datelines"]) for r in small.runs} == {
        ("s2", True)
    }
    assert len(specs.parse(text).runs) == 12  # the spec itself keeps its groups


def test_a_variant_that_is_missing_or_touches_a_zip_is_refused_by_name():
    with pytest.raises(routelab.ConfigError, match="no variant 'tiny'; its variants: quick, wrong"):
        specs.parse(VARIED, variant="tiny")
    with pytest.raises(routelab.ConfigError, match=r"variants\.wrong\.routing\.root.*\[\[zip\]\]"):
        specs.parse(VARIED, variant="wrong")
    nested = VARIED.replace('"routing.root" = "s3"', '"routing.root.x" = "s3"')
    with pytest.raises(routelab.ConfigError, match=r"\[\[zip\]\]"):
        specs.parse(nested, variant="wrong")
    with pytest.raises(routelab.ConfigError, match="'variants' must hold tables"):
        specs.parse(ROUTE + "\n[variants]\nquick = 1\n")
