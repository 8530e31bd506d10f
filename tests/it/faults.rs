//! Every deliberate fault of the reference is detected: the self-test, run in-process from its
//! settings, finds each fault on the rule it breaks, the clean reference passes clean, and every
//! check of the catalogue is made to fail by some fault. Everything goes over HTTP through the
//! reference's profile; `covenant selftest` does the same from the command line.

use covenant::reference::Fault;
use covenant::selftest::{run, SelftestSettings};

#[test]
fn the_suite_detects_every_fault_and_every_check_can_fail() {
    let record = run(&SelftestSettings::default()).expect("the self-test runs");
    let missed: Vec<String> = record
        .faults
        .iter()
        .filter(|outcome| !outcome.detected)
        .map(|outcome| {
            format!(
                "{} ({}) went undetected by {:?}; other findings in: {:?}",
                outcome.fault, outcome.rule, outcome.cases, outcome.also
            )
        })
        .collect();
    assert!(
        missed.is_empty(),
        "undetected faults:\n{}",
        missed.join("\n")
    );
    assert_eq!(record.detected, Fault::all().len());
    assert!(
        record.clean_failures.is_empty() && record.clean_warnings.is_empty(),
        "the clean reference fails {:?} and warns {:?}",
        record.clean_failures,
        record.clean_warnings
    );
    assert!(
        record.unproven_checks.is_empty(),
        "checks no fault made fail: {:?}",
        record.unproven_checks
    );
}
