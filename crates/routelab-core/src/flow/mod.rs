//! The flow layer: flow-level congestion of oblivious routes, in seconds
//! rather than the minutes of packet simulation.
//!
//! A *flow* is a `(source, destination)` pair of terminal indices (the
//! order of [`crate::Network::terminals`]), as
//! [`crate::traffic::BoundPattern::flows`] gives them. Flows follow
//! [`crate::routing::Routes`]: one path each through the tables, or, when
//! the routes carry a [`crate::routing::PathSet`], every path of the pair
//! with the flow split evenly over them. A self pair is idle and loads
//! nothing.
//!
//! - [`loads`]: per-channel load, exact integer units with a common
//!   denominator.
//! - [`ebb`](mod@ebb): the effective bisection bandwidth of ORCS (mean over
//!   flows of 1 / the largest load on the flow's path; the fluid share for
//!   split flows), over many random bisections or any pattern, in
//!   parallel and deterministic for a seed.
//! - [`maxmin`]: max-min fair rates by progressive filling.
//! - [`minimal`]: the fluid view of minimal adaptive routing, every flow
//!   split evenly over all its minimal paths (counted, not listed): one
//!   feasible minimal routing, not the best.
//! - [`concurrent`]: the best any routing over minimal paths (or over all
//!   paths) can do, the maximum concurrent flow, bracketed by a certified
//!   upper bound and a rate a routing found reaches.

pub mod concurrent;
pub mod ebb;
mod error;
pub mod loads;
pub mod maxmin;
pub mod minimal;
mod paths;

pub use concurrent::{max_concurrent_flow, BoundOptions, ConcurrentFlow, PathRule};
pub use ebb::{
    ebb, orcs, orcs_shares, pattern_seeds, seeds_of, EbbOptions, EbbResult, Metric, Seeding,
};
pub use error::FlowError;
pub use loads::{all_to_all_loads, channel_loads, max_channel_load, ChannelLoads};
pub use maxmin::{capacities, link_rate, max_min_rates, Capacity, MaxMin};
pub use minimal::minimal_split_loads;
