//! The text `ibnetdiscover` prints and ibsim reads: what fabric
//! administrators already have.
//!
//! ```text
//! switchguid=0x2c902004a0950(2c902004a0950)
//! Switch  36 "S-0002c902004a0950"     # "leaf-1" enhanced port 0 lid 1 lmc 0
//! [1]     "H-0002c9030001e3f2"[1](2c9030001e3f3)      # "node01 HCA-1" lid 5 4xQDR
//! [35]    "S-0002c902004a0a10"[35]    # "leaf-2" lid 2 4xQDR
//!
//! caguid=0x2c9030001e3f2
//! Ca      1 "H-0002c9030001e3f2"      # "node01 HCA-1"
//! [1](2c9030001e3f3)  "S-0002c902004a0950"[1]   # lid 5 lmc 0 "leaf-1" lid 1 4xQDR
//! ```
//!
//! Reading: a node is named by its description (else its id); `Rt` routers
//! become switches; a link listed from both ends becomes one cable (the ends
//! must agree); a node cabled to but never given a section is created when
//! its id says its kind (`S-`, `H-`, `R-`); each link speed (`4xQDR`)
//! becomes a class named by it, with its data rate. Links without a speed
//! (ibsim files) get the `switch` / `terminal` classes of generated
//! networks. Cables come out in a canonical order, so the order of the file
//! does not matter. Errors name the file and the 1-based line.
//!
//! See `docs/formats.md` for what each direction of a round trip keeps.

mod line;
mod read;
mod speed;
mod write;

use super::{Network, TopologyError};
use crate::units::{Bandwidth, Picos};

/// Bandwidth of links without a speed; that of generated networks.
const DEFAULT_BANDWIDTH: Bandwidth = Bandwidth(20_000_000_000);

/// Latency of classes read from a speed word: the format carries none, so
/// that of generated networks.
const DEFAULT_LATENCY: Picos = Picos(100_000);

/// Reads ibnetdiscover (or ibsim) text. `origin` names the file in errors
/// and, by its stem, the network when the text does not name it.
pub fn from_str(text: &str, origin: &str) -> Result<Network, TopologyError> {
    read::read(text, origin).and_then(|net| super::not_empty(net, origin))
}

/// The ibnetdiscover text of a network.
pub fn to_string(net: &Network) -> String {
    write::write(net)
}

/// Text with control characters made spaces, as ibnetdiscover prints
/// node descriptions.
pub(crate) fn clean_text(text: &str) -> String {
    read::clean(text)
}

/// The data rate of an InfiniBand link speed such as `4xQDR` (32Gb/s) or
/// `4xEDR` (100Gb/s), if `speed` is one.
pub fn data_rate(speed: &str) -> Option<Bandwidth> {
    speed::data_rate(speed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::NetworkBuilder;

    #[test]
    fn defaults_are_those_of_generated_networks() {
        let (b, s, _) = NetworkBuilder::with_default_classes("t");
        let net = b.build().unwrap();
        let class = net.class(s);
        assert_eq!(
            (class.bandwidth, class.latency),
            (DEFAULT_BANDWIDTH, DEFAULT_LATENCY)
        );
    }

    #[test]
    fn ibsim_file_gets_generated_classes() {
        let text = "Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[3]\t\"Switch2\"[3]\n\n\
                    Switch 8 \"Switch2\"\n[3]\t\"Switch1\"[3]\n\nHca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n";
        let net = from_str(text, "net.ibsim").unwrap();
        assert_eq!(net.name(), "net");
        assert_eq!(net.cable_count(), 2);
        let names: Vec<_> = net.classes().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["terminal", "switch"]);
        assert_eq!(net.node(crate::NodeId(2)).name, "Hca1");
        assert_eq!(net.node(crate::NodeId(2)).guid, 0);
    }

    #[test]
    fn sectionless_peers_are_created_from_their_prefix() {
        let text = "Switch 4 \"S-00000000000000aa\" # \"sw\" base port 0 lid 1\n\
                    [1]\t\"H-00000000000000bb\"[2](bc)\t\t# \"host\" lid 7 4xQDR\n\
                    [2]\t\"S-00000000000000cc\"[3]\t\t# \"other\" lid 9 4xQDR\n";
        let net = from_str(text, "x").unwrap();
        assert_eq!(net.node_count(), 3);
        let h = net.find("host").unwrap();
        assert!(net.is_terminal(h));
        assert_eq!(
            (net.node(h).guid, net.node(h).ports, net.node(h).lid),
            (0xbb, 2, 7)
        );
        let a = net.port_attrs(h, crate::PortId(2)).unwrap();
        assert_eq!((a.guid, a.lid), (0xbc, 7));
        let o = net.find("other").unwrap();
        assert!(net.is_switch(o));
        assert_eq!((net.node(o).ports, net.node(o).lid), (3, 9));
        let e = from_str("Switch 4 \"a\"\n[1]\t\"mystery\"[1]\n", "x").unwrap_err();
        assert!(
            e.to_string().contains("x:2:") && e.to_string().contains("kind is unknown"),
            "{e}"
        );
    }

    #[test]
    fn routers_become_switches() {
        let text = "rtguid=0x10\nRt\t2 \"R-0000000000000010\"\t\t# \"gw\"\n\
                    [1](11) \t\"S-0000000000000020\"[1]\t\t# lid 4 lmc 0 \"sw\" lid 2 4xEDR\n";
        let net = from_str(text, "x").unwrap();
        let gw = net.find("gw").unwrap();
        assert!(net.is_switch(gw));
        assert_eq!((net.node(gw).guid, net.node(gw).lid), (0x10, 4));
        assert_eq!(
            net.class(crate::ClassId(0)).bandwidth,
            Bandwidth(100_000_000_000)
        );
    }

    #[test]
    fn a_listing_cut_short_is_refused_naming_the_line() {
        let net = crate::network::spec::build("kary-ntree:k=4,n=3").unwrap();
        let text = to_string(&net);
        assert!(from_str(&text, "whole.ibnet").is_ok());
        // `head -n 60`: the later nodes' sections are gone, their cables
        // from the first nodes remain.
        let head: String = text.lines().take(60).map(|l| format!("{l}\n")).collect();
        let e = from_str(&head, "cut.ibnet").unwrap_err().to_string();
        assert!(
            e.contains("cut.ibnet:") && e.contains("the file is cut"),
            "{e}"
        );
    }
}
