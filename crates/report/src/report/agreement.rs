//! One record through every format: the console summary, `junit.xml`, `report.json`,
//! `summary.html`, `summary.md` and the GitHub annotations must say the same counts, the same
//! verdict, the same broken rules and the same skipped reasons, with and without `--strict`.
//! A format that decided anything of its own would disagree here.

use super::view::RunView;
use super::{console, github, Html, Json, Junit, Markdown, Reporter};
use crate::catalogue::{Catalogue, Level};
use crate::verdict::{CaseResult, Finding, Inconclusive, RunRecord, RunVerdict, Verdict};

const MUST: &str = "GEN-IDS-UUID";
const SHOULD: &str = "GEN-JSON-CONTENT-TYPE";
const KNOWN: &str = "GEN-JSON-BODY";
const SKIPPED: &str = "the profile has no card_id fixture";

fn case(id: &str, verdict: Verdict, findings: &[(&str, Level)]) -> CaseResult {
    let mut case: CaseResult = serde_json::from_value(serde_json::json!({
        "id": id, "suite": "agree", "rules": [], "verdict": verdict, "findings": [],
        "exchanges": [], "requests": 1, "duration_ms": 1.0
    }))
    .expect("a case");
    case.findings = findings
        .iter()
        .map(|(rule, level)| Finding::new(rule, *level, format!("{rule} broken")))
        .collect();
    case
}

/// A pass, a failure, a warning, a known failure, a skip, an error and an inconclusive case,
/// settled as a run ends.
fn record(strict: bool) -> RunRecord {
    let mut known = case("agree.known", Verdict::Known, &[(KNOWN, Level::Must)]);
    known.findings[0].known = Some("tracked in the tracker".to_owned());
    let mut skipped = case("agree.skipped", Verdict::Skip, &[]);
    skipped.skip_reason = Some(SKIPPED.to_owned());
    let mut error = case("agree.error", Verdict::Error, &[]);
    error.error = Some("the target closed the connection".to_owned());
    let mut inconclusive = case("agree.inconclusive", Verdict::Inconclusive, &[]);
    inconclusive.inconclusive = vec![Inconclusive {
        rule: MUST.to_owned(),
        baseline: "the minimal quote body".to_owned(),
        answer: "404: counterpart not found".to_owned(),
        count: 2,
        variants: vec!["a".to_owned(), "b".to_owned()],
        exchange: None,
    }];
    let mut run = RunRecord::of_cases(vec![
        case("agree.pass", Verdict::Pass, &[]),
        case("agree.fail", Verdict::Fail, &[(MUST, Level::Must)]),
        case("agree.warn", Verdict::Warn, &[(SHOULD, Level::Should)]),
        known,
        skipped,
        error,
        inconclusive,
    ]);
    run.meta.strict = strict;
    run.settle();
    run
}

/// The value of `name="…"` in the first tag of `xml` that starts with `tag`.
fn attribute(xml: &str, tag: &str, name: &str) -> usize {
    let start = xml.find(tag).expect("the tag");
    let head = &xml[start..start + xml[start..].find('>').expect("its end")];
    let at = head.find(&format!(" {name}=\"")).expect("the attribute") + name.len() + 3;
    head[at..at + head[at..].find('"').expect("its end")]
        .parse()
        .expect("a number")
}

