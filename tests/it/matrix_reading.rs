//! The matrix reads in a minute, through the binary: for the three implementations of
//! `matrix.rs` and for a hundred reports, matrix.md stays under 64 KiB with no line over 1,000
//! characters, a silent-area cell names each choice once, nothing the spec states (the default
//! `limit` 25 of bank account transactions) is listed as silent, and matrix.html filters by
//! area, level and result and fits a 1280 px window in a real browser.

use crate::matrix::matrix;
use crate::report::browser::dump_dom_in;
use crate::support::{covenant, says, scratch};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The largest matrix.md: GitHub's cap on a comment.
const MD_BYTES: usize = 64 * 1024;
const MD_LINE: usize = 1_000;
/// The window a spec owner reads the page in.
const WIDTH: u32 = 1280;

/// A script run after the page's own: the page's width, the widest box's overflow, the
/// tallest cell of the silent areas, written on `<html>` for the DOM dump to carry.
const PROBE: &str = r##"<script>//<![CDATA[
(function () {
  var root = document.documentElement, tallest = 0, clipped = [];
  document.querySelectorAll("#choices td").forEach(function (td) { tallest = Math.max(tallest, td.offsetHeight); });
  document.querySelectorAll("section, .scroll, body > table, form").forEach(function (box) {
    var id = box.id || (box.firstElementChild && box.firstElementChild.id) || box.tagName;
    if (box.getBoundingClientRect().right > root.clientWidth + 1) { clipped.push(id); }
  });
  var choices = document.getElementById("choices");
  if (choices && choices.parentNode.scrollWidth > choices.parentNode.clientWidth + 1) { clipped.push("choices box"); }
  root.setAttribute("data-probe", "width=" + root.scrollWidth + ";tallest=" + tallest + ";clipped=" + clipped.join(","));
})();
//]]></script>
</body>"##;

/// What the probe saw of `page` in a window [`WIDTH`] wide: the page's width, the tallest
/// silent-area cell, the boxes that pass the window's right edge.
fn probe(page: &Path, fragment: &str, profile: &str) -> (u32, u32, String, String) {
    let html = std::fs::read_to_string(page).expect("matrix.html");
    let probed = page.with_file_name("probe.html");
    std::fs::write(&probed, html.replace("</body>", PROBE)).expect("write the probe page");
    let url = format!(
        "file://{}{fragment}",
        probed.canonicalize().unwrap().display()
    );
    let dom = dump_dom_in(&url, &scratch(profile), Some((WIDTH, 900)));
    let said = dom
        .split("data-probe=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the probe ran")
        .to_owned();
    let field = |name: &str| {
        said.split(';')
            .find_map(|part| part.strip_prefix(&format!("{name}=")))
            .unwrap_or_default()
            .to_owned()
    };
    (
        field("width").parse().expect("a width"),
        field("tallest").parse().expect("a height"),
        field("clipped"),
        dom,
    )
}

/// matrix.md reads in a minute: under the cap, short lines, the rest folded, and each choice
/// named once in a silent-area cell.
fn assert_md_reads(md: &str) {
    assert!(md.len() < MD_BYTES, "{} bytes", md.len());
    for (n, line) in md.lines().enumerate() {
        assert!(
            line.len() <= MD_LINE,
            "line {} has {} characters: {}",
            n + 1,
            line.len(),
            line.chars().take(200).collect::<String>()
        );
    }
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
    assert!(md.contains("<details><summary>"), "the rest folded");
    for line in md.lines().filter(|l| l.starts_with("| `GAP-")) {
        for cell in line.split(" | ").skip(1) {
            let items: Vec<&str> = cell
                .trim_end_matches(" |")
                .split([',', ';'])
                .map(str::trim)
                .filter(|i| !i.is_empty())
                .collect();
            let unique: BTreeSet<&&str> = items.iter().collect();
            assert_eq!(unique.len(), items.len(), "a value repeats in: {line}");
        }
    }
}

/// matrix.json names each choice once, and lists nothing the spec states as silent.
fn assert_choices_once_and_silent(m: &Value) {
    for choice in m["choices"].as_array().expect("choices") {
        for (name, values) in choice["choices"].as_object().expect("per implementation") {
            let values: Vec<&str> = values
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let unique: BTreeSet<&&str> = values.iter().collect();
            assert_eq!(unique.len(), values.len(), "{name} in {choice}");
            let fields: Vec<&str> = values
                .iter()
                .filter_map(|v| v.split_once(" (").map(|(name, _)| name))
                .collect();
            let unique: BTreeSet<&&str> = fields.iter().collect();
            assert_eq!(
                unique.len(),
                fields.len(),
                "a field twice: {name} in {choice}"
            );
        }
        let stated_default =
            choice["operation"] == "list-transactions" && choice["what"] == "limit default";
        assert!(
            !stated_default,
            "the spec states the default limit 25: {choice}"
        );
    }
}

/// matrix.html has its filters, and its style no width past the window.
fn assert_html_structure(html: &str) {
    for id in [
        "filter-area",
        "filter-level",
        "filter-result",
        "differ-only",
        "shown",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no {id}");
    }
    let style = html
        .split("<style>")
        .nth(1)
        .and_then(|s| s.split("</style>").next())
        .expect("a style");
    for word in style.split(|c: char| !c.is_ascii_alphanumeric()) {
        if let Some(px) = word.strip_suffix("px") {
            let px: u32 = px.parse().unwrap_or(0);
            assert!(px <= WIDTH, "{px}px in the style");
        }
    }
    assert!(!style.contains("nowrap"), "long text wraps");
}

