//! Covenant's integration tests, in one test binary so that it links once: the real binary and
//! the real reference server over HTTP, as a stranger would use them. `support` holds what the
//! tests share (the command builder, stand-in servers, scratch directories).

mod support;

mod answers;
mod baseline;
mod choices;
mod ci_docs;
mod classes;
mod cli;
mod commands;
mod conventions;
mod coverage;
mod differential;
mod explore;
mod faults;
mod format_classes;
mod harness;
mod hostile;
mod hostile_fuzz;
mod inventory;
mod late;
mod ledger;
mod matrix;
mod matrix_reading;
mod pace;
mod pagination;
mod profile_mistakes;
mod progress;
mod readings;
mod reference;
mod report;
mod repro;
mod response_fields;
mod runner;
mod schemas;
mod spellings;
mod standards;
mod stopped;
mod trace;
mod traffic;
mod user_cases;
mod verdicts;
mod wire;
