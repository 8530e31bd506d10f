//! The command line as a user meets it, through the real binary: every command quiet on a closed
//! stdout.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn covenant(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .output()
        .expect("covenant runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("covenant-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

/// A stdout whose reading end is closed before the command starts, so that its first write
/// fails with a broken pipe (`covenant ... | head -c0`), whatever the timing. A socket pair
/// rather than a pipe: std makes one without unsafe code below Rust 1.87 (our rust-version is
/// 1.85), and a write to either fails alike, with EPIPE.
fn closed_stdout() -> Stdio {
    let (ours, theirs) = UnixStream::pair().expect("a socket pair");
    drop(ours);
    Stdio::from(std::os::fd::OwnedFd::from(theirs))
}

/// Runs `covenant args` with a closed stdout; its exit code and stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(args)
        .stdout(closed_stdout())
        .output()
        .expect("covenant runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn every_command_exits_as_usual_on_a_closed_stdout() {
    let dir = scratch("closed");
    let runs = dir.join("run");
    let run = covenant(&[
        "run",
        "--quiet",
        "--seed",
        "5",
        "--filter",
        "vat.",
        "--report-dir",
        utf8(&runs),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = runs.join("report.json");
    let report = utf8(&report);
    let out = |name: &str| utf8(&dir.join(name)).to_owned();
    let (merged, compared, selftested) = (out("merged"), out("compared"), out("selftest"));
    let commands: [&[&str]; 11] = [
        &["openapi"],
        &["list", "rules"],
        &["list", "faults"],
        &["schemas", "check"],
        &["run", "--list"],
        &["run", "--dry-run"],
        &["compare", report, report, "--report-dir", &compared],
        &["merge", report, "--report-dir", &merged],
        &[
            "selftest",
            "--fault",
            "rcv-create-200",
            "--cases",
            "2",
            "--report-dir",
            &selftested,
        ],
        &["--help"],
        &["run", "--help"],
    ];
    for args in commands {
        let (code, stderr) = with_closed_stdout(args);
        assert_eq!(code, Some(0), "covenant {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "covenant {args:?}: {stderr}");
    }
    let merged = covenant::report::load(&dir.join("merged").join("report.json"))
        .expect("merge wrote its report with stdout closed");
    assert!(merged.counts.pass > 0, "{:?}", merged.counts);
}

#[test]
fn serve_runs_and_stops_on_sigterm_with_a_closed_stdout() {
    let dir = scratch("serve-closed");
    let profile = dir.join("reference.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_covenant"))
        .args(["serve", "--port", "0", "--profile-out", utf8(&profile)])
        .stdout(closed_stdout())
        .stderr(Stdio::piped())
        .spawn()
        .expect("covenant serve starts");
    // It writes the profile after saying where it listens: by then it has written to stdout.
    let started = Instant::now();
    while !profile.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            let mut stderr = String::new();
            let _ = child
                .stderr
                .take()
                .map(|mut e| e.read_to_string(&mut stderr));
            panic!("serve ended early ({status}): {stderr}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no profile written"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("serve ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
