//! Effective bisection bandwidth: the mean bandwidth per flow that routes
//! give over many communication patterns, by default random bisections
//! (domke2011 §V with ORCS; geoffray2008 §5.2).
//!
//! # The ORCS metric
//! For one pattern, every flow (source, destination) is routed and each
//! channel's *load* is the number of flows crossing it. A flow's share is
//! `1 / (the largest load on its path)`: the fair share of its most
//! congested channel, relative to the link rate. The pattern's value is
//! the mean share over its flows (geoffray2008's per-pattern average
//! `b_avg`, normalised to the link rate), and the effective bisection
//! bandwidth is the min, mean and max of that over the patterns. On a
//! single crossbar every share is exactly 1.
//!
//! Split flows (routes with a [`crate::routing::PathSet`], e.g.
//! `multipath`) take the fluid view of randomized dispersive routing: a
//! flow with `n` paths sends `1/n` of itself on each, so a channel's load
//! `L_c` is the sum of the fractions crossing it, and the flow's share is
//! `(1/n) Σ_p min(1, 1 / max_{c ∈ p} L_c)`: each sub-flow gets the fair
//! scaling of its most loaded channel, never more than its own demand.
//! With one path `L_c >= 1` on the flow's own path and this is exactly the
//! ORCS share. (Counting every flow that touches a channel as a whole flow
//! instead would report a Clos with full bisection bandwidth, where an even
//! split leaves every channel at load 1 at most for any permutation, at
//! 1/16 of its bandwidth.) Shares are feasible: on every channel the
//! flows' rates sum to at most 1, so no pattern beats the bisection bound.
//!
//! # The max-min metric
//! [`Metric::MaxMin`] scores a pattern by the mean max-min fair rate of
//! its flows instead ([`super::maxmin`]).
//!
//! # Patterns and determinism
//! Pattern `i` is the pattern spec (default `bisect`) bound with the `i`-th
//! seed drawn from the stream `flow/ebb/patterns` of the master seed, so a
//! run is repeatable. With [`Seeding::Consecutive`] it is bound with
//! `seed + i` instead: patterns `1..=N` are then those that simulations with
//! `run.seed` 1 to N draw, so a flow-level and a packet-level study of the
//! same patterns line up one to one. Patterns are evaluated in parallel (rayon), each with
//! its own buffers; every value depends only on its seed and the results
//! are combined in pattern order, so they are identical for any number of
//! threads.

use super::maxmin::{self, Capacity, Filler};
use super::paths::{FlowPaths, Workspace};
use super::FlowError;
use crate::network::Network;
use crate::rng;
use crate::routing::Routes;
use crate::traffic::Pattern;
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

/// How a pattern is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Mean over flows of 1 / the largest load on the flow's path (ORCS).
    #[default]
    Orcs,
    /// Mean max-min fair rate, relative to the link rate.
    MaxMin,
}

impl Metric {
    pub const NAMES: &'static str = "orcs, maxmin";

    pub fn name(self) -> &'static str {
        match self {
            Metric::Orcs => "orcs",
            Metric::MaxMin => "maxmin",
        }
    }

    pub fn parse(text: &str) -> Result<Metric, FlowError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "orcs" => Ok(Metric::Orcs),
            "maxmin" | "max-min" => Ok(Metric::MaxMin),
            other => Err(FlowError::bad_option(
                "metric",
                other,
                format!("one of {}", Self::NAMES),
            )),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Metric {
    type Err = FlowError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Metric::parse(s)
    }
}

/// How the patterns' seeds follow from the master seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Seeding {
    /// Drawn from the stream `flow/ebb/patterns` of the master seed.
    #[default]
    Drawn,
    /// The master seed, then the next integers: `seed, seed + 1, ...`.
    Consecutive,
}

impl Seeding {
    pub fn parse(text: &str) -> Option<Seeding> {
        match text.trim().to_ascii_lowercase().as_str() {
            "drawn" => Some(Seeding::Drawn),
            "consecutive" => Some(Seeding::Consecutive),
            _ => None,
        }
    }
}

/// The most patterns one run evaluates.
pub const MAX_PATTERNS: usize = 10_000_000;

/// What [`ebb`] evaluates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EbbOptions {
    /// Patterns to evaluate, 1..=[`MAX_PATTERNS`] (default 1,000).
    pub patterns: usize,
    /// A pattern spec (`bisect`, `permutation`, `tornado`, `local:l=2`, ...);
    /// `None` means `bisect`, random bisections.
    pub pattern: Option<String>,
    pub metric: Metric,
    /// Channel capacities of the max-min metric.
    pub capacity: Capacity,
    /// Master seed of the patterns.
    pub seed: u64,
    pub seeding: Seeding,
}

impl Default for EbbOptions {
    fn default() -> Self {
        EbbOptions {
            patterns: 1000,
            pattern: None,
            metric: Metric::Orcs,
            capacity: Capacity::Bandwidth,
            seed: 0,
            seeding: Seeding::Drawn,
        }
    }
}

