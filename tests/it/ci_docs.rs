//! docs/ci.md's recipes work as written: every `covenant` command line of its code blocks runs
//! against the reference implementation, through `sh` as a CI job would run it, with the CI's
//! variables set to sample values. Each block runs in a fresh directory: its `covenant serve`
//! started (on a free port), every `covenant run` with `--dry-run` added; where the block merges
//! shards, its runs run for real first, the merge must succeed, and the JUnit report the block
//! publishes must exist; where the block writes a baseline of known failures, its lines run in
//! order, for real, and a run gating on a baseline the repository would hold gets an empty one.
//! A block of a GitHub Actions job (`runs-on:`) runs as GitHub runs it, with `GITHUB_ACTIONS=true`
//! and a step summary file: its runs also run for real, and the summary.md of its last run or
//! merge must have been appended to the step summary.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const CI_MD: &str = include_str!("../../docs/ci.md");

/// The shards the recipes split a run into (`shard: [1, 2, 3, 4]`, `parallel: 4`).
const SHARDS: u32 = 4;

/// The CI's run id, as the recipes pass it to `--seed`.
const RUN_ID: &str = "4242";

/// The contents of every fenced code block.
fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start().starts_with("```")) {
            (None, true) => current = Some(String::new()),
            (Some(_), true) => blocks.extend(current.take()),
            (Some(block), false) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, false) => {}
        }
    }
    blocks
}

