//! Answers that come too slowly or never: a drip and a silence both end at the request timeout,
//! as an error of their case.

use super::server::HostileReply;
use super::target::{assert_error, fault_run, VAT};
use std::time::Duration;

#[test]
fn a_slow_drip_times_out_at_the_request_timeout() {
    let run = fault_run("drip", |_, _| HostileReply::Drip, &[]);
    assert_error(&run, VAT, "timed out after 1.0 s (--timeout)");
    assert!(
        run.elapsed < Duration::from_secs(10),
        "took {:?}",
        run.elapsed
    );
}

#[test]
fn a_target_that_never_answers_times_out() {
    let run = fault_run("hang", |_, _| HostileReply::Hang, &[]);
    assert_error(&run, VAT, "timed out after 1.0 s");
}
