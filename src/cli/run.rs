//! `covenant run`: its flags, the settings they make (each flag validated once, here), and the
//! command that plans, runs, reports and maps the verdict to an exit code.

use super::publish::{publish, Publication};
use clap::Args;
use covenant::catalogue::Catalogue;
use covenant::exit::{self, Fatal};
use covenant::profile::Profile;
use covenant::reference::FaultSet;
use covenant::report::behaviour_diff;
use covenant::report::github::Job;
use covenant::runner::{Audience, Ran};
use covenant::settings::{
    self, Mode, Network, RunSettings, Selection, Shard, ShowProgress, TargetChoice,
};
use covenant::terminal::{note, out};
use covenant::verdict::{Counts, RunMeta, RunRecord};
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Base URL of the target (overrides the profile's base_url).
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Target profile (TOML): credentials and fixtures. See cases/profile.example.toml. Given
    /// twice, a differential run: one seeded plan against both targets at once, each judged on
    /// its own (reports in DIR/a and DIR/b), and a behaviour diff of the two (DIR/diff.json,
    /// diff.md, diff.html); the exit code is the worse verdict's.
    #[arg(long, value_name = "FILE")]
    pub profile: Vec<PathBuf>,
    /// With two --profile: exit 6 when the two targets behaved differently (and neither verdict
    /// set another code).
    #[arg(long)]
    pub fail_on_difference: bool,
    /// Run only cases whose id contains PATTERN, or that judge the rule PATTERN names (a rule
    /// id as reports show it, e.g. CMT-STATUS-ENUM) (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Skip cases whose id contains PATTERN, or that name the rule PATTERN names as theirs (not
    /// every case a generic check judges under it) (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub skip: Vec<String>,
    /// Seed for generated payloads; the same seed gives the same payloads in the same order.
    /// Random when not given, and then required with --shard: every shard of one run must pass
    /// the same seed (e.g. --seed "$GITHUB_RUN_ID" or --seed "$CI_PIPELINE_ID").
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Generated cases per operation.
    #[arg(long, value_name = "N", default_value_t = settings::DEFAULT_CASES)]
    pub cases: u32,
    /// A directory of case files (TOML, `covenant schema case`): the team's own cases, run
    /// beside the suite as cases of suite `user`, named user.FILE.NAME (repeatable; the
    /// profile's `cases` adds more). A bad case file stops the run before anything is sent
    /// (exit 2), naming file, line and column.
    #[arg(long, value_name = "DIR")]
    pub case_dir: Vec<PathBuf>,
    /// Random command sequences the explorer draws over both organizations of the profile, each
    /// judged after every step by the model's post-conditions and the generic checks; a failing
    /// sequence is shrunk to the fewest steps that still fail and reported as a script (0: none)
    #[arg(long, value_name = "N", default_value_t = settings::DEFAULT_EXPLORE)]
    pub explore: u32,
    /// How long and heavy each explorer sequence is, from 1 to 20: random commands, writes
    /// before the closing reads and the depth of page walks grow with it (a nightly run might
    /// take --explore 20 --explore-depth 5; a replay needs the depth its run had)
    #[arg(long, value_name = "D", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=settings::MAX_EXPLORE_DEPTH as i64))]
    pub explore_depth: u32,
    /// Plays sequence K of the explorer as a run seeded SEED drew it, and shrinks it again if it
    /// fails: the line a sequence's failure prints (the same as --seed SEED --explore K --filter
    /// explore.sequence.K)
    #[arg(long, value_name = "SEED:K", value_parser = explore_replay, conflicts_with = "seed")]
    pub explore_replay: Option<(u64, u32)>,
    /// Cases run at once, and requests in flight at once across all cases (a generated case
    /// sends several bodies at a time)
    #[arg(long, value_name = "N", default_value_t = settings::DEFAULT_CONCURRENCY)]
    pub concurrency: usize,
    /// Cap on requests per second across all workers (retries and the reachability probe
    /// included); between 0.001 and 1000000. When the target rate-limits the run (429, or 503
    /// with Retry-After), every request pauses and the pace drops below it, then climbs back;
    /// the summary gives the pace that worked, a --rate for next time.
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate: Option<f64>,
    /// How long one request may be refused (429, or 503 with Retry-After) before it ends as an
    /// error of its case, rate-limited and not judged; the summary names its endpoint. When
    /// nothing at all comes through for that long, the run stops, incomplete. A healthy
    /// rate-limited target never comes near it.
    #[arg(long, value_name = "SECS", default_value_t = covenant::client::DEFAULT_MAX_REFUSAL.as_secs_f64())]
    pub max_refusal: f64,
    /// Per-request timeout in seconds (connect, headers and the whole body), at most 86400.
    #[arg(long, value_name = "SECS", default_value_t = settings::DEFAULT_TIMEOUT_SECS)]
    pub timeout: f64,
    /// Overall deadline for the run in seconds; cases not started by then are skipped, and
    /// requests still in flight 2 s later are abandoned. SIGINT and SIGTERM stop a run the same
    /// way (a second signal abandons the requests in flight at once); reports are still written.
    #[arg(long, value_name = "SECS")]
    pub deadline: Option<f64>,
    /// Before the last cases use the stored pagination tokens again, wait until those tokens are
    /// at least SECS old (e.g. 600 in a nightly run, to prove they survive); at most 86400, and
    /// below --deadline. The wait ends early on the deadline or SIGINT (the run is then
    /// incomplete).
    #[arg(long, value_name = "SECS")]
    pub token_age: Option<f64>,
    /// Stop sending after N requests (retries included); the remaining cases are skipped with
    /// the reason. The reachability probe (one `GET /`) and the OAuth token request are not
    /// counted.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Read at most this many bytes of a response body; a longer body is an error of the case.
    #[arg(long, value_name = "BYTES", default_value_t = settings::DEFAULT_MAX_BODY)]
    pub max_body: u64,
    /// Times a GET is retried, with backoff, on a 5xx or transport error (never a POST, PATCH or
    /// DELETE); retries show in the report. A 429, or a 503 with Retry-After, is no error and no
    /// failure whatever the method: every request pauses until its Retry-After, and it is sent
    /// again until an answer comes through or the run's deadline passes.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub retries: u32,
    /// Run only cases that create and delete nothing; any POST, PATCH or DELETE a remaining case
    /// would send is refused, and the case is skipped with the reason.
    #[arg(long)]
    pub read_only: bool,
    /// Print the plan (cases, requests, fixtures consumed) and send nothing: no probe, no token
    /// request, no case.
    #[arg(long)]
    pub dry_run: bool,
    /// Trust the CA certificates of this PEM file for HTTPS targets.
    #[arg(long, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Accept invalid TLS certificates (testing only).
    #[arg(long)]
    pub insecure: bool,
    /// Where reports are written.
    #[arg(long, value_name = "DIR", default_value = settings::DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
    /// Warnings count as failures for the exit code.
    #[arg(long)]
    pub strict: bool,
    /// Keep the exchanges of passing cases in report.json too (by default only a case that did
    /// not pass keeps its exchanges, so that a clean run's report stays small)
    #[arg(long)]
    pub keep_exchanges: bool,
    /// A baseline of known failures (`covenant baseline` writes one): the failures it holds are
    /// named as known and do not fail the run; what it does not hold fails as usual; an entry
    /// whose cases no longer break its rule ends the run STALE BASELINE (exit 7).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// With --baseline: stale entries do not fail the run (for the run that removes them).
    #[arg(long, requires = "baseline")]
    pub accept_stale: bool,
    /// Coverage the run must reach to pass, as MEASURE=PERCENT (repeatable, or comma-separated):
    /// `must` and `should`, the share of observable rules of that level a response was judged
    /// against; `status`, the share of the statuses the spec states (5xx aside) some response
    /// showed; `constraints`, the share of the constraints the schemas state for requests
    /// (`covenant list constraints`) each broken alone and held at its edge; `statements`, the
    /// share of the spec's stated statements a client can observe (`covenant trace`) that a rule
    /// with evidence or a constraint broken and held judged. E.g.
    /// --require-coverage must=100,should=90,constraints=100. Short of it, a run that broke
    /// nothing is COVERAGE SHORT (exit 5). With --shard, it is judged by `covenant merge`.
    #[arg(long, value_name = "MEASURE=PERCENT", value_delimiter = ',')]
    pub require_coverage: Vec<String>,
    /// List the cases and exit.
    #[arg(long)]
    pub list: bool,
    /// Run the K-th of N deterministic parts of the cases (e.g. 2/4). Needs --seed, the same for
    /// every shard of one run (e.g. --seed "$GITHUB_RUN_ID"), so that `covenant merge` can join
    /// their reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Hand-written scenarios off: only the generated cases, the pagination cases and the generic
    /// checks (used by tests of the generator).
    #[arg(long, hide = true)]
    pub generated_only: bool,
    /// Faults for the embedded reference (only without --target/--profile).
    #[arg(long = "fault", value_name = "NAME", hide = true)]
    pub faults: Vec<String>,
    /// Less output: no per-case lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// GitHub Actions annotations: one `::error` per broken rule (`::warning` per rule warned
    /// of, `::notice` per known failure), at most 50, and summary.md appended to the file
    /// GITHUB_STEP_SUMMARY names; auto when GITHUB_ACTIONS=true.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = super::CiAnnotations::Auto)]
    pub ci_annotations: super::CiAnnotations,
    /// A progress line on stderr once a run has taken 2 s (requests sent against the plan's
    /// estimate, cases finished, time elapsed and left): auto shows it when stderr is a
    /// terminal, redrawn in place; always also off a terminal, as a plain line every 5 s; never.
    /// It never reaches stdout.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// The state file of the fixture ledger: which deletable fixtures earlier runs against a
    /// target used up, so that no run deletes one twice. Default:
    /// $XDG_STATE_HOME/covenant/fixtures.json, else ~/.local/state/covenant/fixtures.json, else
    /// .covenant/fixtures.json. Unused for the embedded reference, which starts fresh every run.
    #[arg(long, value_name = "FILE", env = "COVENANT_STATE")]
    pub state: Option<PathBuf>,
}

