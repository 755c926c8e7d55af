//! A saturation search's journal: a search killed half-way and started
//! again simulates only what it had not finished, and reaches the same
//! answer.

use crate::common::quick;
use routelab_core::sim::{self, PointStatus, SaturateOptions, SaturateResult, SimError, Spec};
use std::path::PathBuf;

/// A search that grows past the knee into loads stopped for their
/// backlog, so that the journal also holds a stopped load and its whole
/// rerun.
fn search_spec() -> (Spec, SaturateOptions) {
    let mut s = quick("torus:8x8", "dor");
    s.traffic.pattern = Some("uniform".into());
    s.traffic.packet_flits = Some(4);
    s.run.warmup_periods = 4;
    s.run.convergence = 0.1;
    s.run.drain_unconverged = false;
    s.run.stop_backlog = Some(0.1);
    let opts = SaturateOptions {
        low: 0.05,
        high: Some(0.1),
        resolution: Some(0.02),
        ..Default::default()
    };
    (s, opts)
}

fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("routelab-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn lines(path: &PathBuf) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The saturation, the final bracket, and each load with its verdict.
type Answer = (Option<f64>, f64, Option<f64>, Vec<(f64, PointStatus)>);

fn answer(r: &SaturateResult) -> Answer {
    let points = r.points.iter().map(|p| (p.load, p.status)).collect();
    (r.saturation, r.bracket_low, r.bracket_high, points)
}

#[test]
fn a_search_killed_half_way_resumes_from_its_journal_with_the_same_answer() {
    let (s, opts) = search_spec();
    let plain = sim::saturate(&s, &opts).unwrap();
    let path = fresh("whole.jsonl");
    let journaled = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(answer(&plain), answer(&journaled));
    // A header, then each load as it was measured, stopped ones too (a
    // load there twice is a stopped upper end run again whole).
    let written = lines(&path);
    assert!(written[0].contains("routelab saturation search"));
    let measured: Vec<sim::SaturatePoint> = written[1..]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(measured.iter().any(|p| p.status == PointStatus::Backlog));
    for p in &journaled.points {
        let at: Vec<_> = measured.iter().filter(|q| q.load == p.load).collect();
        assert_eq!(at.last().unwrap(), &p, "{written:?}");
        if at.len() == 2 {
            assert_eq!(at[0].status, PointStatus::Backlog);
        }
        assert!(at.len() <= 2);
    }
    assert!(measured.len() >= journaled.points.len());

    // Started again on the whole journal: nothing runs again (each point,
    // its wall time too, is the one written), and nothing is appended.
    let again = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(again.points, journaled.points);
    assert_eq!(lines(&path), written);

    // Killed after three loads, half-way through writing the fourth: the
    // three are kept, the cut line is dropped, the rest is run, and the
    // answer and the loads are those of the whole search.
    let killed = fresh("killed.jsonl");
    let cut = &written[4][..written[4].len() / 2];
    std::fs::write(&killed, written[..4].join("\n") + "\n" + cut).unwrap();
    let resumed = sim::saturate_journaled(&s, &opts, &killed).unwrap();
    assert_eq!(answer(&resumed), answer(&journaled));
    let kept: Vec<_> = written[1..4].to_vec();
    assert_eq!(lines(&killed)[1..4], kept[..]);
    assert_eq!(lines(&killed).len(), written.len());
    assert_eq!(resumed.points.len(), journaled.points.len());

    // Killed just before a line's newline: the line is kept whole, and the
    // next load goes on a line of its own.
    let unended = fresh("unended.jsonl");
    std::fs::write(&unended, written[..4].join("\n")).unwrap();
    let again = sim::saturate_journaled(&s, &opts, &unended).unwrap();
    assert_eq!(answer(&again), answer(&journaled));
    assert_eq!(lines(&unended)[..4], written[..4]);

    // A journal whose search failed before measuring anything (its header
    // only) is taken by the next search, whatever its spec was.
    let empty = fresh("empty.jsonl");
    let other = SaturateOptions {
        resolution: Some(0.05),
        ..opts.clone()
    };
    sim::saturate_journaled(&s, &other, &empty).unwrap();
    std::fs::write(&empty, lines(&empty)[0].clone() + "\n").unwrap();
    sim::saturate_journaled(&s, &opts, &empty).unwrap();
    assert_eq!(lines(&empty)[0], written[0]);
    for line in &kept {
        let p: sim::SaturatePoint = serde_json::from_str(line).unwrap();
        let now = resumed.points.iter().find(|q| q.load == p.load).unwrap();
        assert_eq!(now.wall_seconds, p.wall_seconds, "{p:?} ran again");
    }
}

#[test]
fn a_replay_takes_a_finished_journal_and_simulates_nothing_of_an_unfinished_one() {
    let (s, opts) = search_spec();
    let path = fresh("replayed.jsonl");
    let whole = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let written = lines(&path);
    // A finished journal: the same answer and points, wall times included
    // (nothing ran), and the file as it was.
    let replayed = sim::saturate_replayed(&s, &opts, &path).unwrap();
    assert_eq!(replayed.points, whole.points);
    assert_eq!(answer(&replayed), answer(&whole));
    assert_eq!(lines(&path), written);
    // Cut after its third load: the replay names the fourth and writes nothing.
    let cut = fresh("replay-cut.jsonl");
    std::fs::write(&cut, written[..4].join("\n") + "\n").unwrap();
    let e = sim::saturate_replayed(&s, &opts, &cut).unwrap_err();
    let fourth: sim::SaturatePoint = serde_json::from_str(&written[4]).unwrap();
    match &e {
        SimError::Unjournaled { load, .. } => assert_eq!(*load, fourth.load, "{e}"),
        other => panic!("expected Unjournaled, got {other:?}"),
    }
    assert!(e.to_string().contains("replay-cut.jsonl"), "{e}");
    assert_eq!(lines(&cut), written[..4]);
    // No journal: an error, and none is created.
    let none = fresh("replay-none.jsonl");
    let e = sim::saturate_replayed(&s, &opts, &none).unwrap_err();
    assert!(matches!(e, SimError::Unjournaled { .. }), "{e:?}");
    assert!(!none.exists());
    // A journal walked by halves replays a search that narrows by thirds.
    let halves = SaturateOptions {
        bisect: true,
        ..opts.clone()
    };
    let by_halves = fresh("replay-halves.jsonl");
    let walked = sim::saturate_journaled(&s, &halves, &by_halves).unwrap();
    let replayed = sim::saturate_replayed(&s, &opts, &by_halves).unwrap();
    assert_eq!(replayed.points, walked.points);
    assert_eq!(replayed.saturation, walked.saturation);
    // Another search's journal is refused as a resumed search refuses it.
    let wider = SaturateOptions {
        resolution: Some(0.01),
        ..opts.clone()
    };
    let e = sim::saturate_replayed(&s, &wider, &path).unwrap_err();
    assert!(matches!(e, SimError::Journal { .. }), "{e:?}");
}

#[test]
fn a_journal_of_another_search_or_a_malformed_line_is_refused_by_name() {
    let (s, opts) = search_spec();
    let path = fresh("other.jsonl");
    sim::saturate_journaled(&s, &opts, &path).unwrap();
    let journal_error = |s: &Spec, o: &SaturateOptions| {
        let e = sim::saturate_journaled(s, o, &path).unwrap_err();
        assert!(matches!(e, SimError::Journal { .. }), "{e:?}");
        e.to_string()
    };
    // Other options, or another spec.
    let wider = SaturateOptions {
        resolution: Some(0.01),
        ..opts.clone()
    };
    let e = journal_error(&s, &wider);
    assert!(
        e.contains("line 1") && e.contains("another spec or other options"),
        "{e}"
    );
    let mut other = s.clone();
    other.run.seed += 1;
    assert!(journal_error(&other, &opts).contains("another spec"));
    // A line in the middle that is not a load names its number.
    let mut written = lines(&path);
    written[2] = "{\"load\": oops".into();
    std::fs::write(&path, written.join("\n") + "\n").unwrap();
    let e = journal_error(&s, &opts);
    assert!(
        e.contains("line 3") && e.contains("not a measured load"),
        "{e}"
    );
    // Not a journal at all.
    std::fs::write(
        &path,
        "{\"journal\": \"a shopping list\", \"spec\": \"\", \"options\": {}}\n",
    )
    .unwrap();
    assert!(journal_error(&s, &opts).contains("not a saturation search's journal"));
    // A file of one line without its newline that is not a journal (a
    // result written by json.dump, say) is refused and left as it was.
    let result = "{\"saturation\": 0.4}";
    std::fs::write(&path, result).unwrap();
    assert!(journal_error(&s, &opts).contains("not a journal header"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), result);
    // A folder that does not exist.
    let nowhere = path.join("no/such/folder.jsonl");
    let e = sim::saturate_journaled(&s, &opts, &nowhere).unwrap_err();
    assert!(e.to_string().contains("no/such/folder.jsonl"), "{e}");
}

#[test]
fn a_journal_written_before_the_scan_options_existed_is_taken_as_it_is() {
    // Journals of long searches outlive releases: a header without the
    // options added since (scan, scan_misses, require_drained) reads as
    // their defaults, and its loads are taken, not run again.
    let (s, opts) = search_spec();
    let path = fresh("older.jsonl");
    let first = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let mut text = lines(&path);
    let mut header: serde_json::Value = serde_json::from_str(&text[0]).unwrap();
    let options = header["options"].as_object_mut().unwrap();
    for key in ["scan", "scan_misses", "require_drained"] {
        assert!(options.remove(key).is_some(), "{key} is in the header");
    }
    text[0] = header.to_string();
    let loads = text.len() - 1;
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let again = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path).len(), loads + 1, "nothing was run again");
}