/// The `covenant ...` command lines of a block: continuation lines joined, a YAML list's `- ` or
/// a step's `run: ` taken off, and the shell around the command (a redirection, `&`, `||`)
/// left out.
fn command_lines(block: &str) -> Vec<String> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(str::trim)
        .map(|line| line.strip_prefix("- ").unwrap_or(line))
        .map(|line| line.strip_prefix("run: ").unwrap_or(line))
        .filter(|line| line.starts_with("covenant "))
        .map(|line| {
            let end = [" > ", " 2>", " &", " || ", " && ", "; ", " | "]
                .iter()
                .filter_map(|tail| line.find(tail))
                .min()
                .unwrap_or(line.len());
            line[..end].split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// One command for each shard when the line names the shard, else the line once; GitHub's
/// `${{ ... }}` templates filled in. The shard index also goes to `$CI_NODE_INDEX`.
fn expand(line: &str) -> Vec<(String, u32)> {
    let per_shard = line.contains("${{ matrix.shard }}") || line.contains("$CI_NODE_INDEX");
    let shards = if per_shard { 1..=SHARDS } else { 1..=1 };
    shards
        .map(|k| {
            let filled = line
                .replace("${{ matrix.shard }}", &k.to_string())
                .replace("${{ github.run_id }}", RUN_ID);
            assert!(
                !filled.contains("${{"),
                "docs/ci.md: a template the test does not know in `{line}`"
            );
            (filled, k)
        })
        .collect()
}

/// The word after `flag` in a command line, unquoted.
fn value_of(line: &str, flag: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == flag)?;
    words.next().map(|w| w.trim_matches('"').to_owned())
}

/// A directory for one block, fresh.
fn scratch(name: &str) -> PathBuf {
    crate::support::scratch(&format!("ci-docs-{name}"))
}

/// `sh -u -c line` in `dir`, with covenant on the PATH and the CI's variables set (`-u`: a
/// variable the test does not set is an error, not an empty word).
fn shell(dir: &Path, line: &str, shard: u32) -> Command {
    shell_in(dir, line, shard, false)
}

/// The file of a GitHub job's step summary, in the block's directory.
const STEP_SUMMARY: &str = "github-step-summary.md";

/// [`shell`], in a GitHub Actions job when `github` (`GITHUB_ACTIONS` and `GITHUB_STEP_SUMMARY`
/// set as GitHub sets them), else with neither.
fn shell_in(dir: &Path, line: &str, shard: u32, github: bool) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_covenant"))
        .parent()
        .expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("sh");
    command
        .args(["-u", "-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_RUN_ID", RUN_ID)
        .env("CI_PIPELINE_ID", RUN_ID)
        .env("CI_NODE_INDEX", shard.to_string())
        .env("CI_NODE_TOTAL", SHARDS.to_string())
        .env("COVENANT_STATE", dir.join("state.json"));
    for var in crate::support::CONVENTIONS {
        command.env_remove(var);
    }
    if github {
        command
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", dir.join(STEP_SUMMARY));
    }
    command
}

fn succeeds(dir: &Path, line: &str, shard: u32) {
    succeeds_in(dir, line, shard, false);
}

fn succeeds_in(dir: &Path, line: &str, shard: u32, github: bool) {
    let output: Output = shell_in(dir, line, shard, github)
        .output()
        .expect("sh runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "docs/ci.md: `{line}` failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Servers started for a block, stopped when it is done.
struct Servers(Vec<Child>);

impl Drop for Servers {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Servers {
    /// Starts `line` (a `covenant serve` with `--profile-out`) on a free port, and waits until
    /// the profile is written.
    fn start(&mut self, dir: &Path, line: &str) {
        let line = line.replace("--port 8080", "--port 0");
        let profile = value_of(&line, "--profile-out").expect("serve writes a profile");
        let child = shell(dir, &format!("exec {line}"), 1)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("covenant serve starts");
        self.0.push(child);
        let path = dir.join(&profile);
        let start = Instant::now();
        while std::fs::metadata(&path).map_or(true, |m| m.len() == 0) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "`{line}` wrote no {profile}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Runs the commands of one block as the test's header says.
fn run_block(name: &str, block: &str) {
    let dir = scratch(name);
    let lines: Vec<(String, u32)> = command_lines(block)
        .iter()
        .flat_map(|l| expand(l))
        .collect();
    assert!(!lines.is_empty(), "block {name} has no covenant command");
    let of = |sub: &str| -> Vec<&(String, u32)> {
        let prefix = format!("covenant {sub} ");
        lines
            .iter()
            .filter(|(l, _)| l.starts_with(&prefix))
            .collect()
    };
    if lines.iter().any(|(_, shard)| *shard > 1) {
        let matrix = format!(
            "shard: [{}]",
            (1..=SHARDS)
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(
            block.contains(&matrix) || block.contains(&format!("parallel: {SHARDS}")),
            "block {name} runs shards, but not the {SHARDS} the test runs (`{matrix}` or `parallel: {SHARDS}`)"
        );
    }
    let mut servers = Servers(Vec::new());
    for (line, _) in of("serve") {
        servers.start(&dir, line);
    }
    for (line, _) in of("run") {
        let profile = value_of(line, "--profile").expect("a run of the recipes names a profile");
        if !dir.join(&profile).exists() {
            if let Some(parent) = Path::new(&profile).parent() {
                std::fs::create_dir_all(dir.join(parent)).expect("the profile's directory");
            }
            servers.start(
                &dir,
                &format!("covenant serve --port 0 --profile-out {profile}"),
            );
        }
    }
    if !of("baseline").is_empty() {
        // Writing a baseline: every line in order, for real (the baseline needs a report).
        for (line, shard) in lines
            .iter()
            .filter(|(l, _)| !l.starts_with("covenant serve "))
        {
            succeeds(&dir, line, *shard);
        }
        return;
    }
    for (line, _) in of("run") {
        // A gate on a baseline the repository holds: an empty one, for the reference breaks
        // nothing.
        if let Some(baseline) = value_of(line, "--baseline") {
            std::fs::write(dir.join(baseline), "# no known failure\n").expect("a baseline");
        }
    }
    let github = block.contains("runs-on:");
    for (line, shard) in of("run") {
        succeeds_in(&dir, &format!("{line} --dry-run"), *shard, github);
    }
    assert!(
        !dir.join(STEP_SUMMARY).exists(),
        "block {name}: a dry run wrote a step summary"
    );
    let merges = of("merge");
    if merges.is_empty() && !github {
        return;
    }
    for (line, shard) in of("run") {
        succeeds_in(&dir, line, *shard, github);
    }
    for (line, shard) in &merges {
        succeeds_in(&dir, line, *shard, github);
    }
    if github {
        let last = merges.last().or(of("run").last()).map(|(l, _)| l.as_str());
        let reports = last
            .and_then(|l| value_of(l, "--report-dir"))
            .unwrap_or_else(|| "reports".to_owned());
        let summary = std::fs::read_to_string(dir.join(&reports).join("summary.md"))
            .unwrap_or_else(|e| panic!("block {name}: {reports}/summary.md: {e}"));
        let step = std::fs::read_to_string(dir.join(STEP_SUMMARY))
            .unwrap_or_else(|e| panic!("block {name}: no step summary: {e}"));
        assert!(
            step.ends_with(&format!("{}\n", summary.trim_end())),
            "block {name}: the step summary does not end with {reports}/summary.md:\n{step}"
        );
    }
    for junit in block
        .split_whitespace()
        .filter(|word| word.ends_with("junit.xml"))
    {
        assert!(
            dir.join(junit).is_file(),
            "block {name} publishes {junit}, which the merge did not write"
        );
    }
}

#[test]
fn every_covenant_command_of_docs_ci_md_runs_against_the_reference() {
    let blocks = code_blocks(CI_MD);
    let with_commands: Vec<(usize, &String)> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| !command_lines(b).is_empty())
        .collect();
    assert!(
        with_commands.len() >= 5,
        "{} blocks with commands",
        with_commands.len()
    );
    let all: Vec<String> = blocks.iter().flat_map(|b| command_lines(b)).collect();
    for sub in ["serve", "run", "merge", "baseline"] {
        assert!(
            all.iter()
                .any(|l| l.starts_with(&format!("covenant {sub} "))),
            "docs/ci.md has no covenant {sub}"
        );
    }
    std::thread::scope(|s| {
        for (i, block) in with_commands {
            s.spawn(move || run_block(&format!("block-{i}"), block));
        }
    });
}

#[test]
fn command_lines_are_joined_and_cut_from_the_shell_around_them() {
    let block = "run: covenant list rules\n\
                 steps:\n  - run: |\n      covenant serve --port 8080 --profile-out p.toml > s.log 2>&1 &\n      \
                 covenant run --profile p.toml \\\n        --report-dir reports || code=$?\n\
                 - covenant merge shard-*/report.json --report-dir reports\n\
                 # covenant run in a comment\ncargo install covenant\n";
    assert_eq!(
        command_lines(block),
        [
            "covenant list rules",
            "covenant serve --port 8080 --profile-out p.toml",
            "covenant run --profile p.toml --report-dir reports",
            "covenant merge shard-*/report.json --report-dir reports",
        ]
    );
}

#[test]
fn lines_naming_the_shard_expand_to_every_shard() {
    let github = expand("covenant run --shard ${{ matrix.shard }}/4 --seed ${{ github.run_id }}");
    assert_eq!(github.len(), SHARDS as usize);
    assert_eq!(
        github[2],
        ("covenant run --shard 3/4 --seed 4242".to_owned(), 3)
    );
    let gitlab = expand("covenant run --shard \"$CI_NODE_INDEX/$CI_NODE_TOTAL\"");
    assert_eq!(
        gitlab.iter().map(|(_, k)| *k).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert_eq!(expand("covenant merge a.json").len(), 1);
}
