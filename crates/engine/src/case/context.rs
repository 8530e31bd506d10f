//! What a case sees while it runs ([`CaseCx`]: the run, and the record of its exchanges and
//! findings), and how its requests are sent and recorded. What the case records of its answers
//! is in `findings`; the usual checks of an answer (refused, created, this status) are the
//! expectation vocabulary, another type over this record ([`super::Expect`]).
//!
//! Every request a case sends is an [`Outgoing`] that carries its operation, one the case
//! declared ([`CaseCx::declare`]: a request of another is refused, unsent, as covenant's
//! defect); [`CaseCx::send`], [`CaseCx::send_each`] and
//! [`CaseCx::dispatch`] all end in [`CaseCx::record_judged`], the one place an exchange is
//! recorded and the generic checks (no 5xx, JSON bodies, error body shapes, declared statuses)
//! applied, so that no case can forget them. A case never decides a rule's level: it names the
//! rule, and the catalogue says whether a breach fails or warns.

use super::request::{Call, Outgoing};
use super::run_context::RunCx;
use super::safety::forbidden_delete;
use super::tally::Tally;
use crate::check;
use crate::check::AnswerShapes;
use crate::client::{Request, Response, SendError, Sent, Urgency};
use crate::ledger::{Consumable, TakeError, Taken};
use crate::schema::OperationId;
use crate::verdict::{Exchange, Finding, Inconclusive};
use futures_util::stream::{FuturesOrdered, StreamExt};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Requests of one case in flight at once in [`CaseCx::send_each`] (`--concurrency` caps the
/// requests of all cases).
pub const WINDOW: usize = 8;

/// Why a case stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Abort {
    /// The target gave no usable answer: the case is an error.
    Transport(String),
    /// Covenant could not carry the case out (the generator failed, or a request was refused
    /// for staging safety): the case is an error, and the message says it is covenant's.
    Defect(String),
    /// The run is stopping or its budget is spent: the case is skipped.
    Skip(String),
    /// A precondition failed in a way already recorded as a finding: stop here.
    Recorded,
}

pub type Outcome = Result<(), Abort>;

/// What a running case holds of the run that the other cases need too (the runner's: its place
/// among the `--concurrency` cases at once, its phase), for a case that waits part way through
/// for the others ([`super::Case::waits_for_others`]).
pub trait Seat: Send + Sync {
    /// Gives up what the case holds, and waits until every case of the plan that does not wait
    /// for the others has finished.
    fn wait_for_others(&mut self) -> BoxFuture<'_, ()>;
}

/// A request sent by [`CaseCx::dispatch`], waiting to be recorded: it carries its operation, so
/// that recording it judges it as an answer of that operation.
pub struct Dispatched {
    /// `None` for a request that is no operation of the spec ([`CaseCx::send_unlisted`]).
    operation: Option<OperationId>,
    request: Request,
    /// `Err` when covenant refused to send it (staging safety).
    outcome: Result<(Sent, Result<Response, SendError>), String>,
}

/// One case's view of the run, and its record.
pub struct CaseCx {
    pub run: Arc<RunCx>,
    pub exchanges: Vec<Exchange>,
    pub findings: Vec<Finding>,
    /// Requests sent, including those whose exchanges were not kept: one count for the case and
    /// every part forked from it, so that a part abandoned when another fails still counts what
    /// it sent (the verdict line's count is what the target was sent).
    sent: Arc<AtomicUsize>,
    /// Keep every exchange (hand-written cases) or only those with findings (generated cases).
    pub keep_all: bool,
    /// The (shrunk) payload a generated case reports.
    pub payload: Option<serde_json::Value>,
    /// Set when a fixture of the profile proved wrong in this case: the case is blocked by the
    /// profile, not judged, and records no further finding.
    pub blocked: Option<String>,
    /// Variants the case could not judge because their baseline was refused.
    pub inconclusive: Vec<Inconclusive>,
    /// The last request the target answered 404, for [`CaseCx::blame_profile`].
    refused: Option<Request>,
    /// The rules judged and the statuses seen and expected: the evidence of rule and status
    /// coverage.
    pub tally: Tally,
    /// The kinds of answer the case had: what the behaviour diff and the spec owners' section
    /// read.
    pub shapes: AnswerShapes,
    /// What the case holds of the run, when it may wait for the others (the runner's).
    pub seat: Option<Box<dyn Seat>>,
    /// The case's id and the operations it declares it sends ([`CaseCx::declare`]); `None`
    /// outside a case of the plan (a test's), where any operation may be sent.
    declared: Option<Arc<(String, Vec<OperationId>)>>,
}

