//! OpenSM's path-record dump (`opensm-path-records.dump`, written by its
//! path-record dump plugin and with torus-2QoS): for every source port the
//! service level, MTU and rate of the path to every LID, as the subnet
//! manager answers path queries. Its SLs are the pair lanes the subnet
//! really uses, so a lane table of an audit can come from the subnet itself.
//!
//! ```text
//! Channel Adapter 0x0002c90300001235, base LID 6, "h1 HCA-1", port 1
//! # LID  : SL : MTU : RATE
//! 0x0001 : 0  : 4   : 7
//! 0x0007 : 1  : 4   : 7
//! 0x0009 : UNREACHABLE
//!
//! ```
//!
//! A block per source port: a heading (`Channel Adapter`, `Switch` or
//! `Router`, the port GUID, `base LID n`, the description in quotes, the
//! port number), then one `LID : SL : MTU : RATE` line per destination LID,
//! or `LID : UNREACHABLE`. Reading takes the SL of every line whose source
//! and destination are terminal ports as that pair's lane (sources known by
//! base LID, else by port GUID); switch sources, switch destinations and
//! unreachable LIDs are skipped, and a pair given two different SLs (two
//! ports of one adapter, say) is an error, since a pair has one lane here.
//! Writing gives a block per terminal port with a LID and a line per
//! terminal LID it reaches: the pair lane as SL, MTU 4 (2048 bytes; the
//! model has no MTU) and the rate of the slowest link on the path, as
//! InfiniBand's rate code.

use super::lids::{assign_lids, Lids};
use super::{check_size, clip, leading_hex, one_line, parse_error, parse_number};
use crate::network::Network;
use crate::routing::{LidRoutes, Routes, RoutingError, MAX_LANES};
use std::fmt::Write;

/// The path MTU written: InfiniBand's code 4, 2048 bytes.
const MTU_2048: u8 = 4;

/// InfiniBand's path rate codes and the rates they stand for, in Gb/s.
const RATES: &[(u8, u64)] = &[
    (2, 2_500),
    (5, 5_000),
    (3, 10_000),
    (11, 14_000),
    (6, 20_000),
    (15, 25_000),
    (19, 28_000),
    (4, 30_000),
    (7, 40_000),
    (20, 50_000),
    (12, 56_000),
    (8, 60_000),
    (9, 80_000),
    (16, 100_000),
    (13, 112_000),
    (10, 120_000),
    (14, 168_000),
    (17, 200_000),
    (18, 300_000),
    (21, 400_000),
    (22, 600_000),
];

/// The rate code of the fastest InfiniBand rate not above `bits_per_s`
/// (the slowest code below 2.5 Gb/s).
fn rate_code(bits_per_s: u64) -> u8 {
    let mbps = bits_per_s / 1_000_000;
    RATES
        .iter()
        .rev()
        .find(|&&(_, r)| r <= mbps)
        .map_or(2, |&(code, _)| code)
}

/// Whether `text` looks like a path-record dump (a source heading or the
/// column line), so that one option can take it or a lane table.
pub fn is_path_records(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|l| heading(l).is_some() || l.starts_with("# LID"))
}

/// The path-record dump of `routes`. See the module docs.
pub fn write_path_records(net: &Network, routes: &Routes) -> Result<String, RoutingError> {
    check_size(net, routes)?;
    Ok(write_lid_path_records(net, &LidRoutes::of(net, routes)?))
}

/// The path records of routes per LID: a block per sending port (every
/// switch and every cabled adapter port), a line per LID of another node.
pub fn write_lid_path_records(net: &Network, view: &LidRoutes) -> String {
    let mut out = String::new();
    let entries = view.lids.entries();
    let mut path = Vec::new();
    for (k, snd) in view.senders.iter().enumerate() {
        let src = entries[snd.entry];
        let kind = if net.is_switch(src.node) {
            "Switch"
        } else {
            "Channel Adapter"
        };
        let _ = writeln!(
            out,
            "{kind} 0x{:016x}, base LID {}, \"{}\", port {}\n# LID  : SL : MTU : RATE",
            src.port_guid,
            src.lid,
            one_line(&net.node(src.node).name),
            src.port.map_or(0, |p| p.0)
        );
        for (i, dst) in entries.iter().enumerate() {
            if dst.node == src.node {
                continue;
            }
            path.clear();
            path.extend(snd.inj);
            match view.walk(net, snd.start, i, &mut path) {
                Ok(()) => {
                    let slowest = path
                        .iter()
                        .map(|&c| net.class(net.channel(c).class).bandwidth.0)
                        .min()
                        .unwrap_or(u64::MAX);
                    let _ = writeln!(
                        out,
                        "0x{:04X} : {:<2} : {:<3} : {:<4}",
                        dst.lid,
                        view.sl(k, i),
                        MTU_2048,
                        rate_code(slowest)
                    );
                }
                Err(_) => {
                    let _ = writeln!(out, "0x{:04X} : UNREACHABLE", dst.lid);
                }
            }
        }
        out.push('\n');
    }
    out
}

