//! `covenant proxy` and `covenant check`: real traffic judged, live through a validating proxy
//! or recorded in a HAR file. Both end the same way: the usual reports, the summary, and the
//! exit code of the verdict (1 when the target broke a `must` rule; a client's slip never
//! counts).

use super::publish::{publish, Publication};
use clap::Args;
use covenant::exit::Fatal;
use covenant::profile::Profile;
use covenant::runner::now_rfc3339;
use covenant::terminal::{note, out};
use covenant::traffic::{har, proxy, Judge, JudgeConfig, Said};
use covenant::verdict::{RunMeta, RunRecord, TrafficMeta};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Debug, Clone, Args)]
pub struct ProxyArgs {
    /// Where the proxy listens for clients, e.g. 127.0.0.1:8081 (port 0 picks a free one).
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: String,
    /// Seconds a client waits for the target's answer (its status and headers, and a body of
    /// up to 1 MiB) before the proxy answers 504 itself and records the exchange as unanswered;
    /// at most 86400.
    #[arg(long, value_name = "SECS", default_value_t = covenant::settings::DEFAULT_TIMEOUT_SECS)]
    pub timeout: f64,
    #[command(flatten)]
    pub judged: JudgedArgs,
}

#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The recorded traffic: a HAR 1.2 file, as browsers, mitmproxy and Charles export it.
    /// Each entry keeps its own URL in the records and curls. Only entries to the target are
    /// judged: under --target, else the profile's base_url, else the origin of the first entry
    /// whose path is an operation of the spec (else of the first entry). Entries to another
    /// origin or outside the base path, and paths the spec does not list, are counted and
    /// listed as not judged.
    #[arg(value_name = "FILE.har")]
    pub har: PathBuf,
    #[command(flatten)]
    pub judged: JudgedArgs,
}

/// The flags of both commands: whose traffic it is, and where the verdicts go.
#[derive(Debug, Clone, Args)]
pub struct JudgedArgs {
    /// Target profile (TOML): the target's base_url, the banking organization header's name,
    /// and secrets to keep out of every output.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Base URL of the target (overrides the profile's base_url).
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Where reports are written (by check once the file is judged; by the proxy on SIGINT or
    /// SIGTERM).
    #[arg(long, value_name = "DIR", default_value = covenant::settings::DEFAULT_REPORT_DIR)]
    pub report_dir: PathBuf,
    /// Warnings of the target count as failures for the exit code (a client's slip never does).
    #[arg(long)]
    pub strict: bool,
    /// GitHub Actions annotations and step summary, as for `covenant run`; auto when
    /// GITHUB_ACTIONS=true.
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = super::CiAnnotations::Auto)]
    pub ci_annotations: super::CiAnnotations,
}

/// What both commands read of the profile and the flags.
struct Setup {
    profile: Option<Profile>,
    target: Option<url::Url>,
}

impl Setup {
    fn read(profile: Option<&PathBuf>, target: Option<&str>) -> Result<Setup, Fatal> {
        let profile = profile
            .map(|path| Profile::load(path).map_err(|e| Fatal::Profile(e.to_string())))
            .transpose()?;
        let target = match target {
            Some(t) => Some(covenant::settings::http_url(t, "--target")?),
            None => profile
                .as_ref()
                .and_then(|p| p.base_url.as_deref())
                .map(|u| covenant::settings::http_url(u, "the profile's base_url"))
                .transpose()?,
        };
        Ok(Setup { profile, target })
    }

