//! A client's slips seen in real traffic have their own verdict, `client`: every format names
//! them under their own heading, none calls them the target's failure or a known failure, and
//! merging keeps them.

use super::sample;
use covenant::report::merge;
use covenant::verdict::{Counts, RunVerdict, Verdict, CLIENT_TITLE};
use serde_json::Value;

const CASE: &str = "client.list-transactions";

#[test]
fn every_format_names_the_clients_slips_under_their_own_heading() {
    let mut run = sample::run_with_client_slip();
    // The sample's failure, warning and error out of the way: the slip alone passes the run.
    run.cases
        .retain(|c| !matches!(c.verdict, Verdict::Fail | Verdict::Warn | Verdict::Error));
    run.counts = Counts::of(&run.cases);
    assert_eq!(
        run.verdict(),
        RunVerdict::Pass,
        "the slip never fails the run"
    );
    let dir = sample::scratch_dir("client-slips");
    covenant::report::write_all(&run, &dir, &[]).unwrap();

    let console = covenant::report::console::summary(&covenant::report::RunView::new(
        &run,
        covenant::catalogue::Catalogue::embedded(),
    ));
    says(
        "the console",
        &console,
        &[
            "\nthe client's slips: requests that break what the spec asks of clients (they never fail the target):\n  [BPAG-TOKEN-OPAQUE] 2 requests in client.list-transactions: the client passed a page token back without its limit (limit=2)\n",
            ", 1 with the client's slips;",
        ],
        &["broken rules", "known"],
    );
    says(
        "summary.md",
        &sample::read(&dir.join("summary.md")),
        &[
            &format!("### {CLIENT_TITLE} (1)"),
            &format!("- **`{CASE}`** (client)"),
            "without its limit (limit=5)",
            ", 1 with the client's slips:",
        ],
        &["### Broken rules", "Known"],
    );
    says(
        "summary.html",
        &sample::read(&dir.join("summary.html")),
        &[
            &format!(
                "<h2 id=\"client\">{} (1)</h2>",
                covenant::report::html::escaped(CLIENT_TITLE)
            ),
            "data-verdict=\"client\"",
            "<th class=\"client\">client&#39;s slips</th>",
            "<h2 id=\"broken\">Broken rules (0)</h2>",
        ],
        &["Known"],
    );

    let xml = sample::read(&dir.join("junit.xml"));
    let testcase = xml
        .split("<testcase ")
        .find(|t| t.contains(&format!("name=\"{CASE}\"")))
        .expect("the slip's testcase");
    assert!(testcase.contains("<skipped message=\""), "{testcase}");
    assert!(testcase.contains("type=\"client\""), "{testcase}");
    assert!(
        testcase.contains("BPAG-TOKEN-OPAQUE in 2 requests: the client passed a page token back"),
        "{testcase}"
    );
    assert!(testcase.contains("<system-out>"), "{testcase}");
    assert!(!testcase.contains("<failure"), "{testcase}");

    let json: Value = serde_json::from_str(&sample::read(&dir.join("report.json"))).unwrap();
    assert_eq!(json["counts"]["client"], 1);
    assert!(json["counts"].get("known").is_none(), "{}", json["counts"]);
    let slip = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == CASE)
        .expect("the slip in report.json");
    assert_eq!(slip["verdict"], "client");
    assert!(slip["findings"][0].get("known").is_none(), "{slip}");
}

#[test]
fn a_slip_beside_a_failure_leaves_the_failure_the_only_broken_rule() {
    let run = sample::run_with_client_slip();
    assert_eq!(run.verdict(), RunVerdict::Fail);
    let console = covenant::report::console::summary(&covenant::report::RunView::new(
        &run,
        covenant::catalogue::Catalogue::embedded(),
    ));
    let broken = console
        .split("\nthe client's slips")
        .next()
        .expect("a summary");
    assert!(broken.contains("broken rules (1):"), "{console}");
    assert!(!broken.contains("BPAG-TOKEN-OPAQUE"), "{console}");
}

#[test]
fn merging_keeps_a_clients_slips() {
    let whole = sample::run_with_client_slip();
    let mut meta_a = sample::meta("2026-01-02T03:04:05Z", "2026-01-02T03:04:10Z");
    let mut meta_b = sample::meta("2026-01-02T03:04:06Z", "2026-01-02T03:04:15.5Z");
    meta_a.shard = Some("1/2".to_owned());
    meta_b.shard = Some("2/2".to_owned());
    let (slips, rest): (Vec<_>, Vec<_>) = whole
        .cases
        .iter()
        .cloned()
        .partition(|c| c.verdict == Verdict::Client);
    let shard = |meta, cases: Vec<_>| covenant::verdict::RunRecord {
        meta,
        counts: Counts::of(&cases),
        cases,
    };
    let merged = merge(vec![shard(meta_a, rest), shard(meta_b, slips)]).expect("merged");
    assert_eq!(merged.counts, whole.counts);
    assert_eq!(merged.counts.client, 1);
    let slip = merged.cases.iter().find(|c| c.id == CASE).expect("kept");
    assert_eq!(slip.verdict, Verdict::Client);
}

/// Asserts that `text` (of the format `name`) holds every one of `present` and none of `absent`.
fn says(name: &str, text: &str, present: &[&str], absent: &[&str]) {
    for needle in present {
        assert!(text.contains(needle), "{name} lacks {needle:?}:\n{text}");
    }
    for needle in absent {
        assert!(!text.contains(needle), "{name} holds {needle:?}:\n{text}");
    }
}
