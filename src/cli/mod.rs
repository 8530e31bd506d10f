//! The command line: the top of the library, which nothing below imports.
//!
//! Each command's flags live beside the command (`run`, `serve`, `selftest`, `report`), which
//! turns them into plain settings, validated once, and calls the library with them; the runner,
//! the reference, the reports and the self-test never see a flag. `main` maps the outcome to an
//! exit code (`covenant::exit`).

mod baseline;
mod manual;
mod matrix;
mod proxy;
mod publish;
mod report;
mod run;
mod selftest;
mod serve;

pub use baseline::BaselineArgs;
pub use matrix::MatrixArgs;
pub use proxy::{CheckArgs, ProxyArgs};
pub use report::{CompareArgs, MergeArgs};
pub use run::RunArgs;
pub use selftest::SelftestArgs;
pub use serve::ServeArgs;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use covenant::catalogue::Catalogue;
use covenant::exit::{self, Fatal};
use covenant::schema::{self, OPERATIONS_JSON, SCHEMA_FILES};
use covenant::style::ColourChoice;
use covenant::terminal::{note, out};
use std::process::ExitCode;

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

/// `--ci-annotations` values: workflow commands of GitHub Actions on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CiAnnotations {
    /// When `GITHUB_ACTIONS=true` (GitHub sets it in every job).
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

/// Parses the command line, runs the command, and maps the outcome to an exit code.
pub fn main() -> ExitCode {
    // Colours are decided before parsing, so that clap's own help and errors follow --color
    // and the environment as the rest of the output does.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let colour = colour_choice(&args);
    covenant::style::set_colour(colour);
    let command = Cli::command().color(if covenant::style::colours() {
        clap::ColorChoice::Always
    } else {
        clap::ColorChoice::Never
    });
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
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
            note(&format!("error: {fatal}"));
            fatal.exit_code()
        }
    }
}

fn dispatch(command: Command) -> Result<u8, Fatal> {
    match command {
        Command::Run(args) => run::run_command(args),
        Command::Serve(args) => serve::serve_command(args),
        Command::Schemas(SchemasCommand::Check) => schemas_check_command(),
        Command::Schema(SchemaCommand::Case) => {
            out(covenant::user::CASE_SCHEMA.trim_end());
            Ok(exit::SUCCESS)
        }
        Command::List(ListCommand::Rules) => list_rules_command(),
        Command::List(ListCommand::Faults) => serve::list_faults_command(),
        Command::List(ListCommand::Constraints) => list_constraints_command(),
        Command::Openapi { org_header } => openapi_command(org_header.as_deref()),
        Command::Selftest(args) => selftest::selftest_command(args),
        Command::Compare(args) => report::compare_command(args),
        Command::Merge(args) => report::merge_command(args),
        Command::Matrix(args) => matrix::matrix_command(args),
        Command::Baseline(args) => baseline::baseline_command(args),
        Command::Trace { id, format } => trace_command(id.as_deref(), format),
        Command::Proxy(args) => proxy::proxy_command(args),
        Command::Check(args) => proxy::check_command(args),
        Command::Completions { shell } => manual::completions_command(shell),
        Command::Man { command } => manual::man_command(command.as_deref()),
    }
}

/// The multi-threaded tokio runtime of a command, with `workers` threads (tokio's default, one
/// per core, when `None`).
fn runtime(workers: Option<usize>) -> Result<tokio::runtime::Runtime, Fatal> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = workers {
        builder.worker_threads(n);
    }
    builder
        .enable_all()
        .build()
        .map_err(|e| Fatal::Startup(format!("cannot start the async runtime: {e}")))
}

/// `--color WHEN` (or `--color=WHEN`) of the command line, the last one given; `auto` without
/// it or with a value clap will refuse. Read before clap parses, which then checks the value.
fn colour_choice(args: &[std::ffi::OsString]) -> ColourChoice {
    let mut choice = ColourChoice::Auto;
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let value = match word.strip_prefix("--color") {
            Some("") => words.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_owned),
            None => None,
        };
        choice = match value
            .as_deref()
            .and_then(|v| ColourArg::from_str(v, false).ok())
        {
            Some(ColourArg::Always) => ColourChoice::Always,
            Some(ColourArg::Never) => ColourChoice::Never,
            Some(ColourArg::Auto) => ColourChoice::Auto,
            None => choice,
        };
    }
    choice
}

/// Whether GitHub Actions annotations are printed: `--ci-annotations`, or with `auto`, whether
/// GitHub set `GITHUB_ACTIONS=true`; and the step summary file GitHub names, if any.
fn github(choice: CiAnnotations) -> Option<covenant::report::github::Job> {
    let on = match choice {
        CiAnnotations::Always => true,
        CiAnnotations::Never => false,
        CiAnnotations::Auto => std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
    };
    on.then(|| covenant::report::github::Job {
        step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
            .filter(|p| !p.is_empty())
            .map(std::path::PathBuf::from),
    })
}

