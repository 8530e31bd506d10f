//! The progress line of a slow run, through the real binary: a run held back by `--rate` (as a
//! rate-limited or remote target holds it back) shows requests sent against the plan's estimate
//! on stderr with `--progress always`, never with `--progress never` nor, by default, when
//! stderr is not a terminal; and stdout is the same whichever is chosen.

use std::path::PathBuf;
use std::process::Output;

/// A run of the authentication cases at 12 requests a second: about 4 s, past the 2 s after
/// which the progress line appears. One case at a time, so that stdout comes in one order.
const SLOW: [&str; 10] = [
    "run",
    "--seed",
    "7",
    "--filter",
    "auth.",
    "--rate",
    "12",
    "--concurrency",
    "1",
    "--report-dir",
];

fn covenant(args: &[&str]) -> Output {
    crate::support::covenant()
        .args(args)
        .output()
        .expect("covenant runs")
}

fn report_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("progress-{name}"))
}

/// The slow run, with `--progress WHEN` when given; its stdout and stderr.
fn slow_run(name: &str, progress: Option<&str>) -> (String, String) {
    let dir = report_dir(name);
    let mut args = SLOW.to_vec();
    args.push(dir.to_str().expect("a utf-8 temp path"));
    if let Some(when) = progress {
        args.extend(["--progress", when]);
    }
    let output = covenant(&args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    (stdout, stderr)
}

/// The plan's estimate of the slow run's requests and its cases, as `--dry-run` gives them.
fn planned() -> (u64, u64) {
    let mut args = SLOW[..9].to_vec();
    args.push("--dry-run");
    let output = covenant(&args);
    let text = String::from_utf8_lossy(&output.stdout);
    let last = text.lines().last().unwrap_or_default();
    // "30 cases, about 50 requests; nothing was sent (--dry-run)"
    let words: Vec<&str> = last.split_whitespace().collect();
    match words.as_slice() {
        [cases, "cases,", "about", requests, ..] => (
            requests.parse().expect("a number of requests"),
            cases.parse().expect("a number of cases"),
        ),
        _ => panic!("no plan in:\n{text}"),
    }
}

/// The progress lines of stderr.
fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.contains(" requests, ") && line.contains(" elapsed"))
        .collect()
}

/// Times (`4.98 s`, `finished in 4.98s`) as `T`, so that two runs' outputs compare.
fn without_times(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = c.to_string();
            while let Some(&next) = chars.peek().filter(|n| n.is_ascii_digit() || **n == '.') {
                number.push(next);
                chars.next();
            }
            out.push_str(if number.contains('.') { "T" } else { &number });
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn a_slow_run_shows_progress_against_the_plan_on_stderr_with_always_and_none_with_never() {
    let (requests, cases) = planned();
    let ((stdout, stderr), (quiet_stdout, quiet_stderr)) = std::thread::scope(|s| {
        let never = s.spawn(|| slow_run("never", Some("never")));
        let always = slow_run("always", Some("always"));
        (always, never.join().expect("the run without progress"))
    });

    let lines = progress_lines(&stderr);
    assert!(!lines.is_empty(), "no progress line in:\n{stderr}");
    for line in &lines {
        let (sent, rest) = line
            .strip_prefix("covenant: ")
            .and_then(|l| l.split_once(&format!("/~{requests} requests, ")))
            .unwrap_or_else(|| panic!("not against the plan's {requests} requests: {line}"));
        let sent: u64 = sent.parse().unwrap_or_else(|_| panic!("{line}"));
        let (done, _) = rest
            .split_once(&format!("/{cases} cases, "))
            .unwrap_or_else(|| panic!("not against the plan's {cases} cases: {line}"));
        let done: u64 = done.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(sent > 0 && done <= cases, "{line}");
        assert!(!line.contains('\x1b'), "escapes off a terminal: {line:?}");
    }
    assert!(
        !stdout.contains(" elapsed") && !stdout.contains('\x1b'),
        "the progress reached stdout:\n{stdout}"
    );
    assert_eq!(
        progress_lines(&quiet_stderr),
        Vec::<&str>::new(),
        "--progress never: {quiet_stderr}"
    );
    assert_eq!(
        without_times(&stdout),
        without_times(&quiet_stdout),
        "stdout differs with and without the progress line"
    );
}

#[test]
fn a_slow_run_shows_no_progress_by_default_when_stderr_is_not_a_terminal() {
    let (_, stderr) = slow_run("auto", None);

    assert_eq!(progress_lines(&stderr), Vec::<&str>::new(), "{stderr}");
}

#[test]
fn times_are_normalised_and_counts_kept() {
    assert_eq!(
        without_times("30 passed; finished in 4.98s; 50 requests in 4.98 s"),
        "30 passed; finished in Ts; 50 requests in T s"
    );
}
