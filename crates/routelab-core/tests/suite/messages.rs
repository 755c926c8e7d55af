//! Error messages blame what the user wrote, in the user's own unit, and
//! name nodes so that they can be found: switches that share a description
//! (every switch of a real EDR fabric is "SwitchIB Mellanox Technologies")
//! carry their GUID in cycles, paths and errors, and `root` takes a GUID.

use routelab_core::network::io;
use routelab_core::network::spec;
use routelab_core::routing::formats::write_paths;
use routelab_core::routing::{self, RoutingOptions};
use routelab_core::sim::{Experiment, Spec};
use routelab_core::units::{parse_bytes, Bandwidth, Picos};
use routelab_core::{Network, Pattern};
use std::collections::HashSet;

const EDR: &str = "SwitchIB Mellanox Technologies";

/// `spec` with every switch named as a real EDR fabric names them.
fn same_names(text: &str) -> Network {
    let net = spec::build(text).unwrap();
    let mut b = net.to_builder();
    for &s in net.switches() {
        b.node_mut(s).name = EDR.into();
    }
    b.build().unwrap()
}

fn guid_label(net: &Network, i: usize) -> String {
    format!("{EDR} (GUID {:#018x})", net.node(net.switches()[i]).guid)
}

#[test]
fn a_cycle_tells_apart_switches_that_share_a_name() {
    // On a 5-ring every two-hop minimal route is unique, so minhop on one
    // lane closes a cycle through all five clockwise channels.
    let net = same_names("torus:5");
    let routes = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
    let report = routes.deadlock_report(&net).unwrap();
    let cycle = report.cycle.expect("a 5-ring on one lane has a cycle");
    let named: HashSet<usize> = (0..5)
        .filter(|&i| cycle.text.contains(&guid_label(&net, i)))
        .collect();
    assert!(named.len() >= 3, "{}", cycle.text);
    // Unique names stay bare.
    let host = net.terminal(0);
    assert_eq!(net.label(host), net.node(host).name);
    assert!(!cycle.text.contains("(GUID") || !cycle.text.contains("h0 (GUID"));
}

#[test]
fn the_paths_file_tells_apart_switches_that_share_a_name() {
    let net = same_names("torus:5");
    let routes = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
    let mut out = Vec::new();
    write_paths(&net, &routes, &mut out).unwrap();
    let mut seen = HashSet::new();
    for line in String::from_utf8(out).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for hop in v["path"].as_array().unwrap() {
            seen.insert(hop.as_str().unwrap().to_string());
        }
    }
    // Five switches, five labels (and the five terminals by name).
    let switches: HashSet<_> = (0..5).map(|i| guid_label(&net, i)).collect();
    assert!(switches.is_subset(&seen), "{seen:?}");
    assert_eq!(seen.len(), 10, "{seen:?}");
}

#[test]
fn root_takes_a_guid_an_index_or_a_unique_name() {
    let text = "random:switches=8,ports=6,hosts=2,seed=3";
    let named = spec::build(text).unwrap();
    let shared = same_names(text);
    let paths = |net: &Network, root: &str| {
        let o = RoutingOptions {
            root: Some(root.into()),
            ..RoutingOptions::default()
        };
        let r = routing::route(net, "updown", &o).unwrap();
        let t = net.terminals().len();
        let all: Vec<_> = (0..t)
            .flat_map(|s| (0..t).filter(move |&d| d != s).map(move |d| (s, d)))
            .map(|(s, d)| r.path(net, s, d).unwrap())
            .collect();
        all
    };
    for i in [0usize, 5] {
        let by_name = paths(&named, &named.node(named.switches()[i]).name);
        let guid = shared.node(shared.switches()[i]).guid;
        assert_eq!(paths(&shared, &format!("{guid:#018x}")), by_name);
        assert_eq!(paths(&shared, &format!("S-{guid:016x}")), by_name);
        assert_eq!(paths(&shared, &i.to_string()), by_name);
    }
    let o = RoutingOptions {
        root: Some(EDR.into()),
        ..RoutingOptions::default()
    };
    let e = routing::route(&shared, "updown", &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("8 nodes are named") && e.contains("GUID"), "{e}");
    let o = RoutingOptions {
        root: Some("0x1234".into()),
        ..RoutingOptions::default()
    };
    let e = routing::route(&shared, "updown", &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no node has GUID 0x0000000000001234"), "{e}");
}

#[test]
fn buffer_packets_is_blamed_for_its_own_value() {
    let mut s = Spec::from_toml_str(include_str!("../../../../examples/torus-dor.toml")).unwrap();
    s.network.topology = "torus:3".into();
    s.router.buffer_flits = None;
    s.router.buffer_packets = Some(0);
    let e = Experiment::new(&s).map(|_| ()).unwrap_err().to_string();
    assert!(
        e.contains("router.buffer_packets") && e.contains("packets"),
        "{e}"
    );
    assert!(!e.contains("buffer_flits"), "{e}");
}

#[test]
fn a_too_small_random_switch_blames_the_ports_not_the_default_hosts() {
    let e = spec::build("random:switches=64,ports=1")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'ports'") && e.contains("default hosts=4"),
        "{e}"
    );
    // An explicit hosts value is still the one blamed.
    let e = spec::build("random:switches=64,ports=4,hosts=5")
        .unwrap_err()
        .to_string();
    assert!(e.contains("'hosts'"), "{e}");
    assert!(spec::build("random:switches=64,ports=1,hosts=0").is_err());
    assert!(spec::build("random:switches=1,ports=4").is_ok());
}

