//! Every printed curl reproduces: for each fault of the self-test, a run against a reference
//! with that fault of the cases its self-test run plays, then each broken rule's curl from report.json replayed as a user would
//! (`sh -c`, the secrets' variables exported) gets the status the run recorded. A delete and a
//! successful create are left out: they change the target, so a replay meets another state.

use crate::support::{covenant, runtime, says, scratch};
use covenant::reference::{start, Fault, FaultSet, ReferenceConfig};
use covenant::selftest::{cases_judging, SelftestSettings, SEED};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Faults run at once: each run is a process of its own, with a reference of its own.
const AT_ONCE: usize = 4;

#[test]
fn every_broken_rules_curl_of_every_fault_replays_to_the_status_recorded() {
    let root = scratch("repro-faults");
    let faults = Fault::all();
    let settings = SelftestSettings::default();
    let chosen = runtime()
        .block_on(cases_judging(faults, settings.cases))
        .expect("a clean run of the reference");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<&[Fault]> = faults.chunks(faults.len().div_ceil(AT_ONCE)).collect();
        let workers: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let (root, chosen) = (&root, &chosen);
                scope.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|fault| replay_fault(*fault, &chosen[fault], root))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} curls do not reproduce:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs the rounds of cases of `fault`'s self-test run, each against a fresh reference with
/// `fault`, until a case meets the fault (as the self-test does); replays each broken rule's
/// first curl of every round run, and returns what did not reproduce.
fn replay_fault(fault: Fault, rounds: &[BTreeSet<String>], root: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for (k, cases) in rounds.iter().enumerate() {
        let dir = root.join(format!("{}-{k}", fault.name()));
        match replay_round(fault, cases, &dir) {
            Ok((met, missed)) => {
                failures.extend(missed);
                if met {
                    break;
                }
            }
            Err(why) => {
                failures.push(format!("{}: {why}", fault.name()));
                break;
            }
        }
    }
    failures
}

/// One round of [`replay_fault`]: whether a case met the fault, and the curls that did not
/// reproduce.
fn replay_round(
    fault: Fault,
    cases: &BTreeSet<String>,
    dir: &Path,
) -> Result<(bool, Vec<String>), String> {
    let rt = runtime();
    let server = rt
        .block_on(start(ReferenceConfig {
            seed: 7,
            faults: FaultSet::only(fault),
            ..ReferenceConfig::default()
        }))
        .expect("the reference starts");
    std::fs::create_dir_all(dir).expect("a directory");
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, server.profile().to_toml()).expect("write the profile");
    let report = judged(&profile, &dir.join("reports"), cases)?;
    let profile = server.profile();
    let mut vars: Vec<(String, String)> = profile
        .secret_vars()
        .into_iter()
        .filter_map(|(named, value)| Some((named.var, value?.expose().to_owned())))
        .collect();
    // The banking token comes from `[banking.oauth]`, fetched as the user would.
    let fetched = profile.banking.as_ref().and_then(|b| b.oauth.as_ref());
    if let Some(token) = fetched.and_then(oauth_token) {
        vars.push(("COVENANT_BANKING_TOKEN".to_owned(), token));
    }
    let mut failures = Vec::new();
    for (rule, curl, status) in printed(&report) {
        // The script on sh's standard input: a curl piping a long body in is longer than one
        // argument may be.
        let script = format!("{curl} -o /dev/null -w '%{{http_code}}'\n");
        let replayed = replay(&script, &vars);
        let got = String::from_utf8_lossy(&replayed.stdout);
        if got.trim() != status.to_string() {
            failures.push(format!(
                "{} [{rule}]: recorded {status}, replayed {got:?} ({}): {curl}",
                fault.name(),
                String::from_utf8_lossy(&replayed.stderr).trim()
            ));
        }
    }
    drop(server);
    Ok((met(&report, fault.rule()), failures))
}

