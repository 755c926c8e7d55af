//! Measurements: latency histograms, window counters and the result rows.

use super::config::LoadUnit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Sub-buckets per octave of the latency histogram (about 3% wide).
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;

/// A log-linear histogram of picosecond values: exact below 32 ps, then
/// 32 buckets per power of two. Mean, minimum and maximum are exact;
/// percentiles are bucket midpoints clamped to `[min, max]` (exact when
/// all values are equal).
#[derive(Debug, Clone)]
pub(super) struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; (64 * SUB) as usize],
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // >= SUB_BITS
    let m = (v >> (e - SUB_BITS)) & (SUB - 1);
    ((u64::from(e - SUB_BITS + 1) << SUB_BITS) + m) as usize
}

/// The values `[lo, hi)` of bucket `b`.
fn bucket_range(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        return (b, b + 1);
    }
    let e = (b >> SUB_BITS) + u64::from(SUB_BITS) - 1;
    let m = b & (SUB - 1);
    let w = 1u64 << (e - u64::from(SUB_BITS));
    let lo = (1u64 << e) + m * w;
    (lo, lo.saturating_add(w))
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[bucket(v)] += 1;
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds the values `o` recorded.
    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    pub fn max(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.max
        }
    }

    /// The `q` quantile (0..=1).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bucket_range(b);
                let mid = (lo as f64 + hi as f64 - 1.0) / 2.0;
                return mid.clamp(self.min as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// Non-empty bins merged to 4 per octave, in nanoseconds.
    pub fn bins_ns(&self) -> Vec<HistogramBin> {
        let mut out: Vec<HistogramBin> = Vec::new();
        let merge = 8; // 32 sub-buckets -> 4 per octave
        let mut b = 0;
        while b < self.counts.len() {
            let group = if b < SUB as usize {
                SUB as usize
            } else {
                merge
            };
            let end = (b + group).min(self.counts.len());
            let count: u64 = self.counts[b..end].iter().sum();
            if count > 0 {
                let lo = bucket_range(b).0;
                let hi = bucket_range(end - 1).1;
                out.push(HistogramBin {
                    lo_ns: lo as f64 / 1000.0,
                    hi_ns: hi as f64 / 1000.0,
                    count,
                });
            }
            b = end;
        }
        out
    }
}

/// One bin of a latency histogram: values in `[lo_ns, hi_ns)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramBin {
    pub lo_ns: f64,
    pub hi_ns: f64,
    pub count: u64,
}

/// Counters kept while a run goes.
#[derive(Debug, Default, Clone)]
pub(super) struct Counters {
    /// Inside the measurement window.
    pub measuring: bool,
    pub gen_packets: u64,
    pub gen_flits: u64,
    pub delivered_packets: u64,
    pub delivered_flits: u64,
    /// Flits consumed by terminals (at final or intermediate targets).
    pub sunk_flits: u64,
    /// Flits queued again at an intermediate terminal.
    pub reinjected_flits: u64,
    pub transits: u64,
    // Measurement window.
    pub win_gen_flits: u64,
    pub win_delivered_flits: u64,
    /// Per source terminal: flits generated, and flits of its delivered
    /// in the window (fairness; a starved source shows here first).
    pub win_src_gen: Vec<u64>,
    pub win_src_delivered: Vec<u64>,
    /// Measured packets (generated in the window) not yet delivered.
    pub measured_outstanding: u64,
    pub measured: u64,
    pub lat: Histogram,
    pub net_lat: Histogram,
    /// Open loop: generation of a measured message to the delivery of
    /// its last packet.
    pub msg_lat: Histogram,
    /// Stop & go: stop signals sent, and the most flits seen in one
    /// input buffer (routing pipeline included).
    pub stops: u64,
    pub occupancy_max: u32,
    pub hops_sum: u64,
    pub hops_max: u32,
    // Current warm-up or measurement period (convergence test).
    pub period_lat_sum: u128,
    pub period_n: u64,
    pub period_flits: u64,
}

impl Counters {
    /// The least and most flits per cycle delivered from one source over
    /// `cycles`, among the sources that generated in the window.
    pub fn accepted_range(&self, cycles: f64) -> (f64, f64) {
        let (lo, hi) = self
            .win_src_gen
            .iter()
            .zip(&self.win_src_delivered)
            .filter(|&(&g, _)| g > 0)
            .fold((u64::MAX, 0), |(lo, hi), (_, &d)| (lo.min(d), hi.max(d)));
        if lo == u64::MAX || cycles <= 0.0 {
            (0.0, 0.0)
        } else {
            (lo as f64 / cycles, hi as f64 / cycles)
        }
    }

