//! Minimal source routes with in-transit buffers (Flich et al. 2000 §3).
//!
//! Up*/down* forbids a down link followed by an up link, so many minimal
//! paths of an irregular network are illegal. ITB keeps them: the route
//! is split where it turns from down to up, at a host of that switch,
//! which ejects the packet whole and injects it again. Every sub-route is
//! a legal up*/down* path and no dependency crosses a host, so the
//! channel dependency graph stays acyclic on one lane (see
//! [`crate::deadlock`]: paths may pass through terminals).
//!
//! Per pair of hosts the engine takes one minimal path, at random among
//! the minimal paths that need the fewest in-transit hosts (none where a
//! legal minimal path exists, so ITB adds hosts only where up*/down*
//! cannot be minimal); `itb-any` draws uniformly among all minimal paths;
//! `itb-legal-first` takes a legal minimal path where one exists and
//! otherwise draws uniformly among all minimal paths (§3 and §4.5 read
//! together: up*/down*'s route when it is minimal, else "a minimal path",
//! "selected randomly"). A path is split as late as possible, which needs
//! the fewest splits for that path; the host of a split is the switch's
//! next host in round-robin order, so in-transit work is spread. A path
//! through a switch without hosts cannot be split there.
//!
//! The up/down order is `updown`'s (`root` option, else the most central
//! switch); the tables hold `updown`'s routes so that the routes export
//! as an LFT. Random choices come from the `seed` option's stream
//! `routing/itb/<destination switch>`.

use super::fabric::{Fabric, NONE};
use super::source_paths::SourcePaths;
use super::updown::{fill_tables, is_up, order};
use super::{Routes, RoutingEngine, RoutingError, RoutingOptions};
use crate::network::{ChannelId, Network};
use crate::rng;
use rand::Rng;
use std::collections::VecDeque;

pub struct Itb {
    root: Option<String>,
    seed: u64,
    choice: Choice,
}

/// Which minimal paths a pair's route is drawn among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    /// Those needing the fewest in-transit hosts (`itb`).
    Fewest,
    /// Every minimal path (`itb-any`).
    Any,
    /// The legal ones where there are some, else every minimal path
    /// (`itb-legal-first`).
    LegalFirst,
}

fn build(o: &RoutingOptions, choice: Choice) -> Box<dyn RoutingEngine> {
    Box::new(Itb {
        root: o.root.clone(),
        seed: o.seed,
        choice,
    })
}

pub fn engine(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    build(o, Choice::Fewest)
}

/// `itb-any`: one minimal path per pair drawn uniformly among all of them
/// (flich2000 §4.5 read alone: "selected randomly"), split where it
/// must be. More in-transit hosts, more paths to spread the load over.
pub fn engine_any(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    build(o, Choice::Any)
}

/// `itb-legal-first`: a legal minimal path where the pair has one (no
/// in-transit host, as `itb`), else one drawn uniformly among all minimal
/// paths, however many splits it needs.
pub fn engine_legal_first(o: &RoutingOptions) -> Box<dyn RoutingEngine> {
    build(o, Choice::LegalFirst)
}

const INF: u32 = u32::MAX / 4;

impl RoutingEngine for Itb {
    fn name(&self) -> &'static str {
        match self.choice {
            Choice::Fewest => "itb",
            Choice::Any => "itb-any",
            Choice::LegalFirst => "itb-legal-first",
        }
    }

    fn memory_bytes(&self, net: &Network) -> u64 {
        Routes::table_bytes(net) + SourcePaths::estimate_bytes(net)
    }

    fn route(&self, net: &Network) -> Result<Routes, RoutingError> {
        let f = Fabric::new(net, self.name())?;
        let mut routes = Routes::new(net, self.name());
        if f.t == 0 || f.main == NONE {
            return Ok(routes);
        }
        let rank = order(&f, &self.root)?;
        fill_tables(&f, &rank, &mut routes);
        let mut hosts: Vec<Vec<usize>> = vec![Vec::new(); f.s];
        for (t, &x) in f.inject.iter().enumerate() {
            if x != NONE {
                hosts[x as usize].push(t);
            }
        }
        let mut next_host = vec![0usize; f.s];
        let mut paths = SourcePaths::new(&f);
        let mut plan = Plan::new(f.s);
        for d in 0..f.s {
            if rank[d] == NONE || hosts[d].is_empty() {
                continue;
            }
            plan.toward(&f, &rank, &hosts, d);
            let mut r = rng::stream(self.seed, &format!("routing/itb/{d}"));
            for src in 0..f.t {
                let a = f.inject[src];
                if a == NONE {
                    continue;
                }
                for &dst in &hosts[d] {
                    if dst == src {
                        continue;
                    }
                    let mut ch = Vec::new();
                    let any = match self.choice {
                        Choice::Fewest => false,
                        Choice::Any => true,
                        Choice::LegalFirst => plan.splits[a as usize][0] > 0,
                    };
                    plan.walk(
                        any,
                        &f,
                        &rank,
                        &hosts,
                        &mut next_host,
                        a as usize,
                        &mut r,
                        &mut ch,
                    )
                    .ok_or_else(|| RoutingError::BlackHole {
                        src: f.terminal_name(src),
                        dst: f.terminal_name(dst),
                        switch: f.net.label(f.switch_node(a as usize)).into_owned(),
                        reason: "no minimal path splits into up*/down* sub-routes at \
                                 switches with hosts"
                            .into(),
                    })?;
                    paths.set(src, dst, ch);
                }
            }
        }
        paths.finish(&f, &mut routes)?;
        Ok(routes)
    }
}

