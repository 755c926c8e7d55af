//! A single crossbar switch with every terminal on it.

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, PortId, Structure, TopologyError};

pub const CROSSBAR: Family = Family {
    name: "crossbar",
    usage: "crossbar:32  (one switch with N terminals)",
    keys: &["n"],
    positional: Some("n"),
    generate: |a| {
        let n = a
            .positional_or("n")
            .ok_or_else(|| TopologyError::MissingKey {
                family: "crossbar".into(),
                key: "n".into(),
                hint: "the number of terminals, e.g. crossbar:32".into(),
            })?
            .to_string();
        crossbar(a.parse_u32("n", &n, 1, u32::from(u16::MAX))?)
    },
};

/// One switch with `n` ports and a terminal on each.
pub fn crossbar(n: u32) -> Result<Network, TopologyError> {
    if n == 0 || n > u32::from(u16::MAX) {
        return Err(TopologyError::impossible(format!(
            "crossbar with n = {n} terminals: valid 1..=65535"
        )));
    }
    let (mut b, _, t_class) = NetworkBuilder::with_default_classes(format!("crossbar:{n}"));
    let sw = b.add_switch("s0", n as u16);
    for i in 0..n {
        let t = b.add_terminal(format!("h{i}"), 1);
        b.connect(sw, PortId(i as u16 + 1), t, PortId(1), t_class)?;
    }
    b.set_structure(Structure::Crossbar { terminals: n });
    b.build()
}
