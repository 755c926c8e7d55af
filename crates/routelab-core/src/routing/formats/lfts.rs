//! OpenSM's unicast LFT dump (`opensm-lfts.dump`, also what `dump_lfts.sh`
//! and `ibroute` print): per switch a header, then one line per LID with
//! the output port, then a count.
//!
//! ```text
//! Unicast lids [0-9] of switch Lid 1 guid 0x0002c90000000001 ('s0'):
//! 0x0001 000 # Switch portguid 0x0002c90000000001: 's0'
//! 0x0004 003 # Channel Adapter portguid 0x0002c90000000004: 'h0'
//! 0x0005 001 # Channel Adapter portguid 0x0002c90000000005: 'h1'
//! 3 lids dumped
//! ```
//!
//! Writing: switches in [`Network::switches`] order, each with every LID
//! it has a route to (its own with port 0, other switches', every port LID
//! of every terminal), in LID order; LIDs from
//! [`assign_lids`](super::assign_lids). Each LID leads to the port that
//! owns it, also for multi-homed terminals (see `lid_ports`).
//!
//! Reading (into the network the dump belongs to): a header names its
//! switch by `guid 0x...` or else `Lid N`; an entry `0xLID PORT` names its
//! destination by the `portguid 0x...` that follows, if the network knows
//! it (as OpenSM does when it loads a dump), else by the LID. Entries for
//! LID 0, for switches and for a terminal's other port LIDs are checked and
//! skipped; port 255 (OpenSM's "no path") means no route. Comment lines
//! (`#`), `N lids dumped` / `N valid lids dumped` / `N lids in use` lines
//! and `ibroute`'s column headers are skipped; anything else is an error
//! naming the line. Switches without a section keep empty tables, so walks
//! through them report black holes.

use super::lids::{assign_lids, LidEntry, Lids, MAX_UNICAST_LID};
use super::{check_size, clip, leading_hex, one_line, parse_error, parse_number};
use crate::network::{Network, NodeId, NodeKind, PortId};
use crate::routing::lid_routes::{LidTables, NO_ENTRY};
use crate::routing::{LidRoutes, Routes, RoutingError};
use std::collections::HashMap;
use std::io::Write;

/// OpenSM's "no path" port.
const NO_PATH: u64 = 255;

/// The LFT dump of `routes`. Fails if the network has more switches and
/// terminals than unicast LIDs, or the routes are for another network.
pub fn write_lfts(net: &Network, routes: &Routes) -> Result<String, RoutingError> {
    check_size(net, routes)?;
    let view = LidRoutes::of(net, routes)?;
    Ok(write_lid_lfts(net, routes.engine(), &view))
}

