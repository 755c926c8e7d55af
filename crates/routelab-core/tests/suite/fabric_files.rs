//! The fabric files an administrator has besides ibnetdiscover's topology:
//! `ibnetdiscover -p` reports and `opensm-subnet.lst`, ibsim net files, and
//! files whose extension names no format. Each reads to the same fabric as
//! the topology it was written from (cables, ports, GUIDs, LIDs, speeds),
//! malformed lines are named, and the format is told from the content.

use proptest::prelude::*;
use routelab_core::network::io::{self, ibnetdiscover, ports_report, subnet_lst, Format};
use routelab_core::network::{spec, Network, NodeKind};
use routelab_core::PortId;
use std::collections::BTreeSet;

const SMALL: &str = include_str!("../../../../examples/fabrics/small.ibnet");

/// What a cable-list format can carry of a fabric: every cable end by node
/// description and port, with the speed class, each node's kind, GUID and
/// LID, and each adapter port's GUID and LID.
fn essence(net: &Network) -> (BTreeSet<String>, BTreeSet<String>) {
    essence_with(net, true)
}

/// [`essence`], without adapters' node GUIDs when `adapter_guids` is false:
/// a ports report shows only port GUIDs, and adapters that give a port the
/// node's own GUID (generated fabrics, ibsim) do not tell it.
fn essence_with(net: &Network, adapter_guids: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut nodes = BTreeSet::new();
    let mut cables = BTreeSet::new();
    for id in net.node_ids() {
        let n = net.node(id);
        let guid = if adapter_guids || n.kind == NodeKind::Switch {
            n.guid
        } else {
            0
        };
        nodes.insert(format!("{:?} {} {guid:x} {}", n.kind, n.name, n.lid));
        for p in 1..=n.ports {
            let Some(c) = net.channel_at(id, PortId(p)) else {
                continue;
            };
            let ch = net.channel(c);
            let attrs = |node, port| match net.node(node).kind {
                NodeKind::Terminal => {
                    let (g, l) = net.port_attrs(node, port).map_or_else(
                        || (net.node(node).guid, net.node(node).lid),
                        |a| (a.guid, a.lid),
                    );
                    format!("{g:x}/{l}")
                }
                NodeKind::Switch => String::new(),
            };
            cables.insert(format!(
                "{}[{}]{} -> {}[{}]{} {}",
                n.name,
                p,
                attrs(id, PortId(p)),
                net.node(ch.dst).name,
                ch.dst_port.0,
                attrs(ch.dst, ch.dst_port),
                net.class(ch.class).name
            ));
        }
    }
    (nodes, cables)
}

fn small() -> Network {
    ibnetdiscover::from_str(SMALL, "small.ibnet").unwrap()
}

#[test]
fn the_ports_report_reads_as_the_topology() {
    let net = small();
    let text = ports_report::to_string(&net);
    assert!(
        text.lines().any(|l| l.starts_with("CA")
            && l.contains("0xe41d2d0300a1b2c1 4x EDR - SW")
            && l.contains("( 'node01 mlx5_0' - 'MF0;leaf-1:SX6036/U1' )")),
        "{text}"
    );
    let back = ports_report::from_str(&text, "fabric.ports").unwrap();
    assert_eq!(essence(&back), essence(&net));
    // Dual-homed storage stays one node with two ports.
    let storage = back.find("storage01 mlx5_0").unwrap();
    assert_eq!(back.node(storage).ports, 2);
}

#[test]
fn subnet_lst_reads_as_the_topology() {
    let net = small();
    let text = subnet_lst::to_string(&net);
    assert!(
        text.lines()
            .all(|l| l.ends_with("PHY=4x LOG=ACT SPD=25") || l.ends_with("PHY=4x LOG=ACT SPD=14")),
        "{text}"
    );
    let back = subnet_lst::from_str(&text, "opensm-subnet.lst").unwrap();
    assert_eq!(essence(&back), essence(&net));
    // Port counts come with the records.
    let leaf = back.find("MF0;leaf-1:SX6036/U1").unwrap();
    assert_eq!(back.node(leaf).ports, 36);
}

