//! The conformance matrix (`covenant matrix`): the report.json of several runs, each of one
//! implementation, side by side, for the owner of the specification: every rule of the catalogue
//! with each implementation's result on it, and, most of all, where the spec is silent and the
//! implementations chose differently (which is where the spec should say more).
//!
//! It reads reports as data and nothing else: it needs no target, sends nothing, and judges
//! nothing again; a report of another covenant version is read as far as it goes (a rule that
//! version did not have is "not in that version"). [`read()`] turns one file into a [`Run`],
//! [`build()`] lines runs up into a [`Matrix`], [`view`] works out once every list, count and
//! order the outputs show, and one module per output lays that view out: [`json`]
//! (`matrix.json`, its schema `schemas/matrix.json`), [`md`] (`matrix.md`, sized for a pull
//! request comment), [`html`] (`matrix.html`) and [`console`] (the command's lines).

#[cfg(test)]
mod agreement;
mod build;
mod choices;
pub mod console;
mod error;
pub mod html;
pub mod json;
pub mod md;
mod read;
mod run;
mod table;
pub mod view;
mod write;

pub use build::{build, short_date};
pub use error::MatrixError;
pub use read::{read, read_all};
pub use run::{Cell, RuleOutcome, Run, SilentChoice};
pub use table::{Implementation, Matrix, RuleRow, SilentPlace};
pub use view::{listed, MatrixView};
pub use write::write;
