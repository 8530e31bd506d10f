//! The command line: the binary's own modules, which nothing imports.
//!
//! Each command's flags live beside the command (`run`, `serve`, `selftest`, `report`), which
//! turns them into plain settings, validated once, and calls the engine with them; the runner,
//! the reference, the reports and the self-test never see a flag. `flags` holds the command
//! line's shape, `dispatch` runs a command and maps its outcome to an exit code
//! (`covenant::exit`).

mod baseline;
mod contract;
mod dispatch;
mod flags;
mod github;
mod manual;
mod matrix;
mod proxy;
mod publish;
mod report;
mod run;
mod runtime;
mod selftest;
mod serve;

pub use baseline::BaselineArgs;
pub use dispatch::main;
pub use flags::Cli;
pub use github::{github, CiAnnotations};
pub use matrix::MatrixArgs;
pub use proxy::{CheckArgs, ProxyArgs};
pub use report::{CompareArgs, MergeArgs};
pub use run::RunArgs;
pub use runtime::runtime;
pub use selftest::SelftestArgs;
pub use serve::ServeArgs;
