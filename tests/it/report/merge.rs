//! Merging shard reports: two halves of a run merge into the whole.

use super::sample;
use covenant::report::{merge, ReportError};
use covenant::verdict::{Counts, RunRecord};

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

/// The error of merging the two halves once `edit` has changed them.
fn refusal(edit: impl FnOnce(&mut RunRecord, &mut RunRecord)) -> ReportError {
    let (mut a, mut b) = halves();
    edit(&mut a, &mut b);
    merge(vec![a, b]).expect_err("the edited halves are refused")
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
fn merged_shards_count_every_refusal_and_keep_the_slowest_pace_that_worked() {
    let (mut a, b) = halves();
    let pace = |answers_429, rate| covenant::verdict::Pace {
        answers_429,
        answers_503: 1,
        pauses: 2,
        paused_ms: 2000.0,
        rate,
        unanswered: Vec::new(),
    };
    a.meta.pace = Some(pace(5, 120.0));
    let merged = merge(vec![a.clone(), b.clone()]).expect("halves of one run merge");
    assert_eq!(
        merged.meta.pace,
        Some(pace(5, 120.0)),
        "one shard was paced"
    );
    let mut b = b;
    b.meta.pace = Some(pace(3, 90.5));
    let merged = merge(vec![a, b]).expect("halves of one run merge");
    let both = merged.meta.pace.expect("the merged run was paced");
    assert_eq!((both.answers_429, both.answers_503), (8, 2));
    assert_eq!((both.pauses, both.paused_ms), (4, 4000.0));
    assert_eq!(both.rate, 90.5);
}

#[test]
fn reports_of_different_seeds_are_refused() {
    let err = refusal(|_, b| b.meta.seed = 7);
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
    let err = refusal(|_, b| b.meta.target = "https://elsewhere.example".to_owned());
    assert!(
        matches!(err, ReportError::Mismatch { what: "target", .. }),
        "{err}"
    );
}

#[test]
fn shards_of_different_counts_are_refused() {
    let err = refusal(|_, b| b.meta.shard = Some("2/3".to_owned()));
    assert!(
        err.to_string()
            .contains("report #2 is shard 2/3, but report #1 is shard 1/2"),
        "{err}"
    );
}

#[test]
fn a_shard_given_twice_is_refused_before_its_cases_are_compared() {
    let err = refusal(|_, b| b.meta.shard = Some("1/2".to_owned()));
    assert!(
        matches!(
            err,
            ReportError::DuplicateShard {
                first: 1,
                second: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn missing_shards_are_named() {
    let err = refusal(|a, b| {
        a.meta.shard = Some("1/4".to_owned());
        b.meta.shard = Some("2/4".to_owned());
    });
    assert_eq!(
        err.to_string(),
        "cannot merge: missing shards 3/4, 4/4 (2 of 4 shards given); pass the report of every \
         shard of the run, each run with the same --seed"
    );
}

#[test]
fn missing_shards_of_a_huge_count_are_counted_not_listed() {
    let err = refusal(|a, b| {
        a.meta.shard = Some(format!("1/{}", u32::MAX));
        b.meta.shard = Some(format!("10/{}", u32::MAX));
    })
    .to_string();
    assert!(
        err.contains("shards 2/4294967295, 3/4294967295")
            && err.contains("8/4294967295, 9/4294967295, and 4294967285 more"),
        "{err}"
    );
}

#[test]
fn a_shard_with_a_whole_run_is_refused() {
    let err = refusal(|_, b| b.meta.shard = None);
    assert!(
        matches!(
            err,
            ReportError::ShardMixedWithWhole {
                sharded: 1,
                unsharded: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_malformed_shard_is_refused() {
    let err = refusal(|_, b| b.meta.shard = Some("3/2".to_owned()));
    assert!(
        matches!(err, ReportError::BadShard { index: 2, ref value } if value == "3/2"),
        "{err}"
    );
}

#[test]
fn reports_with_no_shard_merge_as_before() {
    let (mut a, mut b) = halves();
    a.meta.shard = None;
    b.meta.shard = None;
    let merged = merge(vec![a, b]).expect("unsharded parts of one run merge");
    assert_eq!(merged.counts, sample::run().counts);
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

    let out = crate::support::covenant()
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

    let out = crate::support::covenant()
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