#[test]
fn one_record_reads_the_same_in_every_format_with_and_without_strict() {
    let catalogue = Catalogue::embedded();
    for strict in [false, true] {
        let run = record(strict);
        let view = RunView::new(&run, catalogue);
        let c = &run.counts;
        let (fail, warn) = if strict { (2, 0) } else { (1, 1) };
        assert_eq!((c.fail, c.warn, c.warnings_failed), (fail, warn, fail - 1));
        assert_eq!(view.verdict, RunVerdict::Fail);
        let console = console::summary(&view);
        let md = Markdown.render(&view).expect("summary.md");
        let html = Html.render(&view).expect("summary.html");
        let xml = Junit.render(&view).expect("junit.xml");
        let json: serde_json::Value =
            serde_json::from_str(&Json.render(&view).expect("report.json")).expect("JSON");
        let annotations = github::annotations(&view, &[]);
        let said = |name: &str, text: &str| format!("strict {strict}, {name}:\n{text}");

        // The counts: the sentence in the summaries (its first part set apart where a format
        // stresses it), the numbers in JUnit and report.json.
        let sentence = view.tally.parts.join(", ");
        let rest = view.tally.parts[1..].join(", ");
        for (name, text) in [("console", &console), ("md", &md)] {
            assert!(text.contains(&view.tally.parts[0]), "{}", said(name, text));
            assert!(text.contains(&rest), "{}", said(name, text));
        }
        // summary.html says them in its counts table: cases, pass, warn, fail, error, skip,
        // inconclusive, known, requests.
        let table = &html[html
            .find("<table id=\"counts\">")
            .expect("the counts table")..];
        let row = &table[table.find("<td").expect("the row")..table.find("</table>").expect("end")];
        let numbers: Vec<usize> = row
            .split("<td class=\"num\">")
            .skip(1)
            .filter_map(|cell| cell.split('<').next()?.parse().ok())
            .collect();
        assert_eq!(
            numbers,
            [7, 1, warn, fail, 1, 1, 1, 1, 7],
            "{}",
            said("html", row)
        );
        let expected_sentence = match strict {
            false => "1 failed, 1 error, 1 warning, 1 passed, 1 skipped, 1 inconclusive, 1 known",
            true => {
                "2 failed (1 of them warnings under --strict), 1 error, 1 passed, 1 skipped, \
                 1 inconclusive, 1 known"
            }
        };
        assert_eq!(sentence, expected_sentence);
        assert_eq!(attribute(&xml, "<testsuites", "tests"), 7, "{xml}");
        assert_eq!(attribute(&xml, "<testsuites", "failures"), fail, "{xml}");
        assert_eq!(attribute(&xml, "<testsuites", "errors"), 1, "{xml}");
        let counts = &json["counts"];
        assert_eq!(counts["fail"], fail, "{counts}");
        assert_eq!(counts["warn"], warn, "{counts}");
        assert_eq!(counts["error"], 1, "{counts}");
        assert_eq!(counts["skip"], 1, "{counts}");
        assert_eq!(counts["inconclusive"], 1, "{counts}");
        assert_eq!(counts["known"], 1, "{counts}");

        // The verdict.
        assert_eq!(json["verdict"], "fail");
        for (name, text) in [("console", &console), ("md", &md), ("html", &html)] {
            assert!(text.contains("FAILED"), "{}", said(name, text));
        }

        // The broken rules: the must rule, the should rule under --strict, the known one apart.
        let broken: Vec<&str> = view
            .broken
            .iter()
            .filter(|b| b.known.is_none())
            .map(|b| b.rule.as_str())
            .collect();
        let expected: &[&str] = if strict { &[MUST, SHOULD] } else { &[MUST] };
        assert_eq!(broken, expected);
        for rule in expected {
            for (name, text) in [("console", &console), ("md", &md), ("html", &html)] {
                assert!(text.contains(rule), "{rule}: {}", said(name, text));
            }
            let error = format!("::error title={rule} (");
            assert!(
                annotations.contains(&error),
                "{}",
                said("github", &annotations)
            );
            assert!(
                xml.contains(&format!("type=\"{rule}\"")),
                "{}",
                said("junit", &xml)
            );
        }
        let mut json_failing: Vec<&str> = json["coverage"]["rules"]
            .as_array()
            .expect("the rules")
            .iter()
            .filter(|r| r["status"] == "fail")
            .filter_map(|r| r["id"].as_str())
            .filter(|id| *id != KNOWN)
            .collect();
        // report.json lists rules in the catalogue's order.
        json_failing.sort_unstable();
        let mut sorted = expected.to_vec();
        sorted.sort_unstable();
        assert_eq!(json_failing, sorted, "report.json's failing rules");
        let warning = format!("::warning title={SHOULD} (should)");
        assert_eq!(
            annotations.contains(&warning),
            !strict,
            "{}",
            said("github", &annotations)
        );
        assert!(
            annotations.contains(&format!("::notice title={KNOWN} (must)")),
            "{}",
            said("github", &annotations)
        );

        // The skipped reason, in every format that lists cases.
        for (name, text) in [("console", &console), ("html", &html), ("junit", &xml)] {
            assert!(text.contains(SKIPPED), "{}", said(name, text));
        }
        assert!(md.contains("card\\_id"), "{}", said("md", &md));
        assert!(json.to_string().contains(SKIPPED));
    }
}

#[test]
fn an_incomplete_record_says_why_in_the_verdict_line_of_every_format_in_the_same_words() {
    let catalogue = Catalogue::embedded();
    let mut run = RunRecord::of_cases(vec![case("agree.pass", Verdict::Pass, &[])]);
    run.meta.interrupted = Some("the request budget (--max-requests 1) was reached".to_owned());
    run.settle();
    let view = RunView::new(&run, catalogue);
    assert_eq!(view.verdict, RunVerdict::Incomplete);
    let why = "the run stopped early: the request budget (--max-requests 1) was reached";
    let line = format!("INCOMPLETE: {why}");
    let console = console::summary(&view);
    let verdict_line = console
        .lines()
        .find(|l| l.starts_with("covenant: "))
        .expect("the verdict line");
    assert!(
        verdict_line.starts_with(&format!("covenant: {line}. ")),
        "{console}"
    );
    assert_eq!(console.matches(why).count(), 1, "said once:\n{console}");
    let md = Markdown.render(&view).expect("summary.md");
    assert!(md.starts_with(&format!("## Covenant: ⚪ {line}\n")), "{md}");
    assert_eq!(md.matches(why).count(), 1, "said once:\n{md}");
    let html = Html.render(&view).expect("summary.html");
    assert!(
        html.contains(&format!("data-verdict=\"incomplete\">{line}</div>")),
        "{html}"
    );
    assert_eq!(html.matches(why).count(), 1, "said once:\n{html}");
    let xml = Junit.render(&view).expect("junit.xml");
    assert!(xml.contains(&format!("message=\"{line}\"")), "{xml}");
    let json: serde_json::Value =
        serde_json::from_str(&Json.render(&view).expect("report.json")).expect("JSON");
    assert_eq!(json["incomplete"], why);
    let annotations = github::annotations(&view, &[]);
    assert!(
        annotations.contains(&format!("::error title=covenant%3A INCOMPLETE::{why}")),
        "{annotations}"
    );
}

