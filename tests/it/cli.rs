//! The command line as a user meets it, through the real binary: every command quiet on a closed
//! stdout, and the README, `--help` and `crates/contract/src/exit.rs` telling the same flags and exit codes.

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const README: &str = include_str!("../../README.md");
const EXIT_RS: &str = include_str!("../../crates/contract/src/exit.rs");

/// Flags the README names that belong to other programs: cargo's `--release`, `--locked`,
/// `--path`, `--test` and `--example`, libtest's `--exact` and `--ignored`, and Schemathesis'
/// flags in the speed comparison.
const FOREIGN_FLAGS: [&str; 11] = [
    "--release",
    "--test",
    "--example",
    "--exact",
    "--ignored",
    "--max-examples",
    "--workers",
    "--checks",
    "--locked",
    "--path",
    // curl's, in the curl of a request whose body is in a file.
    "--data-binary",
];

fn covenant(args: &[&str]) -> Output {
    crate::support::covenant()
        .args(args)
        .output()
        .expect("covenant runs")
}

fn scratch(name: &str) -> PathBuf {
    crate::support::scratch(&format!("cli-{name}"))
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
    let output = crate::support::covenant()
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
    let mut child = crate::support::covenant()
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

/// The long flags of one `--help`: the first `--name` of each line of its option list.
fn flags_of(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter(|line| line.starts_with(' ') && line.trim_start().starts_with('-'))
        .filter_map(|line| long_flags(line).into_iter().next())
        .collect()
}

/// Every `--name` in `text` (a name starts with a letter; `--` alone is not one).
fn long_flags(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let is_name = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    let mut flags = Vec::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--").map(|at| i + at) {
        let after_dash = at == 0 || !(is_name(bytes[at - 1]) || bytes[at - 1] == b'-');
        let starts_name = bytes.get(at + 2).is_some_and(u8::is_ascii_lowercase);
        let mut end = at + 2;
        while end < bytes.len() && is_name(bytes[end]) {
            end += 1;
        }
        if after_dash && starts_name {
            flags.push(text[at..end].to_owned());
        }
        i = end.max(at + 2);
    }
    flags
}

