//! Random irregular networks, as in the NOW studies of Flich et al. 2000
//! (switches of equal size, a fixed number of hosts on each, random links
//! between switches, at most one link between two switches) and the
//! random topologies of Domke et al. 2011 (a given number of links).
//!
//! A random spanning tree within the port budgets comes first, so the
//! network is always connected; then random links join switches that both
//! have free ports and are not yet neighbours, until no such pair remains
//! ([`random_irregular`]) or the requested number is reached
//! ([`random_with_links`]). When random choices leave the last links with
//! nowhere to go, a link is rewired to make room, or the attempt starts
//! over; all of it draws from `rng::stream(seed, "random-topology")`, so a
//! seed gives the same network on any machine.
//!
//! Numbering: switches `0..S`, then terminals; terminal `t` is on switch
//! `t / hosts`. Switch links use ports `1..=ports - hosts` in increasing
//! order of the neighbour's id (unused ones last); terminals use the last
//! `hosts` ports.

use std::collections::{HashSet, VecDeque};

use rand::Rng as _;

use crate::network::spec::Family;
use crate::network::{Network, NetworkBuilder, NodeId, TopologyError};
use crate::rng::{self, Rng};

use super::{bad_param, torus::attach_terminals};

const MAX_SWITCHES: u32 = 1 << 20;
/// The largest network, in switches plus terminals.
const MAX_NODES: u64 = 1 << 22;
/// Terminals per switch when the spec does not say.
const DEFAULT_HOSTS: u32 = 4;
/// Fresh starts before giving up on an exact link count.
const MAX_ATTEMPTS: u32 = 64;

pub const RANDOM: Family = Family {
    name: "random",
    usage: "random:switches=64[,ports=8,hosts=4,links=L,seed=1]  (hosts per switch; links: exact switch-switch links, default as many as fit)",
    keys: &["switches", "ports", "hosts", "links", "seed"],
    positional: None,
    generate: |a| {
        let switches = a.u32("switches", None, 1, MAX_SWITCHES)?;
        let ports = a.u32("ports", Some(8), 1, u32::from(u16::MAX))?;
        let given_hosts = a.opt_u32("hosts", 0, u32::from(u16::MAX))?;
        let hosts = given_hosts.unwrap_or(DEFAULT_HOSTS);
        if given_hosts.is_none() && ports < DEFAULT_HOSTS + switches.saturating_sub(1).min(2) {
            // The user gave the ports only: blame them, not the default.
            let need = DEFAULT_HOSTS + switches.saturating_sub(1).min(2);
            return Err(bad_param(
                "random",
                "ports",
                ports,
                format!(
                    "at least {need} for the default hosts={DEFAULT_HOSTS} and the links between \
                     switches; or set hosts explicitly"
                ),
            ));
        }
        let seed = a.u64("seed", 1)?;
        match a.opt_u32("links", 0, u32::MAX)? {
            Some(links) => random_with_links(switches, ports, hosts, links, seed),
            None => random_irregular(switches, ports, hosts, seed),
        }
    },
};

/// `switches` switches of `ports` ports, `hosts` terminals on each, and
/// random links on the remaining ports until no two switches with free
/// ports are left unlinked (Flich et al.: 8 ports, 4 hosts).
pub fn random_irregular(
    switches: u32,
    ports: u32,
    hosts: u32,
    seed: u64,
) -> Result<Network, TopologyError> {
    let free = check(switches, ports, hosts)?;
    let edges = links_with_retries(switches, free, None, seed)?;
    assemble(
        format!("random:switches={switches},ports={ports},hosts={hosts},seed={seed}"),
        switches,
        ports,
        hosts,
        &edges,
    )
}

/// Like [`random_irregular`] but with exactly `links` switch-to-switch links
/// (Domke et al. vary this count on 128 32-port switches with 16 hosts).
pub fn random_with_links(
    switches: u32,
    ports: u32,
    hosts: u32,
    links: u32,
    seed: u64,
) -> Result<Network, TopologyError> {
    let free = check(switches, ports, hosts)?;
    let (lo, hi) = link_range(switches, free);
    if u64::from(links) < lo || u64::from(links) > hi {
        return Err(bad_param(
            "random",
            "links",
            links,
            format!(
                "an integer in {lo}..={hi} (connected, at most one link per switch pair, {free} ports per switch for links)"
            ),
        ));
    }
    let edges = links_with_retries(switches, free, Some(links as usize), seed)?;
    assemble(
        format!("random:switches={switches},ports={ports},hosts={hosts},links={links},seed={seed}"),
        switches,
        ports,
        hosts,
        &edges,
    )
}

