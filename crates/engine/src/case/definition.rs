//! A case as the plan holds it: its id, the operation it exercises, the rules it covers, what it
//! needs of the profile, when it may run, and the body that runs it.

use super::context::{BoxFuture, CaseCx, Outcome};
use crate::profile::Fixture as Need;
use crate::schema::{Area, OperationId};
use std::sync::Arc;

/// The body of a case.
pub type CaseFn = Arc<dyn for<'a> Fn(&'a mut CaseCx) -> BoxFuture<'a, Outcome> + Send + Sync>;

/// One case of the plan.
#[derive(Clone)]
pub struct Case {
    /// Stable id, `area.name`; filters match on it.
    pub id: String,
    /// The JUnit testsuite: the area or operation.
    pub suite: String,
    /// The operation it exercises, where it exercises one.
    pub operation: Option<OperationId>,
    /// The other operations it sends requests of ([`Case::also`], [`Case::sends`]): a request
    /// of an operation the case does not declare is a defect of covenant, refused unsent (the
    /// case ends as an error naming it).
    pub sends: Vec<OperationId>,
    pub rules: Vec<&'static str>,
    pub needs: Vec<Need>,
    /// Creates or deletes something (excluded by `--read-only`).
    pub writes: bool,
    /// Needs the data to stand still (pagination comparisons): runs while no writing case runs.
    pub still: bool,
    /// Starts only after every other case of the plan has finished, writers included (the
    /// runner's last phase): it uses what earlier cases left in [`RunCx`](super::RunCx), such
    /// as the [`TokenStash`](super::TokenStash).
    pub late: bool,
    /// Runs beside the others but may wait, part way through, until every case of the plan
    /// that does not wait so has finished ([`CaseCx::wait_for_others`]): the explorer's shrink,
    /// which no other case's request may land in the middle of.
    pub waits_for_others: bool,
    /// The ids of the earlier cases whose results a late case uses; a plan without one of them
    /// (filters, `--skip`, shards, `--read-only`) skips the case, saying so.
    pub after: Vec<String>,
    /// Requests it sends, roughly, for `--dry-run`.
    pub requests: usize,
    /// Requests it sends one after another on its longest chain, roughly: its time in round
    /// trips against a remote target. The runner starts long chains first, so that they run
    /// beside the short cases rather than after them.
    pub chain: usize,
    pub run: CaseFn,
}

impl Case {
    /// A case of `operation`, which needs what a request of it needs (see
    /// [`Need::of_operation`]); the methods below say where the case's requests differ.
    pub fn new(id: &str, operation: OperationId, rules: &[&'static str], run: CaseFn) -> Case {
        let suite = id.split('.').next().unwrap_or(id).to_owned();
        Case {
            id: id.to_owned(),
            suite,
            operation: Some(operation),
            sends: Vec::new(),
            rules: rules.to_vec(),
            needs: Need::of_operation(operation),
            writes: false,
            still: false,
            late: false,
            waits_for_others: false,
            after: Vec::new(),
            requests: 1,
            chain: 1,
            run,
        }
    }

    /// Needs these fixtures too, beyond what the operations table says of its requests.
    pub fn needs(mut self, needs: &[Need]) -> Case {
        for need in needs {
            self.add(*need);
        }
        self
    }

    fn add(&mut self, need: Need) {
        if !self.needs.contains(&need) {
            self.needs.push(need);
        }
    }

    /// Also sends requests of `op`: needs what they need.
    pub fn also(mut self, op: OperationId) -> Case {
        for need in Need::of_operation(op) {
            self.add(need);
        }
        self.sends(&[op])
    }

    /// Also sends requests of these operations, on what the case already needs (ids it made, or
    /// that name nothing): declared, with no need added.
    pub fn sends(mut self, ops: &[OperationId]) -> Case {
        for op in ops {
            if Some(*op) != self.operation && !self.sends.contains(op) {
                self.sends.push(*op);
            }
        }
        self
    }

    /// Every operation the case declares it sends: its own, then the others.
    pub fn declared(&self) -> Vec<OperationId> {
        self.operation.iter().chain(&self.sends).copied().collect()
    }

    /// Sends no credential of the profile (a missing or made-up token): needs nothing of it.
    pub fn anonymous(mut self) -> Case {
        self.needs.clear();
        self
    }

    /// Sends only the profile's token, on ids that name nothing: needs its token alone.
    pub fn token_only(mut self) -> Case {
        self.needs.retain(|need| need.is_token());
        self
    }

    /// Needs the token of `area` too (a token sent to the other area).
    pub fn with_token(mut self, area: Area) -> Case {
        self.add(Need::token_of(area));
        self
    }

    /// Names ids of its own (that name nothing, or that it made) where the operation's path and
    /// body take the profile's: needs the token and the organization alone.
    pub fn naming_nothing(mut self) -> Case {
        self.needs
            .retain(|need| need.is_token() || need.is_organization());
        self
    }

    /// Sends the area's organization header under the name the profile gives it.
    pub fn org_header(mut self) -> Case {
        let header = self.organization_header();
        if let Some(key) = header.and_then(|p| p.name_from_profile.as_deref()) {
            self.add(Need::of_key(key).expect("x-name-from-profile is a fixture key"));
        }
        self
    }

    /// Names the profile's organization in the area's organization header.
    pub fn own_organization(self) -> Case {
        self.organization_from(|p| p.fixture.as_deref())
    }

    /// Names the profile's other organization in the area's organization header (tenant
    /// isolation).
    pub fn other_organization(self) -> Case {
        self.organization_from(|p| p.other_fixture.as_deref())
    }

    fn organization_from(mut self, key: fn(&crate::schema::Param) -> Option<&str>) -> Case {
        self = self.org_header();
        if let Some(key) = self.organization_header().and_then(key) {
            self.add(Need::of_key(key).expect("an organization header's keys are fixture keys"));
        }
        self
    }

    fn organization_header(&self) -> Option<&'static crate::schema::Param> {
        let op = self.operation?;
        op.organization().or_else(|| op.area().organization())
    }

