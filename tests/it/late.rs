//! Late cases, in-process against the embedded reference: they start only after every other case
//! of the plan has finished (writers included), whoever watches the run (the console of `covenant
//! run`, or the self-test), at any concurrency; a late case whose earlier case is not in the plan
//! is skipped saying so, and an early case that is skipped never leaves a late one waiting. A
//! case that waits part way through for the others (the explorer's shrink) starts beside them
//! and goes on only once they have all finished, late ones included, at any concurrency.

use covenant::case::{case_fn, Case};
use covenant::reference::FaultSet;
use covenant::runner::{plan as prepare, Audience};
use covenant::schema::OperationId;
use covenant::settings::RunSettings;
use covenant::verdict::{CaseResult, Verdict};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// When each case started and ended, by id.
type Log = Arc<Mutex<Vec<(String, Instant, Instant)>>>;

/// A case that holds its phase for `ms` and logs when it ran.
fn timed(id: &str, ms: u64, log: &Log) -> Case {
    logged(id, ms, log, false)
}

/// A case that holds its phase for `ms`, then waits for the others if `waits`, and logs when it
/// started and when it ended.
fn logged(id: &str, ms: u64, log: &Log, waits: bool) -> Case {
    let (name, log) = (id.to_owned(), log.clone());
    Case::new(
        id,
        OperationId::ListEvents,
        &[],
        case_fn(move |cx| {
            let (name, log) = (name.clone(), log.clone());
            Box::pin(async move {
                let start = Instant::now();
                tokio::time::sleep(Duration::from_millis(ms)).await;
                if waits {
                    cx.wait_for_others().await;
                }
                log.lock().unwrap().push((name, start, Instant::now()));
                Ok(())
            })
        }),
    )
}

/// Writers of different lengths, still cases, plain readers, and two late cases between them
/// in the plan (the plan's order is not the order they start in).
fn plan(log: &Log) -> Vec<Case> {
    vec![
        timed("w.slow", 150, log).writes(),
        timed("late.one", 1, log).late(&["s.one"]),
        timed("s.one", 30, log).still(),
        timed("r.one", 20, log),
        timed("w.fast", 10, log).writes(),
        timed("late.two", 1, log).late(&[]),
        timed("w.mid", 80, log).writes(),
        timed("s.two", 60, log).still(),
        timed("r.two", 120, log),
    ]
}

/// Every late case started after the last early case ended.
fn assert_late_after_the_rest(log: &Log, results: &[CaseResult], how: &str) {
    for r in results {
        assert_eq!(r.verdict, Verdict::Pass, "{how}: {r:?}");
    }
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 9, "{how}: every case ran once");
    let last_early_end = log
        .iter()
        .filter(|(id, ..)| !id.starts_with("late."))
        .map(|(_, _, end)| *end)
        .max()
        .unwrap();
    for (id, start, _) in log.iter().filter(|(id, ..)| id.starts_with("late.")) {
        assert!(
            *start >= last_early_end,
            "{how}: {id} started before every writer and reader had finished"
        );
    }
}

use crate::support::runtime;

/// Runs the cases `cases` gives at concurrency 1, 2 and 8, watched by a console and not, each
/// time with a fresh log, and hands their results, the log and how they ran to `check`.
fn every_way(cases: impl Fn(&Log) -> Vec<Case>, check: impl Fn(&[CaseResult], &Log, &str, usize)) {
    let rt = runtime();
    for concurrency in [1, 2, 8] {
        let mut settings = RunSettings::new(1, FaultSet::none());
        settings.concurrency = concurrency;
        settings.quiet = true;
        for audience in [Audience::Program, Audience::Console] {
            let mut planned = rt
                .block_on(prepare(&settings))
                .expect("the reference starts");
            let log = Log::default();
            planned.cases = cases(&log);
            let ran = rt.block_on(async {
                tokio::time::timeout(Duration::from_secs(20), planned.run(audience))
                    .await
                    .expect("no case waits forever")
            });
            let how = format!("{audience:?} at {concurrency}");
            check(&ran.records[0].cases, &log, &how, concurrency);
        }
    }
}

#[test]
fn late_cases_start_after_every_writer_and_reader_has_finished_at_any_concurrency() {
    every_way(plan, |results, log, how, _| {
        assert_late_after_the_rest(log, results, how)
    });
}

#[test]
fn a_late_case_without_its_earlier_case_is_skipped_saying_so_and_never_waits_for_skipped_ones() {
    let rt = runtime();
    let mut settings = RunSettings::new(1, FaultSet::none());
    settings.concurrency = 1;
    let mut planned = rt
        .block_on(prepare(&settings))
        .expect("the reference starts");
    let log = Log::default();
    // An early case skipped for an unmet need (no such profile key is missing on the
    // reference, so a case that stops itself with a skip stands in for it).
    let skipping = Case::new(
        "s.skips",
        OperationId::ListEvents,
        &[],
        case_fn(|_| Box::pin(async { Err(covenant::case::Abort::Skip("nothing to test".into())) })),
    );
    planned.cases = vec![
        timed("late.orphan", 1, &log).late(&["s.absent"]),
        timed("late.after-skip", 1, &log).late(&["s.skips"]),
        skipping.still(),
    ];
    let ran = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(10), planned.run(Audience::Program))
            .await
            .expect("no late case waits forever")
    });
    let results = &ran.records[0].cases;
    let orphan = &results[0];
    assert_eq!(orphan.verdict, Verdict::Skip);
    let why = orphan.skip_reason.as_deref().unwrap_or("");
    assert!(
        why.contains("s.absent") && why.contains("does not include"),
        "{why}"
    );
    assert_eq!(results[1].verdict, Verdict::Pass, "{:?}", results[1]);
    assert_eq!(results[2].verdict, Verdict::Skip);
}

/// A writer that plays for `ms`, waits for the others, and logs when it started and when it
/// went on.
fn waiting(id: &str, ms: u64, log: &Log) -> Case {
    logged(id, ms, log, true).writes().waits_for_others()
}

#[test]
fn a_case_waiting_for_the_others_plays_beside_them_and_goes_on_after_the_last_at_any_concurrency() {
    let cases = |log: &Log| {
        let mut cases = vec![waiting("wait.long", 40, log)];
        cases.extend(plan(log));
        cases.push(waiting("wait.short", 5, log));
        cases
    };
    every_way(cases, |results, log, how, concurrency| {
        for r in results {
            assert_eq!(r.verdict, Verdict::Pass, "{how}: {r:?}");
        }
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 11, "{how}: every case ran once");
        let (waited, others): (Vec<_>, Vec<_>) =
            log.iter().partition(|(id, ..)| id.starts_with("wait."));
        let last_end = others.iter().map(|(_, _, end)| *end).max().unwrap();
        for (id, start, went_on) in &waited {
            assert!(
                *went_on >= last_end,
                "{how}: {id} went on before every other case had finished"
            );
            if concurrency > 1 {
                assert!(
                    *start < last_end,
                    "{how}: {id} started only after the others, not beside them"
                );
            }
        }
    });
}
