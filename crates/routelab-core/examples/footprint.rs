//! Time and peak memory of building a network and summarising it:
//! `cargo run --release --example footprint -- SPEC [SPEC ...]`.
//! Prints one JSON object per spec; peak RSS comes from /proc (Linux).

use routelab_core::network::{metrics, spec};
use std::time::Instant;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let specs: Vec<String> = std::env::args().skip(1).collect();
    if specs.is_empty() {
        eprintln!("usage: footprint SPEC [SPEC ...]");
        std::process::exit(2);
    }
    for text in specs {
        let start = Instant::now();
        let net = match spec::build(&text) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("{text}: {e}");
                std::process::exit(2);
            }
        };
        let build_s = start.elapsed().as_secs_f64();
        let rss_build = peak_rss_mb().unwrap_or(f64::NAN);
        let start = Instant::now();
        let s = metrics::summary(&net);
        let summary_s = start.elapsed().as_secs_f64();
        println!(
            "{{\"spec\": \"{text}\", \"nodes\": {}, \"channels\": {}, \"build_s\": {build_s:.4}, \"peak_rss_mb_after_build\": {rss_build:.1}, \"summary_s\": {summary_s:.4}, \"peak_rss_mb\": {:.1}, \"diameter\": {}, \"bisection\": {}}}",
            net.node_count(),
            net.channel_count(),
            peak_rss_mb().unwrap_or(f64::NAN),
            s.diameter,
            s.bisection_width
        );
    }
}
