//! Tests of the reports: golden files, schema and XSD validation, a real browser, compare,
//! merge and secret redaction. One test binary, so that it links once.

pub(crate) mod browser;
mod client;
mod compare;
mod golden;
mod junit_xsd;
mod merge;
pub(crate) mod run_schema;
mod sample;
mod secrets;
mod surfaces;