impl CaseCx {
    pub fn new(run: Arc<RunCx>) -> CaseCx {
        CaseCx {
            run,
            exchanges: Vec::new(),
            findings: Vec::new(),
            sent: Arc::new(AtomicUsize::new(0)),
            keep_all: true,
            payload: None,
            blocked: None,
            inconclusive: Vec::new(),
            refused: None,
            tally: Tally::default(),
            shapes: AnswerShapes::default(),
            seat: None,
            declared: None,
        }
    }

    /// The case this record is for, and the operations it declares it sends (its own and
    /// those of `Case::also` and `Case::sends`): the runner says so before the case starts.
    pub fn declare(&mut self, case: &str, operations: Vec<OperationId>) {
        self.declared = Some(Arc::new((case.to_owned(), operations)));
    }

    /// Why a request of `operation` is refused: it is none the case declared. That is a defect
    /// of covenant's bookkeeping (the case's needs, and so its skips, follow from its declared
    /// operations), never of the target: the request is not sent, and the case ends as an error
    /// that names the case and the operation.
    fn undeclared(&self, operation: OperationId) -> Option<String> {
        let (case, operations) = self.declared.as_deref()?;
        undeclared(case, operations, operation)
    }

    /// A fresh record for part of this case that runs beside its other parts (independent
    /// request chains, such as reads of one list at several page sizes); [`CaseCx::join`] folds
    /// it back. Against a remote target, chains side by side take the time of the longest.
    pub fn fork(&self) -> CaseCx {
        CaseCx {
            keep_all: self.keep_all,
            sent: self.sent.clone(),
            declared: self.declared.clone(),
            ..CaseCx::new(self.run.clone())
        }
    }

    /// The requests this case and its parts sent (retries included).
    pub fn requests(&self) -> usize {
        self.sent.load(Ordering::Relaxed)
    }

    /// Takes the next fixture of `list` from the ledger, recorded as used up before anything is
    /// sent for it. Nothing is taken when no request would leave (the run is stopping or its budget
    /// is spent); when the ledger cannot record the taking, the case is an error and sends nothing.
    pub fn take_fixture(&self, list: Consumable) -> Result<Taken, Abort> {
        let run = &self.run;
        if run.target.is_stopped() {
            return Err(Abort::Skip(format!("{}: not run", run.stop_reason())));
        }
        if run.target.budget_exhausted() {
            return Err(Abort::Skip(SendError::BudgetExhausted.to_string()));
        }
        run.ledger.take(list, &run.profile).map_err(|e| match e {
            TakeError::Exhausted(gone) => Abort::Skip(gone.to_string()),
            TakeError::Record(e) => Abort::Defect(format!("{e} (nothing was deleted)")),
        })
    }

    /// Drops every exchange no finding and no variant left unjudged points at (what a part
    /// that kept all its exchanges for a script of them still needs), and the kinds of answer
    /// it saw with them: the part's answers are kinds another part of the case holds.
    pub fn keep_cited(&mut self) {
        let cited: std::collections::BTreeSet<usize> = self
            .findings
            .iter()
            .filter_map(|f| f.exchange)
            .chain(self.inconclusive.iter().filter_map(|u| u.exchange))
            .collect();
        let kept: Vec<usize> = cited.into_iter().collect();
        let at = |old: usize| kept.binary_search(&old).ok();
        for f in &mut self.findings {
            f.exchange = f.exchange.and_then(at);
        }
        for u in &mut self.inconclusive {
            u.exchange = u.exchange.and_then(at);
        }
        let mut all: Vec<Option<Exchange>> = self.exchanges.drain(..).map(Some).collect();
        self.exchanges = kept.iter().filter_map(|i| all[*i].take()).collect();
        self.shapes = AnswerShapes::default();
    }

    /// Folds a part made by [`CaseCx::fork`] back into this case's record, after what it holds:
    /// exchanges (findings keep pointing at theirs), findings, variants left
    /// unjudged, a fixture the part found wrong, its tally of evidence and statuses, and the
    /// kinds of answer it had.
    pub fn join(&mut self, part: CaseCx) {
        let offset = self.exchanges.len();
        self.exchanges.extend(part.exchanges);
        self.findings.extend(part.findings.into_iter().map(|mut f| {
            f.exchange = f.exchange.map(|i| i + offset);
            f
        }));
        for mut unjudged in part.inconclusive {
            unjudged.exchange = unjudged.exchange.map(|i| i + offset);
            self.inconclusive.push(unjudged);
        }
        if self.blocked.is_none() {
            self.blocked = part.blocked;
        }
        self.refused = part.refused.or(self.refused.take());
        self.tally.absorb(part.tally);
        self.shapes.absorb(part.shapes, offset);
    }

