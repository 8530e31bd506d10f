//! Profile mistakes are named as such, never read as the target's breaches: a banking
//! organization header the target does not read, and a base URL under which nothing of this API
//! answers, are a PROFILE PROBLEM (exit 2) naming the key; where the preflight cannot tell, a
//! breach the header's name could explain names the key as a possible cause, and where it saw
//! the target read the header, none does; a target that keeps the contract with other choices
//! is not called a profile problem.

use crate::support::covenant;
use crate::support::standin::{
    self, reference, runtime, says, scratch, Choices, Incoming, StandInAnswer,
};
use covenant::reference::{start, FaultSet, ReferenceConfig};
use std::path::Path;
use std::process::Output;

fn run(dir: &Path, profile: &Path) -> Output {
    covenant()
        .args(["run", "--seed", "2", "--profile"])
        .arg(profile)
        .arg("--report-dir")
        .arg(dir.join("reports"))
        .env("COVENANT_STATE", dir.join("state.json"))
        .output()
        .expect("covenant runs")
}

/// The profile at `path` with `edit` made to its TOML text, written beside it as `name`.
fn edited(path: &Path, name: &str, edit: impl Fn(&str) -> String) -> std::path::PathBuf {
    let text = std::fs::read_to_string(path).expect("the profile");
    let out = path.with_file_name(name);
    std::fs::write(&out, edit(&text)).expect("write the profile");
    out
}

#[test]
fn an_organization_header_the_target_does_not_read_is_a_profile_problem_naming_the_key() {
    let rt = runtime();
    let dir = scratch("mistakes-org-header");
    let (_server, profile) = reference(&rt, 4, &dir, "right");
    let wrong = edited(&profile, "wrong.toml", |text| {
        let at = text
            .find("org_header = ")
            .expect("the profile names the header");
        let end = at + text[at..].find('\n').expect("a line");
        format!("{}org_header = \"x-org-id\"{}", &text[..at], &text[end..])
    });
    let output = run(&dir, &wrong);
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("PROFILE PROBLEM"), "{}", says(&output));
    assert!(
        err.contains(
            "banking.org_header: the target does not read the organization from \"x-org-id\""
        ),
        "{}",
        says(&output)
    );
    assert!(!err.contains("BANK-TENANT:"), "{}", says(&output));
}

#[test]
fn a_base_url_under_which_nothing_of_the_api_answers_is_a_profile_problem_naming_it() {
    let rt = runtime();
    let dir = scratch("mistakes-base-url");
    let (server, profile) = reference(&rt, 4, &dir, "right");
    let base = server.base_url();
    let wrong = edited(&profile, "prefixed.toml", |text| {
        text.replace(&format!("\"{base}\""), &format!("\"{base}/api\""))
    });
    let output = run(&dir, &wrong);
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("PROFILE PROBLEM"), "{}", says(&output));
    assert!(
        err.contains(&format!(
            "- base_url: nothing of this API answers under {base}/api"
        )),
        "{}",
        says(&output)
    );
    assert!(
        !err.contains("bank_account_id"),
        "one cause: {}",
        says(&output)
    );
}

