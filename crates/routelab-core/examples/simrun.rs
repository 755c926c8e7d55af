//! One simulation per process, for speed and memory figures:
//! `cargo run --release -p routelab-core --example simrun -- SPEC.toml [key=value ...] [--json] [--tables]`.
//!
//! Prints flit-hops per wall second, simulated time per wall second, the
//! peak resident memory of the process (VmHWM from /proc, Linux) and the
//! main results; `--json` prints the whole result row instead. `--tables`
//! runs the routing engine named by `routing.algorithm` through its
//! tables (`TableRouter`) even where a hop router of that name exists.

use routelab_core::routing::adaptive;

use routelab_core::sim::{build_network, router_options, Experiment, Spec};
use std::time::Instant;

mod common;
use common::peak_rss_mb;

fn fail(msg: String) -> ! {
    eprintln!("simrun: {msg}");
    std::process::exit(2);
}

fn main() {
    let mut path = None;
    let mut sets: Vec<(String, String)> = Vec::new();
    let mut json = false;
    let mut tables = false;
    for a in std::env::args().skip(1) {
        if a == "--json" {
            json = true;
        } else if a == "--tables" {
            tables = true;
        } else if let Some((k, v)) = a.split_once('=') {
            sets.push((k.to_string(), v.to_string()));
        } else {
            path = Some(a);
        }
    }
    let path =
        path.unwrap_or_else(|| fail("usage: simrun SPEC.toml [key=value ...] [--json]".into()));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let sets: Vec<(&str, &str)> = sets.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let spec = Spec::from_toml_with(&text, &sets).unwrap_or_else(|e| fail(e.to_string()));
    let t0 = Instant::now();
    let exp = if tables {
        let net = build_network(&spec).unwrap_or_else(|e| fail(e.to_string()));
        let opts =
            router_options(&spec.routing, spec.run.seed).unwrap_or_else(|e| fail(e.to_string()));
        let router = adaptive::table_router(&net, &spec.routing.algorithm, &opts)
            .unwrap_or_else(|e| fail(e.to_string()));
        Experiment::with_any_router(&spec, net, router)
    } else {
        Experiment::new(&spec)
    }
    .unwrap_or_else(|e| fail(e.to_string()));
    let build_s = t0.elapsed().as_secs_f64();
    let build_rss = peak_rss_mb();
    let r = exp.run().unwrap_or_else(|e| fail(e.to_string()));
    if json {
        println!(
            "{}",
            serde_json::to_string(&r).expect("a result serialises")
        );
        return;
    }
    println!(
        "{{\"spec\": \"{path}\", \"terminals\": {}, \"load\": {}, \"build_s\": {build_s:.3}, \
         \"wall_s\": {:.3}, \"flit_hops\": {}, \"events\": {}, \"flit_hops_per_s\": {:.4e}, \
         \"simulated_us\": {:.3}, \"simulated_us_per_s\": {:.4}, \"accepted\": {:.4}, \
         \"latency_mean_ns\": {:.1}, \"build_rss_mb\": {build_rss:.1}, \"peak_rss_mb\": {:.1}}}",
        r.terminals,
        r.load,
        r.wall_seconds,
        r.flit_hops,
        r.events,
        r.flit_hops as f64 / r.wall_seconds,
        r.simulated_ps as f64 / 1e6,
        r.simulated_ps as f64 / 1e6 / r.wall_seconds,
        r.accepted,
        r.latency_mean,
        peak_rss_mb()
    );
}