    /// Waits until every case of the plan that does not wait so has finished, giving up
    /// meanwhile what the case holds that they may need (its place among the `--concurrency`
    /// cases at once, its phase). Only a case the plan marks ([`super::Case::waits_for_others`])
    /// holds a seat to give up: for any other (or outside a run) it returns at once.
    pub async fn wait_for_others(&mut self) {
        if let Some(seat) = self.seat.as_mut() {
            seat.wait_for_others().await;
        }
    }

    /// A request of `op` built from the operations table (see [`Call`]).
    pub fn call(&self, op: OperationId) -> Call<'static> {
        Call::new(self.run.clone(), op)
    }

    /// Sends a request of its operation, records it and applies the generic checks: a
    /// [`Call`], or an [`Outgoing`] request.
    pub async fn send(&mut self, request: impl Into<Outgoing>) -> Result<Response, Abort> {
        self.send_judged(request, |_, _, _| {}).await
    }

    /// Sends a request of its operation without recording it: a future that borrows nothing
    /// from the case, so that a case can have several in flight and [`CaseCx::record`] their
    /// outcomes in order.
    pub fn dispatch(
        &self,
        request: impl Into<Outgoing>,
    ) -> impl Future<Output = Dispatched> + Send + 'static {
        self.dispatch_as(request, Urgency::Batch)
    }

    /// [`CaseCx::dispatch`], waiting for a lane in the queue `urgency` names.
    fn dispatch_as(
        &self,
        request: impl Into<Outgoing>,
        urgency: Urgency,
    ) -> impl Future<Output = Dispatched> + Send + 'static {
        let Outgoing { operation, request } = request.into();
        self.dispatch_of(Some(operation), request, urgency)
    }

    fn dispatch_of(
        &self,
        operation: Option<OperationId>,
        request: Request,
        urgency: Urgency,
    ) -> impl Future<Output = Dispatched> + Send + 'static {
        let refused = operation
            .and_then(|op| self.undeclared(op))
            .or_else(|| forbidden_delete(&self.run, &request));
        let run = self.run.clone();
        async move {
            let outcome = match refused {
                Some(why) => Err(why),
                None => Ok(run.target.send(&request, urgency).await),
            };
            Dispatched {
                operation,
                request,
                outcome,
            }
        }
    }

    /// Sends a request per item, up to [`WINDOW`] at once, and hands each answer to `judge` in
    /// the order of the items; a finding `judge` records points at that exchange. `judge`
    /// returns false to stop: no further request is sent, and those already in flight are
    /// recorded (and pass the generic checks) without being judged. Those in flight when the
    /// case is cut short (a transport error, the run stopping) are abandoned.
    pub async fn send_each<T: Send + 'static>(
        &mut self,
        mut items: impl Iterator<Item = (T, Outgoing)>,
        mut judge: impl FnMut(&mut CaseCx, T, &Request, &Response) -> bool,
    ) -> Outcome {
        // Polled in the case's own task: no task spawned per request.
        let mut in_flight = FuturesOrdered::new();
        let mut judging = true;
        loop {
            while judging && in_flight.len() < WINDOW {
                let Some((item, request)) = items.next() else {
                    break;
                };
                let sending = self.dispatch(request);
                in_flight.push_back(async move { (item, sending.await) });
            }
            let Some((item, dispatched)) = in_flight.next().await else {
                return Ok(());
            };
            self.record_judged(dispatched, |cx, request, response| {
                if judging {
                    judging = judge(cx, item, request, response);
                }
            })?;
        }
    }

    /// Records a dispatched request and applies the generic checks of its operation.
    pub fn record(&mut self, dispatched: Dispatched) -> Result<Response, Abort> {
        self.record_judged(dispatched, |_, _, _| {})
    }

    /// Sends a request like [`CaseCx::send`], letting `judge` look at the response before it
    /// is recorded: the exchange is kept when `judge` records a finding.
    pub async fn send_judged(
        &mut self,
        request: impl Into<Outgoing>,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        // The case waits on this one alone: it goes before the batches (`client::Urgency`).
        let dispatched = self.dispatch_as(request, Urgency::Chain).await;
        self.record_judged(dispatched, judge)
    }

    /// Sends a request that is no operation of the spec (a method the spec does not list on a
    /// stated path), letting `judge` look at the answer: no generic check of an operation
    /// applies, and the answer counts toward no operation's statuses or shapes.
    pub async fn send_unlisted(
        &mut self,
        request: Request,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        let dispatched = self.dispatch_of(None, request, Urgency::Chain).await;
        self.record_judged(dispatched, judge)
    }

    /// Records a dispatched request like [`CaseCx::record`], letting `judge` look at the
    /// request and its response first. The exchange is kept (built, redacted, its `curl`
    /// command rendered) only when a finding refers to it, a transport error ended it, or the
    /// case keeps all; most generated bodies need none of that. Every exchange of a case is
    /// recorded here.
    pub fn record_judged(
        &mut self,
        dispatched: Dispatched,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        let Dispatched {
            operation,
            request,
            outcome,
        } = dispatched;
        let (sent, outcome) = outcome.map_err(Abort::Defect)?;
        self.sent.fetch_add(sent.tries as usize, Ordering::Relaxed);
        let first = self.findings.len();
        if let (Ok(response), Some(operation)) = (&outcome, operation) {
            self.watch_fixtures(&request, response);
            self.tally.response(operation, response.status);
            self.shapes.response(operation, &request, response);
            let accepted = response.is_success();
            if let Some(body) = request.body.as_ref().and_then(crate::client::Body::json) {
                self.run.exercise.answered(operation, body, accepted);
            }
            if accepted {
                let run = &self.run;
                let name = |key: &str| run.fixture(key);
                run.exercise.accepted_params(operation, &request, name);
            }
            let generic = check::generic(self.run.catalogue, operation, &request, response);
            for rule in generic.judged {
                self.tally.judged(rule);
            }
            self.findings.extend(generic.findings);
        }
        if let Ok(response) = &outcome {
            judge(self, &request, response);
        }
        // The first answer of each operation, status and kind is kept as the example the spec
        // owners' section shows.
        let listed = operation.is_some() && outcome.is_ok();
        let example = listed && self.shapes.wants_example();
        // A request the budget, `--read-only` or a stop held back never left: no exchange.
        let held = sent.tries == 0 && outcome.is_err();
        if !held && (self.keep_all || self.findings.len() > first || outcome.is_err() || example) {
            let index = self.exchanges.len();
            let exchange = self.run.target.exchange(request, &sent, &outcome);
            self.exchanges.push(exchange);
            if listed {
                self.shapes.kept(index);
            }
            for f in &mut self.findings[first..] {
                f.exchange = Some(index);
            }
        }
        match outcome {
            Ok(response) => Ok(response),
            Err(SendError::Stopped) => Err(Abort::Skip(format!(
                "{}: stopped before the case ended",
                self.run.stop_reason()
            ))),
            Err(e @ (SendError::BudgetExhausted | SendError::ReadOnly(_))) => {
                Err(Abort::Skip(e.to_string()))
            }
            Err(e) => Err(Abort::Transport(crate::client::redact(
                &e.to_string(),
                self.run.target.secrets(),
            ))),
        }
    }

    /// Success confirms the fixtures a request carried; a 404 is kept for
    /// [`CaseCx::blame_profile`].
    fn watch_fixtures(&mut self, request: &Request, response: &Response) {
        if response.is_success() {
            self.run.watch.confirm(request);
        } else if response.status == 404 {
            self.refused = Some(request.clone());
        }
    }

    /// A response the case expected to be a success was refused: when it is the 404 of the
    /// last such request and that request carried a fixture the target has not confirmed, the
    /// profile is at fault, not the target. The case is then blocked (the runner reports it as
    /// blocked by the profile) and `true` returned; otherwise `false`.
    pub fn blame_profile(&mut self, response: &Response) -> bool {
        if response.status != 404 {
            return false;
        }
        let Some(request) = self.refused.take() else {
            return false;
        };
        match self.run.watch.blame(&request, response) {
            Some(problem) => {
                self.blocked.get_or_insert(problem);
                true
            }
            None => false,
        }
    }
}

/// The refusal of a request of `operation` by `case`, which declares `operations`: `None` when
/// it declares it.
fn undeclared(case: &str, operations: &[OperationId], operation: OperationId) -> Option<String> {
    (!operations.contains(&operation)).then(|| {
        format!(
            "covenant defect: case {case} tried to send a request of {}, which it does not \
             declare (Case::also or Case::sends), and it was not sent: a case's needs and skips \
             follow from what it declares; please report it",
            operation.as_str()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_of_an_operation_the_case_does_not_declare_is_refused_as_covenants_defect() {
        let declared = [OperationId::ListEvents, OperationId::GetVatId];
        assert_eq!(
            undeclared("events.x", &declared, OperationId::GetVatId),
            None
        );
        let why =
            undeclared("events.x", &declared, OperationId::CreateReceivable).expect("refused");
        assert!(why.starts_with("covenant defect: case events.x"), "{why}");
        assert!(
            why.contains(OperationId::CreateReceivable.as_str()),
            "{why}"
        );
        assert!(why.contains("it was not sent"), "{why}");
    }
}
