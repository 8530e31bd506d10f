//! What ends a run before any case: a host that does not resolve, a refused connection, TLS to
//! a plain server, a CA file that is not PEM, a refused token, a static file server. Each ends
//! with its documented exit code (3 for a target out of reach, 2 for the user's setup) and a
//! message naming the cause.

use super::harness::{self, Covenant};
use super::server::{Hostile, HostileReply};
use super::target::{normal, BOUND};
use crate::support::runtime;

#[test]
fn an_unknown_host_is_exit_3_naming_it() {
    let run = Covenant::new("dns", "http://covenant-no-such-host.invalid/").run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("covenant-no-such-host.invalid"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("unreachable"), "{}", run.stderr);
}

#[test]
fn a_refused_connection_before_any_case_is_exit_3() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let run = Covenant::new("refused", &format!("http://127.0.0.1:{port}")).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("unreachable"), "{}", run.stderr);
    // Nothing was judged, but the reports a CI job reads say why.
    let report = std::fs::read_to_string(run.dir.join("reports/report.json")).expect("a report");
    assert!(report.contains("\"verdict\": \"unreachable\""), "{report}");
}

#[test]
fn https_to_a_plain_http_server_is_a_clear_tls_error() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| normal(seen)));
    let url = format!("https://127.0.0.1:{}", server.port);
    let run = Covenant::new("tls", &url).args(["--insecure"]).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("TLS error"), "{}", run.stderr);
    assert!(run.stderr.contains("--ca-cert"), "{}", run.stderr);
}

#[test]
fn a_ca_cert_that_is_not_pem_is_exit_2_naming_the_file() {
    let covenant = Covenant::new("ca-cert", "https://127.0.0.1:9");
    let dir = harness::scratch("ca-cert-file");
    let bad = dir.join("not-a-cert.pem");
    std::fs::write(&bad, "this is not a certificate\n").expect("write the file");
    let run = covenant
        .args(["--ca-cert".as_ref(), bad.as_os_str()])
        .run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not-a-cert.pem"), "{}", run.stderr);
    let missing = Covenant::new("ca-cert-missing", "https://127.0.0.1:9")
        .args(["--ca-cert", "no-such-file.pem"])
        .run(BOUND);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no-such-file.pem"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_refused_token_stops_in_the_preflight_before_anything_is_written() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.path.starts_with("/finops/") && seen.header("authorization").is_some() {
            HostileReply::json(401, r#"{"error":{"message":"invalid token"}}"#)
        } else {
            normal(seen)
        }
    }));
    let run = Covenant::new("refused-token", &server.url()).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("finops.token: GET /finops/v1/events?limit=1 answered 401"),
        "{}",
        run.stderr
    );
    let writes: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.method != "GET")
        .map(|s| format!("{} {}", s.method, s.path))
        .collect();
    assert!(
        writes.is_empty(),
        "sent before the preflight stopped: {writes:?}"
    );
    assert!(server.seen_by_cases().is_empty(), "no case ran");
}

#[test]
fn a_static_file_server_is_named_in_one_line() {
    let rt = runtime();
    let server = rt.block_on(Hostile::start(|seen, _| {
        if seen.path == "/" {
            HostileReply::typed(200, "text/html", b"<html><body>index</body></html>")
        } else {
            HostileReply::typed(404, "text/html", b"<html><body>Not Found</body></html>")
        }
    }));
    let run = Covenant::new("static", &server.url()).run(BOUND);
    run.assert_sound();
    assert_eq!(run.code, 2, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0]
            .contains("does not look like the Finance Operations and Embedded Banking Partner API"),
        "{}",
        lines[0]
    );
    assert!(server.seen_by_cases().is_empty(), "no case ran");
}
