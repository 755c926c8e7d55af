//! Graphviz DOT export, to look at a network: switches are boxes,
//! terminals ellipses, and each cable one undirected edge labelled with
//! the port at each end. Write only: DOT has no place for classes or
//! identities, so read `.json` or ibnetdiscover files instead.

use std::fmt::Write;

use super::super::{Network, NodeKind};

/// A DOT string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The DOT text of a network; node `n<i>` is node `i`.
pub fn to_string(net: &Network) -> String {
    let mut out = String::with_capacity(48 * (net.node_count() + net.cable_count()) + 128);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "graph {} {{", quoted(net.name()));
    let _ = writeln!(out, "  node [fontsize=10];");
    let _ = writeln!(out, "  edge [fontsize=8];");
    for id in net.node_ids() {
        let n = net.node(id);
        let shape = match n.kind {
            NodeKind::Switch => "box",
            NodeKind::Terminal => "ellipse",
        };
        let _ = writeln!(
            out,
            "  n{} [label={}, shape={shape}];",
            id.0,
            quoted(&n.name)
        );
    }
    for pair in net.channels().chunks(2) {
        let c = pair[0];
        let _ = writeln!(
            out,
            "  n{} -- n{} [taillabel=\"{}\", headlabel=\"{}\"];",
            c.src.0, c.dst.0, c.src_port.0, c.dst_port.0
        );
    }
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn one_edge_per_cable() {
        let net = spec::build("crossbar:3").unwrap();
        let dot = to_string(&net);
        assert!(dot.starts_with("graph \"crossbar:3\" {\n"), "{dot}");
        assert!(dot.contains("  n0 [label=\"s0\", shape=box];"), "{dot}");
        assert!(dot.contains("  n1 [label=\"h0\", shape=ellipse];"), "{dot}");
        assert!(
            dot.contains("  n0 -- n1 [taillabel=\"1\", headlabel=\"1\"];"),
            "{dot}"
        );
        assert_eq!(dot.matches(" -- ").count(), net.cable_count());
        assert!(dot.ends_with("}\n"));
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(quoted("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd e\"");
    }
}
