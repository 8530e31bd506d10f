//! Which fixtures of the profile the target has shown to exist, and which it has shown to be
//! wrong.
//!
//! Most fixtures cannot be verified before the run: the spec has no read of a counterpart, a
//! comment or a tag. Their first use is watched instead. A request that carried a fixture and
//! succeeded confirms it. A request that a case expected to succeed, that carried a fixture not
//! yet confirmed, and that the target answered 404, shows the profile to be wrong, not the
//! target: the case is blocked (not judged), the cases that need the fixture are blocked too,
//! and the run ends with the profile problems listed. A verdict is about the target, and a
//! wrong fixture id is the user's to fix.

use crate::client::{snippet, Body, Request, Response};
use crate::profile::{Fixture, Profile, FIXTURES};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One fixture value of the profile.
#[derive(Debug, Clone)]
struct Watched {
    fixture: Fixture,
    /// Where the profile gives it, e.g. `finops.comment_ids[0]`.
    label: String,
    value: String,
}

/// The fixtures of a run's profile, and what the target showed of them.
#[derive(Debug, Default)]
pub struct FixtureWatch {
    fixtures: Vec<Watched>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Indices into `fixtures` that a success confirmed.
    confirmed: Vec<bool>,
    /// The problem found with each need's fixture, by need.
    broken: BTreeMap<&'static str, String>,
}

impl FixtureWatch {
    /// Watches the fixtures `profile` names.
    pub fn new(profile: &Profile) -> FixtureWatch {
        let fixtures = fixtures(profile);
        let state = State {
            confirmed: vec![false; fixtures.len()],
            broken: BTreeMap::new(),
        };
        FixtureWatch {
            fixtures,
            state: Mutex::new(state),
        }
    }

    /// A request that carried fixtures succeeded: they exist.
    pub fn confirm(&self, request: &Request) {
        // Every success comes here: look only for the fixtures no success has confirmed yet.
        let unconfirmed: Vec<usize> = {
            let state = self.lock();
            (0..self.fixtures.len())
                .filter(|&i| !state.confirmed[i])
                .collect()
        };
        if unconfirmed.is_empty() {
            return;
        }
        let carried = self.carried_of(request, unconfirmed);
        if carried.is_empty() {
            return;
        }
        let mut state = self.lock();
        for i in carried {
            state.confirmed[i] = true;
        }
    }

    /// A request that a case expected to succeed was refused: when the answer is a 404 and the
    /// request carried fixtures not yet confirmed, the profile is blamed and the problem
    /// returned (naming the profile keys); otherwise `None`, and the refusal is the target's.
    pub fn blame(&self, request: &Request, response: &Response) -> Option<String> {
        if response.status != 404 {
            return None;
        }
        let mut state = self.lock();
        let suspects: Vec<&Watched> = self
            .carried(request)
            .into_iter()
            .filter(|&i| !state.confirmed[i])
            .map(|i| &self.fixtures[i])
            .collect();
        let suspects = narrowed(suspects, &response.text());
        if suspects.is_empty() {
            return None;
        }
        let named: Vec<String> = suspects
            .iter()
            .map(|f| format!("{} ({:?})", f.label, f.value))
            .collect();
        // A deletable fixture is used up once deleted: a run with another state file (or none)
        // does not know what earlier runs took.
        let used_up = match suspects.iter().any(|f| f.label.contains(".deletable_")) {
            true => {
                ", or that no earlier run deleted it (runs that share a --state file never take a \
                 deletable fixture twice)"
            }
            false => "",
        };
        let problem = format!(
            "{}: {} {} was answered 404 where the spec expects success ({}); check that the \
             profile names what the target holds{used_up}",
            named.join(" or "),
            request.method,
            request.path,
            snippet(response)
        );
        for fixture in &suspects {
            state
                .broken
                .entry(fixture.fixture.key())
                .or_insert_with(|| problem.clone());
        }
        Some(problem)
    }

    /// The problem found with the fixture that meets `need`, if one was found.
    pub fn broken(&self, need: Fixture) -> Option<String> {
        self.lock().broken.get(need.key()).cloned()
    }

