//! The rule catalogue (`cases/rules.toml`) as data.
//!
//! Every normative statement of the specification has a rule here with a stable id; checks,
//! faults and reports name rules by that id, so one grep finds a rule, its check, its fault and
//! its test. The catalogue is embedded in the binary so that a run never depends on the working
//! directory, and it is parsed strictly: an unknown key is a defect of the catalogue.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The catalogue as shipped with this build.
pub const RULES_TOML: &str = include_str!("../../../cases/rules.toml");

/// How a breach of a rule is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The spec states it: a breach fails the target.
    Must,
    /// An inferred convention: a breach only warns.
    Should,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "must",
            Level::Should => "should",
        })
    }
}

/// One normative statement of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub section: String,
    pub text: String,
    pub level: Level,
    pub observable: bool,
    /// What covers the rule: `schema:<stem>`, `case:<id>`, `pagination:<id>`, `generic:<id>`.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Why a rule cannot be observed through the ten operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

/// Something the spec says it does not show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub id: String,
    pub section: String,
    pub text: String,
}

/// The whole catalogue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(rename = "rule")]
    pub rules: Vec<Rule>,
    #[serde(rename = "gap", default)]
    pub gaps: Vec<Gap>,
}

/// A catalogue that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("cases/rules.toml does not parse: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("cases/rules.toml: rule id {0} is used more than once; rule ids must be unique")]
    DuplicateId(String),
    #[error("cases/rules.toml: rule {0} is observable but names no check in `checks`")]
    Orphaned(String),
    #[error("cases/rules.toml: rule {0} is not observable but gives no `why_not`")]
    NoReason(String),
}

impl Catalogue {
    /// The catalogue embedded in this build.
    pub fn embedded() -> &'static Catalogue {
        static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
        CATALOGUE.get_or_init(|| {
            Catalogue::parse(RULES_TOML).expect("the embedded rule catalogue is checked by tests")
        })
    }

    /// Parses and validates a catalogue.
    pub fn parse(text: &str) -> Result<Catalogue, CatalogueError> {
        let catalogue: Catalogue = toml::from_str(text)?;
        catalogue.validate()?;
        Ok(catalogue)
    }

    fn validate(&self) -> Result<(), CatalogueError> {
        let mut seen = std::collections::HashSet::new();
        let ids = self
            .rules
            .iter()
            .map(|r| &r.id)
            .chain(self.gaps.iter().map(|g| &g.id));
        for id in ids {
            if !seen.insert(id.as_str()) {
                return Err(CatalogueError::DuplicateId(id.clone()));
            }
        }
        for rule in &self.rules {
            if rule.observable && rule.checks.is_empty() {
                return Err(CatalogueError::Orphaned(rule.id.clone()));
            }
            if !rule.observable && rule.why_not.is_none() {
                return Err(CatalogueError::NoReason(rule.id.clone()));
            }
        }
        Ok(())
    }

    /// The rule with this id.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// Counts of rules by (level, observable).
    pub fn counts(&self) -> BTreeMap<(Level, bool), usize> {
        let mut counts = BTreeMap::new();
        for rule in &self.rules {
            *counts.entry((rule.level, rule.observable)).or_insert(0) += 1;
        }
        counts
    }
}

/// The text `covenant list rules` prints.
pub fn render_list(catalogue: &Catalogue) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for rule in &catalogue.rules {
        let seen = if rule.observable {
            "observable"
        } else {
            "not observable"
        };
        let _ = writeln!(
            out,
            "{:<32} {:<6} {:<15} {}",
            rule.id, rule.level, seen, rule.text
        );
    }
    let _ = writeln!(out, "\nGaps (the spec does not show):");
    for gap in &catalogue.gaps {
        let _ = writeln!(out, "{:<32} {}", gap.id, gap.text);
    }
    let counts = catalogue.counts();
    let get = |level, observable| counts.get(&(level, observable)).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "\n{} rules: {} must ({} observable, {} not), {} should ({} observable, {} not); {} gaps",
        catalogue.rules.len(),
        get(Level::Must, true) + get(Level::Must, false),
        get(Level::Must, true),
        get(Level::Must, false),
        get(Level::Should, true) + get(Level::Should, false),
        get(Level::Should, true),
        get(Level::Should, false),
        catalogue.gaps.len(),
    );
    out
}

/// ", did you mean `X`?" for the closest of `candidates` to a misspelt `word`, when one is close;
/// else nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let best = candidates
        .map(|c| (strsim::normalized_damerau_levenshtein(word, c), c))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((score, c)) if score >= 0.7 => format!(", did you mean `{c}`?"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalogue_parses_with_unique_ids() {
        let catalogue = Catalogue::parse(RULES_TOML).expect("catalogue parses");
        assert!(catalogue.rules.len() >= 90, "about 100 rules expected");
        assert!(!catalogue.gaps.is_empty());
    }

    #[test]
    fn list_ends_with_counts_that_add_up() {
        let catalogue = Catalogue::embedded();
        let text = render_list(catalogue);
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with(&format!("{} rules:", catalogue.rules.len())),
            "{last}"
        );
        assert!(text.contains("RCV-UNKNOWN-PROPS"));
        assert!(text.contains("GAP-TOKEN-ISSUANCE"));
    }

    #[test]
    fn duplicate_rule_ids_are_refused() {
        let text = r#"
[[rule]]
id = "A-1"
section = "s"
text = "t"
level = "must"
observable = false
why_not = "n"

[[rule]]
id = "A-1"
section = "s"
text = "t"
level = "should"
observable = false
why_not = "n"
"#;
        assert!(
            matches!(Catalogue::parse(text), Err(CatalogueError::DuplicateId(id)) if id == "A-1")
        );
    }

    #[test]
    fn observable_rule_without_checks_is_orphaned() {
        let text = r#"
[[rule]]
id = "A-1"
section = "s"
text = "t"
level = "must"
observable = true
"#;
        assert!(matches!(Catalogue::parse(text), Err(CatalogueError::Orphaned(id)) if id == "A-1"));
    }
}