/// A report as the tool prints it, down ports and a two-port adapter included.
const REPORT: &str = "\
SW     1 36 0x0002c902004a0950 4x EDR - SW     2 36 0x0002c902004a0a10 ( 'leaf-1' - 'leaf-2' )
SW     1 35 0x0002c902004a0950 4x EDR - SW     2 35 0x0002c902004a0a10 ( 'leaf-1' - 'leaf-2' )
SW     1 20 0x0002c902004a0950 4x ???                                    'leaf-1'
SW     1  2 0x0002c902004a0950 4x EDR - CA     8  2 0x248a070300c0ffe2 ( 'leaf-1' - 'storage01 mlx5_0' )
SW     1  1 0x0002c902004a0950 4x FDR - CA     3  1 0xe41d2d0300a1b2c1 ( 'leaf-1' - 'node01 mlx5_0' )
SW     2 36 0x0002c902004a0a10 4x EDR - SW     1 36 0x0002c902004a0950 ( 'leaf-2' - 'leaf-1' )
SW     2 35 0x0002c902004a0a10 4x EDR - SW     1 35 0x0002c902004a0950 ( 'leaf-2' - 'leaf-1' )
SW     2  1 0x0002c902004a0a10 4x EDR - CA     7  1 0x248a070300c0ffe1 ( 'leaf-2' - 'storage01 mlx5_0' )
CA     3  1 0xe41d2d0300a1b2c1 4x FDR - SW     1  1 0x0002c902004a0950 ( 'node01 mlx5_0' - 'leaf-1' )
CA     7  1 0x248a070300c0ffe1 4x EDR - SW     2  1 0x0002c902004a0a10 ( 'storage01 mlx5_0' - 'leaf-2' )
CA     8  2 0x248a070300c0ffe2 4x EDR - SW     1  2 0x0002c902004a0950 ( 'storage01 mlx5_0' - 'leaf-1' )
";

#[test]
fn a_real_style_report_reads() {
    let net = ports_report::from_str(REPORT, "report").unwrap();
    assert_eq!((net.switches().len(), net.terminals().len()), (2, 2));
    assert_eq!(net.cable_count(), 5);
    let storage = net.find("storage01 mlx5_0").unwrap();
    assert_eq!(net.node(storage).guid, 0x248a070300c0ffe0);
    let p2 = net.port_attrs(storage, PortId(2)).unwrap();
    assert_eq!((p2.guid, p2.lid), (0x248a070300c0ffe2, 8));
    let leaf = net.find("leaf-1").unwrap();
    assert_eq!(net.node(leaf).lid, 1);
    let classes: BTreeSet<_> = net.classes().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(classes, BTreeSet::from(["4xEDR", "4xFDR"]));
}

#[test]
fn malformed_lines_are_named() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "ports",
            "SW 1 1 0x10 4x EDR - CA 3 1 0x21 ( 'a' - 'b' )\nSW x 1 0x10 4x EDR\n",
            ":2:",
            "LID",
        ),
        (
            "ports",
            "SW 1 1 0x10 4x EDR - CA 3 1 0x21 'a' - 'b'\n",
            ":1:",
            "parentheses",
        ),
        (
            "ports",
            "SW 1 1 0x10 4x EDR - CA 3 1 0x21 ( 'a' - 'b' )\n\
             SW 1 1 0x10 4x EDR - CA 4 1 0x31 ( 'a' - 'c' )\n",
            ":2:",
            "line 1",
        ),
        (
            "subnet-lst",
            "{ SW Ports:08 SystemGUID:10 NodeGUID:10 PortGUID:10 VenID:0 DevID:0 Rev:0 {a} \
             LID:0001 PN:01 } { XX Ports:01 }\n",
            ":1:",
            "second node",
        ),
        (
            "subnet-lst",
            "{ SW Ports:08 SystemGUID:10 NodeGUID:zz PortGUID:10 VenID:0 DevID:0 Rev:0 {a} \
             LID:0001 PN:01 } { CA Ports:01 SystemGUID:20 NodeGUID:20 PortGUID:21 VenID:0 \
             DevID:0 Rev:0 {b} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=25\n",
            ":1:",
            "NodeGUID",
        ),
    ];
    for (format, text, line, word) in cases {
        let f = Format::parse(format).unwrap();
        let e = io::parse(text, f, "f").unwrap_err().to_string();
        assert!(
            e.contains(&format!("f{line}")) && e.contains(word),
            "{format}: {e}"
        );
    }
}