/// The fewest and most links a connected network of these switches holds.
fn link_range(switches: u32, free: u32) -> (u64, u64) {
    let s = u64::from(switches);
    let by_ports = s * u64::from(free) / 2;
    let by_pairs = s * s.saturating_sub(1) / 2;
    (s.saturating_sub(1), by_ports.min(by_pairs))
}

/// Checks the shared parameters; returns the ports left for links.
fn check(switches: u32, ports: u32, hosts: u32) -> Result<u32, TopologyError> {
    if switches == 0 || switches > MAX_SWITCHES {
        return Err(bad_param(
            "random",
            "switches",
            switches,
            format!("an integer in 1..={MAX_SWITCHES}"),
        ));
    }
    if ports == 0 || ports > u32::from(u16::MAX) {
        return Err(bad_param(
            "random",
            "ports",
            ports,
            "an integer in 1..=65535",
        ));
    }
    if hosts > ports {
        return Err(bad_param(
            "random",
            "hosts",
            hosts,
            format!("an integer in 0..={ports} (at most the ports of a switch)"),
        ));
    }
    // A tree on more than two switches needs a switch with two links.
    let need = switches.saturating_sub(1).min(2);
    if ports < need {
        return Err(bad_param(
            "random",
            "ports",
            ports,
            format!("at least {need} to connect {switches} switches"),
        ));
    }
    if ports - hosts < need {
        return Err(bad_param(
            "random",
            "hosts",
            hosts,
            format!(
                "at most {} so that {need} of the {ports} ports remain to connect {switches} switches",
                ports - need
            ),
        ));
    }
    if u64::from(switches) * (1 + u64::from(hosts)) > MAX_NODES {
        return Err(TopologyError::impossible(format!(
            "random: {switches} switches with {hosts} hosts each is more than {MAX_NODES} nodes"
        )));
    }
    Ok(ports - hosts)
}

fn links_with_retries(
    switches: u32,
    free: u32,
    target: Option<usize>,
    seed: u64,
) -> Result<Vec<(u32, u32)>, TopologyError> {
    let mut rng = rng::stream(seed, "random-topology");
    for _ in 0..MAX_ATTEMPTS {
        if let Some(edges) = Links::new(switches, free).draw(&mut rng, target) {
            return Ok(edges);
        }
    }
    Err(TopologyError::impossible(format!(
        "random: found no way to place {} links after {MAX_ATTEMPTS} attempts; try another seed or fewer links",
        target.unwrap_or(0)
    )))
}

/// A uniform index below `n` (n > 0), drawn as a `u32` so that 32- and
/// 64-bit machines agree.
fn pick(rng: &mut Rng, n: usize) -> usize {
    rng.gen_range(0..n as u32) as usize
}

/// The switch graph being drawn: simple, with a degree budget.
struct Links {
    n: usize,
    free: u32,
    degree: Vec<u32>,
    pairs: HashSet<(u32, u32)>,
    edges: Vec<(u32, u32)>,
}

impl Links {
    fn new(switches: u32, free: u32) -> Self {
        Links {
            n: switches as usize,
            free,
            degree: vec![0; switches as usize],
            pairs: HashSet::new(),
            edges: Vec::new(),
        }
    }

    fn key(u: u32, v: u32) -> (u32, u32) {
        (u.min(v), u.max(v))
    }

    fn linked(&self, u: u32, v: u32) -> bool {
        self.pairs.contains(&Self::key(u, v))
    }

    fn open(&self, u: u32) -> bool {
        self.degree[u as usize] < self.free
    }

    fn legal(&self, u: u32, v: u32) -> bool {
        u != v && self.open(u) && self.open(v) && !self.linked(u, v)
    }

    fn add(&mut self, u: u32, v: u32) {
        self.degree[u as usize] += 1;
        self.degree[v as usize] += 1;
        self.pairs.insert(Self::key(u, v));
        self.edges.push((u, v));
    }

    /// One attempt: a spanning tree, then random links up to `target` (or
    /// until none fits). `None` if the target cannot be reached.
    fn draw(mut self, rng: &mut Rng, target: Option<usize>) -> Option<Vec<(u32, u32)>> {
        self.spanning_tree(rng);
        self.fill(rng, target);
        if let Some(t) = target {
            while self.edges.len() < t {
                if !self.rewire(rng) {
                    return None;
                }
            }
        }
        let mut edges: Vec<_> = self.edges.iter().map(|&(u, v)| Self::key(u, v)).collect();
        edges.sort_unstable();
        Some(edges)
    }