impl EbbOptions {
    /// The option names and what each accepts.
    pub const KEYS: &'static [(&'static str, &'static str)] = &[
        ("patterns", "an integer in 1..=10000000"),
        (
            "pattern",
            "a traffic pattern spec such as bisect or tornado",
        ),
        ("metric", "one of orcs, maxmin"),
        ("capacity", "one of bandwidth, unit"),
        ("seed", "a non-negative integer"),
        ("seeding", "one of drawn, consecutive"),
    ];

    fn expected(key: &str) -> &'static str {
        Self::KEYS
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("", |(_, e)| e)
    }

    /// Sets an option from text (`patterns=100` on a command line).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), FlowError> {
        let v = value.trim();
        let bad = || FlowError::bad_option(key, v, Self::expected(key));
        match key {
            "patterns" => {
                self.patterns = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_PATTERNS).contains(n))
                    .ok_or_else(bad)?
            }
            "pattern" => {
                Pattern::parse(v)?;
                self.pattern = Some(v.to_string());
            }
            "metric" => self.metric = Metric::parse(v)?,
            "capacity" => self.capacity = Capacity::parse(v)?,
            "seed" => self.seed = v.parse().map_err(|_| bad())?,
            "seeding" => self.seeding = Seeding::parse(v).ok_or_else(bad)?,
            _ => {
                return Err(FlowError::bad_option(
                    key,
                    v,
                    format!(
                        "a known option: {}",
                        Self::KEYS
                            .iter()
                            .map(|(k, _)| *k)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        }
        Ok(())
    }

    /// Checks the ranges and the pattern spec.
    pub fn validate(&self) -> Result<Pattern, FlowError> {
        if !(1..=MAX_PATTERNS).contains(&self.patterns) {
            return Err(FlowError::bad_option(
                "patterns",
                self.patterns,
                Self::expected("patterns"),
            ));
        }
        Ok(Pattern::parse(self.pattern.as_deref().unwrap_or("bisect"))?)
    }
}

/// The outcome of [`ebb`]: values relative to the link rate (1 = every
/// flow at full link bandwidth).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EbbResult {
    pub metric: Metric,
    /// The pattern spec evaluated.
    pub pattern: String,
    pub avg: f64,
    pub min: f64,
    pub max: f64,
    /// Number of patterns evaluated.
    pub patterns: usize,
    /// The value of every pattern, in pattern order.
    pub per_pattern: Vec<f64>,
    /// The seed each pattern was bound with, in pattern order: binding the
    /// pattern spec with it gives that pattern's flows again.
    pub pattern_seeds: Vec<u64>,
    /// Wall-clock time of the evaluation.
    pub seconds: f64,
}

/// The seed of every pattern, drawn from the master seed.
pub fn pattern_seeds(seed: u64, patterns: usize) -> Vec<u64> {
    let mut r = rng::stream(seed, "flow/ebb/patterns");
    (0..patterns).map(|_| r.gen()).collect()
}

/// The seed of every pattern under `seeding`.
pub fn seeds_of(seed: u64, patterns: usize, seeding: Seeding) -> Vec<u64> {
    match seeding {
        Seeding::Drawn => pattern_seeds(seed, patterns),
        Seeding::Consecutive => (0..patterns as u64).map(|i| seed.wrapping_add(i)).collect(),
    }
}

