//! Fabric file formats: exact round trips, a realistic ibnetdiscover file,
//! malformed input reported by line, and random input that must never panic.

use proptest::prelude::*;
use routelab_core::network::io::{self, dot, ibnetdiscover, json};
use routelab_core::network::{spec, ChannelClass, Network, NetworkBuilder, PortAttrs};
use routelab_core::units::{Bandwidth, Picos};
use routelab_core::{ClassId, PortId, TopologyError};

const SMALL: &str = include_str!("../../../../examples/fabrics/small.ibnet");

/// Parallel cables (one of them reversed), a two-port terminal with its own
/// port identities, LIDs, classes with their own latency, a spare port.
fn hand_built() -> Network {
    let mut b = NetworkBuilder::new("hand-built");
    let edr = b.add_class(ChannelClass::new(
        "4xEDR",
        Bandwidth(100_000_000_000),
        Picos(150_000),
    ));
    let up = b.add_class(ChannelClass::new(
        "uplink",
        Bandwidth::parse("56Gb/s").unwrap(),
        Picos::parse("1us").unwrap(),
    ));
    let spine = b.add_switch("spine", 8);
    let leaf = b.add_switch("leaf", 8);
    b.node_mut(spine).lid = 1;
    b.node_mut(leaf).lid = 2;
    b.connect(spine, PortId(1), leaf, PortId(1), up).unwrap();
    b.connect(spine, PortId(2), leaf, PortId(2), up).unwrap();
    b.connect(leaf, PortId(3), spine, PortId(3), up).unwrap();
    let host = b.add_terminal("host 1", 1);
    b.node_mut(host).lid = 3;
    b.connect(leaf, PortId(5), host, PortId(1), edr).unwrap();
    let storage = b.add_terminal("storage", 2);
    let guid = b.node(storage).guid;
    b.node_mut(storage).lid = 10;
    b.connect(storage, PortId(1), spine, PortId(6), edr)
        .unwrap();
    b.connect(leaf, PortId(6), storage, PortId(2), edr).unwrap();
    let attrs = |g, lid| PortAttrs { guid: g, lid };
    // Port GUIDs other than the node GUID plus the port number, which is
    // what a port without an identity of its own shows.
    b.set_port_attrs(storage, PortId(1), attrs(guid + 0x11, 10))
        .unwrap();
    b.set_port_attrs(storage, PortId(2), attrs(guid + 0x12, 11))
        .unwrap();
    b.build().unwrap()
}

fn networks() -> Vec<Network> {
    let mut nets: Vec<Network> = ["torus:4x4x2", "hypercube:4", "crossbar:8"]
        .iter()
        .map(|s| spec::build(s).unwrap())
        .collect();
    nets.push(hand_built());
    nets
}

