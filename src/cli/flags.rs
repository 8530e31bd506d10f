//! The command line's shape: the top-level flags, every subcommand and the values of their
//! enumerated flags, as clap reads them. Each command's own flags live beside the command.

use super::{
    BaselineArgs, CheckArgs, CompareArgs, MatrixArgs, MergeArgs, ProxyArgs, RunArgs, SelftestArgs,
    ServeArgs,
};
use clap::{Parser, Subcommand, ValueEnum};
use covenant::exit;
use covenant::schema;

#[derive(Debug, Parser)]
#[command(
    name = "covenant",
    version = version(),
    about = "Contract-conformance suite for the Finance Operations and Embedded Banking Partner API",
    long_about = concat!(
        "Contract-conformance suite for the Finance Operations and Embedded Banking Partner API.\n\n",
        "Run `covenant run` with no target to test the embedded reference implementation, or point\n",
        "it at your implementation with `--target URL --profile FILE`.\n\n",
        "Exit codes (`covenant man` and the README's *Exit codes* hold the same table):\n",
        "  0  no failure (with --strict, no warning either)\n",
        "  1  failures: run: a failure or an error of a case, or a warning under --strict; \
         compare: something newly fails; selftest: a fault undetected or a check \
         unproven; merge: the merged run has a failure or an error\n",
        "  2  usage, profile, file or environment error: the message names the bad flag, \
         key, value or file; run and merge: a fixture the target showed to be wrong at \
         its first use (PROFILE PROBLEM); compare: the new run had one\n",
        "  3  UNREACHABLE: the target did not answer before any case ran\n",
        "  4  INCOMPLETE: the run was interrupted (SIGINT or SIGTERM), hit --deadline or \
         --max-requests, gave up on a target's rate limits, planned or ran no case, or its \
         output closed; merge: a shard was incomplete; compare: the new run was\n",
        "  5  COVERAGE SHORT: nothing failed, but fewer rules or statuses got evidence than \
         --require-coverage asks; merge: the merged run did; compare: the new run did\n",
        "  6  DIFFERENT: with --fail-on-difference, the two targets of a run with two \
         --profile, or the two runs of one seed compare was given, behaved differently, and no verdict \
         set another code\n",
        "  7  STALE BASELINE: with --baseline, nothing new failed, but entries of the baseline \
         of known failures hold rules the target no longer breaks (remove them, or pass \
         --accept-stale in the run that removes them)",
    )
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colours on stdout: auto when it is a terminal, unless NO_COLOR is set (to anything but
    /// empty; CLICOLOR_FORCE, not 0, forces them off a terminal); always, even through a pipe;
    /// never.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = ColourArg::Auto)]
    pub color: ColourArg,
}

/// `--color` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColourArg {
    Auto,
    Always,
    Never,
}

/// What `--version` says: covenant's version, then what it judges against (the spec version,
/// the rules and the hash of the catalogue and schemas as embedded), as report.json does.
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            covenant::report::view::judged_against_sentence(&schema::judged_against())
        )
    })
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
    /// Print the JSON Schema of a file covenant reads, for editors (e.g. `covenant schema case >
    /// case.schema.json`, and `#:schema ./case.schema.json` atop a case file).
    #[command(subcommand)]
    Schema(SchemaCommand),
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
    /// Compare two JSON reports: what newly fails, what was fixed, what coverage was lost (exit 1
    /// on regressions); reports of two targets run with one seed: where they behaved differently
    /// (the behaviour diff).
    #[command(after_help = exit::compare_help())]
    Compare(CompareArgs),
    /// Merge the JSON reports of every shard of one run into one set of reports.
    Merge(MergeArgs),
    /// The conformance matrix of several implementations: the report.json of a run of each,
    /// every rule with each one's result, and where the spec is silent and they chose
    /// differently (matrix.json, matrix.md, matrix.html). Offline: it needs no target.
    Matrix(MatrixArgs),
    /// Write a baseline of a run's failures (TOML), to gate later runs on what is new
    /// (`covenant run --baseline FILE`).
    Baseline(BaselineArgs),
    /// Print the trace of the spec: every statement (section and lines), its strength (stated,
    /// illustrated, not shown, narrative) and the rules and request constraints that judge it,
    /// or why none can; with a rule id, the statements that rule rests on; with an entry id,
    /// that entry and every constraint it names.
    Trace {
        /// A rule id (`VC-USAGE-UNLIMITED`) or a trace entry id (`S-...`); without it, the whole
        /// trace.
        #[arg(value_name = "ID")]
        id: Option<String>,
        /// text, or json: `{spec, entries: [{id, section, lines: [first, last], strength,
        /// about, judged_by: [rule and constraint ids], not_judged, gap}]}`.
        #[arg(long, value_enum, default_value_t = TraceFormat::Text)]
        format: TraceFormat,
    },
    /// Judge real traffic: forward every request to the target, answer with its answer
    /// unchanged, and judge each exchange (one line per finding); SIGINT or SIGTERM writes the
    /// reports and exits 1 when the target broke a must rule.
    Proxy(ProxyArgs),
    /// Judge recorded traffic: a HAR 1.2 file (browsers, mitmproxy, Charles), as the proxy would.
    Check(CheckArgs),
    /// Print a completion script for a shell, generated from covenant's flags (e.g.
    /// `covenant completions bash > ~/.local/share/bash-completion/completions/covenant`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of covenant, or of one of its commands (e.g. `covenant man run
    /// > covenant-run.1`).
    Man {
        /// The command; without it, covenant's own page.
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// `covenant trace --format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Validate every schema against the 2020-12 meta-schema and run its examples.
    Check,
}

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// The case file (TOML) of `covenant run --case-dir DIR` and the profile's `cases`.
    Case,
}

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// Print the rule catalogue with counts by level and observability.
    Rules,
    /// Print the reference's deliberate faults and the rule each breaks.
    Faults,
    /// Print the inventory of every constraint the schemas state for a request: each field of
    /// each body shape, each path, query and header parameter, with its keyword, its rule and
    /// the edge a run holds it at.
    Constraints,
}
