//! The HTML summary in a real headless browser: it renders, and the URL fragment opens the
//! details of the failure it names.

use super::sample;
use std::process::Command;

/// The DOM chromium builds for `url`, after scripts ran.
pub(crate) fn dump_dom(url: &str, profile_dir: &std::path::Path) -> String {
    dump_dom_in(url, profile_dir, None)
}

/// The DOM chromium builds for `url` in a window of `(width, height)` pixels when given.
pub(crate) fn dump_dom_in(
    url: &str,
    profile_dir: &std::path::Path,
    window: Option<(u32, u32)>,
) -> String {
    let output = Command::new("timeout")
        .arg("120")
        .arg("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .args(window.map(|(w, h)| format!("--window-size={w},{h}")))
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run chromium ({e}); install it: apt-get install -y chromium")
        });
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && !dom.is_empty(),
        "chromium failed (is it installed? apt-get install -y chromium): {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    dom
}

/// The opening tag of the element with this id.
fn opening_tag<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element with id {id} in the DOM"));
    let start = dom[..at].rfind('<').expect("an id sits inside a tag");
    let end = at + dom[at..].find('>').expect("a tag ends");
    &dom[start..=end]
}

#[test]
fn fragment_opens_the_failure_it_names_in_a_real_browser() {
    let dir = sample::scratch_dir("browser");
    covenant::report::write_all_with(&sample::run(), &dir, &[], &sample::catalogue()).unwrap();
    let page = dir.join("summary.html").canonicalize().unwrap();
    let anchor = format!("case-{}", sample::FAILING_CASE);
    let url = format!("file://{}#{anchor}", page.display());
    let profile = sample::scratch_dir("browser-profile");

    let dom = dump_dom(&url, &profile);

    let named = opening_tag(&dom, &anchor);
    assert!(
        named.starts_with("<details") && named.contains(" open"),
        "{named}"
    );
    let other = opening_tag(&dom, "case-vat-id.get");
    assert!(
        !other.contains(" open"),
        "only the named details opens: {other}"
    );
    assert!(dom.contains("FAILED: the target breaks the contract"));
    assert!(dom.contains("RCV-UNKNOWN-PROPS"));
    assert!(
        opening_tag(&dom, "broken-RCV-UNKNOWN-PROPS").starts_with("<section"),
        "the broken rule has its section"
    );
    assert!(dom.contains("curl -X POST"));
    assert!(
        dom.contains("&lt;script&gt;alert"),
        "the hostile body shows as text"
    );
}