/// The minimal paths toward one destination switch, by the fewest
/// in-transit hosts they need: per switch and phase (0: may still go up,
/// 1: has gone down), the fewest splits to the destination and how many
/// minimal paths achieve it.
struct Plan {
    dist: Vec<u32>,
    splits: Vec<[u32; 2]>,
    ways: Vec<[f64; 2]>,
    /// Per switch and phase: every feasible minimal path, whatever its
    /// splits (for `itb-any`).
    all: Vec<[f64; 2]>,
}

/// One step a path may take: the link, the phase after it, whether the
/// packet is split at this switch first, and the splits from there on.
struct Step {
    k: usize,
    phase: usize,
    split: bool,
    cost: u32,
}

impl Plan {
    fn new(s: usize) -> Self {
        Plan {
            dist: vec![INF; s],
            splits: vec![[INF; 2]; s],
            ways: vec![[0.0; 2]; s],
            all: vec![[0.0; 2]; s],
        }
    }

    fn toward(&mut self, f: &Fabric, rank: &[u32], hosts: &[Vec<usize>], d: usize) {
        self.dist.fill(INF);
        self.dist[d] = 0;
        let mut queue = VecDeque::from([d]);
        let mut by_dist = Vec::with_capacity(f.s);
        while let Some(v) = queue.pop_front() {
            by_dist.push(v);
            for l in f.links(v) {
                let u = l.to as usize;
                if rank[u] != NONE && self.dist[u] == INF {
                    self.dist[u] = self.dist[v] + 1;
                    queue.push_back(u);
                }
            }
        }
        self.splits.fill([INF; 2]);
        self.ways.fill([0.0; 2]);
        self.all.fill([0.0; 2]);
        self.all[d] = [1.0, 1.0];
        self.splits[d] = [0, 0];
        self.ways[d] = [1.0, 1.0];
        for &x in &by_dist[1..] {
            for phase in 0..2 {
                let mut best = INF;
                let mut ways = 0.0;
                for s in self.steps(f, rank, hosts, x, phase) {
                    let w = self.ways[f.links(x)[s.k].to as usize][s.phase];
                    if s.cost < best {
                        best = s.cost;
                        ways = w;
                    } else if s.cost == best {
                        ways += w;
                    }
                }
                self.splits[x][phase] = best;
                self.ways[x][phase] = ways;
                self.all[x][phase] = self
                    .steps(f, rank, hosts, x, phase)
                    .map(|s| self.all[f.links(x)[s.k].to as usize][s.phase])
                    .sum();
            }
        }
    }

    /// The minimal steps from switch `x` in `phase`, with their costs.
    fn steps<'a>(
        &'a self,
        f: &'a Fabric,
        rank: &'a [u32],
        hosts: &'a [Vec<usize>],
        x: usize,
        phase: usize,
    ) -> impl Iterator<Item = Step> + 'a {
        f.links(x).iter().enumerate().filter_map(move |(k, l)| {
            let y = l.to as usize;
            if rank[y] == NONE || self.dist[y] == INF || self.dist[y] + 1 != self.dist[x] {
                return None;
            }
            let (phase_after, split) = if is_up(rank, x, l) {
                if phase == 1 && hosts[x].is_empty() {
                    return None;
                }
                (0, phase == 1)
            } else {
                (1, false)
            };
            let rest = self.splits[y][phase_after];
            (rest < INF).then_some(Step {
                k,
                phase: phase_after,
                split,
                cost: rest + u32::from(split),
            })
        })
    }

    /// Draws one of the best paths from switch `a` (uniformly over them;
    /// with `any`, over every feasible minimal path) and appends its
    /// channels to `out`, in-transit detours included; `None` when there
    /// is none.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        any: bool,
        f: &Fabric,
        rank: &[u32],
        hosts: &[Vec<usize>],
        next_host: &mut [usize],
        a: usize,
        r: &mut rng::Rng,
        out: &mut Vec<ChannelId>,
    ) -> Option<()> {
        let (mut x, mut phase) = (a, 0);
        if self.splits[a][0] >= INF {
            return None;
        }
        while self.dist[x] > 0 {
            let best = self.splits[x][phase];
            let steps: Vec<Step> = self
                .steps(f, rank, hosts, x, phase)
                .filter(|s| any || s.cost == best)
                .collect();
            let counts = if any { &self.all } else { &self.ways };
            let weight = |s: &Step| counts[f.links(x)[s.k].to as usize][s.phase];
            let total: f64 = steps.iter().map(weight).sum();
            let mut pick = r.gen::<f64>() * total;
            let mut chosen = steps.len() - 1;
            for (i, s) in steps.iter().enumerate() {
                pick -= weight(s);
                if pick < 0.0 {
                    chosen = i;
                    break;
                }
            }
            let s = &steps[chosen];
            if s.split {
                let h = hosts[x][next_host[x] % hosts[x].len()];
                next_host[x] += 1;
                let (eject, inject) = host_channels(f, x, h)?;
                out.push(eject);
                out.push(inject);
            }
            let l = f.links(x)[s.k];
            out.push(l.ch);
            x = l.to as usize;
            phase = s.phase;
        }
        Some(())
    }
}

/// The channels from switch `x` into host `h` and back.
pub(super) fn host_channels(f: &Fabric, x: usize, h: usize) -> Option<(ChannelId, ChannelId)> {
    let net = f.net;
    let port = f.sink_port(x, h)?;
    let eject = net.channel_at(f.switch_node(x), port)?;
    let inject = Routes::injection(net, net.terminal(h))?;
    (net.channel(inject).dst == f.switch_node(x)).then_some((eject, inject))
}
