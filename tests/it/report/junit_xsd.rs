//! The JUnit XML validates against Jenkins' junit-10.xsd (`tests/data/junit.xsd`) with xmllint.

use super::sample;
use std::path::{Path, PathBuf};
use std::process::Command;

fn xsd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit.xsd")
}

/// xmllint's verdict on `xml`: Ok, or its complaint.
fn xmllint(xml: &Path) -> Result<(), String> {
    let output = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd())
        .arg(xml)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run xmllint ({e}); install it: apt-get install -y libxml2-utils")
        });
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn junit_report_validates_against_the_jenkins_xsd() {
    // The sample run, and beside it a client's slip of real traffic (a skipped testcase of
    // type `client` with its system-out).
    for (name, run) in [
        ("junit-xsd", sample::run()),
        ("junit-client", sample::run_with_client_slip()),
    ] {
        let dir = sample::scratch_dir(name);
        covenant::report::write_all(&run, &dir, &[]).unwrap();
        if let Err(complaint) = xmllint(&dir.join("junit.xml")) {
            panic!(
                "{name}: junit.xml does not validate against tests/data/junit.xsd:\n{complaint}"
            );
        }
    }
}

#[test]
fn hostile_bytes_in_a_body_still_give_valid_junit() {
    let mut run = sample::run();
    if let Some(response) = run.cases[1].exchanges[0].response.as_mut() {
        response.body = "\u{1b}[31mred\u{0}nul\u{7}bell\u{FFFF}nonchar]]>cdata-end".to_owned();
    }
    let dir = sample::scratch_dir("junit-hostile");
    covenant::report::write_all(&run, &dir, &[]).unwrap();
    if let Err(complaint) = xmllint(&dir.join("junit.xml")) {
        panic!("a hostile body broke junit.xml:\n{complaint}");
    }
}

#[test]
fn the_xsd_refuses_a_root_skipped_attribute() {
    // Proves the validation bites: quick-junit's raw root attribute is not allowed.
    let dir = sample::scratch_dir("junit-xsd-negative");
    let path = dir.join("bad.xml");
    std::fs::write(
        &path,
        "<?xml version=\"1.0\"?>\n<testsuites tests=\"0\" skipped=\"0\"></testsuites>\n",
    )
    .unwrap();
    let complaint = xmllint(&path).expect_err("the XSD must refuse testsuites@skipped");
    assert!(complaint.contains("skipped"), "{complaint}");
}

#[test]
fn junit_cases_carry_their_outcome() {
    let dir = sample::scratch_dir("junit-content");
    covenant::report::write_all(&sample::run(), &dir, &[]).unwrap();
    let xml = sample::read(&dir.join("junit.xml"));
    let report = quick_junit::Report::deserialize_from_str(&xml).expect("junit.xml reads back");
    let suites: Vec<&str> = report.test_suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        suites,
        ["receivables", "vat-ids", "velocity", "events", "accept"]
    );
    assert!(xml.contains("message=\"RCV-UNKNOWN-PROPS: a quote body with the unknown property `surprise` was accepted with 201\""));
    assert!(xml.contains("curl -X POST"));
    assert!(xml.contains("+status: 201 (created)"));
    assert!(xml.contains("<skipped message=\"the profile has no [banking] card_id fixture\"/>"));
    assert!(xml.contains("<error message=\"the target did not answer within 10 s\""));
    // An inconclusive case is neither a pass nor a failure: skipped, with its baseline's answer.
    assert!(xml.contains("<skipped message=\"inconclusive: 297 variant(s) of GEN-ENUM-ACCEPTED blocked by their baseline (the smallest vat-id-create body), refused with 422:"));
    assert!(xml
        .contains("GEN-JSON-CONTENT-TYPE (should): a JSON body came with Content-Type text/plain"));
}
