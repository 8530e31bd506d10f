//! The conventions a CI user expects, through the real binary: GitHub Actions annotations and
//! the step summary, `--color` with `NO_COLOR` and `CLICOLOR_FORCE`, shell completions and man
//! pages generated from the flags, and a `--version` that names what it judges against.

use crate::support::{covenant, says, scratch};
use std::path::Path;
use std::process::{Command, Output};

/// Two faults of the embedded reference, each breaking its own rule in several cases.
const FAULTS: [&str; 2] = ["gen-json-body-broken", "gen-mailbox-id-not-uuid"];

fn output(command: &mut Command) -> Output {
    command.output().expect("covenant runs")
}

/// A run of the embedded reference with [`FAULTS`], in `dir`, reports in `dir/reports`.
fn failing_run(dir: &Path) -> Command {
    failing_run_into(dir, "reports")
}

/// [`failing_run`], reports in `dir/REPORTS`.
fn failing_run_into(dir: &Path, reports: &str) -> Command {
    let mut command = covenant();
    command
        .current_dir(dir)
        .args(["run", "--seed", "3", "--quiet", "--report-dir", reports]);
    for fault in FAULTS {
        command.args(["--fault", fault]);
    }
    command
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The workflow commands of an output, each line whole.
fn commands(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("::")).collect()
}

/// `broken rules (N):` of the console summary.
fn console_groups(text: &str) -> usize {
    let line = text
        .lines()
        .find(|l| l.starts_with("broken rules ("))
        .unwrap_or_else(|| panic!("no broken rules in:\n{text}"));
    line.trim_start_matches("broken rules (")
        .trim_end_matches("):")
        .parse()
        .expect("a count")
}

#[test]
fn a_failing_run_in_github_actions_annotates_each_broken_rule_once_and_fills_the_step_summary() {
    let dir = scratch("conventions-github");
    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, "earlier step\n").expect("a step summary so far");
    let ran = output(
        failing_run(&dir)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", &summary),
    );
    assert_eq!(ran.status.code(), Some(1), "{}", says(&ran));
    let text = stdout(&ran);
    let errors: Vec<&str> = commands(&text)
        .into_iter()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(errors.len(), console_groups(&text), "{text}");
    assert!(errors.len() <= 50);
    for rule in ["GEN-JSON-BODY", "GEN-IDS-UUID"] {
        let line = errors
            .iter()
            .find(|l| l.starts_with(&format!("::error title={rule} (must)::")))
            .unwrap_or_else(|| panic!("no ::error for {rule}:\n{text}"));
        assert!(line.contains("%0Abroken in "), "{line}");
        assert!(line.contains("%0Afirst: "), "{line}");
        assert!(!line.contains('\r'), "{line}");
    }
    let step = std::fs::read_to_string(&summary).expect("the step summary");
    let written = std::fs::read_to_string(dir.join("reports/summary.md")).expect("summary.md");
    assert!(step.starts_with("earlier step\n"), "appended, not replaced");
    assert!(step.contains(written.trim_end()), "{step}");
    assert!(step.contains("FAILED"), "{step}");

    // Outside GitHub, or with `never`, no workflow command; with `always`, the same ones.
    let plain = output(&mut failing_run(&dir));
    assert!(commands(&stdout(&plain)).is_empty(), "{}", says(&plain));
    let never = output(
        failing_run(&dir)
            .env("GITHUB_ACTIONS", "true")
            .args(["--ci-annotations", "never"]),
    );
    assert!(commands(&stdout(&never)).is_empty(), "{}", says(&never));
    let always = output(failing_run(&dir).args(["--ci-annotations", "always"]));
    let titles = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.split("::").nth(1).unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(
        titles(&commands(&stdout(&always))),
        titles(&errors),
        "{}",
        says(&always)
    );
}