    /// Joins the switches in random order, each to a random earlier one with
    /// a free port. With two or more link ports per switch one always has.
    fn spanning_tree(&mut self, rng: &mut Rng) {
        let mut order: Vec<u32> = (0..self.n as u32).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, pick(rng, i + 1));
        }
        let mut open = vec![order[0]];
        for &v in &order[1..] {
            let i = pick(rng, open.len());
            let u = open[i];
            self.add(u, v);
            if !self.open(u) {
                open.swap_remove(i);
            }
            if self.open(v) {
                open.push(v);
            }
        }
    }

    /// Adds random legal links until `target` or until none is left.
    fn fill(&mut self, rng: &mut Rng, target: Option<usize>) {
        let mut avail: Vec<u32> = (0..self.n as u32).filter(|&u| self.open(u)).collect();
        while avail.len() >= 2 && !matches!(target, Some(t) if self.edges.len() >= t) {
            let i = pick(rng, avail.len());
            let u = avail[i];
            // A few blind draws first; a full scan only when they miss.
            let blind = (0..8)
                .map(|_| pick(rng, avail.len()))
                .find(|&j| self.legal(u, avail[j]));
            let j = match blind {
                Some(j) => j,
                None => {
                    let cands: Vec<usize> = (0..avail.len())
                        .filter(|&j| self.legal(u, avail[j]))
                        .collect();
                    if cands.is_empty() {
                        // Links only ever close options, so u is done.
                        avail.swap_remove(i);
                        continue;
                    }
                    cands[pick(rng, cands.len())]
                }
            };
            let v = avail[j];
            self.add(u, v);
            for k in [i.max(j), i.min(j)] {
                if !self.open(avail[k]) {
                    avail.swap_remove(k);
                }
            }
        }
    }

    /// When no legal link is left but ports are free: replaces a link x-y by
    /// u-x and v-y (u, v switches with free ports), one link more, the same
    /// degrees for x and y, and the network still connected.
    fn rewire(&mut self, rng: &mut Rng) -> bool {
        let open: Vec<u32> = (0..self.n as u32).filter(|&u| self.open(u)).collect();
        if open.is_empty() {
            return false;
        }
        let u = open[pick(rng, open.len())];
        let others: Vec<u32> = open.iter().copied().filter(|&v| v != u).collect();
        let v = if others.is_empty() {
            if self.free - self.degree[u as usize] < 2 {
                return false;
            }
            u
        } else {
            others[pick(rng, others.len())]
        };
        let m = self.edges.len();
        if m == 0 {
            return false;
        }
        let start = pick(rng, m);
        for k in (start..m).chain(0..start) {
            let (x0, y0) = self.edges[k];
            for (x, y) in [(x0, y0), (y0, x0)] {
                let fits = |a: u32, b: u32| a != b && !self.linked(a, b);
                if [u, v].contains(&x) || [u, v].contains(&y) || !fits(u, x) || !fits(v, y) {
                    continue;
                }
                self.pairs.remove(&Self::key(x, y));
                self.pairs.insert(Self::key(u, x));
                self.pairs.insert(Self::key(v, y));
                self.edges[k] = (u, x);
                self.edges.push((v, y));
                if self.connected() {
                    self.degree[u as usize] += 1;
                    self.degree[v as usize] += 1;
                    return true;
                }
                self.edges.pop();
                self.edges[k] = (x0, y0);
                self.pairs.remove(&Self::key(u, x));
                self.pairs.remove(&Self::key(v, y));
                self.pairs.insert(Self::key(x, y));
            }
        }
        false
    }

    fn connected(&self) -> bool {
        let mut adj = vec![Vec::new(); self.n];
        for &(a, b) in &self.edges {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut seen = vec![false; self.n];
        let mut queue = VecDeque::from([0u32]);
        seen[0] = true;
        let mut count = 1;
        while let Some(a) = queue.pop_front() {
            for &b in &adj[a as usize] {
                if !seen[b as usize] {
                    seen[b as usize] = true;
                    count += 1;
                    queue.push_back(b);
                }
            }
        }
        count == self.n
    }
}

