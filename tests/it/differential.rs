//! Differential runs through the real binary: one seeded plan against two targets at once, each
//! judged on its own, and the behaviour diff of the two; `covenant compare` of their saved
//! reports.
//!
//! The targets are embedded references started through the library, and a stand-in: a proxy in
//! front of a reference of its own that keeps the contract with other choices where the spec is
//! silent. It answers a VAT ID create 200 instead of 201, both deletes 200 with a JSON body
//! instead of 204 without one, VAT ID and comment responses with a field the spec does not list,
//! and transaction pages one item short of the limit (24 by default), with a next token.

use crate::support::standin;

use serde_json::Value;
use standin::{reference, runtime, says, Choices, Incoming};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The field the stand-in adds to VAT ID and comment responses.
const EXTRA: &str = "vendor_note";

fn scratch(name: &str) -> PathBuf {
    standin::scratch(&format!("differential-{name}"))
}

/// The stand-in in front of a reference of its own, and its profile.
fn stand_in(
    rt: &tokio::runtime::Runtime,
    seed: u64,
    dir: &Path,
) -> (covenant::reference::RunningReference, PathBuf) {
    let choices = Choices {
        query: Box::new(|seen: &Incoming| short_pages(seen.method, seen.path, seen.query)),
        answer: Box::new(|seen: &Incoming, (status, body)| {
            choose(seen.method, seen.path, status, body)
        }),
        ..Choices::default()
    };
    standin::stand_in(rt, seed, dir, "stand-in", choices)
}

/// Transaction pages one item short: `limit` L (2 to 100) asked of the reference as L - 1, and
/// no limit as 24, so that every page but the last is short and carries a next token.
fn short_pages(method: &axum::http::Method, path: &str, query: Option<&str>) -> Option<String> {
    let transactions =
        path.starts_with("/embedded-banking/v1/bank-accounts/") && path.ends_with("/transactions");
    if method != axum::http::Method::GET || !transactions {
        return query.map(str::to_owned);
    }
    let mut pairs: Vec<(String, String)> =
        url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    match pairs.iter_mut().find(|(name, _)| name == "limit") {
        Some((_, value)) => {
            if let Ok(limit @ 2..=100) = value.parse::<u32>() {
                *value = (limit - 1).to_string();
            }
        }
        None => pairs.push(("limit".to_owned(), "24".to_owned())),
    }
    Some(
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish(),
    )
}

/// The stand-in's answer where the spec leaves the choice open.
fn choose(method: &axum::http::Method, path: &str, status: u16, body: Vec<u8>) -> (u16, Vec<u8>) {
    use axum::http::Method;
    let vat = path.contains("/vat-ids");
    let comment = path.starts_with("/finops/v1/comments/");
    match (method, status) {
        (&Method::DELETE, 204) => (200, br#"{"deleted":true}"#.to_vec()),
        (&Method::POST, 201) if vat => (200, with_extra(&body)),
        (&Method::GET, 200) if vat => (200, with_extra(&body)),
        (&Method::PATCH, 200) if comment => (200, with_extra(&body)),
        _ => (status, body),
    }
}

fn with_extra(body: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(mut object)) => {
            object.insert(EXTRA.to_owned(), Value::from("kept by the stand-in"));
            serde_json::to_vec(&object).expect("JSON")
        }
        _ => body.to_vec(),
    }
}

