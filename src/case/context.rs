//! What a case sees while it runs ([`CaseCx`]: the run, and a recorder of exchanges and
//! findings), and how its requests are sent and recorded.
//!
//! Every request a case sends goes through [`CaseCx::send`], which records the exchange and
//! applies the generic checks (no 5xx, JSON bodies, error body shapes, declared statuses) so
//! that no case can forget them. A case never decides a rule's level: it names the rule, and the
//! catalogue says whether a breach fails or warns.

use super::{Behaviour, RunCx, Tally};
use crate::check;
use crate::client::{Request, Response, SendError, Sent};
use crate::schema::OperationId;
use crate::verdict::{Exchange, Finding, Inconclusive};
use futures_util::stream::{FuturesOrdered, StreamExt};
use std::future::Future;
use std::pin::Pin;
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

/// A request sent by [`CaseCx::dispatch`], waiting to be recorded.
pub struct Dispatched {
    request: Request,
    /// `Err` when covenant refused to send it (staging safety).
    outcome: Result<(Sent, Result<Response, SendError>), String>,
}

/// One case's view of the run, and its record.
pub struct CaseCx {
    pub run: Arc<RunCx>,
    pub exchanges: Vec<Exchange>,
    pub findings: Vec<Finding>,
    /// Requests sent, including those whose exchanges were not kept.
    pub requests: usize,
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
    pub behaviour: Behaviour,
}

impl CaseCx {
    pub fn new(run: Arc<RunCx>) -> CaseCx {
        CaseCx {
            run,
            exchanges: Vec::new(),
            findings: Vec::new(),
            requests: 0,
            keep_all: true,
            payload: None,
            blocked: None,
            inconclusive: Vec::new(),
            refused: None,
            tally: Tally::default(),
            behaviour: Behaviour::default(),
        }
    }

    /// A fresh record for part of this case that runs beside its other parts (independent
    /// request chains, such as reads of one list at several page sizes); [`CaseCx::join`] folds
    /// it back. Against a remote target, chains side by side take the time of the longest.
    pub fn fork(&self) -> CaseCx {
        CaseCx {
            keep_all: self.keep_all,
            ..CaseCx::new(self.run.clone())
        }
    }

    /// Folds a part made by [`CaseCx::fork`] back into this case's record, after what it holds:
    /// exchanges (findings keep pointing at theirs), findings, requests, variants left
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
        self.requests += part.requests;
        if self.blocked.is_none() {
            self.blocked = part.blocked;
        }
        self.refused = part.refused.or(self.refused.take());
        self.tally.absorb(part.tally);
        self.behaviour.absorb(part.behaviour, offset);
    }

    /// Sends a request for `operation`, records it and applies the generic checks.
    pub async fn send(
        &mut self,
        operation: OperationId,
        request: Request,
    ) -> Result<Response, Abort> {
        let dispatched = self.dispatch(request).await;
        self.record(operation, dispatched)
    }

    /// Sends a request without recording it: a future that borrows nothing from the case, so
    /// that a case can have several in flight and [`CaseCx::record`] their outcomes in order.
    pub fn dispatch(&self, request: Request) -> impl Future<Output = Dispatched> + Send + 'static {
        let refused = self.forbidden_delete(&request);
        let run = self.run.clone();
        async move {
            let outcome = match refused {
                Some(why) => Err(why),
                None => Ok(run.target.send(&request).await),
            };
            Dispatched { request, outcome }
        }
    }

    /// Sends a request per item, up to [`WINDOW`] at once, and hands each answer to `judge` in
    /// the order of the items; a finding `judge` records points at that exchange. `judge`
    /// returns false to stop: no further request is sent, and those already in flight are
    /// recorded (and pass the generic checks) without being judged. Those in flight when the
    /// case is cut short (a transport error, the run stopping) are abandoned.
    pub async fn send_each<T: Send + 'static>(
        &mut self,
        operation: OperationId,
        mut items: impl Iterator<Item = (T, Request)>,
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
            self.record_judged(operation, dispatched, |cx, request, response| {
                if judging {
                    judging = judge(cx, item, request, response);
                }
            })?;
        }
    }

    /// Records a dispatched request of `operation` and applies the generic checks.
    pub fn record(
        &mut self,
        operation: OperationId,
        dispatched: Dispatched,
    ) -> Result<Response, Abort> {
        self.record_judged(operation, dispatched, |_, _, _| {})
    }

    /// Sends a request like [`CaseCx::send`], letting `judge` look at the response before it
    /// is recorded: the exchange is kept when `judge` records a finding.
    pub async fn send_judged(
        &mut self,
        operation: OperationId,
        request: Request,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        let dispatched = self.dispatch(request).await;
        self.record_judged(operation, dispatched, judge)
    }

    /// Records a dispatched request like [`CaseCx::record`], letting `judge` look at the
    /// request and its response first. The exchange is kept (built, redacted, its `curl` command rendered) only
    /// when a finding refers to it, a transport error ended it, or the case keeps all; most
    /// generated bodies need none of that.
    pub fn record_judged(
        &mut self,
        operation: OperationId,
        dispatched: Dispatched,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        self.record_of(Some(operation), dispatched, judge)
    }

    /// Sends a request that is no operation of the spec (a method the spec does not list on a
    /// stated path), letting `judge` look at the answer: no generic check of an operation
    /// applies, and the answer counts toward no operation's statuses or shapes.
    pub async fn send_unlisted(
        &mut self,
        request: Request,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        let dispatched = self.dispatch(request).await;
        self.record_of(None, dispatched, judge)
    }

    fn record_of(
        &mut self,
        operation: Option<OperationId>,
        dispatched: Dispatched,
        judge: impl FnOnce(&mut CaseCx, &Request, &Response),
    ) -> Result<Response, Abort> {
        let Dispatched { request, outcome } = dispatched;
        let (sent, outcome) = outcome.map_err(Abort::Defect)?;
        self.requests += 1 + sent.retries as usize;
        let first = self.findings.len();
        if let (Ok(response), Some(operation)) = (&outcome, operation) {
            self.watch_fixtures(&request, response);
            self.tally.response(operation, response.status);
            self.behaviour.response(operation, &request, response);
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
        let example = listed && self.behaviour.wants_example();
        if self.keep_all || self.findings.len() > first || outcome.is_err() || example {
            let index = self.exchanges.len();
            let exchange = self.run.target.exchange(&request, &sent, &outcome);
            self.exchanges.push(exchange);
            if listed {
                self.behaviour.kept(index);
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