/// Whether a finding of `report` is on `rule`.
fn met(report: &Value, rule: &str) -> bool {
    let cases = report["cases"].as_array().map_or(&[][..], Vec::as_slice);
    cases.iter().any(|case| {
        let findings = case["findings"].as_array().map_or(&[][..], Vec::as_slice);
        findings.iter().any(|f| f["rule"] == rule)
    })
}

/// The report.json of a run against the profile at `profile`, of the cases `cases` (and those
/// whose ids hold one of theirs), at the self-test's seed.
fn judged(profile: &Path, reports: &Path, cases: &BTreeSet<String>) -> Result<Value, String> {
    let mut run = covenant();
    run.args(["run", "--seed", &SEED.to_string(), "--profile"])
        .arg(profile);
    for id in cases {
        run.args(["--filter", id]);
    }
    let output = run
        .arg("--report-dir")
        .arg(reports)
        .output()
        .expect("covenant runs");
    // A fault of a `should` rule warns: its run passes, with nothing broken to replay. A
    // fixture a fault's DELETE refuses is the profile's to a run of a user's target (2, a
    // PROFILE PROBLEM): the self-test finds those against the embedded reference.
    if !matches!(output.status.code(), Some(0..=2)) {
        return Err(format!("the run did not end: {}", says(&output)));
    }
    let text = std::fs::read_to_string(reports.join("report.json")).expect("report.json");
    Ok(serde_json::from_str(&text).expect("JSON"))
}

/// Runs `script` in sh with `vars` exported, as a user pastes a printed curl.
fn replay(script: &str, vars: &[(String, String)]) -> std::process::Output {
    use std::io::Write;
    let mut sh = std::process::Command::new("sh")
        .arg("-s")
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = sh.stdin.take().expect("sh's stdin");
    stdin
        .write_all(script.as_bytes())
        .expect("the script reaches sh");
    drop(stdin);
    sh.wait_with_output().expect("sh ends")
}

/// For each broken rule (a `must` finding), the first curl a report prints for it whose replay
/// leaves the target as the run met it: not a delete, not a create the target accepted.
fn printed(report: &Value) -> Vec<(String, String, u64)> {
    let mut out: Vec<(String, String, u64)> = Vec::new();
    let cases = report["cases"].as_array().map_or(&[][..], Vec::as_slice);
    for case in cases {
        let findings = case["findings"].as_array().map_or(&[][..], Vec::as_slice);
        for finding in findings.iter().filter(|f| f["level"] == "must") {
            let rule = finding["rule"].as_str().unwrap_or_default();
            if out.iter().any(|(r, _, _)| r == rule) {
                continue;
            }
            let Some(index) = finding["exchange"].as_u64() else {
                continue;
            };
            let exchange = &case["exchanges"][index as usize];
            let Some(status) = exchange["response"]["status"].as_u64() else {
                continue;
            };
            let method = exchange["request"]["method"].as_str().unwrap_or_default();
            if method == "DELETE" || (method == "POST" && (200..300).contains(&status)) {
                continue;
            }
            let curl = exchange["request"]["curl"].as_str().unwrap_or_default();
            out.push((rule.to_owned(), curl.to_owned(), status));
        }
    }
    out
}

/// A token of the client-credentials flow, fetched with curl.
fn oauth_token(oauth: &covenant::profile::OAuthProfile) -> Option<String> {
    let secret = oauth.client_secret.as_ref()?.expose().to_owned();
    let mut form = vec![
        "grant_type=client_credentials".to_owned(),
        format!("client_id={}", oauth.client_id),
        format!("client_secret={secret}"),
    ];
    form.extend(oauth.scope.as_ref().map(|s| format!("scope={s}")));
    let mut curl = std::process::Command::new("curl");
    curl.args(["-sS", "-X", "POST", &oauth.token_url]);
    for field in &form {
        curl.args(["--data-urlencode", field]);
    }
    let output = curl.env("NO_PROXY", "127.0.0.1,localhost").output().ok()?;
    let answer: Value = serde_json::from_slice(&output.stdout).ok()?;
    Some(answer["access_token"].as_str()?.to_owned())
}
