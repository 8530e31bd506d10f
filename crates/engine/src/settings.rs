//! The settings of a run: what `covenant run` was asked to do, as plain, validated values.
//!
//! The command line builds them (`cli::run`), validating every flag once, here; the runner, the
//! self-test and the tests take them and never see a flag or clap. The defaults live here too,
//! so that the command line and settings built by hand ([`RunSettings::new`]) mean the same run.

use crate::case::{Generation, Until};
use crate::exit::Fatal;
use crate::reference::FaultSet;
use std::path::PathBuf;
use std::time::Duration;

/// Generated cases per operation, by default.
pub const DEFAULT_CASES: u32 = 25;
/// Command sequences the explorer draws in a default run (`--explore`).
pub const DEFAULT_EXPLORE: u32 = 2;
/// The deepest `--explore-depth`: a sequence of it sends about a thousand requests.
pub const MAX_EXPLORE_DEPTH: u32 = 20;
/// Cases run at once, and requests in flight at once, by default.
pub const DEFAULT_CONCURRENCY: usize = 8;
/// Per-request timeout in seconds, by default.
pub const DEFAULT_TIMEOUT_SECS: f64 = 10.0;
/// The largest response body read, by default.
pub const DEFAULT_MAX_BODY: u64 = 10 * 1024 * 1024;
/// Where reports are written, by default.
pub const DEFAULT_REPORT_DIR: &str = "reports";

/// Cases run at once, at most (each holds a thread).
pub const MAX_CONCURRENCY: usize = 1024;
/// `--rate` bounds: one request in 1000 s, a million a second.
pub const MIN_RATE: f64 = 0.001;
pub const MAX_RATE: f64 = 1e6;
/// The longest `--timeout` or `--deadline` accepted (a day).
pub const MAX_SECONDS: Duration = Duration::from_secs(86_400);

/// Which server a run tests.
#[derive(Debug, Clone)]
pub enum TargetChoice {
    /// The embedded reference, started in-process, with these deliberate faults on.
    Embedded { faults: FaultSet },
    /// A server of the user's: a base URL (else the profile's `base_url`) and a profile.
    Given {
        url: Option<url::Url>,
        profile: Option<PathBuf>,
    },
}

/// What a run does once its plan is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Send the cases.
    Run,
    /// Print the case ids and send nothing.
    List,
    /// Print the plan (cases, requests, fixtures consumed) and send nothing.
    DryRun,
}

impl Mode {
    /// Whether the run sends anything at all (a probe, a token request, a case).
    pub fn sends(self) -> bool {
        self == Mode::Run
    }
}

/// The K-th of N parts of the cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> Result<Shard, Fatal> {
        let (index, count) = crate::verdict::parse_shard(text).ok_or_else(|| {
            Fatal::Usage(format!(
                "--shard {text:?}: expected K/N with 1 <= K <= N, e.g. 2/4"
            ))
        })?;
        Ok(Shard { index, count })
    }

    /// Whether a case belongs to this shard: by a stable hash of its id, so that adding a case
    /// never moves the others.
    pub fn contains(&self, id: &str) -> bool {
        crate::digest::fnv1a(id.as_bytes()) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

/// `K/N`, as `--shard` takes it and a report's `meta.shard` holds it.
impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// When a run shows its progress line on stderr (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShowProgress {
    /// When stderr is a terminal.
    #[default]
    Auto,
    /// Also when stderr is not a terminal: a plain line now and then.
    Always,
    Never,
}

/// Which cases of the suite a run keeps.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Keep only cases whose id contains one of these (all when empty).
    pub filter: Vec<String>,
    /// Drop cases whose id contains one of these.
    pub skip: Vec<String>,
    /// Drop cases that create, update or delete.
    pub read_only: bool,
    /// Leave the hand-written scenarios out (generated, pagination and generic checks stay).
    pub generated_only: bool,
    pub shard: Option<Shard>,
    /// Keep only the cases of exactly these ids (the self-test's cases of one fault); all when
    /// none. Unlike `filter`, an id never matches another that contains it.
    pub ids: Option<std::collections::BTreeSet<String>>,
}

