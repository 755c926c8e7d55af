//! The paths file: JSON lines, one object per ordered pair of distinct
//! terminals, sources then destinations in terminal order:
//!
//! ```text
//! {"src":"h0","dst":"h2","lane":0,"path":["h0","s0","s1","s2","h2"]}
//! ```
//!
//! `lane` is the pair lane; `path` the node names from source to
//! destination (a name several nodes share has the GUID beside it). When lanes change along the path (torus datelines),
//! `hop_lanes` gives the lane of every hop as well.

use crate::network::Network;
use crate::routing::{LaneRule, Routes, RoutingError};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct Line<'a> {
    src: &'a str,
    dst: &'a str,
    lane: u8,
    path: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hop_lanes: Option<Vec<u8>>,
}

/// Writes the paths file of `routes` to `out`. Fails on a loop or black
/// hole (naming the pair) or when writing fails.
pub fn write_paths(
    net: &Network,
    routes: &Routes,
    out: &mut dyn Write,
) -> Result<(), RoutingError> {
    super::check_size(net, routes)?;
    let t = net.terminals().len();
    let per_hop = !matches!(routes.lane_rule(), LaneRule::Fixed);
    // Names, with the GUID beside those that several nodes share.
    let labels: Vec<_> = net.node_ids().map(|v| net.label(v)).collect();
    let name = |v: crate::network::NodeId| labels[v.index()].as_ref();
    let mut buf = Vec::new();
    for s in 0..t {
        for d in (0..t).filter(|&d| d != s) {
            let (channels, lanes) = routes.path_lanes(net, s, d)?;
            let mut path = Vec::with_capacity(channels.len() + 1);
            path.push(name(net.terminal(s)));
            path.extend(channels.iter().map(|&c| name(net.channel(c).dst)));
            let line = Line {
                src: name(net.terminal(s)),
                dst: name(net.terminal(d)),
                lane: routes.lane(s, d),
                path,
                hop_lanes: per_hop.then_some(lanes),
            };
            buf.clear();
            serde_json::to_writer(&mut buf, &line).map_err(|e| RoutingError::Io {
                path: "paths".into(),
                reason: e.to_string(),
            })?;
            buf.push(b'\n');
            out.write_all(&buf).map_err(|e| RoutingError::Io {
                path: "paths".into(),
                reason: format!("cannot write: {e}"),
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{route, RoutingOptions};

    #[test]
    fn one_line_per_pair() {
        let net = spec::build("torus:3").unwrap();
        let r = route(&net, "minhop", &RoutingOptions::default()).unwrap();
        let mut out = Vec::new();
        write_paths(&net, &r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 6);
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"src":"h0","dst":"h1","lane":0,"path":["h0","s0","s1","h1"]}"#
        );
    }

    #[test]
    fn dateline_routes_give_hop_lanes() {
        let net = spec::build("torus:4").unwrap();
        let r = route(&net, "dor", &RoutingOptions::default()).unwrap();
        let mut out = Vec::new();
        write_paths(&net, &r, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(r#""hop_lanes":[0,0,1,1]"#), "{text}");
    }
}