/// `--progress` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressArg {
    Auto,
    Always,
    Never,
}

impl RunArgs {
    /// The settings these flags ask for, or a usage error naming the first bad flag.
    pub fn settings(&self) -> Result<RunSettings, Fatal> {
        let concurrency = settings::concurrency(self.concurrency)?;
        let timeout = settings::seconds("--timeout", self.timeout)?;
        let rate = self.rate.map(|r| settings::rate("--rate", r)).transpose()?;
        let max_refusal = settings::seconds("--max-refusal", self.max_refusal)?;
        let deadline = self
            .deadline
            .map(|d| settings::seconds("--deadline", d))
            .transpose()?;
        let token_age = self
            .token_age
            .map(|d| settings::seconds("--token-age", d))
            .transpose()?;
        if let (Some(age), Some(deadline)) = (token_age, deadline) {
            if age >= deadline {
                return Err(Fatal::Usage(format!(
                    "--token-age {} is not below --deadline {}: the stored tokens would never be \
                     used again",
                    age.as_secs_f64(),
                    deadline.as_secs_f64()
                )));
            }
        }
        let shard = self.shard.as_deref().map(Shard::parse).transpose()?;
        let seed = match (self.seed.or(self.explore_replay.map(|r| r.0)), shard) {
            (Some(seed), _) => seed,
            (None, None) => settings::random_seed(),
            (None, Some(shard)) => return Err(shard_without_seed(shard)),
        };
        let mut run = RunSettings::new(seed, FaultSet::none());
        (run.target, run.beside) = self.target_choice()?;
        if self.fail_on_difference && run.beside.is_none() {
            return Err(Fatal::Usage(
                "--fail-on-difference needs two --profile: it judges the behaviour diff of a \
                 differential run"
                    .into(),
            ));
        }
        run.fail_on_difference = self.fail_on_difference;
        run.generation.cases_per_operation = self.cases;
        run.generation.explore = self.explore;
        run.generation.explore_depth = self.explore_depth;
        let mut filter = self.filter.clone();
        if let Some((_, k)) = self.explore_replay {
            // Only sequences up to K are drawn: `explore.sequence.K` names one of them alone.
            run.generation.explore = k;
            filter.push(format!("explore.sequence.{k}"));
        }
        run.selection = Selection {
            filter,
            skip: self.skip.clone(),
            read_only: self.read_only,
            generated_only: self.generated_only,
            shard,
            ids: None,
        };
        run.network = Network {
            timeout,
            rate,
            max_refusal,
            max_requests: self.max_requests,
            max_body: self.max_body,
            retries: self.retries,
            ca_cert: self.ca_cert.clone(),
            insecure: self.insecure,
        };
        run.concurrency = concurrency;
        run.deadline = deadline;
        run.token_age = token_age;
        run.mode = match (self.list, self.dry_run) {
            (true, _) => Mode::List,
            (false, true) => Mode::DryRun,
            (false, false) => Mode::Run,
        };
        run.report_dir = Some(self.report_dir.clone());
        run.strict = self.strict;
        run.keep_exchanges = self.keep_exchanges;
        run.baseline = self.baseline.clone();
        run.accept_stale = self.accept_stale;
        run.coverage_required = self
            .require_coverage
            .iter()
            .map(|term| term.parse().map_err(Fatal::Usage))
            .collect::<Result<_, _>>()?;
        run.quiet = self.quiet;
        run.progress = match self.progress {
            ProgressArg::Auto => ShowProgress::Auto,
            ProgressArg::Always => ShowProgress::Always,
            ProgressArg::Never => ShowProgress::Never,
        };
        run.state = self.state.clone().unwrap_or(run.state);
        run.case_dirs = self.case_dir.clone();
        Ok(run)
    }

