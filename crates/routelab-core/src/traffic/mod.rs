//! The traffic layer: who sends to whom, on terminal indices `0..T` (the
//! order of [`crate::Network::terminals`]).
//!
//! A [`Pattern`] is parsed from a spec (`tornado`, `local:l=2`,
//! `hotspot:f=0.1,host=3`) or deserialized from an experiment file, then
//! bound to a network and seed with [`Pattern::bind`]. The [`BoundPattern`]
//! answers [`BoundPattern::destination`] per message (the simulator's hot
//! path) and [`BoundPattern::flows`] for flow-level evaluation.
//!
//! Self traffic: a permutation may map a terminal to itself (bit-reverse
//! palindromes, the transpose diagonal, the idle terminal of an odd
//! bisection). Such a source is idle: its destination is itself, callers do
//! not inject it, and flows leave it out, because traffic to oneself never
//! loads the network. Random patterns never pick the source.

mod bound;
mod error;
mod grid;
mod groups;
mod index;
mod local;
mod matching;
pub mod patterns;

pub use bound::BoundPattern;
pub use error::TrafficError;
pub use patterns::{BisectDir, Pattern, PATTERNS};

use crate::network::Network;

/// The (source, destination) pairs of the pattern `spec` on `net`, as
/// [`BoundPattern::flows`] gives them (for `routelab pattern NAME --topo SPEC`).
pub fn pairs(net: &Network, spec: &str, seed: u64) -> Result<Vec<(usize, usize)>, TrafficError> {
    Ok(Pattern::parse(spec)?.bind(net, seed)?.flows())
}
