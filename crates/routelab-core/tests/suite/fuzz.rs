//! One fuzz target per parser, as proptests small enough for every test
//! run: mutated or random input must never panic, and what a parser accepts
//! must survive its writer (the written text reads back to the same value,
//! and writing that again gives the same text).
//!
//! Elsewhere: ibnetdiscover text (`formats.rs`, random bytes, lines,
//! sections and mutated files, with the same round trip) and LFT dumps
//! without round trip (`route_formats.rs`). The paths file has a writer
//! only.

use proptest::prelude::*;
use routelab_core::network::io::{ibnetdiscover, json};
use routelab_core::network::spec;
use routelab_core::routing::formats::{read_lanes, read_lfts, write_lanes, write_lfts};
use routelab_core::routing::{self, Routes, RoutingOptions};
use routelab_core::sim::Spec;
use routelab_core::text;
use routelab_core::units::{parse_bytes, Bandwidth, Picos};
use routelab_core::Network;

/// An edit of a text: what byte-level fuzzers do, kept on char boundaries
/// except for `Byte`, which may leave invalid UTF-8.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Duplicate(usize, usize),
    Byte(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Edit::Delete(a, n)),
        (
            any::<usize>(),
            prop_oneof![
                "[ -~\n]{1,6}",
                Just("0".to_string()),
                Just("-1".to_string()),
                Just("99999999999999999999".to_string()),
                Just("\"".to_string()),
                Just("{".to_string()),
                Just("]".to_string()),
                Just("\n".to_string()),
                Just("é".to_string()),
            ]
        )
            .prop_map(|(a, s)| Edit::Insert(a, s)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Byte(a, b)),
    ]
}