#[test]
fn the_format_is_told_from_the_content() {
    let net = small();
    let dir = std::env::temp_dir().join(format!("routelab-sniff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, format) in [
        ("ibnetdiscover.out", Format::Ibnetdiscover),
        ("topology", Format::Ibnetdiscover),
        ("ports.out", Format::Ports),
        ("subnet", Format::SubnetLst),
        ("fabric.xml", Format::Json),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, io::to_string(&net, format)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Format::sniff(&text), Some(format), "{file}");
        let back = io::load(&path).unwrap();
        assert_eq!(essence(&back), essence(&net), "{file}");
        // The spec registry reads them too.
        let via_spec = spec::build(path.to_str().unwrap()).unwrap();
        assert_eq!(essence(&via_spec), essence(&net), "{file}");
    }
    // A named format wins over the extension.
    let path = dir.join("fabric.txt");
    std::fs::write(&path, io::to_string(&net, Format::Ports)).unwrap();
    let back = io::load_as(&path, Some(Format::Ports)).unwrap();
    assert_eq!(essence(&back), essence(&net));
    // Content that is no fabric says so and how to name the format.
    let path = dir.join("notes");
    std::fs::write(&path, "<?xml version=\"1.0\"?>\n").unwrap();
    let e = io::load(&path).unwrap_err().to_string();
    assert!(e.contains("--format") && e.contains("subnet-lst"), "{e}");
    let e = Format::parse("xml").unwrap_err().to_string();
    assert!(e.contains("ibnetdiscover") && e.contains("ports"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An ibsim net file: `Hca`, quoted free-form ids, no GUIDs, an adapter
/// with both ports on one switch, link widths as options.
#[test]
fn ibsim_net_files_read() {
    let text = "# two switches, two adapters with two ports each\n\
                Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[2]\t\"Hca1\"[2]\n[3]\t\"Switch2\"[3]\tw=4\n\
                [5]\t\"Switch2\"[5]\n\n\
                Switch 8 \"Switch2\"\n[1]\t\"Hca2\"[1]\n[2]\t\"Hca2\"[2]\n[3]\t\"Switch1\"[3]\n\
                [5]\t\"Switch1\"[5]\n\n\
                Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n[2]\t\"Switch1\"[2]\n\n\
                Hca\t2 \"Hca2\"\n[1]\t\"Switch2\"[1]\n[2]\t\"Switch2\"[2]\n";
    assert_eq!(Format::sniff(text), Some(Format::Ibnetdiscover));
    let net = io::parse(text, Format::parse("ibsim").unwrap(), "net.2sw").unwrap();
    assert_eq!((net.switches().len(), net.terminals().len()), (2, 2));
    assert_eq!(net.cable_count(), 6);
    let hca = net.find("Hca1").unwrap();
    assert_eq!(net.node(hca).ports, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Generated fabrics round-trip through both cable lists.
    #[test]
    fn generated_fabrics_round_trip(spec_i in 0usize..4, seed in 1u64..50) {
        let specs = [
            format!("random:switches=6,ports=8,hosts=2,seed={seed}"),
            "kary-ntree:k=4,n=2".to_string(),
            "torus:3x3".to_string(),
            "clos:ports=8,hosts=12".to_string(),
        ];
        let gen = spec::build(&specs[spec_i]).unwrap();
        // Through ibnetdiscover first: GUIDs and LIDs as a fabric has them.
        let net = ibnetdiscover::from_str(&ibnetdiscover::to_string(&gen), "g").unwrap();
        for format in [Format::Ports, Format::SubnetLst] {
            let back = io::parse(&io::to_string(&net, format), format, "g").unwrap();
            let guids = format == Format::SubnetLst;
            prop_assert_eq!(essence_with(&back, guids), essence_with(&net, guids));
        }
    }

    /// Random lines never panic either reader.
    #[test]
    fn random_text_never_panics(lines in proptest::collection::vec("[ -~]{0,80}", 0..6)) {
        let text = lines.join("\n");
        let _ = io::parse(&text, Format::Ports, "f");
        let _ = io::parse(&text, Format::SubnetLst, "f");
        let _ = Format::sniff(&text);
    }
}