    /// Sends bodies that name every fixture the table lists for them, the optional ones too
    /// (a card-scoped velocity control).
    pub fn full_body(mut self) -> Case {
        let Some(op) = self.operation else {
            return self;
        };
        for field in &op.operation().body_fixtures {
            self.add(Need::of_key(&field.fixture).expect("x-body-fixtures names fixture keys"));
        }
        self
    }

    pub fn writes(mut self) -> Case {
        self.writes = true;
        self
    }

    pub fn still(mut self) -> Case {
        self.still = true;
        self
    }

    /// Runs last, once every case that is not late has finished, using what the cases `after`
    /// names left behind.
    pub fn late(mut self, after: &[&str]) -> Case {
        self.late = true;
        self.after = after.iter().map(|id| (*id).to_owned()).collect();
        self
    }

    /// May wait part way through until every other case has finished (see
    /// [`Case::waits_for_others`]).
    pub fn waits_for_others(mut self) -> Case {
        self.waits_for_others = true;
        self
    }

    /// Sends about `n` requests, one after another unless [`Case::chain`] says otherwise.
    pub fn requests(mut self, n: usize) -> Case {
        self.requests = n;
        self.chain = n;
        self
    }

    /// Its longest chain of requests sent one after another is about `n` long (after
    /// [`Case::requests`]; a case sending [`WINDOW`](super::WINDOW) at a time has
    /// `requests / WINDOW`).
    pub fn chain(mut self, n: usize) -> Case {
        self.chain = n;
        self
    }

    pub fn suite(mut self, suite: &str) -> Case {
        self.suite = suite.to_owned();
        self
    }

    /// A case of this id that sends nothing and passes: a plan's placeholder in tests.
    #[cfg(test)]
    pub fn idle(id: &str) -> Case {
        Case::new(
            id,
            OperationId::ListEvents,
            &[],
            case_fn(|_| Box::pin(async { Ok(()) })),
        )
    }
}

/// Makes a [`CaseFn`] of a closure, e.g. `case_fn(|cx| Box::pin(my_case(cx)))`.
pub fn case_fn<F>(f: F) -> CaseFn
where
    F: for<'a> Fn(&'a mut CaseCx) -> BoxFuture<'a, Outcome> + Send + Sync + 'static,
{
    Arc::new(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_declares_its_operation_then_those_it_also_sends_once_each() {
        let case = Case::idle("x.y")
            .also(OperationId::CreateVatId)
            .sends(&[OperationId::GetVatId, OperationId::ListEvents])
            .sends(&[OperationId::GetVatId]);
        assert_eq!(
            case.declared(),
            [
                OperationId::ListEvents,
                OperationId::CreateVatId,
                OperationId::GetVatId
            ]
        );
        let needs = Case::idle("x.y").needs;
        assert_eq!(
            Case::idle("x.y").sends(&[OperationId::CreateVatId]).needs,
            needs
        );
    }
}