    /// The target, and the second one of a differential run: the embedded reference when
    /// neither `--target` nor `--profile` is given; each profile's `base_url` with two.
    fn target_choice(&self) -> Result<(TargetChoice, Option<TargetChoice>), Fatal> {
        if self.target.is_none() && self.profile.is_empty() {
            let faults =
                FaultSet::from_names(&self.faults).map_err(|e| Fatal::Usage(e.to_string()))?;
            return Ok((TargetChoice::Embedded { faults }, None));
        }
        if !self.faults.is_empty() {
            return Err(Fatal::Usage(
                "--fault applies only to the embedded reference (no --target, no --profile)".into(),
            ));
        }
        let url = self
            .target
            .as_deref()
            .map(|t| settings::http_url(t, "--target"))
            .transpose()?;
        match self.profile.as_slice() {
            [] | [_] => Ok((
                TargetChoice::Given {
                    url,
                    profile: self.profile.first().cloned(),
                },
                None,
            )),
            [a, b] if url.is_none() => {
                let given = |path: &PathBuf| TargetChoice::Given {
                    url: None,
                    profile: Some(path.clone()),
                };
                Ok((given(a), Some(given(b))))
            }
            [_, _] => Err(Fatal::Usage(
                "--target names one target; with two --profile each profile's base_url names \
                 its own"
                    .into(),
            )),
            more => Err(Fatal::Usage(format!(
                "--profile given {} times: a run tests one target, or two side by side",
                more.len()
            ))),
        }
    }
}

