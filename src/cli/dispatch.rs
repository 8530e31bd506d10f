//! From the process's arguments to an exit code: colours decided first, the command line
//! parsed, the command run, its outcome mapped.

use super::contract;
use super::flags::{Cli, ColourArg, Command, ListCommand, SchemaCommand, SchemasCommand};
use super::{baseline, manual, matrix, proxy, report, run, selftest, serve};
use clap::{CommandFactory, FromArgMatches, ValueEnum};
use covenant::exit::{self, Fatal};
use covenant::style::ColourChoice;
use covenant::terminal::note;
use std::process::ExitCode;

/// Parses the command line, runs the command, and maps the outcome to an exit code.
pub fn main() -> ExitCode {
    super::publish::mark_start();
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
        Command::Schemas(SchemasCommand::Check) => contract::schemas_check_command(),
        Command::Schema(SchemaCommand::Case) => contract::schema_case_command(),
        Command::List(ListCommand::Rules) => contract::list_rules_command(),
        Command::List(ListCommand::Faults) => serve::list_faults_command(),
        Command::List(ListCommand::Constraints) => contract::list_constraints_command(),
        Command::Openapi { org_header } => contract::openapi_command(org_header.as_deref()),
        Command::Selftest(args) => selftest::selftest_command(args),
        Command::Compare(args) => report::compare_command(args),
        Command::Merge(args) => report::merge_command(args),
        Command::Matrix(args) => matrix::matrix_command(args),
        Command::Baseline(args) => baseline::baseline_command(args),
        Command::Trace { id, format } => contract::trace_command(id.as_deref(), format),
        Command::Proxy(args) => proxy::proxy_command(args),
        Command::Check(args) => proxy::check_command(args),
        Command::Completions { shell } => manual::completions_command(shell),
        Command::Man { command } => manual::man_command(command.as_deref()),
    }
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