/// The subcommands a `--help` lists under `Commands:` (clap's own `help` left out).
fn subcommands_of(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

fn help(path: &[String]) -> String {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let output = covenant(&args);
    assert_eq!(output.status.code(), Some(0), "covenant {args:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every command that runs (leaves of the command tree), with its `--help`.
fn commands() -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending: Vec<Vec<String>> = subcommands_of(&help(&[]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    while let Some(path) = pending.pop() {
        let text = help(&path);
        let below = subcommands_of(&text);
        if below.is_empty() {
            found.push((path.join(" "), text));
        }
        pending.extend(below.into_iter().map(|c| {
            let mut deeper = path.clone();
            deeper.push(c);
            deeper
        }));
    }
    found.sort();
    found
}

/// Where README documents a command's flags: its row of the Commands table, and its own
/// section `### Flags of \`covenant CMD\`` where it has one.
fn readme_place(command: &str) -> String {
    let row_start = format!("| `covenant {command}");
    let row = README
        .lines()
        .find(|line| {
            line.starts_with(&row_start) && line[row_start.len()..].starts_with(['`', ' '])
        })
        .unwrap_or_else(|| panic!("README's Commands table has no row for covenant {command}"));
    let heading = format!("### Flags of `covenant {command}`");
    let section = README
        .split_once(&heading)
        .map(|(_, rest)| rest.split("\n#").next().unwrap_or(rest))
        .unwrap_or("");
    format!("{row}\n{section}")
}

#[test]
fn readme_documents_every_flag_of_every_command_in_its_place() {
    let commands = commands();
    assert!(commands.len() >= 9, "{commands:?}");
    // Global flags (`--color`) are on every command and documented once, beside the table.
    let global = flags_of(&help(&[]));
    for (command, help) in &commands {
        let flags: BTreeSet<String> = flags_of(help)
            .into_iter()
            .filter(|f| f != "--help" && !global.contains(f))
            .collect();
        let place = readme_place(command);
        let named: BTreeSet<String> = long_flags(&place).into_iter().collect();
        let undocumented: Vec<_> = flags.difference(&named).collect();
        assert!(
            undocumented.is_empty(),
            "README does not document {undocumented:?} of covenant {command}"
        );
        let unknown: Vec<_> = named.difference(&flags).collect();
        assert!(
            unknown.is_empty(),
            "README names {unknown:?} for covenant {command}, which has no such flag"
        );
    }
}

#[test]
fn every_flag_the_readme_names_exists_and_the_top_level_flags_are_named() {
    let mut known: BTreeSet<String> = flags_of(&help(&[]));
    assert!(known.contains("--version") && known.contains("--help"));
    for flag in &known {
        assert!(
            long_flags(README).contains(flag),
            "README never names {flag}"
        );
    }
    for (_, help) in commands() {
        known.extend(flags_of(&help));
    }
    for flag in long_flags(README) {
        assert!(
            known.contains(&flag) || FOREIGN_FLAGS.contains(&flag.as_str()),
            "README names {flag}, which no command has"
        );
    }
}

#[test]
fn flag_extraction_finds_long_flags_and_nothing_else() {
    assert_eq!(
        long_flags("`-q`, `--quiet`; cargo run --release -- run |---|---| (--max-body BYTES)"),
        ["--quiet", "--release", "--max-body"]
    );
    assert_eq!(
        flags_of("Options:\n      --seed <N>  a seed; see --shard\n  -q, --quiet  less\n"),
        ["--seed", "--quiet"].map(String::from).into()
    );
}

/// `(code, meaning)` rows of a Markdown table `| code | meaning |` in `text`.
fn markdown_codes(text: &str) -> Vec<(u8, String)> {
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().split('|').map(str::trim).collect();
            match cells.as_slice() {
                ["", code, meaning, ""] => Some((code.parse().ok()?, meaning.replace('`', ""))),
                _ => None,
            }
        })
        .collect()
}

/// `(code, meaning)` rows of the `Exit codes` table a `--help` prints.
fn help_codes(help: &str) -> Vec<(u8, String)> {
    help.lines()
        .skip_while(|line| !line.starts_with("Exit codes"))
        .skip(1)
        .map_while(|line| {
            let (code, meaning) = line.trim_start().split_once("  ")?;
            Some((code.parse().ok()?, meaning.trim().to_owned()))
        })
        .collect()
}

#[test]
fn readme_help_and_exit_rs_give_the_same_exit_codes() {
    let readme_section = README
        .split_once("### Exit codes")
        .map(|(_, rest)| rest.split("\n#").next().unwrap_or(rest))
        .expect("README has an Exit codes section");
    let readme = markdown_codes(readme_section);
    let module_doc: String = EXIT_RS
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    let exit_rs = markdown_codes(&module_doc);
    let in_help = help_codes(&help(&[]));

    let codes: Vec<u8> = readme.iter().map(|(code, _)| *code).collect();
    assert_eq!(codes, [0, 1, 2, 3, 4, 5, 6, 7], "{readme:?}");
    assert_eq!(
        exit_rs, readme,
        "crates/contract/src/exit.rs and README disagree"
    );
    assert_eq!(in_help, readme, "covenant --help and README disagree");
    for line in EXIT_RS.lines() {
        if let Some(value) = line
            .strip_prefix("pub const ")
            .and_then(|rest| rest.split_once(": u8 = "))
            .and_then(|(_, value)| value.trim_end_matches(';').parse::<u8>().ok())
        {
            assert!(codes.contains(&value), "exit code {value} undocumented");
        }
    }
}

#[test]
fn compare_help_readme_and_exit_rs_give_the_same_exit_codes_of_compare() {
    let readme_section = README
        .split_once("#### Exit codes of `covenant compare`")
        .map(|(_, rest)| rest.split("\n#").next().unwrap_or(rest))
        .expect("README has an Exit codes of covenant compare section");
    let readme = markdown_codes(readme_section);
    let exit_rs: Vec<(u8, String)> = covenant::exit::COMPARE
        .iter()
        .map(|(code, meaning)| (*code, (*meaning).to_owned()))
        .collect();
    let in_help = help_codes(&help(&["compare".to_owned()]));

    let codes: Vec<u8> = readme.iter().map(|(code, _)| *code).collect();
    assert_eq!(codes, [0, 1, 2, 4, 5, 6], "{readme:?}");
    assert_eq!(
        exit_rs, readme,
        "crates/contract/src/exit.rs and README disagree"
    );
    assert_eq!(
        in_help, readme,
        "covenant compare --help and README disagree"
    );
}

#[test]
fn the_readme_shows_what_version_prints_and_help_sends_no_one_to_the_source() {
    let printed = utf8_out(&covenant(&["--version"]));
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    assert!(
        readme.contains(&format!("(`{}`)", printed.trim())),
        "README's `covenant --version` example is not what it prints: {printed}"
    );
    let help = utf8_out(&covenant(&["--help"]));
    assert!(!help.contains(".rs"), "--help names a source file: {help}");
    let man = utf8_out(&covenant(&["man"]));
    assert!(!man.contains(".rs "), "the man page names a source file");
}

fn utf8_out(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_dry_run_counts_one_request_in_the_singular_and_calls_no_refused_write_a_read() {
    let plan = utf8_out(&covenant(&["run", "--dry-run", "--seed", "1"]));
    assert!(!plan.contains("~1 requests"), "{plan}");
    assert!(plan.contains("~1 request,"), "{plan}");
    let unauthenticated_delete = plan
        .lines()
        .find(|l| l.contains("auth.") && l.contains("delete-tag"))
        .expect("an auth case of delete tag is planned");
    assert!(
        unauthenticated_delete.contains("sends DELETE requests the target must refuse"),
        "{unauthenticated_delete}"
    );
}
