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
//! with a latency (`link.rs`); events are 16-byte `Copy` values in a
//! calendar queue (`engine.rs`), packets live in an arena (`packet.rs`),
//! and all state is in flat vectors indexed by channel, `(channel, vc)`
//! or terminal, so nothing is allocated per flit or event once buffers
//! have grown. All randomness comes from [`crate::rng::stream`] with one
//! purpose per terminal and per switch: a spec and seed give the same
//! result bit for bit.
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
//!    input is busy `s / speedup`).
//! 4. When a flit leaves a switch's input buffer, a credit for its slot
//!    reaches the upstream sender `L` later.
//! 5. A terminal consumes flits as they arrive; the packet is delivered
//!    with its tail.
//!
//! So at zero load a packet of `F` flits crossing `H` channels (injection
//! and ejection included) through `H - 1` switches on equal channels takes
//! `H (s + L) + (H - 1) r + (F - 1) s` with wormhole or cut-through, and
//! `H (F s + L) + (H - 1) r` with store-and-forward.
//!
//! Flow control is credit-based per VC. Myrinet's stop & go is not
//! modelled (credit flow control with a buffer of the slack size stands in
//! for it).
//!
//! # Interfaces
//! - [`Spec`] ([`config`]): the TOML experiment spec.
//! - [`simulate`], [`saturate`]: one run, or a saturation search.
//! - [`Experiment`]: a spec resolved once and run at several loads, or
//!   with a router of one's own ([`Experiment::with_router`]).
//! - [`HopRouter`] ([`router`]): the routing interface; oblivious routes
//!   are wrapped by [`TableRouter`], [`DuatoRouter`] is minimal adaptive.

pub mod config;
mod duato;
mod engine;
mod error;
mod experiment;
mod link;
pub mod load;
mod nic;
mod packet;
pub mod router;
mod saturate;
mod state;
mod stats;
mod switch;
mod tables;
mod watchdog;
mod workload;

pub use config::{
    FlowControl, LinkSpec, LoadUnit, NetworkSpec, PathChoice, RouterSpec, RoutingSpec, RunSpec,
    Selection, Size, Spec, Switching, TrafficSpec, Workload,
};
pub use error::{ConfigError, DeadlockInfo, SimError, WaitingBuffer};
pub use experiment::{build_network, Experiment};
pub use router::{
    Candidate, Candidates, DuatoRouter, Header, Here, HopRouter, LocalView, RouterCtx, TableRouter,
    ADAPTIVE,
};
pub use saturate::{saturate, saturate_experiment, SaturateOptions, SaturatePoint, SaturateResult};
pub use stats::{HistogramBin, PairResult, SimResult, WorkloadResult};

/// Runs the experiment `spec` describes.
pub fn simulate(spec: &Spec) -> Result<SimResult, SimError> {
    Experiment::new(spec)?.run()
}
