//! Three implementations' records through every output of the matrix: the console's lines,
//! `matrix.md`, `matrix.html` and `matrix.json` must name the same implementations with the
//! same verdicts, give each the same count of rules passed, failed, warned, skipped and
//! inconclusive, and list the same rules as broken and the same silent places as chosen
//! differently. An output that decided anything of its own would disagree here.
//!
//! The records go the whole way: each is written as its report.json by the run's own JSON
//! format, read back as the matrix reads any report, then built into one view.

use super::view::MatrixView;
use super::{build, console, html, json, md, read_all, RuleOutcome, SilentChoice};
use crate::catalogue::{Catalogue, Level};
use crate::report::{Json, Reporter, RunView, Subject};
use crate::verdict::{CaseResult, Evidence, Finding, Inconclusive, RunRecord, Verdict};
use std::path::PathBuf;

const MUST: &str = "GEN-IDS-UUID";
const SHOULD: &str = "GEN-JSON-CONTENT-TYPE";
const OTHER: &str = "GEN-JSON-BODY";
const NAMES: [&str; 3] = ["alpha", "beta", "gamma"];

/// A case that judged `judged` and broke `findings`.
fn case(id: &str, verdict: Verdict, judged: &[&str], findings: &[(&str, Level)]) -> CaseResult {
    let mut case: CaseResult = serde_json::from_value(serde_json::json!({
        "id": id, "suite": "agree", "rules": [], "verdict": verdict, "findings": [],
        "exchanges": [], "requests": 1, "duration_ms": 1.0
    }))
    .expect("a case");
    case.rules = judged.iter().map(|r| (*r).to_owned()).collect();
    if matches!(verdict, Verdict::Pass | Verdict::Warn | Verdict::Fail) {
        case.evidence = judged
            .iter()
            .map(|rule| Evidence {
                rule: (*rule).to_owned(),
                responses: 1,
            })
            .collect();
    }
    case.findings = findings
        .iter()
        .map(|(rule, level)| Finding::new(rule, *level, format!("{rule} broken")))
        .collect();
    case
}

/// alpha keeps every rule it judged and skips one; beta breaks the must rule the others keep;
/// gamma warns on the should rule, stopped early, and could not judge the third.
fn records() -> Vec<RunRecord> {
    let mut skipped = case("alpha.other", Verdict::Skip, &[OTHER], &[]);
    skipped.skip_reason = Some("the profile has no card_id fixture".to_owned());
    let alpha = vec![
        case("alpha.ids", Verdict::Pass, &[MUST, SHOULD], &[]),
        skipped,
    ];
    let beta = vec![
        case("beta.ids", Verdict::Fail, &[MUST], &[(MUST, Level::Must)]),
        case("beta.rest", Verdict::Pass, &[SHOULD, OTHER], &[]),
    ];
    let mut blocked = case("gamma.other", Verdict::Inconclusive, &[OTHER], &[]);
    blocked.inconclusive = vec![Inconclusive {
        rule: OTHER.to_owned(),
        baseline: "the minimal quote body".to_owned(),
        answer: "404: counterpart not found".to_owned(),
        count: 1,
        variants: vec!["a".to_owned()],
        exchange: None,
    }];
    let gamma = vec![
        case(
            "gamma.ids",
            Verdict::Warn,
            &[MUST, SHOULD],
            &[(SHOULD, Level::Should)],
        ),
        blocked,
    ];
    [alpha, beta, gamma]
        .into_iter()
        .enumerate()
        .map(|(i, cases)| {
            let mut record = RunRecord::of_cases(cases);
            record.meta.target = format!("http://127.0.0.1:{}/", 8000 + i);
            if i == 2 {
                record.meta.interrupted =
                    Some("the request budget (--max-requests 2) was reached".to_owned());
            }
            record.settle();
            record
        })
        .collect()
}

/// A place where the spec is silent, as a report says it.
fn seen(operation: &str, value: &str) -> SilentChoice {
    SilentChoice {
        gap: "GAP-SUCCESS-STATUS".to_owned(),
        subject: Subject {
            operation: Some(operation.to_owned()),
            kind: None,
            condition: None,
        },
        what: "success status".to_owned(),
        value: value.to_owned(),
    }
}

/// Each implementation's result on each rule, as an output shows it: `(name, rule, result)`.
type Results = Vec<(String, String, String)>;

/// The results matrix.md shows: every rule row of its tables (three columns, one each).
fn md_results(md: &str) -> Results {
    let mut results = Vec::new();
    for line in md.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        let rule = cells[0].trim().trim_start_matches('`');
        let rule = rule.split('`').next().unwrap_or(rule);
        if cells.len() != 4 || rule.starts_with("GAP-") {
            continue;
        }
        for (name, cell) in NAMES.iter().zip(&cells[1..]) {
            let word = cell.trim().trim_start_matches("**");
            let word = word.split("**").next().unwrap_or(word).trim();
            results.push((name.to_string(), rule.to_owned(), word.to_owned()));
        }
    }
    results
}