fn covenant(args: &[&str]) -> Output {
    crate::support::covenant()
        .args(args)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .output()
        .expect("covenant runs")
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `covenant run --profile A --profile B` into `dir/reports`, with a state file of its own.
fn differential(dir: &Path, a: &Path, b: &Path, extra: &[&str]) -> Output {
    let (reports, state) = (dir.join("reports"), dir.join("state.json"));
    let mut args = vec![
        "run",
        "-q",
        "--seed",
        "3",
        "--cases",
        "5",
        "--profile",
        utf8(a),
        "--profile",
        utf8(b),
        "--report-dir",
        utf8(&reports),
        "--state",
        utf8(&state),
    ];
    args.extend_from_slice(extra);
    covenant(&args)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

/// The differences of diff.json about one operation and aspect, as (case, a, b).
fn differences(diff: &Value, operation: &str, aspect: &str) -> Vec<(String, String, String)> {
    diff["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .filter(|d| d["operation"] == operation && d["aspect"] == aspect)
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
            (s("case"), s("a"), s("b"))
        })
        .collect()
}

/// The values a report's spec owners' section shows for one gap, operation and what.
fn observed(report: &Value, gap: &str, operation: &str, what: &str) -> Vec<String> {
    report["silent"][gap]["observations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| o["operation"] == operation && o["what"] == what)
        .map(|o| o["value"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_reference_against_itself_differs_in_nothing() {
    let dir = scratch("itself");
    let rt = runtime();
    let (_a, a) = reference(&rt, 1, &dir, "a");
    let (_b, b) = reference(&rt, 2, &dir, "b");
    let output = differential(&dir, &a, &b, &["--fail-on-difference"]);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let reports = dir.join("reports");
    for side in ["a", "b"] {
        let report = read_json(&reports.join(side).join("report.json"));
        assert_eq!(report["verdict"], "pass", "{side}: {}", says(&output));
    }
    let diff = read_json(&reports.join("diff.json"));
    assert_eq!(diff["differences"], Value::Array(Vec::new()), "{diff:#}");
    assert_eq!(diff["gaps"], Value::Array(Vec::new()), "{diff:#}");
    assert_eq!(diff["not_compared"], Value::Array(Vec::new()), "{diff:#}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("no difference in behaviour"), "{stdout}");
    assert!(std::fs::read_to_string(reports.join("diff.md"))
        .expect("diff.md")
        .contains("no difference in behaviour"));
}

#[test]
fn a_stand_in_with_other_choices_passes_and_the_diff_lists_each_choice() {
    let dir = scratch("stand-in");
    let rt = runtime();
    let (_a, a) = reference(&rt, 1, &dir, "a");
    let (_b, b) = stand_in(&rt, 2, &dir);
    let output = differential(&dir, &a, &b, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let reports = dir.join("reports");
    let (report_a, report_b) = (
        read_json(&reports.join("a/report.json")),
        read_json(&reports.join("b/report.json")),
    );
    assert_eq!(report_a["verdict"], "pass", "{}", says(&output));
    assert_eq!(report_b["verdict"], "pass", "{}", says(&output));

    let diff = read_json(&reports.join("diff.json"));
    let status = differences(&diff, "create-vat-id", "status");
    assert!(
        status.iter().any(|(_, a, b)| a == "201" && b == "200"),
        "{status:?}"
    );
    for delete in ["delete-tag", "delete-bank-account"] {
        let body = differences(&diff, delete, "body");
        assert!(
            body.iter().any(|(_, a, b)| a == "empty" && b == "object"),
            "{delete}: {body:?}"
        );
        let status = differences(&diff, delete, "status");
        assert!(
            status.iter().any(|(_, a, b)| a == "204" && b == "200"),
            "{status:?}"
        );
    }
    for operation in ["create-vat-id", "get-vat-id", "update-comment"] {
        let fields = differences(&diff, operation, "fields");
        assert!(
            fields
                .iter()
                .any(|(_, a, b)| a == "no other field" && b == "also vendor_note (string)"),
            "{operation}: {fields:?}"
        );
    }
    let pages = differences(&diff, "list-transactions", "page-sizes");
    assert!(
        pages
            .iter()
            .any(|(_, a, b)| a.contains("full 25") && b.contains("short 24")),
        "{pages:?}"
    );
    // Ordered by operation, as operations.json lists them.
    let order: Vec<&str> = diff["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["operation"].as_str().unwrap())
        .collect();
    let rank = |op: &str| {
        covenant::schema::operations()
            .iter()
            .position(|o| o.id.as_str() == op)
            .unwrap()
    };
    assert!(
        order.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{order:?}"
    );
    // Values are never compared: no generated id, timestamp or token is a difference.
    assert!(!diff.to_string().contains("kept by the stand-in"));

    // The spec owners' section of each target says what it chose, per gap.
    let choices = [
        (
            "GAP-SUCCESS-STATUS",
            "create-vat-id",
            "success status",
            "201",
            "200",
        ),
        (
            "GAP-DELETE-BODY",
            "delete-tag",
            "body on success",
            "empty",
            "object: deleted (boolean)",
        ),
        (
            "GAP-EXTRA-FIELDS",
            "create-vat-id",
            "fields beyond the listed ones",
            "none",
            "vendor_note (string)",
        ),
        (
            "GAP-EXTRA-FIELDS",
            "update-comment",
            "fields beyond the listed ones",
            "none",
            "vendor_note (string)",
        ),
        (
            "GAP-PAGE-SIZES",
            "list-transactions",
            "limit 25",
            "full pages",
            "short pages with a next token",
        ),
    ];
    for (gap, operation, what, a, b) in choices {
        assert_eq!(
            observed(&report_a, gap, operation, what),
            [a],
            "A: {gap} {operation}"
        );
        assert!(
            observed(&report_b, gap, operation, what).contains(&b.to_owned()),
            "B: {gap} {operation}: {:?}",
            observed(&report_b, gap, operation, what)
        );
        let listed = diff["gaps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["gap"] == gap && g["operation"] == operation && g["what"] == what);
        assert!(listed, "the diff's gaps miss {gap} {operation} {what}");
    }
    let summary = std::fs::read_to_string(reports.join("b/summary.md")).expect("summary.md");
    let section = summary
        .split_once("What this target chose where the spec is silent")
        .map(|(_, rest)| rest)
        .expect("the spec owners' section");
    for needle in [
        "GAP-SUCCESS-STATUS",
        "GAP-DELETE-BODY",
        "vendor_note",
        "short pages",
    ] {
        assert!(
            section.contains(needle),
            "summary.md lacks {needle}:\n{section}"
        );
    }
    let html = std::fs::read_to_string(reports.join("b/summary.html")).expect("summary.html");
    assert!(
        html.contains("id=\"silent-GAP-DELETE-BODY\""),
        "summary.html"
    );
    let diff_md = std::fs::read_to_string(reports.join("diff.md")).expect("diff.md");
    for needle in [
        "### `create-vat-id`",
        "### `delete-tag`",
        "### `list-transactions`",
    ] {
        assert!(
            diff_md.contains(needle),
            "diff.md lacks {needle}:\n{diff_md}"
        );
    }

    // A report kept per target and compared later gives the same diff. The two listen on one
    // host, on two ports: taken for two targets as asked.
    let compared = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&reports.join("b/report.json")),
        "--as-targets",
    ]);
    assert_eq!(compared.status.code(), Some(0), "{}", says(&compared));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let headline = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("behaviour diff"))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let from_compare = String::from_utf8_lossy(&compared.stdout).into_owned();
    assert!(!headline(&stdout).is_empty(), "{stdout}");
    assert_eq!(headline(&from_compare), headline(&stdout));
    let failing = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&reports.join("b/report.json")),
        "--fail-on-difference",
    ]);
    assert_eq!(failing.status.code(), Some(6), "{}", says(&failing));

    // Reports of two targets run with other seeds are not compared for their behaviour.
    let mut reseeded = report_b.clone();
    reseeded["meta"]["seed"] = Value::from(4);
    let other_seed = dir.join("b-seed-4.json");
    std::fs::write(&other_seed, reseeded.to_string()).expect("write the report");
    let compared = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&other_seed),
        "--fail-on-difference",
        "--as-targets",
    ]);
    let stdout = String::from_utf8_lossy(&compared.stdout);
    assert_eq!(compared.status.code(), Some(0), "{}", says(&compared));
    assert!(headline(&stdout).is_empty(), "{stdout}");
    assert!(stdout.contains("run both with the same --seed"), "{stdout}");

    // One target before and after an upgrade that changed its choices (the stand-in's report,
    // named as the reference's target): what changed in verdicts, then the behaviour diff.
    let mut upgraded = report_b.clone();
    upgraded["meta"]["target"] = report_a["meta"]["target"].clone();
    let after = dir.join("upgraded.json");
    std::fs::write(&after, upgraded.to_string()).expect("write the report");
    let upgrade_dir = dir.join("upgrade");
    let compared = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&after),
        "--report-dir",
        utf8(&upgrade_dir),
    ]);
    let stdout = String::from_utf8_lossy(&compared.stdout);
    assert_eq!(compared.status.code(), Some(0), "{}", says(&compared));
    let behaviour = headline(&stdout);
    assert!(
        behaviour.contains("(old: ") && behaviour.contains("(new: "),
        "{stdout}"
    );
    assert!(stdout.contains("create-vat-id"), "{stdout}");
    for file in [
        "compare.json",
        "compare.md",
        "diff.json",
        "diff.md",
        "diff.html",
    ] {
        assert!(upgrade_dir.join(file).is_file(), "{file} not written");
    }
    let failing = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&after),
        "--fail-on-difference",
    ]);
    assert_eq!(failing.status.code(), Some(6), "{}", says(&failing));
    // The same report twice: no difference, and no failing exit.
    let same = covenant(&[
        "compare",
        utf8(&reports.join("a/report.json")),
        utf8(&reports.join("a/report.json")),
        "--fail-on-difference",
    ]);
    let stdout = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.status.code(), Some(0), "{}", says(&same));
    assert!(
        headline(&stdout).ends_with("no difference in behaviour"),
        "{stdout}"
    );
}