    /// Adds another part's counts (a parallel run's result).
    pub fn merge(&mut self, o: &Counters) {
        self.gen_packets += o.gen_packets;
        self.gen_flits += o.gen_flits;
        self.delivered_packets += o.delivered_packets;
        self.delivered_flits += o.delivered_flits;
        self.sunk_flits += o.sunk_flits;
        self.reinjected_flits += o.reinjected_flits;
        self.transits += o.transits;
        self.win_gen_flits += o.win_gen_flits;
        self.win_delivered_flits += o.win_delivered_flits;
        for (a, b) in self.win_src_gen.iter_mut().zip(&o.win_src_gen) {
            *a += b;
        }
        for (a, b) in self.win_src_delivered.iter_mut().zip(&o.win_src_delivered) {
            *a += b;
        }
        self.measured_outstanding = self
            .measured_outstanding
            .wrapping_add(o.measured_outstanding);
        self.measured += o.measured;
        self.lat.merge(&o.lat);
        self.net_lat.merge(&o.net_lat);
        self.msg_lat.merge(&o.msg_lat);
        self.stops += o.stops;
        self.occupancy_max = self.occupancy_max.max(o.occupancy_max);
        self.hops_sum += o.hops_sum;
        self.hops_max = self.hops_max.max(o.hops_max);
        self.period_lat_sum += o.period_lat_sum;
        self.period_n += o.period_n;
        self.period_flits += o.period_flits;
    }

    /// Mean latency and delivered flits of the period now ending; resets it.
    pub fn end_period(&mut self) -> (f64, u64) {
        let mean = if self.period_n == 0 {
            0.0
        } else {
            self.period_lat_sum as f64 / self.period_n as f64
        };
        let f = self.period_flits;
        self.period_lat_sum = 0;
        self.period_n = 0;
        self.period_flits = 0;
        (mean, f)
    }
}

/// Whether two period measurements agree within `tol` (relative).
pub(super) fn close(a: f64, b: f64, tol: f64) -> bool {
    let m = a.abs().max(b.abs());
    m == 0.0 || (a - b).abs() <= tol * m
}

/// One pair of a closed-loop workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    pub src: u32,
    pub dst: u32,
    /// When the pair finished (last pong, or the acknowledgement), in ns.
    pub completion_ns: f64,
    /// Ping-pong: mean round-trip time in ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_trip_ns: Option<f64>,
    /// Payload bytes moved one way divided by the completion time.
    pub bandwidth_gbps: f64,
}

/// What a closed-loop workload measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadResult {
    pub kind: String,
    pub message_bytes: u64,
    pub pairs: Vec<PairResult>,
    /// The last pair's completion, in ns.
    pub completion_ns: f64,
    pub mean_completion_ns: f64,
    /// Mean, least and most of the pairs' `bandwidth_gbps` (an effective
    /// bisection bandwidth when the pairs are a bisection).
    #[serde(default)]
    pub bandwidth_mean_gbps: f64,
    #[serde(default)]
    pub bandwidth_min_gbps: f64,
    #[serde(default)]
    pub bandwidth_max_gbps: f64,
}

