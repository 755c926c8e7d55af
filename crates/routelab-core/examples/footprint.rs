//! Time and peak memory of the main steps on one network:
//! `cargo run --release --example footprint -- [--engine NAME] [--max-lanes N] [--ebb N]
//! [--verify] [--write DIR] [--fingerprint] [--no-summary] SPEC [SPEC ...]`.
//! Builds each network, summarises it, optionally routes it, verifies the
//! routes as `routelab route` does (LID view, deadlock check, minimality,
//! hops), writes the OpenSM files, hashes every table entry (to check a
//! change to an engine entry for entry where the dump is gigabytes) and
//! evaluates N random bisections; prints
//! one JSON object per spec. Peak RSS comes from
//! /proc (Linux) and covers the whole process, so run one spec per process
//! for a clean figure.

use routelab_core::flow::{self, EbbOptions};
use routelab_core::network::{metrics, spec};
use routelab_core::routing::{self, RoutingOptions};
use std::time::Instant;

mod common;
use common::peak_rss_mb;

fn fail(msg: String) -> ! {
    eprintln!("footprint: {msg}");
    std::process::exit(2);
}

fn main() {
    let mut engine: Option<String> = None;
    let mut max_lanes: u8 = 15;
    let mut ebb_patterns = 0usize;
    let (mut verify, mut summary, mut fingerprint) = (false, true, false);
    let mut write: Option<std::path::PathBuf> = None;
    let mut specs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--engine" => engine = args.next(),
            "--max-lanes" => {
                max_lanes = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| fail("--max-lanes takes a number of lanes".into()))
            }
            "--ebb" => {
                ebb_patterns = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| fail("--ebb takes a number of patterns".into()))
            }
            "--verify" => verify = true,
            "--no-summary" => summary = false,
            "--fingerprint" => fingerprint = true,
            "--write" => write = args.next().map(Into::into),
            _ => specs.push(a),
        }
    }
    if specs.is_empty() {
        fail("usage: footprint [--engine NAME] [--max-lanes N] [--ebb N] SPEC [SPEC ...]".into());
    }
    for text in specs {
        let mut out = vec![format!("\"spec\": \"{text}\"")];
        let start = Instant::now();
        let net = spec::build(&text).unwrap_or_else(|e| fail(format!("{text}: {e}")));
        out.push(format!("\"terminals\": {}", net.terminals().len()));
        out.push(format!("\"switches\": {}", net.switches().len()));
        out.push(format!("\"build_s\": {:.4}", start.elapsed().as_secs_f64()));
        out.push(format!("\"rss_mb_after_build\": {:.1}", peak_rss_mb()));
        if summary {
            let start = Instant::now();
            let s = metrics::summary(&net);
            out.push(format!(
                "\"summary_s\": {:.4}",
                start.elapsed().as_secs_f64()
            ));
            out.push(format!(
                "\"diameter\": {}, \"bisection\": {}",
                s.diameter, s.bisection_width
            ));
        }
        if let Some(engine) = &engine {
            let opts = RoutingOptions {
                max_lanes,
                ..RoutingOptions::default()
            };
            let start = Instant::now();
            let routes = routing::route(&net, engine, &opts)
                .unwrap_or_else(|e| fail(format!("{text}: {e}")));
            out.push(format!("\"engine\": \"{engine}\""));
            out.push(format!("\"route_s\": {:.4}", start.elapsed().as_secs_f64()));
            out.push(format!("\"lanes\": {}", routes.lanes_needed()));
            if let Some(e) = routes.escape_routed() {
                out.push(format!("\"escape_routed\": {e}"));
            }
            out.push(format!("\"rss_mb_after_route\": {:.1}", peak_rss_mb()));
            if fingerprint {
                out.push(format!(
                    "\"tables_fnv\": \"{:016x}\"",
                    tables_fnv(&net, &routes)
                ));
            }
            let timed = |out: &mut Vec<String>, name: &str, start: Instant| {
                out.push(format!(
                    "\"{name}_s\": {:.4}",
                    start.elapsed().as_secs_f64()
                ));
            };
            let start = Instant::now();
            if let Ok(h) = routes.avg_hops(&net) {
                out.push(format!("\"avg_hops\": {h:.3}"));
            }
            timed(&mut out, "avg_hops", start);
            if verify {
                let start = Instant::now();
                let max = routes
                    .max_hops(&net)
                    .unwrap_or_else(|e| fail(e.to_string()));
                let minimal = routes
                    .is_minimal(&net)
                    .unwrap_or_else(|e| fail(e.to_string()));
                out.push(format!("\"max_hops\": {max}, \"minimal\": {minimal}"));
                timed(&mut out, "hops_minimal", start);
                let start = Instant::now();
                let r = routes
                    .deadlock_report(&net)
                    .unwrap_or_else(|e| fail(e.to_string()));
                out.push(format!("\"deadlock_free\": {}", r.deadlock_free));
                timed(&mut out, "deadlock", start);
                out.push(format!("\"rss_mb_after_deadlock\": {:.1}", peak_rss_mb()));
            }
            if let Some(dir) = &write {
                let start = Instant::now();
                routing::formats::save_all(&net, &routes, dir, false)
                    .unwrap_or_else(|e| fail(e.to_string()));
                timed(&mut out, "write", start);
            }
            if ebb_patterns > 0 {
                let opts = EbbOptions {
                    patterns: ebb_patterns,
                    ..EbbOptions::default()
                };
                let r = flow::ebb(&net, &routes, &opts)
                    .unwrap_or_else(|e| fail(format!("{text}: {e}")));
                out.push(format!(
                    "\"ebb_patterns\": {ebb_patterns}, \"ebb_avg\": {:.4}",
                    r.avg
                ));
                out.push(format!("\"ebb_s\": {:.4}", r.seconds));
            }
        }
        out.push(format!("\"peak_rss_mb\": {:.1}", peak_rss_mb()));
        println!("{{{}}}", out.join(", "));
    }
}

/// FNV-1a over every switch's port towards every terminal, then (where
/// the routes use more than one) every pair's lane, in order.
fn tables_fnv(net: &routelab_core::network::Network, routes: &routing::Routes) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let t = net.terminals().len();
    for x in 0..net.switches().len() {
        for d in 0..t {
            eat(&routes.port(x, d).map_or(0, |p| p.0).to_le_bytes());
        }
    }
    if routes.lanes_needed() > 1 {
        for s in 0..t {
            for d in 0..t {
                eat(&[routes.lane(s, d)]);
            }
        }
    }
    h
}
