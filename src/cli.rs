//! The command line. Argument definitions live here; every command's work lives in the library
//! module it belongs to, so that this file only parses and dispatches.

use crate::exit::{self, Fatal};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "covenant",
    version,
    about = "Contract-conformance suite for the Finance Operations and Embedded Banking Partner API",
    long_about = "Contract-conformance suite for the Finance Operations and Embedded Banking Partner API.\n\n\
Run `covenant run` with no target to test the embedded reference implementation, or point it at\n\
your implementation with `--target URL --profile FILE`. Exit codes: 0 no failure, 1 failures,\n\
2 usage or profile error, 3 target unreachable."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Parsed once per process, so the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the conformance cases against a target (default: the embedded reference).
    Run(RunArgs),
    /// Start the embedded reference implementation of the API.
    Serve(ServeArgs),
    /// Work with the JSON Schemas in schemas/.
    #[command(subcommand)]
    Schemas(SchemasCommand),
    /// List the rule catalogue or the reference's deliberate faults.
    #[command(subcommand)]
    List(ListCommand),
    /// Print an OpenAPI 3.1 document of the ten operations, built from schemas/.
    Openapi {
        /// Name the banking organization header (which the spec does not give) as a target does,
        /// e.g. its profile's banking.org_header; without it a placeholder name is used.
        #[arg(long, value_name = "NAME")]
        org_header: Option<String>,
    },
    /// Prove that every check can fail: run the suite against the reference once per fault.
    Selftest(SelftestArgs),
    /// Compare two JSON reports: what newly fails, what was fixed (exit 1 on regressions).
    Compare(CompareArgs),
    /// Merge the JSON reports of shards into one set of reports.
    Merge(MergeArgs),
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Base URL of the target (overrides the profile's base_url).
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Target profile (TOML): credentials and fixtures. See cases/profile.example.toml.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Run only cases whose id contains PATTERN (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Skip cases whose id contains PATTERN (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub skip: Vec<String>,
    /// Seed for generated payloads; the same seed gives the same payloads in the same order.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Generated cases per operation.
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub cases: u32,
    /// Cases run at once, and requests in flight at once across all cases (a generated case
    /// sends several bodies at a time)
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
    /// Cap on requests per second across all workers (retries and the reachability probe
    /// included); between 0.001 and 1000000.
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate: Option<f64>,
    /// Per-request timeout in seconds (connect, headers and the whole body), at most 86400.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Overall deadline for the run in seconds; cases not started by then are skipped, and
    /// requests still in flight 2 s later are abandoned. SIGINT and SIGTERM stop a run the same
    /// way (a second signal abandons the requests in flight at once); reports are still written.
    #[arg(long, value_name = "SECS")]
    pub deadline: Option<f64>,
    /// Stop sending after N requests (retries included); the remaining cases are skipped with
    /// the reason. The reachability probe (one `GET /`) and the OAuth token request are not
    /// counted.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Read at most this many bytes of a response body; a longer body is an error of the case.
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    pub max_body: u64,
    /// Times a GET is retried, with backoff, on a 5xx or transport error (never a POST, PATCH or
    /// DELETE); retries show in the report. A 429 is retried up to 3 times whatever the method,
    /// after its Retry-After (at most 5 s).
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
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub report_dir: PathBuf,
    /// Warnings count as failures for the exit code.
    #[arg(long)]
    pub strict: bool,
    /// List the cases and exit.
    #[arg(long)]
    pub list: bool,
    /// Run the K-th of N deterministic parts of the cases (e.g. 2/4).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Hand-written cases off: only generated and generic checks (used by tests of the generator).
    #[arg(long, hide = true)]
    pub generated_only: bool,
    /// Faults for the embedded reference (only without --target/--profile).
    #[arg(long = "fault", value_name = "NAME", hide = true)]
    pub faults: Vec<String>,
    /// Less output: no per-case lines.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Seed of the fixtures.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Switch on a deliberate fault (repeatable); `covenant list faults` names them.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Write the target profile for this server to FILE.
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Validate every schema against the 2020-12 meta-schema and run its examples.
    Check,
}

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// Print the rule catalogue with counts by level and observability.
    Rules,
    /// Print the reference's deliberate faults and the rule each breaks.
    Faults,
}

#[derive(Debug, Clone, Args)]
pub struct SelftestArgs {
    /// Faults run at once, each on its own server.
    #[arg(long, default_value_t = 4)]
    pub jobs: usize,
    /// Generated cases per operation in each run.
    #[arg(long, default_value_t = 10)]
    pub cases: u32,
    /// Only these faults (repeatable).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Where the self-test report is written.
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub report_dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    pub old: PathBuf,
    pub new: PathBuf,
    /// Where the comparison report is written.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    #[arg(long, value_name = "DIR", default_value = "reports")]
    pub report_dir: PathBuf,
}

/// Parses the command line, runs the command, and maps the outcome to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            });
        }
    };
    match dispatch(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(fatal) => {
            eprintln!("error: {fatal}");
            fatal.exit_code()
        }
    }
}

fn dispatch(command: Command) -> Result<u8, Fatal> {
    match command {
        Command::Run(args) => crate::runner::command(args),
        Command::Serve(args) => crate::reference::command(args),
        Command::Schemas(SchemasCommand::Check) => crate::schema::check_command(),
        Command::List(ListCommand::Rules) => crate::catalogue::list_command(),
        Command::List(ListCommand::Faults) => crate::reference::list_faults_command(),
        Command::Openapi { org_header } => crate::schema::openapi_command(org_header.as_deref()),
        Command::Selftest(args) => crate::selftest::command(args),
        Command::Compare(args) => crate::report::compare_command(args),
        Command::Merge(args) => crate::report::merge_command(args),
    }
}
