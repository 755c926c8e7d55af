//! One table row describing a network: counts, degrees, distances,
//! connectivity and bisection, as the CLI prints and reports store it.

use super::{bisection, components, distances};
use crate::network::Network;
use serde::{Deserialize, Serialize};

/// Examples kept of the smaller components of a disconnected network.
const SAMPLED_COMPONENTS: usize = 8;
const SAMPLED_NAMES: usize = 3;

/// Min, max and mean of a per-switch count.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct DegreeStats {
    pub min: u32,
    pub max: u32,
    pub mean: f64,
}

impl DegreeStats {
    fn of(values: impl Iterator<Item = u32>) -> Self {
        let (mut min, mut max, mut sum, mut n) = (u32::MAX, 0, 0u64, 0u64);
        for v in values {
            min = min.min(v);
            max = max.max(v);
            sum += u64::from(v);
            n += 1;
        }
        if n == 0 {
            return DegreeStats::default();
        }
        DegreeStats {
            min,
            max,
            mean: sum as f64 / n as f64,
        }
    }
}

/// A component other than the largest: its size and a few of its nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentSample {
    pub size: usize,
    pub examples: Vec<String>,
}

/// The metrics of a network. Distances are inter-switch hops (see
/// [`super::Distances`]); the bisection is in cables (see
/// [`super::Bisection`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub name: String,
    pub family: String,
    /// For a network without declared structure (a fabric read from a
    /// file), the family its cabling was recognised as, as a spec.
    pub recognised: Option<String>,
    pub switches: usize,
    pub terminals: usize,
    pub cables: usize,
    pub channels: usize,
    /// Cabled ports per switch.
    pub switch_degree: DegreeStats,
    /// Ports per switch cabled to switches.
    pub switch_links: DegreeStats,
    /// Ports per switch cabled to terminals (min and max; mean is
    /// terminals / switches).
    pub terminals_per_switch: DegreeStats,
    pub diameter: u32,
    pub avg_distance: f64,
    pub avg_switch_distance: f64,
    pub distance_exact: bool,
    pub distance_method: String,
    pub connected: bool,
    pub components: usize,
    /// Up to 8 components after the largest, largest first.
    pub smaller_components: Vec<ComponentSample>,
    pub bisection_width: u64,
    pub bisection_exact: bool,
    pub bisection_method: String,
    pub bisection_lower_bound: Option<u64>,
}

/// Everything [`Summary`] lists, computed in one call.
pub fn summary(net: &Network) -> Summary {
    summary_with(net, &mut |_| {})
}

/// The stages of [`summary_with`], in order: on large networks distances
/// and the bisection take seconds to minutes each.
pub const SUMMARY_STAGES: [&str; 3] = ["components", "distances", "bisection"];

/// [`summary`], telling `stage` the name of each of [`SUMMARY_STAGES`] as
/// it starts, so that a caller can show progress.
pub fn summary_with(net: &Network, stage: &mut dyn FnMut(&'static str)) -> Summary {
    let ports_to = |s, switch: bool| {
        net.neighbors(s)
            .filter(|&v| net.is_switch(v) == switch)
            .count() as u32
    };
    let sw = net.switches();
    stage(SUMMARY_STAGES[0]);
    let comps = components(net);
    stage(SUMMARY_STAGES[1]);
    let dist = distances(net);
    stage(SUMMARY_STAGES[2]);
    let bis = bisection(net);
    Summary {
        name: net.name().to_string(),
        family: net.structure().family().to_string(),
        recognised: match net.structure() {
            crate::network::Structure::Irregular => crate::network::recognise::recognise(net)
                .ok()
                .map(|r| r.describe()),
            _ => None,
        },
        switches: sw.len(),
        terminals: net.terminals().len(),
        cables: net.cable_count(),
        channels: net.channel_count(),
        switch_degree: DegreeStats::of(sw.iter().map(|&s| net.degree(s) as u32)),
        switch_links: DegreeStats::of(sw.iter().map(|&s| ports_to(s, true))),
        terminals_per_switch: DegreeStats::of(sw.iter().map(|&s| ports_to(s, false))),
        diameter: dist.diameter,
        avg_distance: dist.avg_distance,
        avg_switch_distance: dist.avg_switch_distance,
        distance_exact: dist.exact,
        distance_method: dist.method,
        connected: comps.len() <= 1,
        components: comps.len(),
        smaller_components: comps
            .iter()
            .skip(1)
            .take(SAMPLED_COMPONENTS)
            .map(|c| ComponentSample {
                size: c.len(),
                examples: c
                    .iter()
                    .take(SAMPLED_NAMES)
                    .map(|&v| net.node(v).name.clone())
                    .collect(),
            })
            .collect(),
        bisection_width: bis.width,
        bisection_exact: bis.exact,
        bisection_method: bis.method,
        bisection_lower_bound: bis.lower_bound,
    }
}