/// How the run treats the target's network: bounds, credentials of TLS, retries.
#[derive(Debug, Clone)]
pub struct Network {
    pub timeout: Duration,
    pub rate: Option<f64>,
    /// `--max-refusal`: how long one request may be refused before it ends as an error.
    pub max_refusal: Duration,
    pub max_requests: Option<u64>,
    pub max_body: u64,
    pub retries: u32,
    /// A PEM file of CA certificates to trust.
    pub ca_cert: Option<PathBuf>,
    pub insecure: bool,
}

/// Every setting of one run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub target: TargetChoice,
    /// A differential run: the second target, run with the same seed and plan beside the first.
    pub beside: Option<TargetChoice>,
    /// With a second target: a difference in behaviour fails the run (exit 6).
    pub fail_on_difference: bool,
    pub generation: Generation,
    pub selection: Selection,
    pub network: Network,
    /// Cases run at once, and requests in flight at once across the run.
    pub concurrency: usize,
    /// Overall deadline of the run.
    pub deadline: Option<Duration>,
    /// The age stored pagination tokens reach before the late cases use them again
    /// (`--token-age`); none: the late cases start as soon as every other case has finished.
    pub token_age: Option<Duration>,
    pub mode: Mode,
    /// Where the run's reports are written, checked before anything is sent; none when the
    /// caller keeps the records itself (the self-test).
    pub report_dir: Option<PathBuf>,
    /// Warnings count as failures for the exit code.
    pub strict: bool,
    /// report.json keeps the exchanges of passing cases too.
    pub keep_exchanges: bool,
    /// A failing explorer sequence is shrunk to a replayable script. The self-test turns it
    /// off: it asks only whether a fault is met, and each shrink replays the sequence alone.
    pub shrink: bool,
    /// When the run may end before its last case: the self-test's, once its fault's rule has
    /// been met in every way the catalogue checks it (see [`Until`]). None: every case runs.
    pub until: Option<Until>,
    /// `--baseline`: the file of known failures the run is judged with.
    pub baseline: Option<PathBuf>,
    /// `--accept-stale`: stale entries of the baseline do not fail the run.
    pub accept_stale: bool,
    /// `--require-coverage`: the coverage below which a run that broke nothing is COVERAGE
    /// SHORT, not a pass.
    pub coverage_required: Vec<crate::verdict::CoverageRequirement>,
    /// No per-case lines.
    pub quiet: bool,
    /// Whether a slow run shows its progress on stderr.
    pub progress: ShowProgress,
    /// The fixture ledger's state file (`--state`) for a target of the user's; the embedded
    /// reference starts fresh every run and uses none.
    pub state: PathBuf,
    /// Directories of the user's case files (`--case-dir`), run beside the suite as suite
    /// `user`; the profile's `cases` add theirs.
    pub case_dirs: Vec<PathBuf>,
}

impl RunSettings {
    /// The default run against the embedded reference with `faults` on, as `covenant run --seed
    /// SEED` would make it.
    pub fn new(seed: u64, faults: FaultSet) -> RunSettings {
        RunSettings {
            target: TargetChoice::Embedded { faults },
            beside: None,
            fail_on_difference: false,
            generation: Generation {
                seed,
                cases_per_operation: DEFAULT_CASES,
                explore: DEFAULT_EXPLORE,
                explore_depth: 1,
            },
            selection: Selection::default(),
            network: Network {
                timeout: Duration::from_secs_f64(DEFAULT_TIMEOUT_SECS),
                rate: None,
                max_refusal: crate::client::DEFAULT_MAX_REFUSAL,
                max_requests: None,
                max_body: DEFAULT_MAX_BODY,
                retries: 0,
                ca_cert: None,
                insecure: false,
            },
            concurrency: DEFAULT_CONCURRENCY,
            deadline: None,
            token_age: None,
            mode: Mode::Run,
            report_dir: Some(PathBuf::from(DEFAULT_REPORT_DIR)),
            strict: false,
            keep_exchanges: false,
            shrink: true,
            until: None,
            baseline: None,
            accept_stale: false,
            coverage_required: Vec::new(),
            quiet: false,
            progress: ShowProgress::Auto,
            state: crate::ledger::default_path(),
            case_dirs: Vec::new(),
        }
    }

