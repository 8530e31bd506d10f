//! The matrix as `matrix.json` writes it: a column per implementation, a row per rule, and
//! the places where the spec is silent with what each implementation chose there.

use super::Cell;
use crate::catalogue::Level;
use crate::report::Subject;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// A column of the matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Implementation {
    pub name: String,
    pub target: String,
    pub covenant_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    pub verdict: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub traffic: bool,
    /// The report.json it was read from, as given.
    pub report: String,
    /// Its summary.html, when it sits beside its report: relative to the matrix's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Must rules it kept (pass) and broke (fail).
    pub must_kept: usize,
    pub must_broken: usize,
    /// Should rules it departed from (warn).
    pub should_warned: usize,
}

/// A row of the matrix: a rule of the catalogue and each implementation's result on it, in
/// column order.
#[derive(Debug, Clone, Serialize)]
pub struct RuleRow {
    pub id: String,
    /// The prefix of its id (`RCV`, `BPAG`).
    pub area: String,
    /// The section of the spec it comes from.
    pub section: String,
    pub level: Level,
    pub statement: String,
    #[serde(serialize_with = "by_name")]
    pub results: Vec<(String, Cell)>,
}

/// One place where the spec is silent (a gap, and what was looked at there), and what each
/// implementation chose.
#[derive(Debug, Clone, Serialize)]
pub struct SilentPlace {
    pub gap: String,
    pub text: String,
    #[serde(flatten)]
    pub subject: Subject,
    pub what: String,
    /// How many different choices the implementations that showed something made.
    pub distinct: usize,
    /// Per implementation that showed something, the values it showed.
    #[serde(serialize_with = "by_name")]
    pub choices: Vec<(String, Vec<String>)>,
}

/// The whole matrix: `matrix.json` as it is written.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    pub covenant_version: String,
    pub implementations: Vec<Implementation>,
    pub rules: Vec<RuleRow>,
    /// Ranked by how many different choices were made, the most first.
    pub choices: Vec<SilentPlace>,
}

/// `(name, value)` pairs written as a JSON object, in their order.
fn by_name<S: Serializer, T: Serialize>(
    pairs: &[(String, T)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(pairs.len()))?;
    for (name, value) in pairs {
        map.serialize_entry(name, value)?;
    }
    map.end()
}
