//! Golden files: the fixed run rendered in each format, compared with `tests/golden/`.
//! `COVENANT_BLESS=1 cargo test --release --test it golden` rewrites them; review the diff.

use super::sample;
use covenant::report::{write_all_with, RunView};
use std::path::{Path, PathBuf};

/// Replaces what varies between builds (the crate version) with a fixed token.
fn normalise(text: &str) -> String {
    text.replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn check_golden(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("COVENANT_BLESS").is_some() {
        std::fs::write(&path, actual).expect("golden file can be written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with COVENANT_BLESS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let diff = covenant::verdict::unified_diff(&expected, actual);
        panic!(
            "{name} differs from {} (COVENANT_BLESS=1 rewrites it):\n{diff}",
            path.display()
        );
    }
}

#[test]
fn every_format_matches_its_golden_file() {
    let dir = sample::scratch_dir("golden");
    let written = write_all_with(&sample::run(), &dir, &[], &sample::catalogue())
        .expect("reports are written");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["junit.xml", "report.json", "summary.html", "summary.md"]
    );
    for (name, path) in names.iter().zip(&written) {
        check_golden(name, &normalise(&sample::read(path)));
    }
}

#[test]
fn rendering_twice_gives_the_same_bytes() {
    let catalogue = sample::catalogue();
    let first = sample::scratch_dir("stable-1");
    let second = sample::scratch_dir("stable-2");
    let a = write_all_with(&sample::run(), &first, &[], &catalogue).unwrap();
    let b = write_all_with(&sample::run(), &second, &[], &catalogue).unwrap();
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(sample::read(a), sample::read(b), "{}", a.display());
    }
}

#[test]
fn html_matrix_lists_every_rule_of_the_embedded_catalogue() {
    let dir = sample::scratch_dir("embedded-catalogue");
    covenant::report::write_all(&sample::run(), &dir, &[]).unwrap();
    let html = sample::read(&dir.join("summary.html"));
    let catalogue = covenant::catalogue::Catalogue::embedded();
    for rule in &catalogue.rules {
        assert!(
            html.contains(&format!("<tr id=\"rule-{}\">", rule.id)),
            "rule {} is missing from the coverage matrix",
            rule.id
        );
    }
    for gap in &catalogue.gaps {
        assert!(html.contains(&gap.id), "gap {} is missing", gap.id);
    }
}

#[test]
fn html_escapes_text_from_the_target() {
    let dir = sample::scratch_dir("escape");
    write_all_with(&sample::run(), &dir, &[], &sample::catalogue()).unwrap();
    let html = sample::read(&dir.join("summary.html"));
    assert!(
        !html.contains("<script>alert"),
        "a response body reached the page unescaped"
    );
    assert!(html.contains("&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;"));
    assert!(html.contains("1 to 100 &#60;inclusive&#62; &#38; checked"));
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "the page must not load anything"
    );
}

/// The console's closing summary of the fixed run, what `covenant run` prints last.
#[test]
fn the_console_summary_matches_its_golden_file() {
    let (run, catalogue) = (sample::run(), sample::catalogue());
    let text = covenant::report::console::summary(&RunView::new(&run, &catalogue));
    check_golden("console.txt", &normalise(&text));
}

/// `covenant compare` of the fixed run and a regressed one: the console's text, `compare.md`
/// and `compare.json`.
#[test]
fn every_format_of_a_compare_matches_its_golden_file() {
    use covenant::report::{compare, console, json, markdown};
    let comparison = compare(
        &sample::run(),
        &sample::regressed(),
        &sample::catalogue(),
        false,
    );
    check_golden("compare.txt", &console::compare(&comparison));
    check_golden("compare.md", &markdown::compare(&comparison));
    check_golden("compare.json", &json::compare(&comparison));
}

/// The behaviour diff of the fixed run and another target's: the console's text, `diff.md`,
/// `diff.html` and `diff.json`.
#[test]
fn every_format_of_a_diff_matches_its_golden_file() {
    use covenant::report::{behaviour_diff, console, html, json, markdown};
    let catalogue = sample::catalogue();
    let diff = behaviour_diff(&sample::run(), &sample::other_target(), &catalogue);
    assert!(!diff.is_empty(), "the sample targets differ");
    check_golden("diff.txt", &console::diff(&diff));
    check_golden("diff.md", &markdown::diff(&diff));
    check_golden("diff.html", &html::diff(&diff));
    check_golden("diff.json", &json::diff(&diff));
}
