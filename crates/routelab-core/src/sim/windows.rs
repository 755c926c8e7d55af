//! The threads of a parallel run ([`super::parallel`]) between two
//! instants: each runs one or more parts window by window and meets the
//! others at a barrier twice a window, once to post its parts' mail and
//! once to say how they stand. Every thread then takes the same decision
//! from the same statuses (go on, stop at the end, stop on a deadlock or
//! a failure), so no thread waits for an order. A run has as many parts
//! as `run.threads` asks, whatever the cores: on a machine with fewer,
//! a thread runs several parts in turn, with the same result.

use super::error::SimError;
use super::parallel::Outbox;
use super::state::Sim;
use crate::routing::adaptive::HopRouter;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// A lock whose holder may have panicked (the panic is reported as the
/// part's error; what it guarded is not read after a failure).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on part `me`, turning a panic into that part's error: the
/// other threads then stop at the window's end instead of waiting at the
/// barrier for a thread that is gone.
fn guarded(
    sim: &mut Sim,
    me: usize,
    f: impl FnOnce(&mut Sim) -> Result<(), SimError>,
) -> Result<(), SimError> {
    let name = sim.router.name().to_string();
    match std::panic::catch_unwind(AssertUnwindSafe(|| f(sim))) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(SimError::router(
                &name,
                format!("internal error in part {me} of a parallel run: {what}"),
            ))
        }
    }
}

/// A barrier that spins briefly before yielding: windows last
/// microseconds, and a sleeping thread takes longer than that to wake.
struct SpinBarrier {
    waiting: AtomicUsize,
    round: AtomicUsize,
    n: usize,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            waiting: AtomicUsize::new(0),
            round: AtomicUsize::new(0),
            n,
        }
    }

    fn wait(&self) {
        let round = self.round.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.waiting.store(0, Ordering::Relaxed);
            self.round.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.round.load(Ordering::Acquire) == round {
            if spins < 200 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                // More threads than free cores: let the others run.
                std::thread::yield_now();
            }
        }
    }
}

/// How a part stands after a window's mail is in.
#[derive(Debug, Clone, Copy, Default)]
struct Status {
    /// Its share of the packets in the network (wraps; the sum does not).
    in_net: u64,
    last_progress: u64,
    /// Events wait in its queue.
    busy: bool,
    /// It took mail this window.
    received: bool,
    failed: bool,
}

/// Why the threads stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// Every part ran up to the end asked for.
    Reached,
    /// Packets in the network and nothing moving: at the end of the
    /// window ending at `end`, the last progress at `last`.
    Deadlock { end: u64, last: u64 },
    /// A part failed (its error is returned).
    Failed,
}

/// What the threads share.
pub(super) struct Board<'m> {
    barrier: SpinBarrier,
    /// Per receiving part, per posting part (`to * parts + from`).
    mail: &'m [Mutex<Outbox>],
    status: Vec<Mutex<Status>>,
    parts: usize,
    window_ps: u64,
    watchdog_ps: u64,
}

impl<'m> Board<'m> {
    /// A board for `parts` parts run on `threads` threads.
    pub fn new(
        mail: &'m [Mutex<Outbox>],
        parts: usize,
        threads: usize,
        window_ps: u64,
        watchdog_ps: u64,
    ) -> Self {
        Board {
            barrier: SpinBarrier::new(threads),
            mail,
            status: (0..parts).map(|_| Mutex::new(Status::default())).collect(),
            parts,
            window_ps,
            watchdog_ps,
        }
    }

    /// Runs parts `first..first + sims.len()` from instant `from` up to
    /// and including `t_end`, one after the other within each window, in
    /// step with the other threads' parts. A part reads only the mail
    /// posted before the window's first barrier, so how the parts are
    /// shared among threads does not change the run. Returns each part's
    /// own error if it failed, why all stopped, and the first instant not
    /// run.
    pub fn run_parts(
        &self,
        first: usize,
        sims: &mut [Sim],
        from: u64,
        t_end: u64,
    ) -> (Vec<Result<(), SimError>>, Stop, u64) {
        let mut done = from;
        let mut results: Vec<Result<(), SimError>> = sims.iter().map(|_| Ok(())).collect();
        loop {
            let end = done.saturating_add(self.window_ps - 1).min(t_end);
            for (k, sim) in sims.iter_mut().enumerate() {
                let me = first + k;
                if results[k].is_ok() {
                    results[k] = guarded(sim, me, |sim| sim.run_until(end));
                }
                // Post: the outboxes trade places with the emptied
                // mailboxes, which keeps every buffer's room.
                if let Some(part) = sim.part.as_mut() {
                    for (to, outbox) in part.out.iter_mut().enumerate() {
                        std::mem::swap(outbox, &mut *lock(&self.mail[to * self.parts + me]));
                    }
                }
            }
            self.barrier.wait();
            for (k, sim) in sims.iter_mut().enumerate() {
                let me = first + k;
                // Take, in the order of the posting parts.
                let mut received = false;
                let taken = guarded(sim, me, |sim| {
                    for from in 0..self.parts {
                        let mut mail = lock(&self.mail[me * self.parts + from]);
                        if !mail.is_empty() {
                            received = true;
                            sim.accept(&mut mail);
                        }
                    }
                    Ok(())
                });
                if results[k].is_ok() {
                    results[k] = taken;
                }
                *lock(&self.status[me]) = Status {
                    in_net: sim.in_net,
                    last_progress: sim.last_progress,
                    busy: sim.q.len() > 0,
                    received,
                    failed: results[k].is_err(),
                };
            }
            self.barrier.wait();
            done = end + 1;
            let all: Vec<Status> = self.status.iter().map(|s| *lock(s)).collect();
            if all.iter().any(|s| s.failed) {
                return (results, Stop::Failed, done);
            }
            let in_net = all.iter().fold(0u64, |a, s| a.wrapping_add(s.in_net));
            if in_net > 0 {
                let last = all.iter().map(|s| s.last_progress).max().unwrap_or(0);
                let idle = !all.iter().any(|s| s.busy || s.received);
                if idle || end.saturating_sub(last) > self.watchdog_ps {
                    return (results, Stop::Deadlock { end, last }, done);
                }
            }
            if end >= t_end {
                return (results, Stop::Reached, done);
            }
        }
    }
}
