//! Closed-loop workloads between paired terminals.
//!
//! - Ping-pong: the sender sends a message, the receiver answers with one
//!   of the same size when the whole message has arrived; `rounds` times.
//!   The pair completes when the last answer arrives.
//! - Exchange: the sender queues `messages` messages back to back; when
//!   all have arrived the receiver answers with a one-flit packet; the
//!   pair completes when it arrives (parker's bandwidth trial).
//!
//! A message of `S` bytes is cut into packets of at most the MTU
//! (`traffic.packet_bytes`), each of `ceil(bytes / flit_bytes)` flits.

use super::config::Workload;
use super::packet::flag;
use super::stats::{PairResult, WorkloadResult};

#[derive(Debug)]
pub(super) struct Closed {
    pub kind: Workload,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub message_bytes: u64,
    /// Flits of each packet of a message.
    pub layout: Vec<u16>,
    pub rounds: u32,
    pub messages: u32,
    round: Vec<u32>,
    got: Vec<u32>,
    done_ps: Vec<u64>,
    last_send: Vec<u64>,
    rtt_sum: Vec<u64>,
    pub finished: usize,
}

impl Closed {
    pub fn new(
        kind: Workload,
        pairs: &[(u32, u32)],
        message_bytes: u64,
        mtu: u64,
        flit_bytes: u64,
        rounds: u32,
        messages: u32,
    ) -> Self {
        let mut layout = Vec::new();
        let mut left = message_bytes;
        loop {
            let b = left.min(mtu);
            layout.push(b.div_ceil(flit_bytes).max(1) as u16);
            left -= b;
            if left == 0 {
                break;
            }
        }
        let n = pairs.len();
        Closed {
            kind,
            src: pairs.iter().map(|p| p.0).collect(),
            dst: pairs.iter().map(|p| p.1).collect(),
            message_bytes,
            layout,
            rounds: rounds.max(1),
            messages: messages.max(1),
            round: vec![0; n],
            got: vec![0; n],
            done_ps: vec![u64::MAX; n],
            last_send: vec![0; n],
            rtt_sum: vec![0; n],
            finished: 0,
        }
    }

    pub fn is_done(&self) -> bool {
        self.finished == self.src.len()
    }

    /// When the last pair completed (0 before any did).
    pub fn finished_ps(&self) -> u64 {
        self.done_ps
            .iter()
            .copied()
            .filter(|&t| t != u64::MAX)
            .max()
            .unwrap_or(0)
    }

    pub fn result(&self) -> WorkloadResult {
        let mut pairs = Vec::with_capacity(self.src.len());
        for i in 0..self.src.len() {
            let done = self.done_ps[i];
            let completion_ns = if done == u64::MAX {
                f64::INFINITY
            } else {
                done as f64 / 1000.0
            };
            let (bytes, rtt) = match self.kind {
                Workload::PingPong => (
                    self.message_bytes * u64::from(self.rounds),
                    Some(self.rtt_sum[i] as f64 / f64::from(self.rounds) / 1000.0),
                ),
                _ => (self.message_bytes * u64::from(self.messages), None),
            };
            pairs.push(PairResult {
                src: self.src[i],
                dst: self.dst[i],
                completion_ns,
                round_trip_ns: rtt,
                bandwidth_gbps: if done == 0 || done == u64::MAX {
                    0.0
                } else {
                    bytes as f64 * 8.0 * 1000.0 / done as f64
                },
            });
        }
        let completion_ns = pairs.iter().map(|p| p.completion_ns).fold(0.0, f64::max);
        let mean_completion_ns = if pairs.is_empty() {
            0.0
        } else {
            pairs.iter().map(|p| p.completion_ns).sum::<f64>() / pairs.len() as f64
        };
        let bandwidths = pairs.iter().map(|p| p.bandwidth_gbps);
        let (bandwidth_min_gbps, bandwidth_max_gbps) = if pairs.is_empty() {
            (0.0, 0.0)
        } else {
            bandwidths
                .clone()
                .fold((f64::INFINITY, 0.0f64), |(lo, hi), b| {
                    (lo.min(b), hi.max(b))
                })
        };
        let bandwidth_mean_gbps = if pairs.is_empty() {
            0.0
        } else {
            bandwidths.sum::<f64>() / pairs.len() as f64
        };
        WorkloadResult {
            bandwidth_mean_gbps,
            bandwidth_min_gbps,
            bandwidth_max_gbps,
            kind: match self.kind {
                Workload::PingPong => "ping-pong",
                Workload::Exchange => "exchange",
                Workload::Open => "open",
            }
            .into(),
            message_bytes: self.message_bytes,
            pairs,
            completion_ns,
            mean_completion_ns,
        }
    }
}

impl super::state::Sim<'_> {
    fn send_message(&mut self, from: u32, to: u32, pair: u32, flags: u8) {
        let n = self.closed.as_ref().map_or(0, |w| w.layout.len());
        for k in 0..n {
            let flits = self.closed.as_ref().map_or(1, |w| w.layout[k]);
            self.enqueue(from, to, flits, pair, flags | flag::MEASURED);
        }
        self.nic_send(from);
    }

    /// Starts every pair at time 0.
    pub(super) fn closed_start(&mut self) {
        let Some(w) = &self.closed else {
            return;
        };
        let (kind, n, messages) = (w.kind, w.src.len(), w.messages);
        for i in 0..n {
            let (s, d) = {
                let w = self.closed.as_ref().expect("closed workload");
                (w.src[i], w.dst[i])
            };
            let times = if kind == Workload::Exchange {
                messages
            } else {
                1
            };
            for _ in 0..times {
                self.send_message(s, d, i as u32, 0);
            }
        }
    }

    /// A packet of pair `pair` was delivered.
    pub(super) fn closed_delivered(&mut self, pair: u32, flags: u8, _at: u32) {
        let now = self.now;
        let Some(w) = self.closed.as_mut() else {
            return;
        };
        let i = pair as usize;
        let per_msg = w.layout.len() as u32;
        let (s, d) = (w.src[i], w.dst[i]);
        let reply = flags & flag::REPLY != 0;
        enum Next {
            Nothing,
            Send(u32, u32, u8),
            Ack,
        }
        let mut next = Next::Nothing;
        w.got[i] += 1;
        match w.kind {
            Workload::PingPong => {
                if w.got[i] == per_msg {
                    w.got[i] = 0;
                    if !reply {
                        next = Next::Send(d, s, flag::REPLY);
                    } else {
                        w.round[i] += 1;
                        w.rtt_sum[i] += now - w.last_send[i];
                        if w.round[i] == w.rounds {
                            w.done_ps[i] = now;
                            w.finished += 1;
                        } else {
                            w.last_send[i] = now;
                            next = Next::Send(s, d, 0);
                        }
                    }
                }
            }
            Workload::Exchange => {
                if reply {
                    w.done_ps[i] = now;
                    w.finished += 1;
                } else if w.got[i] == per_msg * w.messages {
                    next = Next::Ack;
                }
            }
            Workload::Open => {}
        }
        match next {
            Next::Nothing => {}
            Next::Send(a, b, f) => self.send_message(a, b, pair, f),
            Next::Ack => {
                self.enqueue(d, s, 1, pair, flag::REPLY | flag::MEASURED);
                self.nic_send(d);
            }
        }
    }
}
