//! Source routes as text (Myrinet style, flich2000 Fig. 1 and 4): one line
//! per route, the source and destination terminal by name, then the output
//! port the packet takes at every switch it crosses. A `|` after a port
//! marks an in-transit host: that port led to a host, which re-injects the
//! packet, and the ports after the mark apply from the switch it injects
//! into (the ITB mark of Fig. 4).
//!
//! ```text
//! # routelab source routes of 'random:switches=16,ports=8,hosts=4,seed=1', routes 'itb'
//! h0 h5: 6 7 3
//! h0 h9: 6 5 | 8 2
//! ```
//!
//! A pair may have several lines (several routes, chosen per packet); a
//! name with white space, `:` or `"` is written in double quotes. Reading
//! gives [`Routes`] with a [`PathSet`] and no forwarding tables; every
//! pair of terminals attached to switches needs a route.

use super::super::{PathKey, PathSet, Routes, RoutingError};
use crate::network::{ChannelId, Network, NodeId, PortId};
use std::collections::HashMap;
use std::fmt::Write;

/// The routes' source routes as text: every path of every pair.
pub fn write_source_routes(net: &Network, routes: &Routes) -> Result<String, RoutingError> {
    super::check_size(net, routes)?;
    if routes.lanes() > 1 {
        return Err(RoutingError::Mismatch {
            what: format!(
                "source routes carry no lanes, and the routes of {} use {}: they would read \
                 back on one lane",
                routes.engine(),
                routes.lanes()
            ),
        });
    }
    let mut out = format!(
        "# routelab source routes of '{}', routes '{}'\n\
         # source destination: output port at each switch; '|' marks an in-transit host\n",
        net.name(),
        routes.engine()
    );
    let t = net.terminals().len();
    for s in 0..t {
        for d in (0..t).filter(|&d| d != s) {
            for (channels, _) in routes.all_paths(net, s, d)? {
                let _ = write!(
                    out,
                    "{} {}:",
                    quoted(&net.label(net.terminal(s))),
                    quoted(&net.label(net.terminal(d)))
                );
                for &c in &channels {
                    let ch = net.channel(c);
                    if net.is_switch(ch.src) {
                        let _ = write!(out, " {}", ch.src_port.0);
                    } else if c != channels[0] {
                        out.push_str(" |");
                    }
                }
                out.push('\n');
            }
        }
    }
    Ok(out)
}

fn quoted(name: &str) -> String {
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == ':' || c == '"') {
        format!("\"{}\"", name.replace('"', "'"))
    } else {
        name.to_string()
    }
}

/// Reads source routes for `net` (`origin` names the text in errors).
pub fn read_source_routes(net: &Network, text: &str, origin: &str) -> Result<Routes, RoutingError> {
    let err = |line: usize, reason: String| RoutingError::Parse {
        file: origin.to_string(),
        line,
        reason,
    };
    let t = net.terminals().len();
    let index: HashMap<String, usize> = (0..t)
        .map(|i| (net.label(net.terminal(i)).into_owned(), i))
        .collect();
    let mut by_pair: Vec<Vec<Vec<ChannelId>>> = Vec::new();
    by_pair.resize_with(t * t, Vec::new);
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let body = raw.trim();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let (src, rest) = name_token(body)
            .ok_or_else(|| err(line, "expected 'source destination: ports'".into()))?;
        let (dst, rest) = name_token(rest.trim_start())
            .ok_or_else(|| err(line, "expected a destination after the source".into()))?;
        let dst = dst.strip_suffix(':').unwrap_or(&dst).to_string();
        let rest = rest.trim_start();
        let ports = rest.strip_prefix(':').unwrap_or(rest);
        let find = |name: &str| {
            index.get(name).copied().ok_or_else(|| {
                err(
                    line,
                    format!("no terminal named '{name}' in '{}'", net.name()),
                )
            })
        };
        let (s, d) = (find(&src)?, find(&dst)?);
        if s == d {
            return Err(err(line, format!("'{src}' routes to itself")));
        }
        let path = follow(net, s, d, ports).map_err(|why| err(line, why))?;
        by_pair[s * t + d].push(path);
    }
    let mut ps = PathSet::new(net, PathKey::Pair);
    for s in 0..t {
        for d in 0..t {
            let attached = |i: usize| Routes::injection(net, net.terminal(i)).is_some();
            if s != d && attached(s) && attached(d) && by_pair[s * t + d].is_empty() {
                return Err(RoutingError::BlackHole {
                    src: net.label(net.terminal(s)).into_owned(),
                    dst: net.label(net.terminal(d)).into_owned(),
                    switch: "(none)".into(),
                    reason: format!("{origin} has no route for this pair"),
                });
            }
            for p in &by_pair[s * t + d] {
                ps.push(p, &[]);
            }
            ps.next_row();
        }
    }
    let mut routes = Routes::new(net, "source-routes");
    routes.set_path_set(Some(ps));
    Ok(routes)
}