#[test]
fn known_failures_under_a_baseline_are_notices_and_a_merge_annotates_too() {
    let dir = scratch("conventions-github-known");
    let first = output(&mut failing_run(&dir));
    assert_eq!(first.status.code(), Some(1), "{}", says(&first));
    let wrote = output(covenant().current_dir(&dir).args([
        "baseline",
        "reports/report.json",
        "-o",
        "known.toml",
    ]));
    assert_eq!(wrote.status.code(), Some(0), "{}", says(&wrote));
    let text = std::fs::read_to_string(dir.join("known.toml")).expect("the baseline");
    std::fs::write(
        dir.join("known.toml"),
        text.replace("reason = \"\"", "reason = \"tracked in #7\""),
    )
    .expect("reasons filled in");
    let gated = output(
        failing_run_into(&dir, "gated")
            .args(["--baseline", "known.toml"])
            .env("GITHUB_ACTIONS", "true"),
    );
    assert_eq!(gated.status.code(), Some(0), "{}", says(&gated));
    let lines = stdout(&gated);
    let commands = commands(&lines);
    // One notice per known rule: as many as the baseline has entries.
    let known = text.matches("[[known]]").count();
    assert!(known >= FAULTS.len(), "{text}");
    assert_eq!(commands.len(), known, "{lines}");
    assert!(
        commands.iter().all(|l| l.starts_with("::notice title=")
            && l.contains("known failure in")
            && l.contains("tracked in #7")),
        "{lines}"
    );

    // The merge of a run's reports annotates the merged run, as the run did.
    let merged = output(
        covenant()
            .current_dir(&dir)
            .args(["merge", "reports/report.json", "--report-dir", "merged"])
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", dir.join("merge-summary.md")),
    );
    assert_eq!(merged.status.code(), Some(1), "{}", says(&merged));
    let text = stdout(&merged);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("::error ")).count(),
        known,
        "{text}"
    );
    assert!(dir.join("merge-summary.md").is_file());
}

fn has_escapes(output: &Output) -> bool {
    output.stdout.contains(&0x1b) || output.stderr.contains(&0x1b)
}

#[test]
fn colours_follow_the_flag_then_no_color_and_clicolor_force_on_every_command() {
    let dir = scratch("conventions-colour");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = covenant();
        command.current_dir(&dir).args(args);
        for (k, v) in env {
            command.env(k, v);
        }
        output(&mut command)
    };
    let passing = ["run", "--seed", "1", "--report-dir", "reports"];
    let failing = [
        "run",
        "--seed",
        "1",
        "--report-dir",
        "failed",
        "--fault",
        FAULTS[0],
    ];
    // Through a pipe: none unless asked.
    assert!(!has_escapes(&run(&passing, &[])));
    let always = run(&[&passing[..], &["--color", "always"]].concat(), &[]);
    assert!(has_escapes(&always), "{}", says(&always));
    assert!(
        stdout(&always).contains("covenant: \x1b[32mPASS\x1b[0m."),
        "{}",
        says(&always)
    );
    let forced = run(&passing, &[("CLICOLOR_FORCE", "1")]);
    assert!(has_escapes(&forced), "{}", says(&forced));
    assert!(!has_escapes(&run(&passing, &[("CLICOLOR_FORCE", "0")])));
    let both = run(&passing, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!has_escapes(&both), "NO_COLOR wins: {}", says(&both));
    let flag_wins = run(
        &[&passing[..], &["--color", "always"]].concat(),
        &[("NO_COLOR", "1")],
    );
    assert!(has_escapes(&flag_wins), "{}", says(&flag_wins));
    let red = run(&[&failing[..], &["--color", "always"]].concat(), &[]);
    assert!(stdout(&red).contains("\x1b[1;31mFAILED"), "{}", says(&red));

    // Every command takes the flag, and none paints under `never` or NO_COLOR, even forced.
    let har = dir.join("empty.har");
    std::fs::write(&har, r#"{"log":{"version":"1.2","entries":[]}}"#).expect("a HAR");
    let har = har.to_str().expect("a path");
    let commands: [&[&str]; 7] = [
        &failing,
        &["merge", "failed/report.json", "--report-dir", "merged"],
        &["compare", "reports/report.json", "failed/report.json"],
        &["baseline", "failed/report.json", "-o", "known.toml"],
        &["selftest", "--fault", FAULTS[0], "--report-dir", "selftest"],
        &["check", har, "--report-dir", "checked"],
        &["proxy", "--help"],
    ];
    for args in commands {
        let forced = [("CLICOLOR_FORCE", "1")];
        let never = run(&[args, &["--color", "never"]].concat(), &forced);
        assert!(!has_escapes(&never), "--color never: {}", says(&never));
        assert_ne!(never.status.code(), Some(2), "{args:?}: {}", says(&never));
        let no_color = run(args, &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]);
        assert!(!has_escapes(&no_color), "NO_COLOR: {}", says(&no_color));
    }
    for args in &commands[..3] {
        let painted = run(&[args, &["--color", "always"][..]].concat(), &[]);
        assert!(has_escapes(&painted), "{args:?}: {}", says(&painted));
    }
    let selftest = run(&[commands[4], &["--color", "always"]].concat(), &[]);
    assert!(
        stdout(&selftest).contains("\x1b[32myes"),
        "{}",
        says(&selftest)
    );
}