fn boundary(text: &str, at: usize) -> usize {
    let mut i = at % (text.len() + 1);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Applies the edits; the result is bytes (a `Byte` edit may break UTF-8).
fn mutate(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut s = text.to_string();
    let mut raw: Option<(usize, u8)> = None;
    for e in edits {
        match e {
            Edit::Delete(a, n) => {
                let a = boundary(&s, *a);
                let b = boundary(&s, a + n);
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(a, t) => {
                let a = boundary(&s, *a);
                s.insert_str(a, t);
            }
            Edit::Duplicate(a, n) => {
                let a = boundary(&s, *a);
                let b = boundary(&s, a + n).max(a);
                let piece = s[a..b].to_string();
                s.insert_str(b, &piece);
            }
            Edit::Byte(a, b) => raw = Some((*a, *b)),
        }
    }
    let mut bytes = s.into_bytes();
    if let Some((a, b)) = raw {
        if !bytes.is_empty() {
            let i = a % bytes.len();
            bytes[i] = b;
        }
    }
    bytes
}

fn small_networks() -> Vec<Network> {
    [
        "torus:3,c=2",
        "kary-ntree:k=2,n=2",
        "random:switches=4,ports=5,hosts=2",
    ]
    .iter()
    .map(|s| spec::build(s).unwrap())
    .collect()
}

/// Topology spec strings: families with keys, values mostly small (so that
/// accepted specs build in microseconds), sometimes out of range or not
/// numbers at all.
fn topology_spec() -> impl Strategy<Value = String> {
    let family = prop::sample::select(vec![
        "torus",
        "mesh",
        "hypercube",
        "crossbar",
        "kary-ntree",
        "xgft",
        "clos",
        "kautz",
        "dragonfly",
        "hyperx",
        "flatfly",
        "random",
        "ring",
        "",
    ]);
    let value = prop_oneof![
        8 => (0u32..5).prop_map(|n| n.to_string()),
        2 => prop::collection::vec(1u32..4, 1..4).prop_map(|v| v
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("x")),
        1 => Just("-1".to_string()),
        1 => Just("99999999999999999999".to_string()),
        1 => Just("1.5".to_string()),
        1 => Just("".to_string()),
        1 => Just("x".to_string()),
    ];
    let key = prop::sample::select(vec![
        "dims",
        "c",
        "n",
        "k",
        "m",
        "w",
        "b",
        "a",
        "p",
        "h",
        "ports",
        "hosts",
        "switches",
        "links",
        "seed",
        "spines",
        "leaves",
        "terminals",
        "S",
        "t",
        "zz",
    ]);
    let item = prop_oneof![
        3 => (key, value.clone()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => value,
    ];
    (family, prop::collection::vec(item, 0..4))
        .prop_map(|(f, items)| format!("{f}:{}", items.join(",")))
}

/// Bandwidth, time and size strings: numbers with exponents, signs and
/// units, right and wrong.
fn quantity() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        (0.0f64..1e6).prop_map(|x| x.to_string()),
        (0u32..5, 0i32..40).prop_map(|(m, e)| format!("{m}e{e}")),
        Just("1e400".to_string()),
        Just("-3".to_string()),
        Just(".".to_string()),
        Just("1e".to_string()),
        Just("".to_string()),
    ];
    let unit = prop::sample::select(vec![
        "", "b/s", "Gb/s", "MB/s", "kbps", "Tbit/s", "GB/s", "ps", "ns", "us", "µs", "ms", "s",
        "B", "KB", "KiB", "MiB", "GiB", "furlongs", " Gb/s",
    ]);
    (number, unit).prop_map(|(n, u)| format!("{n}{u}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A spec that builds is a network whose JSON and ibnetdiscover texts
    /// read back: the JSON exactly, the ibnetdiscover text to itself.
    #[test]
    fn topology_specs_never_panic_and_accepted_ones_round_trip(text in topology_spec()) {
        if let Ok(net) = spec::build(&text) {
            let written = json::to_string(&net);
            prop_assert_eq!(&json::from_str(&written, "fuzz").unwrap(), &net);
            let ib = ibnetdiscover::to_string(&net);
            let back = ibnetdiscover::from_str(&ib, "fuzz").unwrap();
            prop_assert_eq!(ibnetdiscover::to_string(&back), ib);
        }
    }

    /// Mutated routelab JSON fabrics: never a panic; invalid UTF-8 is
    /// reported with its line; what reads writes back to the same network.
    #[test]
    fn json_fabric_mutants_never_panic_and_accepted_ones_round_trip(
        which in 0usize..3,
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let net = &small_networks()[which];
        let bytes = mutate(&json::to_string(net), &edits);
        match text::utf8(&bytes) {
            Err(why) => prop_assert!(why.contains("line "), "{}", why),
            Ok(t) => {
                if let Ok(read) = json::from_str(t, "fuzz") {
                    let written = json::to_string(&read);
                    prop_assert_eq!(json::from_str(&written, "fuzz").unwrap(), read);
                }
            }
        }
    }

    /// Mutated LFT dumps: what reads is written and read back to the same
    /// text (a fixed point of write after read).
    #[test]
    fn lft_dump_mutants_round_trip(edits in prop::collection::vec(edit(), 1..4)) {
        let net = spec::build("torus:3,c=2").unwrap();
        let routes = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
        let bytes = mutate(&write_lfts(&net, &routes).unwrap(), &edits);
        if let Ok(t) = std::str::from_utf8(&bytes) {
            if let Ok(read) = read_lfts(&net, t, "fuzz") {
                let written = write_lfts(&net, &read).unwrap();
                let again = read_lfts(&net, &written, "fuzz").unwrap();
                prop_assert_eq!(write_lfts(&net, &again).unwrap(), written);
            }
        }
    }

    /// Mutated lane tables: what reads is written and read back unchanged.
    #[test]
    fn lane_file_mutants_round_trip(edits in prop::collection::vec(edit(), 1..4)) {
        let net = spec::build("torus:3,c=2").unwrap();
        let routes = routing::route(&net, "dfsssp", &RoutingOptions::default()).unwrap();
        let bytes = mutate(&write_lanes(&net, &routes).unwrap(), &edits);
        if let Ok(t) = std::str::from_utf8(&bytes) {
            let mut read = Routes::new(&net, "fuzz");
            if read_lanes(&net, &mut read, t, "fuzz").is_ok() {
                let written = write_lanes(&net, &read).unwrap();
                let mut again = Routes::new(&net, "fuzz");
                read_lanes(&net, &mut again, &written, "fuzz").unwrap();
                prop_assert_eq!(write_lanes(&net, &again).unwrap(), written);
            }
        }
    }

    /// Quantities: never a panic; an accepted bandwidth or time prints as
    /// a string that parses to the same value; errors quote the input.
    #[test]
    fn quantities_never_panic_and_round_trip(text in quantity()) {
        match Bandwidth::parse(&text) {
            Ok(b) => prop_assert_eq!(Bandwidth::parse(&b.to_string()).unwrap(), b),
            Err(e) => prop_assert!(e.to_string().contains(&text)),
        }
        match Picos::parse(&text) {
            Ok(p) => prop_assert_eq!(Picos::parse(&p.to_string()).unwrap(), p),
            Err(e) => prop_assert!(e.to_string().contains(&text)),
        }
        if let Err(e) = parse_bytes(&text) {
            prop_assert!(e.to_string().contains(&text));
        }
    }

    /// Mutated simulation specs: never a panic; an accepted spec written as
    /// TOML reads back equal.
    #[test]
    fn sim_spec_mutants_never_panic_and_accepted_ones_round_trip(
        which in 0usize..3,
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let base = [
            include_str!("../../../../examples/torus-dor.toml"),
            include_str!("../../../../examples/pingpong.toml"),
            include_str!("../../../../examples/myrinet-updown.toml"),
        ][which];
        let bytes = mutate(base, &edits);
        if let Ok(t) = std::str::from_utf8(&bytes) {
            if let Ok(spec) = Spec::from_toml_str(t) {
                let written = toml::to_string(&spec).unwrap();
                prop_assert_eq!(Spec::from_toml_str(&written).unwrap(), spec);
            }
        }
    }
}

#[test]
fn the_unmutated_inputs_are_accepted() {
    // The fuzz targets mean something only if their seeds parse.
    for net in small_networks() {
        assert_eq!(json::from_str(&json::to_string(&net), "x").unwrap(), net);
    }
    for base in [
        include_str!("../../../../examples/torus-dor.toml"),
        include_str!("../../../../examples/pingpong.toml"),
        include_str!("../../../../examples/myrinet-updown.toml"),
    ] {
        Spec::from_toml_str(base).unwrap();
    }
    assert!(spec::build("torus:3,c=2").is_ok());
}