    fn judge(&self, base_url: &str) -> Judge {
        let profile = self.profile.as_ref();
        Judge::new(JudgeConfig {
            base_url: base_url.to_owned(),
            org_header: profile
                .and_then(|p| p.banking.as_ref())
                .and_then(|b| b.org_header.clone()),
            secrets: profile.map(Profile::secrets).unwrap_or_default(),
            named: profile
                .map(|p| {
                    p.secret_vars()
                        .into_iter()
                        .filter_map(|(named, value)| {
                            value.map(|v| (v.expose().to_owned(), named.var))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    fn meta(
        &self,
        target: &str,
        started: (String, Instant),
        strict: bool,
        traffic: TrafficMeta,
    ) -> RunMeta {
        let profile = self
            .profile
            .as_ref()
            .and_then(|p| serde_json::to_value(p.redacted()).ok())
            .unwrap_or_default();
        RunMeta {
            started_at: started.0,
            finished_at: now_rfc3339(),
            duration_ms: started.1.elapsed().as_secs_f64() * 1000.0,
            strict,
            traffic: Some(traffic),
            judged_against: Some(covenant::schema::judged_against()),
            ..RunMeta::bare(target, profile, 0)
        }
    }
}

/// Prints what the judge found, one line per finding.
fn tell(said: Vec<Said>) {
    let text: String = said.iter().map(|s| format!("{}\n", s.line())).collect();
    out(&text);
}

/// How many runtime workers forward exchanges: every core but the one the judge's thread
/// takes, at least one. On 2 cores one forwarding worker added the least latency (0.09 ms at
/// the median against 0.12 ms with two, `bench/proxy.sh`): a second worker only competes with
/// the judge and the target for the same cores.
fn forwarding_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
}

/// `covenant proxy`: serves until SIGINT or SIGTERM, then reports.
pub fn proxy_command(args: ProxyArgs) -> Result<u8, Fatal> {
    let (listen, timeout, args) = (args.listen, args.timeout, args.judged);
    let timeout = covenant::settings::seconds("--timeout", timeout)?;
    let setup = Setup::read(args.profile.as_ref(), args.target.as_deref())?;
    let Some(target) = setup.target.clone() else {
        return Err(Fatal::Usage(
            "covenant proxy needs a target: --target URL, or a --profile with a base_url".into(),
        ));
    };
    let listen: SocketAddr = listen.parse().map_err(|e| {
        Fatal::Usage(format!(
            "--listen {listen}: not HOST:PORT with an IP address ({e}), e.g. 127.0.0.1:8081"
        ))
    })?;
    writable(&args.report_dir)?;
    let runtime = super::runtime(Some(forwarding_workers()))?;
    let base = target.as_str().trim_end_matches('/').to_owned();
    let judge = setup.judge(&base);
    let started = (now_rfc3339(), Instant::now());
    let (judge, addr) = runtime.block_on(async {
        // Listen for the signals before saying anything: a caller may signal as soon as it
        // reads the address.
        let mut signals = covenant::interrupt::Signals::new();
        let config = proxy::ProxyConfig {
            listen,
            target: target.clone(),
            timeout,
        };
        let running = proxy::start(config, judge, tell)
            .await
            .map_err(|e| Fatal::Startup(format!("cannot listen on {listen}: {e}")))?;
        out(&format!(
            "covenant proxy listening on http://{}, forwarding to {base}; SIGINT or SIGTERM \
             writes the reports\n",
            running.addr()
        ));
        let why = signals.next().await;
        note(&format!("covenant proxy: {why}; writing the reports"));
        let addr = running.addr();
        Ok::<(Judge, SocketAddr), Fatal>((running.finish().await, addr))
    })?;
    let traffic = TrafficMeta {
        source: "proxy".to_owned(),
        name: format!("http://{addr}, forwarding to {base}"),
        from: Some(started.0.clone()),
        to: Some(now_rfc3339()),
        nothing_judged: judge.nothing_judged("the proxy"),
    };
    let record = judge.record(setup.meta(&base, started, args.strict, traffic));
    finish(record, &judge, &args)
}

/// `covenant check FILE.har`.
pub fn check_command(args: CheckArgs) -> Result<u8, Fatal> {
    let (har, args) = (args.har, args.judged);
    let setup = Setup::read(args.profile.as_ref(), args.target.as_deref())?;
    let base = setup
        .target
        .as_ref()
        .map(|t| t.as_str().trim_end_matches('/').to_owned());
    let recorded = har::read(&har, base.as_deref()).map_err(|e| Fatal::Files(e.to_string()))?;
    writable(&args.report_dir)?;
    let base = base
        .or(recorded.origin.clone())
        .unwrap_or_else(|| har.display().to_string());
    let started = (now_rfc3339(), Instant::now());
    let mut judge = setup.judge(&base);
    for seen in &recorded.exchanges {
        let said = judge.judge(seen);
        if !said.is_empty() {
            tell(said);
        }
    }
    let traffic = TrafficMeta {
        source: "file".to_owned(),
        name: har.display().to_string(),
        from: recorded.from.clone(),
        to: recorded.to.clone(),
        nothing_judged: judge.nothing_judged("the file"),
    };
    let record = judge.record(setup.meta(&base, started, args.strict, traffic));
    finish(record, &judge, &args)
}

/// Fails unless reports can be written in `dir`: checked before any traffic is judged.
fn writable(dir: &std::path::Path) -> Result<(), Fatal> {
    covenant::report::writable(dir).map_err(|e| {
        Fatal::Files(format!(
            "--report-dir {}: cannot write reports there ({e}); give a directory covenant may \
             write",
            dir.display()
        ))
    })
}

/// Publishes the record as every command does: the reports, what the traffic was, the summary,
/// the GitHub annotations and step summary, the paths; and maps the verdict to an exit code.
fn finish(record: RunRecord, judge: &Judge, args: &JudgedArgs) -> Result<u8, Fatal> {
    publish(Publication {
        records: vec![(record, Some(args.report_dir.clone()))],
        secrets: judge.secrets(),
        github: super::github(args.ci_annotations),
        preface: Some(format!("\n{}\n", judge.seen().line())),
        summary: true,
        diff: None,
    })
}
