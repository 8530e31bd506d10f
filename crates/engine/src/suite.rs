//! The suite: every case covenant carries out, gathered in one stable order.
//!
//! The hand-written scenarios, the generated cases and the pagination cases each build their own
//! list; this module puts them together and is the only place that knows which cases exist. The
//! runner receives the list and knows none of them.

use crate::case::{Case, RunCx};

/// Every case of the suite, in its stable order: hand-written scenarios (left out when
/// `generated_only`), then generated cases, then pagination cases, the explorer's, and last the
/// user's cases (`user`, loaded from their case files).
pub fn cases(run: &RunCx, generated_only: bool, user: Vec<Case>) -> Vec<Case> {
    let mut cases = Vec::new();
    if !generated_only {
        cases.extend(crate::scenario::all());
    }
    cases.extend(crate::schema_cases::cases(run));
    cases.extend(crate::pagination::cases());
    cases.extend(crate::explore::cases(run));
    cases.extend(user);
    cases
}

#[cfg(test)]
mod tests {
    use crate::scenario::all;
    use crate::schema_cases::{accept_cases, param_cases};

    #[test]
    fn every_case_check_the_catalogue_names_exists() {
        let mut ids: Vec<String> = all().into_iter().map(|c| c.id).collect();
        ids.extend(crate::pagination::cases().into_iter().map(|c| c.id));
        ids.extend(param_cases().into_iter().map(|c| c.id));
        ids.extend(accept_cases().into_iter().map(|c| c.id));
        ids.push("explore.sequence.1".to_owned());
        let catalogue = crate::catalogue::Catalogue::embedded();
        for rule in &catalogue.rules {
            for check in &rule.checks {
                let Some(prefix) = check
                    .strip_prefix("case:")
                    .or_else(|| check.strip_prefix("pagination:"))
                else {
                    continue;
                };
                let found = ids
                    .iter()
                    .any(|id| id == prefix || id.starts_with(&format!("{prefix}.")));
                assert!(
                    found,
                    "{} names {check}, which no case carries out",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn generic_checks_the_catalogue_names_are_known() {
        let known = [
            "generic:json-body",
            "generic:content-type",
            "generic:response-schema",
            "generic:no-5xx",
            "generic:negative-rejected",
            "generic:positive-accepted",
            "generic:status-set",
            "generic:error-body",
            "generic:receivable-answer",
            "generic:www-authenticate",
            "generic:allow",
        ];
        for rule in &crate::catalogue::Catalogue::embedded().rules {
            for check in rule.checks.iter().filter(|c| c.starts_with("generic:")) {
                assert!(
                    known.contains(&check.as_str()),
                    "{} names unknown {check}",
                    rule.id
                );
            }
        }
    }
}