/// The LFT dump of routes per LID: every switch's entry for every LID.
pub fn write_lid_lfts(net: &Network, engine: &str, view: &LidRoutes) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail, and the text is UTF-8 by construction.
    let _ = write_lid_lfts_to(net, engine, view, true, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Entries up to which [`save_all`](super::save_all) writes the LFT dump
/// with a comment per entry naming the LID's port (about 70 bytes an
/// entry, 1.2 GB at this many); larger dumps are written without them
/// (about 11 bytes an entry), which OpenSM's file engine loads the same.
pub const ANNOTATED_LFT_ENTRIES: u64 = 1 << 24;

/// [`write_lid_lfts`] streamed to `out`: a fabric of 50,000 ports has
/// 2 x 10^8 entries, gigabytes of text that are never held in memory.
/// Each LID's line is the same at every switch but for the port, so its
/// two halves are formatted once. `annotated`: each entry with a comment
/// naming the LID's port (`# Channel Adapter portguid 0x...: 'name'`).
pub fn write_lid_lfts_to(
    net: &Network,
    engine: &str,
    view: &LidRoutes,
    annotated: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let lids = &view.lids;
    let max = lids.max_lid();
    writeln!(
        out,
        "# routelab LFT dump of '{}', routes '{}'; LIDs {}{}",
        one_line(net.name()),
        one_line(engine),
        if lids.from_fabric() {
            "of the fabric"
        } else {
            "assigned: switches, terminals, then terminals' other ports, from 1"
        },
        if annotated {
            ""
        } else {
            "; entries without comments (a large dump)"
        }
    )?;
    let heads: Vec<String> = lids
        .entries()
        .iter()
        .map(|e| format!("0x{:04x} ", e.lid))
        .collect();
    let tails: Vec<String> = lids
        .entries()
        .iter()
        .map(|e| {
            if !annotated {
                return "\n".to_string();
            }
            let kind = match net.node(e.node).kind {
                NodeKind::Switch => "Switch",
                NodeKind::Terminal => "Channel Adapter",
            };
            format!(
                " # {kind} portguid 0x{:016x}: '{}'\n",
                e.port_guid,
                one_line(&net.node(e.node).name)
            )
        })
        .collect();
    // Each switch's section is formatted on its own (on every core, a few
    // switches per core at a time) and written in switch order.
    let section = |x: usize| -> Vec<u8> {
        let sw = net.switches()[x];
        let node = net.node(sw);
        let mut lines = format!(
            "Unicast lids [0-{max}] of switch Lid {} guid 0x{:016x} ('{}'):\n",
            lids.lid(sw),
            node.guid,
            one_line(&node.name)
        )
        .into_bytes();
        let mut count = 0usize;
        for i in 0..lids.entries().len() {
            let Some(port) = view.port(x, i) else {
                continue;
            };
            lines.extend_from_slice(heads[i].as_bytes());
            // `{port:03}`: ports run to 254.
            if port < 1000 {
                lines.extend_from_slice(&[
                    b'0' + (port / 100) as u8,
                    b'0' + (port / 10 % 10) as u8,
                    b'0' + (port % 10) as u8,
                ]);
            } else {
                lines.extend_from_slice(port.to_string().as_bytes());
            }
            lines.extend_from_slice(tails[i].as_bytes());
            count += 1;
        }
        lines.extend_from_slice(format!("{count} lids dumped\n").as_bytes());
        lines
    };
    use rayon::prelude::*;
    let wave = rayon::current_num_threads() * 4;
    let switches: Vec<usize> = (0..net.switches().len()).collect();
    for xs in switches.chunks(wave) {
        let sections: Vec<Vec<u8>> = xs.par_iter().map(|&x| section(x)).collect();
        for s in &sections {
            out.write_all(s)?;
        }
    }
    Ok(())
}

/// GUIDs that name exactly one node or port; ambiguous ones are dropped.
struct Guids<T>(HashMap<u64, Option<T>>);

impl<T: Copy> Guids<T> {
    fn new() -> Self {
        Guids(HashMap::new())
    }
    fn add(&mut self, guid: u64, value: T)
    where
        T: PartialEq,
    {
        if guid == 0 {
            return;
        }
        self.0
            .entry(guid)
            .and_modify(|v| {
                if *v != Some(value) {
                    *v = None;
                }
            })
            .or_insert(Some(value));
    }
    fn get(&self, guid: u64) -> Option<T> {
        self.0.get(&guid).copied().flatten()
    }
}

/// The switch whose section is being read.
struct Section {
    /// Index in [`Network::switches`] and node.
    x: usize,
    node: NodeId,
    /// Per LID in this section: the port and the line.
    seen: HashMap<u16, (u16, usize)>,
    /// Entry lines read, and the line of the count that closed the
    /// section (`N lids dumped`), if any.
    entries: usize,
    counted: Option<usize>,
    /// The top of the header's LID range (`Unicast lids [0-24]`), if read.
    top: Option<usize>,
}

struct Reader<'a> {
    net: &'a Network,
    file: &'a str,
    lids: Lids,
    switch_guids: Guids<NodeId>,
    port_guids: Guids<(NodeId, bool)>,
    /// Per switch index: the line of its header (0: none yet).
    header_line: Vec<usize>,
    routes: Routes,
    /// Every entry read, per switch and LID.
    tables: LidTables,
}

