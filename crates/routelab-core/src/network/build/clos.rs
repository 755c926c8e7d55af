//! Folded 3-stage Clos networks of P-port crossbars (the Myrinet layout of
//! Geoffray & Hoefler 2008).
//!
//! Each leaf crossbar has P/2 hosts and P/2 uplinks, one to each of the P/2
//! spine crossbars; a full network has P leaves and P²/2 hosts (512 for
//! 32-port crossbars). Fewer hosts populate only the leaves they need, the
//! last possibly partially, so the spines keep free ports for growth.
//!
//! Numbering: leaves, then spines, then hosts; host `h` is on leaf
//! `h / (P/2)`. Leaf ports `1..=P/2` hold hosts (host `h` on port
//! `h % (P/2) + 1`), leaf port `P/2 + 1 + s` leads to spine `s`, and spine
//! port `l + 1` leads to leaf `l`.

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, PortId, Structure, TopologyError};

use super::bad_param;

/// The largest crossbar the generator accepts (P²/2 hosts must stay modest).
const MAX_PORTS: u32 = 2048;

pub const CLOS: Family = Family {
    name: "clos",
    usage: "clos:ports=32,hosts=512  (P-port crossbars, up to P^2/2 hosts)",
    keys: &["ports", "hosts"],
    positional: None,
    generate: |a| {
        let ports = a.u32("ports", None, 2, MAX_PORTS)?;
        let hosts = a.u32("hosts", None, 1, u32::MAX)?;
        clos(ports, hosts)
    },
};

/// A folded 3-stage Clos of `ports`-port crossbars with `hosts` hosts.
pub fn clos(ports: u32, hosts: u32) -> Result<Network, TopologyError> {
    if !(2..=MAX_PORTS).contains(&ports) || ports % 2 == 1 {
        return Err(bad_param(
            "clos",
            "ports",
            ports,
            format!("an even integer in 2..={MAX_PORTS}"),
        ));
    }
    let half = ports / 2;
    let max_hosts = ports * half;
    if hosts == 0 || hosts > max_hosts {
        return Err(bad_param(
            "clos",
            "hosts",
            hosts,
            format!("an integer in 1..={max_hosts} (ports^2/2 for {ports}-port crossbars)"),
        ));
    }
    let leaves = hosts.div_ceil(half);
    let spines = half;
    let (mut b, sw_class, t_class) =
        NetworkBuilder::with_default_classes(format!("clos:ports={ports},hosts={hosts}"));
    for l in 0..leaves {
        b.add_switch(format!("leaf{l}"), ports as u16);
    }
    for s in 0..spines {
        b.add_switch(format!("spine{s}"), ports as u16);
    }
    for l in 0..leaves {
        for s in 0..spines {
            b.connect(
                NodeId(l),
                PortId((half + 1 + s) as u16),
                NodeId(leaves + s),
                PortId(l as u16 + 1),
                sw_class,
            )?;
        }
    }
    for h in 0..hosts {
        let t = b.add_terminal(format!("h{h}"), 1);
        b.connect(
            NodeId(h / half),
            PortId((h % half + 1) as u16),
            t,
            PortId(1),
            t_class,
        )?;
    }
    b.set_structure(Structure::Clos {
        ports,
        leaves,
        spines,
        hosts_per_leaf: half,
    });
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::{count_shortest_paths, is_connected};

    #[test]
    fn myrinet_512() {
        let net = clos(32, 512).unwrap();
        assert_eq!(net.switches().len(), 32 + 16);
        assert_eq!(net.terminals().len(), 512);
        assert!(is_connected(&net));
        for &s in net.switches() {
            assert_eq!(net.degree(s), 32);
        }
        let t = |i| net.terminal(i);
        assert_eq!(count_shortest_paths(&net, t(0), t(16)), 16);
        assert_eq!(count_shortest_paths(&net, t(5), t(511)), 16);
        assert_eq!(count_shortest_paths(&net, t(0), t(15)), 1);
        assert_eq!(net.attached_switch(t(17)), Some(NodeId(1)));
        // Leaf 3's uplink to spine 2, arriving on the spine's port 4.
        let c = net.channel_at(NodeId(3), PortId(16 + 1 + 2)).unwrap();
        assert_eq!(net.channel(c).dst, NodeId(32 + 2));
        assert_eq!(net.channel(c).dst_port, PortId(4));
    }

    #[test]
    fn partial_populates_fewer_leaves() {
        let net = clos(8, 10).unwrap();
        // ceil(10 / 4) = 3 leaves, the last with 2 hosts; 4 spines.
        assert_eq!(net.switches().len(), 3 + 4);
        assert_eq!(net.terminals().len(), 10);
        assert!(is_connected(&net));
        assert_eq!(net.degree(NodeId(2)), 2 + 4);
        assert_eq!(net.degree(NodeId(3)), 3);
        assert_eq!(
            net.structure(),
            &Structure::Clos {
                ports: 8,
                leaves: 3,
                spines: 4,
                hosts_per_leaf: 4
            }
        );
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = clos(32, 513).unwrap_err().to_string();
        assert!(e.contains("'hosts'") && e.contains("1..=512"), "{e}");
        let e = clos(7, 4).unwrap_err().to_string();
        assert!(e.contains("'ports'") && e.contains("even"), "{e}");
        assert!(clos(0, 1).is_err());
        assert!(clos(4, 0).is_err());
        let e = crate::network::spec::build("clos:ports=32,hosts=600")
            .unwrap_err()
            .to_string();
        assert!(e.contains("1..=512"), "{e}");
    }
}