#[test]
fn a_journal_serves_a_search_that_drains_unsustained_loads_or_not() {
    // Draining a load that already accepted too little changes no verdict:
    // a journal written with the drain resumes a search without it, and
    // the other way round, running nothing again.
    let (s, opts) = search_spec();
    let path = fresh("drain.jsonl");
    let first = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let written = lines(&path);
    let skipping = SaturateOptions {
        drain_unsustained: false,
        ..opts.clone()
    };
    let again = sim::saturate_journaled(&s, &skipping, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path), written, "nothing was run again");
    let path = fresh("skip.jsonl");
    let first = sim::saturate_journaled(&s, &skipping, &path).unwrap();
    let written = lines(&path);
    let again = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path), written, "nothing was run again");
}

#[test]
fn a_journal_serves_a_search_that_bisects_or_narrows_by_thirds() {
    // How the bracket narrows chooses the loads, not what a load measures:
    // a search by halves takes every load a search by thirds left in the
    // journal, and runs only the midpoints it has not got.
    let (s, opts) = search_spec();
    let path = fresh("bisect.jsonl");
    let thirds = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let written = lines(&path);
    let halves = SaturateOptions {
        bisect: true,
        ..opts.clone()
    };
    let alone = sim::saturate(&s, &halves).unwrap();
    let resumed = sim::saturate_journaled(&s, &halves, &path).unwrap();
    assert_eq!(
        lines(&path)[..written.len()],
        written[..],
        "the journal only grows"
    );
    let taken = resumed
        .points
        .iter()
        .filter(|p| thirds.points.iter().any(|q| q.load == p.load))
        .count();
    assert!(taken >= 2, "{taken} loads taken from the journal");
    assert!(resumed.bracket_width.unwrap() <= 0.02);
    let (lo, hi) = (alone.bracket_low, alone.bracket_high.unwrap());
    assert!(resumed.bracket_low < hi && lo < resumed.bracket_high.unwrap());
}