#[test]
fn the_matrix_of_three_reads_in_a_minute_and_fits_1280_px() {
    let (dir, m) = matrix();
    let md = std::fs::read_to_string(dir.join("matrix.md")).expect("matrix.md");
    assert_md_reads(&md);
    assert_choices_once_and_silent(m);
    let transactions = m["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["operation"] == "list-transactions" && c["what"] == "limit 25")
        .expect("the page fill under the stated default is under limit 25");
    assert_eq!(transactions["choices"]["reference"], json!(["full pages"]));

    let page = dir.join("matrix.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_html_structure(&html);
    let (width, tallest, clipped, _) = probe(&page, "", "matrix-probe-three");
    assert!(width <= WIDTH, "the page is {width} px wide");
    assert_eq!(clipped, "", "boxes past the right edge");
    assert!(tallest < 300, "a silent-area cell {tallest} px tall");

    let (_, _, _, dom) = probe(
        &page,
        "#area=GEN&level=must&result=fail",
        "matrix-probe-filter",
    );
    let shown: Vec<&str> = dom
        .split("<tr class=\"rule\" ")
        .skip(1)
        .filter(|row| !row.split('>').next().unwrap().contains("hidden"))
        .collect();
    assert_eq!(shown.len(), 1, "the broken rule alone");
    assert!(
        shown[0].starts_with("id=\"rule-GEN-IDS-UUID\""),
        "{}",
        shown[0]
    );
    assert!(
        dom.contains("<output id=\"shown\">1 of "),
        "the count says so"
    );
}

/// A copy of `report` as the run of implementation `i`: its profile's name, some verdicts and
/// some choices varied, its exchanges left out (the matrix never reads them).
fn variant(report: &Value, i: usize) -> Value {
    let mut r = report.clone();
    r["meta"]["profile"] = json!({ "name": format!("partner-{i:03}-with-a-longer-name") });
    let cases: Vec<Value> = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["findings"].as_array().is_some_and(|f| !f.is_empty()))
        .map(|c| json!({"id": c["id"], "verdict": c["verdict"], "rules": c["rules"], "findings": c["findings"]}))
        .collect();
    r["cases"] = Value::Array(cases);
    let rules = r["coverage"]["rules"].as_array_mut().unwrap();
    let n = rules.len();
    if i.is_multiple_of(3) {
        let rule = &mut rules[(i * 7) % n];
        rule["status"] = "fail".into();
        let id = rule["id"].clone();
        r["cases"].as_array_mut().unwrap().push(json!({"id": format!("varied.{i}"),
            "verdict": "fail", "rules": [id], "findings": [{"rule": id, "level": "must",
            "message": format!("varied failure {i} with a message long enough to be cut {}", "x".repeat(150))}]}));
    }
    for gap in r["silent"].as_object_mut().unwrap().values_mut() {
        for o in gap["observations"].as_array_mut().unwrap() {
            if o["what"] == "success status" && i % 2 == 1 {
                o["value"] = "200".into();
            }
            if o["what"] == "errorCode" && i.is_multiple_of(5) {
                o["value"] = format!("VARIED_{}, {}", i % 4, o["value"].as_str().unwrap()).into();
            }
        }
    }
    r
}

#[test]
fn the_matrix_of_a_hundred_reports_reads_in_a_minute_and_fits_1280_px() {
    let (three, _) = matrix();
    let base: Value = serde_json::from_str(
        &std::fs::read_to_string(three.parent().unwrap().join("broken/report.json")).unwrap(),
    )
    .expect("a report");
    let dir = scratch("matrix-hundred");
    let reports: Vec<PathBuf> = (0..100)
        .map(|i| {
            let path = dir.join(format!("r{i:03}.json"));
            std::fs::write(&path, variant(&base, i).to_string()).expect("write a report");
            path
        })
        .collect();
    let out = dir.join("matrix");
    let output = covenant()
        .arg("matrix")
        .args(&reports)
        .arg("--report-dir")
        .arg(&out)
        .output()
        .expect("covenant matrix runs");
    assert_eq!(output.status.code(), Some(0), "{}", says(&output));
    let md = std::fs::read_to_string(out.join("matrix.md")).expect("matrix.md");
    assert_md_reads(&md);
    assert!(
        md.contains("**fail** (100): partner-000-with-a-longer-name, "),
        "the broken rule groups its 100 failures: {}",
        &md[..2000]
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("matrix.json")).unwrap()).unwrap();
    assert_eq!(m["implementations"].as_array().unwrap().len(), 100);
    assert_choices_once_and_silent(&m);
    let page = out.join("matrix.html");
    assert_html_structure(&std::fs::read_to_string(&page).unwrap());
    let (width, tallest, clipped, _) = probe(&page, "#result=fail", "matrix-probe-hundred");
    assert!(width <= WIDTH, "the page is {width} px wide");
    assert_eq!(
        clipped, "",
        "boxes past the right edge (a wide table scrolls in its box)"
    );
    assert!(tallest < 400, "a silent-area cell {tallest} px tall");
}
