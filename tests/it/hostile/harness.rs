//! Running the real `covenant` binary against a hostile server, under a watchdog, and the
//! checks every such run must pass: a documented exit code (never 101), valid reports, and no
//! secret anywhere.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const FINOPS_TOKEN: &str = "fin-secret-TOKEN-5f1c";
pub const BANKING_TOKEN: &str = "bank-secret-TOKEN-9a2e";
pub const OTHER_SECRET: &str = "scope-less-secret-TOKEN-77d0";
pub const COUNTERPART: &str = "6f9619ff-8b86-4d11-b42d-00c04fc964ff";
pub const DELETABLE_TAG: &str = "1b4e28ba-2fa1-41d2-883f-0016d3cca427";
pub const DELETABLE_ACCOUNT: &str = "a3bb189e-8bf9-4888-9912-ace4e6543002";
/// The banking account the profile names: the preflight reads its transactions.
pub const BANK_ACCOUNT: &str = "e4eaaaf2-d142-11e1-b3e4-080027620cdd";

/// The profile every run uses: both areas' tokens and a handful of fixture ids.
pub fn profile_text() -> String {
    format!(
        r#"
[finops]
token = "{FINOPS_TOKEN}"
organization_id = "5e0e1b2c-8a4f-4d7e-9b1a-2c3d4e5f6a7b"
other_organization_id = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
counterpart_id = "{COUNTERPART}"
entity_user_id = "9b2e7c1a-3d4f-4a5b-8c6d-7e8f9a0b1c2d"
vat_rate_id = "0f8fad5b-d9cb-469f-a165-70867728950e"
comment_ids = ["c56a4180-65aa-42ec-a945-5fd21dec0538"]
deletable_tag_ids = ["{DELETABLE_TAG}"]

[[finops.deletable_bank_accounts]]
counterpart_id = "{COUNTERPART}"
bank_account_id = "{DELETABLE_ACCOUNT}"

[banking]
token = "{BANKING_TOKEN}"
token_without_scope = "{OTHER_SECRET}"
org_header = "x-organization-id"
organization_id = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
bank_account_id = "{BANK_ACCOUNT}"
"#
    )
}

pub const SECRETS: [&str; 3] = [FINOPS_TOKEN, BANKING_TOKEN, OTHER_SECRET];

/// A fresh, empty directory for one test under cargo's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    crate::support::scratch(&format!("hostile-{name}"))
}

/// One finished run of the binary.
#[derive(Debug)]
pub struct FinishedRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub dir: PathBuf,
}

impl FinishedRun {
    /// The run is INCOMPLETE on every surface: its exit code, the console, and all four reports.
    pub fn assert_incomplete(&self) {
        assert_eq!(self.code, 4, "exit code; stdout:\n{}", self.stdout);
        assert!(
            self.stdout.contains("covenant: INCOMPLETE: "),
            "console: {}",
            self.stdout
        );
        assert_eq!(self.report()["verdict"], "incomplete");
        let reports = self.dir.join("reports");
        let read = |name: &str| std::fs::read_to_string(reports.join(name)).unwrap_or_default();
        assert!(read("summary.md").contains("INCOMPLETE"), "summary.md");
        assert!(
            read("summary.html").contains("data-verdict=\"incomplete\""),
            "summary.html"
        );
        let junit = read("junit.xml");
        assert!(
            junit.contains("name=\"run.verdict\"") && junit.contains("INCOMPLETE"),
            "junit.xml: {junit}"
        );
    }