fn heading(line: &str) -> Option<(&str, &str)> {
    ["Channel Adapter", "Switch", "Router"]
        .into_iter()
        .find_map(|kind| {
            line.strip_prefix(kind)
                .map(|rest| (kind, rest.trim_start()))
        })
        .filter(|(_, rest)| rest.starts_with("0x") || rest.starts_with("0X"))
}

/// Reads a path-record dump's SLs into `routes` (computed for or read on
/// `net`) as pair lanes; every pair not given one is on lane 0. On error
/// `routes` is left unchanged. `origin` names the file in errors.
pub fn read_path_records(
    net: &Network,
    routes: &mut Routes,
    text: &str,
    origin: &str,
) -> Result<(), RoutingError> {
    check_size(net, routes)?;
    let lids = assign_lids(net)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The source of the block being read: a terminal, or None for a
    // switch or router whose records are skipped.
    let mut source: Option<Option<u32>> = None;
    let mut slid: u16 = 0;
    let mut lid_sls: Vec<(u16, u16, u8)> = Vec::new();
    let mut seen = super::lanes::PairLanes::default();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((kind, rest)) = heading(line) {
            let base = rest
                .split(',')
                .find_map(|f| f.trim().strip_prefix("base LID"))
                .and_then(|l| parse_number(l.trim(), u64::from(u16::MAX)))
                .map(|l| l as u16);
            source = Some(if kind == "Channel Adapter" {
                let t = source_terminal(net, &lids, rest, origin, n)?;
                slid = base
                    .filter(|&l| lids.lookup(l).is_some())
                    .unwrap_or_else(|| lids.lid(net.terminal(t as usize)));
                // Only a terminal's own port gives the pair lane.
                lids.lookup(slid).filter(|e| e.primary).map(|_| t)
            } else {
                slid = base.unwrap_or(0);
                None
            });
            continue;
        }
        let Some(src) = source else {
            return Err(parse_error(
                origin,
                n,
                format!(
                    "cannot read '{}': expected a 'Channel Adapter 0x..., base LID n, ...' \
                     heading before the records",
                    clip(line)
                ),
            ));
        };
        let fields: Vec<&str> = line.split(':').map(str::trim).collect();
        let bad = || {
            parse_error(
                origin,
                n,
                format!(
                    "cannot read '{}': expected 'LID : SL : MTU : RATE' or 'LID : UNREACHABLE'",
                    clip(line)
                ),
            )
        };
        let dlid = fields
            .first()
            .and_then(|t| parse_number(t, u64::from(u16::MAX)))
            .ok_or_else(bad)? as u16;
        match fields[1..] {
            ["UNREACHABLE"] => continue,
            [sl, mtu, rate]
                if parse_number(mtu, 255).is_some() && parse_number(rate, 255).is_some() =>
            {
                let sl = parse_number(sl, 15).ok_or_else(|| {
                    parse_error(
                        origin,
                        n,
                        format!("cannot read the SL '{}': expected 0..=15", clip(sl)),
                    )
                })? as u8;
                if lids.lookup(slid).is_some() && lids.lookup(dlid).is_some() {
                    lid_sls.push((slid, dlid, sl));
                }
                let Some(s) = src else { continue };
                let Some(d) = terminal_of(net, &lids, dlid)
                    .filter(|_| lids.lookup(dlid).is_some_and(|e| e.primary))
                else {
                    if lids.lookup(dlid).is_none() {
                        return Err(parse_error(
                            origin,
                            n,
                            format!("LID 0x{dlid:04x} belongs to no port of '{}'", net.name()),
                        ));
                    }
                    continue; // a switch or another port: its SL is kept per LID above
                };
                if d == s {
                    continue;
                }
                if sl >= MAX_LANES {
                    return Err(parse_error(
                        origin,
                        n,
                        format!(
                            "SL {sl} from {} to {}: lanes here are 0..={}",
                            net.label(net.terminal(s as usize)),
                            net.label(net.terminal(d as usize)),
                            MAX_LANES - 1
                        ),
                    ));
                }
                seen.add(net, (s, d), sl, origin, n)?;
            }
            _ => return Err(bad()),
        }
    }
    seen.apply(net, routes);
    if let Some(t) = routes.lid_tables_mut() {
        t.sls
            .extend(lid_sls.into_iter().map(|(s, d, sl)| ((s, d), sl)));
    }
    Ok(())
}

/// The terminal a LID belongs to, if a terminal's.
fn terminal_of(net: &Network, lids: &Lids, lid: u16) -> Option<u32> {
    lids.lookup(lid)
        .filter(|e| net.is_terminal(e.node))
        .map(|e| net.kind_index(e.node) as u32)
}