#[test]
fn the_spec_s_own_load_does_not_tell_searches_apart() {
    // The search sets every load itself: a search whose spec was left at
    // another traffic.load takes the same journal, and so does a journal
    // whose header still names the load its caller started from.
    let (s, opts) = search_spec();
    let path = fresh("load.jsonl");
    let first = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let written = lines(&path);
    let mut moved = s.clone();
    moved.traffic.load = 0.37;
    let again = sim::saturate_journaled(&moved, &opts, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path), written, "nothing was run again");

    let mut header: serde_json::Value = serde_json::from_str(&written[0]).unwrap();
    let spec = header["spec"].as_str().unwrap().to_string();
    assert!(spec.contains("load = 0.0\n"), "{spec}");
    header["spec"] = spec.replace("load = 0.0\n", "load = 0.37\n").into();
    let mut older = written.clone();
    older[0] = header.to_string();
    std::fs::write(&path, older.join("\n") + "\n").unwrap();
    let again = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path).len(), written.len(), "nothing was run again");

    // Another spec is still refused.
    let mut other = s.clone();
    other.run.seed += 1;
    let e = sim::saturate_journaled(&other, &opts, &path).unwrap_err();
    assert!(e.to_string().contains("another spec"), "{e}");
}

#[test]
fn the_cores_of_a_split_search_do_not_tell_searches_apart() {
    // A run of two parts is the same on one core or two (`run.cores`):
    // a journal written on one serves a search on two.
    let (mut s, opts) = search_spec();
    s.run.threads = 2;
    s.run.cores = 1;
    let path = fresh("cores.jsonl");
    let first = sim::saturate_journaled(&s, &opts, &path).unwrap();
    let written = lines(&path);
    s.run.cores = 2;
    let again = sim::saturate_journaled(&s, &opts, &path).unwrap();
    assert_eq!(answer(&again), answer(&first));
    assert_eq!(lines(&path), written, "nothing was run again");
    // The answer is the one a fresh search on two cores finds.
    let alone = sim::saturate(&s, &opts).unwrap();
    assert_eq!(answer(&alone), answer(&first));
}