    /// report.json, parsed.
    pub fn report(&self) -> Value {
        let path = self.dir.join("reports/report.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("no {} ({e}); stderr:\n{}", path.display(), self.stderr));
        serde_json::from_str(&text).expect("report.json is JSON")
    }

    /// The case of this id in report.json.
    pub fn case(&self, id: &str) -> Value {
        let report = self.report();
        report["cases"]
            .as_array()
            .and_then(|cases| cases.iter().find(|c| c["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no case {id} in report.json; stdout:\n{}", self.stdout))
    }

    pub fn verdict(&self, id: &str) -> String {
        self.case(id)["verdict"].as_str().unwrap_or("").to_owned()
    }

    /// The case's error, findings and exchange errors as one text, for message assertions.
    pub fn says(&self, id: &str) -> String {
        let case = self.case(id);
        let mut text = case["error"].as_str().unwrap_or("").to_owned();
        for f in case["findings"].as_array().into_iter().flatten() {
            text.push_str(&format!("\n[{}] {}", f["rule"], f["message"]));
        }
        for e in case["exchanges"].as_array().into_iter().flatten() {
            text.push_str(&format!("\n{}", e["error"].as_str().unwrap_or("")));
        }
        text
    }

    /// The rules of the case's findings.
    pub fn rules(&self, id: &str) -> Vec<String> {
        self.case(id)["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["rule"].as_str().map(str::to_owned))
            .collect()
    }

    /// Everything a finished run must satisfy, whatever the target did: a documented exit code,
    /// valid reports, no secret in any output.
    pub fn assert_sound(&self) {
        assert!(
            [0, 1, 2, 3, 4].contains(&self.code),
            "exit code {} is not documented (101 is a panic); stderr:\n{}",
            self.code,
            self.stderr
        );
        assert_no_secret("stdout", &self.stdout);
        assert_no_secret("stderr", &self.stderr);
        for file in files(&self.dir)
            .into_iter()
            .filter(|f| !f.ends_with("profile.toml"))
        {
            let bytes = std::fs::read(&file).expect("read a written file");
            assert_no_secret(
                &file.display().to_string(),
                &String::from_utf8_lossy(&bytes),
            );
        }
        let reports = self.dir.join("reports");
        if reports.join("report.json").exists() {
            let report = self.report();
            assert!(report["cases"].is_array(), "report.json has no cases");
            assert_valid_junit(&reports.join("junit.xml"));
        }
    }

    /// Asserts the run wrote its reports and ran (or skipped, if `ran` is false) this case.
    pub fn assert_ran(&self, id: &str) {
        let case = self.case(id);
        assert_ne!(case["verdict"], "skip", "{id} did not run: {case}");
        assert!(
            case["requests"].as_u64() > Some(0),
            "{id} sent nothing: {case}"
        );
    }
}

/// Neither a secret nor all of it but its last character, which is what a tampered token (its
/// last character changed, or truncated) shows of it.
fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        let most = &secret[..secret.len() - 1];
        assert!(
            !text.contains(most),
            "{what} holds the secret {secret}, or all of it but its last character"
        );
    }
}

fn assert_valid_junit(path: &Path) {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/junit.xsd");
    let output = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd)
        .arg(path)
        .output()
        .expect("xmllint runs (apt-get install -y libxml2-utils)");
    assert!(
        output.status.success(),
        "{} is not valid JUnit XML:\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A run being prepared: `covenant run --target URL --profile P --report-dir D --seed 1
/// --timeout 1` plus the test's own arguments.
pub struct Covenant {
    dir: PathBuf,
    command: Command,
    timeout: bool,
    close_stdout: bool,
}

impl Covenant {
    pub fn new(name: &str, target: &str) -> Covenant {
        let dir = scratch(name);
        let profile = dir.join("profile.toml");
        std::fs::write(&profile, profile_text()).expect("write the profile");
        let mut command = crate::support::covenant();
        command
            .arg("run")
            .arg("--target")
            .arg(target)
            .arg("--profile")
            .arg(&profile)
            .arg("--report-dir")
            .arg(dir.join("reports"))
            .args(["--seed", "1", "--cases", "0"])
            .env("COVENANT_STATE", dir.join("fixtures.json"))
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(file(&dir, "stdout.txt"))
            .stderr(file(&dir, "stderr.txt"));
        Covenant {
            dir,
            command,
            timeout: false,
            close_stdout: false,
        }
    }

    pub fn args<I, S>(mut self, args: I) -> Covenant
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        for arg in args {
            self.timeout |= arg.as_ref() == "--timeout";
            self.command.arg(arg);
        }
        self
    }

    /// Gives the binary a stdout pipe whose reading end is closed at once (`covenant | head`).
    pub fn closed_stdout(mut self) -> Covenant {
        self.close_stdout = true;
        self.command.stdout(Stdio::piped());
        self
    }

    /// Starts the binary without waiting (`--timeout 1` unless the test gave one).
    pub fn spawn(mut self) -> Running {
        if !self.timeout {
            self.command.args(["--timeout", "1"]);
        }
        let mut child = self.command.spawn().expect("start the covenant binary");
        if self.close_stdout {
            drop(child.stdout.take());
        }
        Running {
            child,
            dir: self.dir,
            started: Instant::now(),
        }
    }

    /// Runs the binary to its end; panics when it is still running after `bound`.
    pub fn run(self, bound: Duration) -> FinishedRun {
        self.spawn().wait(bound)
    }
}

fn file(dir: &Path, name: &str) -> std::fs::File {
    std::fs::File::create(dir.join(name)).expect("create an output file")
}

/// A binary that is running.
pub struct Running {
    child: Child,
    pub dir: PathBuf,
    started: Instant,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn has_ended(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the end, polling; kills the child and fails the test after `bound`.
    pub fn wait(mut self, bound: Duration) -> FinishedRun {
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if self.started.elapsed() > bound => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "covenant did not end within {bound:?}; stderr:\n{}",
                        read(&self.dir, "stderr.txt")
                    );
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => panic!("cannot wait for covenant: {e}"),
            }
        };
        FinishedRun {
            code: status.code().unwrap_or(-1),
            stdout: read(&self.dir, "stdout.txt"),
            stderr: read(&self.dir, "stderr.txt"),
            elapsed: self.started.elapsed(),
            dir: self.dir,
        }
    }
}

fn read(dir: &Path, name: &str) -> String {
    String::from_utf8_lossy(&std::fs::read(dir.join(name)).unwrap_or_default()).into_owned()
}

/// Sends a signal by name (`TERM`, `INT`) with the system's `kill`.
pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid} failed");
}