/// The next name: a quoted string or a run without white space.
fn name_token(s: &str) -> Option<(String, &str)> {
    if let Some(q) = s.strip_prefix('"') {
        let end = q.find('"')?;
        let rest = &q[end + 1..];
        return Some((
            q[..end].to_string(),
            rest.strip_prefix(':').map_or(rest, |r| r),
        ));
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (end > 0).then(|| (s[..end].to_string(), &s[end..]))
}

/// The channels of a route from terminal `s` given as ports (the
/// injection channel left out, as a [`PathSet`] stores it).
fn follow(net: &Network, s: usize, d: usize, ports: &str) -> Result<Vec<ChannelId>, String> {
    let start = Routes::injection(net, net.terminal(s)).ok_or_else(|| {
        format!(
            "'{}' is not attached to a switch",
            net.label(net.terminal(s))
        )
    })?;
    let mut at: NodeId = net.channel(start).dst;
    let mut out = Vec::new();
    let mut hosted = false;
    let mut hosts: Vec<NodeId> = Vec::new();
    let (src, dst) = (net.terminal(s), net.terminal(d));
    for tok in ports.split_whitespace() {
        if tok == "|" {
            if !hosted {
                return Err("'|' must follow a port that leads to a host".into());
            }
            if at == src || at == dst || hosts.contains(&at) {
                return Err(format!(
                    "{} cannot be an in-transit host here: it is the source, the \
                     destination or already one on this route",
                    net.label(at)
                ));
            }
            hosts.push(at);
            let back = Routes::injection(net, at)
                .ok_or_else(|| format!("in-transit host {} has no switch", net.label(at)))?;
            out.push(back);
            at = net.channel(back).dst;
            hosted = false;
            continue;
        }
        if hosted {
            return Err(format!(
                "port {tok} after reaching terminal {}: mark an in-transit host with '|'",
                net.label(at)
            ));
        }
        let p: u16 = tok
            .parse()
            .ok()
            .filter(|&p| p >= 1)
            .ok_or_else(|| format!("'{tok}' is not a port number (1 or more) or '|'"))?;
        let c = net
            .channel_at(at, PortId(p))
            .ok_or_else(|| format!("port {p} of {} is not cabled", net.label(at)))?;
        out.push(c);
        at = net.channel(c).dst;
        hosted = net.is_terminal(at);
    }
    if at != net.terminal(d) {
        return Err(format!(
            "the ports end at {}, not at the destination {}",
            net.label(at),
            net.label(net.terminal(d))
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn itb_routes_survive_a_round_trip_and_bad_lines_are_named() {
        let net = spec::build("random:switches=12,ports=8,hosts=4,seed=5").unwrap();
        let itb = routing::route(&net, "itb", &RoutingOptions::default()).unwrap();
        let text = write_source_routes(&net, &itb).unwrap();
        assert!(text.contains(" | "), "some route has an in-transit host");
        let back = read_source_routes(&net, &text, "routes.txt").unwrap();
        let t = net.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                assert_eq!(
                    back.path(&net, s, d).unwrap(),
                    itb.path(&net, s, d).unwrap()
                );
            }
        }
        assert!(back.deadlock_report(&net).unwrap().deadlock_free);
        let first = text.lines().nth(2).unwrap().to_string();
        assert!(first.starts_with("h0 "), "{first}");
        // The port of h0's switch that leads back to h0.
        let inj = Routes::injection(&net, net.terminal(0)).unwrap();
        let back = net.channel(inj.reverse()).src_port.0;
        for (bad, says) in [
            (first.replace(':', ": 99"), "not cabled"),
            ("nobody h1: 1".to_string(), "no terminal named 'nobody'"),
            (format!("{first} 3"), "mark an in-transit host"),
            (
                first.replace(": ", &format!(": {back} | ")),
                "cannot be an in-transit host",
            ),
            (first.replace(": ", ": x "), "not a port number"),
        ] {
            let doc = text.replacen(&first, &bad, 1);
            let e = read_source_routes(&net, &doc, "routes.txt")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("routes.txt") && e.contains(":3") && e.contains(says),
                "{bad}: {e}"
            );
        }
        let e = read_source_routes(&net, &text.replacen(&first, "", 1), "routes.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no route for this pair"), "{e}");
    }
}
