//! The `covenant` binary: parse the command line, call the library, map the outcome to an exit
//! code (see `covenant::exit`).

fn main() -> std::process::ExitCode {
    covenant::cli::main()
}