/// `SEED:K` of `--explore-replay`: a seed and a sequence number from 1.
fn explore_replay(text: &str) -> Result<(u64, u32), String> {
    let (seed, k) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?} is not SEED:K (e.g. 11:1)"))?;
    let seed = seed
        .parse::<u64>()
        .map_err(|_| format!("{seed:?} is no seed (a whole number)"))?;
    match k.parse::<u32>() {
        Ok(k) if k >= 1 => Ok((seed, k)),
        _ => Err(format!("{k:?} is no sequence number (1 or more)")),
    }
}

/// Shards drawing their own random seeds would each test other payloads, and their reports could
/// not be merged into one run: refused before anything is sent.
fn shard_without_seed(shard: Shard) -> Fatal {
    Fatal::Usage(format!(
        "--shard {shard} needs --seed: every shard of one run must pass the same seed, or their \
         payloads differ and `covenant merge` refuses their reports; pass one the CI gives every \
         shard alike, e.g. --seed \"$GITHUB_RUN_ID\" or --seed \"$CI_PIPELINE_ID\""
    ))
}

/// `covenant run`: one target, or two side by side (a differential run: each judged on its own
/// as in a single run, reports in `DIR/a` and `DIR/b`, and the behaviour diff of the two in
/// `DIR/diff.json`, `diff.md`, `diff.html`).
pub fn run_command(args: RunArgs) -> Result<u8, Fatal> {
    let settings = args.settings().map_err(|e| stopped(&args, None, e))?;
    let runtime = super::runtime(Some(2))?;
    let planned = runtime
        .block_on(covenant::runner::plan(&settings))
        .map_err(|e| stopped(&args, Some(&settings), e))?;
    let unmatched = planned.cases.is_empty() && !settings.selection.filter.is_empty();
    if !settings.mode.sends() && unmatched {
        return Err(Fatal::Usage(matches_none(&settings.selection.filter)));
    }
    match settings.mode {
        Mode::List => out(&planned.list()),
        Mode::DryRun => out(&planned.describe()),
        Mode::Run => {
            note(&planned.headline());
            if unmatched {
                // The run goes on, to say INCOMPLETE in every report; here is why.
                note(&matches_none(&settings.selection.filter));
            }
            let ran = runtime.block_on(planned.run(Audience::Console));
            // Nothing is generated any more: the reports need the memory.
            covenant::generate::forget_shared();
            return finish(ran, &settings, super::github(args.ci_annotations));
        }
    }
    Ok(exit::SUCCESS)
}

