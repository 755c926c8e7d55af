//! The lane table: the pair lane (virtual lane / layer; an InfiniBand
//! service level mapped to a VL) of each (source, destination) terminal
//! pair, one `slid dlid lane` line per pair, LIDs as in the LFT dump.
//!
//! ```text
//! # routelab lane table of 'torus:5', routes 'dfsssp'
//! # slid dlid lane; LIDs as in opensm-lfts.dump; pairs not listed are on lane 0
//! 0x0006 0x0008 1
//! ```
//!
//! Only pairs off lane 0 are written, sources then destinations in
//! terminal order. Reading accepts LIDs in hex (`0x..`) or decimal and any
//! of a terminal's LIDs, and sets every pair not listed to lane 0. The
//! table holds pair lanes only: how lanes change along a path
//! ([`LaneRule`](crate::routing::LaneRule), e.g. torus datelines) is not
//! stored, and reading keeps the rule of the routes it updates.

use super::lids::{assign_lids, Lids};
use super::{check_size, clip, one_line, parse_error, parse_number};
use crate::network::Network;
use crate::routing::{LidRoutes, Routes, RoutingError, MAX_LANES};
use std::collections::HashMap;
use std::fmt::Write;

/// The lane table of `routes`.
pub fn write_lanes(net: &Network, routes: &Routes) -> Result<String, RoutingError> {
    check_size(net, routes)?;
    let view = crate::routing::LidRoutes::of(net, routes)?;
    Ok(write_lid_lanes(net, routes.engine(), &view))
}

/// [`write_lanes`] of routes already seen per LID.
pub(crate) fn write_lid_lanes(net: &Network, engine: &str, view: &LidRoutes) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# routelab lane table of '{}', routes '{}'",
        one_line(net.name()),
        one_line(engine)
    );
    let _ = writeln!(
        out,
        "# slid dlid lane (the SL); every sending port (switches and every adapter port) to \
         every LID; LIDs as in opensm-lfts.dump; pairs not listed are on lane 0"
    );
    if view.max_sl() == 0 {
        return out;
    }
    let entries = view.lids.entries();
    for (k, snd) in view.senders.iter().enumerate() {
        let src = entries[snd.entry];
        for (i, dst) in entries.iter().enumerate() {
            let lane = view.sl(k, i);
            if lane != 0 && dst.node != src.node {
                let _ = writeln!(out, "0x{:04x} 0x{:04x} {lane}", src.lid, dst.lid);
            }
        }
    }
    out
}

/// Reads a lane table into `routes` (computed for or read on `net`): every
/// pair listed gets its lane, every other pair lane 0. On error `routes`
/// is left unchanged. `origin` names the file in errors.
pub fn read_lanes(
    net: &Network,
    routes: &mut Routes,
    text: &str,
    origin: &str,
) -> Result<(), RoutingError> {
    check_size(net, routes)?;
    let lids = assign_lids(net)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut seen = PairLanes::default();
    let mut lid_sls: Vec<(u16, u16, u8)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().take(4).collect();
        let [slid, dlid, lane] = words[..] else {
            return Err(parse_error(
                origin,
                n,
                format!("cannot read '{}': expected 'slid dlid lane'", clip(line)),
            ));
        };
        let (s, s_lid) = terminal(net, &lids, slid, "source", origin, n)?;
        let (d, d_lid) = terminal(net, &lids, dlid, "destination", origin, n)?;
        let (sn, dn) = (lids.lookup(s_lid), lids.lookup(d_lid));
        if let (Some(a), Some(b)) = (sn, dn) {
            if a.node == b.node {
                return Err(parse_error(
                    origin,
                    n,
                    format!(
                        "source and destination are the same node ({})",
                        net.label(a.node)
                    ),
                ));
            }
        }
        let lane = parse_number(lane, u64::from(MAX_LANES - 1))
            .filter(|_| !lane.starts_with("0x") && !lane.starts_with("0X"))
            .ok_or_else(|| {
                parse_error(
                    origin,
                    n,
                    format!(
                        "cannot read the lane '{}': expected 0..={}",
                        clip(lane),
                        MAX_LANES - 1
                    ),
                )
            })? as u8;
        lid_sls.push((s_lid, d_lid, lane));
        // A terminal's own LIDs give its pair lane; other ports and
        // switches have SLs per LID only.
        if let (Some(s), Some(d)) = (s, d) {
            seen.add(net, (s, d), lane, origin, n)?;
        }
    }
    seen.apply(net, routes);
    if let Some(t) = routes.lid_tables_mut() {
        t.sls
            .extend(lid_sls.into_iter().map(|(s, d, sl)| ((s, d), sl)));
    }
    Ok(())
}