/// The effective bandwidth of `routes` on `net` over `opts.patterns`
/// patterns. See the module docs for the definitions.
pub fn ebb(net: &Network, routes: &Routes, opts: &EbbOptions) -> Result<EbbResult, FlowError> {
    let start = Instant::now();
    let pattern = opts.validate()?;
    let paths = FlowPaths::new(net, routes)?;
    let caps = maxmin::capacities(net, opts.capacity);
    let seeds = seeds_of(opts.seed, opts.patterns, opts.seeding);
    let values: Vec<Result<f64, FlowError>> = seeds
        .par_iter()
        .map_init(
            || (Workspace::new(net.channel_count()), Filler::default()),
            |(ws, filler), &seed| {
                let flows = pattern.bind(net, seed)?.flows();
                if flows.is_empty() {
                    return Err(FlowError::NoFlows {
                        pattern: pattern.to_string(),
                        network: net.name().to_string(),
                    });
                }
                paths.load(&flows, ws)?;
                Ok(match opts.metric {
                    Metric::Orcs => mean(&orcs_of(&paths, ws)),
                    Metric::MaxMin => mean(&filler.rates(&paths, ws, &caps)),
                })
            },
        )
        .collect();
    let per_pattern = values.into_iter().collect::<Result<Vec<f64>, _>>()?;
    let (mut min, mut max, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for &v in &per_pattern {
        min = min.min(v);
        max = max.max(v);
        sum += v;
    }
    Ok(EbbResult {
        metric: opts.metric,
        pattern: pattern.to_string(),
        avg: sum / per_pattern.len() as f64,
        min,
        max,
        patterns: per_pattern.len(),
        per_pattern,
        pattern_seeds: seeds,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Mean over the non-idle flows (`NaN` marks an idle one).
fn mean(values: &[f64]) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for &v in values {
        if !v.is_nan() {
            sum += v;
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Per flow loaded in `ws`: its ORCS share, `NaN` for a self pair.
fn orcs_of(paths: &FlowPaths, ws: &Workspace) -> Vec<f64> {
    let den = paths.denominator();
    let mut share = vec![f64::NAN; ws.paths.len()];
    FlowPaths::for_each_path(ws, |flow, n, hops| {
        let m = hops.iter().map(|&c| ws.load[c as usize]).max().unwrap_or(0);
        let s = if m <= den { 1.0 } else { den as f64 / m as f64 };
        let v = &mut share[flow];
        *v = if v.is_nan() { 0.0 } else { *v } + s / f64::from(n);
    });
    share
}

/// The ORCS share of every flow (see the module docs); a self pair is
/// idle and gets 0.
pub fn orcs_shares(
    net: &Network,
    routes: &Routes,
    flows: &[(usize, usize)],
) -> Result<Vec<f64>, FlowError> {
    let paths = FlowPaths::new(net, routes)?;
    let mut ws = Workspace::new(net.channel_count());
    paths.load(flows, &mut ws)?;
    Ok(orcs_of(&paths, &ws)
        .into_iter()
        .map(|v| if v.is_nan() { 0.0 } else { v })
        .collect())
}

/// The ORCS value of one list of flows: the mean share over the flows
/// that are not self pairs (0 when there are none).
pub fn orcs(net: &Network, routes: &Routes, flows: &[(usize, usize)]) -> Result<f64, FlowError> {
    let paths = FlowPaths::new(net, routes)?;
    let mut ws = Workspace::new(net.channel_count());
    paths.load(flows, &mut ws)?;
    Ok(mean(&orcs_of(&paths, &ws)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::spec;
    use crate::routing::{self, RoutingOptions};

    #[test]
    fn a_crossbar_is_exactly_one() {
        let net = spec::build("crossbar:16").unwrap();
        let r = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
        let res = ebb(
            &net,
            &r,
            &EbbOptions {
                patterns: 50,
                ..EbbOptions::default()
            },
        )
        .unwrap();
        assert_eq!((res.min, res.avg, res.max), (1.0, 1.0, 1.0));
        assert_eq!(res.patterns, 50);
        assert_eq!(res.pattern, "bisect");
    }

    #[test]
    fn shares_of_a_shared_ring_channel() {
        // Ring of 4, DOR: 0->2 and 1->3 both cross the channel 1 -> 2.
        let net = spec::build("torus:4").unwrap();
        let r = routing::route(&net, "dor", &RoutingOptions::default()).unwrap();
        let s = orcs_shares(&net, &r, &[(0, 2), (1, 3), (3, 3)]).unwrap();
        assert_eq!(s, vec![0.5, 0.5, 0.0]);
        assert_eq!(orcs(&net, &r, &[(0, 2), (1, 3), (3, 3)]).unwrap(), 0.5);
    }

    #[test]
    fn options_are_checked() {
        let mut o = EbbOptions::default();
        o.set("patterns", "10").unwrap();
        o.set("metric", "maxmin").unwrap();
        o.set("pattern", "tornado").unwrap();
        o.set("capacity", "unit").unwrap();
        assert_eq!((o.patterns, o.metric), (10, Metric::MaxMin));
        for (k, v, want) in [
            ("patterns", "0", "1..=10000000"),
            ("metric", "fast", "orcs, maxmin"),
            ("pattern", "zigzag", "bit-reverse"),
            ("capacity", "huge", "bandwidth, unit"),
            ("colour", "red", "patterns, pattern"),
        ] {
            let e = o.set(k, v).unwrap_err().to_string();
            assert!(e.contains(want), "{k}: {e}");
        }
        let bad = EbbOptions {
            patterns: 0,
            ..EbbOptions::default()
        };
        let net = spec::build("crossbar:4").unwrap();
        let r = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
        assert!(ebb(&net, &r, &bad)
            .unwrap_err()
            .to_string()
            .contains("'patterns'"));
    }

    #[test]
    fn patterns_without_flows_are_reported() {
        // bit-reverse on 2 terminals maps both to themselves.
        let net = spec::build("crossbar:2").unwrap();
        let r = routing::route(&net, "minhop", &RoutingOptions::default()).unwrap();
        let o = EbbOptions {
            patterns: 3,
            pattern: Some("bit-reverse".into()),
            ..EbbOptions::default()
        };
        let e = ebb(&net, &r, &o).unwrap_err().to_string();
        assert!(e.contains("no flows"), "{e}");
    }
}