/// A case of `compare`'s records that judged `rules`, with `findings` among them.
fn judged(id: &str, verdict: Verdict, rules: &[&str], findings: &[(&str, Level)]) -> CaseResult {
    let mut judged = case(id, verdict, findings);
    judged.rules = rules.iter().map(|r| (*r).to_owned()).collect();
    judged
}

#[test]
fn one_comparison_reads_the_same_in_every_compare_format_lists_and_exit_decision() {
    use super::compare::{compare, CaseChange};
    use super::view::CompareView;
    let catalogue = Catalogue::embedded();
    let mut old = RunRecord::of_cases(vec![
        judged("agree.broken", Verdict::Pass, &[MUST], &[]),
        judged(
            "agree.fixed",
            Verdict::Fail,
            &[KNOWN],
            &[(KNOWN, Level::Must)],
        ),
        judged("agree.warned", Verdict::Pass, &[SHOULD], &[]),
    ]);
    let mut new = RunRecord::of_cases(vec![
        judged(
            "agree.broken",
            Verdict::Fail,
            &[MUST],
            &[(MUST, Level::Must)],
        ),
        judged("agree.fixed", Verdict::Pass, &[KNOWN], &[]),
        judged(
            "agree.warned",
            Verdict::Warn,
            &[SHOULD],
            &[(SHOULD, Level::Should)],
        ),
    ]);
    old.settle();
    new.settle();
    let comparison = compare(&old, &new, catalogue, false);
    let view = CompareView::new(&comparison);
    let console = console::compare(&comparison);
    let md = super::markdown::compare(&comparison);
    let json: serde_json::Value =
        serde_json::from_str(&super::json::compare(&comparison)).expect("compare.json");

    // The case lists: the same cases under the same titles in every format.
    for (title, key, id) in [
        ("newly failing", "newly_failing", "agree.broken"),
        ("fixed", "fixed", "agree.fixed"),
        ("newly warning", "newly_warning", "agree.warned"),
    ] {
        let listed: &[CaseChange] = comparison
            .case_lists()
            .into_iter()
            .find(|(t, _)| *t == title)
            .expect("the list")
            .1;
        let ids: Vec<&str> = listed.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, [id], "{title}");
        let line = listed[0].to_string();
        assert!(
            console.contains(&format!("{title} (1):\n  {line}\n")),
            "{title}:\n{console}"
        );
        assert!(
            md.contains(&format!("### {title} (1)\n\n- {line}\n")),
            "{title}:\n{md}"
        );
        let in_json: Vec<&str> = json[key]
            .as_array()
            .expect("the list")
            .iter()
            .filter_map(|c| c["id"].as_str())
            .collect();
        assert_eq!(in_json, [id], "compare.json's {key}");
    }
    // The rules: the fixed rule, the one newly broken and the one newly warned of, each with
    // its old and new status, in every format.
    for (rule, was, is) in [
        (KNOWN, "fail", "pass"),
        (MUST, "pass", "fail"),
        (SHOULD, "pass", "warn"),
    ] {
        assert!(
            console.contains(&format!("  {rule}: {was} -> {is}\n")),
            "{rule}:\n{console}"
        );
        assert!(
            md.contains(&format!("| `{rule}` | {was} | {is} |")),
            "{rule}:\n{md}"
        );
        assert!(
            json["rules"]
                .as_array()
                .expect("the rules")
                .iter()
                .any(|r| r["rule"] == rule && r["old"] == was && r["new"] == is),
            "{rule} in compare.json"
        );
    }
    // The exit decision: a new failure, said alike, and exit 1.
    assert!(view.regressed);
    assert_eq!(comparison.exit_code(), crate::exit::FAILURES);
    assert_eq!(view.headline, "1 newly failing");
    assert!(
        md.starts_with("## Covenant compare: ❌ 1 newly failing\n"),
        "{md}"
    );
    assert!(
        console.ends_with("\ncovenant compare: 1 newly failing\n"),
        "{console}"
    );
    assert_eq!(json["newly_failing"].as_array().map(Vec::len), Some(1));
}