/// Reads an LFT dump into routes on `net`, the fabric it belongs to.
/// `origin` names the file in errors and becomes [`Routes::engine`].
pub fn read_lfts(net: &Network, text: &str, origin: &str) -> Result<Routes, RoutingError> {
    let lids = assign_lids(net)?;
    let mut switch_guids = Guids::new();
    for &sw in net.switches() {
        switch_guids.add(net.node(sw).guid, sw);
    }
    let mut port_guids = Guids::new();
    for e in lids.entries() {
        port_guids.add(e.port_guid, (e.node, e.primary));
    }
    for &h in net.terminals() {
        port_guids.add(net.node(h).guid, (h, true));
    }
    let mut r = Reader {
        net,
        file: origin,
        lids,
        switch_guids,
        port_guids,
        header_line: vec![0; net.switches().len()],
        routes: Routes::new(net, origin),
        tables: LidTables::new(0, 0),
    };
    r.tables = LidTables::new(net.switches().len(), r.lids.entries().len());
    r.read(text)?;
    let mut routes = r.routes;
    routes.set_lid_tables(Some(r.tables));
    Ok(routes)
}

impl Reader<'_> {
    fn err(&self, line: usize, reason: impl Into<String>) -> RoutingError {
        parse_error(self.file, line, reason)
    }

    fn read(&mut self, text: &str) -> Result<(), RoutingError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut section: Option<Section> = None;
        let mut sections = 0usize;
        // Sections closed by their count, and the width of the port
        // numbers written (OpenSM and ibroute pad them to three digits).
        let mut counted = 0usize;
        let mut padded = false;
        let mut last = 0usize;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            last = n;
            if let Some((count, valid)) = lids_count(line) {
                if let Some(s) = section.as_mut() {
                    // OpenSM counts the LID range it walked, ibroute the
                    // entries it printed ("valid").
                    let fits = count == s.entries || (!valid && Some(count) == s.top);
                    if !fits {
                        return Err(self.err(
                            n,
                            format!(
                                "'{}' but the section of switch {} has {} entries{}: the dump \
                                 is cut or edited",
                                clip(line),
                                self.net.label(s.node),
                                s.entries,
                                match s.top {
                                    Some(t) => format!(" and LIDs up to {t}"),
                                    None => String::new(),
                                }
                            ),
                        ));
                    }
                    if s.counted.is_none() {
                        counted += 1;
                    }
                    s.counted = Some(n);
                }
                continue;
            }
            if line.starts_with("Unicast lids") {
                section = Some(self.header(line, n)?);
                sections += 1;
            } else if line.starts_with("Multicast mlids") {
                return Err(self.err(
                    n,
                    "this is a multicast forwarding table dump; give the unicast LFT dump \
                     (opensm-lfts.dump)",
                ));
            } else if line.starts_with("0x") || line.starts_with("0X") {
                let Some(s) = section.as_mut() else {
                    return Err(self.err(
                        n,
                        "LFT entry before any switch: entries follow a 'Unicast lids ... of \
                         switch ...' header",
                    ));
                };
                let port = line.split_whitespace().nth(1).unwrap_or("");
                if port.len() >= 3 && port.chars().all(|c| c.is_ascii_digit()) {
                    padded = true;
                } else if padded && port.chars().all(|c| c.is_ascii_digit()) {
                    return Err(self.err(
                        n,
                        format!(
                            "the port '{port}' of '{}' has fewer than the three digits of the \
                             entries before it: the line is cut",
                            clip(line)
                        ),
                    ));
                }
                s.entries += 1;
                self.entry(s, line, n)?;
            } else if !is_skipped(line) {
                return Err(self.err(
                    n,
                    format!(
                        "cannot read '{}': expected a 'Unicast lids ... of switch ... guid 0x...' \
                         header, an entry '0xLID PORT', or 'N lids dumped'",
                        clip(line)
                    ),
                ));
            }
        }
        if sections == 0 && !self.net.switches().is_empty() {
            return Err(self.err(
                1,
                "no 'Unicast lids ... of switch ...' section: this is not an LFT dump",
            ));
        }
        // Every section before the last closed by its count: the last one
        // without it ends where the file was cut.
        if let Some(s) = section {
            if s.counted.is_none() && counted + 1 == sections && sections > 1 {
                return Err(self.err(
                    last,
                    format!(
                        "the section of switch {} ends without its 'N lids dumped' line, which \
                         every other section has: the file is cut",
                        self.net.label(s.node)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A switch header: `Unicast lids [...] of switch Lid L guid 0xG ('desc'):`.
    fn header(&mut self, line: &str, n: usize) -> Result<Section, RoutingError> {
        let guid = match line.find("guid 0x") {
            Some(at) => {
                let rest = &line[at + "guid 0x".len()..];
                match leading_hex(rest) {
                    Some((g, after))
                        if after.is_empty() || after.starts_with(char::is_whitespace) =>
                    {
                        Some(g)
                    }
                    _ => {
                        return Err(self.err(
                            n,
                            format!("cannot read the switch GUID in '{}'", clip(rest)),
                        ))
                    }
                }
            }
            None => None,
        };
        let lid = match line.find("Lid ") {
            Some(at) => {
                // The number ends at the first character that cannot be
                // part of one (`Lid 2:` when no GUID follows).
                let rest = line[at + 4..].trim_start();
                let end = rest
                    .find(|c: char| !c.is_ascii_alphanumeric())
                    .unwrap_or(rest.len());
                let token = &rest[..end];
                match parse_number(token, u64::from(MAX_UNICAST_LID)) {
                    Some(l) => Some(l as u16),
                    None => {
                        return Err(
                            self.err(n, format!("cannot read the switch LID '{}'", clip(token)))
                        )
                    }
                }
            }
            None => None,
        };
        if guid.is_none() && lid.is_none() {
            return Err(self.err(
                n,
                "a 'Unicast lids' header needs the switch's 'guid 0x...' or 'Lid N'",
            ));
        }
        let net = self.net;
        let by_guid = guid.and_then(|g| self.switch_guids.get(g));
        let by_lid = lid
            .and_then(|l| self.lids.lookup(l))
            .map(|e| e.node)
            .filter(|&v| net.is_switch(v));
        let Some(node) = by_guid.or(by_lid) else {
            let mut what = Vec::new();
            if let Some(g) = guid {
                what.push(format!("GUID 0x{g:016x}"));
            }
            if let Some(l) = lid {
                what.push(format!("LID {l}"));
            }
            return Err(self.err(
                n,
                format!(
                    "no switch of '{}' has {}: is this the dump of another fabric?",
                    net.name(),
                    what.join(" or ")
                ),
            ));
        };
        let x = net.kind_index(node);
        let first = self.header_line[x];
        if first != 0 {
            return Err(self.err(
                n,
                format!(
                    "switch {} has a second section (the first is at line {first})",
                    net.label(node)
                ),
            ));
        }
        self.header_line[x] = n;
        Ok(Section {
            x,
            node,
            seen: HashMap::new(),
            entries: 0,
            counted: None,
            top: lid_range_top(line),
        })
    }

    /// One entry: `0xLID PORT` and an optional description.
    fn entry(&mut self, s: &mut Section, line: &str, n: usize) -> Result<(), RoutingError> {
        let (net, lids) = (self.net, &self.lids);
        let err = |reason: String| parse_error(self.file, n, reason);
        let mut tokens = line.split_whitespace();
        let lid_token = tokens.next().unwrap_or("");
        let lid = parse_number(lid_token, u64::from(u16::MAX))
            .ok_or_else(|| err(format!("cannot read the LID '{}'", clip(lid_token))))?
            as u16;
        let port_token = tokens.next().unwrap_or("");
        let port = port_token
            .parse::<u64>()
            .ok()
            .filter(|&p| p <= u64::from(u16::MAX))
            .ok_or_else(|| {
                err(format!(
                    "cannot read the port '{}' of LID 0x{lid:04x}: expected a decimal port number",
                    clip(port_token)
                ))
            })?;
        let ports = net.node(s.node).ports;
        let port = if port == NO_PATH && ports < NO_PATH as u16 {
            0
        } else if port > u64::from(ports) {
            return Err(err(format!(
                "switch {} has ports 1..={ports}; port {port} does not exist",
                net.label(s.node)
            )));
        } else {
            port as u16
        };
        if lid == 0 {
            return Ok(()); // reserved; OpenSM may list it
        }
        if lid > MAX_UNICAST_LID {
            return Err(err(format!(
                "LID 0x{lid:04x} is not a unicast LID (1..=0x{MAX_UNICAST_LID:04x})"
            )));
        }
        if let Some(&(p, first)) = s.seen.get(&lid) {
            if p != port {
                return Err(err(format!(
                    "LID 0x{lid:04x} appears again for switch {} with port {port} (line {first} \
                     says port {p})",
                    net.label(s.node)
                )));
            }
            return Ok(());
        }
        s.seen.insert(lid, (port, n));
        if let Ok(i) = lids.entries().binary_search_by_key(&lid, |e| e.lid) {
            // Port 0 (or 255, "no path") for another node's LID: no route.
            let raw = if port == 0 && lids.entries()[i].node != s.node {
                NO_ENTRY
            } else {
                port
            };
            self.tables.ports[s.x * self.tables.lids + i] = raw;
        }
        let by_guid = line
            .find("portguid 0x")
            .and_then(|at| leading_hex(&line[at + "portguid 0x".len()..]))
            .and_then(|(g, _)| self.port_guids.get(g));
        let target = match by_guid {
            Some(t) => t,
            None => match lids.lookup(lid) {
                Some(LidEntry { node, primary, .. }) => (node, primary),
                None => {
                    return Err(err(format!(
                        "LID 0x{lid:04x} belongs to no switch or terminal of '{}' (LIDs {}): is \
                         this the dump of another fabric?",
                        net.name(),
                        if lids.from_fabric() {
                            "of the fabric".to_string()
                        } else {
                            format!("assigned 1..={}", lids.max_lid())
                        }
                    )))
                }
            },
        };
        let (node, primary) = target;
        if !net.is_terminal(node) || !primary {
            return Ok(());
        }
        let d = net.kind_index(node);
        self.routes
            .set_port(s.x, d, (port != 0).then_some(PortId(port)));
        Ok(())
    }
}

/// The count of a `N lids dumped` or `N valid lids dumped` line, and
/// whether it counts valid entries.
fn lids_count(line: &str) -> Option<(usize, bool)> {
    let words: Vec<&str> = line.split_whitespace().take(4).collect();
    match words.as_slice() {
        [count, "lids", "dumped"] => Some((count.parse().ok()?, false)),
        [count, "valid", "lids", "dumped"] => Some((count.parse().ok()?, true)),
        _ => None,
    }
}

/// The top of a header's LID range: `24` in `Unicast lids [0-24]` or
/// `3` in `Unicast lids [0x0-0x3]`.
fn lid_range_top(header: &str) -> Option<usize> {
    let inside = header.split_once('[')?.1.split_once(']')?.0;
    let top = inside.split_once('-')?.1.trim();
    parse_number(top, u64::from(u16::MAX)).map(|t| t as usize)
}

/// Lines of a dump that carry nothing to read.
fn is_skipped(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().take(5).collect();
    match words.as_slice() {
        [count, rest @ ..] if count.chars().all(|c| c.is_ascii_digit()) => matches!(
            rest,
            ["lids", "dumped"] | ["valid", "lids", "dumped"] | ["lids", "in", "use"]
        ),
        ["Lid", "Out", "Destination"] | ["Port", "Info"] => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;

    #[test]
    fn skipped_lines() {
        for l in [
            "12 lids dumped",
            "3 valid lids dumped",
            "7 lids in use",
            "Lid  Out   Destination",
            "Port     Info",
        ] {
            assert!(is_skipped(l), "{l}");
        }
        for l in ["lids dumped", "x lids dumped", "12 lids", "Port"] {
            assert!(!is_skipped(l), "{l}");
        }
    }

    #[test]
    fn a_crossbar_dump_reads_back() {
        let net = spec::build("crossbar:3").unwrap();
        let mut r = Routes::new(&net, "hand");
        for d in 0..3 {
            r.set_port(0, d, Some(PortId(d as u16 + 1)));
        }
        let text = write_lfts(&net, &r).unwrap();
        assert!(
            text.contains(
                "Unicast lids [0-4] of switch Lid 1 guid 0x0002c90000000100 ('s0'):\n\
                 0x0001 000 # Switch portguid 0x0002c90000000100: 's0'\n\
                 0x0002 001 # Channel Adapter portguid 0x0002c90000000201: 'h0'\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("4 lids dumped\n"), "{text}");
        let back = read_lfts(&net, &text, "x.dump").unwrap();
        assert_eq!(back.table(0), r.table(0));
        assert_eq!(back.engine(), "x.dump");
    }

    #[test]
    fn ibroute_style_lines_are_read() {
        let net = spec::build("crossbar:2").unwrap();
        let text = "Unicast lids [0x0-0x3] of switch Lid 1 guid 0x0002c90000000100 (s0):\n\
                    \x20 Lid  Out   Destination\n\
                    \x20      Port     Info \n\
                    0x0001 000 : (Switch portguid 0x0002c90000000100: 's0')\n\
                    0x0002 002 : (Channel Adapter portguid 0x0002c90000000301: 'h1')\n\
                    0x0003 001 : (Channel Adapter portguid 0x0002c90000000201: 'h0')\n\
                    3 valid lids dumped \n";
        let r = read_lfts(&net, text, "ibroute.txt").unwrap();
        // The port GUIDs win over the (swapped) LIDs, as when OpenSM loads.
        assert_eq!(r.port(0, 0), Some(PortId(1)));
        assert_eq!(r.port(0, 1), Some(PortId(2)));
    }

    #[test]
    fn cut_lines_counts_that_disagree_and_cut_files_are_refused() {
        let net = spec::build("kary-ntree:k=2,n=2").unwrap();
        let routes = crate::routing::route(&net, "minhop", &Default::default()).unwrap();
        let text = write_lfts(&net, &routes).unwrap();
        assert!(read_lfts(&net, &text, "ok.dump").is_ok());
        // An entry cut to two digits of its port.
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.starts_with("0x0003")).unwrap();
        let mut cut = lines.clone();
        let short = format!("{} 00", &lines[at][..6]);
        cut[at] = &short;
        let e = read_lfts(&net, &cut.join("\n"), "cut.dump")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("cut.dump:{}", at + 1)) && e.contains("cut"),
            "{e}"
        );
        // A count that does not match its section.
        let wrong = text.replacen(" lids dumped", "99 lids dumped", 1);
        let e = read_lfts(&net, &wrong, "count.dump")
            .unwrap_err()
            .to_string();
        assert!(e.contains("entries") && e.contains("count.dump:"), "{e}");
        // The file cut in its last section (head -n).
        let keep = lines.len() - 3;
        let head = lines[..keep].join("\n");
        let e = read_lfts(&net, &head, "head.dump").unwrap_err().to_string();
        assert!(e.contains("the file is cut"), "{e}");
    }
}