#[test]
fn a_huge_quantity_is_out_of_range_and_says_its_value() {
    let e = Bandwidth::parse("1e30Gb/s").unwrap_err().to_string();
    assert!(e.contains("out of range") && e.contains("1e39"), "{e}");
    assert!(!e.contains("unit must be"), "{e}");
    assert_eq!(
        Bandwidth::parse("2.5e1Gb/s").unwrap(),
        Bandwidth(25_000_000_000)
    );
    assert_eq!(Picos::parse("1.5e3ns").unwrap(), Picos(1_500_000));
    let e = Picos::parse("1e30s").unwrap_err().to_string();
    assert!(e.contains("out of range") && e.contains("1e42 ps"), "{e}");
    let e = parse_bytes("1e25GiB").unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn invalid_utf8_in_a_json_fabric_names_the_line() {
    let dir = std::env::temp_dir().join(format!("routelab-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.json");
    let mut bytes = b"{\n  \"name\": \"x\",\n  \"nodes\": [\"".to_vec();
    bytes.extend([0xff, 0xfe]);
    bytes.extend(b"\"]\n}\n");
    std::fs::write(&path, &bytes).unwrap();
    let e = io::load(&path).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(e.contains("invalid UTF-8 at line 3, column 14"), "{e}");
    assert!(e.contains("byte offset 30"), "{e}");
}

#[test]
fn an_irregular_network_takes_an() {
    let net = spec::build("random:switches=16,ports=6,hosts=2").unwrap();
    let e = Pattern::parse("tornado")
        .unwrap()
        .bind(&net, 1)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("is an irregular network"), "{e}");
    let e = routing::route(&net, "dor", &RoutingOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("an irregular") && !e.contains("a irregular"),
        "{e}"
    );
}

#[test]
fn a_simulated_deadlock_tells_apart_switches_that_share_a_name() {
    // The deadlocking ring of `sim.rs` (8 switches on one lane, 2-flit
    // wormhole buffers, load 0.9), read from a fabric file whose switches
    // all have the same description.
    let dir = std::env::temp_dir().join(format!("routelab-edr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("edr.json");
    io::save(&same_names("torus:8"), &path).unwrap();
    let mut s = Spec::new(path.to_str().unwrap(), "minhop");
    s.router.vcs = 1;
    s.router.buffer_flits = Some(2);
    s.traffic.packet_flits = Some(4);
    s.traffic.load = 0.9;
    let result = routelab_core::sim::simulate(&s);
    std::fs::remove_dir_all(&dir).unwrap();
    match result {
        Err(routelab_core::sim::SimError::Deadlock(info)) => {
            let nodes: HashSet<&str> = info.cycle.iter().map(|b| b.node.as_str()).collect();
            assert!(nodes.len() >= 2, "{info}");
            assert!(
                nodes
                    .iter()
                    .all(|n| n.starts_with(EDR) && n.contains("(GUID 0x")),
                "{info}"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