fn assemble(
    name: String,
    switches: u32,
    ports: u32,
    hosts: u32,
    edges: &[(u32, u32)],
) -> Result<Network, TopologyError> {
    let (mut b, sw_class, t_class) = NetworkBuilder::with_default_classes(name);
    for s in 0..switches {
        b.add_switch(format!("s{s}"), ports as u16);
    }
    attach_terminals(&mut b, switches, hosts, (ports - hosts) as u16, t_class)?;
    // Sorted pairs give each switch its links in neighbour order.
    for &(u, v) in edges {
        b.connect_next(NodeId(u), NodeId(v), sw_class)?;
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::metrics::is_connected;

    /// Switch-switch neighbour lists, checked to be simple.
    fn switch_links(net: &Network) -> Vec<Vec<NodeId>> {
        net.switches()
            .iter()
            .map(|&s| {
                let mut ns: Vec<_> = net.neighbors(s).filter(|&n| net.is_switch(n)).collect();
                ns.sort();
                assert!(ns.windows(2).all(|w| w[0] != w[1]), "parallel links");
                assert!(!ns.contains(&s), "self link");
                ns
            })
            .collect()
    }

    #[test]
    fn flich_networks_are_maximal() {
        let net = random_irregular(64, 8, 4, 1).unwrap();
        assert_eq!(net.switches().len(), 64);
        assert_eq!(net.terminals().len(), 256);
        assert!(is_connected(&net));
        let links = switch_links(&net);
        for (s, ns) in links.iter().enumerate() {
            assert!(ns.len() <= 4);
            for (t, nt) in links.iter().enumerate() {
                if s != t && ns.len() < 4 && nt.len() < 4 {
                    assert!(ns.contains(&NodeId(t as u32)), "{s} and {t} could link");
                }
            }
        }
        assert_eq!(net.attached_switch(net.terminal(9)), Some(NodeId(2)));
        // Links on ports 1..=4 in neighbour order, hosts on 5..=8.
        for &s in net.switches() {
            let dsts: Vec<_> = net
                .out_channels(s)
                .iter()
                .map(|&c| net.channel(c))
                .collect();
            let sw: Vec<_> = dsts.iter().filter(|c| net.is_switch(c.dst)).collect();
            assert!(sw.windows(2).all(|w| w[0].dst < w[1].dst));
            for (k, c) in sw.iter().enumerate() {
                assert_eq!(c.src_port.0 as usize, k + 1);
            }
            assert!(dsts
                .iter()
                .filter(|c| net.is_terminal(c.dst))
                .all(|c| c.src_port.0 > 4));
        }
    }

    #[test]
    fn seeds_decide_the_network() {
        let a = random_irregular(32, 8, 4, 7).unwrap();
        let b = random_irregular(32, 8, 4, 7).unwrap();
        let c = random_irregular(32, 8, 4, 8).unwrap();
        assert_eq!(a, b);
        assert_ne!(switch_links(&a), switch_links(&c));
    }

    #[test]
    fn exact_link_counts() {
        for links in [127, 200, 512, 1024] {
            let net = random_with_links(128, 32, 16, links, 1).unwrap();
            assert!(is_connected(&net));
            let total: usize = switch_links(&net).iter().map(Vec::len).sum();
            assert_eq!(total, 2 * links as usize);
            assert!(switch_links(&net).iter().all(|ns| ns.len() <= 16));
        }
        // Complete graph: every pair once.
        let net = random_with_links(6, 9, 4, 15, 3).unwrap();
        assert!(switch_links(&net).iter().all(|ns| ns.len() == 5));
    }

    #[test]
    fn regular_graphs_need_rewiring_sometimes() {
        // Every port used: a 3-regular graph on 10 switches, for many seeds.
        for seed in 0..40 {
            let net = random_with_links(10, 4, 1, 15, seed).unwrap();
            assert!(is_connected(&net));
            assert!(switch_links(&net).iter().all(|ns| ns.len() == 3));
        }
    }

    #[test]
    fn small_cases() {
        let one = random_irregular(1, 4, 4, 1).unwrap();
        assert_eq!(one.cable_count(), 4);
        let two = random_irregular(2, 2, 1, 1).unwrap();
        assert_eq!(two.cable_count(), 3);
        assert!(is_connected(&two));
    }

    #[test]
    fn bad_parameters_name_the_key() {
        let e = random_irregular(8, 4, 5, 1).unwrap_err().to_string();
        assert!(e.contains("'hosts'") && e.contains("0..=4"), "{e}");
        let e = random_irregular(8, 4, 3, 1).unwrap_err().to_string();
        assert!(e.contains("'hosts'") && e.contains("at most 2"), "{e}");
        let e = random_with_links(128, 32, 16, 100, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'links'") && e.contains("127..=1024"), "{e}");
        let e = random_with_links(4, 32, 16, 7, 1).unwrap_err().to_string();
        assert!(e.contains("3..=6"), "{e}");
        let e = random_irregular(0, 8, 4, 1).unwrap_err().to_string();
        assert!(e.contains("'switches'"), "{e}");
    }
}
