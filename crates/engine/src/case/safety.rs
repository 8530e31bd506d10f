//! Staging safety: a DELETE carrying the profile's finance token may only name an id from the
//! profile's deletable lists.

use super::run_context::RunCx;
use crate::client::Request;
use crate::profile::Profile;
use crate::schema::OperationId;
use reqwest::Method;

/// Staging safety: a DELETE carrying the profile's finance token may only name an id from the
/// profile's deletable lists. (DELETEs without valid credentials, as the authentication cases
/// send to ids that name nothing, cannot delete anything on a conforming target.)
pub(super) fn forbidden_delete(run: &RunCx, request: &Request) -> Option<String> {
    if request.method != Method::DELETE {
        return None;
    }
    let token = run.finops_token()?;
    let bearer = format!("Bearer {token}");
    let credentialed = request
        .headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("authorization") && *v == bearer);
    if !credentialed || deletable(&run.profile, &request.path) || names_nothing(&request.path) {
        return None;
    }
    Some(format!(
        "covenant defect: refused to send DELETE {}: only ids of finops.deletable_tag_ids and \
         finops.deletable_bank_accounts are ever deleted; please report it",
        request.path
    ))
}

/// Whether a DELETE path of an operation has an id that is no UUID where the spec states one:
/// it names no resource the spec can have (a path value the generated parameter cases break).
fn names_nothing(path: &str) -> bool {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let deletes = OperationId::ALL
        .into_iter()
        .filter(|op| op.operation().method == crate::schema::Method::Delete);
    deletes.into_iter().any(|op| {
        let template = op.operation().path.as_str();
        let (want, got): (Vec<&str>, Vec<&str>) =
            (template.split('/').collect(), path.split('/').collect());
        want.len() == got.len()
            && want
                .iter()
                .zip(&got)
                .all(|(w, g)| w.starts_with('{') || w == g)
            && want
                .iter()
                .zip(&got)
                .any(|(w, g)| w.starts_with('{') && !crate::profile::is_uuid(g))
    })
}

/// Whether a DELETE path names a deletable fixture of the profile, and nothing else.
fn deletable(profile: &Profile, path: &str) -> bool {
    let Some(f) = &profile.finops else {
        return false;
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let tags = f
        .deletable_tag_ids
        .iter()
        .map(|id| OperationId::DeleteTag.path(&[id]));
    let accounts = f
        .deletable_bank_accounts
        .iter()
        .map(|a| OperationId::DeleteBankAccount.path(&[&a.counterpart_id, &a.bank_account_id]));
    tags.chain(accounts).any(|p| p == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        Profile::parse(
            "[finops]\ntoken = \"t\"\ndeletable_tag_ids = [\"tag-1\"]\n\
             [[finops.deletable_bank_accounts]]\ncounterpart_id = \"cp\"\nbank_account_id = \"ba\"\n",
            std::path::Path::new("p.toml"),
        )
        .expect("a valid profile")
    }

    #[test]
    fn only_the_profiles_deletable_ids_may_be_deleted() {
        let p = profile();
        assert!(deletable(&p, "/finops/v1/tags/tag-1"));
        assert!(deletable(&p, "/finops/v1/counterparts/cp/bank-accounts/ba"));
        assert!(!deletable(&p, "/finops/v1/tags/tag-2"));
        assert!(!deletable(&p, "/finops/v1/tags/tag-1/../tag-2"));
        assert!(!deletable(
            &p,
            "/finops/v1/counterparts/cp/bank-accounts/other"
        ));
        assert!(!deletable(&Profile::default(), "/finops/v1/tags/tag-1"));
    }
}