/// The pair lanes a file gives, with the line that gave each: bounded by
/// the lines of the text. A pair given two different lanes is an error.
#[derive(Default)]
pub(super) struct PairLanes {
    seen: HashMap<(u32, u32), (u8, usize)>,
}

impl PairLanes {
    /// Terminal pair `pair` is on `lane`, says line `n` of `origin`.
    pub(super) fn add(
        &mut self,
        net: &Network,
        pair: (u32, u32),
        lane: u8,
        origin: &str,
        n: usize,
    ) -> Result<(), RoutingError> {
        match self.seen.get(&pair) {
            Some(&(l, first)) if l != lane => Err(parse_error(
                origin,
                n,
                format!(
                    "the pair {} -> {} appears again with lane {lane} (line {first} says {l}); \
                     a pair of terminals has one lane",
                    net.label(net.terminal(pair.0 as usize)),
                    net.label(net.terminal(pair.1 as usize))
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.seen.insert(pair, (lane, n));
                Ok(())
            }
        }
    }

    /// Gives `routes` these lanes and lane 0 to every other pair, rebuilt
    /// so that their lane count follows.
    pub(super) fn apply(self, net: &Network, routes: &mut Routes) {
        let mut fresh = Routes::new(net, routes.engine());
        fresh.table.clone_from(&routes.table);
        fresh.set_lane_rule(routes.lane_rule().clone());
        fresh.set_path_set(routes.path_set().cloned());
        fresh.set_lid_tables(routes.lid_tables().cloned());
        for ((s, d), (lane, _)) in self.seen {
            fresh.set_lane(s as usize, d as usize, lane);
        }
        *routes = fresh;
    }
}

/// The terminal index a LID names.
/// The LID of a lane-table field, and the terminal it is the own LID of.
fn terminal(
    net: &Network,
    lids: &Lids,
    token: &str,
    role: &str,
    origin: &str,
    n: usize,
) -> Result<(Option<u32>, u16), RoutingError> {
    let lid = parse_number(token, u64::from(u16::MAX)).ok_or_else(|| {
        parse_error(
            origin,
            n,
            format!("cannot read the {role} LID '{}'", clip(token)),
        )
    })? as u16;
    match lids.lookup(lid) {
        Some(e) if net.is_terminal(e.node) && e.primary => {
            Ok((Some(net.kind_index(e.node) as u32), lid))
        }
        Some(_) => Ok((None, lid)),
        None => Err(parse_error(
            origin,
            n,
            format!(
                "{role} LID 0x{lid:04x} belongs to no switch or terminal port of '{}'",
                net.name()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn lanes_round_trip_and_reset() {
        let net = spec::build("crossbar:3").unwrap();
        let mut r = Routes::new(&net, "hand");
        r.set_lane(0, 2, 3);
        r.set_lane(2, 1, 1);
        let text = write_lanes(&net, &r).unwrap();
        assert!(
            text.contains("\n0x0002 0x0004 3\n0x0004 0x0003 1\n"),
            "{text}"
        );
        let mut back = Routes::new(&net, "other");
        back.set_lane(1, 0, 7);
        read_lanes(&net, &mut back, &text, "lanes.txt").unwrap();
        assert_eq!(back.lane(0, 2), 3);
        assert_eq!(back.lane(2, 1), 1);
        assert_eq!(back.lane(1, 0), 0);
        assert_eq!(back.lanes(), 4);
        assert_eq!(back.engine(), "other");
    }

    #[test]
    fn bad_lines_name_their_line() {
        let net = spec::build("crossbar:3").unwrap();
        let mut r = Routes::new(&net, "hand");
        for (text, line, what) in [
            ("# c\n2 3\n", 2, "expected 'slid dlid lane'"),
            ("2 3 1\n2 9 1\n", 2, "belongs to no switch or terminal port"),
            ("2 2 1\n", 1, "the same node"),
            ("2 3 15\n", 1, "expected 0..=14"),
            ("2 3 x\n", 1, "cannot read the lane"),
            ("2 3 1\n0x2 0x3 2\n", 2, "line 1 says 1"),
            ("2 3 1 4\n", 1, "expected 'slid dlid lane'"),
        ] {
            let e = read_lanes(&net, &mut r, text, "f").unwrap_err();
            let s = e.to_string();
            assert!(
                s.starts_with(&format!("f:{line}: ")) && s.contains(what),
                "{s}"
            );
        }
        assert_eq!(r.lanes(), 1);
    }
}