/// The result of one simulation: one row of a results table. Loads and
/// throughputs are per terminal in flits per cycle unless the key says
/// otherwise; times are in nanoseconds unless they end in `_ps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    pub network: String,
    pub router: String,
    pub switching: String,
    pub terminals: usize,
    /// Terminals that generated traffic during the measurement: fewer than
    /// `terminals` when a pattern sends some to themselves (transpose
    /// fixes its diagonal), whose messages are not sent. `offered` is per
    /// terminal, so it is below the load asked by that share.
    #[serde(default)]
    pub sources: usize,
    pub vcs: u8,
    /// The load asked for, in `load_unit`.
    pub load: f64,
    pub load_unit: LoadUnit,
    /// The load asked for, in flits per terminal per cycle.
    pub offered_target: f64,
    /// Flits generated per terminal per cycle during the measurement.
    pub offered: f64,
    /// Flits delivered per terminal per cycle during the measurement.
    pub accepted: f64,
    pub offered_gbps: f64,
    pub accepted_gbps: f64,
    /// Flits delivered per cycle by the whole network.
    pub accepted_total: f64,
    /// Fairness: the least and the most any one source had delivered
    /// during the measurement (flits per cycle, over the sources that
    /// generated traffic then; 0 if none did). Far apart beyond
    /// saturation when arbitration favours some sources.
    pub accepted_min: f64,
    pub accepted_max: f64,
    pub accepted_total_gbps: f64,
    /// Accepted throughput in versaci2013's units (1.0 saturates the
    /// bisection under uniform traffic), when `load_unit = "bisection"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_normalised: Option<f64>,
    /// Generation to delivery of the last flit, over measured packets.
    pub latency_mean: f64,
    pub latency_p50: f64,
    pub latency_p90: f64,
    pub latency_p99: f64,
    pub latency_max: f64,
    /// Injection of the first flit to delivery of the last (no source queueing).
    pub network_latency_mean: f64,
    pub network_latency_p99: f64,
    /// Open loop: generation of a message (of `message_packets` packets)
    /// to the delivery of its last packet, over messages generated during
    /// the measurement; equal to the packet latency for one-packet
    /// messages, 0 for closed-loop workloads (see `workload`).
    pub message_latency_mean: f64,
    pub message_latency_p99: f64,
    pub messages_measured_delivered: u64,
    pub latency_histogram: Vec<HistogramBin>,
    /// Channels crossed per measured packet, injection and ejection included.
    pub avg_hops: f64,
    pub max_hops: u32,
    pub packets_generated: u64,
    pub packets_delivered: u64,
    pub packets_in_flight: u64,
    /// Packets generated during the measurement, and those delivered.
    pub packets_measured: u64,
    pub packets_measured_delivered: u64,
    pub flits_generated: u64,
    pub flits_delivered: u64,
    /// Flit transmissions over channels in the whole run.
    pub flit_hops: u64,
    /// Packets re-injected by terminals in transit.
    pub transits: u64,
    /// The most bytes any NIC's in-transit buffer held, and the in-transit
    /// packets kept in host memory because it was full (`[nic]`).
    pub transit_peak_bytes: u64,
    pub transit_spills: u64,
    /// Busy fraction of channels during the measurement.
    pub channel_util_mean: f64,
    pub channel_util_max: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_utilisation: Option<Vec<f64>>,
    /// Counters the router defines.
    pub counters: BTreeMap<String, u64>,
    /// `credit` or `stop-go`.
    pub flow_control: String,
    /// Stop & go: stop signals sent over the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_signals: Option<u64>,
    /// Stop & go: the most flits one input buffer held at once (flits in
    /// its routing pipeline included); never above `buffer_flits`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_occupancy_max: Option<u32>,
    /// Latency and throughput of the two halves of the measurement agree
    /// within `run.convergence`.
    pub converged: bool,
    /// Every measured packet was delivered within the drain limit.
    pub drained: bool,
    /// The drain was skipped: the measurement did not converge and
    /// `run.drain_unconverged` is false, or (in a saturation search with
    /// `drain_unsustained = false`) it accepted too little to be sustained.
    #[serde(default)]
    pub drain_skipped: bool,
    /// The run was stopped in its warm-up, its backlog growing past
    /// `run.stop_backlog`: not sustained, nothing measured.
    #[serde(default)]
    pub stopped_backlog: bool,
    pub warmup_periods: u32,
    /// One cycle: a flit time on the injection channel.
    pub cycle_ps: u64,
    pub simulated_ps: u64,
    pub wall_seconds: f64,
    pub events: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadResult>,
    /// Settings that are valid but starve the network (a buffer shorter
    /// than its channel's credit round trip); empty when there are none.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The simulator's state, estimated before the run allocated it
    /// (every thread's copy counted; checked against `run.memory_limit`).
    #[serde(default)]
    pub memory_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_in_order() {
        let mut last = 0;
        for v in [
            0u64,
            1,
            31,
            32,
            33,
            63,
            64,
            65,
            1000,
            123_456,
            1 << 40,
            u64::MAX,
        ] {
            let b = bucket(v);
            assert!(b >= last);
            last = b;
            let (lo, hi) = bucket_range(b);
            assert!(lo <= v && (v < hi || hi == u64::MAX), "{v}: [{lo}, {hi})");
        }
    }

    #[test]
    fn quantiles_are_close_and_exact_for_constants() {
        let mut h = Histogram::default();
        for _ in 0..10 {
            h.record(250_000);
        }
        assert_eq!(h.quantile(0.5), 250_000.0);
        assert_eq!(h.quantile(0.99), 250_000.0);
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        assert!((h.quantile(0.5) / 5_000_000.0 - 1.0).abs() < 0.04);
        assert!((h.quantile(0.99) / 9_900_000.0 - 1.0).abs() < 0.04);
        assert_eq!(h.max(), 10_000_000);
        assert!((h.mean() - 5_000_500.0).abs() < 1e-6);
        let total: u64 = h.bins_ns().iter().map(|b| b.count).sum();
        assert_eq!(total, 10_000);
    }
}