/// `code`, or 6 (DIFFERENT) where it is 0, two targets or two runs behaved differently and
/// `--fail-on-difference` asks: the one rule of exit 6, for `run` and `compare`.
fn different(code: u8, fail_on_difference: bool, differs: bool) -> u8 {
    if code == exit::SUCCESS && fail_on_difference && differs {
        exit::DIFFERENT
    } else {
        code
    }
}

/// `covenant schemas check`: the text is gathered first and printed through `out`, so that a
/// closed stdout changes nothing of the verdict.
fn schemas_check_command() -> Result<u8, Fatal> {
    let mut text = Vec::new();
    let code = schema::run_check(
        SCHEMA_FILES,
        OPERATIONS_JSON,
        Catalogue::embedded(),
        &mut text,
    )
    .expect("writing to a Vec never fails");
    out(&String::from_utf8_lossy(&text));
    Ok(code)
}

/// `covenant list rules`: the catalogue, then counts by level and observability.
fn list_rules_command() -> Result<u8, Fatal> {
    out(&covenant::catalogue::render_list(Catalogue::embedded()));
    Ok(exit::SUCCESS)
}

/// `covenant list constraints`: one line per constraint, bodies then parameters, then a count.
fn list_constraints_command() -> Result<u8, Fatal> {
    let inventory = covenant::generate::Inventory::embedded();
    let mut text = String::new();
    for c in inventory.constraints() {
        let broken = c.unbreakable.unwrap_or("broken alone");
        text.push_str(&format!(
            "{}  {}  [{}]  held: {}; {broken}\n",
            c.operation,
            c.id,
            c.rule,
            c.edge()
        ));
    }
    let params = inventory.constraints().iter().filter(|c| c.param.is_some());
    text.push_str(&format!(
        "{} constraints: {} of {} body shapes, {} of {} parameters and headers\n",
        inventory.len(),
        inventory.len() - params.clone().count(),
        inventory.stems().len(),
        params.count(),
        inventory.parameters().len()
    ));
    out(&text);
    Ok(exit::SUCCESS)
}

/// `covenant trace [ID] [--format json]`: the trace, a rule's statements or one entry; an id
/// that is neither is a usage error naming the closest ids.
fn trace_command(id: Option<&str>, format: TraceFormat) -> Result<u8, Fatal> {
    use covenant::report::trace::{self, ConstraintRef};
    let (traced, catalogue) = (covenant::trace::Trace::embedded(), Catalogue::embedded());
    let inventory = covenant::generate::Inventory::embedded();
    let constraints: Vec<ConstraintRef<'_>> = inventory
        .constraints()
        .iter()
        .map(|c| ConstraintRef {
            id: &c.id,
            rule: &c.rule,
        })
        .collect();
    let text = match (id, format) {
        (None, TraceFormat::Text) => trace::text(traced, &constraints),
        (None, TraceFormat::Json) => pretty(&trace::json(traced, &constraints))?,
        (Some(id), format) => {
            let found = match format {
                TraceFormat::Text => trace::one(traced, catalogue, &constraints, id),
                TraceFormat::Json => trace::one_json(traced, catalogue, &constraints, id)
                    .map(|v| pretty(&v))
                    .transpose()?,
            };
            found.ok_or_else(|| {
                let near = trace::suggestions(traced, catalogue, id);
                let hint = match near.as_slice() {
                    [] => String::new(),
                    near => format!(" (did you mean {}?)", near.join(", ")),
                };
                Fatal::Usage(format!(
                    "covenant trace {id}: no rule and no trace entry has this id{hint}; \
                     `covenant list rules` lists the rules, `covenant trace` the entries"
                ))
            })?
        }
    };
    out(&text);
    Ok(exit::SUCCESS)
}

/// Pretty JSON and its newline.
fn pretty(value: &serde_json::Value) -> Result<String, Fatal> {
    serde_json::to_string_pretty(value)
        .map(|t| format!("{t}\n"))
        .map_err(|e| Fatal::Startup(format!("cannot serialise the trace: {e}")))
}

/// `covenant openapi [--org-header NAME]`.
fn openapi_command(org_header: Option<&str>) -> Result<u8, Fatal> {
    let document = match org_header {
        Some(name) => schema::openapi_document_with_org_header(name),
        None => schema::openapi_document(),
    };
    let text = serde_json::to_string_pretty(&document)
        .map_err(|e| Fatal::Startup(format!("cannot serialise the OpenAPI document: {e}")))?;
    out(&format!("{text}\n"));
    Ok(exit::SUCCESS)
}
