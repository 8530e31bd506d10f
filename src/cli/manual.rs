//! `covenant completions SHELL` and `covenant man [COMMAND]`: generated from the command-line
//! definition itself (clap_complete, clap_mangen), so that they never drift from the flags.

use super::Cli;
use clap::CommandFactory;
use covenant::exit::{self, Fatal};
use covenant::terminal::out;

/// The completion script of `shell` on stdout.
pub fn completions_command(shell: clap_complete::Shell) -> Result<u8, Fatal> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "covenant", &mut script);
    out(&String::from_utf8_lossy(&script));
    Ok(exit::SUCCESS)
}

/// The man page of covenant, or of one of its commands (`covenant-run(1)`), on stdout.
pub fn man_command(name: Option<&str>) -> Result<u8, Fatal> {
    let mut command = Cli::command();
    // Built, so that each command knows its full name (`covenant-run`) and its global flags.
    command.build();
    let page = match name {
        None => command,
        Some(name) => command
            .get_subcommands()
            .find(|c| c.get_name() == name)
            .cloned()
            .ok_or_else(|| {
                let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
                Fatal::Usage(format!(
                    "no command `{name}`; `covenant man` has a page for each of: {}",
                    names.join(", ")
                ))
            })?,
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut roff)
        .map_err(|e| Fatal::Startup(format!("cannot render the man page: {e}")))?;
    out(&String::from_utf8_lossy(&roff));
    Ok(exit::SUCCESS)
}
