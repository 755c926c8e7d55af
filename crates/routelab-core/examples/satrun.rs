//! One saturation search per process, for batches of searches run side by
//! side: `cargo run --release -p routelab-core --example satrun --
//! SPEC.toml [key=value ...] [--low=X] [--high=X] [--resolution=X]
//! [--tolerance=X] [--steps=N] [--bisect] [--no-convergence] [--skip-short-drains]
//! [--journal=PATH]`. Prints the search's result as JSON. With a journal
//! the search resumes from the loads it holds (a sweep's
//! `journals/<key>.jsonl`, for its spec and options), and keeps each new
//! load there as it is measured.

use routelab_core::sim::{saturate, saturate_journaled, SaturateOptions, Spec};

fn fail(msg: String) -> ! {
    eprintln!("satrun: {msg}");
    std::process::exit(2);
}

fn number(flag: &str, v: &str) -> f64 {
    v.parse()
        .unwrap_or_else(|_| fail(format!("{flag}: not a number: {v}")))
}

fn main() {
    let mut path = None;
    let mut sets: Vec<(String, String)> = Vec::new();
    let mut opts = SaturateOptions::default();
    let mut journal = None;
    for a in std::env::args().skip(1) {
        if a == "--no-convergence" {
            opts.require_converged = false;
        } else if a == "--bisect" {
            opts.bisect = true;
        } else if a == "--skip-short-drains" {
            opts.drain_unsustained = false;
        } else if let Some((flag, v)) = a.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            match flag {
                "--low" => opts.low = number(flag, v),
                "--high" => opts.high = Some(number(flag, v)),
                "--resolution" => opts.resolution = Some(number(flag, v)),
                "--tolerance" => opts.tolerance = number(flag, v),
                "--steps" => {
                    opts.steps = v.parse().unwrap_or_else(|_| {
                        fail(format!("{flag}: not a whole number of steps: {v}"))
                    })
                }
                "--journal" => journal = Some(std::path::PathBuf::from(v)),
                _ => fail(format!("unknown option {flag}")),
            }
        } else if let Some((k, v)) = a.split_once('=') {
            sets.push((k.to_string(), v.to_string()));
        } else {
            path = Some(a);
        }
    }
    let path = path.unwrap_or_else(|| fail("usage: satrun SPEC.toml [key=value ...]".into()));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let sets: Vec<(&str, &str)> = sets.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let spec = Spec::from_toml_with(&text, &sets).unwrap_or_else(|e| fail(e.to_string()));
    let r = match &journal {
        Some(j) => saturate_journaled(&spec, &opts, j),
        None => saturate(&spec, &opts),
    }
    .unwrap_or_else(|e| fail(e.to_string()));
    println!(
        "{}",
        serde_json::to_string(&r).expect("a result serialises")
    );
}
