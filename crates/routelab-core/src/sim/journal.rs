//! A saturation search's journal: every load written to a file the moment
//! it is measured, so that a search killed half-way resumes where it
//! stopped.
//!
//! The file is JSON lines. The first names the search, the normalised
//! spec and the options; each later one is a [`SaturatePoint`]. A search
//! started again with the same journal takes each load it finds there
//! instead of running it: the search is deterministic given its verdicts,
//! so it walks the same loads and simulates only those it had not
//! finished. A journal of another spec or other options is refused rather
//! than mixed in (unless it holds no load yet). A last line cut short (the
//! process was killed while writing it) is cut off the file; any other
//! malformed line is an error that names it. One search at a time may use
//! a journal: two appending to one file would interleave their loads.

use super::config::Spec;
use super::error::SimError;
use super::saturate::{PointStatus, SaturateOptions, SaturatePoint};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the first line of a journal holds: the search it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Header {
    journal: String,
    spec: String,
    options: SaturateOptions,
}

const KIND: &str = "routelab saturation search";

/// An open journal: the loads it held when opened, and the file that
/// each new load is appended to.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    known: Vec<SaturatePoint>,
    file: Mutex<File>,
}

/// The spec a journal names, normalised. The search sets every load
/// itself, so the spec's own `traffic.load` (where a caller happened to
/// leave it) does not tell searches apart and is left at zero; nor do
/// the cores a split run takes (`run.cores`), which change no result.
fn searched(spec: &Spec) -> String {
    let mut spec = spec.clone();
    spec.traffic.load = 0.0;
    spec.run.cores = 0;
    spec.to_toml_string()
}

impl Journal {
    /// Opens the journal at `path` for a search of `spec` with `opts`,
    /// creating it when it does not exist.
    pub fn open(path: &Path, spec: &Spec, opts: &SaturateOptions) -> Result<Journal, SimError> {
        let header = Header {
            journal: KIND.to_string(),
            spec: searched(spec),
            options: opts.clone(),
        };
        let err = |line: Option<usize>, reason: String| SimError::Journal {
            path: path.display().to_string(),
            line,
            reason,
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(err(None, e.to_string())),
        };
        let header_line = serde_json::to_string(&header).expect("a header serialises");
        let mut known = Vec::new();
        // Where the file's kept part ends (bytes): a line cut short by a
        // kill, the last one without its newline, is cut off; nothing else
        // is ever rewritten.
        let mut keep = text.len();
        let mut fresh = text.trim().is_empty();
        let mut offset = 0;
        let lines = if fresh { "" } else { text.as_str() };
        for (i, line) in lines.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += line.len();
            let cut = !line.ends_with('\n');
            let line = line.trim_end_matches(['\n', '\r']);
            if i == 0 {
                // Whether a search drains the loads that already accepted
                // too little changes none of its verdicts, and whether it
                // narrows by halves or thirds none of its loads' results: a
                // journal written either way serves the other.
                let parsed = serde_json::from_str::<Header>(line).map(|mut h| {
                    h.options.drain_unsustained = header.options.drain_unsustained;
                    h.options.bisect = header.options.bisect;
                    h
                });
                match parsed {
                    Ok(h) if h == header => continue,
                    // Written with the caller's starting load in its spec.
                    Ok(h)
                        if h.journal == KIND
                            && h.options == header.options
                            && Spec::from_toml_str(&h.spec)
                                .is_ok_and(|s| searched(&s) == header.spec) =>
                    {
                        continue
                    }
                    Ok(h) if h.journal != KIND => {
                        return Err(err(Some(1), "not a saturation search's journal".into()))
                    }
                    // A journal of another search that holds no load yet is
                    // started afresh (a search that failed before measuring).
                    Ok(_) if text.lines().skip(1).all(|l| l.trim().is_empty()) => fresh = true,
                    Ok(_) => {
                        return Err(err(
                            Some(1),
                            "it belongs to a search of another spec or other options; \
                             give this search another journal"
                                .into(),
                        ))
                    }
                    Err(_) if cut && header_line.starts_with(line) => fresh = true,
                    Err(e) => return Err(err(Some(1), format!("not a journal header: {e}"))),
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<SaturatePoint>(line) {
                Ok(p) => known.push(p),
                Err(_) if cut => keep = start,
                Err(e) => return Err(err(Some(i + 1), format!("not a measured load: {e}"))),
            }
        }
        let io = |e: std::io::Error| err(None, e.to_string());
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        if fresh {
            file.set_len(0).map_err(io)?;
            file.write_all((header_line + "\n").as_bytes())
                .map_err(io)?;
        } else if keep < text.len() {
            file.set_len(keep as u64).map_err(io)?;
        } else if !text.ends_with('\n') {
            // A whole last line whose newline the kill cut off.
            file.write_all(b"\n").map_err(io)?;
        }
        Ok(Journal {
            path: path.to_path_buf(),
            known,
            file: Mutex::new(file),
        })
    }

    /// Loads the journal held when it was opened.
    pub fn known(&self) -> &[SaturatePoint] {
        &self.known
    }

    /// The load measured at `load` when the journal was opened: a run
    /// stopped for its backlog only when `stopped_ok`.
    pub(crate) fn recall(&self, load: f64, stopped_ok: bool) -> Option<SaturatePoint> {
        // Loads are read back bit for bit (serde_json's float_roundtrip).
        self.known
            .iter()
            .find(|p| p.load == load && (stopped_ok || p.status != PointStatus::Backlog))
            .cloned()
    }

    /// Appends a newly measured load, flushed before the search goes on.
    pub(crate) fn record(&self, p: &SaturatePoint) -> Result<(), SimError> {
        let line = serde_json::to_string(p).expect("a point serialises") + "\n";
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.write_all(line.as_bytes())
            .and_then(|_| file.flush())
            .map_err(|e| SimError::Journal {
                path: self.path.display().to_string(),
                line: None,
                reason: e.to_string(),
            })
    }
}