/// The network as the ibnetdiscover reader builds it: no structure, each
/// cable from its lower (node, port) end, cables sorted by that end.
fn canonical(net: &Network) -> Network {
    let mut b = NetworkBuilder::new(net.name());
    for c in net.classes() {
        b.add_class(c.clone());
    }
    for n in net.nodes() {
        let id = b.add_node(n.kind, n.name.clone(), n.ports);
        *b.node_mut(id) = n.clone();
    }
    for id in net.node_ids() {
        for p in 1..=net.node(id).ports {
            if let Some(a) = net.port_attrs(id, PortId(p)) {
                b.set_port_attrs(id, PortId(p), a).unwrap();
            }
        }
    }
    let mut cables: Vec<_> = net
        .channels()
        .chunks(2)
        .map(|c| {
            let c = c[0];
            let (x, y) = ((c.src, c.src_port), (c.dst, c.dst_port));
            let (x, y) = if y < x { (y, x) } else { (x, y) };
            (x, y, c.class)
        })
        .collect();
    cables.sort();
    for (x, y, class) in cables {
        b.connect(x.0, x.1, y.0, y.1, class).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn json_round_trip_is_exact() {
    for net in networks() {
        let text = json::to_string(&net);
        let back = json::from_str(&text, "t.json").unwrap();
        assert_eq!(back, net, "{}", net.name());
        assert_eq!(json::to_string(&back), text);
    }
}

#[test]
fn ibnetdiscover_round_trip_keeps_all_but_structure_and_cable_order() {
    for net in networks() {
        let text = ibnetdiscover::to_string(&net);
        let back = ibnetdiscover::from_str(&text, "t.ibnet").unwrap();
        assert_eq!(back, canonical(&net), "{}", net.name());
        // The written text is a fixed point.
        assert_eq!(ibnetdiscover::to_string(&back), text, "{}", net.name());
    }
}

#[test]
fn small_fabric_reads_as_written() {
    let net = ibnetdiscover::from_str(SMALL, "examples/fabrics/small.ibnet").unwrap();
    assert_eq!(net.name(), "small");
    assert_eq!(
        (
            net.switches().len(),
            net.terminals().len(),
            net.cable_count()
        ),
        (2, 5, 8)
    );
    let leaf1 = net.find("MF0;leaf-1:SX6036/U1").unwrap();
    let leaf2 = net.find("MF0;leaf-2:SX6036/U1").unwrap();
    assert_eq!(
        (net.node(leaf1).guid, net.node(leaf1).lid),
        (0x0002c902004a0950, 1)
    );
    assert_eq!(
        (net.node(leaf2).guid, net.node(leaf2).lid),
        (0x0002c902004a0a10, 2)
    );
    assert_eq!(net.node(leaf1).ports, 36);
    // Two parallel cables between the leaves, each listed from both ends once.
    let between: Vec<_> = net.neighbors(leaf1).filter(|&n| n == leaf2).collect();
    assert_eq!(between.len(), 2);

    let node01 = net.find("node01 mlx5_0").unwrap();
    assert!(net.is_terminal(node01));
    assert_eq!(
        (net.node(node01).guid, net.node(node01).lid),
        (0xe41d2d0300a1b2c0, 3)
    );
    // Port 1's GUID is the node's plus 1 and its LID the node's: no
    // identity of its own is kept, and it shows the same GUID.
    assert_eq!(net.port_attrs(node01, PortId(1)), None);
    assert_eq!(net.port_guid(node01, PortId(1)), 0xe41d2d0300a1b2c1);
    assert_eq!(net.attached_switch(node01), Some(leaf1));

    let node03 = net.find("node03 mlx4_0").unwrap();
    assert_eq!((net.node(node03).ports, net.degree(node03)), (2, 1));

    let storage = net.find("storage01 mlx5_0").unwrap();
    assert_eq!((net.node(storage).ports, net.degree(storage)), (2, 2));
    assert_eq!(net.node(storage).lid, 7);
    let p2 = net.port_attrs(storage, PortId(2)).unwrap();
    assert_eq!((p2.guid, p2.lid), (0x248a070300c0ffe2, 8));
    let c = net.channel_at(storage, PortId(2)).unwrap();
    assert_eq!(
        (net.channel(c).dst, net.channel(c).dst_port),
        (leaf2, PortId(10))
    );

    // One class per speed, named by it, at its data rate.
    let classes: Vec<_> = net
        .classes()
        .iter()
        .map(|c| (c.name.as_str(), c.bandwidth.0))
        .collect();
    assert_eq!(
        classes,
        [("4xEDR", 100_000_000_000), ("4xFDR", 54_545_454_545)]
    );
    let fdr = net.channel_at(node03, PortId(1)).unwrap();
    assert_eq!(net.channel(fdr).class, ClassId(1));
}

#[test]
fn text_network_text_is_stable() {
    let n1 = ibnetdiscover::from_str(SMALL, "small.ibnet").unwrap();
    let t2 = ibnetdiscover::to_string(&n1);
    let n2 = ibnetdiscover::from_str(&t2, "elsewhere.ibnet").unwrap();
    assert_eq!(n2, n1);
    assert_eq!(ibnetdiscover::to_string(&n2), t2);
    // And JSON keeps every port identity of the imported fabric.
    assert_eq!(json::from_str(&json::to_string(&n1), "x").unwrap(), n1);
}

/// The line and reason of a parse error.
fn parse_error(result: Result<Network, TopologyError>) -> (usize, String) {
    match result {
        Err(TopologyError::Parse { line, reason, .. }) => (line, reason),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn malformed_ibnetdiscover_is_reported_by_line() {
    let sw = |id: &str, lid: u32| {
        format!("switchguid=0x{id}({id})\nSwitch\t4 \"S-{id:0>16}\"\t\t# \"{id}\" enhanced port 0 lid {lid} lmc 0\n")
    };
    let cases: Vec<(String, usize, &str)> = vec![
        // Truncated in the middle of the remote id.
        (format!("{}[1]\t\"S-00000000", sw("a", 1)), 3, "unterminated"),
        // Truncated before the remote port.
        (format!("{}[1]\t\"S-000000000000000b\"", sw("a", 1)), 3, "remote port"),
        ("Switch\t4x \"a\"\n".into(), 1, "quoted node id"),
        ("\n\nSwitch\t4000000000 \"a\"\n".into(), 3, "65535"),
        ("Switch\t99999999999999999999999 \"a\"\n".into(), 1, "too large"),
        (format!("{}[1]\t\"H-01\"[1]\t\t# \"h\" lid 1x 4xQDR\n", sw("a", 1)), 3, "not a number"),
        (format!("{}[5]\t\"H-01\"[1]\n", sw("a", 1)), 3, "beyond the 4 ports"),
        (format!("{}[1]\t\"H-01\"[1]\n[1]\t\"H-02\"[1]\n", sw("a", 1)), 4, "listed twice"),
        (format!("{}[1]\t\"H-01\"[1]\n[2]\t\"H-01\"[1]\n", sw("a", 1)), 4, "cabled twice"),
        // Ends that disagree: a says b[1], b says a[2].
        (
            format!(
                "{}[1]\t\"S-000000000000000b\"[1]\n\n{}[1]\t\"S-000000000000000a\"[2]\n",
                sw("a", 1),
                sw("b", 2)
            ),
            7,
            "disagree",
        ),
        // Ends that disagree on the speed.
        (
            format!(
                "{}[1]\t\"S-000000000000000b\"[1]\t\t# \"b\" lid 2 4xQDR\n\n{}[1]\t\"S-000000000000000a\"[1]\t\t# \"a\" lid 1 4xEDR\n",
                sw("a", 1),
                sw("b", 2)
            ),
            7,
            "speed",
        ),
        // A LID that disagrees with the peer's section.
        (
            format!(
                "{}[1]\t\"S-000000000000000b\"[1]\t\t# \"b\" lid 9 4xQDR\n\n{}",
                sw("a", 1),
                sw("b", 2)
            ),
            6,
            "lid",
        ),
        (format!("{}[1]\t\"H-01\"[1]\t\t# \"h\" lid 1 4x???\n", sw("a", 1)), 3, "unknown link speed"),
        (format!("{}\n[1]\t\"H-01\"[1]\n", sw("a", 1)), 4, "outside a node section"),
        (format!("{}\n{}", sw("a", 1), sw("a", 1)), 5, "already has a section"),
        (format!("# fabric\n{}garbage here\n", sw("a", 1)), 4, "cannot understand"),
        ("caguid=0x1\nSwitch 2 \"x\"\n".into(), 2, "GUID of a Ca"),
        ("switchguid=0x1\nSwitch 2 \"S-0000000000000002\"\n".into(), 2, "does not match"),
    ];
    for (text, line, reason) in cases {
        let (got_line, got_reason) = parse_error(ibnetdiscover::from_str(&text, "f.ibnet"));
        assert_eq!(got_line, line, "{reason}: {got_reason}\n{text}");
        assert!(
            got_reason.contains(reason),
            "expected '{reason}' in '{got_reason}'\n{text}"
        );
    }
}

#[test]
fn errors_name_the_file_and_line() {
    let e = ibnetdiscover::from_str("Switch 2 \"a\"\n[3]\t\"b\"[1]\n", "fabric.ibnet").unwrap_err();
    assert!(e.to_string().starts_with("fabric.ibnet:2: "), "{e}");
}

#[test]
fn malformed_json_is_reported() {
    let good = json::to_string(&spec::build("crossbar:2").unwrap());
    let cases: Vec<(String, &str)> = vec![
        (
            good.replace("\"version\": 1", "\"version\": 2"),
            "unsupported version 2",
        ),
        (
            good.replace("routelab-network", "other"),
            "not a routelab network",
        ),
        ("3".into(), "invalid type"),
        (
            good.replace("\"name\": \"crossbar:2\"", "\"nmae\": \"x\""),
            "unknown field `nmae`",
        ),
        (
            good.replace("[0, 2, 2, 1, 1]", "[0, 2, 9, 1, 1]"),
            "cables[1]: node 9 does not exist",
        ),
        (
            good.replace("[0, 2, 2, 1, 1]", "[0, 1, 2, 1, 1]"),
            "cabled twice",
        ),
        (
            good.replace("[0, 2, 2, 1, 1]", "[0, 3, 2, 1, 1]"),
            "port 3 does not exist",
        ),
        (
            good.replace("[0, 2, 2, 1, 1]", "[0, 2, 2, 1, 7]"),
            "class 7 does not exist",
        ),
        (good.replace("\"20Gb/s\"", "\"20 furlongs\""), "bandwidth"),
        (good.replace("0x0002c90000000100", "0xnothex"), "GUID"),
        (good.replace("\"ports\":2", "\"ports\":70000"), "u16"),
        (good[..good.len() / 2].to_string(), "EOF"),
    ];
    for (text, reason) in cases {
        assert_ne!(text, good, "the case for '{reason}' changed nothing");
        let (_, got) = parse_error(json::from_str(&text, "f.json"));
        assert!(got.contains(reason), "expected '{reason}' in '{got}'");
    }
    // Errors found while reading carry the line.
    let text = good.replace("0x0002c90000000100", "0xnothex");
    let (line, _) = parse_error(json::from_str(&text, "f.json"));
    assert_eq!(
        text.lines().position(|l| l.contains("0xnothex")).unwrap() + 1,
        line
    );
}

#[test]
fn documented_json_example_reads() {
    let doc = include_str!("../../../../docs/formats.md");
    let start = doc.find("```json\n").unwrap() + "```json\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let net = json::from_str(&doc[start..end], "docs/formats.md").unwrap();
    assert_eq!((net.node_count(), net.cable_count()), (3, 4));
    let storage = net.find("storage01").unwrap();
    assert_eq!(net.port_attrs(storage, PortId(2)).unwrap().lid, 8);
}

#[test]
fn files_by_extension() {
    let dir = std::env::temp_dir().join(format!("routelab-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let net = hand_built();
    for ext in ["json", "ibnet", "topo", "IBND", "txt"] {
        let path = dir.join(format!("fabric.{ext}"));
        io::save(&net, &path).unwrap();
        let back = io::load(&path).unwrap();
        if ext == "json" {
            assert_eq!(back, net);
        } else {
            assert_eq!(back, canonical(&net));
        }
    }
    let dot_path = dir.join("fabric.dot");
    io::save(&net, &dot_path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&dot_path).unwrap(),
        dot::to_string(&net)
    );
    let e = io::load(&dot_path).unwrap_err().to_string();
    assert!(e.contains("write only"), "{e}");
    let xml = dir.join("fabric.xml");
    std::fs::write(&xml, "<?xml version=\"1.0\"?>\n<fabric/>\n").unwrap();
    let e = io::load(&xml).unwrap_err().to_string();
    assert!(
        e.contains("'.xml'") && e.contains(".json") && e.contains(".ibnet"),
        "{e}"
    );
    let missing = dir.join("missing.json");
    let e = io::load(&missing).unwrap_err();
    assert!(
        matches!(&e, TopologyError::Io { path, .. } if path.contains("missing.json")),
        "{e}"
    );
    // The spec registry imports files too.
    let via_spec = spec::build(dir.join("fabric.json").to_str().unwrap()).unwrap();
    assert_eq!(via_spec, net);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reading must not panic; what reads must write and read back the same.
fn check(text: &str) {
    if let Ok(net) = ibnetdiscover::from_str(text, "fuzz") {
        let written = ibnetdiscover::to_string(&net);
        match ibnetdiscover::from_str(&written, "fuzz") {
            Ok(again) => assert_eq!(again, net, "unstable for\n{text}\nwritten as\n{written}"),
            Err(e) => panic!("{e}: written text does not read back\n{text}\nwritten as\n{written}"),
        }
        let _ = dot::to_string(&net);
        assert_eq!(json::from_str(&json::to_string(&net), "fuzz").unwrap(), net);
    }
    let _ = json::from_str(text, "fuzz");
}

/// Numbers mostly small, sometimes at or past the limits.
fn number() -> BoxedStrategy<u64> {
    prop_oneof![
        60 => 1u64..6,
        1 => Just(0u64),
        1 => Just(65535u64),
        1 => Just(65536u64),
        1 => Just(4_000_000_000u64),
        1 => any::<u64>(),
    ]
    .boxed()
}

fn node_id() -> BoxedStrategy<String> {
    prop_oneof![
        12 => prop_oneof![
            Just("S-000000000000000a"),
            Just("S-000000000000000b"),
            Just("H-0000000000000001"),
            Just("H-0000000000000002"),
            Just("R-0000000000000003"),
            Just("plain"),
        ]
        .prop_map(str::to_string),
        1 => "[A-Za-z0-9\\-\"#]{0,6}",
    ]
    .boxed()
}

fn header_line() -> BoxedStrategy<String> {
    let keyword = prop_oneof![Just("Switch"), Just("Ca"), Just("Rt"), Just("Hca")];
    let ports = prop_oneof![6 => Just(8u64), 1 => number()];
    (keyword, ports, node_id(), "[ -~]{0,12}", number())
        .prop_map(|(k, n, id, d, lid)| format!("{k}\t{n} \"{id}\"\t\t# \"{d}\" port 0 lid {lid}"))
        .boxed()
}

fn port_line() -> BoxedStrategy<String> {
    let speed = prop_oneof![
        Just("4xQDR"),
        Just("4xEDR"),
        Just("1xSDR"),
        Just("4x???"),
        Just("switch"),
        Just(""),
    ];
    prop_oneof![
        (number(), node_id(), number()).prop_map(|(p, id, q)| format!("[{p}]\t\"{id}\"[{q}]")),
        (number(), node_id(), number(), number(), speed).prop_map(|(p, id, q, lid, s)| {
            format!("[{p}]\t\"{id}\"[{q}]\t\t# \"d\" lid {lid} {s}")
        }),
        (number(), number(), node_id(), number()).prop_map(|(p, g, id, q)| format!(
            "[{p}]({g:x}) \t\"{id}\"[{q}] ({g:x}) \t\t# lid {p} lmc 0 \"x\" lid {q} 4xQDR"
        )),
    ]
    .boxed()
}

/// Any one line: from the sample, built from the pieces of the format, or noise.
fn any_line() -> BoxedStrategy<String> {
    let sources: Vec<String> = SMALL.lines().map(str::to_string).collect();
    prop_oneof![
        proptest::sample::select(sources),
        header_line(),
        port_line(),
        number().prop_map(|g| format!("switchguid=0x{g:x}({g:x})")),
        number().prop_map(|g| format!("caguid=0x{g:x}")),
        Just(String::new()),
        Just("# routelab class switch 20Gb/s 100ns".to_string()),
        Just("# routelab network fuzzed".to_string()),
        "[ -~\t]{0,30}",
    ]
    .boxed()
}

/// Node sections (a header and its port lines) mixed with single lines.
fn fabric_text() -> impl Strategy<Value = String> {
    let section = (header_line(), proptest::collection::vec(port_line(), 0..5))
        .prop_map(|(h, ports)| format!("{h}\n{}\n", ports.join("\n")));
    proptest::collection::vec(prop_oneof![2 => section, 1 => any_line()], 0..12)
        .prop_map(|parts| parts.join("\n"))
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Replace(usize, char),
    Insert(usize, String),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = 0usize..10_000;
    prop_oneof![
        at.clone().prop_map(Mutation::Delete),
        at.clone().prop_map(Mutation::Duplicate),
        (at.clone(), at.clone()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (
            at.clone(),
            prop_oneof![
                Just('"'),
                Just('['),
                Just(']'),
                Just('#'),
                Just('9'),
                Just('\t'),
                Just(' '),
                any::<char>()
            ]
        )
            .prop_map(|(i, c)| Mutation::Replace(i, c)),
        (at.clone(), "[ -~]{0,8}").prop_map(|(i, s)| Mutation::Insert(i, s)),
        at.prop_map(Mutation::Truncate),
    ]
}

/// Applies mutations to the lines (delete, duplicate, swap) and characters.
fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match m {
            Mutation::Delete(i) => {
                lines.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::Swap(a, b) => lines.swap(a % n, b % n),
            Mutation::Replace(i, c) => {
                let line = &mut lines[i % n];
                let mut chars: Vec<char> = line.chars().collect();
                if !chars.is_empty() {
                    let k = (i / n) % chars.len();
                    chars[k] = *c;
                    *line = chars.into_iter().collect();
                }
            }
            Mutation::Insert(i, s) => {
                let line = &mut lines[i % n];
                let mut chars: Vec<char> = line.chars().collect();
                let k = (i / n) % (chars.len() + 1);
                chars.splice(k..k, s.chars());
                *line = chars.into_iter().collect();
            }
            Mutation::Truncate(i) => {
                let line = &mut lines[i % n];
                let keep = (i / n) % (line.chars().count() + 1);
                *line = line.chars().take(keep).collect();
            }
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1500)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_lines_never_panic(lines in proptest::collection::vec(any_line(), 0..40)) {
        check(&lines.join("\n"));
    }

    #[test]
    fn random_sections_never_panic(text in fabric_text()) {
        check(&text);
    }

    #[test]
    fn mutated_files_never_panic(mutations in proptest::collection::vec(mutation(), 1..6)) {
        check(&mutate(SMALL, &mutations));
        let own = ibnetdiscover::to_string(&hand_built());
        check(&mutate(&own, &mutations));
        let json_text = json::to_string(&hand_built());
        let _ = json::from_str(&mutate(&json_text, &mutations), "fuzz");
    }
}

#[test]
fn an_empty_fabric_file_is_refused() {
    for text in ["", "\n\n# only a comment\n"] {
        let e = ibnetdiscover::from_str(text, "empty.ibnet").unwrap_err();
        assert!(e.to_string().contains("no switch or host"), "{e}");
    }
    // A well-formed routelab file of no node.
    let empty = NetworkBuilder::new("nothing").build().unwrap();
    let e = json::from_str(&json::to_string(&empty), "empty.json").unwrap_err();
    assert!(e.to_string().contains("no switch or host"), "{e}");
}