    /// Every problem found, once each, in the order of the profile keys.
    pub fn problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = Vec::new();
        for problem in self.lock().broken.values() {
            if !problems.contains(problem) {
                problems.push(problem.clone());
            }
        }
        problems
    }

    /// Indices of the fixtures a request carries: a segment of its path, or a string anywhere
    /// in its JSON body.
    fn carried(&self, request: &Request) -> Vec<usize> {
        self.carried_of(request, 0..self.fixtures.len())
    }

    /// Those of the fixtures `among` that a request carries.
    fn carried_of(&self, request: &Request, among: impl IntoIterator<Item = usize>) -> Vec<usize> {
        let path = request.path.split(['?', '#']).next().unwrap_or("");
        // The body's strings, gathered once rather than walked once per fixture.
        let mut strings = Vec::new();
        if let Some(value) = request.body.as_ref().and_then(Body::json) {
            gather_strings(value, &mut strings);
        }
        among
            .into_iter()
            .filter(|&i| {
                let value = self.fixtures[i].value.as_str();
                path.split('/').any(|segment| segment == value) || strings.contains(&value)
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The suspects whose name the answer mentions ("counterpart not found"), when it mentions any.
fn narrowed<'a>(suspects: Vec<&'a Watched>, answer: &str) -> Vec<&'a Watched> {
    let answer = answer.to_ascii_lowercase().replace(['_', '-'], " ");
    let named: Vec<&Watched> = suspects
        .iter()
        .copied()
        .filter(|f| answer.contains(&noun(&f.label)))
        .collect();
    if named.is_empty() {
        suspects
    } else {
        named
    }
}

/// What a fixture is called in words: `finops.deletable_tag_ids[0]` -> `tag`.
fn noun(label: &str) -> String {
    let key = label.rsplit('.').next().unwrap_or(label);
    let key = key.split('[').next().unwrap_or(key);
    let key = key
        .trim_start_matches("deletable_")
        .trim_end_matches("_ids")
        .trim_end_matches("_id")
        .trim_end_matches('s');
    key.replace('_', " ")
}

/// Every string of a JSON value.
fn gather_strings<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => into.push(s),
        Value::Array(items) => items.iter().for_each(|v| gather_strings(v, into)),
        Value::Object(map) => map.values().for_each(|v| gather_strings(v, into)),
        _ => {}
    }
}

/// The fixtures of a profile that a 404 can show to be wrong (ids in paths and bodies; not the
/// organizations, which travel in headers, nor the foreign card, which is meant to be refused):
/// those the fixture table watches.
fn fixtures(profile: &Profile) -> Vec<Watched> {
    let watched = FIXTURES.iter().filter(|row| row.watched);
    watched
        .flat_map(|row| {
            let values = row.fixture.labelled(profile).into_iter();
            values
                .filter(|(_, value)| !value.is_empty())
                .map(|(label, value)| Watched {
                    fixture: row.fixture,
                    label,
                    value: value.to_owned(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::Method;

    fn profile() -> Profile {
        Profile::parse(
            "[finops]\ncounterpart_id = \"cp-1\"\nvat_rate_id = \"vr-1\"\ncomment_ids = [\"c-1\"]\n",
            std::path::Path::new("p.toml"),
        )
        .expect("a valid profile")
    }

    fn answer(status: u16, body: &str) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
            json: serde_json::from_str(body).ok(),
        }
    }

    #[test]
    fn a_404_on_an_unconfirmed_fixture_blames_the_profile_key_the_answer_names() {
        let watch = FixtureWatch::new(&profile());
        let request = Request::new(Method::POST, "/finops/v1/receivables").json(
            serde_json::json!({"counterpart_id": "cp-1", "line_items": [{"vat_rate_id": "vr-1"}]}),
        );
        let problem = watch
            .blame(
                &request,
                &answer(404, r#"{"error":{"message":"counterpart not found"}}"#),
            )
            .expect("blamed");
        assert!(problem.starts_with("finops.counterpart_id"), "{problem}");
        assert!(!problem.contains("vat_rate_id"), "{problem}");
        assert!(watch.broken(Fixture::Counterpart).is_some());
        assert!(watch.broken(Fixture::VatRate).is_none());
        assert_eq!(watch.problems().len(), 1);
    }

    #[test]
    fn a_404_on_a_deletable_fixture_says_an_earlier_run_may_have_used_it_up() {
        let profile = Profile::parse(
            "[finops]\ndeletable_tag_ids = [\"t-1\"]\n",
            std::path::Path::new("p.toml"),
        )
        .expect("a valid profile");
        let watch = FixtureWatch::new(&profile);
        let request = Request::new(Method::DELETE, "/finops/v1/tags/t-1");
        let problem = watch
            .blame(
                &request,
                &answer(404, r#"{"error":{"message":"tag not found"}}"#),
            )
            .expect("blamed");
        assert!(
            problem.starts_with("finops.deletable_tag_ids[0]"),
            "{problem}"
        );
        assert!(problem.contains("no earlier run deleted it"), "{problem}");
        let comment = Request::new(Method::PATCH, "/finops/v1/comments/c-1");
        let other = FixtureWatch::new(&self::profile());
        let problem = other.blame(&comment, &answer(404, "{}")).expect("blamed");
        assert!(!problem.contains("earlier run"), "{problem}");
    }

    #[test]
    fn a_confirmed_fixture_or_another_status_is_the_targets() {
        let watch = FixtureWatch::new(&profile());
        let request = Request::new(Method::PATCH, "/finops/v1/comments/c-1");
        assert!(watch.blame(&request, &answer(422, "{}")).is_none());
        watch.confirm(&request);
        assert!(watch.blame(&request, &answer(404, "{}")).is_none());
        let unrelated = Request::new(Method::GET, "/finops/v1/events");
        assert!(watch.blame(&unrelated, &answer(404, "{}")).is_none());
        assert!(watch.problems().is_empty());
    }

    #[test]
    fn nouns_of_profile_keys() {
        assert_eq!(noun("finops.deletable_tag_ids[2]"), "tag");
        assert_eq!(noun("finops.counterpart_id"), "counterpart");
        assert_eq!(noun("finops.comment_ids[0]"), "comment");
        assert_eq!(noun("banking.bank_account_id"), "bank account");
    }
}
