//! What a check makes of an answer: findings at the level the catalogue gives their rule, and
//! the rules it judged (the evidence the rule coverage counts).

use crate::catalogue::Catalogue;
use crate::verdict::Finding;

/// A finding for `rule`, at the level the catalogue gives it.
///
/// Panics on a rule id missing from the catalogue: that is a defect of covenant, caught by the
/// test that runs every case against the reference.
pub fn finding(catalogue: &Catalogue, rule: &str, message: impl Into<String>) -> Finding {
    let level = catalogue
        .rule(rule)
        .unwrap_or_else(|| panic!("check names rule {rule}, which is not in cases/rules.toml"))
        .level;
    Finding::new(rule, level, message)
}

/// What the generic checks made of one response: the rules they judged it against (the
/// evidence the rule coverage counts) and the breaches they found.
#[derive(Debug, Default)]
pub struct Checked {
    pub judged: Vec<&'static str>,
    pub findings: Vec<Finding>,
}