    /// The settings of each target of the run, each writing its reports into its own
    /// directory: the run's alone, or for a differential run `a/` and `b/` under it.
    pub fn per_target(&self) -> Vec<RunSettings> {
        let Some(second) = &self.beside else {
            return vec![self.clone()];
        };
        let one = |target: &TargetChoice, dir: &str| RunSettings {
            target: target.clone(),
            beside: None,
            report_dir: self.report_dir.as_ref().map(|d| d.join(dir)),
            ..self.clone()
        };
        vec![one(&self.target, "a"), one(second, "b")]
    }

    /// The faults of the embedded reference (none for a target of the user's).
    pub fn faults(&self) -> Vec<String> {
        match &self.target {
            TargetChoice::Embedded { faults } => {
                faults.iter().map(|f| f.name().to_owned()).collect()
            }
            TargetChoice::Given { .. } => Vec::new(),
        }
    }
}

/// A number of seconds as a duration, or a usage error naming the flag.
pub fn seconds(flag: &str, value: f64) -> Result<Duration, Fatal> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero() && *d <= MAX_SECONDS)
        .ok_or_else(|| {
            Fatal::Usage(format!(
                "{flag} {value}: expected a number of seconds above 0 and at most {}",
                MAX_SECONDS.as_secs()
            ))
        })
}

/// `--concurrency`, checked.
pub fn concurrency(n: usize) -> Result<usize, Fatal> {
    match n {
        0 => Err(Fatal::Usage("--concurrency must be at least 1".into())),
        n if n > MAX_CONCURRENCY => Err(Fatal::Usage(format!(
            "--concurrency {n}: at most {MAX_CONCURRENCY}"
        ))),
        n => Ok(n),
    }
}

/// A rate in requests per second (`--rate`, `serve --rate-limit`), checked.
pub fn rate(flag: &str, rate: f64) -> Result<f64, Fatal> {
    if rate.is_finite() && (MIN_RATE..=MAX_RATE).contains(&rate) {
        Ok(rate)
    } else {
        Err(Fatal::Usage(format!(
            "{flag} {rate}: expected requests per second between {MIN_RATE} and {MAX_RATE}"
        )))
    }
}

/// An http or https URL, or a usage error naming where it came from.
pub fn http_url(text: &str, origin: &str) -> Result<url::Url, Fatal> {
    url::Url::parse(text)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| Fatal::Usage(format!("{origin} {text:?} is not an http or https URL")))
}

/// A seed for a run given none.
pub fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    (nanos ^ u64::from(std::process::id()).rotate_left(32)) % 1_000_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_cases() {
        let ids: Vec<String> = (0..200).map(|i| format!("case.{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.contains(id)).count(), 1, "{id}");
        }
        assert!(shards.iter().all(|s| ids.iter().any(|id| s.contains(id))));
    }

    #[test]
    fn bad_shards_are_usage_errors() {
        for text in ["0/2", "3/2", "x/2", "2", "1/0"] {
            assert!(Shard::parse(text).is_err(), "{text}");
        }
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    }

    #[test]
    fn out_of_range_numbers_are_usage_errors_naming_the_flag() {
        for bad in [0.0, -1.0, f64::NAN, 86_401.0] {
            let e = seconds("--timeout", bad).unwrap_err();
            assert!(
                matches!(&e, Fatal::Usage(m) if m.starts_with("--timeout")),
                "{e}"
            );
        }
        assert!(concurrency(0).is_err() && concurrency(MAX_CONCURRENCY + 1).is_err());
        assert!(rate("--rate", 0.0).is_err() && rate("--rate", f64::INFINITY).is_err());
        assert!(rate("--rate", 5.0).is_ok());
        assert!(http_url("ftp://x", "--target").is_err());
        assert!(http_url("http://127.0.0.1:1", "--target").is_ok());
    }
}
