//! ORCS-style DOT: topology and routing in one file, as the ORCS
//! congestion simulator takes them: a directed graph with one edge per
//! channel, whose `comment` lists the destination terminals routed over it.
//!
//! ```text
//! digraph "torus:3" {
//!   "s0" -> "s1" [comment="h1"];
//!   "h0" -> "s0" [comment="*"];
//!   "s0" -> "h0" [comment="h0"];
//! }
//! ```
//!
//! Edges come in channel order. A terminal's injection edge carries every
//! destination but itself, written `*`; other edges list destination names,
//! comma-separated, in terminal order (empty when no route uses the edge).

use super::{check_size, one_line};
use crate::network::{ChannelId, Network};
use crate::routing::{Routes, RoutingError};
use std::fmt::Write;

/// A DOT string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in one_line(text).chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The ORCS-style DOT text of `routes`. Fails on a loop or black hole,
/// naming the pair.
pub fn write_orcs_dot(net: &Network, routes: &Routes) -> Result<String, RoutingError> {
    check_size(net, routes)?;
    let t = net.terminals().len();
    // The channel each terminal injects on, and the terminals by the
    // switch they inject into (a path is shared after the injection hop).
    let inject: Vec<Option<ChannelId>> = net
        .terminals()
        .iter()
        .map(|&h| {
            net.out_channels(h)
                .iter()
                .copied()
                .find(|&c| net.is_switch(net.channel(c).dst))
        })
        .collect();
    let mut by_switch: Vec<Vec<usize>> = vec![Vec::new(); net.switches().len()];
    for (s, c) in inject.iter().enumerate() {
        if let Some(c) = c {
            by_switch[net.kind_index(net.channel(*c).dst)].push(s);
        }
    }
    let mut dests: Vec<Vec<u32>> = vec![Vec::new(); net.channel_count()];
    let mut mark = vec![u32::MAX; net.channel_count()];
    for d in 0..t {
        for sources in &by_switch {
            let Some(&s) = sources.iter().find(|&&s| s != d) else {
                continue;
            };
            for c in routes.path(net, s, d)?.into_iter().skip(1) {
                if mark[c.index()] != d as u32 {
                    mark[c.index()] = d as u32;
                    dests[c.index()].push(d as u32);
                }
            }
        }
    }
    let injecting: Vec<bool> = {
        let mut v = vec![false; net.channel_count()];
        if t > 1 {
            for c in inject.iter().flatten() {
                v[c.index()] = true;
            }
        }
        v
    };
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quoted(net.name()));
    for c in net.channel_ids() {
        let ch = net.channel(c);
        let comment = if injecting[c.index()] {
            "*".to_string()
        } else {
            dests[c.index()]
                .iter()
                .map(|&d| one_line(&net.node(net.terminal(d as usize)).name))
                .collect::<Vec<_>>()
                .join(",")
        };
        let _ = writeln!(
            out,
            "  {} -> {} [comment={}];",
            quoted(&net.node(ch.src).name),
            quoted(&net.node(ch.dst).name),
            quoted(&comment)
        );
    }
    let _ = writeln!(out, "}}");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{route, RoutingOptions};

    #[test]
    fn a_ring_lists_destinations_per_edge() {
        let net = spec::build("torus:3").unwrap();
        let r = route(&net, "minhop", &RoutingOptions::default()).unwrap();
        let dot = write_orcs_dot(&net, &r).unwrap();
        assert!(dot.starts_with("digraph \"torus:3\" {\n"), "{dot}");
        assert_eq!(dot.matches(" -> ").count(), net.channel_count());
        assert!(dot.contains("  \"h0\" -> \"s0\" [comment=\"*\"];"), "{dot}");
        assert!(
            dot.contains("  \"s0\" -> \"h0\" [comment=\"h0\"];"),
            "{dot}"
        );
        // On a 3-ring every other switch is one hop away: s0 -> s1 carries h1.
        assert!(
            dot.contains("  \"s0\" -> \"s1\" [comment=\"h1\"];"),
            "{dot}"
        );
        assert!(dot.ends_with("}\n"));
    }

    #[test]
    fn broken_routes_are_reported() {
        let net = spec::build("torus:3").unwrap();
        let r = Routes::new(&net, "empty");
        let e = write_orcs_dot(&net, &r).unwrap_err();
        assert!(matches!(e, RoutingError::BlackHole { .. }), "{e}");
    }
}