#[test]
fn fail_on_difference_turns_a_difference_into_a_failing_exit() {
    let dir = scratch("fail-on-difference");
    let rt = runtime();
    let (_a, a) = reference(&rt, 1, &dir, "a");
    let (_b, b) = stand_in(&rt, 2, &dir);
    let output = differential(&dir, &a, &b, &["--fail-on-difference"]);
    assert_eq!(output.status.code(), Some(6), "{}", says(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("covenant: PASS.").count(), 2, "{stdout}");
}

#[test]
fn two_profiles_of_one_target_are_refused_before_any_case() {
    let dir = scratch("one-target");
    let rt = runtime();
    let (_a, a) = reference(&rt, 1, &dir, "a");
    let output = differential(&dir, &a, &a, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
    assert!(
        says(&output).contains("both profiles name the target"),
        "{}",
        says(&output)
    );
    let output = covenant(&["run", "--fail-on-difference"]);
    assert_eq!(output.status.code(), Some(2), "{}", says(&output));
}

#[test]
fn the_second_targets_broken_rules_are_printed_and_each_fact_of_the_diff_once() {
    let dir = scratch("faulty-b");
    let rt = runtime();
    let (_a, a) = reference(&rt, 1, &dir, "a");
    let faults =
        covenant::reference::FaultSet::from_names(&["rcv-create-200".to_owned()]).expect("a fault");
    let b_server = rt
        .block_on(covenant::reference::start(
            covenant::reference::ReferenceConfig {
                seed: 2,
                faults,
                ..Default::default()
            },
        ))
        .expect("the faulty reference starts");
    let b = dir.join("b.toml");
    std::fs::write(&b, b_server.profile().to_toml()).expect("write the profile");
    let output = differential(&dir, &a, &b, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let b_part = stdout
        .split_once("\nB: ")
        .map(|(_, rest)| rest)
        .expect("B's summary");
    for needle in [
        "[RCV-CREATE-201] (must)",
        "200 where the spec states 201",
        "request:  curl",
        "+200",
    ] {
        assert!(
            b_part.contains(needle),
            "B's summary lacks {needle}:\n{stdout}"
        );
    }
    let diff = b_part
        .split_once("behaviour diff")
        .map(|(_, rest)| rest)
        .expect("the diff");
    // One fact: a receivable of every kind answered 200 where A answered 201, said once.
    assert_eq!(diff.matches("A 201; B 200").count(), 1, "{diff}");
    assert!(
        diff.contains("status (quote, invoice, credit_note): A 201; B 200"),
        "{diff}"
    );
    assert!(!diff.contains("no answer"), "{diff}");
    assert!(stdout.lines().count() < 260, "{stdout}");
}
