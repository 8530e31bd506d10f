//! Merging shard reports: two halves of a run merge into the whole.

use crate::sample;
use covenant::report::{merge, ReportError};
use covenant::verdict::{Counts, RunRecord};
use std::process::Command;

fn half(
    run: &RunRecord,
    keep: impl Fn(usize) -> bool,
    shard: &str,
    times: (&str, &str),
) -> RunRecord {
    let cases: Vec<_> = run
        .cases
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, c)| c.clone())
        .collect();
    let mut meta = sample::meta(times.0, times.1);
    meta.shard = Some(shard.to_owned());
    RunRecord {
        meta,
        counts: Counts::of(&cases),
        cases,
    }
}

fn halves() -> (RunRecord, RunRecord) {
    let whole = sample::run();
    let a = half(
        &whole,
        |i| i % 2 == 0,
        "1/2",
        ("2026-01-02T03:04:06Z", "2026-01-02T03:04:15.5Z"),
    );
    let b = half(
        &whole,
        |i| i % 2 == 1,
        "2/2",
        ("2026-01-02T03:04:05Z", "2026-01-02T03:04:10Z"),
    );
    (a, b)
}

#[test]
fn merging_two_halves_gives_the_whole_run() {
    let whole = sample::run();
    let (a, b) = halves();

    let merged = merge(vec![b, a]).expect("halves of one run merge");

    let mut expected = whole.cases.clone();
    expected.sort_by(|x, y| x.id.cmp(&y.id));
    assert_eq!(merged.cases, expected, "cases sorted by id");
    assert_eq!(merged.counts, whole.counts);
    assert_eq!(merged.meta.started_at, "2026-01-02T03:04:05Z");
    assert_eq!(merged.meta.finished_at, "2026-01-02T03:04:15.5Z");
    assert_eq!(merged.meta.duration_ms, 10_500.0);
    assert_eq!(merged.meta.shard, None);
    assert_eq!(merged.meta, whole.meta, "meta equals the whole run's");
}

#[test]
fn reports_of_different_seeds_are_refused() {
    let (a, mut b) = halves();
    b.meta.seed = 7;
    let err = merge(vec![a, b]).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::Mismatch {
                index: 2,
                what: "seed",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("report #2 has seed 7, but report #1 has 42"),
        "{err}"
    );
}

#[test]
fn reports_of_different_targets_are_refused() {
    let (a, mut b) = halves();
    b.meta.target = "https://elsewhere.example".to_owned();
    let err = merge(vec![a, b]).unwrap_err();
    assert!(
        matches!(err, ReportError::Mismatch { what: "target", .. }),
        "{err}"
    );
}

#[test]
fn a_case_in_two_reports_is_refused() {
    let run = sample::run();
    let err = merge(vec![run.clone(), run]).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::DuplicateCase {
                first: 1,
                second: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn merge_command_writes_every_format_and_exits_1_on_failures() {
    let dir = sample::scratch_dir("merge-command");
    let (a, b) = halves();
    let (pa, pb) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&pa, serde_json::to_string(&a).unwrap()).unwrap();
    std::fs::write(&pb, serde_json::to_string(&b).unwrap()).unwrap();
    let out_dir = dir.join("out");

    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .arg("merge")
        .args([&pa, &pb])
        .arg("--report-dir")
        .arg(&out_dir)
        .output()
        .unwrap();

    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["junit.xml", "report.json", "summary.html", "summary.md"] {
        assert!(out_dir.join(name).is_file(), "{name} not written");
    }
    let merged = covenant::report::load(&out_dir.join("report.json")).unwrap();
    assert_eq!(merged.counts, sample::run().counts);
}

#[test]
fn merge_command_names_the_file_of_a_mismatched_seed() {
    let dir = sample::scratch_dir("merge-mismatch");
    let (a, mut b) = halves();
    b.meta.seed = 7;
    let (pa, pb) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&pa, serde_json::to_string(&a).unwrap()).unwrap();
    std::fs::write(&pb, serde_json::to_string(&b).unwrap()).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .arg("merge")
        .args([&pa, &pb])
        .arg("--report-dir")
        .arg(dir.join("out"))
        .output()
        .unwrap();

    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("seed 7") && stderr.contains("report #2: ") && stderr.contains("b.json"),
        "{stderr}"
    );
}