/// The results matrix.html shows: each rule row's cells, in column order.
fn html_results(html: &str) -> Results {
    let mut results = Vec::new();
    for row in html.split("<tr class=\"rule\" id=\"rule-").skip(1) {
        let rule = row.split('"').next().expect("the rule's id");
        let row = row.split("</tr>").next().expect("the row's end");
        let cells = row.split("data-rank=").skip(1);
        for (name, cell) in NAMES.iter().zip(cells) {
            let mut text = &cell[cell.find('>').expect("the cell's text") + 1..];
            if text.starts_with("<a ") {
                text = &text[text.find('>').expect("the link's text") + 1..];
            }
            let word = text.split('<').next().unwrap_or("");
            results.push((name.to_string(), rule.to_owned(), word.to_owned()));
        }
    }
    results
}

/// The results matrix.json holds.
fn json_results(json: &serde_json::Value) -> Results {
    let mut results = Vec::new();
    for rule in json["rules"].as_array().expect("the rules") {
        for name in NAMES {
            results.push((
                name.to_owned(),
                rule["id"].as_str().expect("an id").to_owned(),
                rule["results"][name]["result"]
                    .as_str()
                    .expect("a result")
                    .to_owned(),
            ));
        }
    }
    results
}

/// How many rules had `result` in `name`'s column.
fn count(results: &Results, name: &str, result: RuleOutcome) -> usize {
    results
        .iter()
        .filter(|(n, _, r)| n == name && r == result.as_str())
        .count()
}

/// The rules some implementation fails or warns on, in the catalogue's order.
fn broken(results: &Results, catalogue: &Catalogue) -> Vec<String> {
    catalogue
        .rules
        .iter()
        .map(|r| r.id.clone())
        .filter(|id| {
            results
                .iter()
                .any(|(_, rule, r)| rule == id && (r == "fail" || r == "warn"))
        })
        .collect()
}

