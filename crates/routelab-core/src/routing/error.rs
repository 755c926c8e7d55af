//! Errors of the routing layer. Each says what is wrong and how to fix it.

use crate::deadlock::DeadlockError;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RoutingError {
    #[error("unknown routing engine '{name}'{hint}; valid engines: {valid}")]
    UnknownEngine {
        name: String,
        valid: String,
        /// ` (did you mean 'x'?)` or empty.
        hint: String,
    },

    /// An OpenSM engine name that no routelab engine reproduces.
    #[error("'{name}' is OpenSM's engine, which routelab does not reproduce: {why}")]
    NotOpenSm { name: String, why: String },

    /// More switches and ports than one subnet has LIDs: no LFT can name
    /// them all (routes are still checked per terminal pair).
    #[error(
        "LID assignment needs at most {max} switches and terminals (the unicast LID range), \
         but '{network}' is a network of {count}: more than one InfiniBand subnet holds"
    )]
    BeyondLidSpace {
        network: String,
        count: usize,
        max: u16,
    },

    /// The engine needs structure the network lacks (DOR on a fat tree).
    #[error("{engine} needs {needs}, but '{network}' is {found}")]
    Unfit {
        engine: &'static str,
        needs: String,
        network: String,
        found: String,
    },

    #[error("{engine}: the fabric is disconnected: no route from {src} to {dst}")]
    Disconnected {
        engine: &'static str,
        src: String,
        dst: String,
    },

    #[error("{}", lanes_exceeded(engine, *needed, *at_least, *limit, note))]
    LanesExceeded {
        engine: &'static str,
        /// Lanes needed (a lower bound when `at_least`).
        needed: u32,
        at_least: bool,
        limit: u8,
        /// How `needed` was found and what to try.
        note: String,
    },

    #[error(
        "{engine}: routes for {switches} switches and {terminals} terminals take at least {} \
         (forwarding tables of 2 bytes per switch and destination{}), more than \
         memory_limit = {}; route a smaller network (the tables grow as the square of the \
         size: about {fits} terminals fit, with switches in the same proportion) or raise \
         the limit (--option memory_limit=64GiB, or memory_limit= in Python)",
        gb(*bytes), if *bytes > 2 * (*switches as u64) * (*terminals as u64) { ", lanes and paths" } else { "" }, gb(*limit)
    )]
    TooLarge {
        engine: &'static str,
        switches: usize,
        terminals: usize,
        bytes: u64,
        limit: u64,
        /// The terminals of the largest network of the same proportions
        /// whose routes fit in `limit`.
        fits: usize,
    },

    #[error("option '{option}' = '{value}' is not valid: expected {expected}")]
    BadOption {
        option: String,
        value: String,
        expected: String,
    },

    #[error("the route from {src} to {dst} loops: it returns to switch {switch}")]
    Loop {
        src: String,
        dst: String,
        switch: String,
    },

    #[error("the route from {src} to {dst} is lost at switch {switch}: {reason}")]
    BlackHole {
        src: String,
        dst: String,
        switch: String,
        reason: String,
    },

    #[error("routes and network do not match: {what}")]
    Mismatch { what: String },

    #[error(transparent)]
    Deadlock(#[from] DeadlockError),

    /// A route file (LFT dump, lane table) that cannot be read; `line` is
    /// 1-based.
    #[error("{file}:{line}: {reason}")]
    Parse {
        file: String,
        line: usize,
        reason: String,
    },

    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
}

use crate::units::bytes_text as gb;

fn lanes_exceeded(engine: &str, needed: u32, at_least: bool, limit: u8, note: &str) -> String {
    let n = if at_least {
        format!("at least {needed}")
    } else {
        needed.to_string()
    };
    let mut s = format!("{engine} needs {n} lanes, but max_lanes is {limit}");
    if !note.is_empty() {
        s.push_str(" (");
        s.push_str(note);
        s.push(')');
    }
    s
}
