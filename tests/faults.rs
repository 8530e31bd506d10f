//! One test per deliberate fault of the reference: the suite, run in-process against a reference
//! with only that fault on, detects it (a finding on the rule the fault breaks). Everything goes
//! over HTTP through the reference's profile. `covenant selftest` does the same from the command
//! line and also proves that every check can fail.

use covenant::reference::Fault;
use covenant::selftest::{outcome, run_reference};
use libtest_mimic::{Arguments, Failed, Trial};

fn detects(fault: Fault) -> Result<(), Failed> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let cases = runtime
        .block_on(run_reference(Some(fault), 5))
        .map_err(|e| format!("run: {e}"))?;
    let found = outcome(fault, &cases);
    if found.detected {
        Ok(())
    } else {
        Err(format!(
            "{} ({}) went undetected; other findings in: {:?}",
            found.fault, found.rule, found.also
        )
        .into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let trials = Fault::all()
        .iter()
        .map(|&fault| {
            Trial::test(
                format!("suite_detects_{}", fault.name().replace('-', "_")),
                move || detects(fault),
            )
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
