"""Traffic patterns seen from Python."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import routelab


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(["permutation", "bit-reverse", "bit-complement", "shuffle", "bisect"]),
    st.integers(min_value=0, max_value=2**32),
)
def test_permutation_patterns_are_permutations(name, seed):
    net = routelab.topology("hypercube:5")
    pairs = routelab.pattern(name, net, seed=seed)
    sources = [s for s, _ in pairs]
    dests = [d for _, d in pairs]
    assert len(set(sources)) == len(sources)
    assert len(set(dests)) == len(dests)
    assert all(0 <= x < 32 for x in sources + dests)


def test_same_seed_same_pairs():
    net = routelab.topology("torus:4x4")
    assert routelab.pattern("uniform", net, seed=5) == routelab.pattern("uniform", net, seed=5)
    assert routelab.pattern("uniform", net, seed=5) != routelab.pattern("uniform", net, seed=6)


def test_bit_reverse_on_non_power_of_two_is_an_error():
    net = routelab.topology("torus:3x3")
    with pytest.raises(routelab.TrafficError, match="power of two"):
        routelab.pattern("bit-reverse", net)


def test_coordinate_pattern_needs_coordinates():
    net = routelab.topology("random:switches=16,ports=6,hosts=2,seed=3")
    with pytest.raises(routelab.TrafficError, match="coordinates"):
        routelab.pattern("tornado", net)