#[test]
fn bash_completions_parse_and_complete_subcommands_and_flags() {
    let dir = scratch("conventions-completions");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = output(covenant().args(["completions", shell]));
        assert_eq!(script.status.code(), Some(0), "{shell}: {}", says(&script));
        assert!(stdout(&script).contains("selftest"), "{shell}");
    }
    let script = output(covenant().args(["completions", "bash"]));
    let path = dir.join("covenant.bash");
    std::fs::write(&path, &script.stdout).expect("the script");
    let text = stdout(&script);
    for word in [
        "run",
        "merge",
        "--ci-annotations",
        "--color",
        "--report-dir",
    ] {
        assert!(text.contains(word), "{word} not in the script");
    }
    let syntax = output(Command::new("bash").arg("-n").arg(&path));
    assert_eq!(syntax.status.code(), Some(0), "{}", says(&syntax));
    // What bash offers at `covenant sel<TAB>` and `covenant run --ci<TAB>`.
    let complete = |words: &str, cword: usize| {
        let program = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE='{words}'; \
             COMP_POINT=${{#COMP_LINE}}; _covenant covenant \"${{COMP_WORDS[$COMP_CWORD]}}\" \
             \"${{COMP_WORDS[$COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[*]}}\"",
            path.display()
        );
        let done = output(Command::new("bash").arg("-c").arg(program));
        assert_eq!(done.status.code(), Some(0), "{}", says(&done));
        stdout(&done).trim().to_owned()
    };
    assert_eq!(complete("covenant sel", 1), "selftest");
    assert_eq!(complete("covenant run --ci", 2), "--ci-annotations");
}

#[test]
fn man_pages_render_for_covenant_and_each_command() {
    let renderer = [
        ("man", &["-l", "-"][..]),
        ("groff", &["-man", "-Tutf8"][..]),
    ]
    .into_iter()
    .find(|(program, _)| {
        Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let Some((program, args)) = renderer else {
        eprintln!("skipped: neither man nor groff is installed to render the page");
        return;
    };
    for (page, heading) in [(None, "covenant"), (Some("run"), "covenant-run")] {
        let roff = output(covenant().arg("man").args(page));
        assert_eq!(roff.status.code(), Some(0), "{}", says(&roff));
        assert!(stdout(&roff).starts_with(".ie \\n(.g"), "{}", stdout(&roff));
        let mut render = Command::new(program);
        render
            .args(args)
            .env("MANWIDTH", "100")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = render.spawn().expect("the renderer starts");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(&roff.stdout).expect("the page is written");
        }
        let shown = child.wait_with_output().expect("the page renders");
        let text = stdout(&shown);
        assert!(shown.status.success(), "{}", says(&shown));
        assert!(text.contains("NAME") && text.contains(heading), "{text}");
        assert!(text.contains("--color"), "{text}");
        assert!(
            String::from_utf8_lossy(&shown.stderr).trim().is_empty(),
            "{program} warned: {}",
            says(&shown)
        );
    }
    let unknown = output(covenant().args(["man", "nosuch"]));
    assert_eq!(unknown.status.code(), Some(2), "{}", says(&unknown));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("selftest"));
}

#[test]
fn the_version_and_report_json_name_the_spec_the_rules_and_the_catalogue_hash() {
    let dir = scratch("conventions-version");
    let version = stdout(&output(covenant().arg("--version")));
    let rules = stdout(&output(covenant().args(["list", "rules"])));
    let count = covenant::catalogue::Catalogue::embedded().rules.len();
    assert!(rules.contains(&count.to_string()), "{rules}");
    let expected = format!(
        "covenant {} (spec {}, {count} rules, catalogue ",
        env!("CARGO_PKG_VERSION"),
        covenant::schema::DEFAULT_FINOPS_VERSION
    );
    assert!(version.starts_with(&expected), "{version}");
    let hash = version
        .trim_end()
        .trim_end_matches(')')
        .rsplit(' ')
        .next()
        .expect("a hash");
    assert_eq!(hash.len(), 12, "{version}");
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{version}");

    let ran = output(covenant().current_dir(&dir).args([
        "run",
        "--seed",
        "1",
        "-q",
        "--report-dir",
        "r",
    ]));
    assert_eq!(ran.status.code(), Some(0), "{}", says(&ran));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("r/report.json")).expect("report.json"),
    )
    .expect("JSON");
    let judged = &report["meta"]["judged_against"];
    assert_eq!(
        judged["spec_version"],
        covenant::schema::DEFAULT_FINOPS_VERSION
    );
    assert_eq!(judged["rules"], count);
    assert_eq!(judged["catalogue_hash"], hash);

    // A report of a covenant before these fields is still read.
    let mut old = report.clone();
    old["meta"]
        .as_object_mut()
        .expect("meta")
        .remove("judged_against");
    std::fs::write(dir.join("old.json"), old.to_string()).expect("the old report");
    let compared =
        output(
            covenant()
                .current_dir(&dir)
                .args(["compare", "old.json", "r/report.json"]),
        );
    assert_eq!(compared.status.code(), Some(0), "{}", says(&compared));
}