/// A run that stops before its first case, for its profile or a target that does not answer:
/// the reports a CI job looks for (report.json, junit.xml, the summaries, the annotation and
/// step summary) say why, and the error goes on to end the command with its own exit code. A
/// wrong flag, a listing or a dry run writes none: nothing was to be judged.
fn stopped(args: &RunArgs, settings: Option<&RunSettings>, fatal: Fatal) -> Fatal {
    let sends = settings.map_or(!args.list && !args.dry_run, |s| s.mode.sends());
    if !sends {
        return fatal;
    }
    // Read once: the record's redacted copy and the secrets kept out of every report.
    let profile = args.profile.first().and_then(|p| Profile::load(p).ok());
    let secrets = profile.as_ref().map(Profile::secrets).unwrap_or_default();
    let Some(record) = stopped_record(args, settings, profile, &fatal) else {
        return fatal;
    };
    let published = publish(Publication {
        records: vec![(record, Some(args.report_dir.clone()))],
        secrets: &secrets,
        github: super::github(args.ci_annotations),
        preface: None,
        summary: false,
        diff: None,
    });
    if let Err(e) = published {
        note(&e.to_string());
    }
    fatal
}

/// The record of a run stopped by `fatal` before its first case, of `profile` where it could be
/// read: no case, its verdict and the reason; `None` for errors that are not about the profile or the target.
fn stopped_record(
    args: &RunArgs,
    settings: Option<&RunSettings>,
    profile: Option<Profile>,
    fatal: &Fatal,
) -> Option<RunRecord> {
    let path = args.profile.first();
    let target = args
        .target
        .clone()
        .or_else(|| profile.as_ref().and_then(|p| p.base_url.clone()))
        .or_else(|| path.map(|p| format!("the target of {}", p.display())))
        .unwrap_or_else(|| "the embedded reference".to_owned());
    let redacted = profile
        .map(|p| serde_json::to_value(p.redacted()).unwrap_or_default())
        .unwrap_or_default();
    let seed = settings.map_or(args.seed.unwrap_or(0), |s| s.generation.seed);
    let mut meta = RunMeta::bare(&target, redacted, seed);
    let now = covenant::runner::now_rfc3339();
    (meta.started_at, meta.finished_at) = (now.clone(), now);
    meta.cases_per_operation = args.cases;
    meta.strict = args.strict;
    meta.judged_against = Some(covenant::schema::judged_against());
    match fatal {
        Fatal::Profile(why) => meta.profile_problems = problems_of(why),
        Fatal::Unreachable(why) => meta.unreachable = Some(why.clone()),
        _ => return None,
    }
    Some(RunRecord {
        meta,
        cases: Vec::new(),
        counts: Counts::default(),
    })
}

