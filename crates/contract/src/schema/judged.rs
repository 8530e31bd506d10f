//! What this binary judges against: the spec version, the number of rules and a hash of the
//! catalogue, the schemas and the operations table as embedded, named by every report.

use super::{OPERATIONS_JSON, SCHEMA_FILES};
use crate::catalogue::{Catalogue, RULES_TOML};
use crate::digest::Fnv1a;
use serde::{Deserialize, Serialize};

/// The `x-finops-version` the spec names for create receivable: the version a run sends by
/// default and the one a verdict is judged against.
pub const DEFAULT_FINOPS_VERSION: &str = "2026-09-24";

/// What a verdict was judged against, so that two reports can be told apart by it: the spec
/// version (the `x-finops-version` a run sends by default), the number of rules, and a short
/// hash of the rule catalogue and the schemas as embedded in the binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedAgainst {
    pub spec_version: String,
    pub rules: usize,
    /// The first 12 hex digits of the FNV-1a 64 hash of `cases/rules.toml`, each schema file
    /// (by name) and `schemas/operations.json`.
    pub catalogue_hash: String,
}

/// What this binary judges against: the spec version a run sends by default, the number of
/// rules of the embedded catalogue, and the hash of the catalogue and schemas as embedded.
pub fn judged_against() -> JudgedAgainst {
    static JUDGED: std::sync::OnceLock<JudgedAgainst> = std::sync::OnceLock::new();
    JUDGED
        .get_or_init(|| JudgedAgainst {
            spec_version: DEFAULT_FINOPS_VERSION.to_owned(),
            rules: Catalogue::embedded().rules.len(),
            catalogue_hash: catalogue_hash(RULES_TOML, SCHEMA_FILES, OPERATIONS_JSON),
        })
        .clone()
}

/// The first 12 hex digits of the FNV-1a 64 hash of the catalogue, each schema (its name, then
/// its text) and the operations table, each part ended by a zero byte so that no two splits of
/// the same bytes hash alike.
fn catalogue_hash(rules: &str, schemas: &[(&str, &str)], operations: &str) -> String {
    let parts = std::iter::once(rules)
        .chain(schemas.iter().flat_map(|(name, text)| [*name, *text]))
        .chain(std::iter::once(operations));
    let mut hash = Fnv1a::new();
    for part in parts {
        hash.write(part.as_bytes());
        hash.write(&[0]);
    }
    format!("{:016x}", hash.finish())[..12].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_hash_changes_with_any_byte_and_with_where_a_part_ends() {
        let base = catalogue_hash("rules", &[("a.json", "{}")], "ops");
        assert_eq!(base.len(), 12);
        assert!(base.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(base, catalogue_hash("rules", &[("a.json", "{}")], "ops"));
        for other in [
            catalogue_hash("rulez", &[("a.json", "{}")], "ops"),
            catalogue_hash("rules", &[("a.json", "{ }")], "ops"),
            catalogue_hash("rules", &[("b.json", "{}")], "ops"),
            catalogue_hash("rules", &[("a.json", "{}")], "ops "),
            catalogue_hash("rule", &[("sa.json", "{}")], "ops"),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn the_embedded_contract_names_the_default_version_and_every_rule() {
        let judged = judged_against();
        assert_eq!(judged.spec_version, DEFAULT_FINOPS_VERSION);
        assert_eq!(judged.rules, Catalogue::embedded().rules.len());
    }
}