/// The terminal a `Channel Adapter` heading names: by its base LID, else
/// by its port GUID.
fn source_terminal(
    net: &Network,
    lids: &Lids,
    rest: &str,
    origin: &str,
    n: usize,
) -> Result<u32, RoutingError> {
    let guid = rest
        .get(2..)
        .and_then(leading_hex)
        .map(|(g, _)| g)
        .ok_or_else(|| {
            parse_error(
                origin,
                n,
                format!("cannot read the port GUID in '{}'", clip(rest)),
            )
        })?;
    let base = rest
        .split(',')
        .find_map(|f| f.trim().strip_prefix("base LID"))
        .and_then(|l| parse_number(l.trim(), u64::from(u16::MAX)))
        .map(|l| l as u16);
    if let Some(t) = base.and_then(|l| terminal_of(net, lids, l)) {
        return Ok(t);
    }
    lids.entries()
        .iter()
        .find(|e| e.port_guid == guid && net.is_terminal(e.node))
        .map(|e| net.kind_index(e.node) as u32)
        .ok_or_else(|| {
            parse_error(
                origin,
                n,
                format!(
                    "the source port GUID 0x{guid:016x}{} is no terminal port of '{}'",
                    base.map_or(String::new(), |l| format!(" (base LID {l})")),
                    net.name()
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{route, RoutingOptions};

    #[test]
    fn dfsssp_lanes_round_trip_through_path_records() {
        let net = spec::build("torus:5,c=2").unwrap();
        let routes = route(&net, "dfsssp", &RoutingOptions::default()).unwrap();
        assert!(routes.lanes() > 1);
        let text = write_path_records(&net, &routes).unwrap();
        assert!(is_path_records(&text));
        let mut back = Routes::new(&net, "read");
        back.table.clone_from(&routes.table);
        read_path_records(&net, &mut back, &text, "opensm-path-records.dump").unwrap();
        let t = net.terminals().len();
        for s in 0..t {
            for d in 0..t {
                assert_eq!(back.lane(s, d), routes.lane(s, d), "{s} -> {d}");
            }
        }
        // 20 Gb/s links everywhere: rate code 6.
        assert!(text.contains(" : 4   : 6   \n"), "{text}");
    }

    #[test]
    fn rate_codes_round_down() {
        assert_eq!(rate_code(100_000_000_000), 16);
        assert_eq!(rate_code(99_000_000_000), 9);
        assert_eq!(rate_code(1_000_000_000), 2);
        assert_eq!(rate_code(20_000_000_000), 6);
    }

    #[test]
    fn switches_and_unreachable_lids_are_skipped_and_bad_lines_named() {
        let net = spec::build("crossbar:3").unwrap();
        // LIDs: s0 1, h0 2, h1 3, h2 4.
        let text = "Switch 0x0002c90000000001, base LID 1, \"s0\", port 0\n\
                    # LID  : SL : MTU : RATE\n0x0002 : 3 : 4 : 6\n\n\
                    Channel Adapter 0x0002c90000000002, base LID 2, \"h0\", port 1\n\
                    # LID  : SL : MTU : RATE\n0x0001 : 0 : 4 : 6\n0x0003 : 2 : 4 : 6\n\
                    0x0004 : UNREACHABLE\n";
        let mut r = Routes::new(&net, "t");
        read_path_records(&net, &mut r, text, "f").unwrap();
        assert_eq!((r.lane(0, 1), r.lane(0, 2), r.lane(1, 0)), (2, 0, 0));
        for (bad, line, what) in [
            ("0x0003 : 1 : 4 : 6\n", 1, "heading before the records"),
            ("Channel Adapter 0xff, base LID 9, \"x\", port 1\n", 1, "no terminal port"),
            ("Channel Adapter 0x1, base LID 2, \"h0\", port 1\n0x0003 : 1 : 4\n", 2, "LID : SL"),
            ("Channel Adapter 0x1, base LID 2, \"h0\", port 1\n0x0009 : 1 : 4 : 6\n", 2, "no port"),
            ("Channel Adapter 0x1, base LID 2, \"h0\", port 1\n0x0003 : 15 : 4 : 6\n", 2, "0..=14"),
            (
                "Channel Adapter 0x1, base LID 2, \"h0\", port 1\n0x0003 : 1 : 4 : 6\n0x3 : 2 : 4 : 6\n",
                3,
                "one lane",
            ),
        ] {
            let e = read_path_records(&net, &mut r, bad, "f").unwrap_err().to_string();
            assert!(e.starts_with(&format!("f:{line}: ")) && e.contains(what), "{e}");
        }
        assert_eq!(r.lane(0, 1), 2, "a failed read leaves the routes alone");
    }
}