#[test]
fn a_tenancy_breach_of_a_target_the_preflight_saw_read_the_header_names_no_profile_key() {
    let rt = runtime();
    let dir = scratch("mistakes-tenant-breach");
    let server = rt
        .block_on(start(ReferenceConfig {
            seed: 4,
            faults: FaultSet::from_names(["bank-tenant-header-ignored"]).expect("a fault"),
            ..ReferenceConfig::default()
        }))
        .expect("the reference starts");
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, server.profile().to_toml()).expect("write the profile");
    // The target reads the header (a malformed value is refused, as the preflight saw): a
    // breach, not a mistake, and nothing puts it down to the header's name.
    let output = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    let report = std::fs::read_to_string(dir.join("reports/report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    let messages: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .flat_map(|c| c["findings"].as_array().into_iter().flatten())
        .filter(|f| f["rule"] == "BANK-TENANT")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(!messages.is_empty(), "{}", says(&output));
    for message in messages {
        assert!(!message.contains("banking.org_header"), "{message}");
    }
}

/// The messages of the findings of `rules` in a run's report.json, with whether the request
/// of each carried the header `name`.
fn header_findings(dir: &Path, rules: &[&str], name: &str) -> Vec<(String, bool)> {
    let report = std::fs::read_to_string(dir.join("reports/report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&report).expect("JSON");
    let mut found = Vec::new();
    for case in report["cases"].as_array().expect("cases") {
        let exchanges = case["exchanges"].as_array().cloned().unwrap_or_default();
        for f in case["findings"].as_array().into_iter().flatten() {
            if !rules.iter().any(|r| f["rule"] == *r) {
                continue;
            }
            let carried = f["exchange"]
                .as_u64()
                .and_then(|i| exchanges.get(i as usize))
                .is_some_and(|e| e["request"]["headers"].to_string().contains(name));
            let message = f["message"].as_str().unwrap_or_default().to_owned();
            found.push((message, carried));
        }
    }
    found
}

#[test]
fn where_the_preflight_cannot_tell_every_failure_the_header_could_cause_names_its_key() {
    let rt = runtime();
    let dir = scratch("mistakes-org-header-untold");
    let (_server, profile) = reference(&rt, 4, &dir, "right");
    // A wrong header name, and an account without transactions: the preflight's reads all get
    // the same empty page, as they would from a target that reads the name and answers a
    // malformed value 200. It cannot tell the two apart.
    let untold = edited(&profile, "untold.toml", |text| {
        let empty = text
            .lines()
            .find_map(|l| l.strip_prefix("empty_bank_account_id = "))
            .expect("an empty account")
            .to_owned();
        text.lines()
            .map(|l| match l {
                l if l.starts_with("org_header = ") => "org_header = \"x-org-id\"".to_owned(),
                l if l.starts_with("bank_account_id = ") => format!("bank_account_id = {empty}"),
                l => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let output = run(&dir, &untold);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("PROFILE PROBLEM"), "{}", says(&output));
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    let rules = [
        "BANK-ORG-HEADER-MALFORMED-400",
        "BANK-TENANT",
        "VC-ORG-SCOPE",
    ];
    let found = header_findings(&dir, &rules, "x-org-id");
    assert!(found.iter().any(|(_, carried)| *carried), "{found:?}");
    for (message, carried) in found {
        assert_eq!(
            message.contains("or the profile's banking.org_header (\"x-org-id\")"),
            carried,
            "{message}"
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("banking.org_header"), "{stdout}");
}

/// Refuses the other organization's reads of transactions with a 404 of the banking error
/// body, where the reference answers otherwise: another refusal the spec leaves open.
fn other_refusal(other: String) -> Choices {
    Choices {
        reply: Box::new(move |seen: &Incoming| -> Option<StandInAnswer> {
            let header = seen.headers.get("x-partner-organization-id")?;
            let foreign = header.to_str().ok()? == other && seen.path.ends_with("/transactions");
            foreign.then(|| {
                let body = serde_json::json!({
                    "detail": "no such bank account", "errorCode": "NOT_FOUND",
                    "instance": seen.path, "status": 404, "title": "Not Found",
                    "type": "about:blank"
                });
                (404, body.to_string().into_bytes())
            })
        }),
        ..Choices::default()
    }
}

#[test]
fn a_target_refusing_the_other_organization_otherwise_is_no_profile_problem() {
    let rt = runtime();
    let dir = scratch("mistakes-other-choice");
    let (probe, _) = reference(&rt, 4, &dir, "probe");
    let other = probe
        .profile()
        .banking
        .as_ref()
        .and_then(|b| b.other_organization_id.clone())
        .expect("another organization");
    let (_server, profile) = standin::stand_in(&rt, 4, &dir, "stand-in", other_refusal(other));
    let output = run(&dir, &profile);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("PROFILE PROBLEM"),
        "{}",
        says(&output)
    );
}