#[test]
fn three_implementations_read_the_same_in_every_matrix_output() {
    let catalogue = Catalogue::embedded();
    let dir = std::env::temp_dir().join(format!("covenant-matrix-agree-{}", std::process::id()));
    let mut inputs: Vec<(Option<String>, PathBuf)> = Vec::new();
    for (name, record) in NAMES.iter().zip(records()) {
        let report = Json
            .render(&RunView::new(&record, catalogue))
            .expect("report.json");
        let path = dir.join(name).join("report.json");
        std::fs::create_dir_all(path.parent().expect("its folder")).expect("a folder");
        std::fs::write(&path, report).expect("report.json written");
        inputs.push((Some(name.to_string()), path));
    }
    let mut runs = read_all(&inputs).expect("the reports read");
    runs[0].seen = vec![seen("create-vat-id", "201"), seen("create-card", "201")];
    runs[1].seen = vec![seen("create-vat-id", "200"), seen("create-card", "201")];
    runs[2].seen = vec![seen("create-vat-id", "201")];
    let matrix = build(&runs, catalogue, &dir.join("matrix"));
    let view = MatrixView::new(&matrix);
    let console = console::summary(&view);
    let md = md::render(&view);
    let html = html::render(&view);
    let json: serde_json::Value =
        serde_json::from_str(&json::render(&view)).expect("matrix.json is JSON");
    let _ = std::fs::remove_dir_all(&dir);

    // The implementations, in order, with their verdicts.
    let verdicts = ["pass", "fail", "incomplete"];
    let names: Vec<&str> = view
        .columns
        .iter()
        .map(|c| c.implementation.name.as_str())
        .collect();
    assert_eq!(names, NAMES);
    for (at, (name, verdict)) in NAMES.iter().zip(verdicts).enumerate() {
        assert_eq!(view.columns[at].verdict, verdict, "{name}");
        assert_eq!(json["implementations"][at]["name"], *name);
        assert_eq!(json["implementations"][at]["verdict"], verdict);
        let i = view.columns[at].implementation;
        let counts = format!(
            "| {} | {} | {} |",
            i.must_kept, i.must_broken, i.should_warned
        );
        assert!(
            md.contains(&format!("| **{name}** | {verdict} {counts}")),
            "{name} in md:\n{md}"
        );
        assert!(
            html.contains(&format!(
                "<tr><th>{name}</th><td>{verdict}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                i.must_kept, i.must_broken, i.should_warned
            )),
            "{name} in html:\n{html}"
        );
        assert!(
            console.contains(&format!(
                "{name}: {verdict}, {} must rules kept, {} broken",
                i.must_kept, i.must_broken
            )),
            "{console}"
        );
        for key in ["must_kept", "must_broken", "should_warned"] {
            let value = json["implementations"][at][key].as_u64();
            let shown = match key {
                "must_kept" => i.must_kept,
                "must_broken" => i.must_broken,
                _ => i.should_warned,
            };
            assert_eq!(value, Some(shown as u64), "{name}'s {key}");
        }
    }
    let md_order: Vec<usize> = NAMES
        .iter()
        .map(|n| md.find(&format!("| **{n}** |")).expect("a row"))
        .collect();
    assert!(md_order.windows(2).all(|w| w[0] < w[1]), "md's order");

    // Each implementation's count of rules per result, the same in the view and every file.
    let expected: [[usize; 5]; 3] = [[2, 0, 0, 1, 0], [2, 1, 0, 0, 0], [1, 0, 1, 0, 1]];
    let outcomes = [
        RuleOutcome::Pass,
        RuleOutcome::Fail,
        RuleOutcome::Warn,
        RuleOutcome::Skipped,
        RuleOutcome::Inconclusive,
    ];
    let (md, html_rows, json_rows) = (md_results(&md), html_results(&html), json_results(&json));
    assert_eq!(
        html_rows.len(),
        3 * catalogue.rules.len(),
        "every rule in html"
    );
    assert_eq!(
        json_rows.len(),
        3 * catalogue.rules.len(),
        "every rule in json"
    );
    assert_eq!(md.len(), 3 * catalogue.rules.len(), "every rule in md");
    for (at, name) in NAMES.iter().enumerate() {
        for (result, n) in outcomes.iter().zip(expected[at]) {
            assert_eq!(view.columns[at].count(*result), n, "{name}: {result:?}");
            for (format, rows) in [("md", &md), ("html", &html_rows), ("json", &json_rows)] {
                assert_eq!(
                    count(rows, name, *result),
                    n,
                    "{format}, {name}: {result:?}"
                );
            }
        }
        let not_run = view.columns[at].count(RuleOutcome::NotRun);
        assert_eq!(
            count(&json_rows, name, RuleOutcome::NotRun),
            not_run,
            "{name}"
        );
    }
    // Each rule's result alike (matrix.md lists the broken rules first, matrix.html by area).
    let sorted = |rows: &Results| {
        let mut rows = rows.clone();
        rows.sort();
        rows
    };
    assert!(sorted(&md) == sorted(&json_rows), "md and json differ");
    assert!(
        sorted(&html_rows) == sorted(&json_rows),
        "html and json differ"
    );

    // The rules some implementation broke, and the places where they chose differently.
    let rules: Vec<&str> = view
        .rows_at(&view.broken)
        .map(|r| r.rule.id.as_str())
        .collect();
    let mut expected: Vec<&str> = vec![MUST, SHOULD];
    expected.sort_by_key(|id| catalogue.rules.iter().position(|r| r.id == *id));
    assert_eq!(rules, expected);
    for (format, rows) in [("md", &md), ("html", &html_rows), ("json", &json_rows)] {
        assert_eq!(broken(rows, catalogue), expected, "{format}");
    }
    let md_text = md::render(&view);
    let section = md_text
        .split("### Rules broken by any implementation (2)")
        .nth(1)
        .and_then(|s| s.split("###").next())
        .expect("md's broken rules");
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    assert_eq!(listed, expected, "md lists the broken rules first");
    assert!(
        console.contains("rules broken by some implementation: 2;"),
        "{console}"
    );

    let differ: Vec<&str> = view
        .choices_at(&view.differ)
        .map(|c| c.subject.as_str())
        .collect();
    assert_eq!(differ, ["create-vat-id: success status"]);
    assert!(console.ends_with("chose differently: 1\n"), "{console}");
    assert!(
        md_text.contains(
            "they chose differently (1)\n\n| where the spec is silent | alpha | beta | gamma |\n|---|---|---|---|\n| `GAP-SUCCESS-STATUS` create-vat-id: success status | 201 | 200 | 201 |"
        ),
        "{md_text}"
    );
    assert!(md_text.contains("alike (1)"), "{md_text}");
    assert!(
        html.contains("(2 places, 1 where they chose differently)"),
        "{html}"
    );
    assert_eq!(html.matches("<tr class=\"differ\">").count(), 1);
    let in_json: Vec<(&str, u64)> = json["choices"]
        .as_array()
        .expect("the choices")
        .iter()
        .map(|c| {
            (
                c["operation"].as_str().unwrap_or(""),
                c["distinct"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(in_json, [("create-vat-id", 2), ("create-card", 1)]);
}