/// The problems a profile error lists (its `  - KEY: ...` lines), each on its own, as a run's
/// record keeps them; the whole message where it lists none.
fn problems_of(message: &str) -> Vec<String> {
    let listed: Vec<String> = message
        .lines()
        .filter_map(|line| line.strip_prefix("  - "))
        .map(str::to_owned)
        .collect();
    match listed.is_empty() {
        true => vec![message.trim_start_matches("PROFILE PROBLEM: ").to_owned()],
        false => listed,
    }
}

/// What a `--filter` that selects no case is told: what a pattern selects, and why no case
/// judges the rules among `patterns` that no client can see.
fn matches_none(patterns: &[String]) -> String {
    format!(
        "--filter {} matches no case: a pattern selects the cases whose id contains it or that \
         judge the rule it names (`covenant run --list` lists the case ids, `covenant list \
         rules` the rules){}",
        patterns.join(", --filter "),
        unjudged(patterns)
    )
}

/// Why no case judges the rules among `patterns` that a client cannot see: the catalogue's
/// reason for each, on lines of their own.
fn unjudged(patterns: &[String]) -> String {
    let catalogue = Catalogue::embedded();
    patterns
        .iter()
        .filter_map(|p| {
            catalogue
                .rules
                .iter()
                .find(|r| r.id.eq_ignore_ascii_case(p))
        })
        .filter(|rule| !rule.observable)
        .map(|rule| {
            format!(
                "\n{} is not observable, so no case judges it: {}",
                rule.id,
                rule.why_not
                    .as_deref()
                    .unwrap_or("the catalogue gives no reason")
            )
        })
        .collect()
}

/// Writes each target's reports (and the behaviour diff of two), prints each summary (and the
/// diff), and maps the verdicts to an exit code: the worse verdict's, or 6 where that is 0, the
/// two targets behaved differently and `--fail-on-difference` asks.
fn finish(ran: Ran, settings: &RunSettings, github: Option<Job>) -> Result<u8, Fatal> {
    let Ran {
        records, secrets, ..
    } = ran;
    let dirs = settings
        .per_target()
        .into_iter()
        .map(|side| side.report_dir);
    let diff = match records.as_slice() {
        [a, b] => Some(behaviour_diff(a, b, Catalogue::embedded())),
        _ => None,
    };
    let code = publish(Publication {
        records: records.into_iter().zip(dirs).collect(),
        secrets: &secrets,
        github,
        preface: None,
        summary: true,
        diff: diff.as_ref().map(|d| (d, settings.report_dir.as_deref())),
    })?;
    let differs = diff.as_ref().is_some_and(|d| !d.is_empty());
    Ok(exit::different(code, settings.fail_on_difference, differs))
}
