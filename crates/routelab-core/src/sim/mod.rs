//! The packet/flit-level discrete-event simulator.
//!
//! ```no_run
//! use routelab_core::sim::{simulate, Spec};
//! let spec = Spec::from_toml_str(r#"
//!     [network]
//!     topology = "torus:4x4"
//!     [routing]
//!     algorithm = "dor"
//!     [traffic]
//!     load = 0.2
//! "#).unwrap();
//! let r = simulate(&spec).unwrap();
//! println!("{} flits/node/cycle, {} ns", r.accepted, r.latency_mean);
//! ```
//!
//! # Model
//! Time is integer picoseconds. Switches and terminals (NICs) are
//! components that talk only through links carrying timestamped messages
//! with a latency (`link.rs`): a flit in flight is its own `Arrive`
//! event, a credit its own `Credit` event, both 32-byte `Copy` values in a
//! calendar queue (`engine.rs`). Packets live in an arena (`packet.rs`);
//! all other state is in flat vectors of small records indexed by
//! channel (one cache line each), `(channel, vc)` (a 32-byte record
//! shared by the input buffer and its upstream sender) or terminal, so
//! nothing is allocated per flit or event once buffers have grown. All
//! randomness comes from [`crate::rng::stream`] with one purpose per
//! terminal and per switch: a spec and seed give the same result bit for
//! bit.
//!
//! How a flit advances (all times per channel class, `flit_bytes` at the
//! class bandwidth giving the flit time `s`, latency `L`; `r` the
//! switch's `routing_delay`):
//! 1. A sender (NIC or switch output) starts a flit when the channel is
//!    idle and it holds a credit for the flit's VC at the receiver; the
//!    channel is then busy for `s`.
//! 2. The flit is usable at the receiver `s + L` later, plus `r` if the
//!    receiver is a switch (its input pipeline; every flit pays it).
//! 3. At a switch, a head at the front of its input buffer (the whole
//!    packet for store-and-forward) is routed and allocated an output VC
//!    (`switch.rs`); flits then cross the crossbar one at a time per
//!    output (round robin among the VCs holding it) and per input (the
//!    input is busy `s / speedup`), matched greedily as they free up or
//!    by one iSLIP round per cycle (`router.allocator`).
//! 4. When a flit leaves a switch's input buffer, a credit for its slot
//!    reaches the upstream sender `L` later (a sender short of credits
//!    resumes when it lands: one VC of `B` flits carries at most
//!    `B s / (s + r + 2 L)` of a link).
//! 5. A terminal consumes flits as they arrive; the packet is delivered
//!    with its tail.
//!
//! So at zero load a packet of `F` flits crossing `H` channels (injection
//! and ejection included) through `H - 1` switches on equal channels takes
//! `H (s + L) + (H - 1) r + (F - 1) s` with wormhole or cut-through, and
//! `H (F s + L) + (H - 1) r` with store-and-forward.
//!
//! Flow control is credit-based per VC, or Myrinet's stop & go
//! (`router.flow_control = "stop-go"`, flich2000 §4.3): each input buffer
//! is a slack buffer whose receiver counts the flits that have physically
//! arrived (those in the routing pipeline too) and sends stop upstream
//! when it holds more than `stop_threshold` flits, go when it drops below
//! `go_threshold`; the signals take the channel latency and the sender
//! transmits only between a go and a stop. The spec is refused unless
//! every slack buffer absorbs a round trip
//! (`buffer_flits >= stop_threshold + 1 + ceil(2 L / s)`), so nothing is
//! ever lost.
//!
//! Traffic: open loop in messages of `message_packets` packets generated
//! together (message latency runs to the delivery of the last one),
//! optionally paced at the NIC (`traffic.injection_limit`), or
//! closed-loop workloads ([`Workload`]).
//!
//! # Interfaces
//! - [`Spec`] ([`config`]): the TOML experiment spec.
//! - [`simulate`], [`saturate`]: one run, or a saturation search.
//! - [`Experiment`]: a spec resolved once and run at several loads, or
//!   with a router of one's own ([`Experiment::with_router`],
//!   [`Experiment::with_any_router`]).
//! - Routing comes from the routing layer above
//!   ([`crate::routing::adaptive`]): the [`HopRouter`] interface, the
//!   registry ([`AnyRouter`], [`ADAPTIVE`]), oblivious routes wrapped by
//!   [`TableRouter`], [`DorRouter`] and [`DuatoRouter`]. The simulator
//!   implements [`LocalView`] over its own state and never lets routers
//!   see it otherwise.

pub mod config;
mod engine;
mod error;
mod experiment;
mod journal;
mod link;
pub mod load;
mod nic;
mod packet;
mod parallel;
mod partition;
mod rounds;
pub mod roundtrip;
mod saturate;
pub mod spec_doc;
mod state;
mod stats;
mod switch;
mod watchdog;
mod windows;
mod workload;

pub use crate::routing::adaptive::{
    AnyRouter, Candidate, Candidates, Direct, DorRouter, DuatoRouter, Header, Here, HopRouter,
    LocalView, Resources, RouterCtx, RouterOptions, TableRouter, ADAPTIVE,
};
pub use config::{
    Allocator, Arrivals, FlowControl, LinkSpec, LoadUnit, NetworkSpec, PathChoice, RouterSpec,
    RoutingSpec, RunSpec, Selection, Size, Spec, Switching, TrafficSpec, Workload,
};
pub use error::{ConfigError, DeadlockInfo, SimError, WaitingBuffer};
pub use experiment::{build_network, router_options, Experiment, MAX_OFFERED_FLITS};
pub use journal::Journal;
pub use saturate::{
    injection_bound, saturate, saturate_experiment, saturate_journaled, saturate_replayed,
    PointStatus, SaturateOptions, SaturatePoint, SaturateResult,
};
pub use stats::{HistogramBin, PairResult, SimResult, WorkloadResult};

/// Runs the experiment `spec` describes.
pub fn simulate(spec: &Spec) -> Result<SimResult, SimError> {
    Experiment::new(spec)?.run()
}
