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
//! than mixed in. A last line cut short (the process was killed while
//! writing it) is dropped; any other malformed line is an error that names
//! it.

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

impl Journal {
    /// Opens the journal at `path` for a search of `spec` with `opts`,
    /// creating it when it does not exist.
    pub fn open(path: &Path, spec: &Spec, opts: &SaturateOptions) -> Result<Journal, SimError> {
        let header = Header {
            journal: KIND.to_string(),
            spec: spec.to_toml_string(),
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
        let mut known = Vec::new();
        // Written afresh when new, or when a line cut short must go.
        let mut rewrite = text.is_empty();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let cut = i + 1 == lines.len() && !text.ends_with('\n');
            if i == 0 {
                match serde_json::from_str::<Header>(line) {
                    Ok(h) if h == header => continue,
                    Ok(h) if h.journal != KIND => {
                        return Err(err(Some(1), "not a saturation search's journal".into()))
                    }
                    Ok(_) => {
                        return Err(err(
                            Some(1),
                            "it belongs to a search of another spec or other options; \
                             give this search another journal"
                                .into(),
                        ))
                    }
                    Err(_) if cut => rewrite = true,
                    Err(e) => return Err(err(Some(1), format!("not a journal header: {e}"))),
                }
                continue;
            }
            match serde_json::from_str::<SaturatePoint>(line) {
                Ok(p) => known.push(p),
                Err(_) if cut => rewrite = true,
                Err(e) => return Err(err(Some(i + 1), format!("not a measured load: {e}"))),
            }
        }
        if rewrite {
            let mut fresh = serde_json::to_string(&header).expect("a header serialises") + "\n";
            for p in &known {
                fresh += &(serde_json::to_string(p).expect("a point serialises") + "\n");
            }
            std::fs::write(path, fresh).map_err(|e| err(None, e.to_string()))?;
        }
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| err(None, e.to_string()))?;
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
        // Within rounding: a load read back from JSON may differ in its
        // last bit.
        let near = |x: f64| (x - load).abs() <= 1e-9 * load.abs();
        let p = self
            .known
            .iter()
            .find(|p| near(p.load) && (stopped_ok || p.status != PointStatus::Backlog))?;
        Some(SaturatePoint { load, ..p.clone() })
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
